"""LaTeX: engine probe (once per process), compile, log parsing, escaping.

`from labwright.core.report.latex import compile_tex, probe_engines, ...` is the
public surface; the submodules are implementation detail.
"""

from __future__ import annotations

from labwright.core.report.latex.build import CompileResult, TexBounds, compile_tex, subprocess_env
from labwright.core.report.latex.escape import escape_latex
from labwright.core.report.latex.logparse import (
    LogError,
    parse_blg,
    parse_log,
    parse_warnings,
    source_context,
)
from labwright.core.report.latex.probe import DEBIAN_PACKAGES, NO_ENGINES, Engines, probe_engines

__all__ = [
    "DEBIAN_PACKAGES",
    "NO_ENGINES",
    "CompileResult",
    "Engines",
    "LogError",
    "TexBounds",
    "compile_tex",
    "escape_latex",
    "parse_blg",
    "parse_log",
    "parse_warnings",
    "probe_engines",
    "source_context",
    "subprocess_env",
]
