r"""Column names as a physicist writes them: a symbol or a cleaned name, and the unit in siunitx.

`length_m` becomes "length $L$ (\si{\metre})", `(V_o)^2* SIN(2* thetha)`
becomes $(V_{o})^{2} \sin(2 \theta)$, "f (kHz)" becomes $f$ (\si{\kilo\hertz}).
Conservative on purpose: a name that does not parse completely is shown
escaped exactly as written, and a unit siunitx would not know is shown as
text. The raw header goes into the caption (see skeleton.py), so nothing of
what the file says is lost.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from labwright.core.analysis.fmt import si_atom
from labwright.core.material.tables import Table
from labwright.core.material.tables.roles import split_unit
from labwright.core.report.offline.formatting import _breakable, tex_text


@dataclass(frozen=True)
class ColumnLabel:
    tex: str  # for a table header or a LaTeX caption
    mpl: str  # for a matplotlib axis label or legend (mathtext)
    plain: str  # plain text, for captions stored as text
    changed: bool  # shown otherwise than written: the raw name belongs in the caption


def column_label(
    raw: str, name: str | None = None, unit: str | None = None, *, siunitx: bool = True
) -> ColumnLabel:
    """How column `raw` (quantity `name`, unit `unit`, when the detector knows them) is shown."""
    raw = " ".join(str(raw).split())
    if name is None:
        name, unit = split_unit(raw)
    name = " ".join(name.split())
    # The detector's suffix for a repeated header ("Percentage of discrepancy (2)").
    repeat = (
        re.search(r" \(\d+\)$", raw) if not unit and raw != name and raw.startswith(name) else None
    )
    math = _math(name)
    if math is None and unit and (whole := _math(raw)) is not None:
        math, name, unit = whole, raw, None  # "sqrt(L)" is a formula, not litres
    word = _snake_words(name)
    if math is not None:
        tex = "$" + math.replace(_JOIN, r"\allowbreak ") + "$"
        math = math.replace(_JOIN, " ")
        mpl, plain = f"${math}$", name
    elif word is not None:
        symbol = _SYMBOLS.get(word.casefold())
        tex = _breakable(word) + (f" ${symbol}$" if symbol else "")
        mpl = _mpl_text(word) + (f" ${symbol}$" if symbol else "")
        plain = word
    else:
        tex, mpl, plain = _breakable(name), _mpl_text(name), name
    if repeat:
        tex, mpl, plain = (
            tex + tex_text(repeat.group()),
            mpl + repeat.group(),
            plain + repeat.group(),
        )
    if unit:
        tex += " (" + _tex_unit(unit, siunitx) + ")"
        mpl += " (" + _mpl_unit(unit) + ")"
        plain += f" ({unit})"
    renamed = (math is not None and math.replace(" ", "") != name.replace(" ", "")) or (
        math is None and word is not None and word != name
    )
    changed = renamed or (plain != raw and raw not in _plainly(name, unit))
    return ColumnLabel(tex, mpl, plain, changed=changed)


def _plainly(name: str, unit: str | None) -> set[str]:
    """The ways of writing `name` and `unit` that a reader maps to the label at a glance."""
    if not unit:
        return {name}
    forms = ("{n} ({u})", "{n}({u})", "{n} [{u}]", "{n}[{u}]", "{n}, {u}", "{n},{u}", "{n}/{u}",
             "{n} / {u}", "{n} in {u}", "{n}（{u}）")  # fmt: skip
    return {f.format(n=name, u=unit) for f in forms}


def _mpl_text(text: str) -> str:
    return text.replace("$", r"\$")


_POWER_OF_TEN = re.compile(r"^(?:[×x*]\s*)?10\s*\^\s*\(?([-+−]?\d{1,3})\)?\s*(.*)$")


# Powers on an axis as Unicode superscripts, not mathtext: a label holding any $...$ is
# set whole in mathtext's fonts, which have no CJK, so "频率 ($10^{14}$ Hz)" drew boxes.
_SUPERSCRIPT = str.maketrans("0123456789-+−", "⁰¹²³⁴⁵⁶⁷⁸⁹⁻⁺⁻")


def _superscripts(unit: str) -> str:
    """ "mg/cm^2" → "mg/cm²", "s^-1" → "s⁻¹": a unit's powers raised."""
    return re.sub(r"\^\(?([-+−]?\d{1,2})\)?", lambda m: m.group(1).translate(_SUPERSCRIPT), unit)


