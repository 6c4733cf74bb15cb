"""A folder swapped under a read: another user exchanges `sub/` with a link to a private folder.

The picked folder may be shared (a course drive, a lab server). While the model
reads `sub/x.txt`, someone who can write there renames `sub/` away and a link
to their private folder into its place, over and over. Each read must then give
the inside file or an error — never the outside canary — through the real tool
path: read_file, list_dir (its listing and the tables it describes) and
read_image (the bytes sent to the vision model on the fake server).

The swapper is another process (truly parallel, as another user would be), a
tight loop of os.rename of prepared entries. Both ways of opening beneath the
folder are raced: openat2(2) where the kernel has it, and the component walk
(LABWRIGHT_FENCE_WALK=1) used on macOS and older kernels. A positive control
shows the same race against the old check-then-open leaks, so the zero counted
here means something.
"""

from __future__ import annotations

import base64
import contextlib
import errno
import hashlib
import json
import os
import stat
import subprocess
import sys
import threading
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from PIL import Image, PngImagePlugin

from canary import CANARY
from fakes import FakeLLM, text
from labwright.core.agent.tools import ToolContext
from labwright.core.agent.tools.base import Refused
from labwright.core.agent.tools.list_dir import ListDir
from labwright.core.agent.tools.read_file import ReadFile
from labwright.core.agent.tools.read_image import ReadImage
from labwright.core.llm.client import LLM
from labwright.core.material.tables import extract_tables
from labwright.core.material.workspace import PathDenied, resolve_in_folder

pytestmark = pytest.mark.skipif(os.name == "nt", reason="symlinks and renames of POSIX")

READS = 10_000  # per way of opening, through the tools
SCANS = 10_000  # per way of opening
PRIVATE_NAME = "private-diary.csv"  # a name only the outside folder holds
ASKED_NAME = "private-diary2.csv"  # held by neither: the answer suggests PRIVATE_NAME if it saw it
OUTSIDE_SIZE = (7, 3)  # the outside image's size: its facts must not show either

# Exchanges `sub` (a real folder) and `.sub-link` (a link to the outside folder)
# by renames, until the stop file appears; prints how many rounds it made.
SWAPPER = r"""
import os, sys
root, stop = sys.argv[1], sys.argv[2]
sub, real, link = (os.path.join(root, n) for n in ("sub", ".sub-real", ".sub-link"))
print("ready", flush=True)
rounds = 0
while True:
    os.rename(sub, real)
    os.rename(link, sub)
    os.rename(sub, link)
    os.rename(real, sub)
    rounds += 1
    if rounds % 32 == 0 and os.path.exists(stop):
        break
print(rounds, flush=True)
"""


def _png(path: Path, size: tuple[int, int], color: tuple[int, int, int], note: str) -> None:
    info = PngImagePlugin.PngInfo()
    info.add_text("Comment", note)
    Image.new("RGB", size, color).save(path, pnginfo=info)


@pytest.fixture
def shared(tmp_path) -> Path:
    """root/sub holds the material; .sub-link points at the private folder with the canary."""
    private = tmp_path / "private"
    private.mkdir()
    (private / "x.txt").write_text(f"{CANARY}\n", encoding="utf-8")
    (private / PRIVATE_NAME).write_text(f"t,{CANARY}\n1,2\n", encoding="utf-8")
    (private / "data.csv").write_text(f"t (s),{CANARY} (V)\n0,1\n1,2\n2,3\n", encoding="utf-8")
    _png(private / "x.png", OUTSIDE_SIZE, (255, 0, 0), CANARY)
    (private / "deeper").mkdir()
    (private / "deeper" / PRIVATE_NAME).write_text(f"{CANARY}\n", encoding="utf-8")
    root = tmp_path / "shared"
    sub = root / "sub"
    sub.mkdir(parents=True)
    (sub / "x.txt").write_text("inside notes\n", encoding="utf-8")
    (sub / "data.csv").write_text("t (s),U (V)\n0,1\n1,2\n2,3\n", encoding="utf-8")
    _png(sub / "x.png", (5, 5), (0, 200, 0), "inside")
    (sub / "deeper").mkdir()
    (sub / "deeper" / "notes.csv").write_text("t,x\n1,2\n", encoding="utf-8")
    os.symlink(private, root / ".sub-link")
    return root


