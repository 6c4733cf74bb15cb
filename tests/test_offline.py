"""The offline engine: tables from data files, plots, manual hints and the skeleton report.

No model anywhere. The real projectile-motion material is copied to tmp_path
(the `projectile` fixture); nothing is written into ../shared or examples/.
"""

from __future__ import annotations

import hashlib
import json
import math
import re
import shutil
import warnings
from pathlib import Path

import pytest

from labwright.core.material.tables import Table, column_stats, extract_tables
from labwright.core.material.workspace import scan_folder
from labwright.core.report.latex import compile_tex, probe_engines
from labwright.core.report.offline import (
    format_value,
    manual_headings,
    manual_requirements,
    offline_report,
    plot_table,
    tex_text,
)
from labwright.core.report.templates import load_template
from labwright.core.rundir.records import FigureRecord
from labwright.core.rundir.store import atomic_write_text

XLSX = "Data/Projectile motion.xlsx"
GUIDELINES = "Manual/1GP2 Projectile Motion - Instructions and Assessment Guidelines"
PENDULUM = Path(__file__).resolve().parents[1] / "examples" / "pendulum"


def _column(table: Table, name: str) -> list[float | None]:
    j = table.columns.index(name)
    return [row[j] for row in table.rows]


def _write(path: Path, text: str, encoding: str = "utf-8") -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(text.encode(encoding))


def _compile(tmp: Path, tex: str) -> Path:
    """Compile `tex` in `tmp` (figures/ beside it); the PDF's path."""
    engines = probe_engines()
    if engines.engine is None:
        pytest.skip("no TeX engine installed")
    tex_path = tmp / "report.tex"
    atomic_write_text(tex_path, tex)
    result = compile_tex(tex_path, engines=engines)
    assert result.ok, [e.message for e in result.errors]
    assert result.pdf is not None
    return result.pdf


def _pdf_text(pdf: Path) -> str:
    from pypdf import PdfReader

    with warnings.catch_warnings():  # pypdf notes odd font details; not our concern here
        warnings.simplefilter("ignore")
        return "\n".join(page.extract_text() or "" for page in PdfReader(str(pdf)).pages)


# --------------------------------------------------------------------------
# tables.py
# --------------------------------------------------------------------------


def test_projectile_workbook_blocks(projectile: Path) -> None:
    tables = extract_tables(projectile, [XLSX])
    assert len(tables) >= 6
    first = tables[0]
    assert (first.source, first.sheet, first.first_row, first.last_row) == (XLSX, "Part A ", 6, 10)
    assert first.title.startswith("Projectile motion.xlsx › Part A, rows 6–10")
    assert "1st Initial Velocity" in first.title and "d1 = 0.050m" in first.title
    assert len(first.columns) == 21
    assert first.columns[:4] == ["Angle, °", "Angle, rad.", "Angle of 1 ° in rad.", "Range, m"]
    assert "(V_o)^2* SIN(2*thetha)" in first.columns and "d range" in first.columns
    assert _column(first, "Angle, °") == [25, 35, 45, 55, 65]
    assert _column(first, "Range, m") == [0.485, 0.57, 0.59, 0.495, 0.46]
    assert _column(first, "Height, m") == [0.035, 0.039, 0.17, 0.21, 0.25]
    # Second and third launch speeds are their own blocks, with their own titles.
    assert [t.first_row for t in tables if t.sheet == "Part A "] == [6, 15, 24]
    assert "2nd Initial Velocity" in tables[1].title
    assert _column(tables[1], "Range, m")[0] == 1.095
    # Other sheets: computed columns, a "%" header, and an empty sheet that gives nothing.
    sheet1 = next(t for t in tables if t.sheet == "Sheet1")
    assert "Theoretical Range" in sheet1.columns
    assert "Percentage of discrepancy (2)" in sheet1.columns  # repeated names are numbered
    gradient = next(t for t in tables if t.sheet == "gradient")
    assert gradient.columns[1:] == ["m", "g", "% discrepancy"]
    assert not any(t.sheet == "Sheet2" for t in tables)
    # "Part A (1)" repeats Part A's numbers for charts: its copies are not tables again.
    part_a1 = [t for t in tables if t.sheet == "Part A (1)"]
    assert all("Range, m" not in t.columns for t in part_a1)


