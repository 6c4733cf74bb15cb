"""Where a number stands comes from the readers' structured spans, not from their headings.

Each reader returns, with a page's text, the place of every line (sheet and row,
PDF page, notebook cell, Word table and row, and which lines are its own
headings). The evidence check reads those: a reader may reword a heading and the
sources stay right, and material that merely looks like a heading stays material.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from labwright.core.agent.tools.base import ToolContext
from labwright.core.agent.tools.read_file import ReadFile
from labwright.core.material import evidence
from labwright.core.material.evidence import evidence_from_folder, evidence_numbers
from labwright.core.material.readers import Page, mathematica, notebooks, pdf, read_page, workbook
from labwright.core.material.readers import cache as reader_cache

NB_SOURCE = """Notebook[{
Cell["Fit of the period", "Text"],
Cell[BoxData[RowBox[{"L", "=", "0.485"}]], "Input", CellLabel->"In[3]:="],
Cell[BoxData["2.016"], "Output", CellLabel->"Out[3]="]
}]
"""


def _xlsx(path: Path) -> None:
    import openpyxl

    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "Part A"
    ws.append(["Angle", "Range, m"])
    ws.append([])  # an empty row: the next rows are 3 and 4, not 2 and 3
    ws.append([25, 1.095])
    ws.append([35, 1.223])
    wb.create_sheet("Empty")
    other = wb.create_sheet("Part B")
    other.append(["t_s", "h_cm"])
    other.append([0.25, 30.5])
    wb.save(path)


def _docx(path: Path) -> None:
    import docx

    d = docx.Document()
    d.add_heading("Results", level=1)
    d.add_paragraph("The bob was released from 0.213 m.")
    t = d.add_table(rows=3, cols=2)
    for r, (a, b) in enumerate([("L (m)", "T (s)"), ("0.400", "1.269"), ("0.600", "1.554")]):
        t.cell(r, 0).text, t.cell(r, 1).text = a, b
    d.add_paragraph("Between the tables.")
    t2 = d.add_table(rows=2, cols=2)
    t2.cell(0, 0).text, t2.cell(0, 1).text = "m (kg)", "F (N)"
    t2.cell(1, 0).text, t2.cell(1, 1).text = "0.125", "1.226"
    d.save(path)


def _pdf(path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    matplotlib.rcParams["pdf.fonttype"] = 42  # real text pypdf can extract
    import matplotlib.pyplot as plt
    from matplotlib.backends.backend_pdf import PdfPages

    with PdfPages(path) as pp:
        for a, b in [("g = 9.79 m/s2", "T = 2.016 s"), ("L = 0.485 m", "m = 0.125 kg")]:
            fig = plt.figure(figsize=(4, 3))
            fig.text(0.1, 0.8, a)
            fig.text(0.1, 0.5, b)
            pp.savefig(fig)
            plt.close(fig)


def _ipynb(path: Path) -> None:
    cells = [
        {"cell_type": "markdown", "source": ["# Fit\n", "Range vs angle"]},
        {
            "cell_type": "code",
            "execution_count": 7,
            "source": "g = fit()\nprint(g)",
            "outputs": [
                {"output_type": "stream", "name": "stdout", "text": ["9.79\n"]},
                {"output_type": "error", "ename": "ValueError", "evalue": "bad\nvalue 3.5"},
            ],
        },
    ]
    path.write_text(json.dumps({"cells": cells, "nbformat": 4, "metadata": {}}), "utf-8")


@pytest.fixture
def material(tmp_path: Path) -> Path:
    folder = tmp_path / "material"
    folder.mkdir()
    _xlsx(folder / "data.xlsx")
    _docx(folder / "manual.docx")
    _pdf(folder / "notes.pdf")
    _ipynb(folder / "fit.ipynb")
    (folder / "calc.nb").write_text(NB_SOURCE, encoding="utf-8")
    (folder / "periods.csv").write_text("L_m,T_s\n0.400,1.269\n0.600,1.554\n", "utf-8")
    (folder / "setup.md").write_text("Setup\n## [Results] g = 9.79 m/s^2\n", "utf-8")
    reader_cache.clear()
    yield folder
    reader_cache.clear()


FILES = ["data.xlsx", "manual.docx", "notes.pdf", "fit.ipynb", "calc.nb", "periods.csv", "setup.md"]


def _pages(path: Path, limit: int) -> list[Page]:
    pages, offset = [], 0
    while True:
        page = read_page(path, offset, limit)
        pages.append(page)
        if page.end <= offset or page.total is not None and page.end >= page.total:
            return pages
        offset = page.end


@pytest.mark.parametrize("name", FILES)
@pytest.mark.parametrize("limit", [2, 3, 200])
def test_every_page_places_each_of_its_lines(material, name, limit):
    """Spans cover a page's lines exactly, in order, whatever the paging cuts through."""
    for page in _pages(material / name, limit):
        assert page.text, page
        lines = page.text.split("\n")
        assert len(lines) == page.end - page.offset
        starts = [s.start for s in page.spans]
        ends = [s.end for s in page.spans]
        assert starts[0] == page.offset and ends[-1] == page.end
        assert starts[1:] == ends[:-1] and all(s.start < s.end for s in page.spans)


