"""The tables of a folder's data files, read as a physicist reads them: deterministic, no model.

Every table of a sheet or file is found (core/material/tables/detect.py: stacked,
side by side, one- or two-row headers, units rows, titles above, merged
cells); each column gets its quantity, unit and role (roles.py: index,
independent variable, measured, uncertainty, category, constant); statistics
are over all rows, streamed (accum.py), and only where they mean something.
What is in no table is listed with its cell range (`FileTables.leftovers`).

Read the way the student meant it (typed records in facts.py): totals and means
under a table are its `summaries`, never rows (summary.py); tables written
sideways are read with rows as columns (transposed.py); curves of one family are
one table with a label column (family.py); values stated beside the data are
`FileTables.stated`; templates, unfilled blocks, an instrument's settings and a
record sheet's form fields are `FileTables.left_out`, with the reason, and so are
files marked bad by their names or copies of another (screen.py).

`extract_tables` gives the tables of many files; `collect_data` (here, with
series.py's grouping) the same with series of similar files gathered into one entry each and a line
for whatever is left out (the offline report, the figures stage);
`scan_tables` one file's tables and left-overs (list_dir).
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path, PurePosixPath

from labwright.core.material.fence import Opened
from labwright.core.material.readers.encoding import Encoding
from labwright.core.material.readers.sniff import sniff
from labwright.core.material.readers.workbook import format_float
from labwright.core.material.tables.accum import Moments
from labwright.core.material.tables.cells import (
    Source,
    TextLayout,
    bulk_numbers,
    is_missing,
    text_layout,
    text_rows,
    xlsx_sources,
)
from labwright.core.material.tables.detect import Builder, Leftover, detect
from labwright.core.material.tables.facts import (
    Family,
    LeftOut,
    OddCell,
    RowSummary,
    StatedResult,
    SummaryCell,
    rows_title,
)
from labwright.core.material.tables.family import Member, find_families, merge
from labwright.core.material.tables.roles import (
    CATEGORY,
    NOTE,
    STATISTIC_ROLES,
    UNCERTAINTY,
    assign_roles,
    is_logarithmic,
    parse_header,
    split_unit,
    unit_cell,
)
from labwright.core.material.tables.screen import screen
from labwright.core.material.tables.series import (
    DataOverview,
    FileFigures,
    Series,
    find_series,
    ordered_items,
)
from labwright.core.material.tables.stated import Stated
from labwright.core.material.tables.summary import row_summary, tolerance
from labwright.core.material.workspace import PathDenied, open_in_folder

__all__ = [
    "DataOverview",
    "Family",
    "FileFigures",
    "FileTables",
    "LeftOut",
    "Leftover",
    "OddCell",
    "RowSummary",
    "Series",
    "StatedResult",
    "SummaryCell",
    "Table",
    "collect_data",
    "column_stats",
    "extract_tables",
    "find_series",
    "scan_tables",
    "table_roles",
]

log = logging.getLogger(__name__)

_TEXT_KINDS = ("text", "csv", "tsv")
# Instruments write tables under all of these names, or none ("run.001" too).
_TEXT_TABLE_SUFFIXES = frozenset(
    ("", "csv", "tsv", "tab", "txt", "dat", "data", "out", "log", "asc", "prn", "xy", "lvm")
)


@dataclass(frozen=True)
class ColumnStats:
    name: str
    n: int
    min: float
    max: float
    mean: float | None  # None for a logarithmic unit (dB): a mean of dB values means nothing
    std: float | None
    group: str | None = None  # the category value the rows share, when grouped

    def to_dict(self) -> dict:
        d = {"name": self.name, "n": self.n, "min": self.min, "max": self.max,
             "mean": self.mean, "std": self.std}  # fmt: skip
        if self.group is not None:
            d["group"] = self.group
        return d


@dataclass(frozen=True)
class Table:
    source: str  # path relative to the folder (posix)
    sheet: str | None  # xlsx sheet name
    first_row: int  # 1-based sheet row or file line of the first data row
    last_row: int  # ... and of the last one
    title: str
    columns: list[str]  # the header as written, per column
    rows: list[list[float | None]]  # the first rows (max_rows); None where no number
    omitted_rows: int = 0  # data rows beyond max_rows (not in `rows`)
    # The numbers as a text file writes them ("0.200" keeps its precision),
    # parallel to `rows`; empty for workbooks, whose cells hold bare numbers.
    written: list[list[str | None]] = field(default_factory=list, compare=False)
    # What the detector knows beyond the numbers (empty for a Table built by hand).
    col_numbers: list[int] = field(default_factory=list, compare=False)  # sheet column, from 0
    names: list[str] = field(default_factory=list, compare=False)  # quantity, without unit
    units: list[str | None] = field(default_factory=list, compare=False)
    roles: list[str] = field(default_factory=list, compare=False)
    uncertainty_of: dict[int, int] = field(default_factory=dict, compare=False)
    labels: list[list[str | None]] = field(default_factory=list, compare=False)  # text cells
    header_rows: list[int] = field(default_factory=list, compare=False)
    title_rows: list[int] = field(default_factory=list, compare=False)
    template: bool = field(default=False, compare=False)  # only set points filled in
    stats: list[ColumnStats] | None = field(default=None, compare=False)  # over all rows
    sample: list[list[float | None]] = field(default_factory=list, compare=False)  # for plots
    sample_labels: list[list[str | None]] = field(default_factory=list, compare=False)
    cut: bool = field(default=False, compare=False)  # the stream stopped at MAX_STREAM_ROWS
    # Per column over all rows: (smallest, largest) value, and the whole row where the
    # column is largest (a spectrum's peak and the frequency beside it); None when empty.
    extent: list[tuple[float, float] | None] = field(default_factory=list, compare=False)
    peaks: list[list[float] | None] = field(default_factory=list, compare=False)
    # Totals and means written under or beside the rows: never rows (facts.SummaryCell).
    summaries: list[SummaryCell] = field(default_factory=list, compare=False)
    # Per column, the resolution its header states ("Voltage (±0.1 V)": 0.1), else None.
    resolutions: list[float | None] = field(default_factory=list, compare=False)
    # Columns that are each row's sum or mean of other columns ("n average": mean of n1–n3).
    row_summaries: dict[int, RowSummary] = field(default_factory=dict, compare=False)
    # Written sideways in the sheet (quantities in rows): each row here is a sheet column,
    # named in `row_names` ("C", "D" …); `sheet_range` is where the block stands.
    transposed: bool = field(default=False, compare=False)
    row_names: list[str] = field(default_factory=list, compare=False)
    sheet_range: str | None = field(default=None, compare=False)
    family: Family | None = field(default=None, compare=False)  # curves of one family
    odd_cells: list[OddCell] = field(default_factory=list, compare=False)  # break their column
    context: list[str] = field(default_factory=list, compare=False)  # the title lines above

    @property
    def n_rows(self) -> int:
        return len(self.rows) + self.omitted_rows

    def cell_range(self) -> str:
        """ "B4:V10" in a sheet (header included), "lines 6–8" in a text file."""
        if self.sheet_range is not None:
            return self.sheet_range
        top = self.header_rows[0] if self.header_rows else self.first_row
        if self.sheet is None or not self.col_numbers:
            return f"lines {top}–{self.last_row}"
        return f"{col_letter(min(self.col_numbers))}{top}:{col_letter(max(self.col_numbers))}{self.last_row}"

    def row_label(self, i: int) -> str:
        """Where data row `i` stands: its sheet row or file line, a column for a sideways table."""
        if i < len(self.row_names):
            return self.row_names[i]
        return str(self.first_row + i)

    def plot_rows(self) -> list[list[float | None]]:
        """Rows for a figure: all of them when kept, else an even sample over the table."""
        return self.rows if not self.omitted_rows or not self.sample else self.sample


@dataclass
class FileTables:
    source: str
    tables: list[Table]
    leftovers: list[tuple[str | None, Leftover]]  # (sheet, cells in no table)
    kind: str = ""
    stated: list[StatedResult] = field(default_factory=list)  # values stated beside the data
    left_out: list[LeftOut] = field(default_factory=list)  # kept out of the data, and why

    def leftover_ranges(self) -> list[str]:
        return [leftover_range(sheet, x) for sheet, x in self.leftovers]


def col_letter(index: int) -> str:
    letters = ""
    n = index + 1
    while n:
        n, rem = divmod(n - 1, 26)
        letters = chr(65 + rem) + letters
    return letters


def leftover_range(sheet: str | None, x: Leftover) -> str:
    if sheet is None:
        lines = (
            f"line {x.first_row}"
            if x.first_row == x.last_row
            else f"lines {x.first_row}–{x.last_row}"
        )
        return lines
    a = f"{col_letter(x.first_col)}{x.first_row}"
    b = f"{col_letter(x.last_col)}{x.last_row}"
    return f"{sheet.strip()}!{a}" + (f":{b}" if a != b else "")


# --------------------------------------------------------------------------
# Public API
# --------------------------------------------------------------------------


def extract_tables(
    folder: Path, paths: Iterable[str], *, max_tables: int = 24, max_rows: int = 500
) -> list[Table]:
    """The tables of the data files among `paths` (relative to `folder`).

    CSV/TSV/TXT/DAT and extensionless text (delimiter sniffed, encoding as the
    readers detect it) and XLSX/XLSM (every sheet). Files that are not tables,
    cannot be read or are damaged are skipped: this never raises for a file.
    A table repeating the numbers of an earlier one (workbooks copy tables
    beside their charts) is left out.
    """
    tables: list[Table] = []
    for found in scan_folder_tables(folder, paths, max_rows=max_rows):
        for table in found.tables:
            tables.append(table)
            if len(tables) >= max_tables:
                return tables
    return tables


def scan_folder_tables(
    folder: Path, paths: Iterable[str], *, max_rows: int = 500
) -> Iterator[FileTables]:
    """scan_tables for each file, repeats across files left out (listed as left-overs).

    Files their author marks as bad, or with the same bytes as another, are not read:
    each is yielded with no table and a `left_out` line saying why (screen.py)."""
    paths = list(paths)
    skipped = screen(folder, paths)
    seen: set[tuple[float | None, ...]] = set()
    for rel in paths:
        if rel in skipped:
            yield FileTables(PurePosixPath(rel).as_posix(), [], [], "", left_out=[skipped[rel]])
            continue
        found = scan_tables(folder, rel, max_rows=max_rows)
        if found is None:
            continue
        kept = []
        for table in found.tables:
            signatures = _signatures(table)
            # A copy beside a chart may add an unnamed constant line (0.707, the half-power
            # level); a named constant (each file's own setting) is data.
            lines = {
                _signature(table, j)
                for j, name in enumerate(table.columns)
                if name.startswith("col ") and len(set(_signature(table, j)) - {None}) == 1
            }
            kept_signatures = signatures - lines
            if kept_signatures and kept_signatures <= seen and not table.template:
                found.leftovers.append(
                    (table.sheet, _repeat(table))
                )  # a copy of data already shown
                continue
            seen |= signatures
            kept.append(table)
        found.tables = kept
        yield found


def scan_tables(folder: Path, rel: str, *, max_rows: int = 500) -> FileTables | None:
    """One data file's tables and left-over cells; None when it is no table file or unreadable."""
    try:
        return _scan(folder, rel, max_rows)
    except Exception as e:  # one bad file must never cost the others
        log.debug("no tables from %s: %s", rel, e)
        return None


