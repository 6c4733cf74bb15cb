"""The events a run emits, as frozen dataclasses with a stable JSON form.

DESIGN.md fixes the field names: other programs read `events.jsonl` and
`labwright run --json`. Fields may be added here, never renamed or removed.
An event whose `journaled` is False (progress) goes to the caller only, never to
the journal.
"""

from __future__ import annotations

import json
import types
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field, fields
from typing import Any, ClassVar, Literal, TypeVar, Union, get_args, get_origin

from labwright.core.jsonform import field_types, plain

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


class StageNames:
    """The stages of DESIGN.md's plan, by the name a milestone's `stage` carries."""

    SCAN = "scan"
    EXPLORE = "explore"
    FIGURES = "figures"
    GAP = "gap"
    DRAFT = "draft"
    REFLECT = "reflect"
    BIB = "bib"
    COMPILE = "compile"


# -- what a milestone says: one dataclass per stage ------------------------------------
#
# Each writes exactly the keys the stage wrote as a dict before (DESIGN.md: other programs
# read them; tests/test_journal_golden.py holds them to the byte) and reads back what an
# older or newer Labwright wrote: a key it lacks takes its default, one it does not know
# is left out. A detail that does not fit its stage's dataclass at all is kept as it came
# (RawDetail), so replaying someone's journal never fails on it.

D = TypeVar("D", bound="Detail")


class Detail:
    """Base of the milestone details: a frozen dataclass with a JSON form."""

    _OMIT_NONE: ClassVar[frozenset[str]] = frozenset()  # keys written only when set

    def to_dict(self) -> Any:
        out: dict[str, Any] = {}
        for f in fields(self):  # type: ignore[arg-type]
            value = getattr(self, f.name)
            if value is None and f.name in self._OMIT_NONE:
                continue
            out[f.name] = plain(value)
        return out

    @classmethod
    def from_dict(cls: type[D], data: Any) -> D:
        """The detail of `data`; ValueError when it does not fit."""
        if not isinstance(data, Mapping):
            raise ValueError(f"{cls.__name__} is an object, not {type(data).__name__}")
        hints = field_types(cls)
        values = {
            f.name: _fit(data[f.name], hints[f.name], f.name)
            for f in fields(cls)  # type: ignore[arg-type]
            if f.name in data
        }
        return cls(**values)


def _fit(value: Any, tp: Any, where: str) -> Any:
    """`value` when it is of the type `tp` (a detail built from its dict); ValueError else."""
    if tp is Any:
        return value
    origin = get_origin(tp)
    if origin in (Union, types.UnionType):
        for arg in get_args(tp):
            try:
                return _fit(value, arg, where)
            except ValueError:
                continue
        raise ValueError(f"{where}: {value!r} is none of {tp}")
    if tp is type(None):
        if value is None:
            return None
        raise ValueError(f"{where}: {value!r} is not null")
    if origin is list:
        if not isinstance(value, list):
            raise ValueError(f"{where}: {value!r} is not a list")
        (item,) = get_args(tp)
        return [_fit(v, item, where) for v in value]
    if origin is dict:
        if not isinstance(value, dict):
            raise ValueError(f"{where}: {value!r} is not an object")
        _, item = get_args(tp)
        return {str(k): _fit(v, item, where) for k, v in value.items()}
    if isinstance(tp, type) and issubclass(tp, Detail):
        return tp.from_dict(value)
    if tp is float and isinstance(value, (int, float)) and not isinstance(value, bool):
        return value
    if tp is int and isinstance(value, int) and not isinstance(value, bool):
        return value
    if tp in (str, bool) and isinstance(value, tp):
        return value
    raise ValueError(f"{where}: {value!r} is not {getattr(tp, '__name__', tp)}")


