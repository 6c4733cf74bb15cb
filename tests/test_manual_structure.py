"""The manual's structure: its tasks and questions by part, and the skeleton laid out by them
(core/report/offline/requirements.py, parts.py, by_part.py; the gap and write prompts).

Real material: the projectile-motion course folder (tests/data) and examples/pendulum;
small folders written here for the cases those two do not have (a manual with only
procedure steps, a Chinese 实验内容 with 4.1/4.2, a Word template's ①–④ with equations).
The seven real course folders of the TA corpus are tests/corpus/test_manual_corpus.py.
"""

from __future__ import annotations

import json
import re
import shutil
import warnings
from pathlib import Path

import pytest

from labwright.core.material.workspace import scan_folder
from labwright.core.report.offline import offline_report
from labwright.core.report.offline.requirements import (
    Requirement,
    manual_requirements,
    manual_tasks,
    read_manual,
    requirements_text,
    similar,
    with_model_requirements,
)
from labwright.core.report.templates import load_template

PENDULUM = Path(__file__).resolve().parents[1] / "examples" / "pendulum"
LAB_MANUAL = "Manual/1GP2 Projectile Motion - Lab Manual.docx"
GUIDELINES = "Manual/1GP2 Projectile Motion - Instructions and Assessment Guidelines.docx"
PART_A = "Part A: Gravitational Acceleration of the Earth"
PART_B = "Part B: Maximum Range vs. Initial Speed"


def _write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def _docs(folder: Path) -> list[str]:
    return list(scan_folder(folder).sample.get("documents", []))


# --------------------------------------------------------------------------
# Requirements, parts and sources from real manuals
# --------------------------------------------------------------------------


def test_projectile_lab_manual_tasks_by_part(projectile: Path) -> None:
    tasks = manual_tasks(projectile, _docs(projectile))
    by_part = {part: [r.text for r in tasks if r.part == part] for part in (PART_A, PART_B)}
    # Each part's Analysis items, not its Measurement steps ("Fire the steel ball…").
    assert [t[:40] for t in by_part[PART_A]] == [
        "Calculate the actual initial speeds (v0)",
        "Plot the graph of maximum range (s) vs. ",
        "Plot the graph of maximum height of proj",
        "Using the data collected for s vs. φ and",
    ]
    assert by_part[PART_B] == [
        "Calculate the actual initial speeds (v0) for their corresponding experimental values "
        "(vexp).",
        "Plot the graph of maximum range (s) vs. initial speed (v0).",
    ]
    assert not any(t.text.startswith(("Fire the steel", "Measure the distance")) for t in tasks)
    first = next(r for r in tasks if r.part == PART_B)
    assert first.source == "1GP2 Projectile Motion - Lab Manual.docx, Analysis, item 1"
    # The assessment guidelines beside the manual add what the report must contain, no part.
    graph = next(r for r in tasks if r.text.startswith("Graph of range versus angle"))
    assert graph.part == "" and graph.file == GUIDELINES and graph.section == "LAB REPORT (50%)"
    # The introduction to a list is not a requirement; boilerplate neither.
    assert not any(r.text.endswith(":") for r in tasks)
    assert not any("deadline" in r.text.casefold() or "video" in r.text for r in tasks)


def test_pendulum_manual_tasks_and_report_items_without_parts() -> None:
    tasks = manual_tasks(PENDULUM, ["manual.md"])
    assert [r.text for r in tasks][:3] == [
        "Compute the period T = t10 / 10 for each timing and its mean for each length.",
        "Plot T² against L. Fit a straight line through the origin; its slope is 4π²/g.",
        "Give g with its uncertainty and compare it with the accepted 9.81 m/s² "
        "(percentage discrepancy).",
    ]
    assert len(tasks) == 8 and {r.part for r in tasks} == {""}  # one experiment: no parts
    assert [r.source for r in tasks[:2]] == [
        "manual.md, Analysis, item 1",
        "manual.md, Analysis, item 2",
    ]
    assert not any(r.text.startswith(("Clamp the string", "Displace the bob")) for r in tasks)


