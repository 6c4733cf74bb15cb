"""Readers behind read_file: formats, encodings, paging semantics, sniffing."""

from __future__ import annotations

import gzip
import io
import json
import os
import random
import re
import shutil
import tarfile
import zipfile
from pathlib import Path

import pytest

from labwright.core.material.readers import DEFAULT_LIMIT, Page, ReadError, describe_file, read_page
from labwright.core.material.readers import text as text_mod
from labwright.core.material.readers.workbook import format_float

DATA = Path(__file__).resolve().parent / "data" / "projectile-motion"  # tests/data/README.md
XLSX = DATA / "Data" / "Projectile motion.xlsx"
GUIDE_PDF = DATA / "Manual" / "1GP2 Projectile Motion - Instructions and Assessment Guidelines.pdf"
MANUAL_DOCX = DATA / "Manual" / "1GP2 Projectile Motion - Lab Manual.docx"
GUIDE_DOCX = (
    DATA / "Manual" / "1GP2 Projectile Motion - Instructions and Assessment Guidelines.docx"
)
NB_DIR = DATA / "Data"


def read_all(path: Path, **kw) -> tuple[list[str], list[Page]]:
    """Follow the pages from offset 0 to the end, as the model would."""
    lines: list[str] = []
    pages: list[Page] = []
    offset = 0
    for _ in range(10_000):
        page = read_page(path, offset, **kw)
        pages.append(page)
        if page.end == page.offset:
            break
        lines.extend(page.text.split("\n"))
        assert f"offset={page.end}" in page.note or "End of file" in page.note
        if "End of file" in page.note:
            break
        offset = page.end
    return lines, pages


# ------------------------------------------------------------------ real material


def test_real_xlsx_every_sheet_named_with_numbers():
    lines, pages = read_all(XLSX)
    text = "\n".join(lines)
    assert {p.kind for p in pages} == {"xlsx"}
    sheets = re.findall(r"^## Sheet: (.*) \((\d+) rows x (\d+) cols\)$", text, re.M)
    assert [s[0] for s in sheets] == [
        "Part A ",
        "Sheet2",
        "Part A (1)",
        "Part B",
        "Sheet1",
        "gradient",
    ]
    # Measured values and computed ones, printed as stored (no float noise, no None).
    assert "25\t0.4363323129985824\t0.017453292519943295\t0.485" in text
    assert "\t0.0801324\t12.479346681242543\t27.210465659964754" in text
    assert "None" not in text
    assert pages[0].total == len(lines)


def test_real_pdf_guidelines_pages_and_phrases():
    lines, pages = read_all(GUIDE_PDF)
    text = "\n".join(lines)
    assert pages[0].kind == "pdf" and pages[0].productive
    assert [ln for ln in lines if ln.startswith("--- page ")] == [
        f"--- page {n} ---" for n in range(1, 5)
    ]
    assert "you will find the instructions and assessment guidelines" in text
    assert "PDF with 4 pages" in pages[0].note


def test_real_docx_headings_lists_and_tables_in_order():
    lines, pages = read_all(MANUAL_DOCX)
    assert pages[0].kind == "docx"
    assert "# OBJECTIVES" in lines and "## Introduction" in lines
    assert "- To determine the projectile range as a function of inclination angle;" in lines
    assert lines.index("# OBJECTIVES") < lines.index("# THEORY") < lines.index("## Introduction")
    assert "[table]" in lines  # the manual's tables come out as rows
    guide = "\n".join(read_all(GUIDE_DOCX)[0])
    assert "# ASSESSMENT GUIDELINES" in guide
    assert "Lab report (50%)" in guide


