"""plan_pipeline and run_agent: the one generator that drives a run.

The CLI prints its events, the GUI shows them, the tests assert on them; each
is appended to the run's journal before anyone sees it. A stage whose `end`
milestone is in the journal is done: `--resume` continues after it, loading
what it left in the run directory instead of asking the model again.
"""

from __future__ import annotations

import contextlib
import json
import threading
import time
import traceback
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from labwright.core import __version__
from labwright.core.agent.explore import Cancelled, Exploration, explore
from labwright.core.agent.tools import ToolContext
from labwright.core.events import Done, Draft, Error, Event, Guard, Milestone
from labwright.core.llm.client import LLM, LLMError, Usage
from labwright.core.material.workspace import ScanResult, scan_folder
from labwright.core.reasons import Reason, explore_reason, is_reason, model_failed
from labwright.core.report.latex import Engines, compile_tex, probe_engines
from labwright.core.report.templates import load_template
from labwright.core.report.verify import Verification, verify_report, write_numbers
from labwright.core.report.writing import (
    Writer,
    build_bib,
    check_gaps,
    draft,
    ensure_bibliography,
    fix_compile,
    material_refs,
    reflect_round,
)
from labwright.core.rundir.store import (
    RunDirError,
    RunStore,
    prepare_run_dir,
    read_journal,
    sweep_temp_dirs,
)
from labwright.core.secrets import hide_secrets
from labwright.core.settings.config import RunConfig
from labwright.core.settings.cost import spent_usd

CancelFlag = threading.Event | Callable[[], bool] | None
MAX_FIX_ROUNDS = 2
AUTO_FIGURES = 6  # plots made without a model when exploration made none
ERROR_LOG = "error.txt"  # in the run directory: the traceback of a run that failed


def plan_pipeline(config: RunConfig, engines: Engines) -> list[str]:
    """The milestones of a run, from configuration alone, before anything runs.

    scan → explore → [figures] → [gap] → draft → reflect×N → bib → [compile]
    """
    template = load_template(config.template, config.lang)
    plan = ["scan", "explore"]
    plan += [s for s in ("figures", "gap") if template.runs(s)]
    plan.append("draft")
    rounds = (
        0
        if config.offline
        else (config.reflect if config.reflect is not None else template.reflect)
    )
    plan += ["reflect"] * rounds
    plan.append("bib")
    if config.compile and engines.can_compile_lang(template.lang):
        plan.append("compile")
    return plan


def _remove_empty_run(run_dir: Path) -> None:
    for path in (run_dir / "drafts", run_dir / "figures", run_dir):
        with contextlib.suppress(OSError):
            path.rmdir()
    if run_dir.is_dir() and [p.name for p in run_dir.iterdir()] == [".lock"]:
        (run_dir / ".lock").unlink(missing_ok=True)
        run_dir.rmdir()


def _as_check(cancel: CancelFlag) -> Callable[[], bool]:
    if cancel is None:
        return lambda: False
    if isinstance(cancel, threading.Event):
        return cancel.is_set
    return cancel


