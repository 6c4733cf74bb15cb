"""core/rundir/fence.py: a run folder is walked and opened without following anything.

The walk (check_run_dir) refuses a folder holding a link, a FIFO or a socket and
names it; the opens hold on their own, for a link that appears after the walk
(another program, a race): each is tried with the walk skipped, on the *at() path
and on the path-checking one Windows takes (forced here with AT_CALLS off). The
effect checked is always the outside folder: hashed before and after, the canary
never read. The race tests swap a folder or a file for a link while the opens run.
"""

from __future__ import annotations

import ctypes
import os
import shutil
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from canary import CANARY, snapshot
from labwright.core.rundir import fence
from labwright.core.rundir.fence import RunLinkError
from labwright.core.rundir.store import RunDirError, RunStore


@pytest.fixture(params=["at-calls", "path-checks"])
def mode(request, monkeypatch) -> str:
    if request.param == "path-checks":
        monkeypatch.setattr(fence, "AT_CALLS", False)
    elif not fence.AT_CALLS:
        pytest.skip("this OS has no *at() calls")
    return request.param


@pytest.fixture
def run(tmp_path) -> Path:
    run = tmp_path / "run"
    (run / "figures").mkdir(parents=True)
    (run / "report.tex").write_text("report\n", encoding="utf-8")
    (run / "figures" / "a.json").write_text("{}", encoding="utf-8")
    return run


@pytest.fixture
def outside(outside_canary) -> Path:
    return outside_canary.parent


# -- the walk ---------------------------------------------------------------------------


def test_a_plain_run_folder_passes_and_may_itself_be_a_link(run, tmp_path, mode):
    fence.check_run_dir(run)
    (tmp_path / "alias").symlink_to(run, target_is_directory=True)
    fence.check_run_dir(tmp_path / "alias")  # the person named it: taken as given
    fence.check_run_dir(tmp_path / "absent")  # nothing in it to follow


@pytest.mark.parametrize(
    "entry", ["report.pdf", "figures", "figures/b.png", "build/home/x", "drafts"]
)
def test_a_link_anywhere_is_refused_by_name(entry, run, outside, mode):
    if entry == "figures":
        shutil.rmtree(run / "figures")
    (run / entry).parent.mkdir(parents=True, exist_ok=True)
    (run / entry).symlink_to(outside / "secret.txt")
    with pytest.raises(RunLinkError) as refused:
        fence.check_run_dir(run)
    assert f"{entry} is a link" in str(refused.value) and str(run) in str(refused.value)
    assert CANARY not in str(refused.value)


def test_dangling_links_fifos_and_sockets_are_refused(run, tmp_path, mode):
    (run / "figures" / "gone.png").symlink_to(tmp_path / "nothing")
    os.mkfifo(run / "report.pdf")
    sock = socket.socket(socket.AF_UNIX)
    short = Path(os.path.relpath(run / "s", Path.cwd()))
    try:
        sock.bind(str(short) if len(str(short)) < 100 else str(run / "s"))
        with pytest.raises(RunLinkError) as refused:
            fence.check_run_dir(run)
    finally:
        sock.close()
    text = str(refused.value)
    assert "figures/gone.png is a link" in text
    assert "report.pdf is a FIFO" in text and "s is a socket" in text


def test_many_links_are_counted_and_an_endless_folder_is_cut(run, outside, monkeypatch):
    for i in range(7):
        (run / f"l{i}").symlink_to(outside)
    with pytest.raises(RunLinkError, match="and 4 more"):
        fence.check_run_dir(run)
    monkeypatch.setattr(fence, "MAX_ENTRIES", 5)
    with pytest.raises(RunLinkError, match="more than 5 entries"):
        fence.check_run_dir(run)


def test_a_name_with_control_characters_is_shown_escaped(run, outside):
    (run / "a\x1b[2Jb").symlink_to(outside)
    with pytest.raises(RunLinkError) as refused:
        fence.check_run_dir(run)
    assert "\x1b" not in str(refused.value) and "a\\x1b[2Jb" in str(refused.value)


