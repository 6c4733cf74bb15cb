"""The run directory has one owner (core/rundir/): typed records, one loader with clear
errors, and no other module that opens its files."""

from __future__ import annotations

import ast
import json
from dataclasses import replace
from pathlib import Path

import pytest

from agent_helpers import FINISH_ARGS, config_for, of_type, route, run
from fakes import FakeLLM, call, text, tool_calls
from labwright.core.rundir.files import (
    RUN_FILES,
    load_evidence,
    load_findings,
    load_gaps,
    load_run,
    save_evidence,
    save_run,
)
from labwright.core.rundir.records import (
    SCHEMA_VERSION,
    CompileRecord,
    EvidenceRecord,
    GapRecord,
    NoteRecord,
    RunFileError,
    RunRecord,
    UsageRecord,
)
from labwright.core.rundir.store import RunDirError

PACKAGE = Path(__file__).resolve().parents[1] / "desktop" / "labwright"

EXPLORE = [
    tool_calls(call("read_file", {"path": "data/pendulum.csv"})),
    tool_calls(call("finish_exploration", {**FINISH_ARGS, "assignment_requirements": ["a plot"]})),
]


def _write(run_dir: Path, data) -> Path:
    run_dir.mkdir(parents=True, exist_ok=True)
    text_ = data if isinstance(data, str) else json.dumps(data)
    (run_dir / "run.json").write_text(text_, encoding="utf-8")
    return run_dir


def _record(**changes) -> RunRecord:
    base = RunRecord(
        status="degraded",
        config={"folder": "/data/pendulum", "offline": False},
        labwright="1.0",
        degraded=True,
        reasons=["compile_failed"],
        plan=["scan", "explore", "draft", "bib", "compile"],
        template="lab-en",
        started=1.5,
        finished=9.0,
        usage={"write": UsageRecord(calls=2, prompt_tokens=10, completion_tokens=5, ms=30)},
        calls={"write": 2},
        total_tokens=15,
        gaps=[GapRecord("a plot", False, "no figure")],
        skeleton=False,
        converged=1,
        unresolved_citations=["smith2020"],
        compile=CompileRecord(ok=False, errors=[{"file": "report.tex", "line": 3}]),
        notes=[
            NoteRecord("bib", "1 BibTeX block(s) from the model did not parse and were dropped.")
        ],
    )
    return replace(base, **changes)


# -- records and the loader ------------------------------------------------------------


def test_run_json_round_trips_through_its_record(tmp_path):
    record = _record()
    save_run(tmp_path, record)
    data = json.loads((tmp_path / "run.json").read_text())
    assert data["schema_version"] == SCHEMA_VERSION
    assert data["compile"]["errors"] == [{"file": "report.tex", "line": 3}]
    assert data["notes"] == [{"stage": "bib", "message": record.notes[0].message}]
    assert "ended_by" not in data and "numbers" not in data  # unset stage fields stay absent
    assert load_run(tmp_path) == record


def test_keys_this_version_does_not_know_survive_a_rewrite(tmp_path):
    data = {**_record().to_dict(), "written_by_a_plugin": {"x": 1}}
    _write(tmp_path, data)
    record = load_run(tmp_path)
    record.reasons.append("numbers_unmatched:1")
    save_run(tmp_path, record)
    again = json.loads((tmp_path / "run.json").read_text())
    assert again["written_by_a_plugin"] == {"x": 1}
    assert again["reasons"] == ["compile_failed", "numbers_unmatched:1"]


def test_an_old_run_json_without_a_schema_version_still_loads(tmp_path):
    """As the first releases wrote it: no schema_version, no notes."""
    old = {
        "labwright": "0.1.0",
        "status": "ok",
        "degraded": False,
        "reasons": [],
        "plan": ["scan", "explore", "draft", "bib"],
        "usage": {"write": {"calls": 1, "prompt_tokens": 3, "completion_tokens": 4, "ms": 5}},
        "cost_usd": None,
        "config": {"folder": "/data/x"},
        "skeleton": True,
        "numbers": {"checked": 0, "skipped": "skeleton report"},
    }
    record = load_run(_write(tmp_path, old))
    assert record.schema_version == 1 and record.notes == []
    assert record.folder == Path("/data/x") and record.skeleton is True
    assert record.usage["write"].completion_tokens == 4


def test_an_old_run_json_missing_what_is_needed_says_it_is_too_old(tmp_path):
    _write(tmp_path, {"labwright": "0.0.1", "reasons": []})
    with pytest.raises(RunFileError, match="older Labwright") as e:
        load_run(tmp_path)
    assert "status, config" in str(e.value)


def test_a_run_json_from_a_newer_labwright_is_refused_with_the_way_out(tmp_path):
    _write(tmp_path, {**_record().to_dict(), "schema_version": SCHEMA_VERSION + 1})
    with pytest.raises(RunFileError, match="newer Labwright.*Update Labwright"):
        load_run(tmp_path)


@pytest.mark.parametrize(
    ("content", "says"),
    [
        ('{"status": "ok", "config": {', "run.json in .* is damaged: .* line 1"),
        ("[1, 2]", "does not hold an object"),
        ({"status": "ok", "config": {}, "reasons": "oops"}, "reasons holds a string"),
        ({"status": "ok", "config": {}, "usage": {"write": {"calls": "2"}}}, "usage.write.calls"),
        ({"schema_version": 1, "status": "ok"}, "damaged: the file has no config"),
        ({"schema_version": "1", "status": "ok", "config": {}}, "schema_version is '1'"),
    ],
)
def test_a_broken_run_json_gets_one_clear_error(tmp_path, content, says):
    _write(tmp_path, content)
    with pytest.raises(RunFileError, match=says) as e:
        load_run(tmp_path)
    # one exception type, which the old callers' handlers still catch
    assert isinstance(e.value, RunDirError) and isinstance(e.value, ValueError)
    assert "Traceback" not in str(e.value) and "\n" not in str(e.value)