class _Run:
    """One run: its store, plan, usage, and what each stage left for the next."""

    def __init__(self, config: RunConfig, cancelled: Callable[[], bool], resume: bool) -> None:
        self.cancelled = cancelled
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
                _remove_empty_run(self.config.out_dir)
            raise
        try:
            self._setup(resume)
        except BaseException:
            self.store.close()  # and so its lock: the run can be tried again
            raise

    def _setup(self, resume: bool) -> None:
        self.dir = self.store.dir
        self.cursor = 0  # index in the plan of the next milestone
        self.usage = Usage()
        self.reasons: list[str] = []
        self.extra: dict[str, Any] = {}
        self.started = time.time()
        self.llm: LLM | None = None
        self.done_stages: set[int] = set()
        self.note: str | None = None  # the person's note for a re-draft's write model
        if resume:
            self._load_journal()
        self.writer = Writer(self.config, None, self.usage, self.template)
        # what the stages hand on
        self.scan: ScanResult | None = None
        self.exploration = Exploration()
        self.figures: list[dict[str, Any]] = []
        self.gaps: list[dict[str, Any]] = []
        self.tex: str | None = None
        self.version = 0
        self.skeleton = False
        self.pdf: Path | None = None

    # -- journal ---------------------------------------------------------

    def emit(self, event: Event) -> Event:
        self.store.append(event)
        return event

    def milestone(self, stage: str, status: str, detail: Any = None) -> Event:
        assert self.plan[self.cursor] == stage, (self.plan, self.cursor, stage)
        event = Milestone(stage, self.cursor + 1, len(self.plan), status, detail)  # type: ignore[arg-type]
        if status != "start":
            self.cursor += 1
        return event

    def _load_journal(self) -> None:
        meta = json.loads((self.dir / "run.json").read_text(encoding="utf-8"))
        if meta.get("plan") and meta["plan"] != self.plan:
            raise RunDirError("The run's plan differs from this configuration; cannot resume.")
        # What ended the last attempt (a cancel, a crash, a fatal model error) does not
        # describe the resumed run; every other reason stays.
        ended = {Reason.CANCELLED.value, meta.get("ended_by")}
        self.reasons = [r for r in meta.get("reasons", []) if r not in ended]
        self.extra = {
            k: meta[k]
            for k in ("gaps", "unresolved_citations", "skeleton", "converged", "numbers")
            if k in meta
        }
        for ev in read_journal(self.dir):
            if ev.get("type") == "llm":
                # Usage comes from the journal, one `llm` event per call, not from
                # run.json: calls made before a kill -9 still count, for budgets too.
                with contextlib.suppress(KeyError, TypeError, ValueError):
                    self.usage.add_call(
                        str(ev["role"]),
                        int(ev["prompt_tokens"]),
                        int(ev["completion_tokens"]),
                        int(ev.get("ms") or 0),
                        str(ev.get("model") or ""),
                    )
                continue
            if ev.get("type") != "milestone":
                continue
            detail = ev.get("detail")
            if ev.get("status") == "start" and isinstance(detail, dict) and detail.get("redraft"):
                # A re-draft runs this stage and the later ones again: what they did
                # before it no longer counts (a killed re-draft resumes as a re-draft).
                self.done_stages = {i for i in self.done_stages if i < ev["index"] - 1}
                self.note = detail.get("note")
            elif ev.get("status") in ("end", "skipped"):
                self.done_stages.add(ev["index"] - 1)

    def total_usage(self) -> Usage:
        """What run.json reports: every model call of the run."""
        return self.usage

    def after_reload(self) -> None:
        """Hook for a subclass, once `_reload` has loaded what earlier stages left."""

    def write_run_json(self, status: str) -> None:
        usage = self.total_usage()
        self.store.write_json(
            "run.json",
            {
                "labwright": __version__,
                "status": status,
                "degraded": status == "degraded",
                "reasons": self.reasons,
                "plan": self.plan,
                "template": self.template.name,
                "engines": self.engines.to_dict(),
                "started": self.started,
                "finished": time.time() if status != "running" else None,
                "usage": usage.to_dict(),
                "calls": {role: u.calls for role, u in usage.by_role.items()},
                "total_tokens": usage.total_tokens,
                "cost_usd": round(spent_usd(self.config, usage), 6) if self.config.prices else None,
                "config": self.config.public_dict(),
                **self.extra,
            },
        )

    def model(self) -> LLM:
        if self.llm is None:
            c = self.config
            self.llm = LLM(
                c.base_url,
                c.api_key,
                timeout_s=c.request_timeout_s,
                max_retries=c.max_retries,
                deadline_s=c.explore_deadline_s,  # vision calls; explore and write pass theirs
                cancelled=self.cancelled,  # a stuck call gives up at once on Cancel
            )
            self.writer.llm = self.llm
        return self.llm

    def degrade(self, reason: str) -> None:
        if reason not in self.reasons:
            self.reasons.append(reason)

    def end_with(self, reason: str) -> None:
        """Record the reason that ends this run (resume drops it again)."""
        if reason not in self.reasons:
            self.extra["ended_by"] = reason
        self.degrade(reason)

    def current_stage(self) -> str:
        return self.plan[min(self.cursor, len(self.plan) - 1)]

    def scrub(self, text: str) -> str:
        key = self.config.api_key
        return hide_secrets(text, [key if key and len(key) >= 4 else None])

    def model_failed(self, stage: str, e: LLMError) -> Event:
        """After exploration a model failure costs quality, not the run: go on without it."""
        self.degrade(model_failed(e.kind))
        return Error(stage, str(e), e.kind)

    def save_report(self, tex: str) -> Event:
        self.tex = tex
        self.version += 1
        self.store.write_text(f"drafts/v{self.version}.tex", tex)
        self.store.write_text("report.tex", tex)
        return Draft(self.version, len(tex), bool(self.reasons))


