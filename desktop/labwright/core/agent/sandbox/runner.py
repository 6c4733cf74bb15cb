"""Parent side of make_figure: check, spawn the sandboxed child, judge, publish.

The child (harness.py) is a separate interpreter started with ``-I -S`` (no
``.pth`` file, no site customisation runs in it) in a fresh temporary directory,
inside the operating system's confinement (``confine.wrap``: Landlock, a user and
network namespace, seccomp, death with its parent) where this machine has one,
with an environment built from an allowlist (no API keys can be inherited), its
own session/process group (so a timeout kills everything it started), and a
dedicated result channel instead of parsing its stdout. On POSIX the channel,
stdout and stderr are pipes the parent reads without blocking, so no file the
parent reads back about the run lives where the child can swap it. While it
runs, the parent watches how much disk (and output) it uses and kills it over
the cap. Nothing the child reports is trusted for safety: staged files are read
as child_files reads (regular files only, never waited on, capped), re-validated
here and only then copied into figures_dir.
"""

from __future__ import annotations

import ast
import contextlib
import importlib.util
import json
import os
import selectors
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO

from labwright.core import confine
from labwright.core.agent.sandbox import child_files, provenance
from labwright.core.agent.sandbox.result import AnalysisResult, FigureResult
from labwright.core.agent.sandbox.static_check import (
    FORBIDDEN_NAMES,
    imported_modules,
    load_paths,
    parse,
    violations_of,
)
from labwright.core.agent.sandbox.tables import tables_for

HARNESS = Path(__file__).with_name("harness.py")


def _analysis_package() -> Path:
    """The analysis library's folder (load, fit, show ...), which the child loads from its
    source: found without importing the library here (it imports numpy)."""
    spec = importlib.util.find_spec("labwright.core.analysis")
    assert spec is not None and spec.submodule_search_locations
    return Path(next(iter(spec.submodule_search_locations))).resolve()


ANALYSIS_PACKAGE = _analysis_package()
EXIT_DENIED = 86  # keep in sync with harness._EXIT_DENIED

MAX_FIGURES = 8
MAX_FILE_MB = 64  # RLIMIT_FSIZE in the child
MAX_STAGED_MB = 64  # the most the parent reads of each staged PDF/PNG
MAX_DISK_MB = 256  # all the child may have on disk at once (RLIMIT_FSIZE caps one file)
MAX_DISK_FILES = 1000  # files and folders the child may create
DISK_POLL_S = 0.02  # how often the parent measures the child's disk use
NPROC_IN_NAMESPACE = 32  # tasks (threads) the child may have inside its own user namespace
MAX_OUTPUT_CHARS = 20_000  # what the harness keeps of stdout / stderr
MAX_TRACEBACK_CHARS = 1_400
MAX_MESSAGE_CHARS = 1_500
MAX_CHANNEL_BYTES = 1 << 20
STDERR_TAIL_BYTES = 8192  # what the parent keeps of the child's stderr
STDERR_SHOWN_BYTES = 800  # ... and puts in a crash message
DRAIN_AFTER_EXIT_S = 1.0  # how long the pipes are read once the child's group is killed
STDOUT_IN_MESSAGE = 600
PNG_DPI = 150

# Secrets never reach the child: its environment is built from this allowlist.
_PASS_THROUGH_ENV = ("LANG", "LC_ALL", "LC_CTYPE", "TZ", "LD_LIBRARY_PATH", "SYSTEMROOT", "WINDIR")

_FIXES = {
    "reading outside the data folder": "read only files under DATA_DIR, e.g. pandas.read_csv(DATA_DIR / 'x.csv').",
    "writing outside the figure output": (
        "do not save or write files: leave the figure open, the harness saves it as PDF and PNG."
    ),
    "starting processes": (
        "no programs can be started (this includes rcParams['text.usetex'] and animation "
        "writers); use matplotlib's built-in mathtext ($...$)."
    ),
    "network access": "there is no network; use the files under DATA_DIR.",
    "running dynamically created code": "write the code directly, without exec/eval or code generation.",
    "creating special files": (
        "do not create files: leave the figure open, the harness saves it as PDF and PNG."
    ),
}
_DEFAULT_FIX = "use only numpy, pandas, scipy and matplotlib on the files under DATA_DIR."

UNCONFINED_ANALYSIS_MESSAGE = (
    "Analysis code is disabled on this machine (no OS sandbox): Labwright will not run "
    "model-written code without operating-system confinement unless the user allows it "
    "(--allow-unconfined). Do not call analyze again; quote the numbers the material states "
    "and leave the computations to the report's own fits of the tables."
)
UNCONFINED_MESSAGE = (
    "Figures are disabled on this machine (no OS sandbox): Labwright will not run "
    "model-written code without operating-system confinement unless the user allows it "
    "(--allow-unconfined). Do not call make_figure again; describe the data in words and "
    "the report will use the plots Labwright makes of the tables itself."
)

