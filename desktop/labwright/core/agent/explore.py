"""The exploration tool loop: the model reads the folder until it can say what it holds.

One generator, readable in one sitting. Each turn: ask the model with the
transcript the ledger rebuilds, let the ledger's guards judge every call, run
the runnable ones (consecutive concurrency-safe calls in parallel, answers in
call order). Limits are explicit below: the budget (before and after each model
call), the final window past `max_tool_iters` turns (where the way out is forced
once something was read), the per-turn call cap, and any guard's stop. A stopped
exploration is *cut short* and the report is drafted from what was gathered.
The guards and the transcript live in ledger.py and guards/.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Generator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

from labwright.core.agent.guards import Budget, CallRecord, RunClock
from labwright.core.agent.ledger import Ledger
from labwright.core.agent.tools import Tool, Toolbox, ToolContext, ToolOutcome, build_tools
from labwright.core.agent.tools.base import Refused, error
from labwright.core.events import Error, Event, Guard, LLMCall, ToolCall
from labwright.core.llm.client import (
    LLM,
    Cancelled,
    LLMError,
    Reply,
    TimeUp,
    ToolCallRequest,
    Usage,
)
from labwright.core.llm.inflight import Feed, Worker, in_flight
from labwright.core.material.tables.outline import Outline, outline
from labwright.core.material.workspace import ScanResult
from labwright.core.reasons import Reason
from labwright.core.resources import message, prompt
from labwright.core.rundir.records import (
    EvidenceRecord,
    FigureRecord,
    FindingsRecord,
    GatheredRecord,
)
from labwright.core.settings.config import RunConfig
from labwright.core.step_words import CallMistake, Words

MAX_PARALLEL = 4
# A forced tool_choice answered with these (llama.cpp's server: HTTP 500; others 400/422)
# is retried once without it; the model is then asked for the way out in words.
FORCING_REJECTED = ("bad_request", "server")
# A streamed turn with tools that the server rejects (a 4xx; a 5xx that names streaming)
# is asked again unstreamed: some servers cannot stream tool calls. When that works, the
# rest of the exploration goes unstreamed (no live token count, the same turns).
# Sent with the tools on every other turn. Most servers take it as their default, but
# llama-cpp-python's function-calling chat formats (chatml-function-calling) drop the
# tools from the prompt unless tool_choice is "auto" or forced: the model never learns
# there are any. A server that rejects the field (an error naming tool_choice) gets
# requests without it from then on.
AUTO = "auto"
# What the client says of a 200 event stream that holds no event (llama-cpp-python's
# function-calling formats, streamed): the same request unstreamed answers.
EMPTY_STREAM = "event stream with no answer in it"


__all__ = ["Cancelled", "Exploration", "explore"]  # Cancelled lives in llm.py: a call raises it


@dataclass
class Exploration:
    """What the exploration hands on: the model's conclusion (finish_exploration's
    arguments) or why it was cut short, the evidence gathered, the figures made."""

    status: str = "cut_short"  # "finished" | "cut_short" | "no_evidence" | "cancelled"
    reason: str | None = None  # why it was cut short (a degraded reason)
    detail: str = ""
    findings: dict[str, Any] | None = None  # finish_exploration's arguments
    evidence: list[EvidenceRecord] = field(default_factory=list)
    figures: list[FigureRecord] = field(default_factory=list)
    files_read: list[str] = field(default_factory=list)
    model_calls: int = 0

    def to_findings(self) -> FindingsRecord:
        """findings.json: what the model concluded, or only what was gathered."""
        said = self.findings or {}
        return FindingsRecord(
            status=self.status,
            reason=self.reason,
            detail=self.detail,
            experiment=said.get("experiment"),
            goal=said.get("goal"),
            key_findings=list(said.get("key_findings") or []),
            assignment_requirements=list(said.get("assignment_requirements") or []),
            method_approach=said.get("method_approach") or "",
            sample_report=said.get("sample_report") or "",
            files_read=list(self.files_read),
            gathered=[GatheredRecord(e.path, e.kind, e.offset, e.end) for e in self.evidence],
            figures=list(self.figures),
        )


def _records(ledger: Ledger) -> tuple[list[EvidenceRecord], list[FigureRecord]]:
    """The ledger's evidence and figures as records: the tools answer in their JSON form."""
    evidence = [EvidenceRecord.keeping(e) for e in ledger.gathered()]
    figures = [FigureRecord.keeping(f) for f in ledger.figures()]
    return evidence, figures