def test_real_mathematica_notebooks_are_readable_text():
    notebooks = sorted(NB_DIR.rglob("*.nb"))
    assert len(notebooks) == 3
    for nb in notebooks:
        lines, pages = read_all(nb)
        text = "\n".join(lines)
        assert pages[0].kind == "mathematica"
        assert "RowBox[" not in text and "Box[" not in text, nb.name
        assert "\\[" not in text and "\\!" not in text, nb.name
        assert "ExpressionUUID" not in text and "NotebookFileOutline" not in text

    calc = "\n".join(
        read_all(NB_DIR / "Final Graph" / "Calculation of Percentage discrepancy.nb")[0]
    )
    assert "## [Input] In[16]:=" in calc
    assert "g1 = {8.55, 6.84, 9.40}" in calc
    assert "{12.844036697247704, 30.27522935779817, 4.179408766564731}" in calc  # an output
    assert "`" not in calc  # precision marks stripped from numbers

    fit = "\n".join(
        read_all(NB_DIR / "Final Graph" / "3. maximum range vs. v2sin2thetha - final.nb")[0]
    )
    assert "V1 = {{4.27, 0.485}, {5.19, 0.570}" in fit
    assert "fit1 = LinearModelFit[V1, x, x];" in fit
    assert "V_(0, 1): y = 0.08013241170122691 x + 0.1243061510193415" in fit  # fit result
    assert "V^2sin(2θ)" in fit
    assert "[graphics]" in fit


def test_empty_mathematica_notebook_is_not_productive():
    page = read_page(
        NB_DIR / "Mathematica_Sample_PM" / "maximum height of projection vs. 0.5(usinthetha)2.nb"
    )
    assert page.kind == "mathematica"
    assert not page.productive and page.text == ""


def test_describe_real_files():
    assert "6 sheets: Part A , Sheet2, Part A (1), Part B, Sheet1" in describe_file(XLSX)
    assert describe_file(GUIDE_PDF).startswith("PDF document, version 1.7, 4 pages")


# ------------------------------------------------------------------ encodings

CHINESE = [
    "时间(s),位移(m),速度(m/s)",
    "0.10,0.485,4.85",
    "0.20,0.970,4.85",
    "备注：抛体运动实验，重力加速度约为9.8",
]


@pytest.mark.parametrize(
    ("codec", "bom", "label"),
    [
        ("gbk", b"", "GB18030"),
        ("gb18030", b"", "GB18030"),
        ("utf-16-le", b"\xff\xfe", "UTF-16 LE"),
        ("utf-16-be", b"\xfe\xff", "UTF-16 BE"),
        ("utf-8", b"\xef\xbb\xbf", None),
        ("utf-8", b"", None),
    ],
)
def test_chinese_text_in_common_encodings(tmp_path, codec, bom, label):
    p = tmp_path / "数据.txt"
    p.write_bytes(bom + "\r\n".join(CHINESE).encode(codec) + "\r\n".encode(codec))
    page = read_page(p)
    assert page.text.split("\n") == CHINESE  # no BOM, no \r, no mojibake
    assert page.total == len(CHINESE) and page.end == len(CHINESE)
    if label:
        assert label in page.note
    else:
        assert "Encoding" not in page.note
    # Paging inside a multi-byte encoding lands on the right line.
    assert read_page(p, 3, 1).text == CHINESE[3]


def test_longer_gbk_file_is_not_mistaken_for_another_code_page(tmp_path):
    rows = [f"{i},温度{i}℃,压强{i * 1.5}千帕,备注：第{i}组测量" for i in range(300)]
    p = tmp_path / "measure.dat"
    p.write_bytes("\n".join(rows).encode("gbk"))
    lines, pages = read_all(p)
    assert lines == rows
    assert pages[0].kind == "csv"


