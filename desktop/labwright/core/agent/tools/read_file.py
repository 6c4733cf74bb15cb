"""read_file: any file as paged lines (text, tables, documents, notebooks)."""

from __future__ import annotations

from typing import Any

from labwright.core.agent.tools.base import (
    Tool,
    ToolContext,
    ToolOutcome,
    ToolTraits,
    error,
    int_arg,
    open_target,
    rel_key,
    str_arg,
)
from labwright.core.material.evidence import record_of_page
from labwright.core.material.readers import ReadCancelled, ReadError, read_page
from labwright.core.material.workspace import safe_name
from labwright.core.step_words import Words


class ReadFile(Tool):
    name = "read_file"
    description = (
        "Read a file of the material as lines of text: plain text and CSV as they are, "
        "spreadsheets sheet by sheet, PDF page by page, DOCX paragraphs and tables, "
        "notebooks cell by cell. Long files come in pages: pass `offset` (first line, "
        "0-based) to continue where the previous page ended. Very large files are read up "
        "to a limit; the note says where reading stopped."
    )
    parameters = {
        "type": "object",
        "properties": {
            "path": {"type": "string", "description": "File path relative to the root."},
            "offset": {"type": "integer", "description": "First line, 0-based.", "default": 0},
            "limit": {"type": "integer", "description": "Number of lines (optional)."},
        },
        "required": ["path"],
    }
    traits = ToolTraits(concurrency_safe=True, reads=True)

    def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolOutcome:
        rel = str_arg(args, "path")
        offset = int_arg(args, "offset", 0) or 0
        limit = int_arg(args, "limit", None)
        if limit == 0:
            limit = None
        # The model's own string, but it reaches the log and the app: raw controls escaped.
        shown = safe_name(rel, escape_backslash=False)
        opened = open_target(ctx, rel, shown, "file")
        if isinstance(opened, ToolOutcome):
            return opened
        with opened:
            if opened.is_dir:
                return error(
                    Words("is_a_folder", path=shown),
                    f"'{shown}' is a folder, not a file: call list_dir('{shown}') to see its files.",
                    fault="call",
                )
            try:
                page = read_page(opened, offset, limit, cancelled=ctx.cancelled)
            except ReadCancelled:
                return error(
                    Words("read_cancelled", path=shown), f"Reading '{shown}' was cancelled."
                )
            except ReadError as e:
                # Messages name the real file, whose name may hold raw bytes or controls.
                why = safe_name(str(e), escape_backslash=False)
                return error(
                    Words("cannot_read", path=shown, why=why),
                    f"Cannot read '{shown}': {why}",
                    fault="file",
                )
        rel = shown
        header = f"[{rel} · {page.kind} · lines {page.offset}–{page.end}"
        header += f" of {page.total}]" if page.total is not None else "]"
        content = (
            f"{header}\n{page.text}\n[{page.note}]" if page.text else f"{header}\n[{page.note}]"
        )
        code = ("lines" if page.total is None else "lines_of") + ("" if page.productive else "_old")
        total = {} if page.total is None else {"total": page.total}
        summary = Words(code, path=rel, start=page.offset, end=page.end, **total)
        evidence = record_of_page(rel, page) if page.productive and page.text else None
        return ToolOutcome(
            ok=True,
            content=content,
            summary=summary,
            productive=page.productive,
            coverage=(rel_key(ctx.root, opened.path), page.offset, page.end)
            if page.end > page.offset
            else None,
            evidence=evidence,
        )