# -- the opens, with no walk before them ----------------------------------------------------


def test_no_read_follows_a_link(run, outside, mode):
    (run / "report.tex").unlink()
    (run / "report.tex").symlink_to(outside / "secret.txt")
    (run / "figures" / "a.json").unlink()
    (run / "figures" / "a.json").symlink_to(outside / "secret.txt")
    for rel in ("report.tex", "figures/a.json"):
        with pytest.raises(RunLinkError, match=rel):
            fence.read_text(run, rel)
        assert not fence.is_file(run, rel)
    assert fence.names_in(run, "figures") == []  # a link is no file of the run


def test_nothing_is_reached_through_a_linked_folder(run, outside, mode):
    (outside / "a.json").write_text(CANARY, encoding="utf-8")
    before = snapshot(outside)
    (run / "figures" / "a.json").unlink()
    (run / "figures").rmdir()
    (run / "figures").symlink_to(outside, target_is_directory=True)
    for call in (
        lambda: fence.read_text(run, "figures/a.json"),
        lambda: fence.write_atomic(run, "figures/new.py", b"print(1)"),
        lambda: fence.open_in_run(run, "figures/a.json", "a"),
        lambda: fence.make_dirs(run, "figures/sub"),
        lambda: fence.names_in(run, "figures"),
        lambda: fence.remove(run, "figures/a.json"),
    ):
        with pytest.raises(RunLinkError, match="figures is a link"):
            call()
    assert not fence.is_file(run, "figures/a.json")
    assert snapshot(outside) == before


def test_a_write_replaces_a_link_never_its_target(run, outside, mode):
    before = snapshot(outside)
    (run / "report.tex").unlink()
    (run / "report.tex").symlink_to(outside / "secret.txt")
    fence.write_text(run, "report.tex", "new\n")
    assert not (run / "report.tex").is_symlink()
    assert (run / "report.tex").read_text(encoding="utf-8") == "new\n"
    (run / "x").symlink_to(outside / "secret.txt")
    fence.remove(run, "x")  # the link, not the file it named
    assert snapshot(outside) == before


def test_a_dangling_link_is_not_created_through(run, outside, mode):
    (run / ".lock").symlink_to(outside / "created-through-link")
    with pytest.raises(RunLinkError, match=".lock is a link"):
        fence.open_fd(run, ".lock", os.O_RDWR | os.O_CREAT)
    assert not (outside / "created-through-link").exists()


def test_a_fifo_is_refused_without_blocking(run, mode):
    """At calls: O_NONBLOCK, then fstat. Path checks: the lstat before opening."""
    os.mkfifo(run / "report.pdf")
    with pytest.raises(RunLinkError, match="report.pdf is a FIFO"):
        fence.read_bytes(run, "report.pdf")  # O_NONBLOCK: an open without a writer returns


@pytest.mark.parametrize("rel", ["../x", "/etc/passwd", "figures/../../x", ""])
def test_names_that_climb_out_are_refused(rel, run):
    with pytest.raises(RunLinkError):
        fence.read_bytes(run, rel)
    assert not fence.is_file(run, rel)


def test_the_store_holds_without_the_walk(run, outside, monkeypatch, tmp_path):
    """The journal, the lock and figures/ of a store opened after the walk was skipped:
    the opens alone refuse the links."""
    monkeypatch.setattr(fence, "check_run_dir", lambda run_dir: None)
    material = tmp_path / "material"
    material.mkdir()
    journal = outside / "journal.txt"
    journal.write_bytes(b'{"type": "milestone"}\nno newline')
    (run / "events.jsonl").symlink_to(journal)
    before = snapshot(outside)
    with pytest.raises(RunDirError, match="events.jsonl is a link"):
        RunStore(run, material, resume=True)
    (run / "events.jsonl").unlink()
    (run / ".lock").unlink()  # the real one the first try made
    (run / ".lock").symlink_to(outside / "lock")
    with pytest.raises(RunDirError, match=".lock is a link"):
        RunStore(run, material)
    (run / ".lock").unlink()
    (run / "figures" / "a.json").unlink()
    (run / "figures").rmdir()
    (run / "figures").symlink_to(outside, target_is_directory=True)
    with pytest.raises(RunDirError, match="figures is a link"):
        RunStore(run, material)
    assert snapshot(outside) == before