@pytest.mark.parametrize(
    ("codec", "content"),
    [
        ("latin-1", "Größe;Länge;Übergang\n1;2;3\n"),
        ("cp1252", "Température mesurée à 25 °C; résultat déjà vérifié.\nÉlève: François\n"),
        ("cp1251", "Измерение скорости снаряда, угол бросания.\n"),
        ("shift_jis", "測定データ、温度と圧力の関係について。\nこれはテストです。\n"),
    ],
)
def test_other_code_pages_are_not_misread_as_gbk(tmp_path, codec, content):
    p = tmp_path / "notes.txt"
    p.write_bytes((content * 10).encode(codec))
    page = read_page(p, 0, 2)
    assert page.text.split("\n") == (content * 2).split("\n")[:2]
    assert page.text.split("\n")[0] == content.split("\n")[0]
    assert "GB18030" not in page.note


def test_crlf_and_cr_line_endings(tmp_path):
    p = tmp_path / "mixed.txt"
    p.write_bytes(b"a\r\nb\rc\nd\r\r\ne")
    page = read_page(p)
    assert page.text.split("\n") == ["a", "b", "c", "d", "", "e"]
    assert page.total == 6
    assert read_page(p, 4, 2).text == "\ne"


@pytest.mark.parametrize("codec", ["utf-8", "utf-16-le", "utf-16-be"])
def test_index_matches_reference_split_across_chunk_boundaries(tmp_path, monkeypatch, codec):
    """Tiny chunks and strides force every boundary case (\\r\\n split, checkpoint edges)."""
    monkeypatch.setattr(text_mod, "CHUNK", 8)
    monkeypatch.setattr(text_mod, "READ_BLOCK", 6)
    monkeypatch.setattr(text_mod, "STRIDE", 3)
    rng = random.Random(7)
    parts = []
    for i in range(120):
        parts.append(f"r{i}" + "é" * rng.randrange(0, 4) + rng.choice(["\n", "\r\n", "\r", "\n\n"]))
    content = "".join(parts)
    bom = {"utf-8": b"", "utf-16-le": b"\xff\xfe", "utf-16-be": b"\xfe\xff"}[codec]
    p = tmp_path / f"chunks-{codec}.txt"
    p.write_bytes(bom + content.encode(codec))
    expected = re.split(r"\r\n|\r|\n", content)[:-1]  # content ends with a terminator
    for offset in range(0, len(expected), 7):
        page = read_page(p, offset, 5)
        assert page.text.split("\n") == expected[offset : offset + 5], offset
        assert page.total == len(expected)


# ------------------------------------------------------------------ paging semantics


def test_paging_offsets_limits_and_notes(tmp_path):
    p = tmp_path / "log.txt"
    p.write_text("".join(f"line {i}\n" for i in range(500)), encoding="utf-8")
    first = read_page(p)
    assert (first.offset, first.end, first.total) == (0, DEFAULT_LIMIT, 500)
    assert first.kind == "text" and first.productive and not first.truncated
    assert "Continue with offset=200" in first.note

    mid = read_page(p, 120, 30)
    assert (mid.offset, mid.end) == (120, 150)
    assert mid.text.split("\n") == [f"line {i}" for i in range(120, 150)]
    assert "Lines 120-149 of 500" in mid.note and "offset=150" in mid.note

    last = read_page(p, 450, 100)
    assert last.end == 500 and "End of file" in last.note
    assert last.text.endswith("line 499")

    past = read_page(p, 500)
    assert not past.productive and past.text == "" and past.end == past.offset == 500
    assert "500 lines" in past.note


def test_pages_reassemble_the_file_exactly(tmp_path):
    rows = [f"{i}," + "x" * (i % 97) for i in range(3000)]
    p = tmp_path / "rows.csv"
    p.write_text("\n".join(rows) + "\n", encoding="utf-8")
    lines, pages = read_all(p)
    assert lines == rows
    assert all(p.kind == "csv" for p in pages)
    assert all(len(pg.text) <= 7000 for pg in pages)


