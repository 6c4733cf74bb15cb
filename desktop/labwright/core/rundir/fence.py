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
   (`open_in_run`, `read_bytes`, `write_atomic`, `make_dirs`, `names_in`, ...):
   folders with O_DIRECTORY|O_NOFOLLOW from the descriptor of the one above, the
   file with O_NOFOLLOW|O_NONBLOCK, and fstat must show a regular file. A link that
   appears after the check (another program, a race) fails the open with the same
   error; it is never followed. Atomic writes create their temporary file and
   rename it in the folder the descriptor holds.

The run folder's own path is the person's choice and is taken as given (it may
itself be a link, say to another disk); only what is beneath it is fenced. Where
the OS has no *at() calls (Windows), each component is lstat-ed (symlinks and
junctions refused) and an opened file must be the one that was checked (same
device and file index), with the folders checked again after the open: a swap in
between is caught unless it is undone before the second check.
"""

from __future__ import annotations

import contextlib
import errno
import fnmatch
import json
import os
import stat
from collections.abc import Iterator
from pathlib import Path, PurePath
from typing import IO, Any

from labwright.core.atomic import atomic_writer
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
    "write_atomic",
    "write_json",
    "write_text",
]

_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_DIRECTORY = getattr(os, "O_DIRECTORY", 0)
_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
_NONBLOCK = getattr(os, "O_NONBLOCK", 0)
_BINARY = getattr(os, "O_BINARY", 0)
_DIR_FLAGS = os.O_RDONLY | _DIRECTORY | _CLOEXEC
# What open() with O_NOFOLLOW says of a link (ELOOP; FreeBSD: EMLINK).
_LOOP = {errno.ELOOP, getattr(errno, "EMLINK", errno.ELOOP)}
# Whether this OS opens beneath a folder's descriptor without following links. The
# tests turn it off to run the Windows path on Linux too.
AT_CALLS = bool(
    _NOFOLLOW
    and _DIRECTORY
    and {os.open, os.mkdir, os.stat, os.unlink, os.rename} <= os.supports_dir_fd
    and os.scandir in os.supports_fd
)
# A run folder is a few hundred entries (TeX's caches included); a walk that meets
# far more is not looking at one, and must not take minutes to say so.
MAX_ENTRIES = 50_000
_NAMED = 3  # how many offending entries a refusal lists by name

_MODES = {  # open_in_run's mode -> (flags, whether a new file may be created)
    "r": os.O_RDONLY,
    "r+": os.O_RDWR,
    "a": os.O_WRONLY | os.O_APPEND | os.O_CREAT,
    "x": os.O_WRONLY | os.O_CREAT | os.O_EXCL,
}

# -- what an entry is ----------------------------------------------------------------


def _is_link(st: os.stat_result) -> bool:
    """A symlink, or on Windows any reparse point (a junction, a mount point)."""
    if stat.S_ISLNK(st.st_mode):
        return True
    attributes = getattr(st, "st_file_attributes", 0)
    return bool(attributes & getattr(stat, "FILE_ATTRIBUTE_REPARSE_POINT", 0x400))


def _kind(st: os.stat_result) -> str | None:
    """What makes the entry unusable in a run folder, or None for a file or a folder."""
    if _is_link(st):
        return "a link"
    if stat.S_ISREG(st.st_mode) or stat.S_ISDIR(st.st_mode):
        return None
    if stat.S_ISFIFO(st.st_mode):
        return "a FIFO"
    if stat.S_ISSOCK(st.st_mode):
        return "a socket"
    return "a device"


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
        root = _open_root(run_dir)
    except FileNotFoundError:
        return
    except NotADirectoryError:
        raise RunLinkError(f"{run_dir} is a file, not a run folder.") from None
    stack: list[tuple[str, _Dir]] = [("", root)]
    try:
        while stack:
            prefix, folder = stack.pop()
            try:
                for name, st in _entries(folder):
                    seen += 1
                    if seen > MAX_ENTRIES:
                        raise RunLinkError(
                            f"{run_dir} holds more than {MAX_ENTRIES:,} entries; it is not "
                            "a Labwright run folder."
                        )
                    rel = f"{prefix}{name}"
                    kind = _kind(st)
                    if kind is not None:
                        found.append((rel, kind))
                    elif stat.S_ISDIR(st.st_mode):
                        try:
                            stack.append((rel + "/", _subdir(folder, name, rel, run_dir)))
                        except RunLinkError:  # became a link since it was listed
                            found.append((rel, "a link"))
                        except (FileNotFoundError, NotADirectoryError):  # gone, or a file now
                            continue
            finally:
                if folder is not root:
                    folder.close()
    finally:
        for _, folder in stack:
            folder.close()
        root.close()
    if found:
        raise _refusal(run_dir, sorted(found))


# -- layer 2: opening beneath the run folder ----------------------------------------------


class _Dir:
    """A folder reached without following links: its descriptor where the OS has *at()
    calls, else its path (checked component by component)."""

    def __init__(self, path: Path, fd: int | None) -> None:
        self.path, self.fd = path, fd

    def close(self) -> None:
        if self.fd is not None:
            os.close(self.fd)
            self.fd = None


def _open_root(run_dir: Path) -> _Dir:
    if not AT_CALLS:
        if not run_dir.exists():
            raise FileNotFoundError(str(run_dir))
        if not run_dir.is_dir():
            raise NotADirectoryError(str(run_dir))
        return _Dir(run_dir, None)
    return _Dir(run_dir, os.open(run_dir, _DIR_FLAGS))


def _entries(folder: _Dir) -> Iterator[tuple[str, os.stat_result]]:
    target: Any = folder.fd if folder.fd is not None else folder.path
    with os.scandir(target) as it:
        for entry in it:
            try:
                st = entry.stat(follow_symlinks=False)
            except FileNotFoundError:  # removed since it was listed
                continue
            yield entry.name, st


def _lstat(folder: _Dir, name: str) -> os.stat_result:
    if folder.fd is not None:
        return os.stat(name, dir_fd=folder.fd, follow_symlinks=False)
    return os.lstat(folder.path / name)


def _subdir(folder: _Dir, name: str, rel: str, run_dir: Path) -> _Dir:
    """The folder `name` in `folder`; RunLinkError if it is a link or not a folder."""
    if folder.fd is not None:
        try:
            fd = os.open(name, _DIR_FLAGS | _NOFOLLOW, dir_fd=folder.fd)
        except FileNotFoundError:
            raise
        except OSError as e:  # ELOOP or ENOTDIR (a link), ENOTDIR (a file)
            st = _lstat(folder, name)
            kind = _kind(st)
            # A folder now: it was a link a moment ago (swapped back meanwhile).
            if kind is None and not (e.errno in _LOOP or stat.S_ISDIR(st.st_mode)):
                raise
            raise _refusal(run_dir, [(rel, kind or "a link")]) from None
        return _Dir(folder.path / name, fd)
    kind = _kind(st := _lstat(folder, name))
    if kind is not None:
        raise _refusal(run_dir, [(rel, kind)])
    if not stat.S_ISDIR(st.st_mode):
        raise NotADirectoryError(str(folder.path / name))
    return _Dir(folder.path / name, None)


def _parts(rel: str | PurePath) -> list[str]:
    """The components of a path inside the run folder; RunLinkError for one that climbs
    out or is absolute (names can come from files of the folder: report.tex, meta)."""
    pure = PurePath(rel)
    parts = [p for p in pure.parts if p != "."]
    if pure.is_absolute() or pure.drive or not parts or ".." in parts or "\x00" in str(rel):
        raise RunLinkError(f"{_shown(str(rel))} is not a name inside the run folder.")
    return parts


@contextlib.contextmanager
def _folder_of(
    run_dir: Path, parts: list[str], *, create: bool = False
) -> Iterator[tuple[_Dir, str]]:
    """The folder holding the last of `parts`, reached from `run_dir` without following
    a link (made as needed with `create`), and that last name."""
    run_dir = Path(run_dir)
    if create:
        run_dir.mkdir(parents=True, exist_ok=True)
    folder = _open_root(run_dir)
    try:
        for i, name in enumerate(parts[:-1]):
            rel = "/".join(parts[: i + 1])
            try:
                inner = _subdir(folder, name, rel, run_dir)
            except FileNotFoundError:
                if not create:
                    raise
                _mkdir(folder, name)
                inner = _subdir(folder, name, rel, run_dir)
            folder.close()
            folder = inner
        yield folder, parts[-1]
    finally:
        folder.close()


def _mkdir(folder: _Dir, name: str) -> None:
    try:
        if folder.fd is not None:
            os.mkdir(name, dir_fd=folder.fd)
        else:
            os.mkdir(folder.path / name)
    except FileExistsError:  # made meanwhile, or a link: _subdir says which
        pass


def _regular(fd: int, run_dir: Path, rel: str) -> int:
    """`fd` if it holds a regular file (closed and refused otherwise), set blocking."""
    st = os.fstat(fd)
    if not stat.S_ISREG(st.st_mode):
        os.close(fd)
        kind = _kind(st)
        if kind is None:
            raise IsADirectoryError(f"{run_dir / rel} is a folder, not a file")
        raise _refusal(run_dir, [(rel, kind)])
    if _NONBLOCK:
        os.set_blocking(fd, True)
    return fd


def open_fd(run_dir: Path, rel: str | PurePath, flags: int, mode: int = 0o600) -> int:
    """A descriptor of the regular file `rel` beneath `run_dir`, no link followed.

    `flags` are os.open's (O_CREAT and O_EXCL as usual); the folders on the way
    must exist. RunLinkError when a link, a FIFO or the like is in the way;
    FileNotFoundError / FileExistsError as os.open raises them."""
    parts = _parts(rel)
    shown = "/".join(parts)
    flags |= _NOFOLLOW | _NONBLOCK | _CLOEXEC | _BINARY
    with _folder_of(run_dir, parts) as (folder, name):
        if folder.fd is not None:
            try:
                fd = os.open(name, flags, mode, dir_fd=folder.fd)
            except (FileNotFoundError, FileExistsError, PermissionError):
                raise
            except OSError as e:  # ELOOP: the name is a link; ENXIO: a FIFO, ...
                kind = "a link" if e.errno in _LOOP else _kind(_lstat(folder, name))
                if kind is None:
                    raise
                raise _refusal(run_dir, [(shown, kind)]) from None
            return _regular(fd, run_dir, shown)
        return _open_checked(folder, name, flags, mode, run_dir, parts)


def _open_checked(
    folder: _Dir, name: str, flags: int, mode: int, run_dir: Path, parts: list[str]
) -> int:
    """Without *at() calls: lstat, open by path, and make sure the file opened is the
    one checked and the folders on the way are still no links."""
    shown = "/".join(parts)
    path = folder.path / name
    try:
        before: os.stat_result | None = os.lstat(path)
    except FileNotFoundError:
        before = None
    if before is not None and _kind(before) is not None:
        raise _refusal(run_dir, [(shown, _kind(before) or "")])
    fd = os.open(path, flags, mode)
    try:
        got = os.fstat(fd)
        after = before if before is not None else os.lstat(path)
        if (got.st_dev, got.st_ino) != (after.st_dev, after.st_ino) or _kind(after):
            raise _refusal(run_dir, [(shown, "a link")])
        _recheck(run_dir, parts)
    except BaseException:
        os.close(fd)
        raise
    return _regular(fd, run_dir, shown)


def _recheck(run_dir: Path, parts: list[str]) -> None:
    here = Path(run_dir)
    for i, name in enumerate(parts[:-1]):
        here = here / name
        kind = _kind(os.lstat(here))
        if kind is not None:
            raise _refusal(run_dir, [("/".join(parts[: i + 1]), kind)])


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
        data = f.read() if limit is None else f.read(limit + 1)
    if limit is not None and len(data) > limit:
        raise OSError(f"{rel} is larger than {limit} bytes")
    return data


def read_text(run_dir: Path, rel: str | PurePath, *, errors: str = "strict") -> str:
    return read_bytes(run_dir, rel).decode("utf-8", errors)


def is_file(run_dir: Path, rel: str | PurePath) -> bool:
    """Whether `rel` is a regular file reached without a link (a link: False)."""
    try:
        parts = _parts(rel)
        with _folder_of(run_dir, parts) as (folder, name):
            return stat.S_ISREG(_lstat(folder, name).st_mode)
    except OSError:
        return False


def names_in(run_dir: Path, rel: str | PurePath = ".", pattern: str = "*") -> list[str]:
    """The regular files in the folder `rel` whose names match `pattern`, sorted.

    A missing folder has none; links and anything else that is not a file are left
    out (never followed). RunLinkError when the folder itself is reached by a link."""
    parts = [p for p in PurePath(rel).parts if p != "."]
    try:
        if parts:
            with _folder_of(run_dir, [*_parts(rel), "."]) as (folder, _):
                listed = list(_entries(folder))
        else:
            root = _open_root(Path(run_dir))
            try:
                listed = list(_entries(root))
            finally:
                root.close()
    except FileNotFoundError:
        return []
    return sorted(
        name
        for name, st in listed
        if stat.S_ISREG(st.st_mode) and not _is_link(st) and fnmatch.fnmatchcase(name, pattern)
    )


def make_dirs(run_dir: Path, rel: str | PurePath) -> Path:
    """Make the folder `rel` beneath `run_dir` (and those on the way), following no link."""
    parts = _parts(rel)
    with _folder_of(run_dir, [*parts, "."], create=True):
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
    parts = _parts(rel)
    with _folder_of(run_dir, parts, create=True) as (folder, name):
        if folder.fd is not None:
            with atomic_writer(name, mode=mode, dir_fd=folder.fd) as f:
                yield f
        else:
            with atomic_writer(folder.path / name, mode=mode) as f:
                yield f
            _recheck(Path(run_dir), parts)


def write_text(run_dir: Path, rel: str | PurePath, text: str, *, mode: int = 0o600) -> Path:
    return write_atomic(run_dir, rel, text.encode("utf-8"), mode=mode)


def write_json(run_dir: Path, rel: str | PurePath, data: Any, *, mode: int = 0o600) -> Path:
    # As atomic_write_json: names with undecodable bytes stay valid JSON (\\udcXX).
    text = json.dumps(data, ensure_ascii=False, indent=2) + "\n"
    return write_atomic(run_dir, rel, text.encode("utf-8", "backslashreplace"), mode=mode)


def remove(run_dir: Path, rel: str | PurePath) -> None:
    """Remove the entry `rel` (a link itself, never its target); absent is fine."""
    parts = _parts(rel)
    try:
        with _folder_of(run_dir, parts) as (folder, name):
            if folder.fd is not None:
                os.unlink(name, dir_fd=folder.fd)
            else:
                os.unlink(folder.path / name)
    except FileNotFoundError:
        pass
