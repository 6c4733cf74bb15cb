"""The manual's tasks and questions, by part: what the report must do and answer.

A lab manual says what to report in its own words and places: "Analysis" under
each "Part A: …" of an English manual, "Questions", a Chinese 实验内容 with
4.1/4.2/4.3, 数据处理 with ① ② ③, 思考题, 实验步骤. The manual (the one
document that looks most like one, manual.py) is walked heading by heading:
its PDF outline or larger lines, Word heading styles, Markdown `#`, and lines
that are a section word alone ("Analysis", "Measurement", "实验内容"). Each
heading has a role:

- task, question — every item under it is a requirement (numbered "1.",
  "(a)", "①", bullets; an unnumbered line when it asks a question or starts
  with a task's verb: "Plot …", "作 … 图");
- procedure ("Procedure", "Measurement", 实验步骤) — only when the part has no
  task or question section, and then only the steps that ask for a result
  (plot, determine, compare …; 测量, 记录, 计算 …), not "Connect the circuit";
- report ("The report must contain", "Assessment", 要求) — the bullets and
  sentences under it, as before; taken from every course document, not only
  the manual (an "Instructions and assessment guidelines" beside it).

An item's part is the heading it sits under that is no section word ("Part B:
The Q Factor", "4.2 测 RLC 并联电路…", "霍尔法（弯曲法）"); a document whose
requirements all share one such heading has no parts. Each requirement keeps
its source: file, PDF page, section and the item's number as printed.
Objectives are not requirements: they say what the experiment is for, and
the tasks that meet them are listed where the manual asks for them.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path, PurePosixPath

from labwright.core.report.offline.manual import (
    _MD_HEADING,
    _REQUIREMENT_HEADING,
    _TEX_HEADING,
    MAX_ITEM_CHARS,
    MAX_REQUIREMENTS,
    SECTION_NUMBER,
    _clean,
    _course_documents,
    _Doc,
    _documents,
    _heading_of,
    _running_lines,
    drop_boilerplate,
    is_boilerplate,
)


@dataclass(frozen=True)
class Requirement:
    """One thing the manual asks the report to do or answer, and where it asks it."""

    text: str
    part: str = ""  # the manual's part ("Part B: The Q Factor", "4.1 测 RLC …"); "" if none
    kind: str = "task"  # "task" or "question"
    file: str = ""  # the document, relative to the folder
    page: int | None = None  # its PDF page
    section: str = ""  # the heading it stands under ("Analysis", "4 实验内容")
    label: str = ""  # its number as printed ("3", "②", "(4)"); "" for a bullet
    ordinal: int = 0  # its place in the section, for a bullet

    @property
    def is_question(self) -> bool:
        return self.kind == "question"

    @property
    def source(self) -> str:
        """Where the manual asks it: "1MP1 Radioactivity.pdf, p. 7, Analysis 3"."""
        return self.where("en")

    def where(self, lang: str) -> str:
        """`source` in the report's language ("…pdf，第 7 页，4 实验内容 2")."""
        zh = lang == "zh"
        sep = "，" if zh else ", "
        pieces = [PurePosixPath(self.file).name] if self.file else []
        if self.page is not None:
            pieces.append(f"第 {self.page} 页" if zh else f"p. {self.page}")
        if self.label:
            pieces.append(f"{self.section} {self.label}".strip())
        elif self.section and self.ordinal:
            pieces.append(
                f"{self.section} 第 {self.ordinal} 项"
                if zh
                else f"{self.section}, item {self.ordinal}"
            )
        elif self.section:
            pieces.append(self.section)
        return sep.join(pieces)


@dataclass
class ManualTasks:
    """What the manual asks, and the words of each of its parts (all their lines: the
    steps say which resistor or sample a part uses, which tells its tables apart)."""

    requirements: list[Requirement] = field(default_factory=list)
    part_text: dict[str, str] = field(default_factory=dict)

    @property
    def parts(self) -> list[str]:
        return parts_of(self.requirements)