def test_cut_at_max_chars_on_a_line_boundary(tmp_path):
    p = tmp_path / "wide.txt"
    rows = [f"{i:03d}" + "y" * 97 for i in range(200)]  # 100 chars per line
    p.write_text("\n".join(rows), encoding="utf-8")
    page = read_page(p)
    assert page.truncated
    assert len(page.text) <= 7000
    assert page.end == 69  # 69 lines of 100 chars + 68 newlines fit in 7,000
    assert page.text.split("\n") == rows[:69]
    assert "cut at 7,000 characters" in page.note and "offset=69" in page.note
    nxt = read_page(p, page.end)
    assert nxt.text.split("\n")[0] == rows[69]


def test_single_giant_line_is_cut_mid_line(tmp_path):
    p = tmp_path / "one-line.json"
    p.write_text("[" + "1," * 50_000 + "1]\nsecond line\n", encoding="utf-8")
    page = read_page(p)
    assert page.truncated and len(page.text) == 7000
    assert (page.offset, page.end) == (0, 1)
    assert "very long" in page.note and "offset=1" in page.note
    assert read_page(p, 1).text == "second line"


def test_structured_documents_page_the_same_way(tmp_path):
    p = tmp_path / "nb.ipynb"
    cells = [{"cell_type": "code", "source": [f"x{i} = {i}"], "outputs": []} for i in range(50)]
    p.write_text(json.dumps({"cells": cells, "nbformat": 4, "metadata": {}}), encoding="utf-8")
    a = read_page(p, 0, 10)
    b = read_page(p, a.end, 10)
    assert (a.end, b.offset, b.end, a.total) == (10, 10, 20, 100)
    assert a.text.split("\n")[:2] == ["## [code]", "x0 = 0"]
    assert not read_page(p, 100).productive
    assert "offset=10" in a.note


def test_huge_file_total_is_estimated_until_indexed(tmp_path, monkeypatch):
    monkeypatch.setattr(text_mod, "CHUNK", 4096)
    monkeypatch.setattr(text_mod, "COMPLETE_BELOW", 1024)
    p = tmp_path / "big.csv"
    p.write_text("".join(f"{i},{i * 2}\n" for i in range(20_000)), encoding="utf-8")
    first = read_page(p)
    assert first.total is None and "about" in first.note and "offset=200" in first.note
    probe = read_page(p, 10**9)
    assert not probe.productive and probe.total == 20_000
    tail = read_page(p, 19_990)
    assert tail.text.split("\n")[0] == "19990,39980" and tail.end == 20_000
    assert "End of file" in tail.note


def test_edited_file_is_read_again(tmp_path):
    p = tmp_path / "grow.txt"
    p.write_text("a\nb\n", encoding="utf-8")
    assert read_page(p).total == 2
    p.write_text("a\nb\nc\nd\n", encoding="utf-8")
    page = read_page(p)
    assert page.total == 4 and page.text.endswith("d")


def test_bad_offset_or_limit_is_a_read_error(tmp_path):
    p = tmp_path / "x.txt"
    p.write_text("x\n", encoding="utf-8")
    with pytest.raises(ReadError, match="offset"):
        read_page(p, -1)
    with pytest.raises(ReadError, match="limit"):
        read_page(p, 0, 0)


# ------------------------------------------------------------------ sniffing and binaries


def test_extensionless_pdf_is_sniffed(tmp_path):
    p = tmp_path / "manual"
    shutil.copyfile(GUIDE_PDF, p)
    page = read_page(p)
    assert page.kind == "pdf" and page.text.startswith("--- page 1 ---")


def test_extensionless_csv_is_sniffed(tmp_path):
    p = tmp_path / "scope_export"
    p.write_text("t;u\n0.0;1.2\n0.1;1.3\n0.2;1.1\n", encoding="utf-8")
    page = read_page(p)
    assert page.kind == "csv"
    assert "Delimiter: semicolon" in page.note and "t, u" in page.note
    assert page.text.split("\n")[1] == "0.0;1.2"


