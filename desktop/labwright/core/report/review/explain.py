"""Why a run is degraded, in plain words: the review banner and the export README.

Each reason's sentence comes from core/reasons.py's one table; this module adds what
the run directory tells about this run (which guard fired on which call, what had
been read, the first compile error).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from labwright.core.agent.guards import describe_call
from labwright.core.events import Error, Guard, ToolCall
from labwright.core.reasons import Degrade, Reason, reason_text
from labwright.core.report.review.files import findings, journal, run_meta
from labwright.core.report.review.text import short
from labwright.core.rundir.records import RunRecord


def why_degraded(run_dir: Path) -> str | None:
    """In plain words, why the run is degraded and what to check; None when it is not.

    From run.json's reasons, findings.json (what had been read) and the journal
    (which guard fired on which call). One or two sentences per reason.
    """
    run_dir = Path(run_dir)
    meta = run_meta(run_dir)
    reasons = list(meta.reasons)
    if not reasons:
        return None
    ctx = _Context(run_dir, meta)
    return " ".join(_explain(reason, ctx) for reason in reasons)


class _Context:
    """What the explanations read: run.json, the journal, findings.json."""

    def __init__(self, run_dir: Path, meta: RunRecord) -> None:
        self.meta = meta
        self.journal = journal(run_dir)
        self.findings = findings(run_dir)

    def last_guard(self, kinds: tuple[str, ...], contains: str = "") -> str | None:
        for event in reversed(self.journal):
            if isinstance(event, Guard) and event.kind in kinds:
                detail = str(event.detail)
                if contains in detail:
                    return detail
        return None

    def last_call(self) -> str | None:
        for event in reversed(self.journal):
            if isinstance(event, ToolCall):
                return describe_call(str(event.name), event.args)
        return None

    def errors(self) -> list[Error]:
        return [e for e in self.journal if isinstance(e, Error)]

    def files_read(self) -> str:
        files = list(self.findings.files_read)
        if not files:
            return "Nothing had been read by then, so the draft rests on no material."
        shown = ", ".join(files[:8]) + (f" and {len(files) - 8} more" if len(files) > 8 else "")
        n = len(files)
        return (
            f"This draft was written from the {n} file{'s' if n != 1 else ''} read before "
            f"that: {shown}. Check that every number and claim comes from them."
        )


def _what(detail: str | None) -> str | None:
    """A guard's stop detail without its tail ("…; exploration stopped and …")."""
    if not detail:
        return None
    what = detail.split(";")[0].strip().rstrip(".")
    ordinary = what[:1].isupper() and what[1:2].islower()  # "No finish…", not "CSV" or a path
    return what[:1].lower() + what[1:] if ordinary else what


def _explain(reason: str, ctx: _Context) -> str:
    """The table's sentence for the reason (core/reasons.py), then what this run adds."""
    parsed = Degrade.parse(reason)
    base = reason_text(parsed if parsed is not None else reason)
    if parsed is None:
        return base
    specific = _SPECIFIC.get(parsed.reason)
    more = specific(parsed, ctx) if specific is not None else None
    return f"{base} {more}" if more else base


def _stopped_by(kinds: tuple[str, ...], contains: str = "") -> Callable[[Degrade, _Context], str]:
    """An exploration stopped by a guard: which call tripped it, and what had been read."""

    def specific(d: Degrade, ctx: _Context) -> str:
        what = _what(ctx.last_guard(kinds, contains))
        if what is None and "loop_stop" in kinds:
            call = ctx.last_call()
            what = f"{call} was asked again and again" if call else None
        return f"{_sentence(what)}{ctx.files_read()}"

    return specific


def _sentence(what: str | None) -> str:
    return f"Details: {what}. " if what else ""


def _iteration_cap(d: Degrade, ctx: _Context) -> str:
    return f"{_sentence(_what(ctx.findings.detail))}{ctx.files_read()}"


def _budget(d: Degrade, ctx: _Context) -> str:
    detail = _what(ctx.last_guard(("budget",), "reached")) or "no budget left"
    if ctx.findings.reason == Reason.BUDGET.value:
        return f"Exploration stopped: {detail}. {ctx.files_read()}"
    if ctx.meta.skeleton:
        return f"It ran out while writing ({detail}): this draft is the skeleton with TODOs."
    return f"It ran out while writing ({detail}): the revision was cut short."


def _compile_failed(d: Degrade, ctx: _Context) -> str | None:
    errors = ctx.meta.compile.errors if ctx.meta.compile else []
    if not errors:
        return None
    first = errors[0]
    lines = (first.message or "error").strip().splitlines() or ["error"]
    message = short(lines[0]).rstrip(".")
    where = f" at line {first.line}" if first.line else ""
    return f"First error{where}: {message}. Fix it in the editor and recompile."


def _model_failed(d: Degrade, ctx: _Context) -> str:
    if ctx.meta.ended_by == str(d):
        tail = "The run stopped there."
    else:
        tail = "The run went on without it; check what that stage should have done."
    errors = ctx.errors()
    if not errors:
        return tail
    last = errors[-1]
    message = short(str(last.message), 120)
    return f"It failed during the {last.stage or 'run'} stage: {message} {tail}"


def _model_error(d: Degrade, ctx: _Context) -> str:
    detail = short(ctx.findings.detail or "no answer", 160)
    return f"{_sentence(detail.rstrip('.'))}{ctx.files_read()}"


def _numbers(d: Degrade, ctx: _Context) -> str:
    return "The open items list those still in the text."


# What a run directory adds to the table's sentence, per reason (None: nothing to add).
_SPECIFIC: dict[Reason, Callable[[Degrade, _Context], str | None]] = {
    Reason.LOOP: _stopped_by(("loop_stop",)),
    Reason.CYCLE: _stopped_by(("cycle",), "stopped"),
    Reason.WANDER: _stopped_by(("wander",), "stopped"),
    Reason.ITERATION_CAP: _iteration_cap,
    Reason.CUT_SHORT: _iteration_cap,
    Reason.BUDGET: _budget,
    Reason.COMPILE_FAILED: _compile_failed,
    Reason.MODEL_FAILED: _model_failed,
    Reason.MODEL_ERROR: _model_error,
    Reason.EXPLORE_CANCELLED: lambda d, ctx: ctx.files_read(),
    Reason.NUMBERS_UNMATCHED: _numbers,
}
