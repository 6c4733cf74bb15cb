"""plan_pipeline and run_agent: the one generator that drives a run.

The CLI prints its events, the GUI shows them, the tests assert on them; each
is appended to the run's journal before anyone sees it. A stage whose `end`
milestone is in the journal is done: `--resume` continues after it, and the
stage reloads what it left in the run directory (stages.py) instead of asking
the model again.
"""

from __future__ import annotations

import contextlib
import threading
import time
import traceback
from collections.abc import Callable, Generator, Iterator
from pathlib import Path
from typing import Any

from labwright.core.agent.explore import Cancelled
from labwright.core.events import (
    Done,
    Error,
    Event,
    Milestone,
    MilestoneDetail,
    MilestoneStatus,
    RedraftDetail,
    StageNames,
)
from labwright.core.llm.client import LLMError, Usage
from labwright.core.reasons import Reason, explore_reason, model_failed
from labwright.core.report.review import generated_draft
from labwright.core.run.context import RunContext
from labwright.core.run.stages import AUTO_FIGURES, MAX_FIX_ROUNDS, STAGES, plan_pipeline
from labwright.core.rundir.files import RunFileError
from labwright.core.rundir.layout import RunDir
from labwright.core.rundir.names import ERROR_TXT
from labwright.core.rundir.resume import resumed_config, server_change
from labwright.core.rundir.store import RunDirError, read_journal, sweep_temp_dirs
from labwright.core.settings.config import RunConfig, same_server
from labwright.core.settings.resolve import key_problem
from labwright.core.settings.saved import Settings
from labwright.core.step_words import Words

__all__ = [
    "AUTO_FIGURES",
    "MAX_FIX_ROUNDS",
    "RedraftError",
    "plan_pipeline",
    "redraft",
    "run_agent",
]

CancelFlag = threading.Event | Callable[[], bool] | None
ERROR_LOG = ERROR_TXT  # in the run directory: the traceback of a run that failed


def _as_check(cancel: CancelFlag) -> Callable[[], bool]:
    if cancel is None:
        return lambda: False
    if isinstance(cancel, threading.Event):
        return cancel.is_set
    return cancel


class _Run(RunContext):
    """A run started or resumed by run_agent."""

    def after_reload(self) -> None:
        """Hook for a re-draft, once the done stages have reloaded what they left."""


def run_agent(
    config: RunConfig,
    cancel: CancelFlag = None,
    *,
    resume: bool = False,
    on_text: Callable[[str, str], None] | None = None,
    clock: Callable[[], float] | None = None,
) -> Generator[Event, None, None]:
    """Run the pipeline, yielding every event as it happens (each already journaled).

    `on_text(kind, text)` sees documents as the write model streams them
    ("start" with the role, then "delta" pieces), from this thread; the journal
    keeps only the finished drafts. `clock` (seconds, monotonic) measures the run's
    time budget (--max-minutes); tests pass their own to drive time without sleeping.
    """
    _sweep()
    run = _Run(config, _as_check(cancel), resume, clock or time.monotonic)
    run.set_on_text(on_text)
    yield from _drive(run, reload=resume)


def _sweep() -> None:
    """Remove temp folders that runs killed earlier left behind (never a live run's)."""
    with contextlib.suppress(Exception):  # tidying up must never stop a run
        sweep_temp_dirs()


