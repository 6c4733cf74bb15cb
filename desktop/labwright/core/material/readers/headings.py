"""A document's own headings: a PDF's outline or its larger/bold lines, a Word file's heading styles.

The line readers (pdf.py, word.py) give the text; this gives the structure a
person sees, for the offline report's "The manual covers:" and for picking
which document of a folder is the lab manual. Deterministic, no model.
"""

from __future__ import annotations

import logging
import re
import warnings
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from labwright.core.material.readers.source import Opened, reading
from labwright.core.material.readers.word import _check_unpacked_size

# Enough for any lab manual; a 500-page book beside it is not read for its headings.
MAX_PAGES = 60
MAX_HEADINGS = 200


@dataclass(frozen=True)
class Heading:
    level: int  # 1 = top
    text: str
    page: int | None = None  # PDF page, from 1


def document_headings(source: Path | Opened, kind: str) -> list[Heading] | None:
    """The headings of a "pdf" or "docx" file, in order; None when the file gives none."""
    try:
        with reading(source) as src:
            if kind == "pdf":
                return _pdf_headings(src)
            if kind == "docx":
                return _docx_headings(src)
    except Exception as e:  # headings are a hint: an odd file must not cost the report
        logging.getLogger(__name__).info("no headings from %s: %s", source.name, e)
    return None


def _clean(text: str) -> str:
    return " ".join(text.replace("\uf0b7", " ").split())


# --------------------------------------------------------------------------
# Word: heading styles
# --------------------------------------------------------------------------

_STYLE = re.compile(r"^(?:Heading|标题)\s*(\d)$", re.IGNORECASE)
_TITLE_STYLES = ("Title", "标题")


def _style_level(style: Any) -> int | None:
    """1–9 for a heading style (or one based on it), 0 for the document title, else None."""
    for _ in range(4):  # a custom style "based on" Heading 2 is a heading too
        if style is None:
            return None
        name = str(style.name or "")
        if name in _TITLE_STYLES:
            return 0
        m = _STYLE.match(name)
        if m:
            return int(m.group(1))
        style = style.base_style
    return None


def _docx_headings(src: Opened) -> list[Heading] | None:
    import docx

    _check_unpacked_size(src)
    with src.stream() as f:
        doc = docx.Document(f)
    found: list[tuple[int, str]] = []
    for par in doc.paragraphs:
        text = _clean(par.text)
        if not text:
            continue
        level = _style_level(par.style)
        if level is not None:
            found.append((level, text))
        if len(found) >= MAX_HEADINGS:
            break
    # A cover page (institution, course) stands before the document's title: the
    # title and what precedes it are not what the document covers.
    titles = [i for i, (level, _) in enumerate(found) if level == 0]
    if titles:
        found = found[titles[-1] + 1 :]
    return [Heading(level, text) for level, text in found] or None


# --------------------------------------------------------------------------
# PDF: the outline, else font sizes
# --------------------------------------------------------------------------


def _pdf_headings(src: Opened) -> list[Heading] | None:
    from pypdf import PdfReader

    logging.getLogger("pypdf").setLevel(logging.ERROR)
    with warnings.catch_warnings(), src.stream() as f:
        warnings.simplefilter("ignore")
        reader = PdfReader(f, strict=False)
        if reader.is_encrypted and not reader.decrypt(""):
            return None
        outline = _outline(reader)
        if outline:
            return outline
        return _by_font_size(reader)


def _outline(reader: Any) -> list[Heading]:
    out: list[Heading] = []

    def walk(items: list, level: int) -> None:
        for item in items:
            if len(out) >= MAX_HEADINGS:
                return
            if isinstance(item, list):
                walk(item, level + 1)
                continue
            text = _clean(str(getattr(item, "title", "") or ""))
            if not text:
                continue
            try:
                page = reader.get_destination_page_number(item) + 1
            except Exception:
                page = None
            out.append(Heading(level, text, page))

    walk(list(reader.outline or []), 1)
    return out


@dataclass
class _Line:
    page: int
    y: float
    size: float
    bold: bool
    text: str


_BOLD_FONT = re.compile(r"bold|black|heavy|semibold|demi|,b\b", re.IGNORECASE)
_CAPTION = re.compile(r"^(?:fig(?:ure)?|table|tab|eq(?:uation)?|图|表)\.?\s*\d", re.IGNORECASE)


