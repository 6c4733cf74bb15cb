"""Nothing in a run folder is followed out of it.

Run folders travel (a classmate sends theirs, a course hands one out), so what is
in one is data, and a link in one points wherever its maker chose: `build -> ~`,
`figures -> ~/.local/lib/python3/site-packages`, `report.pdf -> ~/private.pdf`.
Labwright never puts a link, a FIFO, a socket or a device into a run folder, so
one there is damage or an attack. The policy is to refuse, not to skip: a run
folder holding one is not resumed, reopened, compiled, verified or exported, and
the refusal (RunLinkError) names what to remove. Skipping would be a second rule
that every consumer has to keep, and TeX, Qt's PDF view and the synctex tool open
files by name and cannot be told; a report that silently lacks a linked figure is
not what its sender had either.

Two layers, and everything that touches a run folder uses both:

1. `check_run_dir(run_dir)` walks the whole folder before it is used (the store
   opening it, Reopen, export, verify, a compile, a re-draft), following nothing,
   and raises RunLinkError for the first entries that are not plain files or
   folders.
2. Every file is opened beneath the run folder one component at a time
   (`open_in_run`, `read_bytes`, `write_atomic`, `make_dirs`, `names_in`, ...)
   by core/beneath.py's `Folder`: no link followed, a FIFO or the like refused,
   atomic writes renamed in the folder the descriptor holds. A link that appears
   after the check (another program, a race) fails the open with the same error.

The run folder's own path is the person's choice and is taken as given (it may
itself be a link, say to another disk); only what is beneath it is fenced. Where
the OS has no *at() calls (Windows), beneath checks each component with lstat
(symlinks and junctions refused) and again after the open: a swap in between is
caught unless it is undone before the second check.
"""

from __future__ import annotations

import contextlib
import fnmatch
import json
import os
import shutil
import stat
from collections.abc import Iterator
from pathlib import Path, PurePath
from typing import IO, Any

from labwright.core import beneath
from labwright.core.beneath import Folder
from labwright.core.rundir.errors import RunLinkError

__all__ = [
    "RunLinkError",
    "atomic_writer_in",
    "check_run_dir",
    "is_file",
    "make_dirs",
    "names_in",
    "open_fd",
    "open_in_run",
    "read_bytes",
    "read_text",
    "remove",
    "remove_run_folder",
    "write_atomic",
    "write_json",
    "write_text",
]

# Whether this OS opens beneath a folder's descriptor without following links. The
# tests turn it off to run the Windows path on Linux too.
AT_CALLS = beneath.AT_CALLS
# A run folder is a few hundred entries (TeX's caches included); a walk that meets
# far more is not looking at one, and must not take minutes to say so.
MAX_ENTRIES = 50_000
_NAMED = 3  # how many offending entries a refusal lists by name

_MODES = {  # open_in_run's mode -> os.open's flags
    "r": os.O_RDONLY,
    "r+": os.O_RDWR,
    "a": os.O_WRONLY | os.O_APPEND | os.O_CREAT,
    "x": os.O_WRONLY | os.O_CREAT | os.O_EXCL,
}

# -- what a refusal says ----------------------------------------------------------------


def _shown(rel: str) -> str:
    """A name from the folder as a message may carry it: an undecodable byte as \\xff,
    a control or other unprintable character as \\x1b or \\u202e."""
    if rel.isprintable():
        return rel
    out = []
    for c in rel:
        o = ord(c)
        if 0xDC80 <= o <= 0xDCFF:  # os.fsdecode's surrogateescape form of one byte
            out.append(f"\\x{o - 0xDC00:02x}")
        elif c.isprintable():
            out.append(c)
        else:
            out.append(f"\\x{o:02x}" if o < 0x100 else f"\\u{o:04x}")
    return "".join(out)


def _refusal(run_dir: Path, found: list[tuple[str, str]], more: int = 0) -> RunLinkError:
    listed = "; ".join(f"{_shown(rel)} is {kind}" for rel, kind in found[:_NAMED])
    rest = len(found) - _NAMED + more
    listed += f"; and {rest} more" if rest > 0 else ""
    return RunLinkError(
        f"The run folder {run_dir} cannot be used: {listed}. A run folder holds only "
        "files and folders, and Labwright follows nothing in one out of it. Replace each "
        "link with a copy of what it points to, or remove it, and try again."
    )


@contextlib.contextmanager
def _refusing(run_dir: Path) -> Iterator[None]:
    """beneath's refusals (a link, a FIFO, ... met on the way) as RunLinkError."""
    try:
        yield
    except beneath.NotPlain as e:
        raise _refusal(Path(run_dir), [(e.rel, e.kind)]) from None


