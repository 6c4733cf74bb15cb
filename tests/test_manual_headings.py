"""The manual's own headings (Word styles, PDF outline, font sizes), the manual chosen among
papers beside it, and requirements without course boilerplate (core/report/offline/manual.py,
core/material/readers/headings.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from labwright.core.material.readers.headings import document_headings
from labwright.core.report.offline import manual_headings, manual_requirements
from labwright.core.report.offline.manual import drop_boilerplate, is_boilerplate, junk_heading


def _docx(path: Path, paragraphs: list[tuple[str, str]]) -> None:
    import docx

    doc = docx.Document()
    for style, text in paragraphs:
        doc.add_paragraph(text, style=style)
    path.parent.mkdir(parents=True, exist_ok=True)
    doc.save(str(path))


def _outlined_pdf(path: Path, outline: list[tuple[str, list[str]]]) -> None:
    """A PDF whose only structure is its outline (bookmarks), written with pypdf."""
    from pypdf import PdfWriter

    writer = PdfWriter()
    for _ in outline:
        writer.add_blank_page(width=595, height=842)
    for page, (title, children) in enumerate(outline):
        parent = writer.add_outline_item(title=title, page_number=page)
        for child in children:
            writer.add_outline_item(title=child, page_number=page, parent=parent)
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("wb") as f:
        writer.write(f)


MANUAL = [
    ("Heading 1", "Department of Physics"),  # the cover page, before the title
    ("Title", "Experiment 7: Noise in an amplifier"),
    ("Heading 1", "Introduction"),
    ("Normal", "Every amplifier adds noise. This experiment measures how much."),
    ("Heading 2", "Motivation"),
    ("Normal", "The noise floor limits every measurement."),
    ("Heading 1", "Objectives"),
    ("List Bullet", "Measure the noise spectral density."),
    ("Heading 1", "Questions"),
    ("Normal", "What sets the bandwidth?"),
]

PAPER = [
    ("Title", "Quantum-limited measurements"),
    ("Normal", "Abstract. We report measurements of ... Keywords: noise; doi:10.1000/xyz"),
    ("Heading 1", "QUANTUM MEASUREMENTS"),
    ("Heading 1", "F EATURES"),
    ("Heading 2", "PSD V/"),
    ("Heading 1", "References"),
]


def test_docx_heading_styles_of_the_manual_not_of_the_paper_beside_it(tmp_path: Path) -> None:
    _docx(tmp_path / "Smith2019.docx", PAPER)
    _docx(tmp_path / "Lab 7 manual.docx", MANUAL)
    # The paper comes first in the folder's order; it is still not the manual.
    headings = manual_headings(tmp_path, ["Smith2019.docx", "Lab 7 manual.docx"])
    assert headings == ["Introduction", "Motivation", "Objectives", "Questions"]


def test_a_paper_alone_is_no_manual(tmp_path: Path) -> None:
    _docx(tmp_path / "Smith2019.docx", PAPER)
    assert manual_headings(tmp_path, ["Smith2019.docx"]) == []


def test_a_chinese_word_manual_and_a_style_based_on_a_heading(tmp_path: Path) -> None:
    import docx
    from docx.enum.style import WD_STYLE_TYPE

    doc = docx.Document()
    custom = doc.styles.add_style("Lab Section", WD_STYLE_TYPE.PARAGRAPH)
    custom.base_style = doc.styles["Heading 2"]
    doc.add_paragraph("实验目的", style="Heading 1")
    doc.add_paragraph("测量重力加速度。")
    doc.add_paragraph("实验原理", style="Lab Section")
    doc.add_paragraph("单摆的周期与摆长有关。")
    doc.save(str(tmp_path / "讲义.docx"))
    found = document_headings(tmp_path / "讲义.docx", "docx")
    assert found is not None and [(h.level, h.text) for h in found] == [
        (1, "实验目的"),
        (2, "实验原理"),
    ]
    assert manual_headings(tmp_path, ["讲义.docx"]) == ["实验目的", "实验原理"]


def test_pdf_outline_gives_the_headings_and_their_levels(tmp_path: Path) -> None:
    _outlined_pdf(
        tmp_path / "handout.pdf",
        [("Introduction", ["Motivation"]), ("Objectives", []), ("Questions", ["PS = LSD ×"])],
    )
    found = document_headings(tmp_path / "handout.pdf", "pdf")
    assert found is not None
    assert [(h.level, h.text, h.page) for h in found] == [
        (1, "Introduction", 1),
        (2, "Motivation", 1),
        (1, "Objectives", 2),
        (1, "Questions", 3),
        (2, "PS = LSD ×", 3),
    ]
    # A formula caught in an outline is still not a heading.
    assert manual_headings(tmp_path, ["handout.pdf"]) == [
        "Introduction",
        "Motivation",
        "Objectives",
        "Questions",
    ]


def test_outlined_paper_pdf_loses_to_the_manual(tmp_path: Path) -> None:
    _outlined_pdf(tmp_path / "reference paper.pdf", [("QUANTUM MEASUREMENTS", ["Features"])])
    _docx(tmp_path / "lab manual.docx", MANUAL)
    assert manual_headings(tmp_path, ["reference paper.pdf", "lab manual.docx"])[0] == (
        "Introduction"
    )


def test_real_pdf_headings_from_font_sizes(projectile: Path) -> None:
    """The guidelines PDF has no outline: its larger and bold lines are its headings, at
    the levels its Word twin's styles give, without the cover page (title, university)."""
    stem = projectile / "Manual/1GP2 Projectile Motion - Instructions and Assessment Guidelines"
    pdf = document_headings(stem.with_suffix(".pdf"), "pdf")
    word = document_headings(stem.with_suffix(".docx"), "docx")
    assert pdf is not None and word is not None
    assert [(h.level, h.text) for h in pdf] == [(h.level, h.text) for h in word[:5]]
    assert [h.text for h in pdf] == [
        "INSTRUCTIONS", "ASSESSMENT GUIDELINES", "LAB REPORT (50%)", "EXPERIMENT (30%)",
        "VIVA VOCE AND PRESENTATION (20%)",
    ]  # fmt: skip
    assert [h.page for h in pdf] == [1, 1, 2, 3, 3]


