"""Numeric tables found in data files: deterministic, no model.

Lab data rarely arrives as one tidy table per file. A workbook sheet holds
several tables one under the other, each with a title line ("1st Initial
Velocity"), a line of conditions, a one- or two-row header and a block of
numbers; a text export starts with metadata lines. So every file is first
turned into a *grid* (rows of cells that are a number, a text or empty, each
with its 1-based sheet row or file line) and the tables are found in the grid
the same way for every format:

* a *numeric row* has at least two numbers and at most one text cell per two
  numbers, and no text where the rows around it have numbers;
* a *block* is a run of at least two consecutive numeric rows (an empty row or
  a text row ends it); its columns are those holding a number (a column of
  notes or labels is left out: a Table holds numbers);
* the *header* is up to two text rows right above the block (two-row headers
  are joined per column, "Voltage" over "(V)" gives "Voltage (V)");
* the nearest text lines above the header (at most two) go into the title.

Workbooks often repeat a table next to a chart; a block all of whose columns
already appeared in an earlier table adds nothing and is skipped.
"""

from __future__ import annotations

import csv
import logging
import math
import re
import statistics
import warnings
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from labwright.core.material.readers.delimited import sniff_delimiter
from labwright.core.material.readers.encoding import Encoding
from labwright.core.material.readers.page import clip
from labwright.core.material.readers.sniff import sniff
from labwright.core.material.readers.workbook import check_unpacked_size, format_float
from labwright.core.material.workspace import PathDenied, resolve_in_folder

__all__ = ["Table", "column_stats", "extract_tables"]

log = logging.getLogger(__name__)

# How much of one file is looked at: a 100 MB export must not stall a skeleton
# report, and the first 20,000 rows show every table such a file has.
MAX_SCAN_ROWS = 20_000
MAX_TEXT_BYTES = 16 * 1024 * 1024

_TEXT_KINDS = ("text", "csv", "tsv")
# Instruments write tables under all of these names, or none ("run.001" too).
_TEXT_TABLE_SUFFIXES = frozenset(
    ("", "csv", "tsv", "tab", "txt", "dat", "data", "out", "log", "asc", "prn", "xy", "lvm")
)
_LINE_BREAK = re.compile(r"\r\n|\r|\n")  # the readers' notion of a line


@dataclass(frozen=True)
class Table:
    source: str  # path relative to the folder (posix)
    sheet: str | None  # xlsx sheet name
    first_row: int  # 1-based sheet row or file line of the first numeric row
    last_row: int  # ... and of the last one kept
    title: str
    columns: list[str]
    rows: list[list[float | None]]
    omitted_rows: int = 0  # numeric rows of the block beyond max_rows (not in `rows`)
    # The numbers as a text file writes them ("0.200" keeps its precision),
    # parallel to `rows`; empty for workbooks, whose cells hold bare numbers.
    written: list[list[str | None]] = field(default_factory=list, compare=False)


class _Written(float):
    """A number from a text file that remembers how it was written."""

    text: str


def _written(value: float, text: str) -> _Written:
    number = _Written(value)
    number.text = text
    return number


Cell = float | str | None


@dataclass(frozen=True)
class _GridRow:
    number: int  # 1-based sheet row / file line
    cells: Sequence[Cell]


# --------------------------------------------------------------------------
# Public API
# --------------------------------------------------------------------------


def extract_tables(
    folder: Path, paths: Iterable[str], *, max_tables: int = 24, max_rows: int = 500
) -> list[Table]:
    """The numeric tables of the data files among `paths` (relative to `folder`).

    CSV/TSV/TXT/DAT and extensionless text (delimiter sniffed, encoding as the
    readers detect it) and XLSX/XLSM (every sheet). Files that are not tables,
    cannot be read or are damaged are skipped: this never raises for a file.
    """
    tables: list[Table] = []
    seen_columns: set[tuple[float | None, ...]] = set()
    for rel in paths:
        if len(tables) >= max_tables:
            break
        try:
            found = list(_tables_of_file(folder, rel, max_rows))
        except Exception as e:  # one bad file must never cost the others
            log.debug("no tables from %s: %s", rel, e)
            continue
        for table in found:
            signatures = {_signature(table, j) for j in range(len(table.columns))}
            if signatures <= seen_columns:
                continue  # a repeat of data already shown (workbooks copy tables for charts)
            seen_columns |= signatures
            tables.append(table)
            if len(tables) >= max_tables:
                break
    return tables