def test_a_manual_of_steps_only_keeps_the_steps_that_ask_for_a_result(tmp_path: Path) -> None:
    # As 1EM5 AC Resonance: no "Analysis" heading, the asks are among the steps.
    _write(
        tmp_path / "lab manual.md",
        "# PROCEDURE\n\n## Part A: Resonant Frequency of a Series Circuit\n\n### Measurement\n\n"
        "1. Connect the circuit as shown in Figure 5, using R = 10 kΩ.\n"
        "2. Connect the oscilloscope across R.\n"
        "3. Plot VR/VR,max against the frequency f of the oscillator.\n"
        "4. Determine the resonant frequency f0 from the plot.\n\n"
        "## Part B: The Q Factor\n\n### Measurement\n\n"
        "1. Replace R with values of 12 kΩ and 8 kΩ.\n"
        "2. Show how Q varies with R graphically.\n"
        "3. Now interchange L and C, then repeat Steps 1 to 2.\n",
    )
    tasks = manual_tasks(tmp_path, ["lab manual.md"])
    assert [(r.part[:6], r.text) for r in tasks] == [
        ("Part A", "Plot VR/VR,max against the frequency f of the oscillator."),
        ("Part A", "Determine the resonant frequency f0 from the plot."),
        ("Part B", "Show how Q varies with R graphically."),
    ]
    assert tasks[2].source == "lab manual.md, Measurement 2"


def test_chinese_content_sections_are_the_parts_and_questions_are_asked(tmp_path: Path) -> None:
    _write(
        tmp_path / "预习报告.md",
        "# 1 实验目的\n\n1. 了解 RLC 电路的相频特性。\n\n"
        "# 4 实验内容\n\n## 4.1 测 RLC 串联电路\n\n取 R = 100 Ω。\n\n"
        "1. 调谐振，记录谐振时的频率 f0。\n\n2. 用万用表记录 uL、uC 并计算 Q 值。\n\n"
        "## 4.2 测 RLC 并联电路\n\n1. 调节频率，判断谐振点，记录此时的频率。\n\n"
        "# 5 思考题\n\n1. 为什么并联谐振时电流最小？\n",
    )
    tasks = manual_tasks(tmp_path, ["预习报告.md"])
    assert [(r.part, r.text, r.kind) for r in tasks] == [
        ("4.1 测 RLC 串联电路", "调谐振，记录谐振时的频率 f0。", "task"),
        ("4.1 测 RLC 串联电路", "用万用表记录 uL、uC 并计算 Q 值。", "task"),
        ("4.2 测 RLC 并联电路", "调节频率，判断谐振点，记录此时的频率。", "task"),
        ("", "为什么并联谐振时电流最小？", "question"),
    ]  # the objectives (实验目的) say what the experiment is for: no requirement
    assert tasks[3].where("zh") == "预习报告.md，5 思考题 1"


def _omml(text: str) -> str:
    return (
        '<m:oMath xmlns:m="http://schemas.openxmlformats.org/officeDocument/2006/math">'
        f"<m:r><m:t>{text}</m:t></m:r></m:oMath>"
    )


def _word_template(path: Path) -> Path:
    """A 数据处理 template as the 北航 one: circled steps, fields #…#, Word equations."""
    import docx
    from docx.oxml import parse_xml

    doc = docx.Document()
    doc.add_paragraph("光电效应测定普朗克常数")
    doc.add_paragraph("五、数据处理")
    doc.add_paragraph("① 原始数据（ϕ=#phi#mm）")
    table = doc.add_table(rows=1, cols=3)
    for cell, value in zip(table.rows[0].cells, ("波长", "#r-l1#", "#r-l2#"), strict=True):
        cell.text = value
    for before, math, after in (
        ("作", "U0-ν", "图为："),
        ("② 图示法求", "U0-ν", "直线的斜率k"),
    ):
        par = doc.add_paragraph(before)
        par._p.append(parse_xml(_omml(math)))
        par.add_run(after)
    doc.add_paragraph("可得：k=#s1-k#，h1=ek=#s1-h#J⋅s")
    doc.add_paragraph("④ 不同频率下的伏安特性曲线")
    doc.add_paragraph("（ϕ=#phi#mm，λ=#lbd1#nm）")
    doc.save(str(path))
    return path


