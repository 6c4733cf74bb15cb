"""The guards of the exploration loop, as plain state (DESIGN.md, "Guards").

`Guards` sees every call before it runs (`before_call`) and every outcome after
(`after_call`), in call order, and answers with a verdict plus the guard
events to emit. It holds no I/O, so each guard is unit-tested on its own; the
loop in explore.py only follows the verdicts.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Literal

from .config import GuardLimits
from .events import Guard
from .tools.base import ToolOutcome

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
        verdict = Verdict("run")
        if n >= self.limits.nudge_at:
            verdict.events += self._nudge(f"{call} was asked {n} times with the same arguments.")
        if name in self.disabled:
            verdict.action = "refuse"
            verdict.content = (
                f"{name} was withdrawn after {self.limits.failure_limit} failures in a row and "
                f"is no longer available. Use the other tools, or call finish_exploration."
            )
        elif fp in self.results:
            verdict.action = "dedup"
            verdict.content = self.dedup_message(call, self.results[fp])
            verdict.events.insert(0, Guard("dedup", f"{call} repeated; earlier result returned"))
        return verdict

    def dedup_message(self, call: str, earlier: str) -> str:
        head = earlier[: self.limits.dedup_head_chars]
        more = "…" if len(earlier) > len(head) else ""
        return (
            f"You already called {call} with these exact arguments; it was not run again. "
            f"Its result began:\n{head}{more}\n"
            "To learn something new, change the arguments (e.g. another offset or another "
            "file), or call finish_exploration if you know enough."
        )

    def _evidence_gate(self) -> Verdict:
        if self.evidence > 0:
            return Verdict("run")
        self.refusals += 1
        if self.refusals > self.limits.evidence_refusals:
            return self._stop(
                "evidence_retry",
                "finish_exploration was called again without any file read; exploration "
                "ended with nothing gathered (nothing is invented).",
                reason="no_evidence",
            )
        return Verdict(
            "refuse",
            content=(
                "Refused: you have not read any file yet, so there is no evidence for "
                "findings. Read the material first (list_dir, then read_file on the data and "
                "the manual), then call finish_exploration with what the files say."
            ),
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
            return events + self._failure(name)
        self.failures[name] = 0
        self.results[fingerprint(name, args)] = outcome.content
        if outcome.coverage is not None:
            events += self._coverage(name, args, outcome)
        if name in EVIDENCE_TOOLS and outcome.productive:
            self.evidence += 1
        return events

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
        outcome.content += (
            f"\n[Note: lines {start}–{end} of {path} had already been read; nothing new. "
            "Continue forward with a larger offset, read another file, or finish.]"
        )
        events = [Guard("reread", f"{call} re-read lines {start}–{end} already read")]
        if n >= self.limits.stop_at:
            self._stop(
                "loop_stop", f"{path} was re-read {n} times without new lines; exploration stopped."
            )
            events.append(Guard("loop_stop", self.stop_detail))
        elif n >= self.limits.nudge_at:
            events += self._nudge(f"{path} was re-read {n} times without new lines.")
        return events

    def _failure(self, name: str) -> list[Guard]:
        if name in FINISHING_TOOLS:
            return []  # withdrawing the way out would trap the model
        n = self.failures[name] = self.failures.get(name, 0) + 1
        if n < self.limits.failure_limit or name in self.disabled:
            return []
        self.disabled.add(name)
        return [Guard("tool_disabled", f"{name} failed {n} times in a row and was withdrawn")]

    # -- shared -------------------------------------------------------------

    def _nudge(self, what: str) -> list[Guard]:
        if self.nudged:
            return []
        self.nudged = True
        self.pending_nudge = (
            f"{what} Repeating it will not bring anything new. {self.standing()} "
            "Next: read something you have not read yet, or call finish_exploration now "
            "with what you have found."
        )
        return [Guard("nudge", what + " The model was asked to move on or finish.")]

    def _stop(self, kind: str, detail: str, *, reason: str = "loop") -> Verdict:
        self.stop_reason = reason
        self.stop_detail = detail
        return Verdict("stop", content=detail, events=[Guard(kind, detail)])  # type: ignore[arg-type]

    def take_nudge(self) -> str | None:
        msg, self.pending_nudge = self.pending_nudge, None
        return msg

    def standing(self) -> str:
        if not self.files_read:
            return "So far nothing has been read."
        names = ", ".join(self.files_read[:8]) + ("…" if len(self.files_read) > 8 else "")
        return f"So far you have read {len(self.files_read)} file(s): {names}."