def run_agent(
    config: RunConfig,
    cancel: CancelFlag = None,
    *,
    resume: bool = False,
    on_text: Callable[[str, str], None] | None = None,
) -> Iterator[Event]:
    """Run the pipeline, yielding every event as it happens (each already journaled).

    `on_text(kind, text)` sees documents as the write model streams them
    ("start" with the role, then "delta" pieces), from this thread; the journal
    keeps only the finished drafts.
    """
    _sweep()
    run = _Run(config, _as_check(cancel), resume)
    run.writer.on_text = on_text
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
    stages: dict[str, Callable[[_Run], Iterator[Event]]] = {
        "scan": _scan,
        "explore": _explore,
        "figures": _figures,
        "gap": _gap,
        "draft": _draft,
        "reflect": _reflect,
        "bib": _bib,
        "compile": _compile,
    }
    try:
        run.write_run_json("running")
        if reload:
            _reload(run)
            run.after_reload()
        while run.cursor < len(run.plan):
            stage = run.plan[run.cursor]
            if run.cursor in run.done_stages:
                run.cursor += 1
                continue
            if run.cancelled():
                raise Cancelled
            for event in stages[stage](run):
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
        run.extra["error"] = message
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
        _rel(run, run.dir / "report.tex"),
        _rel(run, run.pdf),
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
        run.store.write_text(ERROR_LOG, run.scrub(f"stage: {stage}\n{trace}"))
        log = f"; details in {run.dir / ERROR_LOG}"
    except Exception:  # the report of a failure must not fail
        pass
    message = f"internal error in {stage}: {summary}{log}"
    yield run.emit(Error(stage, message, "internal"))
    run.end_with(Reason.INTERNAL_ERROR.value)
    run.extra["error"] = message
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


def _rel(run: _Run, path: Path | None) -> str | None:
    return str(path) if path is not None and path.is_file() else None


# -- the stages ---------------------------------------------------------------


def _scan(run: _Run) -> Iterator[Event]:
    c = run.config
    detail: dict[str, Any] = {
        "folder": str(c.folder),
        "run_dir": str(run.dir),
        "plan": run.plan,
        "template": run.template.name,
    }
    if c.compile and "compile" not in run.plan:
        detail["compile"] = "unavailable: " + run.engines.install_hint()
    detail["confinement"] = _confinement(c.allow_unconfined)
    yield run.milestone("scan", "start", detail)
    run.scan = scan_folder(c.folder)
    yield run.milestone("scan", "end", run.scan.to_dict())


def _confinement(allow_unconfined: bool) -> dict[str, Any]:
    """Which OS layers hold model-written code here, and whether figures may run at all."""
    from labwright.core.confine import support

    s = support()
    return {
        **s.to_dict(),
        "describe": s.describe(),
        "figures": "confined" if s.any else ("unconfined" if allow_unconfined else "disabled"),
    }


