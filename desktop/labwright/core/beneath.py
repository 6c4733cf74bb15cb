"""Opening files beneath a folder without following a link: the one mechanism.

Three policies stand on it, each with its own rule for what a link means:
``material/fence.py`` (the picked folder: its links are resolved first, then
the plan is opened with none followed), ``rundir/fence.py`` (a run folder holds
no links at all) and ``agent/sandbox/child_files.py`` (what the figure child
left). This module knows how; they decide what is refused and what it is called.

How, on POSIX (every OS with *at() calls, ``AT_CALLS``): a ``Folder`` is a
descriptor, and each name below it is opened relative to the one above,
folders with ``O_DIRECTORY | O_NOFOLLOW``, the last name with ``O_NOFOLLOW |
O_NONBLOCK | O_NOCTTY`` (a FIFO cannot block the open, a terminal never becomes
ours). It is looked at with ``lstat`` first, so a device or socket is not even
opened, and the open's ``fstat`` must show a regular file (or a folder where
asked). Linux >= 5.6 can do a whole path in one ``openat2`` with
``RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS`` (``open_in``;
``LABWRIGHT_FENCE_WALK=1`` forces the walk). A link met on the way is
``LinkMet`` (ELOOP), never followed; a FIFO, socket or device is
``NotRegularFile``; both carry ``rel`` and ``kind`` for the caller's message.

Without *at() calls (Windows): a ``Folder`` is a path whose components were
``lstat``-ed (no link, junction or other reparse point) and whose identities
(device, file index) are kept; an opened file must be the one looked at, and
``verify()`` checks the folders again after an open or a listing, so a swap is
caught unless it is undone before that check. The picked folder's fence uses
the stronger check of where the opened handle really is instead
(``final_path_of``), which lets it allow the links it resolved itself.

Reads are capped (``read_capped``: the whole file up to a limit, or its head or
tail); writes are atomic (core/atomic.py) in the folder the descriptor holds.
"""

from __future__ import annotations

import contextlib
import ctypes
import errno
import os
import platform
import stat
import sys
import threading
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import IO, Any, Literal, TypeVar

from labwright.core.atomic import atomic_writer

WALK_SWITCH = "LABWRIGHT_FENCE_WALK"

O_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
O_DIRECTORY = getattr(os, "O_DIRECTORY", 0)
O_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
O_NONBLOCK = getattr(os, "O_NONBLOCK", 0)
O_NOCTTY = getattr(os, "O_NOCTTY", 0)
O_BINARY = getattr(os, "O_BINARY", 0)
# A folder on the way only anchors the next lookup: O_PATH (Linux) needs no read
# permission on it, as a lookup by name needs none. Listing reopens it readable.
_O_LOOKUP = getattr(os, "O_PATH", os.O_RDONLY)

# Added to every open of a last name: a FIFO opened without O_NONBLOCK waits for a
# writer forever; a terminal must not become the process's controlling one.
FILE_FLAGS = O_NONBLOCK | O_NOCTTY | O_CLOEXEC | O_BINARY
_FOLDER_FLAGS = _O_LOOKUP | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC
_LIST_FLAGS = os.O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC
# What open() with O_NOFOLLOW says of a link (ELOOP; FreeBSD: EMLINK).
_LOOP = {errno.ELOOP, getattr(errno, "EMLINK", errno.ELOOP)}

# Whether this OS opens beneath a folder's descriptor without following links.
AT_CALLS = bool(
    O_NOFOLLOW
    and O_DIRECTORY
    and {os.open, os.mkdir, os.stat, os.unlink, os.rename} <= os.supports_dir_fd
    and os.scandir in os.supports_fd
)

Keep = Literal["all", "head", "tail"]

# -- what an entry is -----------------------------------------------------------------

FILE, FOLDER, LINK = "a file", "a folder", "a link"


def is_link(st: os.stat_result) -> bool:
    """A symlink, or on Windows any reparse point (a junction, a mount point)."""
    if stat.S_ISLNK(st.st_mode):
        return True
    attributes = getattr(st, "st_file_attributes", 0)
    return bool(attributes & getattr(stat, "FILE_ATTRIBUTE_REPARSE_POINT", 0x400))


