"""LaTeX: what is prose and what is markup (the masked .tex), and LaTeX as plain text."""

from __future__ import annotations

import re

# -- LaTeX: what is prose and what is markup ---------------------------------

# Commands whose arguments are names, keys, lengths or options: never data.
_ARG_COMMANDS = {
    "label": 1, "ref": 1, "eqref": 1, "autoref": 1, "cref": 1, "Cref": 1, "pageref": 1,
    "nameref": 1, "nocite": 1, "includegraphics": 1, "input": 1, "include": 1, "url": 1,
    "href": 1, "bibliography": 1, "bibliographystyle": 1, "usepackage": 1,
    "documentclass": 1, "hspace": 1, "vspace": 1, "setlength": 2, "addtolength": 2,
    "setcounter": 2, "addtocounter": 2, "cline": 1, "cmidrule": 1, "multicolumn": 2,
    "multirow": 2, "rule": 2, "resizebox": 2, "scalebox": 1, "fontsize": 2, "color": 1,
    "textcolor": 1, "colorbox": 1, "definecolor": 3, "tag": 1, "numberwithin": 2,
    "newcommand": 2, "renewcommand": 2, "title": 1, "author": 1, "date": 1, "thanks": 1,
    "linespread": 1, "raisebox": 1, "parbox": 1, "captionsetup": 1, "geometry": 1,
    "hypersetup": 1, "sisetup": 1, "end": 1, "graphicspath": 1, "addplot": 0,
}  # fmt: skip
_SPEC_ENVS = {"tabular": 1, "longtable": 1, "array": 1, "minipage": 1,
              "tabular*": 2, "tabularx": 2, "tabulary": 2, "wrapfigure": 2}  # fmt: skip
_SKIP_ENVS = {"verbatim", "verbatim*", "Verbatim", "lstlisting", "minted", "comment",
              "thebibliography", "filecontents", "filecontents*", "tikzpicture", "axis"}  # fmt: skip
_TABLE_ENVS = {"tabular", "tabular*", "tabularx", "longtable", "array", "tabulary"}
_COMMAND = re.compile(r"\\([A-Za-z]+)\*?")
_ENV = re.compile(r"\\(begin|end)\s*\{([^{}]*)\}")


def _group_end(s: str, i: int) -> int:
    """Index after the balanced {...} or [...] group starting at s[i]."""
    open_, close = s[i], "}" if s[i] == "{" else "]"
    depth, j = 0, i
    while j < len(s):
        c = s[j]
        if c == "\\":
            j += 2
            continue
        if c == open_:
            depth += 1
        elif c == close:
            depth -= 1
            if depth == 0:
                return j + 1
        j += 1
    return len(s)


def _skip_ws(s: str, i: int) -> int:
    while i < len(s) and s[i] in " \t\n":
        i += 1
    return i


def _args_end(s: str, i: int, n_braces: int) -> int:
    """After a command at i: its [options] and n {arguments}."""
    j = i
    while True:
        k = _skip_ws(s, j)
        if k < len(s) and s[k] == "[":
            j = _group_end(s, k)
        elif n_braces and k < len(s) and s[k] == "{":
            j = _group_end(s, k)
            n_braces -= 1
        else:
            return j


class _Masked:
    """The .tex with all that is not prose or data blanked out (same length and lines)."""

    def __init__(self, tex: str) -> None:
        self.tex = tex
        self.chars = list(tex)
        begin = tex.find("\\begin{document}")
        end = tex.find("\\end{document}")
        self.body = (
            begin + len("\\begin{document}") if begin >= 0 else 0,
            end if end >= 0 else len(tex),
        )
        self.blank(0, self.body[0])
        self.blank(self.body[1], len(tex))
        for m in re.finditer(r"(?<!\\)%.*", tex):  # comments
            self.blank(m.start(), m.end())
        self.display = "".join(self.chars)  # comments and preamble gone: for sentences
        self.tables: list[tuple[int, int]] = []
        self._environments()
        self._commands()
        for m in re.finditer(
            r"\d*\.?\d+\s*\\(?:line|text|column|paper|page)(?:width|height)|\\\\\*?\s*\[[^\]]*\]",
            self.text,
        ):
            self.blank(m.start(), m.end())

    @property
    def text(self) -> str:
        return "".join(self.chars)

    def blank(self, a: int, b: int) -> None:
        for i in range(a, min(b, len(self.chars))):
            if self.chars[i] != "\n":
                self.chars[i] = " "

    def _environments(self) -> None:
        text = self.text
        stack: list[tuple[str, int, int]] = []
        for m in _ENV.finditer(text):
            kind, name = m.group(1), m.group(2).strip()
            if kind == "begin":
                stack.append((name, m.start(), m.end()))
                continue
            while stack and stack[-1][0] != name:
                stack.pop()
            if not stack:
                continue
            _, start, inner = stack.pop()
            if name in _SKIP_ENVS:
                self.blank(start, m.end())
            elif name in _TABLE_ENVS:
                self.tables.append((_args_end(text, inner, _SPEC_ENVS.get(name, 0)), m.start()))

    def _commands(self) -> None:
        text = self.text
        for m in _COMMAND.finditer(text):
            name = m.group(1)
            if name == "begin":
                brace = _skip_ws(text, m.end())
                if brace < len(text) and text[brace] == "{":
                    env_end = _group_end(text, brace)
                    env = text[brace + 1 : env_end - 1].strip()
                    self.blank(m.start(), _args_end(text, env_end, _SPEC_ENVS.get(env, 0)))
            elif name in _ARG_COMMANDS or name.lower().endswith("cite") or "cite" in name[:4]:
                self.blank(m.start(), _args_end(text, m.end(), _ARG_COMMANDS.get(name, 1)))
            else:  # every [option] of any other command (\\item[(a)], \\sqrt[3] ...)
                k = _skip_ws(text, m.end())
                if k < len(text) and text[k] == "[" and name not in ("sqrt",):
                    self.blank(k, _group_end(text, k))


def readable(tex: str) -> str:
    """LaTeX source as plain text for a reader (the sentence around a number)."""
    s = re.sub(r"\\(?:SI|qty)\s*\{([^{}]*)\}\s*\{([^{}]*)\}", r"\1 \2", tex)
    s = re.sub(r"\\(?:label|ref|eqref|autoref|cref|pageref)\s*\{[^{}]*\}", "", s)
    s = re.sub(r"\\cite[a-zA-Z]*\*?(?:\[[^\]]*\])*\{([^{}]*)\}", r"[\1]", s)
    s = re.sub(r"\\d?frac\s*\{([^{}]*)\}\s*\{([^{}]*)\}", r"(\1)/(\2)", s)
    for a, b in ((r"\pm", "±"), (r"\times", "×"), (r"\cdot", "·"), (r"\approx", "≈"),
                 (r"\%", "%"), (r"^\circ", "°"), (r"^{\circ}", "°"), (r"\pi", "π"),
                 (r"\sqrt", "√"), (r"\,", " "), ("~", " "), (r"\\", " "), ("&", " | "),
                 (r"\bar", ""), (r"\ ", " ")):  # fmt: skip
        s = s.replace(a, b)
    s = re.sub(r"\\[A-Za-z]+\*?", "", s)
    s = s.replace("$", "").replace("{", "").replace("}", "")
    return " ".join(s.split())
