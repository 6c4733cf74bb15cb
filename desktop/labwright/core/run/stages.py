"""The stages of a run, each with what it reads and writes in the run directory.

scan → explore → [figures] → [gap] → draft → reflect×N → bib → [compile]

A stage's `run` does its work, yielding events, and persists what it made
(through rundir/files.py, or the run's store for the report and drafts); its
`reload` rebuilds the same `Handoff` fields from the run directory. `--resume`
and a re-draft call `reload` on every stage the journal says is done, then run
the others: there is no second copy of any stage's persistence.

`reads` names the files a stage takes from the stages before it; `writes` the
files it leaves (run.json:<field> for a field of run.json). tests/test_stages.py
checks that each read is some earlier stage's write.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from labwright.core import confine
from labwright.core.agent.explore import Cancelled, Exploration, explore
from labwright.core.agent.tools import ToolContext
from labwright.core.events import (
    BibDetail,
    CompileDetail,
    CompileError,
    CompileStart,
    Confinement,
    DraftDetail,
    Event,
    ExploreDetail,
    ExploreSkipped,
    FiguresDetail,
    GapDetail,
    Guard,
    NumbersSummary,
    ReflectDetail,
    ScanDetail,
    ScanPlan,
    StageNames,
)
from labwright.core.llm.client import LLMError, TimeUp
from labwright.core.material.tables import collect_data
from labwright.core.material.workspace import ScanResult, scan_folder
from labwright.core.reasons import Reason, explore_reason, is_reason
from labwright.core.report.latex import CompileResult, Engines, compile_tex
from labwright.core.report.offline import item_key, offline_report, plot_item
from labwright.core.report.offline.parts import drop_repeats
from labwright.core.report.offline.requirements import (
    read_manual,
    requirements_text,
    with_model_requirements,
)
from labwright.core.report.templates import load_template
from labwright.core.report.verify import Verification, verify_report, write_numbers
from labwright.core.report.writing import (
    build_bib,
    check_gaps,
    draft,
    ensure_bibliography,
    fix_compile,
    gap_entry,
    material_refs,
    reflect_round,
)
from labwright.core.rundir.names import (
    DRAFTS,
    EVIDENCE_JSONL,
    FIGURES,
    FIGURES_JSON,
    FINDINGS_JSON,
    GAPS_JSON,
    NUMBERS_JSON,
    REFS_BIB,
    REPORT_PDF,
    REPORT_TEX,
    RUN_JSON,
    written,
)
from labwright.core.rundir.records import (
    CompileErrorRecord,
    CompileRecord,
    EvidenceRecord,
    FigureRecord,
    GapRecord,
)
from labwright.core.settings.config import RunConfig
from labwright.core.step_words import Words

if TYPE_CHECKING:
    from labwright.core.report.offline.requirements import ManualTasks, Requirement
    from labwright.core.run.context import RunContext

MAX_FIX_ROUNDS = 2
AUTO_FIGURES = 6  # plots made without a model when exploration made none


def plan_pipeline(config: RunConfig, engines: Engines) -> list[str]:
    """The milestones of a run, from configuration alone, before anything runs.

    scan → explore → [figures] → [gap] → draft → reflect×N → bib → [compile]
    """
    template = load_template(config.template, config.lang)
    plan = [StageNames.SCAN, StageNames.EXPLORE]
    plan += [s for s in (StageNames.FIGURES, StageNames.GAP) if template.runs(s)]
    plan.append(StageNames.DRAFT)
    rounds = (
        0
        if config.offline
        else (config.reflect if config.reflect is not None else template.reflect)
    )
    plan += [StageNames.REFLECT] * rounds
    plan.append(StageNames.BIB)
    if config.compile and engines.can_compile_lang(template.lang):
        plan.append(StageNames.COMPILE)
    return plan


@dataclass
class Handoff:
    """What the stages hand on. Fields a stage decides for run.json stay None until
    that stage ran (or was reloaded), so run.json has them only then."""

    scan: ScanResult | None = None  # scan
    exploration: Exploration = field(default_factory=Exploration)  # explore
    figures: list[FigureRecord] = field(default_factory=list)  # figures
    gaps: list[GapRecord] | None = None  # gap
    tex: str | None = None  # draft, reflect, bib, compile (fix rounds)
    version: int = 0
    skeleton: bool | None = None  # draft
    numbers: dict[str, Any] | None = None  # draft, reflect
    converged: int | None = None  # reflect
    unresolved_citations: list[str] | None = None  # bib
    compile: CompileRecord | None = None  # compile
    pdf: Path | None = None  # compile

    def documents(self) -> list[str]:
        assert self.scan is not None
        return list(self.scan.sample.get("documents", []))


class Stage:
    name: ClassVar[str]
    reads: ClassVar[tuple[str, ...]] = ()
    writes: ClassVar[tuple[str, ...]] = ()

    def run(self, run: RunContext) -> Iterator[Event]:
        raise NotImplementedError

    def reload(self, run: RunContext) -> None:
        """Rebuild what `run` left in the handoff, from the run directory."""


# -- scan -----------------------------------------------------------------------


class ScanStage(Stage):
    name = StageNames.SCAN  # reads the material folder only; the result is the milestone's detail

    def run(self, run: RunContext) -> Iterator[Event]:
        c = run.config
        unavailable = c.compile and StageNames.COMPILE not in run.plan
        plan = ScanPlan(
            folder=str(c.folder),
            run_dir=str(run.dir),
            plan=run.plan,
            template=run.template.name,
            compile="unavailable: " + run.engines.install_hint() if unavailable else None,
            confinement=_confinement(c.allow_unconfined),
        )
        yield run.milestone(self.name, "start", plan)
        run.h.scan = scan_folder(c.folder)
        yield run.milestone(self.name, "end", _scanned(run.h.scan))

    def reload(self, run: RunContext) -> None:
        run.h.scan = scan_folder(run.config.folder)  # cheap, and the folder is the truth


def _scanned(scan: ScanResult) -> ScanDetail:
    return ScanDetail(
        root=scan.root,
        summary=scan.summary(),
        files=scan.files,
        dirs=scan.dirs,
        total_bytes=scan.total_bytes,
        counts=dict(scan.counts),
        sizes=dict(scan.sizes),
        hidden=list(scan.hidden),
        huge=list(scan.huge),
        skipped=[dict(s) for s in scan.skipped],
        sample={b: list(paths) for b, paths in scan.sample.items()},
        truncated=scan.truncated,
        omitted=dict(scan.omitted),
    )


def _confinement(allow_unconfined: bool) -> Confinement:
    """Which OS layers hold model-written code here, and whether figures may run at all."""
    s = confine.support()  # through the module, as the sandbox asks it (tests stand in for it)
    return Confinement(
        landlock_abi=s.landlock_abi,
        namespaces=s.namespaces,
        seccomp=s.seccomp,
        layers=s.layers(),
        describe=s.describe(),
        figures="confined" if s.any else ("unconfined" if allow_unconfined else "disabled"),
    )


# -- explore ------------------------------------------------------------------------


class ExploreStage(Stage):
    name = StageNames.EXPLORE
    writes = (written(FINDINGS_JSON), written(EVIDENCE_JSONL), written(FIGURES))

    def run(self, run: RunContext) -> Iterator[Event]:
        c, h = run.config, run.h
        assert h.scan is not None
        if c.offline:
            h.exploration = Exploration(
                status="cut_short",
                reason="offline",
                detail="Offline run: no model explored the folder.",
            )
            run.degrade(Reason.OFFLINE.value)
            self._save(run)
            yield run.milestone(self.name, "skipped", ExploreSkipped("offline"))
            return
        yield run.milestone(self.name, "start")
        llm = run.client()
        ctx = ToolContext(
            c.folder,
            run.dir,
            llm,
            c.vision_model,
            vision_max_tokens=c.tokens_for("vision"),
            cancelled=run.cancelled,
            allow_unconfined=c.allow_unconfined,
        )

        tasks = requirements_text(_manual(run).requirements)
        try:
            h.exploration = yield from explore(
                c, llm, h.scan, ctx, run.usage, run.cancelled, run.clock, requirements=tasks
            )
        except Cancelled:
            self._save(run)
            raise
        if h.exploration.status != "finished":
            run.degrade(explore_reason(h.exploration.reason))
        self._save(run)
        e = h.exploration
        ended = ExploreDetail(e.status, e.reason, len(e.files_read), e.model_calls)
        yield run.milestone(self.name, "end", ended)

    def _save(self, run: RunContext) -> None:
        e = run.h.exploration
        run.rundir.save_findings(e.to_findings())
        run.rundir.save_evidence(e.evidence)

    def reload(self, run: RunContext) -> None:
        f = run.rundir.load_findings()
        if f is None:
            return
        run.h.exploration = Exploration(
            status=f.status,
            reason=f.reason,
            detail=f.detail,
            findings=f.conclusion(),
            evidence=run.rundir.load_evidence(),
            figures=list(f.figures),
            files_read=list(f.files_read),
        )
        if f.status != "finished" and not run.config.offline:
            # A cut or cancelled exploration is not redone: the report drafted from it
            # stays degraded, with the reason, however often the run is resumed.
            run.degrade(explore_reason(f.reason))


# -- figures, gap ---------------------------------------------------------------------


class FiguresStage(Stage):
    name = StageNames.FIGURES
    reads = (written(FINDINGS_JSON),)  # the figures the model made while exploring
    writes = (written(FIGURES_JSON), written(FIGURES))

    def run(self, run: RunContext) -> Iterator[Event]:
        h = run.h
        yield run.milestone(self.name, "start")
        h.figures = list(h.exploration.figures)
        made_by = "model"
        if not h.figures:
            assert h.scan is not None
            made_by = "tables"
            # A series of files alike (31 spectra) is one overlay plot, not one per file.
            items = collect_data(run.config.folder, h.scan.sample.get("data", [])).items
            lang = "zh" if run.template.lang.lower().startswith("zh") else "en"
            not_shown = {d.index for d in drop_repeats(items)}  # no data, or a copy
            for i, item in enumerate(items):
                if len(h.figures) >= AUTO_FIGURES:
                    break
                if i in not_shown:
                    continue
                fig = plot_item(item, run.rundir.figures, f"table{i + 1}", run.config.folder, lang)
                if fig:
                    fig.table_key = item_key(item)  # the skeleton puts it beside its table
                    h.figures.append(fig)
        run.rundir.save_figures(h.figures)
        yield run.milestone(self.name, "end", FiguresDetail(len(h.figures), made_by))

    def reload(self, run: RunContext) -> None:
        run.h.figures = run.rundir.load_figures() or []


class GapStage(Stage):
    name = StageNames.GAP
    reads = (written(FINDINGS_JSON), written(EVIDENCE_JSONL), written(FIGURES_JSON))
    writes = (written(GAPS_JSON), written(RUN_JSON, "gaps"), written(RUN_JSON, "notes"))

    def run(self, run: RunContext) -> Iterator[Event]:
        h = run.h
        yield run.milestone(self.name, "start")
        reqs = _requirements(run)
        gaps: list[GapRecord]
        if run.config.offline:
            gaps = [gap_entry(r, None, "offline: not checked") for r in reqs]
        elif not h.exploration.evidence:
            # nothing read, so nothing to check against (and the draft is a skeleton): a
            # slow local model would spend minutes on an answer known in advance
            gaps = [gap_entry(r, None, "nothing was read: not checked") for r in reqs]
        else:
            try:
                gaps = yield from check_gaps(
                    run.writer(model=True), reqs, h.exploration.evidence, h.figures
                )
            except LLMError as err:
                yield run.model_failed(self.name, err)
                gaps = [gap_entry(r, None, "not checked") for r in reqs]
            yield from run.notes_of(self.name)
        h.gaps = gaps
        run.rundir.save_gaps(gaps)
        unmet = [g.requirement for g in gaps if g.supported is False]
        yield run.milestone(self.name, "end", GapDetail(len(gaps), unmet))

    def reload(self, run: RunContext) -> None:
        run.h.gaps = run.rundir.load_gaps()


def _manual(run: RunContext) -> ManualTasks:
    """The manual's tasks and questions by part (read once; the folder is the truth)."""
    if run.manual is None:
        run.manual = read_manual(run.config.folder, run.h.documents())
    return run.manual