def test_csv_with_metadata_and_two_row_header(tmp_path: Path) -> None:
    _write(
        tmp_path / "run.csv",
        "Instrument: XY-200\nDate,2024-03-01\n\nVoltage,Current,Note\n(V),(mA),\n"
        "1.0,10.5,ok\n2.0,21.25,ok\n3.000,31.5,\n",
    )
    [table] = extract_tables(tmp_path, ["run.csv"])
    assert table.columns == ["Voltage (V)", "Current (mA)"]
    assert table.rows == [[1.0, 10.5], [2.0, 21.25], [3.0, 31.5]]
    assert (table.first_row, table.last_row) == (6, 8)
    assert table.title == "run.csv, lines 6–8 — Instrument: XY-200; Date 2024-03-01"
    # The digits as written are kept for the report ("3.000" is not "3").
    assert table.written[2] == ["3.000", "31.5"]
    assert format_value(3.0, "3.000") == "$3.000$"


def test_gbk_txt_with_chinese_headers(tmp_path: Path) -> None:
    text = "实验数据：弹簧振子\n时间(s)\t位移(cm)\t速度(cm/s)\n0.0\t5.00\t0.0\n0.1\t4.05\t-18.5\n0.2\t1.55\t-29.9\n"
    _write(tmp_path / "数据.txt", text, encoding="gbk")
    [table] = extract_tables(tmp_path, ["数据.txt"])
    assert table.columns == ["时间(s)", "位移(cm)", "速度(cm/s)"]
    assert _column(table, "速度(cm/s)") == [0.0, -18.5, -29.9]
    assert "实验数据：弹簧振子" in table.title


def test_whitespace_aligned_dat(tmp_path: Path) -> None:
    _write(tmp_path / "scope.dat", "time (s)    voltage (V)\n0.001  0.25\n0.002  0.5\n0.003 0.75\n")
    [table] = extract_tables(tmp_path, ["scope.dat"])
    assert table.columns == ["time (s)", "voltage (V)"]
    assert _column(table, "voltage (V)") == [0.25, 0.5, 0.75]


def test_bad_files_are_skipped(tmp_path: Path) -> None:
    _write(tmp_path / "good.csv", "x,y\n1,2\n3,4\n")
    (tmp_path / "broken.xlsx").write_bytes(b"PK\x03\x04 this is no workbook" * 10)
    (tmp_path / "noise.xlsx").write_bytes(bytes(range(256)) * 8)
    (tmp_path / "prose.txt").write_text("Just words.\nNo numbers at all here.\n", encoding="utf-8")
    (tmp_path / "empty.csv").write_bytes(b"")
    paths = ["broken.xlsx", "noise.xlsx", "missing.csv", "../outside.csv", "prose.txt", "empty.csv"]
    tables = extract_tables(tmp_path, [*paths, "good.csv"])
    assert [t.source for t in tables] == ["good.csv"]


def test_caps_rows_and_tables(tmp_path: Path) -> None:
    _write(tmp_path / "long.csv", "i,sq\n" + "".join(f"{i},{i * i}\n" for i in range(600)))
    [table] = extract_tables(tmp_path, ["long.csv"], max_rows=500)
    assert len(table.rows) == 500 and table.omitted_rows == 100
    # The table's range is all of it; statistics too, though only 500 rows are kept.
    assert (table.first_row, table.last_row) == (2, 601)
    assert column_stats(table)[0]["n"] == 600
    for k in range(5):
        _write(tmp_path / f"t{k}.csv", f"a,b\n{k},1\n{k},2\n")
    assert len(extract_tables(tmp_path, [f"t{k}.csv" for k in range(5)], max_tables=3)) == 3


def test_column_stats() -> None:
    table = Table(
        source="x.csv",
        sheet=None,
        first_row=2,
        last_row=5,
        title="x.csv, lines 2–5",
        columns=["No.", "a", "b", "empty"],
        rows=[[1.0, 3.0, 7.0, None], [2.0, 1.0, None, None], [3.0, 2.0, None, None],
              [4.0, 6.0, None, None]],
    )  # fmt: skip
    stats = column_stats(table)
    # No statistics of a row number, nor of a column with no numbers.
    assert [s["name"] for s in stats] == ["a", "b"]
    a, b = stats
    assert (a["n"], a["min"], a["max"], a["mean"]) == (4, 1.0, 6.0, 3.0)
    assert a["std"] == pytest.approx(math.sqrt(14 / 3))  # sample std (n - 1)
    assert (b["n"], b["mean"], b["std"]) == (1, 7.0, None)