SHARED_MANUAL = Path(__file__).resolve().parents[2] / "shared/data/projectile-motion/Manual"


@pytest.mark.skipif(not SHARED_MANUAL.is_dir(), reason="../shared/data is not here")
def test_real_lab_manual_pdf_matches_its_word_twin() -> None:
    stem = SHARED_MANUAL / "1GP2 Projectile Motion - Lab Manual"
    pdf = document_headings(stem.with_suffix(".pdf"), "pdf")
    word = document_headings(stem.with_suffix(".docx"), "docx")
    assert pdf and word and [(h.level, h.text) for h in pdf] == [(h.level, h.text) for h in word]
    assert pdf[0].text == "OBJECTIVES" and pdf[0].page == 1


@pytest.mark.parametrize(
    ("text", "junk"),
    [
        ("QUANTUM MEASUREMENTS", False),
        ("Part A: Gravitational Acceleration of the Earth", False),
        ("A SIMPLE PENDULUM", False),
        ("Part B", False),
        ("实验目的", False),
        ("2.1 Theory", False),
        ("F EATURES", True),
        ("Q U A N T U M", True),
        ("PSD V/", True),
        ("PS = LSD ×", True),
        ("ENBW V", True),
        ("𝑣0 cos 𝜙", True),
        ("3.14", True),
    ],
)
def test_formula_and_broken_spaced_lines_are_no_headings(text: str, junk: bool) -> None:
    assert junk_heading(text) is junk


@pytest.mark.parametrize(
    ("line", "boilerplate"),
    [
        ("Viva voce and presentation (20%)", True),
        ("Experiment (30%)", True),
        ("Marks will be allocated based on the amount of effort that you put in.", True),
        ("Submit your report through the e-learning portal.", True),
        ("Upload the file to https://forms.example.com/abc", True),
        ("The deadline for the lab report is one week after the session.", True),
        ("Late submission will be penalized.", True),
        ("报告须在实验后一周内提交。", True),
        ("a plot of T² against L with the fit;", False),
        ("the value of g with its uncertainty and the percentage discrepancy;", False),
        ("Graph of range versus initial speeds at a fixed angle of 45°", False),
        ("The discrepancy should be below 5% of the accepted value.", False),
        ("给出数据表；", False),
    ],
)
def test_course_boilerplate(line: str, boilerplate: bool) -> None:
    assert is_boilerplate(line) is boilerplate


def test_requirements_without_boilerplate(tmp_path: Path, projectile: Path) -> None:
    (tmp_path / "manual.md").write_text(
        "# Lab 3\n\n## The report must contain\n\n"
        "- a table of the measurements;\n"
        "- Viva voce and presentation (20%)\n"
        "- a plot of T² against L;\n"
        "- Submit via https://elearning.example.edu by Friday.\n",
        encoding="utf-8",
    )
    assert manual_requirements(tmp_path, ["manual.md"]) == [
        "a table of the measurements;",
        "a plot of T² against L;",
    ]
    real = manual_requirements(
        projectile, ["Manual/1GP2 Projectile Motion - Instructions and Assessment Guidelines.docx"]
    )
    assert real and real == drop_boilerplate(real)
    assert not any("deadline" in r.casefold() or "(20%)" in r for r in real)
    assert any(r.startswith("Graph of range versus angle") for r in real)
