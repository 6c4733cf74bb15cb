"""Readers bounded in time and memory: huge sheets, shared-string and zip bombs, one endless line.

The hostile files are built cheaply by streaming their XML into a zip, so a
2.3 MB workbook holds 15 M rows and a 10 KB one repeats a 9 MB string in
thousands of cells (openpyxl refuses single strings above 10 MB).
"""

from __future__ import annotations

import threading
import time
import tracemalloc
import zipfile
from pathlib import Path

import pytest

from labwright.core.agent.tools import ToolContext
from labwright.core.agent.tools.read_file import ReadFile
from labwright.core.material.readers import ReadCancelled, ReadError, cache, read_page
from labwright.core.material.readers import workbook as workbook_mod
from labwright.core.material.tables import extract_tables

_NS = "http://schemas.openxmlformats.org"
_CT = (
    '<?xml version="1.0" encoding="UTF-8"?>'
    f'<Types xmlns="{_NS}/package/2006/content-types">'
    '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>'
    '<Default Extension="xml" ContentType="application/xml"/>'
    '<Override PartName="/xl/workbook.xml" ContentType="application/'
    'vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/>'
    '<Override PartName="/xl/worksheets/sheet1.xml" ContentType="application/'
    'vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/>'
    '<Override PartName="/xl/sharedStrings.xml" ContentType="application/'
    'vnd.openxmlformats-officedocument.spreadsheetml.sharedStrings+xml"/>'
    "</Types>"
)
_RELS = (
    f'<Relationships xmlns="{_NS}/package/2006/relationships">'
    f'<Relationship Id="rId1" Type="{_NS}/officeDocument/2006/relationships/officeDocument" '
    'Target="xl/workbook.xml"/></Relationships>'
)
_WB = (
    f'<workbook xmlns="{_NS}/spreadsheetml/2006/main" '
    f'xmlns:r="{_NS}/officeDocument/2006/relationships">'
    '<sheets><sheet name="Data" sheetId="1" r:id="rId1"/></sheets></workbook>'
)
_WB_RELS = (
    f'<Relationships xmlns="{_NS}/package/2006/relationships">'
    f'<Relationship Id="rId1" Type="{_NS}/officeDocument/2006/relationships/worksheet" '
    'Target="worksheets/sheet1.xml"/>'
    f'<Relationship Id="rId2" Type="{_NS}/officeDocument/2006/relationships/sharedStrings" '
    'Target="sharedStrings.xml"/></Relationships>'
)


