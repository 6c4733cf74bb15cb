"""A Chinese offline report is Chinese throughout: every fixed phrase of the skeleton (captions,
notes, the requirement list, provenance, table headers, the figure's caption) comes from the
zh word table; only the data (file names, headers, manual text) stays as written."""

from __future__ import annotations

import re
from pathlib import Path

from labwright.core.material.workspace import scan_folder
from labwright.core.report.offline import offline_report
from labwright.core.report.offline.language import _PROMPTS, _TEXT
from labwright.core.report.templates import load_template


def _chinese_folder(root: Path) -> Path:
    folder = root / "单摆实验"
    (folder / "数据").mkdir(parents=True)
    lengths = [20, 30, 40, 50, 60, 70, 80, 90]
    wide = ["摆长/cm,周期/s,周期²/s²,振幅/cm,温度/°C,质量/g,摆角/°,计数"]
    for i, length in enumerate(lengths):
        t = 0.2007 * length**0.5
        wide.append(
            f"{length},{t:.3f},{t * t:.3f},{2 + i % 3},{20 + i % 2},{50 + i},{5 + i},{3 + i}"
        )
    (folder / "数据" / "单摆.csv").write_text("\n".join(wide) + "\n", encoding="utf-8")
    # A line through the data: the figure gets a straight-line fit.
    fall = ["时间/s,位移/cm"] + [
        f"{t},{2.0 + 3.1 * t + (0.05 if t % 2 else -0.05):.2f}" for t in range(8)
    ]
    (folder / "数据" / "小车.csv").write_text("\n".join(fall) + "\n", encoding="utf-8")
    (folder / "讲义.md").write_text(
        "# 实验目的\n测量重力加速度。\n\n## 实验报告要求\n1. 给出数据表；\n2. 作 T²–L 图并拟合；\n"
        "3. 报告须在实验后一周内提交。\n",
        encoding="utf-8",
    )
    return folder


def _visible(tex: str) -> str:
    """What prints: no comments, no preamble, no commands or their label/file arguments."""
    body = tex.split("\\begin{document}", 1)[1]
    body = "\n".join(re.sub(r"(?<!\\)%.*", "", line) for line in body.splitlines())
    body = "\n".join(ln for ln in body.splitlines() if not ln.startswith("\\begin{tabular}"))
    body = re.sub(r"\\begin\{(?:table|figure)\}\[[^\]]*\]", " ", body)  # placement
    body = re.sub(r"\\(?:label|ref|includegraphics(?:\[[^\]]*\])?|begin|end)\{[^}]*\}", " ", body)
    body = re.sub(r"\\(?:hspace|si)\{[^}]*\}", " ", body)
    return re.sub(r"\\[A-Za-z]+", " ", body)


def test_chinese_report_has_no_english_fixed_phrase(tmp_path: Path) -> None:
    folder = _chinese_folder(tmp_path)
    template = load_template("lab-zh")
    report = offline_report(folder, scan_folder(folder), template, tmp_path / "run" / "figures")
    assert report.tables and report.figures  # a table split in parts, and a plot with a fit
    assert "（续）" in report.tex and "直线拟合" in report.tex
    visible = _visible(report.tex)

    # Every English phrase of the word tables, cut at their placeholders.
    english = [*_TEXT["en"].values(), *_PROMPTS["en"].values()]
    fragments = {
        piece.strip(" .:;,")
        for phrase in english
        for piece in re.split(r"\{[^}]*\}|\||\\\S+", phrase)
        if len(piece.strip(" .:;,")) >= 4
    }
    # Symbols both languages write alike ("R² =") are not English.
    fragments = {f for f in fragments if not any(f in zh for zh in _TEXT["zh"].values())}
    assert fragments
    leaked = sorted(f for f in fragments if f in visible)
    assert not leaked, leaked
    # And nothing else English: the data here are all Chinese, so no ASCII word remains
    # but the statistic's symbol n.
    words = set(re.findall(r"[A-Za-z]{2,}", visible)) - {"csv", "md"}  # file names
    assert not words, sorted(words)
    # The requirement list: its heading in Chinese, the boilerplate (submission) gone.
    assert "待核对的要求" in report.tex and "提交" not in report.tex
    assert "给出数据表" in report.tex


def test_the_figure_caption_and_title_follow_the_language(tmp_path: Path) -> None:
    folder = _chinese_folder(tmp_path)
    report = offline_report(
        folder, scan_folder(folder), load_template("lab-zh"), tmp_path / "run" / "figures"
    )
    caption = next(f.caption for f in report.figures if "小车" in f.caption)
    assert "的关系" in caption and "数据：小车.csv，第 2–9 行" in caption
    assert "against" not in caption and "lines" not in caption
    english = offline_report(
        folder, scan_folder(folder), load_template("lab-en"), tmp_path / "en" / "figures"
    )
    caption = next(f.caption for f in english.figures if "小车" in f.caption)
    assert "against" in caption and "小车.csv, lines 2–9" in caption


def test_chinese_report_compiles_with_its_units(tmp_path: Path) -> None:
    from test_offline import _compile, _pdf_text

    folder = _chinese_folder(tmp_path)
    run = tmp_path / "run"
    report = offline_report(folder, scan_folder(folder), load_template("lab-zh"), run / "figures")
    assert r"\si{\degreeCelsius}" in report.tex
    text = _pdf_text(_compile(run, report.tex)).replace(" ", "")
    assert "直线拟合" in text and "待核对的要求" in text and "°C" in text