def test_no_run_json_is_not_a_run_directory(tmp_path):
    with pytest.raises(RunFileError, match="not a Labwright run directory"):
        load_run(tmp_path)


def test_evidence_lines_round_trip_and_a_damaged_line_is_skipped(tmp_path):
    records = [
        EvidenceRecord("data/a.csv", "t,L\n1,2", kind="table", offset=0, end=2),
        EvidenceRecord.from_dict(
            {"path": "figures/f.pdf", "kind": "figure_output", "text": "k=1", "inputs": ["a"]}
        ),
    ]
    save_evidence(tmp_path, records)
    lines = (tmp_path / "evidence.jsonl").read_text().splitlines()
    assert json.loads(lines[1]) == {
        "path": "figures/f.pdf",
        "text": "k=1",
        "kind": "figure_output",
        "inputs": ["a"],
    }  # no offset/end keys where the record had none
    with open(tmp_path / "evidence.jsonl", "a") as f:
        f.write('{"path": "x"}\n{torn')
    assert load_evidence(tmp_path) == records


def test_a_damaged_gaps_file_names_the_item(tmp_path):
    (tmp_path / "gaps.json").write_text('[{"requirement": "a"}, {"supported": true}]')
    with pytest.raises(RunFileError, match=r"gaps.json .* damaged: item 2 has no requirement"):
        load_gaps(tmp_path)


# -- what a run writes ---------------------------------------------------------------------


def test_a_run_writes_the_documented_run_json_and_typed_findings(material, tmp_path):
    with FakeLLM(route(EXPLORE)) as llm:
        run(config_for(llm, material, tmp_path / "run"))
    data = json.loads((tmp_path / "run" / "run.json").read_text())
    # DESIGN.md's fields, and only additive ones besides
    assert {"status", "degraded", "reasons", "usage", "calls", "config"} <= set(data)
    assert data["schema_version"] == SCHEMA_VERSION and data["notes"] == []
    assert "api_key" not in json.dumps(data["config"]).replace("api_key_set", "")
    record = load_run(tmp_path / "run")
    assert record.to_dict() == data and record.unknown == {}
    findings = load_findings(tmp_path / "run")
    assert findings is not None and findings.status == "finished"
    assert findings.files_read == ["data/pendulum.csv"]
    assert [e.path for e in load_evidence(tmp_path / "run")] == ["data/pendulum.csv"]


def _gap_not_json(body):
    prompt = json.dumps(body["messages"][-1].get("content", ""))
    if "Answer with JSON only" in prompt:
        return text("Sure! Here is what I think about the requirements.")
    if "BibTeX" in prompt:
        return text("@misc{broken,\n  title = {unterminated\n")
    from agent_helpers import writer_turn

    return writer_turn(body)


def test_writer_notes_reach_the_journal_and_run_json(material, tmp_path):
    """A gap check answer that was not JSON is not silent any more."""
    with FakeLLM(route(EXPLORE, _gap_not_json)) as llm:
        events = run(config_for(llm, material, tmp_path / "run"))
    errors = [(e.stage, e.message) for e in of_type(events, "error")]
    assert ("gap", "The gap check answer was not JSON; the requirements were left unchecked.") in (
        errors
    )
    notes = json.loads((tmp_path / "run" / "run.json").read_text())["notes"]
    assert {"stage": "gap", "message": errors[0][1]} in notes
    assert of_type(events, "done")[-1].status in ("ok", "degraded")


# -- nobody else opens the run directory's files ----------------------------------------------


def _opens_run_files(path: Path) -> list[str]:
    """Places where `path` builds a path to a run file or hands its name to a call
    (open, read_text, json.loads(...)); names in messages and docstrings do not count."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found = []
    for node in ast.walk(tree):
        args: list[ast.expr] = []
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Div):
            args = [node.left, node.right]
        elif isinstance(node, ast.Call):
            args = [*node.args, *(k.value for k in node.keywords)]
            name = ast.unparse(node.func)
            if name in ("json.loads", "json.load") and any(
                f in ast.unparse(a) for a in args for f in RUN_FILES
            ):
                found.append(f"{path.name}:{node.lineno}: {ast.unparse(node)[:80]}")
                continue
        for a in args:
            if isinstance(a, ast.Constant) and a.value in RUN_FILES:
                found.append(f"{path.name}:{node.lineno}: {ast.unparse(node)[:80]}")
    return found


def test_nothing_outside_rundir_opens_the_run_files():
    rundir = PACKAGE / "core" / "rundir"
    offenders = [
        hit
        for path in sorted(PACKAGE.rglob("*.py"))
        if rundir not in path.parents
        for hit in _opens_run_files(path)
    ]
    assert offenders == []


def test_the_scan_would_see_a_raw_read(tmp_path):
    bad = tmp_path / "bad.py"
    bad.write_text(
        "import json\n"
        "def f(d):\n"
        "    a = json.loads((d / 'run.json').read_text())\n"
        "    return open(d.joinpath('gaps.json')), a\n"
    )
    hits = _opens_run_files(bad)
    assert len(hits) >= 2 and any("gaps.json" in h for h in hits)