def table_roles(table: Table) -> list[str]:
    """The table's column roles (worked out from its rows for a Table built by hand)."""
    if table.roles:
        return table.roles
    names = [split_unit(c)[0] for c in table.columns]
    units = [split_unit(c)[1] for c in table.columns]
    values = [
        [row[j] if j < len(row) else None for row in table.rows] for j in range(len(table.columns))
    ]
    roles, _ = assign_roles(names, units, values, [False] * len(table.columns))
    return roles


def column_stats(table: Table) -> list[dict]:
    """{"name", "n", "min", "max", "mean", "std"} per column where statistics mean something.

    Over all rows of the table (not only those kept in `rows`); never for an
    index, a set point, a category or a constant; with a category column, one
    entry per category (with "group") instead of one over rows that are
    different samples. `std` is the sample standard deviation (n - 1), None for
    a single value.
    """
    if table.stats is not None:
        return [s.to_dict() for s in table.stats]
    return [s.to_dict() for s in _stats_of_rows(table)]


# --------------------------------------------------------------------------
# Files
# --------------------------------------------------------------------------


def _table_suffix(suffix: str) -> bool:
    """Text that may hold a table; not code or JSON (.m, .py, .json), whose numbers are no table."""
    suffix = suffix.lower().lstrip(".")
    return suffix in _TEXT_TABLE_SUFFIXES or suffix.isdecimal()