def test_word_template_steps_with_equations_and_fields(tmp_path: Path) -> None:
    from labwright.core.material.readers import read_page
    from labwright.core.material.workspace import open_in_folder

    _word_template(tmp_path / "Plank_empty.docx")
    with open_in_folder(tmp_path, "Plank_empty.docx") as src:
        text = read_page(src, 0, 100).text
    assert "作U0-ν图为：" in text  # python-docx alone gives "作图为："
    assert manual_requirements(tmp_path, ["Plank_empty.docx"]) == [
        "作U0-ν图为：",
        "图示法求U0-ν直线的斜率k 可得：k=…，h1=ek=…J⋅s",
        "不同频率下的伏安特性曲线",
    ]  # ① is the table to fill, not a task; the fields are blanks (…) or say nothing yet


def test_a_placeholder_page_is_no_manual(tmp_path: Path) -> None:
    # zh-photoelectric-planck's Preview.pdf: another experiment's "示例文本".
    _write(tmp_path / "实验讲义.md", "# 迈克尔逊干涉实验 预习报告\n\n## 实验内容\n\n1. 示例文本\n")
    assert manual_tasks(tmp_path, ["实验讲义.md"]) == []
    _write(tmp_path / "实验讲义.md", "# 迈克尔逊干涉实验\n\n## 实验内容\n\n1. 测量干涉条纹。\n")
    assert manual_requirements(tmp_path, ["实验讲义.md"]) == ["测量干涉条纹。"]  # positive control


def test_tasks_come_from_the_manual_not_a_sheet_beside_it(tmp_path: Path) -> None:
    _write(
        tmp_path / "lab manual.md",
        "# Objectives\n\n- Measure g.\n\n# Procedure\n\n## Analysis\n\n1. Plot T² against L.\n"
        "2. Submit your plot on the e-learning portal.\n",
    )
    _write(
        tmp_path / "vendor instruction sheet.md",
        "# Questions\n\n1. What type of collisions are occurring?\n",
    )
    docs = ["lab manual.md", "vendor instruction sheet.md"]
    assert manual_requirements(tmp_path, docs) == ["Plot T² against L."]  # no boilerplate either
    assert manual_requirements(tmp_path, docs[1:]) == ["What type of collisions are occurring?"]


def test_the_model_adds_only_what_the_manual_does_not_say() -> None:
    manual = [Requirement("Plot the count rate vs. the applied voltage.", "Part A")]
    found = [
        "plot the count rate vs the applied voltage",  # the manual's, in other words
        "Give the operating voltage with its uncertainty.",
        "Submit the report on the portal by Friday.",
    ]
    merged = with_model_requirements(manual, found)
    assert [r.text for r in merged] == [
        "Plot the count rate vs. the applied voltage.",
        "Give the operating voltage with its uncertainty.",
    ]
    assert similar("作U0-ν图", "作U0-ν图为：") and not similar("作U0-ν图", "计算普朗克常数h")


def test_requirements_text_groups_by_part() -> None:
    reqs = [
        Requirement("Plot R vs. V.", "Part A: Voltage", file="m.pdf", page=6, section="Analysis",
                    label="1"),
        Requirement("At what condition is it Gaussian?", "Part B: Counting", kind="question"),
    ]  # fmt: skip
    assert requirements_text(reqs) == (
        "## Part A: Voltage\n- Plot R vs. V. (m.pdf, p. 6, Analysis 1)\n"
        "## Part B: Counting\n- At what condition is it Gaussian?"
    )
    assert requirements_text([Requirement("Plot T² against L.")]) == "- Plot T² against L."


