"""Resume is honest: a cut or cancelled exploration stays degraded, usage comes from
the journal (one `llm` event per call), a torn journal line does not hide events.

(kill -9 of a real process at each stage: test_rel_run_kill.py.)
"""

from __future__ import annotations

import json
import threading

from agent_helpers import FINISH_ARGS, config_for, explore_requests, route
from fakes import FakeLLM, call, tool_calls
from labwright.cli import main
from labwright.core.run.pipeline import run_agent

READS = [
    tool_calls(call("read_file", {"path": "data/pendulum.csv"})),
    tool_calls(call("read_file", {"path": "manual.txt"})),
    tool_calls(call("read_file", {"path": "data/log.txt"})),
    tool_calls(call("finish_exploration", FINISH_ARGS)),
]


def no_exploring(body, n):
    raise AssertionError("resume asked the explore model again")


def _point_at(run_dir, llm) -> None:
    """The run was made with this server (a fake listens on a new port each time); it is
    given again with --base-url, as a run.json never chooses the server."""
    meta = json.loads((run_dir / "run.json").read_text())
    meta["config"]["base_url"] = llm.base_url
    (run_dir / "run.json").write_text(json.dumps(meta))


def _cancelled_after_first_read(material, run_dir):
    """A run cancelled (Cancel button / Ctrl-C) after the first file was read."""
    stop = threading.Event()
    with FakeLLM(route(READS)) as llm:
        events = []
        for ev in run_agent(config_for(llm, material, run_dir), stop):
            events.append(ev)
            if ev.type == "tool_result":
                stop.set()
    assert events[-1].status == "cancelled"
    return events


def test_a_cancelled_exploration_stays_degraded_after_resume(
    material, tmp_path, monkeypatch, capsys, guarded_folder
):
    guarded_folder(material)
    run_dir = tmp_path / "run"
    _cancelled_after_first_read(material, run_dir)
    findings = json.loads((run_dir / "findings.json").read_text())
    assert findings["status"] == "cancelled"
    meta = json.loads((run_dir / "run.json").read_text())
    assert meta["status"] == "cancelled"
    assert meta["reasons"] == ["explore_cancelled", "cancelled"]

    monkeypatch.setenv("LABWRIGHT_API_KEY", "sk-test")
    with FakeLLM(route(no_exploring)) as llm:
        _point_at(run_dir, llm)
        code = main(["run", "--resume", str(run_dir), "--base-url", llm.base_url, "--json"])
        assert explore_requests(llm) == []
    assert code == 10  # degraded: drafted from one file of three
    done = json.loads(capsys.readouterr().out.splitlines()[-1])
    assert done["status"] == "degraded" and done["reasons"] == ["explore_cancelled"]
    meta = json.loads((run_dir / "run.json").read_text())
    assert meta["status"] == "degraded" and meta["reasons"] == ["explore_cancelled"]
    assert "ended_by" not in meta or meta["ended_by"] != "explore_cancelled"


def test_usage_after_resume_is_rebuilt_from_the_journal(material, tmp_path, monkeypatch):
    """run.json's usage of a killed run is stale (written before the calls); the
    journal's `llm` events are the record."""
    run_dir = tmp_path / "run"
    events = _cancelled_after_first_read(material, run_dir)
    llm_events = [e for e in events if e.type == "llm"]
    assert llm_events
    meta = json.loads((run_dir / "run.json").read_text())
    meta["usage"], meta["calls"], meta["status"] = {}, {}, "running"  # as after kill -9
    (run_dir / "run.json").write_text(json.dumps(meta))

    monkeypatch.setenv("LABWRIGHT_API_KEY", "sk-test")
    with FakeLLM(route(no_exploring)) as llm:
        _point_at(run_dir, llm)
        assert main(["run", "--resume", str(run_dir), "--base-url", llm.base_url]) == 10
        resumed_calls = llm.calls
    meta = json.loads((run_dir / "run.json").read_text())
    assert meta["calls"]["explore"] == len(llm_events)
    assert sum(meta["calls"].values()) == len(llm_events) + resumed_calls
    journal = [json.loads(x) for x in (run_dir / "events.jsonl").read_text().splitlines()]
    tokens = sum(e["prompt_tokens"] + e["completion_tokens"] for e in journal if e["type"] == "llm")
    assert meta["total_tokens"] == tokens


def test_budget_counts_the_calls_before_the_resume(material, tmp_path, monkeypatch):
    """With the journal's usage the resumed run is already over a tiny token budget:
    it writes no draft with the model (run.json alone would say nothing was spent)."""
    run_dir = tmp_path / "run"
    _cancelled_after_first_read(material, run_dir)
    meta = json.loads((run_dir / "run.json").read_text())
    meta["usage"], meta["calls"] = {}, {}
    meta["config"]["budget_tokens"] = 10  # the explore call alone spent 15
    (run_dir / "run.json").write_text(json.dumps(meta))
    monkeypatch.setenv("LABWRIGHT_API_KEY", "sk-test")
    with FakeLLM(route(no_exploring)) as llm:
        _point_at(run_dir, llm)
        assert main(["run", "--resume", str(run_dir), "--base-url", llm.base_url]) == 10
        assert llm.calls == 0  # the budget was already spent: no model call
    meta = json.loads((run_dir / "run.json").read_text())
    assert "budget" in meta["reasons"]


def test_a_torn_last_journal_line_is_cut_before_resuming(material, tmp_path, monkeypatch):
    run_dir = tmp_path / "run"
    _cancelled_after_first_read(material, run_dir)
    with open(run_dir / "events.jsonl", "a", encoding="utf-8") as f:
        f.write('{"type": "llm", "role": "explore", "mod')  # killed mid-write
    monkeypatch.setenv("LABWRIGHT_API_KEY", "sk-test")
    with FakeLLM(route(no_exploring)) as llm:
        _point_at(run_dir, llm)
        assert main(["run", "--resume", str(run_dir), "--base-url", llm.base_url]) == 10
    lines = (run_dir / "events.jsonl").read_text().splitlines()
    parsed = [json.loads(x) for x in lines]  # every line is whole again
    assert parsed[-1]["type"] == "done" and parsed[-1]["status"] == "degraded"
