"""Word documents (.docx) as lines: paragraphs and tables in document order."""

from __future__ import annotations

import re
import zipfile
from collections.abc import Iterator
from typing import TYPE_CHECKING

from labwright.core.material.readers.cache import Converted
from labwright.core.material.readers.page import (
    MAX_CELL_CHARS,
    Budget,
    LineMap,
    ReadError,
    clip,
    human_size,
)
from labwright.core.material.readers.source import Opened

# python-docx parses word/document.xml whole; a small zip can unpack to GBs.
MAX_DOCUMENT_XML_BYTES = 100 * 1024 * 1024
MAX_LINES = 100_000

if TYPE_CHECKING:
    from docx.document import Document
    from docx.oxml.xmlchemy import BaseOxmlElement
    from docx.table import Table
    from docx.text.paragraph import Paragraph

_HEADING = re.compile(r"^(?:Heading|标题)\s*(\d)$", re.IGNORECASE)


def _heading_level(style_name: str) -> int | None:
    if style_name in ("Title", "标题"):
        return 1
    m = _HEADING.match(style_name)
    return int(m.group(1)) if m else None


_W = "{http://schemas.openxmlformats.org/wordprocessingml/2006/main}"
_M = "{http://schemas.openxmlformats.org/officeDocument/2006/math}"
_INLINE = {f"{_W}{t}" for t in ("hyperlink", "ins", "smartTag", "fldSimple", "sdt", "sdtContent")}


def _paragraph_text(par: Paragraph) -> str:
    """The paragraph's text with its equations where they stand: python-docx's `text` leaves
    Word's math (OMML) out, so a manual's "作U0-ν图" would read "作图"."""
    if par._p.find(f".//{_M}oMath") is None:
        return par.text
    return "".join(_inline_text(par._p))


def _inline_text(element: BaseOxmlElement) -> Iterator[str]:
    for child in element:
        tag = child.tag
        if tag == f"{_W}r":
            for x in child:
                if x.tag == f"{_W}t":
                    yield x.text or ""
                elif x.tag == f"{_W}tab":
                    yield "\t"
                elif x.tag in (f"{_W}br", f"{_W}cr"):
                    yield "\n"
        elif tag == f"{_M}t":
            yield child.text or ""
        elif tag == f"{_M}f":  # a fraction: (numerator)/(denominator), not the two run together
            num, den = child.find(f"{_M}num"), child.find(f"{_M}den")
            yield f"({''.join(_inline_text(num)) if num is not None else ''})/"
            yield f"({''.join(_inline_text(den)) if den is not None else ''})"
        elif tag in _INLINE or tag.startswith(_M):
            yield from _inline_text(child)


def _paragraph_lines(par: Paragraph) -> list[str]:
    text = clip(_paragraph_text(par), MAX_CELL_CHARS * 10)
    if not text.strip():
        return []
    style = par.style.name if par.style is not None else ""
    level = _heading_level(style)
    if level is not None:
        return ["#" * min(level, 6) + " " + " ".join(text.split())]
    lines = [ln.rstrip() for ln in text.splitlines() if ln.strip()]
    numbered = par._p.pPr is not None and par._p.pPr.numPr is not None
    if numbered or style.startswith("List"):
        lines[0] = "- " + lines[0].lstrip()
    return lines


def _table_rows(table: Table) -> list[tuple[int, str]]:
    """The table's non-empty rows as (row number from 1, tab-separated cells)."""
    out: list[tuple[int, str]] = []
    for r, row in enumerate(table.rows, start=1):
        cells = []
        last = None
        for cell in row.cells:
            # A merged cell shows up once per grid column it spans; print it once.
            if last is not None and cell._tc is last:
                continue
            last = cell._tc
            cells.append(" ".join(clip(cell.text).split()))
        while cells and not cells[-1]:
            cells.pop()
        if cells:
            out.append((r, "\t".join(cells)))
    return out


TABLE_START, TABLE_END = "[table]", "[/table]"  # the lines around a table's rows


class _Cut(Exception):
    """The conversion hit its time or line limit; the lines so far are kept."""


class _Body(LineMap):
    """The document's lines, and how many tables they hold so far."""

    tables = 0


def _body_lines(doc: Document, parent: BaseOxmlElement, budget: Budget, out: _Body) -> None:
    from docx.table import Table
    from docx.text.paragraph import Paragraph

    for child in parent.iterchildren():
        if budget.check() or len(out) >= MAX_LINES:
            raise _Cut
        tag = child.tag.rsplit("}", 1)[-1]
        if tag == "p":
            out.extend(_paragraph_lines(Paragraph(child, doc)))
        elif tag == "tbl":
            rows = _table_rows(Table(child, doc))
            if rows:
                out.tables += 1  # numbered as a reader counts them: empty tables show nothing
                n = out.tables
                out.add(TABLE_START, marker=True, table=n)
                for r, line in rows:
                    out.add(line, table=n, row=r)
                out.add(TABLE_END, marker=True, table=n)
        elif tag == "sdt":
            # Content controls (cover pages, tables of contents) wrap ordinary paragraphs.
            for content in child.iterchildren():
                if content.tag.endswith("}sdtContent"):
                    _body_lines(doc, content, budget, out)


def _check_unpacked_size(src: Opened) -> None:
    """Refuse a decompression bomb before python-docx inflates it.

    zipfile never inflates a member past its declared size, so checking the
    declared size bounds what parsing can cost.
    """
    try:
        with src.stream() as f, zipfile.ZipFile(f) as z:
            size = sum(i.file_size for i in z.infolist() if i.filename.lower().endswith(".xml"))
    except (zipfile.BadZipFile, OSError):
        return  # python-docx reports damage in its own words below
    if size > MAX_DOCUMENT_XML_BYTES:
        raise ReadError(
            f"The Word document {src.name} unpacks to {human_size(size)} of XML, more than "
            f"the {human_size(MAX_DOCUMENT_XML_BYTES)} this reader accepts (it may be a "
            "decompression bomb); ask for a PDF or a smaller export."
        )


def convert_docx(src: Opened, budget: Budget | None = None) -> Converted:
    import docx
    from docx.opc.exceptions import PackageNotFoundError

    budget = budget or Budget()
    _check_unpacked_size(src)
    try:
        with src.stream() as f:
            doc = docx.Document(f)
    except (PackageNotFoundError, zipfile.BadZipFile, KeyError, ValueError) as e:
        raise ReadError(
            f"The Word document {src.name} is damaged or not a real .docx ({e})."
        ) from e
    budget.check()  # parsing may have taken long; a cancel must not wait for the walk
    lines = _Body()
    cut = ""
    try:
        _body_lines(doc, doc.element.body, budget, lines)
    except _Cut:
        limit = (
            f"{MAX_LINES:,} lines"
            if len(lines) >= MAX_LINES
            else f"time limit ({budget.seconds:g} s)"
        )
        cut = f" Reading stopped at the {limit}: the rest of the document is not shown."
    if not lines:
        note = cut.strip() or "The document has no text (it may hold only images)."
        return Converted([], note, False)
    return Converted.of(lines, "Headings are marked with #, table rows are tab-separated." + cut)
