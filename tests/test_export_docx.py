"""Export to Word (.docx) through pandoc: headings, tables, figures, equations and
references kept, in the report's language; refusals and atomic writes (issue 24).

Each document is opened with python-docx (and its XML read for what python-docx does
not model: Word equations are OMML, <m:oMath>)."""

from __future__ import annotations

import os
import shutil
import stat
import zipfile
from pathlib import Path

import docx
import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QFileDialog, QMessageBox

from labwright.cli import main
from labwright.core.report import word
from labwright.core.report.export import ExportError, export_report
from labwright.core.report.review import included_figures, save_edit
from labwright.gui import exporting

needs_pandoc = pytest.mark.skipif(word.find_pandoc() is None, reason="no pandoc")
EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "pendulum"

BIB = """@book{knuth,
  title = {The TeXbook},
  author = {Knuth, Donald E.},
  year = {1984},
  publisher = {Addison-Wesley}
}
"""


def edit_with_equation_and_citation(run_dir: Path, theory: str = "\\section{Theory}") -> None:
    """A person's edit, as in the review pane: a displayed equation and a citation."""
    tex = (run_dir / "report.tex").read_text(encoding="utf-8")
    assert theory in tex
    tex = tex.replace(
        theory,
        theory + "\nThe period follows from~\\cite{knuth}:\n"
        "\\begin{equation}\n  T = 2\\pi\\sqrt{\\frac{L}{g}}\\label{eq:period}\n\\end{equation}\n",
        1,
    )
    tex = tex.replace(
        "\\end{document}", "\\bibliographystyle{unsrt}\n\\bibliography{refs}\n\\end{document}"
    )
    save_edit(run_dir, tex)
    (run_dir / "refs.bib").write_text(BIB, encoding="utf-8")


def offline(folder: Path, out: Path, *extra: str) -> Path:
    assert main(["run", str(folder), "--offline", "--no-compile", "--out", str(out), *extra]) == 10
    return out


def document_xml(path: Path) -> str:
    with zipfile.ZipFile(path) as z:
        return z.read("word/document.xml").decode("utf-8")


def image_parts(path: Path) -> list[bytes]:
    """The images the document holds (word/media/...), one part each."""
    d = docx.Document(str(path))
    return [rel.target_part.blob for rel in d.part.rels.values() if rel.reltype.endswith("/image")]


def headings(d) -> list[str]:
    return [p.text for p in d.paragraphs if p.style.name.startswith("Heading")]


def figure_pngs(run_dir: Path) -> list[bytes]:
    tex = (run_dir / "report.tex").read_text(encoding="utf-8")
    names = dict.fromkeys(Path(t).with_suffix(".png").name for t in included_figures(tex))
    return [(run_dir / "figures" / name).read_bytes() for name in names]


@needs_pandoc
def test_the_pendulum_report_in_word_keeps_its_structure(offline_run, tmp_path):
    edit_with_equation_and_citation(offline_run)
    out = export_report(offline_run, tmp_path / "report.docx", as_docx=True)
    assert out == tmp_path / "report.docx"
    d = docx.Document(str(out))
    assert d.paragraphs[0].text == "Lab Report: pendulum"  # \title, as Word's Title
    for heading in ("Introduction", "Theory", "Results", "Conclusion", "Requirements to check"):
        assert heading in headings(d)
    (table,) = d.tables  # the data table, as a Word table
    assert [c.text for c in table.rows[0].cells][2:] == [
        "t10_run1 (s)",
        "t10_run2 (s)",
        "t10_run3 (s)",
    ]
    assert [r.cells[0].text for r in table.rows[1:4]] == ["2", "3", "4"]
    assert "<m:t>0.200</m:t>" in table.rows[1].cells[1]._tc.xml  # $0.200$: a Word equation
    # the figure: its PNG (the PDF's twin) embedded, one image part per figure
    assert image_parts(out) == figure_pngs(offline_run) and len(image_parts(out)) == 1
    xml = document_xml(out)
    assert "<m:oMathPara>" in xml and "<m:t>π</m:t>" in xml  # the displayed equation
    body = "\n".join(p.text for p in d.paragraphs)
    assert "The period follows from\xa0(Knuth 1984)" in body  # citeproc's; ~ is a tie
    refs = [p.text for p in d.paragraphs if p.style.name == "Bibliography"]
    assert refs == ["Knuth, Donald E. 1984. The TeXbook. Addison-Wesley."]
    assert "1970" not in body  # \today is today, not pandoc's sandbox clock
    assert stat.S_IMODE(out.stat().st_mode) == 0o666 & ~_umask()  # a document, like any saved


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