# -- layer 1: the walk ------------------------------------------------------------------


def check_run_dir(run_dir: Path) -> None:
    """Raise RunLinkError if anything beneath `run_dir` is not a plain file or folder.

    Follows nothing; the folder itself may be a link (the person named it). A
    missing folder passes (there is nothing in it to follow); one with more than
    MAX_ENTRIES entries is refused."""
    run_dir = Path(run_dir)
    found: list[tuple[str, str]] = []
    seen = 0
    try:
        root = _root(run_dir)
    except FileNotFoundError:
        return
    except NotADirectoryError:
        raise RunLinkError(f"{run_dir} is a file, not a run folder.") from None
    stack = [root]
    try:
        while stack:
            with stack.pop() as folder:
                for name, st in folder.entries():
                    seen += 1
                    if seen > MAX_ENTRIES:
                        raise RunLinkError(
                            f"{run_dir} holds more than {MAX_ENTRIES:,} entries; it is not "
                            "a Labwright run folder."
                        )
                    kind = beneath.kind_of(st)
                    if kind not in (beneath.FILE, beneath.FOLDER):
                        found.append((folder.rel_of(name), kind))
                    elif kind == beneath.FOLDER:
                        try:
                            stack.append(folder.sub(name))
                        except beneath.NotPlain as e:  # became a link since it was listed
                            found.append((e.rel, e.kind))
                        except (FileNotFoundError, NotADirectoryError):  # gone, or a file now
                            continue
    finally:
        for folder in stack:
            folder.close()
    if found:
        raise _refusal(run_dir, sorted(found))


# -- layer 2: opening beneath the run folder ----------------------------------------------


def _root(run_dir: Path) -> Folder:
    return Folder.open_root(run_dir, by_fd=AT_CALLS)


def _parts(rel: str | PurePath) -> list[str]:
    """The components of a path inside the run folder; RunLinkError for one that climbs
    out or is absolute (names can come from files of the folder: report.tex, meta)."""
    pure = PurePath(rel)
    parts = [p for p in pure.parts if p != "."]
    if pure.is_absolute() or pure.drive or not parts or ".." in parts or "\x00" in str(rel):
        raise RunLinkError(f"{_shown(str(rel))} is not a name inside the run folder.")
    return parts


@contextlib.contextmanager
def _folder_of(run_dir: Path, rel: str | PurePath, *, create: bool = False) -> Iterator[Folder]:
    """The folder `rel` beneath `run_dir`, reached without following a link (made as
    needed with `create`; RunLinkError for a link or the like on the way)."""
    parts = [p for p in PurePath(rel).parts if p != "."]
    parts = _parts(rel) if parts else []
    run_dir = Path(run_dir)
    if create:
        run_dir.mkdir(parents=True, exist_ok=True)
    with _refusing(run_dir), _root(run_dir) as root, root.walk(parts, create=create) as folder:
        yield folder


def _parent_and_name(rel: str | PurePath) -> tuple[str, str]:
    parts = _parts(rel)
    return "/".join(parts[:-1]) or ".", parts[-1]


def open_fd(run_dir: Path, rel: str | PurePath, flags: int, mode: int = 0o600) -> int:
    """A descriptor of the regular file `rel` beneath `run_dir`, no link followed.

    `flags` are os.open's (O_CREAT and O_EXCL as usual); the folders on the way
    must exist. RunLinkError when a link, a FIFO or the like is in the way;
    FileNotFoundError / FileExistsError as os.open raises them."""
    parent, name = _parent_and_name(rel)
    with _folder_of(run_dir, parent) as folder:
        try:
            return folder.open(name, flags, mode)
        except IsADirectoryError:
            raise IsADirectoryError(f"{Path(run_dir) / rel} is a folder, not a file") from None


def open_in_run(
    run_dir: Path,
    rel: str | PurePath,
    mode: str = "rb",
    *,
    encoding: str | None = None,
    errors: str | None = None,
) -> IO[Any]:
    """A file object for the regular file `rel` beneath `run_dir`, no link followed.

    `mode`: "r", "r+", "a" (created if absent) or "x" (created, must not exist), each
    with "b" for bytes; text modes are UTF-8 unless `encoding` says otherwise. For a
    whole new content use write_atomic, never a truncating open."""
    binary = "b" in mode
    base = mode.replace("b", "").replace("t", "")
    if base not in _MODES:
        raise ValueError(f"mode {mode!r} is not one of r, r+, a, x (with b)")
    fd = open_fd(run_dir, rel, _MODES[base])
    if binary:
        return os.fdopen(fd, base + "b")
    return os.fdopen(fd, base, encoding=encoding or "utf-8", errors=errors)


