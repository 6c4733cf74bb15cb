"""Open a path beneath the picked folder in one step: never outside it, never blocking.

``workspace.resolve_in_folder`` plans: it resolves a tool path with the links
inside the folder followed and refuses one that leaves it. A plan is only a
string, though, and the folder may be shared: between the check and an open by
name, another user can swap ``sub/`` for a link to their private folder. So
nothing is opened by name. ``open_beneath`` opens the plan's components relative
to a descriptor of the folder *without following any link at all*: the plan
already has every in-folder link resolved, so a link met now was put there
after the check, and the open fails (ELOOP or ENOTDIR) instead of leaving the
folder. The caller plans again (the link may lead inside) or gives up.

The opening itself is core/beneath.py's: one ``openat2`` with
``RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS`` on Linux >= 5.6, else a walk of
``O_DIRECTORY | O_NOFOLLOW`` descriptors (``LABWRIGHT_FENCE_WALK=1`` forces it;
the tests race both); FIFOs, devices and sockets are refused at once. On
Windows a file is opened by name, and the opened handle's final path
(``GetFinalPathNameByHandleW``) must lie inside the folder: in-folder links may
be followed there, and nothing outside is reached; folders are listed by name
and their final path compared before and after.

Readers read from the descriptor (``Opened.stream()``: an independent position
per stream, by ``pread``), never from the path again.
"""

from __future__ import annotations

import contextlib
import errno
import io
import os
import stat
import threading
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import BinaryIO

from labwright.core import beneath
from labwright.core.beneath import (
    WALK_SWITCH,
    NotRegularFile,
    PathChanged,
    openat2_available,
    way,
)

__all__ = [
    "WALK_SWITCH",
    "NotRegularFile",
    "Opened",
    "PathChanged",
    "open_beneath",
    "open_by_name",
    "openat2_available",
    "way",
]


def open_beneath(root_real: str, parts: Sequence[str]) -> Opened:
    """``root_real``/``parts`` opened without following a single link.

    ``root_real`` is the folder's realpath; ``parts`` the plan's names below it
    (no ``..``, no links: ``resolve_in_folder`` resolved them). Raises OSError:
    ELOOP or ENOTDIR when a link stands where the plan has a name (the caller
    plans again), FileNotFoundError, PermissionError, NotRegularFile, or
    PathChanged (Windows: the handle is not where the plan said).
    """
    for name in parts:
        if name in ("", ".", "..") or "/" in name or (os.sep != "/" and os.sep in name):
            raise ValueError(f"not a name of the plan: {name!r}")
    label = Path(os.path.join(root_real, *parts))
    if os.name == "nt":
        return _open_windows(root_real, label)
    with beneath.Folder.open_root(root_real) as root:
        fd = beneath.open_in(root, parts, folders=True)
    return Opened.adopt(fd, label)


def open_by_name(path: Path | str) -> Opened:
    """A file or folder opened by its name, links followed: for paths the caller trusts.

    Still never blocks on a FIFO and refuses special files; the readers' public
    functions take a plain path through this (tests, the package's own files).
    """
    path = Path(path)
    if os.name == "nt" and path.is_dir():
        return Opened(None, path, os.stat(path))
    try:
        fd = os.open(path, os.O_RDONLY | beneath.FILE_FLAGS)
    except OSError as e:
        if e.errno == errno.ENXIO:  # a socket, or a device with nothing behind it
            raise NotRegularFile(str(path), "a socket or a device") from None
        raise
    return Opened.adopt(fd, path)


def _open_windows(root_real: str, label: Path) -> Opened:
    root_final = beneath.plain_path(os.path.realpath(root_real))
    if os.path.isdir(label):
        # os.open cannot open a folder; list it by name, checked now and by Opened.scandir.
        opened = Opened(None, label, os.stat(label))
        opened.root_final = root_final
        opened.check_where()
        return opened
    fd = os.open(label, os.O_RDONLY | beneath.FILE_FLAGS)
    try:
        if not beneath.within(root_final, beneath.final_path_of(fd)):
            raise PathChanged(errno.EXDEV, "the file moved outside the folder while it was opened")
    except BaseException:
        os.close(fd)
        raise
    return Opened.adopt(fd, label)


# --------------------------------------------------------------------------
# What was opened
# --------------------------------------------------------------------------