# The child's stdout, stderr and result channel are pipes where they can be inherited
# (POSIX); elsewhere files in its work dir. (Tests switch it off to try the file path.)
USE_PIPES = os.name == "posix"
# Where the child's output goes when it cannot be a pipe (Windows): its work dir.
_STDOUT_FILE = "child.out"
_STDERR_FILE = "child.err"
_CHANNEL_FILE = "channel.jsonl"

# Read by nothing a figure needs, and the target of the classic symlink-in-the-folder read.
_FIGURE_READ_EXCLUDED = frozenset({"/etc/passwd", "/etc/group"})


@dataclass
class _ChildOutcome:
    returncode: int | None
    timed_out: bool
    records: list[dict] = field(default_factory=list)
    stderr_tail: str = ""
    over_disk: str = ""  # why the parent killed the child for its disk use, if it did


def confinement() -> confine.Support:
    """What the OS grants figure code on this machine (the GUI shows it, runs record it)."""
    return confine.support()


def figures_allowed(allow_unconfined: bool = False) -> bool:
    """May model-written code run here: with an OS layer, or when the user allowed it."""
    return allow_unconfined or confine.support().any


def run_figure(
    code: str,
    *,
    data_dir: Path,
    figures_dir: Path,
    filename: str,
    caption: str,
    inputs: list[str] | None = None,
    timeout_s: float = 60.0,
    memory_mb: int = 1536,
    allow_unconfined: bool = False,
) -> FigureResult:
    """Run model-written matplotlib code in the sandbox and publish its figure(s).

    Without an operating-system layer (``confine.support().any`` is False) the code
    is not run unless `allow_unconfined` says the user accepted that.
    """
    return _run(
        code,
        data_dir=Path(data_dir),
        figures_dir=Path(figures_dir),
        filename=filename,
        caption=caption,
        inputs=inputs,
        timeout_s=timeout_s,
        memory_mb=memory_mb,
        static_check=True,
        allow_unconfined=allow_unconfined,
    )


def _run(
    code: str,
    *,
    data_dir: Path,
    figures_dir: Path,
    filename: str,
    caption: str,
    inputs: list[str] | None,
    timeout_s: float,
    memory_mb: int,
    static_check: bool,
    allow_unconfined: bool = False,
) -> FigureResult:
    """run_figure with a switch for the static layer: tests prove layers 2 and 3 on their own."""
    if not figures_allowed(allow_unconfined):
        return FigureResult(False, False, UNCONFINED_MESSAGE)
    try:
        stem = provenance.safe_stem(filename)
    except provenance.InputError as exc:
        return FigureResult(False, True, f"Refused: {exc}")
    ready = _prepare(code, data_dir, inputs, static_check)
    if isinstance(ready, FigureResult):
        return ready
    work = _make_work_dir()
    try:
        staging = work / "staging"
        outcome = _run_prepared(code, ready, data_dir, work, staging, timeout_s, memory_mb)
        return _judge(
            outcome,
            staging,
            figures_dir,
            stem,
            code,
            caption,
            ready.inputs,
            timeout_s,
            memory_mb,
        )
    finally:
        shutil.rmtree(work, ignore_errors=True)


def _run_prepared(
    code: str,
    ready: _Prepared,
    data_dir: Path,
    work: Path,
    staging: Path,
    timeout_s: float,
    memory_mb: int,
    mode: str = "figure",
) -> _ChildOutcome:
    """The child on checked code, in `work`, writing what it makes to `staging`."""
    staging.mkdir()
    return _run_child(
        code=code,
        preimport=imported_modules(ready.tree),
        data_dir=Path(os.path.realpath(data_dir)),
        work=work,
        staging=staging,
        timeout_s=timeout_s,
        memory_mb=memory_mb,
        analysis=_analysis_job(data_dir, ready),
        mode=mode,
    )


@dataclass(frozen=True)
class _Prepared:
    """Code that parsed and passed the static check, with its declared inputs resolved."""

    tree: ast.Module
    inputs: list[provenance.InputFile]


def _prepare(
    code: str, data_dir: Path, inputs: list[str] | None, static_check: bool
) -> _Prepared | FigureResult:
    """The checks before any process starts: the data folder, the inputs, parse, layer 1."""
    try:
        if not data_dir.is_dir():
            return FigureResult(False, False, f"The data folder {data_dir} does not exist.")
        input_files = provenance.resolve_inputs(data_dir, inputs)
    except provenance.InputError as exc:
        return FigureResult(False, True, f"Refused: {exc}")

    tree, syntax_error = parse(code)
    if tree is None:
        return FigureResult(
            False, False, f"Your code does not parse: {syntax_error} Fix it and retry."
        )
    if static_check:
        violations = violations_of(tree)
        if violations:
            shown = "\n".join(f"- {v}" for v in violations[:12])
            more = f"\n(and {len(violations) - 12} more)" if len(violations) > 12 else ""
            text = f"Refused before running (static check):\n{shown}{more}"
            return FigureResult(False, True, _clip(text))
    return _Prepared(tree, input_files)