def _explore(run: _Run) -> Iterator[Event]:
    c = run.config
    assert run.scan is not None
    if c.offline:
        run.exploration = Exploration(
            status="cut_short",
            reason="offline",
            detail="Offline run: no model explored the folder.",
        )
        run.degrade(Reason.OFFLINE.value)
        _save_exploration(run)
        yield run.milestone("explore", "skipped", {"reason": "offline"})
        return
    yield run.milestone("explore", "start")
    ctx = ToolContext(
        c.folder,
        run.dir,
        run.model(),
        c.vision_model,
        cancelled=run.cancelled,
        allow_unconfined=c.allow_unconfined,
    )
    try:
        run.exploration = yield from explore(
            c, run.model(), run.scan, ctx, run.usage, run.cancelled
        )
    except Cancelled:
        _save_exploration(run)
        raise
    if run.exploration.status != "finished":
        run.degrade(_explore_reason(run.exploration))
    _save_exploration(run)
    e = run.exploration
    yield run.milestone(
        "explore",
        "end",
        {
            "status": e.status,
            "reason": e.reason,
            "files_read": len(e.files_read),
            "model_calls": e.model_calls,
        },
    )


def _explore_reason(e: Exploration) -> str:
    return explore_reason(e.reason)


def _save_exploration(run: _Run) -> None:
    run.store.write_json("findings.json", run.exploration.to_findings())
    run.store.write_text(
        "evidence.jsonl",
        "".join(json.dumps(e, ensure_ascii=False) + "\n" for e in run.exploration.evidence),
    )


def _documents(run: _Run) -> list[str]:
    assert run.scan is not None
    return list(run.scan.sample.get("documents", []))


def _figures(run: _Run) -> Iterator[Event]:
    from labwright.core.material.tables import extract_tables
    from labwright.core.report.offline import plot_table

    yield run.milestone("figures", "start")
    run.figures = list(run.exploration.figures)
    made_by = "model"
    if not run.figures:
        assert run.scan is not None
        made_by = "tables"
        tables = extract_tables(run.config.folder, run.scan.sample.get("data", []))
        for i, table in enumerate(tables):
            if len(run.figures) >= AUTO_FIGURES:
                break
            fig = plot_table(table, run.dir / "figures", f"table{i + 1}", run.config.folder)
            if fig:
                run.figures.append(fig)
    run.store.write_json("figures.json", run.figures)
    yield run.milestone("figures", "end", {"count": len(run.figures), "made_by": made_by})


def _requirements(run: _Run) -> list[str]:
    from labwright.core.report.offline import manual_requirements

    reqs = list(run.exploration.to_findings().get("assignment_requirements") or [])
    return reqs or manual_requirements(run.config.folder, _documents(run))


def _gap(run: _Run) -> Iterator[Event]:
    yield run.milestone("gap", "start")
    reqs = _requirements(run)
    if run.config.offline:
        run.gaps = [
            {"requirement": r, "supported": None, "why": "offline: not checked"} for r in reqs
        ]
    else:
        run.model()
        try:
            run.gaps = yield from check_gaps(
                run.writer, reqs, run.exploration.evidence, run.figures
            )
        except LLMError as err:
            yield run.model_failed("gap", err)
            run.gaps = [{"requirement": r, "supported": None, "why": "not checked"} for r in reqs]
    unmet = [g["requirement"] for g in run.gaps if g["supported"] is False]
    run.extra["gaps"] = run.gaps
    run.store.write_json("gaps.json", run.gaps)
    yield run.milestone("gap", "end", {"requirements": len(run.gaps), "unmet": unmet})


def _skeleton(run: _Run, findings: dict[str, Any] | None) -> str:
    from labwright.core.report.offline import offline_report

    assert run.scan is not None
    run.skeleton = True
    report = offline_report(
        run.config.folder,
        run.scan,
        run.template,
        run.dir / "figures",
        findings=findings,
        gaps=[g["requirement"] for g in run.gaps if g["supported"] is not True],
        figures=run.figures,
    )
    if not run.figures:
        run.figures = report.figures
    return report.tex


