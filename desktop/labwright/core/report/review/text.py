"""LaTeX lines reduced to what a one-line message shows."""

from __future__ import annotations

import re

MESSAGE_CHARS = 160
_COMMENT = re.compile(r"(?<!\\)%")
_SIMPLE_CMD = re.compile(r"\\[a-zA-Z]+\*?\s*\{([^{}]*)\}")
_ANY_CMD = re.compile(r"\\([a-zA-Z]+)\*?|\\(.)")
# Math and siunitx values are what a student must check ("use $\omega^2 = g/L$"): kept.
_MATH = re.compile(
    r"(?<!\\)\$\$?.+?(?<!\\)\$\$?|\\\(.+?\\\)|\\\[.+?\\\]"
    r"|\\(?:SI|si|num|qty|unit)\{[^{}]*\}(?:\{(?:[^{}]|\{[^{}]*\})*\})?"  # siunitx: 3 \metre
)
# Commands that only lay out or style the text; any other (\omega, \SI) carries meaning.
_LAYOUT = frozenset(
    [
        "item",
        "par",
        "noindent",
        "centering",
        "newline",
        "linebreak",
        "hfill",
        "vfill",
        "quad",
        "qquad",
        "small",
        "large",
        "Large",
        "footnotesize",
        "normalsize",
        "bfseries",
        "itshape",
        "label",
    ]
)


def short(text: str, limit: int = MESSAGE_CHARS) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def without_comment(line: str) -> str:
    """A line without its comment (an unescaped %)."""
    m = _COMMENT.search(line)
    return line[: m.start()] if m else line


def plain(tex: str) -> str:
    """LaTeX markup reduced to its words, for messages: \\textbf{TODO:} x -> TODO: x.

    Math and macros that mean something stay as written: \\textbf{TODO:} use $\\omega^2$
    -> TODO: use $\\omega^2$.
    """
    out: list[str] = []
    pos = 0
    for m in _MATH.finditer(tex):
        out.append(_words(tex[pos : m.start()]))
        out.append(m.group(0))
        pos = m.end()
    out.append(_words(tex[pos:]))
    return " ".join("".join(out).split())


def _words(tex: str) -> str:
    previous = None
    while previous != tex:  # nested \emph{\textbf{...}} unwrap one level per pass
        previous, tex = tex, _SIMPLE_CMD.sub(r"\1", tex)
    tex = _ANY_CMD.sub(_command, tex)
    return tex.replace("{", "").replace("}", "").replace("~", " ")


def _command(m: re.Match[str]) -> str:
    name, symbol = m.group(1), m.group(2)
    if name is not None:
        return " " if name in _LAYOUT else m.group(0)
    return symbol if symbol in "%$&#_{}" else " "  # \% is a percent sign, \\ a line break


def norm(text: str) -> str:
    """Letters and digits only, lower case: matches a requirement to its escaped TeX."""
    return "".join(ch for ch in plain(text).lower() if ch.isalnum())
