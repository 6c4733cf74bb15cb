"""Operating-system confinement for the programs a run starts on untrusted input.

Figure code the model wrote and LaTeX the model wrote both run as child
processes. On Linux this module puts such a child in a box the kernel keeps
closed, whatever the child does:

- **Landlock** (kernel ≥ 5.13): the child reads only the paths it is given,
  writes only its output folder; from Landlock ABI 4 it can open no TCP
  connection, from ABI 6 it can signal no process outside its box (which
  also covers ``pidfd_send_signal``) and reach no abstract UNIX socket.
  Landlock also stops ``ptrace`` of anything outside the box.
- **a user and network namespace** (unprivileged user namespaces): no network
  interface but a loopback that is down.
- **seccomp**: ``socket()`` fails, a second wall behind the two above; so do
  ``setpriority``/``sched_set*``/``ioprio_set`` (no renicing Labwright) and
  ``ptrace``/``process_vm_*``.
- **dies with its parent** (``PR_SET_PDEATHSIG``), so a ``kill -9`` of
  Labwright leaves no figure child or TeX run behind.
- **a file-size limit** (``RLIMIT_FSIZE``, and no core dumps) when the policy
  sets ``max_file_bytes``: on every POSIX system, Landlock or not.

These are applied by a trampoline: this very file, run as
``python -I -S confine.py POLICY -- CMD...``, confines its own (single-threaded)
process and then ``exec``s the command, which inherits every layer and can
lift none. The file imports nothing outside the standard library for that
reason. ``support()`` probes once, in a throwaway child, which layers this
machine really grants; ``wrap()`` asks only for those, and the trampoline
refuses to start the command (exit ``EXIT_CONFINE_FAILED``) if a layer it was
asked for fails at run time, so a command never runs with less than promised.

macOS and Windows have no layer here yet: ``support()`` says so, and callers
must tell the user before running model-written code without one. The
file-size limit needs no layer: on macOS the trampoline applies it alone.
"""

from __future__ import annotations

import ctypes
import json
import os
import signal
import subprocess
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

EXIT_CONFINE_FAILED = 87

# Linux syscall numbers shared by x86_64 and aarch64 (the unified table).
_SYS_LANDLOCK_CREATE_RULESET = 444
_SYS_LANDLOCK_ADD_RULE = 445
_SYS_LANDLOCK_RESTRICT_SELF = 446
_LANDLOCK_CREATE_RULESET_VERSION = 1
_LANDLOCK_RULE_PATH_BENEATH = 1

_FS_EXECUTE = 1 << 0
_FS_WRITE_FILE = 1 << 1
_FS_READ_FILE = 1 << 2
_FS_READ_DIR = 1 << 3
_FS_REMOVE_DIR = 1 << 4
_FS_REMOVE_FILE = 1 << 5
_FS_MAKE_CHAR = 1 << 6
_FS_MAKE_DIR = 1 << 7
_FS_MAKE_REG = 1 << 8
_FS_MAKE_SOCK = 1 << 9
_FS_MAKE_FIFO = 1 << 10
_FS_MAKE_BLOCK = 1 << 11
_FS_MAKE_SYM = 1 << 12
_FS_REFER = 1 << 13  # ABI 2
_FS_TRUNCATE = 1 << 14  # ABI 3
_FS_IOCTL_DEV = 1 << 15  # ABI 5
_NET_BIND_TCP = 1 << 0  # ABI 4
_NET_CONNECT_TCP = 1 << 1
_SCOPE_ABSTRACT_UNIX = 1 << 0  # ABI 6
_SCOPE_SIGNAL = 1 << 1

_FILE_ONLY = _FS_EXECUTE | _FS_WRITE_FILE | _FS_READ_FILE | _FS_TRUNCATE | _FS_IOCTL_DEV
_READ = _FS_EXECUTE | _FS_READ_FILE | _FS_READ_DIR
# Never granted, not even where a command may write: a FIFO, socket, device node or link
# the confined code makes in its own folder is a trap for whoever reads that folder next
# (Labwright itself, reading a figure's output or TeX's log).
_SPECIAL = _FS_MAKE_CHAR | _FS_MAKE_BLOCK | _FS_MAKE_FIFO | _FS_MAKE_SOCK | _FS_MAKE_SYM

