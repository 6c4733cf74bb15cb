"""Run one TeX command confined, and take its whole process group down with Labwright.

Run as ``python -I -S _texrun.py POLICY_JSON PARENT_PID -- CMD...`` (Linux only),
as a new process group. Why a process of its own: ``PR_SET_PDEATHSIG`` is per
process and not inherited over ``fork``, so confine's trampoline makes latexmk
die with its parent but not the xelatex, bibtex or xdvipdfmx latexmk starts.
This small supervisor stays outside the box, starts the command in a process
group of its own, asks for SIGTERM when Labwright dies, and answers a SIGTERM
(that, or a Cancel) by SIGKILLing that group. As the child subreaper it then
reaps every descendant before it exits, so once it is gone nothing of the run
is left. TeX cannot signal it (Landlock's signal scope) and cannot leave the
group (no shell escape; TeX calls no setsid).

Its child applies confine's layers (``confine.apply``, loaded by path because
this file, like confine.py, runs with nothing but the standard library) and
then execs the command. Exit code: the command's, 128+N for a signal N, and
confine's EXIT_CONFINE_FAILED when a layer could not be applied.
"""

from __future__ import annotations

import contextlib
import ctypes
import importlib.util
import os
import signal
import sys
from pathlib import Path

_PR_SET_PDEATHSIG = 1
_PR_SET_CHILD_SUBREAPER = 36
_STOP_SIGNALS = (signal.SIGTERM, signal.SIGINT, signal.SIGHUP)

_child = 0  # pid (and process group) of the confined command, once started


def _confine():  # noqa: ANN202 - the module confine.py, loaded by path
    path = Path(__file__).resolve().parents[2] / "confine.py"
    spec = importlib.util.spec_from_file_location("_labwright_confine", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up here
    spec.loader.exec_module(module)
    return module


def _finish(code: int) -> None:
    """Kill what is left of the command's group, reap every descendant, exit.

    We are the subreaper, so engines orphaned by latexmk's death are our
    children now: once waitpid says there are none, nothing of the run is left.
    """
    if _child:
        # The pid too: a signal may come before the child made its group.
        for kill in (os.killpg, os.kill):
            with contextlib.suppress(ProcessLookupError):
                kill(_child, signal.SIGKILL)
    while True:
        try:
            os.waitpid(-1, 0)
        except ChildProcessError:
            break
        except InterruptedError:
            continue
    os._exit(code)


def _on_signal(signum: int, _frame: object) -> None:
    _finish(128 + signum)


def main(argv: list[str]) -> int:
    global _child
    if len(argv) < 4 or argv[2] != "--":
        print("usage: _texrun.py POLICY_JSON PARENT_PID -- COMMAND...", file=sys.stderr)
        return 2
    confine = _confine()
    pol = confine.Policy.from_json(argv[0])
    parent, cmd = int(argv[1]), argv[3:]
    for sig in _STOP_SIGNALS:
        signal.signal(sig, _on_signal)
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
    libc.prctl(_PR_SET_PDEATHSIG, signal.SIGTERM, 0, 0, 0)
    if os.getppid() != parent:  # Labwright died before the prctl: nobody would tell us
        return confine.EXIT_CONFINE_FAILED
    me = os.getpid()
    pid = os.fork()
    if pid == 0:
        try:
            os.setpgid(0, 0)  # a group of its own: killing it never reaches us or Labwright
            for sig in _STOP_SIGNALS:
                signal.signal(sig, signal.SIG_DFL)
            confine.apply(pol, me)
            os.execvp(cmd[0], cmd)
        except OSError as e:
            print(f"labwright: could not start {cmd[0]} confined: {e}", file=sys.stderr)
        os._exit(confine.EXIT_CONFINE_FAILED)
    _child = pid
    # Also here: no window in which the child is in our group. Fails harmlessly
    # when it already exec'd (it did this itself) or died.
    with contextlib.suppress(OSError):
        os.setpgid(pid, pid)
    while True:
        try:
            _, status = os.waitpid(pid, 0)
            break
        except InterruptedError:
            continue
    code = os.waitstatus_to_exitcode(status)
    _finish(128 - code if code < 0 else code)
    return 0  # not reached


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
