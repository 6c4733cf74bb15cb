r"""Escape text that comes from data (file names, cells, headers) for LaTeX.

Inline math is kept as written: `\( ... \)`, `\[ ... \]` and `$ ... $`. A
dollar pair counts as math by pandoc's rule: the opening `$` has a non-space
character right after it, the closing `$` a non-space character right before
it and no digit right after it. So "costs $5 and $10" is text, "$x_1$" is math.

Escaping is NOT idempotent: escaping already-escaped text escapes its
backslashes again ("\%" becomes "\textbackslash{}\%"). Escape raw data once,
at the point where it is put into the report.
"""

from __future__ import annotations

import re

_REPLACEMENTS = {
    "\\": r"\textbackslash{}",
    "{": r"\{",
    "}": r"\}",
    "%": r"\%",
    "_": r"\_",
    "&": r"\&",
    "#": r"\#",
    "$": r"\$",
    "~": r"\textasciitilde{}",
    "^": r"\textasciicircum{}",
}
_SPECIAL = re.compile("[" + re.escape("".join(_REPLACEMENTS)) + "]")

# One alternation, leftmost match wins, so "\(" is never mistaken for text.
_MATH = re.compile(
    r"\\\(.+?\\\)"  # \( ... \)
    r"|\\\[.+?\\\]"  # \[ ... \]
    r"|\$(?=[^\s$])[^$]*?(?<=[^\s$])\$(?!\d)",  # $ ... $ (pandoc's rule)
    re.DOTALL,
)


def _escape_plain(text: str) -> str:
    # One pass over the characters, so the braces of \textbackslash{} that we
    # insert are never escaped a second time.
    return _SPECIAL.sub(lambda m: _REPLACEMENTS[m.group()], text)


def escape_latex(text: str) -> str:
    """Escape % _ & # $ ~ ^ \\ { } outside inline math; math is kept verbatim."""
    out: list[str] = []
    pos = 0
    for match in _MATH.finditer(text):
        out.append(_escape_plain(text[pos : match.start()]))
        out.append(match.group())
        pos = match.end()
    out.append(_escape_plain(text[pos:]))
    return "".join(out)