def _tex_unit(unit: str, siunitx: bool) -> str:
    """A unit for LaTeX: in siunitx when it names it, a power of ten in front set as one
    ("10^14Hz" → $10^{14}$\\,\\si{\\hertz}), else the text escaped."""
    m = _POWER_OF_TEN.match(unit.strip())
    if m is not None:
        power = f"$10^{{{m.group(1).replace('−', '-')}}}$"
        rest = m.group(2).strip()
        return power + (f"\\,{_tex_unit(rest, siunitx)}" if rest else "")
    si = si_unit(unit) if siunitx else None
    return si if si is not None else tex_text(unit)


def _mpl_unit(unit: str) -> str:
    """A unit for an axis: a power of ten in front set as one ("10^-10A" → 10⁻¹⁰ A)."""
    m = _POWER_OF_TEN.match(unit.strip())
    if m is None:
        return _superscripts(_mpl_text(unit))
    rest = _superscripts(_mpl_text(m.group(2).strip()))
    return "10" + m.group(1).translate(_SUPERSCRIPT) + (f" {rest}" if rest else "")


# --------------------------------------------------------------------------
# Quantity names
# --------------------------------------------------------------------------

# One-word quantities and the symbol a physics course gives them (only words
# that name one quantity; "temperature" and "period" would both be T, so only
# the period, which a lab sheet tabulates far more often, is here).
_SYMBOLS = {
    "length": "L", "mass": "m", "time": "t", "period": "T", "frequency": "f",
    "voltage": "V", "current": "I", "distance": "d", "height": "h", "range": "R",
    "angle": r"\theta", "velocity": "v", "speed": "v", "wavelength": r"\lambda",
    "force": "F", "pressure": "p", "resistance": "R", "energy": "E", "power": "P",
    "charge": "q", "acceleration": "a", "displacement": "x", "radius": "r",
    "diameter": "d", "width": "w", "capacitance": "C", "inductance": "L",
}  # fmt: skip


def _snake_words(name: str) -> str | None:
    """ "initial_speed" → "initial speed"; a single plain word as is; else None."""
    if re.fullmatch(r"[A-Za-z]{2,}(?:_[A-Za-z]{2,})*", name):
        return name.replace("_", " ")
    return None


_LOWER_GREEK = ("alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta", "iota",
                "kappa", "lambda", "mu", "nu", "xi", "pi", "rho", "sigma", "tau", "upsilon",
                "phi", "chi", "psi", "omega")  # fmt: skip
_UPPER_GREEK = ("Gamma", "Delta", "Theta", "Lambda", "Xi", "Pi", "Sigma", "Phi", "Psi", "Omega")
_GREEK = {g: "\\" + g for g in (*_LOWER_GREEK, *_UPPER_GREEK)}
_GREEK["thetha"] = r"\theta"  # as lab sheets spell it
_GREEK_CHARS = {
    "θ": r"\theta", "φ": r"\phi", "ϕ": r"\phi", "α": r"\alpha", "β": r"\beta", "γ": r"\gamma",
    "δ": r"\delta", "Δ": r"\Delta", "λ": r"\lambda", "μ": r"\mu", "ω": r"\omega",
    "Ω": r"\Omega", "ρ": r"\rho", "σ": r"\sigma", "τ": r"\tau", "η": r"\eta", "π": r"\pi",
}  # fmt: skip
_FUNCTIONS = {
    f: "\\" + f
    for f in (
        "sin",
        "cos",
        "tan",
        "cot",
        "sec",
        "csc",
        "arcsin",
        "arccos",
        "arctan",
        "sinh",
        "cosh",
        "tanh",
        "exp",
        "ln",
        "log",
        "lg",
    )  # fmt: skip
}
_TOKEN = re.compile(
    r"\s*(?:(?P<num>\d+(?:\.\d+)?)|(?P<id>[A-Za-z]+(?:_\{?[A-Za-z0-9]+\}?)?|["
    + "".join(_GREEK_CHARS)
    + r"](?:_\{?[A-Za-z0-9]+\}?)?)|(?P<op>[-+*/^()·×²³]))"
)