@dataclass(frozen=True)
class Confinement(Detail):
    """Which OS layers hold model-written code here (confine.Support), in words, and
    whether figures may run: "confined", "unconfined" (allowed without) or "disabled"."""

    landlock_abi: int = 0
    namespaces: bool = False
    seccomp: bool = False
    layers: list[str] = field(default_factory=list)
    describe: str = ""
    figures: str = ""


@dataclass(frozen=True)
class ScanPlan(Detail):
    """scan, start: where the run reads and writes, and what it will do."""

    _OMIT_NONE: ClassVar[frozenset[str]] = frozenset({"compile", "confinement"})
    folder: str = ""
    run_dir: str = ""
    plan: list[str] = field(default_factory=list)
    template: str = ""
    compile: str | None = None  # "unavailable: <what to install>" when asked for in vain
    confinement: Confinement | None = None


@dataclass(frozen=True)
class ScanDetail(Detail):
    """scan, end: what the folder holds (material/workspace.py's ScanResult)."""

    root: str = ""
    summary: str = ""
    files: int = 0
    dirs: int = 0
    total_bytes: int = 0
    counts: dict[str, int] = field(default_factory=dict)
    sizes: dict[str, int] = field(default_factory=dict)
    hidden: list[str] = field(default_factory=list)
    huge: list[str] = field(default_factory=list)
    skipped: list[dict[str, str]] = field(default_factory=list)
    sample: dict[str, list[str]] = field(default_factory=dict)
    truncated: bool = False
    omitted: dict[str, int] = field(default_factory=dict)  # written only when some were

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = super().to_dict()
        if not self.omitted:
            del out["omitted"]
        return out


@dataclass(frozen=True)
class ExploreDetail(Detail):
    """explore, end: how the exploration ended."""

    status: str = ""  # "finished" | "cut_short" | "no_evidence" | "cancelled"
    reason: str | None = None  # why it was cut short
    files_read: int = 0
    model_calls: int = 0


@dataclass(frozen=True)
class ExploreSkipped(Detail):
    """explore, skipped: an offline run explores nothing."""

    reason: str = ""


@dataclass(frozen=True)
class FiguresDetail(Detail):
    """figures, end: how many, and who made them ("model" or "tables")."""

    count: int = 0
    made_by: str = ""


@dataclass(frozen=True)
class GapDetail(Detail):
    """gap, end: the requirements checked, and those the material does not support."""

    requirements: int = 0
    unmet: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class RedraftDetail(Detail):
    """draft, start of a re-draft: the drafting stages run again, with the person's note."""

    note: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {"redraft": True, "note": self.note}

    @classmethod
    def from_dict(cls, data: Any) -> RedraftDetail:
        if not (isinstance(data, Mapping) and data.get("redraft") is True):
            raise ValueError("not a re-draft")
        return super().from_dict({k: v for k, v in data.items() if k != "redraft"})


@dataclass(frozen=True)
class NumbersSummary(Detail):
    """The number check of a draft: how many numbers, how many not found."""

    checked: int = 0
    unmatched: int = 0


@dataclass(frozen=True)
class DraftDetail(Detail):
    """draft, end: the draft written; the number check of a model's draft."""

    _OMIT_NONE: ClassVar[frozenset[str]] = frozenset({"numbers"})
    version: int = 0
    chars: int = 0
    skeleton: bool = False
    numbers: NumbersSummary | None = None


@dataclass(frozen=True)
class ReflectDetail(Detail):
    """reflect: which round of how many; at its end whether it converged; when skipped,
    why ("converged", "token budget", "time budget", "skeleton report: …")."""

    _OMIT_NONE: ClassVar[frozenset[str]] = frozenset({"converged", "reason"})
    round: int = 0
    of: int = 0
    converged: bool | None = None
    reason: str | None = None


@dataclass(frozen=True)
class BibDetail(Detail):
    """bib, end: the entries of refs.bib and the citations that resolve to none."""

    entries: int = 0
    unresolved: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class CompileStart(Detail):
    """compile, start: the TeX engine."""

    engine: str | None = None


