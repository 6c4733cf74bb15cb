r"""A result as a lab report writes it: value ± uncertainty, the uncertainty to one or two
significant digits and the value rounded to the same decimal place.

    format_value(-0.33612, 0.07371)            -> "-0.336 ± 0.074"
    format_value(4.3422e-15, 7.87e-17, rule="pdg")  -> "(4.34 ± 0.08) × 10^-15"
    siunitx(4.3422e-15, 7.87e-17, "V s", rule="pdg") -> r"\SI{4.34(8)e-15}{\volt\second}"

Rules (`rule`): "2" (two significant digits, DESIGN.md's default for `show`), "1", or
"pdg" (the Particle Data Group's: the three leading digits of u in 100–354 keep two
digits, 355–949 one, 950–999 round up to 1000 and keep two). A value without an
uncertainty keeps `digits` significant digits.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from decimal import ROUND_HALF_EVEN, ROUND_HALF_UP, Context, Decimal
from typing import Any

Rule = str  # "2" | "1" | "pdg"
RULES = ("2", "1", "pdg")
# Outside 10^-2 ≤ |value| < 10^5 the result is written with a power of ten.
SCI_BELOW = 1e-2
SCI_FROM = 1e5


@dataclass(frozen=True)
class Rounded:
    """A value and its uncertainty rounded together: mantissas as text and the power of ten."""

    value: str  # "-0.336", "4.34"
    uncertainty: str | None  # "0.074", "0.08"; None without an uncertainty
    exponent: int  # the power of ten both are written with (0: none)
    decimals: int  # decimals of the mantissas

    def compact(self) -> str:
        """siunitx's compact form: '4.34(8)', '0.336(74)', '1230(120)'."""
        if self.uncertainty is None:
            return self.value
        digits = self.uncertainty.replace(".", "").lstrip("0") or "0"
        if self.decimals <= 0:
            digits = self.uncertainty
        return f"{self.value}({digits})"


def _rule(rule: Rule | int) -> str:
    text = str(rule).lower()
    if text not in RULES:
        raise ValueError(f"rule must be one of {', '.join(RULES)}, not {rule!r}")
    return text


def _last_place(u: float, rule: str) -> tuple[int, int]:
    """(decimal place of the uncertainty's last kept digit, digits kept) under `rule`."""
    if rule in ("1", "2"):
        return _place(u) - (int(rule) - 1), int(rule)
    leading = int(f"{u:.2e}".replace(".", "")[:3])  # the three highest-order digits
    if leading >= 950:  # rounded up to 1000: two digits of the next power of ten
        return _place(u), 2
    return (_place(u) - 1, 2) if leading <= 354 else (_place(u), 1)


def _place(x: float) -> int:
    """The power of ten of x's leading digit."""
    return math.floor(math.log10(abs(x)))


_CONTEXT = Context(prec=80)  # room for 10^20 written to 10^-20 without an error


def _round_to(x: float, place: int, up: bool = False) -> Decimal:
    """x rounded to the decimal 10^place (half up for an uncertainty, half even otherwise)."""
    quantum = Decimal(1).scaleb(place)
    rounding = ROUND_HALF_UP if up else ROUND_HALF_EVEN
    return Decimal(repr(x)).quantize(quantum, rounding=rounding, context=_CONTEXT)


def round_pair(
    value: float, u: float | None = None, *, rule: Rule | int = "2", digits: int = 4
) -> Rounded:
    """value (and u) rounded for printing (see the module docstring)."""
    value = float(value)
    if not math.isfinite(value):
        return Rounded(str(value), None if u is None else str(u), 0, 0)
    if u is None or not math.isfinite(float(u)) or float(u) <= 0:
        return _alone(value, digits)
    u = float(u)
    place, n = _last_place(u, _rule(rule))
    u_r = _round_to(u, place, up=True)
    if u_r.adjusted() > place + n - 1:  # 0.0996 → 0.100: the carry is one digit too many
        place += 1
        u_r = _round_to(u, place, up=True)
    v_r = _round_to(value, place)
    lead = value if value != 0 else u
    exponent = _place(lead) if (abs(lead) < SCI_BELOW or abs(lead) >= SCI_FROM) else 0
    if exponent and place > exponent:  # the uncertainty exceeds the value: its exponent
        exponent = place + n - 1
    decimals = exponent - place
    return Rounded(
        _mantissa(v_r, exponent, decimals), _mantissa(u_r, exponent, decimals), exponent, decimals
    )


