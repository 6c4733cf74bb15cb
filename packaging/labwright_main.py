"""The bundle's entry point: PyInstaller makes this file the `labwright` executable.

In the bundle, `sys.executable` is this executable, not a Python interpreter, yet
Labwright starts its confined children as `sys.executable -I -S SCRIPT ARGS...`
(the make_figure sandbox's harness, confine.py's trampoline, the TeX runner) and
`sys.executable -I -S -c CODE ARGS...` (matplotlib's font cache). So this entry
point also plays the interpreter for exactly those forms; anything else is
Labwright's own command line (`labwright`, `labwright FOLDER`, `labwright run ...`).
The scripts are the .py files the spec collects beside the package (the `py`
collection mode), so `Path(__file__)` in them names real files.
"""

from __future__ import annotations

import sys

# The interpreter flags Labwright's children are started with; they have no effect
# here (the bundle has no site-packages or PYTHON* variables to ignore).
_PYTHON_FLAGS = ("-I", "-S", "-E", "-s", "-B", "-u")


def _as_python(args: list[str]) -> int:
    while args and args[0] in _PYTHON_FLAGS:
        args = args[1:]
    if args[:1] == ["-c"] and len(args) >= 2:
        sys.argv = ["-c", *args[2:]]
        exec(compile(args[1], "<string>", "exec"), {"__name__": "__main__"})
        return 0
    if args and not args[0].startswith("-"):
        import runpy

        sys.argv = list(args)
        runpy.run_path(args[0], run_name="__main__")
        return 0
    print(f"labwright: not an interpreter command line: {args!r}", file=sys.stderr)
    return 2


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] in _PYTHON_FLAGS:
        sys.exit(_as_python(sys.argv[1:]))
    from labwright.cli import main

    sys.exit(main())