@dataclass(frozen=True)
class CompileError(Detail):
    """One error of a compile, where TeX placed it."""

    file: str | None = None
    line: int | None = None
    message: str = ""


@dataclass(frozen=True)
class CompileDetail(Detail):
    """compile, end: whether it compiled, the PDF, the first errors, the fix rounds."""

    ok: bool = False
    pdf: str | None = None
    errors: list[CompileError] = field(default_factory=list)
    fix_rounds: int = 0


@dataclass(frozen=True)
class RawDetail(Detail):
    """A detail that fits no dataclass of its stage (another Labwright's): kept as it came."""

    data: Any = None

    def to_dict(self) -> Any:
        return self.data


MilestoneDetail = (
    ScanPlan
    | ScanDetail
    | ExploreDetail
    | ExploreSkipped
    | FiguresDetail
    | GapDetail
    | RedraftDetail
    | DraftDetail
    | ReflectDetail
    | BibDetail
    | CompileStart
    | CompileDetail
    | RawDetail
)

# Which dataclass a stage's milestone of each status carries (none: no detail).
_DETAILS: dict[tuple[str, str], type[Detail]] = {
    (StageNames.SCAN, "start"): ScanPlan,
    (StageNames.SCAN, "end"): ScanDetail,
    (StageNames.EXPLORE, "end"): ExploreDetail,
    (StageNames.EXPLORE, "skipped"): ExploreSkipped,
    (StageNames.FIGURES, "end"): FiguresDetail,
    (StageNames.GAP, "end"): GapDetail,
    (StageNames.DRAFT, "start"): RedraftDetail,
    (StageNames.DRAFT, "end"): DraftDetail,
    (StageNames.REFLECT, "start"): ReflectDetail,
    (StageNames.REFLECT, "end"): ReflectDetail,
    (StageNames.REFLECT, "skipped"): ReflectDetail,
    (StageNames.BIB, "end"): BibDetail,
    (StageNames.COMPILE, "start"): CompileStart,
    (StageNames.COMPILE, "end"): CompileDetail,
}


def detail_from_dict(stage: str, status: str, data: Any) -> MilestoneDetail | None:
    """The typed detail of a milestone's JSON `detail` (None stays None)."""
    if data is None:
        return None
    cls = _DETAILS.get((stage, status))
    if cls is not None:
        try:
            return cls.from_dict(data)  # type: ignore[return-value]
        except ValueError:
            pass
    return RawDetail(data)


@dataclass(frozen=True)
class Milestone(Event):
    type: ClassVar[str] = "milestone"
    stage: StageName
    index: int
    total: int
    status: MilestoneStatus
    detail: MilestoneDetail | None = None

    def __post_init__(self) -> None:
        if self.detail is not None and not isinstance(self.detail, Detail):
            # given as its JSON form (a test, an older caller): read as from the journal
            object.__setattr__(
                self, "detail", detail_from_dict(self.stage, self.status, self.detail)
            )

    @property
    def redraft(self) -> RedraftDetail | None:
        """The re-draft this milestone starts, if it starts one."""
        return self.detail if isinstance(self.detail, RedraftDetail) else None

    def to_dict(self) -> dict[str, Any]:
        detail = None if self.detail is None else self.detail.to_dict()
        return {
            "type": self.type,
            "stage": self.stage,
            "index": self.index,
            "total": self.total,
            "status": self.status,
            "detail": detail,
        }


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
    """Rebuild an event from its JSON form; unknown extra fields are ignored.

    KeyError for a type this Labwright does not know, TypeError for an event that lacks
    a field its type needs."""
    cls = EVENT_TYPES[data["type"]]
    known = {f.name for f in fields(cls)}
    return cls(**{k: v for k, v in data.items() if k in known})


def event_from_json(line: str) -> Event:
    return event_from_dict(json.loads(line))
