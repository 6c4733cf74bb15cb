"""Hints from the manual: its headings and what it asks the report to contain."""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from labwright.core.material.readers import ReadError, read_page
from labwright.core.material.readers.sniff import sniff
from labwright.core.material.workspace import PathDenied, resolve_in_folder

MAX_HEADINGS = 40
MAX_REQUIREMENTS = 40
MAX_ITEM_CHARS = 300


# --------------------------------------------------------------------------
# The manual: headings and requirements
# --------------------------------------------------------------------------

_TEXT_DOC_SUFFIXES = (".md", ".markdown", ".txt", ".rst", ".tex", "")
_MD_HEADING = re.compile(r"^(#{1,6})\s+(.+?)\s*#*\s*$")
_TEX_HEADING = re.compile(r"\\(?:sub){0,2}section\*?\{(.+?)\}")
_ZH_HEADING = re.compile(
    r"^(?:[一二三四五六七八九十]+[、.．]|第[一二三四五六七八九十\d]+[章节部分]|"
    r"\d+(?:\.\d+)*[、.．\s])\s*[\u4e00-\u9fff][^。，；]{0,24}$"
)
_REQUIREMENT_HEADING = re.compile(
    r"report\s+(?:must|should)|must\s+(?:contain|include)|requirement|assessment|marking"
    r"|grading|rubric|deliverable|lab\s+report|report\s+(?:format|structure|content)"
    r"|要求|报告|评分|考核",
    re.IGNORECASE,
)
_BULLET = re.compile(
    r"^\s*(?:[-*•●▪◦‣\ue000-\uf8ff]|\d{1,2}[.)、]|[a-zA-Z][.)]|\(\w{1,3}\)|[ivx]{1,4}[.)])\s+"
)
_SENTENCE_INSIDE = re.compile(r"[.!?。！？]\s*\S")


@dataclass
class _Doc:
    kind: str  # "docx", "pdf" or "text"
    lines: list[str] = field(default_factory=list)


def _documents(folder: Path, paths: Iterable[str]) -> list[_Doc]:
    """The manual-like documents among `paths`, read through the readers.

    A PDF with a .docx of the same name beside it is the same text, extracted
    worse: only the .docx is read.
    """
    paths = list(paths)
    docx_stems = {p.rsplit(".", 1)[0].casefold() for p in paths if p.lower().endswith(".docx")}
    docs: list[_Doc] = []
    for rel in paths:
        if rel.lower().endswith(".pdf") and rel.rsplit(".", 1)[0].casefold() in docx_stems:
            continue
        doc = _read_document(folder, rel)
        if doc is not None:
            docs.append(doc)
    return docs


def _read_document(folder: Path, rel: str) -> _Doc | None:
    try:
        path = resolve_in_folder(folder, rel)
        kind = sniff(path).kind
        if kind in ("csv", "tsv") or (
            kind == "text" and path.suffix.lower() not in _TEXT_DOC_SUFFIXES
        ):
            return None
        if kind not in ("docx", "pdf", "text"):
            return None
        page = read_page(path, 0, 20_000, max_chars=4_000_000)
    except (PathDenied, ReadError, OSError):
        return None
    # The reader's own lines (page markers, table brackets) are not the manual's words.
    own = {n - page.offset for s in page.spans if s.marker for n in range(s.start, s.end)}
    return _Doc(kind, [ln for n, ln in enumerate(page.text.split("\n")) if n not in own])


def _clean(text: str) -> str:
    return " ".join(text.replace("\uf0b7", " ").split())


def _heading_of(line: str, doc: _Doc, running: set[str]) -> str | None:
    """The heading text when `line` is one, else None."""
    stripped = line.strip()
    if doc.kind in ("docx", "text"):
        m = _MD_HEADING.match(stripped)
        if m:
            return _clean(m.group(2))
        m = _TEX_HEADING.search(stripped)
        if m and doc.kind == "text":
            return _clean(m.group(1))
    if doc.kind in ("pdf", "text") and _ZH_HEADING.match(stripped):
        return _clean(stripped)
    if doc.kind == "pdf" and stripped not in running and _all_caps_heading(stripped):
        return _clean(stripped)
    return None


