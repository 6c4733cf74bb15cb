"""What an offline report read and computed, kept as evidence so `labwright verify` traces it.

The skeleton copies cells and computes statistics by code; its evidence says so
(evidence.jsonl, as a model run keeps its reads): every data file it read, whole,
through the readers (a copied cell traces to its file, sheet and cell); every value
stated beside the data (to its cell or line); every statistic it prints, with the
rows it used — the data rows only, never the total or mean written under a column
(core/material/computed.py). Whatever else an offline report computes (a fit, a
derived quantity) is added to the same `Computations` by the code that computes it.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

from labwright.core.material.computed import Computations
from labwright.core.material.evidence import evidence_from_folder
from labwright.core.material.tables import Series, Table, col_letter, column_stats
from labwright.core.material.tables.series import DataOverview

__all__ = ["column_place", "offline_evidence", "record_series", "record_stated", "record_table"]

# The statistics rows of a skeleton's tables (skeleton.py) and what each one is.
STATISTICS = {"n": "number of values", "min": "smallest", "max": "largest",
              "mean": "mean", "std": "standard deviation"}  # fmt: skip


def column_place(table: Table, c: int) -> str:
    """Where column c's data rows stand: "column 'Rate', Sheet1!D33:D52"; "lines 6–8"."""
    name = table.columns[c] if c < len(table.columns) else f"col {c + 1}"
    if table.transposed or table.sheet is None or c >= len(table.col_numbers):
        where = table.cell_range()
        if table.sheet is not None:
            where = f"{table.sheet}!{where}"
        return f"column {name!r}, {where}"
    letter = col_letter(table.col_numbers[c])
    return f"column {name!r}, {table.sheet}!{letter}{table.first_row}:{letter}{table.last_row}"


def _column(table: Table, c: int) -> list[float]:
    return [v for row in table.rows if c < len(row) and (v := row[c]) is not None]


def record_table(trace: Computations, table: Table) -> None:
    """The statistics the skeleton prints under a table, each over the column's data rows."""
    for stat in column_stats(table):
        if "group" in stat:
            continue  # per category: not shown (skeleton.py)
        c = table.columns.index(stat["name"]) if stat["name"] in table.columns else None
        if c is None:
            continue
        # The values themselves when the table holds them all (a streamed one holds a head).
        values = _column(table, c) if not table.omitted_rows else []
        over = column_place(table, c)
        for key, name in STATISTICS.items():
            value = stat.get(key)
            trace.add(name, value, path=table.source, over=over, sheet=table.sheet,
                      n=stat.get("n"), inputs=values)  # fmt: skip


def record_series(trace: Computations, series: Series) -> None:
    """The key figures of each file of a series (series.py: rows, range, peak, mean)."""
    first = series.first
    x = first.columns[series.x] if series.x is not None else None
    y = first.columns[series.y] if series.y is not None else None
    for f in series.figures:
        where = f"all rows of {f.source}"
        trace.add("number of rows", f.rows, path=f.source, over=where)
        if x is not None and f.x_range is not None:
            trace.add("smallest", f.x_range[0], path=f.source, over=f"column {x!r}, {where}")
            trace.add("largest", f.x_range[1], path=f.source, over=f"column {x!r}, {where}")
        if y is not None:
            trace.add("largest", f.peak, path=f.source, over=f"column {y!r}, {where}")
            if x is not None:
                trace.add(f"{x} at the largest {y}", f.peak_at, path=f.source, over=where)
            trace.add("mean", f.mean, path=f.source, over=f"column {y!r}, {where}")


def record_stated(trace: Computations, overview: DataOverview) -> None:
    for s in overview.stated:
        trace.stated(s.name, s.value, path=s.source, where=s.where, unit=s.unit)


def _read_files(overview: DataOverview) -> list[str]:
    """The data files the report shows something of, in order."""
    paths = [t.source for t in overview.tables] + [s.source for s in overview.stated]
    return list(dict.fromkeys(paths))


NAME = "name"  # evidence.jsonl kind of a file's name: the numbers in it ("20241224 RLC.txt")


def offline_evidence(
    folder: Path, overview: DataOverview, trace: Computations, names: Iterable[str] = ()
) -> list[dict[str, Any]]:
    """evidence.jsonl records of an offline report: the names of the files it names, the
    files read, then the computations."""
    for item in overview.items:
        if isinstance(item, Series):
            record_series(trace, item)
        else:
            record_table(trace, item)
    record_stated(trace, overview)
    read = _read_files(overview)
    named = [{"path": p, "kind": NAME, "text": p} for p in dict.fromkeys([*read, *names])]
    return named + evidence_from_folder(folder, read) + trace.records()