def make_xlsx(
    path: Path, rows: int, row_xml: bytes, *, cols: int = 1, shared: int = 1, block: int = 10_000
) -> Path:
    """A workbook of `rows` copies of `row_xml`, its one shared string `shared` characters long."""
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED, compresslevel=1) as z:
        z.writestr("[Content_Types].xml", _CT)
        z.writestr("_rels/.rels", _RELS)
        z.writestr("xl/workbook.xml", _WB)
        z.writestr("xl/_rels/workbook.xml.rels", _WB_RELS)
        with z.open("xl/sharedStrings.xml", "w", force_zip64=True) as f:
            f.write(f'<sst xmlns="{_NS}/spreadsheetml/2006/main"><si><t>'.encode())
            f.write(b"A" * shared)
            f.write(b"</t></si></sst>")
        with z.open("xl/worksheets/sheet1.xml", "w", force_zip64=True) as f:
            col = "ABCDEFGHIJ"[cols - 1]
            f.write(
                f'<worksheet xmlns="{_NS}/spreadsheetml/2006/main">'
                f'<dimension ref="A1:{col}{rows}"/><sheetData>'.encode()
            )
            n = min(rows, block)
            chunk = row_xml * n
            for _ in range(rows // n):
                f.write(chunk)
            f.write(b"</sheetData></worksheet>")
    return path


ROWS_15M = 15_000_000


@pytest.fixture(scope="module")
def huge_xlsx(tmp_path_factory) -> Path:
    """15 M one-number rows in a ~2.3 MB file."""
    path = tmp_path_factory.mktemp("huge") / "logger.xlsx"
    return make_xlsx(path, ROWS_15M, b"<row><c><v>7</v></c></row>", block=100_000)


@pytest.fixture(autouse=True)
def fresh_cache():
    cache.clear()  # each test must convert, not find a page another test left
    yield
    cache.clear()


class TestHugeSheet:
    def test_15m_rows_are_cut_at_the_row_cap_with_a_note(self, huge_xlsx):
        assert huge_xlsx.stat().st_size < 3 * 1024**2
        t0 = time.monotonic()
        page = read_page(huge_xlsx)
        elapsed = time.monotonic() - t0
        assert elapsed < 60, f"took {elapsed:.0f} s"  # a hang bound; minutes before the fix
        assert page.text.splitlines()[1:4] == ["7", "7", "7"]
        # Only what the cap allows was converted, and the model is told so.
        assert page.total == workbook_mod.MAX_LINES + 1  # the rows plus the sheet header
        assert "Reading stopped at the 100,000 rows limit" in page.note
        assert "of about 15,000,000" in page.note
        last = read_page(huge_xlsx, page.total - 1)
        assert last.text == "7" and "End of file" in last.note

    def test_time_budget_keeps_what_was_read(self, huge_xlsx):
        page = read_page(huge_xlsx, time_budget_s=0.3)
        assert page.total is not None and 1 < page.total < workbook_mod.MAX_LINES
        assert "time limit (0.3 s)" in page.note

    def test_cancel_reaches_a_stuck_read_within_2_s(self, huge_xlsx, monkeypatch):
        # Without the caps this read would run for minutes: make the caps huge to
        # prove that the cancel check, not a cap, ends it.
        monkeypatch.setattr(workbook_mod, "MAX_LINES", 10**9)
        monkeypatch.setattr(workbook_mod, "MAX_ROWS_SCANNED", 10**9)
        cancel = threading.Event()
        timer = threading.Timer(0.3, cancel.set)
        timer.start()
        t0 = time.monotonic()
        try:
            with pytest.raises(ReadCancelled):
                read_page(huge_xlsx, cancelled=cancel.is_set, time_budget_s=600)
        finally:
            timer.join()
        assert time.monotonic() - t0 < 2.3
        # Nothing half-read was cached: a later read converts again (and is cut by its budget).
        assert read_page(huge_xlsx, time_budget_s=0.2).total is not None

    def test_read_file_tool_passes_the_run_cancel_flag(self, huge_xlsx, tmp_path, monkeypatch):
        monkeypatch.setattr(workbook_mod, "MAX_LINES", 10**9)
        monkeypatch.setattr(workbook_mod, "MAX_ROWS_SCANNED", 10**9)
        cancel = threading.Event()
        ctx = ToolContext(huge_xlsx.parent, tmp_path, cancelled=cancel.is_set)
        timer = threading.Timer(0.3, cancel.set)
        timer.start()
        t0 = time.monotonic()
        try:
            outcome = ReadFile().run({"path": huge_xlsx.name}, ctx)
        finally:
            timer.join()
        assert time.monotonic() - t0 < 2.3
        assert not outcome.ok and "cancelled" in outcome.summary
        assert outcome.evidence is None and outcome.coverage is None

    def test_default_context_never_cancels(self, tmp_path):
        assert ToolContext(tmp_path, tmp_path).cancelled() is False


class TestSharedStringBomb:
    ROWS = 1000
    CELLS = b'<c t="s"><v>0</v></c>' * 3  # three cells per row, each the same 9 MB string

    @pytest.fixture
    def bomb(self, tmp_path) -> Path:
        path = tmp_path / "bomb.xlsx"
        make_xlsx(path, self.ROWS, b"<row>" + self.CELLS + b"</row>", cols=3, shared=9_000_000)
        assert path.stat().st_size < 64 * 1024
        return path

    def test_read_page_stays_within_a_small_memory_bound(self, bomb):
        # Before: every row joined three 9 MB copies (1.1 GB for 40 rows; ~27 GB here).
        tracemalloc.start()
        try:
            page = read_page(bomb)
            peak = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
        assert peak < 300 * 1024**2, f"peak {peak / 1024**2:.0f} MB"
        first = page.text.splitlines()[1].split("\t")
        assert len(first) == 3 and all(c.startswith("AAAA") for c in first)
        assert all(c.endswith("[cut: 9,000,000 characters]") for c in first)
        assert page.total == self.ROWS + 1
        assert "3,000 cells longer than 2,000 characters are cut" in page.note

    def test_extract_tables_stays_within_a_small_memory_bound(self, bomb):
        tracemalloc.start()
        try:
            extract_tables(bomb.parent, [bomb.name])
            peak = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
        assert peak < 300 * 1024**2, f"peak {peak / 1024**2:.0f} MB"

    def test_oversized_shared_strings_are_refused_not_inflated(self, tmp_path, monkeypatch):
        monkeypatch.setattr(workbook_mod, "MAX_SHARED_STRINGS_BYTES", 1024 * 1024)
        path = make_xlsx(
            tmp_path / "big-sst.xlsx", 10, b"<row><c t='s'><v>0</v></c></row>", shared=2 * 1024**2
        )
        with pytest.raises(ReadError, match="ask for a CSV export"):
            read_page(path)


class TestTextAndDocuments:
    def test_one_enormous_csv_line_is_cut_without_loading_it(self, tmp_path):
        path = tmp_path / "oneline.csv"
        with open(path, "wb") as f:
            f.write(b"a,b\n")
            for _ in range(96):  # 96 MB on one line, no newline
                f.write(b"1," * (512 * 1024))
        tracemalloc.start()
        try:
            first = read_page(path)
            long = read_page(path, 1)
            peak = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
        assert first.text == "a,b" and "Continue with offset=1" in first.note
        assert long.text == "1," * 3500 and long.truncated
        assert "very long" in long.note and "first 7,000 characters" in long.note
        assert peak < 48 * 1024**2, f"peak {peak / 1024**2:.0f} MB"

    def test_docx_decompression_bomb_is_refused_with_a_reason(self, tmp_path):
        path = tmp_path / "bomb.docx"
        with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED, compresslevel=1) as z:
            z.writestr("[Content_Types].xml", "<Types/>")
            with z.open("word/document.xml", "w", force_zip64=True) as f:
                f.write(b"<w:document><w:body><w:p><w:r><w:t>")
                chunk = b" " * (1024 * 1024)
                for _ in range(110):  # 110 MB of XML in a ~100 KB file
                    f.write(chunk)
                f.write(b"</w:t></w:r></w:p></w:body></w:document>")
        assert path.stat().st_size < 1024**2
        tracemalloc.start()
        try:
            with pytest.raises(ReadError, match="decompression bomb"):
                read_page(path)
            peak = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
        assert peak < 32 * 1024**2


class TestTimeBudgetNotes:
    def test_docx_past_its_budget_says_where_it_stopped(self, tmp_path):
        import docx

        path = tmp_path / "long.docx"
        d = docx.Document()
        for i in range(300):
            d.add_paragraph(f"paragraph {i}")
        d.save(str(path))
        page = read_page(path, time_budget_s=0)
        assert "Reading stopped at the time limit (0 s)" in page.note
        assert "no text" not in page.note  # not mistaken for an empty document
        cache.clear()  # a cut conversion is cached (pages stay consistent); start afresh
        assert "paragraph 299" in read_page(path, 0, 1000).text

    def test_pdf_past_its_budget_is_not_called_scanned(self, tmp_path):
        from pypdf import PdfWriter

        path = tmp_path / "blank.pdf"
        w = PdfWriter()
        for _ in range(3):
            w.add_blank_page(width=200, height=200)
        with open(path, "wb") as f:
            w.write(f)
        page = read_page(path, time_budget_s=0)
        assert "Reading stopped before page 1 (time limit, 0 s)" in page.note
        assert "scanned" not in page.note
