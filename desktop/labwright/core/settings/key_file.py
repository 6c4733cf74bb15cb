"""API keys in files only you can read, for a machine without an OS keyring.

`LABWRIGHT_HOME/keys/<provider>` holds one key, as `gh` keeps its token in a file of
its own and ssh its keys in ~/.ssh. The folder is made 0700 and every file in it
0600: a key is written under a temporary name created with O_EXCL (never an existing
file or a link) and mode 0600, then renamed over the old one (core/atomic.py), so no
file there is readable by anyone else even for an instant, whatever the umask. Nothing
is followed: the folder is opened with O_NOFOLLOW and a key file read with O_NOFOLLOW
through core/beneath.py; a link at a key's name is replaced by a write, never written
through, and refused by a read. On Windows the folder is in your own %APPDATA%, which
other accounts cannot read; there the mode bits mean little and are not checked.

No Qt here; keys.py decides when this store is used.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from labwright.core.beneath import Folder, read_capped
from labwright.core.settings.config import labwright_home
from labwright.core.settings.providers import PROVIDER_NAMES

FOLDER_NAME = "keys"
FOLDER_MODE = 0o700
FILE_MODE = 0o600
MAX_KEY_BYTES = 4096  # a key is a few dozen characters; a larger file is not one of ours
_OTHERS = 0o077  # group and other permission bits
_POSIX = hasattr(os, "geteuid")


def key_folder() -> Path:
    return labwright_home() / FOLDER_NAME


def key_path(provider: str) -> Path:
    """Where the key of `provider` is kept (a name of PROVIDER_NAMES: never a path)."""
    if provider not in PROVIDER_NAMES:
        raise ValueError(f"not a provider: {provider!r}")
    return key_folder() / provider


def shown_path(path: Path) -> str:
    """`path` as a person reads it: ~/… under their home folder."""
    try:
        return "~" + os.sep + str(path.relative_to(Path.home()))
    except ValueError:
        return str(path)


@contextlib.contextmanager
def _keys_folder(*, create: bool) -> Iterator[Folder]:
    """The keys folder, reached without following a link (made 0700 first with `create`;
    FileNotFoundError without it). A folder that lets others in is tightened on a write."""
    home = labwright_home()
    if create:
        home.mkdir(parents=True, exist_ok=True)
    with Folder.open_root(home) as root:
        if create:
            with contextlib.suppress(FileExistsError):  # there already (or a link: refused below)
                if root.fd is not None:
                    os.mkdir(FOLDER_NAME, FOLDER_MODE, dir_fd=root.fd)
                else:
                    os.mkdir(home / FOLDER_NAME, FOLDER_MODE)
        with root.sub(FOLDER_NAME) as keys:
            if _POSIX:
                _check_owner(keys, tighten=create)
            yield keys


def _check_owner(keys: Folder, *, tighten: bool) -> None:
    fd = keys.open(".", os.O_RDONLY, folders=True)
    try:
        st = os.fstat(fd)
        if st.st_uid != os.geteuid():
            raise PermissionError(f"{shown_path(keys.path)} belongs to another user")
        if tighten and st.st_mode & _OTHERS:
            os.fchmod(fd, FOLDER_MODE)  # ours, made by hand or by an old umask: close it
    finally:
        os.close(fd)


def write_key(provider: str, key: str) -> Path:
    """Keep `key` for `provider` in its file (replaced atomically, mode 0600). OSError
    when it cannot be written; its message names the file, never the key."""
    path = key_path(provider)
    with _keys_folder(create=True) as keys, keys.atomic_writer(provider, mode=FILE_MODE) as f:
        f.write(key.encode("utf-8") + b"\n")
    return path


def read_key(provider: str) -> str | None:
    """The key kept for `provider`, None when there is no file. OSError for a file that
    cannot be used: a link, not a regular file, another user's, too large, unreadable."""
    key_path(provider)
    try:
        with _keys_folder(create=False) as keys:
            fd = keys.open(provider)
    except FileNotFoundError:
        return None
    try:
        if _POSIX and os.fstat(fd).st_uid != os.geteuid():
            raise PermissionError(f"{shown_path(key_path(provider))} belongs to another user")
        data = read_capped(fd, MAX_KEY_BYTES)
    finally:
        os.close(fd)
    try:
        text = data.decode("utf-8").strip()
    except UnicodeDecodeError:
        raise ValueError(f"{shown_path(key_path(provider))} is not a key (not text)") from None
    return text or None


def forget_key(provider: str) -> None:
    """Remove the file of `provider`'s key (a link there is removed itself); nothing to
    do when there is none."""
    key_path(provider)
    with contextlib.suppress(FileNotFoundError), _keys_folder(create=False) as keys:
        keys.unlink(provider)


@dataclass(frozen=True)
class KeyFile:
    """What Check Setup says of a provider's key file."""

    path: Path
    exists: bool
    problem: str | None = None  # why it cannot be used (no key in the text)
    open_to_others: bool = False  # group or others may read the file or enter its folder


def inspect(provider: str) -> KeyFile:
    path = key_path(provider)
    try:
        key = read_key(provider)
    except (OSError, ValueError) as e:
        why = getattr(e, "strerror", None) or str(e)
        return KeyFile(path, True, f"{shown_path(path)}: {why}")
    if key is None:
        return KeyFile(path, False)
    loose = False
    if _POSIX:
        with contextlib.suppress(OSError):
            loose = any(os.lstat(p).st_mode & _OTHERS for p in (path, path.parent))
    return KeyFile(path, True, None, loose)
