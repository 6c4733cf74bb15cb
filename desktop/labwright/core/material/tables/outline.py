"""What the model is told about the data files: the tables in them, in a few lines.

A small local model reads the right ranges when it knows where the tables are:
per file, each table's range (A3:C33, lines 1–52), rows, header (units in it)
and the cells in no table; a series of files alike as one line with its count.
The lines are capped ("+N more"): the model's context is small.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING

from labwright.core.material.tables.series import Series, find_series

if TYPE_CHECKING:
    from labwright.core.material.tables import FileTables, Table

MAX_LINES = 30  # table lines per outline
MAX_PER_FILE = 3  # tables described per file; the rest are counted
MAX_FILES = 60  # data files read for one outline
MAX_FILE_BYTES = 20 * 1024 * 1024  # larger files are named, not read, for an outline
MAX_HEADER = 6  # header cells shown per table


@dataclass
class Outline:
    """`per_file`: source → its lines (tables, cells in no table); `series`: the series,
    whose member files are described once by `series_line`; `more`: lines not shown."""

    per_file: dict[str, list[str]] = field(default_factory=dict)
    series: list[Series] = field(default_factory=list)
    unread: list[str] = field(default_factory=list)  # too large or past MAX_FILES
    more: int = 0

    def series_of(self, source: str) -> Series | None:
        return next((s for s in self.series if source in s.sources), None)

    def lines(self) -> list[str]:
        """Every line in file order, a series once (for the scan summary)."""
        out: list[str] = []
        done: set[int] = set()
        for source, lines in self.per_file.items():
            s = self.series_of(source)
            if s is not None:
                if id(s) not in done:
                    done.add(id(s))
                    out.append(series_line(s))
                continue
            out += [f"{source}: {line}" for line in lines]
        if self.unread:
            out.append(f"not outlined (large or many files): {', '.join(self.unread[:5])}"
                       + (f" +{len(self.unread) - 5} more" if len(self.unread) > 5 else ""))  # fmt: skip
        if self.more:
            out.append(f"+{self.more} more tables not described here")
        return out


def _header(table: Table) -> str:
    cols = table.columns[:MAX_HEADER]
    more = len(table.columns) - len(cols)
    return ", ".join(cols) + (f", +{more} more columns" if more > 0 else "")


def table_line(table: Table) -> str:
    """ "'Part A'!A3:F12, 9 rows: Angle (°), Range (m)" / "lines 1–52, 51 rows: f (Hz), L (dBm)"."""
    where = table.cell_range()
    if table.sheet is not None:
        where = f"'{table.sheet.strip()}'!{where}"
    note = " (template: only set points filled in)" if table.template else ""
    return f"{where}, {table.n_rows} rows{note}: {_header(table)}"


def series_line(s: Series) -> str:
    names = [PurePosixPath(t.source).name for t in s.tables]
    rows = sorted({t.n_rows for t in s.tables})
    each = f"{rows[0]} rows" if len(rows) == 1 else f"{rows[0]}–{rows[-1]} rows"
    return (
        f"{s.pattern}: a series of {len(names)} files alike ({names[0]} … {names[-1]}), "
        f"each {table_line(s.first).split(', ', 1)[0]}, {each}: {_header(s.first)}"
    )


def outline(folder: Path, rels: Iterable[str], *, max_lines: int = MAX_LINES) -> Outline:
    """The tables of the data files `rels` (relative to `folder`), for the model."""
    from labwright.core.material.tables import scan_tables
    from labwright.core.material.workspace import PathDenied, open_in_folder

    out = Outline()
    found: list[FileTables] = []
    for rel in rels:
        try:
            with open_in_folder(folder, rel) as opened:
                size = opened.size
        except (PathDenied, OSError):
            continue
        if len(found) >= MAX_FILES or size > MAX_FILE_BYTES:
            out.unread.append(rel)
            continue
        ft = scan_tables(folder, rel, max_rows=5)  # only counts and ranges are needed
        if ft is not None:
            found.append(ft)
    out.series = find_series(t for ft in found for t in ft.tables)
    budget = max_lines
    paid: set[int] = set()
    for ft in found:
        lines = [table_line(t) for t in ft.tables]
        ranges = ft.leftover_ranges()
        where = ", ".join(ranges[:3]) + (f" +{len(ranges) - 3} more" if len(ranges) > 3 else "")
        if not ft.tables:
            lines = [f"no table found (text in {where})" if ranges else "no table found"]
        elif ranges:
            lines.append(f"cells in no table: {where}")
        if len(ft.tables) > MAX_PER_FILE:
            extra = len(ft.tables) - MAX_PER_FILE
            lines = [*lines[:MAX_PER_FILE], f"+{extra} more tables", *lines[len(ft.tables) :]]
        s = out.series_of(ft.source)
        # A series costs one line for all its files, paid by the first one met.
        cost = len(lines) if s is None else (0 if id(s) in paid else 1)
        if cost > budget:
            out.more += len(ft.tables)
            continue
        budget -= cost
        if s is not None:
            paid.add(id(s))
        out.per_file[ft.source] = lines
    return out
