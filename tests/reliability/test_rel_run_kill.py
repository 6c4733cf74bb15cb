"""kill -9 at each stage, then `labwright run --resume` finishes the run honestly.

A real `labwright run` process talks to a FakeLLM in this test process and is
killed with SIGKILL while a model call is held open (mid-exploration, right after
the draft, in the second reflect round) or while the report compiles. The resumed
run must complete; run.json's usage must count every call answered before the kill
(rebuilt from the journal's `llm` events); an exploration that was cut stays
degraded; an exploration killed midway is done again from the start.
"""

from __future__ import annotations

import json

import pytest
from rel_run_proc import Labwright, Model, journal, meta, run_cli, total_calls, wait_for

from canary import SECRET_KEY, leaks
from fakes import FakeLLM
from labwright.core.report.latex import probe_engines
from labwright.core.rundir.store import is_running


def args(llm: FakeLLM, material, run_dir, *, reflect: int, compile: bool, extra=()):
    out = ["run", material, "--out", run_dir, "--base-url", llm.base_url]
    out += ["--explore-model", "fake-explore", "--write-model", "fake-write"]
    out += ["--vision-model", "fake-vision", "--reflect", str(reflect), *extra]
    return out + ([] if compile else ["--no-compile"])


SCENARIOS = {
    # name: (Model arguments, reflect rounds, compile)
    "explore midway": (dict(kill_when=lambda kind, k: kind == "explore" and k == 3), 0, False),
    "after the draft, exploration cut": (
        dict(kill_when=lambda kind, k: kind == "critique" and k == 1, finish=False),
        2,
        False,
    ),
    "reflect round two": (dict(kill_when=lambda kind, k: kind == "critique" and k == 2), 2, False),
}
if probe_engines().can_compile_lang("en"):  # a machine without TeX plans no compile stage
    SCENARIOS["compile"] = (dict(), 0, True)


@pytest.mark.parametrize("scenario", list(SCENARIOS))
def test_kill_9_then_resume_completes_with_honest_usage(
    scenario, material, tmp_path, guarded_folder
):
    guarded_folder(material)
    model_kwargs, reflect, compile = SCENARIOS[scenario]
    run_dir, logs = tmp_path / "run", tmp_path / "logs"
    model = Model(**model_kwargs)
    cut = not model.finish
    with FakeLLM(model) as llm:
        extra = ["--max-iters", "2"] if cut else []
        child = Labwright(
            args(llm, material, run_dir, reflect=reflect, compile=compile, extra=extra),
            logs,
            "first",
        )
        try:
            if compile:
                wait_for(
                    lambda: any(
                        e.get("stage") == "compile" and e.get("status") == "start"
                        for e in journal(run_dir)
                    ),
                    what="the compile stage",
                )
            else:
                assert model.reached.wait(60), child.stderr.decode(errors="replace")
            assert is_running(run_dir)  # the live run holds its lock...
            child.kill9()
            assert not is_running(run_dir)  # ...and the kernel drops it with the process
        finally:
            child.reap_group()  # hygiene: whatever the killed run had started
        in_flight = 0 if compile else 1
        before = journal(run_dir)
        answered_before = llm.calls - in_flight
        assert meta(run_dir)["status"] == "running"  # killed: nothing could say otherwise
        assert not [e for e in before if e["type"] == "done"]
        assert len([e for e in before if e["type"] == "llm"]) == answered_before > 0

        code, err = run_cli(
            ["run", "--resume", run_dir, "--base-url", llm.base_url], logs, "resume"
        )
        calls = llm.calls - in_flight

    assert b"Traceback" not in err
    m = meta(run_dir)
    after = journal(run_dir)
    findings = json.loads((run_dir / "findings.json").read_text())
    if cut:  # the exploration ended cut before the kill: the resumed report says so
        assert findings["status"] != "finished"
        assert code == 10 and m["status"] == "degraded"
        assert (findings["reason"] or "cut_short") in m["reasons"]
    else:
        assert code == 0, err.decode(errors="replace")
        assert m["status"] == "ok" and m["reasons"] == []
        assert findings["status"] == "finished"
    # usage: every answered call, those before the kill included, and nothing twice
    llm_events = [e for e in after if e["type"] == "llm"]
    assert total_calls(m) == len(llm_events) == calls
    assert m["total_tokens"] == sum(e["prompt_tokens"] + e["completion_tokens"] for e in llm_events)
    assert [e["status"] for e in after if e["type"] == "done"] == ["ok" if not cut else "degraded"]
    if scenario == "explore midway":  # not finished before the kill: explored again
        starts = [e for e in after if e.get("stage") == "explore" and e.get("status") == "start"]
        assert len(starts) == 2
    if compile:
        assert (run_dir / "report.pdf").is_file()
    assert leaks([run_dir, logs], [SECRET_KEY]) == []
