"""Evidence with its sources: every number the material showed, and where it stood.

Exploration keeps each productive read as a record {"path", "kind", "offset",
"end", "text", "spans"} (evidence.jsonl; `record_of_page`), each figure's
printed output as {"path": "figures/x.pdf", "kind": "figure_output", "text":
stdout, "inputs"} and each analysis's as {"path": "analysis/<name>", "kind":
"analysis_output", "text": stdout, "inputs", "purpose", "code", "results"} (a
report number traces to the line that printed it; `results` are show()'s values). This module turns those records into `EvidenceNumber`s: the
value as written, its unit when the material states one (a column header
"Range, m", "length_m", or a unit right after the number), and a `Source` a
reviewer can follow: file, sheet and cell, table and row, line, page or
notebook cell, and the excerpt.

Where a line comes from is what the reader said in the page's spans
(readers/page.py `Span`), never read back from the headings it rendered. A
record written before spans existed is read again through the readers when the
folder is at hand (and only if the file still gives the same text); otherwise
its lines are located by line number alone.

Units are parsed in units.py (`parse_unit`, re-exported here): the report check compares
values in base units, so "485 mm" in a report matches "0.485" under a "Range, m" header.
Pure Python.
"""

from __future__ import annotations

import bisect
import math
import re
import statistics
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any

from labwright.core.material.computed import COMPUTATION, STATED, Computation
from labwright.core.material.fence import Opened
from labwright.core.material.readers import ReadError, read_page
from labwright.core.material.readers.page import Page, Span
from labwright.core.material.tables.cells import written
from labwright.core.material.tables.roles import assign_roles, split_unit
from labwright.core.material.tables.summary import decimals, summary_kind
from labwright.core.material.units import PERCENT, Unit, header_unit, parse_unit, suffix_unit_fits
from labwright.core.material.workspace import PathDenied, open_in_folder
from labwright.core.rundir.layout import RunDir
from labwright.core.rundir.names import in_figures
from labwright.core.rundir.records import EvidenceRecord

__all__ = [
    "EvidenceNumber",
    "Source",
    "Unit",
    "evidence_from_folder",
    "evidence_numbers",
    "load_run_evidence",
    "parse_unit",
    "record_of_page",
    "suffix_unit_fits",
]

# -- sources ----------------------------------------------------------------


@dataclass(frozen=True)
class Source:
    """Where a number stands in the material, for a reviewer to follow."""

    path: str
    kind: str
    location: str  # "sheet 'Part A', cell E5" · "line 4, column 'length_m'" · "page 3"
    excerpt: str
    line: int | None = None  # the reader's line (0-based, as read_file's offset)
    sheet: str | None = None
    cell: str | None = None
    page: int | None = None
    table: int | None = None  # a document's table (Word), from 1
    row: int | None = None  # the sheet's or table's row, from 1
    column: str | None = None  # the column header, for table cells
    inputs: tuple[str, ...] = ()  # a figure's data files

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["inputs"] = list(self.inputs)
        return {k: v for k, v in d.items() if v not in (None, [], "")}

    def describe(self) -> str:
        return f"{self.path}, {self.location}"


@dataclass(frozen=True)
class EvidenceNumber:
    value: float  # absolute value, as written (units as written)
    text: str
    unit: Unit | None
    source: Source
    derived: str | None = None  # "mean of ..." for a statistic computed from the material
    role: str | None = None  # its column's role (tables/roles.py): "index", "independent"...

    @property
    def base(self) -> float:
        """The value in SI base units when the unit is known (else as written)."""
        return (
            self.value * self.unit.factor if self.unit and not self.unit.is_percent else self.value
        )


# -- numbers in plain text ------------------------------------------------------

