"""The pipeline's last draft, the person's edit of it, and what changed between them."""

from __future__ import annotations

import difflib
from pathlib import Path

from labwright.core.events import Draft
from labwright.core.report.review.files import journal
from labwright.core.rundir.layout import RunDir
from labwright.core.rundir.names import diff_labels


def generated_draft(run_dir: Path) -> str:
    """The last version the pipeline wrote: the baseline of the diff view.

    drafts/v<N>.tex where N is the version of the journal's last `draft` event,
    else the highest N; "" when the run has no draft.
    """
    run = RunDir(Path(run_dir))
    drafts = run.draft_files()  # none when drafts/ is a link (RunLinkError) or unreadable
    if not drafts:
        return ""
    announced = [e.version for e in journal(run_dir) if isinstance(e, Draft)]
    last = announced[-1] if announced else None
    return run.read_draft(last if last in drafts else max(drafts))


def save_edit(run_dir: Path, text: str) -> None:
    """Write the person's version to report.tex, atomically (temp file + rename).

    Cheap to call every second: an unchanged text is not written again (so the
    file's time stays and latexmk sees nothing new). drafts/ is never touched.
    """
    run = RunDir(Path(run_dir))
    try:
        if run.report_bytes() == text.encode("utf-8"):
            return
    except OSError:
        pass
    run.save_report(text)


def diff_lines(before: str, after: str) -> list[tuple[str, str]]:
    """What changed from `before` to `after`, as (op, text) hunks in order.

    op is "equal", "delete" or "insert"; text is whole lines with their line
    ends. A changed block is a "delete" hunk (the old lines) followed by an
    "insert" hunk (the new ones), so a view can colour each side; "replace" is
    never returned. Joining the "equal" and "insert" texts gives `after` back.
    """
    a, b = before.splitlines(keepends=True), after.splitlines(keepends=True)
    hunks: list[tuple[str, str]] = []
    matcher = difflib.SequenceMatcher(None, a, b, autojunk=False)
    for op, i1, i2, j1, j2 in matcher.get_opcodes():
        if op in ("delete", "replace"):
            hunks.append(("delete", "".join(a[i1:i2])))
        if op in ("insert", "replace"):
            hunks.append(("insert", "".join(b[j1:j2])))
        if op == "equal":
            hunks.append(("equal", "".join(a[i1:i2])))
    return hunks


def unified_diff(before: str, after: str, context: int = 3) -> str:
    """The same change as a unified diff (generated draft -> report.tex)."""
    return "".join(
        difflib.unified_diff(
            before.splitlines(keepends=True),
            after.splitlines(keepends=True),
            *diff_labels(),
            n=context,
        )
    )