def _all_caps_heading(line: str) -> bool:
    letters = [c for c in line if c.isalpha()]
    return (
        len(letters) >= 3
        and all(c.isupper() for c in letters if c.isascii())
        and any(c.isascii() for c in letters)
        and len(line) <= 60
        and len(line.split()) <= 8
        and not line.endswith((".", ",", ";"))
    )


def _running_lines(doc: _Doc) -> set[str]:
    """Lines a PDF repeats on several pages (running heads and feet)."""
    if doc.kind != "pdf":
        return set()
    counts: dict[str, int] = {}
    for line in doc.lines:
        counts[line.strip()] = counts.get(line.strip(), 0) + 1
    return {line for line, n in counts.items() if n >= 2}


def _good_heading(text: str) -> bool:
    # A paragraph styled as a heading is not a hint ("“VIVA VOCE ...”. You may").
    return 0 < len(text) <= 80 and not _SENTENCE_INSIDE.search(text.rstrip(".。"))


def manual_headings(folder: Path, paths: Iterable[str]) -> list[str]:
    """The headings of the manual/guidelines among `paths`, in order, deduplicated, capped.

    Word heading styles (the docx reader marks them with #), Markdown `#`
    lines and LaTeX sections, and in PDFs short ALL-CAPS lines or numbered
    Chinese headings that are not running heads.
    """
    out: list[str] = []
    seen: set[str] = set()
    for doc in _documents(folder, paths):
        running = _running_lines(doc)
        for line in doc.lines:
            heading = _heading_of(line, doc, running)
            if heading and _good_heading(heading) and heading.casefold() not in seen:
                seen.add(heading.casefold())
                out.append(heading)
                if len(out) >= MAX_HEADINGS:
                    return out
    return out


def manual_requirements(folder: Path, paths: Iterable[str]) -> list[str]:
    """What the manual asks the report to contain: the items under requirement headings.

    A heading like "The report must contain", "Assessment", "Lab report",
    "要求" or "报告" starts a section; its bullets and sentences up to the
    next heading are the requirements (bullet markers stripped, wrapped PDF
    lines joined, each capped at 300 characters).
    """
    out: list[str] = []
    seen: set[str] = set()
    for doc in _documents(folder, paths):
        for item in _requirement_items(doc):
            key = item.casefold()
            if key not in seen:
                seen.add(key)
                out.append(item)
                if len(out) >= MAX_REQUIREMENTS:
                    return out
    return out


def _requirement_items(doc: _Doc) -> list[str]:
    running = _running_lines(doc)
    items: list[str] = []
    collecting = False
    current: list[str] = []
    in_fence = False

    def flush() -> None:
        if current:
            text = _clean(" ".join(current))
            if text:
                items.append(
                    text if len(text) <= MAX_ITEM_CHARS else text[: MAX_ITEM_CHARS - 1] + "…"
                )
            current.clear()

    previous = ""
    for raw in doc.lines:
        line = raw.rstrip()
        if line.strip().startswith("```"):
            in_fence = not in_fence
            continue
        if in_fence or line.strip() in running:
            continue
        if doc.kind == "pdf" and line.strip().isdigit():
            continue  # a page number
        heading = _heading_of(line, doc, running)
        if heading is not None:
            flush()
            collecting = bool(_REQUIREMENT_HEADING.search(heading))
            previous = ""
            continue
        if not collecting:
            continue
        if not line.strip():
            flush()  # a blank line ends a paragraph (Markdown, text)
        elif _BULLET.match(line) or _starts_item(doc.kind, previous, line):
            flush()
            current.append(_BULLET.sub("", line, count=1))
        else:
            current.append(line.strip())
        previous = line.strip()
    flush()
    return items


_ENDS_SENTENCE = (".", ":", ";", "?", "!", "。", "：", "；", "？", "！")


def _starts_item(kind: str, previous: str, line: str) -> bool:
    """Does a line that is not a bullet start a new item rather than continue one?"""
    if not previous:
        return True
    if kind == "docx":
        # Each line is a paragraph, except the soft line breaks inside one:
        # a lower-case start after an unfinished sentence continues it.
        return previous.endswith(_ENDS_SENTENCE) or not line.strip()[:1].islower()
    if kind == "pdf":
        # pypdf turns a bullet glyph of a private-use font into a leading space.
        return previous.endswith(_ENDS_SENTENCE) or line[:1].isspace()
    return False  # text: lines run on until a blank line
