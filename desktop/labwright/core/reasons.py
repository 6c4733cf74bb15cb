"""Why a run is degraded and what a guard did: the enumerations and their one table of words.

run.json "reasons" and the `done` event carry reasons as plain strings (DESIGN.md), and
`guard` events carry their kind as a string; those strings do not change. This module is
the one place that builds and parses them (`Degrade`, with its structured detail: the
model error's kind, the count of untraced numbers) and the one place that says in plain
words what each means. The CLI log prints these sentences as they are; the review banner
and the export README start from them; the app shows them translated, from the catalogs `REASONS` and
`GUARDS` (core/catalog.py), under the context `TR_CONTEXT`.

Placeholders ("{failure_limit}") are filled from the run's own guard limits, so a
configured limit is what the person reads.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import asdict, dataclass
from enum import Enum
from typing import Any, get_args

from labwright.core.catalog import Catalog, Translate, same
from labwright.core.events import GuardKind
from labwright.core.settings.config import GuardLimits

TR_CONTEXT = "Reasons"  # the translation context of every sentence below


class Reason(str, Enum):
    """Every reason a run can be degraded (or end) with. The value is the serialized form,
    except for the two with detail (see `Degrade`)."""

    OFFLINE = "offline"
    # exploration cut short (Exploration.reason, guards' stop reasons)
    LOOP = "loop"
    CYCLE = "cycle"
    WANDER = "wander"
    ITERATION_CAP = "iteration_cap"
    BUDGET = "budget"
    TIME_UP = "time_up"  # the whole run's wall-clock budget (--max-minutes)
    CUT_SHORT = "cut_short"  # an exploration that stopped without saying why
    NO_EVIDENCE = "no_evidence"
    MODEL_ERROR = "model_error"  # exploration stopped by a model failure, with evidence
    NO_TOOL_CALL = "no_tool_call"  # the model kept answering in text instead of calling tools
    EXPLORE_CANCELLED = "explore_cancelled"
    # drafting and after
    DRAFT_INVALID = "draft_invalid"
    COMPILE_FAILED = "compile_failed"
    NUMBERS_UNMATCHED = "numbers_unmatched"  # serialized "<n> numbers not found in the material"
    MODEL_FAILED = "model error"  # serialized "model error: <kind>" (LLMError.kind)
    # what ends a run
    CANCELLED = "cancelled"
    INTERNAL_ERROR = "internal_error"


_NUMBERS = re.compile(r"(\d+) numbers? not found in the material")
_MODEL_PREFIX = "model error:"


@dataclass(frozen=True)
class Degrade:
    """A reason with its detail; `str()` is the form run.json and the `done` event keep."""

    reason: Reason
    kind: str = ""  # MODEL_FAILED: which failure (auth, timeout, deadline, …)
    count: int = 0  # NUMBERS_UNMATCHED: how many numbers

    def __str__(self) -> str:
        if self.reason is Reason.MODEL_FAILED:
            return f"model error: {self.kind}"
        if self.reason is Reason.NUMBERS_UNMATCHED:
            n = self.count
            return f"{n} number{'s' if n != 1 else ''} not found in the material"
        return self.reason.value

    @classmethod
    def parse(cls, text: str) -> Degrade | None:
        """The structured reason of a serialized one; None for a string no version wrote."""
        text = str(text)
        if text.startswith(_MODEL_PREFIX):
            return cls(Reason.MODEL_FAILED, kind=text[len(_MODEL_PREFIX) :].strip())
        m = _NUMBERS.fullmatch(text)
        if m:
            return cls(Reason.NUMBERS_UNMATCHED, count=int(m[1]))
        try:
            reason = Reason(text)
        except ValueError:
            return None
        if reason in (Reason.MODEL_FAILED, Reason.NUMBERS_UNMATCHED):
            return None  # these two only exist with their detail
        return cls(reason)

    def fields(self) -> dict[str, Any]:
        return {"kind": self.kind, "count": self.count}


def model_failed(kind: str) -> str:
    """The serialized reason of a model failure (LLMError.kind)."""
    return str(Degrade(Reason.MODEL_FAILED, kind=kind))


def numbers_unmatched(count: int) -> str:
    return str(Degrade(Reason.NUMBERS_UNMATCHED, count=count))


def is_reason(text: str, reason: Reason) -> bool:
    parsed = Degrade.parse(text)
    return parsed is not None and parsed.reason is reason


# Why an exploration stopped, as a run's reason: a cancelled one must stay visible after
# --resume, which drops the run-level "cancelled".
def explore_reason(stopped: str | None) -> str:
    """The run's reason for an exploration that did not finish (Exploration.reason)."""
    if stopped == Reason.CANCELLED.value:
        return Reason.EXPLORE_CANCELLED.value
    return stopped or Reason.CUT_SHORT.value


# -- the one table ------------------------------------------------------------------------