class Opened(beneath.Held):
    """A regular file or a folder opened beneath the picked folder (or by name, trusted).

    ``path`` is where it is (the plan's real path): a label for names, suffixes
    and messages, never opened again. ``st`` is the descriptor's fstat; caches
    key on ``identity`` (device, inode, size, mtime), which names the file
    opened rather than whatever the path names now.
    """

    def __init__(self, fd: int | None, path: Path, st: os.stat_result) -> None:
        self.fd = fd
        self.path = path
        self.st = st
        self.root_final = ""  # Windows folders only: the folder their final path must stay in
        self._seek_lock = threading.Lock()  # Windows: no pread, so seek + read under a lock

    @classmethod
    def adopt(cls, fd: int, path: Path) -> Opened:
        """Take ownership of `fd`; refuse (and close) anything but a regular file or folder."""
        return cls(fd, path, beneath.check_opened(fd, path.name, folders=True))

    # -- facts --

    @property
    def is_dir(self) -> bool:
        return stat.S_ISDIR(self.st.st_mode)

    @property
    def name(self) -> str:
        return self.path.name

    @property
    def suffix(self) -> str:
        return self.path.suffix

    @property
    def size(self) -> int:
        return self.st.st_size

    @property
    def identity(self) -> tuple[int, int, int, int]:
        st = self.st
        return (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns)

    def __repr__(self) -> str:
        return f"Opened({str(self.path)!r}, fd={self.fd})"

    # -- reading --

    def stream(self) -> BinaryIO:
        """A binary file object over the descriptor, with its own position."""
        return io.BufferedReader(_Stream(self), buffer_size=64 * 1024)

    def read_bytes(self) -> bytes:
        with self.stream() as f:
            return f.read()

    def pread(self, n: int, pos: int) -> bytes:
        """Up to `n` bytes from `pos` (fewer only at the end of the file)."""
        chunks = []
        while n > 0:
            chunk = self.pread_once(n, pos)
            if not chunk:
                break
            chunks.append(chunk)
            n -= len(chunk)
            pos += len(chunk)
        return b"".join(chunks)

    def pread_once(self, n: int, pos: int) -> bytes:
        if self.fd is None:  # closed, or a folder listed by name (Windows)
            raise OSError(errno.EBADF, "not open for reading", self.name)
        if hasattr(os, "pread"):
            return os.pread(self.fd, n, pos)
        with self._seek_lock:
            os.lseek(self.fd, pos, os.SEEK_SET)
            return os.read(self.fd, n)

    def scandir(self) -> Iterator[os.DirEntry[str]]:
        """The folder's entries, listed through the descriptor (by name on Windows).

        On POSIX each entry's stat() is an fstatat() relative to the descriptor,
        so keep this Opened open while the entries are looked at.
        """
        if self.fd is not None and beneath.AT_CALLS:  # listed through the descriptor
            with os.scandir(self.fd) as it:
                yield from it
            return
        # Listed by name (Windows; a POSIX without fdopendir): checked before and after.
        self.check_where()
        with os.scandir(self.path) as it:
            entries = list(it)
        self.check_where()
        yield from entries

    def check_where(self) -> None:
        """For a folder listed by name: it must still be the one opened, inside the folder."""
        where = beneath.plain_path(os.path.realpath(self.path))
        if self.root_final and not beneath.within(self.root_final, where):
            raise PathChanged(errno.EXDEV, "the folder moved outside while it was listed")
        if self.fd is not None:
            now = os.stat(self.path)
            if (now.st_dev, now.st_ino) != (self.st.st_dev, self.st.st_ino):
                raise PathChanged(errno.EXDEV, "the folder was replaced while it was listed")

    # -- lifetime --

    def __del__(self) -> None:  # a reader that forgot close() must not leak the descriptor
        with contextlib.suppress(OSError):
            self.close()


class _Stream(io.RawIOBase):
    """Bytes of an Opened from a position of its own (pread), so streams never disturb each other.

    It has no name and no fileno on purpose: a library handed it cannot open
    the file again by name.
    """

    def __init__(self, opened: Opened) -> None:
        super().__init__()
        self._opened = opened
        self._pos = 0

    def readable(self) -> bool:
        return True

    def seekable(self) -> bool:
        return True

    def readinto(self, b: bytearray | memoryview) -> int:  # type: ignore[override]
        view = memoryview(b).cast("B")
        data = self._opened.pread_once(len(view), self._pos)
        n = len(data)
        view[:n] = data
        self._pos += n
        return n

    def seek(self, offset: int, whence: int = os.SEEK_SET) -> int:
        if whence == os.SEEK_SET:
            pos = offset
        elif whence == os.SEEK_CUR:
            pos = self._pos + offset
        elif whence == os.SEEK_END:
            assert self._opened.fd is not None
            pos = os.fstat(self._opened.fd).st_size + offset
        else:
            raise ValueError(f"invalid whence ({whence})")
        if pos < 0:
            raise OSError(errno.EINVAL, "negative seek position")
        self._pos = pos
        return pos

    def tell(self) -> int:
        return self._pos