def test_extensionless_png_is_an_image(tmp_path):
    from PIL import Image

    p = tmp_path / "IMG0001"
    Image.new("RGB", (40, 30), "red").save(p, format="PNG")
    page = read_page(p)
    assert page.kind == "image" and page.productive
    assert "PNG image, 40x30 pixels, mode RGB" in page.text
    assert "read_image" in page.note
    assert describe_file(p).startswith("PNG image, 40x30")


def test_broken_image_is_described_not_raised(tmp_path):
    p = tmp_path / "photo.png"
    p.write_bytes(b"\x89PNG\r\n\x1a\n" + b"\x00garbage" * 20)
    page = read_page(p)
    assert page.kind == "image" and not page.productive
    assert "unreadable" in page.text


def test_binary_file_is_described_without_garbage(tmp_path):
    p = tmp_path / "capture.bin"
    p.write_bytes(bytes(random.Random(1).randrange(256) for _ in range(5000)) + b"\x00" * 100)
    page = read_page(p)
    assert page.kind == "binary" and page.productive
    assert page.text.startswith("binary data") and "5.0 KB" in page.text
    assert page.text.isprintable()
    assert not read_page(p, 1).productive

    elf = tmp_path / "tool"
    elf.write_bytes(b"\x7fELF\x02\x01\x01" + b"\x00" * 200)
    assert read_page(elf).text.startswith("ELF executable")


def test_zip_and_tar_list_their_members(tmp_path):
    z = tmp_path / "raw.zip"
    with zipfile.ZipFile(z, "w") as zf:
        for i in range(7):
            zf.writestr(f"run{i}.csv", "t,x\n0,1\n")
    page = read_page(z)
    assert page.kind == "archive"
    assert "ZIP archive" in page.text and "7 files" in page.text and "run0.csv" in page.text
    assert "7 in all" in page.text

    t = tmp_path / "raw.tar.gz"
    with tarfile.open(t, "w:gz") as tf:
        data = b"hello"
        info = tarfile.TarInfo("notes.txt")
        info.size = len(data)
        tf.addfile(info, io.BytesIO(data))
    desc = describe_file(t)
    assert desc.startswith("tar archive (gzip-compressed data)") and "notes.txt" in desc

    g = tmp_path / "log.gz"
    with open(g, "wb") as raw, gzip.GzipFile("log.txt", "wb", fileobj=raw) as gz:
        gz.write(b"not a tar")
    assert "original name 'log.txt'" in describe_file(g)


def test_docx_and_xlsx_without_their_extension(tmp_path):
    import docx
    import openpyxl

    d = docx.Document()
    d.add_heading("Method", level=2)
    d.add_paragraph("We dropped the ball.")
    t = d.add_table(rows=2, cols=2)
    t.cell(0, 0).text, t.cell(0, 1).text = "h", "t"
    t.cell(1, 0).text, t.cell(1, 1).text = "1.0", "0.45"
    d.add_paragraph("After the table.")
    dp = tmp_path / "report_draft"
    d.save(dp)
    page = read_page(dp)
    assert page.kind == "docx"
    assert page.text.split("\n") == [
        "## Method",
        "We dropped the ball.",
        "[table]",
        "h\tt",
        "1.0\t0.45",
        "[/table]",
        "After the table.",
    ]

    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "Trial 1"
    ws.append(["angle", "range", None])
    ws.append([])
    ws.append([45, 0.1 + 0.2, None])
    wb.create_sheet("Leer")
    xp = tmp_path / "workbook"
    wb.save(xp)
    page = read_page(xp)
    assert page.kind == "xlsx"
    assert page.text.split("\n") == [
        "## Sheet: Trial 1 (3 rows x 2 cols)",
        "angle\trange",
        "45\t0.3",
        "## Sheet: Leer (0 rows x 0 cols)",
        "(empty sheet)",
    ]


def test_old_office_file_is_a_clear_read_error(tmp_path):
    p = tmp_path / "results.xls"
    p.write_bytes(b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + b"\x00" * 600)
    with pytest.raises(ReadError, match=r"\.xls.*xlsx or CSV"):
        read_page(p)


