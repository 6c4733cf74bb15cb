"""Atomic file writes: the one way Labwright replaces a file.

The new content goes to a temporary file beside the target, is flushed to disk,
then renamed over the target (os.replace, atomic on POSIX and Windows). A reader
sees the old file or the new one, never half of either; a write stopped by an
exception, a full disk or a kill leaves the old file as it was (a kill may leave a
`.<name>.<random>.tmp` beside it, which is never read).

Standard library only: settings, the sandbox's figure publisher and the run store
all use it, and none of them should pull in the others' imports.
"""

from __future__ import annotations

import json
import os
import secrets
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import IO, Any

__all__ = ["atomic_write_bytes", "atomic_write_json", "atomic_write_text", "atomic_writer"]

_FLAGS = (
    os.O_WRONLY
    | os.O_CREAT
    | os.O_EXCL
    | getattr(os, "O_NOFOLLOW", 0)
    | getattr(os, "O_CLOEXEC", 0)
    | getattr(os, "O_BINARY", 0)
)


def _create_temp(path: Path, mode: int, dir_fd: int | None) -> tuple[int, Path]:
    # O_EXCL: never opens a file (or follows a link) that is already there.
    for _attempt in range(100):
        tmp = path.with_name(f".{path.name}.{secrets.token_hex(6)}.tmp")
        try:
            fd = (
                os.open(tmp, _FLAGS, mode)
                if dir_fd is None
                else os.open(tmp, _FLAGS, mode, dir_fd=dir_fd)
            )
            return fd, tmp
        except FileExistsError:
            continue
    raise FileExistsError(f"could not create a temporary file next to {path}")


@contextmanager
def atomic_writer(
    path: Path | str, *, mode: int = 0o600, dir_fd: int | None = None
) -> Iterator[IO[bytes]]:
    """A binary file that replaces `path` when the block ends without an exception.

    On any exception (or a failed rename) the temporary file is removed and `path`
    keeps its old content. `mode` is the new file's permission before the umask:
    0o600 by default (run files hold the user's lab material), 0o666 for "like open()".
    The folder must exist. With `dir_fd` (a descriptor of the folder, POSIX only),
    `path` is a bare name in that folder, and the temporary file, the rename and the
    clean-up all happen in the folder the descriptor holds, whatever its path now
    leads to (rundir/fence.py: nothing in a run folder is followed out of it). A
    rename over a link replaces the link itself, never the file it points to.
    """
    path = Path(path)
    fd, tmp = _create_temp(path, mode, dir_fd)
    try:
        with os.fdopen(fd, "wb") as f:
            yield f
            f.flush()
            os.fsync(f.fileno())
        if dir_fd is None:
            os.replace(tmp, path)
        else:
            os.replace(tmp, path, src_dir_fd=dir_fd, dst_dir_fd=dir_fd)
    except BaseException:
        with suppress(FileNotFoundError):
            os.unlink(tmp) if dir_fd is None else os.unlink(tmp, dir_fd=dir_fd)
        raise


def atomic_write_bytes(path: Path, data: bytes, *, mode: int = 0o600) -> None:
    """Replace `path` with `data` atomically, creating its folder if needed."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with atomic_writer(path, mode=mode) as f:
        f.write(data)


def atomic_write_text(path: Path, text: str) -> None:
    atomic_write_bytes(path, text.encode("utf-8"))


def atomic_write_json(path: Path, data: Any) -> None:
    # A file name with undecodable bytes reaches us as lone surrogates (surrogateescape);
    # written as \udcXX escapes they stay valid JSON and read back as the same string.
    text = json.dumps(data, ensure_ascii=False, indent=2) + "\n"
    atomic_write_bytes(path, text.encode("utf-8", "backslashreplace"))
