"""Derivations shown in the report: computations, statistics and pairs of its own numbers."""

from __future__ import annotations

import math
import re
import statistics
from collections.abc import Callable

from labwright.core.report.verify.arithmetic import _arithmetic_suffix
from labwright.core.report.verify.markup import readable
from labwright.core.report.verify.model import NumberCheck, ReportNumber
from labwright.core.report.verify.structure import _Report

RESTATEMENT_CHANCE = 0.02  # at most this share of random numbers may "restate" a derived one
_RELATION = re.compile(r"=|\\approx|≈|\\simeq|\\cong")


def _computation(n: ReportNumber, report: _Report) -> tuple[str, float] | None:
    """'T = 20.16/10 = 2.016 s': the number right after '=' and the arithmetic before it."""
    text = report.masked.text
    a, _ = report.segment_span(n.segment)
    if n.table is not None:  # a table cell: the computation is inside the cell
        a = max(a, text.rfind("&", a, n.start) + 1)
    head = text[a : n.start]
    rels = list(_RELATION.finditer(head))
    if not rels or not re.fullmatch(r"[\s${(&]*|[\s$]*\\left\(", head[rels[-1].end() :]):
        return None
    piece_start = rels[-2].end() if len(rels) >= 2 else 0
    piece = head[piece_start : rels[-1].start()]
    found = _arithmetic_suffix(piece)
    if found is None:
        return None
    expr, value, slack = found
    if abs(abs(value) - n.value) <= n.tol * (1 + 1e-9) + slack + 1e-12 * n.value:
        return f"computation shown: {readable(expr)} = {value:.6g}", abs(value)
    return None


_MEAN_WORDS = re.compile(r"mean|average|avg|\\bar|\\overline|平均|mittel", re.I)
_SPREAD_WORDS = re.compile(
    r"deviation|std|\\sigma|σ|uncertaint|error|spread|\\pm|±|标准差|误差", re.I
)
_SUM_WORDS = re.compile(r"\bsum\b|total|plus|combined|总", re.I)
_DIFF_WORDS = re.compile(
    r"discrepan|differ|deviat|error|agree|relative|off by|compar|less than|more than|"
    r"higher|lower|increase|decrease|change|偏差|误差|相对|差",
    re.I,
)
_RATIO_WORDS = re.compile(r"ratio|times|factor|divided|fraction|relative|proportion|比", re.I)


def _stats_ops(words: str, role: str) -> dict[str, Callable[[list[float]], float]]:
    ops: dict[str, Callable[[list[float]], float]] = {}
    if _MEAN_WORDS.search(words):
        ops["mean"] = statistics.fmean
    if _SPREAD_WORDS.search(words) or role == "uncertainty":
        ops["standard deviation"] = statistics.stdev
        ops["standard error"] = lambda xs: statistics.stdev(xs) / math.sqrt(len(xs))
        ops["half the range"] = lambda xs: (max(xs) - min(xs)) / 2
    if _SUM_WORDS.search(words):
        ops["sum"] = math.fsum
    return ops


def _within(n: ReportNumber, f: Callable[[list[float]], float], ops: list[ReportNumber]) -> bool:
    vals = [o.value for o in ops]
    try:
        value = f(vals)
        slack = sum(
            abs(f([v + (o.tol if j == i else 0.0) for j, v in enumerate(vals)]) - value)
            for i, o in enumerate(ops)
        )
    except (ValueError, ZeroDivisionError, statistics.StatisticsError, OverflowError):
        return False
    return abs(abs(value) - n.value) <= n.tol * (1 + 1e-9) + slack + 1e-12 * n.value


def _runs(items: list[ReportNumber]) -> list[list[ReportNumber]]:
    return [items[i:j] for i in range(len(items)) for j in range(i + 2, len(items) + 1)]


# The label of a table's statistics row (n, min, max, mean, std under the data): its
# cells summarise the rows above, and are no data rows themselves.
_SUMMARY_LABEL = re.compile(
    r"^\s*(?:n|count|min(?:imum)?|max(?:imum)?|mean|average|ave|avg|std|s\.?d\.?|σ|sum|total"
    r"|median|range|standard (?:deviation|error)|标准差|平均值?|合计|总和|总计|最小值?|最大值?)"
    r"\s*(?:\(.*\))?\s*[:=]?\s*$",
    re.I,
)


def summary_row(report: _Report, table: int, row: int) -> bool:
    """A table's row of statistics (its label says n, mean, std, total...)."""
    label = readable(report.row_text.get((table, row), "").split("|")[0]).strip().strip("$")
    return bool(_SUMMARY_LABEL.match(label))


def _statistic(x: ReportNumber, report: _Report, checks: dict[int, NumberCheck]) -> bool:
    """A number that is itself a statistic (a mean column, a std row, a derived mean): never
    an operand of another statistic (a σ "of" values that include their own mean)."""
    if x.table is not None:
        header = report.headers.get((x.table, x.col or 0), "")
        if _MEAN_WORDS.search(header) or _SUM_WORDS.search(header) or _STAT_HEADER.search(header):
            return True
        if summary_row(report, x.table, x.row or 0):
            return True
    c = checks.get(id(x))
    how = c.how if c is not None else ""
    return how.startswith(("mean", "standard", "sum", "half the range")) or bool(
        c is not None and c.source is not None and c.source.kind == "computation"
    )


