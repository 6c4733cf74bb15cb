"""LaTeX lines reduced to what a one-line message shows."""

from __future__ import annotations

import re

MESSAGE_CHARS = 160
_COMMENT = re.compile(r"(?<!\\)%")
_SIMPLE_CMD = re.compile(r"\\[a-zA-Z]+\*?\s*\{([^{}]*)\}")
_ANY_CMD = re.compile(r"\\[a-zA-Z]+\*?|\\.")


def short(text: str, limit: int = MESSAGE_CHARS) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def without_comment(line: str) -> str:
    """A line without its comment (an unescaped %)."""
    m = _COMMENT.search(line)
    return line[: m.start()] if m else line


def plain(tex: str) -> str:
    """LaTeX markup reduced to its words, for messages: \\textbf{TODO:} x -> TODO: x."""
    previous = None
    while previous != tex:  # nested \emph{\textbf{...}} unwrap one level per pass
        previous, tex = tex, _SIMPLE_CMD.sub(r"\1", tex)
    tex = _ANY_CMD.sub(" ", tex).replace("{", "").replace("}", "").replace("~", " ")
    return " ".join(tex.split())


def norm(text: str) -> str:
    """Letters and digits only, lower case: matches a requirement to its escaped TeX."""
    return "".join(ch for ch in plain(text).lower() if ch.isalnum())
