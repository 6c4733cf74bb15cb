"""The value make_figure hands back to the tool wrapper."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path


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
