"""Every number traceable: the report's numbers checked against the evidence.

A lab report lives or dies by its numbers, so after each draft the numbers of
the report's prose and tables are extracted (LaTeX-aware) and matched against
the numbers of the material that was read (evidence.py), deterministically:

* **matched** — the material has the value, allowing for rounding to the
  precision the report writes (|report − material| ≤ half a unit of the
  report's last digit), for unit prefixes (485 mm ↔ 0.485 m when the material
  states its unit; a stated unit that contradicts the report's — 0.485 cm for
  a column "Range, m" — is a mismatch), for percentages (12 % ↔ 0.12), and for
  statistics of the material's columns and repeated measurements (means,
  standard deviations, standard errors). A figure's printed output (a fit's
  slope) is evidence too, with the figure as its source.
* **derived** — the report shows how it got there and the arithmetic holds:
  a computation ("T = 20.16/10 = 2.016 s", \\frac, \\sqrt, powers, degrees),
  the mean / standard deviation / sum of values listed in the same sentence or
  table row, a ratio, difference or percentage discrepancy of two numbers of
  the same sentence, or the restatement of a number derived elsewhere. The
  rounding of every operand is propagated into the tolerance.
* **cited** — the sentence cites an outside source (not the material itself).
* **skipped** — trivial: integers up to 10, years, figure/table/section/
  equation numbers, common constants (g = 9.81, π, 0.5 ...).
* **unmatched** — none of the above: reported with the sentence around it and
  the closest value the material has.

`verify_report(tex, records)` is the engine; `verify_run(run_dir)` loads a run
directory and `write_numbers` stores numbers.json for the review pane.
"""

from __future__ import annotations

import functools
import re
from collections import Counter
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from labwright.core.material.evidence import (
    PERCENT,
    EvidenceNumber,
    Source,
    evidence_numbers,
    load_run_evidence,
)
from labwright.core.material.tables.roles import INDEPENDENT, INDEX
from labwright.core.report.verify.columns import _column_formulas, column_roles, index_columns
from labwright.core.report.verify.derive import _derivation, summary_row
from labwright.core.report.verify.extract import _parse, extract_numbers
from labwright.core.report.verify.markup import readable
from labwright.core.report.verify.match import (
    _FRACTION_WORDS,
    _Index,
    _nearest,
    equally_good,
    match_candidates,
)
from labwright.core.report.verify.match import match_evidence as match_evidence
from labwright.core.report.verify.model import NumberCheck, ReportNumber, Verification
from labwright.core.report.verify.structure import _Report
from labwright.core.rundir.layout import RunDir
from labwright.core.rundir.names import REPORT_TEX
from labwright.core.rundir.records import EvidenceRecord, NumbersRecord

__all__ = [
    "NumberCheck",
    "ReportNumber",
    "Verification",
    "extract_numbers",
    "verify_report",
    "verify_run",
    "write_numbers",
]


def _cited(n: ReportNumber, report: _Report) -> str | None:
    a, b = report.segment_span(n.segment)
    keys = re.findall(r"\\cite[a-zA-Z]*\*?(?:\[[^\]]*\])*\{([^{}]*)\}", report.tex[a:b])
    outside = [
        k.strip() for group in keys for k in group.split(",") if not k.strip().startswith("mat:")
    ]
    return ", ".join(outside) if outside else None


# -- matches a random number would get as well ------------------------------------

# A match is kept when a random number of the same magnitude and precision would
# match something less often than this (bench/bench_verify_chance.py measures it).
CHANCE = 0.01
CHANCE_SKIP = "too few digits to tell from chance here"


def _chance_of_match(n: ReportNumber, at: float, index: _Index) -> float:
    """Expected count of material values within the rounding of a random number this size:
    the density of the material's values around the one matched (`at`, in its own unit or
    scale: 0.124 for 12.4 %) times the relative width of the report's rounding."""
    if n.value <= 0 or at <= 0:
        return 1.0
    near = index.between(at / 2, at * 2)
    if n.percent:  # a percentage matches only percentages and fractions named so
        near = [
            e
            for e in near
            if e.unit is PERCENT or e.unit is None and _FRACTION_WORDS.search(e.source.excerpt)
        ]
    elif n.unit is not None:  # values of another kind could not match it
        near = [e for e in near if e.unit is None or e.unit.dims == n.unit.dims]
    return max(len(near), 1) * 2 * n.tol / (1.5 * n.value)


def _places(c: NumberCheck) -> frozenset[tuple[object, ...]]:
    return _source_places(c.source)


