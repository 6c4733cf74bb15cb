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

How, by platform:

* Linux >= 5.6: one ``openat2(2)`` with ``RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS
  | RESOLVE_NO_MAGICLINKS`` (through ctypes; Python has no binding).
* macOS, the BSDs, older Linux, or a seccomp filter refusing openat2: a walk,
  each directory opened with ``O_DIRECTORY | O_NOFOLLOW`` relative to the last
  one, the file with ``O_NOFOLLOW``. ``LABWRIGHT_FENCE_WALK=1`` forces it (the
  tests race both).
* Windows: open by name, then the opened handle's final path
  (``GetFinalPathNameByHandleW``) must lie inside the folder; folders are
  listed by name and their final path compared before and after.

Every file is opened with ``O_NONBLOCK`` and checked with ``fstat``: a FIFO,
device or socket is refused at once rather than blocking the run.

Readers read from the descriptor (``Opened.stream()``: an independent position
per stream, by ``pread``), never from the path again.
"""

from __future__ import annotations

import contextlib
import ctypes
import errno
import io
import os
import platform
import stat
import sys
import threading
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any, BinaryIO

__all__ = [
    "NotRegularFile",
    "Opened",
    "PathChanged",
    "open_beneath",
    "open_by_name",
    "openat2_available",
    "way",
]

WALK_SWITCH = "LABWRIGHT_FENCE_WALK"

_O_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
_O_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_O_DIRECTORY = getattr(os, "O_DIRECTORY", 0)
_O_NONBLOCK = getattr(os, "O_NONBLOCK", 0)
_O_NOCTTY = getattr(os, "O_NOCTTY", 0)
_O_BINARY = getattr(os, "O_BINARY", 0)
# A directory on the way only anchors the next lookup: O_PATH (Linux) needs no
# read permission on it, as a lookup by name needs none.
_O_LOOKUP = getattr(os, "O_PATH", os.O_RDONLY)

# Files: a FIFO opened without O_NONBLOCK waits for a writer forever; a terminal
# must not become the process's controlling one.
_FILE_FLAGS = os.O_RDONLY | _O_NONBLOCK | _O_NOCTTY | _O_CLOEXEC | _O_BINARY
_DIR_FLAGS = os.O_RDONLY | _O_DIRECTORY | _O_CLOEXEC
_STEP_FLAGS = _O_LOOKUP | _O_DIRECTORY | _O_NOFOLLOW | _O_CLOEXEC
# Listing through the descriptor (fdopendir) is what makes a listing race-free.
_LIST_BY_FD = os.scandir in os.supports_fd


class PathChanged(OSError):
    """The folder kept changing under the open (a link appeared where the plan had none)."""


class NotRegularFile(OSError):
    """A FIFO, device or socket: refused, never read."""


# --------------------------------------------------------------------------
# openat2 through ctypes
# --------------------------------------------------------------------------

_RESOLVE_NO_MAGICLINKS = 0x02
_RESOLVE_NO_SYMLINKS = 0x04
_RESOLVE_BENEATH = 0x08
_RESOLVE = _RESOLVE_BENEATH | _RESOLVE_NO_SYMLINKS | _RESOLVE_NO_MAGICLINKS

# openat2 is 437 in the syscall table every architecture shares since 5.6; the
# few with their own numbering (alpha, ia64, mips) use the walk.
_SYS_OPENAT2 = 437
_SHARED_TABLE = {
    "x86_64", "amd64", "i386", "i686", "aarch64", "arm64", "armv7l", "armv6l",
    "riscv64", "ppc64le", "ppc64", "s390x", "loongarch64",
}  # fmt: skip


class _OpenHow(ctypes.Structure):
    _fields_ = [
        ("flags", ctypes.c_uint64),
        ("mode", ctypes.c_uint64),
        ("resolve", ctypes.c_uint64),
    ]


_syscall: Any = None
_available: bool | None = None
_probe_lock = threading.Lock()
_AT_FDCWD = -100


def _openat2(dir_fd: int, path: str, flags: int) -> int:
    how = _OpenHow(flags, 0, _RESOLVE)
    fd = _syscall(_SYS_OPENAT2, dir_fd, os.fsencode(path), ctypes.byref(how), ctypes.sizeof(how))
    if fd < 0:
        err = ctypes.get_errno()
        raise OSError(err, os.strerror(err), path)
    return int(fd)


def openat2_available() -> bool:
    """Does this kernel (and any seccomp filter) let us call openat2? Probed once."""
    global _available
    with _probe_lock:
        if _available is None:
            _available = _probe()
        return _available


def _probe() -> bool:
    global _syscall
    if not sys.platform.startswith("linux") or platform.machine().lower() not in _SHARED_TABLE:
        return False
    try:
        fn = ctypes.CDLL(None, use_errno=True).syscall
    except (OSError, AttributeError):  # no libc syscall() (a static build)
        return False
    fn.restype = ctypes.c_long
    fn.argtypes = [
        ctypes.c_long,
        ctypes.c_int,
        ctypes.c_char_p,
        ctypes.POINTER(_OpenHow),
        ctypes.c_size_t,
    ]
    _syscall = fn
    try:
        os.close(_openat2(_AT_FDCWD, "/", _O_LOOKUP | _O_DIRECTORY | _O_CLOEXEC))
    except OSError as e:
        # Only a kernel that knows RESOLVE_BENEATH refuses an absolute path with EXDEV;
        # ENOSYS (before 5.6), EPERM (a seccomp filter) or EINVAL mean: walk instead.
        return e.errno == errno.EXDEV
    return False  # opened "/" beneath the working directory: the flags were not honoured


def way() -> str:
    """How paths are opened now: "openat2", "walk" or "windows" (for tests and doctor)."""
    if os.name == "nt":
        return "windows"
    if os.environ.get(WALK_SWITCH) == "1" or not openat2_available():
        return "walk"
    return "openat2"


# --------------------------------------------------------------------------
# Opening
# --------------------------------------------------------------------------


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
        return _open_windows(root_real, parts, label)
    root_fd = os.open(root_real, _DIR_FLAGS)
    try:
        fd = _open_posix(root_fd, parts)
    finally:
        os.close(root_fd)
    return Opened.adopt(fd, label)


def _open_posix(root_fd: int, parts: Sequence[str]) -> int:
    if not parts:
        return os.dup(root_fd)
    if way() == "openat2":
        for _ in range(8):
            try:
                return _openat2(root_fd, "/".join(parts), _FILE_FLAGS)
            except OSError as e:
                # EAGAIN: the kernel saw a rename race it could not rule out; ask again.
                if e.errno != errno.EAGAIN:
                    raise _named(e, parts) from None
        raise PathChanged(errno.EAGAIN, "the folder kept changing while it was opened")
    return _walk(root_fd, parts)


def _walk(root_fd: int, parts: Sequence[str]) -> int:
    fd = root_fd
    try:
        for name in parts[:-1]:
            step = os.open(name, _STEP_FLAGS, dir_fd=fd)
            if fd != root_fd:
                os.close(fd)
            fd = step
        return os.open(parts[-1], _FILE_FLAGS | _O_NOFOLLOW, dir_fd=fd)
    except OSError as e:
        raise _named(e, parts) from None
    finally:
        if fd != root_fd:
            os.close(fd)


def _named(e: OSError, parts: Sequence[str]) -> OSError:
    """The error with the plan's relative path as its file name (no absolute path in messages)."""
    if e.errno == errno.ENXIO:  # a socket, or a device with nothing behind it
        return NotRegularFile(
            e.errno, "not a regular file (a device, pipe or socket)", "/".join(parts)
        )
    return type(e)(e.errno, e.strerror, "/".join(parts))


