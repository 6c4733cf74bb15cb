r"""Read a TeX .log: errors with file, line and source context; warnings.

Two error formats occur, often in one log:

* `-file-line-error`: `./report.tex:42: Undefined control sequence.`
* classic: `! Undefined control sequence.` and, a few lines later, `l.42 \foo`.

Even with `-file-line-error` some errors keep the `!` form (a missing
package's "File `x.sty' not found" is one), so both are always parsed. The log
is expected unwrapped (`max_print_line=10000`, which compile_tex sets);
wrapped logs still parse, with messages cut at the wrap.

Where TeX cannot say which line is wrong, the error is located from what TeX
printed around it and from the source (`locate_in_source`): the text after
"Runaway argument?" (an unclosed `\textbf{` read up to the end of the file) is
found in the source; an undefined control sequence reported at the end of a
multi-line argument goes back to the line that has it; "\begin{X} on input line
N ended by ..." points at N; and an error with no line, or one TeX noticed only
where a paragraph or the file ended (`$` not closed, "File ended while
scanning"), takes the line of the structural check (structure.py: unbalanced
braces, environments, math).

A log is written by TeX running the model's document, so any line of it may be
forged (`\immediate\write17{./events.jsonl:2: ...}`): a file a line names is
only a name. `read_source` decides which files may be quoted (compile_tex's
allows the document and its .bib files); messages are clipped and at most
MAX_ERRORS errors are kept, whatever the log holds.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Callable
from dataclasses import dataclass, replace

from labwright.core.report.latex.structure import Problem, check_structure
from labwright.core.rundir.names import REPORT_TEX

CONTEXT_RADIUS = 3
MAX_ERRORS = 50
_MESSAGE_CHARS = 1000
_LOOKAHEAD = 30  # lines after an error line searched for its `l.N` pointer

_FILE_LINE = re.compile(
    r"^(?P<file>(?:[A-Za-z]:)?[^:\n]*?\.[A-Za-z0-9]{1,8}):(?P<line>\d+): (?P<msg>.*)$"
)
_BANG = re.compile(r"^! (?P<msg>.*)$")
_POINTER = re.compile(r"^l\.(?P<line>\d+)(?: (?P<text>.*))?$")
_CONTINUATION = re.compile(r"^\([\w@.-]+\)\s+(?P<text>.+)$")  # \MessageBreak lines: "(pkg)   ..."
_ABORT = re.compile(r"^\*\*\* \(.*\)$")  # "*** (job aborted, no legal \end found)"
# Errors that only say "and therefore I stopped"; kept only if nothing better.
_SECONDARY = ("Emergency stop", "==> Fatal error occurred")

_CITATION = re.compile(
    r"Citation [`'](?P<key>[^']*)' (?:on page \S+ )?undefined(?: on input line (?P<line>\d+))?"
)
_REFERENCE = re.compile(
    r"Reference [`'](?P<key>[^']*)' (?:on page \S+ )?undefined(?: on input line (?P<line>\d+))?"
)
_MULTIPLY = re.compile(r"Label [`'](?P<key>[^']*)' multiply defined")
_MISSING_CHAR = re.compile(
    r"^Missing character: There is no (?P<char>.+?) (?:\(U\+[0-9A-Fa-f]+\) )?in font (?P<font>.+?)!?$"
)
# BibTeX's .blg: "I was expecting a `,' or a `}'---line 4 of file refs.bib"
_BLG_ERROR = re.compile(r"^(?P<msg>.+?)---line (?P<line>\d+) of file (?P<file>.+?)\s*$")
# BibTeX's fatal lines, and Biber's "[91] Utils.pm:209> ERROR - ..." lines.
_BLG_FATAL = re.compile(r"^I couldn't open .*|^I found no (?!\\citation).*|\bERROR - .*")
_BLG_WARNING = re.compile(r"(?:^Warning--|\bWARN - )(?P<msg>.+)$")
_RUNAWAY = "Runaway argument?"
_ENDED_BY = re.compile(r"\\begin\{[^}]*\} on input line (?P<line>\d+) ended by")
_SCANNING = re.compile(r"(?:scanning use of|ended before) (?P<cs>\\[A-Za-z@]+)")
_CONTROL_WORD = re.compile(r"\\[A-Za-z@]+")
_UNDEFINED = "Undefined control sequence"
# What TeX notices only where a paragraph, a group or the file ends: the structural
# check knows better where it began.
_NOTICED_LATE = (
    "Missing $ inserted",
    "Display math should end with $$",
    "Extra }, or forgotten $",
    "File ended while scanning",
    "Paragraph ended before",
    "Emergency stop",
    "==> Fatal error occurred",
)
_BACK_LINES = 60  # how far back an undefined control sequence is looked for
_OVERFULL = re.compile(
    r"^Overfull \\[hv]box \((?P<pt>[\d.]+)pt too (?:wide|high)\)(?:.*?lines? (?P<line>\d+))?"
)


@dataclass(frozen=True)
class LogError:
    """One TeX error: where it is, what TeX said, and the source around it."""

    file: str
    line: int | None
    message: str
    context: str  # source lines around `line`, numbered, ">" marks `line`


def source_context(source: str, line: int, radius: int = CONTEXT_RADIUS) -> str:
    """Lines `line`±`radius` of `source`, each numbered; ">" marks `line`."""
    lines = source.splitlines()
    if not 1 <= line <= len(lines):
        return ""
    first, last = max(1, line - radius), min(len(lines), line + radius)
    width = len(str(last))
    return "\n".join(
        f"{'>' if n == line else ' '} {n:>{width}} | {lines[n - 1]}" for n in range(first, last + 1)
    )


def _normalize_file(file: str) -> str:
    file = file.replace("\\", "/")
    while file.startswith("./"):
        file = file[2:]
    return file


@dataclass(frozen=True)
class _Pointer:
    line: int | None = None
    text: str = ""  # what TeX had read of the line when it stopped
    file: str | None = None  # only known from a following `file:line:` header


def _pointer_after(lines: list[str], start: int) -> _Pointer:
    """The `l.N` pointer that follows an error header.

    A following "Emergency stop" belongs to the same failure (a missing file
    stops TeX at once), so the search goes on through it; in -file-line-error
    mode its `file:line:` says which file the `l.N` refers to.
    """
    file: str | None = None
    fallback: int | None = None
    for line in lines[start + 1 : start + 1 + _LOOKAHEAD]:
        header = _FILE_LINE.match(line)
        bang = _BANG.match(line)
        if header or bang:
            message = (header or bang).group("msg")  # type: ignore[union-attr]
            if not message.startswith(_SECONDARY):
                break  # the next error: this one has no pointer
            if header and file is None:
                file, fallback = _normalize_file(header["file"]), int(header["line"])
            continue
        pointer = _POINTER.match(line)
        if pointer:
            return _Pointer(int(pointer["line"]), (pointer["text"] or "").strip(), file)
    return _Pointer(fallback, "", file)


def _full_message(lines: list[str], start: int, first: str) -> str:
    """The header line plus its "(pkg)  ..." continuation or "*** (...)" line."""
    parts = [first.strip()]
    for line in lines[start + 1 : start + 6]:
        cont = _CONTINUATION.match(line)
        if cont:
            parts.append(cont.group("text").strip())
        elif _ABORT.match(line.strip()):
            parts.append(line.strip())
            break
        elif line.strip():
            break
    return " ".join(parts)


def _near(text: str) -> str:
    # What TeX had read of the line when it stopped; its end is the culprit.
    text = text.strip()
    return text if len(text) <= 40 else "…" + text[-40:]


@dataclass(frozen=True)
class _Found:
    file: str
    line: int | None
    message: str
    runaway: str = ""  # the text TeX printed after "Runaway argument?"
    culprit: str = ""  # an undefined control sequence, as TeX showed it


def _start(text: str) -> str:
    text = text.strip()
    return text if len(text) <= 40 else text[:40] + "…"


def parse_log_errors(
    log_text: str,
    read_source: Callable[[str], str | None],
    tex_name: str,
    structure: Callable[[str], list[Problem]] = check_structure,
) -> list[LogError]:
    """Errors in `log_text`; `read_source(file)` gives a file's text for context and
    for locating an error TeX gave no line for (`structure`: the imbalance check)."""
    lines = log_text.splitlines()
    found: list[_Found] = []
    lineno: int | None
    for i, line in enumerate(lines):
        flm = _FILE_LINE.match(line)
        bang = None if flm else _BANG.match(line)
        if not (flm or bang):
            continue
        if flm:
            file, lineno = _normalize_file(flm["file"]), int(flm["line"])
            message = _full_message(lines, i, flm["msg"])
            near = _pointer_after(lines, i).text
        else:
            assert bang is not None
            pointer = _pointer_after(lines, i)
            # Classic errors do not name their file; assume the report unless a
            # following "file:line: Emergency stop." says otherwise.
            file, lineno, near = pointer.file or tex_name, pointer.line, pointer.text
            message = _full_message(lines, i, bang["msg"])
        if near:
            message = f"{message} (near: {_near(near)})"
        runaway = lines[i - 1] if i >= 2 and lines[i - 2].strip() == _RUNAWAY else ""
        culprit = _culprit(lines, i) if _UNDEFINED in message else ""
        found.append(_Found(file, lineno, _clip(message), runaway, culprit))

    known: dict[str, list[Problem]] = {}

    def structure_once(source: str) -> list[Problem]:  # chktex runs once per compile
        if source not in known:
            known[source] = structure(source)
        return known[source]

    primary = [e for e in found if not e.message.startswith(_SECONDARY)]
    chosen = primary or found
    errors: list[LogError] = []
    seen: set[tuple[str, int | None, str]] = set()
    main = _normalize_file(tex_name)
    for error in chosen:
        if (error.file, error.line, error.message) in seen:
            continue
        seen.add((error.file, error.line, error.message))
        source = read_source(error.file)
        if source is not None and _normalize_file(error.file) == main:
            error = locate_in_source(error, source, structure_once)
        context = source_context(source, error.line) if source and error.line else ""
        errors.append(LogError(error.file, error.line, error.message, context))
        if len(errors) >= MAX_ERRORS:
            break
    return errors


def _culprit(lines: list[str], start: int) -> str:
    """The undefined control sequence: TeX ends the first context line with it."""
    for line in lines[start + 1 : start + 4]:
        if line.strip():
            words = _CONTROL_WORD.findall(line)
            return words[-1] if words else ""
    return ""


def locate_in_source(
    error: _Found, source: str, structure: Callable[[str], list[Problem]] = check_structure
) -> _Found:
    """`error` with the line of `source` it is about, when TeX's own line is missing or
    only where TeX noticed it (see the module doc); otherwise unchanged."""
    lines = source.splitlines()
    if m := _ENDED_BY.search(error.message):
        return replace(error, line=int(m["line"]))
    if error.runaway:
        scanning = _SCANNING.search(error.message)
        command = scanning["cs"] if scanning and "@" not in scanning["cs"] else ""
        line = find_runaway(lines, error.runaway, command)
        if line is not None:
            shown = _start(error.runaway.strip().removesuffix("\\ETC."))
            return replace(
                error, line=line, message=_clip(f"{error.message} (runaway argument: {shown})")
            )
    if error.culprit and error.line is not None:
        line = _line_with(lines, error.culprit, error.line)
        if line is not None:
            return replace(error, line=line)
    if error.line is not None and not error.message.startswith(_NOTICED_LATE):
        return error
    problems = structure(source)
    if error.line is not None:  # noticed at a paragraph's end: the math opened in it
        first = _paragraph_start(lines, error.line)
        math = [p for p in problems if p.kind == "math" and first <= p.line <= error.line]
        if not math:
            return error
        return replace(
            error, line=math[-1].line, message=_clip(f"{error.message} {math[-1].message}")
        )
    if not problems:
        return error
    return replace(
        error, line=problems[0].line, message=_clip(f"{error.message} {problems[0].message}")
    )


def _paragraph_start(lines: list[str], line: int) -> int:
    """The first line of the paragraph that `line` is in or ends (the blank line after it)."""
    n = min(line, len(lines))
    if n >= 1 and not lines[n - 1].strip():
        n -= 1
    while n > 1 and lines[n - 2].strip():
        n -= 1
    return max(n, 1)


def _line_with(lines: list[str], word: str, line: int) -> int | None:
    """The line at or before `line` that has the control word `word` (not a longer one)."""
    pattern = re.compile(re.escape(word) + r"(?![A-Za-z@])")
    for n in range(min(line, len(lines)), max(0, line - _BACK_LINES), -1):
        if pattern.search(_uncommented(lines[n - 1])):
            return n
    return None


def _uncommented(line: str) -> str:
    m = re.search(r"(?<!\\)%", line)
    return line[: m.start()] if m else line


def _tex_shown(text: str) -> str:
    """Text as TeX shows tokens: a space after each control word, one space for any run."""
    text = re.sub(r"(\\[A-Za-z@]+)\s*", r"\1 ", text)
    return re.sub(r"\s+", " ", text)


def find_runaway(lines: list[str], runaway: str, command: str = "") -> int | None:
    """The source line where the runaway argument TeX printed begins.

    TeX shows the argument from its `{`, a space after every control word, a blank
    line as \\par, and cuts it with \\ETC.; the longest start of it found in the
    source (preceded by `command` when TeX named a public one) gives the line."""
    text = runaway.strip().removesuffix("\\ETC.").strip()
    first = _tex_shown(text.split("\\par ", 1)[0]).strip()
    pieces = [_tex_shown(_uncommented(line)).strip() for line in lines]
    joined, starts, at = [], [], 0
    for piece in pieces:
        starts.append(at)
        joined.append(piece)
        at += len(piece) + 1
    whole = " ".join(joined)
    words = first.split(" ")
    while words and len(" ".join(words)) >= 6:
        fragment = " ".join(words)
        for needle in ([_tex_shown(command) + fragment] if command else []) + [fragment]:
            hits = [m.start() for m in re.finditer(re.escape(needle), whole)]
            if len(hits) == 1 or (hits and needle != fragment):
                return bisect.bisect_right(starts, hits[0])
        words.pop()
    return None


def _clip(message: str) -> str:
    return message if len(message) <= _MESSAGE_CHARS else message[: _MESSAGE_CHARS - 1] + "…"


def parse_log(
    log_text: str, source: str | None = None, tex_name: str = REPORT_TEX
) -> list[LogError]:
    """Errors of a TeX log; `source` is the text of `tex_name`, for context."""
    main = _normalize_file(tex_name)

    def read_source(file: str) -> str | None:
        return source if _normalize_file(file) == main else None

    return parse_log_errors(log_text, read_source, tex_name)


def _line_suffix(line: str | None) -> str:
    return f" (line {line})" if line else ""


def _font_name(raw: str) -> str:
    # "[lmroman10-regular]:mapping=tex-text;" -> "lmroman10-regular"
    name = raw.split(":", 1)[0] if not raw.startswith("[") else raw[1:].split("]", 1)[0]
    return name.strip('"') or raw


def _is_cjk(char: str) -> bool:
    return len(char) == 1 and (
        "\u2e80" <= char <= "\u9fff" or "\uac00" <= char <= "\ud7af" or "\uff00" <= char <= "\uffef"
    )


def parse_warnings(log_text: str) -> list[str]:
    """Warnings worth showing: undefined citations and references, duplicate
    labels, characters missing from the font, and a summary of overfull boxes."""
    warnings: list[str] = []
    seen_keys: set[tuple[str, str]] = set()
    missing: dict[str, list[str]] = {}
    overfull: list[tuple[float, str | None]] = []

    def add_once(kind: str, key: str, text: str) -> None:
        if (kind, key) not in seen_keys:
            seen_keys.add((kind, key))
            warnings.append(text)

    for line in log_text.splitlines():
        if m := _CITATION.search(line):
            add_once("cite", m["key"], f"Citation `{m['key']}' undefined{_line_suffix(m['line'])}")
        elif m := _REFERENCE.search(line):
            add_once("ref", m["key"], f"Reference `{m['key']}' undefined{_line_suffix(m['line'])}")
        elif m := _MULTIPLY.search(line):
            add_once("label", m["key"], f"Label `{m['key']}' multiply defined")
        elif m := _MISSING_CHAR.match(line):
            chars = missing.setdefault(_font_name(m["font"]), [])
            if m["char"] not in chars:
                chars.append(m["char"])
        elif m := _OVERFULL.match(line):
            overfull.append((float(m["pt"]), m["line"]))

    for font, chars in missing.items():
        text = f"Missing characters in font {font}: {''.join(chars[:20])}"
        text += " …" if len(chars) > 20 else ""
        if any(_is_cjk(c) for c in chars):
            text += " (CJK text needs ctex, e.g. \\documentclass[UTF8]{ctexart}, and a CJK font)"
        warnings.append(text)
    if overfull:
        worst_pt, worst_line = max(overfull, key=lambda item: item[0])
        warnings.append(
            f"{len(overfull)} overfull box(es); worst {worst_pt:g}pt too wide{_line_suffix(worst_line)}"
        )
    return warnings


def parse_blg(
    blg_text: str, read_source: Callable[[str], str | None]
) -> tuple[list[LogError], list[str]]:
    """Errors and warnings of a BibTeX (or Biber) .blg file."""
    errors: list[LogError] = []
    warnings: list[str] = []
    for line in blg_text.splitlines():
        if m := _BLG_ERROR.match(line):
            file, lineno = _normalize_file(m["file"]), int(m["line"])
            source = read_source(file)
            context = source_context(source, lineno) if source else ""
            message = _clip(f"BibTeX: {m['msg']}")
            errors.append(LogError(file=file, line=lineno, message=message, context=context))
        elif fatal := _BLG_FATAL.search(line):
            message = _clip(f"BibTeX: {fatal.group().strip()}")
            errors.append(LogError(file="", line=None, message=message, context=""))
        elif (m := _BLG_WARNING.search(line)) and f"BibTeX: {m['msg'].strip()}" not in warnings:
            warnings.append(f"BibTeX: {m['msg'].strip()}")
    return errors, warnings