MAX_OUTLINE_LINES = 20  # table lines in the first message: a local model's context is small


def _collapsed(paths: list[str], tables: Outline) -> list[str]:
    """Data file names with each series once, as its pattern and count."""
    out: list[str] = []
    done: set[int] = set()
    for p in paths:
        s = tables.series_of(p)
        if s is None:
            out.append(p)
        elif id(s) not in done:
            done.add(id(s))
            out.append(f"{s.pattern} ({len(s.tables)} files)")
    return out


def _first_messages(
    config: RunConfig, scan: ScanResult, tools: Toolbox, requirements: str = ""
) -> list[dict]:
    figures = any(t.traits.figure for t in tools.values())
    figure_hint = message("figure_hint_make" if figures else "figure_hint_later")
    analysis = any(t.traits.analysis for t in tools.values())
    analysis_hint = message("analysis_hint") + "\n" if analysis else ""
    # The tables in the data files, so the model reads the right ranges; a series of
    # files alike (31 spectra) is one line in both the listing and the outline.
    tables = outline(config.folder, scan.sample.get("data", []), max_lines=MAX_OUTLINE_LINES)
    listing = "\n".join(
        f"- {bucket}: " + ", ".join(_collapsed(paths, tables) if bucket == "data" else paths)
        for bucket, paths in scan.sample.items()
        if paths
    )
    table_lines = "\n".join(f"- {line}" for line in tables.lines())
    return [
        {
            "role": "system",
            "content": prompt(
                "explore_system",
                figure_hint=figure_hint,
                analysis_hint=analysis_hint,
                max_iters=config.max_tool_iters,
            ),
        },
        {
            "role": "user",
            "content": prompt(
                "explore_user",
                folder_name=config.folder.name,
                scan_summary=scan.summary(),
                scan_listing=listing or "(no files)",
                data_tables=table_lines or "(no tables found)",
                requirements=requirements or "(none found)",
            ),
        },
    ]