def _requirements(run: RunContext) -> list[Requirement]:
    """What the gap check checks: the manual's requirements (with their parts and
    sources), then those the model found besides; marks, deadlines, links and the
    viva are no requirement a report can meet."""
    found = run.h.exploration.to_findings().assignment_requirements
    return with_model_requirements(_manual(run).requirements, found)


# -- draft, reflect ---------------------------------------------------------------------


class DraftStage(Stage):
    name = StageNames.DRAFT
    reads = (
        written(FINDINGS_JSON),
        written(EVIDENCE_JSONL),
        written(FIGURES_JSON),
        written(GAPS_JSON),
    )
    writes = (
        written(REPORT_TEX),
        written(DRAFTS),
        written(NUMBERS_JSON),
        written(EVIDENCE_JSONL),  # a skeleton adds what it read and computed (offline/trace.py)
        written(RUN_JSON, "skeleton"),
        written(RUN_JSON, "numbers"),
    )

    def run(self, run: RunContext) -> Iterator[Event]:
        h = run.h
        yield run.milestone(self.name, "start")
        e = h.exploration
        h.skeleton = False
        tex = None
        if run.config.offline or e.status == "no_evidence" or not e.evidence:
            # nothing was read (whatever stopped exploration): nothing may be written as fact
            tex = _skeleton(run, None)
        else:
            refs = material_refs(h.documents())
            timed_out = False
            try:
                tex = yield from draft(
                    run.writer(model=True),
                    e.to_findings(),
                    e.evidence,
                    h.figures,
                    h.gaps or [],
                    refs,
                    run.note,
                    requirements=_requirements(run),
                )
            except LLMError as err:
                yield run.model_failed(self.name, err)
                # the run's clock cut the draft: that is the reason, not a bad document
                timed_out = isinstance(err, TimeUp)
            if tex is None:
                if not timed_out:
                    run.degrade(
                        (run.budget.reason if run.budget.exhausted else Reason.DRAFT_INVALID).value
                    )
                tex = _skeleton(run, e.findings or None)
        numbers = _check_numbers(run, tex)
        yield run.save_report(tex)
        checked = None
        if numbers is not None:
            checked = NumbersSummary(numbers.summary()["checked"], len(numbers.unmatched))
        detail = DraftDetail(h.version, len(tex), bool(h.skeleton), checked)
        yield run.milestone(self.name, "end", detail)

    def reload(self, run: RunContext) -> None:
        _reload_report(run)
        prior = run.prior
        run.h.skeleton = prior.skeleton if prior else None
        run.h.numbers = prior.numbers if prior else None


