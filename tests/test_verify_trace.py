"""Every number of an offline report traced: copied cells to their cell, statistics to the
computation over the rows they really use, and no circular or reversed derivation.

The data are small workbooks written here (openpyxl), shaped like the corpus's Geiger
sheet: counts N, a rate N/30 and its σ = √N/30, with the sheet's own sum and "ave rate"
cells under the columns.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from labwright.cli import main
from labwright.core.material.computed import Computations
from labwright.core.material.evidence import evidence_numbers
from labwright.core.material.workspace import scan_folder
from labwright.core.report.offline import offline_report
from labwright.core.report.templates import load_template
from labwright.core.report.verify import verify_report, verify_run

openpyxl = pytest.importorskip("openpyxl")

COUNTS = [1228, 1186, 1190, 1210, 1223, 1164, 1169, 1211]


def _geiger_sheet(folder: Path) -> Path:
    """Part B of a Geiger sheet: n, N, Rate, std dev; a sum and an 'ave rate' beneath."""
    folder.mkdir(parents=True, exist_ok=True)
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "Sheet1"
    ws.append(["n", "N", "Rate", "std dev"])
    for i, n in enumerate(COUNTS, start=1):
        ws.append([i, n, n / 30, math.sqrt(n) / 30])
    rates = [n / 30 for n in COUNTS]
    last = len(COUNTS) + 1
    ws.append([None, None, sum(rates), None])  # the sum under Rate
    ws.append(["ave rate", None, sum(rates) / len(rates), None])  # and the sheet's mean
    assert ws.max_row == last + 2
    path = folder / "geiger.xlsx"
    wb.save(path)
    return path


def _offline(folder: Path, tmp: Path):
    scan = scan_folder(folder)
    return offline_report(folder, scan, load_template("lab-en"), tmp / "figures", figures=[])


def _checks(result, text: str):
    return [c for c in result.checks if c.number.text == text]


def test_a_copied_value_traces_to_its_cell(tmp_path):
    folder = tmp_path / "material"
    _geiger_sheet(folder)
    report = _offline(folder, tmp_path)
    result = verify_report(report.tex, report.evidence, folder)
    (copied,) = [c for c in _checks(result, "1186") if c.number.table is not None]
    assert copied.status == "matched", copied
    assert copied.source is not None
    assert (copied.source.path, copied.source.sheet, copied.source.cell) == (
        "geiger.xlsx", "Sheet1", "B3",
    )  # fmt: skip
    # the whole copied row traces to that row of the sheet (not to the first cell holding
    # each value)
    row = [c for c in result.checks if (c.number.table, c.number.row) == (copied.number.table,
           copied.number.row) and c.status == "matched"]  # fmt: skip
    assert {c.source.row for c in row if c.source} == {3}


def test_without_the_offline_evidence_nothing_is_traced(tmp_path):
    """The positive control: the same report against no evidence traces no copied cell."""
    folder = tmp_path / "material"
    _geiger_sheet(folder)
    report = _offline(folder, tmp_path)
    result = verify_report(report.tex, [], folder)
    assert not [c for c in result.checks if c.status == "matched"]


def test_a_mean_row_traces_to_the_computation_over_the_data_rows_not_the_summary(tmp_path):
    folder = tmp_path / "material"
    _geiger_sheet(folder)
    report = _offline(folder, tmp_path)
    result = verify_report(report.tex, report.evidence, folder)
    mean = sum(COUNTS) / len(COUNTS) / 30  # 39.63: the sheet's "ave rate" cell holds it too
    hits = [
        c
        for c in result.checks
        if c.number.table is not None
        and abs(c.number.value - mean) <= c.number.tol
        and c.status == "matched"
    ]
    assert hits, [(c.number.text, c.status) for c in result.checks]
    for c in hits:
        assert c.source is not None and c.source.kind == "computation", c.source
        # over the 8 data rows C2:C9, never the sum (C10) or the sheet's mean (C11)
        assert "mean of column 'Rate', Sheet1!C2:C9 (8 values)" in c.source.location


def test_a_standard_deviation_row_is_not_derived_from_values_that_include_the_mean():
    """Before: 'standard deviation of 1146, …, 1124, 1228, 1172' — the min, max and mean
    rows under the column taken as values."""
    rows = "".join(f"{i} & {n} \\\\\n" for i, n in enumerate(COUNTS, start=1))
    sd_with_summaries = _stdev([*COUNTS, min(COUNTS), max(COUNTS), sum(COUNTS) / 8])
    tex = (
        "\\documentclass{article}\\begin{document}\n\\begin{tabular}{ll}\nrow & N \\\\\n"
        + rows
        + f"\\emph{{min}} & {min(COUNTS)} \\\\\n\\emph{{max}} & {max(COUNTS)} \\\\\n"
        + f"\\emph{{mean}} & {sum(COUNTS) / 8:.1f} \\\\\n"
        + f"\\emph{{std}} & {sd_with_summaries:.2f} \\\\\n"
        + "\\end{tabular}\n\\end{document}\n"
    )
    evidence = [{"path": "n.csv", "kind": "csv", "text": "N\n" + "\n".join(map(str, COUNTS))}]
    result = verify_report(tex, evidence)
    (sd,) = _checks(result, f"{sd_with_summaries:.2f}")
    assert sd.status != "derived", sd.how
    # the real σ over the data rows is derived, and says over which values
    real = _stdev(COUNTS)
    tex_real = tex.replace(f"{sd_with_summaries:.2f}", f"{real:.2f}")
    (ok,) = _checks(verify_report(tex_real, evidence), f"{real:.2f}")
    assert ok.status == "derived" and ok.how.startswith("standard deviation of 1228"), ok.how
    assert str(max(COUNTS)) + ", " + str(min(COUNTS)) not in ok.how


def _stdev(xs: list[float]) -> float:
    m = sum(xs) / len(xs)
    return math.sqrt(sum((x - m) ** 2 for x in xs) / (len(xs) - 1))


def _rate_table(counts: list[int], seconds: int = 30) -> str:
    """N counted in `seconds`, the rate N/seconds and its σ √N/seconds."""
    rows = "".join(
        f"{i} & {n} & {n / seconds:.2f} & {math.sqrt(n) / seconds:.3f} \\\\\n"
        for i, n in enumerate(counts, start=1)
    )
    return (
        "\\documentclass{article}\\begin{document}\n\\begin{tabular}{llll}\n"
        # the headers as the offline skeleton writes them (\\hspace{0pt}: a break point)
        "row & \\hspace{0pt}$N$ & \\hspace{0pt}Rate & \\hspace{0pt}std dev \\\\\n"
        + rows
        + "\\end{tabular}\n\\end{document}\n"
    )


@pytest.mark.parametrize("seconds", [30, 10])
def test_a_raw_count_is_not_derived_from_the_rate_computed_from_it(seconds):
    """Before: every N 'derived' by the column formula [Rate]²·[std dev]⁻², with nothing of
    the table in the material: circular (and reversed: Rate and σ were computed from N);
    with 10 s, N = 10·[Rate] and Rate = [N]/10 each 'traced' the other."""
    result = verify_report(_rate_table(COUNTS, seconds), [])
    derived = [(c.number.text, c.how) for c in result.checks if c.status == "derived"]
    assert not derived


def test_a_raw_count_is_not_derived_from_traced_rates_that_cannot_fix_its_digits():
    """Rate and σ stand in the material, N does not: N = Rate²/σ² would 'trace' the count
    through rounded values that do not determine its last digit."""
    ops = "Rate,std dev\n" + "\n".join(f"{n / 30:.2f},{math.sqrt(n) / 30:.3f}" for n in COUNTS)
    result = verify_report(_rate_table(COUNTS), [{"path": "r.csv", "kind": "csv", "text": ops}])
    counts = [c for c in result.checks if c.number.text in {str(n) for n in COUNTS}]
    assert counts and all(c.status != "derived" for c in counts), [
        (c.number.text, c.status, c.how) for c in counts
    ]


def test_the_forward_derivation_from_traced_counts_still_holds():
    """The positive control: with N in the material, Rate = N/30 is found as a column formula."""
    evidence = [{"path": "n.csv", "kind": "csv", "text": "N\n" + "\n".join(map(str, COUNTS))}]
    result = verify_report(_rate_table(COUNTS, 10), evidence)
    rates = [c for c in result.checks if c.number.text in {f"{n / 10:.2f}" for n in COUNTS}]
    assert rates and all(c.status == "derived" for c in rates), [
        (c.number.text, c.status, c.how) for c in rates
    ]
    assert all(c.how.startswith("column formula: 1/10·[") for c in rates), rates[0].how


def test_a_recorded_computation_is_evidence_with_the_rows_it_used():
    trace = Computations()
    trace.add("slope", 4.1e-15, path="planck.xlsx", over="U against ν, Sheet1!B2:C6",
              sheet="Sheet1", inputs=[1.0, 2.0, 3.0], uncertainty=2.0e-16, unit="V s")  # fmt: skip
    trace.add("mean", float("nan"), path="x.csv", over="column 'x'")  # not a number: dropped
    records = trace.records()
    assert len(records) == 1 and records[0]["kind"] == "computation"
    numbers = evidence_numbers(records)
    assert [(e.derived, e.source.location) for e in numbers] == [
        ("slope", "slope of U against ν, Sheet1!B2:C6 (3 values)"),
        ("uncertainty of the slope", "uncertainty of the slope of U against ν, Sheet1!B2:C6 (3 values)"),
    ]  # fmt: skip
    # a run folder is untrusted: a damaged computation record is no evidence, and no crash
    bad = [{"path": "x", "kind": "computation", "text": "", "computation": {"value": "1e999"}},
           {"path": "x", "kind": "computation", "text": "", "computation": [1, 2]}]  # fmt: skip
    assert evidence_numbers(bad) == []


def test_an_offline_run_writes_its_evidence_and_verify_traces_it(tmp_path, capsys):
    folder = tmp_path / "material"
    _geiger_sheet(folder)
    out = tmp_path / "run"
    assert main(["run", str(folder), "--offline", "--no-compile", "--out", str(out)]) == 10
    kinds = {json.loads(line)["kind"] for line in (out / "evidence.jsonl").read_text().splitlines()}
    assert {"xlsx", "computation", "name"} <= kinds
    result = verify_run(out)
    checked = [c for c in result.checks if c.status != "skipped"]
    traced = [c for c in checked if c.status in ("matched", "derived", "cited")]
    assert checked and len(traced) >= 0.95 * len(checked), [
        (c.number.text, c.sentence) for c in result.unmatched
    ]
    assert not any(c.status == "derived" and "column formula" in c.how for c in result.checks)
    assert not list(folder.glob("*.jsonl"))  # nothing written into the picked folder