def _drive(run: _Run, *, reload: bool) -> Iterator[Event]:
    """Run the stages of `run.plan` not done yet, then end with a `done` event.

    Every way out ends the run honestly: a `done` event, and run.json "ok", "degraded",
    "failed" (with the reason, and error.txt for an unexpected exception) or
    "cancelled" — never left on "running"."""
    try:
        if reload:
            _reload(run)
        run.write_run_json("running")
        while run.cursor < len(run.plan):
            stage = run.plan[run.cursor]
            if run.cursor in run.done_stages:
                run.cursor += 1
                continue
            if run.cancelled():
                raise Cancelled
            for event in STAGES[stage].run(run):
                yield run.emit(event)
            # What this stage decided (its reasons above all) survives a kill -9.
            run.write_run_json("running")
        status = "degraded" if run.reasons else "ok"
        run.write_run_json(status)
        yield run.emit(_done(run, status))
    except (Cancelled, KeyboardInterrupt):
        # KeyboardInterrupt: a second Ctrl-C stops the stage at once; still say so.
        run.end_with(Reason.CANCELLED.value)
        run.write_run_json("cancelled")
        yield run.emit(_done(run, "cancelled"))
    except GeneratorExit:
        # The consumer stopped listening mid-run (its own Ctrl-C, a crash): nothing may
        # be yielded now, but the run directory must not claim it is still running.
        _end_unheard(run)
        raise
    except LLMError as e:
        message = run.scrub(str(e))
        yield run.emit(Error(run.current_stage(), message, e.kind))
        run.end_with(model_failed(e.kind))
        run.error = message
        run.write_run_json("failed")
        yield run.emit(_done(run, "failed"))
    except RunFileError as e:  # a file an earlier attempt left is damaged: say which
        run.error = message = run.scrub(str(e))
        yield run.emit(Error(run.current_stage(), message, "internal"))
        run.end_with(Reason.INTERNAL_ERROR.value)
        run.write_run_json("failed")
        yield run.emit(_done(run, "failed"))
    except Exception as e:  # whatever broke, the run ends honestly
        yield from _fail(run, e)
    finally:
        if run.llm is not None:
            run.llm.close()
        run.store.close()


def _done(run: _Run, status: str) -> Done:
    return Done(
        status,  # type: ignore[arg-type]
        run.rel(run.rundir.report_tex),
        run.rel(run.h.pdf),
        list(run.reasons),
    )


def _fail(run: _Run, e: BaseException) -> Iterator[Event]:
    """An unexpected exception: a short error event, the traceback in error.txt, run.json
    "failed" with the reason internal_error."""
    stage = run.current_stage()
    first = (str(e).strip().splitlines() or [""])[0]
    summary = run.scrub(f"{type(e).__name__}: {first}" if first else type(e).__name__)
    if len(summary) > 200:
        summary = summary[:199] + "…"
    log = ""
    try:
        trace = "".join(traceback.format_exception(e))
        run.rundir.save_error(run.scrub(f"stage: {stage}\n{trace}"))
        log = f"; details in {run.rundir.error_txt}"
    except Exception:  # the report of a failure must not fail
        pass
    message = f"internal error in {stage}: {summary}{log}"
    yield run.emit(Error(stage, message, "internal"))
    run.end_with(Reason.INTERNAL_ERROR.value)
    run.error = message
    run.write_run_json("failed")
    yield run.emit(_done(run, "failed"))


def _end_unheard(run: _Run) -> None:
    """End a run whose consumer is gone: journal and run.json say "cancelled"."""
    try:
        run.end_with(Reason.CANCELLED.value)
        run.write_run_json("cancelled")
        run.emit(_done(run, "cancelled"))
    except Exception:  # already unwinding; the journal shows what it can
        pass


def _reload(run: _Run) -> None:
    """Each stage the journal says is done reloads what it left, in plan order."""
    run.keep_notes_of_done_stages()
    for index in sorted(run.done_stages):
        STAGES[run.plan[index]].reload(run)
    run.after_reload()


# -- re-draft -----------------------------------------------------------------


class RedraftError(ValueError):
    """A run that cannot be re-drafted; the message says why and what to do. `words` is
    the message, a `Words` (core/step_words.py) when the app can say it in its languages."""

    def __init__(self, words: str) -> None:
        super().__init__(words)
        self.words = words


def redraft(
    run_dir: Path,
    *,
    note: str | None = None,
    api_key: str | None = None,
    base_url: str | None = None,
    settings: Settings | None = None,
    use_server: str | None = None,
    cancel: CancelFlag = None,
    on_text: Callable[[str, str], None] | None = None,
) -> Iterator[Event]:
    """Run the drafting stages of a finished run again, without exploring again.

    draft → reflect×N → bib → [compile], from what the earlier stages left in the
    run directory (findings, evidence, figures, gaps). `note` ("use SI units",
    "shorter") reaches the write model in the draft prompt. The events go to the
    same journal with the same plan numbering; the first one, the draft's `start`
    milestone, says {"redraft": true, "note": ...}. A report.tex the person
    edited is kept as drafts/edited-<n>.tex before it is replaced. The run ends
    with a `done` event like any run. Raises RedraftError (before any event)
    when the run cannot be re-drafted.

    The server and key are the person's, resolved as for a new run (`api_key` and
    `base_url` as flags, then the environment, the keyring and `settings`, default
    settings.json: rundir/resume.py), never run.json's. A run made with another server
    than those resolve to is refused, naming both, unless `base_url` was given or
    `use_server` is the resolved server: the person agreed to it (the app asks).
    """
    config = _redraft_config(
        Path(run_dir).resolve(),
        flags={"api_key": api_key, "base_url": base_url},
        settings=settings,
        use_server=use_server,
    )
    assert config.out_dir is not None
    _keep_edit(config.out_dir)
    _sweep()
    run = _Redraft(config, _as_check(cancel), note)
    run.set_on_text(on_text)
    yield from _drive(run, reload=True)


