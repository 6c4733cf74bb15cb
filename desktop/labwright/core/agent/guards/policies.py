"""The guards of a call, one small class each (DESIGN.md, "Guards").

Each holds only its own counts, looks at `CallRecord`s and answers with a `Ruling`;
`POLICIES` is their order, the one list to extend with a new guard. What each
guard means to a person is in reasons.py (GUARD_TEXT), not here.
"""

from __future__ import annotations

import json
from collections import deque
from collections.abc import Callable
from typing import Any

from labwright.core.agent.guards.base import (
    PASS,
    Answer,
    CallRecord,
    Policy,
    Ruling,
    Stop,
    describe_call,
    error_shape,
    stop_with,
)
from labwright.core.agent.tools.base import ToolTraits
from labwright.core.events import Guard
from labwright.core.reasons import Reason
from labwright.core.resources import message
from labwright.core.settings.config import GuardLimits
from labwright.core.step_words import Words

Standing = Callable[[], str]  # where things stand, for messages to the model


def dedup_message(limits: GuardLimits, call: str, earlier: str) -> str:
    head = earlier[: limits.dedup_head_chars]
    more = "…" if len(earlier) > len(head) else ""
    return message("guard_dedup", call=call, head=head, more=more)


class Fences(Policy):
    """A fence refused the call (a path outside the folder, figure code not allowed)."""

    watches_finish = True

    def after(self, record: CallRecord) -> Ruling:
        outcome = record.outcome
        if outcome is None or not outcome.denied:
            return PASS
        return Ruling(events=(Guard(outcome.denied, outcome.summary),))


class FailureBreaker(Policy):
    """One tool failing: `failure_limit` times in a row, or with the same error
    `error_storm_at` times in its last `error_storm_window` calls while the arguments
    change and successes come in between (qwen-code #10887). Either withdraws it.

    Only the tool's own failures count (a reader or sandbox crash, a timeout). The
    model's mistakes (a path that is not there or not allowed, bad arguments) and
    files that cannot be read are answered and never withdraw a tool: a small model
    that guesses three paths, or a file telling it to read ../../etc/passwd, must not
    leave the agent blind. Repeated mistakes are bounded by the loop breaker and the
    wandering guard instead."""

    def __init__(self, limits: GuardLimits, standing: Standing) -> None:
        self.limits = limits
        self.standing = standing
        self.in_a_row: dict[str, int] = {}
        self.recent: dict[str, deque[str | None]] = {}  # error shapes; None = a success
        self.withdrawn: dict[str, str] = {}  # tool -> why, for the model

    def before(self, record: CallRecord) -> Ruling:
        if record.name not in self.withdrawn:
            return PASS
        why = self.withdrawn[record.name]
        content = message("guard_withdrawn_refused", tool=record.name, why=why)
        return Ruling(answer=Answer("refuse", content))

    def after(self, record: CallRecord) -> Ruling:
        name, outcome = record.name, record.outcome
        assert outcome is not None
        recent = self.recent.setdefault(name, deque(maxlen=self.limits.error_storm_window))
        if not outcome.ok and outcome.fault != "tool":
            return PASS  # neither a failure of the tool nor a sign that it works
        if outcome.ok:
            self.in_a_row[name] = 0
            recent.append(None)
            return PASS
        n = self.in_a_row[name] = self.in_a_row.get(name, 0) + 1
        shape = error_shape(outcome.content, record.args)
        recent.append(shape)
        if name in self.withdrawn:
            return PASS
        if n >= self.limits.failure_limit:
            why = f"{n} failures in a row"
            event = Guard("tool_disabled", Words("withdrawn", tool=name, count=n))
        else:
            same = sum(1 for s in recent if s == shape)
            if same < self.limits.error_storm_at:
                return PASS
            why = f"the same error {same} times in its last {len(recent)} calls"
            detail = Words(
                "error_storm", tool=name, same=same, window=len(recent), shape=shape[:80]
            )
            event = Guard("error_storm", detail)
        self.withdrawn[name] = why
        note = message("guard_withdrawn", tool=name, why=why, standing=self.standing())
        return Ruling(events=(event,), note=note, trip=True)

    def withholds(self, name: str, traits: ToolTraits) -> bool:
        return name in self.withdrawn


