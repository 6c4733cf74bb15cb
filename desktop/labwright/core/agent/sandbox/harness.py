"""Child bootstrap of the make_figure sandbox (layer 2). Runs as a standalone script.

Started by runner.py as ``python -I harness.py JOB.json`` in a fresh temporary
directory with a scrubbed environment. It must import nothing from labwright: the
parent passes every policy value in the job file, so this file is the whole of
the child's trusted code — but for the analysis library (core/analysis: load, fit,
show ...), which it loads from the folder the job names, under a name of its own,
before the hook goes up (`_analysis_names`).

Order matters:
1. resource limits (memory, CPU, file size, core dumps, process count);
2. trusted imports (numpy, matplotlib with Agg, and whatever allowed modules the
   code imports) while the process is still unrestricted;
3. compile the user code, neuter the one process primitive that has no audit
   event (``_posixsubprocess.fork_exec``);
4. install the audit hook — it can never be removed;
5. run the user code, save every open figure into the staging directory, write
   one JSON result line to the result channel.

The hook is written to resist tampering from the code it polices: it is reachable
from no Python object (only the interpreter holds it, and gc introspection is
refused), and it looks up no global or builtin name at call time — every callable
it uses was captured in its closure at install time — so monkeypatching
``os.path`` or ``builtins`` cannot change its decisions.
"""

from __future__ import annotations

import contextlib
import json
import os
import sys
import warnings

# mypy reads a local TYPE_CHECKING as typing's: the child imports nothing for the checker.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from types import CodeType
    from typing import Any

    # deny(rule, detail): record the refusal and end the process.
    Deny = Callable[[str, object], None]

# Exit status of a child stopped by the audit hook; the parent maps it to denied=True.
_EXIT_DENIED = 86
# Captured before any user code runs: the final exit also ends threads the code left running.
_HARD_EXIT = os._exit


def _set_limits(job: dict) -> None:
    """POSIX resource limits; silently skipped where the platform lacks them."""
    try:
        import resource
    except ImportError:  # Windows
        return

    def cap(which: str, soft: int, hard: int | None = None) -> None:
        res = getattr(resource, which, None)
        if res is None:
            return
        try:
            _cur_soft, cur_hard = resource.getrlimit(res)
            hard = soft if hard is None else hard
            if cur_hard != resource.RLIM_INFINITY:
                hard = min(hard, cur_hard)
                soft = min(soft, hard)
            resource.setrlimit(res, (soft, hard))
        except (ValueError, OSError):
            pass  # e.g. macOS refuses RLIMIT_AS; the other limits still hold

    mib = 1024 * 1024
    cap("RLIMIT_AS", int(job["memory_mb"]) * mib)
    cpu = int(job["timeout_s"]) + 2
    cap("RLIMIT_CPU", cpu, cpu + 1)  # SIGXCPU at soft, SIGKILL at hard
    cap("RLIMIT_FSIZE", int(job["max_file_mb"]) * mib)
    cap("RLIMIT_CORE", 0)
    cap("RLIMIT_NOFILE", 256)
    try:
        import signal

        # Over-size writes then fail with EFBIG (a readable traceback) instead of a kill.
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    except (AttributeError, ValueError, OSError):
        pass


def _set_nproc_limit(limit: int | None) -> None:
    """Linux: no fork bomb. RLIMIT_NPROC counts every task (thread) of the real uid —
    inside the child's own user namespace (confine.py) only the child's tasks, so the
    parent passes a small absolute limit there; without one it passes the user's
    current count plus a margin. Root ignores RLIMIT_NPROC outside a user namespace:
    there the audit hook blocks forks.
    """
    if not sys.platform.startswith("linux") or limit is None:
        return
    try:
        import resource

        resource.setrlimit(resource.RLIMIT_NPROC, (int(limit), int(limit)))
    except (ImportError, ValueError, OSError):
        pass


def _scrub_environment() -> None:
    """Defence in depth: the parent already passed a minimal environment."""
    markers = ("KEY", "TOKEN", "SECRET", "PASSWORD", "PASSWD", "CREDENTIAL", "AUTH", "COOKIE")
    for name in list(os.environ):
        if any(m in name.upper() for m in markers):
            del os.environ[name]