def read_manual(folder: Path, paths: Iterable[str]) -> ManualTasks:
    """The manual's tasks and questions, in its order, by part, without boilerplate
    (marks, deadlines, links, the viva), deduplicated and capped at MAX_REQUIREMENTS."""
    out = ManualTasks()
    seen: set[str] = set()
    ranked = [d for _, d in _course_documents(_documents(folder, paths)) if not _placeholder(d)]
    for rank, doc in enumerate(ranked):
        # Tasks from the manual only: a vendor's instruction sheet beside it has its own
        # "Questions", for another course.
        found, part_text = _document_requirements(doc, walk=rank == 0)
        if rank == 0:
            out.part_text = part_text
        for req in found:
            key = _key(req.text)
            if key in seen or is_boilerplate(req.text):
                continue
            seen.add(key)
            out.requirements.append(req)
            if len(out.requirements) >= MAX_REQUIREMENTS:
                return out
    return out


def manual_tasks(folder: Path, paths: Iterable[str]) -> list[Requirement]:
    """`read_manual`'s requirements."""
    return read_manual(folder, paths).requirements


def manual_requirements(folder: Path, paths: Iterable[str]) -> list[str]:
    """The texts of `manual_tasks`: what the gap check and the checklist list."""
    return [r.text for r in manual_tasks(folder, paths)]


def with_model_requirements(
    manual: Sequence[Requirement], found: Iterable[str]
) -> list[Requirement]:
    """The manual's requirements, then those the model found that none of them already says
    (the model, told the manual's, often repeats them in other words), without boilerplate."""
    out = list(manual)
    for text in drop_boilerplate(t.strip() for t in found if str(t).strip()):
        if not any(similar(text, r.text) for r in out):
            out.append(Requirement(text))  # no part, no place in the manual
    return out[:MAX_REQUIREMENTS]


def _trigrams(text: str) -> set[str]:
    t = _key(unicodedata.normalize("NFKC", text))
    return {t[i : i + 3] for i in range(max(1, len(t) - 2))}


def similar(a: str, b: str) -> bool:
    """Do `a` and `b` say the same thing? Most of one's letter triples are in the other."""
    x, y = _trigrams(a), _trigrams(b)
    common = len(x & y)
    return common >= 0.6 * min(len(x), len(y)) and 3 * min(len(x), len(y)) >= max(len(x), len(y))


def parts_of(requirements: Iterable[Requirement]) -> list[str]:
    """The manual's parts, in the order its requirements name them."""
    return list(dict.fromkeys(r.part for r in requirements if r.part))


def requirements_text(requirements: Iterable[Requirement], *, sources: bool = True) -> str:
    """The requirements for a model, grouped under their parts:

    ## Part A: Operating Voltage …
    - Plot a graph of count rate vs. the applied voltage. (1MP1 Radioactivity.pdf, p. 6, Analysis 1)
    """
    lines: list[str] = []
    part: str | None = None
    for r in requirements:
        if r.part != part:
            part = r.part
            lines.append(f"## {r.part}" if r.part else "## (no part)")
        where = f" ({r.source})" if sources and r.source else ""
        lines.append(f"- {r.text}{where}")
    if lines and all(not ln.startswith("## ") or ln == "## (no part)" for ln in lines):
        lines = [ln for ln in lines if ln != "## (no part)"]
    return "\n".join(lines)


# --------------------------------------------------------------------------
# Headings and their roles
# --------------------------------------------------------------------------

_ROLE_WORDS: tuple[tuple[str, re.Pattern[str]], ...] = tuple(
    (role, re.compile(pattern, re.IGNORECASE))
    for role, pattern in (
        (
            "question",
            r"(?:(?:discussion|review|post-?lab|pre-?lab|further|additional)\s+)?questions?"
            r"|思考题|预习思考题|课后思考题|问题|讨论题|问答题",
        ),
        (
            "task",
            r"(?:data\s+)?analys[ie]s(?:\s+(?:and|&)\s+(?:discussion|results?))?"
            r"|(?:results?|data)\s+(?:and|&)\s+analys[ie]s|analys[ie]s\s+of\s+(?:the\s+)?(?:data|results)"
            r"|data\s+(?:processing|treatment|reduction)|calculations?|tasks?|exercises?"
            r"|实验内容|实验任务|数据处理|数据记录与处理|数据记录及处理|实验结果与数据处理|实验数据处理"
            r"|数据分析|预习提纲|预习要求|实验内容与要求",
        ),
        (
            "procedure",
            r"(?:experimental\s+)?procedures?|measurements?|(?:experimental\s+)?method|steps"
            r"|实验步骤|操作步骤|实验方法|测量步骤|实验过程|实验方法与步骤",
        ),
        ("objective", r"objectives?|aims?|purpose|goals?|实验目的|实验要求与目的"),
    )
)