class Dedup(Policy):
    """A repeat of an earlier successful call is not run again: the model gets the
    earlier result's head. An identical call in the same batch waits for the first."""

    def __init__(self, limits: GuardLimits) -> None:
        self.limits = limits
        self.results: dict[str, str] = {}  # fingerprint -> content of its successful run
        self.running: set[str] = set()  # fingerprints cleared to run, not yet landed

    def before(self, record: CallRecord) -> Ruling:
        if record.action != "run":
            return PASS  # a withdrawn tool repeats nothing
        if record.fp in self.results:
            event = Guard("dedup", Words("repeated", call=record.described))
            content = dedup_message(self.limits, record.described, self.results[record.fp])
            return Ruling(events=(event,), answer=Answer("dedup", content))
        if record.fp in self.running:
            event = Guard("dedup", Words("asked_twice", call=record.described))
            return Ruling(events=(event,), answer=Answer("same", summary=Words("same_call")))
        return PASS

    def approved(self, record: CallRecord) -> None:
        self.running.add(record.fp)

    def after(self, record: CallRecord) -> Ruling:
        self.running.discard(record.fp)
        if record.ok:
            assert record.outcome is not None
            self.results[record.fp] = record.outcome.content
        return PASS


class LoopBreaker(Policy):
    """The same call (fingerprint) again: a nudge at `nudge_at`, the stop at `stop_at`.
    Every proposal counts, run or not, even one whose arguments were broken."""

    def __init__(self, limits: GuardLimits) -> None:
        self.limits = limits
        self.occurrences: dict[str, int] = {}

    def before(self, record: CallRecord) -> Ruling:
        n = self.occurrences[record.fp] = self.occurrences.get(record.fp, 0) + 1
        if n >= self.limits.stop_at:
            detail = Words("loop_stop", call=record.described, count=n)
            return stop_with("loop_stop", Reason.LOOP, detail)
        if n >= self.limits.nudge_at:
            return Ruling(
                nudge=f"{record.described} was asked {n} times with the same arguments.",
                nudged=Words("nudge_loop", call=record.described, count=n),
            )
        return PASS


class CycleBreaker(Policy):
    """A-B-A-B, A-B-C-A-B-C… with identical arguments: a block of 2..cycle_max_len calls
    repeated back to back. The nudge (once) at `cycle_nudge_at` rounds, the stop at
    `cycle_stop_at`. A refused call neither runs nor repeats a result: no step of it."""

    def __init__(self, limits: GuardLimits) -> None:
        self.limits = limits
        # fingerprints of the calls that ran or were deduplicated, most recent last
        self.sequence: deque[str] = deque(maxlen=limits.cycle_max_len * (limits.cycle_stop_at + 1))
        self.seen = False

    def before(self, record: CallRecord) -> Ruling:
        if record.action == "refuse":
            return PASS
        cycle = self._cycle(record.fp)
        if cycle is None:
            return PASS
        block, rounds = cycle
        what = f"The calls {block} went round {rounds} times with the same arguments"
        if rounds >= self.limits.cycle_stop_at:
            detail = Words("cycle_stop", block=block, rounds=rounds)
            return stop_with("cycle", Reason.CYCLE, detail)
        if rounds >= self.limits.cycle_nudge_at and not self.seen:
            self.seen = True
            said = Words("cycle", block=block, rounds=rounds)
            nudged = Words("nudge_cycle", block=block, rounds=rounds)
            return Ruling(events=(Guard("cycle", said),), nudge=what + ".", nudged=nudged)
        return PASS

    def _cycle(self, fp: str) -> tuple[str, int] | None:
        """Append fp; the shortest block the sequence now ends with, repeated back to back
        at least twice, and how often."""
        self.sequence.append(fp)
        seq = list(self.sequence)
        for size in range(2, self.limits.cycle_max_len + 1):
            block = seq[-size:]
            if len(seq) < 2 * size or _is_repetition(block):
                continue  # one call again and again is the loop breaker's, not a cycle
            reps = 1
            while len(seq) >= (reps + 1) * size and seq[-(reps + 1) * size : -reps * size] == block:
                reps += 1
            if reps >= 2:
                return " → ".join(_short_fp(f) for f in block), reps
        return None