def _trusted_imports(modules: list[str]) -> None:
    import importlib

    import matplotlib

    matplotlib.use("Agg")
    import mimetypes

    import matplotlib.backends.backend_agg  # noqa: F401
    import matplotlib.backends.backend_pdf  # noqa: F401
    import matplotlib.pyplot  # noqa: F401
    import numpy  # noqa: F401

    # Read /etc/mime.types & co. now: openpyxl's zip handling would otherwise do it later.
    mimetypes.init()

    for name in modules:
        # A failing import is reported by the user's own import statement.
        with contextlib.suppress(Exception):
            importlib.import_module(name)
    if "pandas" in sys.modules:
        # One parse thread: predictable memory, and the task limit stays small.
        # (Older pandas has no such option.)
        with contextlib.suppress(Exception):
            sys.modules["pandas"].set_option("mode.max_threads", 1)


# The analysis library as the child knows it: loaded from its folder under this name, so
# nothing else of labwright is imported here (the package's __init__ files never run).
_ANALYSIS_MODULE = "labwright_analysis"


def _analysis_imports(job: dict) -> list[str]:
    """What load, fit and show need, imported while the process is still trusted.

    scipy itself always (the hook's list of files allowed to generate code is taken from
    it); for an analysis also pandas and the scipy parts every fit and t factor use."""
    if not job.get("analysis"):
        return []
    names = ["scipy", "uncertainties", "uncertainties.umath", "uncertainties.unumpy"]
    if job.get("mode") == "analysis":
        names += ["pandas", "scipy.optimize", "scipy.stats"]
    return names