def _draft(run: _Run) -> Iterator[Event]:
    yield run.milestone("draft", "start")
    e = run.exploration
    tex = None
    if run.config.offline:
        tex = _skeleton(run, None)
    elif e.status == "no_evidence":
        tex = _skeleton(run, None)  # nothing was read: nothing may be written as fact
    else:
        run.model()
        refs = material_refs(_documents(run))
        try:
            tex = yield from draft(
                run.writer, e.to_findings(), e.evidence, run.figures, run.gaps, refs, run.note
            )
        except LLMError as err:
            yield run.model_failed("draft", err)
        if tex is None:
            run.degrade((Reason.BUDGET if run.writer.exhausted else Reason.DRAFT_INVALID).value)
            tex = _skeleton(run, e.findings or None)
    run.extra["skeleton"] = run.skeleton
    numbers = _check_numbers(run, tex)
    yield run.save_report(tex)
    detail: dict[str, Any] = {"version": run.version, "chars": len(tex), "skeleton": run.skeleton}
    if numbers is not None:
        detail["numbers"] = {
            "checked": numbers.summary()["checked"],
            "unmatched": len(numbers.unmatched),
        }
    yield run.milestone("draft", "end", detail)


def _numbers_reason(reason: str) -> bool:
    return is_reason(reason, Reason.NUMBERS_UNMATCHED)


def _check_numbers(run: _Run, tex: str) -> Verification | None:
    """Trace every number of a model's draft to the evidence (core/report/verify); numbers.json and
    run.json list what could not be traced, and the draft is degraded while any remain.
    A skeleton is not checked: its numbers are copied from the data by code."""
    run.reasons = [r for r in run.reasons if not _numbers_reason(r)]
    if run.skeleton:
        run.extra["numbers"] = {
            "checked": 0,
            "skipped": "skeleton report: its numbers come from the data tables",
        }
        return None
    result = verify_report(tex, run.exploration.evidence, run.config.folder)
    write_numbers(run.dir, result)
    run.extra["numbers"] = result.summary()
    if result.reason:
        run.degrade(result.reason)
    return result


def _reflect(run: _Run) -> Iterator[Event]:
    index = run.cursor
    rounds = run.plan.count("reflect")
    n = index - run.plan.index("reflect") + 1
    assert run.tex is not None
    reason = None
    if run.skeleton:
        reason = "skeleton report: nothing for a model to revise"
    elif run.writer.exhausted or run.writer.warned:
        reason = "token budget"
    elif run.extra.get("converged"):
        reason = "converged"
    if reason:
        yield run.milestone("reflect", "skipped", {"round": n, "of": rounds, "reason": reason})
        return
    yield run.milestone("reflect", "start", {"round": n, "of": rounds})
    run.model()  # a resumed run starts here with no client yet
    # the current text's untraced numbers go to the critique (also after a resume)
    checked = verify_report(run.tex, run.exploration.evidence, run.config.folder)
    unmatched = [c.to_dict() for c in checked.unmatched]
    try:
        tex, converged = yield from reflect_round(
            run.writer, run.tex, run.exploration.evidence, unmatched
        )
    except LLMError as err:
        yield run.model_failed("reflect", err)
        tex, converged = run.tex, True
    if tex != run.tex:
        _check_numbers(run, tex)
        yield run.save_report(tex)
    if converged:
        run.extra["converged"] = n
    yield run.milestone("reflect", "end", {"round": n, "of": rounds, "converged": converged})


def _bib(run: _Run) -> Iterator[Event]:
    yield run.milestone("bib", "start")
    assert run.tex is not None
    refs = material_refs(_documents(run))
    if not run.config.offline and not run.skeleton:
        run.model()
    try:
        bib, unresolved = yield from build_bib(run.writer, run.tex, refs)
    except LLMError as err:
        yield run.model_failed("bib", err)
        run.writer.llm = None  # the material's own references still resolve without it
        bib, unresolved = yield from build_bib(run.writer, run.tex, refs)
    run.store.write_text("refs.bib", bib)
    tex = ensure_bibliography(run.tex, run.template.bibliography_style)
    if tex != run.tex:
        yield run.save_report(tex)
    run.extra["unresolved_citations"] = unresolved
    yield run.milestone(
        "bib", "end", {"entries": bib.count("\n@") + bib.startswith("@"), "unresolved": unresolved}
    )