def _analysis_job(data_dir: Path, ready: _Prepared) -> dict:
    """What the child needs for load, fit and show: where the analysis library is, and the
    tables of the declared inputs and of the files the code names in load("...") calls,
    found by the table detector here in the parent (child code never runs it)."""
    rels = [f.rel for f in ready.inputs] + load_paths(ready.tree)
    return {"package": str(ANALYSIS_PACKAGE), "tables": tables_for(data_dir, rels)}


def run_analysis(
    code: str,
    *,
    data_dir: Path,
    inputs: list[str] | None = None,
    timeout_s: float = 60.0,
    memory_mb: int = 1536,
    allow_unconfined: bool = False,
) -> AnalysisResult:
    """Run model-written analysis code (analyze) in the same sandbox as a figure.

    The same checks, confinement and limits as run_figure; the code finds load, fit,
    show and the `uncertainties` names predefined, and what it printed (and showed) is the
    result. No figure is kept."""
    return _run_analysis(
        code,
        data_dir=Path(data_dir),
        inputs=inputs,
        timeout_s=timeout_s,
        memory_mb=memory_mb,
        static_check=True,
        allow_unconfined=allow_unconfined,
    )


def _run_analysis(
    code: str,
    *,
    data_dir: Path,
    inputs: list[str] | None,
    timeout_s: float,
    memory_mb: int,
    static_check: bool,
    allow_unconfined: bool = False,
) -> AnalysisResult:
    """run_analysis with a switch for the static layer (the escape corpus runs both tools)."""
    if not figures_allowed(allow_unconfined):
        return AnalysisResult(False, False, UNCONFINED_ANALYSIS_MESSAGE)
    ready = _prepare(code, data_dir, inputs, static_check)
    if isinstance(ready, FigureResult):
        return AnalysisResult(ready.ok, ready.denied, ready.message)
    work = _make_work_dir()
    try:
        staging = work / "staging"
        outcome = _run_prepared(
            code, ready, data_dir, work, staging, timeout_s, memory_mb, mode="analysis"
        )
        return _judge_analysis(outcome, code, ready.inputs, timeout_s, memory_mb)
    finally:
        shutil.rmtree(work, ignore_errors=True)


# --- the child process -----------------------------------------------------------------


def _make_work_dir() -> Path:
    """The child's only writable place (cwd, HOME, TMPDIR); removed after every run.

    Named ``labwright-<pid>-figure-*`` so a later Labwright can sweep what a killed
    one left behind (the pid is dead).
    """
    return Path(tempfile.mkdtemp(prefix=f"labwright-{os.getpid()}-figure-"))


_CACHE_LOCK = threading.Lock()
_WARM_CACHES: set[str] = set()


def _mpl_cache_dir(work: Path) -> Path:
    """A per-user font-cache dir shared across runs (building it costs ~0.5 s).

    The child may only read it (Landlock, and the audit hook behind it): it is
    filled once by a child that runs no model code (_warm_cache). If the shared
    dir is not safely ours (other owner, group/world-writable, a symlink), fall
    back to a private per-run dir.
    """
    uid = os.getuid() if hasattr(os, "getuid") else 0
    shared = (
        Path(tempfile.gettempdir()) / f"labwright-mplcache-{uid}-{provenance.matplotlib_version()}"
    )
    try:
        shared.mkdir(mode=0o700, exist_ok=True)
        st = os.lstat(shared)
        if os.name != "posix" or (
            not os.path.islink(shared) and st.st_uid == uid and not (st.st_mode & 0o022)
        ):
            _warm_cache(shared)
            return shared
    except OSError:
        pass
    private = work / "mplconfig"
    private.mkdir(exist_ok=True)
    return private


def _warm_cache(cache: Path) -> None:
    """Build matplotlib's font cache in `cache` with trusted code only (once per process)."""
    with _CACHE_LOCK:
        if str(cache) in _WARM_CACHES:
            return
        if not any(cache.glob("fontlist-*.json")):
            script = (
                "import sys; sys.path[:0] = sys.argv[1:]; import matplotlib; "
                "matplotlib.use('Agg'); import matplotlib.font_manager"
            )
            cmd = [sys.executable, "-I", "-S", "-c", script, *_extra_sys_path()]
            env = _child_env(cache, cache)
            if confine.support().any:
                cmd = confine.wrap(cmd, _policy(read=[], write=[cache]))
            with contextlib.suppress(OSError, subprocess.SubprocessError):
                subprocess.run(
                    cmd,
                    env=env,
                    cwd=cache,
                    stdin=subprocess.DEVNULL,
                    stdout=subprocess.DEVNULL,
                    stderr=subprocess.DEVNULL,
                    timeout=120,
                    check=False,
                )
        _WARM_CACHES.add(str(cache))