def _scan(folder: Path, rel: str, max_rows: int) -> FileTables | None:
    try:
        opened = open_in_folder(folder, rel)
    except (PathDenied, OSError):
        return None
    with opened:  # every row comes from this descriptor, opened beneath the folder
        return None if opened.is_dir else _scan_file(opened, rel, max_rows)


def _scan_file(src: Opened, rel: str, max_rows: int) -> FileTables | None:
    source = PurePosixPath(rel.replace("\\", "/")).as_posix()
    kind = sniff(src)
    sources: Iterator[Source]
    if kind.kind == "xlsx":
        sources = xlsx_sources(src)
    elif kind.kind in _TEXT_KINDS and kind.encoding is not None and _table_suffix(src.suffix):
        layout = text_layout(src, kind.encoding)
        sources = iter([Source(None, text_rows(src, kind.encoding, layout))])
    else:
        return None
    out = FileTables(source, [], [], kind.kind)
    if kind.kind != "xlsx":
        assert kind.encoding is not None
        _scan_text(out, src, kind.encoding, layout, max_rows)
        _left_out(out)
        return out
    for sheet in sources:
        found = detect(sheet.rows, max_rows)
        finished = [(b, _finish(b, source, sheet.sheet)) for b in found.tables]
        tables, labels = _with_families(finished)
        tables, copies = _without_copies(tables)
        out.tables += tables
        out.left_out += copies
        out.leftovers += [(sheet.sheet, x) for x in found.leftovers]
        out.stated += [
            _stated(x, source, sheet.sheet) for x in found.stated if x.text not in labels
        ]
        for group in _groups(found.record):
            out.left_out.append(_record_header(group, source, sheet.sheet))
    _left_out(out)
    return out