def _compile(run: _Run) -> Iterator[Event]:
    yield run.milestone("compile", "start", {"engine": run.engines.engine})
    assert run.tex is not None
    tex_path = run.dir / "report.tex"
    result = compile_tex(
        tex_path, engines=run.engines, cancel=run.cancelled, secrets=[run.config.api_key]
    )
    rounds = 0
    while (
        not result.ok
        and rounds < MAX_FIX_ROUNDS
        and not run.skeleton
        and not run.config.offline
        and not run.writer.exhausted
        and not run.cancelled()
    ):
        rounds += 1
        first = result.errors[0] if result.errors else None
        where = f" at line {first.line}: {first.message}" if first else ""
        yield Guard("compile_fix", f"Compile failed{where}; fix round {rounds}/{MAX_FIX_ROUNDS}")
        run.model()
        try:
            fixed = yield from fix_compile(run.writer, run.tex, result.errors)
        except LLMError as err:
            yield run.model_failed("compile", err)
            fixed = None
        if fixed is None:
            break
        yield run.save_report(fixed)
        result = compile_tex(
            tex_path, engines=run.engines, cancel=run.cancelled, secrets=[run.config.api_key]
        )
    if run.cancelled():
        raise Cancelled
    run.pdf = result.pdf
    errors = [{"file": e.file, "line": e.line, "message": e.message} for e in result.errors[:10]]
    run.extra["compile"] = {
        "ok": result.ok,
        "errors": errors,
        "warnings": result.warnings[:20],
        "seconds": result.seconds,
        "fix_rounds": rounds,
    }
    if not result.ok:
        run.degrade(Reason.COMPILE_FAILED.value)
    yield run.milestone(
        "compile",
        "end",
        {"ok": result.ok, "pdf": _rel(run, run.pdf), "errors": errors[:3], "fix_rounds": rounds},
    )


def _reload(run: _Run) -> None:
    """What finished stages left in the run directory, for the stages still to run."""
    run.scan = scan_folder(run.config.folder)
    d = run.dir
    if (d / "findings.json").is_file():
        f = json.loads((d / "findings.json").read_text(encoding="utf-8"))
        evidence = []
        if (d / "evidence.jsonl").is_file():
            evidence = [
                json.loads(x)
                for x in (d / "evidence.jsonl").read_text(encoding="utf-8").splitlines()
                if x.strip()
            ]
        keys = (
            "experiment",
            "goal",
            "key_findings",
            "assignment_requirements",
            "method_approach",
            "sample_report",
        )
        findings = {k: f.get(k) for k in keys} if f.get("status") == "finished" else None
        run.exploration = Exploration(
            status=f.get("status", "cut_short"),
            reason=f.get("reason"),
            detail=f.get("detail", ""),
            findings=findings,
            evidence=evidence,
            figures=f.get("figures", []),
            files_read=f.get("files_read", []),
        )
        if run.exploration.status != "finished" and not run.config.offline:
            # A cut or cancelled exploration is not redone: the report drafted from it
            # stays degraded, with the reason, however often the run is resumed.
            run.degrade(_explore_reason(run.exploration))
    if (d / "figures.json").is_file():
        run.figures = json.loads((d / "figures.json").read_text(encoding="utf-8"))
    if (d / "gaps.json").is_file():
        run.gaps = json.loads((d / "gaps.json").read_text(encoding="utf-8"))
    drafts = sorted((d / "drafts").glob("v*.tex"), key=lambda p: int(p.stem[1:]))
    if (d / "report.tex").is_file():
        run.tex = (d / "report.tex").read_text(encoding="utf-8")
        run.version = int(drafts[-1].stem[1:]) if drafts else 1
    if (d / "report.pdf").is_file():
        run.pdf = d / "report.pdf"
    run.skeleton = bool(run.extra.get("skeleton"))


# -- re-draft -----------------------------------------------------------------


class RedraftError(ValueError):
    """A run that cannot be re-drafted; the message says why and what to do."""


