"""Tables of the same columns that are curves of one family: one table with a label column.

Five I–V curves written as (V, I) blocks, one per wavelength, or a resonance curve per
resistor written side by side as (f, V, V/Vmax) triples, are one measurement: one table
whose first column says which curve a row belongs to ("λ = 365", "R = 12 kΩ"), never a
10-column table that plots V against V. Tables of one sheet are a family when they have
the same quantities and units and stand

* side by side, on the same header row; or
* one under another in one block, each written sideways under a row that labels it
  ("1  λ(mm)=  365", see transposed.py).

Each curve's label comes from the words above it that are its own ("R=12", "8kΩ"), or its
label row; else curves are numbered. A label's unit that another column of the sheet
contradicts (the sheet writes "λ(mm)=" where its 波长 (nm) column holds the same values)
takes that column's unit, and the family's note says so.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from labwright.core.material.tables.cells import column_index
from labwright.core.material.tables.detect import col_name
from labwright.core.material.tables.facts import Family, rows_title
from labwright.core.material.tables.roles import CATEGORY, parse_header
from labwright.core.material.tables.stated import fix_unit
from labwright.core.material.units import parse_unit

if TYPE_CHECKING:
    from labwright.core.material.tables import Table

# A label's unit and the quantity a physicist writes for it.
_UNIT_SYMBOL = {"Ω": "R", "kΩ": "R", "MΩ": "R", "Hz": "f", "kHz": "f", "nm": "λ", "V": "U",
                "K": "T", "°C": "T"}  # fmt: skip


@dataclass
class Member:
    table: Table
    curve: tuple[str, float, str] | None  # the label row above a sideways block
    block: int | None  # the grid block it was read from


def _shape(t: Table) -> tuple[object, ...]:
    return (tuple(t.names), tuple(t.units))


def _ranges_overlap(a: Table, b: Table) -> bool:
    return a.first_row <= b.last_row and b.first_row <= a.last_row


def _side_by_side(group: list[Member]) -> bool:
    tops = {(m.table.header_rows or [m.table.first_row])[0] for m in group}
    if len(tops) != 1 or any(m.table.transposed for m in group):
        return False
    cols = [set(m.table.col_numbers) for m in group]
    return all(not (cols[i] & cols[j]) for i in range(len(cols)) for j in range(i + 1, len(cols)))


def _stacked_blocks(group: list[Member]) -> bool:
    return (
        all(m.table.transposed and m.curve is not None for m in group)
        and len({m.block for m in group}) == 1
    )


def find_families(members: Sequence[Member]) -> list[list[Member]]:
    """Groups of two or more tables of one sheet that are curves of one family."""
    by_shape: dict[tuple[object, ...], list[Member]] = {}
    for m in members:
        t = m.table
        if t.template or t.cut or len(t.columns) < 2 or t.family is not None:
            continue
        by_shape.setdefault(_shape(t), []).append(m)
    out = []
    for group in by_shape.values():
        if len(group) < 2:
            continue
        if _stacked_blocks(group):
            out.append(group)
            continue
        tops: dict[int, list[Member]] = {}
        for m in group:
            tops.setdefault((m.table.header_rows or [m.table.first_row])[0], []).append(m)
        out += [g for g in tops.values() if len(g) >= 2 and _side_by_side(g)]
    return out


# --------------------------------------------------------------------------
# Labels
# --------------------------------------------------------------------------


def _label_of_text(text: str) -> tuple[str | None, str, str | None]:
    """(name, label, unit) of "R=12", "R= 8 kΩ", "12kΩ", "λ(mm)= 365"."""
    text = " ".join(text.split())
    name = None
    if m := re.match(r"^(.{1,20}?)\s*[=＝:：]\s*(.+)$", text):
        name, text = m.group(1), m.group(2)
    value = re.match(r"^([-+]?\d+(?:\.\d+)?)\s*(\S{0,6})$", text)
    unit = fix_unit(value.group(2)) if value and value.group(2) else None
    return name, text, unit


def _own_lines(group: list[Member]) -> list[str | None]:
    """Each member's nearest title line that the others do not share."""
    shared = set.intersection(*(set(m.table.context) for m in group))
    out: list[str | None] = []
    for m in group:
        own = [c for c in m.table.context if c not in shared]
        out.append(own[-1] if own else None)
    return out


def _labels(
    group: list[Member],
) -> tuple[str, str | None, list[str], list[float | None], list[str]]:
    """(label column name, unit, labels, the labels as numbers, the texts they came from)."""
    names: list[str | None] = []
    units: list[str | None] = []
    labels: list[str] = []
    numbers: list[float | None] = []
    sources: list[str] = []
    if all(m.curve is not None for m in group):
        for m in group:
            assert m.curve is not None
            header = parse_header(m.curve[0])
            names.append(header.name)
            units.append(header.unit)
            labels.append(f"{m.curve[1]:g}")
            numbers.append(m.curve[1])
            sources.append(m.curve[2])
    else:
        for k, line in enumerate(_own_lines(group)):
            if line is None:
                names.append(None)
                units.append(None)
                labels.append(str(k + 1))
                numbers.append(None)
                continue
            name, label, unit = _label_of_text(line)
            names.append(name)
            units.append(unit)
            labels.append(label)
            number = re.match(r"^[-+]?\d+(?:\.\d+)?", label)
            numbers.append(float(number.group()) if number else None)
            sources.append(line)
    unit = units[0] if len(set(units)) == 1 else None
    if names[0] is not None and len(set(names)) == 1:
        name = names[0]
    else:
        name = _UNIT_SYMBOL.get(unit or "", "curve")
    return name, unit, labels, numbers, sources