def _alone(value: float, digits: int) -> Rounded:
    if value == 0:
        return Rounded("0", None, 0, 0)
    place = _place(value) - (digits - 1)
    v_r = _round_to(value, place)
    exponent = _place(value) if (abs(value) < SCI_BELOW or abs(value) >= SCI_FROM) else 0
    decimals = max(exponent - place, 0)
    return Rounded(_mantissa(v_r, exponent, exponent - place), None, exponent, decimals)


def _mantissa(x: Decimal, exponent: int, decimals: int) -> str:
    scaled = x.scaleb(-exponent, context=_CONTEXT)
    quantum = Decimal(1).scaleb(-max(decimals, 0))
    text = f"{scaled.quantize(quantum, context=_CONTEXT):f}"
    return text[1:] if re.fullmatch(r"-0(\.0*)?", text) else text  # no "-0.00"


def _split(value: Any, u: float | None) -> tuple[float, float | None]:
    """(nominal, standard deviation) of a ufloat, a (value, u) pair or a plain number."""
    nominal = getattr(value, "nominal_value", None)
    if nominal is not None:
        std = getattr(value, "std_dev", None)
        return float(nominal), (float(std) if u is None and std is not None else u)
    if isinstance(value, tuple) and len(value) == 2:
        return float(value[0]), float(value[1])
    return float(value), u


def format_value(
    value: Any,
    u: float | None = None,
    unit: str = "",
    *,
    rule: Rule | int = "2",
    digits: int = 4,
    style: str = "plain",
) -> str:
    """'-0.336 ± 0.074', '(4.34 ± 0.08) × 10^-15 V s'; `style="tex"` for LaTeX math.

    `value` may be a ufloat (its standard deviation is the uncertainty), a (value, u)
    pair or a number; `u` overrides the ufloat's."""
    v, s = _split(value, u)
    r = round_pair(v, s, rule=rule, digits=digits)
    if style == "tex":
        return _tex(r, unit)
    if r.uncertainty is None:
        body = r.value + (f" × 10^{r.exponent}" if r.exponent else "")
    elif r.exponent:
        body = f"({r.value} ± {r.uncertainty}) × 10^{r.exponent}"
    else:
        body = f"{r.value} ± {r.uncertainty}"
    return f"{body} {unit.strip()}".rstrip()


def _tex(r: Rounded, unit: str) -> str:
    power = rf"\times 10^{{{r.exponent}}}" if r.exponent else ""
    if r.uncertainty is None:
        body = r.value + power
    elif power:
        body = rf"({r.value} \pm {r.uncertainty}){power}"
    else:
        body = rf"{r.value} \pm {r.uncertainty}"
    si = si_unit(unit) if unit.strip() else None
    if unit.strip():
        body += r"~" + (rf"\si{{{si}}}" if si else rf"\mathrm{{{unit.strip()}}}")
    return body


def siunitx(
    value: Any,
    u: float | None = None,
    unit: str = "",
    *,
    rule: Rule | int = "2",
    digits: int = 4,
) -> str:
    r"""siunitx markup: \SI{4.34(8)e-15}{\volt\second}, or \num{0.336(74)} without a unit.

    The compact uncertainty prints as ± with siunitx's `separate-uncertainty` option.
    A unit siunitx has no macros for is passed as a literal unit."""
    v, s = _split(value, u)
    r = round_pair(v, s, rule=rule, digits=digits)
    number = r.compact() + (f"e{r.exponent}" if r.exponent else "")
    if not unit.strip():
        return rf"\num{{{number}}}"
    return rf"\SI{{{number}}}{{{si_unit(unit) or unit.strip()}}}"


