"""Is this number a summary of the rows above it? By its label, or by its value.

A total or a mean under a column is no data row: taken as one, a mean of 20 count
rates of 39.08 becomes 74.44. A cell is a summary when the words beside it say so
(total, sum, ave, average, mean, overall, 合计, 总和, 平均, 平均值 …) or when its value
is the sum, the mean or the standard deviation of the column's rows, to the
precision the cell is written with.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence

from labwright.core.material.readers.workbook import format_float
from labwright.core.material.tables.cells import Cell, Written

SUMMARY_LABEL = re.compile(
    r"(?:^|[^a-z])(?:total|totals|sum|sums|ave|avg|average|averages|mean|means|overall"
    r"|grand total)(?:$|[^a-z])|合计|总和|总计|平均|均值|总数",
    re.I,
)


def is_summary_label(text: str) -> bool:
    return bool(SUMMARY_LABEL.search(" ".join(text.split())))


def _decimals(text: str) -> int:
    mantissa, _, exponent = text.lower().partition("e")
    decimals = len(mantissa.partition(".")[2])
    return decimals - (int(exponent) if exponent.lstrip("+-").isdigit() else 0)


def decimals(cell: float) -> int:
    """How many decimals the value is written with ("39.08": 2, "0.1900": 4, 2.0: 0)."""
    return _decimals(cell.text if isinstance(cell, Written) else format_float(float(cell)))


def tolerance(cell: float) -> float:
    """Half a unit in the last digit the value is written with (39.08: 0.005), and float noise."""
    return 0.5 * 10.0 ** -decimals(cell) + 1e-9 * abs(float(cell))


MAX_DECIMALS = 12


def agreement(value: float, inputs: Sequence[float]) -> float:
    """How close a summary must be to the figure of its inputs: half a unit in the last digit
    of the most precise of them (a mean "3" of 2.9, 3.0, 3.1 is 3.0 ± 0.05, not ± 0.5)."""
    places = min(MAX_DECIMALS, max(decimals(x) for x in [value, *inputs]))
    return 0.5 * 10.0**-places + 1e-9 * abs(float(value))


def summary_kind(value: float, column: Sequence[float | None]) -> str | None:
    """ "sum", "mean" or "std" when `value` is that figure of `column`'s values, else None.

    Never for a column of one value (its mean is any of its cells) or of zeros.
    """
    values = [v for v in column if v is not None]
    if len(values) < 2 or len(set(values)) < 2:
        return None
    tol = agreement(value, values)
    total = math.fsum(values)
    mean = total / len(values)
    if abs(value - total) <= tol and total != 0:
        return "sum"
    if abs(value - mean) <= tol:
        return "mean"
    var = math.fsum((v - mean) ** 2 for v in values) / (len(values) - 1)
    if abs(value - math.sqrt(var)) <= tol and var > 0:
        return "std"
    return None


def row_summary(
    values: Sequence[float | None], parts: Sequence[Sequence[float | None]]
) -> str | None:
    """ "sum" or "mean" when each row's value is that of the row's `parts` (n sum = n1+n2+n3,
    平均值 = (加载 + 卸载)/2), on every row where all are filled (at least two rows)."""
    found: set[str] = set()
    checked = 0
    varied = False  # parts equal on every row (20, 20, 20) say nothing of which is the mean
    for i, v in enumerate(values):
        row = [p[i] if i < len(p) else None for p in parts]
        if v is None or any(x is None for x in row):
            continue
        xs = [x for x in row if x is not None]
        varied = varied or len(set(xs)) > 1
        tol = agreement(v, xs) + 1e-12
        kinds = set()
        if abs(v - math.fsum(xs)) <= tol:
            kinds.add("sum")
        if abs(v - math.fsum(xs) / len(xs)) <= tol:
            kinds.add("mean")
        if not kinds:
            return None
        found = kinds if not checked else found & kinds
        if not found:
            return None
        checked += 1
    if checked < 2 or not varied:
        return None
    return "mean" if "mean" in found else "sum"


def cell_words(cell: Cell) -> str | None:
    """A text cell's words (None for a number or an empty cell)."""
    if isinstance(cell, str):
        return " ".join(cell.split()) or None
    return None
