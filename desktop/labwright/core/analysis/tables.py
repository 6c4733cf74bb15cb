"""A data file's tables as `load` hands them out, found by core/material/tables (the parent side).

`prepare(folder, paths)` is the payload the sandbox receives (frames.py reads it back):
each file's detected measurement tables — data rows only, as the detector gives them —
with physicist column names (the quantity without its unit, "length" for "length_m"),
units, roles and the cell range they came from. `load_table` is the same for code that
runs here (the offline report). Files are opened beneath the folder by the detector
itself (material/workspace.open_in_folder); a path outside, a missing file or one with
no table gives an entry with a note instead.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from pathlib import Path, PurePath
from typing import Any

from labwright.core.material.tables import Table, scan_tables

from .frames import Loader

MAX_ROWS = 20_000  # rows of one table handed to analysis code
MAX_CELLS = 400_000  # cells of all tables of one call (the payload crosses as JSON)


def _unique(names: list[str]) -> list[str]:
    seen: dict[str, int] = {}
    out = []
    for name in names:
        seen[name] = seen.get(name, 0) + 1
        out.append(name if seen[name] == 1 else f"{name} ({seen[name]})")
    return out


def _column_name(table: Table, j: int) -> str:
    name = table.names[j].strip() if j < len(table.names) else ""
    return name or table.columns[j]


def table_payload(table: Table, row_budget: int | None = None) -> dict[str, Any]:
    """One detected table as plain JSON (columns of values, NaN as null)."""
    width = len(table.columns)
    names = _unique([_column_name(table, j) for j in range(width)])
    rows = table.rows if row_budget is None else table.rows[: max(row_budget, 0)]
    data: list[list[Any]] = []
    kinds: list[str] = []
    for j in range(width):
        numbers = [r[j] if j < len(r) else None for r in rows]
        if any(v is not None for v in numbers):
            data.append([None if v is None or not math.isfinite(v) else v for v in numbers])
            kinds.append("number")
            continue
        labels = [
            (table.labels[i][j] if i < len(table.labels) and j < len(table.labels[i]) else None)
            for i in range(len(rows))
        ]
        data.append(labels)
        kinds.append("text" if any(v is not None for v in labels) else "number")
    units = [(table.units[j] if j < len(table.units) else None) or "" for j in range(width)]
    roles = [table.roles[j] if j < len(table.roles) else "" for j in range(width)]
    return {
        "source": table.source,
        "sheet": table.sheet,
        "range": table.cell_range(),
        "title": table.title,
        "columns": names,
        "headers": list(table.columns),
        "units": units,
        "roles": roles,
        "kinds": kinds,
        "uncertainty_of": {
            names[u]: names[c] for u, c in table.uncertainty_of.items() if u < width and c < width
        },
        "data": data,
        "n_rows": len(rows),
        "cut": len(rows) < table.n_rows,
        "template": table.template,
    }


def prepare(folder: Path, paths: Iterable[str], *, max_cells: int = MAX_CELLS) -> dict[str, Any]:
    """The payload of `load` for these files (relative to `folder`): {"files": {rel: entry}}."""
    files: dict[str, Any] = {}
    budget = max_cells
    for rel in dict.fromkeys(p.strip().removeprefix("./") for p in paths):
        if not rel or rel in files:
            continue
        found = scan_tables(folder, rel, max_rows=MAX_ROWS)
        if found is None:
            files[rel] = {"tables": [], "note": "no table file, or not readable in the folder"}
            continue
        tables = []
        for table in found.tables:
            width = max(len(table.columns), 1)
            entry = table_payload(table, budget // width)
            budget -= entry["n_rows"] * width
            tables.append(entry)
        sheets = list(dict.fromkeys(t["sheet"] for t in tables if t["sheet"] is not None))
        note = "" if tables else "the detector found no measurement table in it"
        files[rel] = {"tables": tables, "sheets": sheets, "note": note}
    return {"files": files}


def load_table(
    folder: Path, rel: str, sheet: str | int | None = None, table: int | str | None = None
) -> Any:
    """The DataFrame `load(rel, sheet, table)` gives analysis code, for code that runs here."""
    return Loader(prepare(folder, [rel]), PurePath(folder))(rel, sheet=sheet, table=table)
