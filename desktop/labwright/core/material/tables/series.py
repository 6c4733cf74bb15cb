"""Series of many similar files (31 analyzer spectra, 14 scope traces): one entry, not 45.

Tables are a series when at least MIN_SERIES files of one folder, with names
alike ("trace_01.csv", "trace_02.csv"; or a common stem), hold a table of the
same header and column roles. A series is summarised by its files' key
figures — rows, range of the independent variable, the peak of the measured
quantity and where it is, the mean where a mean means something — never by
averaging across files: a frequency axis is the independent variable, and a
level in dB is not averaged as if it were linear.

`ordered_items` puts single tables and series in file order, for the package's
`collect_data`: what a report shows of a folder's data files, capped, with a line
for everything left out.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import PurePosixPath
from typing import TYPE_CHECKING

from labwright.core.material.tables.roles import CONSTANT, INDEPENDENT, MEASURED, is_logarithmic

if TYPE_CHECKING:
    from labwright.core.material.tables import Table
    from labwright.core.material.tables.facts import LeftOut, StatedResult

MIN_SERIES = 3  # files of one shape before they are a series rather than tables


@dataclass(frozen=True)
class FileFigures:
    """One file of a series, by its key figures (over all its rows)."""

    source: str
    rows: int
    x_range: tuple[float, float] | None  # of the independent variable
    peak: float | None  # the largest value of the measured quantity
    peak_at: float | None  # the independent variable there
    mean: float | None  # None where a mean means nothing (dB, no measured column)


@dataclass
class Series:
    folder: str  # posix, "" for the root
    pattern: str  # "spectra/gain_*.txt"
    tables: list[Table]  # one per file, in name order
    x: int | None  # the independent column
    y: int | None  # the measured column the figures are of
    figures: list[FileFigures] = field(default_factory=list)
    # Each file's curve label: what tells the files apart ("Voltage = 150.3": a column
    # constant in each file; else the part of the name that differs: "v150").
    labels: list[str] = field(default_factory=list)

    @property
    def first(self) -> Table:
        return self.tables[0]

    @property
    def columns(self) -> list[str]:
        return list(self.first.columns)

    @property
    def logarithmic(self) -> bool:
        units = self.first.units
        return self.y is not None and self.y < len(units) and is_logarithmic(units[self.y])

    @property
    def sources(self) -> list[str]:
        return [t.source for t in self.tables]

    def describe(self) -> str:
        """One line: "spectra/gain_*.txt: a series of 31 files, 10 rows each, frequency (Hz), …"."""
        rows = sorted({t.n_rows for t in self.tables})
        each = f"{rows[0]} rows each" if len(rows) == 1 else f"{rows[0]}–{rows[-1]} rows"
        where = self.first.cell_range()
        return (
            f"{self.pattern}: a series of {len(self.tables)} files alike ({each}, "
            f"{where}; header: {', '.join(self.columns[:6])}"
            f"{', …' if len(self.columns) > 6 else ''})"
        )


@dataclass
class DataOverview:
    """What a report shows of the data: single tables and series in file order, and what
    it leaves out (each a sentence a person can act on)."""

    items: list[Table | Series]
    left_out: list[str] = field(default_factory=list)
    # Values stated in the material beside the data (facts.StatedResult), in file order.
    stated: list[StatedResult] = field(default_factory=list)
    left_out_records: list[LeftOut] = field(default_factory=list)  # why, as data

    @property
    def tables(self) -> list[Table]:
        return [
            t for item in self.items for t in (item.tables if isinstance(item, Series) else [item])
        ]

    @property
    def series(self) -> list[Series]:
        return [item for item in self.items if isinstance(item, Series)]


def _shape(table: Table) -> tuple[object, ...]:
    return (tuple(table.columns), tuple(table.roles), table.sheet)


def _stem_pattern(name: str) -> str:
    return re.sub(r"\d+", "#", name)


def _alike(names: list[str]) -> bool:
    """Names of one series: the same pattern up to numbers, or a common start of 3+ letters."""
    if len({_stem_pattern(n) for n in names}) == 1:
        return True
    prefix = names[0]
    for n in names[1:]:
        while not n.startswith(prefix):
            prefix = prefix[:-1]
    return len(prefix.strip("_- .")) >= 3


def _pattern(folder: str, names: list[str]) -> str:
    """A glob that names the files: the common start and end around a "*"."""
    start, end = names[0], names[0]
    for n in names[1:]:
        while not n.startswith(start):
            start = start[:-1]
        while not n.endswith(end):
            end = end[1:]
    if len(start) + len(end) > min(len(n) for n in names):
        end = end[len(start) + len(end) - min(len(n) for n in names) :]
    if len({_stem_pattern(n) for n in names}) == 1:  # "SA_001" … "SA_031": SA_*, not SA_0*
        start = start.rstrip("0123456789")
        end = end.lstrip("0123456789")
    glob = f"{start}*{end}"
    return f"{folder}/{glob}" if folder else glob


def _axes(table: Table) -> tuple[int | None, int | None]:
    x = next((j for j, r in enumerate(table.roles) if r == INDEPENDENT), None)
    y = next((j for j, r in enumerate(table.roles) if r == MEASURED), None)
    return x, y


def _figures(table: Table, x: int | None, y: int | None, logarithmic: bool) -> FileFigures:
    extent = table.extent
    x_range = extent[x] if x is not None and x < len(extent) else None
    peak = peak_at = mean = None
    span = extent[y] if y is not None and y < len(extent) else None
    if y is not None and span is not None:
        peak = span[1]
        row = table.peaks[y] if y < len(table.peaks) else None
        if row is not None and x is not None and x < len(row) and row[x] == row[x]:
            peak_at = row[x]
        if not logarithmic:
            mean = next(
                (
                    s.mean
                    for s in table.stats or []
                    if s.name == table.columns[y] and s.group is None
                ),
                None,
            )
    return FileFigures(table.source, table.n_rows, x_range, peak, peak_at, mean)


def find_series(tables: Iterable[Table]) -> list[Series]:
    """The series among `tables` (a file's table is in at most one)."""
    groups: dict[tuple[object, ...], list[Table]] = {}
    for t in tables:
        if t.template or not t.roles:
            continue
        path = PurePosixPath(t.source)
        groups.setdefault((str(path.parent), path.suffix.lower(), *_shape(t)), []).append(t)
    out = []
    for key, members in groups.items():
        folder = "" if key[0] == "." else str(key[0])
        for part in _split(members):
            names = [PurePosixPath(t.source).name for t in part]
            x, y = _axes(part[0])
            s = Series(folder, _pattern(folder, names), part, x, y)
            s.figures = [_figures(t, x, y, s.logarithmic) for t in part]
            s.labels = curve_labels(part)
            out.append(s)
    return out


def curve_labels(tables: list[Table]) -> list[str]:
    """What tells files of one shape apart: a column constant in each file and different
    between them ("Voltage = 150.3"), else the part of their names that differs."""
    first = tables[0]
    for j, role in enumerate(first.roles):
        if role != CONSTANT:
            continue
        values = [_constant(t, j) for t in tables]
        if all(v is not None for v in values) and len(set(values)) == len(values):
            unit = first.units[j] if j < len(first.units) else None
            name = first.names[j] if j < len(first.names) else first.columns[j]
            return [f"{name} = {v:g}" + (f" {unit}" if unit else "") for v in values]
    stems = [PurePosixPath(t.source).stem for t in tables]
    # Whole numbers and words, never a cut inside one ("20Hz", "250Hz": 20 and 250).
    tokens = [re.findall(r"\d+(?:\.\d+)?|[^\W\d_]+|[\W_]+", n) for n in stems]
    start = 0
    while all(len(t) > start and t[start] == tokens[0][start] for t in tokens):
        start += 1
    end = 0
    while all(len(t) - end > start and t[-1 - end] == tokens[0][-1 - end] for t in tokens):
        end += 1
    parts = ["".join(t[start : len(t) - end]).strip(" _-,.") for t in tokens]
    return parts if all(parts) else stems


def _constant(table: Table, j: int) -> float | None:
    values = {row[j] for row in table.rows if j < len(row) and row[j] is not None}
    return values.pop() if len(values) == 1 else None


def _split(members: list[Table]) -> list[list[Table]]:
    """The series among tables of one shape: all of them when their names are alike, else
    the groups of one name pattern."""
    files = {t.source for t in members}
    if len(files) < MIN_SERIES or len(files) != len(members):
        return []
    ordered = sorted(members, key=lambda t: _natural(PurePosixPath(t.source).name))
    names = [PurePosixPath(t.source).name for t in ordered]
    if _alike(names):
        return [ordered]
    by_pattern: dict[str, list[Table]] = {}
    for t, n in zip(ordered, names, strict=True):
        by_pattern.setdefault(_stem_pattern(n), []).append(t)
    return [group for group in by_pattern.values() if len(group) >= MIN_SERIES]


def _natural(name: str) -> list[tuple[int, int | str]]:
    """gain_2 before gain_10."""
    return [(0, int(p)) if p.isdigit() else (1, p.casefold()) for p in re.split(r"(\d+)", name)]


def ordered_items(tables: list[Table]) -> list[Table | Series]:
    """Tables and series, each where its first file comes."""
    series_of = {id(t): s for s in find_series(tables) for t in s.tables}
    placed: list[Table | Series] = []
    seen: set[int] = set()
    for t in tables:
        s = series_of.get(id(t))
        if s is None:
            placed.append(t)
        elif id(s) not in seen:
            seen.add(id(s))
            placed.append(s)
    return placed