@functools.lru_cache(maxsize=65536)
def _source_places(src: Source | None) -> frozenset[tuple[object, ...]]:
    """Where a match stands in the material: its row, line or page; and for a sheet's cell
    also its column (a table written sideways has its rows in the sheet's columns)."""
    if src is None:
        return frozenset()
    out: set[tuple[object, ...]] = {
        ("row", src.path, src.sheet, src.table, src.row, src.line, src.page)
    }
    letters = re.match(r"[A-Z]+", src.cell or "")
    if letters:
        out.add(("column", src.path, src.sheet, letters.group(0)))
    return frozenset(out)


def _chance_guard(
    report: _Report, checks: dict[int, NumberCheck], index: _Index, found_at: dict[int, float]
) -> None:
    """Matches a random number would get as often (0.5 in a workbook of thousands of values)
    stand only when another number of the same sentence or table row matched the same place
    of the material (its row, line or page); otherwise they are skipped, neither traced nor
    flagged: the check cannot tell them from chance."""
    by_segment: dict[tuple[object, ...], list[NumberCheck]] = {}
    for n in report.numbers:
        c = checks[id(n)]
        if c.status == "matched":
            key = (n.table, n.row) if n.table is not None else ("s", n.segment)
            by_segment.setdefault(key, []).append(c)
    for group in by_segment.values():
        for c in group:
            n = c.number
            chance = _chance_of_match(n, found_at.get(id(n), n.value), index)
            if chance <= CHANCE:
                continue
            if _shares_a_place(c, group, _row_label(report, n)):
                continue  # the same row (or column) of the material as its neighbours
            c.status = "skipped"
            c.how = (
                f"{CHANCE_SKIP} ({chance:.0%} of random numbers this size would match the material)"
            )


def _row_label(report: _Report, n: ReportNumber) -> str:
    if n.table is None:
        return ""
    return readable(report.row_text.get((n.table, n.row or 0), "").split("|")[0]).strip()


def _shares_a_place(c: NumberCheck, group: list[NumberCheck], label: str = "") -> bool:
    """Whether a match stands in the material's row (line, page) of another match of its
    sentence or table row, or in the sheet column of two others (a table written sideways:
    its rows are the sheet's columns), or of one other when the row is labelled with that
    column ("F", as the offline skeleton labels a sideways row). One neighbour in the same
    column is no evidence otherwise: a column holds many values, and a random number
    often finds one of them there."""
    places = _places(c)
    shared: Counter[tuple[object, ...]] = Counter()
    for o in group:
        if o is not c:
            shared.update(places & _places(o))
    return any(place[0] != "column" or k >= 2 or place[-1] == label for place, k in shared.items())


def _shared(
    e: EvidenceNumber, mine: set[tuple[object, ...]], everyone: Counter[tuple[object, ...]]
) -> int:
    """How many other numbers of a group may stand at e's places."""
    # by the material's row only: a sheet column holds too many values to place one by it
    return max(
        (everyone[p] - (p in mine) for p in _source_places(e.source) if p[0] == "row"), default=0
    )


MAX_PLACES = 1024  # a value found in more places than this is too common to place by its row


def _pick_places(report: _Report, index: _Index) -> dict[int, tuple[EvidenceNumber, str] | None]:
    """Each number's match; among equally good ones (one value in several rows of the
    material), the one in the row or column its neighbours of the same table row or
    sentence match: a copied row traces to the row it was copied from, not to the first
    row holding each value."""
    options: dict[int, list[tuple[EvidenceNumber, str]]] = {}
    picked: dict[int, tuple[EvidenceNumber, str] | None] = {}
    groups: dict[tuple[object, ...], list[ReportNumber]] = {}
    for n in report.numbers:
        if n.trivial:
            continue
        found = equally_good(n, index)
        picked[id(n)] = found[0] if found else None
        if found:
            key = (n.table, n.row) if n.table is not None else ("s", n.segment)
            groups.setdefault(key, []).append(n)
            options[id(n)] = found
    for members in groups.values():
        if len(members) < 2 or all(len(options[id(n)]) == 1 for n in members):
            continue
        own = {id(n): {p for e, _ in options[id(n)] for p in _source_places(e.source)}
               for n in members}  # fmt: skip
        everyone: Counter[tuple[object, ...]] = Counter()
        for places in own.values():
            everyone.update(places)
        for n in members:
            found = options[id(n)]
            if 1 < len(found) <= MAX_PLACES:
                mine = own[id(n)]
                picked[id(n)] = max(found, key=lambda h: _shared(h[0], mine, everyone))  # noqa: B023
    return picked


# A statistics row's label and the computation it names (report/offline/trace.py's names).
_STATISTIC_NAMES = (
    (re.compile(r"^(?:n|count|数目|个数)$", re.I), "number of values"),
    (re.compile(r"^(?:min(?:imum)?|最小值?)$", re.I), "smallest"),
    (re.compile(r"^(?:max(?:imum)?|最大值?)$", re.I), "largest"),
    (re.compile(r"^(?:mean|average|ave|avg|平均值?)$", re.I), "mean"),
    (re.compile(r"^(?:std|s\.?d\.?|σ|standard deviation|标准差)$", re.I), "standard deviation"),
)