def _with_families(finished: list[tuple[Builder, Table]]) -> tuple[list[Table], set[str]]:
    """The sheet's tables with each family of curves as one table (family.py), and the
    texts its curves were labelled by (no stated values, those)."""
    members = [Member(t, b.curve, b.block) for b, t in finished]
    tables = [t for _, t in finished]
    labels: set[str] = set()
    for group in find_families(members):
        merged = merge(group, tables)
        first = tables.index(group[0].table)
        for m in group:
            tables.remove(m.table)
            labels.update(m.table.context)
            if m.curve is not None:
                labels.add(m.curve[2])
        tables.insert(min(first, len(tables)), merged)
    return tables, labels


def _without_copies(tables: list[Table]) -> tuple[list[Table], list[LeftOut]]:
    """Tables with no header whose every column is another table's column again, rounded
    or not (averages copied beside a chart, "3.9" for 3.933): left out as copies."""
    kept, copies = [], []
    for t in tables:
        original = None
        if all(c.startswith("col ") for c in t.columns) and not t.transposed:
            original = next((o for o in tables if o is not t and _copies_of(t, o)), None)
        if original is None:
            kept.append(t)
            continue
        matched = _copies_of(t, original) or []
        shown = ", ".join(original.columns[j] for j in matched)
        exact = all(
            row[j] == other[k]
            for row, other in zip(t.rows, original.rows, strict=True)
            for j, k in enumerate(matched)
        )
        rounded = "" if exact else ", partly rounded"
        copies.append(LeftOut(
            t.source, _table_where(t), "copy",
            f"a copy of {shown} (from {_table_where(original)}){rounded}: made for a chart",
        ))  # fmt: skip
    return kept, copies


def _copies_of(copy: Table, original: Table) -> list[int] | None:
    """For each column of `copy`, the column of `original` it repeats to its own precision."""
    if copy.n_rows != original.n_rows or copy.omitted_rows or original.omitted_rows:
        return None
    out = []
    # Averages are what gets copied beside a chart: they are tried first.
    order = sorted(range(len(original.columns)), key=lambda k: k not in original.row_summaries)
    for j in range(len(copy.columns)):
        ours = [row[j] for row in copy.rows]
        if all(v is None for v in ours):
            return None
        match = next(
            (k for k in order if _same_to_precision(ours, [row[k] for row in original.rows])),
            None,
        )
        if match is None:
            return None
        out.append(match)
    return out


def _same_to_precision(copy: list[float | None], original: list[float | None]) -> bool:
    for a, b in zip(copy, original, strict=True):
        if (a is None) != (b is None):
            return False
        if a is not None and b is not None and abs(a - b) > tolerance(a):
            return False
    return True


def _where(sheet: str | None, first: tuple[int, int], last: tuple[int, int]) -> str:
    if sheet is None:
        return f"line {first[0]}" if first[0] == last[0] else f"lines {first[0]}–{last[0]}"
    a = f"{col_letter(first[1])}{first[0]}"
    b = f"{col_letter(last[1])}{last[0]}"
    return f"{sheet.strip()}!{a}" + (f":{b}" if a != b else "")


def _stated(x: Stated, source: str, sheet: str | None) -> StatedResult:
    return StatedResult(x.name, x.value, x.unit, _where(sheet, x.first, x.last), source,
                        x.written, x.text)  # fmt: skip


def _groups(cells: list[tuple[int, int]]) -> list[list[tuple[int, int]]]:
    """Cells in groups of rows no more than two apart."""
    groups: list[list[tuple[int, int]]] = []
    for cell in sorted(cells):
        if groups and cell[0] - groups[-1][-1][0] <= 2:
            groups[-1].append(cell)
        else:
            groups.append([cell])
    return groups


def _record_header(cells: list[tuple[int, int]], source: str, sheet: str | None) -> LeftOut:
    first = (min(r for r, _ in cells), min(c for _, c in cells))
    last = (max(r for r, _ in cells), max(c for _, c in cells))
    return LeftOut(
        source,
        _where(sheet, first, last),
        "record",
        "the record sheet's form fields (name, number, date, grade, signature): who, where "
        "and when, not data",
    )


