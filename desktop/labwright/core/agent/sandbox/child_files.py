"""Reading back files the figure child could have touched, without trusting them.

The child may replace any entry of its work dir: a FIFO makes a plain ``open()``
block until someone writes to it (forever, once the child is dead), a symbolic
link sends the read elsewhere, a device or socket does whatever opening it does.
So every file the parent reads back is opened as core/beneath.py opens: looked
at with ``lstat`` first (a device or socket is never opened), opened with
``O_NOFOLLOW | O_NONBLOCK`` relative to a folder descriptor (opening a FIFO
cannot block, no link is followed, not even a folder swapped for one), checked
with ``fstat`` to be a regular file, and read with a size cap (the head, or the
tail for logs).

A refusal is a `ChildFileError` whose message says what was found; the runner
puts it into the tool result.
"""

from __future__ import annotations

import os
from pathlib import Path

from labwright.core import beneath
from labwright.core.beneath import Folder, Keep

__all__ = ["ChildFileError", "Folder", "Keep", "open_dir", "open_regular", "read_capped", "read_fd"]


class ChildFileError(OSError):
    """A file the child left is not a regular file, or not readable within its cap."""


def _refused(name: str, what: str) -> ChildFileError:
    expected = "a folder" if name.endswith("/") else "a regular file"
    return ChildFileError(f"{name} is {what}, not {expected}")


def _open_error(name: str, exc: OSError) -> ChildFileError:
    if isinstance(exc, beneath.NotPlain):
        return _refused(name, exc.kind)
    if isinstance(exc, FileNotFoundError):
        return ChildFileError(f"{name.rstrip('/')} is missing ({exc.strerror})")
    if isinstance(exc, IsADirectoryError):
        return _refused(name, beneath.FOLDER)
    if isinstance(exc, NotADirectoryError):
        return _refused(name, beneath.FILE)
    return ChildFileError(f"{name} could not be opened ({exc.strerror})")


def open_dir(path: Path) -> Folder:
    """The folder at `path` (its own name no link, nor anything but a folder), to open
    and list the child's files in. The caller closes it."""
    try:
        return Folder.open_root(path, follow=False)
    except OSError as exc:
        raise _open_error(path.name + "/", exc) from exc


def open_regular(name: str, *, folder: Folder | Path) -> int:
    """A read-only descriptor of the regular file `name` in `folder` (a Folder from
    `open_dir`, or the path of one the caller trusts)."""
    if isinstance(folder, Path):
        try:
            root = Folder.open_root(folder)
        except OSError as exc:
            raise _open_error(folder.name + "/", exc) from exc
        with root:
            return open_regular(name, folder=root)
    try:
        return folder.open(name)
    except OSError as exc:
        raise _open_error(name, exc) from exc


def read_fd(fd: int, limit: int, *, keep: Keep = "all") -> bytes:
    """Read a regular file's descriptor, at most `limit` bytes, and close it.

    keep="all": a file over `limit` is an error; "head"/"tail": its first/last `limit`
    bytes (a log's tail).
    """
    try:
        return beneath.read_capped(fd, limit, keep=keep)
    except beneath.TooLarge as exc:
        raise ChildFileError(f"it is {exc.strerror}") from exc
    except BlockingIOError as exc:  # a regular file never blocks; be sure anyway
        raise ChildFileError("it could not be read without waiting") from exc
    finally:
        os.close(fd)


def read_capped(path: Path, limit: int, *, keep: Keep = "all") -> bytes:
    """The content of the regular file at `path` (its folder trusted), capped as read_fd."""
    fd = open_regular(path.name, folder=path.parent)
    try:
        return read_fd(fd, limit, keep=keep)
    except ChildFileError as exc:
        raise ChildFileError(f"{path.name}: {exc}") from exc
