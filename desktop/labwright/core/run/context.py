"""One run: its store, plan, usage and reasons, and the model client the stages share.

What the stages hand each other lives in `Handoff` (stages.py); this holds what
belongs to the run as a whole. run.json is built here from typed fields
(rundir/records.RunRecord), never from a free dictionary.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from labwright.core import __version__
from labwright.core.agent.guards import Budget, RunClock
from labwright.core.events import (
    Draft,
    Error,
    Event,
    LLMCall,
    Milestone,
    MilestoneDetail,
    MilestoneStatus,
    RedraftDetail,
)
from labwright.core.llm.client import LLM, LLMError, TimeUp, Usage
from labwright.core.reasons import Reason, model_failed
from labwright.core.report.latex import probe_engines
from labwright.core.report.templates import load_template
from labwright.core.report.writing import Writer
from labwright.core.run.stages import Handoff, plan_pipeline
from labwright.core.rundir.layout import RunDir
from labwright.core.rundir.records import ConfigRecord, NoteRecord, RunRecord, UsageRecord
from labwright.core.rundir.store import RunDirError, RunStore, prepare_run_dir, read_journal
from labwright.core.secrets import hide_secrets
from labwright.core.settings.config import RunConfig
from labwright.core.settings.cost import spent_usd

if TYPE_CHECKING:
    from labwright.core.report.offline.requirements import ManualTasks


class RunContext:
    """One run: its store, plan, usage, reasons, and what the stages hand on (`h`)."""

    def __init__(
        self,
        config: RunConfig,
        cancelled: Callable[[], bool],
        resume: bool,
        now: Callable[[], float] = time.monotonic,
    ) -> None:
        self.cancelled = cancelled
        # the time budget starts with the run (a resumed run's with this session)
        self.clock = RunClock(config.max_minutes * 60, now)
        self.template = load_template(config.template, config.lang)
        self.engines = probe_engines()  # once: the plan and the compile gate use this result
        self.plan = plan_pipeline(config, self.engines)
        claimed = config.out_dir is None
        self.config = prepare_run_dir(config)
        assert self.config.out_dir is not None
        try:
            self.store = RunStore(self.config.out_dir, self.config.folder, resume=resume)
        except BaseException:
            if claimed:  # the folder this run claimed holds nothing: leave no empty run
                RunDir(self.config.out_dir).remove_if_empty()
            raise
        try:
            self._setup(resume)
        except BaseException:
            self.store.close()  # and so its lock: the run can be tried again
            raise

    def _setup(self, resume: bool) -> None:
        self.dir = self.store.dir
        self.rundir = RunDir(self.dir)
        self.cursor = 0  # index in the plan of the next milestone
        self.usage = Usage()
        self.reasons: list[str] = []
        self.notes: list[NoteRecord] = []
        self.ended_by: str | None = None
        self.error: str | None = None
        self.started = time.time()
        self.llm: LLM | None = None
        self.done_stages: set[int] = set()
        self.note: str | None = None  # the person's note for a re-draft's write model
        # run.json as the last attempt left it: finished stages reload their fields from it
        self.prior: RunRecord | None = None
        if resume:
            self._load_journal()
        self._writer = Writer(self.config, None, self.usage, self.template, clock=self.clock)
        # drafts/ numbers every draft of the run, a re-draft's too: never overwrite one
        self.h = Handoff(version=self.rundir.last_draft())
        # The manual's tasks by part: read from the folder when a stage first needs them
        # (the folder is the truth, as for the scan), so a resume reads them again.
        self.manual: ManualTasks | None = None

    # -- journal ---------------------------------------------------------

    def emit(self, event: Event) -> Event:
        self.store.append(event)
        return event

    def milestone(
        self, stage: str, status: MilestoneStatus, detail: MilestoneDetail | None = None
    ) -> Milestone:
        assert self.plan[self.cursor] == stage, (self.plan, self.cursor, stage)
        event = Milestone(stage, self.cursor + 1, len(self.plan), status, detail)
        if status != "start":
            self.cursor += 1
        return event

    def _load_journal(self) -> None:
        self.prior = meta = self.rundir.load_run()
        if meta.plan and meta.plan != self.plan:
            raise RunDirError("The run's plan differs from this configuration; cannot resume.")
        # What ended the last attempt (a cancel, a crash, a fatal model error) does not
        # describe the resumed run; every other reason stays.
        ended = {Reason.CANCELLED.value, meta.ended_by}
        self.reasons = [r for r in meta.reasons if r not in ended]
        for ev in read_journal(self.dir):
            match ev:
                case LLMCall():
                    # Usage comes from the journal, one `llm` event per call, not from
                    # run.json: calls made before a kill -9 still count, for budgets too.
                    with contextlib.suppress(TypeError, ValueError):
                        self.usage.add_call(
                            str(ev.role),
                            int(ev.prompt_tokens),
                            int(ev.completion_tokens),
                            int(ev.ms or 0),
                            str(ev.model or ""),
                            reasoning_tokens=int(ev.reasoning_tokens or 0),
                        )
                case Milestone(status="start", detail=RedraftDetail(note=note)):
                    # A re-draft runs this stage and the later ones again: what they did
                    # before it no longer counts (a killed re-draft resumes as a re-draft).
                    self.done_stages = {i for i in self.done_stages if i < ev.index - 1}
                    self.note = note
                case Milestone(status="end" | "skipped"):
                    self.done_stages.add(ev.index - 1)

    def keep_notes_of_done_stages(self) -> None:
        """The notes of stages that stay done; a stage that runs again notes anew."""
        done = {self.plan[i] for i in self.done_stages}
        self.notes = [n for n in (self.prior.notes if self.prior else []) if n.stage in done]

    # -- run.json ----------------------------------------------------------

    def total_usage(self) -> Usage:
        """What run.json reports: every model call of the run."""
        return self.usage

    def record(self, status: str) -> RunRecord:
        usage = self.total_usage()
        h = self.h
        return RunRecord(
            labwright=__version__,
            status=status,
            degraded=status == "degraded",
            reasons=list(self.reasons),
            plan=self.plan,
            template=self.template.name,
            engines=self.engines.to_dict(),
            started=self.started,
            finished=time.time() if status != "running" else None,
            usage={role: UsageRecord(**u) for role, u in usage.to_dict().items()},
            calls={role: u.calls for role, u in usage.by_role.items()},
            total_tokens=usage.total_tokens,
            cost_usd=round(spent_usd(self.config, usage), 6) if self.config.prices else None,
            config=ConfigRecord(self.config.public_dict()),
            gaps=None if h.gaps is None else list(h.gaps),
            skeleton=h.skeleton,
            numbers=h.numbers,
            converged=h.converged,
            unresolved_citations=h.unresolved_citations,
            compile=h.compile,
            ended_by=self.ended_by,
            error=self.error,
            notes=list(self.notes),
        )

    def write_run_json(self, status: str) -> None:
        self.rundir.save_run(self.record(status))

    # -- the model -----------------------------------------------------------

    def client(self) -> LLM:
        """The run's model client, made on first use (a resumed run may need none)."""
        if self.llm is None:
            c = self.config
            self.llm = LLM(
                c.base_url,
                c.api_key,
                timeout_s=c.request_timeout_s,
                max_retries=c.max_retries,
                deadline_s=c.explore_deadline_s,  # vision calls; explore and write pass theirs
                cancelled=self.cancelled,  # a stuck call gives up at once on Cancel
                provider=c.provider,
                # no call outlives the run's time budget (the clock of a re-draft: its own)
                run_left=lambda: self.clock.left(),
            )
        return self.llm

    @property
    def budget(self) -> Budget:
        """The run's token and money budgets, over every stage (guards.Budget)."""
        return self._writer.budget

    def writer(self, *, model: bool) -> Writer:
        """The writer with the model (connected from now on), or one without: the
        stage's call says which, e.g. a skeleton's bibliography asks no model."""
        if not model:
            return self._writer.without_model()
        if self._writer.llm is None:
            self._writer.llm = self.client()
        return self._writer

    def fresh_writer(self) -> None:
        """A new writer over this run's usage (a re-draft's budgets start again)."""
        on_text = self._writer.on_text
        self.clock = self.clock.restarted()
        self._writer = Writer(
            self.config, None, self.usage, self.template, on_text=on_text, clock=self.clock
        )

    def set_on_text(self, on_text: Callable[[str, str], None] | None) -> None:
        self._writer.on_text = on_text

    def notes_of(self, stage: str) -> list[Event]:
        """The writer's notes since the last look, as `error` events and run.json notes."""
        events: list[Event] = []
        for text in self._writer.take_notes():
            self.notes.append(NoteRecord(stage, text))
            events.append(Error(stage, text))
        return events

    # -- reasons and outcome -------------------------------------------------------

    def degrade(self, reason: str) -> None:
        if reason not in self.reasons:
            self.reasons.append(reason)

    def end_with(self, reason: str) -> None:
        """Record the reason that ends this run (resume drops it again)."""
        if reason not in self.reasons:
            self.ended_by = reason
        self.degrade(reason)

    def current_stage(self) -> str:
        return self.plan[min(self.cursor, len(self.plan) - 1)]

    def scrub(self, text: str) -> str:
        key = self.config.api_key
        return hide_secrets(text, [key if key and len(key) >= 4 else None])

    def model_failed(self, stage: str, e: LLMError) -> Event:
        """After exploration a model failure costs quality, not the run: go on without it.
        A call the run's clock cut is no failure of the model: the time budget ran out."""
        self.degrade(Reason.TIME_UP.value if isinstance(e, TimeUp) else model_failed(e.kind))
        return Error(stage, str(e), e.kind)

    def save_report(self, tex: str) -> Event:
        h = self.h
        h.tex = tex
        h.version += 1
        self.rundir.save_draft(h.version, tex)
        return Draft(h.version, len(tex), bool(self.reasons))

    def rel(self, path: Path | None) -> str | None:
        return str(path) if path is not None and path.is_file() else None