def _reload_report(run: RunContext) -> None:
    """report.tex as the last stage that touched it left it, and its draft number."""
    if run.rundir.has_report():
        run.h.tex = run.rundir.read_report()
        run.h.version = max(run.h.version, 1)


def _skeleton(run: RunContext, findings: dict[str, Any] | None) -> str:
    h = run.h
    assert h.scan is not None
    h.skeleton = True
    report = offline_report(
        run.config.folder,
        h.scan,
        run.template,
        run.rundir.figures,
        findings=findings,
        gaps=[g.requirement for g in h.gaps or [] if g.supported is not True],
        figures=h.figures,
    )
    if not h.figures:
        h.figures = report.figures
    _save_skeleton_evidence(run, report.evidence)
    return report.tex


def _save_skeleton_evidence(run: RunContext, records: list[dict[str, Any]]) -> None:
    """evidence.jsonl: what exploration read, then what the skeleton read and computed, so
    `labwright verify` traces the skeleton's numbers to their cells and computations."""
    kept = list(run.h.exploration.evidence)
    seen = {(r.path, r.kind, r.text) for r in kept}
    kept += [
        EvidenceRecord.from_dict(r)
        for r in records
        if (r.get("path"), r.get("kind"), r.get("text")) not in seen
    ]
    run.rundir.save_evidence(kept)