def open_by_name(path: Path | str) -> Opened:
    """A file or folder opened by its name, links followed: for paths the caller trusts.

    Still never blocks on a FIFO and refuses special files; the readers' public
    functions take a plain path through this (tests, the package's own files).
    """
    path = Path(path)
    if os.name == "nt" and path.is_dir():
        return Opened(None, path, os.stat(path))
    try:
        fd = os.open(path, _FILE_FLAGS)
    except OSError as e:
        if e.errno == errno.ENXIO:
            raise NotRegularFile(
                e.errno, "not a regular file (a device, pipe or socket)", str(path)
            ) from None
        raise
    return Opened.adopt(fd, path)


# --------------------------------------------------------------------------
# Windows: open, then check where the handle really is
# --------------------------------------------------------------------------


def _final_path_of(fd: int) -> str:
    import msvcrt

    kernel32 = ctypes.WinDLL("kernel32", use_last_error=True)  # type: ignore[attr-defined]
    final_path = kernel32.GetFinalPathNameByHandleW
    final_path.argtypes = [ctypes.c_void_p, ctypes.c_wchar_p, ctypes.c_uint32, ctypes.c_uint32]
    final_path.restype = ctypes.c_uint32
    handle = msvcrt.get_osfhandle(fd)  # type: ignore[attr-defined]
    buf = ctypes.create_unicode_buffer(32768)
    # FILE_NAME_NORMALIZED | VOLUME_NAME_DOS (0): the path with every reparse point resolved.
    n = final_path(handle, buf, len(buf), 0)
    if not n or n >= len(buf):
        raise PathChanged(errno.EIO, "cannot tell where the opened file is")
    return _plain(buf.value)