def column_stats(table: Table) -> list[dict]:
    """{"name", "n", "min", "max", "mean", "std"} per column that has numbers.

    `std` is the sample standard deviation (n - 1), None for a single value.
    """
    out: list[dict] = []
    for j, name in enumerate(table.columns):
        values = [v for row in table.rows if j < len(row) and (v := row[j]) is not None]
        if not values:
            continue
        out.append(
            {
                "name": name,
                "n": len(values),
                "min": min(values),
                "max": max(values),
                "mean": math.fsum(values) / len(values),
                "std": statistics.stdev(values) if len(values) > 1 else None,
            }
        )
    return out


# --------------------------------------------------------------------------
# Files to grids
# --------------------------------------------------------------------------


def _tables_of_file(folder: Path, rel: str, max_rows: int) -> Iterator[Table]:
    try:
        path = resolve_in_folder(folder, rel)
    except PathDenied:
        return
    if not path.is_file():
        return
    source = PurePosixPath(rel.replace("\\", "/")).as_posix()
    kind = sniff(path)
    if kind.kind == "xlsx":
        for sheet, grid in _xlsx_grids(path):
            yield from _tables_of_grid(grid, source, sheet, max_rows)
    elif kind.kind in _TEXT_KINDS and kind.encoding is not None and _table_suffix(path.suffix):
        yield from _tables_of_grid(_text_grid(path, kind.encoding), source, None, max_rows)


def _table_suffix(suffix: str) -> bool:
    """Text that may hold a table; not code or JSON (.m, .py, .json), whose numbers are no table."""
    suffix = suffix.lower().lstrip(".")
    return suffix in _TEXT_TABLE_SUFFIXES or suffix.isdecimal()


def _xlsx_grids(path: Path) -> Iterator[tuple[str, list[_GridRow]]]:
    import openpyxl

    # openpyxl warns about workbook features it drops when reading (data
    # validation, conditional formats...): irrelevant to values, so silenced here only.
    with open(path, "rb") as fh:
        check_unpacked_size(fh, path.name)  # a shared-string bomb is refused, not inflated
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        wb = openpyxl.load_workbook(path, read_only=True, data_only=True)
        try:
            for ws in wb.worksheets:
                # Saved dimensions are often wrong (too small): read what is really there.
                ws.reset_dimensions()
                grid: list[_GridRow] = []
                for number, values in enumerate(ws.iter_rows(values_only=True), start=1):
                    if number > MAX_SCAN_ROWS:
                        break
                    cells = [_xlsx_cell(v) for v in values]
                    if any(c is not None for c in cells):
                        grid.append(_GridRow(number, cells))
                yield ws.title, grid
        finally:
            wb.close()


def _xlsx_cell(value: object) -> Cell:
    if value is None:
        return None
    if isinstance(value, bool):  # a bool is an int to Python, not a measurement
        return "TRUE" if value else "FALSE"
    if isinstance(value, (int, float)):
        return float(value) if math.isfinite(value) else None
    # Clipped first: one huge shared string may fill every cell of the sheet.
    text = " ".join(clip(str(value)).split())
    if not text:
        return None
    number = _parse_number(text, decimal_comma=False)
    return text if number is None else number