@needs_pandoc
def test_the_projectile_motion_report_in_word(projectile, tmp_path):
    run = offline(projectile, tmp_path / "run")
    edit_with_equation_and_citation(run)
    out = export_report(run, tmp_path / "projectile.docx", as_docx=True)
    d = docx.Document(str(out))
    tex = (run / "report.tex").read_text(encoding="utf-8")
    assert len(d.tables) == tex.count("\\begin{tabular}")
    assert "Results" in headings(d) and "Analysis" in headings(d)
    pngs = figure_pngs(run)
    assert len(pngs) >= 5 and image_parts(out) == pngs  # every figure, in the report's order
    assert d.tables[0].rows[0].cells[0].text in ("line", "row")
    xml = document_xml(out)
    assert "<m:oMathPara>" in xml
    assert [p.text for p in d.paragraphs if p.style.name == "Bibliography"] == [
        "Knuth, Donald E. 1984. The TeXbook. Addison-Wesley."
    ]


@needs_pandoc
def test_a_chinese_report_in_word_keeps_its_text_and_cjk_fonts(tmp_path):
    folder = tmp_path / "pendulum"
    shutil.copytree(EXAMPLE, folder)
    run = offline(folder, tmp_path / "run", "--template", "lab-zh")
    edit_with_equation_and_citation(run, "\\section{实验原理}")
    out = export_report(run, tmp_path / "报告.docx", as_docx=True)
    d = docx.Document(str(out))
    assert "实验目的" in headings(d) and "实验原理" in headings(d)
    body = "\n".join(p.text for p in d.paragraphs)
    assert "本文是未使用语言模型" in body and "待补充" in body
    assert "年" in d.paragraphs[2].text and "月" in d.paragraphs[2].text  # \today, in Chinese
    # East Asian text is marked Chinese, so Word takes the theme's Simplified Chinese face
    with zipfile.ZipFile(out) as z:
        styles = z.read("word/styles.xml").decode("utf-8")
        theme = z.read("word/theme/theme1.xml").decode("utf-8")
    assert 'w:eastAsia="zh-CN"' in styles
    assert 'w:eastAsiaTheme="minorEastAsia"' in styles and 'script="Hans"' in theme
    assert len(image_parts(out)) == len(figure_pngs(run)) >= 1
    assert "<m:oMathPara>" in document_xml(out)


@needs_pandoc
def test_cli_export_docx(offline_run, tmp_path, capsys):
    dest = tmp_path / "out.docx"
    assert main(["export", str(offline_run), str(dest), "--docx"]) == 0
    out, err = capsys.readouterr()
    assert out.strip() == str(dest) and "note:" in err  # the offline draft's notes
    assert "Introduction" in headings(docx.Document(str(dest)))
    with pytest.raises(SystemExit) as usage:
        main(["export", str(offline_run), str(tmp_path / "x"), "--zip", "--docx"])
    assert usage.value.code == 2


def test_word_export_refusals_write_nothing(offline_run, tmp_path):
    folder = Path(
        __import__("json").loads((offline_run / "run.json").read_text())["config"]["folder"]
    )
    with pytest.raises(ExportError) as inside:
        export_report(offline_run, folder / "report.docx", as_docx=True)
    assert inside.value.code == "in_material" and not (folder / "report.docx").exists()
    with pytest.raises(ExportError) as in_run:
        export_report(offline_run, offline_run / "figures" / "report.docx", as_docx=True)
    assert in_run.value.code == "in_run"
    (tmp_path / "a-folder.docx").mkdir()
    with pytest.raises(ExportError) as is_folder:
        export_report(offline_run, tmp_path / "a-folder.docx", as_docx=True)
    assert is_folder.value.code == "docx_is_folder"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a-folder.docx", "run"]