def test_pdf_problems(tmp_path):
    from pypdf import PdfWriter

    w = PdfWriter()
    w.add_blank_page(200, 200)
    blank = tmp_path / "scan.pdf"
    with open(blank, "wb") as f:
        w.write(f)
    page = read_page(blank)
    assert page.kind == "pdf" and not page.productive
    assert "no extractable text" in page.note

    w.encrypt("secret", algorithm="RC4-128")
    locked = tmp_path / "locked.pdf"
    with open(locked, "wb") as f:
        w.write(f)
    with pytest.raises(ReadError, match="password"):
        read_page(locked)

    broken = tmp_path / "broken.pdf"
    broken.write_bytes(b"%PDF-1.4\nnot really a pdf\n")
    with pytest.raises(ReadError, match="damaged"):
        read_page(broken)


def test_ipynb_cells_outputs_and_no_image_blobs(tmp_path):
    nb = {
        "nbformat": 4,
        "metadata": {"kernelspec": {"language": "python"}},
        "cells": [
            {"cell_type": "markdown", "source": ["# Fit\n", "Range vs angle"]},
            {
                "cell_type": "code",
                "execution_count": 3,
                "source": "print(g)\nplot()",
                "outputs": [
                    {"output_type": "stream", "name": "stdout", "text": ["9.79\n"]},
                    {"output_type": "display_data", "data": {"image/png": "iVBORw0KGgo" * 500}},
                    {"output_type": "execute_result", "data": {"text/plain": ["0.5"]}},
                ],
            },
        ],
    }
    p = tmp_path / "analysis.ipynb"
    p.write_text(json.dumps(nb), encoding="utf-8")
    page = read_page(p)
    assert page.kind == "ipynb"
    assert page.text.split("\n") == [
        "## [markdown]",
        "# Fit",
        "Range vs angle",
        "## [code] In[3]",
        "print(g)",
        "plot()",
        "### output",
        "9.79",
        "[image output]",
        "0.5",
    ]
    assert "iVBOR" not in page.text


def test_empty_file(tmp_path):
    p = tmp_path / "empty.csv"
    p.write_bytes(b"")
    page = read_page(p)
    assert page.kind == "empty" and not page.productive and page.total == 0


def test_missing_file_and_directory_are_read_errors(tmp_path):
    with pytest.raises(ReadError, match="No such file.*list_dir"):
        read_page(tmp_path / "nope.csv")
    with pytest.raises(ReadError, match="directory.*list_dir"):
        read_page(tmp_path)
    assert describe_file(tmp_path / "nope.csv") == "missing file"


def test_float_formatting_is_faithful_without_noise():
    assert format_float(0.1 + 0.2) == "0.3"
    assert format_float(0.4363323129985824) == "0.4363323129985824"
    assert format_float(2.0) == "2"
    assert format_float(1e-7) == "1e-07"
    assert format_float(-12.5) == "-12.5"


def _notebook(text: str) -> bytes:
    cell = {"cell_type": "markdown", "metadata": {}, "source": [text]}
    return json.dumps(
        {"cells": [cell], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
    ).encode()


def test_a_file_replaced_under_its_name_is_never_served_from_the_cache(tmp_path):
    """Caches key on the file opened (device, inode, size, mtime), not on its name: another
    file moved in under the same name, size and mtime is converted afresh."""
    p = tmp_path / "lab.ipynb"
    p.write_bytes(_notebook("first version"))
    assert "first version" in read_page(p).text
    other = tmp_path / "incoming.ipynb"
    other.write_bytes(_notebook("other version"))  # the same size
    st = p.stat()
    os.utime(other, ns=(st.st_atime_ns, st.st_mtime_ns))
    os.replace(other, p)
    assert p.stat().st_size == st.st_size and p.stat().st_mtime_ns == st.st_mtime_ns
    assert "other version" in read_page(p).text
