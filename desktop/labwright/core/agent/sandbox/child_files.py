"""Reading back files the figure child could have touched, without trusting them.

The child may replace any entry of its work dir: a FIFO makes a plain ``open()``
block until someone writes to it (forever, once the child is dead), a symbolic
link sends the read elsewhere, a device or socket does whatever opening it does.
So every file the parent reads back is

- checked with ``lstat`` to be a regular file before it is opened at all,
- opened with ``O_NOFOLLOW`` and ``O_NONBLOCK`` (opening a FIFO cannot block,
  a link is not followed), relative to a folder descriptor where the platform
  has them, so a folder swapped for a link is not followed either,
- checked again with ``fstat`` to be the same regular file, and
- read with a size cap (the head, or the tail for logs).

A refusal is a `ChildFileError` whose message says what was found; the runner
puts it into the tool result.
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path
from typing import Literal

Keep = Literal["all", "head", "tail"]

_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_READ_FLAGS = (
    os.O_RDONLY
    | _NOFOLLOW
    | getattr(os, "O_NONBLOCK", 0)
    | getattr(os, "O_NOCTTY", 0)
    | getattr(os, "O_CLOEXEC", 0)
    | getattr(os, "O_BINARY", 0)
)
_DIR_FLAGS = (
    os.O_RDONLY
    | _NOFOLLOW
    | getattr(os, "O_DIRECTORY", 0)
    | getattr(os, "O_NONBLOCK", 0)
    | getattr(os, "O_CLOEXEC", 0)
)
# Where os.open(dir_fd=) and os.listdir(fd) work (Linux, macOS, the BSDs).
DIR_FDS = os.open in os.supports_dir_fd and os.listdir in os.supports_fd


class ChildFileError(OSError):
    """A file the child left is not a regular file, or not readable within its cap."""


def kind_of(mode: int) -> str:
    """The kind of a non-regular file, as a message names it."""
    if stat.S_ISLNK(mode):
        return "a symbolic link"
    if stat.S_ISFIFO(mode):
        return "a FIFO (named pipe)"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISDIR(mode):
        return "a folder"
    return "not a regular file"


def _refused(name: str, what: str) -> ChildFileError:
    expected = "a folder" if name.endswith("/") else "a regular file"
    return ChildFileError(f"{name} is {what}, not {expected}")


def open_dir(path: Path) -> int:
    """A descriptor of the folder at `path`, refusing a link or anything but a folder."""
    try:
        st = os.lstat(path)
    except OSError as exc:
        raise ChildFileError(f"{path.name} is missing ({exc.strerror})") from exc
    if not stat.S_ISDIR(st.st_mode):
        raise _refused(path.name + "/", kind_of(st.st_mode))
    try:
        fd = os.open(path, _DIR_FLAGS)
    except OSError as exc:
        raise _open_error(path.name + "/", exc) from exc
    after = os.fstat(fd)
    if not stat.S_ISDIR(after.st_mode) or (after.st_dev, after.st_ino) != (st.st_dev, st.st_ino):
        os.close(fd)
        raise ChildFileError(f"{path.name}/ was replaced while it was opened")
    return fd


def _open_error(name: str, exc: OSError) -> ChildFileError:
    if exc.errno in (errno.ELOOP, errno.EMLINK):  # O_NOFOLLOW met a link (EMLINK: FreeBSD)
        return _refused(name, "a symbolic link")
    if exc.errno == errno.ENXIO:  # opening a socket (or a FIFO with no reader)
        return _refused(name, "a socket")
    return ChildFileError(f"{name} could not be opened ({exc.strerror})")


def open_regular(name: str, *, dir_fd: int | None = None, folder: Path | None = None) -> int:
    """A read-only descriptor of the regular file `name` in a folder (a descriptor from
    `open_dir`, or a path where the platform has no folder descriptors)."""
    where: dict = {"dir_fd": dir_fd} if dir_fd is not None else {}
    path: str | Path = name if dir_fd is not None else (folder or Path(".")) / name
    try:
        st = os.stat(path, follow_symlinks=False, **where)
    except OSError as exc:
        raise ChildFileError(f"{name} is missing ({exc.strerror})") from exc
    if not stat.S_ISREG(st.st_mode):
        raise _refused(name, kind_of(st.st_mode))
    try:
        fd = os.open(path, _READ_FLAGS, **where)
    except OSError as exc:
        raise _open_error(name, exc) from exc
    after = os.fstat(fd)
    if not stat.S_ISREG(after.st_mode) or (after.st_dev, after.st_ino) != (st.st_dev, st.st_ino):
        os.close(fd)
        what = kind_of(after.st_mode) if not stat.S_ISREG(after.st_mode) else "another file"
        raise ChildFileError(f"{name} was replaced by {what} while it was opened")
    return fd


def read_fd(fd: int, limit: int, *, keep: Keep = "all") -> bytes:
    """Read a regular file's descriptor, at most `limit` bytes, and close it.

    keep="all": a file over `limit` is an error; "head"/"tail": its first/last `limit`
    bytes (a log's tail).
    """
    try:
        size = os.fstat(fd).st_size
        if size > limit and keep == "all":
            raise ChildFileError(f"it is larger than {_size_text(limit)}")
        if size > limit and keep == "tail":
            os.lseek(fd, size - limit, os.SEEK_SET)
        chunks: list[bytes] = []
        left = limit + (1 if keep == "all" else 0)  # one byte more: a file that grew is seen
        while left > 0:
            data = os.read(fd, min(left, 1 << 20))
            if not data:
                break
            chunks.append(data)
            left -= len(data)
    except BlockingIOError as exc:  # a regular file never blocks; be sure anyway
        raise ChildFileError("it could not be read without waiting") from exc
    finally:
        os.close(fd)
    data = b"".join(chunks)
    if len(data) > limit:
        raise ChildFileError(f"it is larger than {_size_text(limit)}")
    return data


def read_capped(path: Path, limit: int, *, keep: Keep = "all") -> bytes:
    """The content of the regular file at `path` (its folder trusted), capped as read_fd."""
    fd = open_regular(path.name, folder=path.parent)
    try:
        return read_fd(fd, limit, keep=keep)
    except ChildFileError as exc:
        raise ChildFileError(f"{path.name}: {exc}") from exc


def _size_text(limit: int) -> str:
    mib = 1024 * 1024
    return f"{limit // mib} MB" if limit >= mib and limit % mib == 0 else f"{limit} bytes"
