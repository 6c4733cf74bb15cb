"""Review of a finished run: open items, why it is degraded, edits, diff, recompile.

Pure Python, no Qt: the review pane (gui/review_pane.py) calls these and shows
the results. Everything works on the *current* report.tex of a run directory
(or a text the caller passes), so the list follows the person's edits.

- `open_items` — what still needs a person: TODO markers, unmet requirements,
  unresolved citations, compile errors and warnings, figures not in the report,
  numbers not found in the material. Each with the line to jump to.
- `why_degraded` — the banner: which guard, on which call, what had been read.
- `generated_draft` / `save_edit` / `diff_lines` — the pipeline's last draft
  (never touched by edits), the person's version (written atomically), and what
  changed between them.
- `recompile` — builds report.tex in `build-review/` and publishes report.pdf
  (and report.synctex.gz) only after a successful build.
"""

from __future__ import annotations

import dataclasses
import difflib
import json
import re
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from labwright.core.reasons import Degrade, Reason, reason_text
from labwright.core.report.item_words import item_text
from labwright.core.report.latex import CompileResult, Engines, LogError, compile_tex, probe_engines
from labwright.core.report.latex.build import publish_file
from labwright.core.report.writing import cite_keys
from labwright.core.rundir.store import atomic_write_json, atomic_write_text, read_journal

REVIEW_BUILD = "build-review"
KINDS = (
    "compile_error",
    "todo",
    "gap",
    "citation",
    "number",
    "compile_warning",
    "figure_unused",
)  # the order of items that share a line
_MESSAGE_CHARS = 160
_FIGURE_EXTS = (".pdf", ".png", ".jpg", ".jpeg")
_INCLUDE = re.compile(r"\\includegraphics\*?\s*(?:\[[^\]]*\])?\s*\{([^}]*)\}")
_BIBITEM = re.compile(r"\\bibitem\s*(?:\[[^\]]*\])?\s*\{([^}]*)\}")
_COMMENT = re.compile(r"(?<!\\)%")
_SIMPLE_CMD = re.compile(r"\\[a-zA-Z]+\*?\s*\{([^{}]*)\}")
_ANY_CMD = re.compile(r"\\[a-zA-Z]+\*?|\\.")
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
    return OpenItem(kind, _short(item_text(code, words)), line, detail, code, words)


# -- reading a run directory --------------------------------------------------


def _json(path: Path, default: Any) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return default


def _meta(run_dir: Path) -> dict[str, Any]:
    meta = _json(run_dir / "run.json", {})
    return meta if isinstance(meta, dict) else {}


def _journal(run_dir: Path) -> list[dict[str, Any]]:
    try:
        return read_journal(run_dir)
    except OSError:
        return []


def _todo_word(meta: dict[str, Any]) -> str:
    """The template's placeholder word (TODO, 待补充 in the Chinese template)."""
    from labwright.core.report.templates import TemplateError, load_template

    try:
        return load_template(meta.get("template")).todo
    except (TemplateError, OSError):
        return "TODO"


def _short(text: str, limit: int = _MESSAGE_CHARS) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _code(line: str) -> str:
    """A line without its comment (an unescaped %)."""
    m = _COMMENT.search(line)
    return line[: m.start()] if m else line


def _plain(tex: str) -> str:
    """LaTeX markup reduced to its words, for messages: \\textbf{TODO:} x -> TODO: x."""
    previous = None
    while previous != tex:  # nested \emph{\textbf{...}} unwrap one level per pass
        previous, tex = tex, _SIMPLE_CMD.sub(r"\1", tex)
    tex = _ANY_CMD.sub(" ", tex).replace("{", "").replace("}", "").replace("~", " ")
    return " ".join(tex.split())


def _norm(text: str) -> str:
    """Letters and digits only, lower case: matches a requirement to its escaped TeX."""
    return "".join(ch for ch in _plain(text).lower() if ch.isalnum())


# -- open items -----------------------------------------------------------------


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
        tex = _read(run_dir / "report.tex")
    meta = _meta(run_dir)
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


