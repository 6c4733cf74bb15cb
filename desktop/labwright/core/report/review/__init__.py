"""Review of a finished run: open items, why it is degraded, edits, diff, recompile.

Pure Python, no Qt: the review pane (gui/review_pane.py), the CLI's export and
report/export.py call these and show the results. Everything works on the
*current* report.tex of a run directory (or a text the caller passes), so the
list follows the person's edits.

- `items` — `open_items`: what still needs a person (TODO markers, unmet
  requirements, unresolved citations, compile errors and warnings, figures not in
  the report, numbers not found in the material), each with the line to jump to.
- `explain` — `why_degraded`: the banner, from core/reasons.py's table plus what
  this run adds (which guard, on which call, what had been read).
- `edits` — `generated_draft` / `save_edit` / `diff_lines` / `unified_diff`: the
  pipeline's last draft (never touched by edits), the person's version (written
  atomically), and what changed between them.
- `build` — `recompile`: builds report.tex in `build-review/` and publishes
  report.pdf (and report.synctex.gz) only after a successful build.
- `files` and `text` — what those share: reading the run directory's files, and
  LaTeX reduced to one-line messages.
"""

from labwright.core.report.review.build import REVIEW_BUILD, recompile
from labwright.core.report.review.edits import (
    diff_lines,
    generated_draft,
    save_edit,
    unified_diff,
)
from labwright.core.report.review.explain import why_degraded
from labwright.core.report.review.items import KINDS, OpenItem, included_figures, open_items

__all__ = [
    "KINDS",
    "REVIEW_BUILD",
    "OpenItem",
    "diff_lines",
    "generated_draft",
    "included_figures",
    "open_items",
    "recompile",
    "save_edit",
    "unified_diff",
    "why_degraded",
]