class _Unparsed(Exception):
    pass


# Where symbols are juxtaposed: a space in mathtext, a break point in a narrow table header.
_JOIN = "\x02"


def math_name(name: str) -> str | None:
    """`name` as LaTeX math when it is a formula of symbols, else None (see _math)."""
    math = _math(name)
    return None if math is None else math.replace(_JOIN, " ")


def _math(name: str) -> str | None:
    """`name` as LaTeX math when it is a formula of symbols, else None.

    Symbols are one letter (with a subscript: V_o, v0), a Greek letter by
    name or glyph, or a function (sin, SIN, sqrt); operators + - * / ^ and
    parentheses. Anything else (a word, "v2sin2theta") is not parsed: None.
    """
    # "d X", "delta X", "Δ X": the uncertainty of X, as the tables' roles read it.
    m = re.fullmatch(r"(?:d|delta|δ|Δ)\s+(.+)", name.strip())
    if m and (rest := _math(m.group(1))) is not None:
        return r"\delta " + (f"[{rest}]" if re.search(r"[\s\x02+\-/^]", rest) else rest)
    tokens = []
    pos = 0
    text = name.strip()
    while pos < len(text):
        m = _TOKEN.match(text, pos)
        if not m or m.end() == pos:
            return None
        tokens.append((m.lastgroup, m.group(m.lastgroup or "op")))
        pos = m.end()
    if not tokens or all(kind == "num" for kind, _ in tokens):
        return None  # "1", "2": trial numbers, not quantities
    try:
        parser = _Parser(tokens)
        out = parser.expr()
        if parser.i != len(tokens):
            return None
    except _Unparsed:
        return None
    return out


class _Parser:
    def __init__(self, tokens: list[tuple[str | None, str]]) -> None:
        self.tokens = tokens
        self.i = 0

    def peek(self) -> tuple[str | None, str]:
        return self.tokens[self.i] if self.i < len(self.tokens) else (None, "")

    def take(self) -> tuple[str | None, str]:
        token = self.peek()
        if token[0] is None:
            raise _Unparsed
        self.i += 1
        return token

    def expr(self) -> str:
        out = self.term()
        while self.peek() in (("op", "+"), ("op", "-")):
            out += f" {self.take()[1]} " + self.term()
        return out

    def term(self) -> str:
        out = self.power()
        while True:
            kind, value = self.peek()
            if kind == "op" and value in ("*", "·", "×"):
                self.take()
                right = self.power()
                # Numbers side by side need a sign; symbols are simply juxtaposed.
                joint = r" \cdot " if out[-1:].isdigit() and right[:1].isdigit() else _JOIN
                out += joint + right
            elif kind == "op" and value == "/":
                self.take()
                out += "/" + self.power()
            elif kind == "num":
                raise _Unparsed  # "v2sin2theta": v·2 or v²? not guessed
            elif kind == "id" or (kind == "op" and value == "("):
                right = self.power()
                joint = r" \cdot " if out[-1:].isdigit() and right[:1].isdigit() else _JOIN
                out += joint + right
            else:
                return out

    def power(self) -> str:
        base = self.unary()
        kind, value = self.peek()
        if kind == "op" and value == "^":
            self.take()
            return f"{base}^{{{self.power()}}}"
        if kind == "op" and value in ("²", "³"):
            self.take()
            return f"{base}^{{{2 if value == '²' else 3}}}"
        return base

    def unary(self) -> str:
        if self.peek() == ("op", "-"):
            self.take()
            return "-" + self.unary()
        return self.atom()

    def atom(self) -> str:
        kind, value = self.take()
        if kind == "num":
            return value
        if kind == "op" and value == "(":
            inner = self.expr()
            if self.take() != ("op", ")"):
                raise _Unparsed
            return f"({inner})"
        if kind == "id":
            function = _FUNCTIONS.get(value.casefold())
            if function is not None or value.casefold() == "sqrt":
                argument = self.power()
                if value.casefold() == "sqrt":
                    return r"\sqrt{" + _unbracket(argument) + "}"
                return (
                    f"{function}{argument}"
                    if argument.startswith("(")
                    else f"{function} {argument}"
                )
            return _symbol(value)
        raise _Unparsed