def _scan_text(
    out: FileTables, src: Opened, enc: Encoding, layout: TextLayout, max_rows: int
) -> None:
    """A text file: the detector on its lines, and long numeric tables streamed by pandas."""
    start = 1
    while True:
        found = detect(text_rows(src, enc, layout, start), max_rows, bulk=True, text_file=True)
        out.leftovers += [(None, x) for x in found.leftovers]
        out.stated += [_stated(x, out.source, None) for x in found.stated]
        finished = [b for b in found.tables if found.resume is None or b is not found.resume[0]]
        out.tables += [_finish(b, out.source, None) for b in finished]
        if found.resume is None:
            return
        table, line = found.resume
        try:
            stopped = False
            for first, block, stop in bulk_numbers(src, enc, layout, line, table.cols, table.span):
                table.add_block(first, block)
                line, stopped = first + len(block), stop
        except (ValueError, UnicodeError, OSError) as e:  # pandas could not: line by line
            log.debug("bulk read of %s stopped at line %d: %s", out.source, line, e)
            stopped = True
        out.tables.append(_finish(table, out.source, None))
        if not stopped:
            return
        start = line


def _left_out(out: FileTables) -> None:
    """What the file's reading keeps out of the data, each with its reason: blank templates
    and unfilled blocks, an instrument's settings."""
    templates = [t for t in out.tables if t.template]
    if templates and len(templates) == len(out.tables):
        sheets = list(dict.fromkeys((t.sheet or "").strip() for t in templates if t.sheet))
        where = f" (sheets {', '.join(sheets)})" if len(sheets) > 1 else ""
        out.left_out.append(LeftOut(
            out.source, "", "template",
            f"a blank template{where}: only the set points are filled in, no readings",
        ))  # fmt: skip
    else:
        for t in templates:
            title = f" ({t.context[-1]})" if t.context else ""
            out.left_out.append(LeftOut(
                out.source, _table_where(t), "unfilled",
                f"an unfilled block{title}: only the set points are filled in",
            ))  # fmt: skip
    out.left_out += _instrument_settings(out)
    out.left_out += _unfilled_labels(out)


MIN_UNFILLED_LABELS = 3


def _unfilled_labels(out: FileTables) -> list[LeftOut]:
    """A block of quantity names with units and no number under them (Δ Zt /mm, Δ Ui/mV,
    U²/mV² …): a calculation left to fill in, not data."""
    found = []
    for sheet, x in out.leftovers:
        if sheet is None or x.kind != "text" or x.last_row - x.first_row + 1 < MIN_UNFILLED_LABELS:
            continue
        items = [item.strip() for item in x.excerpt.split(";")]
        if sum(parse_header(item).unit is not None for item in items) >= MIN_UNFILLED_LABELS:
            found.append(LeftOut(
                out.source, leftover_range(sheet, x), "unfilled",
                f"names with units and no readings ({', '.join(items)}, …): a block left to fill in",
            ))  # fmt: skip
    return found


def _table_where(t: Table) -> str:
    return f"{t.sheet.strip()}!{t.cell_range()}" if t.sheet is not None else t.cell_range()


# A setting's name: the words before ":", "," or its value ("Record Length 2.5e+03 Points").
_SETTING_KEY = re.compile(r"^\s*#?\s*([^:=,\t\d]{2,40}?)\s*(?:[:=,\t]|\s[-+]?\d|$)")
_SETTINGS_GAP = 2  # rows between two runs of settings that are still one header


def _instrument_settings(out: FileTables) -> list[LeftOut]:
    """An instrument's settings: "#"-lines above its data (WaveForms: #Device Name, #Sample
    rate …) and columns of settings beside it (Record Length, Sample Interval …), one
    line for each run of them."""
    runs: list[tuple[str | None, list[Leftover]]] = []
    for sheet, x in out.leftovers:
        commented = sheet is None and x.excerpt.lstrip().startswith("#")
        if not (commented or x.kind == "metadata"):
            continue
        if (
            runs
            and runs[-1][0] == sheet
            and x.first_row - runs[-1][1][-1].last_row <= _SETTINGS_GAP
        ):
            runs[-1][1].append(x)
        else:
            runs.append((sheet, [x]))
    found = []
    for sheet, group in runs:
        keys = [m.group(1).strip(" #") for x in group for line in x.excerpt.split(";")
                if (m := _SETTING_KEY.match(line))]  # fmt: skip
        shown = ", ".join(dict.fromkeys(k for k in keys if k))
        first, last = group[0], group[-1]
        span = Leftover(first.first_row, last.last_row, min(x.first_col for x in group),
                        max(x.last_col for x in group), "metadata", "")  # fmt: skip
        n = last.last_row - first.first_row + 1
        what = f" ({shown}, …)" if shown else ""
        lines = f"{n} lines" if sheet is None else f"{n} rows"
        found.append(LeftOut(
            out.source, leftover_range(sheet, span), "metadata",
            f"the instrument's settings{what}, {lines}: metadata, never averaged as data",
        ))  # fmt: skip
    return found


def _repeat(table: Table) -> Leftover:
    cols = table.col_numbers or [0]
    return Leftover(
        table.header_rows[0] if table.header_rows else table.first_row,
        table.last_row,
        min(cols),
        max(cols),
        "repeat",
        f"the numbers of an earlier table again ({', '.join(table.columns[:4])})",
    )


