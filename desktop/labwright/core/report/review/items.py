"""Open items: what still needs a person in the current report, each with its line.

TODO markers, requirements the material does not support, unresolved citations,
compile errors and warnings, figures not in the report, numbers not found in the
material.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any

from labwright.core.report.item_words import item_text
from labwright.core.report.latex import CompileResult
from labwright.core.report.review.edits import generated_draft
from labwright.core.report.review.files import gaps as gap_records
from labwright.core.report.review.files import run_meta
from labwright.core.report.review.text import norm, plain, short, without_comment
from labwright.core.report.templates import TemplateError, load_template
from labwright.core.report.verify import verify_run
from labwright.core.report.writing import cite_keys
from labwright.core.rundir.layout import RunDir
from labwright.core.rundir.names import in_figures, is_report
from labwright.core.rundir.records import CompileErrorRecord, RunRecord

KINDS = (
    "compile_error",
    "todo",
    "gap",
    "citation",
    "number",
    "compile_warning",
    "figure_unused",
)  # the order of items that share a line
_FIGURE_EXTS = (".pdf", ".png", ".jpg", ".jpeg")
_INCLUDE = re.compile(r"\\includegraphics\*?\s*(?:\[[^\]]*\])?\s*\{([^}]*)\}")
_BIBITEM = re.compile(r"\\bibitem\s*(?:\[[^\]]*\])?\s*\{([^}]*)\}")
_WARNING_LINE = re.compile(r"\(line (\d+)\)|on input line (\d+)|lines? (\d+)")
_CITATION_WARNING = re.compile(r"Citation [`'](?P<key>[^']*)' undefined")


@dataclass(frozen=True)
class OpenItem:
    kind: str  # "todo" | "gap" | "citation" | "compile_error" | "compile_warning" | "figure_unused" | "number"
    message: str  # one line a person understands
    line: int | None  # 1-based line in report.tex to jump to (None when there is no place)
    detail: str = ""
    # the message as data, for other languages: item_words.ITEM_TEXT[code].format(**params);
    # not compared: `message` says the same
    code: str = field(default="", compare=False)
    params: dict[str, str] = field(default_factory=dict, compare=False)


def _item(
    kind: str, code: str, params: dict[str, Any], line: int | None, detail: str = ""
) -> OpenItem:
    """An item whose message is its code's sentence, filled from `params` (and shortened)."""
    words = {k: str(v) for k, v in params.items()}
    return OpenItem(kind, short(item_text(code, words)), line, detail, code, words)


def _todo_word(meta: RunRecord) -> str:
    """The template's placeholder word (TODO, 待补充 in the Chinese template)."""
    try:
        return load_template(meta.template).todo
    except (TemplateError, OSError):
        return "TODO"


def open_items(
    run_dir: Path, tex: str | None = None, compile_result: CompileResult | None = None
) -> list[OpenItem]:
    """What still needs a person in the current report (`tex`, else report.tex).

    Compile errors and warnings come from `compile_result` when given, else from
    run.json's last compile. Sorted by line (items without a line last), then
    by kind and message: the same input gives the same list.
    """
    run_dir = Path(run_dir)
    if tex is None:
        tex = RunDir(run_dir).report_text()
    meta = run_meta(run_dir)
    lines = tex.splitlines()
    word = _todo_word(meta)
    todos = _todo_lines(lines, word)
    gaps, gap_lines = _gap_items(run_dir, lines, todos, word)
    items = [_todo_item(lines[n - 1], n, word) for n in todos if n not in gap_lines]
    items += gaps
    citations = _citation_items(run_dir, lines)
    items += citations
    cited = {i.detail for i in citations}
    items += _compile_items(meta, compile_result, skip_citations=cited)
    items += _figure_items(run_dir, tex)
    items += _number_items(run_dir, tex, meta)
    return sorted(
        items, key=lambda i: (i.line is None, i.line or 0, KINDS.index(i.kind), i.message)
    )


