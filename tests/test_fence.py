"""Opening beneath the picked folder in one step (labwright.core.material.fence).

`open_beneath` opens a plan (real names below the folder, links already
resolved by resolve_in_folder) following no link at all, by openat2 or by the
O_NOFOLLOW walk; `workspace.open_in_folder` plans and opens, and plans again
when a link appears in between. Both ways are checked alike.
"""

from __future__ import annotations

import errno
import os
import socket
import threading
from pathlib import Path

import pytest

from canary import CANARY
from labwright.core import beneath
from labwright.core.material import fence, workspace
from labwright.core.material.fence import NotRegularFile, open_beneath, open_by_name
from labwright.core.material.workspace import PathDenied, open_in_folder, resolve_in_folder

pytestmark = pytest.mark.skipif(os.name == "nt", reason="POSIX descriptors and links")


@pytest.fixture(params=["openat2", "walk"])
def way(request, monkeypatch) -> str:
    if request.param == "walk":
        monkeypatch.setenv(fence.WALK_SWITCH, "1")
    else:
        monkeypatch.delenv(fence.WALK_SWITCH, raising=False)
        if not fence.openat2_available():
            pytest.skip("this kernel has no openat2 (Linux < 5.6)")
    assert fence.way() == request.param
    return request.param


@pytest.fixture
def tree(tmp_path) -> Path:
    """root/ with a folder, a file, links inside; outside/ with the canary."""
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "x.txt").write_text(f"{CANARY}\n", encoding="utf-8")
    root = tmp_path / "root"
    (root / "sub").mkdir(parents=True)
    (root / "sub" / "x.txt").write_text("inside\n", encoding="utf-8")
    os.symlink("sub", root / "in-link")  # a folder link inside
    os.symlink("sub/x.txt", root / "file-link")
    os.symlink(outside, root / "out-link")
    return root


def test_openat2_is_used_where_the_kernel_has_it_and_the_switch_forces_the_walk(monkeypatch):
    if not fence.openat2_available():
        pytest.skip("this kernel has no openat2 (Linux < 5.6)")
    monkeypatch.delenv(fence.WALK_SWITCH, raising=False)
    assert fence.way() == "openat2"
    monkeypatch.setenv(fence.WALK_SWITCH, "1")
    assert fence.way() == "walk"


def test_an_architecture_without_the_shared_syscall_table_walks(monkeypatch):
    monkeypatch.setattr(beneath.platform, "machine", lambda: "alpha")
    assert beneath._probe() is False


def test_a_plan_opens_files_and_folders_and_reads_through_the_descriptor(tree, way):
    real = os.path.realpath(tree)
    with open_beneath(real, ["sub", "x.txt"]) as f:
        assert not f.is_dir and f.size == len("inside\n")
        assert f.read_bytes() == b"inside\n"
        a, b = f.stream(), f.stream()
        assert a.read(3) == b"ins" and b.read(2) == b"in"  # each stream has its own position
        assert a.read() == b"ide\n" and f.pread(3, 3) == b"ide"
    with open_beneath(real, ["sub"]) as d:
        assert d.is_dir and [e.name for e in d.scandir()] == ["x.txt"]
    with open_beneath(real, []) as top:
        assert top.is_dir and "sub" in {e.name for e in top.scandir()}


@pytest.mark.parametrize("parts", [["in-link", "x.txt"], ["file-link"], ["out-link", "x.txt"]])
def test_no_link_is_followed_in_a_plan_not_even_one_that_stays_inside(tree, way, parts):
    # A plan has its links resolved already: a link met now appeared after the check.
    with pytest.raises(OSError) as info:
        open_beneath(os.path.realpath(tree), parts)
    assert info.value.errno in (errno.ELOOP, errno.ENOTDIR)
    assert str(tree) not in str(info.value)  # messages name the plan, not absolute paths


@pytest.mark.parametrize("bad", [[".."], ["sub", ".."], ["sub/x.txt"], [""]])
def test_a_plan_holds_names_only(tree, bad):
    with pytest.raises(ValueError):
        open_beneath(os.path.realpath(tree), bad)