# --------------------------------------------------------------------------
# The skeleton by part
# --------------------------------------------------------------------------


def _parts_folder(root: Path) -> Path:
    """A manual with two parts, and data: one table per part, one of neither, a blank
    template and a retyped copy."""
    import openpyxl

    folder = root / "ac-lab"
    _write(
        folder / "lab manual.md",
        "# Procedure\n\n## Part A: Resonant Frequency of a Series Circuit\n\n"
        "Use R = 10 kΩ and C = 2100 pF.\n\n### Analysis\n\n1. Plot VR against f.\n"
        "2. Determine the resonant frequency f0 from the plot.\n\n"
        "## Part B: The Q Factor\n\nReplace R with 12 kΩ.\n\n### Analysis\n\n"
        "1. Determine Q for R = 12 kΩ.\n2. At what resistance is Q largest?\n\n"
        "# Discussion\n\nDiscuss the sources of error.\n",
    )
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "Part A"
    ws.append(["f (kHz)", "VR (V)"])
    for f in range(1, 9):
        ws.append([f, round(2 + 1.3 * f - 0.1 * f * f, 3)])
    blank = wb.create_sheet("exp 2")  # a template: only the set points filled in
    blank.append(["f (kHz)", "VR (V)", "VR/VRmax"])
    for k in range(1, 11):
        blank.append([0.5 * k, None, None])
    wb.save(str(folder / "resonance.xlsx"))
    rows = "\n".join(f"{f},{round(1 + 0.9 * f - 0.06 * f * f, 2)}" for f in range(1, 9))
    _write(folder / "q at 12kΩ.csv", "f (kHz),VR (V)\n" + rows + "\n")
    retyped = rows.replace("1,1.84", "1,7.5")
    _write(folder / "retyped copy.csv", "f (kHz),VR (V)\n" + retyped + "\n")
    _write(
        folder / "temperature.csv",
        "t (s),T (K)\n" + "\n".join(f"{t},{290 + t * t % 7}" for t in range(8)),
    )
    return folder


def _between(tex: str, start: str, end: str) -> str:
    i = tex.index(start)
    return tex[i : tex.index(end, i + len(start))]


def test_skeleton_sections_follow_the_parts(tmp_path: Path) -> None:
    folder = _parts_folder(tmp_path)
    run = tmp_path / "run"
    report = offline_report(folder, scan_folder(folder), load_template("lab-en"), run / "figures")
    tex = report.tex
    part_a = _between(tex, "\\subsection*{Part A: Resonant", "\\subsection*{")
    part_b = _between(tex, "\\subsection*{Part B: The Q Factor}", "\\subsection*{")
    other = _between(tex, "\\subsection*{Other data}", "\\section{Analysis}")
    # Each part: its requirements as TODO items, with where the manual asks them, then its data.
    assert (
        "\\item \\textbf{Do:} Plot VR against f. \\emph{(lab manual.md, Analysis 1)} % TODO"
        in part_a
    )
    assert "\\item \\textbf{Answer:} At what resistance is Q largest?" in part_b
    # Each table and its plot in the part it names (the sheet "Part A") or whose setting it
    # has (12 kΩ); one of neither under Other data.
    assert "\\caption{Data from resonance.xlsx › Part A, rows 2–9.}" in part_a
    assert "Data: resonance.xlsx › Part A, rows 2–9." in part_a  # its figure
    assert "\\caption{Data from q at 12k\\ensuremath{\\Omega}.csv, lines 2–9.}" in part_b
    assert "Data: q at 12k\\ensuremath{\\Omega}.csv, lines 2–9." in part_b
    assert "temperature.csv" in other
    # Nothing empty, nothing twice: the template sheet and the retyped copy are left out.
    assert "Data from resonance.xlsx › exp 2" not in tex and "Data from retyped copy" not in tex
    left = _between(tex, "\\paragraph{Left out}", "\\end{itemize}")
    assert "resonance.xlsx › exp 2!A1:C11: an unfilled block" in left  # read, not shown
    assert "retyped copy.csv, lines 2–9: the same rows as q at 12k" in left
    assert "but for one value of VR (V) (1.84 there, 7.5 here)" in left
    shown = {f.caption.split("Data: ")[-1] for f in report.figures}
    assert not any("exp 2" in c or "retyped" in c for c in shown)  # no plot of them either
    _assert_no_float_after_the_conclusion(tex, _compile(run, tex))