def explore(
    config: RunConfig,
    llm: LLM,
    scan: ScanResult,
    ctx: ToolContext,
    usage: Usage,
    cancelled: Callable[[], bool] = lambda: False,
    clock: RunClock | None = None,
    requirements: str = "",
) -> Generator[Event, None, Exploration]:
    """The tool loop. `requirements`: the manual's tasks and questions by part, as text."""
    tools = build_tools(ctx)
    ledger = Ledger(
        config.guards,
        tools,
        head=_first_messages(config, scan, tools, requirements),
        max_turns=config.max_tool_iters,
    )
    budget = Budget(config, usage, stage="explore", clock=clock)
    cancelled_now = False
    streaming = True  # until the server shows it cannot stream tool calls
    auto: str | None = AUTO  # None once the server rejected tool_choice "auto"
    calls = Worker()  # one thread for every turn's call; closed (joined) when this ends

    def send(choice: dict[str, Any] | str | None) -> Generator[Event, None, Reply]:
        """One turn, streamed so its progress shows; unstreamed on a server that cannot."""
        nonlocal streaming
        request: dict[str, Any] = dict(
            model=config.explore_model,
            messages=ledger.messages(),  # built here: the ledger stays in this thread
            tools=tools.schemas(ledger.withheld()),
            tool_choice=choice,
            max_tokens=config.tokens_for("explore"),
            deadline_s=config.explore_deadline_s,
        )

        def streamed(feed: Feed) -> Reply:
            return llm.stream(**request, on_progress=feed.progress, cancelled=feed.cancelled)

        def plain(feed: Feed) -> Reply:
            return llm.chat(**request, cancelled=feed.cancelled)

        def flight(call: Callable[[Feed], Reply]) -> Generator[Event, None, Reply]:
            return in_flight("explore", request["model"], call, cancelled=cancelled, worker=calls)

        if streaming:
            try:
                return (yield from flight(streamed))
            except LLMError as e:
                if not _stream_refused(e, choice):
                    raise
            reply = yield from flight(plain)
            streaming = False  # the same request unstreamed worked: stay with that
            return reply
        return (yield from flight(plain))

    def ask(choice: dict[str, Any] | None) -> Generator[Event, None, Reply]:
        nonlocal auto
        if choice is not None or auto is None:
            return (yield from send(choice))
        try:
            return (yield from send(auto))
        except LLMError as e:
            if e.kind != "bad_request" or "tool_choice" not in str(e).lower():
                raise
            auto = None
            return (yield from send(None))

    try:
        for turn in itertools.count(1):
            if cancelled():
                raise Cancelled
            if budget.exhausted:  # spent before the stage (a resumed run) or by a vision call
                yield from ledger.spend(budget.check(), turn)
                break
            yield from ledger.start_turn(turn)  # past the turn budget: the final window
            if ledger.stop:
                break
            choice = ledger.tool_choice(turn)  # the way out, forced in the window
            try:
                try:
                    reply = yield from ask(choice)
                except LLMError as e:
                    if choice is None or e.kind not in FORCING_REJECTED:
                        raise
                    yield from ledger.forcing_rejected(turn, str(e))  # once: words instead
                    choice = None
                    reply = yield from ask(None)
            except TimeUp as e:
                # The run's clock cut the call: a budget stop like any other, so the report
                # is drafted from what was gathered (a skeleton when nothing was).
                yield Error("explore", str(e), e.kind)
                yield from ledger.spend(budget.out_of_time(str(e)), turn)
                break
            except LLMError as e:
                if e.kind == "deadline":
                    cut = Words(
                        "deadline", role="explore", seconds=f"{config.explore_deadline_s:g}"
                    )
                    yield Guard("deadline", cut, turn=turn)
                if ledger.evidence == 0 and ledger.model_calls == 0:
                    raise  # the model never answered: the run cannot go on from here
                # A model that answered before and fails now (a weak local model's call
                # cut at its deadline) ends exploration; nothing read means a skeleton.
                yield Error("explore", str(e))
                ledger.end(Reason.MODEL_ERROR, str(e))
                break
            usage.add("explore", reply)
            yield LLMCall(
                "explore",
                reply.model,
                reply.prompt_tokens,
                reply.completion_tokens,
                reply.ms,
                reply.reasoning_tokens,
            )
            names = [c.name for c in reply.tool_calls]
            kept, capped = ledger.reply(
                turn, reply.assistant_message(), names, forced=choice is not None
            )
            yield from ledger.spend(budget.check(), turn)  # the wrap-up note, or the stop
            # past max_calls_per_turn the calls are dropped; a text-only turn is noted
            yield from capped
            if ledger.stop:
                break
            for event in _run_turn(reply.tool_calls[:kept], turn, tools, ledger, ctx, cancelled):
                if isinstance(event, LLMCall):  # the vision model, asked by read_image
                    usage.add_call(
                        event.role,
                        event.prompt_tokens,
                        event.completion_tokens,
                        event.ms,
                        event.model,
                        reasoning_tokens=event.reasoning_tokens,
                    )
                yield event
            if ledger.findings is not None or ledger.stop:
                break
            ledger.end_turn()  # the notes to the model, after the answers
    except Cancelled:
        cancelled_now = True
    finally:
        calls.close()
    return _outcome(ledger, cancelled_now)


def _stream_refused(e: LLMError, choice: dict[str, Any] | str | None) -> bool:
    """A streamed turn's rejection that may be the streaming's. With a forced choice, a
    4xx that does not name streaming is the choice's: its own fallback asks again,
    streamed, without it. Other failures (5xx, bad replies) were retried as always."""
    said = str(e).lower()
    if "tool_choice" in said and "stream" not in said:
        return False  # the choice's own fallbacks answer that (FORCING_REJECTED, AUTO)
    if e.kind == "bad_request":
        return not isinstance(choice, dict) or "stream" in said  # None or "auto": unforced
    if e.kind == "bad_response" and EMPTY_STREAM in said:
        return True  # llama-cpp-python streams nothing at all for tools it would call
    return e.kind == "server" and "stream" in said


