"""The exploration tool loop: the model reads the folder until it can say what it holds.

One generator, readable in one sitting. Each turn: ask the model, check every
call against the guards, run the runnable ones (consecutive read-only calls in
parallel, results in call order), feed the results back. It ends when
`finish_exploration` is accepted, or a guard stops it (the exploration is then
*cut short* and the report is drafted from what was gathered), or after the
budget plus the final window.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Generator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

from labwright.core.agent.guards import Budget, Guards, describe_call, fingerprint
from labwright.core.agent.tools import FINISH, Tool, ToolContext, ToolOutcome, build_tools
from labwright.core.agent.tools.base import Refused, error
from labwright.core.events import Error, Event, Guard, LLMCall, ToolCall, ToolResult
from labwright.core.llm.client import LLM, Cancelled, LLMError, ToolCallRequest, Usage
from labwright.core.material.workspace import ScanResult
from labwright.core.reasons import Reason
from labwright.core.resources import message, prompt
from labwright.core.settings.config import RunConfig

MAX_PARALLEL = 4


__all__ = ["Cancelled", "Exploration", "explore"]  # Cancelled lives in llm.py: a call raises it


@dataclass
class Exploration:
    status: str = "cut_short"  # "finished" | "cut_short" | "no_evidence" | "cancelled"
    reason: str | None = None  # why it was cut short (a degraded reason)
    detail: str = ""
    findings: dict[str, Any] | None = None  # finish_exploration's arguments
    evidence: list[dict[str, Any]] = field(default_factory=list)
    figures: list[dict[str, Any]] = field(default_factory=list)
    files_read: list[str] = field(default_factory=list)
    model_calls: int = 0

    def to_findings(self) -> dict[str, Any]:
        """findings.json: what the model concluded, or only what was gathered."""
        base: dict[str, Any] = {
            "experiment": None,
            "goal": None,
            "key_findings": [],
            "assignment_requirements": [],
            "method_approach": "",
            "sample_report": "",
        }
        base.update(self.findings or {})
        base.update(
            status=self.status,
            reason=self.reason,
            detail=self.detail,
            files_read=self.files_read,
            gathered=[
                {k: e[k] for k in ("path", "kind", "offset", "end") if k in e}
                for e in self.evidence
            ],
            figures=self.figures,
        )
        return base


@dataclass
class _Caps:
    """Work allowed per turn and per run (GuardLimits), and what was used of it."""

    per_turn: int
    figures: int
    figure_runs: int = 0

    @property
    def figures_left(self) -> bool:
        return self.figure_runs < self.figures


@dataclass
class _Slot:
    """One tool call of a turn, from its parsing to its result."""

    call_id: str
    name: str
    args: dict[str, Any]
    tool: Tool | None = None
    outcome: ToolOutcome | None = None
    guard_events: list[Guard] = field(default_factory=list)
    run: bool = False  # executed (or to be executed) by this turn
    cached: bool = False  # answered from an earlier result (dedup)
    bad: bool = False  # could not even be made (unknown tool, broken arguments): a failure
    same_as: _Slot | None = None  # an identical call earlier in the same batch


def _first_messages(config: RunConfig, scan: ScanResult, tools: dict[str, Tool]) -> list[dict]:
    figure_hint = message("figure_hint_make" if "make_figure" in tools else "figure_hint_later")
    listing = "\n".join(
        f"- {bucket}: " + ", ".join(paths) for bucket, paths in scan.sample.items() if paths
    )
    return [
        {
            "role": "system",
            "content": prompt(
                "explore_system", figure_hint=figure_hint, max_iters=config.max_tool_iters
            ),
        },
        {
            "role": "user",
            "content": prompt(
                "explore_user",
                folder_name=config.folder.name,
                scan_summary=scan.summary(),
                scan_listing=listing or "(no files)",
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
) -> Generator[Event, None, Exploration]:
    tools = build_tools(ctx)
    guards = Guards(config.guards)
    budget = Budget(config, usage, stage="explore")
    result = Exploration()
    caps = _Caps(config.guards.max_calls_per_turn, config.guards.max_figures)
    messages = _first_messages(config, scan, tools)
    try:
        for iteration in itertools.count(1):
            if cancelled():
                raise Cancelled
            if budget.exhausted:  # spent before the stage (a resumed run) or by a vision call
                spend = budget.check()
                yield from spend.events
                result.reason, result.detail = Reason.BUDGET.value, spend.content
                break
            tool_choice = None
            if iteration > config.max_tool_iters:  # the final window
                window_turn = iteration - config.max_tool_iters
                if window_turn > config.guards.final_window:
                    result.reason, result.detail = (
                        Reason.ITERATION_CAP.value,
                        (
                            f"No finish after {config.max_tool_iters} turns and "
                            f"{config.guards.final_window} final turns; exploration stopped."
                        ),
                    )
                    yield Guard("iteration_cap", result.detail)
                    break
                if window_turn == 1:
                    guards.tripped = True
                    yield _open_window(config, guards, messages)
                if guards.evidence > 0:
                    tool_choice = {"type": "function", "function": {"name": FINISH}}

            offered = [
                t.schema()
                for t in tools.values()
                if t.name not in guards.disabled and (t.name != "make_figure" or caps.figures_left)
            ]
            guards.collapse(messages)  # after a trip, repeats no longer re-prime the model
            try:
                reply = llm.chat(
                    model=config.explore_model,
                    messages=messages,
                    tools=offered,
                    tool_choice=tool_choice,
                    max_tokens=config.max_tokens.get("explore"),
                    deadline_s=config.explore_deadline_s,
                    cancelled=cancelled,
                )
            except LLMError as e:
                if e.kind == "deadline":
                    yield Guard("deadline", f"explore call cut at {config.explore_deadline_s:g} s")
                if guards.evidence == 0:
                    raise  # nothing gathered: the run cannot go on from here
                yield Error("explore", str(e))
                result.reason, result.detail = Reason.MODEL_ERROR.value, str(e)
                break
            result.model_calls += 1
            usage.add("explore", reply)
            yield LLMCall(
                "explore", reply.model, reply.prompt_tokens, reply.completion_tokens, reply.ms
            )
            messages.append(reply.assistant_message())

            spend = budget.check()
            yield from spend.events
            if spend.action == "stop":
                result.reason, result.detail = Reason.BUDGET.value, spend.content
                break
            wrap_up = spend.content or None
            if wrap_up:
                guards.tripped = True

            calls, over_cap = _cap_calls(reply.tool_calls, caps.per_turn, messages)
            if over_cap:
                yield Guard("call_cap", over_cap)
            if not calls:
                messages.append({"role": "user", "content": USE_TOOLS})
            else:
                for event in _run_turn(
                    calls, iteration, tools, guards, ctx, messages, result, cancelled, caps
                ):
                    if isinstance(event, LLMCall):  # the vision model, asked by read_image
                        usage.add_call(
                            event.role,
                            event.prompt_tokens,
                            event.completion_tokens,
                            event.ms,
                            event.model,
                        )
                    yield event
                if result.status == "finished":
                    break
                if guards.stop_reason:
                    result.reason, result.detail = guards.stop_reason, guards.stop_detail
                    if guards.stop_reason == Reason.NO_EVIDENCE.value:
                        result.status = "no_evidence"
                    break
            # Notes to the model go after the tool results: the API wants every tool
            # message right after the assistant message that called it.
            for note in (over_cap and _cap_note(caps.per_turn), wrap_up, guards.take_nudge()):
                if note:
                    messages.append({"role": "user", "content": note})
    except Cancelled:
        result.status, result.reason = "cancelled", Reason.CANCELLED.value
    result.files_read = list(guards.files_read)
    return result


USE_TOOLS = message("use_tools")  # after a turn with no tool call


def _cap_calls(
    calls: list[ToolCallRequest], cap: int, messages: list[dict]
) -> tuple[list[ToolCallRequest], str]:
    """At most `cap` calls of a turn run; the rest are dropped from the transcript too.

    Every call the transcript lists needs its tool message (the API wants it), so the
    dropped ones leave the assistant message rather than each getting a "not run"
    answer: a thousand such answers would be sent back on every later turn. The
    model is told in a note after the results.
    """
    if len(calls) <= cap:
        return calls, ""
    messages[-1]["tool_calls"] = messages[-1]["tool_calls"][:cap]
    names = sorted({c.name for c in calls[cap:]})
    return calls[:cap], (
        f"The model asked for {len(calls)} tool calls in one turn; the first {cap} ran, "
        f"{len(calls) - cap} were not run ({', '.join(names)[:200]})."
    )


def _cap_note(cap: int) -> str:
    return message("cap_note", cap=cap)


def _figure_cap(caps: _Caps) -> ToolOutcome:
    return ToolOutcome(
        False,
        message("figure_cap", figures=caps.figures),
        f"figure limit reached ({caps.figures})",
        productive=False,
    )


def _open_window(config: RunConfig, guards: Guards, messages: list[dict]) -> Guard:
    forced = guards.evidence > 0
    messages.append({"role": "user", "content": _window_message(guards, forced)})
    then = "finish_exploration is now forced." if forced else "nothing read yet, tools stay open."
    return Guard("final_window", f"Turn budget of {config.max_tool_iters} used; {then}")


def _window_message(guards: Guards, forced: bool) -> str:
    if forced:
        return message("window_forced", standing=guards.standing())
    return message("window_unread")


def _run_turn(
    calls: list,
    iteration: int,
    tools: dict[str, Tool],
    guards: Guards,
    ctx: ToolContext,
    messages: list[dict],
    result: Exploration,
    cancelled: Callable[[], bool],
    caps: _Caps,
) -> Generator[Event, None, None]:
    slots: list[_Slot] = []
    batch: list[_Slot] = []

    def flush() -> Generator[Event, None, None]:
        _execute(batch, ctx, cancelled)
        batch.clear()
        for slot in slots:
            yield from _finish_slot(slot, guards, messages, result)
        slots.clear()

    for call in calls:
        try:
            args = call.parsed_args()
            bad_args = None
        except ValueError as e:
            args, bad_args = {}, str(e)
        yield ToolCall(
            iteration, call.id, call.name, args if bad_args is None else {"_raw": call.arguments}
        )
        slot = _Slot(call.id, call.name, args, tools.get(call.name))
        if bad_args is not None or slot.tool is None:
            reason = bad_args or f"unknown tool; available: {', '.join(tools)}"
            slot.outcome = error(f"{call.name}: {reason}", message("call_not_run", reason=reason))
            slot.bad = True
        elif not slot.tool.concurrency_safe:
            yield from flush()  # anything before it must land first (e.g. the evidence gate)
        verdict = guards.before_call(call.name, args)  # a broken call still counts as a repeat
        slot.guard_events = verdict.events
        if verdict.action == "stop":
            yield from flush()
            yield from verdict.events
            yield ToolResult(
                call.id, call.name, False, False, False, "not run: exploration stopped"
            )
            return
        if slot.bad:
            # It cannot run, so it repeats no earlier result either.
            slot.guard_events = [e for e in verdict.events if e.kind != "dedup"]
            slots.append(slot)
            continue
        assert slot.tool is not None
        if verdict.action == "run" and call.name == "make_figure" and not caps.figures_left:
            slot.outcome = _figure_cap(caps)
            slot.guard_events = [
                *slot.guard_events,
                Guard("figure_cap", f"make_figure not run: {slot.outcome.summary}"),
            ]
        elif verdict.action != "run":
            slot.outcome = ToolOutcome(
                verdict.action != "refuse",
                verdict.content,
                verdict.events[0].detail if verdict.events else verdict.action,
                productive=False,
            )
            slot.cached = verdict.action == "dedup"
        else:
            if call.name == "make_figure":
                caps.figure_runs += 1  # made or failed, each run costs a sandboxed process
            fp = fingerprint(call.name, args)
            slot.same_as = next((s for s in batch if fingerprint(s.name, s.args) == fp), None)
            slot.run = slot.same_as is None
            if slot.run:
                batch.append(slot)
        slots.append(slot)
        if not slot.tool.concurrency_safe:
            yield from flush()
            if result.status == "finished":
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
    except ValueError as e:  # a bad argument, phrased for the model
        return error(f"{slot.name}: {e}", message("call_not_run", reason=e))
    except Exception as e:  # a tool must never take the run down; the model is told
        return error(
            f"{slot.name} failed: {type(e).__name__}",
            f"{slot.name} failed: {type(e).__name__}: {e}",
        )


def _finish_slot(
    slot: _Slot, guards: Guards, messages: list[dict], result: Exploration
) -> Generator[Event, None, None]:
    events: list[Event] = list(slot.guard_events)
    cached = slot.cached
    if slot.same_as is not None:
        earlier = slot.same_as.outcome
        assert earlier is not None
        cached = True
        slot.outcome = ToolOutcome(
            earlier.ok,
            guards.dedup_message(describe_call(slot.name, slot.args), earlier.content),
            "same call earlier in this turn",
            productive=False,
        )
        events.insert(
            0, Guard("dedup", f"{describe_call(slot.name, slot.args)} asked twice in one turn")
        )
    outcome = slot.outcome
    assert outcome is not None
    if slot.run:
        events += outcome.events
        events += guards.after_call(slot.name, slot.args, outcome)
        if outcome.ok and outcome.evidence and outcome.productive:
            result.evidence.append(outcome.evidence)
        if outcome.ok and slot.name == "make_figure" and outcome.data:
            result.figures.append(outcome.data)
        if outcome.ok and slot.name == FINISH:
            result.status, result.findings = "finished", outcome.data
    elif slot.bad:
        events += guards.after_call(slot.name, slot.args, outcome)  # counts as a failure
    index = len(messages)  # where its tool message goes, for collapsing repeats later
    events += guards.settle(
        slot.name, slot.args, outcome, cached=cached, call_id=slot.call_id, index=index
    )
    yield from events
    yield ToolResult(
        slot.call_id, slot.name, outcome.ok, outcome.productive, cached, outcome.summary
    )
    messages.append({"role": "tool", "tool_call_id": slot.call_id, "content": outcome.content})
