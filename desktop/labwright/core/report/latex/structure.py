r"""Where a LaTeX source is unbalanced: braces, environments and math shifts.

TeX does not always say where an error is. An unclosed `\textbf{` is read as
one argument up to the end of the file ("File ended while scanning use of
\textbf."), an unclosed `$` is noticed only where the paragraph ends ("Missing
$ inserted." on the blank line after it). This module finds the likely line
from the source itself, as TeXstudio's and Overleaf's checkers do:

* braces: a `}` with no `{` before it, a `{` that is still open at an
  `\end{...}` of an environment opened outside it, or at the end of the file;
* environments: an `\end{Y}` where `\begin{X}` is still open, an `\end` with
  no `\begin`, a `\begin` never closed;
* math: a `$`, `$$`, `\(` or `\[` not closed before the paragraph ends.

`chktex` (Debian's and TeX Live's LaTeX checker) finds the brace problems
when it is installed; this module's own scan is the fallback. Environments and
math are always this scan's: chktex reports an unclosed environment at the
`\begin{document}` that encloses it, and does not know that a paragraph ends
inline math. chktex reads the source from its standard input, follows no
`\input` (`-I0`), reads no configuration of the person's, and runs confined
with a time limit: the source is model-written.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import tempfile
from dataclasses import dataclass

from labwright.core import confine

CHKTEX_TIMEOUT_S = 10
MAX_PROBLEMS = 20
_VERBATIM = ("verbatim", "verbatim*", "Verbatim", "lstlisting", "minted", "comment", "alltt")
_TOKEN = re.compile(r"\\(?:[A-Za-z@]+\*?|.?)|\$\$?|[{}%]")
_ENV_NAME = re.compile(r"\s*\{([^{}\s]*)\}")
# chktex's warnings about braces: 9 "`}' expected, found `)'", 10 "Solo `}' found.",
# 15 "No match found for `{'."
_CHKTEX_LINE = re.compile(r"^(?P<line>\d+):(?P<col>\d+):(?P<num>\d+):(?P<msg>.*)$")
_CHKTEX_BRACE = {"9", "10", "15"}


@dataclass(frozen=True)
class Problem:
    """One imbalance: the line to look at (1-based) and a sentence saying what is wrong."""

    line: int
    message: str
    kind: str  # "brace" | "environment" | "math"


@dataclass
class _Open:
    what: str  # "{", an environment name, or a math opener ("$", "$$", "\\(", "\\[")
    line: int
    depth: int = 0  # for an environment: the braces open when it began


class _Scan:
    """One pass over the source, line by line, keeping what is open."""

    def __init__(self) -> None:
        self.problems: list[Problem] = []
        self.braces: list[_Open] = []
        self.envs: list[_Open] = []
        self.math: _Open | None = None
        self.verbatim: str | None = None

    def add(self, line: int, message: str, kind: str) -> None:
        self.problems.append(Problem(line, message, kind))

    def end_paragraph(self) -> None:
        if self.math is not None and self.math.what in ("$", "$$", "\\(", "\\["):
            self.add(
                self.math.line,
                f"The math opened by {self.math.what} on line {self.math.line} is not closed "
                "before the paragraph ends.",
                "math",
            )
            self.math = None

    def scan_line(self, n: int, text: str) -> None:
        i = 0
        if self.verbatim is not None:
            end = f"\\end{{{self.verbatim}}}"
            if end not in text:
                return
            self.verbatim, i = None, text.index(end) + len(end)
        elif not text.strip():
            self.end_paragraph()
            return
        while i < len(text):
            token = _TOKEN.search(text, i)
            if token is None:
                return
            name, i = token.group(), token.end()
            if name == "%":
                return
            if name in ("\\begin", "\\end"):
                env = _ENV_NAME.match(text, i)
                if env is None:
                    continue
                i = env.end()
                if name == "\\begin" and env.group(1) in _VERBATIM:
                    self.verbatim = env.group(1)  # its body is not LaTeX: skipped to its \\end
                    self.scan_line(n, text[i:])
                    return
                if name == "\\begin":
                    self.begin(n, env.group(1))
                else:
                    self.end(n, env.group(1))
            elif name in ("\\verb", "\\verb*") and i < len(text):
                close = text.find(text[i], i + 1)
                i = len(text) if close < 0 else close + 1
            elif name == "{":
                self.braces.append(_Open("{", n))
            elif name == "}":
                self.close_brace(n)
            elif name in ("$", "$$", "\\(", "\\[", "\\)", "\\]"):
                self.shift(n, name)

    def begin(self, n: int, env: str) -> None:
        self.envs.append(_Open(env, n, len(self.braces)))

    def end(self, n: int, env: str) -> None:
        if not any(e.what == env for e in self.envs):
            self.add(n, f"\\end{{{env}}} on line {n} has no \\begin{{{env}}}.", "environment")
            return
        while self.envs:
            top = self.envs.pop()
            self.unclosed_braces_at(top.depth, f"\\end{{{env}}} on line {n}")
            if top.what == env:
                return
            self.add(
                top.line,
                f"\\begin{{{top.what}}} on line {top.line} is not closed: "
                f"\\end{{{env}}} on line {n} comes first.",
                "environment",
            )

    def unclosed_braces_at(self, depth: int, where: str) -> None:
        if len(self.braces) > depth:
            first = self.braces[depth]
            self.add(
                first.line, f"The {{ on line {first.line} is not closed before {where}.", "brace"
            )
            del self.braces[depth:]

    def close_brace(self, n: int) -> None:
        floor = self.envs[-1].depth if self.envs else 0
        if len(self.braces) > floor:
            self.braces.pop()
        else:
            self.add(n, f"The }} on line {n} closes no {{.", "brace")

    def shift(self, n: int, token: str) -> None:
        closes = {"$": "$", "$$": "$$", "\\)": "\\(", "\\]": "\\["}
        if self.math is None:
            if token in ("\\)", "\\]"):
                self.add(n, f"{token} on line {n} closes no math.", "math")
            else:
                self.math = _Open(token, n)
        elif closes.get(token) == self.math.what:
            self.math = None
        elif token in ("$", "$$") and self.math.what in ("\\[", "\\("):
            self.add(
                n,
                f"{token} on line {n} is inside the math opened on line {self.math.line}.",
                "math",
            )

    def finish(self, last: int) -> list[Problem]:
        self.end_paragraph()
        for env in self.envs:
            self.add(
                env.line,
                f"\\begin{{{env.what}}} on line {env.line} is never closed.",
                "environment",
            )
        if self.braces:
            first = self.braces[0]
            self.add(first.line, f"The {{ on line {first.line} is never closed.", "brace")
        return sorted(self.problems, key=lambda p: p.line)[:MAX_PROBLEMS]


def check_structure(source: str) -> list[Problem]:
    """Braces, environments and math shifts of `source`, by Labwright's own scan."""
    scan = _Scan()
    lines = source.splitlines()
    for n, text in enumerate(lines, 1):
        scan.scan_line(n, text)
    return scan.finish(len(lines))


