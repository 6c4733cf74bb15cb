"""Data-derived text and numbers as LaTeX: escaped completely, digits kept as written."""

from __future__ import annotations

import math
import re
import unicodedata

from labwright.core.material.readers.workbook import format_float
from labwright.core.report.latex import escape_latex

FLOAT_PLACEMENT = "htbp"  # every table and figure of the skeleton: here, else top, bottom, page

# --------------------------------------------------------------------------
# Escaping data-derived text
# --------------------------------------------------------------------------

# Characters Latin Modern (the default font of an article under XeLaTeX) lacks
# and that lab material is full of; written as math so they print everywhere.
_MATH_CHARS = {
    "θ": r"\theta", "ϑ": r"\vartheta", "φ": r"\phi", "ϕ": r"\phi", "α": r"\alpha",
    "β": r"\beta", "γ": r"\gamma", "δ": r"\delta", "Δ": r"\Delta", "ε": r"\varepsilon",
    "λ": r"\lambda", "μ": r"\mu", "π": r"\pi", "ρ": r"\rho", "σ": r"\sigma",
    "Σ": r"\Sigma", "τ": r"\tau", "ω": r"\omega", "Ω": r"\Omega", "η": r"\eta",
    "√": r"\surd", "≈": r"\approx", "≤": r"\leq", "≥": r"\geq", "±": r"\pm",
    "×": r"\times", "−": "-", "→": r"\rightarrow", "∝": r"\propto", "∞": r"\infty",
}  # fmt: skip
_MATH_CHAR_RE = re.compile("[" + "".join(_MATH_CHARS) + "]")


def tex_text(text: str) -> str:
    """Data-derived text as LaTeX that prints exactly that text, nothing else.

    escape_latex keeps `$...$` and `\\(...\\)` as math, which is right for
    model prose but not for data: here `$` and `\\` are replaced by
    placeholders first, so every character is escaped.
    """
    # Math alphanumerics (𝑣, 𝜙 from Word's equation editor) become plain letters.
    text = "".join(
        unicodedata.normalize("NFKC", c) if 0x1D400 <= ord(c) <= 0x1D7FF or c == "ℎ" else c
        for c in text
    )
    text = "".join(c for c in text if c.isprintable() or c == " ")
    escaped = escape_latex(text.replace("\\", "\x00").replace("$", "\x01"))
    escaped = escaped.replace("\x00", r"\textbackslash{}").replace("\x01", r"\$")
    escaped = _MATH_CHAR_RE.sub(lambda m: f"\\ensuremath{{{_MATH_CHARS[m.group()]}}}", escaped)
    # Subscript digits ("t₁₀" in a manual): Latin Modern has none of them.
    return _SUBSCRIPTS.sub(
        lambda m: "\\textsubscript{" + m.group().translate(_SUBSCRIPT_DIGITS) + "}", escaped
    )


_SUBSCRIPTS = re.compile("[₀-₉]+")
_SUBSCRIPT_DIGITS = str.maketrans("₀₁₂₃₄₅₆₇₈₉", "0123456789")


def _breakable(text: str) -> str:
    """tex_text, plus break points after * / ( ) _ so long headers wrap in narrow columns."""
    pieces = re.split(r"(?<=[*/()_^,])", text)
    return r"\allowbreak{}".join(tex_text(p) for p in pieces if p)


# --------------------------------------------------------------------------
# Numbers
# --------------------------------------------------------------------------


def _significant_digits(text: str) -> int:
    mantissa = text.lower().split("e")[0].lstrip("+-").replace(".", "").lstrip("0")
    return len(mantissa)


def format_value(value: float, written: str | None = None) -> str:
    """A cell as LaTeX: the data's own digits, computed noise rounded, in math mode.

    Measured values keep every digit they were written with (0.485 stays
    0.485, "0.200" in a CSV stays 0.200); values with more than 6
    significant digits are computed ones (0.4363323129985824), rounded to 4.
    """
    if not math.isfinite(value):
        return "--"
    text = (
        written.lstrip("+")
        if written and _WRITTEN_NUMBER.fullmatch(written)
        else format_float(value)
    )
    if not (value.is_integer() and abs(value) < 1e15) and _significant_digits(text) > 6:
        text = f"{value:.4g}"
    return _math_number(text)


_WRITTEN_NUMBER = re.compile(r"[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?")


def format_stat(value: float | None, spread: float | None = None) -> str:
    """A statistic: 4 significant digits, or as many as show `spread` (the column's standard
    deviation) to two digits — a mean of 180.727…180.731 g is 180.7290, never 180.7."""
    if value is None or not math.isfinite(value):
        return "--"
    if value.is_integer() and abs(value) < 1e15:
        return _math_number(str(int(value)))
    digits = stat_digits(value, spread)
    if digits == 4 or not 1e-4 <= abs(value) < 1e15:
        return _math_number(f"{value:.{digits}g}")
    # Fixed decimals: the zeros that show the spread's digit stay ("180.7290").
    places = digits - 1 - math.floor(math.log10(abs(value)))
    return _math_number(f"{value:.{max(places, 0)}f}")


MAX_STAT_DIGITS = 12


def stat_digits(value: float, spread: float | None) -> int:
    """Significant digits for `value` so that the second digit of `spread` still shows."""
    if spread is None or not math.isfinite(spread) or spread <= 0 or value == 0:
        return 4
    needed = math.floor(math.log10(abs(value))) - (math.floor(math.log10(spread)) - 1) + 1
    return max(4, min(MAX_STAT_DIGITS, needed))


def _math_number(text: str) -> str:
    mantissa, _, exponent = text.lower().partition("e")
    if exponent:
        return f"${mantissa}\\times10^{{{int(exponent)}}}$"
    return f"${text}$"
