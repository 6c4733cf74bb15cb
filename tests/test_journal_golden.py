"""The journal's `milestone` and `draft` lines are the same bytes as before the events were
typed (DESIGN.md's event contract: other programs read events.jsonl).

tests/golden/*.jsonl were written by Labwright before Milestone.detail was one dataclass
per stage; the same scripted runs must write the same lines now. What depends on the
machine or the moment is put in its place before comparing: the temporary paths, and the
OS layers and TeX engine found here (the confinement is checked on its own, against
confine.support(), so the test holds on any machine).

LABWRIGHT_WRITE_GOLDEN=1 writes the files instead of comparing (only to record a
deliberate change of the contract, which DESIGN.md allows for added fields only).
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest

from agent_helpers import FINISH_ARGS, MINIMAL_REPORT, config_for, route, run, writer_turn
from fakes import FakeLLM, call, text, tool_calls
from labwright.core.confine import support
from labwright.core.report.latex import probe_engines
from labwright.core.run.pipeline import redraft

GOLDEN = Path(__file__).parent / "golden"
WRITE = os.environ.get("LABWRIGHT_WRITE_GOLDEN") == "1"
needs_tex = pytest.mark.skipif(not probe_engines().can_compile, reason="no TeX engine")

EXPLORE = [
    tool_calls(call("read_file", {"path": "data/pendulum.csv"})),
    tool_calls(
        call(
            "finish_exploration",
            {**FINISH_ARGS, "assignment_requirements": ["a plot of T against L"]},
        )
    ),
]
GAPS = json.dumps([{"requirement": "a plot of T against L", "supported": False, "why": "none"}])


def _writer():
    rounds = iter(
        [
            text("1. The conclusion is missing."),
            text(MINIMAL_REPORT.replace("was read.", "was read.\n\\section{Conclusion} T grows.")),
            text("NO ISSUES"),
        ]
    )

    def writer(body):
        prompt = json.dumps(body["messages"])
        if "Review this lab report" in prompt or "Revise the report" in prompt:
            return next(rounds)
        if "Answer with JSON only" in prompt:
            return text(GAPS)
        if "BibTeX" in prompt:
            return text("@book{knuth, title={The TeXbook}, author={Knuth}, year={1984}}")
        return writer_turn(body)

    return writer


def _lines(run_dir: Path, tmp_path: Path, *, skeleton: bool = False) -> list[str]:
    """The journal's milestone and draft lines, with what depends on the machine put in
    its place; the confinement is checked here against this machine's. For an offline
    run (`skeleton`) the draft's length is put in its place too: it grows with every
    improvement of the offline report, which is no change of the event contract."""
    out = []
    for line in (run_dir / "events.jsonl").read_text(encoding="utf-8").splitlines():
        event = json.loads(line)
        if event["type"] not in ("milestone", "draft"):
            continue
        if event["type"] == "milestone" and event["stage"] == "scan" and event["status"] == "start":
            s = support()
            confinement = event["detail"]["confinement"]
            assert confinement == {
                **s.to_dict(),
                "describe": s.describe(),
                "figures": confinement["figures"],
            }
            line = line.replace(json.dumps(confinement, ensure_ascii=False), '"<confinement>"')
        if event["type"] == "milestone" and event["stage"] == "compile":
            line = re.sub(r'"engine": "[^"]*"', '"engine": "<engine>"', line)
        if skeleton and event["type"] in ("draft", "milestone"):
            line = re.sub(r'"chars": \d+', '"chars": "<chars>"', line)
        out.append(line.replace(str(tmp_path), "<tmp>"))
    return out


def _compare(name: str, lines: list[str]) -> None:
    path = GOLDEN / f"{name}.jsonl"
    if WRITE:
        GOLDEN.mkdir(exist_ok=True)
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")
        return
    assert lines == path.read_text(encoding="utf-8").splitlines()


def test_a_model_run_journals_the_same_milestones(material, tmp_path):
    with FakeLLM(route(EXPLORE, _writer())) as llm:
        run(config_for(llm, material, tmp_path / "run", reflect=3))
    _compare("model_run", _lines(tmp_path / "run", tmp_path))


def test_an_offline_run_journals_the_same_milestones(material, tmp_path):
    with FakeLLM(route(EXPLORE)) as llm:
        run(config_for(llm, material, tmp_path / "run", offline=True))
    _compare("offline_run", _lines(tmp_path / "run", tmp_path, skeleton=True))


@needs_tex
def test_a_compiled_and_redrafted_run_journals_the_same_milestones(material, tmp_path):
    """A draft that does not compile (the fix model cannot repair it), then a re-draft
    with a note that does: the compile's errors, and the re-draft's first milestone."""
    rundir = tmp_path / "run"
    broken = MINIMAL_REPORT.replace("was read.", "was read. \\undefinedmacro")

    def writer(body):
        prompt = json.dumps(body["messages"])
        if "does not compile" in prompt or "complete LaTeX document" in prompt:
            return text(broken)
        return writer_turn(body)

    with FakeLLM(route(EXPLORE, writer)) as llm:
        run(config_for(llm, material, rundir, reflect=1, compile=True))
    with FakeLLM(route(lambda body, n: pytest.fail("a re-draft explored"))) as llm:
        meta = json.loads((rundir / "run.json").read_text())
        meta["config"]["base_url"] = llm.base_url
        (rundir / "run.json").write_text(json.dumps(meta))
        list(redraft(rundir, note="use SI units", api_key="sk-test", base_url=llm.base_url))
    _compare("redrafted_run", _lines(rundir, tmp_path))


# -- the journal reads back typed -------------------------------------------------------


def test_the_journal_reads_back_as_typed_events_with_one_detail_type_per_stage(material, tmp_path):
    from labwright.core.events import (
        BibDetail,
        Done,
        DraftDetail,
        Event,
        ExploreSkipped,
        FiguresDetail,
        GapDetail,
        Milestone,
        ScanDetail,
        ScanPlan,
    )
    from labwright.core.rundir.store import read_journal

    with FakeLLM(route(EXPLORE)) as llm:
        run(config_for(llm, material, tmp_path / "run", offline=True))
    events = read_journal(tmp_path / "run")
    lines = (tmp_path / "run" / "events.jsonl").read_text(encoding="utf-8").splitlines()
    assert all(isinstance(e, Event) for e in events) and isinstance(events[-1], Done)
    assert [e.to_json() for e in events] == lines  # typed, and nothing lost on the way
    details = {
        (e.stage, e.status): type(e.detail)
        for e in events
        if isinstance(e, Milestone) and e.detail is not None
    }
    assert details == {
        ("scan", "start"): ScanPlan,
        ("scan", "end"): ScanDetail,
        ("explore", "skipped"): ExploreSkipped,
        ("figures", "end"): FiguresDetail,
        ("gap", "end"): GapDetail,
        ("draft", "end"): DraftDetail,
        ("bib", "end"): BibDetail,
    }


def test_a_journal_from_another_labwright_still_reads(tmp_path):
    """Lines of a newer type, a detail of another shape, an older one with fewer keys, a
    torn line: the journal still reads (the history replays it), nothing is invented."""
    from labwright.core.events import Milestone, RawDetail, RedraftDetail, ScanPlan
    from labwright.core.rundir.store import read_journal

    run_dir = tmp_path / "run"
    run_dir.mkdir()
    lines = [
        {"type": "milestone", "stage": "scan", "index": 1, "total": 2, "status": "start",
         "detail": {"folder": "/m", "run_dir": "/r", "plan": ["scan", "draft"]}},
        {"type": "thought", "text": "a type this Labwright does not know"},
        {"type": "milestone", "stage": "scan", "index": 1, "total": 2, "status": "end",
         "detail": "3 files"},
        {"type": "milestone", "stage": "draft", "index": 2, "total": 2, "status": "start",
         "detail": {"redraft": True, "note": None}},
        {"type": "milestone", "stage": "draft", "index": 2, "total": 2, "status": "end",
         "detail": {"version": "two"}},
        {"type": "milestone", "stage": "draft"},
    ]  # fmt: skip
    text = "".join(json.dumps(line) + "\n" for line in lines) + '{"type": "milest'
    (run_dir / "events.jsonl").write_text(text, encoding="utf-8")
    events = read_journal(run_dir)
    assert [type(e) for e in events] == [Milestone] * 4
    start, end, redraft_start, draft_end = events
    assert isinstance(start.detail, ScanPlan) and start.detail.plan == ["scan", "draft"]
    assert start.detail.confinement is None  # older journals had none: none is made up
    assert end.detail == RawDetail("3 files") and end.to_dict()["detail"] == "3 files"
    assert redraft_start.redraft == RedraftDetail(None)
    assert draft_end.detail == RawDetail({"version": "two"})  # kept as it came