def heading_role(text: str) -> str:
    """ "task", "question", "procedure", "objective", "report" or "" for a heading."""
    bare = SECTION_NUMBER.sub("", _clean(text)).strip().rstrip(":：")
    main = re.split(r"[:：]", bare, maxsplit=1)[0].strip()
    for role, pattern in _ROLE_WORDS:
        if pattern.fullmatch(main):
            return role
    return "report" if _REQUIREMENT_HEADING.search(bare) else ""


# "Part A: Resonant Frequency…", "Experiment 2", "Section III", "实验一", "（二）…".
_PART = re.compile(
    r"^(?:(?:part|section|experiment|exercise|activity|investigation)\s+(?:[A-Z]|\d{1,2}|[IVX]{1,4})\b"
    r"|实验[一二三四五六七八九十]{1,3}(?![\u4e00-\u9fff])|[（(][一二三四五六七八九十]{1,3}[)）])",
    re.IGNORECASE,
)
_SENTENCE_END = re.compile(r"[.;。；！？!?]\s*$")


def _numbering_level(text: str) -> int | None:
    m = re.match(r"^\s*(\d{1,2}(?:\.\d{1,2})*)\.?(?=\s|[\u4e00-\u9fff])", text)
    if m:
        return m.group(1).count(".") + 1
    return 1 if re.match(r"^\s*[一二三四五六七八九十]{1,3}[、.．]", text) else None


def _heading_key(text: str) -> str:
    return "".join(SECTION_NUMBER.sub("", text).split()).casefold()


@dataclass
class _Head:
    level: float
    text: str
    role: str
    part_like: bool


def _heading_at(
    line: str, doc: _Doc, known: dict[str, float], running: set[str], *, in_list: bool
) -> _Head | None:
    """The heading on this line, or None. `in_list`: the line is under a task, question or
    procedure heading, where "1. 测量钢丝直径" is an item, not a heading."""
    stripped = _clean(line)
    if not stripped or len(stripped) > 90:
        return None
    text: str | None = None
    level: float | None = None
    m = _MD_HEADING.match(stripped) if doc.kind in ("docx", "text") else None
    if m:
        text, level = _clean(m.group(2)), float(len(m.group(1)))
    elif doc.kind == "text" and (t := _TEX_HEADING.search(stripped)):
        text, level = _clean(t.group(1)), 2.0
    elif known and _heading_key(stripped) in known:
        text, level = stripped, known[_heading_key(stripped)]
    elif len(stripped) <= 40 and not _SENTENCE_END.search(stripped) and heading_role(stripped):
        # "Analysis", "Measurement", "2.4 实验步骤": a section word alone on its line
        number = _numbering_level(stripped)
        caps = stripped.isupper()
        text, level = stripped, float(number or (1 if caps else 9))
    elif _PART.match(stripped) and len(stripped) <= 80 and not _SENTENCE_END.search(stripped):
        text, level = stripped, 5.0
    elif (
        not known
        and not (in_list and _MARKER.match(line))
        and (h := _heading_of(line, doc, running))
    ):
        text, level = h, float(_numbering_level(h) or 1)
    if text is None or level is None:
        return None
    return _Head(level, text, heading_role(text), bool(_PART.match(text)))


def _push(stack: list[_Head], head: _Head) -> None:
    if head.part_like:
        # A part nests in the procedure it follows even when set as large ("PROCEDURE",
        # then "Part A: …" in the same size).
        containers = [
            h.level for h in stack if h.role and not h.part_like and h.level <= head.level
        ]
        if containers:
            head.level = max(head.level, max(containers) + 0.5)
    while stack and stack[-1].level >= head.level:
        stack.pop()
    stack.append(head)


# --------------------------------------------------------------------------
# Items
# --------------------------------------------------------------------------