NUMBER = re.compile(
    r"(?<![A-Za-z_\d.])"  # not part of an identifier (t10, v2) or another number
    r"(\d+(?:\.\d+)?|\.\d+)"
    r"(?:(?:[eE]|\*\^)([-+]?\d+)|\s*[x×]\s*10\^\(?([-+−]?\d+)\)?)?"
    r"(?![\d.]\d|\d)"  # not a version or a date (1.2.3)
)
# a product of units is written with a dot or a star (J·s): a space would take the next word
_INLINE_UNIT = re.compile(r"\s?([A-Za-zµμΩ°][A-Za-z0-9µμΩ°/^\-²³⁻¹·⋅*]{0,10})")


def number_value(mantissa: str, exponent: str | None) -> float:
    value = float(mantissa)
    if exponent:
        value *= 10.0 ** int(exponent.replace("−", "-"))
    return value


def _inline_unit(text: str, end: int) -> Unit | None:
    if text[end : end + 2].strip().startswith("%"):
        return PERCENT
    m = _INLINE_UNIT.match(text, end)
    if not m:
        return None
    word = m.group(1).rstrip(".,;:-")
    return parse_unit(word) or parse_unit(re.split(r"[/^\-]", word)[0] if "/" not in word else "")


def _is_number_cell(cell: str) -> bool:
    return bool(re.fullmatch(r"\s*[-+−]?(\d+(\.\d*)?|\.\d+)([eE][-+]?\d+)?\s*", cell))


def _col_letter(index: int) -> str:
    letters = ""
    index += 1
    while index:
        index, rem = divmod(index - 1, 26)
        letters = chr(65 + rem) + letters
    return letters


def _in_folder(folder: Path, rel: str) -> Opened:
    """A recorded path back to its file, opened through the fence (names are stored as shown)."""
    return open_in_folder(folder, rel)


# Kinds whose readers place lines beyond their line number (sheets, pages, cells, tables).
_PLACED_KINDS = ("xlsx", "docx", "pdf", "ipynb", "mathematica")


def _spans(record: EvidenceRecord, folder: Path | None) -> list[Span]:
    """Where the record's lines come from, as its reader said (see the module docstring)."""
    offset = record.offset or 0
    text = record.text
    if record.spans is not None:
        try:
            return sorted(
                (Span.from_dict(d.to_dict()) for d in record.spans), key=lambda s: s.start
            )
        except (TypeError, ValueError):
            pass  # spans no reader writes: as if it had none
    elif "spans" in record.unknown:
        pass  # an edited or damaged record (records.EvidenceRecord kept them unread)
    elif folder is not None and record.kind in _PLACED_KINDS and record.end is not None:
        again = _read_again(folder, record.path, offset, record.end)
        if again is not None and again.text == text:
            return list(again.spans)
    return [Span(offset, offset + text.count("\n") + 1)]


def as_record(record: EvidenceRecord | Mapping[str, Any]) -> EvidenceRecord:
    """An evidence record, also from its JSON form (a line of evidence.jsonl, a tool's)."""
    if isinstance(record, EvidenceRecord):
        return record
    return EvidenceRecord.keeping({"path": "?", "text": "", **record})


def _read_again(folder: Path, rel: str, offset: int, end: int) -> Page | None:
    try:
        with _in_folder(folder, rel) as src:
            return read_page(src, offset, max(1, end - offset))
    except Exception:  # a moved, edited or damaged file only costs the places
        return None


