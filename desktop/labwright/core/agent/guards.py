"""The guards of the exploration loop, as plain state (DESIGN.md, "Guards").

`Guards` sees every call before it runs (`before_call`), every outcome of a
call that ran (`after_call`) and the last word on every call, run or not
(`settle`), in call order, and answers with a verdict plus the guard events to
emit. `Budget` does the same for tokens and money after each model call. They
hold no I/O, so each guard is unit-tested on its own; the loop in explore.py
only follows the verdicts.

Which guard catches what:

- the same call again → dedup, then the loop breaker (`nudge`, `loop_stop`);
- A-B-A-B, A-B-C-A-B-C… with identical arguments → `cycle`;
- a run of calls that bring nothing new (repeats, errors, empty results, lines
  or listings already seen, calls to a withdrawn tool) → `wander`;
- one tool failing in a row → `tool_disabled`; the same error again and again
  while the arguments change and successes come in between → `error_storm`;
- tokens or money → `budget`.

There is one nudge per run, whichever guard asks first: a second "please
finish" reads as noise and re-primes the loop; the stop that follows is each
guard's own. After any trip, repeated call/result pairs in the transcript are
collapsed to a one-line stub (`collapse`), so the loop's own text no longer
invites the model to go on.
"""

from __future__ import annotations

import json
import re
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from labwright.core.agent.tools.base import ToolOutcome
from labwright.core.events import Guard, GuardKind
from labwright.core.reasons import Reason
from labwright.core.resources import message
from labwright.core.settings.config import GuardLimits, RunConfig
from labwright.core.settings.cost import spent_usd

if TYPE_CHECKING:
    from labwright.core.llm.client import Usage

EVIDENCE_TOOLS = frozenset({"read_file", "read_image"})
FINISHING_TOOLS = frozenset({"finish_exploration"})

Action = Literal["run", "dedup", "refuse", "stop"]


