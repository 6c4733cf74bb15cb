"""Data files kept out before they are read: marked bad by their author, or copies.

A student names a file `run3-do-not-use.csv`, `old_data.xlsx`, `数据(作废).xlsx` to say it
is not to be used; a folder holds `Copy of data.xlsx` with the same bytes as `data.xlsx`.
Such files are left out of the data with a line saying why (the report's "Left out"
list, what list_dir tells the model), never shown as tables of their own.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from pathlib import Path, PurePosixPath

from labwright.core.material.tables.facts import LeftOut
from labwright.core.material.workspace import PathDenied, file_digest, open_in_folder

# Words in a file's name by which its author marks it as not to be used.
MARKS = re.compile(
    r"(?:^|[^a-z])(do[ _.-]*not[ _.-]*use|dont[ _.-]*use|not[ _.-]*used|unused|bad|old|backup"
    r"|bak|deprecated|obsolete|wrong)(?=$|[^a-z])|(作废|废弃|废|错误|勿用|不用)",
    re.I,
)
# Names that say "a copy of another file": of two files with the same bytes, this one goes.
_COPY = re.compile(r"(?:^|[^a-z])(?:copy|kopie|副本)(?:$|[^a-z])|\(\d+\)\s*$|\s-\s\d+$", re.I)
MAX_DIGEST_BYTES = 64 * 1024 * 1024  # larger files are not hashed to find copies


def marked(rel: str) -> str | None:
    """The word by which the file's name marks it as bad ("do-not-use", "作废"), else None."""
    stem = PurePosixPath(rel).stem
    m = MARKS.search(stem)
    return (m.group(1) or m.group(2)) if m else None


def screen(folder: Path, rels: Iterable[str]) -> dict[str, LeftOut]:
    """The files among `rels` to leave out, each with why: a name marking it as bad, or the
    same bytes as another file of the list (the copy goes, the original stays)."""
    out: dict[str, LeftOut] = {}
    by_size: dict[int, list[str]] = {}
    for rel in rels:
        word = marked(rel)
        if word is not None:
            out[rel] = LeftOut(rel, "", "marked", f"its name marks it as not to be used ({word!r})")
            continue
        size = _size(folder, rel)
        if size:
            by_size.setdefault(size, []).append(rel)
    # Only files of one size can be copies of each other: only those are hashed.
    by_digest: dict[str, list[str]] = {}
    for same_size in by_size.values():
        for rel in same_size if len(same_size) > 1 else []:
            try:
                digest, _, _ = file_digest(folder, rel)
            except (PathDenied, OSError):
                continue
            by_digest.setdefault(digest, []).append(rel)
    for same in by_digest.values():
        if len(same) < 2:
            continue
        keep = next((r for r in same if not _COPY.search(PurePosixPath(r).stem)), same[0])
        for rel in same:
            if rel != keep:
                out[rel] = LeftOut(rel, "", "duplicate", f"the same bytes as {keep}")
    return out


def _size(folder: Path, rel: str) -> int:
    """The file's size when it may be hashed (a file, not too large), else 0."""
    try:
        with open_in_folder(folder, rel) as opened:
            return opened.size if not opened.is_dir and opened.size <= MAX_DIGEST_BYTES else 0
    except (PathDenied, OSError):
        return 0
