"""`labwright run` as a real process, for the run-lifecycle scenarios (test_rel_run_*).

The child imports the same labwright as the tests (this worktree or the installed
one), inherits the isolated LABWRIGHT_HOME, and writes its output to files, so a
killed child never blocks on a full pipe.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import labwright
from agent_helpers import FINISH_ARGS, MINIMAL_REPORT, writer_turn
from canary import SECRET_KEY
from fakes import call, delay, text, tool_calls

SOURCE = str(Path(labwright.__file__).resolve().parents[1])


def child_env(**extra: str) -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (SOURCE, env.get("PYTHONPATH")) if p)
    env["LABWRIGHT_API_KEY"] = SECRET_KEY
    env.pop("LABWRIGHT_BASE_URL", None)
    env.update(extra)
    return env


class Labwright:
    """One `labwright ARGS...` child process; output in <logs>/<name>.out/.err."""

    def __init__(self, args: list[str | os.PathLike[str]], logs: Path, name: str) -> None:
        logs.mkdir(parents=True, exist_ok=True)
        self.out_path, self.err_path = logs / f"{name}.out", logs / f"{name}.err"
        with open(self.out_path, "wb") as out, open(self.err_path, "wb") as err:
            self.proc = subprocess.Popen(
                [sys.executable, "-m", "labwright.cli", *map(os.fsdecode, args)],
                stdout=out,
                stderr=err,
                env=child_env(),
                start_new_session=True,  # its own group: SIGINT and cleanup reach only it
            )

    @property
    def pid(self) -> int:
        return self.proc.pid

    def wait(self, timeout: float = 90) -> int:
        return self.proc.wait(timeout)

    def kill9(self) -> None:
        """SIGKILL the labwright process itself, as `kill -9 PID` would."""
        os.kill(self.proc.pid, signal.SIGKILL)
        self.proc.wait(10)

    def reap_group(self) -> None:
        """Test hygiene after a kill: end what the child started (latexmk, ...)."""
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.proc.pid, signal.SIGKILL)

    @property
    def stderr(self) -> bytes:
        return self.err_path.read_bytes()

    @property
    def stdout(self) -> bytes:
        return self.out_path.read_bytes()


def run_cli(args: list[Any], logs: Path, name: str, timeout: float = 90) -> tuple[int, bytes]:
    child = Labwright(args, logs, name)
    try:
        code = child.wait(timeout)
    finally:
        child.reap_group()
    return code, child.stderr


def journal(run_dir: Path) -> list[dict[str, Any]]:
    out = []
    path = run_dir / "events.jsonl"
    if not path.exists():
        return out
    for line in path.read_text(encoding="utf-8").splitlines():
        with contextlib.suppress(json.JSONDecodeError):  # a line torn by the kill
            out.append(json.loads(line))
    return out


def meta(run_dir: Path) -> dict[str, Any]:
    return json.loads((run_dir / "run.json").read_text(encoding="utf-8"))


def wait_for(predicate: Callable[[], bool], timeout: float = 60, what: str = "") -> None:
    """Poll until predicate() (a bound on a hang, not a performance check)."""
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what or predicate}")
        time.sleep(0.01)


def total_calls(m: dict[str, Any]) -> int:
    return sum(u["calls"] for u in m["usage"].values())


FILES = ["data/pendulum.csv", "manual.txt", "data/log.txt"]


class Model:
    """Explore: read the three files, then finish (or never finish: a cut exploration).
    Write: a draft, critiques that always find something, revisions that always change.
    The first request `kill_when` picks is held open `hold` seconds, so the test
    can kill or interrupt the client meanwhile."""

    def __init__(
        self, kill_when=lambda kind, k: False, *, finish: bool = True, hold: float = 25
    ) -> None:
        self.kill_when = kill_when
        self.hold = hold
        self.finish = finish
        self.reached = threading.Event()
        self.counts: dict[str, int] = {}
        self._lock = threading.Lock()

    def answer(self, body: dict) -> tuple[str, object]:
        if body["model"] != "fake-write":
            turn = sum(1 for m in body["messages"] if m.get("role") == "assistant")
            if turn < len(FILES):
                return "explore", tool_calls(call("read_file", {"path": FILES[turn]}))
            if self.finish:
                return "explore", tool_calls(call("finish_exploration", FINISH_ARGS))
            return "explore", tool_calls(call("list_dir", {"path": "data"}))
        last = json.dumps(body["messages"][-1].get("content", ""))
        if "Review this lab report" in last:
            return "critique", text("1. The discussion is missing.")
        if "Revise the report" in last:
            n = self.counts.get("revise", 0) + 1
            extra = " ".join(["The period grows with the length."] * n)
            return "revise", text(MINIMAL_REPORT.replace("was read.", f"was read. {extra}"))
        return "write", writer_turn(body)

    def __call__(self, body: dict, n: int):
        kind, turn = self.answer(body)
        with self._lock:
            k = self.counts[kind] = self.counts.get(kind, 0) + 1
            if not self.reached.is_set() and self.kill_when(kind, k):
                self.reached.set()
                return delay(self.hold, turn)  # the client is killed or cancelled meanwhile
        return turn
