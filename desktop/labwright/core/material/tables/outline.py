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

from labwright.core.material.tables import FileTables, scan_tables
from labwright.core.material.tables.screen import screen
from labwright.core.material.tables.series import Series, find_series
from labwright.core.material.workspace import PathDenied, open_in_folder

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
    if table.transposed:
        note += " (written sideways: one quantity per sheet row)"
    if table.family is not None:
        f = table.family
        unit = f" {f.unit}" if f.unit else ""
        note += f" (a family of {len(f.labels)} curves by {f.label}: {', '.join(f.labels)}{unit})"
    if table.summaries:
        shown = "; ".join(x.describe().removeprefix("summary cell ") for x in table.summaries[:3])
        more = f"; +{len(table.summaries) - 3} more" if len(table.summaries) > 3 else ""
        note += f" (summaries, not rows: {shown}{more})"
    return f"{where}, {table.n_rows} rows{note}: {_header(table)}"


MAX_STATED = 4  # stated values named per file


def stated_line(ft: FileTables) -> str | None:
    """ "stated: Voperating = 1010 V (Sheet1!A28:C28); …" — values written beside the data."""
    if not ft.stated:
        return None
    shown = "; ".join(
        f"{x.name} = {x.written}{' ' + x.unit if x.unit else ''} ({x.where})"
        for x in ft.stated[:MAX_STATED]
    )
    more = f"; +{len(ft.stated) - MAX_STATED} more" if len(ft.stated) > MAX_STATED else ""
    return f"stated: {shown}{more}"


def left_out_lines(ft: FileTables) -> list[str]:
    """ "left out: lines 1–30: the instrument's settings …" — kept out of the data, and why."""
    return [
        f"left out: {x.where + ': ' if x.where else ''}{x.why}" for x in ft.left_out[:MAX_PER_FILE]
    ]


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
    out = Outline()
    found: list[FileTables] = []
    rels = list(rels)
    skipped = screen(folder, rels[:MAX_FILES])
    for rel in rels:
        if rel in skipped:
            found.append(FileTables(rel, [], [], "", left_out=[skipped[rel]]))
            continue
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
        said = {x.where for x in ft.left_out}
        ranges = [r for r in ft.leftover_ranges() if r not in said]  # left out says why
        where = ", ".join(ranges[:3]) + (f" +{len(ranges) - 3} more" if len(ranges) > 3 else "")
        stated = stated_line(ft)
        if not ft.tables and not ft.left_out:
            if stated is not None:
                lines = ["no table; values are stated in it"]
            else:
                lines = [f"no table found (text in {where})" if ranges else "no table found"]
        elif ranges and ft.tables:
            lines.append(f"cells in no table: {where}")
        lines += [line for line in (stated,) if line] + left_out_lines(ft)
        if any(not x.where for x in ft.left_out):  # the whole file: its reason is enough
            lines = left_out_lines(ft)
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