def _check_numbers(run: RunContext, tex: str) -> Verification | None:
    """Trace every number of a model's draft to the evidence (core/report/verify); numbers.json and
    run.json list what could not be traced, and the draft is degraded while any remain.
    A skeleton is not checked: its numbers are copied from the data by code."""
    run.reasons = [r for r in run.reasons if not is_reason(r, Reason.NUMBERS_UNMATCHED)]
    if run.h.skeleton:
        run.h.numbers = {
            "checked": 0,
            "skipped": "skeleton report: its numbers come from the data tables",
        }
        return None
    result = verify_report(tex, run.h.exploration.evidence, run.config.folder)
    write_numbers(run.dir, result)
    run.h.numbers = result.summary()
    if result.reason:
        run.degrade(result.reason)
    return result


class ReflectStage(Stage):
    name = StageNames.REFLECT
    reads = (written(REPORT_TEX), written(EVIDENCE_JSONL))
    writes = (
        written(REPORT_TEX),
        written(DRAFTS),
        written(NUMBERS_JSON),
        written(RUN_JSON, "numbers"),
        written(RUN_JSON, "converged"),
    )

    def run(self, run: RunContext) -> Iterator[Event]:
        h = run.h
        rounds = run.plan.count(self.name)
        n = run.cursor - run.plan.index(self.name) + 1
        assert h.tex is not None
        reason = None
        if h.skeleton:
            reason = "skeleton report: nothing for a model to revise"
        elif run.budget.exhausted or run.budget.warned:
            reason = "time budget" if run.budget.reason is Reason.TIME_UP else "token budget"
        elif h.converged:
            reason = "converged"
        if reason:
            yield run.milestone(self.name, "skipped", ReflectDetail(n, rounds, reason=reason))
            return
        yield run.milestone(self.name, "start", ReflectDetail(n, rounds))
        # the current text's untraced numbers go to the critique (also after a resume)
        checked = verify_report(h.tex, h.exploration.evidence, run.config.folder)
        unmatched = [c.to_dict() for c in checked.unmatched]
        try:
            tex, converged = yield from reflect_round(
                run.writer(model=True), h.tex, h.exploration.evidence, unmatched
            )
        except LLMError as err:
            yield run.model_failed(self.name, err)
            tex, converged = h.tex, True
        if tex != h.tex:
            _check_numbers(run, tex)
            yield run.save_report(tex)
        if converged:
            h.converged = n
        yield run.milestone(self.name, "end", ReflectDetail(n, rounds, converged=converged))

    def reload(self, run: RunContext) -> None:
        _reload_report(run)
        prior = run.prior
        if prior is not None:
            run.h.numbers, run.h.converged = prior.numbers, prior.converged