def kind_of(st: os.stat_result) -> str:
    """What an entry is, as every message names it: "a file", "a folder", "a link",
    "a FIFO", "a socket", "a device" (or "a special file")."""
    if is_link(st):
        return LINK
    mode = st.st_mode
    if stat.S_ISREG(mode):
        return FILE
    if stat.S_ISDIR(mode):
        return FOLDER
    if stat.S_ISFIFO(mode):
        return "a FIFO"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    return "a special file"


def _identity(st: os.stat_result) -> tuple[int, int]:
    return (st.st_dev, st.st_ino)


# -- what is refused ----------------------------------------------------------------------


class NotPlain(OSError):
    """What stands at `rel` (relative to the folder) is `kind`, not a plain file or
    folder: refused, never followed, read or written."""

    def __init__(self, code: int, rel: str, kind: str, strerror: str) -> None:
        super().__init__(code, strerror, rel)
        self.rel, self.kind = rel, kind


class LinkMet(NotPlain):
    """A link where a name was expected (ELOOP): it appeared after a check, or the
    policy allows none."""

    def __init__(self, rel: str) -> None:
        super().__init__(errno.ELOOP, rel, LINK, "a link, not followed")


class NotRegularFile(NotPlain):
    """A FIFO, socket or device: refused at once, never waited on."""

    def __init__(self, rel: str, kind: str) -> None:
        super().__init__(errno.ENXIO, rel, kind, f"not a regular file ({kind})")


class PathChanged(OSError):
    """The folder kept changing under the open (or, on Windows, what was opened is not
    where it should be)."""


class TooLarge(OSError):
    """A file over its cap, read whole."""

    def __init__(self, limit: int) -> None:
        super().__init__(errno.EFBIG, f"larger than {_size_text(limit)}")


def _size_text(limit: int) -> str:
    mib = 1024 * 1024
    return f"{limit // mib} MB" if limit >= mib and limit % mib == 0 else f"{limit} bytes"


def _refusal(st: os.stat_result, rel: str, *, folders: bool) -> OSError | None:
    """Why an entry that `lstat` shows as `st` may not be opened, or None."""
    kind = kind_of(st)
    if kind == FILE or (kind == FOLDER and folders):
        return None
    if kind == LINK:
        return LinkMet(rel)
    if kind == FOLDER:
        return IsADirectoryError(errno.EISDIR, "a folder, not a file", rel)
    return NotRegularFile(rel, kind)


def check_opened(fd: int, rel: str, *, folders: bool = False) -> os.stat_result:
    """The fstat of a just-opened `fd`, which must be a regular file (or with `folders`
    a folder); closed and refused otherwise. A file is set blocking again (opened
    O_NONBLOCK only so that a FIFO could not block the open)."""
    try:
        st = os.fstat(fd)
        why = _refusal(st, rel, folders=folders)
        if why is not None:
            raise why
        if O_NONBLOCK and stat.S_ISREG(st.st_mode):
            os.set_blocking(fd, True)
    except BaseException:
        os.close(fd)
        raise
    return st


def _check_name(name: str) -> None:
    if name in ("", "..") or "/" in name or (os.sep != "/" and os.sep in name) or "\x00" in name:
        raise ValueError(f"not a name in a folder: {name!r}")


# -- a folder reached without following links ---------------------------------------------

_Held = TypeVar("_Held", bound="Held")