_MARKER = re.compile(
    r"^\s*(?P<label>\d{1,2}[.)、．](?!\d)|[(（]\d{1,2}[)）]|[\u2460-\u2473\u2474-\u2487\u2776-\u277f]"
    r"|[(（][a-z][)）]|[a-z][.)](?=\s)|[(（][ivx]{1,4}[)）]|[ivx]{1,4}[.)](?=\s)"
    r"|step\s+\d{1,2}[:.)]|[-*•●▪◦‣\ue000-\uf8ff](?=\s))\s*",
    re.IGNORECASE,
)
_BULLET_LABEL = re.compile(r"^[-*•●▪◦‣\ue000-\uf8ff]$")
_CAPTION = re.compile(r"^(?:fig(?:ure)?|table|tab|图|表)\.?\s*\d", re.IGNORECASE)

# A step that asks for a result, not for setting something up.
_RESULT_VERB = re.compile(
    r"\b(?:plot|draw|sketch|determine|compare|compute|calculate|obtain|find|estimate|derive"
    r"|deduce|evaluate|discuss|explain|show|answer|comment|verify|tabulate|fit|analy[sz]e"
    r"|predict)\b|\bin\s+your\s+report\b"
    r"|测量|测得|测出|测定|记录|计算|求出|求得|作.{0,15}图|绘制|画出|描绘|比较|确定|验证|分析"
    r"|讨论|读出|读取|拟合|外推|算出|定标",
    re.IGNORECASE,
)
# A line that starts a task by itself, numbered or not: "Plot …", "作 U0–ν 图".
_TASK_START = re.compile(
    r"^(?:Plot|Draw|Sketch|Determine|Compare|Compute|Calculate|Obtain|Find|Estimate|Derive"
    r"|Deduce|Evaluate|Discuss|Explain|Show|Answer|Comment|Verify|Tabulate|Fit|Analy[sz]e"
    r"|Give|State|Describe|Predict|Use)\b"
    r"|^(?:作|绘制|画出|计算|求|比较|确定|验证|分析|讨论|说明|简述|推导|估算|试)"
)
_QUESTION = re.compile(
    r"[?？]|^(?:what|why|how|which|when|where|does|do|is|are|can|could|would|should|will)\b"
    r"|为什么|如何|是否|怎样|什么|为何|哪些",
    re.IGNORECASE,
)
_PLACEHOLDER = re.compile(r"#[\w-]+#|_{3,}|…{2,}|\.{4,}")
_FIELDS_ONLY = re.compile(r"[(（](?=[^)）]*#[\w-]+#)(?:#[\w-]+#|[^)）\u3400-\u9fff\d]){0,60}?[)）]")
_EMPTY_BRACKETS = re.compile(r"[(（][\s,，;；:：=]*[)）]")
# "测量与数据记录——测量钼丝…": the step's label before the dash repeats what follows.
_STEP_LABEL = re.compile(r"^[^，。；：——\s]{1,12}——")
# A heading for the table to fill, not a task: "① 原始数据（ϕ=…mm）".
_DATA_LABEL = re.compile(r"^(?:原始数据|数据记录|实验数据|raw\s+data|data)\W*$", re.IGNORECASE)
_CJK_CHAR = re.compile(r"[\u3400-\u9fff]")


@dataclass
class _Item:
    label: str
    line: int
    page: int | None
    role: str
    part: str
    section: str
    ordinal: int
    pieces: list[str] = field(default_factory=list)


def _join(pieces: list[str]) -> str:
    """Wrapped lines joined: with a space between words, none between two ideographs."""
    out = ""
    for piece in pieces:
        piece = piece.strip()
        if not piece:
            continue
        glue = "" if out and _CJK_CHAR.match(out[-1]) and _CJK_CHAR.match(piece[0]) else " "
        out = f"{out}{glue}{piece}" if out else piece
    return out


def _formula_line(line: str) -> bool:
    """A displayed equation's debris ("Slope = Ra − Rt", "0.5(Ra + Rt)"), not words."""
    words = len(re.findall(r"[A-Za-z]{3,}", line)) + len(_CJK_CHAR.findall(line))
    letters = sum(c.isalpha() for c in line)
    visible = sum(not c.isspace() for c in line) or 1
    return ("=" in line and words < 4) or letters < 0.5 * visible or letters < 3


