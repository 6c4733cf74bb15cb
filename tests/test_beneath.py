"""core/beneath.py alone: the one way Labwright opens beneath a folder without following a link.

The three fences (material, rundir, child_files) have their own tests; this one
checks the mechanism under them in both of its modes, by descriptor (*at() calls)
and by checked paths (what Windows takes, forced here with by_fd=False), and both
ways of opening a whole path (openat2, the walk). The effect checked is the
outside canary: never read, never written, whatever stands in the folder.
"""

from __future__ import annotations

import os
import socket
import threading
from pathlib import Path

import pytest

from canary import CANARY, snapshot
from labwright.core import beneath
from labwright.core.agent.sandbox import child_files
from labwright.core.beneath import Folder, LinkMet, NotRegularFile

pytestmark = pytest.mark.skipif(os.name == "nt", reason="POSIX links, FIFOs and sockets")


@pytest.fixture(params=["at-calls", "path-checks"])
def by_fd(request) -> bool:
    if request.param == "at-calls" and not beneath.AT_CALLS:
        pytest.skip("this OS has no *at() calls")
    return request.param == "at-calls"


@pytest.fixture
def tree(tmp_path, outside_canary) -> Path:
    """root/ with a file, a folder, links out, a FIFO and a socket; the canary outside."""
    root = tmp_path / "root"
    (root / "sub").mkdir(parents=True)
    (root / "sub" / "x.txt").write_text("inside\n", encoding="utf-8")
    (root / "link").symlink_to(outside_canary)
    (root / "dir-link").symlink_to(outside_canary.parent, target_is_directory=True)
    os.mkfifo(root / "pipe")
    return root


def _bounded(fn, seconds: float = 10.0):
    """fn()'s result or the exception it raised; fails if it is still blocked."""
    box: list = []

    def run() -> None:
        try:
            box.append(fn())
        except Exception as e:
            box.append(e)

    worker = threading.Thread(target=run, daemon=True)
    worker.start()
    worker.join(seconds)
    assert box, "blocked"
    return box[0]


def test_what_is_not_a_plain_file_is_refused_by_what_it_is(tree, by_fd):
    sock = socket.socket(socket.AF_UNIX)
    short = os.path.relpath(tree / "sock")
    sock.bind(short if len(short) < 100 else str(tree / "sock"))
    try:
        with Folder.open_root(tree, by_fd=by_fd) as root:
            for name, error, kind in [
                ("link", LinkMet, "a link"),
                ("dir-link", LinkMet, "a link"),
                ("pipe", NotRegularFile, "a FIFO"),
                ("sock", NotRegularFile, "a socket"),
            ]:
                got = _bounded(lambda n=name: root.open(n))
                assert isinstance(got, error) and (got.rel, got.kind) == (name, kind), got
            got = _bounded(lambda: root.walk(["dir-link"]))
            assert isinstance(got, LinkMet) and got.rel == "dir-link"
            with root.walk(["sub"]) as sub, os.fdopen(sub.open("x.txt"), "rb") as f:
                assert f.read() == b"inside\n"
            names = {name: beneath.kind_of(st) for name, st in root.entries()}
        assert names == {
            "sub": "a folder",
            "link": "a link",
            "dir-link": "a link",
            "pipe": "a FIFO",
            "sock": "a socket",
        }
    finally:
        sock.close()


def test_positive_control_a_plain_open_does_read_the_canary(tree):
    assert CANARY in (tree / "link").read_text(encoding="utf-8")
    assert CANARY in (tree / "dir-link" / "secret.txt").read_text(encoding="utf-8")


def test_the_child_files_policy_refuses_the_same_in_both_modes(tree, by_fd):
    with Folder.open_root(tree, by_fd=by_fd) as root:
        for name, said in [("link", "is a link"), ("pipe", "is a FIFO"), ("sub", "is a folder")]:
            got = _bounded(lambda n=name: child_files.open_regular(n, folder=root))
            assert isinstance(got, child_files.ChildFileError) and said in str(got), got
    with pytest.raises(child_files.ChildFileError, match="dir-link/ is a link, not a folder"):
        child_files.open_dir(tree / "dir-link")


