"""Safe path resolution inside the picked folder, and the zero-model scan.

Two jobs, both pure Python and free of any model:

* ``resolve_in_folder`` is the fence every tool path goes through. A path the
  model writes is resolved under the picked folder with symlinks resolved
  (``os.path.realpath``) and refused with a ``PathDenied`` whose message the
  model can act on. It never checks existence: the tools do that.
* ``iter_scan`` / ``scan_folder`` walk the folder once, deterministically, and
  bucket files as documents / images / data / other. The result is the detail
  of the ``scan`` milestone and the model's first look at the folder.
"""

from __future__ import annotations

import errno
import hashlib
import os
import stat
from collections.abc import Callable, Generator, Iterator
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath, PureWindowsPath
from typing import Any

from labwright.core.material import fence
from labwright.core.material.fence import Opened, PathChanged

__all__ = [
    "BUCKETS",
    "HUGE_BYTES",
    "PathDenied",
    "ScanEntry",
    "ScanResult",
    "bucket_of",
    "describe_entry",
    "file_digest",
    "is_hidden_name",
    "iter_scan",
    "open_in_folder",
    "resolve_in_folder",
    "safe_name",
    "scan_folder",
]

# --------------------------------------------------------------------------
# The path fence
# --------------------------------------------------------------------------

_HINT = (
    "Use a path relative to the folder, e.g. 'Data/x.csv'. Call list_dir('.') to see what is there."
)

# Device names Windows opens as devices in any folder ("Data/CON" is the console).
_WINDOWS_DEVICES = frozenset(
    ["CON", "PRN", "AUX", "NUL", "CONIN$", "CONOUT$"]
    + [f"COM{i}" for i in range(1, 10)]
    + [f"LPT{i}" for i in range(1, 10)]
)


# The longest file name (one path component) common file systems take, in bytes.
_NAME_MAX = 255


class PathDenied(Exception):
    """A tool path that the fence refused.

    ``str(e)`` is a sentence for the model: what was refused, why, and what to
    do instead. ``path`` is the path as requested; ``reason`` is a short code
    (``absolute``, ``escape``, ``symlink``, ``home``, ``nul``, ``invalid``,
    ``device``) for the ``path_denied`` guard event.
    """

    def __init__(self, message: str, *, path: str = "", reason: str = "invalid") -> None:
        super().__init__(message)
        self.path = path
        self.reason = reason


def safe_name(name: str, *, escape_backslash: bool = True) -> str:
    """A file name (or path) as the model, the log and the app see it.

    A name is untrusted input: it may hold bytes that are not UTF-8 (POSIX
    keeps them as lone surrogates, which no JSON encoder or terminal takes)
    or control characters (ESC, CR, newline, BEL) that rewrite a terminal
    line. Those are escaped: an undecodable byte as ``\\xff``, a C0 control
    or DEL as ``\\x1b``, any other unprintable character (C1 controls, bidi
    overrides, odd spaces, stray surrogates) as ``\\u202e``, and a backslash
    as ``\\\\`` so that the form stays unambiguous. ``resolve_in_folder``
    maps the shown form back to the real entry.

    ``escape_backslash=False`` is for a path the model wrote (perhaps with
    escapes already, or Windows separators): only raw characters are escaped.
    """
    if name.isprintable() and (not escape_backslash or "\\" not in name):
        return name  # nearly every name: nothing to do
    out: list[str] = []
    for c in name:
        o = ord(c)
        if 0xDC80 <= o <= 0xDCFF:  # os.fsdecode's surrogateescape form of one byte
            out.append(f"\\x{o - 0xDC00:02x}")
        elif c == "\\" and escape_backslash:
            out.append("\\\\")
        elif o < 0x20 or o == 0x7F:
            out.append(f"\\x{o:02x}")
        elif not c.isprintable():
            out.append(f"\\u{o:04x}" if o <= 0xFFFF else f"\\U{o:08x}")
        else:
            out.append(c)
    return "".join(out)


def _show(rel: str, limit: int = 120) -> str:
    """The requested path quoted for a message: control characters escaped, long paths cut."""
    shown = safe_name(rel, escape_backslash=False)
    if len(shown) > limit:
        shown = shown[: limit - 1] + "…"
    return f"'{shown}'"


def _deny(rel: str, reason: str, why: str) -> PathDenied:
    return PathDenied(f"Refused {_show(rel)}: {why}. {_HINT}", path=rel, reason=reason)