def _todo_pattern(word: str) -> re.Pattern[str]:
    # "TODO" as a word (not in "TODOS"); a CJK word such as 待补充 has no word boundary.
    words = {re.escape(word), "TODO"}
    parts = [rf"(?<![A-Za-z]){w}(?![A-Za-z])" if w.isascii() else w for w in sorted(words)]
    return re.compile("|".join(parts))


def _markers(word: str) -> re.Pattern[str]:
    """A TODO *marker*, not the word in prose ("every TODO is for you"): \textbf{TODO:},
    {TODO} as a whole argument, "TODO:" with its colon. Comments are checked apart."""
    w = _todo_pattern(word).pattern
    return re.compile(rf"\\textbf\s*\{{\s*(?:{w})|\{{\s*(?:{w})\s*[:：]?\s*\}}|(?:{w})\s*[:：]")


def _todo_lines(lines: list[str], word: str) -> list[int]:
    marker, anywhere = _markers(word), _todo_pattern(word)
    out = []
    for n, line in enumerate(lines, 1):
        code = without_comment(line)
        comment = line[len(code) :]
        if marker.search(code) or anywhere.search(comment):  # `% TODO` marks its line
            out.append(n)
    return out


def _todo_item(line: str, n: int, word: str) -> OpenItem:
    code = without_comment(line)
    pattern = _todo_pattern(word)
    text = plain(code)
    placeholder = {"word": word, "line": line.strip()}  # \author{TODO} says no more
    which: str
    params: dict[str, Any]
    if text and not pattern.search(code):
        # `\item the method; % TODO`: the comment marks the line
        which, params = "todo_marked", {"word": word, "text": text}
    elif text:
        which, params = "todo_text", {"text": text}
        if pattern.fullmatch(text.strip(" :：")):
            which, params = "todo_placeholder", placeholder
    else:  # a comment line such as `% TODO: check the units`
        comment = " ".join(line[len(code) :].replace("%", " ").split())
        comment = re.sub(rf"(?:{pattern.pattern})[\s.:：]*$", "", comment)
        comment = re.sub(rf"^\s*(?:{pattern.pattern})\s*[:：]?", "", comment).strip(" :：")
        which, params = "todo_comment", {"word": word, "comment": comment}
        if not comment:
            which, params = "todo_placeholder", placeholder
    return _item("todo", which, params, n, line.strip())


def _gap_items(
    run_dir: Path, lines: list[str], todos: list[int], word: str
) -> tuple[list[OpenItem], set[int]]:
    """Requirements the material does not support (or that were not checked).

    Each goes to the TODO line that names it. One that no TODO names is open
    with no line, unless the generated draft had such a TODO and the person
    removed it (then it was dealt with).
    """
    draft_lines = generated_draft(run_dir).splitlines()
    draft_todos = _todo_lines(draft_lines, word)
    items, used = [], set()
    for gap in gap_records(run_dir):
        if gap.supported is True:
            continue
        requirement = gap.requirement.strip()
        key = norm(requirement)[:40]
        if not key:
            continue
        line = next((n for n in todos if key in norm(lines[n - 1])), None)
        if line is None and any(key in norm(draft_lines[n - 1]) for n in draft_todos):
            continue
        which = "gap_unsupported" if gap.supported is False else "gap_unchecked"
        params = {"requirement": requirement}
        items.append(_item("gap", which, params, line, gap.why))
        if line is not None:
            used.add(line)
    return items, used


def _bib_keys(run_dir: Path, tex: str) -> set[str]:
    import bibtexparser

    keys = set(_BIBITEM.findall(tex))  # a thebibliography block resolves its own keys
    bib = RunDir(run_dir).refs_text()
    if bib.strip():
        keys |= {entry.key for entry in bibtexparser.parse_string(bib).entries}
    return keys


