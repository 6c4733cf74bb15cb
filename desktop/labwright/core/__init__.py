"""The agent core: pure Python, never imports Qt (an import-linter contract checks it).

Packages, top to bottom (a package imports only those below it; see ARCHITECTURE.md):
run/ drives the stages; report/ writes, checks, compiles, reviews and exports;
agent/ is the exploration loop with its tools, guards and figure sandbox;
material/ reads the picked folder; llm/ talks to the model; rundir/ owns the run
directory; settings/ resolves the configuration; the modules here are shared by all.
"""

from __future__ import annotations

from typing import Any

__version__ = "0.1.0"


def __getattr__(name: str) -> Any:
    # DESIGN.md's entry points, imported on first use so that importing a small
    # core module does not import the whole pipeline.
    if name in ("run_agent", "plan_pipeline"):
        from labwright.core.run import pipeline

        return getattr(pipeline, name)
    raise AttributeError(name)
