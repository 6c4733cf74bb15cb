"""Matching against the evidence: rounding, unit prefixes, percentages, statistics."""

from __future__ import annotations

import bisect
import math
import re

from labwright.core.material.evidence import PERCENT, EvidenceNumber, Unit
from labwright.core.report.verify.model import ReportNumber

# -- the evidence, searchable by value ------------------------------------------


class _Index:
    def __init__(self, numbers: list[EvidenceNumber]) -> None:
        self.numbers = sorted(numbers, key=lambda e: e.value)
        self.values = [e.value for e in self.numbers]

    def between(self, lo: float, hi: float) -> list[EvidenceNumber]:
        lo, hi = min(lo, hi), max(lo, hi)
        a = bisect.bisect_left(self.values, lo * (1 - 1e-12))
        b = bisect.bisect_right(self.values, hi * (1 + 1e-12))
        return self.numbers[a:b]

    def nearest(self, value: float) -> EvidenceNumber | None:
        if not self.numbers or value <= 0:
            return None
        i = bisect.bisect_left(self.values, value)
        near = [e for e in self.numbers[max(0, i - 1) : i + 1] if e.value > 0]
        return min(near, key=lambda e: abs(math.log(e.value / value)), default=None)


_FRACTION_WORDS = re.compile(
    r"ratio|fraction|relative|efficien|percent|rate|proportion|error|discrepan|yield|share|%"
    r"|比|率|相对|误差",
    re.I,
)


def _unit_conflict(a: Unit | None, b: Unit | None) -> bool:
    """Both units stated and different (kind or prefix): not the same quantity."""
    if a is None or b is None:
        return False
    return a.dims != b.dims or not math.isclose(a.factor, b.factor)


def _same_dims(a: Unit | None, b: Unit | None) -> bool:
    return a is not None and b is not None and a.dims == b.dims and not a.is_percent


def _rank(n: ReportNumber, e: EvidenceNumber, how_rank: int) -> tuple[float, ...]:
    data_first = (
        0
        if e.source.kind in ("csv", "tsv", "xlsx", "figure_output", "analysis_output", "text")
        else 1
    )
    # a value whose stated unit agrees beats one whose unit is unknown
    agrees = 0 if _same_dims(n.unit, e.unit) or n.percent and e.unit is PERCENT else 1
    # a measured value beats a set point of the same value: only the former is evidence
    setpoint = 1 if e.role == "independent" else 0
    return (agrees, setpoint, how_rank, 1 if e.derived else 0, data_first, abs(e.value - n.value))


def match_evidence(n: ReportNumber, index: _Index) -> tuple[EvidenceNumber, str] | None:
    """The best evidence number for a report number, with how they correspond."""
    found = match_candidates(n, index)
    return found[0] if found else None


def match_candidates(n: ReportNumber, index: _Index) -> list[tuple[EvidenceNumber, str]]:
    """The evidence numbers a report number may be, the best first; those after the first
    that are as good (only their place differs: the same value in other rows) follow it."""
    return [(e, how) for _, e, how in _ranked(n, index)]


def equally_good(n: ReportNumber, index: _Index) -> list[tuple[EvidenceNumber, str]]:
    """The candidates as good as the best one: the same kind of match in other places."""
    ranked = _ranked(n, index)
    if not ranked:
        return []
    best = ranked[0][0][:4]
    return [(e, how) for rank, e, how in ranked if rank[:4] == best]


def _ranked(n: ReportNumber, index: _Index) -> list[tuple[tuple[float, ...], EvidenceNumber, str]]:
    v, t = n.value, n.tol * (1 + 1e-9) + 1e-12 * n.value
    hits: list[tuple[tuple[float, ...], EvidenceNumber, str]] = []
    for e in index.between(v - t, v + t):  # the same value, as written or rounded
        if _unit_conflict(n.unit, e.unit):
            continue  # 0.485 cm where the material says 0.485 m: a wrong unit
        if e.derived and n.unit is not None and not _same_dims(n.unit, e.unit):
            continue  # a statistic of a column whose unit is unknown: too loose a match
        how = "as written" if e.value == v or e.text == n.text else "rounded"
        hits.append((_rank(n, e, 0 if how == "as written" else 1), e, how))
    if n.unit is not None and not n.percent:
        hits += _converted(n, index, v, t)
    if n.percent:  # 12 % of a fraction 0.12 the material calls a ratio, an error...
        for e in index.between((v - t) / 100, (v + t) / 100):
            if e.unit is None and _FRACTION_WORDS.search(e.source.excerpt):
                hits.append((_rank(n, e, 3), e, f"{n.text} % = {e.text}"))
    else:
        for e in index.between((v - t) * 100, (v + t) * 100):
            if e.unit is PERCENT:
                hits.append((_rank(n, e, 3), e, f"{n.text} = {e.text} %"))
    if n.unit is not None and not any(_same_dims(n.unit, e.unit) for _, e, _ in hits):
        # the material states this value's unit and it is not the report's (0.59 cm for a
        # range in m): a copy of the value without a unit does not make it right
        nearby = index.between(v - t, v + t)
        if any(_same_dims(n.unit, e.unit) for e in nearby):
            return []
    hits.sort(key=lambda h: h[0])
    return [(rank, e, _how(e, how)) for rank, e, how in hits]


def _how(e: EvidenceNumber, how: str) -> str:
    if e.source.kind == "computation":  # computed by the report's own code, over named rows
        return "computed" + ("" if how == "as written" else f" ({how})")
    if e.derived:
        return f"{e.derived} of the material's values" + (
            "" if how == "as written" else f" ({how})"
        )
    return how


def _converted(
    n: ReportNumber, index: _Index, v: float, t: float
) -> list[tuple[tuple[float, ...], EvidenceNumber, str]]:
    """The value in another unit of the same kind (485 mm for 0.485 m)."""
    assert n.unit is not None
    hits = []
    factors = {1e-9, 1e-6, 1e-3, 1e-2, 1e-1, 1.0, 1e3, 1e6, 60.0, 3600.0}
    for q in factors:
        scale = n.unit.factor / q
        if math.isclose(scale, 1.0):
            continue
        for e in index.between((v - t) * scale, (v + t) * scale):
            if e.unit is None:
                continue  # a conversion needs the material's unit: 0.0458 is not 45.8 g
            if not (_same_dims(n.unit, e.unit) and math.isclose(e.unit.factor, q)):
                continue
            unit = e.unit.text if e.unit else "(SI)"
            hits.append((_rank(n, e, 2), e, f"{n.text} {n.unit.text} = {e.text} {unit}"))
    return hits


def _nearest(n: ReportNumber, index: _Index) -> EvidenceNumber | None:
    base = n.value * (n.unit.factor if n.unit and not n.percent else 1.0)
    cands = [e for e in (index.nearest(n.value), index.nearest(base)) if e is not None]
    if n.percent:
        cands += [e for e in (index.nearest(n.value / 100),) if e is not None]
    return min(cands, key=lambda e: abs(math.log(e.value / n.value)), default=None)
