"""Hints from the manual: its headings and what it asks the report to contain."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from labwright.core.material.readers import ReadError, read_page
from labwright.core.material.readers.headings import Heading, document_headings
from labwright.core.material.readers.sniff import sniff
from labwright.core.material.workspace import PathDenied, open_in_folder

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
_SENTENCE_INSIDE = re.compile(r"[.!?。！？]\s*\S")


@dataclass
class _Doc:
    kind: str  # "docx", "pdf" or "text"
    lines: list[str] = field(default_factory=list)
    rel: str = ""
    # The document's own headings (PDF outline or font sizes, Word styles); None: none found.
    headings: list[Heading] | None = None
    pages: list[int | None] = field(default_factory=list)  # each line's PDF page
    table_rows: set[int] = field(default_factory=set)  # lines that are rows of a Word table

    def page_of(self, n: int) -> int | None:
        return self.pages[n] if n < len(self.pages) else None


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
        with open_in_folder(folder, rel) as src:  # the text and headings from one descriptor
            if src.is_dir:
                return None
            kind = sniff(src).kind
            if kind in ("csv", "tsv") or (
                kind == "text" and src.suffix.lower() not in _TEXT_DOC_SUFFIXES
            ):
                return None
            if kind not in ("docx", "pdf", "text"):
                return None
            page = read_page(src, 0, 20_000, max_chars=4_000_000)
            headings = document_headings(src, kind) if kind in ("pdf", "docx") else None
    except (PathDenied, ReadError, OSError):
        return None
    # The reader's own lines (page markers, table brackets) are not the manual's words.
    doc = _Doc(kind, rel=rel)
    if headings is not None:
        doc.headings = [Heading(h.level, normalize_text(h.text), h.page) for h in headings]
    place: dict[int, tuple[bool, int | None, bool]] = {}
    for s in page.spans:
        for n in range(s.start - page.offset, s.end - page.offset):
            place[n] = (s.marker, s.page, s.table is not None)
    for n, line in enumerate(page.text.split("\n")):
        marker, on_page, in_table = place.get(n, (False, None, False))
        if marker:
            continue
        if in_table:
            doc.table_rows.add(len(doc.lines))
        doc.lines.append(normalize_text(line))
        doc.pages.append(on_page)
    return doc


# pypdf leaves TeX's minus (slot 0 of cmsy, a font without a Unicode map) as U+0000,
# and Word's math letters (𝑅, 𝜷) come out of some PDFs twice ("𝑅𝑅"): both are read
# as the manual's author wrote them, a minus and one letter (as plain as NFKC makes it).
_MATH_LETTER = re.compile(r"([\U0001d400-\U0001d7ff])\1?")


def normalize_text(text: str) -> str:
    """A manual's line as its author wrote it: TeX's lost minus, Word's math letters."""
    text = text.replace("\x00", "−").replace("\ufffd", "[?]")  # a glyph the PDF cannot name
    text = text.translate(_SUBSCRIPT_DIGITS)  # "t₁₀" as "t10": the text a TODO is found by
    return _MATH_LETTER.sub(lambda m: unicodedata.normalize("NFKC", m.group(1)), text)


_SUBSCRIPT_DIGITS = str.maketrans("₀₁₂₃₄₅₆₇₈₉", "0123456789")


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


# Abbreviations end no sentence ("Part B: Maximum Range vs. Initial Speed").
_ABBREVIATION = re.compile(r"\b(?:vs|e\.g|i\.e|etc|cf|fig|eq|no|approx|ca)\.", re.IGNORECASE)


# A heading's own number ("3.1 RLC 串联谐振电路", "2. THEORY") is no sentence's end.
SECTION_NUMBER = re.compile(
    r"^\s*(?:\d{1,2}(?:\.\d{1,2})*\.?|[一二三四五六七八九十]{1,3}[、.．])\s*"
)


def _good_heading(text: str) -> bool:
    # A paragraph styled as a heading is not a hint ("“VIVA VOCE ...”. You may").
    words = _ABBREVIATION.sub(" ", SECTION_NUMBER.sub("", text)).rstrip(".。")
    return 0 < len(text) <= 80 and not _SENTENCE_INSIDE.search(words) and not junk_heading(text)