def _redraft_config(
    run_dir: Path,
    *,
    flags: dict[str, Any],
    settings: Settings | None,
    use_server: str | None,
) -> RunConfig:
    run = RunDir(run_dir)
    try:
        run.check()  # a run folder holding a link is not used at all
        meta = run.load_run()
    except RunFileError as e:
        raise RedraftError(str(e)) from None
    try:
        journal = read_journal(run_dir)
    except OSError:
        raise RedraftError(Words("redraft_not_a_run", run_dir=run_dir)) from None
    if meta.status == "running":
        raise RedraftError(Words("redraft_running"))
    if meta.config.offline:
        raise RedraftError(Words("redraft_offline"))
    plan = meta.plan
    ended = {
        e.stage for e in journal if isinstance(e, Milestone) and e.status in ("end", "skipped")
    }
    draft = StageNames.DRAFT
    before = plan[: plan.index(draft)] if draft in plan else [draft]
    missing = [s for s in before if s not in ended]
    if missing:
        raise RedraftError(Words("redraft_unfinished", stages=", ".join(missing)))
    if meta.folder is not None and not meta.folder.is_dir():
        raise RedraftError(Words("redraft_folder_gone", folder=meta.folder))
    try:  # a folder that is not absolute, or values Labwright does not write: refused
        config = resumed_config(run_dir, flags=flags, settings=settings)
    except ValueError as e:
        raise RedraftError(e.args[0] if e.args and isinstance(e.args[0], str) else str(e)) from None
    change = server_change(meta, config)
    if change and not flags.get("base_url") and not same_server(use_server, config.base_url):
        raise RedraftError(
            Words("redraft_other_server", recorded=change.recorded, chosen=change.chosen)
        )
    problem = key_problem(config)
    if problem:
        raise RedraftError(problem)
    return config


def _keep_edit(run_dir: Path) -> Path | None:
    """Keep the person's report.tex as drafts/edited-<n>.tex when it differs from the
    last generated draft: a re-draft replaces report.tex, never the person's work."""
    run = RunDir(run_dir)
    if not run.has_report():
        return None
    text = run.read_report()
    if text == generated_draft(run_dir):
        return None
    return run.keep_edit(text)


class _Redraft(_Run):
    """A run that starts again at the draft stage, from what the journal says was done."""

    def __init__(self, config: RunConfig, cancelled: Callable[[], bool], note: str | None) -> None:
        try:
            super().__init__(config, cancelled, resume=True)
        except (ValueError, RunDirError) as e:  # e.g. this configuration's plan differs
            raise RedraftError(str(e)) from None
        self.note = note.strip() if note and note.strip() else None
        first = self.plan.index(StageNames.DRAFT)
        self.done_stages = set(range(first))
        self.announced = False
        # The budgets cover this re-draft: the person asked for new work, and a run
        # whose budget was spent would otherwise fall straight back to the skeleton.
        self.prior_usage = self.usage
        self.usage = Usage()
        self.fresh_writer()
        # What the drafting stages decided is decided again: they are not done, so
        # they do not reload it. The run keeps its start time.
        if self.prior is not None and self.prior.started is not None:
            self.started = self.prior.started

    def total_usage(self) -> Usage:
        return self.prior_usage.merge(self.usage)

    def after_reload(self) -> None:
        # The drafting stages decide their reasons again; the exploration's stay.
        e = self.h.exploration
        self.reasons = [explore_reason(e.reason)] if e.status != "finished" else []

    def milestone(
        self, stage: str, status: MilestoneStatus, detail: MilestoneDetail | None = None
    ) -> Milestone:
        if not self.announced:
            # The first milestone of a re-draft is the draft's start, which has no detail
            # of its own: it says that this is a re-draft, and the person's note.
            assert detail is None, detail
            self.announced = True
            detail = RedraftDetail(self.note)
        return super().milestone(stage, status, detail)
