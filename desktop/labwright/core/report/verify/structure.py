"""The parsed report: its sentences, and the rows, columns and headers of its tables."""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass

from labwright.core.material.evidence import header_unit
from labwright.core.report.verify.markup import _Masked, readable
from labwright.core.report.verify.model import ReportNumber

_BREAKS = re.compile(r"\\(?:(?:sub)*section|paragraph|chapter|item|caption|begin|end)\b|\n[ \t]*\n")
_SPACING = re.compile(r"\\[hv]space\*?\s*\{[^{}]*\}")
_SENTENCE_END = re.compile(r"(?<=[.!?。！？])\s+(?=[A-Z(\\\u4e00-\u9fff])|(?<=[。！？])")


@dataclass
class _Report:
    """The parsed report: its numbers, sentences and tables."""

    tex: str
    masked: _Masked
    numbers: list[ReportNumber]
    bounds: list[int]  # sentence starts
    headers: dict[tuple[int, int], str]  # (table, column) -> header text
    row_text: dict[tuple[int, int], str]

    def segment_span(self, seg: int) -> tuple[int, int]:
        start = self.bounds[seg - 1] if seg > 0 else 0
        end = self.bounds[seg] if seg < len(self.bounds) else len(self.tex)
        return start, end

    def sentence(self, n: ReportNumber) -> str:
        if n.table is not None and n.row is not None:
            text = self.row_text.get((n.table, n.row), "")
            header = self.headers.get((n.table, n.col or 0))
            return f"table row: {text}" + (f" (column: {header})" if header else "")
        a, b = self.segment_span(n.segment)
        return _clip_around(readable(self.masked.display[a:b]), readable(self.tex[n.start : n.end]))


def _clip_around(text: str, needle: str, width: int = 320) -> str:
    if len(text) <= width:
        return text
    at = max(0, text.find(needle))
    a = max(0, at - width // 2)
    return ("…" if a else "") + text[a : a + width].strip() + "…"


def _structure(
    masked: _Masked, numbers: list[ReportNumber]
) -> tuple[list[int], dict[tuple[int, int], str], dict[tuple[int, int], str]]:
    """Sentence boundaries; table rows, columns and headers of the numbers in tables."""
    text = masked.text
    bounds = {m.start() for m in _BREAKS.finditer(masked.tex)}
    bounds |= {m.end() for m in _SENTENCE_END.finditer(text)}
    headers: dict[tuple[int, int], str] = {}
    rows_text: dict[tuple[int, int], str] = {}
    cells_of: list[tuple[int, int, int, int, int]] = []  # (start, end, table, row, col)
    for t, (a, b) in enumerate(masked.tables):
        body = text[a:b]
        row_start = a
        for r, row in enumerate(re.split(r"\\\\", body)):
            bounds.add(row_start)
            cell_start = row_start
            for c, cell in enumerate(re.split(r"(?<!\\)&", row)):
                cells_of.append((cell_start, cell_start + len(cell), t, r, c))
                cell_start += len(cell) + 1
            rows_text[(t, r)] = " | ".join(
                readable(masked.display[s:e]) for s, e, tt, rr, _ in cells_of if (tt, rr) == (t, r)
            )
            row_start += len(row) + 2
        bounds.add(b)
    starts = [c[0] for c in cells_of]
    ordered = sorted(bounds)
    for n in numbers:
        n.segment = bisect.bisect_right(ordered, n.start)
        i = bisect.bisect_right(starts, n.start) - 1
        if i >= 0 and cells_of[i][0] <= n.start < cells_of[i][1]:
            _, _, n.table, n.row, n.col = cells_of[i]
    _table_headers(masked, numbers, cells_of, headers)
    return ordered, headers, rows_text


def _table_headers(
    masked: _Masked,
    numbers: list[ReportNumber],
    cells_of: list[tuple[int, int, int, int, int]],
    headers: dict[tuple[int, int], str],
) -> None:
    """Header cells are the text rows above the first numeric row; their units apply below."""
    numeric_rows = {
        (n.table, n.row)
        for n in numbers
        if n.table is not None and n.row is not None and not n.integer
    }
    first_numeric: dict[int, int] = {}
    for t, r in sorted(numeric_rows):
        first_numeric.setdefault(t, r)
    # a table of integers only (row numbers, counts): its header is above its first number
    for n in sorted(numbers, key=lambda x: (x.table or 0, x.row or 0)):
        if n.table is not None and n.row is not None and n.table not in first_numeric:
            first_numeric[n.table] = n.row
    for s, e, t, r, c in cells_of:
        if r < first_numeric.get(t, 10**9):
            # \hspace{0pt} (a break point before a header's first word) is no part of it
            cell = readable(_SPACING.sub("", masked.display[s:e]))
            if cell:
                headers[(t, c)] = cell
    for n in numbers:
        if n.table is None or n.unit is not None:
            continue
        if n.row is not None and n.row >= first_numeric.get(n.table, 10**9):
            head = headers.get((n.table, n.col or 0))
            if head:
                n.unit = header_unit(head)
