"""One bad entry never hides a folder: link loops, dangling links, links outside, unreadable parts.

Tests run as root, where chmod does not deny reads, so "unreadable" is
simulated by making the OS calls for one path raise PermissionError.
"""

from __future__ import annotations

import errno
import json
import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from labwright.core.agent.tools import ToolContext
from labwright.core.agent.tools.list_dir import ListDir
from labwright.core.agent.tools.read_file import ReadFile
from labwright.core.material.workspace import scan_folder

pytestmark = pytest.mark.skipif(os.name == "nt", reason="symlinks need privileges on Windows")


@pytest.fixture
def messy(tmp_path, guarded_folder, outside_canary) -> Path:
    root = tmp_path / "material"
    (root / "sub").mkdir(parents=True)
    (root / "locked").mkdir()
    (root / "good.csv").write_text("t,x\n1,2\n", encoding="utf-8")
    (root / "sub" / "inner.txt").write_text("inner notes\n", encoding="utf-8")
    (root / "locked" / "hidden-by-lock.csv").write_text("1\n", encoding="utf-8")
    (root / "zz-stat-fails.csv").write_text("1\n", encoding="utf-8")
    os.symlink("b", root / "a")  # a -> b -> a
    os.symlink("a", root / "b")
    os.symlink("nowhere.csv", root / "dangling.csv")
    os.symlink(outside_canary, root / "outside.txt")
    os.symlink(outside_canary.parent, root / "outside-dir")
    return guarded_folder(root)


class _FailingEntry:
    """A DirEntry whose every look at the file fails, as a permission error would."""

    def __init__(self, entry: os.DirEntry[str]) -> None:
        self._entry = entry
        self.name = entry.name
        self.path = entry.path

    def _fail(self, *a, **k):
        raise PermissionError(errno.EACCES, "Permission denied", self.path)

    is_dir = is_file = is_symlink = stat = _fail


@pytest.fixture
def locked(messy, monkeypatch) -> Iterator[Path]:
    """'locked' cannot be listed and 'zz-stat-fails.csv' cannot be looked at."""
    real_scandir, real_open = os.scandir, os.open
    locked_dir = os.path.realpath(messy / "locked")
    locked_id = (os.stat(locked_dir).st_dev, os.stat(locked_dir).st_ino)

    def is_locked(arg) -> bool:
        # Folders are listed through descriptors opened beneath the root (never by
        # path): recognise the locked one by its inode, whichever way it is listed.
        st = os.fstat(arg) if isinstance(arg, int) else os.stat(arg)
        return (st.st_dev, st.st_ino) == locked_id

    class _Listing:
        def __init__(self, it):
            self._it = it

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            self._it.close()

        def __iter__(self):
            for entry in self._it:
                yield _FailingEntry(entry) if entry.name == "zz-stat-fails.csv" else entry

    def scandir(path="."):
        if is_locked(path):
            raise PermissionError(errno.EACCES, "Permission denied", str(path))
        return _Listing(real_scandir(path))

    def open_(path, flags, *a, **k):  # the scan lists folders through a descriptor
        if isinstance(path, (str, os.PathLike)) and os.path.realpath(path) == locked_dir:
            raise PermissionError(errno.EACCES, "Permission denied", str(path))
        return real_open(path, flags, *a, **k)

    # Undone when this fixture ends, before the folder's hashes are checked again.
    with monkeypatch.context() as m:
        m.setattr(os, "scandir", scandir)
        m.setattr(os, "open", open_)
        yield messy


def test_list_dir_lists_every_good_entry_and_says_what_is_wrong(locked, tmp_path, outside_canary):
    out = ListDir().run({"path": "."}, ToolContext(locked, tmp_path / "run"))
    assert out.ok, out.content
    lines = dict((line.split("\t", 1) + [""])[:2] for line in out.content.splitlines()[1:] if line)
    assert lines["good.csv"].startswith("data\t")
    assert "sub/" in lines and "locked/" in lines
    assert lines["a"] == "symlink loop, skipped"
    assert lines["b"] == "symlink loop, skipped"
    assert lines["dangling.csv"] == "broken symlink, skipped"
    assert lines["outside.txt"] == "symlink outside the folder, skipped"
    assert lines["outside-dir"] == "symlink outside the folder, skipped"
    assert lines["zz-stat-fails.csv"] == "unreadable: permission denied"
    assert "(9 entries)" in out.content.splitlines()[0]
    assert outside_canary.read_text().strip() not in out.content


def test_list_dir_of_the_unreadable_folder_is_a_clear_error(locked, tmp_path):
    out = ListDir().run({"path": "locked"}, ToolContext(locked, tmp_path / "run"))
    assert not out.ok and "Cannot list 'locked'" in out.content


def test_scan_counts_the_good_and_reports_each_bad_one(locked):
    result = scan_folder(locked)
    assert sorted(result.sample["data"]) == ["good.csv", "sub/inner.txt"]
    assert result.files == 2
    reasons = {s["path"]: s["reason"] for s in result.skipped}
    assert reasons == {
        "a": "symlink loop, skipped",
        "b": "symlink loop, skipped",
        "dangling.csv": "broken symlink, skipped",
        "locked": "unreadable: permission denied",
        "outside-dir": "symlink outside the folder, skipped",
        "outside.txt": "symlink outside the folder, skipped",
        "zz-stat-fails.csv": "unreadable: permission denied",
    }
    json.dumps(result.to_dict(), ensure_ascii=False).encode("utf-8")


@pytest.mark.parametrize("name", ["a", "dangling.csv", "outside.txt", "locked"])
def test_read_file_on_a_bad_entry_is_a_refusal_not_a_crash(messy, tmp_path, name, outside_canary):
    ctx = ToolContext(messy, tmp_path / "run")
    try:
        out = ReadFile().run({"path": name}, ctx)
    except Exception as e:  # the fence's refusal is the only exception allowed
        from labwright.core.agent.tools.base import Refused

        assert isinstance(e, Refused), repr(e)
        out = e.outcome
    assert not out.ok and out.evidence is None
    assert outside_canary.read_text().strip() not in out.content
