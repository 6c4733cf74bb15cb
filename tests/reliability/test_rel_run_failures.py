"""Every failure ends a run honestly, whatever escapes a stage.

A stage that raises (OSError, ValueError, a plain bug, KeyboardInterrupt) must
leave: one `error` event naming the stage with a short message (no traceback,
no key), run.json "failed" with the reason internal_error (never "running"), the
traceback in the run's error.txt (without the key), and `labwright run` exiting
1 with one line instead of a traceback on the terminal. A KeyboardInterrupt is
a cancel: exit 130, run.json "cancelled".
"""

from __future__ import annotations

import json
import sys

import pytest

from agent_helpers import FINISH_ARGS, config_for, of_type, route
from canary import SECRET_KEY, leaks
from fakes import FakeLLM, call, tool_calls
from labwright.cli import main
from labwright.core.run import stages
from labwright.core.run.pipeline import ERROR_LOG, run_agent
from labwright.core.settings.config import RunConfig

EXPLORE = [
    tool_calls(call("read_file", {"path": "data/pendulum.csv"})),
    tool_calls(call("finish_exploration", FINISH_ARGS)),
]

# What a stage may throw: system errors, bad values, plain bugs, encoding trouble.
FAULTS = [
    pytest.param(lambda: OSError(28, "No space left on device"), id="OSError"),
    pytest.param(lambda: ValueError("could not convert string to float: 'abc'"), id="ValueError"),
    pytest.param(lambda: TypeError("'NoneType' object is not subscriptable"), id="bug"),
    pytest.param(
        lambda: UnicodeEncodeError("utf-8", "\udcff", 0, 1, "surrogates not allowed"),
        id="UnicodeEncodeError",
    ),
    pytest.param(lambda: RuntimeError(f"multi\nline {SECRET_KEY}\nmessage"), id="key-in-message"),
]


def raising(exc: BaseException, after_start: bool = True):
    """A stage that starts (its milestone is journaled) and then raises."""

    def stage(run):
        if after_start:
            yield run.milestone(run.plan[run.cursor], "start")
        raise exc

    return stage


def assert_failed_honestly(run_dir, stage: str, exc_name: str) -> None:
    meta = json.loads((run_dir / "run.json").read_text(encoding="utf-8"))
    assert meta["status"] == "failed"
    assert "internal_error" in meta["reasons"]
    assert meta["finished"] is not None
    events = [json.loads(x) for x in (run_dir / "events.jsonl").read_text().splitlines()]
    errors = [e for e in events if e["type"] == "error"]
    assert len(errors) == 1 and errors[0]["stage"] == stage
    message = errors[0]["message"]
    assert exc_name in message and "Traceback" not in message and "\n" not in message
    assert len(message) < 400
    done = [e for e in events if e["type"] == "done"]
    assert len(done) == 1 and done[0]["status"] == "failed" and events[-1] == done[0]
    log = (run_dir / ERROR_LOG).read_text(encoding="utf-8")
    assert "Traceback" in log and exc_name in log
    assert leaks([run_dir], [SECRET_KEY]) == []


@pytest.mark.parametrize("make", FAULTS)
@pytest.mark.parametrize("stage", ["draft", "gap", "bib"])
def test_cli_exits_1_with_one_line_and_the_run_says_failed(
    material, tmp_path, monkeypatch, capsys, guarded_folder, make, stage
):
    guarded_folder(material)
    exc = make()
    monkeypatch.setattr(stages.STAGES[stage], "run", raising(exc))
    out = tmp_path / "run"
    code = main(
        ["run", str(material), "--offline", "--no-compile", "--out", str(out)]
        + ["--api-key", SECRET_KEY]
    )
    assert code == 1
    err = capsys.readouterr().err
    assert "Traceback" not in err and SECRET_KEY not in err
    assert "labwright: the run failed: internal error in " + stage in err
    assert_failed_honestly(out, stage, type(exc).__name__)


@pytest.mark.parametrize("make", FAULTS)
def test_run_agent_ends_with_failed_done_when_a_model_stage_raises(
    material, tmp_path, guarded_folder, make
):
    guarded_folder(material)
    exc = make()
    with FakeLLM(route(EXPLORE)) as llm, pytest.MonkeyPatch.context() as mp:

        def explore(*args, **kwargs):
            yield from ()
            raise exc

        mp.setattr(stages, "explore", explore)
        config = config_for(llm, material, tmp_path / "run", api_key=SECRET_KEY)
        events = list(run_agent(config))
    assert [e.status for e in of_type(events, "done")] == ["failed"]
    assert_failed_honestly(tmp_path / "run", "explore", type(exc).__name__)


