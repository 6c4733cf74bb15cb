"""The events a run emits, as frozen dataclasses with a stable JSON form.

DESIGN.md fixes the field names: other programs read `events.jsonl` and
`labwright run --json`. Fields may be added here, never renamed or removed.
An event whose `journaled` is False (progress) goes to the caller only, never to
the journal.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field, fields
from typing import Any, ClassVar, Literal

StageName = str  # a stage of the plan (run/stages.py)
MilestoneStatus = Literal["start", "end", "skipped"]
GuardKind = Literal[
    "dedup",
    "nudge",
    "loop_stop",
    "reread",
    "tool_disabled",
    "evidence_retry",
    "final_window",
    "iteration_cap",
    "budget",
    "format_retry",
    "path_denied",
    "sandbox_denied",
    "compile_fix",
    "cycle",
    "wander",
    "error_storm",
    "deadline",  # a model call cut at its deadline (llm.py)
    "call_cap",  # a turn asked for more tool calls than max_calls_per_turn
    "figure_cap",  # make_figure past max_figures
    "no_tool_call",  # an exploration turn answered in text only, without a tool call
    "tool_choice_fallback",  # forced tool choice rejected or ignored: an instruction instead
]
DoneStatus = Literal["ok", "degraded", "failed", "cancelled"]


@dataclass(frozen=True)
class Event:
    type: ClassVar[str] = "event"
    journaled: ClassVar[bool] = True  # appended to events.jsonl before the caller sees it

    def to_dict(self) -> dict[str, Any]:
        return {"type": self.type, **asdict(self)}

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), ensure_ascii=False, sort_keys=False)


@dataclass(frozen=True)
class Milestone(Event):
    type: ClassVar[str] = "milestone"
    stage: StageName
    index: int
    total: int
    status: MilestoneStatus
    detail: Any = None


@dataclass(frozen=True)
class ToolCall(Event):
    type: ClassVar[str] = "tool_call"
    iteration: int
    call_id: str
    name: str
    args: dict[str, Any]


@dataclass(frozen=True)
class ToolResult(Event):
    type: ClassVar[str] = "tool_result"
    call_id: str
    name: str
    ok: bool
    productive: bool
    cached: bool
    summary: str
    # The summary as data ({code, params}, core/step_words.py) for the app's languages;
    # taken from a summary that is a `Words`, absent from the JSON form otherwise.
    words: dict[str, Any] | None = None

    def __post_init__(self) -> None:
        _take_words(self, self.summary)

    def to_dict(self) -> dict[str, Any]:
        return _without_none(super().to_dict(), "words")


@dataclass(frozen=True)
class Guard(Event):
    type: ClassVar[str] = "guard"
    kind: GuardKind
    detail: str
    # Which call it is about, when it is about one (added fields: absent from the JSON
    # form when unknown, so a guard without them reads as it always did).
    call_id: str | None = None
    tool: str | None = None  # the tool the call asked for
    turn: int | None = None  # the exploration turn (model call), 1-based
    files: list[str] = field(default_factory=list)  # files of the material it concerns
    words: dict[str, Any] | None = None  # the detail as data (as ToolResult.words)

    def __post_init__(self) -> None:
        _take_words(self, self.detail)

    def to_dict(self) -> dict[str, Any]:
        return _without_none(super().to_dict(), "call_id", "tool", "turn", "files", "words")


@dataclass(frozen=True)
class LLMCall(Event):
    type: ClassVar[str] = "llm"
    role: str
    model: str
    prompt_tokens: int
    completion_tokens: int
    ms: int
    # the part of completion_tokens a reasoning model spent thinking, when the server
    # says (added field: absent from the JSON form when 0, so the event reads as before)
    reasoning_tokens: int = 0

    def to_dict(self) -> dict[str, Any]:
        data = super().to_dict()
        if not data["reasoning_tokens"]:
            del data["reasoning_tokens"]
        return data


@dataclass(frozen=True)
class Progress(Event):
    """A streamed model call still running: how far it got. A few a second at most;
    shown live (CLI, app), never journaled: the `llm` event at the end is the record."""

    type: ClassVar[str] = "progress"
    journaled: ClassVar[bool] = False
    role: str
    model: str
    tokens: int  # so far: the server's count when it streams one, else an estimate
    ms: int  # since the call started
    estimated: bool = False  # tokens estimated from the characters received
    thinking: bool = False  # only reasoning so far: a thinking model before its answer


@dataclass(frozen=True)
class Draft(Event):
    type: ClassVar[str] = "draft"
    version: int
    chars: int
    degraded: bool


@dataclass(frozen=True)
class Done(Event):
    type: ClassVar[str] = "done"
    status: DoneStatus
    report: str | None = None
    pdf: str | None = None
    reasons: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class Error(Event):
    type: ClassVar[str] = "error"
    stage: str
    message: str  # in English, for the log and the CLI
    # what failed, as data for the app's languages: a model failure's LLMError.kind
    # ("auth", "unreachable", …), "internal" for Labwright's own; "" when not classified
    kind: str = ""
    words: dict[str, Any] | None = None  # the message as data (as ToolResult.words)

    def __post_init__(self) -> None:
        _take_words(self, self.message)

    def to_dict(self) -> dict[str, Any]:
        return _without_none(super().to_dict(), "words")


def _take_words(event: Event, text: object) -> None:
    """A sentence made as `Words` (core/step_words.py) gives the event its `words` field."""
    made = getattr(text, "to_dict", None)
    if getattr(event, "words", None) is None and callable(made) and isinstance(text, str):
        object.__setattr__(event, "words", made())  # frozen: set once, while it is made


def _without_none(data: dict[str, Any], *keys: str) -> dict[str, Any]:
    """The JSON form without added fields that say nothing (a reader sees what it always saw)."""
    for key in keys:
        if data[key] is None or data[key] == []:
            del data[key]
    return data


EVENT_TYPES: dict[str, type[Event]] = {
    cls.type: cls
    for cls in (Milestone, ToolCall, ToolResult, Guard, LLMCall, Progress, Draft, Done, Error)
}


def event_from_dict(data: dict[str, Any]) -> Event:
    """Rebuild an event from its JSON form; unknown extra fields are ignored."""
    cls = EVENT_TYPES[data["type"]]
    known = {f.name for f in fields(cls)}
    return cls(**{k: v for k, v in data.items() if k in known})


def event_from_json(line: str) -> Event:
    return event_from_dict(json.loads(line))