# -- units in siunitx ---------------------------------------------------------------------

_BASES = {
    "m": r"\metre", "s": r"\second", "g": r"\gram", "A": r"\ampere", "K": r"\kelvin",
    "mol": r"\mole", "cd": r"\candela", "Hz": r"\hertz", "N": r"\newton", "Pa": r"\pascal",
    "J": r"\joule", "W": r"\watt", "C": r"\coulomb", "V": r"\volt", "F": r"\farad",
    "Ω": r"\ohm", "ohm": r"\ohm", "S": r"\siemens", "T": r"\tesla", "H": r"\henry",
    "Wb": r"\weber", "rad": r"\radian", "sr": r"\steradian", "eV": r"\electronvolt",
    "L": r"\litre", "l": r"\litre", "min": r"\minute", "h": r"\hour", "°": r"\degree",
    "deg": r"\degree", "°C": r"\degreeCelsius", "%": r"\percent", "dB": r"\decibel",
    "bar": r"\bar", "lx": r"\lux", "Bq": r"\becquerel", "Gy": r"\gray",
}  # fmt: skip
_PREFIXES = {
    "f": r"\femto", "p": r"\pico", "n": r"\nano", "µ": r"\micro", "μ": r"\micro",
    "u": r"\micro", "m": r"\milli", "c": r"\centi", "d": r"\deci", "k": r"\kilo",
    "M": r"\mega", "G": r"\giga", "T": r"\tera",
}  # fmt: skip
_NOT_PREFIXED = frozenset(("%", "°", "°C", "deg", "min", "h", "rad", "sr"))
_POWER = str.maketrans("⁰¹²³⁴⁵⁶⁷⁸⁹⁻", "0123456789-")
_ATOM = re.compile(r"([^\s^\d+\-]+?)\^?\(?([+-]?\d)?\)?")


def unit_powers(unit: str) -> list[tuple[str, int]] | None:
    """'m/s^2' → [('m', 1), ('s', -2)]; 'V·s' → [('V', 1), ('s', 1)]; None if unreadable."""
    text = unit.strip().translate(_POWER)
    text = re.sub(r"[·*⋅]", " ", text).replace("{", "").replace("}", "")
    if not text or len(text) > 40:
        return None
    parts = text.split("/")
    if len(parts) > 2 or not all(p.strip() for p in parts):
        return None
    out: list[tuple[str, int]] = []
    for k, part in enumerate(parts):
        for piece in re.split(r"\s+|\.(?=[^\W\d])", part.strip()):
            if piece in ("1", ""):
                continue
            m = _ATOM.fullmatch(piece)
            if not m:
                return None
            power = int(m.group(2)) if m.group(2) else 1
            out.append((m.group(1), -power if k == 1 else power))
    return out


def si_unit(unit: str) -> str | None:
    r"""'V s' → \volt\second, 'cm^2/mg' → \centi\metre\squared\per\milli\gram; None when
    a part is no unit siunitx names (the caller writes it as a literal)."""
    powers = unit_powers(unit)
    if not powers:
        return None
    macros = []
    for atom, power in powers:
        macro = si_atom(atom)
        if macro is None or power == 0:
            return None
        n = abs(power)
        tail = (
            "" if n == 1 else r"\squared" if n == 2 else r"\cubed" if n == 3 else rf"\tothe{{{n}}}"
        )
        macros.append((r"\per" if power < 0 else "") + macro + tail)
    return "".join(macros)


def si_atom(text: str) -> str | None:
    """One unit symbol as siunitx's macro ("km" → \\kilo\\metre); None when it names none.
    The one table of symbols: the offline skeleton's column units read it too."""
    if text in _BASES:
        return _BASES[text]
    if (
        len(text) > 1
        and text[0] in _PREFIXES
        and text[1:] in _BASES
        and text[1:] not in _NOT_PREFIXED
    ):
        return _PREFIXES[text[0]] + _BASES[text[1:]]
    return None