def _page_lines(page: Any, number: int) -> list[_Line]:
    """The page's text lines with the size and boldness of their runs (pypdf's visitor)."""
    runs: list[tuple[float, float, bool, str]] = []

    def visit(text: str, cm: list, tm: list, font: Any, size: float) -> None:
        if not text:
            return
        scale = (tm[0] ** 2 + tm[1] ** 2) ** 0.5 * (cm[0] ** 2 + cm[1] ** 2) ** 0.5
        y = tm[5] * cm[3] + cm[5]
        name = str((font or {}).get("/BaseFont", "")) if hasattr(font, "get") else ""
        runs.append((y, float(size) * scale, bool(_BOLD_FONT.search(name)), text))

    page.extract_text(visitor_text=visit)
    lines: list[_Line] = []
    parts: list[tuple[float, bool, str]] = []
    y0: float | None = None

    def close() -> None:
        text = _clean("".join(t for _, _, t in parts))
        visible = [(s, b) for s, b, t in parts if t.strip()]
        if text and visible and y0 is not None:
            size = max(s for s, _ in visible)
            lines.append(_Line(number, y0, size, all(b for _, b in visible), text))

    for y, size, bold, text in runs:
        # A new line when the baseline moves by more than a third of the text's size.
        if y0 is None or abs(y - y0) > max(size, 1.0) / 3 or "\n" in text[:-1]:
            close()
            parts, y0 = [], y
        parts.append((size, bold, text))
    close()
    return lines


def _by_font_size(reader: Any) -> list[Heading] | None:
    lines: list[_Line] = []
    for n, page in enumerate(reader.pages, start=1):
        if n > MAX_PAGES:
            break
        try:
            lines += _page_lines(page, n)
        except Exception:  # one odd page must not hide the others' headings
            continue
    if not lines:
        return None
    weight: Counter[float] = Counter()
    for line in lines:
        weight[round(line.size, 1)] += len(line.text)
    body = weight.most_common(1)[0][0]
    repeated = Counter(line.text for line in lines)
    candidates = [
        line
        for line in lines
        if (line.size >= body * 1.08 or (line.bold and line.size >= body * 0.97))
        and repeated[line.text] < 3  # running heads
        and _looks_like_heading(line.text)
    ]
    if not candidates:
        return None
    candidates = _without_cover(candidates)
    if not candidates:
        return None
    levels = {
        s: i + 1 for i, s in enumerate(sorted({round(c.size, 1) for c in candidates}, reverse=True))
    }
    out = [Heading(levels[round(c.size, 1)], c.text, c.page) for c in candidates]
    return out[:MAX_HEADINGS] or None


def _without_cover(candidates: list[_Line]) -> list[_Line]:
    """The headings without page 1's cover: the title (page 1's largest line, larger than
    any heading of the later pages), what stands above it (institution, course), and the
    subtitles right after it (each larger than every heading that follows)."""
    later = [c.size for c in candidates if c.page > 1]
    first = [c for c in candidates if c.page == 1]
    if not later or not first:
        return candidates
    big = max(c.size for c in first)
    if big <= max(later) * 1.05:
        return candidates
    title_y = min(c.y for c in first if c.size >= big - 0.1)
    rest = [c for c in candidates if not (c.page == 1 and c.y >= title_y - 0.5)]
    while (
        len(rest) > 1 and rest[0].page == 1 and rest[0].size > max(c.size for c in rest[1:]) * 1.05
    ):
        rest = rest[1:]
    return rest


_DATE = re.compile(
    r"^(?:\d{1,2}\s+)?(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.?\s+"
    r"(?:\d{1,2},?\s+)?\d{4}$|^\d{4}[-/.]\d{1,2}[-/.]\d{1,2}$|^\d{4}\s*年",
    re.IGNORECASE,
)


def _looks_like_heading(text: str) -> bool:
    words = text.split()
    return (
        0 < len(text) <= 80
        and len(words) <= 12
        and sum(c.isalpha() for c in text) >= 2
        and not text.endswith((".", ",", ";"))
        and not text[:1].islower()
        and not _CAPTION.match(text)
        and not _DATE.match(text)
    )