def _text_grid(path: Path, enc: Encoding) -> list[_GridRow]:
    with open(path, "rb") as f:
        f.seek(enc.bom_len)
        raw = f.read(MAX_TEXT_BYTES)
    raw = raw[: len(raw) // enc.unit * enc.unit]
    lines = _LINE_BREAK.split(raw.decode(enc.codec, errors="replace"))[:MAX_SCAN_ROWS]
    found = sniff_delimiter(path, enc)
    delimiter = found[0] if found is not None else _numeric_delimiter(lines)
    # With ";" or tab as the delimiter, "1,25" is a decimal comma (European exports).
    decimal_comma = delimiter not in (None, ",")
    grid: list[_GridRow] = []
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        fields = _split_line(line, delimiter)
        cells = [_text_cell(f, decimal_comma) for f in fields]
        if any(c is not None for c in cells):
            grid.append(_GridRow(number, cells))
    return grid


def _numeric_delimiter(lines: list[str]) -> str | None:
    """The delimiter that splits the most numbers out of the lines, or None (whitespace).

    The readers' sniffer wants most lines to have one field count, which a few
    metadata lines above a short table defeat; here only the numbers count.
    """
    sample = [line for line in lines if line.strip()][:200]
    best: tuple[int, str] | None = None
    for delimiter in ("\t", ";", ",", "|"):
        score = 0
        for line in sample:
            cells = [_text_cell(f, delimiter != ",") for f in _split_line(line, delimiter)]
            numbers, texts = _counts(cells)
            if numbers >= 2:
                score += numbers - texts
        if score > 0 and (best is None or score > best[0]):
            best = (score, delimiter)
    return best[1] if best is not None else None


def _split_line(line: str, delimiter: str | None) -> list[str]:
    if delimiter is not None:
        return next(csv.reader([line], delimiter=delimiter), [])
    # Whitespace-aligned columns (instrument .dat/.txt). Numbers split on any
    # run of blanks; a header like "time (s)   voltage (V)" only on tabs or
    # two or more spaces, so a name with a space stays one column.
    plain = line.split()
    if len(plain) >= 2 and all(_parse_number(p, decimal_comma=False) is not None for p in plain):
        return plain
    wide = [p for p in re.split(r"\t|\s{2,}", line.strip()) if p]
    return wide if len(wide) >= 2 else plain


def _text_cell(text: str, decimal_comma: bool) -> Cell:
    text = text.strip().strip('"').strip()
    if not text:
        return None
    number = _parse_number(text, decimal_comma=decimal_comma)
    return text if number is None else _written(number, text)


_NUMBER = re.compile(r"[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?")


def _parse_number(text: str, *, decimal_comma: bool) -> float | None:
    text = text.strip().replace("\u2212", "-")  # a typographic minus
    if decimal_comma and text.count(",") == 1 and "." not in text:
        text = text.replace(",", ".")
    if not _NUMBER.fullmatch(text):
        return None
    value = float(text)
    return value if math.isfinite(value) else None


# --------------------------------------------------------------------------
# Grids to tables
# --------------------------------------------------------------------------


def _counts(cells: Sequence[Cell]) -> tuple[int, int]:
    numbers = sum(1 for c in cells if isinstance(c, float))
    texts = sum(1 for c in cells if isinstance(c, str))
    return numbers, texts


def _looks_numeric(row: _GridRow) -> bool:
    numbers, texts = _counts(row.cells)
    return numbers >= 2 and numbers >= 2 * texts


def _numeric_flags(grid: list[_GridRow]) -> list[bool]:
    """Which rows are data rows.

    A row with two numbers per word looks like data ("1.0, 10.5, ok" has a
    note column). But a title row that shares its line with a side table
    ("Distance, d2 = m ... 25 0.08") looks so too; it gives itself away by a
    word in a column that is numeric in most rows of its run, and is not data.
    """
    flags = [_looks_numeric(row) for row in grid]
    for start, end in _runs(grid, flags):
        height = end - start
        numbers_in: dict[int, int] = {}
        for row in grid[start:end]:
            for j, c in enumerate(row.cells):
                if isinstance(c, float):
                    numbers_in[j] = numbers_in.get(j, 0) + 1
        numeric_columns = {j for j, n in numbers_in.items() if 2 * n >= height}
        for i in range(start, end):
            cells = grid[i].cells
            if any(isinstance(cells[j], str) for j in numeric_columns if j < len(cells)):
                flags[i] = False
    return flags


def _runs(grid: list[_GridRow], flags: list[bool]) -> Iterator[tuple[int, int]]:
    """(start, end) index ranges into `grid` of >= 2 flagged rows on consecutive lines."""
    start: int | None = None
    for i, row in enumerate(grid):
        contiguous = start is not None and row.number == grid[i - 1].number + 1
        if flags[i] and (start is None or contiguous):
            start = i if start is None else start
            continue
        if start is not None and i - start >= 2:
            yield start, i
        start = i if flags[i] else None
    if start is not None and len(grid) - start >= 2:
        yield start, len(grid)


def _tables_of_grid(
    grid: list[_GridRow], source: str, sheet: str | None, max_rows: int
) -> Iterator[Table]:
    flags = _numeric_flags(grid)
    for start, end in _runs(grid, flags):
        block = grid[start:end]
        columns = sorted(
            {j for row in block for j, c in enumerate(row.cells) if isinstance(c, float)}
        )
        headers, context = _rows_above(grid, flags, start, columns)
        kept = block[:max_rows]
        rows = [[_number_at(row.cells, j) for j in columns] for row in kept]
        written = [[_written_at(row.cells, j) for j in columns] for row in kept]
        yield Table(
            source=source,
            sheet=sheet,
            first_row=kept[0].number,
            last_row=kept[-1].number,
            title=_title(source, sheet, kept[0].number, kept[-1].number, context),
            columns=_column_names(headers, columns),
            rows=rows,
            omitted_rows=len(block) - len(kept),
            written=written if any(any(w) for w in written) else [],
        )


def _number_at(cells: Sequence[Cell], j: int) -> float | None:
    cell = cells[j] if j < len(cells) else None
    return float(cell) if isinstance(cell, float) else None


def _written_at(cells: Sequence[Cell], j: int) -> str | None:
    cell = cells[j] if j < len(cells) else None
    return cell.text if isinstance(cell, _Written) else None


def _filled(cells: Sequence[Cell]) -> list[int]:
    return [j for j, c in enumerate(cells) if c is not None]


def _rows_above(
    grid: list[_GridRow], flags: list[bool], start: int, columns: list[int]
) -> tuple[list[_GridRow], list[str]]:
    """The header rows (top first) and the title context lines (top first) of a block."""
    wanted = set(columns)
    headers: list[_GridRow] = []
    i = start - 1
    expected = grid[start].number - 1
    # Header rows sit right on top of the numbers, with no gap.
    while i >= 0 and len(headers) < 2 and grid[i].number == expected:
        row = grid[i]
        filled = _filled(row.cells)
        numbers, texts = _counts(row.cells)
        # A header names columns: more words than numbers, over the block's columns.
        if texts <= numbers or not wanted.intersection(filled):
            break
        if headers:
            below = _filled(headers[0].cells)
            # A second header row has several cells, or one that completes a
            # single-cell row below it ("Angle, °" over a lone "(V_o)^2" cell);
            # a lone cell over a lone cell in the same column is a title.
            if len(filled) < 2 and (len(below) >= 2 or set(filled) == set(below)):
                break
        headers.insert(0, row)
        i -= 1
        expected -= 1
    context: list[str] = []
    gap = 0
    while i >= 0 and len(context) < 2 and not flags[i]:
        row = grid[i]
        gap += expected - row.number  # blank lines skipped since the last row
        if gap > 2:
            break
        # Only the words: a side table's numbers on the same row are not a title.
        text = " ".join(c for c in row.cells if isinstance(c, str))
        if text:
            context.insert(0, text)
        i -= 1
        expected = row.number - 1
    return headers, context


def _cell_text(cell: Cell) -> str:
    if isinstance(cell, float):
        return format_float(cell)
    return str(cell)


def _column_names(headers: list[_GridRow], columns: list[int]) -> list[str]:
    names: list[str] = []
    for j in columns:
        parts = []
        for row in headers:
            cell = row.cells[j] if j < len(row.cells) else None
            if cell is not None:
                part = _cell_text(cell).strip()
                if part and part not in parts:
                    parts.append(part)
        names.append(" ".join(parts) if parts else f"col {j + 1}")
    # Repeated names would make the report ambiguous: number the repeats.
    counts: dict[str, int] = {}
    unique = []
    for name in names:
        counts[name] = counts.get(name, 0) + 1
        unique.append(name if counts[name] == 1 else f"{name} ({counts[name]})")
    return unique


def _title(source: str, sheet: str | None, first: int, last: int, context: list[str]) -> str:
    name = PurePosixPath(source).name
    where = (
        f"{name} › {sheet.strip()}, rows {first}–{last}"
        if sheet is not None
        else (f"{name}, lines {first}–{last}")
    )
    if context:
        where += " — " + "; ".join(context)
    return where


def _signature(table: Table, j: int) -> tuple[float | None, ...]:
    # Rounded to 12 significant digits, so a value recomputed with other float
    # noise still counts as the same column.
    return tuple(None if row[j] is None else float(f"{row[j]:.12g}") for row in table.rows)