# --------------------------------------------------------------------------
# plot_table
# --------------------------------------------------------------------------


def test_plot_table_writes_pdf_png_and_provenance(tmp_path: Path) -> None:
    folder = tmp_path / "material"
    _write(folder / "data" / "iv.csv", "U (V),I (mA),dI\n1,2.0,0.1\n2,4.1,0.1\n3,5.9,0.1\n")
    [table] = extract_tables(folder, ["data/iv.csv"])
    figures = tmp_path / "run" / "figures"
    made = plot_table(table, figures, "iv-curve", folder)
    assert made is not None
    assert made["filename"] == "iv-curve" and "I (mA)" in made["caption"]
    assert Path(made["pdf"]).read_bytes().startswith(b"%PDF-")
    assert Path(made["png"]).read_bytes().startswith(b"\x89PNG")
    meta = json.loads((figures / "iv-curve.json").read_text(encoding="utf-8"))
    sha = hashlib.sha256((folder / "data" / "iv.csv").read_bytes()).hexdigest()
    size = (folder / "data" / "iv.csv").stat().st_size
    assert meta["inputs"] == [{"path": "data/iv.csv", "sha256": sha, "bytes": size}]
    assert {"filename", "caption", "code", "created", "matplotlib"} <= meta.keys()
    assert meta["table"]["x"] == "U (V)" and meta["table"]["y"] == ["I (mA)"]  # dI: uncertainty

    one_row = Table("a.csv", None, 1, 1, "a", ["x", "y"], [[1.0, 2.0]])
    assert plot_table(one_row, figures, "one-row", folder) is None
    one_column = Table("a.csv", None, 1, 3, "a", ["x"], [[1.0], [2.0], [3.0]])
    assert plot_table(one_column, figures, "one-column", folder) is None


def test_plot_with_chinese_headers_raises_no_warning(tmp_path: Path) -> None:
    table = Table("数据.txt", None, 2, 4, "数据.txt, lines 2–4", ["时间(s)", "位移(cm)"],
                  [[0.0, 5.0], [0.1, 4.05], [0.2, 1.55]])  # fmt: skip
    assert plot_table(table, tmp_path / "figures", "zh", tmp_path) is not None


# --------------------------------------------------------------------------
# The manual
# --------------------------------------------------------------------------


def test_manual_headings_and_requirements_from_docx(projectile: Path) -> None:
    docs = [
        f"{GUIDELINES}.docx",
        f"{GUIDELINES}.pdf",
        "Manual/1GP2 Projectile Motion - Lab Manual.docx",
    ]
    headings = manual_headings(projectile, docs)
    # The lab manual's headings, not the assessment guidelines' beside it, and not
    # the cover page's institution or title.
    assert headings[:4] == ["OBJECTIVES", "THEORY", "Introduction", "Projectile Motion"]
    assert "Part B: Maximum Range vs. Initial Speed" in headings  # "vs." ends no sentence
    assert not {
        "ASSESSMENT GUIDELINES",
        "UNIVERSITI SAINS MALAYSIA",
        "1GP2 PROJECTILE MOTION",
    } & set(headings)
    assert len(headings) == len({h.casefold() for h in headings})
    requirements = manual_requirements(projectile, docs)
    assert (
        "Graph of range versus angle of inclination for different initial speeds." in requirements
    )
    # A soft line break inside a Word paragraph does not split the requirement.
    assert any(
        r.startswith("All the calculations") and "perform the calculations" in r
        for r in requirements
    )
    assert not any(
        "video" in r.casefold() for r in requirements
    )  # the viva section is not the report's


def test_manual_from_pdf_alone(projectile: Path) -> None:
    docs = [f"{GUIDELINES}.pdf"]
    headings = manual_headings(projectile, docs)
    # From font sizes (the PDF has no outline); marks are not part of a heading.
    assert headings == [
        "INSTRUCTIONS", "ASSESSMENT GUIDELINES", "LAB REPORT", "EXPERIMENT",
        "VIVA VOCE AND PRESENTATION",
    ]  # fmt: skip
    requirements = manual_requirements(projectile, docs)
    assert (
        "Graph of range versus initial speeds at a fixed angle of inclination of θ=45°"
        in requirements
    )
    assert "Title" in requirements  # a bullet whose glyph the PDF lost
    assert not any(r.strip().isdigit() for r in requirements)  # page numbers