def test_an_exception_before_a_stage_starts_names_the_next_stage(material, tmp_path):
    out = tmp_path / "run"
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(
            stages.STAGES["figures"], "run", raising(OSError(5, "I/O error"), after_start=False)
        )
        events = list(
            run_agent(RunConfig(folder=material, out_dir=out, offline=True, compile=False))
        )
    assert events[-1].status == "failed"
    assert_failed_honestly(out, "figures", "OSError")


def test_keyboard_interrupt_in_a_stage_is_a_cancel(material, tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(stages.STAGES["draft"], "run", raising(KeyboardInterrupt()))
    out = tmp_path / "run"
    code = main(["run", str(material), "--offline", "--no-compile", "--out", str(out)])
    assert code == 130
    assert "Traceback" not in capsys.readouterr().err
    meta = json.loads((out / "run.json").read_text())
    assert meta["status"] == "cancelled" and "cancelled" in meta["reasons"]
    events = [json.loads(x) for x in (out / "events.jsonl").read_text().splitlines()]
    assert [e["status"] for e in events if e["type"] == "done"] == ["cancelled"]


def test_a_failed_run_resumes_without_its_failure_reason(material, tmp_path, monkeypatch):
    """The crash that ended the first attempt does not describe the resumed run."""
    out = tmp_path / "run"
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(stages.STAGES["bib"], "run", raising(OSError(28, "No space left on device")))
        assert main(["run", str(material), "--offline", "--no-compile", "--out", str(out)]) == 1
    assert main(["run", "--resume", str(out)]) == 10
    meta = json.loads((out / "run.json").read_text())
    assert meta["status"] == "degraded" and meta["reasons"] == ["offline"]


def test_a_crash_in_the_printer_ends_the_run_and_logs_the_traceback(
    material, tmp_path, monkeypatch, capsys, isolated_home
):
    """Our own code outside the run (the log printer) fails: one line, exit 1, the
    traceback in LABWRIGHT_HOME/logs, and the run directory not left "running"."""
    from labwright import cli

    original = cli.LogPrinter.format

    def broken(self, ev):
        if ev.type == "draft":
            raise ValueError("printer bug")
        return original(self, ev)

    monkeypatch.setattr(cli.LogPrinter, "format", broken)
    out = tmp_path / "run"
    code = main(["run", str(material), "--offline", "--no-compile", "--out", str(out)])
    assert code == 1
    err = capsys.readouterr().err
    assert "Traceback" not in err
    last = err.strip().splitlines()[-1]
    assert last.startswith("labwright: internal error: ValueError: printer bug; details in ")
    logs = list((isolated_home / "logs").glob("crash-*.txt"))
    assert len(logs) == 1 and "Traceback" in logs[0].read_text()
    assert json.loads((out / "run.json").read_text())["status"] == "cancelled"


def test_a_resume_that_cannot_reload_fails_honestly(material, tmp_path, capsys):
    """What a finished stage left is unreadable (a disk error, a hand edit): the
    resumed run fails with an error event and run.json "failed", not a traceback."""
    out = tmp_path / "run"
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(stages.STAGES["draft"], "run", raising(KeyboardInterrupt()))
        assert main(["run", str(material), "--offline", "--no-compile", "--out", str(out)]) == 130
    (out / "figures.json").write_text("[{broken", encoding="utf-8")
    capsys.readouterr()
    assert main(["run", "--resume", str(out)]) == 1
    err = capsys.readouterr().err
    # the message names the damaged file and what is wrong with it (core/rundir/files.py)
    assert "Traceback" not in err and "figures.json" in err and "is damaged" in err
    meta = json.loads((out / "run.json").read_text())
    assert meta["status"] == "failed" and "internal_error" in meta["reasons"]
    assert "figures.json" in meta["error"]


def test_a_reader_that_leaves_the_json_pipe_cancels_the_run(material, tmp_path):
    """`labwright run --json | head -1`: the run stops, marked cancelled, no traceback."""
    import subprocess

    from rel_run_proc import child_env

    out = tmp_path / "run"
    proc = subprocess.Popen(
        [sys.executable, "-m", "labwright.cli", "run", str(material)]
        + ["--offline", "--no-compile", "--json", "--out", str(out)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=child_env(),
    )
    assert proc.stdout is not None and proc.stderr is not None
    first = proc.stdout.readline()
    proc.stdout.close()  # the reader is gone
    code = proc.wait(60)
    err = proc.stderr.read()
    proc.stderr.close()
    assert json.loads(first)["stage"] == "scan"
    assert code == 130  # the next event after the scan found the pipe closed
    assert b"Traceback" not in err
    assert json.loads((out / "run.json").read_text())["status"] == "cancelled"