def test_a_folder_swapped_for_a_link_after_the_walk_is_never_read_through(tree, by_fd):
    """By descriptor the walk holds the real folder; by path the folder is checked again
    after the open, and a link (or another folder) in its place is refused."""
    (tree / "dir-link" / "x.txt").write_text(CANARY, encoding="utf-8")  # outside
    with Folder.open_root(tree, by_fd=by_fd) as root, root.walk(["sub"]) as sub:
        os.rename(tree / "sub", tree / "sub-real")
        os.rename(tree / "dir-link", tree / "sub")
        try:
            fd = sub.open("x.txt")
        except LinkMet as e:
            assert not by_fd and e.rel == "sub"
        else:
            assert by_fd
            with os.fdopen(fd, "rb") as f:
                assert f.read() == b"inside\n"
        # Swapped back for another real folder: by path, its identity tells it apart.
        os.rename(tree / "sub", tree / "dir-link")
        (tree / "sub").mkdir()
        (tree / "sub" / "x.txt").write_text(CANARY, encoding="utf-8")
        if by_fd:
            with os.fdopen(sub.open("x.txt"), "rb") as f:
                assert f.read() == b"inside\n"
        else:
            with pytest.raises(LinkMet):
                sub.open("x.txt")


@pytest.mark.parametrize("way", ["openat2", "walk"])
def test_a_whole_path_is_opened_with_no_link_followed_either_way(tree, way, monkeypatch):
    if way == "walk":
        monkeypatch.setenv(beneath.WALK_SWITCH, "1")
    else:
        monkeypatch.delenv(beneath.WALK_SWITCH, raising=False)
        if not beneath.openat2_available():
            pytest.skip("this kernel has no openat2 (Linux < 5.6)")
    assert beneath.way() == way
    (tree / "sub" / "in-link").symlink_to("x.txt")  # even a link that stays inside
    with Folder.open_root(tree) as root:
        with os.fdopen(beneath.open_in(root, ["sub", "x.txt"]), "rb") as f:
            assert f.read() == b"inside\n"
        for parts in (["dir-link", "secret.txt"], ["link"], ["sub", "in-link"]):
            with pytest.raises(LinkMet):
                beneath.open_in(root, parts)
        assert isinstance(_bounded(lambda: beneath.open_in(root, ["pipe"])), NotRegularFile)
        os.close(beneath.open_in(root, []))  # the folder itself, readable
        with pytest.raises(ValueError):
            beneath.open_in(root, ["sub", ".."])


def test_an_atomic_write_replaces_a_link_and_a_walk_makes_no_folder_through_one(
    tree, by_fd, outside_canary
):
    before = snapshot(outside_canary.parent)
    with Folder.open_root(tree, by_fd=by_fd) as root:
        with root.atomic_writer("link") as f:
            f.write(b"new")
        with pytest.raises(LinkMet):
            root.walk(["dir-link", "made"], create=True)
        with root.walk(["a", "b"], create=True) as made, made.atomic_writer("c") as f:
            f.write(b"c")
    assert not (tree / "link").is_symlink() and (tree / "link").read_bytes() == b"new"
    assert (tree / "a" / "b" / "c").read_bytes() == b"c"
    assert snapshot(outside_canary.parent) == before


def test_capped_reads_keep_the_whole_the_head_or_the_tail(tmp_path):
    path = tmp_path / "big.log"
    path.write_bytes(b"a" * 5000 + b"THE END")
    fd = os.open(path, os.O_RDONLY)
    try:
        with pytest.raises(beneath.TooLarge, match="larger than 4096 bytes"):
            beneath.read_capped(fd, 4096)
        assert beneath.read_capped(fd, 4096, keep="tail") == path.read_bytes()[-4096:]
        os.lseek(fd, 0, os.SEEK_SET)
        assert beneath.read_capped(fd, 4096, keep="head") == b"a" * 4096
        os.lseek(fd, 0, os.SEEK_SET)
        assert beneath.read_capped(fd, 1 << 20) == path.read_bytes()
    finally:
        os.close(fd)


def test_each_layer_of_the_last_open_holds_by_itself(tree, by_fd, monkeypatch):
    """A link or FIFO swapped in after the lstat (simulated: lstat sees a plain file) is
    still refused by O_NOFOLLOW and the fstat; and what the lstat does see as special
    is never opened at all (a device's open can have effects)."""
    opened: list[str] = []
    real_open = os.open
    monkeypatch.setattr(
        beneath.os, "open", lambda p, *a, **k: opened.append(str(p)) or real_open(p, *a, **k)
    )
    with Folder.open_root(tree, by_fd=by_fd) as root:
        for name in ("pipe", "link"):
            with pytest.raises((NotRegularFile, LinkMet)):
                root.open(name)
        assert not [p for p in opened if p.endswith(("pipe", "link"))]
        plain = os.stat(tree / "sub" / "x.txt")
        monkeypatch.setattr(Folder, "lstat", lambda self, name: plain)
        assert isinstance(_bounded(lambda: root.open("link")), LinkMet)
        assert isinstance(_bounded(lambda: root.open("pipe")), NotRegularFile)