# --------------------------------------------------------------------------
# A finished table
# --------------------------------------------------------------------------


def _cell_text(cell: object) -> str:
    if isinstance(cell, float):
        text = getattr(cell, "text", None)
        return text if isinstance(text, str) else format_float(cell)
    return str(cell)


def _names(
    b: Builder, sheet: str | None
) -> tuple[list[str], list[str], list[str | None], list[float | None]]:
    """(header as written, quantity, unit, resolution) per column.

    Each header row's cell is read on its own: "Voltage (±0.1 V)" over "1" is Voltage 1,
    in V, read to 0.1 V (not a quantity named "Voltage (±0.1 V) 1")."""
    name_rows = [
        cells for r, cells in zip(b.header_rows, b.header_cells, strict=True) if r != b.unit_row
    ]
    # A group name over several columns ("Voltage" over U1, U2) when the sheet
    # did not merge it (a text file cannot): spread right over columns the row below names.
    if len(name_rows) == 2 and sheet is None:
        top, below = list(name_rows[0]), name_rows[1]
        for i in range(1, len(top)):
            if (
                top[i] is None
                and top[i - 1] is not None
                and below[i] is not None
                and below[i - 1] is not None
            ):
                top[i] = top[i - 1]
        name_rows[0] = top
    unit_cells = (
        b.header_cells[b.header_rows.index(b.unit_row)]
        if b.unit_row is not None
        else [None] * len(b.cols)
    )
    shown, names, units, resolutions = [], [], [], []
    for i, c in enumerate(b.cols):
        parts: list[str] = []
        for cells in name_rows:
            cell = cells[i]
            if cell is not None:
                part = _cell_text(cell).strip()
                if part and part not in parts:
                    parts.append(part)
        text = " ".join(parts) if parts else f"col {c + 1}"
        name, unit, resolution = _read_parts(parts, text)
        ucell = unit_cells[i]
        if isinstance(ucell, str) and (u := unit_cell(ucell)):
            unit = u
            text = (
                f"{text} {ucell.strip()}"
                if ucell.strip().startswith(("(", "[", "（", "【"))
                else f"{text} ({u})"
            )
        shown.append(text)
        names.append(name)
        units.append(unit)
        resolutions.append(resolution)
    # Repeated names would make the report ambiguous: number the repeats.
    counts: dict[str, int] = {}
    unique = []
    for text in shown:
        counts[text] = counts.get(text, 0) + 1
        unique.append(text if counts[text] == 1 else f"{text} ({counts[text]})")
    return unique, names, units, resolutions


def _read_parts(parts: list[str], text: str) -> tuple[str, str | None, float | None]:
    """A header of one or more rows as (quantity, unit, resolution)."""
    if len(parts) <= 1:
        h = parse_header(text)
        return h.name, h.unit, h.resolution
    headers = [parse_header(p) for p in parts]
    unit = next((h.unit for h in reversed(headers) if h.unit), None)
    resolution = next((h.resolution for h in reversed(headers) if h.resolution is not None), None)
    if unit is None and resolution is None:
        name, unit = split_unit(text)  # "Counts in 60 s 1": the rows read as one
        return name, unit, None
    return " ".join(h.name for h in headers), unit, resolution


def _finish(b: Builder, source: str, sheet: str | None) -> Table:
    assert b.acc is not None
    b.acc.flush()
    columns, names, units, resolutions = _names(b, sheet)
    values = [[row[i] for row in b.rows] for i in range(len(b.cols))]
    texts = [k == "text" for k in b.kinds]
    headed = [not col.startswith("col ") for col in columns]
    roles, uncertainty_of = assign_roles(names, units, values, texts, headed=headed)
    if NOTE in roles:  # remarks beside the data ("ok", "redo"): in the table's range, not data
        _drop(b, [j for j, role in enumerate(roles) if role != NOTE])
        return _finish(b, source, sheet)
    template = b.template
    stats = _stats(columns, roles, b.acc.total, b.acc.groups, template, units)
    written = b.written if any(any(w) for w in b.written) else []
    labels = b.labels if any(texts) else []
    return Table(
        source=source,
        sheet=sheet,
        first_row=b.first_row,
        last_row=b.last_row,
        title=rows_title(source, sheet, b.first_row, b.last_row, b.title),
        columns=columns,
        rows=b.rows,
        omitted_rows=b.n - len(b.rows),
        written=written,
        col_numbers=[] if b.transposed else list(b.cols),
        names=names,
        units=units,
        roles=roles,
        uncertainty_of=uncertainty_of,
        labels=labels,
        header_rows=list(b.header_rows),
        title_rows=list(b.title_rows),
        template=template,
        stats=stats,
        sample=b.sample if b.n > len(b.rows) else [],
        sample_labels=b.sample_labels if b.n > len(b.rows) and any(texts) else [],
        cut=b.cut,
        extent=[(m.lo, m.hi) if m.n else None for m in b.acc.total],
        peaks=list(b.acc.peaks),
        summaries=_summaries_where(b.summaries, sheet),
        resolutions=resolutions if any(r is not None for r in resolutions) else [],
        row_summaries=_row_summaries(roles, values) if not template else {},
        odd_cells=[] if b.transposed or template else _odd_cells(b, columns, roles, values),
        transposed=b.transposed,
        row_names=list(b.row_names),
        sheet_range=b.sheet_range,
        context=[c for c in b.title if c.strip()],
    )