def _is_absolute_anywhere(rel: str) -> bool:
    """True for a path that is absolute on POSIX *or* Windows.

    Both flavours are checked on every platform: a model writing ``C:\\Users``
    or ``\\\\server\\share`` on Linux means an absolute path too, and must be
    told so rather than get a confusing "not found".
    """
    if PurePosixPath(rel).is_absolute():
        return True
    win = PureWindowsPath(rel)
    # drive covers "C:\\x", drive-relative "C:x", UNC "\\\\srv\\share" and "//srv/share";
    # root covers "\\x" (rooted on the current drive).
    return bool(win.drive or win.root)


def _is_inside(root_real: str, target_real: str) -> bool:
    """Is ``target_real`` the root or below it? Both must already be realpaths."""
    root_n = os.path.normcase(root_real)
    target_n = os.path.normcase(target_real)
    try:
        return os.path.commonpath([root_n, target_n]) == root_n
    except ValueError:  # different drives on Windows
        return False


def resolve_in_folder(root: Path, rel: str) -> Path:
    """Resolve a tool path under ``root``; raise ``PathDenied`` if it leaves it.

    ``""`` and ``"."`` mean the root. Backslashes are taken as separators on
    every platform so that Windows-style paths from a model still work. The
    returned path is absolute with every symlink resolved; it may not exist.

    This is a plan, not a permission: the folder may change before anything
    opens the path. Read through ``open_in_folder``, never by this name.
    """
    root_real, parts = _plan(root, rel)
    return Path(os.path.join(root_real, *parts))


def _plan(root: Path, rel: str) -> tuple[str, list[str]]:
    """(the root's realpath, the real names below it) of a tool path; PathDenied if it leaves."""
    if not isinstance(rel, str):
        raise PathDenied(
            f"Refused the path {rel!r}: a path must be a string. {_HINT}",
            path=repr(rel),
            reason="invalid",
        )
    if "\0" in rel:
        raise _deny(rel, "nul", "it contains a NUL byte, which no file name can hold")
    try:
        os.fsencode(rel)
    except UnicodeError:  # a lone surrogate that is no escaped byte
        raise _deny(rel, "invalid", "it holds characters no file name can hold") from None
    if _is_absolute_anywhere(rel):
        raise _deny(rel, "absolute", "absolute paths and drive letters are not allowed")

    root_real = os.path.realpath(root)
    parts = [p for p in rel.replace("\\", "/").split("/") if p not in ("", ".")]
    if not parts:
        return root_real, []

    # We never expand "~", but a model writing it means its home directory,
    # which is out of reach; say so unless the folder really holds such a name.
    if parts[0].startswith("~") and not os.path.lexists(os.path.join(root_real, parts[0])):
        raise _deny(rel, "home", "'~' (a home directory) is outside the folder")

    # A lexical pass first, only for a precise message: realpath below is the authority.
    depth = 0
    for part in parts:
        depth += -1 if part == ".." else 1
        if depth < 0:
            raise _deny(rel, "escape", "'..' leads outside the folder")

    if any(len(os.fsencode(p)) > _NAME_MAX for p in parts):
        raise _deny(rel, "invalid", "a name in it is longer than any file system allows")

    if os.name == "nt" and any(_is_windows_device(p) for p in parts):
        raise _deny(rel, "device", "that name is a Windows device, not a file")

    # Join the original components (not the lexically normalised ones): "link/.."
    # must mean the parent of the link's target, as the OS would open it.
    joined = os.path.join(root_real, *parts)
    if "\\" in rel and not os.path.lexists(joined):
        # Perhaps a name as safe_name shows it ("bad\\xff.csv"), not Windows separators.
        joined = _match_shown(root_real, rel) or joined
    return root_real, _real_parts(root_real, joined, rel)


def _real_parts(root_real: str, joined: str, rel: str) -> list[str]:
    """The names below the root of `joined` with every link resolved; PathDenied if outside."""
    target_real = os.path.realpath(joined)
    if not _is_inside(root_real, target_real):
        raise _deny(rel, "symlink", "it goes through a link that points outside the folder")
    below = os.path.relpath(target_real, root_real)
    return [] if below == "." else below.split(os.sep)


# How often a path is planned and opened again when a link appears in it meanwhile:
# an in-folder link being replaced settles at once; a swap in a loop does not.
_OPEN_TRIES = 4