# -- bib, compile -----------------------------------------------------------------------


class BibStage(Stage):
    name = StageNames.BIB
    reads = (written(REPORT_TEX),)
    writes = (
        written(REFS_BIB),
        written(REPORT_TEX),
        written(DRAFTS),
        written(RUN_JSON, "unresolved_citations"),
        written(RUN_JSON, "notes"),
    )

    def run(self, run: RunContext) -> Iterator[Event]:
        h = run.h
        yield run.milestone(self.name, "start")
        assert h.tex is not None
        refs = material_refs(h.documents())
        # Only a model's report has citations a model may resolve.
        writer = run.writer(model=not run.config.offline and not h.skeleton)
        try:
            bib, unresolved = yield from build_bib(writer, h.tex, refs)
        except LLMError as err:
            yield run.model_failed(self.name, err)
            # the material's own references still resolve without the model
            bib, unresolved = yield from build_bib(writer.without_model(), h.tex, refs)
        yield from run.notes_of(self.name)
        run.rundir.save_refs(bib)
        tex = ensure_bibliography(h.tex, run.template.bibliography_style)
        if tex != h.tex:
            yield run.save_report(tex)
        h.unresolved_citations = unresolved
        entries = bib.count("\n@") + bib.startswith("@")
        yield run.milestone(self.name, "end", BibDetail(entries, unresolved))

    def reload(self, run: RunContext) -> None:
        _reload_report(run)
        if run.prior is not None:
            run.h.unresolved_citations = run.prior.unresolved_citations