def test_links_inside_the_folder_still_work_through_the_fence(tree, way):
    with open_in_folder(tree, "in-link/x.txt") as f:
        assert f.read_bytes() == b"inside\n"
        assert f.path == Path(os.path.realpath(tree)) / "sub" / "x.txt"
    with open_in_folder(tree, "file-link") as f:
        assert f.read_bytes() == b"inside\n"
    with pytest.raises(PathDenied):
        open_in_folder(tree, "out-link/x.txt")


def test_a_swap_between_the_check_and_the_open_is_refused_never_followed(tree, way, monkeypatch):
    """Deterministic: `sub` becomes a link outside exactly after the plan was made."""
    os.symlink(tree.parent / "outside", tree / ".swap")
    real_open = fence.open_beneath
    calls = []

    def swap_then_open(root_real, parts):
        if not calls:
            os.rename(tree / "sub", tree / ".sub-real")
            os.rename(tree / ".swap", tree / "sub")
        calls.append(parts)
        return real_open(root_real, parts)

    monkeypatch.setattr(fence, "open_beneath", swap_then_open)
    with pytest.raises(PathDenied):  # planned again: now the plan itself leaves the folder
        open_in_folder(tree, "sub/x.txt")
    assert calls == [["sub", "x.txt"]]


def test_positive_control_the_same_swap_against_check_then_open_by_name(tree):
    """What the fence replaces: check, then open by name, reads the outside canary."""
    os.symlink(tree.parent / "outside", tree / ".swap")
    checked = resolve_in_folder(tree, "sub/x.txt")
    os.rename(tree / "sub", tree / ".sub-real")
    os.rename(tree / ".swap", tree / "sub")
    assert CANARY in checked.read_text(encoding="utf-8")


def test_a_folder_that_keeps_changing_is_an_error(tree, way, monkeypatch):
    def always_a_new_link(root_real, parts):
        always_a_new_link.n += 1
        raise OSError(errno.ELOOP, "Too many levels of symbolic links", f"x{always_a_new_link.n}")

    always_a_new_link.n = 0
    monkeypatch.setattr(fence, "open_beneath", always_a_new_link)
    monkeypatch.setattr(workspace, "_plan", lambda root, rel: ("/r", [f"p{always_a_new_link.n}"]))
    with pytest.raises(fence.PathChanged):
        open_in_folder(tree, "sub/x.txt")
    assert always_a_new_link.n == workspace._OPEN_TRIES


def test_a_link_loop_is_reported_as_one_not_as_a_change(tree, way):
    os.symlink("loop-b", tree / "loop-a")
    os.symlink("loop-a", tree / "loop-b")
    with pytest.raises(OSError) as info:
        open_in_folder(tree, "loop-a")
    assert info.value.errno == errno.ELOOP and not isinstance(info.value, fence.PathChanged)


def _within(seconds: float, fn):
    box: list = []
    worker = threading.Thread(target=lambda: box.append(_outcome(fn)), daemon=True)
    worker.start()
    worker.join(seconds)
    assert box, "blocked"
    return box[0]


def _outcome(fn):
    try:
        return fn()
    except Exception as e:
        return e


def test_special_files_are_refused_at_once(tree, way):
    os.mkfifo(tree / "sub" / "pipe")
    sock = socket.socket(socket.AF_UNIX)
    sock.bind(str(tree / "sub" / "sock"))
    try:
        real = os.path.realpath(tree)
        for name in ("pipe", "sock"):
            got = _within(10, lambda n=name: open_beneath(real, ["sub", n]))
            assert isinstance(got, NotRegularFile), (name, got)
            got = _within(10, lambda n=name: open_in_folder(tree, f"sub/{n}"))
            assert isinstance(got, NotRegularFile), (name, got)
        assert isinstance(_within(10, lambda: open_by_name("/dev/null")), NotRegularFile)
    finally:
        sock.close()


def test_a_closed_opened_file_reads_nothing_more(tree, way):
    f = open_beneath(os.path.realpath(tree), ["sub", "x.txt"])
    f.close()
    f.close()  # twice is fine
    with pytest.raises(OSError):
        f.pread(1, 0)