# Text extracted from formulas and letter-spaced titles of papers: "PSD V/",
# "PS = LSD ×", "F EATURES", "Q U A N T U M".
_FORMULA_CHARS = re.compile(r"[=×÷±∑∫√≈≤≥∝^∂∇⃗\U0001d400-\U0001d7ff]")
_TRAILING_OPERATOR = re.compile(r"[/+\-*×·=(\[{<]$")
_LABEL_WORD = re.compile(
    r"^(?:part|section|appendix|experiment|exercise|task|step|question|chapter|unit|table|figure)$",
    re.IGNORECASE,
)


def junk_heading(text: str) -> bool:
    """Is this "heading" a formula or a broken-spaced line rather than a title?"""
    text = text.strip()
    if _FORMULA_CHARS.search(text) or _TRAILING_OPERATOR.search(text):
        return True
    visible = [c for c in text if not c.isspace()]
    letters = sum(c.isalpha() for c in visible)
    if letters < 2 or letters < 0.6 * len(visible):
        return True
    words = text.split()
    if re.search(r"(?:\b\w\s){3,}", text + " "):  # "Q U A N T U M"
        return True
    for i, word in enumerate(words):
        # (A Chinese word may be one character: "测 RLC 串联电路".)
        lone = len(word) == 1 and word.isascii() and word.isalpha() and word not in ("A", "a", "I")
        if not lone or (i and _LABEL_WORD.match(words[i - 1])):
            continue
        nxt = words[i + 1] if i + 1 < len(words) else ""
        # "F EATURES": a capital split off its word; "ENBW V": a symbol left by a formula.
        if re.fullmatch(r"[A-Z]{2,}\w*", nxt) or len(words) <= 3:
            return True
    return False


# Marks in a heading ("LAB REPORT (50%)") are the course's weighting, not the topic.
_MARKS_SUFFIX = re.compile(r"\s*[(（]\s*\d{1,3}(?:\.\d+)?\s*%\s*[)）]\s*$")


def _shown_heading(text: str) -> str:
    return _MARKS_SUFFIX.sub("", _clean(text))


# --------------------------------------------------------------------------
# Which document is the manual
# --------------------------------------------------------------------------

_MANUAL_NAME = re.compile(
    r"manual|handout|lab\s*sheet|worksheet|script|讲义|指导|实验|说明", re.IGNORECASE
)
_COURSE_NAME = re.compile(
    r"instruction|guideline|guide|assignment|brief|experiment|practical|lab|要求|任务",
    re.IGNORECASE,
)
_PAPER_NAME = re.compile(
    r"paper|article|reference|datasheet|data\s*sheet|arxiv|thesis|review|slides|lecture"
    r"|\d{4}\.\d{4,5}|论文|文献",
    re.IGNORECASE,
)
_PAPER_WORDS = re.compile(
    r"\babstract\b|\bkeywords?\b|\bdoi\b|arxiv|\bjournal\b|\bet al\.|\breceived\b"
    r"|\baccepted\b|\bpublished\b|©|copyright|\bissn\b|proceedings|phys\. ?rev|摘要|关键词",
    re.IGNORECASE,
)
_MANUAL_WORDS = re.compile(
    r"\bobjectives?\b|\baims?\b|\bapparatus\b|\bequipment\b|\bprocedure\b|\bstudents?\b"
    r"|\blab(?:oratory)?\b|\byou (?:will|should|must)\b|\bmeasure\b|实验目的|实验仪器|实验原理|实验步骤",
    re.IGNORECASE,
)
_MANUAL_HEADINGS = re.compile(
    r"^(?:\d+(?:\.\d+)*\s*)?(?:objectives?|aims?|apparatus|equipment|procedure|method|theory"
    r"|background|introduction|motivation|questions?|tasks?|exercises?|pre-?lab|safety"
    r"|measurements?|analysis|实验目的|实验原理|实验仪器|实验步骤|实验内容|思考题|注意事项)\b",
    re.IGNORECASE,
)