# -- races: a folder or a file swapped for a link while the opens run ---------------------

SWAPS = 3000
# Another process (true concurrency, no GIL between it and the opens) exchanges the two
# names atomically with renameat2(RENAME_EXCHANGE): the name always exists, and is the
# real file or folder one moment and a link out the next.
SWAPPER = """
import ctypes, os, sys
libc = ctypes.CDLL(None, use_errno=True)
a, b = os.fsencode(sys.argv[1]), os.fsencode(sys.argv[2])
print("ready", flush=True)
while True:
    if libc.renameat2(-100, a, -100, b, 2) != 0:
        raise OSError(ctypes.get_errno(), "renameat2")
"""


def _can_exchange() -> bool:
    return sys.platform.startswith("linux") and hasattr(ctypes.CDLL(None), "renameat2")


@pytest.fixture
def swapping():
    """Start swapping `real` with a link to `target`; on leaving, `real` is real again."""
    started = []

    def start(real: Path, target: Path) -> None:
        link = real.with_name(real.name + ".link")
        link.symlink_to(target, target_is_directory=target.is_dir())
        proc = subprocess.Popen(
            [sys.executable, "-c", SWAPPER, str(real), str(link)],
            stdout=subprocess.PIPE,
            text=True,
        )
        assert proc.stdout is not None and proc.stdout.readline() == "ready\n"
        started.append((proc, real, link))

    yield start
    for proc, real, link in started:
        proc.kill()
        proc.wait()
        proc.stdout.close()
        if real.is_symlink():
            os.rename(real, real.with_name("tmp"))
            os.rename(link, real)
            os.rename(real.with_name("tmp"), link)


needs_exchange = pytest.mark.skipif(
    not (fence.AT_CALLS and _can_exchange()), reason="needs *at() calls and renameat2"
)


@needs_exchange
def test_writes_into_a_folder_swapped_for_a_link_never_land_outside(run, outside, swapping):
    before = snapshot(outside)
    swapping(run / "figures", outside)
    landed = refused = 0
    for i in range(SWAPS):
        try:
            fence.write_atomic(run, f"figures/f{i}.py", b"code")
            landed += 1
        except RunLinkError:
            refused += 1
    assert snapshot(outside) == before
    assert landed > 0 and refused > 0  # both sides of the swap were met
    real = run / "figures" if not (run / "figures").is_symlink() else run / "figures.link"
    assert len([p for p in real.iterdir() if p.name.startswith("f")]) == landed


@needs_exchange
def test_reads_of_a_file_swapped_for_a_link_never_show_the_canary(run, outside, swapping):
    swapping(run / "report.tex", outside / "secret.txt")
    shown = refused = 0
    for _ in range(SWAPS):
        try:
            text = fence.read_text(run, "report.tex")
        except RunLinkError:
            refused += 1
            continue
        assert text == "report\n"
        shown += 1
    assert shown > 0 and refused > 0


@needs_exchange
def test_positive_control_a_plain_open_does_follow_the_swap(run, outside, swapping):
    """The same swap read with open(): the canary comes through, so the races above
    would see a leak if the fence let one by."""
    swapping(run / "report.tex", outside / "secret.txt")
    reads = ((run / "report.tex").read_text(encoding="utf-8") for _ in range(SWAPS))
    assert any(CANARY in text for text in reads)