def _child_env(work: Path, mpl_cache: Path) -> dict[str, str]:
    env = {name: os.environ[name] for name in _PASS_THROUGH_ENV if name in os.environ}
    env.setdefault("LANG", "C.UTF-8")
    # Windows needs the real PATH to find the DLLs of numpy & co; POSIX needs none.
    env["PATH"] = os.environ.get("PATH", os.defpath) if os.name == "nt" else os.defpath
    for name in ("HOME", "USERPROFILE", "TMPDIR", "TEMP", "TMP"):
        env[name] = str(work)
    env["MPLBACKEND"] = "Agg"
    env["MPLCONFIGDIR"] = str(mpl_cache)
    for name in (
        "OPENBLAS_NUM_THREADS",
        "OMP_NUM_THREADS",
        "MKL_NUM_THREADS",
        "NUMEXPR_NUM_THREADS",
        "VECLIB_MAXIMUM_THREADS",
    ):
        env[name] = "1"
    return env


def _extra_sys_path() -> list[str]:
    """Library dirs of this interpreter, added by hand since the child runs with ``-S``."""
    return [
        p
        for p in sys.path
        if p
        and os.path.isabs(p)
        and ("site-packages" in p or "dist-packages" in p)
        and os.path.isdir(p)
    ]


def _font_dirs() -> list[str]:
    """Fonts outside the system trees (fontconfig's per-user folders)."""
    home = Path.home()
    return [str(home / ".fonts"), str(home / ".local" / "share" / "fonts")]


def _policy(read: list[str | Path], write: list[str | Path]) -> confine.Policy:
    """The figure child's box: the given paths plus Python's trees; never /etc/passwd."""
    libs = _extra_sys_path()
    extra = [*libs, *(os.path.realpath(p) for p in libs), *_font_dirs(), "/etc/mime.types"]
    pol = confine.policy(read=[*read, *extra], write=write)
    kept = tuple(p for p in pol.read if p not in _FIGURE_READ_EXCLUDED)
    return confine.Policy(
        read=kept,
        write=pol.write,
        network=False,
        landlock=pol.landlock,
        namespaces=pol.namespaces,
        seccomp=pol.seccomp,
    )


def _count_tasks() -> int | None:
    """Tasks (threads) this user runs now: RLIMIT_NPROC counts them all outside a namespace."""
    if not sys.platform.startswith("linux"):
        return None
    uid = os.getuid()
    tasks = 0
    try:
        for pid in os.listdir("/proc"):
            if pid.isdigit():
                try:
                    if os.stat(f"/proc/{pid}").st_uid == uid:
                        tasks += len(os.listdir(f"/proc/{pid}/task"))
                except OSError:
                    continue
    except OSError:
        return None
    return tasks


def _run_child(
    *,
    code: str,
    preimport: list[str],
    data_dir: Path,
    work: Path,
    staging: Path,
    timeout_s: float,
    memory_mb: int,
    analysis: dict | None = None,
    mode: str = "figure",
) -> _ChildOutcome:
    mpl_cache = _mpl_cache_dir(work)
    use_pipe = USE_PIPES
    confined = confine.support().any
    library = [ANALYSIS_PACKAGE] if analysis is not None else []  # its source, read-only
    pol = _policy(read=[data_dir, HARNESS.resolve(), mpl_cache, *library], write=[work])
    if confined and pol.namespaces:
        # Inside its own user namespace the limit counts the child's tasks only.
        nproc_limit: int | None = NPROC_IN_NAMESPACE
    else:
        count = _count_tasks()
        nproc_limit = None if count is None else count + NPROC_IN_NAMESPACE
    streams = _Streams(use_pipe, work)
    try:
        job = {
            "code": code,
            "data_dir": str(data_dir),
            "work_dir": str(work),
            "staging_dir": str(staging),
            "mpl_cache_dir": str(mpl_cache),
            "preimport": preimport,
            "extra_sys_path": _extra_sys_path(),
            "hidden_builtins": sorted(n for n in FORBIDDEN_NAMES if n != "__import__"),
            "timeout_s": max(1, int(timeout_s + 0.999)),
            "memory_mb": int(memory_mb),
            "max_file_mb": MAX_FILE_MB,
            "nproc_limit": nproc_limit,
            "max_output_chars": MAX_OUTPUT_CHARS,
            "max_traceback_chars": MAX_TRACEBACK_CHARS,
            "max_figures": MAX_FIGURES,
            "dpi": PNG_DPI,
            "channel_fd": streams.channel_fd if use_pipe else None,
            "channel_path": None if use_pipe else str(work / _CHANNEL_FILE),
            "mode": mode,  # "figure": save the open figures; "analysis": the printed results
            "analysis": analysis,
        }
        job_path = work / "job.json"
        job_path.write_text(json.dumps(job), encoding="utf-8")

        # -I -S: no .pth file, sitecustomize or user site runs in the child; the
        # harness adds the library dirs to sys.path itself.
        cmd = [sys.executable, "-I", "-S", str(HARNESS), str(job_path)]
        if confined:
            cmd = confine.wrap(cmd, pol)
        kwargs: dict = {}
        if os.name == "posix":
            kwargs["start_new_session"] = True  # own process group: one killpg ends it all
            kwargs["pass_fds"] = (streams.channel_fd,) if use_pipe else ()
        else:
            kwargs["creationflags"] = getattr(subprocess, "CREATE_NEW_PROCESS_GROUP", 0) | getattr(
                subprocess, "CREATE_NO_WINDOW", 0
            )
        try:
            proc = subprocess.Popen(
                cmd,
                stdin=subprocess.DEVNULL,
                stdout=streams.child_stdout,
                stderr=streams.child_stderr,
                cwd=work,
                env=_child_env(work, mpl_cache),
                close_fds=True,
                **kwargs,
            )
        finally:
            streams.started()
        meter = _DiskMeter(work, proc.pid)
        timed_out = _wait(proc, timeout_s, meter, streams)
        _kill_group(proc)
        returncode = proc.wait()
        streams.finish()
    finally:
        streams.close()
    raw = streams.channel if use_pipe else _read_channel_file(work)
    return _ChildOutcome(
        returncode=returncode,
        timed_out=timed_out,
        records=_parse_records(raw),
        stderr_tail=streams.stderr_tail(work),
        over_disk=meter.over,
    )


