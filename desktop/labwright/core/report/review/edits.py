"""The pipeline's last draft, the person's edit of it, and what changed between them."""

from __future__ import annotations

import difflib
from pathlib import Path

from labwright.core.report.review.files import journal, read_text
from labwright.core.rundir.store import atomic_write_text


def _draft_number(path: Path) -> int | None:
    digits = path.stem[1:]
    return int(digits) if path.stem.startswith("v") and digits.isdigit() else None


def generated_draft(run_dir: Path) -> str:
    """The last version the pipeline wrote: the baseline of the diff view.

    drafts/v<N>.tex where N is the version of the journal's last `draft` event,
    else the highest N; "" when the run has no draft.
    """
    run_dir = Path(run_dir)
    drafts = {
        n: p for p in (run_dir / "drafts").glob("v*.tex") if (n := _draft_number(p)) is not None
    }
    if not drafts:
        return ""
    announced = [e.get("version") for e in journal(run_dir) if e.get("type") == "draft"]
    last = announced[-1] if announced else None
    return read_text(drafts[last] if last in drafts else drafts[max(drafts)])


def save_edit(run_dir: Path, text: str) -> None:
    """Write the person's version to report.tex, atomically (temp file + rename).

    Cheap to call every second: an unchanged text is not written again (so the
    file's time stays and latexmk sees nothing new). drafts/ is never touched.
    """
    path = Path(run_dir) / "report.tex"
    try:
        if path.read_bytes() == text.encode("utf-8"):
            return
    except OSError:
        pass
    atomic_write_text(path, text)


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
            "generated/report.tex",
            "edited/report.tex",
            n=context,
        )
    )