def test_manual_markdown_english_and_chinese(tmp_path: Path) -> None:
    # The Analysis section's tasks first (the manual's order), then what the report must contain.
    assert manual_requirements(PENDULUM, ["manual.md"]) == [
        "Compute the period T = t10 / 10 for each timing and its mean for each length.",
        "Plot T² against L. Fit a straight line through the origin; its slope is 4π²/g.",
        "Give g with its uncertainty and compare it with the accepted 9.81 m/s² "
        "(percentage discrepancy).",
        "an introduction with the theory and the relation being tested;",
        "the method and the apparatus;",
        "a table of the measurements and a plot of T² against L with the fit;",
        "the value of g with its uncertainty and the percentage discrepancy;",
        "a discussion of the sources of error, and a conclusion.",
    ]
    assert manual_headings(PENDULUM, ["manual.md"])[:3] == [
        "Experiment 3: The simple pendulum",
        "Aim",
        "Method",
    ]
    _write(
        tmp_path / "讲义.md",
        "# 实验目的\n测量重力加速度。\n\n## 实验报告要求\n1. 给出数据表；\n2. 作 T²–L 图并拟合。\n\n## 附录\n无\n",
    )
    assert manual_headings(tmp_path, ["讲义.md"]) == ["实验目的", "实验报告要求", "附录"]
    assert manual_requirements(tmp_path, ["讲义.md"]) == ["给出数据表；", "作 T²–L 图并拟合。"]


# --------------------------------------------------------------------------
# The skeleton report
# --------------------------------------------------------------------------


def test_projectile_skeleton_compiles_with_tables_and_plots(projectile_skeleton) -> None:
    run, report = projectile_skeleton.run, projectile_skeleton.report
    tex = report.tex
    assert (
        tex.startswith("%")
        and "\\documentclass" in tex
        and tex.rstrip().endswith("\\end{document}")
    )
    assert "without a language model" in tex
    # Every visible TODO has its comment on the same line.
    todo_lines = [line for line in tex.splitlines() if "\\textbf{TODO:}" in line]
    assert len(todo_lines) == len(load_template("lab-en").sections)
    assert all(line.rstrip().endswith("% TODO") for line in todo_lines)
    assert "The manual covers:" in tex and "OBJECTIVES; THEORY" in tex
    assert "ASSESSMENT GUIDELINES" not in tex  # the guidelines are not the manual
    assert "\\section*{Requirements to check}" in tex
    # Wide tables are split: no tabular has more than 1 + 7 columns.
    specs = re.findall(r"\\begin\{tabular\}\{(.*)\}$", tex, flags=re.MULTILINE)
    assert specs and all(spec.count("arraybackslash") <= 8 for spec in specs)
    assert "V\\_" in tex and "\\textasciicircum{}2" in tex and "\\% discrepancy" in tex
    assert len(report.tables) >= 6 and len(report.figures) >= 6
    for figure in report.figures:
        assert f"figures/{figure.filename}.pdf" in tex
        assert (run / "figures" / f"{figure.filename}.json").is_file()

    text = _pdf_text(projectile_skeleton.pdf)
    assert "TODO" in text
    for number in ("0.485", "0.57", "1.095", "2.105", "0.0801324"):
        assert number in text
    assert "Projectile motion.xlsx" in text and "Figure 1" in text


def test_chinese_template_skeleton(projectile: Path, tmp_path: Path) -> None:
    template = load_template("lab-zh")
    run = tmp_path / "run"
    report = offline_report(
        projectile, scan_folder(projectile), template, run / "figures", figures=[]
    )
    assert "ctexart" in report.tex
    for name in template.sections:
        assert f"\\section{{{name}}}" in report.tex
    assert "\\textbf{待补充：}" in report.tex and "实验手册包含" in report.tex
    text = _pdf_text(_compile(run, report.tex))
    assert "0.485" in text
    assert "实验目的" in text.replace(" ", "")


