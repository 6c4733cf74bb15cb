"""No leftovers: temp folders are <tmp>/labwright-<pid>-<kind>-XXXX, and a run's start
removes those whose process is gone (kill -9, power cut) — never a live run's."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

from canary import CANARY
from labwright.core.run.pipeline import run_agent
from labwright.core.rundir import store as runstore
from labwright.core.rundir.store import make_temp_dir, pid_alive, sweep_temp_dirs
from labwright.core.settings.config import RunConfig


@pytest.fixture
def tmp_root(tmp_path, monkeypatch) -> Path:
    """A private temp root in place of the system's (tempfile.gettempdir())."""
    root = tmp_path / "tmp"
    root.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(root))
    return root


def dead_pid() -> int:
    """The pid of a process that has ended."""
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    assert not pid_alive(child.pid)
    return child.pid


def leftover(root: Path, pid: int, kind: str = "figure") -> Path:
    path = root / f"labwright-{pid}-{kind}-abc123"
    (path / "out").mkdir(parents=True)
    (path / "out" / "fig.png").write_bytes(b"\x89PNG")
    return path


def test_make_temp_dir_names_the_owner_and_is_private(tmp_root):
    path = make_temp_dir("figure")
    assert path.parent == tmp_root
    assert path.name.startswith(f"labwright-{os.getpid()}-figure-")
    assert stat.S_IMODE(path.stat().st_mode) == 0o700
    assert make_temp_dir("odd kind/../x").name.startswith(f"labwright-{os.getpid()}-odd_kind_x-")


def test_sweep_removes_only_what_dead_processes_left(tmp_root, tmp_path):
    dead = leftover(tmp_root, dead_pid())
    mine = make_temp_dir("figure")
    with subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"]) as other:
        try:
            live = leftover(tmp_root, other.pid)
            # a symlink with a dead pid's name: removed as a link at most, its target never
            target = tmp_path / "outside"
            target.mkdir()
            (target / "keep.txt").write_text(CANARY)
            link = tmp_root / f"labwright-{dead_pid()}-figure-link"
            link.symlink_to(target, target_is_directory=True)
            unrelated = tmp_root / "labwright-notapid-figure-x"
            unrelated.mkdir()
            other_tool = tmp_root / "pytest-of-someone"
            other_tool.mkdir()
            cache = tmp_root / "labwright-mplcache-0-3.11.2"  # the sandbox's shared font cache
            cache.mkdir()

            removed = sweep_temp_dirs()

            assert removed == [dead] and not dead.exists()
            assert all(p.is_dir() for p in (mine, live, unrelated, other_tool, cache))
            assert (target / "keep.txt").read_text() == CANARY
        finally:
            other.kill()


def test_sweep_removes_old_legacy_figure_folders_only(tmp_root):
    old = tmp_root / "labwright-figure-old1"
    young = tmp_root / "labwright-figure-new1"
    for path in (old, young):
        path.mkdir()
    hours_ago = time.time() - 2 * 3600
    os.utime(old, (hours_ago, hours_ago))
    assert sweep_temp_dirs() == [old]
    assert young.is_dir() and not old.exists()


def test_a_run_sweeps_at_start(tmp_root, material, tmp_path):
    dead = leftover(tmp_root, dead_pid(), "latex")
    mine = make_temp_dir("figure")
    events = list(
        run_agent(RunConfig(folder=material, out_dir=tmp_path / "run", offline=True, compile=False))
    )
    assert events[-1].type == "done"
    assert not dead.exists() and mine.is_dir()


def test_the_sweep_never_raises(tmp_root, monkeypatch):
    leftover(tmp_root, dead_pid())

    def broken(*args, **kwargs):
        raise OSError(13, "Permission denied")

    monkeypatch.setattr(runstore.shutil, "rmtree", broken)
    assert sweep_temp_dirs() == []  # a folder it cannot remove is not reported, not raised
    monkeypatch.setattr(runstore.os, "scandir", broken)
    assert sweep_temp_dirs() == []