class FigureCap(Policy):
    """At most `max_figures` figure runs per exploration (each is a sandboxed process);
    past it the call is answered, not run, and the figure tool is no longer offered."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.runs = 0

    def before(self, record: CallRecord) -> Ruling:
        if record.action != "run" or not record.traits.figure or self.runs < self.limit:
            return PASS
        summary = Words("figure_limit", limit=self.limit)
        detail = Words("figure_not_run", tool=record.name, limit=self.limit)
        return Ruling(
            events=(Guard("figure_cap", detail),),
            answer=Answer("refuse", message("figure_cap", figures=self.limit), summary),
        )

    def approved(self, record: CallRecord) -> None:
        if record.traits.figure:
            self.runs += 1  # made or failed, each run costs a sandboxed process

    def withholds(self, name: str, traits: ToolTraits) -> bool:
        return traits.figure and self.runs >= self.limit


class Intervals:
    """Line ranges already read in one file, merged."""

    def __init__(self) -> None:
        self.spans: list[tuple[int, int]] = []

    def covers(self, start: int, end: int) -> bool:
        return any(a <= start and end <= b for a, b in self.spans)

    def add(self, start: int, end: int) -> None:
        spans = sorted([*self.spans, (start, end)])
        merged = [spans[0]]
        for a, b in spans[1:]:
            if a <= merged[-1][1]:
                merged[-1] = (merged[-1][0], max(merged[-1][1], b))
            else:
                merged.append((a, b))
        self.spans = merged


class Coverage(Policy):
    """Paging-aware reading: lines never read before are new (forward pages never trip);
    a read that only re-covers lines already read is a repeat of that file, with the
    loop breaker's thresholds."""

    def __init__(self, limits: GuardLimits) -> None:
        self.limits = limits
        self.spans: dict[str, Intervals] = {}
        self.rereads: dict[str, int] = {}  # file -> reads, counting the first, that re-covered
        self.files_read: list[str] = []

    def after(self, record: CallRecord) -> Ruling:
        outcome = record.outcome
        if outcome is None or not outcome.ok or outcome.coverage is None:
            return PASS
        path, start, end = outcome.coverage
        spans = self.spans.setdefault(path, Intervals())
        if not spans.covers(start, end):
            spans.add(start, end)
            self.rereads.setdefault(path, 1)
            if path not in self.files_read:
                self.files_read.append(path)
            return PASS
        n = self.rereads[path] = self.rereads.get(path, 1) + 1
        note = message("guard_reread", start=start, end=end, path=path)
        reread = Guard("reread", Words("reread", call=record.described, start=start, end=end))
        if n >= self.limits.stop_at:
            detail = Words("reread_stop", path=path, count=n)
            return Ruling(
                events=(reread, Guard("loop_stop", detail)),
                stop=Stop(Reason.LOOP, detail),
                note=note,
                unproductive=True,
            )
        if n < self.limits.nudge_at:
            return Ruling(events=(reread,), note=note, unproductive=True)
        return Ruling(
            events=(reread,),
            nudge=f"{path} was re-read {n} times without new lines.",
            nudged=Words("nudge_reread", path=path, count=n),
            note=note,
            unproductive=True,
        )