def _unit_from_sheet(
    numbers: list[float | None], unit: str | None, name: str, others: Sequence[Table]
) -> tuple[str | None, str]:
    """The labels' unit as another column of the sheet states it, when that column holds
    the same values in a unit of the same kind (λ(mm)= 365 beside 波长(nm): 365, 405 …)."""
    wanted = {n for n in numbers if n is not None}
    parsed = parse_unit(unit) if unit else None
    if not wanted or parsed is None:
        return unit, ""
    for t in others:
        for j, column_unit in enumerate(t.units):
            if not column_unit or column_unit == unit:
                continue
            values = {row[j] for row in t.rows if j < len(row) and row[j] is not None}
            other = parse_unit(column_unit)
            if wanted <= values and other is not None and other.dims == parsed.dims:
                note = (
                    f"the sheet writes {name}({unit}) for the curves, but its column "
                    f"{t.columns[j]} holds the same values in {column_unit}: read as {column_unit}"
                )
                return column_unit, note
    return unit, ""


# --------------------------------------------------------------------------
# One table of the family
# --------------------------------------------------------------------------


def merge(group: list[Member], others: Sequence[Table]) -> Table:
    """The family as one table: a label column, then the members' columns; rows in order."""
    first = group[0].table
    name, unit, labels, numbers, _ = _labels(group)
    unit, note = _unit_from_sheet(numbers, unit, name, others)
    head = f"{name} ({unit})" if unit else name
    rows: list[list[float | None]] = []
    texts: list[list[str | None]] = []
    written: list[list[str | None]] = []
    row_names: list[str] = []
    sample: list[list[float | None]] = []
    sample_labels: list[list[str | None]] = []
    for m, label in zip(group, labels, strict=True):
        t = m.table
        width = len(t.columns)
        for i, row in enumerate(t.rows):
            rows.append([None, *row])
            texts.append([label, *(t.labels[i] if i < len(t.labels) else [None] * width)])
            written.append([None, *(t.written[i] if i < len(t.written) else [None] * width)])
            row_names.append(t.row_label(i))
        sample += [[None, *row] for row in t.plot_rows()]
        sample_labels += [[label] + [None] * width for _ in t.plot_rows()]
    columns = [head, *first.columns]
    names = [name, *first.names]
    units = [unit, *first.units]
    # The curves' columns keep the roles read in one curve (1…10 is an index in each, not
    # over all rows); the label column says which curve a row is on.
    roles = [CATEGORY, *first.roles]
    uncertainty_of = {j + 1: k + 1 for j, k in first.uncertainty_of.items()}
    # Each curve's statistics are its table's, over all its rows: one group per curve.
    stats = [
        replace(stat, group=label)
        for m, label in zip(group, labels, strict=True)
        for stat in (m.table.stats or [])
        if stat.group is None
    ]
    extent, peaks = _extent(group)
    top = min(m.table.first_row for m in group)
    bottom = max(m.table.last_row for m in group)
    members = [m.table.cell_range() for m in group]
    family = Family(name, unit, labels, members, note, numbers)
    if all(m.curve is not None for m in group):
        context = list(first.context)  # labels are in their own rows: the title is the group's
    else:
        own = set(_own_lines(group))
        context = [c for c in first.context if c not in own]
    return replace(
        first,
        first_row=top,
        last_row=bottom,
        title=rows_title(first.source, first.sheet, top, bottom, context),
        columns=columns,
        rows=rows,
        omitted_rows=sum(m.table.omitted_rows for m in group),
        written=written if any(any(w) for w in written) else [],
        col_numbers=[],
        names=names,
        units=units,
        roles=roles,
        uncertainty_of=uncertainty_of,
        labels=texts,
        stats=stats,
        sample=sample if any(m.table.omitted_rows for m in group) else [],
        sample_labels=sample_labels if any(m.table.omitted_rows for m in group) else [],
        extent=extent,
        peaks=peaks,
        summaries=[s for m in group for s in m.table.summaries],
        odd_cells=[x for m in group for x in m.table.odd_cells],
        resolutions=[None, *first.resolutions] if first.resolutions else [],
        row_summaries={
            j + 1: replace(r, of=tuple(k + 1 for k in r.of)) for j, r in first.row_summaries.items()
        },
        row_names=row_names,
        sheet_range=_union(members),
        family=family,
        context=context,
    )


def _extent(
    group: list[Member],
) -> tuple[list[tuple[float, float] | None], list[list[float] | None]]:
    """Per column (the label column first): the range over all curves, and the row (with its
    curve's empty label cell) where it is largest."""
    width = len(group[0].table.columns)
    extent: list[tuple[float, float] | None] = [None]
    peaks: list[list[float] | None] = [None]
    for j in range(width):
        spans = [
            span
            for m in group
            if j < len(m.table.extent) and (span := m.table.extent[j]) is not None
        ]
        extent.append((min(s[0] for s in spans), max(s[1] for s in spans)) if spans else None)
        best = None
        for m in group:
            span = m.table.extent[j] if j < len(m.table.extent) else None
            peak = m.table.peaks[j] if j < len(m.table.peaks) else None
            if span and peak is not None and (best is None or span[1] > best[0]):
                best = (span[1], [float("nan"), *peak])
        peaks.append(best[1] if best else None)
    return extent, peaks


def _union(ranges: list[str]) -> str:
    cells = []
    for r in ranges:
        for part in r.split(":"):
            m = re.fullmatch(r"([A-Z]+)(\d+)", part)
            if m:
                cells.append((column_index(m.group(1)), int(m.group(2))))
    if not cells:
        return ranges[0]

    c1, r1 = min(c for c, _ in cells), min(r for _, r in cells)
    c2, r2 = max(c for c, _ in cells), max(r for _, r in cells)
    return f"{col_name(c1)}{r1}:{col_name(c2)}{r2}"