_STAT_HEADER = re.compile(r"\bstd\b|deviation|\\sigma|σ|标准差", re.I)


def _window(n: ReportNumber, report: _Report) -> tuple[list[list[ReportNumber]], str]:
    """The numbers a derivation of n may use (by sentence or table line), and the words.

    A statistics row's cell is computed over its column's data rows only: not the other
    columns of its row, nor the statistics rows above it."""
    nums = [x for x in report.numbers if x is not n]
    text = report.masked.text
    if n.table is not None:
        label = report.row_text.get((n.table, n.row or 0), "").split("|")[0]
        words = report.headers.get((n.table, n.col or 0), "") + " " + label
        column = [
            x
            for x in nums
            if (x.table, x.col) == (n.table, n.col)
            and (x.row or 0) < (n.row or 0)
            and not summary_row(report, n.table, x.row or 0)
        ]
        if summary_row(report, n.table, n.row or 0):
            return [column], words
        row = [x for x in nums if (x.table, x.row) == (n.table, n.row)]
        before = [x for x in row if x.col is not None and n.col is not None and x.col < n.col]
        after = [x for x in row if x.col is not None and n.col is not None and x.col > n.col]
        lists = [before[-k:] for k in range(2, len(before) + 1)] + [
            after[:k] for k in range(2, len(after) + 1)
        ]
        lists += [column[-k:] for k in range(2, len(column) + 1)]
        return lists + [row], words
    same = [x for x in nums if x.segment == n.segment and x.table is None]
    prev = [x for x in nums if x.segment == n.segment - 1 and x.table is None]
    a, b = report.segment_span(n.segment)
    words = text[a:b]
    return _runs(same) + [prev + same], words


def _operand(x: ReportNumber, checks: dict[int, NumberCheck]) -> bool:
    """A number a derivation may start from: traced itself, or a common constant (never
    a row number or a set point)."""
    c = checks.get(id(x))
    if c is None or x.role != "value" or x.setpoint or c.how == "a row number":
        return False
    # A match too imprecise to tell from chance still stands in the material: an operand.
    return (
        c.status in ("matched", "derived")
        or c.how == "a common constant"
        or c.how.startswith("too few digits")
    )


def _compatible(a: ReportNumber, b: ReportNumber) -> bool:
    return a.unit is None or b.unit is None or a.unit.dims == b.unit.dims


def _pairs(
    n: ReportNumber, pool: list[ReportNumber], words: str, checks: dict[int, NumberCheck]
) -> str | None:
    tests: list[tuple[str, Callable[[list[float]], float]]] = []
    if n.percent or _DIFF_WORDS.search(words):
        tests += [
            ("percentage discrepancy |{a} − {b}|/{b}", lambda x: abs(x[0] - x[1]) / x[1] * 100),
            ("relative difference |{a} − {b}|/{b}", lambda x: abs(x[0] - x[1]) / x[1]),
        ]
    if _DIFF_WORDS.search(words):
        tests.append(("difference {a} − {b}", lambda x: x[0] - x[1]))
    if _RATIO_WORDS.search(words) or n.percent:
        tests += [("ratio {a}/{b}", lambda x: x[0] / x[1])]
        if n.percent:
            tests.append(("percentage {a}/{b}", lambda x: x[0] / x[1] * 100))
    if _SUM_WORDS.search(words):
        tests.append(("sum {a} + {b}", lambda x: x[0] + x[1]))
    pool = [x for x in pool if _operand(x, checks)]
    for a in pool:
        for b in pool:
            if a is b or not _compatible(a, b):
                continue
            if checks[id(a)].status == "skipped" and checks[id(b)].status == "skipped":
                continue  # two common constants (100 and 1000) trace nothing of the material
            # an accepted constant (9.81) is the reference: the denominator, never the value
            constant_first = checks[id(a)].status == "skipped" and checks[id(b)].status != "skipped"
            for how, f in tests:
                if constant_first and "/" in how:
                    continue
                if _within(n, f, [a, b]):
                    return how.format(a=a.text, b=b.text)
    return None


def _derivation(
    n: ReportNumber, report: _Report, checks: dict[int, NumberCheck]
) -> tuple[str, float | None] | None:
    found = _computation(n, report)
    if found:
        return found
    lists, words = _window(n, report)
    ops = _stats_ops(words, n.role)
    for values in lists if ops else []:
        values = [x for x in values if _operand(x, checks) and not _statistic(x, report, checks)]
        if len(values) < 2:
            continue
        for name, f in ops.items():
            if _within(n, f, values):
                return f"{name} of {', '.join(x.text for x in values)}", None
    pool = [x for values in lists[-1:] for x in values]
    how = _pairs(n, pool, words, checks)
    if how:
        return how, None
    # The restatement of a value derived elsewhere; not where so many values were derived
    # near this one that a random number would restate one of them too.
    derived = [
        c for c in checks.values()
        if c.status == "derived" and c.exact is not None and c.number is not n
    ]  # fmt: skip
    near = sum(1 for c in derived if n.value / 2 <= abs(c.exact or 0) <= n.value * 2)
    if n.value > 0 and near * 2 * n.tol / (1.5 * n.value) > RESTATEMENT_CHANCE:
        return None
    for other in derived:
        assert other.exact is not None
        if abs(other.exact - n.value) <= n.tol * (1 + 1e-9):
            return f"same as the value derived on line {other.number.line}", other.exact
    return None