def open_in_folder(root: Path, rel: str) -> Opened:
    """Open a tool path beneath ``root`` in one step: the file or folder inside, or an error.

    The path is planned by ``resolve_in_folder`` (in-folder links followed,
    anything leaving refused with ``PathDenied``), then opened beneath the
    folder following no link (``fence.open_beneath``): a link that appeared
    since the plan fails that open, and the path is planned again. Raises
    PathDenied, FileNotFoundError, NotADirectoryError (a file used as a
    folder), PermissionError, ``fence.NotRegularFile`` (FIFO, device, socket:
    never blocks), ``fence.PathChanged`` (the folder kept changing) or OSError.
    The caller closes the result (``with``).
    """
    return _open_planned(lambda: _plan(root, rel), rel)


def _open_real(root_real: str, path: str) -> Opened:
    """`path` (a real name in the folder, e.g. a listed link) opened as open_in_folder does."""
    rel = os.path.relpath(path, root_real)
    return _open_planned(lambda: (root_real, _real_parts(root_real, path, rel)), rel)


def _open_planned(plan: Callable[[], tuple[str, list[str]]], rel: str) -> Opened:
    last: OSError | None = None
    tried: list[list[str]] = []
    for _ in range(_OPEN_TRIES):
        try:
            root_real, parts = plan()
        except OSError as e:  # realpath itself met the folder mid-change (EINVAL on a hop)
            last = e
            continue
        try:
            return fence.open_beneath(root_real, parts)
        except OSError as e:
            if e.errno not in (errno.ELOOP, errno.ENOTDIR):
                raise
            # A link where the plan has a name, or a file used as a folder: plan again.
            # The same plan failing twice is no race: a link loop, or a file in the way.
            if tried and tried[-1] == parts:
                raise
            tried.append(parts)
            last = e
    raise PathChanged(
        last.errno if last is not None else errno.ELOOP,
        "the folder kept changing while it was opened",
        rel,
    )


def file_digest(root: Path, rel: str) -> tuple[str, int, Path]:
    """(sha256, size, real path) of the file `rel` opened beneath ``root``: a figure's inputs.

    Raises what ``open_in_folder`` raises, and IsADirectoryError for a folder.
    """
    with open_in_folder(root, rel) as opened:
        if opened.is_dir:
            raise IsADirectoryError(errno.EISDIR, "a folder, not a file", rel)
        digest = hashlib.sha256()
        with opened.stream() as f:
            for block in iter(lambda: f.read(1 << 20), b""):
                digest.update(block)
        return digest.hexdigest(), opened.size, opened.path


def _match_shown(root_real: str, rel: str) -> str | None:
    """The real path of `rel` written with names as ``safe_name`` shows them, or None.

    Only "/" separates here (a backslash belongs to an escape); each part is
    taken as it is when it exists, else matched against the shown names of
    its folder's entries. The caller's realpath check stays the authority.
    """
    current = root_real
    for part in rel.split("/"):
        if part in ("", "."):
            continue
        if part == "..":
            return None  # shown names come from listings, which never need ".."
        candidate = os.path.join(current, part)
        if "\\" not in part and os.path.lexists(candidate):
            current = candidate
            continue
        try:
            with os.scandir(current) as it:
                match = next((e.name for e in it if safe_name(e.name) == part), None)
        except OSError:
            return None
        if match is None:
            return None
        current = os.path.join(current, match)
    return current


def _is_windows_device(part: str) -> bool:
    # "nul.txt" and "NUL " are the device too, as far as Windows is concerned.
    return part.split(".")[0].rstrip(" ").upper() in _WINDOWS_DEVICES


# --------------------------------------------------------------------------
# Buckets and hidden names
# --------------------------------------------------------------------------

BUCKETS: tuple[str, ...] = ("documents", "images", "data", "other")
HUGE_BYTES = 200 * 1024**2