def chktex_brace_problems(source: str, chktex: str | None = None) -> list[Problem] | None:
    """chktex's brace findings for `source`, or None when chktex is not installed or
    did not answer (then the caller uses check_structure's)."""
    exe = chktex or shutil.which("chktex")
    if exe is None:
        return None
    with tempfile.TemporaryDirectory(prefix=f"labwright-{os.getpid()}-chktex-") as home:
        # its own empty HOME and working folder: no .chktexrc of anyone's is read
        env = {"PATH": os.defpath, "HOME": home, "LC_ALL": "C.UTF-8"}
        cmd = [exe, "-q", "-I0", "-f", "%l:%c:%n:%m\n"]
        pol = confine.policy(read=[os.path.dirname(os.path.realpath(exe))], write=[])
        try:
            done = subprocess.run(
                confine.wrap(cmd, pol),
                input=source.encode("utf-8", "replace"),
                capture_output=True,
                cwd=home,
                env=env,
                timeout=CHKTEX_TIMEOUT_S,
                check=False,
            )
        except (OSError, subprocess.SubprocessError):
            return None
    if done.returncode == confine.EXIT_CONFINE_FAILED:
        return None
    problems = []
    for raw in done.stdout.decode("utf-8", "replace").splitlines():
        m = _CHKTEX_LINE.match(raw.strip())
        if not m or m["num"] not in _CHKTEX_BRACE or not re.search(r"`[{}]'", m["msg"]):
            continue
        line, said = int(m["line"]), m["msg"].strip()
        if m["num"] == "15" and "`{'" in said:
            said = f"The {{ on line {line} has no matching }} (chktex)."
        elif m["num"] == "10":
            said = f"The }} on line {line} closes no {{ (chktex)."
        else:
            said = f"Line {line}: {said} (chktex)"
        problems.append(Problem(line, said, "brace"))
    return problems[:MAX_PROBLEMS]


def structure_problems(source: str) -> list[Problem]:
    """What is unbalanced in `source`: braces by chktex when it is there and places one
    (else by check_structure), environments and math always by check_structure."""
    own = check_structure(source)
    braces = chktex_brace_problems(source)
    if not braces:  # not installed, or it located none (an open $ hides braces from it)
        return own
    merged = braces + [p for p in own if p.kind != "brace"]
    return sorted(merged, key=lambda p: p.line)[:MAX_PROBLEMS]