def _item_text(pieces: list[str]) -> str:
    # A template's fields ("#s1-k#") are the blanks to fill: shown as "…"; a bracket of
    # nothing but fields and units ("（ϕ=#phi#mm，λ=#lbd1#nm）") says nothing yet.
    text = _FIELDS_ONLY.sub("", _join(pieces))
    text = re.sub(r"(?:\s*…)+", "…", _PLACEHOLDER.sub("…", text))
    text = _EMPTY_BRACKETS.sub("", text)
    text = _STEP_LABEL.sub("", text)
    text = " ".join(text.split()).strip(" ,，")
    if len(text) > MAX_ITEM_CHARS:
        text = text[: MAX_ITEM_CHARS - 1] + "…"
    return text


def _walk(doc: _Doc) -> tuple[list[_Item], list[tuple[str, str]]]:
    """The items under task, question and procedure headings, and for every line its
    (part, section) so that items found another way can be placed."""
    running = _running_lines(doc)
    known: dict[str, float] = {}
    for h in doc.headings or []:
        known.setdefault(_heading_key(h.text), float(h.level))
    stack: list[_Head] = []
    items: list[_Item] = []
    context: list[tuple[str, str]] = []
    current: _Item | None = None
    counts: dict[tuple[str, str], int] = {}
    previous = ""
    for n, raw in enumerate(doc.lines):
        line = raw.rstrip()
        stripped = line.strip()
        in_list = any(h.role in ("task", "question", "procedure") for h in stack)
        head = (
            None if n in doc.table_rows else _heading_at(line, doc, known, running, in_list=in_list)
        )
        if head is not None:
            _push(stack, head)
            current, previous = None, ""
            context.append(_context(stack))
            continue
        context.append(_context(stack))
        role = next((h.role for h in reversed(stack) if h.role), "")
        if role not in ("task", "question", "procedure"):
            current = None
            continue
        if n in doc.table_rows or stripped in running or _CAPTION.match(stripped):
            continue
        if not stripped:
            if doc.kind == "text":
                current = None  # a blank line ends a paragraph
            continue
        if doc.kind == "pdf" and stripped.isdigit():
            continue  # a page number
        part, section = context[-1]
        m = _MARKER.match(line)
        starts_task = (doc.kind != "pdf" or not previous or previous.endswith(_ENDS)) and (
            _TASK_START.match(stripped) or (current is None and _QUESTION.search(stripped))
        )
        if m or starts_task:
            key = (part, section)
            counts[key] = counts.get(key, 0) + 1
            label = m.group("label") if m else ""
            current = _Item(label, n, doc.page_of(n), role, part, section, counts[key])
            current.pieces.append(line[m.end() :] if m else stripped)
            items.append(current)
        elif current is not None and not (doc.kind == "pdf" and _formula_line(stripped)):
            current.pieces.append(stripped)
        previous = stripped
    return items, context


_ENDS = (".", ":", ";", "?", "!", "。", "：", "；", "？", "！")


def _context(stack: list[_Head]) -> tuple[str, str]:
    """(part, section) at this point: the deepest heading that is no section word, and the
    deepest that is one."""
    part = next((h.text for h in reversed(stack) if not h.role), "")
    section = next((h.text for h in reversed(stack) if h.role), "")
    return part, section


def _label(marker: str) -> str:
    """An item's number as printed, without its dot ("3." → "3"); "" for a bullet."""
    marker = marker.strip()
    if not marker or _BULLET_LABEL.match(marker):
        return ""
    return (
        marker.rstrip(".)、．:").lstrip("(（").rstrip("）") if marker[:1] not in "(（" else marker
    )


def _kind(role: str, text: str) -> str:
    return "question" if role == "question" or _QUESTION.search(text) else "task"