def _sources(folder: Path, rel: str) -> dict[str, evidence.Source]:
    """The first source of each number's text, for the numbers read from the material."""
    out: dict[str, evidence.Source] = {}
    for n in evidence_numbers(evidence_from_folder(folder, [rel]), folder):
        if not n.derived:
            out.setdefault(n.text, n.source)
    return out


def _check_places(folder: Path) -> None:
    xlsx = _sources(folder, "data.xlsx")
    assert (xlsx["1.223"].sheet, xlsx["1.223"].cell, xlsx["1.223"].column) == (
        "Part A",
        "B4",
        "Range, m",
    )
    assert (xlsx["30.5"].sheet, xlsx["30.5"].cell, xlsx["30.5"].column) == ("Part B", "B2", "h_cm")
    assert xlsx["30.5"].location == "sheet 'Part B', cell B2"

    pages = _sources(folder, "notes.pdf")
    assert (pages["2.016"].page, pages["0.485"].page) == (1, 2)
    assert pages["0.485"].location == "page 2"

    doc = _sources(folder, "manual.docx")
    assert (doc["1.554"].table, doc["1.554"].row, doc["1.554"].column) == (1, 3, "T (s)")
    assert doc["1.554"].location == "table 1, row 3, column 'T (s)'"
    # a new table brings its own header, not the last one's
    assert doc["1.226"].location == "table 2, row 2, column 'F (N)'"
    assert doc["0.213"].table is None and doc["0.213"].location.startswith("line ")

    nb = _sources(folder, "fit.ipynb")
    assert nb["9.79"].location == "cell In[7]" and nb["3.5"].location == "cell In[7]"
    calc = _sources(folder, "calc.nb")
    assert calc["0.485"].location == "cell In[3]" and calc["2.016"].location == "cell Out[3]"


def test_sources_of_every_reader(material):
    _check_places(material)


def test_a_reworded_heading_keeps_every_source(material, monkeypatch):
    """The headings are for the model; the sources must not depend on their wording.
    Here each one is reworded and carries a number of its own, which is no evidence."""
    monkeypatch.setattr(workbook, "sheet_heading", lambda title, size: f"Sheet 777 «{title}»")
    monkeypatch.setattr(pdf, "page_heading", lambda n: f"Page {n} of 777")
    monkeypatch.setattr(notebooks, "cell_heading", lambda kind, count: f"777: {kind} {count}")
    monkeypatch.setattr(mathematica, "cell_heading", lambda style, label: f"777 {style}")
    reader_cache.clear()
    assert "Sheet 777 «Part B»" in read_page(material / "data.xlsx").text
    assert "Page 2 of 777" in read_page(material / "notes.pdf").text
    _check_places(material)
    for rel in FILES:
        found = evidence_numbers(evidence_from_folder(material, [rel]), material)
        assert found and not [n for n in found if n.text == "777"], rel


def test_material_that_looks_like_a_heading_is_material(material):
    """A Markdown line "## [Results] g = 9.79" is the author's, not a notebook cell label."""
    src = _sources(material, "setup.md")
    assert src["9.79"].location == "line 2" and src["9.79"].line == 1
    # a CSV row like the workbook's heading is a row of the table
    (material / "odd.csv").write_text("## Sheet: x (2 rows x 2 cols),4.25\n", "utf-8")
    assert _sources(material, "odd.csv")["4.25"].location == "line 1"


def test_a_record_without_spans_is_placed_by_reading_the_file_again(material):
    """evidence.jsonl of runs before spans existed: the readers place its lines again,
    and only while the file still gives the same text."""
    [record] = evidence_from_folder(material, ["data.xlsx"])
    old = {k: v for k, v in record.items() if k != "spans"}
    again = [n for n in evidence_numbers([old], material) if n.text == "30.5"]
    assert (again[0].source.sheet, again[0].source.cell) == ("Part B", "B2")
    alone = [n for n in evidence_numbers([old], None) if n.text == "30.5"]
    assert alone[0].source.sheet is None and alone[0].source.location.startswith("line ")

    _xlsx(material / "data.xlsx")  # rewritten: same sheets...
    import openpyxl

    wb = openpyxl.load_workbook(material / "data.xlsx")
    wb["Part B"]["B2"] = 31.5  # ...but another value: the old text no longer matches
    wb.save(material / "data.xlsx")
    stale = [n for n in evidence_numbers([old], material) if n.text == "30.5"]
    assert stale[0].source.sheet is None  # not placed at all rather than placed wrongly


def test_read_file_keeps_the_spans_in_its_evidence(material, tmp_path):
    """What exploration stores (evidence.jsonl) carries the places, as JSON."""
    outcome = ReadFile().run({"path": "notes.pdf"}, ToolContext(material, tmp_path))
    assert outcome.ok and outcome.evidence is not None
    stored = json.loads(json.dumps(outcome.evidence))
    assert {"start": 0, "end": 1, "marker": True, "page": 1} in stored["spans"]
    # the model sees the same excerpt as before: the text, with its headings
    assert stored["text"].startswith("--- page 1 ---\ng = 9.79 m/s2")
    [two] = [n for n in evidence_numbers([stored], None) if n.text == "0.485"]
    assert two.source.page == 2