def read_bytes(run_dir: Path, rel: str | PurePath, *, limit: int | None = None) -> bytes:
    """The bytes of `rel` (at most `limit`; more is an OSError, not a cut)."""
    with open_in_run(run_dir, rel, "rb") as f:
        if limit is None:
            return f.read()
        try:
            return beneath.read_capped(f.fileno(), limit)
        except beneath.TooLarge as e:
            raise OSError(f"{rel} is {e.strerror}") from None


def read_text(run_dir: Path, rel: str | PurePath, *, errors: str = "strict") -> str:
    return read_bytes(run_dir, rel).decode("utf-8", errors)


def is_file(run_dir: Path, rel: str | PurePath) -> bool:
    """Whether `rel` is a regular file reached without a link (a link: False)."""
    try:
        parent, name = _parent_and_name(rel)
        with _folder_of(run_dir, parent) as folder:
            return stat.S_ISREG(folder.lstat(name).st_mode)
    except OSError:
        return False


def names_in(run_dir: Path, rel: str | PurePath = ".", pattern: str = "*") -> list[str]:
    """The regular files in the folder `rel` whose names match `pattern`, sorted.

    A missing folder has none; links and anything else that is not a file are left
    out (never followed). RunLinkError when the folder itself is reached by a link."""
    try:
        with _folder_of(run_dir, rel) as folder:
            listed = list(folder.entries())
    except FileNotFoundError:
        return []
    return sorted(
        name
        for name, st in listed
        if beneath.kind_of(st) == beneath.FILE and fnmatch.fnmatchcase(name, pattern)
    )


def make_dirs(run_dir: Path, rel: str | PurePath) -> Path:
    """Make the folder `rel` beneath `run_dir` (and those on the way), following no link."""
    parts = _parts(rel)
    with _folder_of(run_dir, rel, create=True):
        pass
    return Path(run_dir).joinpath(*parts)


def write_atomic(run_dir: Path, rel: str | PurePath, data: bytes, *, mode: int = 0o600) -> Path:
    """Replace `rel` beneath `run_dir` with `data` atomically (core/atomic.py), in the
    folder reached without following a link (made as needed). A link at `rel` itself
    is replaced, never written through."""
    with atomic_writer_in(run_dir, rel, mode=mode) as f:
        f.write(data)
    return Path(run_dir).joinpath(*_parts(rel))


@contextlib.contextmanager
def atomic_writer_in(
    run_dir: Path, rel: str | PurePath, *, mode: int = 0o600
) -> Iterator[IO[bytes]]:
    """write_atomic as a file to write into (a copy that streams)."""
    parent, name = _parent_and_name(rel)
    with (
        _folder_of(run_dir, parent, create=True) as folder,
        folder.atomic_writer(name, mode=mode) as f,
    ):
        yield f


def write_text(run_dir: Path, rel: str | PurePath, text: str, *, mode: int = 0o600) -> Path:
    return write_atomic(run_dir, rel, text.encode("utf-8"), mode=mode)


def write_json(run_dir: Path, rel: str | PurePath, data: Any, *, mode: int = 0o600) -> Path:
    # As atomic_write_json: names with undecodable bytes stay valid JSON (\\udcXX).
    text = json.dumps(data, ensure_ascii=False, indent=2) + "\n"
    return write_atomic(run_dir, rel, text.encode("utf-8", "backslashreplace"), mode=mode)


def remove(run_dir: Path, rel: str | PurePath) -> None:
    """Remove the entry `rel` (a link itself, never its target); absent is fine."""
    parent, name = _parent_and_name(rel)
    try:
        with _folder_of(run_dir, parent) as folder:
            folder.unlink(name)
    except FileNotFoundError:
        pass


def remove_run_folder(run_dir: Path) -> None:
    """Delete a whole run folder for good, following no link: a link in it is removed
    itself, never what it points to; `run_dir` itself a link: only the link goes.

    shutil.rmtree walks by descriptor where the OS allows it (it says so in
    `avoids_symlink_attacks`): each folder is opened without following a link and
    checked to be the one listed, so a folder swapped for a link mid-walk is not
    entered. Where it cannot, a folder holding a link is refused (RunLinkError) rather
    than walked by name."""
    run_dir = Path(run_dir)
    st = os.lstat(run_dir)
    if beneath.is_link(st):  # a Windows junction is removed as the empty folder it looks like
        (os.rmdir if stat.S_ISDIR(st.st_mode) else os.unlink)(run_dir)
        return
    if not shutil.rmtree.avoids_symlink_attacks:
        check_run_dir(run_dir)
    shutil.rmtree(run_dir)