# The bucket table, by lower-case extension:
#
#   documents  pdf doc docx odt rtf md tex html htm ppt pptx odp
#   images     png jpg jpeg bmp gif tif tiff webp svg
#   data       csv tsv txt dat xls xlsx xlsm ods json nb ipynb m mat npy npz h5 hdf5
#              files with no extension, or a numeric one ("run.001"): instruments write those
#   other      everything else
#
# .txt is data, not a document: in lab folders it is almost always a
# measurement export, and the readers sniff the content anyway. A handful of
# well-known extensionless names are not measurements (see _NAMED).
_DOCUMENTS = ("pdf", "doc", "docx", "odt", "rtf", "md", "tex", "html", "htm", "ppt", "pptx", "odp")
_IMAGES = ("png", "jpg", "jpeg", "bmp", "gif", "tif", "tiff", "webp", "svg")
_DATA = (
    *("csv", "tsv", "txt", "dat", "xls", "xlsx", "xlsm", "ods", "json"),
    *("nb", "ipynb", "m", "mat", "npy", "npz", "h5", "hdf5"),
)
_BY_EXTENSION: dict[str, str] = {
    **dict.fromkeys(_DOCUMENTS, "documents"),
    **dict.fromkeys(_IMAGES, "images"),
    **dict.fromkeys(_DATA, "data"),
}
# Extensionless (or .txt) names with a conventional meaning, by lower-case stem.
# LICENSE and friends are boilerplate, not experiment material.
_NAMED: dict[str, str] = {
    "readme": "documents",
    "license": "other",
    "licence": "other",
    "copying": "other",
    "notice": "other",
    "authors": "other",
    "changelog": "other",
    "makefile": "other",
}

# Junk that operating systems and tools drop into folders; reported, never read.
_JUNK_NAMES = frozenset(
    n.casefold()
    for n in (
        "__MACOSX",
        "Thumbs.db",
        "ehthumbs.db",
        "desktop.ini",
        ".DS_Store",
        "$RECYCLE.BIN",
        "System Volume Information",
        "__pycache__",
    )
)


def bucket_of(name: str) -> str:
    """The bucket of a file name: "documents", "images", "data" or "other" (table above)."""
    # Fast path for the usual "name.ext" with a lower-case, unambiguous extension:
    # this runs once per file, 100,000s of times on a big folder.
    dot = name.rfind(".")
    if dot > 0 and name[0] != ".":
        bucket = _BY_EXTENSION_FAST.get(name[dot + 1 :])
        if bucket is not None:
            return bucket
    # Leading dots are not an extension separator (".bashrc" has none); the
    # extension is what follows the last dot.
    base = name.lstrip(".")
    stem, dot_found, ext = base.rpartition(".")
    if not dot_found:
        stem, ext = base, ""
    ext = ext.lower()
    if ext in ("", "txt") and stem.lower() in _NAMED:
        return _NAMED[stem.lower()]
    if not ext or ext.isdecimal():
        return "data"
    return _BY_EXTENSION.get(ext, "other")


# "txt" depends on the stem (README.txt), so it always takes the slow path.
_BY_EXTENSION_FAST = {ext: b for ext, b in _BY_EXTENSION.items() if ext != "txt"}


def is_hidden_name(name: str) -> bool:
    """Dotfiles, OS junk (``__MACOSX``, ``Thumbs.db``, ...) and Office lock files (``~$x.docx``)."""
    if name.startswith((".", "~$")):
        return True
    # The length test spares a casefold() for nearly every name.
    return len(name) in _JUNK_LENGTHS and name.casefold() in _JUNK_NAMES


_JUNK_LENGTHS = frozenset(len(n) for n in _JUNK_NAMES)


# --------------------------------------------------------------------------
# The scan
# --------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ScanEntry:
    """One thing the scan met.

    ``rel`` uses "/" on every platform (the form tools accept). ``bucket`` is
    one of BUCKETS for files and "" for directories. A non-empty ``note`` means
    the entry was skipped and says why ("symlink outside the folder, skipped",
    "unreadable: permission denied"). Hidden entries are not skipped: they are
    reported as hidden and not read (hidden directories are not descended).
    """

    rel: str
    size: int
    bucket: str
    hidden: bool = False
    huge: bool = False
    note: str = ""
    is_dir: bool = False


def _check_root(root: Path) -> str:
    """The root's realpath, or a clear exception if it cannot be scanned."""
    real = os.path.realpath(root)
    try:
        st = os.stat(real)
    except FileNotFoundError:
        raise FileNotFoundError(f"The folder {str(root)!r} does not exist.") from None
    except PermissionError:
        raise PermissionError(
            f"The folder {str(root)!r} cannot be read: permission denied."
        ) from None
    if not stat.S_ISDIR(st.st_mode):
        raise NotADirectoryError(
            f"{str(root)!r} is a file, not a folder; pick the folder that holds it."
        )
    try:
        with os.scandir(real):
            pass
    except PermissionError:
        raise PermissionError(
            f"The folder {str(root)!r} cannot be read: permission denied."
        ) from None
    return real


