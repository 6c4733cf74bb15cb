"""list_dir: what is in a folder, with kinds and sizes, and the tables in its data files."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from labwright.core.agent.tools.base import (
    Tool,
    ToolContext,
    ToolOutcome,
    ToolTraits,
    error,
    open_target,
    str_arg,
)
from labwright.core.material.tables.outline import Outline, outline, series_line
from labwright.core.material.workspace import ScanEntry, describe_entry, safe_name
from labwright.core.step_words import Words

MAX_ENTRIES = 300


def human_size(n: int) -> str:
    size = float(n)
    for unit in ("B", "KB", "MB", "GB"):
        if size < 1024 or unit == "GB":
            return f"{size:.0f} {unit}" if unit == "B" else f"{size:.1f} {unit}"
        size /= 1024
    return f"{n} B"


def _line(e: ScanEntry) -> str:
    """One entry for the model; names are shown escaped (safe_name), problems said in words."""
    hidden = " (hidden)" if e.hidden else ""
    if e.note:  # a link loop, a link outside, a device, unreadable: listed, not hidden
        return f"{e.rel}{'/' if e.is_dir else ''}\t{e.note}"
    if e.is_dir:
        return f"{e.rel}/{hidden}"
    return f"{e.rel}\t{e.bucket}\t{human_size(e.size)}{hidden}"


def _lines(entries: list[ScanEntry], found: Outline, prefix: str) -> list[str]:
    """The entries, each data file followed by its tables; a series of files alike once.
    `prefix` is the listed folder relative to the root ("" for the root)."""
    out: list[str] = []
    done: set[int] = set()
    for e in entries:
        key = prefix + e.rel
        s = found.series_of(key) if e.bucket == "data" and not e.note else None
        if s is not None:
            if id(s) not in done:
                done.add(id(s))
                size = sum(x.size for x in entries if prefix + x.rel in s.sources)
                name = s.pattern.removeprefix(prefix)
                out.append(f"{safe_name(name, escape_backslash=False)}\tdata\t"
                           f"{len(s.tables)} files, {human_size(size)} in all")  # fmt: skip
                out.append("  " + safe_name(series_line(s), escape_backslash=False))
            continue
        out.append(_line(e))
        out += [f"  {safe_name(x, escape_backslash=False)}" for x in found.per_file.get(key, [])]
    if found.more:
        out.append(f"  (+{found.more} more tables not described: read the files to see them)")
    return out


class ListDir(Tool):
    name = "list_dir"
    description = (
        "List a folder of the experiment material: sub-folders end with '/', files show "
        "their kind and size, data files the tables found in them (cell range or lines, "
        "rows, header with units); many files alike are one line. Paths are relative to "
        "the material's root; '.' is the root. "
        "Odd characters in names are shown escaped (e.g. \\x1b); pass names back as shown."
    )
    parameters = {
        "type": "object",
        "properties": {
            "path": {
                "type": "string",
                "description": "Folder relative to the root.",
                "default": ".",
            }
        },
        "required": [],
    }
    traits = ToolTraits(concurrency_safe=True, lists=True)

    def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolOutcome:
        rel = str_arg(args, "path", ".") or "."
        shown = safe_name(rel, escape_backslash=False) if rel not in ("", ".") else "."
        opened = open_target(ctx, rel, shown, "folder")
        if isinstance(opened, ToolOutcome):
            return opened
        root_real = os.path.realpath(ctx.root)
        with opened:
            if not opened.is_dir:
                return error(
                    Words("not_a_folder", path=shown),
                    f"'{shown}' is a file, not a folder. Use read_file to read it.",
                    fault="call",
                )
            try:
                # One bad entry (a link loop, an unreadable file) must not hide the others:
                # describe_entry never raises, so neither does the sort. The listing is
                # of the descriptor: the folder inside, even if its name changed since.
                parent = str(opened.path)
                entries = [describe_entry(e, parent, root_real) for e in opened.scandir()]
            except OSError as e:
                return error(
                    Words("unreadable", path=shown),
                    f"Cannot list '{shown}': {e.strerror}.",
                    fault="file",
                )
        entries.sort(key=lambda e: (not e.is_dir, e.rel.lower(), e.rel))
        listed = entries[:MAX_ENTRIES]
        prefix = Path(os.path.relpath(opened.path, root_real)).as_posix() + "/"
        prefix = "" if prefix == "./" else prefix
        data = [
            prefix + e.rel for e in listed if e.bucket == "data" and not e.note and not e.hidden
        ]
        lines = _lines(listed, outline(Path(ctx.root), data), prefix)
        if not entries:
            return ToolOutcome(
                True, f"'{shown}' is empty.", Words("list_empty", path=shown), productive=False
            )
        more = len(entries) - MAX_ENTRIES
        tail = f"\n… and {more} more entries not shown." if more > 0 else ""
        return ToolOutcome(
            ok=True,
            content=f"Contents of '{shown}' ({len(entries)} entries):\n" + "\n".join(lines) + tail,
            summary=Words("listed", path=shown, count=len(entries)),
        )
