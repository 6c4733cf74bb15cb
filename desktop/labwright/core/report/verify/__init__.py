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

import re
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from labwright.core.material.evidence import evidence_numbers, load_run_evidence
from labwright.core.report.verify.columns import _column_formulas, index_columns
from labwright.core.report.verify.derive import _derivation
from labwright.core.report.verify.extract import _parse, extract_numbers
from labwright.core.report.verify.markup import readable as readable
from labwright.core.report.verify.match import _Index, _nearest
from labwright.core.report.verify.match import match_evidence as match_evidence
from labwright.core.report.verify.model import Check, ReportNumber, Verification
from labwright.core.report.verify.structure import _Report

__all__ = [
    "Check",
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


# -- the check -------------------------------------------------------------------


def verify_report(
    tex: str, records: Iterable[dict[str, Any]], folder: Path | None = None
) -> Verification:
    """Check every number of the report against the evidence records (see the module doc)."""
    report = _parse(tex)
    ev = evidence_numbers(records, folder)
    index = _Index(ev)
    checks: dict[int, Check] = {}  # by id() of the report number
    row_numbers = index_columns(report)
    for n in report.numbers:
        sentence = report.sentence(n)
        if n.table is not None and (n.table, n.col) in row_numbers:
            checks[id(n)] = Check(n, "skipped", "a row number", sentence=sentence)
            continue
        if n.trivial:
            checks[id(n)] = Check(n, "skipped", n.trivial, sentence=sentence)
            continue
        hit = match_evidence(n, index)
        if hit:
            checks[id(n)] = Check(n, "matched", hit[1], hit[0].source, sentence)
        else:
            checks[id(n)] = Check(n, "unmatched", sentence=sentence)
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
    from labwright.core.rundir.files import try_load_run

    meta = try_load_run(run_dir)
    folder = meta.folder if meta is not None else None
    return folder if folder is not None and folder.is_dir() else None


def verify_run(run_dir: Path, tex: str | None = None) -> Verification:
    """The check of a run directory's report.tex (or `tex`) against its evidence."""
    if tex is None:
        tex = (run_dir / "report.tex").read_text(encoding="utf-8")
    return verify_report(tex, load_run_evidence(run_dir), run_folder(run_dir))


def write_numbers(run_dir: Path, verification: Verification, report: str = "report.tex") -> Path:
    from labwright.core.rundir.files import save_numbers
    from labwright.core.rundir.records import NumbersRecord

    return save_numbers(run_dir, NumbersRecord.from_dict(verification.to_dict(report)))