class _Streams:
    """The child's stdout, stderr and result channel, read by the parent without blocking.

    On POSIX all three are pipes the parent owns: nothing of them lives in the work dir,
    where the child could swap a file for a FIFO or a link. They are read in the wait
    loop (a selector, no thread): the result channel up to MAX_CHANNEL_BYTES, stderr as
    a bounded tail, stdout counted and dropped (print() goes to the result record).
    What the child writes to them counts against its disk cap. Elsewhere (Windows) they
    are files in the work dir, read afterwards as child_files reads them.
    """

    def __init__(self, use_pipe: bool, work: Path) -> None:
        self.use_pipe = use_pipe
        self._channel = bytearray()
        self.written = 0  # bytes the child wrote to stdout and stderr
        self._err_tail = bytearray()
        self._selector = selectors.DefaultSelector() if use_pipe else None
        self._files: list[IO[bytes]] = []
        self._child_ends: list[int] = []  # write ends, closed here once the child has them
        self.channel_fd = -1
        if use_pipe:
            for name in ("channel", "stdout", "stderr"):
                read_end, write_end = os.pipe()
                self._child_ends.append(write_end)
                self._watch(read_end, name)
            self.channel_fd, out_w, err_w = self._child_ends
            self.child_stdout: int | IO[bytes] = out_w
            self.child_stderr: int | IO[bytes] = err_w
        else:
            out = open(work / _STDOUT_FILE, "wb")  # noqa: SIM115 - closed in close()
            err = open(work / _STDERR_FILE, "wb")  # noqa: SIM115
            self._files = [out, err]
            self.child_stdout, self.child_stderr = out, err

    @property
    def channel(self) -> bytes:
        return bytes(self._channel)

    def _watch(self, fd: int, name: str) -> None:
        assert self._selector is not None
        os.set_blocking(fd, False)
        self._selector.register(fd, selectors.EVENT_READ, name)

    def started(self) -> None:
        """The child has its copies of the write ends: the parent's go, so EOF can come."""
        for fd in self._child_ends:
            os.close(fd)
        self._child_ends = []

    def pump(self, timeout: float) -> None:
        """Wait up to `timeout` for output and read what is there (sleeps where no pipes)."""
        if self._selector is None or not self._selector.get_map():
            time.sleep(timeout)
            return
        for key, _mask in self._selector.select(timeout):
            self._read(key.fd, key.data)

    def _read(self, fd: int, name: str) -> None:
        # At most 1 MiB per stream and call: a flood cannot hold up the wait loop.
        for _ in range(16):
            try:
                data = os.read(fd, 65536)
            except BlockingIOError:
                return
            except OSError:
                data = b""
            if not data:
                self._unwatch(fd)
                return
            self._keep(name, data)

    def _keep(self, name: str, data: bytes) -> None:
        if name == "channel":
            room = MAX_CHANNEL_BYTES - len(self._channel)
            if room > 0:
                self._channel += data[:room]
            return
        self.written += len(data)
        if name == "stderr":
            self._err_tail += data
            del self._err_tail[:-STDERR_TAIL_BYTES]

    def _unwatch(self, fd: int) -> None:
        assert self._selector is not None
        self._selector.unregister(fd)
        os.close(fd)

    def finish(self) -> None:
        """After the child is gone: read what is left, for a bounded time (a process that
        escaped the group could hold a write end open forever)."""
        if self._selector is None:
            return
        deadline = time.monotonic() + DRAIN_AFTER_EXIT_S
        while self._selector.get_map():
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                break
            self.pump(min(remaining, 0.05))

    def close(self) -> None:
        for fd in self._child_ends:
            os.close(fd)
        self._child_ends = []
        if self._selector is not None:
            for key in list(self._selector.get_map().values()):
                self._unwatch(key.fd)
            self._selector.close()
            self._selector = None
        for fh in self._files:
            fh.close()
        self._files = []

    def stderr_tail(self, work: Path) -> str:
        if self.use_pipe:
            raw = bytes(self._err_tail)
        else:
            try:
                raw = child_files.read_capped(work / _STDERR_FILE, STDERR_TAIL_BYTES, keep="tail")
            except child_files.ChildFileError as exc:
                return f"(the sandbox did not read its error output: {exc})"
        return raw[-STDERR_SHOWN_BYTES:].decode("utf-8", "replace").strip()