def iter_scan(root: Path, *, huge_bytes: int = HUGE_BYTES) -> Iterator[ScanEntry]:
    """Stream what the folder holds, one ``ScanEntry`` at a time.

    Order is deterministic: depth first; within a directory its files (sorted
    by name, case-insensitively) come before its subdirectories (same order),
    and each directory's own entry comes right before its contents. Iterative,
    so depth has no recursion limit; memory holds one directory listing plus
    the pending directories, never the tree. Symlinked directories are never
    descended (outside ones are out of bounds, inside ones are scanned where
    they live, and not following them rules out cycles).

    The root is checked at call time: missing, not a directory or unreadable
    raise FileNotFoundError / NotADirectoryError / PermissionError. Below the
    root nothing raises: problems become entries with a ``note``.
    """
    root_real = _check_root(root)
    return (ScanEntry(*row) for row in _walk(root_real, huge_bytes))


# One scanned thing as a plain tuple, in ScanEntry's field order. The walk
# yields these because scan_folder folds 100,000s of them and building a
# frozen dataclass for each would cost more than the stat call behind it.
_Row = tuple[str, int, str, bool, bool, str, bool]


def _walk(root_real: str, huge_bytes: int) -> Iterator[_Row]:
    # Pending directories as (real names below the root, rel as shown); popped from
    # the end, so subdirectories are pushed in reverse to come out in sorted order.
    # Each is opened beneath the root following no link (fence.open_beneath) and
    # listed through that descriptor: DirEntry.stat() is then an fstatat() relative
    # to it rather than a lookup of the whole path, and a folder swapped for a link
    # after it was listed (at any depth) is not entered.
    pending: list[tuple[list[str], str]] = [([], "")]
    while pending:
        parts, rel = pending.pop()
        try:
            opened = fence.open_beneath(root_real, parts)
        except OSError as e:
            yield (rel, 0, "", False, False, _unreadable(e), True)
            continue
        with opened:  # also when the consumer stops early and the generator is closed
            try:
                entries = sorted(opened.scandir(), key=_sort_key)
            except OSError as e:
                yield (rel, 0, "", False, False, _unreadable(e), True)
                continue
            if rel:
                yield (rel, 0, "", False, False, "", True)
            subdirs = yield from _walk_listing(entries, parts, rel, root_real, huge_bytes)
        del entries  # this listing is done; only the pending subdirectories stay
        pending.extend(reversed(subdirs))


def _walk_listing(
    entries: list[os.DirEntry[str]], parts: list[str], rel: str, root_real: str, huge_bytes: int
) -> Generator[_Row, None, list[tuple[list[str], str]]]:
    """Yield the rows of one sorted listing; return its plain subdirectories."""
    prefix = f"{rel}/" if rel else ""
    subdirs: list[tuple[list[str], str]] = []
    path = os.path.join(root_real, *parts)
    for entry in entries:
        name = entry.name
        # rel is the shown form: undecodable bytes and control characters
        # escaped (safe_name); the tools map it back to the real entry.
        plain = name.isprintable() and "\\" not in name
        entry_rel = prefix + (name if plain else safe_name(name))
        try:
            # The common case first and inline: a visible regular file.
            # is_file(follow_symlinks=False) is False for links, so they and
            # everything unusual go to _classify_other.
            if (
                plain
                and name.isascii()
                and entry.is_file(follow_symlinks=False)
                and not is_hidden_name(name)
                and not _has_hidden_attribute(entry)
            ):
                size = entry.stat(follow_symlinks=False).st_size
                row: _Row = (entry_rel, size, bucket_of(name), False, size > huge_bytes, "", False)
            elif (
                entry.is_dir(follow_symlinks=False)
                and not is_hidden_name(name)
                and not _has_hidden_attribute(entry)
            ):
                subdirs.append(([*parts, name], entry_rel))
                continue
            else:
                row = _classify_other(entry, path, entry_rel, root_real, huge_bytes)
        except OSError as e:
            row = (entry_rel, 0, bucket_of(name), False, False, _unreadable(e), False)
        yield row
    return subdirs


def _sort_key(entry: os.DirEntry[str]) -> tuple[str, str]:
    # Case-insensitive first (what people expect), then exact, so the order is total.
    return (entry.name.casefold(), entry.name)


