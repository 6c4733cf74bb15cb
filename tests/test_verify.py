"""The number check: a report's numbers traced to the evidence (core/report/verify, core/material/evidence.py)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from labwright.cli import main
from labwright.core.material.evidence import evidence_from_folder, evidence_numbers, parse_unit
from labwright.core.material.readers import read_page
from labwright.core.report.verify import extract_numbers, verify_report

CSV = "length_m,t10_run1_s,t10_run2_s,t10_run3_s\n0.200,8.98,9.04,8.98\n1.000,20.16,20.16,20.08\n"
EVIDENCE = [
    {"path": "data/periods.csv", "kind": "csv", "offset": 0, "end": 3, "text": CSV.strip()},
    {
        "path": "data/setup.txt",
        "kind": "text",
        "offset": 0,
        "end": 2,
        "text": "Bob diameter 25.0 mm, mass 65.3 g.\nEfficiency ratio 0.124 of the launcher.",
    },
]


def doc(body: str) -> str:
    return (
        "\\documentclass{article}\n\\usepackage{siunitx}\n\\begin{document}\n"
        + body
        + "\n\\end{document}\n"
    )


def statuses(result) -> dict[str, str]:
    return {c.number.text: c.status for c in result.checks}


def test_quoting_the_data_rounded_in_other_units_and_as_percentages_passes():
    tex = doc(
        "For $L = 0.200$\\,m ten periods took 8.98 s (a bob of 2.50 cm, \\SI{65.3}{\\gram}).\n"
        "At 1.00 m ten periods took \\SI{20160}{\\milli\\second}, i.e.\\ 20.2 s.\n"
        "The launcher's efficiency was 12.4\\,\\% and the length 200 mm.\n"
    )
    result = verify_report(tex, EVIDENCE)
    assert result.unmatched == [], [c.to_dict() for c in result.unmatched]
    hows = {c.number.text: c.how for c in result.checks}
    assert hows["2.50"] == "2.50 cm = 25.0 mm" and hows["200"].startswith("200 mm = 0.200")
    assert hows["12.4"] == "12.4 % = 0.124"
    src = next(c.source for c in result.checks if c.number.text == "8.98")
    assert (src.path, src.location) == ("data/periods.csv", "line 2, column 't10_run1_s'")
    assert result.reason is None


def test_an_invented_value_is_flagged_with_its_sentence_and_the_closest_value():
    tex = doc("Ten periods took 8.98 s.\nThe measured period was 2.103 s, close to theory.\n")
    result = verify_report(tex, EVIDENCE)
    [bad] = result.unmatched
    assert bad.number.text == "2.103" and bad.number.line == 5
    assert bad.sentence == "The measured period was 2.103 s, close to theory."
    assert result.reason == "1 number not found in the material"
    item = result.to_dict()["open_items"][0]
    assert item["kind"] == "number_not_found" and "2.103 s" in item["message"]


def test_a_wrong_unit_prefix_is_flagged_where_the_material_states_the_unit():
    result = verify_report(doc("Ten periods took 8.98 ms at 0.200 cm.\n"), EVIDENCE)
    assert statuses(result) == {"8.98": "unmatched", "0.200": "unmatched"}


def test_trivial_numbers_and_markup_are_not_checked():
    tex = doc(
        "\\section{Results 2024}\\label{sec:r42}\n"
        "See Figure 12 and Table~\\ref{tab:77} (Eq. 14); in 2023 we took 3 runs % 99.9 hidden\n"
        "\\includegraphics[width=0.83\\linewidth]{figures/fit13.pdf}\n"
        "with $g = 9.81$ m/s$^2$ and $T = 2\\pi\\sqrt{L/g}$, $x^{2}$, $t_{10}$, file t10_run1.\n"
    )
    numbers = extract_numbers(tex)
    assert {n.text for n in numbers if not n.trivial} == set()
    assert "99.9" not in {n.text for n in numbers} and "0.83" not in {n.text for n in numbers}


def test_a_product_unit_written_with_a_dot_is_read_whole():
    """'6.96e-34 J·s' in a figure's printout is J·s, not J: the report's
    \\SI{6.96(13)e-34}{\\joule\\second} matches it, value and uncertainty."""
    printed = "h = e·slope = 6.9569829e-34 ± 1.2609e-35 J·s\naccepted 6.62607015e-34 J·s"
    evidence = [{"path": "figures/fit.pdf", "kind": "figure_output", "text": printed}]
    tex = doc(
        "$h$ = \\SI{6.96(13)e-34}{\\joule\\second}, "
        "from the accepted \\SI{6.62607015e-34}{\\joule\\second}.\n"
    )
    result = verify_report(tex, evidence)
    assert result.unmatched == [], [c.to_dict() for c in result.unmatched]
    units = [e.unit.text if e.unit else None for e in evidence_numbers(evidence)]
    assert units[1:] == ["J·s", "J·s"]  # the uncertainty's and the accepted value's


def test_latex_number_forms():
    tex = doc(
        "a $9.81\\times10^{-3}$ b 1.2e-3 c \\num{4.5e2} d 12,345 e $2.016 \\pm 0.004$\\,s "
        "f \\SI{9.81(2)}{\\metre\\per\\second\\squared} g 45$^\\circ$ h 3.5\\%"
    )
    got = {n.text: (n.value, n.unit.text if n.unit else None, n.role) for n in extract_numbers(tex)}
    assert got["9.81\\times10^{-3}"][0] == pytest.approx(9.81e-3)
    assert got["1.2e-3"][0] == pytest.approx(1.2e-3)
    assert got["4.5e2"][0] == pytest.approx(450)
    assert got["12,345"][0] == 12345
    assert got["0.004"] == (0.004, "s", "uncertainty") and got["2.016"][1] == "s"
    assert got["2"][2] == "uncertainty" and got["2"][0] == pytest.approx(0.02)
    assert got["45"][1] == "°" and got["3.5"][1] == "%"


def test_units_parse_to_factor_and_dimensions():
    assert parse_unit("mm").factor == pytest.approx(1e-3)
    assert parse_unit("ms-1").dims == parse_unit("m/s").dims  # lab sheets' m·s⁻¹
    assert parse_unit("ms").dims == (("s", 1),)
    assert parse_unit(r"\metre\per\second\squared").dims == parse_unit("m s^{-2}").dims
    assert parse_unit("the") is None


def test_a_computation_shown_in_the_report_is_accepted_when_it_holds():
    tex = doc(
        "For 1.000 m ten periods took 20.16 s, so $T = 20.16/10 = 2.016$\\,s and\n"
        "$g = 4\\pi^2 \\times 1.000/(2.016)^2 = 9.71$\\,m\\,s$^{-2}$.\n"
        "The mean of 8.98, 9.04 and 8.98 s is 9.00 s.\n"
        "Wrongly, $T = 20.16/10 = 2.106$ s.\n"
    )
    result = verify_report(tex, EVIDENCE)
    s = {(c.number.line, c.number.text): (c.status, c.how) for c in result.checks}
    assert s[(4, "2.016")][0] == "derived" and "20.16 / 10" in s[(4, "2.016")][1]
    assert s[(5, "9.71")][0] == "derived"
    assert s[(6, "9.00")][0] in ("derived", "matched")
    assert s[(7, "2.106")][0] == "unmatched"


def test_a_percentage_discrepancy_of_two_traced_numbers_is_derived():
    ev = [{"path": "g.txt", "kind": "text", "offset": 0, "end": 1, "text": "g1 = 8.55 m/s^2"}]
    ok = verify_report(doc("We found $g = 8.55$ m/s$^2$, 12.8\\,\\% below 9.81 m/s$^2$.\n"), ev)
    assert statuses(ok)["12.8"] == "derived"
    bad = verify_report(doc("We found $g = 8.55$ m/s$^2$, 14.7\\,\\% below 9.81 m/s$^2$.\n"), ev)
    assert statuses(bad)["14.7"] == "unmatched"  # 14.7 % would divide by the measured value


def test_a_table_column_computed_from_another_is_derived_row_by_row():
    tex = doc(
        "\\begin{tabular}{ccc}\n$L$ (m) & $t_{10}$ (s) & $T$ (s)\\\\\n"
        "0.200 & 8.98 & 0.898 \\\\\n1.000 & 20.16 & 2.016 \\\\\n1.000 & 20.08 & 2.111 \\\\\n"
        "\\end{tabular}"
    )
    result = verify_report(tex, EVIDENCE)
    s = {(c.number.line, c.number.text): c for c in result.checks}
    assert s[(6, "0.898")].status == "derived" and "1/10" in s[(6, "0.898")].how
    assert s[(7, "2.016")].status == "derived"
    assert s[(8, "2.111")].status == "unmatched"  # the invented cell breaks the formula
    assert s[(6, "8.98")].source.column == "t10_run1_s"


def test_nothing_is_traced_through_a_row_number_column():
    # The offline skeleton prints the file's line numbers as its first column; an
    # invented 0.300 in line 3 must not pass as "1/10·[line]", nor 11.2 as "2π·√[line]".
    tex = doc(
        "\\begin{tabular}{cccc}\nLine & $L$ (m) & $t_1$ (s) & $t_2$ (s)\\\\\n"
        "2 & 0.200 & 8.98 & 9.04 \\\\\n3 & 0.300 & 11.2 & 11.3 \\\\\n"
        "4 & 0.400 & 12.6 & 12.8 \\\\\n"
        "\\end{tabular}"
    )
    result = verify_report(tex, EVIDENCE)
    for c in result.checks:
        assert "[Line]" not in (c.how or ""), (c.number.text, c.how)
    s = {c.number.text: c for c in result.checks}
    assert s["3"].status == "skipped" and s["3"].how == "a row number"
    assert s["0.300"].status == "unmatched" and s["11.2"].status == "unmatched"
    assert s["0.200"].status == "matched"


def test_a_slope_printed_by_the_figure_code_is_matched_to_that_figure():
    ev = [
        *EVIDENCE,
        {
            "path": "figures/t2_vs_l.pdf",
            "kind": "figure_output",
            "text": "slope = 4.0187 s^2/m\nintercept = 0.0123 s^2\n",
            "inputs": ["data/periods.csv"],
        },
    ]
    tex = doc(
        "The fit of $T^2$ against $L$ has a slope of 4.02 s$^2$/m, so "
        "$g = 4\\pi^2/4.02 = 9.82$\\,m/s$^2$.\n"
    )
    result = verify_report(tex, ev)
    slope = next(c for c in result.checks if c.number.text == "4.02")
    assert slope.status == "matched"
    assert slope.source.path == "figures/t2_vs_l.pdf" and slope.source.kind == "figure_output"
    assert slope.source.inputs == ("data/periods.csv",)
    assert statuses(result)["9.82"] == "derived" and result.unmatched == []


def test_a_number_cited_from_an_outside_source_is_justified():
    result = verify_report(doc("Air density is 1.225 kg m$^{-3}$ \\cite{crc}.\n"), EVIDENCE)
    assert statuses(result) == {"1.225": "cited"}
    again = verify_report(doc("Air density is 1.225 kg \\cite{mat:manual}.\n"), EVIDENCE)
    assert statuses(again) == {"1.225": "unmatched"}  # the material does not say so


# -- real material ---------------------------------------------------------------

PROJECTILE_REPORT = r"""\documentclass{article}
\usepackage{siunitx,booktabs}
\begin{document}
\section{Results}
For the first initial velocity ($d_1 = 0.050$\,m) the velocity at $25^\circ$ was
\SI{2.32}{\metre\per\second} and the range 48.5\,cm, with a maximum height of 35 mm.
At $45^\circ$ the range reached 0.59 m; with the third velocity $2.105 \pm 0.001$ m,
about $2.105/0.59 = 3.57$ times as far.
The heights at 65° were 0.25, 0.45 and 0.72 m, a mean of 0.473 m.
\begin{tabular}{ccc}\toprule
$\theta$ ($^\circ$) & $R$ (m) & $H$ (cm)\\\midrule
25 & 1.095 & 8.0 \\
35 & 1.22 & 19.0 \\
45 & 1.23 & 29.0 \\
\bottomrule\end{tabular}
The range at 55° was 1.31 m.
\end{document}
"""


def test_real_material_projectile_motion(projectile):
    xlsx = projectile / "Data" / "Projectile motion.xlsx"
    records, offset = [], 0
    while True:  # the workbook as read_file pages it
        page = read_page(xlsx, offset)
        records.append(
            {
                "path": "Data/Projectile motion.xlsx",
                "kind": page.kind,
                "offset": page.offset,
                "end": page.end,
                "text": page.text,
            }
        )
        if page.end >= (page.total or 0):
            break
        offset = page.end
    result = verify_report(PROJECTILE_REPORT, records, projectile)
    [bad] = result.unmatched  # 1.31 m is invented: the workbook has 1.17 m at 55°
    assert bad.number.text == "1.31" and "55° was 1.31 m" in bad.sentence
    by_text = {}
    for c in result.checks:
        by_text.setdefault(c.number.text, c)
    r = by_text["48.5"]
    assert r.status == "matched" and r.how == "48.5 cm = 0.485 m"
    assert (r.source.sheet, r.source.cell, r.source.column) == ("Part A ", "E6", "Range, m")
    assert by_text["35"].how == "35 mm = 0.035 m"
    assert by_text["3.57"].status == "derived" and by_text["0.473"].status == "derived"
    assert by_text["29.0"].how == "29.0 cm = 0.29 m"


def test_evidence_numbers_know_their_workbook_cells(projectile):
    records = evidence_from_folder(projectile, ["Data/Projectile motion.xlsx"])
    import openpyxl

    wb = openpyxl.load_workbook(projectile / "Data" / "Projectile motion.xlsx", data_only=True)
    cells = [n for n in evidence_numbers(records, projectile) if n.source.cell and not n.derived]
    assert len(cells) > 500
    for n in cells[::37]:
        value = wb[n.source.sheet][n.source.cell].value
        if isinstance(value, str):  # a number inside a text cell ("Distance, d1 = 0.050m")
            assert n.text in value, n
        else:
            assert float(value) == pytest.approx(n.value), n


# -- labwright verify ----------------------------------------------------------------


def make_run(tmp_path: Path, tex: str) -> Path:
    run = tmp_path / "run"
    run.mkdir()
    (run / "run.json").write_text(json.dumps({"status": "ok", "config": {"folder": "/nowhere"}}))
    (run / "evidence.jsonl").write_text("".join(json.dumps(e) + "\n" for e in EVIDENCE))
    (run / "report.tex").write_text(tex)
    return run


def test_cli_verify_on_an_edited_report(tmp_path, capsys):
    run = make_run(tmp_path, doc("Ten periods took 8.98 s.\n"))
    assert main(["verify", str(run)]) == 0
    assert "1 numbers checked · 1 traced" in capsys.readouterr().out
    # the user edits the report and types a value the material does not have
    (run / "report.tex").write_text(doc("Ten periods took 8.98 s, so T = 0.913 s.\n"))
    assert main(["verify", str(run)]) == 10
    out = capsys.readouterr().out
    assert "line 4: 0.913 s" in out and "so T = 0.913 s" in out
    numbers = json.loads((run / "numbers.json").read_text())
    assert numbers["counts"]["unmatched"] == 1 and numbers["unmatched"][0]["text"] == "0.913"
    assert main(["verify", str(run), "--json"]) == 10
    assert json.loads(capsys.readouterr().out)["matched"][0]["source"]["path"] == "data/periods.csv"


def test_cli_verify_bad_input(tmp_path, capsys):
    assert main(["verify", str(tmp_path / "missing")]) == 2
    (tmp_path / "run.json").write_text("{}")
    assert main(["verify", str(tmp_path)]) == 2  # no report.tex
    assert "cannot read" in capsys.readouterr().err


# -- chance: how often an invented number of the same magnitude is "traced" -------------


def _random_like(rng, text: str) -> str:
    whole, _, frac = text.partition(".")
    lead = (
        "0"
        if whole == "0"
        else str(rng.randint(1, 9)) + "".join(str(rng.randint(0, 9)) for _ in whole[1:])
    )
    return lead + ("." + "".join(str(rng.randint(0, 9)) for _ in frac) if frac else "")


def test_random_numbers_of_the_same_size_are_rarely_traced_and_real_ones_still_are(tmp_path):
    import random
    import re

    from labwright.core.material.workspace import scan_folder
    from labwright.core.report.offline import offline_report
    from labwright.core.report.templates import load_template

    folder = Path(__file__).resolve().parents[1] / "examples" / "pendulum"
    tex = offline_report(
        folder, scan_folder(folder), load_template("lab-en"), tmp_path, figures=[]
    ).tex
    records = evidence_from_folder(folder, ["data/periods.csv", "data/setup.txt"])
    real = [
        c for c in verify_report(tex, records).checks
        if c.status in ("matched", "derived") and re.fullmatch(r"\d+\.\d+", c.number.text)
    ]  # fmt: skip
    # The lengths and the timings of ten swings, copied from periods.csv, are traced.
    assert len(real) >= 30 and {"0.200", "8.98", "20.16"} <= {c.number.text for c in real}
    rng = random.Random(14)
    traced = tried = 0
    for _ in range(10):  # ten random numbers per check, each in its own table row
        picks, rows = [], set()
        for c in rng.sample(real, len(real)):
            n = c.number
            if (n.table, n.row, n.segment) in rows or len(picks) == 10:
                continue
            fake = _random_like(rng, n.text)
            if fake != n.text:
                rows.add((n.table, n.row, n.segment))
                picks.append((n, fake))
        fake_tex = tex
        for n, fake in sorted(picks, key=lambda p: -p[0].start):
            fake_tex = fake_tex[: n.start] + fake + fake_tex[n.end :]
        by_start = {c.number.start: c for c in verify_report(fake_tex, records).checks}
        for n, _ in picks:
            tried += 1
            traced += by_start[n.start].status in ("matched", "derived")
    assert tried >= 90 and traced <= 2, (traced, tried)


# -- column roles (core/material/tables/roles.py) in the tracer ----------------------

_ROLE_CSV = (
    "frame,length_m,t10_s\n101,0.200,8.98\n102,0.500,14.25\n103,0.700,16.88\n104,1.000,20.16\n"
)
_ROLE_EVIDENCE = [
    {"path": "data/run.csv", "kind": "csv", "offset": 0, "end": 5, "text": _ROLE_CSV.strip()}
]


@pytest.mark.parametrize(
    ("body", "number", "status"),
    [
        # a set point restated as it stands is matched...
        ("At $L = 0.700$\\,m ten periods took 16.88 s.", "0.700", "matched"),
        # ...but is no operand: 1.000/0.200 = 5.00 is not evidence of a ratio of 5.00
        ("Between $L = 0.200$ and 1.000 m the ratio of lengths is 5.00.", "5.00", "unmatched"),
        # no statistic of the set points (the mean of length_m is 0.600)
        ("The mean length was 0.600 m.", "0.600", "unmatched"),
        # no statistic of the frame numbers (their mean is 102.5), no match through them
        ("The mean frame was 102.5.", "102.5", "unmatched"),
        ("The bob passed at frame 103.", "103", "unmatched"),
        # measured values keep their statistics
        ("The mean of ten periods was 15.07 s.", "15.07", "matched"),
    ],
)
def test_no_match_statistic_or_derivation_through_an_index_or_a_set_point(body, number, status):
    result = verify_report(doc(body + "\n"), _ROLE_EVIDENCE)
    assert statuses(result)[number] == status, [
        (c.number.text, c.status, c.how) for c in result.checks
    ]


@pytest.mark.parametrize(
    ("header", "cells", "traced"),
    [
        # 2π·√(set point): a formula through the angle column would "trace" any number
        ("Angle (deg) & $X$", [("10.0", "19.87"), ("20.0", "28.10"), ("30.0", "34.41")], False),
        # from a measured column (not monotonic: no set points) it is a real column formula
        ("$m$ (kg) & $X$", [("20.7", "28.59"), ("10.3", "20.17"), ("30.9", "34.93")], True),
        # nor a formula through a row-number column (1/10·[No.])
        ("No. & $X$", [("2", "0.200"), ("3", "0.300"), ("4", "0.400")], False),
    ],
)
def test_a_column_formula_needs_measured_operands(header, cells, traced):
    rows = "".join(f"{a} & {b} \\\\\n" for a, b in cells)
    tex = doc(f"\\begin{{tabular}}{{cc}}\n{header}\\\\\n{rows}\\end{{tabular}}")
    # the operands stand in the material (a formula resting on untraced numbers traces nothing)
    operands = "x\n" + "\n".join(a for a, _ in cells)
    result = verify_report(
        tex, [*_ROLE_EVIDENCE, {"path": "ops.csv", "kind": "csv", "text": operands}]
    )
    derived = {c.number.text for c in result.checks if c.status == "derived"}
    assert ({b for _, b in cells} <= derived) is traced, [
        (c.number.text, c.how) for c in result.checks
    ]