@contextmanager
def swapping(root: Path) -> Iterator[None]:
    """The other user, renaming `sub` to and from a link outside until the block ends."""
    stop = root.parent / "stop-swapping"
    proc = subprocess.Popen(
        [sys.executable, "-c", SWAPPER, str(root), str(stop)],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stdout is not None
        assert proc.stdout.readline().strip() == "ready"
        yield
    finally:
        stop.touch()
        out, _ = proc.communicate(timeout=60)
        stop.unlink()
    assert proc.returncode == 0, "the swapper lost track of its renames"
    assert int(out.strip()) > 100, "the swapper barely ran: the race was not raced"
    assert (root / "sub").is_dir() and (root / ".sub-link").is_symlink()


@pytest.fixture(params=["openat2", "walk"])
def way(request, monkeypatch) -> str:
    """How the fence opens beneath the folder; the walk is forced by its switch."""
    if request.param == "walk":
        monkeypatch.setenv("LABWRIGHT_FENCE_WALK", "1")
    else:
        monkeypatch.delenv("LABWRIGHT_FENCE_WALK", raising=False)
        from labwright.core.material import fence

        if not fence.openat2_available():
            pytest.skip("this kernel has no openat2 (Linux < 5.6)")
    return request.param


def _sent_images(llm: FakeLLM) -> list[bytes]:
    out = []
    for body in llm.requests:
        for part in body["messages"][0]["content"]:
            if part.get("type") == "image_url":
                out.append(base64.b64decode(part["image_url"]["url"].split(",", 1)[1]))
    return out


def _figure_inputs(root: Path) -> str:
    """make_figure's inputs as the sandbox records them (path and hash in the provenance)."""
    from labwright.core.agent.sandbox import provenance

    try:
        (found,) = provenance.resolve_inputs(root, ["sub/data.csv"])
    except provenance.InputError as e:
        return f"error {e}"
    return f"ok {found.sha256} {found.path}"


def _offline_tables(root: Path) -> str:
    """The tables the offline report and the figures stage read."""
    tables = extract_tables(root, ["sub/data.csv"])
    return ("ok " if tables else "error ") + " ".join(c for t in tables for c in t.columns)


def _call(tool, args: dict, ctx: ToolContext):
    try:
        return tool.run(args, ctx)
    except Refused as e:  # the fence refused: `sub` was the link when the path was checked
        return e.outcome


@pytest.fixture
def caught_by_the_open(monkeypatch) -> Counter[str]:
    """How often the one-step open met a link the plan did not have (the race, refused there)."""
    from labwright.core.material import fence

    real = fence.open_beneath
    seen: Counter[str] = Counter()

    def counting(root_real, parts):
        try:
            return real(root_real, parts)
        except OSError as e:
            seen[errno.errorcode.get(e.errno or 0, "?")] += 1
            raise

    monkeypatch.setattr(fence, "open_beneath", counting)
    return seen


def test_reads_racing_a_swapped_folder_never_show_the_outside(shared, way, caught_by_the_open):
    tools = {"read_file": ReadFile(), "list_dir": ListDir(), "read_image": ReadImage()}
    outcomes: Counter[str] = Counter()
    leaked: list[str] = []
    with FakeLLM(lambda body, n: text("a green square")) as llm:
        ctx = ToolContext(
            shared,
            shared.parent / "run",
            llm=LLM(llm.base_url, "sk-test", max_retries=0),
            vision_model="fake-vision",
        )
        private_sha = hashlib.sha256(
            (shared.parent / "private" / "data.csv").read_bytes()
        ).hexdigest()
        with swapping(shared):
            for i in range(READS * 50 // 48):  # 2 in 50 are not tool calls
                if i % 50 in (17, 37):  # what is read beside the tools: figure inputs, tables
                    name = "figure inputs" if i % 50 == 17 else "offline tables"
                    seen = _figure_inputs(shared) if i % 50 == 17 else _offline_tables(shared)
                    outcomes[f"{name} {seen.split()[0]}"] += 1
                    if CANARY in seen or private_sha in seen or "private" in seen:
                        leaked.append(f"{name}: {seen[:120]!r}")
                    continue
                if i % 50 == 7:
                    name, args = "read_image", {"path": "sub/x.png", "question": "?"}
                elif i % 20 == 3:
                    name, args = "list_dir", {"path": "sub"}
                elif i % 20 == 13:  # nowhere: the answer suggests close names that exist
                    name, args = "read_file", {"path": f"sub/{ASKED_NAME}"}
                elif i % 10 == 5:
                    name, args = "read_file", {"path": "sub/data.csv"}
                else:
                    name, args = "read_file", {"path": "sub/x.txt"}
                try:
                    out = _call(tools[name], args, ctx)
                except OSError as e:  # a tool that crashes is a bug too, but not a leak
                    outcomes[f"{name} crashed: {e.strerror}"] += 1
                    continue
                outcomes[f"{name} {'ok' if out.ok else 'error'}"] += 1
                seen = out.content + out.summary
                if CANARY in seen or PRIVATE_NAME in seen or "7×3" in seen:
                    leaked.append(f"{name} {args['path']}: {seen[:120]!r}")
        images = _sent_images(llm)
    for data in images:
        if CANARY.encode() in data:
            leaked.append("read_image sent the outside image to the vision model")
    caught = caught_by_the_open["ELOOP"] + caught_by_the_open["ENOTDIR"]
    print(
        f"{way}: {sum(outcomes.values())} reads, {dict(sorted(outcomes.items()))}; "
        f"{len(images)} images sent; "
        f"the open refused a link the check had not seen {caught} times"
    )
    tool_reads = sum(n for k, n in outcomes.items() if k.split()[0] in tools)
    assert tool_reads >= READS
    assert not leaked, f"{len(leaked)} of {tool_reads} results showed the outside: {leaked[:3]}"
    assert not [k for k in outcomes if "crashed" in k], outcomes
    # The race was real: reads met the inside file and met the swap.
    assert outcomes["read_file ok"] > 100
    assert outcomes["figure inputs ok"] and outcomes["offline tables ok"]
    assert sum(n for k, n in outcomes.items() if k.endswith("error")) > 10
    assert images, "no image reached the vision model: read_image was not exercised"
    # ... and the swap landed between the check and the open, where only the open can stop it.
    assert caught > 0, "the race never reached the open: only the check was tested"


def test_the_scan_racing_a_swapped_folder_never_lists_the_outside(shared, way):
    """The scan (the model's first look) walks into sub/deeper while sub is swapped.

    The window (sub listed, then sub/deeper opened) is short: the old scan, which
    opened sub/deeper by its path, listed the outside folder about once in 2,000
    scans here; 10,000 make that a near-certain failure.
    """
    from labwright.core.material.workspace import scan_folder

    shown: list[str] = []
    shown_inside: list[int] = []
    with swapping(shared):
        for _ in range(SCANS):
            found = json.dumps(scan_folder(shared).to_dict(), ensure_ascii=False)
            if PRIVATE_NAME in found or CANARY in found:
                shown.append(found[:200])
            elif "sub/deeper/notes.csv" in found:
                shown_inside.append(1)
    assert not shown, f"{len(shown)} scans listed the outside folder: {shown[:2]}"
    assert shown_inside, "no scan saw the inside folder: the race was not raced"


def test_the_old_check_then_open_leaks_under_the_same_race(shared):
    """Positive control: resolving, then opening again by name, does read the outside."""
    leaks = 0
    with swapping(shared):
        for _ in range(20_000):
            try:
                path = resolve_in_folder(shared, "sub/x.txt")
                leaks += CANARY in path.read_text(encoding="utf-8")
            except (OSError, PathDenied):
                continue
            if leaks >= 3:
                break
    assert leaks >= 3, "the race never hit the old check-then-open: the test proves nothing"


# -- special files -------------------------------------------------------------------


def _bounded(fn, seconds: float = 20.0):
    """fn() in a thread: its result, or None if it is still blocked after `seconds`."""
    box: list = []
    worker = threading.Thread(target=lambda: box.append(fn()), daemon=True)
    worker.start()
    worker.join(seconds)
    return box[0] if box else None


@pytest.fixture
def with_fifo(tmp_path) -> Path:
    root = tmp_path / "material"
    root.mkdir()
    (root / "good.csv").write_text("t,x\n1,2\n", encoding="utf-8")
    os.mkfifo(root / "pipe.csv")
    return root


def test_a_fifo_is_refused_at_once_by_every_reading_tool(with_fifo, way):
    ctx = ToolContext(with_fifo, with_fifo.parent / "run", llm=None, vision_model="v")
    read = _bounded(lambda: _call(ReadFile(), {"path": "pipe.csv"}, ctx))
    assert read is not None, "read_file blocked on a FIFO"
    assert not read.ok and "not a regular file" in read.content
    image = _bounded(lambda: _call(ReadImage(), {"path": "pipe.csv", "question": "?"}, ctx))
    assert image is not None and not image.ok
    listing = _bounded(lambda: _call(ListDir(), {"path": "."}, ctx))
    assert listing is not None and listing.ok
    assert "good.csv" in listing.content and "pipe.csv" in listing.content


# Turns `x.csv` into a FIFO and back, until the stop file appears.
FIFO_SWAPPER = r"""
import os, sys
root, stop = sys.argv[1], sys.argv[2]
x, real, fifo = (os.path.join(root, n) for n in ("x.csv", ".x-real", ".x-fifo"))
print("ready", flush=True)
rounds = 0
while True:
    os.rename(x, real)
    os.rename(fifo, x)
    os.rename(x, fifo)
    os.rename(real, x)
    rounds += 1
    if rounds % 32 == 0 and os.path.exists(stop):
        break
print(rounds, flush=True)
"""


def test_a_file_swapped_for_a_fifo_never_blocks_a_read(tmp_path, way):
    root = tmp_path / "material"
    root.mkdir()
    (root / "x.csv").write_text("t (s),U (V)\n0,1\n1,2\n", encoding="utf-8")
    os.mkfifo(root / ".x-fifo")
    stop = tmp_path / "stop"
    ctx = ToolContext(root, tmp_path / "run")
    proc = subprocess.Popen(
        [sys.executable, "-c", FIFO_SWAPPER, str(root), str(stop)],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stdout is not None and proc.stdout.readline().strip() == "ready"

        def reads() -> Counter[str]:
            from labwright.core.agent.sandbox.provenance import InputError, resolve_inputs

            seen: Counter[str] = Counter()
            for i in range(1000):
                if i % 10 == 9:  # make_figure hashing its inputs
                    try:
                        seen[f"inputs {bool(resolve_inputs(root, ['x.csv']))}"] += 1
                    except InputError:
                        seen["inputs False"] += 1
                    continue
                tool, args = (
                    (ListDir(), {"path": "."}) if i % 5 == 0 else (ReadFile(), {"path": "x.csv"})
                )
                out = _call(tool, args, ctx)
                seen[f"{tool.name} {out.ok}"] += 1
                seen["met the FIFO"] += "not a regular file" in out.content
            return seen

        seen = _bounded(reads, 30)
    finally:
        stop.touch()
        proc.communicate(timeout=60)
        _release_blocked_readers(root)
    assert seen is not None, "a read blocked on the FIFO swapped in under it"
    assert seen["read_file True"] > 10 and seen["inputs True"] > 0
    assert seen["met the FIFO"] > 0, "no read met the FIFO: the race was not raced"


def _release_blocked_readers(root: Path) -> None:
    """A read stuck in open() of the FIFO returns once a writer opens and closes it."""
    for p in root.iterdir():
        if stat.S_ISFIFO(p.lstat().st_mode):
            with contextlib.suppress(OSError):  # ENXIO: nobody is waiting on it
                os.close(os.open(p, os.O_WRONLY | os.O_NONBLOCK))
