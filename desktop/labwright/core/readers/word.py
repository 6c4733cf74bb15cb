"""Word documents (.docx) as lines: paragraphs and tables in document order."""

from __future__ import annotations

import re
import zipfile
from pathlib import Path

from .cache import Converted
from .page import ReadError

_HEADING = re.compile(r"^(?:Heading|标题)\s*(\d)$", re.IGNORECASE)


def _heading_level(style_name: str) -> int | None:
    if style_name in ("Title", "标题"):
        return 1
    m = _HEADING.match(style_name)
    return int(m.group(1)) if m else None


def _paragraph_lines(par) -> list[str]:
    text = par.text
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


def _table_lines(table) -> list[str]:
    out: list[str] = []
    for row in table.rows:
        cells = []
        last = None
        for cell in row.cells:
            # A merged cell shows up once per grid column it spans; print it once.
            if last is not None and cell._tc is last:
                continue
            last = cell._tc
            cells.append(" ".join(cell.text.split()))
        while cells and not cells[-1]:
            cells.pop()
        if cells:
            out.append("\t".join(cells))
    return out


def _body_lines(doc, parent) -> list[str]:
    from docx.table import Table
    from docx.text.paragraph import Paragraph

    lines: list[str] = []
    for child in parent.iterchildren():
        tag = child.tag.rsplit("}", 1)[-1]
        if tag == "p":
            lines.extend(_paragraph_lines(Paragraph(child, doc)))
        elif tag == "tbl":
            rows = _table_lines(Table(child, doc))
            if rows:
                lines.append("[table]")
                lines.extend(rows)
                lines.append("[/table]")
        elif tag == "sdt":
            # Content controls (cover pages, tables of contents) wrap ordinary paragraphs.
            for content in child.iterchildren():
                if content.tag.endswith("}sdtContent"):
                    lines.extend(_body_lines(doc, content))
    return lines


def convert_docx(path: Path) -> Converted:
    import docx
    from docx.opc.exceptions import PackageNotFoundError

    try:
        doc = docx.Document(str(path))
    except (PackageNotFoundError, zipfile.BadZipFile, KeyError, ValueError) as e:
        raise ReadError(
            f"The Word document {path.name} is damaged or not a real .docx ({e})."
        ) from e
    lines = _body_lines(doc, doc.element.body)
    if not lines:
        return Converted([], "The document has no text (it may hold only images).", False)
    return Converted(lines, "Headings are marked with #, table rows are tab-separated.")