_PR_SET_PDEATHSIG = 1
_PR_SET_DUMPABLE = 4
_PR_SET_SECCOMP = 22
_PR_SET_NO_NEW_PRIVS = 38
_SECCOMP_MODE_FILTER = 2
_CLONE_NEWUSER = 0x10000000
_CLONE_NEWNET = 0x40000000

# seccomp: AUDIT_ARCH and the syscalls refused, per architecture we know. socket() first;
# then the calls that act on *other* processes without a signal (Landlock's scope does
# not cover them): renice / CPU pinning / I/O priority of the parent, and ptrace and
# process_vm_* (Landlock already refuses them outside the box; a second wall).
_SECCOMP_ARCH = {
    "x86_64": (0xC000003E, 41),
    "aarch64": (0xC00000B7, 198),
}
_SECCOMP_DENIED = {
    # setpriority, sched_setparam, sched_setscheduler, sched_setaffinity, ioprio_set,
    # ptrace, process_vm_readv, process_vm_writev
    "x86_64": (141, 142, 144, 203, 251, 101, 310, 311),
    "aarch64": (140, 118, 119, 122, 30, 117, 270, 271),
}

# Devices every program expects (Python reads /dev/urandom, writes /dev/null).
_DEVICES_RW = ("/dev/null", "/dev/zero", "/dev/full")
_DEVICES_R = ("/dev/urandom", "/dev/random")
# System trees a program needs to start and find its libraries, fonts and locales.
_SYSTEM_READ = (
    "/usr",
    "/lib",
    "/lib64",
    "/lib32",
    "/bin",
    "/sbin",
    "/etc/ld.so.cache",
    "/etc/ld.so.conf",
    "/etc/ld.so.conf.d",
    "/etc/fonts",
    "/etc/localtime",
    "/etc/timezone",
    "/etc/alternatives",
    "/etc/locale.alias",
    "/etc/nsswitch.conf",
    "/etc/passwd",  # getpwuid() of one's own uid (Perl and kpathsea ask); no secret in it
    "/etc/group",
    "/var/cache/fontconfig",
    "/nix/store",
)
# Where programs other than the system's live (Python distributions, conda): read by a
# program that runs Python (figure code), never granted to one that does not (TeX).
_PROGRAMS_READ = ("/opt",)


@dataclass(frozen=True)
class Support:
    """What this machine grants: each layer is probed for real, not guessed."""

    landlock_abi: int = 0
    namespaces: bool = False
    seccomp: bool = False
    platform: str = sys.platform

    @property
    def fs(self) -> bool:
        return self.landlock_abi >= 1

    @property
    def signals(self) -> bool:
        return self.landlock_abi >= 6

    @property
    def any(self) -> bool:
        return self.fs or self.namespaces or self.seccomp

    def layers(self) -> list[str]:
        out = []
        if self.fs:
            out.append(
                f"Landlock ABI {self.landlock_abi} (files"
                + (", signals" if self.signals else "")
                + ")"
            )
        if self.namespaces:
            out.append("network namespace")
        if self.seccomp:
            out.append("seccomp (no sockets)")
        return out

    def describe(self) -> str:
        """One sentence for the user and the log."""
        if not self.any:
            return (
                "No operating-system confinement is available on this machine "
                f"({self.platform}); model-written code is held only by Labwright's own checks."
            )
        return "Confined by " + ", ".join(self.layers()) + "."

    def to_dict(self) -> dict:
        return {
            "landlock_abi": self.landlock_abi,
            "namespaces": self.namespaces,
            "seccomp": self.seccomp,
            "layers": self.layers(),
        }


@dataclass(frozen=True)
class Policy:
    """What a confined command may touch. Paths that do not exist are left out."""

    read: tuple[str, ...] = ()
    write: tuple[str, ...] = ()
    network: bool = False
    landlock: bool = True
    namespaces: bool = True
    seccomp: bool = True
    max_file_bytes: int = 0  # RLIMIT_FSIZE of the command (0: none)
    # Whether `write` also grants making FIFOs, sockets, device nodes and links. Never in
    # Labwright's own policies; tests turn it on to show the parent's checks hold alone.
    special_files: bool = False

    def to_json(self) -> str:
        return json.dumps(self.__dict__)

    @classmethod
    def from_json(cls, text: str) -> Policy:
        data = json.loads(text)
        return cls(
            read=tuple(data.get("read", ())),
            write=tuple(data.get("write", ())),
            network=bool(data.get("network", False)),
            landlock=bool(data.get("landlock", True)),
            namespaces=bool(data.get("namespaces", True)),
            seccomp=bool(data.get("seccomp", True)),
            max_file_bytes=int(data.get("max_file_bytes", 0)),
            special_files=bool(data.get("special_files", False)),
        )


