"""Tables written sideways: one quantity per row, one measurement per column.

Chinese lab record sheets write most tables so (序号 1 2 3 4 5 / 波长(nm) 365 405 … /
频率 …), and so do many others. A block is read as transposed when

* a row counts the measurements (序号, 测量次数, 数据序号, No.: 1, 2, 3 … across the
  columns), with its name in the leftmost column(s), and the rows under it each hold a
  quantity's name there and its numbers in the counted columns; or, without such a row,
* two or more rows each hold a name with a unit ("d/mm", "U_ak(V)") followed by three
  or more numbers, and no row of the block has words over those numbers.

Words at the end of the count row ("平均值") head a summary column: its cells are the
summaries of each quantity's row, never a measurement. A row right above the count row
that states a value ("1  λ(mm)=  365") labels the block: blocks alike under one another
are one family of curves (see family.py).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from labwright.core.material.tables.cells import Cell, Row, is_missing
from labwright.core.material.tables.roles import parse_header
from labwright.core.material.tables.summary import cell_words

MIN_COLUMNS_WITHOUT_COUNT = 3


@dataclass
class Part:
    """One transposed table of a block."""

    label_cols: list[int]  # the columns holding the quantities' names
    count_row: int | None  # the row counting the measurements, when there is one
    rows: list[int]  # the quantities' rows, top to bottom
    value_cols: list[int]  # the columns of the measurements, left to right
    summary_cols: list[int] = field(default_factory=list)  # "平均值" columns
    label_row: int | None = None  # "1  λ(mm)=  365" right above
    curve: tuple[str, float, str] | None = None  # (name as written, value, the cell text)


def _floats(cells: dict[int, Cell]) -> list[int]:
    return sorted(c for c, v in cells.items() if isinstance(v, float))


def _texts(cells: dict[int, Cell]) -> list[int]:
    return sorted(c for c, v in cells.items() if isinstance(v, str) and not is_missing(v))


def _consecutive_from_one(values: list[float]) -> bool:
    return (
        len(values) >= 2
        and values[0] in (0.0, 1.0)
        and all(v.is_integer() for v in values)
        and all(b - a == 1 for a, b in zip(values, values[1:], strict=False))
    )


def _count_row(cells: dict[int, Cell]) -> tuple[list[int], list[int], list[int]] | None:
    """(label columns, counted columns, summary columns) of a count row, or None."""
    numbers = _floats(cells)
    texts = _texts(cells)
    if len(numbers) < 2:
        return None
    first, last = numbers[0], numbers[-1]
    labels = [c for c in texts if c < first]
    inside = [c for c in texts if first < c < last]
    after = [c for c in texts if c > last]
    if not labels or inside:
        return None
    if numbers != list(range(first, last + 1)):
        return None  # a gap: not one count across the columns
    if not _consecutive_from_one([float(cells[c]) for c in numbers]):  # type: ignore[arg-type]
        return None
    return labels, numbers, after


def _quantity_row(cells: dict[int, Cell], label_cols: list[int], span: tuple[int, int]) -> bool:
    """A quantity's row: its name in the label columns, numbers only within the span."""
    numbers = _floats(cells)
    if not numbers or not any(isinstance(cells.get(c), str) for c in label_cols):
        return False
    if any(c in cells and isinstance(cells[c], float) for c in label_cols):
        return False
    lo, hi = span
    for c, v in cells.items():
        if c in label_cols or v is None:
            continue
        if not lo <= c <= hi:
            return False
        if isinstance(v, str) and not is_missing(v):
            return False  # words among the numbers: a header row of an upright table
    return True


def _label_row(cells: dict[int, Cell]) -> tuple[str, float, str] | None:
    """ "1 | λ(mm)= | 365": a cell ending in "=" and the number right of it."""
    for c in sorted(cells):
        text = cell_words(cells[c])
        if text is None or not re.search(r"[=＝:：]\s*$", text):
            continue
        value = cells.get(c + 1)
        if isinstance(value, float):
            name = re.sub(r"\s*[=＝:：]\s*$", "", text)
            return name, float(value), f"{text} {value:g}"
    return None


def find_parts(block: dict[int, list[int]], by_number: dict[int, Row]) -> list[Part]:
    """The transposed tables of one block of touching cells (none for an upright table)."""

    def cells(r: int) -> dict[int, Cell]:
        row = by_number[r].cells
        return {c: row[c] for c in block.get(r, []) if c < len(row)}

    rows = sorted(block)
    parts: list[Part] = []
    claimed: set[int] = set()
    for i, r in enumerate(rows):
        if r in claimed:
            continue
        found = _count_row(cells(r))
        if found is None:
            continue
        label_cols, counted, summary_cols = found
        span = (counted[0], max(counted + summary_cols))
        quantities: list[int] = []
        for r2 in rows[i + 1 :]:
            if r2 != (quantities[-1] if quantities else r) + 1:
                break
            c2 = cells(r2)
            if _count_row(c2) is not None or not _quantity_row(c2, label_cols, span):
                break
            quantities.append(r2)
        if not quantities or not _distinct_names(quantities, label_cols, cells):
            continue
        part = Part(label_cols, r, quantities, counted, summary_cols)
        above = r - 1
        if above in block and above not in claimed:
            curve = _label_row(cells(above))
            if curve is not None:
                part.label_row, part.curve = above, curve
        parts.append(part)
        claimed.update([r, *quantities, *([part.label_row] if part.label_row else [])])
    if parts:
        return parts
    return _without_count(rows, cells)


def _distinct_names(rows: list[int], label_cols: list[int], cells) -> bool:  # type: ignore[no-untyped-def]
    names = [quantity_name(cells(r), label_cols) for r in rows]
    return len(set(names)) == len(names)


def quantity_name(cells: dict[int, Cell], label_cols: list[int]) -> str:
    """The name of a quantity's row: its label cells, a merged name said once."""
    parts = [cell_words(cells.get(c)) for c in label_cols]
    return " ".join(dict.fromkeys(p for p in parts if p))


def _without_count(rows: list[int], cells) -> list[Part]:  # type: ignore[no-untyped-def]
    """Rows of a name with a unit and three or more numbers, no words over the numbers."""
    candidates: list[tuple[int, int, list[int]]] = []
    for r in rows:
        c = cells(r)
        numbers, texts = _floats(c), _texts(c)
        if len(texts) != 1 or len(numbers) < MIN_COLUMNS_WITHOUT_COUNT or texts[0] > numbers[0]:
            return []
        candidates.append((r, texts[0], numbers))
    if len(candidates) < 2 or len({label for _, label, _ in candidates}) != 1:
        return []
    if any(rows[k + 1] != rows[k] + 1 for k in range(len(rows) - 1)):
        return []
    label_col = candidates[0][1]
    names = [cell_words(cells(r)[label_col]) or "" for r, _, _ in candidates]
    with_unit = sum(parse_header(n).unit is not None for n in names)
    if 2 * with_unit < len(names) or len(set(names)) != len(names):
        return []
    value_cols = sorted({c for _, _, ns in candidates for c in ns})
    if len(value_cols) < len(candidates):
        return []  # more quantities than measurements: an upright table is likelier
    return [Part([label_col], None, [r for r, _, _ in candidates], value_cols)]