def _unreadable(e: OSError) -> str:
    reason = (e.strerror or type(e).__name__).lower()
    return f"unreadable: {reason}"


def _classify_other(
    entry: os.DirEntry[str], parent: str, rel: str, root_real: str, huge_bytes: int
) -> _Row:
    """Everything but a plain visible file or directory: odd names, hidden, links, devices."""
    name = entry.name
    is_dir = entry.is_dir(follow_symlinks=False)
    if is_hidden_name(name) or _has_hidden_attribute(entry):
        if is_dir or entry.is_symlink():
            return (rel, 0, "" if is_dir else bucket_of(name), True, False, "", is_dir)
        return (
            rel,
            entry.stat(follow_symlinks=False).st_size,
            bucket_of(name),
            True,
            False,
            "",
            False,
        )
    if entry.is_symlink():
        return _classify_link(entry, os.path.join(parent, name), rel, root_real, huge_bytes)
    if entry.is_file(follow_symlinks=False):  # a visible file with a non-ASCII name
        size = entry.stat(follow_symlinks=False).st_size
        return (rel, size, bucket_of(name), False, size > huge_bytes, "", False)
    return (
        rel,
        0,
        "other",
        False,
        False,
        "not a regular file (device, pipe or socket), skipped",
        False,
    )


def describe_entry(entry: os.DirEntry[str], parent: str, root_real: str) -> ScanEntry:
    """One entry of the folder `parent` (its real path) as the scan sees it, for list_dir.

    Never raises. ``rel`` is the entry's shown name (``safe_name``); a non-empty
    ``note`` says what is wrong with it (a link loop, a link outside, unreadable).
    A link is looked at by opening what it leads to beneath ``root_real``.
    """
    name = entry.name
    rel = safe_name(name)
    try:
        if entry.is_dir(follow_symlinks=False):
            hidden = is_hidden_name(name) or _has_hidden_attribute(entry)
            return ScanEntry(rel, 0, "", hidden, False, "", True)
        row = _classify_other(entry, parent, rel, root_real, HUGE_BYTES)
    except OSError as e:
        row = (rel, 0, bucket_of(name), False, False, _unreadable(e), False)
    return ScanEntry(*row)


def _classify_link(
    entry: os.DirEntry[str], link_path: str, rel: str, root_real: str, huge_bytes: int
) -> _Row:
    """A link in the folder, looked at by opening what it leads to beneath the folder."""
    bucket = bucket_of(entry.name)
    try:
        with _open_real(root_real, link_path) as target:
            st = target.st
    except PathDenied:
        return (rel, 0, bucket, False, False, "symlink outside the folder, skipped", False)
    except fence.NotRegularFile:
        return (rel, 0, bucket, False, False, "symlink to a device, pipe or socket, skipped", False)
    except OSError as e:
        if e.errno == errno.ELOOP:
            return (rel, 0, bucket, False, False, "symlink loop, skipped", False)
        if e.errno in (errno.ENOENT, errno.ENOTDIR):
            return (rel, 0, bucket, False, False, "broken symlink, skipped", False)
        return (rel, 0, bucket, False, False, _unreadable(e), False)
    if stat.S_ISDIR(st.st_mode):
        note = "symlink to a folder inside the folder, not followed"
        return (rel, 0, "", False, False, note, True)
    # A link to a file inside the folder is a file like any other.
    return (rel, st.st_size, bucket, False, st.st_size > huge_bytes, "", False)


if os.name == "nt":

    def _has_hidden_attribute(entry: os.DirEntry[str]) -> bool:
        # Windows marks hidden files with an attribute rather than a dot; the
        # stat comes cached with the listing there, so this is free.
        attrs = getattr(entry.stat(follow_symlinks=False), "st_file_attributes", 0)
        return bool(attrs & getattr(stat, "FILE_ATTRIBUTE_HIDDEN", 2))

else:

    def _has_hidden_attribute(entry: os.DirEntry[str]) -> bool:
        return False


# Hidden, huge and skipped lists are capped too, so that a pathological tree
# (100,000 dotfiles) cannot make the result big; what is cut is counted in
# ScanResult.omitted, so nothing disappears silently.
_LIST_CAP = 100


