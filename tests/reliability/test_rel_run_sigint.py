"""Ctrl-C, end to end on a real `labwright run` process: the first one cancels
cleanly (exit 130, run.json "cancelled", and --resume then gives a degraded
report), the second one aborts at once.

The first SIGINT lands while a model call is held open a few seconds. Today the
call finishes and the run then stops; once model calls are interruptible it stops
sooner. The short hold makes the test pass either way: it only bounds the wait.
"""

from __future__ import annotations

import json
import signal
import time

from rel_run_proc import Labwright, Model, journal, meta, run_cli

from fakes import FakeLLM

HOLD = 3.0  # seconds the third explore call is held open


def start(llm, material, run_dir, logs):
    return Labwright(
        ["run", material, "--out", run_dir, "--base-url", llm.base_url]
        + ["--explore-model", "fake-explore", "--write-model", "fake-write"]
        + ["--reflect", "0", "--no-compile"],
        logs,
        "first",
    )


def test_first_ctrl_c_cancels_cleanly_and_resume_stays_degraded(material, tmp_path, guarded_folder):
    guarded_folder(material)
    run_dir, logs = tmp_path / "run", tmp_path / "logs"
    model = Model(lambda kind, k: kind == "explore" and k == 3, hold=HOLD)
    with FakeLLM(model) as llm:
        child = start(llm, material, run_dir, logs)
        try:
            assert model.reached.wait(60), child.stderr
            child.proc.send_signal(signal.SIGINT)
            code = child.wait(HOLD + 30)  # bound on a hang: ends once the call returns
        finally:
            child.reap_group()
        explore_calls = model.counts["explore"]
        assert code == 130
        assert b"cancelling" in child.stderr and b"Traceback" not in child.stderr
        m = meta(run_dir)
        assert m["status"] == "cancelled" and "explore_cancelled" in m["reasons"]
        events = journal(run_dir)
        assert [e["status"] for e in events if e["type"] == "done"] == ["cancelled"]
        assert json.loads((run_dir / "findings.json").read_text())["status"] == "cancelled"

        code, err = run_cli(
            ["run", "--resume", run_dir, "--base-url", llm.base_url], logs, "resume"
        )
        assert model.counts["explore"] == explore_calls  # the exploration is not redone
    assert code == 10, err
    m = meta(run_dir)
    assert m["status"] == "degraded" and m["reasons"] == ["explore_cancelled"]
    assert sum(u["calls"] for u in m["usage"].values()) == len(
        [e for e in journal(run_dir) if e["type"] == "llm"]
    )


def test_second_ctrl_c_aborts_without_waiting_for_the_model(material, tmp_path):
    run_dir, logs = tmp_path / "run", tmp_path / "logs"
    hold = 25.0
    model = Model(lambda kind, k: kind == "explore" and k == 3, hold=hold)
    with FakeLLM(model) as llm:
        child = start(llm, material, run_dir, logs)
        try:
            assert model.reached.wait(60), child.stderr
            child.proc.send_signal(signal.SIGINT)
            time.sleep(0.5)
            child.proc.send_signal(signal.SIGINT)
            code = child.wait(hold - 5)  # it does not wait for the held answer
        finally:
            child.reap_group()
    assert code == 130
    assert b"Traceback" not in child.stderr
    m = meta(run_dir)
    assert m["status"] == "cancelled" and m["finished"] is not None
    assert [e["status"] for e in journal(run_dir) if e["type"] == "done"] == ["cancelled"]
