"""The value make_figure hands back to the tool wrapper."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any


@dataclass(frozen=True)
class FigureResult:
    """Outcome of one sandboxed figure run.

    ok      — the figure(s) were made and copied into figures_dir.
    denied  — refused by the static check or the audit hook (a `sandbox_denied` guard event).
    message — for the model: a short summary on success; on refusal the rule and the
              fix; on failure the last lines of the traceback (about 1500 chars at most).
    pdf/png/meta — figures/<stem>.pdf, .png and .json (None unless ok).
    stdout  — what the code printed (capped): evidence of computed values.
    """

    ok: bool
    denied: bool
    message: str
    pdf: Path | None = None
    png: Path | None = None
    meta: Path | None = None
    stdout: str = ""


@dataclass(frozen=True)
class AnalysisResult:
    """Outcome of one sandboxed analysis run (the analyze tool).

    ok      — the code ran to its end (what it printed is in `stdout`).
    denied  — refused by the static check or the audit hook (a `sandbox_denied` guard event).
    message — for the model: the printed output (clipped) on success; the rule and the fix
              on refusal; the traceback's tail when the code raised.
    stdout  — what the code printed (capped): the evidence a report's numbers trace to.
    results — what show() printed, one {name, value, u, unit, text, line} each: checked
              by the parent (each line is in stdout), never trusted beyond plain values.
    code_error — the code itself raised (the model's to fix), not the sandbox failing.
    inputs  — the declared input files as they were when it ran (SHA-256 and size).
    """

    ok: bool
    denied: bool
    message: str
    stdout: str = ""
    results: list[dict[str, Any]] = field(default_factory=list)
    code_error: bool = False
    inputs: list[dict[str, Any]] = field(default_factory=list)  # {path, sha256, bytes} each