def _read(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return ""


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
        code = _code(line)
        comment = line[len(code) :]
        if marker.search(code) or anywhere.search(comment):  # `% TODO` marks its line
            out.append(n)
    return out


def _todo_item(line: str, n: int, word: str) -> OpenItem:
    code = _code(line)
    pattern = _todo_pattern(word)
    text = _plain(code)
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
    gaps = _json(run_dir / "gaps.json", [])
    draft_lines = generated_draft(run_dir).splitlines()
    draft_todos = _todo_lines(draft_lines, word)
    items, used = [], set()
    for gap in gaps if isinstance(gaps, list) else []:
        if not isinstance(gap, dict) or gap.get("supported") is True:
            continue
        requirement = str(gap.get("requirement", "")).strip()
        key = _norm(requirement)[:40]
        if not key:
            continue
        line = next((n for n in todos if key in _norm(lines[n - 1])), None)
        if line is None and any(key in _norm(draft_lines[n - 1]) for n in draft_todos):
            continue
        which = "gap_unsupported" if gap.get("supported") is False else "gap_unchecked"
        params = {"requirement": requirement}
        items.append(_item("gap", which, params, line, str(gap.get("why", ""))))
        if line is not None:
            used.add(line)
    return items, used


def _bib_keys(run_dir: Path, tex: str) -> set[str]:
    import bibtexparser

    keys = set(_BIBITEM.findall(tex))  # a thebibliography block resolves its own keys
    bib = _read(run_dir / "refs.bib")
    if bib.strip():
        keys |= {entry.key for entry in bibtexparser.parse_string(bib).entries}
    return keys


def _citation_items(run_dir: Path, lines: list[str]) -> list[OpenItem]:
    known = _bib_keys(run_dir, "\n".join(lines))
    items, seen = [], set()
    for n, line in enumerate(lines, 1):
        for key in cite_keys(_code(line)):
            if key in known or key in seen:
                continue
            seen.add(key)
            items.append(_item("citation", "citation", {"key": key}, n, key))
    return items


def _compile_items(
    meta: dict[str, Any], result: CompileResult | None, *, skip_citations: set[str]
) -> list[OpenItem]:
    if result is not None:
        errors = [dataclasses.asdict(e) for e in result.errors]
        warnings = list(result.warnings)
    else:
        entry = meta.get("compile") or {}
        errors = list(entry.get("errors") or [])
        warnings = list(entry.get("warnings") or [])
    items = [_error_item(e) for e in errors if isinstance(e, dict)]
    for warning in warnings:
        m = _CITATION_WARNING.search(warning)
        if m and m["key"] in skip_citations:
            continue  # already an unresolved citation
        items.append(_warning_item(str(warning)))
    return items


def _in_report(file: str | None) -> bool:
    return not file or Path(file).name == "report.tex"


def _error_item(error: dict[str, Any]) -> OpenItem:
    file, line = error.get("file"), error.get("line")
    first = str(error.get("message", "")).strip().splitlines()
    message = first[0] if first else "error"
    if _in_report(file):
        return _item("compile_error", "compile_error", {"message": message}, line, _context(error))
    where = f"{file}:{line}" if line else str(file)
    params = {"where": where, "message": message}
    return _item("compile_error", "compile_error_in", params, None, _context(error))


def _context(error: dict[str, Any]) -> str:
    return str(error.get("context") or error.get("message") or "")


def _warning_item(warning: str) -> OpenItem:
    m = _WARNING_LINE.search(warning)
    line = int(next(g for g in m.groups() if g)) if m else None
    return _item("compile_warning", "compile_warning", {"warning": warning}, line, warning)


def included_figures(tex: str) -> list[str]:
    """The targets of \\includegraphics in the text (comments left out), as written."""
    return [target.strip() for line in tex.splitlines() for target in _INCLUDE.findall(_code(line))]


def _figure_key(target: str) -> str:
    """figures/plot.pdf, ./figures/plot and figures/plot.png all name figure 'plot'."""
    path = Path(target.strip().removeprefix("./"))
    stem = path.stem if path.suffix.lower() in _FIGURE_EXTS else path.name
    return f"{path.parent.as_posix()}/{stem}"


def _figure_items(run_dir: Path, tex: str) -> list[OpenItem]:
    used = {_figure_key(t) for t in included_figures(tex)}
    folder = run_dir / "figures"
    if not folder.is_dir():
        return []
    by_stem: dict[str, Path] = {}
    for path in sorted(folder.iterdir()):
        figure = path.suffix.lower() in _FIGURE_EXTS and not path.name.startswith(".")
        # one figure per stem (PDF and PNG of one plot); the PDF is what LaTeX includes
        if figure and (path.stem not in by_stem or path.suffix.lower() == ".pdf"):
            by_stem[path.stem] = path
    items = []
    for stem, path in sorted(by_stem.items()):
        if f"figures/{stem}" in used:
            continue
        caption = str(_json(folder / f"{stem}.json", {}).get("caption", "") or "")
        which = "figure_unused_caption" if caption else "figure_unused"
        params = {"path": f"figures/{path.name}", "caption": caption}
        items.append(_item("figure_unused", which, params, None, f"figures/{path.name}"))
    return items


def _number_items(run_dir: Path, tex: str, meta: dict[str, Any]) -> list[OpenItem]:
    """Numbers of the current text not found in the evidence (a fresh check, so edits count).
    A skeleton is not checked: its numbers were copied from the data by code."""
    from labwright.core.report.verify import verify_run

    if meta.get("skeleton") or (meta.get("config") or {}).get("offline"):
        return []
    verification = verify_run(run_dir, tex)
    return [
        _item("number", item["code"], item["params"], item["line"], item["sentence"])
        for item in verification.open_items()
    ]


# -- why a run is degraded ------------------------------------------------------------


def why_degraded(run_dir: Path) -> str | None:
    """In plain words, why the run is degraded and what to check; None when it is not.

    From run.json's reasons, findings.json (what had been read) and the journal
    (which guard fired on which call). One or two sentences per reason.
    """
    run_dir = Path(run_dir)
    meta = _meta(run_dir)
    reasons = [str(r) for r in meta.get("reasons") or []]
    if not reasons:
        return None
    ctx = _Context(run_dir, meta)
    return " ".join(_explain(reason, ctx) for reason in reasons)


class _Context:
    """What the explanations read: run.json, the journal, findings.json."""

    def __init__(self, run_dir: Path, meta: dict[str, Any]) -> None:
        self.meta = meta
        self.journal = _journal(run_dir)
        findings = _json(run_dir / "findings.json", {})
        self.findings: dict[str, Any] = findings if isinstance(findings, dict) else {}

    def last_guard(self, kinds: tuple[str, ...], contains: str = "") -> str | None:
        for event in reversed(self.journal):
            if event.get("type") == "guard" and event.get("kind") in kinds:
                detail = str(event.get("detail", ""))
                if contains in detail:
                    return detail
        return None

    def last_call(self) -> str | None:
        from labwright.core.agent.guards import describe_call

        for event in reversed(self.journal):
            if event.get("type") == "tool_call":
                return describe_call(str(event.get("name")), event.get("args"))
        return None

    def errors(self) -> list[dict[str, Any]]:
        return [e for e in self.journal if e.get("type") == "error"]

    def files_read(self) -> str:
        files = [str(f) for f in self.findings.get("files_read") or []]
        if not files:
            return "Nothing had been read by then, so the draft rests on no material."
        shown = ", ".join(files[:8]) + (f" and {len(files) - 8} more" if len(files) > 8 else "")
        n = len(files)
        return (
            f"This draft was written from the {n} file{'s' if n != 1 else ''} read before "
            f"that: {shown}. Check that every number and claim comes from them."
        )


def _what(detail: str | None) -> str | None:
    """A guard's stop detail without its tail ("…; exploration stopped and …")."""
    if not detail:
        return None
    what = detail.split(";")[0].strip().rstrip(".")
    ordinary = what[:1].isupper() and what[1:2].islower()  # "No finish…", not "CSV" or a path
    return what[:1].lower() + what[1:] if ordinary else what


def _explain(reason: str, ctx: _Context) -> str:
    """The table's sentence for the reason (core/reasons.py), then what this run adds."""
    parsed = Degrade.parse(reason)
    base = reason_text(parsed if parsed is not None else reason)
    if parsed is None:
        return base
    specific = _SPECIFIC.get(parsed.reason)
    more = specific(parsed, ctx) if specific is not None else None
    return f"{base} {more}" if more else base


def _stopped_by(kinds: tuple[str, ...], contains: str = "") -> Callable[[Degrade, _Context], str]:
    """An exploration stopped by a guard: which call tripped it, and what had been read."""

    def specific(d: Degrade, ctx: _Context) -> str:
        what = _what(ctx.last_guard(kinds, contains))
        if what is None and "loop_stop" in kinds:
            call = ctx.last_call()
            what = f"{call} was asked again and again" if call else None
        return f"{_sentence(what)}{ctx.files_read()}"

    return specific


def _sentence(what: str | None) -> str:
    return f"Details: {what}. " if what else ""


def _iteration_cap(d: Degrade, ctx: _Context) -> str:
    return f"{_sentence(_what(ctx.findings.get('detail')))}{ctx.files_read()}"


def _budget(d: Degrade, ctx: _Context) -> str:
    detail = _what(ctx.last_guard(("budget",), "reached")) or "no budget left"
    if ctx.findings.get("reason") == Reason.BUDGET.value:
        return f"Exploration stopped: {detail}. {ctx.files_read()}"
    if ctx.meta.get("skeleton"):
        return f"It ran out while writing ({detail}): this draft is the skeleton with TODOs."
    return f"It ran out while writing ({detail}): the revision was cut short."


def _compile_failed(d: Degrade, ctx: _Context) -> str | None:
    errors = (ctx.meta.get("compile") or {}).get("errors") or []
    if not errors:
        return None
    first = errors[0]
    lines = str(first.get("message") or "error").strip().splitlines() or ["error"]
    message = _short(lines[0]).rstrip(".")
    where = f" at line {first['line']}" if first.get("line") else ""
    return f"First error{where}: {message}. Fix it in the editor and recompile."


def _model_failed(d: Degrade, ctx: _Context) -> str:
    if ctx.meta.get("ended_by") == str(d):
        tail = "The run stopped there."
    else:
        tail = "The run went on without it; check what that stage should have done."
    errors = ctx.errors()
    if not errors:
        return tail
    last = errors[-1]
    message = _short(str(last.get("message", "")), 120)
    return f"It failed during the {last.get('stage', 'run')} stage: {message} {tail}"


def _model_error(d: Degrade, ctx: _Context) -> str:
    detail = _short(str(ctx.findings.get("detail") or "no answer"), 160)
    return f"{_sentence(detail.rstrip('.'))}{ctx.files_read()}"


def _numbers(d: Degrade, ctx: _Context) -> str:
    return "The open items list those still in the text."


# What a run directory adds to the table's sentence, per reason (None: nothing to add).
_SPECIFIC: dict[Reason, Callable[[Degrade, _Context], str | None]] = {
    Reason.LOOP: _stopped_by(("loop_stop",)),
    Reason.CYCLE: _stopped_by(("cycle",), "stopped"),
    Reason.WANDER: _stopped_by(("wander",), "stopped"),
    Reason.ITERATION_CAP: _iteration_cap,
    Reason.CUT_SHORT: _iteration_cap,
    Reason.BUDGET: _budget,
    Reason.COMPILE_FAILED: _compile_failed,
    Reason.MODEL_FAILED: _model_failed,
    Reason.MODEL_ERROR: _model_error,
    Reason.EXPLORE_CANCELLED: lambda d, ctx: ctx.files_read(),
    Reason.NUMBERS_UNMATCHED: _numbers,
}


# -- the generated draft, the person's edit, the diff -----------------------------------


def _draft_number(path: Path) -> int | None:
    digits = path.stem[1:]
    return int(digits) if path.stem.startswith("v") and digits.isdigit() else None


def generated_draft(run_dir: Path) -> str:
    """The last version the pipeline wrote: the baseline of the diff view.

    drafts/v<N>.tex where N is the version of the journal's last `draft` event,
    else the highest N; "" when the run has no draft.
    """
    run_dir = Path(run_dir)
    drafts = {
        n: p for p in (run_dir / "drafts").glob("v*.tex") if (n := _draft_number(p)) is not None
    }
    if not drafts:
        return ""
    announced = [e.get("version") for e in _journal(run_dir) if e.get("type") == "draft"]
    last = announced[-1] if announced else None
    return _read(drafts[last] if last in drafts else drafts[max(drafts)])


def save_edit(run_dir: Path, text: str) -> None:
    """Write the person's version to report.tex, atomically (temp file + rename).

    Cheap to call every second: an unchanged text is not written again (so the
    file's time stays and latexmk sees nothing new). drafts/ is never touched.
    """
    path = Path(run_dir) / "report.tex"
    try:
        if path.read_bytes() == text.encode("utf-8"):
            return
    except OSError:
        pass
    atomic_write_text(path, text)


def diff_lines(before: str, after: str) -> list[tuple[str, str]]:
    """What changed from `before` to `after`, as (op, text) hunks in order.

    op is "equal", "delete" or "insert"; text is whole lines with their line
    ends. A changed block is a "delete" hunk (the old lines) followed by an
    "insert" hunk (the new ones), so a view can colour each side; "replace" is
    never returned. Joining the "equal" and "insert" texts gives `after` back.
    """
    a, b = before.splitlines(keepends=True), after.splitlines(keepends=True)
    hunks: list[tuple[str, str]] = []
    matcher = difflib.SequenceMatcher(None, a, b, autojunk=False)
    for op, i1, i2, j1, j2 in matcher.get_opcodes():
        if op in ("delete", "replace"):
            hunks.append(("delete", "".join(a[i1:i2])))
        if op in ("insert", "replace"):
            hunks.append(("insert", "".join(b[j1:j2])))
        if op == "equal":
            hunks.append(("equal", "".join(a[i1:i2])))
    return hunks


def unified_diff(before: str, after: str, context: int = 3) -> str:
    """The same change as a unified diff (generated draft -> report.tex)."""
    return "".join(
        difflib.unified_diff(
            before.splitlines(keepends=True),
            after.splitlines(keepends=True),
            "generated/report.tex",
            "edited/report.tex",
            n=context,
        )
    )


# -- recompile ---------------------------------------------------------------------------

_LOCKS: dict[Path, threading.Lock] = {}
_LOCKS_GUARD = threading.Lock()


def _lock(run_dir: Path) -> threading.Lock:
    # Two recompiles of one run would share build-review/; the second waits for the first.
    with _LOCKS_GUARD:
        return _LOCKS.setdefault(run_dir.resolve(), threading.Lock())


def recompile(
    run_dir: Path,
    *,
    engines: Engines | None = None,
    cancel: Callable[[], bool] | None = None,
    secrets: Sequence[str | None] = (),
) -> CompileResult:
    """Compile the current report.tex in run_dir/build-review.

    Only a successful build replaces report.pdf (atomically) and report.synctex.gz;
    after a failure the last good PDF stays byte for byte and the result's `pdf`
    points at it (None if there never was one). run.json's "compile" entry (and
    its compile_failed reason) is updated. Never raises for TeX problems.
    """
    run_dir = Path(run_dir)
    engines = engines or probe_engines()
    with _lock(run_dir):
        result = compile_tex(
            run_dir / "report.tex",
            engines=engines,
            build_dir=run_dir / REVIEW_BUILD,
            cancel=cancel,
            publish=False,
            secrets=secrets,
        )
        final = run_dir / "report.pdf"
        if result.ok and result.pdf is not None:
            publish_file(result.pdf, final)
            synctex = result.pdf.with_name(f"{result.pdf.stem}.synctex.gz")
            if synctex.is_file():
                publish_file(synctex, run_dir / "report.synctex.gz")
        result = dataclasses.replace(result, pdf=final if final.is_file() else None)
        if not (cancel is not None and cancel()):  # a cancelled build says nothing of the text
            _record_compile(run_dir, result)
    return result


def _record_compile(run_dir: Path, result: CompileResult) -> None:
    path = run_dir / "run.json"
    meta = _json(path, None)
    if not isinstance(meta, dict):
        return  # not a run directory we can describe; the PDF is still published
    meta["compile"] = {
        "ok": result.ok,
        "errors": [_error_dict(e) for e in result.errors[:10]],
        "warnings": result.warnings[:20],
        "seconds": result.seconds,
        "fix_rounds": 0,
        "by": "review",
    }
    failed = Reason.COMPILE_FAILED.value
    reasons = [r for r in meta.get("reasons") or [] if r != failed]
    if not result.ok:
        reasons.append(failed)
    meta["reasons"] = reasons
    atomic_write_json(path, meta)


def _error_dict(e: LogError) -> dict[str, Any]:
    return {"file": e.file, "line": e.line, "message": e.message, "context": e.context}