class CompileStage(Stage):
    name = StageNames.COMPILE
    reads = (written(REPORT_TEX), written(REFS_BIB), written(FIGURES))
    writes = (
        written(REPORT_PDF),
        written(REPORT_TEX),
        written(DRAFTS),
        written(RUN_JSON, "compile"),
    )

    def run(self, run: RunContext) -> Iterator[Event]:
        h = run.h
        yield run.milestone(self.name, "start", CompileStart(run.engines.engine))
        assert h.tex is not None
        result = self._compile(run)
        rounds = 0
        while (
            not result.ok
            and rounds < MAX_FIX_ROUNDS
            and not h.skeleton
            and not run.config.offline
            and not run.budget.exhausted
            and not run.cancelled()
        ):
            rounds += 1
            first = result.errors[0] if result.errors else None
            said = (
                Words(
                    "compile_fix_at",
                    line=first.line,
                    message=first.message,
                    n=rounds,
                    of=MAX_FIX_ROUNDS,
                )
                if first
                else Words("compile_fix", n=rounds, of=MAX_FIX_ROUNDS)
            )
            yield Guard("compile_fix", said)
            try:
                fixed = yield from fix_compile(run.writer(model=True), h.tex, result.errors)
            except LLMError as err:
                yield run.model_failed(self.name, err)
                fixed = None
            if fixed is None:
                break
            yield run.save_report(fixed)
            result = self._compile(run)
        if run.cancelled():
            raise Cancelled
        h.pdf = result.pdf
        errors = [CompileError(e.file, e.line, e.message) for e in result.errors[:10]]
        h.compile = CompileRecord(
            ok=result.ok,
            errors=[CompileErrorRecord(e.file, e.line, e.message) for e in errors],
            warnings=result.warnings[:20],
            seconds=result.seconds,
            fix_rounds=rounds,
        )
        if not result.ok:
            run.degrade(Reason.COMPILE_FAILED.value)
        ended = CompileDetail(result.ok, run.rel(h.pdf), errors[:3], rounds)
        yield run.milestone(self.name, "end", ended)

    def _compile(self, run: RunContext) -> CompileResult:
        return compile_tex(
            run.rundir.report_tex,
            engines=run.engines,
            cancel=run.cancelled,
            secrets=[run.config.api_key],
        )

    def reload(self, run: RunContext) -> None:
        run.h.pdf = run.rundir.report_pdf if run.rundir.has_pdf() else None
        if run.prior is not None:
            run.h.compile = run.prior.compile


STAGES: dict[str, Stage] = {
    s.name: s
    for s in (
        ScanStage(),
        ExploreStage(),
        FiguresStage(),
        GapStage(),
        DraftStage(),
        ReflectStage(),
        BibStage(),
        CompileStage(),
    )
}
