"""The run directory: the journal, run.json and every file a run writes, atomically.

Layout (DESIGN.md): run.json, events.jsonl, findings.json, evidence.jsonl,
report.tex, drafts/, refs.bib, figures/, report.pdf. The picked folder is
never written to: a run directory inside it is refused. A run directory holding
a link (or a FIFO, a socket, a device) is refused too, and nothing in one is
opened through a link (fence.py).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path

# The atomic writes live in atomic.py (standard library only); importable from here too.
from labwright.core.atomic import atomic_write_bytes as atomic_write_bytes
from labwright.core.atomic import atomic_write_json as atomic_write_json
from labwright.core.atomic import atomic_write_text as atomic_write_text
from labwright.core.atomic import atomic_writer as atomic_writer
from labwright.core.events import Event, event_from_dict
from labwright.core.rundir import fence
from labwright.core.rundir.errors import RunDirError as RunDirError
from labwright.core.rundir.names import DRAFTS, FIGURES, JOURNAL, LOCK
from labwright.core.settings.config import RunConfig, labwright_home


def _slug(name: str) -> str:
    slug = re.sub(r"[^\w.-]+", "-", name, flags=re.UNICODE).strip("-.")
    return slug[:40] or "run"


def new_run_dir(runs_root: Path, folder: Path) -> Path:
    """Create and return runs/<date>-<time>-<folder name>, made unique with a counter.

    The folder is claimed with an exclusive mkdir: of runs started in the same second
    each gets its own folder (-2, -3, ...), never one another run just took."""
    stamp = time.strftime("%Y%m%d-%H%M%S")
    base = f"{stamp}-{_slug(folder.name)}"
    try:
        runs_root.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise RunDirError(f"Cannot create the runs folder {runs_root}: {e.strerror}.") from None
    for n in range(1, 10_000):
        candidate = runs_root / (base if n == 1 else f"{base}-{n}")
        try:
            candidate.mkdir()
        except FileExistsError:
            continue
        except OSError as e:
            raise RunDirError(f"Cannot create the run folder {candidate}: {e.strerror}.") from None
        return candidate
    raise RunDirError(f"Too many runs of {folder.name} in one second in {runs_root}.")


def prepare_run_dir(config: RunConfig) -> RunConfig:
    """The config with its run directory chosen (LABWRIGHT_HOME/runs/... by default)."""
    if config.out_dir is not None:
        return config
    return replace(config, out_dir=new_run_dir(labwright_home() / "runs", config.folder))


def is_within(child: Path, parent: Path) -> bool:
    child, parent = Path(os.path.realpath(child)), Path(os.path.realpath(parent))
    return child == parent or parent in child.parents


def _try_lock(fd: int) -> bool:
    """An exclusive, non-blocking lock that the OS drops when the process dies."""
    if sys.platform == "win32":  # os.name == "nt"; the spelling mypy understands
        import msvcrt

        try:
            msvcrt.locking(fd, msvcrt.LK_NBLCK, 1)
        except OSError:
            return False
        return True
    import fcntl

    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        return False
    return True


def _drop_torn_tail(run_dir: Path) -> None:
    """Cut a half-written last line of the journal (a run killed mid-write), so appended
    events start on a line of their own."""
    with fence.open_in_run(run_dir, JOURNAL, "r+b") as f:
        data = f.read()
        if data and not data.endswith(b"\n"):
            f.truncate(data.rfind(b"\n") + 1)


class RunStore:
    """One run's directory. Events are appended and flushed one by one.

    A run holds an OS lock on `.lock` in its directory while it is open: a second
    process cannot resume a run that is still going, and a new run refuses a folder
    whose journal another run already created (the journal is created exclusively)."""

    def __init__(self, run_dir: Path, folder: Path, *, resume: bool = False) -> None:
        if is_within(run_dir, folder):
            raise RunDirError(
                f"The output folder {run_dir} is inside the material folder {folder}; "
                "Labwright never writes into the folder you picked. Choose another --out."
            )
        # Before anything is read or written: a run folder someone sent may hold links.
        fence.check_run_dir(run_dir)
        if resume and not os.path.lexists(run_dir / JOURNAL):  # a link: refused on opening
            raise RunDirError(f"{run_dir} holds no run to resume (no events.jsonl).")
        if not resume and os.path.lexists(run_dir / JOURNAL):
            raise RunDirError(
                f"{run_dir} already holds a run. Choose an empty folder, or continue it "
                "with --resume."
            )
        busy = RunDirError(
            f"{run_dir} is in use by another Labwright run; wait for it to end, or choose "
            "another folder."
        )
        try:
            run_dir.mkdir(parents=True, exist_ok=True)
            self._lock = fence.open_fd(run_dir, LOCK, os.O_RDWR | os.O_CREAT)
        except RunDirError:
            raise
        except OSError as e:
            raise RunDirError(f"Cannot create the run folder {run_dir}: {e.strerror}.") from None
        try:
            if not _try_lock(self._lock):
                raise busy
            fence.make_dirs(run_dir, DRAFTS)
            fence.make_dirs(run_dir, FIGURES)
            if resume:
                _drop_torn_tail(run_dir)
            # "x": two runs given the same folder at once cannot share one journal.
            # backslashreplace: a name with undecodable bytes is written as \udcXX,
            # valid JSON that reads back as the same string.
            self._journal = fence.open_in_run(
                run_dir, JOURNAL, "a" if resume else "x", errors="backslashreplace"
            )
        except FileExistsError:
            os.close(self._lock)
            raise busy from None
        except RunDirError:
            os.close(self._lock)
            raise
        except OSError as e:
            os.close(self._lock)
            raise RunDirError(f"Cannot create the run folder {run_dir}: {e.strerror}.") from None
        except BaseException:
            os.close(self._lock)
            raise
        self.dir = run_dir

    def append(self, event: Event) -> None:
        if not event.journaled:  # progress is for whoever watches now, not for the record
            return
        self._journal.write(event.to_json() + "\n")
        self._journal.flush()

    def close(self) -> None:
        if not self._journal.closed:
            self._journal.close()
        if self._lock >= 0:
            os.close(self._lock)  # releases the run's lock
            self._lock = -1


def is_running(run_dir: Path) -> bool:
    """Whether a live process has this run open. run.json says "running" also for a run
    that was killed; the lock, which dies with its process, tells the two apart."""
    try:
        fd = fence.open_fd(run_dir, LOCK, os.O_RDWR)
    except OSError:  # none, or a link (RunLinkError): no live run holds that
        return False
    try:
        return not _try_lock(fd)
    finally:
        os.close(fd)  # closing releases a lock this probe took


def read_journal(run_dir: Path) -> list[Event]:
    """The events of a run, typed (core/events.py). A line that is no event this
    Labwright knows is left out: a torn one (a run killed mid-write), one of a type
    added by a newer Labwright, one that lacks what its type needs.

    OSError when there is no journal; RunLinkError (an OSError too) when it is a link."""
    out = []
    with fence.open_in_run(run_dir, JOURNAL, "r", errors="replace") as f:
        for line in f:
            try:
                data = json.loads(line)
                out.append(event_from_dict(data))
            except (ValueError, KeyError, TypeError):
                continue
    return out


# -- temp folders and the sweep of what dead runs left ------------------------------

# Every temp folder Labwright makes is <tmp>/labwright-<pid>-<kind>-XXXX: the pid of
# the process that owns it, so a later run can tell a dead run's leftovers (kill -9,
# power cut) from a live run's folder.
TEMP_PREFIX = "labwright-"
_TEMP_NAME = re.compile(r"labwright-(\d+)-")
# Folders of the figure sandbox from before the pid was in the name: a figure runs for
# a minute at most, so one untouched for an hour belongs to no live run.
_LEGACY_TEMP = re.compile(r"labwright-figure-")
_LEGACY_AGE_S = 3600


def make_temp_dir(kind: str) -> Path:
    """A new private temp folder <tmp>/labwright-<pid>-<kind>-XXXX (mode 0700)."""
    kind = re.sub(r"[^A-Za-z0-9_]+", "_", kind).strip("_") or "tmp"
    return Path(tempfile.mkdtemp(prefix=f"{TEMP_PREFIX}{os.getpid()}-{kind}-"))


def pid_alive(pid: int) -> bool:
    """Whether a process with this id exists (a process we may not signal counts as alive)."""
    if pid <= 0:
        return False
    if os.name == "nt":  # os.kill(pid, 0) would terminate the process on Windows
        import ctypes

        kernel32 = ctypes.WinDLL("kernel32", use_last_error=True)  # type: ignore[attr-defined]
        handle = kernel32.OpenProcess(0x1000, False, pid)  # PROCESS_QUERY_LIMITED_INFORMATION
        if not handle:
            return ctypes.get_last_error() == 5  # type: ignore[attr-defined]  # access denied
        code = ctypes.c_ulong()
        ok = kernel32.GetExitCodeProcess(handle, ctypes.byref(code))
        kernel32.CloseHandle(handle)
        return not ok or code.value == 259  # STILL_ACTIVE
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # EPERM: it exists, owned by someone else
        return True
    return True


def sweep_temp_dirs(root: Path | None = None) -> list[Path]:
    """Remove the labwright-<pid>-* temp folders whose process is gone; return them.

    Only this user's folders, never one whose process is alive (nor this process's),
    never through a symlink. Never raises: a sweep must not stop a run."""
    root = Path(root or tempfile.gettempdir())
    removed: list[Path] = []
    me = os.getpid()
    uid = os.getuid() if hasattr(os, "getuid") else None
    try:
        entries = list(os.scandir(root))
    except OSError:
        return removed
    for entry in entries:
        try:
            if not entry.is_dir(follow_symlinks=False):
                continue
            st = entry.stat(follow_symlinks=False)
            if uid is not None and st.st_uid != uid:
                continue
            m = _TEMP_NAME.match(entry.name)
            if m:
                pid = int(m[1])
                if pid == me or pid_alive(pid):
                    continue
            elif not (_LEGACY_TEMP.match(entry.name) and time.time() - st.st_mtime > _LEGACY_AGE_S):
                continue
            shutil.rmtree(entry.path, ignore_errors=True)
            removed.append(Path(entry.path))
        except (OSError, ValueError):
            continue
    return removed
