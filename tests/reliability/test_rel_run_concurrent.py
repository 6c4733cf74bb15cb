"""Many runs at once: each claims its own run folder (an exclusive mkdir), each
journal holds one run, the picked folder is never touched.
"""

from __future__ import annotations

import json
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from rel_run_proc import Labwright, journal

from labwright.core.run.pipeline import run_agent
from labwright.core.rundir import store as runstore
from labwright.core.rundir.store import RunDirError, RunStore, is_running, new_run_dir
from labwright.core.settings.config import RunConfig

N = 8


def assert_one_run(run_dir: Path, status: str = "degraded") -> None:
    events = journal(run_dir)
    lines = (run_dir / "events.jsonl").read_text(encoding="utf-8").splitlines()
    assert len(events) == len(lines)  # no torn or interleaved line
    scans = [e for e in events if e.get("stage") == "scan" and e.get("status") == "start"]
    assert len(scans) == 1 and scans[0]["detail"]["run_dir"] == str(run_dir)
    assert [e["status"] for e in events if e["type"] == "done"] == [status]
    assert events[-1]["type"] == "done"
    assert len({e["total"] for e in events if e["type"] == "milestone"}) == 1
    # one pass through the plan: every milestone index starts at most once
    starts = [e["index"] for e in events if e["type"] == "milestone" and e["status"] == "start"]
    assert len(starts) == len(set(starts))
    assert json.loads((run_dir / "run.json").read_text())["status"] == status


def test_eight_simultaneous_cli_runs_each_get_their_own_folder(
    material, tmp_path, isolated_home, guarded_folder
):
    guarded_folder(material)
    logs = tmp_path / "logs"
    children = [
        Labwright(["run", material, "--offline", "--no-compile"], logs, f"run{i}") for i in range(N)
    ]
    try:
        codes = [c.wait(110) for c in children]
    finally:
        for c in children:
            c.reap_group()
    errs = [c.stderr.decode(errors="replace") for c in children]
    assert codes == [10] * N, errs  # offline: degraded, never "exists" (2) or a crash
    run_dirs = sorted((isolated_home / "runs").iterdir())
    assert len(run_dirs) == N
    for run_dir in run_dirs:
        assert_one_run(run_dir)


def test_eight_runs_given_the_same_out_folder_let_exactly_one_run(
    material, tmp_path, guarded_folder
):
    guarded_folder(material)
    out, logs = tmp_path / "shared-out", tmp_path / "logs"
    children = [
        Labwright(["run", material, "--offline", "--no-compile", "--out", out], logs, f"run{i}")
        for i in range(N)
    ]
    try:
        codes = [c.wait(110) for c in children]
    finally:
        for c in children:
            c.reap_group()
    assert sorted(codes) == [2] * (N - 1) + [10]
    refused = [c.stderr.decode() for c, code in zip(children, codes, strict=True) if code == 2]
    assert all("already holds a run" in e or "in use by another" in e for e in refused), refused
    assert_one_run(out)


class _SameSecond:
    """runstore's clock, stuck in one second: every run wants the same folder name."""

    time = staticmethod(time.time)

    @staticmethod
    def strftime(fmt: str) -> str:
        return "20260101-120000"


def test_run_folders_claimed_in_the_same_second_are_distinct(tmp_path, monkeypatch):
    monkeypatch.setattr(runstore, "time", _SameSecond)
    folder = tmp_path / "material"
    with ThreadPoolExecutor(max_workers=32) as pool:
        dirs = list(pool.map(lambda _: new_run_dir(tmp_path / "runs", folder), range(64)))
    assert len(set(dirs)) == 64 and all(d.is_dir() for d in dirs)
    assert (tmp_path / "runs" / "20260101-120000-material-64") in dirs


def test_eight_run_agents_in_threads(material, tmp_path, isolated_home, monkeypatch):
    monkeypatch.setattr(runstore, "time", _SameSecond)

    def one(_: int) -> list:
        return list(run_agent(RunConfig(folder=material, offline=True, compile=False)))

    with ThreadPoolExecutor(max_workers=N) as pool:
        results = list(pool.map(one, range(N)))
    assert [r[-1].status for r in results] == ["degraded"] * N
    run_dirs = sorted((isolated_home / "runs").iterdir())
    assert len(run_dirs) == N
    for run_dir in run_dirs:
        assert_one_run(run_dir)


def test_a_run_store_refuses_a_folder_another_run_holds(material, tmp_path):
    run_dir = tmp_path / "run"
    assert not is_running(run_dir)
    first = RunStore(run_dir, material)
    try:
        assert is_running(run_dir)
        with pytest.raises(RunDirError, match="already holds a run|in use"):
            RunStore(run_dir, material)
        with pytest.raises(RunDirError, match="in use by another"):
            RunStore(run_dir, material, resume=True)  # resuming a run that is still going
    finally:
        first.close()
    assert not is_running(run_dir)
    RunStore(run_dir, material, resume=True).close()  # once it ended, it can be resumed