def _plain(path: str) -> str:
    """A final path without its \\\\?\\ prefix, as realpath writes it."""
    if path.startswith("\\\\?\\UNC\\"):
        return "\\\\" + path[8:]
    return path.removeprefix("\\\\?\\")


def _within(root: str, target: str) -> bool:
    root_n, target_n = os.path.normcase(root), os.path.normcase(target)
    try:
        return os.path.commonpath([root_n, target_n]) == root_n
    except ValueError:  # another drive
        return False


def _open_windows(root_real: str, parts: Sequence[str], label: Path) -> Opened:
    root_final = _plain(os.path.realpath(root_real))
    if os.path.isdir(label):
        # os.open cannot open a folder; list it by name, checked now and by Opened.scandir.
        opened = Opened(None, label, os.stat(label))
        opened.root_final = root_final
        opened.check_where()
        return opened
    fd = os.open(label, _FILE_FLAGS)
    try:
        if not _within(root_final, _final_path_of(fd)):
            raise PathChanged(errno.EXDEV, "the file moved outside the folder while it was opened")
    except BaseException:
        os.close(fd)
        raise
    return Opened.adopt(fd, label)


# --------------------------------------------------------------------------
# What was opened
# --------------------------------------------------------------------------


class Opened:
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
        try:
            st = os.fstat(fd)
            if not (stat.S_ISREG(st.st_mode) or stat.S_ISDIR(st.st_mode)):
                raise NotRegularFile(
                    errno.EINVAL, "not a regular file (a device, pipe or socket)", path.name
                )
        except BaseException:
            os.close(fd)
            raise
        return cls(fd, path, st)

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
        if self.fd is not None and _LIST_BY_FD:
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
        if self.root_final and not _within(self.root_final, _plain(os.path.realpath(self.path))):
            raise PathChanged(errno.EXDEV, "the folder moved outside while it was listed")
        if self.fd is not None:
            now = os.stat(self.path)
            if (now.st_dev, now.st_ino) != (self.st.st_dev, self.st.st_ino):
                raise PathChanged(errno.EXDEV, "the folder was replaced while it was listed")

    # -- lifetime --

    def close(self) -> None:
        if self.fd is not None:
            fd, self.fd = self.fd, None
            os.close(fd)

    def __enter__(self) -> Opened:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

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