class Held:
    """Owns a descriptor (`fd`, None once closed): closed by close() or ``with``."""

    fd: int | None

    def close(self) -> None:
        if self.fd is not None:
            fd, self.fd = self.fd, None
            os.close(fd)

    def __enter__(self: _Held) -> _Held:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class Folder(Held):
    """A folder reached without following a link: a descriptor where the OS has *at()
    calls, else a path whose components were checked (kept in `_chain` to check again).

    `rel` is where it is below the folder the walk began in ("" there): errors name
    entries by it, never by an absolute path. Close it (``with``)."""

    def __init__(
        self,
        path: Path,
        rel: str,
        fd: int | None,
        chain: tuple[tuple[Path, str, tuple[int, int]], ...] = (),
    ) -> None:
        self.path, self.rel, self.fd, self._chain = path, rel, fd, chain

    @classmethod
    def open_root(cls, path: Path | str, *, follow: bool = True, by_fd: bool = AT_CALLS) -> Folder:
        """The folder at `path` to walk beneath. Its own path is taken as given (it may
        be a link, which `follow=False` refuses: LinkMet, NotRegularFile); what is
        beneath it is fenced. FileNotFoundError, NotADirectoryError as os.open."""
        path = Path(path)
        st = os.stat(path, follow_symlinks=follow)
        if not stat.S_ISDIR(st.st_mode):
            raise _refusal(st, "", folders=True) or NotADirectoryError(
                errno.ENOTDIR, "not a folder", str(path)
            )
        if not by_fd:
            return cls(path, "", None, () if follow else ((path, "", _identity(st)),))
        fd = os.open(path, _FOLDER_FLAGS if not follow else _FOLDER_FLAGS & ~O_NOFOLLOW)
        if not follow and _identity(os.fstat(fd)) != _identity(st):  # swapped meanwhile
            os.close(fd)
            raise LinkMet("")
        return cls(path, "", fd)

    def rel_of(self, name: str) -> str:
        if name == ".":
            return self.rel or "."
        return f"{self.rel}/{name}" if self.rel else name

    # -- looking --

    def lstat(self, name: str) -> os.stat_result:
        """The entry `name` itself (a link is not followed)."""
        _check_name(name)
        if self.fd is not None:
            return os.stat(name, dir_fd=self.fd, follow_symlinks=False)
        return os.lstat(self.path / name)

    def entries(self) -> Iterator[tuple[str, os.stat_result]]:
        """(name, lstat) of each entry; one removed while listed is left out."""
        if self.fd is None:
            with os.scandir(self.path) as it:
                listed = [(e.name, st) for e in it if (st := _entry_stat(e)) is not None]
            self.verify()
            yield from listed
            return
        fd = os.open(".", _LIST_FLAGS, dir_fd=self.fd)  # a lookup-only descriptor can't list
        try:
            with os.scandir(fd) as it:
                for entry in it:
                    st = _entry_stat(entry)
                    if st is not None:
                        yield entry.name, st
        finally:
            os.close(fd)

    def verify(self) -> None:
        """Without *at() calls: each folder on the way is still the one checked, no link.
        (With them there is nothing to check: the descriptors hold the folders.)"""
        for path, rel, identity in self._chain:
            try:
                st = os.lstat(path)
            except FileNotFoundError:
                raise FileNotFoundError(errno.ENOENT, "gone while it was used", rel) from None
            why = _refusal(st, rel, folders=True)
            if why is not None:
                raise why
            if _identity(st) != identity:  # swapped for a link and back, or replaced
                raise LinkMet(rel)

    # -- walking --

    def sub(self, name: str, *, create: bool = False) -> Folder:
        """The folder `name` in this one, reached without following a link (made first
        with `create`). LinkMet, NotRegularFile; NotADirectoryError for a file."""
        _check_name(name)
        rel = self.rel_of(name)
        if self.fd is None:
            return self._sub_by_path(name, rel, create=create)
        try:
            fd = os.open(name, _FOLDER_FLAGS, dir_fd=self.fd)
        except FileNotFoundError as e:
            if not create:
                raise FileNotFoundError(e.errno, e.strerror, rel) from None
            with contextlib.suppress(FileExistsError):  # made meanwhile, or a link: see below
                os.mkdir(name, dir_fd=self.fd)
            return self.sub(name)
        except OSError as e:
            raise self._why_not(name, rel, e, folder=True) from None
        return Folder(self.path / name, rel, fd)

    def _sub_by_path(self, name: str, rel: str, *, create: bool) -> Folder:
        path = self.path / name
        if create:
            with contextlib.suppress(FileExistsError):
                os.mkdir(path)
        try:
            st = os.lstat(path)
        except FileNotFoundError as e:
            raise FileNotFoundError(e.errno, e.strerror, rel) from None
        why = _refusal(st, rel, folders=True)
        if why is not None:
            raise why
        if not stat.S_ISDIR(st.st_mode):
            raise NotADirectoryError(errno.ENOTDIR, "a file, not a folder", rel)
        return Folder(path, rel, None, (*self._chain, (path, rel, _identity(st))))

    def walk(self, names: Sequence[str], *, create: bool = False) -> Folder:
        """The folder at the end of `names`, each reached with `sub` (a new Folder to
        close; this one stays open)."""
        folder = self
        try:
            for name in names:
                inner = folder.sub(name, create=create)
                if folder is not self:
                    folder.close()
                folder = inner
        except BaseException:
            if folder is not self:
                folder.close()
            raise
        if folder is self:
            fd = os.dup(self.fd) if self.fd is not None else None
            return Folder(self.path, self.rel, fd, self._chain)
        return folder

    def _why_not(self, name: str, rel: str, e: OSError, *, folder: bool) -> OSError:
        """The error for an open of `name` that failed with `e`: a link or a special file
        named as what it is, anything else as it was, with `rel` as its file name."""
        if e.errno in _LOOP or e.errno in (errno.ENOTDIR, errno.ENXIO):
            try:
                st: os.stat_result | None = self.lstat(name)
            except OSError:
                st = None
            kind = kind_of(st) if st is not None else None
            # ELOOP: a link at the open, whatever stands there now; ENOTDIR on a folder
            # (O_PATH|O_NOFOLLOW opens a link itself): one that was swapped back.
            if kind == LINK or e.errno in _LOOP or (kind == FOLDER and folder):
                return LinkMet(rel)
            if kind not in (None, FILE, FOLDER):
                return NotRegularFile(rel, kind)
            if e.errno == errno.ENXIO:  # a socket, or a device with nothing behind it
                return NotRegularFile(rel, "a socket or a device")
        return type(e)(e.errno, e.strerror, rel)

    # -- opening, writing, removing --

    def open(
        self, name: str, flags: int = os.O_RDONLY, mode: int = 0o600, *, folders: bool = False
    ) -> int:
        """A descriptor of the regular file `name` here (or, with `folders`, a folder;
        "." is this one), opened with no link followed: looked at first (a device or
        socket is never opened), O_NOFOLLOW | O_NONBLOCK, then checked by fstat.
        `flags` are os.open's (O_CREAT, O_EXCL as usual)."""
        rel = self.rel_of(name)
        try:
            before: os.stat_result | None = self.lstat(name)
        except FileNotFoundError:
            before = None
        if before is not None and (why := _refusal(before, rel, folders=folders)) is not None:
            raise why
        flags |= O_NOFOLLOW | FILE_FLAGS
        try:
            if self.fd is not None:
                fd = os.open(name, flags, mode, dir_fd=self.fd)
            else:
                fd = os.open(self.path / name, flags, mode)
        except OSError as e:
            if self.fd is None:  # by path: a folder on the way swapped for a link says so
                self.verify()
            raise self._why_not(name, rel, e, folder=False) from None
        got = check_opened(fd, rel, folders=folders)
        if self.fd is None:  # opened by path: the file looked at, in folders still the ones checked
            try:
                after = before or os.lstat(self.path / name)
                if _identity(got) != _identity(after) or is_link(after):
                    raise LinkMet(rel)
                self.verify()
            except BaseException:
                os.close(fd)
                raise
        return fd

    def unlink(self, name: str) -> None:
        """Remove the entry `name` (a link itself, never what it points to)."""
        _check_name(name)
        if self.fd is not None:
            os.unlink(name, dir_fd=self.fd)
        else:
            os.unlink(self.path / name)
            self.verify()

    @contextlib.contextmanager
    def atomic_writer(self, name: str, *, mode: int = 0o600) -> Iterator[IO[bytes]]:
        """core/atomic.py's writer for `name` here: the temporary file, the rename and
        the clean-up happen in this folder. A link at `name` is replaced, never written
        through."""
        _check_name(name)
        if self.fd is not None:
            with atomic_writer(name, mode=mode, dir_fd=self.fd) as f:
                yield f
            return
        with atomic_writer(self.path / name, mode=mode) as f:
            yield f
        self.verify()