def _manual_score(doc: _Doc) -> int:
    """How much `doc` looks like a lab manual (> 0) rather than a paper beside it (< 0).

    From its name, the words of its first page, and its headings' names.
    """
    name = doc.rel.rsplit("/", 1)[-1]
    score = 4 * bool(_MANUAL_NAME.search(name)) + 2 * bool(_COURSE_NAME.search(name))
    score -= 4 * bool(_PAPER_NAME.search(name))
    first = " ".join(doc.lines[:80])
    score -= min(4, len({m.group().casefold() for m in _PAPER_WORDS.finditer(first)}))
    score += min(3, len({m.group().casefold() for m in _MANUAL_WORDS.finditer(first)}))
    titles = [h.text for h in doc.headings or []] or [
        h for h in (_heading_of(ln, doc, set()) for ln in doc.lines) if h
    ]
    score += min(4, len({m.group().casefold() for t in titles if (m := _MANUAL_HEADINGS.match(t))}))
    return score


def _course_documents(docs: list[_Doc]) -> list[tuple[int, _Doc]]:
    """The documents that are not papers, best manual first; all of them if each looks a paper."""
    scored = sorted(
        ((_manual_score(d), i, d) for i, d in enumerate(docs)), key=lambda t: (-t[0], t[1])
    )
    course = [(s, d) for s, _, d in scored if s >= 0]
    return course or [(s, d) for s, _, d in scored]


def _headings_of(doc: _Doc) -> list[str]:
    if doc.headings:
        return [h.text for h in doc.headings]
    running = _running_lines(doc)
    return [h for h in (_heading_of(line, doc, running) for line in doc.lines) if h]


def manual_headings(folder: Path, paths: Iterable[str]) -> list[str]:
    """The headings of the lab manual among `paths`, in order, deduplicated, capped.

    The manual is the document that looks most like one (its name, its first
    page's words, headings such as Objectives or Procedure), not a paper or
    datasheet beside it. Its headings are its PDF outline, else its lines set
    larger or bold than the body (PDF), its heading styles (Word), Markdown
    `#` lines and LaTeX sections; in a PDF with neither, short ALL-CAPS
    lines or numbered Chinese headings that are not running heads. Formulas
    and broken-spaced lines are not headings; marks ("(50%)") are dropped.
    """
    course = _course_documents(_documents(folder, paths))
    if not course or course[0][0] < 0:
        return []  # only papers: their headings are not what the lab covers
    out: list[str] = []
    seen: set[str] = set()
    for raw in _headings_of(course[0][1]):
        heading = _shown_heading(raw)
        if heading and _good_heading(heading) and heading.casefold() not in seen:
            seen.add(heading.casefold())
            out.append(heading)
            if len(out) >= MAX_HEADINGS:
                break
    return out


# --------------------------------------------------------------------------
# Requirements, without the course's administration
# --------------------------------------------------------------------------

_BOILERPLATE = re.compile(
    # marks and weights
    r"[(（]\s*\d{1,3}(?:\.\d+)?\s*%\s*[)）]|\b\d{1,3}\s*%\s*(?:of\s+the\s+)?(?:marks?|grade|total)"
    r"|\bmarks?\b|\bgrad(?:e|ed|ing)\b|\bweight(?:ing|ed)?\b|\bpoints?\s+(?:will|are|for)\b"
    r"|\bpenali[sz]|评分|成绩|分值|占总"
    # deadlines
    r"|deadline|\bdue\s+(?:date|by|on|in)\b|late\s+submission|截止|逾期"
    # submission and links
    r"|https?://|\bwww\.|\bsubmi(?:t|ssion)|\bupload|google\s+form|e-?learning|\bportal\b"
    r"|moodle|canvas|blackboard|turnitin|提交|上传"
    # the viva
    r"|\bviva\b|oral\s+exam|presentation\s+video|答辩",
    re.IGNORECASE,
)


def is_boilerplate(requirement: str) -> bool:
    """Is this "requirement" the course's administration (marks, deadlines, links, viva)?"""
    return bool(_BOILERPLATE.search(requirement))


def drop_boilerplate(requirements: Iterable[str]) -> list[str]:
    """`requirements` without course boilerplate: what a report can actually meet."""
    return [r for r in requirements if not is_boilerplate(r)]