def fingerprint(name: str, args: Any) -> str:
    """Tool name + '|' + the arguments as sorted-key JSON (str() when not JSON-able)."""
    try:
        body = json.dumps(args, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    except (TypeError, ValueError):
        body = str(args)
    return f"{name}|{body}"


_QUOTED = re.compile(r"'[^']*'|\"[^\"]*\"|`[^`]*`")
_PATHLIKE = re.compile(r"\S*[/\\]\S*|\b[\w.-]+\.[A-Za-z][A-Za-z0-9]{0,4}\b")
_NUMBER = re.compile(r"\d+(?:\.\d+)?")


def error_shape(message: str, args: Any = None) -> str:
    """An error message without what the arguments put in it (their values, quoted
    names, paths, numbers), so "No such file: run_1.csv" and "No such file: run_2.csv"
    are one error."""
    text = message[:400]
    if isinstance(args, dict):
        values = {str(v) for v in args.values() if isinstance(v, (str, int)) and str(v)}
        values |= {v.replace("\\", "/").rsplit("/", 1)[-1] for v in values}  # and file names
        for value in sorted(values - {""}, key=len, reverse=True):
            text = re.sub(rf"(?<!\w){re.escape(value)}(?!\w)", "<arg>", text)
    text = _QUOTED.sub("'…'", text)
    text = _PATHLIKE.sub("<path>", text)
    text = _NUMBER.sub("<n>", text)
    return " ".join(text.lower().split())


def describe_call(name: str, args: Any) -> str:
    """read_file(Data/x.csv, offset=200) — how a call is named in messages to people and models."""
    if not isinstance(args, dict):
        return f"{name}(…)"
    parts = []
    for key, value in args.items():
        if key in ("code", "question"):
            continue
        text = str(value)
        text = text if len(text) <= 60 else text[:57] + "…"
        parts.append(text if key == "path" else f"{key}={text}")
    return f"{name}({', '.join(parts)})"


@dataclass
class Verdict:
    action: Action
    content: str = ""  # what the model reads instead of a result (dedup, refuse)
    events: list[Guard] = field(default_factory=list)


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


class Guards:
    def __init__(self, limits: GuardLimits | None = None) -> None:
        self.limits = limits or GuardLimits()
        self.occurrences: dict[str, int] = {}
        self.results: dict[str, str] = {}  # fingerprint -> content of its successful run
        self.failures: dict[str, int] = {}  # tool -> consecutive failures
        self.disabled: set[str] = set()
        self.coverage: dict[str, Intervals] = {}
        self.rereads: dict[str, int] = {}  # file -> reads, counting the first, that re-covered
        self.files_read: list[str] = []
        self.evidence = 0
        self.refusals = 0
        self.nudged = False
        self.pending_nudge: str | None = None
        self.stop_reason: str | None = None
        self.stop_detail = ""
        self.withdrawn_why: dict[str, str] = {}  # tool -> why it was withdrawn (for the model)
        # cycles: fingerprints of the calls that ran or were deduplicated, most recent last
        self.sequence: deque[str] = deque(
            maxlen=self.limits.cycle_max_len * (self.limits.cycle_stop_at + 1)
        )
        self.cycle_seen = False
        # wandering: True for each recent call that brought nothing new
        self.idle: deque[bool] = deque(maxlen=self.limits.wander_window)
        self.wander_seen = False
        self.listings: set[str] = set()  # listing bodies already shown
        # error storms: per tool, the error shape of its recent results (None = success)
        self.recent: dict[str, deque[str | None]] = {}
        # collapsing: fingerprint -> (call id, content) of its latest distinct pair, and the
        # stubs for later identical pairs, by their position in the transcript
        self.pairs: dict[str, tuple[str, str]] = {}
        self.stubs: dict[int, str] = {}
        self.tripped = False  # a breaker fired: repeats are collapsed from now on

    # -- before a call runs -------------------------------------------------

    def before_call(self, name: str, args: Any) -> Verdict:
        if name in FINISHING_TOOLS:
            return self._evidence_gate()
        fp = fingerprint(name, args)
        n = self.occurrences[fp] = self.occurrences.get(fp, 0) + 1
        call = describe_call(name, args)
        if n >= self.limits.stop_at:
            return self._stop(
                "loop_stop",
                f"{call} was asked {n} times with the same arguments; exploration stopped "
                "and the report is drafted from what was read.",
            )
        refused = name in self.disabled
        # A refused call neither runs nor repeats a result: it is no step of a cycle.
        cycle = None if refused else self._cycle(fp)
        if cycle is not None and cycle[1] >= self.limits.cycle_stop_at:
            return self._stop(
                "cycle",
                f"The calls {cycle[0]} went round {cycle[1]} times with the same arguments; "
                "exploration stopped and the report is drafted from what was read.",
                reason=Reason.CYCLE,
            )
        verdict = Verdict("run")
        if n >= self.limits.nudge_at:
            verdict.events += self._nudge(f"{call} was asked {n} times with the same arguments.")
        if cycle is not None and cycle[1] >= self.limits.cycle_nudge_at and not self.cycle_seen:
            self.cycle_seen = True
            what = f"The calls {cycle[0]} went round {cycle[1]} times with the same arguments."
            verdict.events.append(Guard("cycle", what))
            verdict.events += self._nudge(what)
        if refused:
            verdict.action = "refuse"
            verdict.content = message(
                "guard_withdrawn_refused",
                tool=name,
                why=self.withdrawn_why.get(name, "it kept failing"),
            )
        elif fp in self.results:
            verdict.action = "dedup"
            verdict.content = self.dedup_message(call, self.results[fp])
            verdict.events.insert(0, Guard("dedup", f"{call} repeated; earlier result returned"))
        return verdict

    def _cycle(self, fp: str) -> tuple[str, int] | None:
        """Append fp to the call sequence; the shortest block of 2..cycle_max_len calls that
        the sequence now ends with, repeated back to back at least twice, and how often."""
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

    def dedup_message(self, call: str, earlier: str) -> str:
        head = earlier[: self.limits.dedup_head_chars]
        more = "…" if len(earlier) > len(head) else ""
        return message("guard_dedup", call=call, head=head, more=more)

    def _evidence_gate(self) -> Verdict:
        if self.evidence > 0:
            return Verdict("run")
        self.refusals += 1
        if self.refusals > self.limits.evidence_refusals:
            return self._stop(
                "evidence_retry",
                "finish_exploration was called again without any file read; exploration "
                "ended with nothing gathered (nothing is invented).",
                reason=Reason.NO_EVIDENCE,
            )
        return Verdict(
            "refuse",
            content=message("guard_no_evidence"),
            events=[
                Guard(
                    "evidence_retry",
                    f"finish_exploration refused ({self.refusals}/{self.limits.evidence_refusals}): "
                    "nothing has been read yet",
                )
            ],
        )

    # -- after a call ran ---------------------------------------------------

    def after_call(self, name: str, args: Any, outcome: ToolOutcome) -> list[Guard]:
        events: list[Guard] = []
        if outcome.denied == "path_denied":
            events.append(Guard("path_denied", outcome.summary))
        elif outcome.denied:
            events.append(Guard(outcome.denied, outcome.summary))
        if not outcome.ok:
            return events + self._failure(name, args, outcome)
        self.failures[name] = 0
        self._recent(name).append(None)
        self.results[fingerprint(name, args)] = outcome.content
        if outcome.coverage is not None:
            events += self._coverage(name, args, outcome)
        if name in EVIDENCE_TOOLS and outcome.productive:
            self.evidence += 1
        return events

    def settle(
        self, name: str, args: Any, outcome: ToolOutcome, *, cached: bool, call_id: str, index: int
    ) -> list[Guard]:
        """The last word on every call, run, deduplicated or refused, in call order.

        Counts it for the wandering guard and remembers whether it repeats an earlier
        call/result pair (the tool message at `index` of the transcript), for `collapse`.
        """
        if name in FINISHING_TOOLS:
            return []  # the way out is never wandering
        self._remember(fingerprint(name, args), outcome.content, cached, call_id, index)
        nothing_new = self._nothing_new(name, outcome, cached)
        if nothing_new:
            outcome.productive = False
        return self._wander(nothing_new)

    def _coverage(self, name: str, args: Any, outcome: ToolOutcome) -> list[Guard]:
        path, start, end = outcome.coverage  # type: ignore[misc]
        spans = self.coverage.setdefault(path, Intervals())
        if not spans.covers(start, end):
            spans.add(start, end)
            self.rereads.setdefault(path, 1)
            if path not in self.files_read:
                self.files_read.append(path)
            return []
        # Nothing new: only lines already read. It counts as a repeat of that file.
        outcome.productive = False
        n = self.rereads[path] = self.rereads.get(path, 1) + 1
        call = describe_call(name, args)
        outcome.content += "\n" + message("guard_reread", start=start, end=end, path=path)
        events = [Guard("reread", f"{call} re-read lines {start}–{end} already read")]
        if n >= self.limits.stop_at:
            detail = f"{path} was re-read {n} times without new lines; exploration stopped."
            self._stop("loop_stop", detail)
            events.append(Guard("loop_stop", detail))
        elif n >= self.limits.nudge_at:
            events += self._nudge(f"{path} was re-read {n} times without new lines.")
        return events

    def _failure(self, name: str, args: Any, outcome: ToolOutcome) -> list[Guard]:
        if name in FINISHING_TOOLS:
            return []  # withdrawing the way out would trap the model
        n = self.failures[name] = self.failures.get(name, 0) + 1
        shape = error_shape(outcome.content, args)
        recent = self._recent(name)
        recent.append(shape)
        if name in self.disabled:
            return []
        kind: GuardKind
        if n >= self.limits.failure_limit:
            why = f"{n} failures in a row"
            kind, detail = "tool_disabled", f"{name} failed {n} times in a row and was withdrawn"
        else:
            # Successes in between reset the count above but not this one: the model keeps
            # changing the arguments and keeps getting the same error (qwen-code #10887).
            same = sum(1 for s in recent if s == shape)
            if same < self.limits.error_storm_at:
                return []
            why = f"the same error {same} times in its last {len(recent)} calls"
            kind = "error_storm"
            detail = (
                f"{name} gave the same error {same} times in its last {len(recent)} calls "
                f"whatever the arguments ({shape[:80]}); it was withdrawn"
            )
        self.disabled.add(name)
        self.withdrawn_why[name] = why
        self.tripped = True
        outcome.content += "\n" + message(
            "guard_withdrawn", tool=name, why=why, standing=self.standing()
        )
        return [Guard(kind, detail)]

    def _recent(self, name: str) -> deque[str | None]:
        return self.recent.setdefault(name, deque(maxlen=self.limits.error_storm_window))

    def _nothing_new(self, name: str, outcome: ToolOutcome, cached: bool) -> bool:
        """Did this call bring no new information? Reading another file or moving
        forward in one always does; a listing already seen, under any spelling, does not."""
        if cached or not outcome.ok or not outcome.productive:
            return True  # a repeat, an error, a refusal, an empty result, lines already read
        if name == "list_dir":
            body = outcome.content.partition("\n")[2]  # the first line names the spelling
            if body in self.listings:
                return True
            self.listings.add(body)
        return False

    def _wander(self, nothing_new: bool) -> list[Guard]:
        self.idle.append(nothing_new)
        idle = sum(self.idle)
        if not nothing_new or self.stop_reason:
            return []
        what = (
            f"{idle} of the last {len(self.idle)} calls brought nothing new "
            "(repeats, errors, empty results, lines or listings already seen)."
        )
        if idle >= self.limits.wander_stop_at:
            self._stop(
                "wander",
                f"{what[:-1]}; exploration stopped and the report is drafted from what was read.",
                reason=Reason.WANDER,
            )
            return [Guard("wander", self.stop_detail)]
        if idle >= self.limits.wander_nudge_at and not self.wander_seen:
            self.wander_seen = True
            return [Guard("wander", what), *self._nudge(what)]
        return []

    # -- the transcript -----------------------------------------------------

    def _remember(self, fp: str, content: str, cached: bool, call_id: str, index: int) -> None:
        earlier = self.pairs.get(fp)
        if earlier is not None and (cached or content == earlier[1]):
            self.stubs[index] = message("guard_collapsed", call_id=earlier[0])
        else:  # first time, or the same arguments brought something else (e.g. after an error)
            self.pairs[fp] = (call_id, content)

    def collapse(self, messages: list[dict[str, Any]]) -> int:
        """After a trip, shrink repeated call/result pairs to a stub, in place.

        The first pair stays whole; every tool_call id keeps its tool message (the API
        requires one), only the content of the repeats changes. Returns how many changed.
        """
        if not self.tripped:
            return 0
        changed = 0
        for index, stub in self.stubs.items():
            if messages[index].get("content") != stub:
                messages[index]["content"] = stub
                changed += 1
        return changed

    # -- shared -------------------------------------------------------------

    def _nudge(self, what: str) -> list[Guard]:
        self.tripped = True
        if self.nudged:
            return []
        self.nudged = True
        self.pending_nudge = message("guard_nudge", what=what, standing=self.standing())
        return [Guard("nudge", what + " The model was asked to move on or finish.")]

    def _stop(self, kind: GuardKind, detail: str, *, reason: Reason = Reason.LOOP) -> Verdict:
        self.tripped = True
        if self.stop_reason is None:  # the first stop is the one the run reports
            self.stop_reason = reason.value
            self.stop_detail = detail
        return Verdict("stop", content=detail, events=[Guard(kind, detail)])

    def take_nudge(self) -> str | None:
        msg, self.pending_nudge = self.pending_nudge, None
        return msg

    def standing(self) -> str:
        if not self.files_read:
            return message("standing_none")
        names = ", ".join(self.files_read[:8]) + ("…" if len(self.files_read) > 8 else "")
        return message("standing", count=len(self.files_read), names=names)


def _is_repetition(block: list[str]) -> bool:
    """True when block is a shorter block repeated (A-A, A-B-A-B): not a cycle of its own size."""
    size = len(block)
    return any(size % d == 0 and block == block[:d] * (size // d) for d in range(1, size // 2 + 1))


def _short_fp(fp: str) -> str:
    name, _, body = fp.partition("|")
    try:
        args = json.loads(body)
    except ValueError:
        args = None
    return describe_call(name, args)


# -- budgets ------------------------------------------------------------------


@dataclass
class _Limit:
    label: str  # "token budget", "exploration money budget", ...
    limit: float
    spent: Callable[[], float]
    money: bool

    def show(self, value: float) -> str:
        return f"${value:,.4f}" if self.money else f"{value:,.0f}"


class Budget:
    """Token and money budgets of the run and of one stage: one wrap-up warning at
    `budget_warn_percent` of whichever limit gets there first, a stop at 100 % of any.

    Run limits count everything in `usage` (earlier stages, a resumed run); stage
    limits count from the moment the Budget is made. Money needs `config.prices`.
    """

    def __init__(self, config: RunConfig, usage: Usage, stage: str | None = None) -> None:
        self.stage = stage
        self.warn_share = config.guards.budget_warn_percent / 100
        self.warned = False
        tokens0, usd0 = usage.total_tokens, spent_usd(config, usage)
        self.limits: list[_Limit] = []
        if config.budget_tokens:
            self.limits.append(
                _Limit("token budget", config.budget_tokens, lambda: usage.total_tokens, False)
            )
        if config.budget_usd:
            self.limits.append(
                _Limit("money budget", config.budget_usd, lambda: spent_usd(config, usage), True)
            )
        if stage == "explore" and config.explore_budget_tokens:
            self.limits.append(
                _Limit(
                    "exploration token budget",
                    config.explore_budget_tokens,
                    lambda: usage.total_tokens - tokens0,
                    False,
                )
            )
        if stage == "explore" and config.explore_budget_usd:
            self.limits.append(
                _Limit(
                    "exploration money budget",
                    config.explore_budget_usd,
                    lambda: spent_usd(config, usage) - usd0,
                    True,
                )
            )

    @property
    def exhausted(self) -> bool:
        return any(lim.spent() >= lim.limit for lim in self.limits)

    def check(self) -> Verdict:
        """After a model call: "stop" (content says why), or "run" — with the wrap-up
        message for the model as content the first time a limit passes the warning share."""
        what = self.stage or "the run"
        if self.stage == "explore":
            what = "exploration"
        spent = [(lim, lim.spent()) for lim in self.limits]
        for lim, value in spent:
            if value >= lim.limit:
                detail = (
                    f"{lim.label[0].upper()}{lim.label[1:]} reached "
                    f"({lim.show(value)} of {lim.show(lim.limit)}); {what} stopped."
                )
                return Verdict("stop", detail, [Guard("budget", detail)])
        if not self.warned:
            for lim, value in spent:
                if value >= self.warn_share * lim.limit:
                    self.warned = True
                    share = round(100 * self.warn_share)
                    return Verdict(
                        "run",
                        content=message("budget_wrap_up", share=share, label=lim.label),
                        events=[
                            Guard(
                                "budget",
                                f"{share}% of the {lim.label} used ({lim.show(value)} of "
                                f"{lim.show(lim.limit)}); the model was told to wrap up.",
                            )
                        ],
                    )
        return Verdict("run")
