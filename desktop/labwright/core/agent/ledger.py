"""The ledger of an exploration: every turn, call and outcome, as typed records.

It is the one place the guards are composed. The loop (explore.py) proposes each
call (`propose`), runs the ones cleared to run, and gives each its outcome
(`settle`); the ledger asks every guard in `policies()` order and keeps what they
said on the call's `CallRecord`. Nothing the tools returned is changed: a guard's note
is kept beside the outcome, a withheld tool is left out of the next offer.

The transcript the model is sent is rebuilt from the records (`messages`), as
smolagents rebuilds its messages from typed memory: the opening messages, then for
each turn the model's message with the calls that were let through and one answer
per call, then the notes to the model (a reminder to use tools, the call cap, the
budget's wrap-up, the one nudge of the run, the final window). Once a guard has
tripped, a call/result pair that repeats an earlier one is sent as a one-line stub
(the loop's own text would otherwise keep inviting the model to go on).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from labwright.core.agent.guards.base import CallRecord, Policy, Ruling, Stop
from labwright.core.agent.guards.budget import Verdict
from labwright.core.agent.guards.policies import Coverage, EvidenceGate, dedup_message, policies
from labwright.core.agent.guards.turns import CallCap, FinalWindow, NoToolCall
from labwright.core.agent.tools import TOOL_TYPES, Toolbox, ToolOutcome
from labwright.core.events import Event, Guard, ToolResult
from labwright.core.reasons import Reason
from labwright.core.resources import message
from labwright.core.settings.config import GuardLimits, RunConfig
from labwright.core.step_words import Words


@dataclass
class Turn:
    """One model reply: its message, how many of its calls were let through, their records."""

    at: int  # model calls made when it was recorded (it goes out from the next one on)
    number: int
    assistant: dict[str, Any]
    kept: int
    records: list[CallRecord] = field(default_factory=list)
    capped: Ruling | None = None  # the call cap's word, when calls were dropped
    wrap_up: str = ""  # the budget's wrap-up message for the model
    text_only: str = ""  # the no_tool_call guard's word: the reply called no tool
    fallback: str = ""  # the final window's word: a forced choice was ignored

    def messages(self, stub: dict[str, str]) -> list[dict[str, Any]]:
        assistant = dict(self.assistant)
        if "tool_calls" in assistant:
            assistant["tool_calls"] = assistant["tool_calls"][: self.kept]
        out = [assistant]
        for r in self.records:
            if r.settled:
                content = stub.get(r.call_id, r.content)
                out.append({"role": "tool", "tool_call_id": r.call_id, "content": content})
        return out


@dataclass
class Note:
    """A message to the model between turns."""

    at: int
    text: str


class Ledger:
    """Every call and outcome of one exploration, the guards that judge them, and the
    transcript rebuilt from them."""

    def __init__(
        self,
        limits: GuardLimits | None = None,
        tools: Toolbox | None = None,
        *,
        head: list[dict[str, Any]] | None = None,
        max_turns: int = RunConfig.max_tool_iters,
    ) -> None:
        self.limits = limits or GuardLimits()
        self.tools = tools if tools is not None else Toolbox((t.name, t()) for t in TOOL_TYPES)
        self.head = list(head or [])
        self.entries: list[Turn | Note] = []
        self.model_calls = 0
        self.stop: Stop | None = None  # the first stop is the one the run reports
        self.findings: dict[str, Any] | None = None  # the accepted way out's arguments
        self.tripped_at: int | None = None  # model calls made when a guard first tripped
        self.nudged = False
        self.nudge_note = ""  # the one nudge, sent after the turn that earned it
        self.policies: list[Policy] = policies(self.limits, self.standing)
        self.coverage = next(p for p in self.policies if isinstance(p, Coverage))
        self.gate = next(p for p in self.policies if isinstance(p, EvidenceGate))
        self.window = FinalWindow(max_turns, self.limits.final_window, self.tools.finishing)
        self.call_cap = CallCap(self.limits.max_calls_per_turn)
        self.no_tool_call = NoToolCall(self.limits.no_tool_call_stop_at, self.tools.finishing)
        self._pairs: dict[str, CallRecord] = {}  # fingerprint -> its latest distinct call/result

    # -- what the loop asks --------------------------------------------------

    @property
    def evidence(self) -> int:
        return self.gate.evidence

    @property
    def files_read(self) -> list[str]:
        return list(self.coverage.files_read)

    @property
    def tripped(self) -> bool:
        return self.tripped_at is not None

    def standing(self) -> str:
        """Where things stand, for messages to the model."""
        files = self.coverage.files_read
        if not files:
            return message("standing_none")
        names = ", ".join(files[:8]) + ("…" if len(files) > 8 else "")
        return message("standing", count=len(files), names=names)

    def withheld(self) -> set[str]:
        """Tools not offered any more (withdrawn, or past their cap)."""
        return {
            name
            for name in self.tools
            if any(p.withholds(name, self.tools.traits(name)) for p in self.policies)
        }

    def tool_choice(self, turn: int) -> dict[str, Any] | None:
        if self.window.forces(turn, self.evidence > 0):
            return {"type": "function", "function": {"name": self.tools.finishing}}
        return None

    def records(self) -> Iterator[CallRecord]:
        for entry in self.entries:
            if isinstance(entry, Turn):
                yield from entry.records

    def gathered(self) -> list[dict[str, Any]]:
        """The evidence of the calls that ran and brought something new."""
        return [
            r.outcome.evidence
            for r in self.records()
            if r.ran
            and r.settled
            and r.outcome
            and r.outcome.ok
            and r.outcome.evidence
            and r.productive
        ]

    def figures(self) -> list[dict[str, Any]]:
        return [
            r.outcome.data
            for r in self.records()
            if r.ran and r.traits.figure and r.outcome and r.outcome.ok and r.outcome.data
        ]

    # -- turns ---------------------------------------------------------------

    def start_turn(self, turn: int) -> list[Guard]:
        """Before the model is asked: the final window may open, or end exploration."""
        check = self.window.start(turn, self.evidence > 0, self.standing())
        if check.note:
            self.entries.append(Note(self.model_calls, check.note))
        return self._apply(check, turn=turn)

    def forcing_rejected(self, turn: int, error: str) -> list[Guard]:
        """The server refused this turn's forced tool choice: ask again with words."""
        check = self.window.fallback("choice_rejected", self.standing(), error=error)
        if check.note:
            self.entries.append(Note(self.model_calls, check.note))
        return self._apply(check, turn=turn)

    def reply(
        self, turn: int, assistant: dict[str, Any], names: list[str], *, forced: bool = False
    ) -> tuple[int, list[Event]]:
        """The model's reply, with its calls by tool name: how many of them run (the call
        cap), and the cap's events. `forced`: the way out was this turn's forced choice."""
        self.model_calls += 1
        kept, capped = self.call_cap.split(names)
        self.entries.append(
            Turn(self.model_calls, turn, assistant, kept, capped=capped if capped.note else None)
        )
        silent = self.no_tool_call.reply(len(names), self.standing())
        self._turn().text_only = silent.note
        events: list[Event] = [self._stamp(e, turn=turn) for e in capped.events]
        events += self._apply(silent, turn=turn)
        if forced and self.tools.finishing not in names[:kept]:
            ignored = self.window.fallback("choice_ignored", self.standing())
            self._turn().fallback = ignored.note
            events += self._apply(ignored, turn=turn)
        return kept, events

    def spend(self, verdict: Verdict, turn: int | None = None) -> list[Guard]:
        """The budget's verdict after a model call (or before one, on a spent budget)."""
        if verdict.action == "stop":
            self._end(Stop(verdict.reason, verdict.content))
        elif verdict.content:
            self._turn().wrap_up = verdict.content
            self._trip()
        return [self._stamp(e, turn=turn) for e in verdict.events]

    def end_turn(self) -> None:
        """The notes to the model, after every answer of the turn (the API wants each
        tool message right after the assistant message that called it)."""
        turn = self._turn()
        notes = [turn.text_only] if turn.text_only else []
        if turn.capped is not None:
            notes.append(turn.capped.note)
        if turn.wrap_up:
            notes.append(turn.wrap_up)
        if turn.fallback:
            notes.append(turn.fallback)
        if self.nudge_note:
            notes.append(self.nudge_note)
            self.nudge_note = ""
        self.entries += [Note(self.model_calls, n) for n in notes]

    def end(self, reason: Reason, detail: str) -> None:
        """Exploration ends for a reason no guard saw (a model failure)."""
        self._end(Stop(reason, detail))

    # -- calls ---------------------------------------------------------------

    def propose(
        self,
        turn: int,
        call_id: str,
        name: str,
        args: Any,
        *,
        broken: ToolOutcome | None = None,
    ) -> CallRecord:
        """A call of the current turn, before it runs. `record.action` says what happens:
        run, answered without running (dedup, same, refuse, broken), or stop.

        A broken call (unknown tool, arguments that are no JSON object) cannot run, yet
        counts as a repeat; `broken` is its error, and it counts as the tool's failure.
        """
        record = CallRecord(call_id, name, args, self.tools.traits(name), turn)
        self._turn().records.append(record)
        events: list[Guard] = []
        answer = None
        for policy in self._asked(record):
            check = policy.before(record)
            if check.stop is not None:
                record.action, record.events = "stop", list(check.events)
                self._apply(check)
                return record
            if check.answer is not None and answer is None:
                answer = check.answer
                record.action = answer.action
            events += self._apply(check)
        record.events = events
        if broken is not None:
            record.action, record.outcome = "broken", broken
            # It cannot run, so it repeats no earlier result either.
            record.events = [e for e in events if e.kind != "dedup"]
        elif answer is not None and answer.action == "same":
            record.cached = True
            record.same_as = next(
                r for r in self._turn().records if r.fp == record.fp and r.ran and not r.settled
            )
        elif answer is not None:
            record.cached = answer.action == "dedup"
            summary = answer.summary or (events[0].detail if events else answer.action)
            record.outcome = ToolOutcome(
                answer.action == "dedup", answer.content, summary, productive=False
            )
        else:
            for policy in self._asked(record):
                policy.approved(record)
        return record

    def settle(self, record: CallRecord, outcome: ToolOutcome | None = None) -> list[Event]:
        """A call's answer: the tool's outcome when it ran. The guard events of the call
        and its tool_result event, in order."""
        if record.action == "stop":
            return [
                *self._stamped(record, record.events),
                ToolResult(
                    record.call_id, record.name, False, False, False, Words("not_run_stopped")
                ),
            ]
        events: list[Event] = list(record.events)
        if record.same_as is not None:
            earlier = record.same_as
            record.outcome = ToolOutcome(
                earlier.ok,
                dedup_message(self.limits, record.described, earlier.content),
                Words("same_call"),
                productive=False,
            )
        elif record.ran:
            assert outcome is not None, "a call that ran needs its outcome"
            record.outcome = outcome
            events += outcome.events
        assert record.outcome is not None
        record.productive = record.outcome.productive
        if record.ran or record.action == "broken":
            events += self._judge(record, "after")
        if record.ran and record.ok and record.traits.finishing:
            self.findings = record.outcome.data
        if not record.traits.finishing:  # the way out is never a repeat, nor wandering
            self._remember(record)
        stopped = self.stop is not None
        settled = self._judge(record, "settle")
        events += [] if stopped else settled  # after a stop, no guard has more to say
        record.settled = True
        assert record.outcome is not None
        result = ToolResult(
            record.call_id,
            record.name,
            record.ok,
            record.productive,
            record.cached,
            record.outcome.summary,
        )
        return [*self._stamped(record, events), result]

    # -- the transcript ------------------------------------------------------

    def messages(self, upto: int | None = None) -> list[dict[str, Any]]:
        """The transcript sent with model call `upto` (1-based; default: the next one)."""
        upto = self.model_calls + 1 if upto is None else upto
        collapse = self.tripped_at is not None and self.tripped_at < upto
        stub = {}
        if collapse:
            stub = {
                r.call_id: message("guard_collapsed", call_id=r.repeat_of)
                for r in self.records()
                if r.repeat_of is not None
            }
        out = [dict(m) for m in self.head]
        for entry in self.entries:
            if entry.at >= upto:
                break
            if isinstance(entry, Note):
                out.append({"role": "user", "content": entry.text})
            else:
                out += entry.messages(stub)
        return out

    # -- inside --------------------------------------------------------------

    def _asked(self, record: CallRecord) -> list[Policy]:
        if record.traits.finishing:
            return [p for p in self.policies if p.watches_finish]
        return self.policies

    def _judge(self, record: CallRecord, step: str) -> list[Guard]:
        """Ask every guard about a call at one step; notes and 'nothing new' are kept on
        the record, so each guard sees what the earlier ones said."""
        events: list[Guard] = []
        for policy in self._asked(record):
            check = policy.after(record) if step == "after" else policy.settle(record)
            if check.note:
                record.notes.append(check.note)
            if check.unproductive:
                record.productive = False
            if step == "settle" and self.stop is not None:
                continue
            events += self._apply(check)
        return events

    def _apply(self, check: Ruling, *, turn: int | None = None) -> list[Guard]:
        """A check's events, its nudge (the one of the run) and its stop."""
        events = list(check.events)
        if check.trip or check.nudge or check.stop:
            self._trip()
        if check.nudge and not self.nudged:
            self.nudged = True
            self.nudge_note = message("guard_nudge", what=check.nudge, standing=self.standing())
            asked = check.nudged or check.nudge + " The model was asked to move on or finish."
            events.append(Guard("nudge", asked))
        if check.stop is not None:
            self._end(check.stop)
        return [self._stamp(e, turn=turn) for e in events]

    def _remember(self, record: CallRecord) -> None:
        earlier = self._pairs.get(record.fp)
        if earlier is not None and (record.cached or record.content == earlier.content):
            record.repeat_of = earlier.call_id
        else:  # first time, or the same arguments brought something else (e.g. after an error)
            self._pairs[record.fp] = record

    def _end(self, stop: Stop) -> None:
        self._trip()
        if self.stop is None:
            self.stop = stop

    def _trip(self) -> None:
        if self.tripped_at is None:
            self.tripped_at = self.model_calls

    def _turn(self) -> Turn:
        return next(e for e in reversed(self.entries) if isinstance(e, Turn))

    def _stamp(self, event: Guard, *, turn: int | None) -> Guard:
        return replace(event, turn=turn) if turn is not None and event.turn is None else event

    def _stamped(self, record: CallRecord, events: Sequence[Event]) -> list[Event]:
        """The call's guard events with the call they are about."""
        return [
            replace(
                e, call_id=record.call_id, tool=record.name, turn=record.turn, files=record.files
            )
            if isinstance(e, Guard) and e.call_id is None
            else e
            for e in events
        ]