REASON_TEXT: dict[Reason, str] = {
    Reason.OFFLINE: (
        "Offline run: no model read the material. The report is a skeleton built from the "
        "data files, with TODOs where prose is needed."
    ),
    Reason.LOOP: "Exploration stopped: the model kept repeating the same calls.",
    Reason.CYCLE: "Exploration stopped: the model went round in a circle of the same few calls.",
    Reason.WANDER: "Exploration stopped: the model kept making calls that brought nothing new.",
    Reason.ITERATION_CAP: "Exploration stopped: the model used all its turns without finishing.",
    Reason.BUDGET: "The token or money budget ran out.",
    Reason.TIME_UP: (
        "The run's time limit ran out; the report was written from what was gathered by then."
    ),
    Reason.CUT_SHORT: "Exploration stopped before the model finished it.",
    Reason.NO_EVIDENCE: "Nothing was read: the draft is a skeleton with TODOs.",
    Reason.MODEL_ERROR: "Exploration stopped because the model failed.",
    Reason.NO_TOOL_CALL: (
        "Exploration stopped: the model kept answering in plain text instead of calling tools."
    ),
    Reason.EXPLORE_CANCELLED: "Exploration was cancelled before the model finished it.",
    Reason.DRAFT_INVALID: (
        "The write model did not return a usable LaTeX document, even after retries, so this "
        "draft is the skeleton filled with the findings; complete its TODOs."
    ),
    Reason.COMPILE_FAILED: "The report did not compile; the last PDF that compiled is kept.",
    Reason.NUMBERS_UNMATCHED: (
        "Numbers of the report not found in the material that was read: {count}. Correct "
        "each one or say where it comes from."
    ),
    Reason.MODEL_FAILED: "The model failed ({kind}).",
    Reason.CANCELLED: "The run was cancelled; the report holds what was done by then.",
    Reason.INTERNAL_ERROR: (
        "Labwright itself failed during the run (error.txt in the run folder has the "
        "details); the report holds what was done before that."
    ),
}
UNKNOWN_REASON = "Degraded: {reason}."

GUARD_TEXT: dict[GuardKind, str] = {
    "dedup": "The model asked for something it already had; it got the earlier answer instead.",
    "nudge": "The model kept repeating itself and was asked to move on or finish.",
    "loop_stop": (
        "The model was stuck in a loop; exploration stopped and the report is written from "
        "what was read."
    ),
    "reread": "The model re-read lines it had already read.",
    "tool_disabled": "A tool failed {failure_limit} times in a row and was withdrawn.",
    "evidence_retry": "The model tried to finish without reading anything; it was refused.",
    "final_window": "The step budget is used up; the model must finish now.",
    "iteration_cap": "The model did not finish in time; exploration stopped.",
    "budget": "A token, money or time budget is nearly or fully used.",
    "format_retry": "The model's answer was not a usable LaTeX document; it was asked again.",
    "path_denied": "The model asked for a path outside the folder; it was refused.",
    "sandbox_denied": "Figure code tried something not allowed; it was refused.",
    "compile_fix": "The report did not compile; the model was asked to fix it.",
    "cycle": "The model went round in a circle of the same few calls.",
    "wander": "The model kept making calls that brought nothing new.",
    "error_storm": (
        "A tool failed with the same error {error_storm_at} times in its last "
        "{error_storm_window} calls and was withdrawn."
    ),
    "deadline": "A model call took longer than its time limit and was stopped.",
    "call_cap": (
        "The model asked for more than {max_calls_per_turn} tools at once; only the first ones ran."
    ),
    "figure_cap": "The run has made {max_figures} figures, as many as it may; no more are made.",
    "no_tool_call": (
        "The model answered in plain text instead of calling a tool; it was told what to do. "
        "{no_tool_call_stop_at} such answers in a row end exploration."
    ),
    "tool_choice_fallback": (
        "The model server does not honour a forced tool call; the model was told in words "
        "to finish instead."
    ),
}
UNKNOWN_GUARD = "A guard stepped in."

GUARD_KINDS: tuple[str, ...] = get_args(GuardKind)


_UNKNOWN = ""  # the code of the sentence for a reason or guard no version wrote
REASONS = Catalog(
    TR_CONTEXT, {**{r.value: t for r, t in REASON_TEXT.items()}, _UNKNOWN: UNKNOWN_REASON}
)
GUARDS = Catalog(
    TR_CONTEXT, {**{str(k): t for k, t in GUARD_TEXT.items()}, _UNKNOWN: UNKNOWN_GUARD}
)


def all_texts() -> list[str]:
    """Every sentence of the tables, for the translation file."""
    return [*REASONS.all_texts(), *GUARDS.all_texts()]


def reason_text(reason: str | Degrade, tr: Translate = same) -> str:
    """The plain sentence for one reason (serialized or structured)."""
    parsed = reason if isinstance(reason, Degrade) else Degrade.parse(reason)
    if parsed is None:
        return _filled(REASONS, _UNKNOWN, {"reason": reason}, tr)
    return _filled(REASONS, parsed.reason.value, parsed.fields(), tr)


def guard_text(kind: str, limits: GuardLimits | None = None, tr: Translate = same) -> str:
    """What a guard event means, with the run's own limits in it."""
    code = kind if kind in GUARD_TEXT else _UNKNOWN
    return _filled(GUARDS, code, asdict(limits or GuardLimits()), tr)


def _filled(catalog: Catalog, code: str, params: Mapping[str, Any], tr: Translate) -> str:
    # a translation that lost a placeholder: the English sentence, never a crash
    text = catalog.text(code, params, tr)
    if text is None:
        text = catalog.text(code, params) or ""
    return text


def limits_of(meta: Mapping[str, Any]) -> GuardLimits:
    """The guard limits a run used, from its run.json (defaults when absent or unreadable)."""
    config = meta.get("config")
    guards = config.get("guards") if isinstance(config, Mapping) else None
    if isinstance(guards, Mapping):
        try:
            return GuardLimits(**guards)
        except (TypeError, ValueError):
            pass  # a run.json from another version: its words still show, with defaults
    return GuardLimits()