def system_read_paths(*, programs: bool = True) -> list[str]:
    """Read-only trees any confined program needs: the system and devices; with
    `programs`, also /opt and this Python (for a command that runs Python)."""
    paths = list(_SYSTEM_READ) + list(_DEVICES_R)
    if not programs:
        return paths
    paths += _PROGRAMS_READ
    for p in {sys.prefix, sys.base_prefix, sys.exec_prefix, os.path.dirname(sys.executable)}:
        paths.append(p)
        paths.append(os.path.realpath(p))
    paths.append(os.path.realpath(sys.executable))
    return paths


def policy(
    read: Sequence[str | Path] = (),
    write: Sequence[str | Path] = (),
    *,
    network: bool = False,
    programs: bool = True,
    max_file_bytes: int = 0,
) -> Policy:
    """A policy with the system's read-only trees added; only layers this machine has.
    `programs=False` leaves out /opt and this Python (see system_read_paths)."""
    s = support()
    return Policy(
        read=tuple(str(p) for p in [*system_read_paths(programs=programs), *read]),
        write=tuple(str(p) for p in [*_DEVICES_RW, *write]),
        network=network,
        landlock=s.fs,
        namespaces=s.namespaces and not network,
        seccomp=s.seccomp and not network,
        max_file_bytes=max_file_bytes,
    )


def _limits_apply(pol: Policy) -> bool:
    return pol.max_file_bytes > 0 and os.name == "posix"


def wrap(cmd: list[str], pol: Policy) -> list[str]:
    """The command line that runs `cmd` inside `pol` (unchanged where nothing applies)."""
    if not (pol.landlock or pol.namespaces or pol.seccomp or _limits_apply(pol)):
        return list(cmd)
    payload = json.dumps({**json.loads(pol.to_json()), "parent": os.getpid()})
    return [sys.executable, "-I", "-S", str(Path(__file__).resolve()), payload, "--", *cmd]


_SUPPORT: Support | None = None


def support() -> Support:
    """Which layers really work here: probed once per process in a throwaway child."""
    global _SUPPORT
    if _SUPPORT is None:
        _SUPPORT = _probe()
    return _SUPPORT


def _probe() -> Support:
    if not sys.platform.startswith("linux"):
        return Support()
    try:
        out = subprocess.run(
            [sys.executable, "-I", "-S", str(Path(__file__).resolve()), "--probe"],
            capture_output=True,
            timeout=20,
            check=False,
            env={"PATH": os.defpath},
        ).stdout
        data = json.loads(out.decode("utf-8", "replace").strip().splitlines()[-1])
        return Support(int(data["landlock_abi"]), bool(data["namespaces"]), bool(data["seccomp"]))
    except (OSError, ValueError, KeyError, IndexError, subprocess.SubprocessError):
        return Support()


