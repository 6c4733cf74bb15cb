"""make_figure's sandbox: a static check of the code, then an isolated child process.

Layer 1 (static_check) refuses disallowed imports, names and dunder access before
anything runs. Layer 2 (runner + harness) runs the code in a separate interpreter
with a scrubbed environment, resource limits, a wall-clock timeout and an audit
hook that fences files, processes, sockets and dynamic code. The parent copies
validated PDF/PNG files into the run's figures/ folder with provenance beside them.
"""

from __future__ import annotations

from labwright.core.agent.sandbox.result import FigureResult
from labwright.core.agent.sandbox.runner import run_figure
from labwright.core.agent.sandbox.static_check import check_code

__all__ = ["FigureResult", "check_code", "run_figure"]