def _citation_items(run_dir: Path, lines: list[str]) -> list[OpenItem]:
    known = _bib_keys(run_dir, "\n".join(lines))
    items, seen = [], set()
    for n, line in enumerate(lines, 1):
        for key in cite_keys(without_comment(line)):
            if key in known or key in seen:
                continue
            seen.add(key)
            items.append(_item("citation", "citation", {"key": key}, n, key))
    return items


def _compile_items(
    meta: RunRecord, result: CompileResult | None, *, skip_citations: set[str]
) -> list[OpenItem]:
    if result is not None:
        errors = [CompileErrorRecord(e.file, e.line, e.message, e.context) for e in result.errors]
        warnings = list(result.warnings)
    else:
        errors = list(meta.compile.errors) if meta.compile else []
        warnings = list(meta.compile.warnings) if meta.compile else []
    items = [_error_item(e) for e in errors]
    for warning in warnings:
        m = _CITATION_WARNING.search(warning)
        if m and m["key"] in skip_citations:
            continue  # already an unresolved citation
        items.append(_warning_item(str(warning)))
    return items


def _error_item(error: CompileErrorRecord) -> OpenItem:
    file, line = error.file, error.line
    first = error.message.strip().splitlines()
    message = first[0] if first else "error"
    if is_report(file):
        return _item("compile_error", "compile_error", {"message": message}, line, _context(error))
    where = f"{file}:{line}" if line else str(file)
    params = {"where": where, "message": message}
    return _item("compile_error", "compile_error_in", params, None, _context(error))


def _context(error: CompileErrorRecord) -> str:
    return error.context or error.message or ""


def _warning_item(warning: str) -> OpenItem:
    m = _WARNING_LINE.search(warning)
    line = int(next(g for g in m.groups() if g)) if m else None
    return _item("compile_warning", "compile_warning", {"warning": warning}, line, warning)


def included_figures(tex: str) -> list[str]:
    """The targets of \\includegraphics in the text (comments left out), as written."""
    return [
        target.strip()
        for line in tex.splitlines()
        for target in _INCLUDE.findall(without_comment(line))
    ]


def _figure_key(target: str) -> str:
    """figures/plot.pdf, ./figures/plot and figures/plot.png all name figure 'plot'."""
    path = Path(target.strip().removeprefix("./"))
    stem = path.stem if path.suffix.lower() in _FIGURE_EXTS else path.name
    return f"{path.parent.as_posix()}/{stem}"


def _figure_items(run_dir: Path, tex: str) -> list[OpenItem]:
    used = {_figure_key(t) for t in included_figures(tex)}
    run = RunDir(run_dir)
    try:
        names = run.figure_names()
    except OSError:  # figures/ is a link (RunLinkError) or unreadable: nothing listed
        names = []
    by_stem: dict[str, str] = {}
    for name in names:
        path = PurePosixPath(name)
        figure = path.suffix.lower() in _FIGURE_EXTS and not name.startswith(".")
        # one figure per stem (PDF and PNG of one plot); the PDF is what LaTeX includes
        if figure and (path.stem not in by_stem or path.suffix.lower() == ".pdf"):
            by_stem[path.stem] = name
    items = []
    for stem, name in sorted(by_stem.items()):
        if in_figures(stem) in used:
            continue
        sidecar = run.figure(stem)
        caption = sidecar.caption if sidecar is not None else ""
        which = "figure_unused_caption" if caption else "figure_unused"
        params = {"path": in_figures(name), "caption": caption}
        items.append(_item("figure_unused", which, params, None, in_figures(name)))
    return items


def _number_items(run_dir: Path, tex: str, meta: RunRecord) -> list[OpenItem]:
    """Numbers of the current text not found in the evidence (a fresh check, so edits count).
    A skeleton is not checked: its numbers were copied from the data by code."""
    if meta.skeleton or meta.config.offline:
        return []
    verification = verify_run(run_dir, tex)
    return [
        _item("number", item["code"], item["params"], item["line"], item["sentence"])
        for item in verification.open_items()
    ]