def _outcome(ledger: Ledger, cancelled: bool) -> Exploration:
    evidence, figures = _records(ledger)
    result = Exploration(
        evidence=evidence,
        figures=figures,
        files_read=ledger.files_read,
        model_calls=ledger.model_calls,
    )
    if cancelled:
        result.status, result.reason = "cancelled", Reason.CANCELLED.value
    elif ledger.findings is not None:
        result.status, result.findings = "finished", ledger.findings
    elif ledger.stop is not None:
        result.reason, result.detail = ledger.stop.reason.value, ledger.stop.detail
        if ledger.stop.reason is Reason.NO_EVIDENCE:
            result.status = "no_evidence"
    return result


def _broken(name: str, bad_args: ValueError | None, tools: Toolbox) -> ToolOutcome | None:
    """The error of a call that cannot even be made (broken arguments, unknown tool)."""
    if bad_args is None and name not in tools:
        bad_args = CallMistake("unknown_tool", available=", ".join(tools))
    return None if bad_args is None else _mistake(name, bad_args)


def _mistake(name: str, e: ValueError) -> ToolOutcome:
    """A call the model got wrong: it reads why; the timeline says it in the app's words."""
    summary = e.words(name) if isinstance(e, CallMistake) else f"{name}: {e}"
    return error(summary, message("call_not_run", reason=e), fault="call")


@dataclass
class _Slot:
    """A call of this turn on its way: its record and, once it ran, the tool's outcome."""

    record: CallRecord
    tool: Tool | None
    outcome: ToolOutcome | None = None

    @property
    def name(self) -> str:
        return self.record.name

    @property
    def args(self) -> dict[str, Any]:
        return self.record.args


def _run_turn(
    calls: list[ToolCallRequest],
    turn: int,
    tools: Toolbox,
    ledger: Ledger,
    ctx: ToolContext,
    cancelled: Callable[[], bool],
) -> Generator[Event, None, None]:
    """Propose each call in order; consecutive concurrency-safe ones run as one batch,
    any other alone; answers land in call order."""
    waiting: list[_Slot] = []

    def flush() -> Generator[Event, None, None]:
        _execute([s for s in waiting if s.record.ran], ctx, cancelled)
        for slot in waiting:
            yield from ledger.settle(slot.record, slot.outcome)
        waiting.clear()

    for call in calls:
        try:
            args, bad_args = call.parsed_args(), None
        except ValueError as e:
            args, bad_args = {}, e
        yield ToolCall(turn, call.id, call.name, {"_raw": call.arguments} if bad_args else args)
        broken = _broken(call.name, bad_args, tools)
        tool = tools.get(call.name)
        alone = broken is None and tool is not None and not tool.traits.concurrency_safe
        if alone:
            yield from flush()  # anything before it must land first (e.g. the evidence gate)
        record = ledger.propose(turn, call.id, call.name, args, broken=broken)
        if record.action == "stop":
            yield from flush()
            yield from ledger.settle(record)
            return
        waiting.append(_Slot(record, tool))
        if alone:
            yield from flush()
            if ledger.findings is not None:
                return  # calls after an accepted finish are moot
    yield from flush()


def _execute(batch: list[_Slot], ctx: ToolContext, cancelled: Callable[[], bool]) -> None:
    if not batch:
        return
    if cancelled():
        raise Cancelled
    if len(batch) == 1:
        batch[0].outcome = _safe_run(batch[0], ctx)
        return
    with ThreadPoolExecutor(max_workers=min(MAX_PARALLEL, len(batch))) as pool:
        for slot, outcome in zip(batch, pool.map(lambda s: _safe_run(s, ctx), batch), strict=False):
            slot.outcome = outcome


def _safe_run(slot: _Slot, ctx: ToolContext) -> ToolOutcome:
    assert slot.tool is not None
    try:
        return slot.tool.run(slot.args, ctx)
    except Refused as e:  # a fence said no: the model gets the reason
        return e.outcome
    except ValueError as e:  # a bad argument, phrased for the model: its mistake
        return _mistake(slot.name, e)
    except Exception as e:  # a tool must never take the run down; the model is told
        return error(
            Words("tool_crashed", tool=slot.name, error=type(e).__name__),
            f"{slot.name} failed: {type(e).__name__}: {e}",
        )
