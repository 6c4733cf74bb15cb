"""What a column is to a physicist: its quantity, its unit and its role in the table.

Roles: "index" (row or frame number), "independent" (what was set or swept:
time, angle, frequency, set points), "measured", "uncertainty" (of another
column), "category" (sample, material: text), "constant" (one value),
"empty" (a column of a template sheet left to fill in). Decided from the
header's words first and the values second; nothing is asked of a model.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass

from labwright.core.material.units import parse_unit, suffix_unit_fits

INDEX = "index"
INDEPENDENT = "independent"
MEASURED = "measured"
UNCERTAINTY = "uncertainty"
CATEGORY = "category"
CONSTANT = "constant"
EMPTY = "empty"
NOTE = "note"

# Statistics mean something for these only (never an index, set points or a category).
STATISTIC_ROLES = frozenset((MEASURED, UNCERTAINTY))

_BRACKETED = re.compile(r"^(.*?)\s*[(\[（【]\s*([^()\[\]（）【】]{1,20}?)\s*[)\]）】]\s*$")
_SLASH = re.compile(r"^(.*?\S)\s*/\s*([^/\s][^/]{0,15})$")
_COMMA = re.compile(r"^(.*?\S)\s*,\s*([^,]{1,16})$")
_SUFFIX = re.compile(r"^(.*?[A-Za-z0-9])_([A-Za-zµ°%]{1,4})$")
_IN = re.compile(r"^(.*?\S)\s+in\s+(\S{1,10})$")
# Units parse_unit does not know but headers use.
_EXTRA_UNITS = frozenset(("%", "°", "a.u.", "au", "arb. units", "arb.u.", "counts", "dB", "dBm",
                          "dBV", "dBu", "dBc", "dBm/Hz", "dBV/Hz", "dB/Hz",
                          "rad.", "deg", "px", "pixel", "pixels", "ppm"))  # fmt: skip


_LOGARITHMIC = re.compile(r"^(?:dB\w*|dB\s*\(\w+\)|Np|neper)(?:\s*/\s*\w+)?$", re.I)


def is_logarithmic(unit: str | None) -> bool:
    """A level on a log scale (dB, dBm, dBV/Hz): its values are not averaged as if linear."""
    return unit is not None and bool(_LOGARITHMIC.match(unit.strip()))


# A unit with a power of ten before it: values in 10^14 Hz, 10^-10 A, ×10^3 N.
_SCALED = re.compile(r"^(?:[×x*]\s*)?(?:10\^?\s*\(?[-+−]?\d{1,3}\)?|1[eE][+-]?\d{1,3})\s*(\S.*)$")


def is_unit(text: str) -> bool:
    text = text.strip()
    if not text or len(text) > 16:
        return False
    if text in _EXTRA_UNITS or text.lower() in _EXTRA_UNITS:
        return True
    scaled = _SCALED.match(text)
    if scaled and scaled.group(1) != text:
        return is_unit(scaled.group(1))
    try:
        return parse_unit(text) is not None
    except (ValueError, ArithmeticError):
        return False


def unit_cell(text: str) -> str | None:
    """The unit a units-row cell states ("(V)", "[mA]", "m/s"), or None."""
    inner = text.strip()
    m = re.fullmatch(r"[(\[（【]\s*(.*?)\s*[)\]）】]", inner)
    if m:
        inner = m.group(1)
    return inner if is_unit(inner) else None


def split_unit(header: str) -> tuple[str, str | None]:
    """(quantity, unit) of a header: "f (kHz)", "V [V]", "距离/cm", "Range, m", "length_m"."""
    h = " ".join(header.split())
    for pattern in (_BRACKETED, _SLASH, _COMMA, _SUFFIX, _IN):
        m = pattern.match(h)
        if not m:
            continue
        name, unit = m.group(1).strip(" ,"), m.group(2).strip()
        if pattern is _COMMA and re.fullmatch(r"[A-Z]", unit):
            continue  # "Actual Velocity,V": the quantity's symbol, not volts
        if pattern is _SUFFIX and not _suffix_fits(name, unit):
            continue  # "area_m", "density_kg_m": no unit the quantity could have
        if name and is_unit(unit):
            return name, unit
    return h, None


def _suffix_fits(name: str, unit: str) -> bool:
    parsed = parse_unit(unit)
    return parsed is None or suffix_unit_fits(name, parsed)


# Inside a header's brackets, a number is the instrument's resolution ("Voltage (±0.1 V)",
# "Current (0.001)"), with the unit after it or none.
_RESOLUTION = re.compile(
    r"^(?:(±|\+/-|\+-)\s*)?(\d+(?:\.\d*)?(?:[eE][+-]?\d+)?|\.\d+)\s*(\S.{0,15})?$"
)


@dataclass(frozen=True)
class Header:
    """A column header read: the quantity, its unit, and the resolution it states."""

    name: str
    unit: str | None
    resolution: float | None = None


def parse_header(text: str) -> Header:
    """ "Voltage (±0.1 V)": Voltage, V, 0.1; "Current (0.001)": Current, no unit, 0.001;
    anything else as split_unit reads it."""
    h = " ".join(text.split())
    m = _BRACKETED.match(h)
    if m:
        r = _RESOLUTION.match(m.group(2))
        # A bare number needs no sign; a number with a unit after it needs "±", or
        # "(10^14Hz)" and "(2 mm)" would read as resolutions.
        if r and m.group(1).strip() and (r.group(1) or r.group(3) is None):
            unit = r.group(3).strip() if r.group(3) else None
            if unit is not None and not is_unit(unit):
                return Header(h, None)
            return Header(m.group(1).strip(" ,"), unit, float(r.group(2)))
    name, unit = split_unit(h)
    return Header(name, unit)


_INDEX_STRONG = re.compile(
    r"^(?:#|no\.?|nr\.?|num\.?|number|index|idx|row|line|item|frame(?:\s*(?:no\.?|number|#))?"
    r"|序号|编号|行号|帧|帧号)$",
    re.I,
)
_INDEX_WEAK = re.compile(
    r"^(?:n|i|k|trial|run|point|sample|measurement|reading|obs|observation|次数|次|组|组号|col \d+)"
    r"(?:\s*(?:no\.?|#|number|nr\.?))?$",
    re.I,
)
_INDEPENDENT = re.compile(
    r"^(?:time|angle|theta|phi|freq|frequency|set ?points?|setpoint|set|nominal|applied|target"
    r"|setting|wavelength|incident angle)(?:$|[^a-z0-9])|时间|角度|频率|设定|波长|入射角",
    re.I,
)
# One-letter symbols are case-sensitive: t is time, T a period or a temperature. A
# subscript makes it one particular time (t_10, t_run1: measured), a unit suffix does not.
_INDEPENDENT_SYMBOL = re.compile(r"^(?:t|f|θ|φ|ν|λ)(?:$|[\s(,]|_[A-Za-zµ]{1,3}$)")


def _independent_name(name: str) -> bool:
    return bool(_INDEPENDENT.search(name) or _INDEPENDENT_SYMBOL.match(name))


_UNCERTAINTY = re.compile(
    r"^(?:d|δ|Δ|delta)\s+\S|^(?:err|error|sigma|σ|std|sd|unc)(?:$|[\s_(.])|±|\+/-|uncertaint"
    r"|(?:^|[\s_])err(?:or)?(?:$|[\s_])|[\s_](?:sd|std|sigma|σ)$|σ|误差|不确定|标准差",
    re.I,
)
_DELTA_NAME = re.compile(r"^(?:δ|Δ|delta[\s_]?)(\S.*)$", re.I)
# "u(d)": the standard uncertainty of d, when the table has a d ("U(Vpp)", "u(Vamp)": voltages)
_U_OF = re.compile(r"^u\((.+)\)$")
# "dI", "dV": d before a symbol that names another column of the table
_D_SYMBOL = re.compile(r"^d([A-Z][A-Za-z0-9_]*)$")
_NOTE = re.compile(r"^(?:notes?|comments?|remarks?|memo|备注|说明|注)$", re.I)
_CATEGORY_HINT = re.compile(
    r"sample|material|type|absorber|specimen|substance|object|metal|liquid|group|label|name"
    r"|样品|材料|种类|类型|名称",
    re.I,
)


def _base(name: str) -> str:
    return re.sub(r"[\s_.,:]+", " ", name).strip().casefold()


def _consecutive(values: Sequence[float]) -> bool:
    return (
        len(values) >= 3
        and values[0] in (0.0, 1.0)
        and all(v.is_integer() for v in values)
        and all(b - a == 1 for a, b in zip(values, values[1:], strict=False))
    )


def _increasing_integers(values: Sequence[float]) -> bool:
    return (
        len(values) >= 2
        and all(v.is_integer() for v in values)
        and all(b > a for a, b in zip(values, values[1:], strict=False))
    )


def _levels(values: Sequence[float]) -> bool:
    """Monotonic, evenly spaced or a few repeated levels: how set points look."""
    if len(values) < 2:
        return False
    steps = [b - a for a, b in zip(values, values[1:], strict=False)]
    if all(s > 0 for s in steps) or all(s < 0 for s in steps):
        return True
    distinct = set(values)
    return len(distinct) >= 2 and len(distinct) * 2 <= len(values)


def exactly_linear(xs: Sequence[float | None], ys: Sequence[float | None]) -> bool:
    """y = a·x + b to rounding error, like an angle in degrees next to it in radians."""
    pairs = [(x, y) for x, y in zip(xs, ys, strict=False) if x is not None and y is not None]
    if len(pairs) < 3:
        return False
    mx = math.fsum(p[0] for p in pairs) / len(pairs)
    my = math.fsum(p[1] for p in pairs) / len(pairs)
    sxx = math.fsum((x - mx) ** 2 for x, _ in pairs)
    syy = math.fsum((y - my) ** 2 for _, y in pairs)
    sxy = math.fsum((x - mx) * (y - my) for x, y in pairs)
    if sxx == 0 or syy == 0:
        return False
    return abs(sxy) / math.sqrt(sxx * syy) > 1 - 1e-9


def assign_roles(
    names: Sequence[str],
    units: Sequence[str | None],
    values: Sequence[Sequence[float | None]],
    texts: Sequence[bool],
    *,
    headed: Sequence[bool] | None = None,
) -> tuple[list[str], dict[int, int]]:
    """(role per column, {uncertainty column: the column it is the uncertainty of}).

    `values` holds each column's numbers (a sample of the rows is enough),
    `texts` whether a column holds words rather than numbers, `headed`
    whether a header names it.
    """
    n = len(names)
    headed = headed if headed is not None else [True] * n
    roles = [""] * n
    bases = [_base(name) for name in names]
    filled = [[v for v in col if v is not None] for col in values]
    for j in range(n):
        if texts[j]:
            roles[j] = NOTE if _NOTE.match(bases[j]) else CATEGORY
        elif not filled[j]:
            roles[j] = EMPTY
    numeric = [j for j in range(n) if not roles[j]]
    for j in numeric:
        base, vals = bases[j], filled[j]
        strong = bool(_INDEX_STRONG.match(base)) and _increasing_integers(vals)
        weak = (
            units[j] is None
            and (not headed[j] or _INDEX_WEAK.match(base) or j == numeric[0])
            and not _independent_name(names[j])
            and _consecutive(vals)
        )
        if strong or weak:
            roles[j] = INDEX
    uncertainty_of: dict[int, int] = {}
    for j in numeric:
        if roles[j] or not headed[j]:
            continue
        m = _DELTA_NAME.match(names[j]) or _D_SYMBOL.match(names[j]) or _U_OF.match(names[j])
        target = None
        if m:  # Δt is t's uncertainty only when the table has a t
            rest = _base(split_unit(m.group(1))[0])
            target = next((k for k in numeric if k != j and bases[k] == rest), None)
            if target is None:
                continue
        elif not _UNCERTAINTY.search(names[j]):
            continue
        roles[j] = UNCERTAINTY
        if target is None:
            target = _uncertainty_target(j, bases, roles, numeric)
        if target is not None:
            uncertainty_of[j] = target
    for j in numeric:
        if not roles[j] and len(set(filled[j])) == 1 and len(filled[j]) >= 2:
            roles[j] = CONSTANT
    named = [j for j in numeric if not roles[j] and _independent_name(names[j])]
    for j in named:
        roles[j] = INDEPENDENT
    if not named:
        first = next((j for j in numeric if not roles[j]), None)
        others = [j for j in numeric if not roles[j] and j != first]
        if first is not None and others and _levels(filled[first]):
            roles[first] = INDEPENDENT
        if first is not None and not others and any(r == EMPTY for r in roles):
            roles[first] = INDEPENDENT  # a template sheet: only the set points are filled
    independents = [j for j in numeric if roles[j] == INDEPENDENT]
    for j in numeric:
        # The same variable in other units ("Angle, °" and "Angle, rad."): same word, exact line.
        if not roles[j] and any(
            _first_word(bases[i]) == _first_word(bases[j]) and exactly_linear(values[i], values[j])
            for i in independents
        ):
            roles[j] = INDEPENDENT
    for j in numeric:
        roles[j] = roles[j] or MEASURED
    return roles, uncertainty_of


def _first_word(base: str) -> str:
    return base.split(" ")[0] if base else ""


def _uncertainty_target(
    j: int, bases: list[str], roles: list[str], numeric: list[int]
) -> int | None:
    name = bases[j]
    for prefix in ("d ", "δ ", "δ", "delta ", "err ", "error ", "sigma ", "σ ", "σ", "u ", "± "):
        if name.startswith(prefix):
            rest = name[len(prefix) :].strip()
            break
    else:
        rest = re.sub(r"[\s_]*(?:err(?:or)?|sd|std|sigma|σ|uncertainty)$", "", name).strip()
    for k in numeric:
        if k != j and rest and bases[k] and roles[k] not in (INDEX, UNCERTAINTY):
            if bases[k] == rest or split_unit(bases[k])[0].casefold() == rest:
                return k
            if bases[k].startswith(rest) and len(rest) >= 3:
                return k
    # An uncertainty column stands right of what it qualifies.
    for k in range(j - 1, -1, -1):
        if k in numeric and roles[k] not in (INDEX, UNCERTAINTY):
            return k
    return None