def _as_computed(
    n: ReportNumber, report: _Report, index: _Index
) -> tuple[EvidenceNumber, str] | None:
    """A statistics row's cell (mean, std, n under a table) traced to the computation of
    that statistic over its column's data rows, never to a cell that holds the same value
    (the sheet's own "ave rate" under the column, or a row number)."""
    if n.table is None or not summary_row(report, n.table, n.row or 0):
        return None
    label = readable(report.row_text.get((n.table, n.row or 0), "").split("|")[0])
    label = label.strip().strip("$").strip()
    wanted = next((name for pattern, name in _STATISTIC_NAMES if pattern.match(label)), None)
    if wanted is None:
        return None
    found = [
        (e, how)
        for e, how in match_candidates(n, index)
        if e.source.kind == "computation" and e.derived == wanted
    ]
    if not found:
        return None
    header = readable(report.headers.get((n.table, n.col or 0), "")).strip().strip("$")
    # the computation of this column (its name stands in the computation's place)
    return next((h for h in found if header and repr(header) in h[0].source.location), found[0])


# -- the check -------------------------------------------------------------------


def verify_report(
    tex: str, records: Iterable[EvidenceRecord | Mapping[str, Any]], folder: Path | None = None
) -> Verification:
    """Check every number of the report against the evidence records (see the module doc)."""
    report = _parse(tex)
    ev = evidence_numbers(records, folder)
    # no match through the material's row or frame numbers (tables/roles.py "index")
    index = _Index([e for e in ev if e.role != INDEX])
    checks: dict[int, NumberCheck] = {}  # by id() of the report number
    roles = column_roles(report)
    row_numbers = index_columns(report) | {k for k, r in roles.items() if r == INDEX}
    found_at: dict[int, float] = {}  # the material's value each match found
    picked = _pick_places(report, index)
    for n in report.numbers:
        sentence = report.sentence(n)
        if n.table is not None and (n.table, n.col) in row_numbers:
            checks[id(n)] = NumberCheck(n, "skipped", "a row number", sentence=sentence)
            continue
        if n.table is not None and roles.get((n.table, n.col or 0)) == INDEPENDENT:
            n.setpoint = True
        if n.trivial:
            checks[id(n)] = NumberCheck(n, "skipped", n.trivial, sentence=sentence)
            continue
        hit = _as_computed(n, report, index) or (
            picked[id(n)] if id(n) in picked else match_evidence(n, index)
        )
        if hit and hit[0].role == INDEPENDENT:
            n.setpoint = True  # "at 30°": a set point restated, no evidence to derive from
        if hit:
            checks[id(n)] = NumberCheck(n, "matched", hit[1], hit[0].source, sentence)
            found_at[id(n)] = hit[0].value
        else:
            checks[id(n)] = NumberCheck(n, "unmatched", sentence=sentence)
    _chance_guard(report, checks, index, found_at)
    _column_formulas(report, checks)
    for _ in range(2):  # derived values may restate other derived values
        for n in report.numbers:
            c = checks[id(n)]
            if c.status != "unmatched":
                continue
            found = _derivation(n, report, checks)
            if found:
                c.status, c.how, c.exact = "derived", found[0], found[1]
                if c.exact is None:
                    c.exact = n.value
    for c in checks.values():
        if c.status == "unmatched":
            keys = _cited(c.number, report)
            if keys:
                c.status, c.how = "cited", f"cited: {keys}"
            else:
                c.nearest = _nearest(c.number, index)
    return Verification([checks[id(n)] for n in report.numbers], len(ev))


def run_folder(run_dir: Path) -> Path | None:
    """The material folder a run read (for workbook cell names), from its run.json."""
    meta = RunDir(run_dir).try_load_run()
    folder = meta.folder if meta is not None else None
    return folder if folder is not None and folder.is_dir() else None


def verify_run(run_dir: Path, tex: str | None = None) -> Verification:
    """The check of a run directory's report.tex (or `tex`) against its evidence.

    Nothing is read through a link (core/rundir/fence.py): RunLinkError instead."""
    if tex is None:
        tex = RunDir(run_dir).read_report()
    return verify_report(tex, load_run_evidence(run_dir), run_folder(run_dir))


def write_numbers(run_dir: Path, verification: Verification, report: str = REPORT_TEX) -> Path:
    return RunDir(run_dir).save_numbers(NumbersRecord.from_dict(verification.to_dict(report)))
