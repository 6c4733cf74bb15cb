"""core/atomic.py: the one atomic-write helper, and that every file write goes through it."""

from __future__ import annotations

import ast
import json
import os
import stat
from pathlib import Path

import pytest

from labwright.core import atomic
from labwright.core.atomic import (
    atomic_write_bytes,
    atomic_write_json,
    atomic_write_text,
    atomic_writer,
)
from labwright.core.rundir import store as runstore

PACKAGE = Path(__file__).resolve().parents[1] / "desktop" / "labwright"


def leftovers(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name.endswith(".tmp"))


def test_writes_replace_the_file_and_leave_no_temp_file(tmp_path):
    path = tmp_path / "sub" / "run.json"  # the folder is created
    atomic_write_json(path, {"a": "ü", "bad": "x\udcff"})
    assert json.loads(path.read_text(encoding="utf-8")) == {"a": "ü", "bad": "x\udcff"}
    atomic_write_text(path, "second\n")
    assert path.read_bytes() == b"second\n"
    atomic_write_bytes(path, b"\x00third")
    assert path.read_bytes() == b"\x00third"
    assert leftovers(path.parent) == []
    if os.name == "posix":  # run files are private to the user
        assert stat.S_IMODE(path.stat().st_mode) == 0o600


def test_the_run_store_names_are_the_same_helper():
    assert runstore.atomic_write_bytes is atomic_write_bytes
    assert runstore.atomic_write_text is atomic_write_text
    assert runstore.atomic_write_json is atomic_write_json
    assert runstore.atomic_writer is atomic_writer


def test_an_exception_mid_write_leaves_the_old_file_intact(tmp_path):
    path = tmp_path / "report.tex"
    path.write_bytes(b"old content\n")
    with pytest.raises(RuntimeError, match="stopped"), atomic_writer(path) as f:
        f.write(b"half of the new")
        f.flush()
        # Until the block ends, a reader still sees the old file.
        assert path.read_bytes() == b"old content\n"
        raise RuntimeError("stopped")
    assert path.read_bytes() == b"old content\n"
    assert leftovers(tmp_path) == []


def test_an_interrupt_mid_write_leaves_the_old_file_intact(tmp_path, monkeypatch):
    """KeyboardInterrupt (a BaseException) while the data is written, e.g. Ctrl-C."""
    path = tmp_path / "findings.json"
    atomic_write_json(path, {"version": 1})
    before = path.read_bytes()

    def interrupted(fd: int) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(atomic.os, "fsync", interrupted)
    with pytest.raises(KeyboardInterrupt):
        atomic_write_json(path, {"version": 2, "big": "x" * 100_000})
    assert path.read_bytes() == before
    assert leftovers(tmp_path) == []


def test_a_failed_rename_leaves_the_old_file_intact(tmp_path, monkeypatch):
    path = tmp_path / "report.pdf"
    path.write_bytes(b"%PDF- good")

    def disk_full(src: object, dst: object) -> None:
        raise OSError("disk full")

    monkeypatch.setattr(os, "replace", disk_full)
    with pytest.raises(OSError, match="disk full"):
        atomic_write_bytes(path, b"%PDF- new")
    assert path.read_bytes() == b"%PDF- good"
    assert leftovers(tmp_path) == []


def test_a_temp_file_name_taken_by_someone_else_is_not_used(tmp_path, monkeypatch):
    """O_EXCL: an existing file (or link) at the temp name is never opened or followed."""
    path = tmp_path / "out.txt"
    victim = tmp_path / "victim.txt"
    victim.write_text("keep", encoding="utf-8")
    tokens = iter(["taken", "taken", "free"])
    monkeypatch.setattr(atomic.secrets, "token_hex", lambda n: next(tokens))
    (tmp_path / ".out.txt.taken.tmp").symlink_to(victim)
    atomic_write_text(path, "new")
    assert path.read_text(encoding="utf-8") == "new"
    assert victim.read_text(encoding="utf-8") == "keep"


def test_mode_is_applied_before_the_umask(tmp_path):
    path = tmp_path / "figure.png"
    atomic_write_bytes(path, b"\x89PNG", mode=0o666)
    if os.name == "posix":
        umask = os.umask(0)
        os.umask(umask)
        assert stat.S_IMODE(path.stat().st_mode) == 0o666 & ~umask


# -- one helper: nothing else in the package renames temp files over real ones ------------

# The renames that are not file writes: publishing a finished export folder, and
# moving a damaged settings file aside.
ALLOWED = {
    ("core/atomic.py", "atomic_writer"),
    ("core/report/export.py", "_write_folder"),
    ("core/settings/saved.py", "_move_aside"),
}
RISKY = {"replace", "rename", "mkstemp", "NamedTemporaryFile"}


def _risky_calls(tree: ast.AST) -> list[tuple[str, str]]:
    found: list[tuple[str, str]] = []

    def visit(node: ast.AST, func: str) -> None:
        for child in ast.iter_child_nodes(node):
            name = func
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                name = child.name
            if (
                isinstance(child, ast.Call)
                and isinstance(child.func, ast.Attribute)
                and child.func.attr in RISKY
                and isinstance(child.func.value, ast.Name)
                and child.func.value.id in ("os", "tempfile")
            ):
                found.append((func, f"{child.func.value.id}.{child.func.attr}"))
            visit(child, name)

    visit(tree, "<module>")
    return found


def test_every_atomic_write_goes_through_the_one_helper():
    offenders = []
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(PACKAGE).as_posix()
        for func, call in _risky_calls(ast.parse(path.read_text(encoding="utf-8"))):
            if (rel, func) not in ALLOWED:
                offenders.append(f"{rel}:{func} calls {call}")
    assert offenders == [], "use labwright.core.atomic instead:\n" + "\n".join(offenders)


def test_the_scan_finds_a_hand_made_atomic_write():
    tree = ast.parse(
        "import os, tempfile\n"
        "def save(p, data):\n"
        "    fd, tmp = tempfile.mkstemp()\n"
        "    os.replace(tmp, p)\n"
    )
    assert _risky_calls(tree) == [("save", "tempfile.mkstemp"), ("save", "os.replace")]
