"""list_dir: what is in a folder, with kinds and sizes."""

from __future__ import annotations

import os
from typing import Any

from ..workspace import bucket_of
from .base import Tool, ToolContext, ToolOutcome, error, resolve, str_arg

MAX_ENTRIES = 300


def human_size(n: int) -> str:
    size = float(n)
    for unit in ("B", "KB", "MB", "GB"):
        if size < 1024 or unit == "GB":
            return f"{size:.0f} {unit}" if unit == "B" else f"{size:.1f} {unit}"
        size /= 1024
    return f"{n} B"


class ListDir(Tool):
    name = "list_dir"
    description = (
        "List a folder of the experiment material: sub-folders end with '/', files show "
        "their kind and size. Paths are relative to the material's root; '.' is the root."
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
    concurrency_safe = True

    def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolOutcome:
        rel = str_arg(args, "path", ".") or "."
        target = resolve(ctx, rel)
        if not target.exists():
            return error(
                f"{rel}: no such folder",
                f"There is no folder '{rel}'. Call list_dir('.') to see what exists.",
            )
        if not target.is_dir():
            return error(
                f"{rel}: not a folder",
                f"'{rel}' is a file, not a folder. Use read_file to read it.",
            )
        try:
            entries = sorted(os.scandir(target), key=lambda e: (not e.is_dir(), e.name.lower()))
        except OSError as e:
            return error(f"{rel}: unreadable", f"Cannot list '{rel}': {e.strerror}.")
        lines = []
        for entry in entries[:MAX_ENTRIES]:
            hidden = " (hidden)" if entry.name.startswith(".") else ""
            try:
                if entry.is_dir():
                    lines.append(f"{entry.name}/{hidden}")
                else:
                    size = entry.stat().st_size
                    lines.append(
                        f"{entry.name}\t{bucket_of(entry.name)}\t{human_size(size)}{hidden}"
                    )
            except OSError as e:
                lines.append(f"{entry.name}\tunreadable: {e.strerror}")
        shown = rel if rel not in ("", ".") else "."
        if not entries:
            return ToolOutcome(True, f"'{shown}' is empty.", f"{shown}: empty", productive=False)
        more = len(entries) - MAX_ENTRIES
        tail = f"\n… and {more} more entries not shown." if more > 0 else ""
        return ToolOutcome(
            ok=True,
            content=f"Contents of '{shown}' ({len(entries)} entries):\n" + "\n".join(lines) + tail,
            summary=f"{shown}: {len(entries)} entries",
        )