def _entry_stat(entry: os.DirEntry[str]) -> os.stat_result | None:
    try:
        return entry.stat(follow_symlinks=False)
    except FileNotFoundError:  # removed since it was listed
        return None


# -- a whole path in one step: openat2 ------------------------------------------------------

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
_AT_FDCWD = -100


class _OpenHow(ctypes.Structure):
    _fields_ = [
        ("flags", ctypes.c_uint64),
        ("mode", ctypes.c_uint64),
        ("resolve", ctypes.c_uint64),
    ]


_syscall: Any = None
_available: bool | None = None
_probe_lock = threading.Lock()


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
        os.close(_openat2(_AT_FDCWD, "/", _O_LOOKUP | O_DIRECTORY | O_CLOEXEC))
    except OSError as e:
        # Only a kernel that knows RESOLVE_BENEATH refuses an absolute path with EXDEV;
        # ENOSYS (before 5.6), EPERM (a seccomp filter) or EINVAL mean: walk instead.
        return e.errno == errno.EXDEV
    return False  # opened "/" beneath the working directory: the flags were not honoured


def way() -> str:
    """How `open_in` opens a path now: "openat2", "walk" or "windows" (tests, doctor)."""
    if os.name == "nt":
        return "windows"
    if os.environ.get(WALK_SWITCH) == "1" or not openat2_available():
        return "walk"
    return "openat2"