def _read_channel_file(work: Path) -> bytes:
    """The result channel where it is a file (no inheritable pipe): read like any output."""
    try:
        return child_files.read_capped(work / _CHANNEL_FILE, MAX_CHANNEL_BYTES, keep="head")
    except child_files.ChildFileError:
        return b""


class _DiskMeter:
    """The child's disk use: what is under its work dir, plus files it holds open after
    deleting them (they still fill the disk). RLIMIT_FSIZE caps one file; this caps all."""

    def __init__(self, work: Path, pid: int) -> None:
        self.work = str(work)
        self.fd_dir = f"/proc/{pid}/fd"
        self.over = ""
        self.peak = 0
        self._next = 0.0

    def check(self, streamed: int = 0) -> bool:
        """True when the child is over a cap (the reason is kept in `over`); `streamed`:
        bytes it wrote to the parent's pipes, counted as if they were on disk."""
        now = time.monotonic()
        if now < self._next:
            return False
        self._next = now + DISK_POLL_S
        used, count = self._measure()
        used += streamed
        self.peak = max(self.peak, used)
        if used > MAX_DISK_MB * 1024 * 1024:
            self.over = f"it wrote more than {MAX_DISK_MB} MB (to disk and to its output)"
        elif count > MAX_DISK_FILES:
            self.over = f"it created more than {MAX_DISK_FILES} files"
        return bool(self.over)

    def _measure(self) -> tuple[int, int]:
        seen: set[tuple[int, int]] = set()
        used = count = 0
        stack = [self.work]
        while stack:
            try:
                it = os.scandir(stack.pop())
            except OSError:
                continue
            with it:
                for entry in it:
                    count += 1
                    try:
                        st = entry.stat(follow_symlinks=False)
                    except OSError:
                        continue
                    if entry.is_dir(follow_symlinks=False):
                        stack.append(entry.path)
                    if (st.st_dev, st.st_ino) in seen:
                        continue
                    seen.add((st.st_dev, st.st_ino))
                    used += max(st.st_size, getattr(st, "st_blocks", 0) * 512)
        used += self._deleted_but_open(seen)
        return used, count

    def _deleted_but_open(self, seen: set[tuple[int, int]]) -> int:
        used = 0
        try:
            fds = os.listdir(self.fd_dir)
        except OSError:
            return 0  # not Linux, or the child is gone
        for fd in fds:
            path = f"{self.fd_dir}/{fd}"
            try:
                st = os.stat(path)
            except OSError:
                continue
            if (st.st_mode & 0o170000) != 0o100000 or (st.st_dev, st.st_ino) in seen:
                continue
            if st.st_nlink == 0:
                seen.add((st.st_dev, st.st_ino))
                used += max(st.st_size, getattr(st, "st_blocks", 0) * 512)
        return used


def _wait(
    proc: subprocess.Popen,
    timeout_s: float,
    meter: _DiskMeter | None = None,
    streams: _Streams | None = None,
) -> bool:
    """Wait for the child to exit *without reaping it*, reading its pipes; True on timeout.

    Not reaping keeps its pid (= the process-group id) reserved until _kill_group
    has swept any stragglers it may have left behind. Returns early (False) when
    the meter finds the child over its disk cap (what it wrote to stdout and stderr
    included); the caller then kills it.
    """
    deadline = time.monotonic() + timeout_s
    delay = 0.002
    while True:
        if hasattr(os, "waitid"):
            try:
                info = os.waitid(os.P_PID, proc.pid, os.WEXITED | os.WNOHANG | os.WNOWAIT)
            except ChildProcessError:
                return False
            if info is not None:
                return False
        elif proc.poll() is not None:
            return False
        if meter is not None and meter.check(streams.written if streams else 0):
            return False
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            return True
        if streams is not None:
            streams.pump(min(delay, remaining))
        else:
            time.sleep(min(delay, remaining))
        delay = min(delay * 1.5, 0.025)


def _kill_group(proc: subprocess.Popen) -> None:
    if os.name == "posix":
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(proc.pid, signal.SIGKILL)
    else:
        with contextlib.suppress(OSError):
            proc.kill()


def _parse_records(raw: bytes) -> list[dict]:
    records = []
    for line in raw.decode("utf-8", "replace").splitlines():
        try:
            value = json.loads(line)
        except ValueError:
            continue
        if isinstance(value, dict):
            records.append(value)
    return records


# --- judging the outcome -------------------------------------------------------------------


def _clip(text: str, limit: int = MAX_MESSAGE_CHARS) -> str:
    return text if len(text) <= limit else text[: limit - 20].rstrip() + "\n[... truncated]"


def _head(text: str, limit: int) -> str:
    text = text.strip()
    return text if len(text) <= limit else text[:limit].rstrip() + " [...]"


def _result_record(outcome: _ChildOutcome) -> dict:
    results = [r for r in outcome.records if r.get("event") == "result"]
    return results[-1] if results else {}


