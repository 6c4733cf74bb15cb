"""The writing stages: gap, draft (validate + retry), reflect, bib, compile fixes.

Each stage is a generator: it yields its events (model calls, guards) and
returns its result, so pipeline.py reads as the list of stages it runs. The
write model gets the findings, the evidence excerpts actually read (file and
line range), the figures, the gaps and the template — never the raw loop
transcript.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Generator, Sequence
from dataclasses import dataclass, field, replace
from functools import partial
from typing import TYPE_CHECKING, Any

from labwright.core.agent.guards import Budget, RunClock
from labwright.core.events import Event, Guard, LLMCall
from labwright.core.llm.client import LLM, LLMError, Reply, TimeUp, Usage
from labwright.core.llm.inflight import Feed, in_flight
from labwright.core.report.latex.jail import secret_values
from labwright.core.report.templates import Template
from labwright.core.resources import prompt
from labwright.core.rundir.names import in_figures
from labwright.core.rundir.records import EvidenceRecord, FigureRecord, FindingsRecord, GapRecord
from labwright.core.settings.config import RunConfig
from labwright.core.step_words import Words

if TYPE_CHECKING:  # the offline package (tables, plots) is imported only when a run needs it
    from labwright.core.report.offline.requirements import Requirement

MAX_FORMAT_RETRIES = 3
EVIDENCE_CHARS = 60_000  # what the write model sees of the evidence, in all
EXCERPT_CHARS = 6_000  # of one excerpt

_LEAKS = [
    (re.compile(r"<｜[^<>\n]{0,80}｜>"), "model control tokens (<｜…｜>)"),
    (re.compile(r"｜DSML｜|<\s*/?\s*DSML", re.I), "DeepSeek DSML tool markup"),
    (re.compile(r"</?tool_call>|</?function_calls>|<invoke\b", re.I), "tool-call markup"),
    (re.compile(r"\"?\btool_calls\b\"?\s*[:=]|\btool_calls\b", re.I), "tool_calls JSON"),
]
# A model that thinks inside its answer (a reasoning model served without a reasoning
# parser) opens with <think>…</think>; an unclosed one is all thinking.
_THINKING = re.compile(r"\A\s*<think>(?:.*?</think>\s*|.*\Z)", re.S)
_FENCE = re.compile(r"```[a-zA-Z]*[ \t]*\n(.*?)```", re.S)
_CITE = re.compile(r"\\cite[a-zA-Z]*\*?(?:\[[^\]]*\]){0,2}\{([^}]*)\}")


# -- validation -------------------------------------------------------------


def strip_fences(text: str) -> str:
    """Markdown fences around the document are noise, not an error: take what is inside."""
    text = text.strip()
    blocks = _FENCE.findall(text)
    for block in blocks:
        if "\\documentclass" in block:
            return block.strip()
    if text.startswith("```"):
        text = re.sub(r"^```[a-zA-Z]*[ \t]*\n?", "", text)
        text = re.sub(r"\n?```\s*$", "", text)
    return text.strip()


def latex_problems(text: str) -> list[str]:
    """Why a text is not a whole LaTeX document we can keep (empty list: it is)."""
    problems = []
    for needle in ("\\documentclass", "\\begin{document}", "\\end{document}"):
        if needle not in text:
            problems.append(f"no {needle}")
    for pattern, what in _LEAKS:
        if pattern.search(text):
            problems.append(f"it contains {what}")
    return problems


def cite_keys(tex: str) -> list[str]:
    keys: list[str] = []
    for group in _CITE.findall(tex):
        for key in group.split(","):
            key = key.strip()
            if key and key not in keys:
                keys.append(key)
    return keys


def changed_materially(before: str, after: str) -> bool:
    """Any change of content counts; re-wrapping and whitespace do not."""
    return before.split() != after.split()


# -- the model, with accounting and the budget ------------------------------


@dataclass
class Writer:
    config: RunConfig
    llm: LLM | None
    usage: Usage
    template: Template
    notes: list[str] = field(default_factory=list)
    # Sees a document as the model writes it: ("start", role) before each streamed
    # answer, then ("delta", piece)s. The app shows the draft growing; None: no streaming.
    on_text: Callable[[str, str], None] | None = None
    clock: RunClock | None = None  # the run's time budget (--max-minutes)

    def __post_init__(self) -> None:
        # the run's token, money and time budgets (guards.Budget), over every stage
        self.budget = Budget(self.config, self.usage, clock=self.clock)

    @property
    def exhausted(self) -> bool:
        return self.budget.exhausted

    def without_model(self) -> Writer:
        """This writer with no model: what needs one is left undone, the rest (e.g. the
        material's own references) still is. The budget, notes and stream are shared."""
        other = replace(self, llm=None)
        other.budget, other.notes = self.budget, self.notes
        return other

    def take_notes(self) -> list[str]:
        """The notes since the last call: what went wrong without stopping anything."""
        notes, self.notes[:] = list(self.notes), []
        return notes

    @property
    def warned(self) -> bool:
        """Past the wrap-up share of a budget: no more optional model work (reflection)."""
        return self.budget.warned

    def ask(
        self, role: str, messages: list[dict[str, Any]], *, stream: bool = False
    ) -> Generator[Event, None, Reply]:
        """One call of the write model, streamed so its progress shows while it writes.
        `stream`: the answer is a document, whose pieces also go to `on_text`. The reply's
        content is the answer only: reasoning is never part of it."""
        llm = self.llm
        assert llm is not None
        c = self.config
        show = self.on_text if stream else None
        # every role here writes: they share the write deadline; max_tokens is per role
        limits: dict[str, Any] = {
            "model": c.write_model,
            "messages": messages,
            "max_tokens": c.tokens_for(role),
            "deadline_s": c.write_deadline_s,
        }

        def call(feed: Feed) -> Reply:
            return llm.stream(
                **limits,
                on_progress=feed.progress,
                on_delta=feed.piece if show is not None else None,
                on_retry=feed.restart if show is not None else None,
                cancelled=feed.cancelled,
            )

        try:
            if show is not None:
                show("start", role)
            reply = yield from in_flight(
                role,
                c.write_model,
                call,
                cancelled=llm.cancelled,
                on_piece=partial(show, "delta") if show is not None else None,
                # the shown text starts over
                on_restart=partial(show, "start", role) if show is not None else None,
            )
        except TimeUp as e:  # the run's clock, not the call's own deadline
            yield from self.budget.out_of_time(str(e)).events
            raise
        except LLMError as e:
            if e.kind == "deadline":
                yield Guard(
                    "deadline", Words("deadline", role=role, seconds=f"{c.write_deadline_s:g}")
                )
            raise
        self.usage.add(role, reply)
        yield LLMCall(
            role,
            reply.model,
            reply.prompt_tokens,
            reply.completion_tokens,
            reply.ms,
            reply.reasoning_tokens,
        )
        yield from self.budget.check().events  # the wrap-up warning once, then the stop
        return replace(reply, content=_THINKING.sub("", reply.content, count=1))

    def ask_for_document(
        self, role: str, messages: list[dict[str, Any]]
    ) -> Generator[Event, None, str | None]:
        """A whole LaTeX document, retried with a stricter instruction up to 3 times."""
        messages = list(messages)
        for attempt in range(MAX_FORMAT_RETRIES + 1):
            if self.exhausted:
                return None
            reply = yield from self.ask(role, messages, stream=True)
            text = strip_fences(reply.content)
            problems = latex_problems(text)
            if not problems:
                return text
            if attempt == MAX_FORMAT_RETRIES:
                said = Words(
                    "format_failed", role=role, of=MAX_FORMAT_RETRIES, problems="; ".join(problems)
                )
                yield Guard("format_retry", said)
                return None
            said = Words(
                "format_retry",
                role=role,
                problems="; ".join(problems),
                n=attempt + 1,
                of=MAX_FORMAT_RETRIES,
            )
            yield Guard("format_retry", said)
            messages += [
                {"role": "assistant", "content": reply.content[:4000]},
                {"role": "user", "content": prompt("retry", problems="; ".join(problems))},
            ]
        return None


# -- what the model is shown -------------------------------------------------


def evidence_text(evidence: Sequence[EvidenceRecord], limit: int = EVIDENCE_CHARS) -> str:
    parts: list[str] = []
    used = 0
    for e in evidence:
        where = e.path
        if e.offset is not None and e.end is not None:
            where += f" (lines {e.offset}–{e.end})"
        if e.kind == "image":
            where += f" (image; asked: {e.question or ''})"
        if e.kind == "analysis_output":  # what analyze printed, and what it computed
            inputs = ", ".join(str(p) for p in e.inputs or []) or "no data file named"
            where += f" (printed by the analysis: {e.purpose or ''}; data: {inputs})"
        body = e.text[:EXCERPT_CHARS]
        block = f"## {where}\n{body}\n"
        if used + len(block) > limit:
            parts.append(f"[{len(evidence) - len(parts)} more excerpts left out for length]")
            break
        parts.append(block)
        used += len(block)
    return "\n".join(parts) or "(nothing was read)"


def evidence_index(evidence: Sequence[EvidenceRecord]) -> str:
    lines = []
    for e in evidence:
        head = " ".join(e.text.split())[:100]
        span = f" lines {e.offset}–{e.end}" if e.offset is not None else ""
        lines.append(f"- {e.path}{span}: {head}")
    return "\n".join(lines) or "(nothing was read)"


def figures_text(figures: Sequence[FigureRecord]) -> str:
    return (
        "\n".join(f"- {in_figures(f.filename + '.pdf')}: {f.caption}" for f in figures) or "(none)"
    )


def material_refs(documents: list[str]) -> list[dict[str, str]]:
    """The folder's own documents as citable references (their keys are deterministic)."""
    refs, seen = [], set()
    for path in documents:
        stem = path.rsplit("/", 1)[-1].rsplit(".", 1)[0]
        key = "mat:" + (re.sub(r"[^A-Za-z0-9]+", "-", stem).strip("-").lower()[:40] or "doc")
        if key in seen:
            continue
        seen.add(key)
        refs.append({"key": key, "title": stem, "path": path})
    return refs


# -- the stages ---------------------------------------------------------------


def gap_entry(r: Requirement, supported: bool | None, why: str) -> GapRecord:
    """One line of gaps.json: the requirement, its verdict, and its part and source."""
    return GapRecord(r.text, supported, why, part=r.part or None, source=r.source or None)


def check_gaps(
    w: Writer,
    requirements: Sequence[Requirement],
    evidence: Sequence[EvidenceRecord],
    figures: Sequence[FigureRecord],
) -> Generator[Event, None, list[GapRecord]]:
    """Each requirement, supported by the material or not (unsupported ones become TODOs)."""
    # on use: report.offline (~65 ms, plots and the analysis library) stays out of the review pane
    from labwright.core.report.offline.requirements import requirements_text

    if not requirements:
        return []
    unchecked = [gap_entry(r, None, "not checked") for r in requirements]
    if w.llm is None or w.exhausted:
        return unchecked
    reply = yield from w.ask(
        "write",
        [
            {
                "role": "user",
                "content": prompt(
                    "gap",
                    requirements=requirements_text(requirements, sources=False),
                    evidence=evidence_index(evidence),
                    figures=figures_text(figures),
                ),
            }
        ],
    )
    try:
        items = json.loads(strip_fences(reply.content))
        by_req = {str(i["requirement"]).strip(): i for i in items if isinstance(i, dict)}
    except (json.JSONDecodeError, TypeError, KeyError):
        w.notes.append("The gap check answer was not JSON; the requirements were left unchecked.")
        return unchecked
    out: list[GapRecord] = []
    for r in requirements:
        item = by_req.get(r.text.strip())
        if item is None:
            out.append(gap_entry(r, None, "not answered"))
        else:
            out.append(gap_entry(r, bool(item.get("supported")), str(item.get("why", ""))))
    return out


def _findings_summary(findings: FindingsRecord) -> dict[str, Any]:
    """What the draft prompt shows of the findings: the conclusion, then how the
    exploration ended, without what was gathered and the figures (shown on their own)."""
    shown = {k: getattr(findings, k) for k in FindingsRecord.CONCLUSION}
    shown.update(findings.unknown)
    shown.update(
        status=findings.status,
        reason=findings.reason,
        detail=findings.detail,
        files_read=findings.files_read,
    )
    return {k: v for k, v in shown.items() if v not in (None, "", [])}


def draft(
    w: Writer,
    findings: FindingsRecord,
    evidence: Sequence[EvidenceRecord],
    figures: Sequence[FigureRecord],
    gaps: Sequence[GapRecord],
    refs: list[dict[str, str]],
    note: str | None = None,
    requirements: Sequence[Requirement] = (),
) -> Generator[Event, None, str | None]:
    """The first draft. `note` is the person's instruction for a re-draft ("use SI units");
    `requirements` the manual's tasks and questions, by part, for the report to answer."""
    # on use: report.offline (~65 ms, plots and the analysis library) stays out of the review pane
    from labwright.core.report.offline.requirements import requirements_text

    t = w.template
    summary = _findings_summary(findings)
    system = prompt(
        "draft_system",
        preamble=t.preamble,
        title_hint=f"{t.title}: {findings.experiment or 'the experiment'}",
        sections=", ".join(t.sections),
        language="Simplified Chinese" if t.lang == "zh" else "English",
        todo=t.todo,
        bibstyle=t.bibliography_style,
    )
    user = prompt(
        "draft_user",
        findings=json.dumps(summary, ensure_ascii=False, indent=1),
        gaps="\n".join(f"- {g.requirement}" for g in gaps if g.supported is not True) or "(none)",
        requirements=requirements_text(requirements) or "(none found in the material)",
        figures=figures_text(figures),
        references="\n".join(f"- {r['key']}: {r['title']} ({r['path']})" for r in refs) or "(none)",
        evidence=evidence_text(evidence),
        notes=prompt("draft_note", note=note.strip()) if note and note.strip() else "",
    )
    messages = [{"role": "system", "content": system}, {"role": "user", "content": user}]
    return (yield from w.ask_for_document("write", messages))


def numbers_text(unmatched: list[dict[str, Any]]) -> str:
    """Untraced numbers for the model: each with its line, its sentence, the closest value."""
    lines = []
    for item in unmatched[:40]:
        unit = f" {item['unit']}" if item.get("unit") else ""
        near = item.get("nearest")
        closest = ""
        if near:
            closest = (
                f" Closest in the material: {near['text']} ({near['path']}, {near['location']})."
            )
        lines.append(
            f'- line {item["line"]}: {item["text"]}{unit} in "{item["sentence"]}".{closest}'
        )
    if len(unmatched) > 40:
        lines.append(f"- ... and {len(unmatched) - 40} more")
    return "\n".join(lines)


def reflect_round(
    w: Writer,
    tex: str,
    evidence: Sequence[EvidenceRecord],
    unmatched: list[dict[str, Any]] | None = None,
) -> Generator[Event, None, tuple[str, bool]]:
    """One critique + revision. Returns (text, converged).

    `unmatched` are the numbers the deterministic check could not trace to the evidence:
    the critique must list them and the revision must fix or justify each one, so a round
    with any of them never counts as converged on the critic's word alone.
    """
    unmatched = unmatched or []
    shown = numbers_text(unmatched) if unmatched else "(none: every number was traced)"
    critique_msgs = [
        {
            "role": "user",
            "content": prompt(
                "critique", evidence=evidence_text(evidence, 30_000), draft=tex, numbers=shown
            ),
        }
    ]
    critique = yield from w.ask("reflect", critique_msgs)
    issues = critique.content.strip()
    no_issues = not issues or re.fullmatch(r"\W*no issues\W*", issues, re.I)
    if no_issues and not unmatched:
        return tex, True
    if no_issues:
        issues = ""
    revision = yield from w.ask_for_document(
        "reflect",
        [
            *critique_msgs,
            {"role": "assistant", "content": issues or "NO ISSUES"},
            {
                "role": "user",
                "content": prompt(
                    "revise",
                    critique=issues or "(none besides the numbers below)",
                    numbers=prompt("numbers", numbers=numbers_text(unmatched)) if unmatched else "",
                ),
            },
        ],
    )
    if revision is None:
        return tex, True  # an unusable revision ends reflection; the last good text stays
    return revision, not changed_materially(tex, revision)


def fix_compile(w: Writer, tex: str, errors: list[Any]) -> Generator[Event, None, str | None]:
    shown = "\n\n".join(f"{e.file}:{e.line}: {e.message}\n{e.context}" for e in errors[:5])
    for secret in secret_values([w.config.api_key]):  # compile_tex never saw a keyring key
        shown = shown.replace(secret, "[redacted]")
    return (
        yield from w.ask_for_document(
            "fix", [{"role": "user", "content": prompt("fix", errors=shown, source=tex)}]
        )
    )


def build_bib(
    w: Writer, tex: str, refs: list[dict[str, str]]
) -> Generator[Event, None, tuple[str, list[str]]]:
    """refs.bib: the material's own documents, plus model entries for other cited keys.

    Entries go through a real BibTeX parser; what does not parse is dropped.
    Returns (bib text, cited keys that still have no entry).
    """
    import bibtexparser
    from bibtexparser.model import Entry, Field

    cited = cite_keys(tex)
    entries: dict[str, Entry] = {}
    for r in refs:
        if r["key"] in cited:
            entries[r["key"]] = Entry(
                "misc",
                r["key"],
                [
                    Field("title", "{" + _bib_escape(r["title"]) + "}"),
                    Field(
                        "note",
                        "{Provided with the experiment material (" + _bib_escape(r["path"]) + ")}",
                    ),
                ],
            )
    missing = [k for k in cited if k not in entries]
    if missing and w.llm is not None and not w.exhausted:
        contexts = [line.strip() for line in tex.splitlines() if any(k in line for k in missing)][
            :20
        ]
        reply = yield from w.ask(
            "write",
            [
                {
                    "role": "user",
                    "content": prompt("bib", keys=", ".join(missing), contexts="\n".join(contexts)),
                }
            ],
        )
        library = bibtexparser.parse_string(strip_fences(reply.content))
        if library.failed_blocks:
            w.notes.append(
                f"{len(library.failed_blocks)} BibTeX block(s) from the model did not parse and were dropped."
            )
        for entry in library.entries:
            if entry.key in missing:
                entries[entry.key] = entry
    unresolved = [k for k in cited if k not in entries]
    text = (
        bibtexparser.write_string(bibtexparser.Library(list(entries.values()))) if entries else ""
    )
    return text, unresolved


def _bib_escape(text: str) -> str:
    return (
        re.sub(r"([{}\\])", "", text)
        .replace("&", "\\&")
        .replace("%", "\\%")
        .replace("_", "\\_")
        .replace("#", "\\#")
    )


def ensure_bibliography(tex: str, style: str) -> str:
    """Cited keys need a \\bibliography line to resolve; add one if the model forgot."""
    if "\\bibliography{" in tex or not cite_keys(tex):
        return tex
    block = f"\\bibliographystyle{{{style}}}\n\\bibliography{{refs}}\n"
    return tex.replace("\\end{document}", block + "\\end{document}", 1)