def open_in(root: Folder, parts: Sequence[str], *, folders: bool = True) -> int:
    """A read-only descriptor of root/parts (a regular file, or with `folders` a folder),
    no link followed: one openat2 where the kernel has it, else the walk. Errors name
    the path relative to `root`: LinkMet or ENOTDIR (a link where a name was expected),
    NotRegularFile, PathChanged (the kernel kept seeing renames), or os.open's."""
    for name in parts:
        _check_name(name)
    if root.fd is None or not parts or way() != "openat2":
        with root.walk(parts[:-1]) as folder:
            return folder.open(parts[-1] if parts else ".", folders=folders)
    rel = "/".join(parts)
    for _ in range(8):
        try:
            fd = _openat2(root.fd, rel, os.O_RDONLY | O_NOFOLLOW | FILE_FLAGS)
        except OSError as e:
            if e.errno == errno.EAGAIN:  # a rename race the kernel could not rule out
                continue
            if e.errno in _LOOP:
                raise LinkMet(rel) from None
            if e.errno == errno.ENXIO:
                raise NotRegularFile(rel, "a socket or a device") from None
            raise type(e)(e.errno, e.strerror, rel) from None
        check_opened(fd, rel, folders=folders)
        return fd
    raise PathChanged(errno.EAGAIN, "the folder kept changing while it was opened", rel)


# -- capped reads ------------------------------------------------------------------------


def read_capped(fd: int, limit: int, *, keep: Keep = "all") -> bytes:
    """At most `limit` bytes of the regular file `fd` (not closed here).

    keep="all": a file over `limit` is TooLarge (one byte more is read, so a file that
    grew meanwhile is seen); "head"/"tail": its first/last `limit` bytes (a log's tail).
    """
    size = os.fstat(fd).st_size
    if size > limit and keep == "all":
        raise TooLarge(limit)
    if size > limit and keep == "tail":
        os.lseek(fd, size - limit, os.SEEK_SET)
    chunks: list[bytes] = []
    left = limit + (1 if keep == "all" else 0)
    while left > 0:
        data = os.read(fd, min(left, 1 << 20))
        if not data:
            break
        chunks.append(data)
        left -= len(data)
    data = b"".join(chunks)
    if len(data) > limit:
        raise TooLarge(limit)
    return data


# -- Windows: where an opened handle really is -------------------------------------------------


def final_path_of(fd: int) -> str:
    """The path of what `fd` holds, every reparse point resolved (Windows only)."""
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
    return plain_path(buf.value)


def plain_path(path: str) -> str:
    """A final path without its \\\\?\\ prefix, as realpath writes it."""
    if path.startswith("\\\\?\\UNC\\"):
        return "\\\\" + path[8:]
    return path.removeprefix("\\\\?\\")


def within(root: str, target: str) -> bool:
    """Whether `target` is `root` or below it (both real paths; case as the OS compares)."""
    root_n, target_n = os.path.normcase(root), os.path.normcase(target)
    try:
        return os.path.commonpath([root_n, target_n]) == root_n
    except ValueError:  # another drive
        return False
