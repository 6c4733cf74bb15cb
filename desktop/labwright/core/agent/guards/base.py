"""What every guard shares: the call as the guards see it, and the shape of a verdict.

A guard (`Policy`) looks at calls through the ledger and answers with a `Ruling`;
it never changes an outcome or a message. The ledger (agent/ledger.py) combines
the checks: it appends notes to what the model reads, grants the one nudge of the
run, keeps the first stop, and stamps each guard event with its call.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any, Literal

from labwright.core.agent.tools.base import ToolOutcome, ToolTraits
from labwright.core.events import Guard, GuardKind
from labwright.core.reasons import Reason

Action = Literal["run", "dedup", "same", "refuse", "stop", "broken"]


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


@dataclass(frozen=True)
class Stop:
    """Exploration ends: why (the run's degrade reason) and what happened."""

    reason: Reason
    detail: str


@dataclass(frozen=True)
class Answer:
    """What the model reads instead of a run of the call (decided before it runs)."""

    action: Literal["dedup", "same", "refuse"]  # same: an identical call of this batch
    content: str = ""  # ("same": the earlier call's answer, once it has one)
    summary: str = ""  # the timeline's line; "" = the first guard event's detail


@dataclass(frozen=True)
class Ruling:
    """One guard's word on one call (or turn). Everything is optional."""

    events: tuple[Guard, ...] = ()  # the guard's own events (its stop's included)
    nudge: str = ""  # what happened, when it asks the model to move on (once per run)
    nudged: str = ""  # the nudge event's detail, as `Words` (default: nudge + the ask)
    stop: Stop | None = None
    answer: Answer | None = None  # before a call: it is not run, the model reads this
    note: str = ""  # after a call: appended to what the model reads
    unproductive: bool = False  # the call brought nothing new
    trip: bool = False  # a breaker fired: repeated call/result pairs collapse from now on


PASS = Ruling()


def stop_with(kind: GuardKind, reason: Reason, detail: str) -> Ruling:
    """A guard that ends exploration: its event and its stop say the same thing."""
    return Ruling(events=(Guard(kind, detail),), stop=Stop(reason, detail))


@dataclass
class CallRecord:
    """One tool call in the ledger, from its proposal to the answer the model reads.

    The ledger fills it in; guards only read it. `outcome` is what the tool returned,
    untouched, or the ledger's own answer when the call did not run.
    """

    call_id: str
    name: str
    args: Any
    traits: ToolTraits
    turn: int = 0
    action: Action = "run"
    outcome: ToolOutcome | None = None
    events: list[Guard] = field(default_factory=list)  # before it ran, in order
    notes: list[str] = field(default_factory=list)  # appended to what the model reads
    productive: bool = True  # after the guards had their say
    cached: bool = False  # answered from an earlier result
    same_as: CallRecord | None = None  # the identical call of this batch it waits for
    repeat_of: str | None = None  # call id of the identical call/result pair before it
    settled: bool = False  # has its answer

    def __post_init__(self) -> None:
        self.fp = fingerprint(self.name, self.args)
        self.described = describe_call(self.name, self.args)

    @property
    def ran(self) -> bool:
        return self.action == "run"

    @property
    def ok(self) -> bool:
        return self.outcome is not None and self.outcome.ok

    @property
    def content(self) -> str:
        """What the model reads (before any collapsing)."""
        base = self.outcome.content if self.outcome is not None else ""
        return "\n".join([base, *self.notes])

    @property
    def files(self) -> list[str]:
        """The file it concerned: the lines it read, else the path it named."""
        if self.outcome is not None and self.outcome.coverage is not None:
            return [self.outcome.coverage[0]]
        path = self.args.get("path") if isinstance(self.args, dict) else None
        return [path] if isinstance(path, str) and path else []


class Policy:
    """A guard. The ledger asks each one, in its order, at each step of each call:

    - `before`: the call is proposed (`record.action` is what earlier guards decided);
    - `approved`: it was cleared to run;
    - `after`: it ran, or could not be made at all (its outcome is the tool's own);
    - `settle`: it has its final answer, run or not;
    - `withholds`: is a tool left out of the tools offered to the model?

    Finishing calls (the way out) are shown only to guards with `watches_finish`.
    """

    watches_finish = False

    def before(self, record: CallRecord) -> Ruling:
        return PASS

    def approved(self, record: CallRecord) -> None:
        return None

    def after(self, record: CallRecord) -> Ruling:
        return PASS

    def settle(self, record: CallRecord) -> Ruling:
        return PASS

    def withholds(self, name: str, traits: ToolTraits) -> bool:
        return False