def _compile(run: Path, tex: str) -> Path:
    from test_offline import _compile as compile_report

    return compile_report(run, tex)


CAPTION = re.compile(r"^(?:Table|Figure|表|图)\s*\d+[:：]", re.MULTILINE)


def _assert_no_float_after_the_conclusion(tex: str, pdf: Path) -> None:
    """No table or figure after \\section{Conclusion}: in the source, and where TeX put it."""
    from pypdf import PdfReader

    conclusion = next(s for s in ("\\section{Conclusion}", "\\section{结论}") if s in tex)
    after = tex[tex.index(conclusion) :]
    assert "\\begin{table}" not in after and "\\begin{figure}" not in after
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        pages = [page.extract_text() or "" for page in PdfReader(str(pdf)).pages]
    text = "\n".join(pages)
    heading = re.search(r"^\d+\s*(?:Conclusion|结论)\s*$", text, re.MULTILINE)
    assert heading, "no Conclusion heading in the PDF"
    captions = [m.start() for m in CAPTION.finditer(text)]
    assert captions and max(captions) < heading.start(), "a float was set after the Conclusion"


@pytest.mark.parametrize("template", ["lab-en", "lab-zh"])
def test_projectile_skeleton_has_its_parts_and_nothing_after_the_conclusion(
    projectile: Path, tmp_path: Path, template: str
) -> None:
    run = tmp_path / "run"
    report = offline_report(projectile, scan_folder(projectile), load_template(template),
                            run / "figures")  # fmt: skip
    tex = report.tex
    assert tex.index(f"\\subsection*{{{PART_A}}}") < tex.index(f"\\subsection*{{{PART_B}}}")
    lead = "完成：" if template == "lab-zh" else "Do:"
    assert f"\\item \\textbf{{{lead}}} Plot the graph of maximum range" in tex
    _assert_no_float_after_the_conclusion(tex, _compile(run, tex))


def test_pendulum_skeleton_asks_its_tasks_once(tmp_path: Path) -> None:
    run = tmp_path / "run"
    report = offline_report(
        PENDULUM, scan_folder(PENDULUM), load_template("lab-en"), run / "figures"
    )
    tex = report.tex
    results = _between(tex, "\\section{Results}", "\\section{Analysis}")
    assert "\\paragraph{The manual asks}" in results and "\\subsection" not in results
    assert results.index("The manual asks") < results.index("\\begin{table}")
    task = "Plot T\\textsuperscript{2} against L" if "textsuperscript" in tex else "Plot T²"
    marked = [ln for ln in tex.splitlines() if task in ln and ln.rstrip().endswith("% TODO")]
    assert len(marked) == 1  # the checklist after the conclusion lists it, unmarked
    _assert_no_float_after_the_conclusion(tex, _compile(run, tex))


# --------------------------------------------------------------------------
# The model is told them; the gap check lists them by part
# --------------------------------------------------------------------------