def _unbracket(text: str) -> str:
    return text[1:-1] if text.startswith("(") and text.endswith(")") else text


def _symbol(token: str) -> str:
    base, _, sub = token.partition("_")
    sub = sub.strip("{}")
    if not sub:
        m = re.fullmatch(r"([A-Za-z])(0)", base)  # v0, x0: an initial value
        if m:
            base, sub = m.group(1), m.group(2)
    if base in _GREEK_CHARS:
        letter = _GREEK_CHARS[base]
    elif base in _GREEK or base.casefold() in _GREEK:
        letter = _GREEK.get(base) or _GREEK[base.casefold()]
    elif re.fullmatch(r"[A-Za-z]", base):
        letter = base
    else:
        raise _Unparsed  # a word: not a symbol
    if not sub:
        return letter
    if not re.fullmatch(r"[A-Za-z0-9]{1,3}", sub):
        raise _Unparsed
    return f"{letter}_{{{sub}}}"


# --------------------------------------------------------------------------
# Units
# --------------------------------------------------------------------------

_UNIT_ATOM = re.compile(r"([^\s^\d⁻¹²³+-]+)(?:\^?\{?([+-]?\d)\}?|([⁻]?[¹²³]))?")
_SUPERSCRIPTS = {"¹": 1, "²": 2, "³": 3}


def _power(macro: str, n: int) -> str:
    if n == 1:
        return macro
    if n == 2:
        return macro + r"\squared"
    if n == 3:
        return macro + r"\cubed"
    return macro + rf"\tothe{{{n}}}"


def si_unit(unit: str) -> str | None:
    r"""`unit` as \si{...} with siunitx's macros ("m/s^2" → \si{\metre\per\second\squared}),
    or None when any part of it is not a unit siunitx names."""
    text = unit.strip().replace("·", " ").replace("*", " ").replace("⋅", " ")
    if not text or len(text) > 20:
        return None
    parts = text.split("/")
    if len(parts) > 2 or not all(p.strip() for p in parts):
        return None
    macros: list[str] = []
    for k, part in enumerate(parts):
        for piece in re.split(r"\s+|\.(?=[A-Za-zµμΩ°])", part.strip()):
            m = _UNIT_ATOM.fullmatch(piece)
            if not m:
                return None
            atom = si_atom(m.group(1))
            if atom is None:
                return None
            power = 1
            if m.group(2):
                power = int(m.group(2))
            elif m.group(3):
                power = _SUPERSCRIPTS[m.group(3)[-1]] * (-1 if m.group(3).startswith("⁻") else 1)
            if power == 0:
                return None
            name = m.group(1)
            if power < 0 and len(name) == 2 and si_atom(name[0]) and si_atom(name[1]):
                return None  # "ms-1": metres per second or per millisecond? shown as written
            per = (k == 1) != (power < 0)
            macros.append((r"\per" if per else "") + _power(atom, abs(power)))
    return r"\si{" + "".join(macros) + "}"


def table_labels(table: Table, *, siunitx: bool = True) -> list[ColumnLabel]:
    """Each column's label, from the quantity and unit the detector found (or the header)."""
    out = []
    for j, raw in enumerate(table.columns):
        if j < len(table.names):
            unit = table.units[j] if j < len(table.units) else None
            out.append(column_label(raw, table.names[j], unit, siunitx=siunitx))
        else:
            out.append(column_label(raw, siunitx=siunitx))
    return out


def as_written(
    table: Table, columns: Iterable[int], labels: list[ColumnLabel], words: dict[str, str]
) -> str:
    """The caption's provenance: the raw headers of the columns shown otherwise (LaTeX)."""
    raw = [table.columns[j] for j in columns if labels[j].changed]
    if not raw:
        return ""
    sep = tex_text(words["list_sep"])
    names = sep.join(r"\texttt{" + tex_text(r) + "}" for r in dict.fromkeys(raw))
    before, _, after = words["as_written"].partition("{names}")
    return tex_text(before) + names + tex_text(after)