def _stdout_of(outcome: _ChildOutcome, result: dict) -> str:
    denied = any(r.get("event") == "denied" for r in outcome.records)
    return str(result.get("stdout", ""))[:MAX_OUTPUT_CHARS] if not denied else ""


def _failure(
    outcome: _ChildOutcome,
    code: str,
    timeout_s: float,
    memory_mb: int,
    fixes: dict[str, str] | None = None,
) -> FigureResult | None:
    """What went wrong in the child, as the model reads it; None when the code ran to its
    end (a figure's or an analysis's own judging goes on from there)."""
    denials = [r for r in outcome.records if r.get("event") == "denied"]
    refusals = [r for r in outcome.records if r.get("event") == "refused"]
    result = _result_record(outcome)
    status = result.get("status")
    stdout = _stdout_of(outcome, result)

    if denials or outcome.returncode == EXIT_DENIED or (refusals and status != "ok"):
        first = (denials or refusals or [{}])[0]
        rule = str(first.get("rule", "a forbidden operation"))
        detail = str(first.get("detail", ""))
        fix = (fixes or {}).get(rule) or _FIXES.get(rule, _DEFAULT_FIX)
        text = f"Refused by the sandbox (rule: {rule}"
        text += f"; attempted: {detail[:200]})." if detail else ")."
        text += " The run was stopped." if denials or outcome.returncode == EXIT_DENIED else ""
        return FigureResult(False, True, _clip(f"{text} Fix: {fix}"), stdout=stdout)
    if outcome.over_disk:
        return FigureResult(
            False,
            False,
            f"Your code was stopped because {outcome.over_disk} (the sandbox allows "
            f"{MAX_DISK_MB} MB and {MAX_DISK_FILES} files). "
            + (fixes or {}).get(
                "disk", "A figure needs no files: leave it open and the harness saves it."
            ),
        )
    if outcome.returncode == confine.EXIT_CONFINE_FAILED and status is None:
        return FigureResult(
            False,
            False,
            _clip(
                "The sandbox could not confine the figure process, so the code was not run: "
                + outcome.stderr_tail[-300:]
            ),
        )
    if outcome.timed_out:
        return FigureResult(
            False,
            False,
            f"Your code did not finish within {timeout_s:g} s and was stopped. "
            "Make it faster (fewer points, no endless loops) and retry.",
        )
    if status is None:
        return FigureResult(False, False, _clip(_crash_message(outcome, memory_mb)))
    if status == "setup_error":
        return FigureResult(
            False, False, _clip(f"The sandbox could not start: {result.get('error', '')}")
        )
    if status == "error":
        tb = str(result.get("traceback", ""))[-MAX_TRACEBACK_CHARS:]
        hint = ""
        if tb.rstrip().endswith("MemoryError") or "MemoryError" in tb[-200:]:
            hint = f"\nThe sandbox allows {memory_mb} MB: use less data or smaller arrays."
        elif "usetex" in code:
            hint = (
                "\ntext.usetex needs a LaTeX program, which the sandbox cannot start: "
                "use matplotlib's built-in mathtext ($...$) instead."
            )
        printed = f"\nPrinted before the error:\n{_head(stdout, 300)}" if stdout.strip() else ""
        return FigureResult(
            False, False, _clip(f"Your code raised an error:\n{tb}{hint}{printed}"), stdout=stdout
        )
    return None


def _judge(
    outcome: _ChildOutcome,
    staging: Path,
    figures_dir: Path,
    stem: str,
    code: str,
    caption: str,
    inputs: list[provenance.InputFile],
    timeout_s: float,
    memory_mb: int,
) -> FigureResult:
    failed = _failure(outcome, code, timeout_s, memory_mb)
    if failed is not None:
        return failed
    result = _result_record(outcome)
    status = result.get("status")
    stdout = _stdout_of(outcome, result)
    refusals = [r for r in outcome.records if r.get("event") == "refused"]
    if status == "no_figure":
        return FigureResult(
            False,
            False,
            "Your code finished but left no figure open. Create it with plt.subplots() or "
            "plt.figure() and leave it open: do not call plt.close() or savefig(); the harness "
            "saves every open figure as PDF and PNG.",
            stdout=stdout,
        )
    staged = provenance.collect_staged(staging, MAX_FIGURES, MAX_STAGED_MB * 1024 * 1024)
    if staged.refused:
        return FigureResult(False, True, _clip(_tampered_message(staged.refused)), stdout=stdout)
    figures = staged.figures
    if not figures:
        return FigureResult(
            False, False, "The figure could not be saved as a valid PDF and PNG.", stdout=stdout
        )
    published = provenance.publish(
        figures_dir, stem, figures, code=code, caption=caption, inputs=inputs, stdout=stdout
    )
    opened = int(result.get("open_figures", len(figures)) or len(figures))
    images = [f for f in published.files if not f.endswith(".py")]
    text = f"Saved {len(figures)} figure(s) to figures/: {', '.join(images)}."
    if opened > len(figures):
        text += f" Only the first {len(figures)} of {opened} open figures were kept."
    if stdout.strip():
        text += f"\nPrinted output:\n{_head(stdout, STDOUT_IN_MESSAGE)}"
    if refusals:
        refused = "; ".join(str(r.get("detail", ""))[:120] for r in refusals[:3])
        text += f"\nNote: the sandbox refused reading {refused} (outside the data folder)."
    warnings = str(result.get("stderr", "")).strip()
    if warnings:
        text += f"\nWarnings:\n{_head(warnings, 300)}"
    return FigureResult(
        True,
        False,
        _clip(text),
        pdf=published.pdf,
        png=published.png,
        meta=published.meta,
        stdout=stdout,
    )


