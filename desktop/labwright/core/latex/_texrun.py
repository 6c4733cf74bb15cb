"""Run one TeX command confined, and take its whole process group down with Labwright.

Run as ``python -I -S _texrun.py POLICY_JSON PARENT_PID -- CMD...`` (Linux only),
as the leader of a new process group. Why a process of its own:
``PR_SET_PDEATHSIG`` is per process and not inherited over ``fork``, so
confine's trampoline makes latexmk die with its parent but not the xelatex,
bibtex or xdvipdfmx latexmk starts. This small supervisor stays outside the
box, asks for SIGTERM when Labwright dies, and answers any SIGTERM (that, or a
Cancel) by SIGKILLing its own process group: latexmk and everything under it.
TeX cannot signal it back (Landlock's signal scope) and cannot leave the group
(no shell escape; TeX calls no setsid).

Its child applies confine's layers (``confine.apply``, loaded by path because
this file, like confine.py, runs with nothing but the standard library) and
then execs the command. Exit code: the command's, 128+N for a signal N, and
confine's EXIT_CONFINE_FAILED when a layer could not be applied.
"""

from __future__ import annotations

import ctypes
import importlib.util
import os
import signal
import sys
from pathlib import Path

_PR_SET_PDEATHSIG = 1


def _confine():  # noqa: ANN202 - the module confine.py, loaded by path
    path = Path(__file__).resolve().parent.parent / "confine.py"
    spec = importlib.util.spec_from_file_location("_labwright_confine", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up here
    spec.loader.exec_module(module)
    return module


def _kill_group(*_: object) -> None:
    # We lead the group, so this is latexmk, its engines and ourselves; nothing else.
    os.killpg(os.getpgrp(), signal.SIGKILL)


def main(argv: list[str]) -> int:
    if len(argv) < 4 or argv[2] != "--":
        print("usage: _texrun.py POLICY_JSON PARENT_PID -- COMMAND...", file=sys.stderr)
        return 2
    confine = _confine()
    pol = confine.Policy.from_json(argv[0])
    parent, cmd = int(argv[1]), argv[3:]
    if os.getpgrp() != os.getpid():
        os.setpgid(0, 0)  # never killpg a group we do not lead (the caller's own)
    for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(sig, _kill_group)
    ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGTERM, 0, 0, 0)
    if os.getppid() != parent:  # Labwright died before the prctl: nobody would tell us
        return confine.EXIT_CONFINE_FAILED
    me = os.getpid()
    pid = os.fork()
    if pid == 0:
        try:
            for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
                signal.signal(sig, signal.SIG_DFL)
            confine.apply(pol, me)
            os.execvp(cmd[0], cmd)
        except OSError as e:
            print(f"labwright: could not start {cmd[0]} confined: {e}", file=sys.stderr)
            os._exit(confine.EXIT_CONFINE_FAILED)
        os._exit(127)  # not reached
    _, status = os.waitpid(pid, 0)
    code = os.waitstatus_to_exitcode(status)
    return 128 - code if code < 0 else code


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