def _summaries_where(found: list[SummaryCell], sheet: str | None) -> list[SummaryCell]:
    """Summary cells as a reader finds them: "C54" in a sheet, "line 12" in a text file."""
    if sheet is not None:
        return list(found)
    return [replace(x, cell=f"line {re.sub(r'^[A-Z]+', '', x.cell)}") for x in found]


MIN_RULE_ROWS = 5  # rows a column must follow a rule on before one cell can break it
_RULE_TOLERANCE = 1e-9  # a formula's column: the same ratio to float noise


def _odd_cells(
    b: Builder, columns: list[str], roles: list[str], values: list[list[float | None]]
) -> list[OddCell]:
    """Cells that break an exact ratio their column keeps to a column left of it on every
    other row: the one cell whose formula points elsewhere (G3 = M69 in a V/13.4 column)."""
    out = []
    numeric = [j for j, role in enumerate(roles) if role in (*STATISTIC_ROLES, "independent")]
    for j in (j for j in numeric if roles[j] in STATISTIC_ROLES):
        for k in (k for k in numeric if k < j):  # a derived column stands right of its input
            pairs = [(i, y, x) for i, (y, x) in enumerate(zip(values[j], values[k], strict=True))
                     if y is not None and x is not None and x != 0]  # fmt: skip
            if len(pairs) < MIN_RULE_ROWS + 1:
                continue
            ratios = [y / x for _, y, x in pairs]
            common = sorted(ratios)[len(ratios) // 2]
            off = [p for p, r in zip(pairs, ratios, strict=True)
                   if abs(r - common) > _RULE_TOLERANCE * abs(common)]  # fmt: skip
            if len(off) != 1 or common == 0:
                continue
            i, y, x = off[0]
            expected = common * x
            if abs(y - expected) <= 0.01 * abs(expected):
                continue
            where = f"{col_letter(b.cols[j])}{b.first_row + i}"
            out.append(OddCell(where, y, expected, columns[j], f"{columns[k]} × {common:.4g}"))
            break
    return out


def _row_summaries(roles: list[str], values: list[list[float | None]]) -> dict[int, RowSummary]:
    """Columns that are each row's sum or mean of the measured columns before them (other
    such columns between are passed over: n sum, then n average of n1–n3)."""
    out: dict[int, RowSummary] = {}
    measured = [j for j, role in enumerate(roles) if role in STATISTIC_ROLES]
    for j in measured:
        before = [k for k in measured if k < j and k not in out]
        for width in range(min(6, len(before)), 1, -1):
            parts = before[-width:]
            kind = row_summary(values[j], [values[k] for k in parts])
            if kind is not None:
                out[j] = RowSummary(kind, tuple(parts))
                break
    return out


def _drop(b: Builder, keep: list[int]) -> None:
    assert b.acc is not None
    b.cols = [b.cols[j] for j in keep]
    b.kinds = [b.kinds[j] for j in keep]
    b.header_cells = [[cells[j] for j in keep] for cells in b.header_cells]
    b.rows = [[row[j] for j in keep] for row in b.rows]
    b.sample = [[row[j] for j in keep] for row in b.sample]
    b.written = [[row[j] for j in keep] for row in b.written]
    b.labels = [[row[j] for j in keep] for row in b.labels]
    b.sample_labels = [[row[j] for j in keep] for row in b.sample_labels]
    b.acc.total = [b.acc.total[j] for j in keep]
    b.acc.peaks = [None if p is None else [p[j] for j in keep] for p in b.acc.peaks]
    b.acc.peaks = [b.acc.peaks[j] for j in keep]
    b.acc.groups = {}  # a note column is no category to group by
    b.acc.width = len(keep)


def _stats(
    columns: list[str],
    roles: list[str],
    total: list[Moments],
    groups: dict[str, list[Moments]],
    template: bool,
    units: Sequence[str | None] = (),
) -> list[ColumnStats]:
    if template:
        return []
    wanted = [
        j
        for j, role in enumerate(roles)
        if role in STATISTIC_ROLES
        and total[j].n
        and not (role == UNCERTAINTY and total[j].n > 1 and total[j].lo == total[j].hi)
    ]
    if CATEGORY in roles and groups:
        # Rows of different samples: one figure per sample, none across them, and
        # none at all when every row is its own sample (a mean of one value says nothing).
        if all(m.n <= 1 for ms in groups.values() for m in ms):
            return []
        return [
            _stat(columns[j], ms[j], group, _unit(units, j))
            for group, ms in groups.items()
            for j in wanted
            if ms[j].n
        ]
    return [_stat(columns[j], total[j], None, _unit(units, j)) for j in wanted]


def _unit(units: Sequence[str | None], j: int) -> str | None:
    return units[j] if j < len(units) else None


def _stat(name: str, m: Moments, group: str | None, unit: str | None) -> ColumnStats:
    if is_logarithmic(unit):  # dB, dBm: the range says something, a mean or spread does not
        return ColumnStats(name, m.n, m.lo, m.hi, None, None, group)
    return ColumnStats(name, m.n, m.lo, m.hi, m.mean, m.std, group)


def _stats_of_rows(table: Table) -> list[ColumnStats]:
    import numpy as np

    roles = table_roles(table)
    total = []
    for j in range(len(table.columns)):
        m = Moments()
        m.fold(np.array([np.nan if (v := (row[j] if j < len(row) else None)) is None else v
                         for row in table.rows], dtype=float))  # fmt: skip
        total.append(m)
    units = table.units or [split_unit(c)[1] for c in table.columns]
    return _stats(table.columns, roles, total, {}, table.template, units)


def _signatures(table: Table) -> set[tuple[float | None, ...]]:
    """The table's columns as signatures, and each curve's part of them in a family (a
    curve pasted again beside a chart is a repeat of that curve)."""
    out = {_signature(table, j) for j in range(len(table.columns))}
    if table.family is not None and table.labels:
        for label in table.family.labels:
            rows = [row for row, texts in zip(table.rows, table.labels, strict=False)
                    if texts and texts[0] == label]  # fmt: skip
            part = replace(table, rows=rows, family=None)
            out |= {_signature(part, j) for j in range(1, len(table.columns))}
    out.discard(())
    return out


def _signature(table: Table, j: int) -> tuple[float | None, ...]:
    # Rounded to 12 significant digits, so a value recomputed with other float
    # noise still counts as the same column.
    values = tuple(None if row[j] is None else float(f"{row[j]:.12g}") for row in table.rows)
    return () if all(v is None for v in values) else values


_ = is_missing  # re-exported for the readers of this package's internals


def collect_data(
    folder: Path,
    paths: Iterable[str],
    *,
    max_items: int = 24,
    max_rows: int = 500,
    unlisted: int = 0,
) -> DataOverview:
    """The tables and series of a folder's data files, for a report: at most `max_items`
    (a series counts once), in file order; every file or table left out has a line in
    `left_out`, and so do `unlisted` data files the scan did not list."""
    found = list(scan_folder_tables(folder, paths, max_rows=max_rows))
    # Blank templates and unfilled blocks are no data: each has its line in left_out.
    tables = [t for f in found for t in f.tables if not t.template]
    items = ordered_items(tables)
    overview = DataOverview(items[:max_items])
    whole = {f.source for f in found for x in f.left_out if not x.where}
    overview.stated = [x for f in found if f.source not in whole for x in f.stated]
    overview.left_out_records = [x for f in found for x in f.left_out]
    dropped = items[max_items:]
    if dropped:
        names = [item.pattern if isinstance(item, Series) else item.title for item in dropped]
        shown = "; ".join(names[:8]) + (f"; and {len(names) - 8} more" if len(names) > 8 else "")
        overview.left_out.append(
            f"{len(dropped)} more tables or series are not shown (at most {max_items}): {shown}."
        )
    repeats = [
        f.source for f in found if not f.tables and any(x.kind == "repeat" for _, x in f.leftovers)
    ]
    if repeats:
        shown = ", ".join(repeats[:8]) + (
            f" and {len(repeats) - 8} more" if len(repeats) > 8 else ""
        )
        overview.left_out.append(f"{shown}: the same numbers as a table shown, not repeated.")
    overview.left_out += [x.describe() + "." for x in overview.left_out_records]
    # A file with no table but values stated in it is not "no table found": its values
    # are listed with the results stated in the material.
    empty = [
        f.source
        for f in found
        if not f.tables
        and f.source not in repeats
        and f.source not in whole
        and not f.stated
        and not any(t.template for t in f.tables)
    ]
    if empty:
        shown = ", ".join(empty[:8]) + (f" and {len(empty) - 8} more" if len(empty) > 8 else "")
        overview.left_out.append(
            f"{shown}: no table found"
            + (" in these files." if len(empty) > 1 else " in this file.")
        )
    if unlisted > 0:
        overview.left_out.append(
            f"{unlisted} more data files were not read: the scan lists the first ones of each kind."
        )
    return overview