def _analysis_names(job: dict, results: list) -> dict:
    """load, fit, show, ufloat ... for the user code (core/analysis/namespace.py)."""
    import importlib.util
    from pathlib import PurePath

    analysis = job.get("analysis")
    if not analysis:
        return {}
    package = analysis["package"]
    spec = importlib.util.spec_from_file_location(
        _ANALYSIS_MODULE,
        os.path.join(package, "__init__.py"),
        submodule_search_locations=[package],
    )
    if spec is None or spec.loader is None:
        raise ImportError(f"the analysis library is not at {package}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[_ANALYSIS_MODULE] = module
    spec.loader.exec_module(module)
    return dict(module.predefined(analysis.get("tables") or {}, PurePath(job["data_dir"]), results))


def _helpers(job: dict, results: list, analysis_mode: bool) -> dict:
    """The analysis names; a figure goes on without them if the library cannot load
    (its code then meets a NameError only if it uses them), an analysis cannot."""
    if analysis_mode:
        return _analysis_names(job, results)
    try:
        return _analysis_names(job, results)
    except Exception:  # noqa: BLE001 - the figure does not need them
        return {}


def _realpath_roots(paths: list[str]) -> tuple[str, ...]:
    out: list[str] = []
    for p in paths:
        if not p:
            continue
        try:
            r = os.path.normcase(os.path.realpath(p))
        except (OSError, ValueError):
            continue
        if os.path.dirname(r) == r:
            continue  # a filesystem root would open everything
        if r not in out:
            out.append(r)
    return tuple(out)


def _library_roots() -> list[str]:
    """Where Python and the installed packages live (read-only for the code)."""
    import sysconfig

    roots = [p for p in sys.path if p and os.path.isdir(p)]
    for key in ("stdlib", "platstdlib", "purelib", "platlib"):
        p = sysconfig.get_paths().get(key)
        if p:
            roots.append(p)
    return roots


def _font_files() -> list[str]:
    """Font files matplotlib may open while saving (system fonts live outside site-packages)."""
    try:
        from matplotlib import font_manager

        fm = font_manager.fontManager
        return [f.fname for f in list(fm.ttflist) + list(fm.afmlist)]
    except Exception:  # noqa: BLE001
        return []


def _zoneinfo_roots() -> list[str]:
    try:
        import zoneinfo

        return list(zoneinfo.TZPATH)
    except Exception:  # noqa: BLE001
        return []


# Inside the PyInstaller bundle (packaging/): modules come from an archive in the
# executable through PyInstaller's importer, library code objects carry file names
# relative to the bundle's folder ("numpy/x.py"), and a module's __file__ is its .pyc
# (stdlib ones inside base_library.zip). The checks map each back to the absolute .py
# name a plain install has; outside a bundle nothing changes.
_BUNDLE = getattr(sys, "_MEIPASS", None) if getattr(sys, "frozen", False) else None
_BUNDLE_IMPORTERS = frozenset({"pyimod01_archive.py", "pyimod02_importers.py"})


def _bundle_source(path: str) -> str:
    """A bundle module's __file__ as the file name its code objects report, made absolute."""
    if _BUNDLE is None or not path.startswith(_BUNDLE):
        return path
    rel = os.path.relpath(path, _BUNDLE).replace(os.sep, "/")
    rel = rel.removeprefix("base_library.zip/")
    return os.path.join(_BUNDLE, rel[:-1] if rel.endswith(".pyc") else rel)


def _codegen_files(*stdlib_files: str) -> frozenset[str]:
    """Library files allowed to exec() generated source (built from identifiers only).

    namedtuple and dataclass build methods from source text; scipy.stats builds each
    distribution's argument parser (also when a distribution is frozen, at run time)
    and scipy's result bunches likewise. Every other exec of a string is refused.
    """
    files = set(stdlib_files)
    scipy = sys.modules.get("scipy")
    scipy_file = getattr(scipy, "__file__", None) if scipy is not None else None
    if scipy_file:
        root = os.path.dirname(scipy_file)
        files.add(os.path.join(root, "stats", "_distn_infrastructure.py"))
        files.add(os.path.join(root, "_lib", "_bunch.py"))
    return frozenset(_bundle_source(f) for f in files)


def _neuter_fork_exec(deny: Deny) -> None:
    """`_posixsubprocess.fork_exec` forks and execs with no audit event: replace it.

    multiprocessing looks it up on the module at call time; subprocess keeps its own
    alias (`subprocess._fork_exec`), so both are replaced. Re-importing the module to
    get the original back is refused by the hook ("import" event).
    """
    try:
        import _posixsubprocess
        import subprocess
    except ImportError:
        return

    def fork_exec(*_args, **_kwargs):  # noqa: ANN002, ANN003, ANN202
        deny("starting processes", "_posixsubprocess.fork_exec")

    _posixsubprocess.fork_exec = fork_exec
    if hasattr(subprocess, "_fork_exec"):
        subprocess._fork_exec = fork_exec


def _neuter_pidfd(deny: Deny) -> None:
    """``os.pidfd_open`` and ``signal.pidfd_send_signal`` raise no audit event: replace
    them (in ``posix``/``_signal`` too, where ``os``/``signal`` copied them from). The
    kernel's wall behind this is Landlock's signal scope (confine.py)."""
    import signal

    def pidfd_open(*_args, **_kwargs):  # noqa: ANN002, ANN003, ANN202
        deny("signalling other processes", "os.pidfd_open")

    def pidfd_send_signal(*_args, **_kwargs):  # noqa: ANN002, ANN003, ANN202
        deny("signalling other processes", "signal.pidfd_send_signal")

    for module in (os, sys.modules.get("posix"), sys.modules.get("nt")):
        if module is not None and hasattr(module, "pidfd_open"):
            module.pidfd_open = pidfd_open
    for module in (signal, sys.modules.get("_signal")):
        if module is not None and hasattr(module, "pidfd_send_signal"):
            module.pidfd_send_signal = pidfd_send_signal


def _neuter_native(deny: Deny) -> None:
    """Calls with no audit event that reach outside Python's rules: replace them.

    - ``os.setpriority`` / ``sched_set*`` / ``setpgid`` act on other processes
      (seccomp refuses the first ones too, see confine.py);
    - ``os.mkfifo`` / ``os.mknod`` make special files (the parent refuses them anyway);
    - ctypes is imported by numpy and matplotlib, so ``import ctypes`` raises no
      event, and ``memmove``/``memset``/``cast``/``string_at`` and function
      pointers made from an address read or write any memory without one (the
      audit hook itself lives in that memory). Loading a library
      (``ctypes.dlopen``) and making data from an address (``ctypes.cdata``) are
      refused by the hook.
    """

    def refused(name: str) -> Callable[..., None]:
        def call(*_args, **_kwargs):  # noqa: ANN002, ANN003, ANN202
            deny("interpreter, memory or system access", name)

        return call

    def special(name: str) -> Callable[..., None]:
        def call(*_args, **_kwargs):  # noqa: ANN002, ANN003, ANN202
            deny("creating special files", name)

        return call

    for module in (os, sys.modules.get("posix")):
        for name in (
            "setpriority",
            "sched_setaffinity",
            "sched_setscheduler",
            "sched_setparam",
            "setpgid",
        ):
            if module is not None and hasattr(module, name):
                setattr(module, name, refused(f"os.{name}"))
    # A FIFO, socket or device in place of an output makes a reader wait or do what
    # opening it does; a figure needs none, even in its own folder, and CPython raises
    # no audit event for creating one.
    for module in (os, sys.modules.get("posix")):
        for name in ("mkfifo", "mknod"):
            if module is not None and hasattr(module, name):
                setattr(module, name, special(f"os.{name}"))
    ctypes = sys.modules.get("ctypes")
    if ctypes is not None:
        for name in (
            "memmove",
            "memset",
            "cast",
            "string_at",
            "wstring_at",
            "CFUNCTYPE",
            "PYFUNCTYPE",
            "WINFUNCTYPE",
            "_cast",
            "_string_at",
            "_wstring_at",
        ):
            if hasattr(ctypes, name):
                setattr(ctypes, name, refused(f"ctypes.{name}"))
        cache = getattr(ctypes, "_c_functype_cache", None)
        if isinstance(cache, dict):
            cache.clear()


def _make_hook(
    *,
    read_roots: tuple[str, ...],
    write_roots: tuple[str, ...],
    quiet_roots: tuple[str, ...],
    quiet_read_roots: tuple[str, ...],
    read_files: frozenset[str],
    library_roots: tuple[str, ...],
    codegen_files: frozenset[str],
    user_code: CodeType,
    channel_fd: int,
) -> tuple[Deny, Callable[[str, tuple], None]]:
    """Build (deny, hook). Everything the hook calls is bound here, never looked up later."""
    import pathlib

    _bundle = _BUNDLE
    _bundle_importers = _BUNDLE_IMPORTERS if _BUNDLE is not None else frozenset()
    _isabs = os.path.isabs
    _join = os.path.join

    _fspath = os.fspath
    _lstat = os.lstat
    _stat = os.stat
    _readlink = os.readlink
    _getcwd = os.getcwd
    _write = os.write
    _exit = os._exit
    _getframe = sys._getframe
    _normcase = os.path.normcase
    _is_posix = os.name == "posix"
    _win_realpath = os.path.realpath  # Windows only: see the limitation in the README
    _sep = os.sep
    _isinstance = isinstance
    _type = type
    _str = str
    _bytes = bytes
    _int = int
    _len = len
    _tuple = tuple
    _list = list
    _reversed = reversed
    _OSError = OSError
    _ValueError = ValueError
    _PermissionError = PermissionError
    _path_types = _tuple(
        t
        for t in (
            pathlib.PosixPath,
            pathlib.WindowsPath,
            pathlib.PurePosixPath,
            pathlib.PureWindowsPath,
        )
        if t is not None
    )
    _exit_code = _EXIT_DENIED
    _write_flags = 0
    for flag in ("O_WRONLY", "O_RDWR", "O_CREAT", "O_TRUNC", "O_APPEND"):
        _write_flags |= getattr(os, flag, 0)
    # A folder opened as a descriptor is the anchor of every *at() call (open(dir_fd=),
    # os.remove(dir_fd=)...), whose audit events carry names relative to it that this
    # hook would resolve against the wrong folder: descriptors of folders are refused.
    _dir_flags = getattr(os, "O_DIRECTORY", 0) | getattr(os, "O_PATH", 0)

    def _clean(text: Any) -> str:  # Any: mypy does not narrow through the _isinstance alias
        s = text if _isinstance(text, _str) else _str(_type(text))
        return "".join(c if (" " <= c <= "~" and c != '"' and c != "\\") else "?" for c in s[:300])

    def _record(kind: str, rule: str, detail: object) -> None:
        record = '{"event": "' + kind + '", "rule": "' + _clean(rule) + '", "detail": "'
        record = record + _clean(detail) + '"}\n'
        # try/except, not contextlib.suppress: the hook must not look up module globals.
        try:  # noqa: SIM105
            _write(channel_fd, record.encode("ascii"))
        except _OSError:
            pass

    def deny(rule: str, detail: object) -> None:
        """Hard refusal: record it on the result channel and end the process at once."""
        _record("denied", rule, detail)
        _exit(_exit_code)

    def refuse(rule: str, detail: object) -> None:
        """Soft refusal (reads): the call fails with PermissionError, nothing is read.

        Libraries probe files and fall back on OSError; code that lets the error
        escape is reported as denied by the parent, code that handles it goes on.
        """
        _record("refused", rule, detail)
        raise _PermissionError(f"the sandbox refused {rule}: {_clean(detail)}")

    def _posix_real(path: str) -> str:
        """realpath() from captured C primitives (posixpath.realpath is monkeypatchable)."""
        if not path.startswith("/"):
            path = _getcwd() + "/" + path
        pending = _list(_reversed(path.split("/")))
        resolved = ""
        hops = 0
        while pending:
            name = pending.pop()
            if name == "" or name == ".":
                continue
            if name == "..":
                resolved = resolved[: resolved.rfind("/")] if resolved else ""
                continue
            candidate = resolved + "/" + name
            try:
                st = _lstat(candidate)
            except (_OSError, _ValueError):
                resolved = candidate
                continue
            if (st.st_mode & 0o170000) == 0o120000:
                hops += 1
                if hops > 40:
                    deny("symlink loop", candidate)
                target = _readlink(candidate)
                if target.startswith("/"):
                    resolved = ""
                pending.extend(_reversed(target.split("/")))
            else:
                resolved = candidate
        return resolved or "/"

    def _resolve(path):  # noqa: ANN001, ANN202
        """Absolute real path for an audit argument; None for a file descriptor."""
        if _isinstance(path, _int):
            return None
        if _type(path) in _path_types:
            path = _fspath(path)
        if _isinstance(path, _bytes):
            path = path.decode("utf-8", "surrogateescape")
        if not _isinstance(path, _str):
            # A custom os.PathLike could answer differently to the hook and to open().
            deny("file access through a custom path-like object", _type(path))
        if "\x00" in path:
            deny("file access", path)
        real = _posix_real(path) if _is_posix else _win_realpath(path)
        return _normcase(real)

    def _is_dir(real: str) -> bool:
        try:
            return (_stat(real).st_mode & 0o170000) == 0o040000
        except (_OSError, _ValueError):
            return False

    def _no_dir_fd(args: tuple, start: int) -> None:
        """Deny an *at() call: any dir_fd argument that is a descriptor, not None."""
        for value in args[start:]:
            # -1 (or None) is how the events spell "no dir_fd".
            if (
                _isinstance(value, _int)
                and value != -1
                and value is not True
                and value is not False
            ):
                deny("file access relative to a folder descriptor", "dir_fd")

    def _inside(real: str, roots: tuple[str, ...]) -> bool:
        for root in roots:
            if real == root or real.startswith(root if root.endswith(_sep) else root + _sep):
                return True
        return False

    def _check_read(path: object) -> None:
        real = _resolve(path)
        if real is None:
            return
        if real in read_files or _inside(real, read_roots) or _inside(real, write_roots):
            return
        if _inside(real, quiet_read_roots):
            # Libraries probe system info (pandas reads /sys/fs/cgroup/cpu.max): they get a
            # plain OSError and fall back, and the probe is not worth reporting.
            raise _PermissionError("system information is not readable in the sandbox")
        refuse("reading outside the data folder", path)

    def _check_write(path: object) -> None:
        real = _resolve(path)
        if real is None:
            return
        if _inside(real, write_roots):
            return
        if _inside(real, quiet_roots):
            # matplotlib may try to refresh its font cache: behave like a read-only disk.
            raise _PermissionError("read-only cache directory")
        deny("writing outside the figure output", path)

    def _caller_file(depth: int) -> str:
        try:
            return _getframe(depth).f_code.co_filename
        except _ValueError:
            return ""

    def _code_file(filename: str) -> str:
        # a bundle's library code names its file relative to the bundle (see _BUNDLE)
        if _bundle is not None and filename and filename[0] != "<" and not _isabs(filename):
            return _join(_bundle, filename)
        return filename

    process_events = frozenset(
        {
            "subprocess.Popen",
            "os.system",
            "os.exec",
            "os.posix_spawn",
            "os.spawn",
            "os.fork",
            "os.forkpty",
            "os.kill",
            "os.killpg",
            "os.startfile",
            "pty.spawn",
            "_winapi.CreateProcess",
            "signal.pthread_kill",
            "webbrowser.open",
        }
    )
    network_prefixes = (
        "socket.",
        "urllib.",
        "http.",
        "ftplib.",
        "smtplib.",
        "poplib.",
        "imaplib.",
        "nntplib.",
        "telnetlib.",
    )
    interpreter_events = frozenset(
        {
            "sys.addaudithook",
            "sys.settrace",
            "sys.setprofile",
            "gc.get_objects",
            "gc.get_referrers",
            "gc.get_referents",
            "code.__new__",
            "resource.setrlimit",
            "resource.prlimit",
            "pickle.find_class",
            "os.chdir",
            "os.fchdir",
            "os.chroot",
            "os.add_dll_directory",
            "fcntl.ioctl",
            "cpython.PyInterpreterState_New",
        }
    )
    denied_prefixes = ("ctypes.", "winreg.", "msvcrt.", "sqlite3.", "_xxsubinterpreters.")
    read_events = frozenset({"os.listdir", "os.scandir", "os.getxattr", "os.listxattr"})
    write_events = frozenset(
        {
            "os.remove",
            "os.rmdir",
            "os.mkdir",
            "os.truncate",
            "os.chmod",
            "os.chown",
            "os.utime",
            "os.chflags",
            "os.lchflags",
            "os.setxattr",
            "os.removexattr",
            "shutil.rmtree",
            "shutil.chown",
        }
    )
    two_path_write_events = frozenset(
        {
            "os.rename",
            "shutil.copyfile",
            "shutil.copymode",
            "shutil.copystat",
            "shutil.copytree",
            "shutil.move",
        }
    )
    # Where the dir_fd argument(s) sit in each *at() audit event.
    dir_fd_at = {
        "os.remove": 1,
        "os.rmdir": 1,
        "os.mkdir": 2,
        "os.chmod": 2,
        "os.chown": 3,
        "os.utime": 3,
        "os.rename": 2,
    }
    link_events = frozenset({"os.link", "os.symlink"})
    archive_events = frozenset({"shutil.make_archive", "shutil.unpack_archive"})
    code_ok_prefixes = ("<frozen ",)
    # Re-importing would hand back the original fork_exec replaced by _neuter_fork_exec.
    reimport_denied = frozenset({"_posixsubprocess", "ctypes", "_ctypes", "posix", "_signal"})

    def hook(event: str, args: tuple) -> None:
        # Hot, benign events first: this runs for every audited operation.
        if event == "open":
            path, mode, flags = args[0], args[1], args[2]
            if path is None:
                return
            writing = False
            if _isinstance(mode, _str):
                for ch in "wax+":
                    if ch in mode:
                        writing = True
            if _isinstance(flags, _int) and flags & _write_flags:
                writing = True
            if mode is None and _isinstance(flags, _int) and not _isinstance(path, _int):
                # os.open(): a folder descriptor would anchor dir_fd-relative calls.
                if flags & _dir_flags:
                    deny("opening a folder as a descriptor", path)
                real = _resolve(path)
                if real is not None and _is_dir(real):
                    deny("opening a folder as a descriptor", path)
            if writing:
                _check_write(path)
            else:
                _check_read(path)
            return
        if event == "compile":
            # The exec check below trusts a code object's file name (a library's, or
            # "<frozen …>"); only the importer may give code such a name. Anything else
            # compiles under "<string>"-like names, as namedtuple and user code do.
            # Any: mypy does not narrow through the _isinstance alias
            filename: Any = args[1] if _len(args) > 1 else None
            if _isinstance(filename, _bytes):
                filename = filename.decode("utf-8", "replace")
            named = not _isinstance(filename, _str) or not filename.startswith("<")
            if named or filename.startswith(code_ok_prefixes):
                caller = _caller_file(2)
                if caller.startswith("<frozen importlib") or caller in _bundle_importers:
                    return
                deny("compiling code under a file's name", _str(filename))
            return
        if event == "exec":
            code = args[0]
            if code is user_code:
                return
            filename = code.co_filename if _isinstance(code.co_filename, _str) else ""
            if filename.startswith(code_ok_prefixes):
                return
            if _inside(_normcase(_code_file(filename)), library_roots):
                return  # a module being imported from the Python installation
            if filename == "<string>" and _code_file(_caller_file(2)) in codegen_files:
                return  # namedtuple / dataclass generated methods
            deny("running dynamically created code", filename)
        if event == "import":
            if args[0] in reimport_denied:
                deny("re-importing a neutered module", args[0])
            return
        if event in ("marshal.loads", "marshal.load"):
            caller = _caller_file(2)
            if caller.startswith("<frozen importlib") or caller in _bundle_importers:
                return
            deny("loading code objects with marshal", event)
        if event in process_events:
            deny("starting processes", event)
        if event.startswith(network_prefixes):
            deny("network access", event)
        if event in interpreter_events or event.startswith(denied_prefixes):
            deny("interpreter, memory or system access", event)
        if event == "object.__setattr__" and _len(args) > 1 and args[1] == "__code__":
            deny("replacing a function's code", event)
        if event in read_events:
            if args and args[0] is not None:
                _check_read(args[0])
            return
        if event in write_events:
            if event in dir_fd_at:
                _no_dir_fd(args, dir_fd_at[event])
            if args and _isinstance(args[0], _int):
                # fchmod/futime/fsetxattr... on a descriptor: Landlock does not fence
                # metadata, and a descriptor of a data file must not change its mode.
                deny("changing a file through its descriptor", event)
            _check_write(args[0])
            return
        if event in two_path_write_events:
            if event in dir_fd_at:
                _no_dir_fd(args, dir_fd_at[event])
            _check_write(args[0])
            _check_write(args[1])
            return
        if event in link_events:
            deny("creating links", args[1] if _len(args) > 1 else event)
        if event in archive_events:
            deny("archive operations", event)

    return deny, hook


class _CappedText:
    """A write-only text stream that keeps the first `limit` characters."""

    def __init__(self, limit: int) -> None:
        self._parts: list[str] = []
        self._size = 0
        self._limit = limit
        self.truncated = False

    def write(self, text: str) -> int:
        text = str(text)
        room = self._limit - self._size
        if room > 0:
            chunk = text[:room]
            self._parts.append(chunk)
            self._size += len(chunk)
        if len(text) > max(room, 0):
            self.truncated = True
        return len(text)

    def flush(self) -> None:
        pass

    def isatty(self) -> bool:
        return False

    def getvalue(self) -> str:
        return "".join(self._parts) + ("\n[... output truncated]" if self.truncated else "")


def _user_builtins(hidden: list[str]) -> dict:
    """The builtins the user code sees: without open/eval/exec/... (defence in depth;
    the static check already refuses those names, the audit hook fences the effects)."""
    import builtins

    names = dict(vars(builtins))
    for name in hidden:
        names.pop(name, None)
    return names


def _register_source(source: str) -> None:
    """Let tracebacks quote the user's lines although '<figure>' is not a file."""
    import linecache

    lines = source.splitlines(keepends=True)
    linecache.cache["<figure>"] = (len(source), None, lines, "<figure>")


def _traceback_tail(exc: BaseException, limit: int) -> str:
    import traceback

    frames = traceback.extract_tb(exc.__traceback__)
    # Frames of this harness mean nothing to the model: start at its own code.
    user = [f for f in frames if f.filename == "<figure>"]
    lines = ["Traceback (most recent call last):"]
    shown = frames[frames.index(user[0]) :] if user else frames[-3:]
    shown = [f for f in shown if f.filename != __file__]  # the audit hook's own frames
    for frame in shown[-8:]:
        where = "your code" if frame.filename == "<figure>" else frame.filename
        lines.append(f'  File "{where}", line {frame.lineno}, in {frame.name}')
        if frame.line:
            lines.append(f"    {frame.line}")
    lines.extend(traceback.format_exception_only(type(exc), exc))
    text = "\n".join(line.rstrip("\n") for line in lines)
    return text if len(text) <= limit else "..." + text[-limit:]


def _save_figures(staging: str, max_figures: int, dpi: int) -> tuple[int, int]:
    """Save every open figure as fig-NNN.pdf/.png; return (saved, open)."""
    import matplotlib.pyplot as plt

    numbers = plt.get_fignums()
    saved = 0
    for i, number in enumerate(numbers[:max_figures], start=1):
        fig = plt.figure(number)
        base = os.path.join(staging, f"fig-{i:03d}")
        fig.savefig(base + ".pdf", bbox_inches="tight")
        fig.savefig(base + ".png", dpi=dpi, bbox_inches="tight")
        saved += 1
    return saved, len(numbers)


def main(argv: list[str]) -> int:
    with open(argv[1], encoding="utf-8") as fh:
        job = json.load(fh)
    channel_fd = _open_channel(job)
    for entry in job.get("extra_sys_path", []):
        if entry not in sys.path:
            sys.path.append(entry)
    _set_limits(job)
    _scrub_environment()

    def emit(record: dict) -> None:
        # default=str: show()'s records hold what the code passed it
        os.write(channel_fd, (json.dumps(record, default=str) + "\n").encode("utf-8"))

    results: list = []  # what show() printed, for the parent to check against stdout
    analysis_mode = job.get("mode") == "analysis"
    try:
        _trusted_imports(job["preimport"] + _analysis_imports(job))
        helpers = _helpers(job, results, analysis_mode)
    except Exception as exc:  # noqa: BLE001 - a broken installation, not the user's fault
        emit({"event": "result", "status": "setup_error", "error": f"{type(exc).__name__}: {exc}"})
        return 1
    try:
        code = compile(job["code"], "<figure>", "exec", dont_inherit=True)
    except (SyntaxError, ValueError) as exc:
        emit({"event": "result", "status": "error", "traceback": f"{type(exc).__name__}: {exc}"})
        return 0

    import collections
    import dataclasses
    from pathlib import Path

    import matplotlib.pyplot as plt

    work = os.path.realpath(job["work_dir"])
    staging = os.path.realpath(job["staging_dir"])
    library = [job["analysis"]["package"]] if job.get("analysis") else []
    read_roots = _realpath_roots(
        [job["data_dir"], job["mpl_cache_dir"], *_library_roots(), *_zoneinfo_roots()]
        + [os.path.dirname(plt.matplotlib.get_data_path()), *library]
    )
    read_files = frozenset(
        _realpath_roots(
            [*_font_files(), __file__, "/dev/null", "/dev/urandom", "/etc/localtime"]
            + ([sys.executable] if _BUNDLE is not None else [])  # its module archive
        )
    )
    library_roots = _realpath_roots(_library_roots())
    codegen_files = _codegen_files(collections.__file__, dataclasses.__file__)
    stdout = _CappedText(int(job["max_output_chars"]))
    stderr = _CappedText(int(job["max_output_chars"]))
    user_globals = {
        **helpers,
        "__name__": "__main__",
        "__builtins__": _user_builtins(job["hidden_builtins"]),
        "DATA_DIR": Path(job["data_dir"]),
    }
    _register_source(job["code"])

    deny, hook = _make_hook(
        read_roots=read_roots,
        write_roots=_realpath_roots([work]),
        quiet_roots=_realpath_roots([job["mpl_cache_dir"]]),
        quiet_read_roots=_realpath_roots(["/proc", "/sys", "/dev"] if os.name == "posix" else []),
        read_files=read_files,
        library_roots=library_roots,
        codegen_files=codegen_files,
        user_code=code,
        channel_fd=channel_fd,
    )
    _neuter_fork_exec(deny)
    _neuter_pidfd(deny)
    _neuter_native(deny)
    _set_nproc_limit(job.get("nproc_limit"))
    sys.dont_write_bytecode = True  # importlib would otherwise write .pyc into site-packages
    plt.show = lambda *a, **k: None  # Agg cannot show; a habitual plt.show() must not warn
    del deny
    sys.addaudithook(hook)
    del hook

    # From here on the code below is as untrusted as the user code: it may have
    # patched anything reachable. The parent re-validates everything it receives.
    sys.stdout, sys.stderr = stdout, stderr
    # Warnings name the category and text only: the harness's own path means nothing.
    warnings.formatwarning = lambda message, category, *_a, **_k: (
        f"{category.__name__}: {message}\n"
    )
    status, tb_text = "ok", ""
    try:
        exec(code, user_globals)
    except SystemExit:
        pass
    except BaseException as exc:  # noqa: BLE001 - report every failure to the model
        status, tb_text = "error", _traceback_tail(exc, int(job["max_traceback_chars"]))
    saved = opened = 0
    if status == "ok" and not analysis_mode:  # an analysis keeps no figure
        try:
            saved, opened = _save_figures(staging, int(job["max_figures"]), int(job["dpi"]))
        except BaseException as exc:  # noqa: BLE001
            status, tb_text = "error", _traceback_tail(exc, int(job["max_traceback_chars"]))
    if status == "ok" and saved == 0 and not analysis_mode:
        status = "no_figure"
    emit(
        {
            "event": "result",
            "status": status,
            "traceback": tb_text,
            "figures": saved,
            "open_figures": opened,
            "stdout": stdout.getvalue(),
            "stderr": stderr.getvalue(),
            "results": results,
        }
    )
    return 0


def _open_channel(job: dict) -> int:
    """The result channel: an inherited pipe on POSIX, an append-only file elsewhere."""
    if job.get("channel_fd") is not None:
        return int(job["channel_fd"])
    flags = os.O_WRONLY | os.O_CREAT | os.O_APPEND | getattr(os, "O_BINARY", 0)
    return os.open(job["channel_path"], flags, 0o600)


if __name__ == "__main__":
    _HARD_EXIT(main(sys.argv))
