"""Units of measurement as the material and the report write them: "mm", "kg m^-2",
"\\metre\\per\\second", a header's "Range, m" or "length_m". `parse_unit` gives a factor to
SI base units and the dimensions, so "485 mm" compares with "0.485" under a "Range, m"
header. Pure Python; the evidence (evidence.py) and the tables' column roles
(tables/roles.py) both read units here.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

_PREFIXES = {
    "p": 1e-12,
    "n": 1e-9,
    "µ": 1e-6,
    "μ": 1e-6,
    "u": 1e-6,
    "m": 1e-3,
    "c": 1e-2,
    "d": 1e-1,
    "k": 1e3,
    "M": 1e6,
    "G": 1e9,
}
# symbol -> (factor to SI, dimensions as {base: power})
_SYMBOLS: dict[str, tuple[float, dict[str, int]]] = {
    "m": (1.0, {"m": 1}),
    "s": (1.0, {"s": 1}),
    "g": (1e-3, {"kg": 1}),
    "A": (1.0, {"A": 1}),
    "K": (1.0, {"K": 1}),
    "mol": (1.0, {"mol": 1}),
    "Hz": (1.0, {"s": -1}),
    "N": (1.0, {"kg": 1, "m": 1, "s": -2}),
    "Pa": (1.0, {"kg": 1, "m": -1, "s": -2}),
    "J": (1.0, {"kg": 1, "m": 2, "s": -2}),
    "W": (1.0, {"kg": 1, "m": 2, "s": -3}),
    "V": (1.0, {"V": 1}),
    "Ω": (1.0, {"V": 1, "A": -1}),
    "ohm": (1.0, {"V": 1, "A": -1}),
    "F": (1.0, {"A": 1, "s": 1, "V": -1}),
    "T": (1.0, {"T": 1}),
    "H": (1.0, {"V": 1, "s": 1, "A": -1}),
    "L": (1e-3, {"m": 3}),
    "l": (1e-3, {"m": 3}),
    "min": (60.0, {"s": 1}),
    "h": (3600.0, {"s": 1}),
    "rad": (1.0, {"rad": 1}),
    "deg": (1.0, {"deg": 1}),
    "°": (1.0, {"deg": 1}),
    "°C": (1.0, {"degC": 1}),
    "eV": (1.602176634e-19, {"kg": 1, "m": 2, "s": -2}),
}
# symbols a prefix may not stick to (they would shadow real units: "min", "mol", "h"...)
_NO_PREFIX = {"min", "h", "deg", "°", "°C", "rad", "mol", "ohm", "l"}
_SUPERSCRIPT = str.maketrans("⁰¹²³⁴⁵⁶⁷⁸⁹⁻", "0123456789-")
_SIUNITX = {
    r"\kilogram": "kg",
    r"\metre": "m",
    r"\meter": "m",
    r"\second": "s",
    r"\gram": "g",
    r"\newton": "N",
    r"\hertz": "Hz",
    r"\volt": "V",
    r"\ampere": "A",
    r"\ohm": "Ω",
    r"\pascal": "Pa",
    r"\joule": "J",
    r"\watt": "W",
    r"\kelvin": "K",
    r"\degreeCelsius": "°C",
    r"\celsius": "°C",
    r"\degree": "°",
    r"\radian": "rad",
    r"\litre": "L",
    r"\liter": "L",
    r"\minute": "min",
    r"\hour": "h",
    r"\mole": "mol",
    r"\electronvolt": "eV",
    r"\farad": "F",
    r"\tesla": "T",
}
_SI_PREFIX = {
    r"\pico": "p",
    r"\nano": "n",
    r"\micro": "µ",
    r"\milli": "m",
    r"\centi": "c",
    r"\deci": "d",
    r"\kilo": "k",
    r"\mega": "M",
    r"\giga": "G",
}


@dataclass(frozen=True)
class Unit:
    """A unit as a factor to SI and its dimensions ("mm": 1e-3, m¹)."""

    text: str
    factor: float
    dims: tuple[tuple[str, int], ...]

    @property
    def is_percent(self) -> bool:
        return self.text == "%"


PERCENT = Unit("%", 1.0, ())


def _siunitx_to_text(spec: str) -> str:
    """'\\metre\\per\\second\\squared' -> 'm / s^2' (siunitx macros as plain unit text)."""
    out: list[str] = []
    prefix, per = "", False
    for token in re.findall(r"\\[A-Za-z]+|[^\\]+", spec):
        if token in _SI_PREFIX:
            prefix += _SI_PREFIX[token]
        elif token == r"\per":
            per = True
        elif token in (r"\squared", r"\cubed") and out:
            out[-1] += "^2" if token == r"\squared" else "^3"
        elif token in (r"\square", r"\cubic"):
            continue
        elif token == r"\percent":
            out.append("%")
        elif token in _SIUNITX:
            out.append(("/" if per else " ") + prefix + _SIUNITX[token])
            prefix, per = "", False
        else:
            out.append(" " + token)
    return "".join(out).strip()


def _factor(token: str) -> tuple[float, dict[str, int]] | None:
    """One unit factor with its exponent: 'mm', 's^-2', 'm2', 's-1', 'cm³'."""
    token = token.translate(_SUPERSCRIPT).replace("{", "").replace("}", "")
    m = re.fullmatch(r"([A-Za-zµμΩ°]+C?)\^?(-?\d)?", token)
    if not m:
        return None
    name, power = m.group(1), int(m.group(2) or 1)
    parsed = _symbol(name)
    if parsed is None:
        return None
    factor, dims = parsed
    return factor**power, {d: p * power for d, p in dims.items()}


def _symbol(name: str) -> tuple[float, dict[str, int]] | None:
    if name in _SYMBOLS:
        return _SYMBOLS[name]
    if (
        len(name) > 1
        and name[0] in _PREFIXES
        and name[1:] in _SYMBOLS
        and name[1:] not in _NO_PREFIX
    ):
        factor, dims = _SYMBOLS[name[1:]]
        return _PREFIXES[name[0]] * factor, dims
    return None


def _split_glued(token: str) -> list[str] | None:
    """'ms-1' is m·s⁻¹ in lab spreadsheets (not per millisecond); 'kgm' is kg·m."""
    for i in range(1, len(token)):
        head, tail = token[:i], token[i:]
        if _symbol(head) and _factor(tail):
            return [head, tail]
    return None


def _pieces(token: str) -> list[str] | None:
    if "-" in token:  # 'ms-1', 'ms^-1': metre per second, as lab sheets mean it
        glued = _split_glued(token)
        if glued:
            return glued
    return [token] if _factor(token) else _split_glued(token)


@functools.lru_cache(maxsize=4096)
def parse_unit(text: str) -> Unit | None:
    """A unit from how it is written ('m/s^2', 'm s^{-2}', 'ms-1', '\\si{\\milli\\metre}')."""
    raw = text.strip()
    if not raw:
        return None
    if raw in ("%", r"\%", r"\percent", "percent", "per cent", "％"):
        return PERCENT
    s = raw
    if "\\" in s:
        s = re.sub(r"\\(?:mathrm|text|textrm|si|unit|mbox|rm)\b", " ", s)
        s = s.replace(r"\circ", "°").replace(r"\degree", "°").replace(r"\mu", "µ")
        s = s.replace(r"\Omega", "Ω").replace(r"\cdot", " ").replace(r"\,", " ").replace("~", " ")
        s = _siunitx_to_text(s)
    s = s.replace("$", "").replace("{", "").replace("}", "").replace("·", " ").replace("*", " ")
    s = re.sub(r"\^\s*\(?(-?\d)\)?", r"^\1", s).replace("^°", "°")
    s = re.sub(r"°\s*C\b", "°C", s).strip()
    if re.fullmatch(r"\^?°|deg(?:rees?)?|degree", s):
        s = "°"
    num, slash, den = s.partition("/")
    factor = 1.0
    dims: dict[str, int] = {}
    for part, sign in ((num, 1), (den, -1)):
        tokens = [t for t in re.split(r"[\s.]+", part) if t]
        if sign == -1 and slash and not tokens:
            return None
        for token in tokens:
            pieces = _pieces(token)
            if not pieces:
                return None
            for piece in pieces:
                parsed = _factor(piece)
                if parsed is None:
                    return None
                f, d = parsed
                factor *= f**sign
                for k, p in d.items():
                    dims[k] = dims.get(k, 0) + p * sign
    dims = {k: p for k, p in dims.items() if p}
    if not dims:
        return None
    return Unit(raw, factor, tuple(sorted(dims.items())))


# What a quantity word measures, as dimensions: a unit read from a name's suffix
# ("area_m", "density_kg_m") must fit it, or it is no unit but part of the name.
_LENGTH = (("m", 1),)
_QUANTITY_DIMS: dict[str, tuple[tuple[tuple[str, int], ...], ...]] = {
    **dict.fromkeys(
        (
            "length",
            "distance",
            "height",
            "width",
            "depth",
            "radius",
            "diameter",
            "range",
            "displacement",
            "position",
            "thickness",
            "wavelength",
            "elongation",
            "extension",
        ),
        (_LENGTH,),
    ),  # fmt: skip
    "area": ((("m", 2),),),
    "surface": ((("m", 2),),),
    "volume": ((("m", 3),),),
    **dict.fromkeys(("time", "period", "duration", "delay", "interval"), ((("s", 1),),)),
    "mass": ((("kg", 1),),),
    "density": ((("kg", 1), ("m", -3)),),
    **dict.fromkeys(("speed", "velocity"), ((("m", 1), ("s", -1)),)),
    "acceleration": ((("m", 1), ("s", -2)),),
    "frequency": ((("s", -1),),),
    "force": ((("kg", 1), ("m", 1), ("s", -2)),),
    "pressure": ((("kg", 1), ("m", -1), ("s", -2)),),
    "energy": ((("kg", 1), ("m", 2), ("s", -2)),),
    "power": ((("kg", 1), ("m", 2), ("s", -3)),),
    **dict.fromkeys(("voltage", "potential"), ((("V", 1),),)),
    "current": ((("A", 1),),),
    "resistance": ((("A", -1), ("V", 1)),),
    "temperature": ((("K", 1),), (("degC", 1),)),
    "angle": ((("rad", 1),), (("deg", 1),)),
}


def suffix_unit_fits(name: str, unit: Unit) -> bool:
    """Whether `unit`, read from the suffix of `name` ("area_m": m), can be the unit of the
    quantity the name says; a name that says no known quantity ("t10_run1") fits anything."""
    words = [w.casefold() for w in re.split(r"[\s_]+", name) if w]
    for word in reversed(words):
        wanted = _QUANTITY_DIMS.get(word)
        if wanted is not None:
            return unit.dims in wanted
    return True


_HEADER_UNIT = [
    re.compile(r"\(([^()]{1,24})\)\s*$"),  # "Range (cm)"
    re.compile(r"\[([^\[\]]{1,24})\]\s*$"),  # "Range [cm]"
    re.compile(r"(?:^|[\s,;:])(?:/|in)\s*([^\s/,][^,;]{0,23})$"),  # "L / m", "t in s"
    re.compile(r",\s*([^,]{1,24})$"),  # "Range, m"
    re.compile(r"_([A-Za-zµ°%]{1,4})$"),  # "length_m", "t10_run1_s"
]


def header_unit(header: str) -> Unit | None:
    """The unit a column header states, if any ("Range, m", "length_m", "T (s)")."""
    h = " ".join(header.split())
    if "%" in h and re.search(r"\(\s*\\?%\s*\)|\[\s*\\?%\s*\]|_pct$|percent", h):
        return PERCENT
    parts = [p.strip() for p in h.split(",")]
    for part in parts[1:-1]:  # "Actual Speed, ms-1, v0": the unit between the commas
        unit = parse_unit(part) if not re.fullmatch(r"[A-Z]", part) else None
        if unit is not None:
            return unit
    for pattern in _HEADER_UNIT:
        m = pattern.search(h)
        if m:
            word = m.group(1).strip()
            if pattern is _HEADER_UNIT[3] and re.fullmatch(r"[A-Z]", word):
                continue  # "Actual Velocity,V": the quantity's symbol, not volts
            unit = parse_unit(word)
            if unit is None:
                continue
            if pattern is _HEADER_UNIT[4] and not suffix_unit_fits(h[: m.start()], unit):
                continue  # "area_m" is no area in metres: the name as written, no unit
            return unit
    return None