def _document_requirements(doc: _Doc, *, walk: bool) -> tuple[list[Requirement], dict[str, str]]:
    """The requirements of one document: its report sections always, and when `walk`
    (the manual itself) its tasks, questions and result steps, in document order; and
    the text of each of its parts."""
    items, context = _walk(doc)
    lines: dict[str, list[str]] = {}
    for n, (part, _) in enumerate(context):
        if part:
            lines.setdefault(part, []).append(doc.lines[n])
    found: list[tuple[int, Requirement]] = []
    if walk:
        found += _walked(doc, items)
    for text, n in _requirement_items(doc):
        part, section = context[n] if n < len(context) else ("", "")
        req = Requirement(text, part, _kind("report", text), doc.rel, doc.page_of(n), section)
        found.append((n, req))
    found.sort(key=lambda t: t[0])
    # "… you MUST AT LEAST include the following:" introduces the items after it; "作U0-ν
    # 图为：" is a task all the same.
    reqs = [r for _, r in found if not r.text.endswith((":", "：")) or _TASK_START.match(r.text)]
    if len({r.part for r in reqs}) <= 1:  # one heading over all of them is no part
        return [replace(r, part="") for r in reqs], {}
    return reqs, {part: _join(text) for part, text in lines.items()}


def _walked(doc: _Doc, items: list[_Item]) -> list[tuple[int, Requirement]]:
    asked = {it.part for it in items if it.role in ("task", "question")}
    out: list[tuple[int, Requirement]] = []
    for it in items:
        text = _item_text(it.pieces)
        if not text or _DATA_LABEL.match(text) or len(text) < 2:
            continue
        if it.role == "procedure" and (it.part in asked or not _RESULT_VERB.search(text)):
            continue  # a part with an analysis section: its steps are how, not what
        label = _label(it.label)
        req = Requirement(
            text, it.part, _kind(it.role, text), doc.rel, it.page, it.section, label,
            0 if label else it.ordinal,
        )  # fmt: skip
        out.append((it.line, req))
    return out


def _placeholder(doc: _Doc) -> bool:
    """A page that only stands in for a document ("示例文本", "Lorem ipsum"): no manual."""
    text = "".join("".join(doc.lines).split())
    return len(text) < 400 and bool(
        re.search(r"示例文本|示例内容|lorem\s*ipsum|sample\s*text|placeholder", text, re.I)
    )


def _key(text: str) -> str:
    return re.sub(r"[\W_]+", "", text).casefold()


# --------------------------------------------------------------------------
# Report sections ("The report must contain", "Assessment", 要求)
# --------------------------------------------------------------------------

_BULLET = re.compile(
    r"^\s*(?:[-*•●▪◦‣\ue000-\uf8ff]|\d{1,2}[.)、]|[a-zA-Z][.)]|\(\w{1,3}\)|[ivx]{1,4}[.)])\s+"
)


def _requirement_items(doc: _Doc) -> list[tuple[str, int]]:
    """The items under report headings, each with the line it starts on."""
    running = _running_lines(doc)
    items: list[tuple[str, int]] = []
    collecting = False
    current: list[str] = []
    start = 0
    in_fence = False

    def flush() -> None:
        if current:
            text = _clean(" ".join(current))
            if text:
                items.append(
                    (
                        text if len(text) <= MAX_ITEM_CHARS else text[: MAX_ITEM_CHARS - 1] + "…",
                        start,
                    )
                )
            current.clear()

    previous = ""
    for n, raw in enumerate(doc.lines):
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
            collecting = heading_role(heading) == "report"
            previous = ""
            continue
        if not collecting:
            continue
        if not line.strip():
            flush()  # a blank line ends a paragraph (Markdown, text)
        elif _BULLET.match(line) or _starts_item(doc.kind, previous, line):
            flush()
            start = n
            current.append(_BULLET.sub("", line, count=1))
        else:
            if not current:
                start = n
            current.append(line.strip())
        previous = line.strip()
    flush()
    return items


def _starts_item(kind: str, previous: str, line: str) -> bool:
    """Does a line that is not a bullet start a new item rather than continue one?"""
    if not previous:
        return True
    if kind == "docx":
        # Each line is a paragraph, except the soft line breaks inside one:
        # a lower-case start after an unfinished sentence continues it.
        return previous.endswith(_ENDS) or not line.strip()[:1].islower()
    if kind == "pdf":
        # pypdf turns a bullet glyph of a private-use font into a leading space.
        return previous.endswith(_ENDS) or line[:1].isspace()
    return False  # text: lines run on until a blank line


__all__ = [
    "ManualTasks",
    "Requirement",
    "drop_boilerplate",
    "heading_role",
    "manual_requirements",
    "manual_tasks",
    "parts_of",
    "read_manual",
    "requirements_text",
    "similar",
    "with_model_requirements",
]