@dataclass
class ScanResult:
    """What ``scan_folder`` found; ``to_dict()`` is the ``scan`` milestone's detail.

    ``files``, ``counts``, ``sizes`` and ``total_bytes`` cover the visible files
    (hidden and skipped entries are reported on their own). ``dirs`` counts the
    directories scanned below the root. ``sample`` holds, per bucket, the first
    ``sample_per_bucket`` paths in scan order (so shallow files first), sorted.
    ``truncated`` is True when any sample or list was capped; ``omitted`` says
    how many hidden / huge / skipped entries were counted but not listed.
    """

    root: str
    counts: dict[str, int] = field(default_factory=lambda: dict.fromkeys(BUCKETS, 0))
    sizes: dict[str, int] = field(default_factory=lambda: dict.fromkeys(BUCKETS, 0))
    files: int = 0
    dirs: int = 0
    total_bytes: int = 0
    hidden: list[str] = field(default_factory=list)
    huge: list[str] = field(default_factory=list)
    skipped: list[dict[str, str]] = field(default_factory=list)
    sample: dict[str, list[str]] = field(default_factory=lambda: {b: [] for b in BUCKETS})
    truncated: bool = False
    omitted: dict[str, int] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        """A compact JSON-able form, with the one-line summary included."""
        out: dict[str, Any] = {
            "root": self.root,
            "summary": self.summary(),
            "files": self.files,
            "dirs": self.dirs,
            "total_bytes": self.total_bytes,
            "counts": dict(self.counts),
            "sizes": dict(self.sizes),
            "hidden": list(self.hidden),
            "huge": list(self.huge),
            "skipped": [dict(s) for s in self.skipped],
            "sample": {b: list(paths) for b, paths in self.sample.items()},
            "truncated": self.truncated,
        }
        if self.omitted:
            out["omitted"] = dict(self.omitted)
        return out

    def summary(self) -> str:
        """One line, e.g. "24 files, 3.3 MB: 6 documents, 0 images, 16 data, 2 other (1 hidden)"."""
        head = f"{_plural(self.files, 'file')}, {_human_bytes(self.total_bytes)}: "
        head += ", ".join(f"{self.counts.get(b, 0)} {b}" for b in BUCKETS)
        extras = [
            f"{n} {label}"
            for n, label in (
                (self._total("hidden"), "hidden"),
                (self._total("huge"), "huge"),
                (self._total("skipped"), "skipped"),
            )
            if n
        ]
        return head + (f" ({', '.join(extras)})" if extras else "")

    def _total(self, name: str) -> int:
        return len(getattr(self, name)) + self.omitted.get(name, 0)

    def _report(self, name: str, item: Any) -> None:
        """Append to the hidden / huge / skipped list, or count it past the cap."""
        items: list[Any] = getattr(self, name)
        if len(items) < _LIST_CAP:
            items.append(item)
        else:
            self.omitted[name] = self.omitted.get(name, 0) + 1
            self.truncated = True


def scan_folder(
    root: Path, *, huge_bytes: int = HUGE_BYTES, sample_per_bucket: int = 50
) -> ScanResult:
    """Scan the picked folder with no model: counts, sizes and samples per bucket.

    Memory is flat in the size of the tree: entries are folded into counters as
    they stream by, and only capped samples and lists are kept.
    """
    root_real = _check_root(root)
    result = ScanResult(root=str(root))
    counts, sizes, sample = result.counts, result.sizes, result.sample
    for rel, size, bucket, hidden, huge, note, is_dir in _walk(root_real, huge_bytes):
        if note:
            result._report("skipped", {"path": rel, "reason": note})
        elif hidden:
            result._report("hidden", rel + "/" if is_dir else rel)
        elif is_dir:
            result.dirs += 1
        else:  # a visible file: the hot path, kept to counters and one list check
            result.files += 1
            result.total_bytes += size
            counts[bucket] += 1
            sizes[bucket] += size
            if huge:
                result._report("huge", rel)
            if len(sample[bucket]) < sample_per_bucket:
                sample[bucket].append(rel)
            else:
                result.truncated = True
    for paths in sample.values():
        paths.sort(key=lambda p: (p.casefold(), p))
    return result


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def _human_bytes(n: int) -> str:
    if n < 1024:
        return f"{n} B"
    units = ("KB", "MB", "GB", "TB")
    size, i = n / 1024, 0
    while size >= 1024 and i < len(units) - 1:
        size, i = size / 1024, i + 1
    return f"{size:.1f} {units[i]}"
