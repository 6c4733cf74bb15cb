r"""A TeX run never outlives Labwright, and Labwright's own memory stays closed.

A real parent process compiles a document that loops forever (``\loop ...
\repeat``); once xelatex is running the parent is SIGKILLed, as a crash or
``kill -9`` would, and no latexmk, xelatex or supervisor of that document may
survive. A Cancel stops the same compile just as completely. The compiling
process ends up not dumpable, so its /proc/<pid>/environ (the API key) is not
readable by other processes of the user.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest

from labwright.core.report.latex import compile_tex, probe_engines

ENGINES = probe_engines()
LOOP = "\\documentclass{article}\n\\begin{document}\nx\\loop\\iftrue\\repeat\n\\end{document}\n"

PARENT = r"""
import sys
from pathlib import Path
from labwright.core.report.latex import compile_tex, probe_engines
compile_tex(Path(sys.argv[1]), engines=probe_engines(), timeout_s=600)
"""


def _wait_for(predicate, timeout: float) -> bool:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if predicate():
            return True
        time.sleep(0.1)
    return predicate()


def _loop_tex(tmp_path: Path) -> Path:
    run_dir = tmp_path / f"run-{uuid.uuid4().hex[:8]}"  # unique: found by command line
    run_dir.mkdir()
    tex = run_dir / "report.tex"
    tex.write_text(LOOP, encoding="utf-8")
    return tex


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="Linux process model")
def test_kill_9_of_labwright_leaves_no_tex_behind(tmp_path):
    import labwright

    tex = _loop_tex(tmp_path)
    env = {**os.environ, "PYTHONPATH": str(Path(labwright.__file__).resolve().parents[1])}
    parent = subprocess.Popen([sys.executable, "-c", PARENT, str(tex)], env=env, cwd=tex.parent)
    try:
        assert _wait_for(lambda: _xelatex_under(parent.pid), 60), "xelatex never started"
        tree = _descendants(parent.pid)
        assert tree, "no TeX processes under the parent"
        parent.send_signal(signal.SIGKILL)
        parent.wait(timeout=10)
        assert _wait_for(lambda: not _alive(tree), 10), {p: _cmd(p) for p in _alive(tree)}
    finally:
        if parent.poll() is None:
            parent.kill()
            parent.wait()


def _parents() -> dict[int, int]:
    """pid -> parent pid of every process (from /proc/<pid>/stat)."""
    out = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            out[int(stat.parent.name)] = int(stat.read_text().rsplit(")", 1)[1].split()[1])
        except (OSError, IndexError, ValueError):
            continue
    return out


def _descendants(pid: int) -> list[int]:
    parents = _parents()
    found, todo = [], [pid]
    while todo:
        here = todo.pop()
        for child in (p for p, pp in parents.items() if pp == here):
            found.append(child)
            todo.append(child)
    return found


def _cmd(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()[:120]
    except OSError:
        return ""


def _xelatex_under(pid: int) -> bool:
    """Whether latexmk has started the engine somewhere below `pid`."""
    return any(
        "xelatex" in cmd and "latexmk" not in cmd and "_texrun" not in cmd
        for cmd in map(_cmd, _descendants(pid))
    )


def _alive(pids: list[int]) -> list[int]:
    """Those of `pids` still running (a zombie waiting for its reaper is gone)."""
    alive = []
    for pid in pids:
        try:
            state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except (OSError, IndexError):
            continue
        if state != "Z":
            alive.append(pid)
    return alive


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="Linux process model")
def test_cancel_stops_every_tex_process(tmp_path):
    tex = _loop_tex(tmp_path)
    seen: list[int] = []

    def cancel() -> bool:
        if not seen and _xelatex_under(os.getpid()):
            seen.extend(_descendants(os.getpid()))
        return bool(seen)

    start = time.monotonic()
    result = compile_tex(tex, engines=ENGINES, cancel=cancel, timeout_s=120)

    assert not result.ok and "cancelled" in result.errors[0].message.lower()
    assert time.monotonic() - start < 60
    assert seen and _alive(seen) == [], {p: _cmd(p) for p in _alive(seen)}


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="prctl is Linux's")
def test_compiling_process_is_not_dumpable(tmp_path):
    import labwright

    code = (
        "import ctypes, sys\n"
        "from pathlib import Path\n"
        "from labwright.core.report.latex import compile_tex, probe_engines\n"
        "libc = ctypes.CDLL(None)\n"
        "before = libc.prctl(3, 0, 0, 0, 0)\n"  # PR_GET_DUMPABLE
        "compile_tex(Path(sys.argv[1]), engines=probe_engines())\n"
        "print(before, libc.prctl(3, 0, 0, 0, 0))\n"
    )
    tex = tmp_path / "ok.tex"
    tex.write_text("\\documentclass{article}\\begin{document}x\\end{document}\n", "utf-8")
    env = {**os.environ, "PYTHONPATH": str(Path(labwright.__file__).resolve().parents[1])}
    out = subprocess.run(
        [sys.executable, "-c", code, str(tex)], env=env, capture_output=True, text=True, timeout=300
    )
    assert out.stdout.split() == ["1", "0"], out.stderr


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="prctl is Linux's")
def test_cli_makes_labwright_not_dumpable_at_start(tmp_path):
    import labwright

    args = [str(tmp_path / "missing"), str(tmp_path / "dest")]  # any command: a missing run
    code = (
        "import ctypes, sys\n"
        "from labwright.cli import main\n"
        "main(['export', *sys.argv[1:]])\n"
        "print(ctypes.CDLL(None).prctl(3, 0, 0, 0, 0))\n"  # PR_GET_DUMPABLE
    )
    env = {**os.environ, "PYTHONPATH": str(Path(labwright.__file__).resolve().parents[1])}
    out = subprocess.run(
        [sys.executable, "-c", code, *args], env=env, capture_output=True, text=True, timeout=120
    )
    assert out.stdout.split() == ["0"], out.stderr