# What a refusal tells analysis code to do instead (the figure wording speaks of saving).
_ANALYSIS_FIXES = {
    "writing outside the figure output": "do not save or write files: print() or show() the results.",
    "creating special files": "do not create files: print() or show() the results.",
    "disk": "An analysis needs no files: print() or show() what it computes.",
}
MAX_ANALYSIS_MESSAGE = 4000  # what the model reads of the printed output
MAX_RESULT_TEXT = 300
MAX_RESULTS = 200


def _judge_analysis(
    outcome: _ChildOutcome,
    code: str,
    inputs: list[provenance.InputFile],
    timeout_s: float,
    memory_mb: int,
) -> AnalysisResult:
    failed = _failure(outcome, code, timeout_s, memory_mb, _ANALYSIS_FIXES)
    result = _result_record(outcome)
    stdout = _stdout_of(outcome, result)
    if failed is not None:
        code_error = not failed.denied and result.get("status") == "error"
        return AnalysisResult(
            False, failed.denied, failed.message, stdout=failed.stdout, code_error=code_error
        )
    shown = _shown_results(result.get("results"), stdout)
    hashes = [{"path": f.rel, "sha256": f.sha256, "bytes": f.size} for f in inputs]
    if not stdout.strip():
        text = (
            "Your code ran but printed nothing. print() the values you computed, or "
            "show('name', value, 'unit') each result (value ± uncertainty)."
        )
        return AnalysisResult(True, False, text, stdout="", results=[], inputs=hashes)
    text = "Printed output:\n" + _clip(stdout.strip(), MAX_ANALYSIS_MESSAGE)
    refusals = [r for r in outcome.records if r.get("event") == "refused"]
    if refusals:
        refused = "; ".join(str(r.get("detail", ""))[:120] for r in refusals[:3])
        text += f"\nNote: the sandbox refused reading {refused} (outside the data folder)."
    warnings = str(result.get("stderr", "")).strip()
    if warnings:
        text += f"\nWarnings:\n{_head(warnings, 300)}"
    return AnalysisResult(True, False, text, stdout=stdout, results=shown, inputs=hashes)


def _shown_results(raw: object, stdout: str) -> list[dict]:
    """show()'s records as plain values, each kept only if its line is in the printed output
    (the child is untrusted: a result it did not print is no evidence)."""
    if not isinstance(raw, list):
        return []
    lines = stdout.split("\n")
    where: dict[str, int] = {}
    for i, line in enumerate(lines):
        where.setdefault(line.rstrip(), i)
    out: list[dict] = []
    for item in raw[:MAX_RESULTS]:
        if not isinstance(item, dict):
            continue
        text = item.get("text")
        if not isinstance(text, str) or text.rstrip() not in where:
            continue
        value, u = item.get("value"), item.get("u")
        if not isinstance(value, (int, float)) or isinstance(value, bool):
            continue
        if u is not None and (not isinstance(u, (int, float)) or isinstance(u, bool)):
            continue
        out.append(
            {
                "name": str(item.get("name", ""))[:80],
                "value": float(value),
                "u": None if u is None else float(u),
                "unit": str(item.get("unit", ""))[:40],
                "text": text[:MAX_RESULT_TEXT],
                "line": where[text.rstrip()],
            }
        )
    return out


def _tampered_message(refused: list[str]) -> str:
    found = "; ".join(r[:160] for r in refused[:3])
    more = f" (and {len(refused) - 3} more)" if len(refused) > 3 else ""
    return (
        "Refused by the sandbox (rule: the figure's output files must be regular files the "
        f"harness wrote; found: {found}{more}). Nothing was published. Fix: leave the figure "
        "open and let the harness save it; do not create, replace or link files in the "
        "sandbox's folders."
    )


def _crash_message(outcome: _ChildOutcome, memory_mb: int) -> str:
    code = outcome.returncode
    reason = f"exit status {code}"
    if code is not None and code < 0:
        try:
            name = signal.Signals(-code).name
        except ValueError:
            name = f"signal {-code}"
        reason = name
        if name == "SIGXCPU":
            reason += " (CPU time limit)"
        elif name == "SIGKILL":
            reason += f" (probably the {memory_mb} MB memory limit or the CPU limit)"
    text = f"The sandboxed process ended without a result ({reason})."
    if outcome.stderr_tail:
        text += f"\nLast output:\n{outcome.stderr_tail[-600:]}"
    return text