def _fake_pandoc(tmp_path: Path, body: str) -> word.Pandoc:
    script = tmp_path / "fake-pandoc"
    script.write_text(f"#!/bin/sh\n{body}\n", encoding="utf-8")
    script.chmod(0o755)
    return word.Pandoc(str(script), (3, 1))


@pytest.mark.parametrize(
    ("body", "code"),
    [
        ("echo 'Error at line 3: unexpected \\\\end' >&2; exit 64", "pandoc_failed"),
        ("exec sleep 30", "pandoc_timeout"),
    ],
    ids=["fails", "hangs"],
)
def test_a_failing_pandoc_leaves_the_old_document_untouched(
    body, code, offline_run, tmp_path, monkeypatch
):
    monkeypatch.setattr(word, "find_pandoc", lambda: _fake_pandoc(tmp_path, body))
    monkeypatch.setattr(word, "TIMEOUT_S", 1)
    dest = tmp_path / "out" / "report.docx"
    dest.parent.mkdir()
    dest.write_bytes(b"the old document")
    with pytest.raises(ExportError) as refused:
        export_report(offline_run, dest, as_docx=True)
    assert refused.value.code == code
    assert code != "pandoc_failed" or "unexpected \\end" in str(refused.value)
    assert dest.read_bytes() == b"the old document"
    assert [p.name for p in dest.parent.iterdir()] == ["report.docx"]  # no temp file left


def test_without_pandoc_the_export_says_how_to_get_it(offline_run, tmp_path, monkeypatch):
    monkeypatch.setattr(word, "find_pandoc", lambda: None)
    with pytest.raises(ExportError) as refused:
        export_report(offline_run, tmp_path / "r.docx", as_docx=True)
    assert refused.value.code == "no_pandoc" and "pypandoc-binary" in str(refused.value)
    assert not (tmp_path / "r.docx").exists()


def test_a_system_pandoc_is_used_only_from_2_15_on(tmp_path, monkeypatch):
    """No wheel: the pandoc on PATH, if it has --sandbox (2.15)."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    fake = bin_dir / "pandoc"
    monkeypatch.setattr(word, "_wheel_pandoc", lambda: None)
    monkeypatch.setenv("PATH", str(bin_dir))
    try:
        for said, found in (("pandoc 2.14.2", None), ("pandoc 2.17.1.1", (2, 17, 1, 1))):
            fake.write_text(f"#!/bin/sh\necho '{said}'\necho 'Features: +server'\n")
            fake.chmod(0o755)
            word.find_pandoc.cache_clear()
            got = word.find_pandoc()
            assert (got.version if got else None) == found
    finally:
        word.find_pandoc.cache_clear()


@needs_pandoc
def test_file_export_with_the_word_filter_writes_a_docx(
    qtbot, window_for, offline_run, tmp_path, monkeypatch
):
    asked: list[str] = []

    def save(parent, caption, start, filters, *args, **kwargs):
        assert exporting.docx_filter() in filters.split(";;")
        return str(tmp_path / "pendulum-report"), exporting.docx_filter()

    monkeypatch.setattr(QFileDialog, "getSaveFileName", save)
    monkeypatch.setattr(
        QMessageBox,
        "question",
        lambda p, t, text, *a, **k: asked.append(text) or QMessageBox.StandardButton.Yes,
    )
    w = window_for()
    w.open_run(offline_run)
    with qtbot.waitSignal(w.review.exported, timeout=60_000) as done:
        qtbot.mouseClick(w.review.export_button, Qt.MouseButton.LeftButton)
    out = tmp_path / "pendulum-report.docx"  # the filter's suffix was added
    assert done.args == [out] and asked
    assert "Results" in headings(docx.Document(str(out)))
    assert w.notice.isVisible() and "pendulum-report.docx" in w.notice.text()
