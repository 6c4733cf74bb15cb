"""Table columns computed from other columns (T = t̄/10, g = 4π²L/T²)."""

from __future__ import annotations

import math
import re
import statistics
from collections.abc import Iterable

from labwright.core.report.verify.markup import readable
from labwright.core.report.verify.model import Check, ReportNumber
from labwright.core.report.verify.structure import _Report

_NICE: dict[str, float] = {"": 1.0, "π": math.pi, "2π": 2 * math.pi, "4π²": 4 * math.pi**2,
                           "g": 9.81, "2g": 2 * 9.81, "1/2": 0.5}  # fmt: skip
for _k in (2, 3, 4, 5, 6, 8, 10, 20, 50, 100, 1000):
    _NICE.setdefault(str(_k), float(_k))
    _NICE[f"1/{_k}"] = 1 / _k
_NICE |= {"1/(2π)": 1 / (2 * math.pi), "1/(4π²)": 1 / (4 * math.pi**2), "1/g": 1 / 9.81,
          "1/(2g)": 1 / (2 * 9.81), "2/g": 2 / 9.81}  # fmt: skip
_POWERS = {1: "", 2: "²", -1: "⁻¹", -2: "⁻²", 0.5: "^½"}
MAX_OPERAND_ROUNDING = 0.02  # relative rounding of a formula's operands, at most


# A table's row-number column ("line", "row", "No.", "#", "序号") counts rows; nothing is
# derived from it (2π·√[line] = 8.89 would "trace" any number near 8.9).
_INDEX_HEADER = re.compile(
    r"^(?:#|no\.?|nr\.?|n|index|idx|row|line|item|frame|trial|run|序号|编号|行|行号|次数)$", re.I
)


def index_columns(report: _Report) -> set[tuple[int, int]]:
    """(table, column) of the report's tables whose cells are row numbers."""
    values: dict[tuple[int, int], list[float]] = {}
    for n in report.numbers:
        if n.table is not None and n.col is not None:
            values.setdefault((n.table, n.col), []).append(n.value)
    out = set()
    for key, vals in values.items():
        header = readable(report.headers.get(key, "")).strip().strip("$").strip()
        counting = (
            len(vals) >= 3
            and all(v.is_integer() for v in vals)
            and all(b - a == 1 for a, b in zip(vals, vals[1:], strict=False))
        )
        named = bool(_INDEX_HEADER.match(header)) and all(v.is_integer() for v in vals)
        # 1, 2, 3... in the first column under no header or a short symbol-free one
        unnamed = counting and (
            not header or key[1] == 0 and not re.search(r"[a-zA-Z]{3,}|\\|\(", header)
        )
        if named or unnamed:
            out.add(key)
    return out


def _column_formulas(report: _Report, checks: dict[int, Check]) -> None:
    """A table column computed from other columns (T = t̄/10, g = 4π²L/T²): accepted when
    one formula holds on at least two rows and two thirds of the rows, so a single
    invented cell breaks it for its own row only."""
    cells: dict[int, dict[int, dict[int, ReportNumber]]] = {}
    for n in report.numbers:
        if n.table is not None and n.row is not None and n.col is not None and n.role == "value":
            cells.setdefault(n.table, {}).setdefault(n.row, {}).setdefault(n.col, n)
    index = index_columns(report)
    for t, rows in cells.items():
        cols = sorted({c for row in rows.values() for c in row if (t, c) not in index})
        for j in cols:
            open_rows = [
                r
                for r, row in rows.items()
                if j in row and checks[id(row[j])].status == "unmatched"
            ]
            if open_rows:
                _fit_column(report, checks, t, rows, cols, j)


def _candidates(cols: list[int], j: int) -> Iterable[tuple[tuple[int, float], ...]]:
    others = [c for c in cols if c != j]
    for a in others:
        for p in _POWERS:
            yield ((a, p),)
    for a in others:
        for b in others:
            if a != b:
                for p in (1, 2, -1):
                    for q in (1, -1, -2, 2):
                        yield ((a, p), (b, q))


def _fit_column(
    report: _Report,
    checks: dict[int, Check],
    t: int,
    rows: dict[int, dict[int, ReportNumber]],
    cols: list[int],
    j: int,
) -> None:
    for terms in _candidates(cols, j):
        usable = [r for r, row in rows.items() if j in row and all(c in row for c, _ in terms)]
        if len(usable) < 2:
            continue
        preds = {}
        for r in usable:
            try:
                preds[r] = math.prod(rows[r][c].value ** p for c, p in terms)
            except (ZeroDivisionError, OverflowError, ValueError):
                break
        if len(preds) < len(usable) or not all(preds.values()):
            continue
        ratio = statistics.median(rows[r][j].value / preds[r] for r in usable)
        name = next((k for k, v in _NICE.items() if abs(ratio / v - 1) < 0.02), None)
        if name is None:
            continue
        k = _NICE[name]
        good = []
        for r in usable:
            target = rows[r][j]
            rel = sum(abs(p) * rows[r][c].tol / rows[r][c].value for c, p in terms)
            # Operands written to a digit or two (0.1 ± 0.05) fit any formula: no test.
            if rel > MAX_OPERAND_ROUNDING:
                continue
            if abs(target.value - k * preds[r]) <= target.tol * (1 + 1e-9) + k * preds[r] * rel:
                good.append(r)
        if len(good) >= 2 and len(good) * 3 >= len(usable) * 2:
            head = report.headers.get
            formula = f"{name}·" if name else ""
            formula += "·".join(f"[{head((t, c), f'col {c + 1}')}]{_POWERS[p]}" for c, p in terms)
            for r in good:
                c = checks[id(rows[r][j])]
                if c.status == "unmatched":
                    c.status, c.how, c.exact = "derived", f"column formula: {formula}", k * preds[r]
            return
