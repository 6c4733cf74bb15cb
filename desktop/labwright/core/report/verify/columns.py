"""Table columns computed from other columns (T = t̄/10, g = 4π²L/T²)."""

from __future__ import annotations

import math
import re
import statistics
from collections.abc import Iterable

from labwright.core.material.tables.roles import INDEPENDENT, INDEX, assign_roles, split_unit
from labwright.core.report.verify.markup import readable
from labwright.core.report.verify.model import NumberCheck, ReportNumber
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
_NO_OPERAND = (INDEX, INDEPENDENT)  # roles no statistic, formula or pair is computed from


# A table's row-number column ("line", "row", "No.", "#", "序号") counts rows; nothing is
# derived from it (2π·√[line] = 8.89 would "trace" any number near 8.9). "n" is a row
# number, "N" a count (Geiger: n, N, Rate).
_INDEX_HEADER = re.compile(
    r"^(?:#|no\.?|nr\.?|(?-i:n)|index|idx|row|line|item|frame|trial|run|序号|编号|行|行号|次数)$",
    re.I,
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


def column_roles(report: _Report) -> dict[tuple[int, int], str]:
    """(table, column) -> the column's role, as the table detector assigns it from the
    header and the values (tables/roles.py: index, independent, measured, category...)."""
    cells: dict[int, dict[int, dict[int, float]]] = {}  # table -> column -> row -> value
    for n in report.numbers:
        if n.table is not None and n.row is not None and n.col is not None and n.role == "value":
            cells.setdefault(n.table, {}).setdefault(n.col, {}).setdefault(n.row, n.value)
    out: dict[tuple[int, int], str] = {}
    for t in sorted({t for t, _ in report.headers} | set(cells)):
        cols = sorted({c for tt, c in report.headers if tt == t} | set(cells.get(t, {})))
        rows = sorted({r for col in cells.get(t, {}).values() for r in col})
        if not cols or not rows:
            continue
        # a column of words below its header (sample, material) holds no numbers
        texts = [
            c not in cells.get(t, {})
            and any(_cell_text(report, t, r, c) for r in rows)
            for c in cols
        ]  # fmt: skip
        names = [readable(report.headers.get((t, c), "")).strip().strip("$").strip() for c in cols]
        units = [split_unit(name)[1] for name in names]
        values = [[cells.get(t, {}).get(c, {}).get(r) for r in rows] for c in cols]
        headed = [bool(name) for name in names]
        roles, _ = assign_roles(names, units, values, texts, headed=headed)
        out |= {(t, c): role for c, role in zip(cols, roles, strict=True)}
    return out


def _cell_text(report: _Report, t: int, r: int, c: int) -> str:
    cells = report.row_text.get((t, r), "").split(" | ")
    return cells[c].strip() if c < len(cells) else ""


def _column_formulas(report: _Report, checks: dict[int, NumberCheck]) -> None:
    """A table column computed from other columns (T = t̄/10, g = 4π²L/T²): accepted when
    one formula holds on at least two rows and two thirds of the rows, so a single
    invented cell breaks it for its own row only."""
    cells: dict[int, dict[int, dict[int, ReportNumber]]] = {}
    for n in report.numbers:
        if n.table is not None and n.row is not None and n.col is not None and n.role == "value":
            cells.setdefault(n.table, {}).setdefault(n.row, {}).setdefault(n.col, n)
    # Nothing is computed from a row number or a set point (2π·√[L] = 8.98 "traces" any
    # number near 9 when L is 2.04), and no set point is computed from the rest.
    roles = column_roles(report)
    index = index_columns(report) | {k for k, role in roles.items() if role in _NO_OPERAND}
    for t, rows in cells.items():
        cols = sorted({c for row in rows.values() for c in row if (t, c) not in index})
        made_from: dict[int, set[int]] = {}  # a derived column -> the columns it rests on
        for _ in range(2):  # a formula may rest on a column another formula derived
            for j in cols:
                open_rows = [
                    r
                    for r, row in rows.items()
                    if j in row and checks[id(row[j])].status == "unmatched"
                ]
                if open_rows:
                    _fit_column(report, checks, t, rows, cols, j, made_from)


def _traced(x: ReportNumber, checks: dict[int, NumberCheck]) -> bool:
    """An operand a formula may rest on: traced itself (never a number nothing traces: a
    count "derived" from a rate that was computed from it proves nothing)."""
    c = checks[id(x)]
    return c.status in ("matched", "derived") or c.how == "a common constant"


def _rests_on(col: int, j: int, made_from: dict[int, set[int]]) -> bool:
    """Whether column `col` was derived (directly or not) from column j."""
    seen, todo = set(), [col]
    while todo:
        c = todo.pop()
        if c == j:
            return True
        if c not in seen:
            seen.add(c)
            todo += made_from.get(c, ())
    return False


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
    checks: dict[int, NumberCheck],
    t: int,
    rows: dict[int, dict[int, ReportNumber]],
    cols: list[int],
    j: int,
    made_from: dict[int, set[int]],
) -> None:
    for terms in _candidates(cols, j):
        if any(_rests_on(c, j, made_from) for c, _ in terms):
            continue  # j from a column derived from j: circular
        usable = [
            r
            for r, row in rows.items()
            if j in row and all(c in row and _traced(row[c], checks) for c, _ in terms)
        ]
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
            # A count or reading written as an integer is not the result of rounded
            # operands that cannot fix its last digit (N = Rate²/σ² with Rate = N/30 and
            # σ = √N/30: reversed, the raw count "derived" from what was computed from it).
            exact = all(rows[r][c].integer for c, _ in terms)
            if target.integer and not exact and k * preds[r] * rel > target.tol:
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
            made_from.setdefault(j, set()).update(c for c, _ in terms)
            return