def redraft(
    run_dir: Path,
    *,
    note: str | None = None,
    api_key: str | None = None,
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
    """
    config = _redraft_config(Path(run_dir).resolve(), api_key)
    assert config.out_dir is not None
    _keep_edit(config.out_dir)
    _sweep()
    run = _Redraft(config, _as_check(cancel), note)
    run.writer.on_text = on_text
    yield from _drive(run, reload=True)


def _redraft_config(run_dir: Path, api_key: str | None) -> RunConfig:
    from labwright.core.settings.resolve import key_problem, resumed_config, run_meta

    try:
        meta = run_meta(run_dir)
        data = dict(meta["config"])
        journal = read_journal(run_dir)
    except (OSError, ValueError, KeyError, TypeError):
        raise RedraftError(f"{run_dir} is not a Labwright run directory.") from None
    if meta.get("status") == "running":
        raise RedraftError(
            "This run is still running, or it was stopped midway: finish it first "
            "(labwright run --resume)."
        )
    if data.get("offline"):
        raise RedraftError(
            "This run was offline: no model explored the material, so there is nothing to "
            "draft from. Start a new run with a model instead."
        )
    plan = meta.get("plan") or []
    ended = {
        e.get("stage")
        for e in journal
        if e.get("type") == "milestone" and e.get("status") in ("end", "skipped")
    }
    before = plan[: plan.index("draft")] if "draft" in plan else ["draft"]
    missing = [s for s in before if s not in ended]
    if missing:
        raise RedraftError(
            f"The run stopped before drafting ({', '.join(missing)} did not finish): "
            "resume it instead (labwright run --resume)."
        )
    folder = Path(data.get("folder", ""))
    if not folder.is_dir():
        raise RedraftError(f"The run's material folder {folder} is gone; it is needed to draft.")
    try:
        config = resumed_config(run_dir, api_key)
    except ValueError as e:
        raise RedraftError(str(e)) from None
    problem = key_problem(config)
    if problem:
        raise RedraftError(problem)
    return config


def _keep_edit(run_dir: Path) -> Path | None:
    """Keep the person's report.tex as drafts/edited-<n>.tex when it differs from the
    last generated draft: a re-draft replaces report.tex, never the person's work."""
    from labwright.core.report.review import generated_draft
    from labwright.core.rundir.store import atomic_write_text

    report = run_dir / "report.tex"
    if not report.is_file():
        return None
    text = report.read_text(encoding="utf-8")
    if text == generated_draft(run_dir):
        return None
    taken = [
        int(p.stem.rpartition("-")[2])
        for p in (run_dir / "drafts").glob("edited-*.tex")
        if p.stem.rpartition("-")[2].isdigit()
    ]
    path = run_dir / "drafts" / f"edited-{max(taken, default=0) + 1}.tex"
    atomic_write_text(path, text)
    return path


class _Redraft(_Run):
    """A run that starts again at the draft stage, from what the journal says was done."""

    def __init__(self, config: RunConfig, cancelled: Callable[[], bool], note: str | None) -> None:
        try:
            super().__init__(config, cancelled, resume=True)
        except (ValueError, RunDirError) as e:  # e.g. this configuration's plan differs
            raise RedraftError(str(e)) from None
        self.note = note.strip() if note and note.strip() else None
        first = self.plan.index("draft")
        self.done_stages = set(range(first))
        self.announced = False
        # The budgets cover this re-draft: the person asked for new work, and a run
        # whose budget was spent would otherwise fall straight back to the skeleton.
        self.prior_usage = self.usage
        self.usage = Usage()
        self.writer = Writer(self.config, None, self.usage, self.template)
        for key in ("converged", "numbers", "unresolved_citations", "compile", "skeleton"):
            self.extra.pop(key, None)
        try:
            meta = json.loads((self.dir / "run.json").read_text(encoding="utf-8"))
            self.started = meta.get("started", self.started)
        except (OSError, ValueError):
            pass

    def total_usage(self) -> Usage:
        return self.prior_usage.merge(self.usage)

    def after_reload(self) -> None:
        # The drafting stages decide their reasons again; the exploration's stay.
        self.skeleton = False
        e = self.exploration
        self.reasons = [_explore_reason(e)] if e.status != "finished" else []

    def milestone(self, stage: str, status: str, detail: Any = None) -> Event:
        if not self.announced:
            self.announced = True
            detail = {**(detail if isinstance(detail, dict) else {}), "redraft": True}
            detail["note"] = self.note
        return super().milestone(stage, status, detail)