def test_findings_are_used_and_nothing_else_is_invented(tmp_path: Path) -> None:
    template = load_template("lab-en")
    folder = tmp_path / "pendulum"
    shutil.copytree(PENDULUM, folder)
    scan = scan_folder(folder)
    findings = {
        "experiment": "Simple pendulum & g",
        "goal": "Measure g_0 to within 5%",
        "key_findings": ["T grows as sqrt(L) #1", "g = 9.79 m/s^2 ($ not math)"],
        "method_approach": "Timed 10 swings ~3 times",
        "assignment_requirements": ["NOT USED"],
    }
    plain = offline_report(folder, scan, template, tmp_path / "a" / "figures", figures=[])
    filled = offline_report(
        folder, scan, template, tmp_path / "b" / "figures", figures=[], findings=findings
    )
    escaped = [
        "Simple pendulum \\& g",
        "Measure g\\_0 to within 5\\%",
        "T grows as sqrt(L) \\#1",
        "g = 9.79 m/s\\textasciicircum{}2 (\\$ not math)",
        "Timed 10 swings \\textasciitilde{}3 times",
    ]
    for text in escaped:
        assert text in filled.tex
    assert "\\title{Lab Report: Simple pendulum \\& g}" in filled.tex
    assert "NOT USED" not in filled.tex
    # Every line the findings added carries a finding or is list structure.
    added = set(filled.tex.splitlines()) - set(plain.tex.splitlines())
    structure = {
        "\\begin{itemize}",
        "\\end{itemize}",
        "\\paragraph{Key findings}",
        "\\paragraph{Method}",
    }
    for line in added:
        assert line in structure or any(text in line for text in escaped), line
    _compile(tmp_path / "b", filled.tex)


def test_special_characters_and_chinese_data_in_english_template(tmp_path: Path) -> None:
    folder = tmp_path / "material"
    _write(
        folder / "odd_%_&_#.csv",
        "Run #1: 50% load & $5 _x_ ~^ \\input{x}\n"
        "a_b %,c&d #,$e$,$\\f{g}$,频率(Hz)\n1,2,3,4,5\n6,7,8,9,11\n",
    )
    report = offline_report(
        folder, scan_folder(folder), load_template("lab-en"), tmp_path / "run" / "figures"
    )
    assert "\\input{x}" not in report.tex and "\\f{g}" not in report.tex
    assert "\\usepackage[UTF8,scheme=plain]{ctex}" in report.tex  # CJK data, English template
    assert len(report.figures) == 1  # "$\\f{g}$" is no mathtext for matplotlib either
    text = _pdf_text(_compile(tmp_path / "run", report.tex))
    assert "50%" in text and "a_b" in text and "频率" in text.replace(" ", "")


def test_given_figures_are_checked(tmp_path: Path) -> None:
    folder = tmp_path / "material"
    _write(folder / "d.csv", "x,y\n1,2\n2,3\n")
    figures_dir = tmp_path / "run" / "figures"
    figures_dir.mkdir(parents=True)
    (figures_dir / "fit_curve.pdf").write_bytes(b"%PDF-1.4\n")
    given = [
        FigureRecord("fit_curve", "A fit: 5% off"),
        FigureRecord("missing", "never made"),
        FigureRecord("../escape", "a path"),
    ]
    report = offline_report(
        folder, scan_folder(folder), load_template("brief-en"), figures_dir, figures=given
    )
    assert [f.filename for f in report.figures] == ["fit_curve"]
    assert (
        "\\includegraphics[width=0.85\\linewidth,height=0.5\\textheight,keepaspectratio]{figures/fit_curve.pdf}"
        in report.tex
    )
    assert "A fit: 5\\% off" in report.tex and "missing" not in report.tex
    assert not list(figures_dir.glob("offline-*"))  # given figures: no plots of our own


def test_tex_text_escapes_everything() -> None:
    assert (
        tex_text("$x_1$ \\(a\\) 100%") == "\\$x\\_1\\$ \\textbackslash{}(a\\textbackslash{}) 100\\%"
    )
    assert tex_text("θ=45°") == "\\ensuremath{\\theta}=45°"
    assert tex_text("𝑣0") == "v0"  # Word's math italics become letters
    assert format_value(0.4363323129985824) == "$0.4363$"
    assert format_value(0.485) == "$0.485$"
    assert format_value(0.08539999999999999) == "$0.0854$"
    assert format_value(1.5e-07) == "$1.5\\times10^{-7}$"
    assert format_value(-11.881883798252451) == "$-11.88$"