class _Reader:
    """Walks one evidence record line by line, keeping the context a location needs."""

    def __init__(self, record: EvidenceRecord, folder: Path | None) -> None:
        self.r = record
        self.path = record.path
        self.kind = record.kind or "text"
        self.offset = record.offset or 0
        self.spans = _spans(record, folder)
        self.starts = [s.start for s in self.spans]
        self.span: Span | None = None
        self.header: dict[int, str] = {}
        self.after_numbers = False
        self.delim = self._delimiter(record.text)
        self.results = _results_by_line(record)

    def _delimiter(self, text: str) -> str | None:
        if self.kind == "xlsx":
            return "\t"
        if self.kind in ("csv", "tsv"):
            head = text.splitlines()[:5]
            counts = {d: sum(line.count(d) for line in head) for d in (",", ";", "\t", "|")}
            best = max(counts, key=lambda d: counts[d])
            return best if counts[best] else None
        return None

    def cells(self, line: str) -> list[str] | None:
        if self.delim and self.delim in line:
            return line.split(self.delim)
        if "\t" in line:
            return line.split("\t")
        return None

    def place(self, i: int) -> Span | None:
        """The span of the record's line i (None past the spans)."""
        line = self.offset + i
        k = bisect.bisect_right(self.starts, line) - 1
        span = self.spans[k] if k >= 0 and line < self.spans[k].end else None
        previous, self.span = self.span, span
        if (
            previous is not None
            and span is not None
            and (previous.sheet, previous.table) != (span.sheet, span.table)
        ):
            self.header, self.after_numbers = {}, False  # another sheet or table
        return span

    def track(self, cells: list[str] | None) -> None:
        """The table header, from the rows: text rows head the numeric rows below them."""
        if cells is None:
            return
        filled = [c.strip() for c in cells if c.strip()]
        numeric = [c for c in filled if _is_number_cell(c)]
        if filled and len(numeric) < max(1, len(filled) // 2):  # a text row: title or header
            if self.after_numbers:
                self.header, self.after_numbers = {}, False
            if len(filled) >= 2:
                for i, c in enumerate(cells):
                    if c.strip():
                        self.header[i] = c.strip()
        elif numeric:
            self.after_numbers = True

    def source(self, i: int, line: str, col: int | None, cells: list[str] | None) -> Source:
        reader_line = self.offset + i
        span = self.span
        sheet = span.sheet if span else None
        page = span.page if span else None
        table = span.table if span else None
        row = span.row_of(reader_line) if span else None
        label = span.cell if span else None
        column = self.header.get(col) if col is not None else None
        cell = f"{_col_letter(col)}{row}" if sheet is not None and row and col is not None else None
        if self.kind == "figure_output":
            location = "printed by the figure's code"
        elif self.kind == ANALYSIS_OUTPUT:
            location = f"line {reader_line + 1} printed by the analysis"
        elif self.kind == "image":
            location = "answer about the image"
        elif self.kind == "name":
            location = "the file's name"
        elif sheet is not None:
            where = f"cell {cell}" if cell else f"line {reader_line}"
            location = f"sheet {sheet!r}, {where}"
        elif page is not None:
            location = f"page {page}"
        elif table is not None:
            location = f"table {table}" + (f", row {row}" if row else "")
        elif label and self.kind in ("mathematica", "ipynb"):
            location = f"cell {label}"
        else:
            location = f"line {reader_line + 1}"
        if column and self.kind != "xlsx":
            location += f", column {column!r}"
        excerpt = " | ".join(c.strip() for c in cells if c.strip()) if cells else line.strip()
        if column:
            excerpt = f"[{column}] {excerpt}"
        return Source(
            path=self.path,
            kind=self.kind,
            location=location,
            excerpt=_clip(excerpt, 200),
            line=reader_line,
            sheet=sheet,
            cell=cell,
            page=page,
            table=table,
            row=row,
            column=column,
            inputs=tuple(str(p) for p in self.r.inputs or ()),
        )


def _results_by_line(record: EvidenceRecord) -> dict[int, dict[str, Any]]:
    """show()'s results of an analysis record, by the line of its output they stand on."""
    found = record.results
    if record.kind != ANALYSIS_OUTPUT or not isinstance(found, list):
        return {}
    out: dict[int, dict[str, Any]] = {}
    for r in found:
        if (
            isinstance(r, dict)
            and isinstance(r.get("line"), int)
            and not isinstance(r["line"], bool)
        ):
            out.setdefault(r["line"], r)
    return out


def _clip(text: str, n: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= n else text[: n - 1] + "…"


def _numbers_of_line(reader: _Reader, i: int, line: str) -> Iterator[EvidenceNumber]:
    if reader.kind == ANALYSIS_OUTPUT:
        yield from _analysis_numbers(reader, i, line)
        return
    span = reader.place(i)
    if span is not None and span.marker:
        return  # the reader's own heading, not the material
    cells = reader.cells(line)
    reader.track(cells)
    if cells is None:
        for m in NUMBER.finditer(line):
            unit = _inline_unit(line, m.end())
            src = reader.source(i, line, None, None)
            yield EvidenceNumber(
                number_value(m.group(1), m.group(2) or m.group(3)), m.group(0), unit, src
            )
        return
    for col, cell in enumerate(cells):
        for m in NUMBER.finditer(cell):
            unit = _inline_unit(cell, m.end())
            if unit is None and _is_number_cell(cell) and col in reader.header:
                unit = header_unit(reader.header[col])
            src = reader.source(i, line, col, cells)
            yield EvidenceNumber(
                number_value(m.group(1), m.group(2) or m.group(3)), m.group(0), unit, src
            )


# -- what analysis code printed (the analyze tool) -------------------------------------

ANALYSIS_OUTPUT = "analysis_output"  # agent/tools/analyze.py EVIDENCE_KIND
_REAL = r"[-+−]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?"
# "(4.342 ± 0.079) × 10^-15": a value and its uncertainty under one power of ten
_SCALED = re.compile(
    rf"\(\s*({_REAL})\s*(?:±|\+/-|\+-)\s*({_REAL})\s*\)\s*[×x*]\s*10\s*\^\s*\(?([-+−]?\d+)\)?"
)


def _as_float(text: str) -> float:
    return float(text.replace("−", "-"))


def _analysis_numbers(reader: _Reader, i: int, line: str) -> Iterator[EvidenceNumber]:
    """A printed line's numbers: as written ("4.342", a report's "(4.342 \\pm 0.079)\\times
    10^{-15}"), and a value under a shared power of ten also whole (4.342e-15, the
    \\SI{4.342(79)e-15}{...} form). A line show() printed gives its result exactly, with
    its unit."""
    src = reader.source(i, line, None, None)
    shown = reader.results.get(i)
    unit = parse_unit(shown["unit"]) if shown and shown.get("unit") else None
    rest = line
    for m in _SCALED.finditer(line):
        power = 10.0 ** int(m.group(3).replace("−", "-"))
        for k in (1, 2):
            written = m.group(k)
            yield EvidenceNumber(abs(_as_float(written)), written, None, src)
            whole = abs(_as_float(written)) * power
            yield EvidenceNumber(whole, f"{whole:.6g}", unit, src)
        rest = rest.replace(m.group(0), " " * len(m.group(0)))
    if shown is not None:
        for key in ("value", "u"):
            value = shown.get(key)
            if isinstance(value, (int, float)) and math.isfinite(value) and value:
                yield EvidenceNumber(abs(float(value)), f"{value:.6g}", unit, src, derived=None)
    _, sep, after = rest.partition("=")
    for m in NUMBER.finditer(rest):
        if shown is not None and sep and m.start() > len(rest) - len(after):
            continue  # a show() line's value: yielded above, exactly
        found = _inline_unit(rest, m.end()) if unit is None else unit
        yield EvidenceNumber(
            number_value(m.group(1), m.group(2) or m.group(3)), m.group(0), found, src
        )


_STATISTIC_ROLES = ("measured", "uncertainty")  # tables/roles.py STATISTIC_ROLES


def _stats(values: list[float]) -> dict[str, float]:
    out = {"mean": statistics.fmean(values)}
    if len(values) >= 2:
        sd = statistics.stdev(values)
        out |= {"standard deviation": sd, "standard error": sd / math.sqrt(len(values))}
    return out


_ROW_NUMBER_HEADER = re.compile(
    r"^(?:#|no\.?|nr\.?|index|idx|row|line|item|frame|trial|run|序号|编号|行号)$", re.I
)


def _counts_rows(column: str, values: list[float]) -> bool:
    """A column of row, frame or trial numbers (by its name, or 1, 2, 3... without a unit)."""
    if _ROW_NUMBER_HEADER.match(column.strip()):
        return True
    return (
        header_unit(column) is None
        and values[0] in (0.0, 1.0)
        and all(b - a == 1 for a, b in zip(values, values[1:], strict=False))
    )


def _with_roles(numbers: list[EvidenceNumber]) -> list[EvidenceNumber]:
    """Each table cell with its column's role, as the table detector assigns it
    (tables/roles.py): a row number, a set point, a measured value..."""
    tables: dict[tuple[Any, ...], dict[str, dict[int | None, float]]] = {}
    for n in numbers:
        s = n.source
        if s.column is not None:
            key = (s.path, s.sheet, s.page, s.table)
            tables.setdefault(key, {}).setdefault(s.column, {}).setdefault(s.line, n.value)
    roles: dict[tuple[Any, ...], str] = {}
    for key, columns in tables.items():
        names = list(columns)
        lines = sorted({line for col in columns.values() for line in col}, key=lambda x: x or 0)
        values = [[columns[name].get(line) for line in lines] for name in names]
        units = [split_unit(name)[1] for name in names]
        assigned, _ = assign_roles(names, units, values, [False] * len(names))
        roles |= {(*key, name): role for name, role in zip(names, assigned, strict=True)}
    return [
        replace(n, role=roles.get((s.path, s.sheet, s.page, s.table, s.column)))
        if (s := n.source).column is not None
        else n
        for n in numbers
    ]


def _without_summaries(column: list[EvidenceNumber]) -> list[EvidenceNumber]:
    """A column's values without the total and mean written under them (tables/summary.py):
    a mean "traced" over values that include their own mean traces nothing."""
    numbers = [v.value for v in column]
    # The most trailing values (up to three: sum, mean, sd) that all summarise those above.
    # One value alone that is the mean may be a reading (1074, 1090, 1082): it counts as a
    # summary only when it has more decimals than the readings (a computed mean).
    for keep in range(max(3, len(column) - 3), len(column)):
        tail = [written(t.value, t.text) for t in column[keep:]]
        kinds = [summary_kind(t, numbers[:keep]) for t in tail]
        if not all(kinds):
            continue
        places = max(decimals(written(v.value, v.text)) for v in column[:keep])
        if len(tail) > 1 or kinds[0] == "sum" or decimals(tail[0]) > places:
            return column[:keep]
    return column


def _derived(numbers: list[EvidenceNumber]) -> Iterator[EvidenceNumber]:
    """Statistics a report may quote without listing the values: column means, and means
    of repeated measurements in one row (t10_run1_s, t10_run2_s, ...)."""
    groups: dict[tuple[Any, ...], list[EvidenceNumber]] = {}
    for n in numbers:
        s = n.source
        if s.column is None:
            continue
        groups.setdefault(("column", s.path, s.sheet, s.page, s.column), []).append(n)
        stem = re.sub(r"\d+", "#", s.column)
        if stem != s.column:  # a numbered repeat: run1, run2...
            groups.setdefault(("row", s.path, s.line, stem), []).append(n)
    for key, group in groups.items():
        if key[0] == "column":
            group = _without_summaries(group)
        if len(group) < (3 if key[0] == "column" else 2):
            continue
        if key[0] == "column" and _counts_rows(key[4], [g.value for g in group]):
            continue  # a mean of row or frame numbers is no figure a report quotes
        if key[0] == "column" and group[0].role not in (None, *_STATISTIC_ROLES):
            continue  # nor a mean of set points or of an index (tables/roles.py)
        first = group[0].source
        if key[0] == "column":
            span = f"column {first.column!r}"
        else:
            if first.table is not None and first.row:
                where = f"table {first.table}, row {first.row}"
            elif first.row:
                where = f"row {first.row}"
            else:
                where = first.location.split(",")[0]
            span = f"repeats {key[3]!r} in {where}"
        for stat, v in _stats([g.value for g in group]).items():
            src = replace(
                first,
                location=(f"sheet {first.sheet!r}, " if first.sheet else "") + f"{stat} of {span}",
                excerpt=_clip(", ".join(g.text for g in group), 200),
                cell=None,
                row=first.row if key[0] == "row" else None,
            )
            yield EvidenceNumber(v, f"{v:.6g}", group[0].unit, src, derived=stat)


def _computed_numbers(c: Computation) -> list[EvidenceNumber]:
    """A computation's value (and its uncertainty) as evidence numbers whose source is the
    computation: what it is and the rows it used (core/material/computed.py)."""
    unit = parse_unit(c.unit) if c.unit else None
    excerpt = _clip(", ".join(f"{v:.6g}" for v in c.inputs) or c.line(), 200)
    if c.kind == STATED:
        src = Source(c.path, c.kind, f"{c.over}, stated: {c.name}", _clip(c.line(), 200),
                     sheet=c.sheet)  # fmt: skip
        return [EvidenceNumber(abs(c.value), f"{c.value:.12g}", unit, src)]
    used = f" ({c.n} values)" if c.n is not None else ""
    src = Source(c.path, c.kind, f"{c.name} of {c.over}{used}", excerpt, sheet=c.sheet)
    out = [EvidenceNumber(abs(c.value), f"{c.value:.12g}", unit, src, derived=c.name)]
    if c.uncertainty is not None:
        u_src = replace(src, location=f"uncertainty of the {src.location}")
        out.append(
            EvidenceNumber(abs(c.uncertainty), f"{c.uncertainty:.12g}", unit, u_src,
                           derived=f"uncertainty of the {c.name}")
        )  # fmt: skip
    return out


def evidence_numbers(
    records: Iterable[EvidenceRecord | Mapping[str, Any]], folder: Path | None = None
) -> list[EvidenceNumber]:
    """Every number of the evidence records, with its source (and a few column statistics)."""
    out: list[EvidenceNumber] = []
    for given in records:
        record = as_record(given)
        if record.kind in (COMPUTATION, STATED):
            computed = Computation.from_record(record.to_dict())
            if computed is not None:
                out += _computed_numbers(computed)
            continue
        text = record.text
        if not text:
            continue
        reader = _Reader(record, folder)
        found = _with_roles(
            [
                n
                for i, line in enumerate(text.split("\n"))
                for n in _numbers_of_line(reader, i, line)
            ]
        )
        out += found
        out += _derived(found)
    return out


# -- loading ----------------------------------------------------------------


def load_run_evidence(run_dir: Path) -> list[EvidenceRecord]:
    """evidence.jsonl, plus the printed output of figures whose provenance holds it."""
    run = RunDir(run_dir)
    records = run.load_evidence()
    have = {(r.path, r.text) for r in records}
    for sidecar in run.sidecars():  # a link among them (RunLinkError) is not read
        stdout = sidecar.stdout
        if not stdout or not stdout.strip():
            continue
        rel = in_figures(f"{sidecar.filename}.pdf")
        if (rel, stdout) in have:
            continue
        inputs = [i.path for i in sidecar.inputs]
        records.append(EvidenceRecord(rel, stdout, kind="figure_output", inputs=inputs))
    return records


def record_of_page(path: str, page: Page) -> dict[str, Any]:
    """The evidence record of a page read (evidence.jsonl): the text and where its lines are."""
    return {
        "path": path,
        "kind": page.kind,
        "offset": page.offset,
        "end": page.end,
        "text": page.text,
        "spans": [s.to_dict() for s in page.spans],
    }


def evidence_from_folder(folder: Path, paths: Iterable[str]) -> list[dict[str, Any]]:
    """Evidence records of whole files read through the readers (as read_file pages them)."""
    records: list[dict[str, Any]] = []
    for rel in paths:
        try:
            src = _in_folder(folder, rel)
        except (PathDenied, OSError):
            continue
        with src:  # every page from the one file opened beneath the folder
            offset = 0
            for _ in range(1000):  # a page cap: a huge file must not stall a check
                try:
                    page = read_page(src, offset, None)
                except ReadError:
                    break
                if page.text and page.productive:
                    records.append(record_of_page(rel, page))
                if page.end <= offset or page.total is not None and page.end >= page.total:
                    break
                offset = page.end
    return records
