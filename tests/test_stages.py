"""Stages persist and reload themselves (core/run/stages.py): what a stage hands on after
running is what it hands on after a resume reloads it from the run directory."""

from __future__ import annotations

import dataclasses
import json

from agent_helpers import FINISH_ARGS, config_for, route
from fakes import FakeLLM, call, tool_calls
from labwright.core.run import pipeline
from labwright.core.run.stages import STAGES, Handoff, plan_pipeline
from labwright.core.rundir.records import EvidenceRecord, FigureRecord, GapRecord
from labwright.core.settings.config import RunConfig

EXPLORE = [
    tool_calls(call("read_file", {"path": "data/pendulum.csv"})),
    tool_calls(call("read_file", {"path": "manual.txt"})),
    tool_calls(
        call("finish_exploration", {**FINISH_ARGS, "assignment_requirements": ["a plot of T"]})
    ),
]
ORDER = ["scan", "explore", "figures", "gap", "draft", "reflect", "bib", "compile"]


def test_every_stage_reads_only_what_an_earlier_stage_writes():
    assert list(STAGES) == ORDER
    written: set[str] = set()
    for name in ORDER:
        stage = STAGES[name]
        assert stage.name == name
        assert set(stage.reads) <= written, (name, set(stage.reads) - written)
        written |= set(stage.writes)


def _handoff(h: Handoff) -> dict:
    """What the later stages use of a handoff, comparable across two runs."""
    e = h.exploration
    return {
        "exploration": (e.status, e.reason, e.findings, e.evidence, e.figures, e.files_read),
        **{
            f.name: getattr(h, f.name)
            for f in dataclasses.fields(h)
            if f.name not in ("scan", "exploration")
        },
        "scan": h.scan.to_dict() if h.scan else None,
    }


def _drive_to_the_end(config: RunConfig) -> pipeline._Run:
    run = pipeline._Run(config, lambda: False, False)
    events = list(pipeline._drive(run, reload=False))
    assert events[-1].type == "done"
    return run


def test_a_resumed_run_reloads_exactly_what_its_stages_handed_on(material, tmp_path):
    with FakeLLM(route(EXPLORE)) as llm:
        config = config_for(llm, material, tmp_path / "run", reflect=1)
        first = _drive_to_the_end(config)
    assert first.h.gaps and first.h.figures and first.h.exploration.evidence  # a full handoff
    again = pipeline._Run(config, lambda: False, True)
    try:
        assert again.done_stages == set(range(len(first.plan)))
        pipeline._reload(again)
        assert _handoff(again.h) == _handoff(first.h)
        # typed on both sides: the run hands on records, and reload does not make dicts
        for h in (first.h, again.h):
            assert h.gaps and all(isinstance(g, GapRecord) for g in h.gaps)
            assert all(isinstance(f, FigureRecord) for f in h.figures)
            assert all(isinstance(e, EvidenceRecord) for e in h.exploration.evidence)
            assert all(isinstance(f, FigureRecord) for f in h.exploration.figures)
        assert again.reasons == first.reasons and again.notes == first.notes
        # and run.json written from the reloaded run says what the first one said
        fields = ("gaps", "skeleton", "numbers", "converged", "unresolved_citations", "compile")
        mine, theirs = again.record("ok").to_dict(), first.record("ok").to_dict()
        assert {k: mine.get(k) for k in fields} == {k: theirs.get(k) for k in fields}
    finally:
        again.store.close()


def test_each_stage_reloads_only_its_own_part(material, tmp_path):
    """A run stopped after the gap stage: the drafting fields stay unset on reload."""
    with FakeLLM(route(EXPLORE)) as llm:
        config = config_for(llm, material, tmp_path / "run", reflect=1)
        first = _drive_to_the_end(config)
    again = pipeline._Run(config, lambda: False, True)
    try:
        again.done_stages = {i for i, s in enumerate(again.plan) if s in ("scan", "explore", "gap")}
        pipeline._reload(again)
        h = again.h
        assert h.gaps == first.h.gaps and h.exploration.files_read == [
            "data/pendulum.csv",
            "manual.txt",
        ]
        assert h.figures == []  # figures did not count as done: not reloaded
        assert (h.tex, h.skeleton, h.converged, h.compile) == (None, None, None, None)
        assert h.version == first.h.version  # drafts/ numbering is the directory's, always
    finally:
        again.store.close()


def test_the_plan_is_unchanged_and_lives_with_the_stages(material):
    from labwright.core.report.latex import probe_engines

    config = RunConfig(folder=material, reflect=2, compile=False)
    plan = plan_pipeline(config, probe_engines())
    assert plan == ["scan", "explore", "figures", "gap", "draft", "reflect", "reflect", "bib"]
    assert pipeline.plan_pipeline is plan_pipeline


def test_a_resume_after_a_kill_in_bib_reloads_and_runs_only_the_rest(material, tmp_path):
    """Journal says bib never ended: bib runs again from the reloaded report."""
    with FakeLLM(route(EXPLORE)) as llm:
        config = config_for(llm, material, tmp_path / "run")
        first = _drive_to_the_end(config)
        journal = tmp_path / "run" / "events.jsonl"
        lines = journal.read_text().splitlines()
        bib_end = next(
            i
            for i, line in enumerate(lines)
            if json.loads(line).get("stage") == "bib" and json.loads(line).get("status") == "end"
        )
        journal.write_text("\n".join(lines[:bib_end]) + "\n")
        meta = json.loads((tmp_path / "run" / "run.json").read_text())
        meta["status"] = "running"
        (tmp_path / "run" / "run.json").write_text(json.dumps(meta))
        again = pipeline._Run(config, lambda: False, True)
        events = list(pipeline._drive(again, reload=True))
    stages = [e.stage for e in events if e.type == "milestone"]
    assert stages == ["bib", "bib"]
    assert events[-1].type == "done" and events[-1].reasons == first.reasons
    assert again.h.tex == first.h.tex and again.h.unresolved_citations == []


def test_course_boilerplate_is_not_a_requirement_to_check(material, tmp_path):
    """Marks, links, deadlines and the viva the model passed on never reach the gap check."""
    requirements = [
        "a plot of T",
        "Viva voce and presentation (20%)",
        "Submit the report at https://elearning.example.edu/lab3",
        "The deadline is one week after the second session.",
    ]
    finish = call("finish_exploration", {**FINISH_ARGS, "assignment_requirements": requirements})
    with FakeLLM(route([EXPLORE[0], tool_calls(finish)])) as llm:
        done = _drive_to_the_end(config_for(llm, material, tmp_path / "run", reflect=1))
    assert [g.requirement for g in done.h.gaps or []] == ["a plot of T"]
    saved = json.loads((tmp_path / "run" / "gaps.json").read_text(encoding="utf-8"))
    assert "Viva" not in json.dumps(saved)