def test_the_model_is_told_the_requirements_by_part(tmp_path: Path) -> None:
    from agent_helpers import FINISH_ARGS, config_for, route
    from fakes import FakeLLM, call, tool_calls
    from labwright.core.run.pipeline import run_agent

    folder = _parts_folder(tmp_path)
    explore = [
        tool_calls(call("read_file", {"path": "q at 12kΩ.csv"})),
        tool_calls(call("finish_exploration", {**FINISH_ARGS, "assignment_requirements": [
            "determine the resonant frequency f0 from the plot",  # the manual's, again
            "A table of the measured voltages.",
        ]})),
    ]  # fmt: skip
    with FakeLLM(route(explore)) as llm:
        events = list(run_agent(config_for(llm, folder, tmp_path / "run", reflect=0)))
        requests = list(llm.requests)
    assert events[-1].type == "done"
    first_user = next(m["content"] for m in requests[0]["messages"] if m["role"] == "user")
    assert "## Part A: Resonant Frequency of a Series Circuit\n- Plot VR against f." in first_user
    assert "- At what resistance is Q largest? (lab manual.md, Analysis 2)" in first_user
    writes = [r["messages"][-1]["content"] for r in requests if r["model"] == "fake-write"]
    gap = next(p for p in writes if "Answer with JSON only" in p)
    assert "## Part B: The Q Factor\n- Determine Q for R = 12 kΩ.\n" in gap
    draft = next(p for p in writes if "# The manual's tasks and questions, by part" in p)
    assert (
        "## Part B: The Q Factor\n- Determine Q for R = 12 kΩ. (lab manual.md, Analysis 1)" in draft
    )
    gaps = json.loads((tmp_path / "run" / "gaps.json").read_text(encoding="utf-8"))
    assert [(g.get("part", "")[:6], g["requirement"], g.get("source")) for g in gaps] == [
        ("Part A", "Plot VR against f.", "lab manual.md, Analysis 1"),
        (
            "Part A",
            "Determine the resonant frequency f0 from the plot.",
            "lab manual.md, Analysis 2",
        ),
        ("Part B", "Determine Q for R = 12 kΩ.", "lab manual.md, Analysis 1"),
        ("Part B", "At what resistance is Q largest?", "lab manual.md, Analysis 2"),
        ("", "A table of the measured voltages.", None),
    ]


def test_read_manual_gives_each_part_its_words(tmp_path: Path) -> None:
    folder = _parts_folder(tmp_path)
    manual = read_manual(folder, ["lab manual.md"])
    assert manual.parts == [
        "Part A: Resonant Frequency of a Series Circuit",
        "Part B: The Q Factor",
    ]
    assert "12 kΩ" in manual.part_text["Part B: The Q Factor"]
    assert "2100 pF" in manual.part_text["Part A: Resonant Frequency of a Series Circuit"]
    shutil.rmtree(folder)


def test_blocks_stacked_in_one_table_go_to_the_part_their_setting_names(tmp_path: Path) -> None:
    # As en-ac-resonance's sheet: the 12 kΩ and 8 kΩ runs of Part B one under the other,
    # the resistor written down the R column; its header words are those of both parts.
    import openpyxl

    from labwright.core.material.tables import collect_data
    from labwright.core.report.offline.parts import place

    _write(
        tmp_path / "lab manual.md",
        "# Procedure\n\n## Part A: Resonant Frequency of a Series Circuit\n\n"
        "Use R = 10 kΩ.\n\n### Analysis\n\n1. Plot VR against f.\n\n"
        "## Part B: The Q Factor\n\nReplace R with 12 kΩ and 8 kΩ.\n\n### Analysis\n\n"
        "1. Plot VR against f for each R and determine Q.\n",
    )
    manual = read_manual(tmp_path, ["lab manual.md"])

    def placed(settings: tuple[str, str]) -> dict[int, str]:
        wb = openpyxl.Workbook()
        ws = wb.active
        ws.append(["R", "f (kHz)", "VR (V)"])
        for r in settings:
            for f in range(1, 7):
                ws.append([r, f, round(2 + 1.3 * f - 0.1 * f * f, 3)])
        wb.save(str(tmp_path / "resonance.xlsx"))
        items = collect_data(tmp_path, ["resonance.xlsx"]).items
        assert len(items) == 1
        return place(items, manual)

    assert placed(("12kΩ", "8kΩ")) == {0: "Part B: The Q Factor"}
    assert placed(("run 1", "run 2")) == {}  # control: the headers alone tell no part