def set_not_dumpable() -> bool:
    """Make this process's memory and /proc/<pid>/environ unreadable to other processes of the
    same user (where the API key lives). Linux only; True when it took effect."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        return libc.prctl(_PR_SET_DUMPABLE, 0, 0, 0, 0) == 0
    except (OSError, AttributeError):
        return False


# --- applying the layers (in the trampoline, single-threaded) -------------------------------


def _libc() -> ctypes.CDLL:
    libc = ctypes.CDLL(None, use_errno=True)
    libc.syscall.restype = ctypes.c_long
    return libc


def _landlock_abi(libc: ctypes.CDLL) -> int:
    abi = libc.syscall(
        ctypes.c_long(_SYS_LANDLOCK_CREATE_RULESET),
        None,
        ctypes.c_size_t(0),
        ctypes.c_uint32(_LANDLOCK_CREATE_RULESET_VERSION),
    )
    return max(0, int(abi))


class _RulesetAttr(ctypes.Structure):
    _fields_ = [
        ("handled_access_fs", ctypes.c_uint64),
        ("handled_access_net", ctypes.c_uint64),
        ("scoped", ctypes.c_uint64),
    ]


class _PathBeneath(ctypes.Structure):
    _pack_ = 1
    _fields_ = [("allowed_access", ctypes.c_uint64), ("parent_fd", ctypes.c_int32)]


def _fs_rights(abi: int) -> int:
    rights = (1 << 13) - 1
    if abi >= 2:
        rights |= _FS_REFER
    if abi >= 3:
        rights |= _FS_TRUNCATE
    if abi >= 5:
        rights |= _FS_IOCTL_DEV
    return rights


def _apply_landlock(libc: ctypes.CDLL, pol: Policy) -> None:
    abi = _landlock_abi(libc)
    if abi < 1:
        raise OSError("Landlock is not available")
    handled = _fs_rights(abi)
    attr = _RulesetAttr(handled_access_fs=handled)
    size = 8
    if abi >= 4 and not pol.network:
        attr.handled_access_net = _NET_BIND_TCP | _NET_CONNECT_TCP
        size = 16
    if abi >= 6:
        attr.scoped = _SCOPE_SIGNAL | _SCOPE_ABSTRACT_UNIX
        size = 24
    fd = libc.syscall(
        ctypes.c_long(_SYS_LANDLOCK_CREATE_RULESET),
        ctypes.byref(attr),
        ctypes.c_size_t(size),
        ctypes.c_uint32(0),
    )
    if fd < 0:
        raise OSError(ctypes.get_errno(), "landlock_create_ruleset failed")
    try:
        writes = handled if pol.special_files else handled & ~_SPECIAL
        for paths, rights in ((pol.read, _READ), (pol.write, writes)):
            for path in paths:
                _add_path_rule(libc, fd, path, rights & handled)
        if libc.prctl(_PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
            raise OSError(ctypes.get_errno(), "PR_SET_NO_NEW_PRIVS failed")
        if libc.syscall(ctypes.c_long(_SYS_LANDLOCK_RESTRICT_SELF), fd, ctypes.c_uint32(0)) != 0:
            raise OSError(ctypes.get_errno(), "landlock_restrict_self failed")
    finally:
        os.close(fd)


def _add_path_rule(libc: ctypes.CDLL, ruleset: int, path: str, rights: int) -> None:
    try:
        fd = os.open(path, os.O_PATH | os.O_CLOEXEC)
    except OSError:
        return  # a path this machine does not have
    try:
        if not os.path.isdir(path):
            rights &= _FILE_ONLY
        rule = _PathBeneath(allowed_access=rights, parent_fd=fd)
        if (
            libc.syscall(
                ctypes.c_long(_SYS_LANDLOCK_ADD_RULE),
                ruleset,
                ctypes.c_int(_LANDLOCK_RULE_PATH_BENEATH),
                ctypes.byref(rule),
                ctypes.c_uint32(0),
            )
            != 0
        ):
            raise OSError(ctypes.get_errno(), f"landlock_add_rule failed for {path}")
    finally:
        os.close(fd)


def _apply_namespaces(libc: ctypes.CDLL) -> None:
    uid, gid = os.getuid(), os.getgid()
    if libc.unshare(_CLONE_NEWUSER | _CLONE_NEWNET) != 0:
        raise OSError(ctypes.get_errno(), "unshare(CLONE_NEWUSER|CLONE_NEWNET) failed")
    # Map our own ids so the program sees who it is (Perl, kpathsea and Python ask).
    for name, text in (
        ("setgroups", "deny"),
        ("uid_map", f"{uid} {uid} 1"),
        ("gid_map", f"{gid} {gid} 1"),
    ):
        try:
            with open(f"/proc/self/{name}", "w") as f:
                f.write(text)
        except OSError:
            if name != "setgroups":
                raise


class _SockFilter(ctypes.Structure):
    _fields_ = [
        ("code", ctypes.c_uint16),
        ("jt", ctypes.c_uint8),
        ("jf", ctypes.c_uint8),
        ("k", ctypes.c_uint32),
    ]


class _SockFprog(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.POINTER(_SockFilter))]


def _apply_seccomp(libc: ctypes.CDLL) -> None:
    machine = os.uname().machine
    if machine not in _SECCOMP_ARCH:
        raise OSError(f"no seccomp filter for {machine}")
    arch, socket_nr = _SECCOMP_ARCH[machine]
    denied = (socket_nr, *_SECCOMP_DENIED.get(machine, ()))
    ld_abs, jeq, jge, ret = 0x20, 0x15, 0x35, 0x06
    allow, deny = 0x7FFF0000, 0x00050000 | 1  # SECCOMP_RET_ERRNO | EPERM
    n = len(denied)
    # Jumps are relative (target = next instruction + offset); the last one denies.
    prog = [
        (ld_abs, 0, 0, 4),  # seccomp_data.arch
        (jeq, 1, 0, arch),
        (ret, 0, 0, deny),  # a foreign ABI (i386 on x86_64): nothing is allowed
        (ld_abs, 0, 0, 0),  # seccomp_data.nr
        (jge, n + 1, 0, 0x40000000),  # x32 ABI numbers: refused
        *[(jeq, n - i, 0, nr) for i, nr in enumerate(denied)],
        (ret, 0, 0, allow),
        (ret, 0, 0, deny),
    ]
    filters = (_SockFilter * len(prog))(*[_SockFilter(*ins) for ins in prog])
    fprog = _SockFprog(len(prog), filters)
    if libc.prctl(_PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "PR_SET_NO_NEW_PRIVS failed")
    if libc.prctl(_PR_SET_SECCOMP, _SECCOMP_MODE_FILTER, ctypes.byref(fprog), 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "seccomp filter refused")


def _apply_limits(pol: Policy) -> None:
    """RLIMIT_FSIZE: a write past the limit kills the writer (SIGXFSZ), whatever it
    writes to; no core dump of it either."""
    import resource

    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    cap = pol.max_file_bytes
    soft, hard = resource.getrlimit(resource.RLIMIT_FSIZE)
    if hard != resource.RLIM_INFINITY:
        cap = min(cap, hard)
    resource.setrlimit(resource.RLIMIT_FSIZE, (cap, cap))


def _die_with_parent(libc: ctypes.CDLL, parent: int | None) -> None:
    libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    # The parent may have died between fork and prctl: then nobody would kill us.
    if parent is not None and os.getppid() != parent:
        os._exit(EXIT_CONFINE_FAILED)


def apply(pol: Policy, parent: int | None = None) -> list[str]:
    """Confine this (single-threaded) process for good; the layers applied, in order.

    Raises OSError when a layer the policy asks for cannot be applied.
    """
    libc = _libc()
    applied = []
    if sys.platform.startswith("linux"):
        _die_with_parent(libc, parent)
    if _limits_apply(pol):
        _apply_limits(pol)
        applied.append("limits")
    if pol.namespaces:  # first: writing the id maps needs /proc, which Landlock then hides
        _apply_namespaces(libc)
        applied.append("namespaces")
    if pol.seccomp:
        _apply_seccomp(libc)
        applied.append("seccomp")
    if pol.landlock:
        _apply_landlock(libc, pol)
        applied.append("landlock")
    return applied


def _probe_main() -> int:
    """In a throwaway child: try each layer for real and print what worked."""
    libc = _libc()
    result = {"landlock_abi": 0, "namespaces": False, "seccomp": False}
    try:
        _apply_namespaces(libc)
        result["namespaces"] = True
    except OSError:
        pass
    try:
        _apply_seccomp(libc)
        result["seccomp"] = True
    except OSError:
        pass
    try:
        abi = _landlock_abi(libc)
        if abi >= 1:
            _apply_landlock(libc, Policy(read=("/usr",)))
            result["landlock_abi"] = abi
    except OSError:
        pass
    print(json.dumps(result))
    return 0


def _main(argv: list[str]) -> int:
    if argv[:1] == ["--probe"]:
        return _probe_main()
    if len(argv) < 3 or argv[1] != "--":
        print("usage: confine.py POLICY_JSON -- COMMAND...", file=sys.stderr)
        return 2
    data = json.loads(argv[0])
    pol = Policy.from_json(argv[0])
    try:
        apply(pol, data.get("parent"))
    except OSError as e:
        print(f"labwright: could not confine the command: {e}", file=sys.stderr)
        return EXIT_CONFINE_FAILED
    cmd = argv[2:]
    try:
        os.execvp(cmd[0], cmd)
    except OSError as e:
        print(f"labwright: cannot start {cmd[0]}: {e.strerror}", file=sys.stderr)
        return 127
    return 0  # not reached


if __name__ == "__main__":
    sys.exit(_main(sys.argv[1:]))