class EvidenceGate(Policy):
    """The way out opens after one productive read; `evidence_refusals` refusals at
    most, then exploration ends with nothing gathered (nothing is invented)."""

    watches_finish = True

    def __init__(self, limits: GuardLimits) -> None:
        self.limits = limits
        self.evidence = 0  # productive reads
        self.refusals = 0

    def before(self, record: CallRecord) -> Ruling:
        if not record.traits.finishing or self.evidence > 0:
            return PASS
        self.refusals += 1
        if self.refusals > self.limits.evidence_refusals:
            detail = Words("no_evidence_stop", tool=record.name)
            return stop_with("evidence_retry", Reason.NO_EVIDENCE, detail)
        detail = Words(
            "no_evidence_refused",
            tool=record.name,
            n=self.refusals,
            of=self.limits.evidence_refusals,
        )
        return Ruling(
            events=(Guard("evidence_retry", detail),),
            answer=Answer("refuse", message("guard_no_evidence")),
        )

    def after(self, record: CallRecord) -> Ruling:
        if record.traits.reads and record.ok and record.productive:
            self.evidence += 1
        return PASS


class Wander(Policy):
    """A run of calls that bring nothing new (repeats, errors, refusals, empty results,
    lines or listings already seen): `wander_nudge_at` of the last `wander_window` calls
    earn the nudge (once), `wander_stop_at` the stop. Reading another file or moving
    forward in one always brings something new."""

    def __init__(self, limits: GuardLimits) -> None:
        self.limits = limits
        self.idle: deque[bool] = deque(maxlen=limits.wander_window)
        self.listings: set[str] = set()  # listing bodies already shown
        self.seen = False

    def settle(self, record: CallRecord) -> Ruling:
        nothing_new = self._nothing_new(record)
        self.idle.append(nothing_new)
        if not nothing_new:
            return PASS
        idle = sum(self.idle)
        what = (
            f"{idle} of the last {len(self.idle)} calls brought nothing new "
            "(repeats, errors, empty results, lines or listings already seen)."
        )
        if idle >= self.limits.wander_stop_at:
            detail = Words("wander_stop", idle=idle, window=len(self.idle))
            return Ruling(
                events=(Guard("wander", detail),),
                stop=Stop(Reason.WANDER, detail),
                unproductive=True,
            )
        if idle >= self.limits.wander_nudge_at and not self.seen:
            self.seen = True
            said = Words("wander", idle=idle, window=len(self.idle))
            nudged = Words("nudge_wander", idle=idle, window=len(self.idle))
            return Ruling(
                events=(Guard("wander", said),), nudge=what, nudged=nudged, unproductive=True
            )
        return Ruling(unproductive=True)

    def _nothing_new(self, record: CallRecord) -> bool:
        if record.cached or not record.ok or not record.productive:
            return True
        if record.traits.lists:
            assert record.outcome is not None
            body = record.outcome.content.partition("\n")[2]  # the first line names the spelling
            if body in self.listings:
                return True
            self.listings.add(body)
        return False


def policies(limits: GuardLimits, standing: Standing) -> list[Policy]:
    """The guards of a call, in the order they speak: a new guard goes here.

    Before a call, the first answer wins (a withdrawn tool is refused before anything
    is deduplicated, a figure is capped only if it would otherwise run) and the first
    stop ends the proposal; after it, the evidence gate counts what coverage left new.
    """
    return [
        Fences(),
        FailureBreaker(limits, standing),
        Dedup(limits),
        LoopBreaker(limits),
        CycleBreaker(limits),
        FigureCap(limits.max_figures),
        Coverage(limits),
        EvidenceGate(limits),
        Wander(limits),
    ]


def _is_repetition(block: list[str]) -> bool:
    """True when block is a shorter block repeated (A-A, A-B-A-B): not a cycle of its own size."""
    size = len(block)
    return any(size % d == 0 and block == block[:d] * (size // d) for d in range(1, size // 2 + 1))


def _short_fp(fp: str) -> str:
    name, _, body = fp.partition("|")
    args: Any
    try:
        args = json.loads(body)
    except ValueError:
        args = None
    return describe_call(name, args)
