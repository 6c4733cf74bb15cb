"""The numbers of a report, LaTeX-aware: values, rounding, units, uncertainties, what is trivial."""

from __future__ import annotations

import math
import re

from labwright.core.material.evidence import PERCENT, Unit, parse_unit
from labwright.core.report.verify.markup import _args_end, _group_end, _Masked, _skip_ws
from labwright.core.report.verify.model import ReportNumber
from labwright.core.report.verify.structure import _Report, _structure

# -- numbers in LaTeX ----------------------------------------------------------

_TEX_NUMBER = re.compile(
    r"(?P<mant>\d{1,3}(?:(?:,|\{,\}|\\,)\d{3})+(?:\.\d+)?(?!\d)|\d+(?:\.\d+)?|\.\d+)"
    # siunitx's compact uncertainty before the exponent: \SI{6.96(13)e-34}{...}
    r"(?:\((?P<unc0>\d{1,3})\)(?=[eE][-+]?\d))?"
    r"(?:[eE](?P<e1>[-+]?\d+)"
    r"|\s*(?:\\times|\\cdot|×|·|x)\s*10\s*\^\s*(?:\{\s*(?P<e2>[-+−]?\s*\d+)\s*\}|(?P<e3>[-+−]?\d+))"
    r"|\s*[x×]\s*10(?P<e4>[⁻⁺]?[⁰¹²³⁴⁵⁶⁷⁸⁹]+))?"
    r"(?:\((?P<unc>\d{1,3})\))?"
)
_SUPER = str.maketrans("⁰¹²³⁴⁵⁶⁷⁸⁹⁻⁺", "0123456789-+")
_SIUNITX = re.compile(
    r"\\(SI|qty|num|ang|SIrange|qtyrange|numrange|SIlist|qtylist|numlist)\s*(?=\{)"
)
_PM = re.compile(r"^[\s$]*(?:\\pm|±|\+-|\+/-)[\s${]*$")
_REF_WORDS = re.compile(
    r"(?:\b(?:fig(?:ure)?s?|tab(?:le)?s?|sec(?:tion)?s?|eqs?|equations?|chapters?|appendix"
    r"|parts?|steps?|experiments?|exps?|runs?|trials?|nos?|numbers?|pages?|pp?|lines?"
    r"|items?|questions?|tasks?|groups?|rows?|columns?|version|stage|phase)\.?|[#№§]|第|图|表|式)"
    r"[\s~(]*(?:\d+\s*(?:–|—|--?|to)\s*)?$",  # "rows 7–25": the range's end as well
    re.I,
)
_CONSTANTS = (
    9.8, 9.81, 9.807, 9.80665, math.pi, math.e, 0.5, 100, 180, 360, 90, 60, 1000,
    273.15, 6.674e-11, 2.998e8, 1.602e-19, 9.109e-31, 6.626e-34, 1.381e-23, 6.022e23,
    8.854e-12, 101325, 8.314, 343, 2 * math.pi, 4 * math.pi**2,
)  # fmt: skip


def _number(m: re.Match[str], offset: int, tex: str) -> ReportNumber:
    mant = re.sub(r"\{,\}|\\,|,", "", m.group("mant"))
    exp_text = m.group("e1") or m.group("e2") or m.group("e3")
    if m.group("e4"):
        exp_text = m.group("e4").translate(_SUPER)
    exp = int(exp_text.replace("−", "-").replace(" ", "")) if exp_text else 0
    decimals = len(mant.split(".")[1]) if "." in mant else 0
    start = offset + m.start()
    end = offset + (m.start("unc") - 1 if m.group("unc") else m.end())
    return ReportNumber(
        text=tex[start:end].strip(),
        value=abs(float(mant) * 10.0**exp),
        tol=0.5 * 10.0 ** (exp - decimals),
        start=start,
        end=end,
        line=tex.count("\n", 0, start) + 1,
        integer="." not in mant and not exp_text,
    )


def _uncertainty_in_parens(m: re.Match[str], n: ReportNumber, offset: int) -> ReportNumber:
    """9.81(2), 6.96(13)e-34: the 2 (the 13) is in units of the last digit."""
    group = "unc" if m.group("unc") else "unc0"
    digits = m.group(group)
    step = n.tol * 2
    return ReportNumber(
        text=digits,
        value=int(digits) * step,
        tol=step / 2,
        start=offset + m.start(group),
        end=offset + m.end(group),
        line=n.line,
        role="uncertainty",
    )


def _is_index(text: str, start: int) -> bool:
    """A digit run that is an exponent or a subscript (x^2, T_{10}, s^{-1})."""
    before = text[max(0, start - 6) : start]
    return bool(re.search(r"[\^_]\s*\{?\s*[-−+]?\s*$", before))


def _unit_after(text: str, end: int) -> Unit | None:
    rest = text[end : end + 80]
    pos = re.match(r"(?:\s|~|\\[,;:! ]|\\thinspace|\$|\)|\\right\))*", rest).end()  # type: ignore[union-attr]
    r = rest[pos:]
    if re.match(r"\\%|\\percent|％|%|per\s?cent\b", r):
        return PERCENT
    if m := re.match(
        r"(?:\^\s*\{?\s*\\circ\s*\}?|°|\\degree\b|\\textdegree\b)\s*(\\mathrm\{C\}|C\b)?", r
    ):
        return parse_unit("°C" if m.group(1) else "°")
    if m := re.match(r"\\(?:mathrm|text|textrm|si|unit|mbox|rm)\s*\{", r):
        inner_end = _group_end(r, m.end() - 1)
        inner = r[m.end() : inner_end - 1]
        more = re.match(r"\s*(\^\s*\{?-?\d\}?|\$\^\{?-?\d\}?\$)", r[inner_end:])
        return parse_unit(inner + (more.group(1).replace("$", "") if more else ""))
    return _bare_unit(re.sub(r"\\[,;: ]|~", " ", r[:48].replace("$", "")).lstrip())


_UNIT_PIECE = re.compile(r"[A-Za-zµμΩ°]{1,4}(?:\^\s*(?:\{\s*[-−]?\d\s*\}|[-−]?\d)|[²³]|-\d)?")


def _bare_unit(r: str) -> Unit | None:
    """'m/s^2', 'm s^-2', 's^2/m', 'mm' at the start of r: the longest run that parses."""
    pieces: list[str] = []  # each with the separator before it
    start = pos = 0
    while len(pieces) < 4:
        m = _UNIT_PIECE.match(r, pos)
        if not m or (m.end() < len(r) and r[m.end()].isalpha()):
            break
        pieces.append(r[start : m.end()])
        sep = re.match(r"\s*/\s*|\s+", r[m.end() :])
        start, pos = m.end(), m.end() + (sep.end() if sep else 0)
    for k in range(len(pieces), 0, -1):
        unit = parse_unit("".join(pieces[:k]).replace("−", "-"))
        if unit is not None:
            return unit
    return None


def extract_numbers(tex: str) -> list[ReportNumber]:
    """The numbers of a report's body, with units, sentences and what is trivial."""
    return _parse(tex).numbers


def _parse(tex: str) -> _Report:
    masked = _Masked(tex)
    numbers: list[ReportNumber] = []
    # siunitx first: its arguments hold numbers and units that the plain scan must not see
    text = masked.text
    for m in _SIUNITX.finditer(text):
        numbers += _siunitx(m, text, tex)
        masked.blank(m.start(), _args_end(text, m.end(), 3 if "range" in m.group(1) else 2))
    text = masked.text
    for m in _TEX_NUMBER.finditer(text):
        if _skip_match(text, m):
            continue
        n = _number(m, 0, tex)
        n.unit = _unit_after(text, n.end)
        numbers.append(n)
        if m.group("unc") or m.group("unc0"):
            u = _uncertainty_in_parens(m, n, 0)
            u.unit = n.unit
            numbers.append(u)
    numbers.sort(key=lambda n: n.start)
    _pair_uncertainties(numbers, text)
    bounds, headers, rows = _structure(masked, numbers)
    report = _Report(tex, masked, numbers, bounds, headers, rows)
    for n in numbers:
        n.trivial = _trivial(n, text)
    return report


def _skip_match(text: str, m: re.Match[str]) -> bool:
    s = m.start()
    prev = text[s - 1] if s else " "
    if prev.isalpha() and re.search(r"\\[A-Za-z]+$", text[max(0, s - 12) : s]):
        pass  # right after a command: \pm0.05, \approx2.3
    elif prev.isalpha() or prev in "_.\\" or prev.isdigit():
        return True  # inside an identifier (t10, v2, H2O) or a longer token
    if re.match(r"\.\d", text[m.end() : m.end() + 2]):
        return True  # a version or a date: 1.2.3
    return _is_index(text, s)


def _siunitx(m: re.Match[str], text: str, tex: str) -> list[ReportNumber]:
    macro = m.group(1)
    args: list[tuple[int, int]] = []
    j = m.end()
    while len(args) < (3 if "range" in macro else 2 if macro not in ("num", "ang") else 1):
        k = _skip_ws(text, j)
        if k >= len(text) or text[k] != "{":
            break
        j = _group_end(text, k)
        args.append((k + 1, j - 1))
    if not args:
        return []
    unit = None
    if macro == "ang":
        unit = parse_unit("°")
    elif macro not in ("num", "numrange", "numlist") and len(args) >= 2:
        unit = parse_unit(text[args[-1][0] : args[-1][1]])
    spans = args[:2] if "range" in macro else args[:1]
    out: list[ReportNumber] = []
    for a, b in spans:
        inner = text[a:b].replace("+-", "±")
        for num in _TEX_NUMBER.finditer(inner):
            if _skip_match(inner, num):
                continue
            n = _number(num, a, tex)
            n.unit = unit
            if re.search(r"(?:±|\\pm)\s*$", inner[: num.start()]):
                n.role = "uncertainty"
            out.append(n)
            if num.group("unc") or num.group("unc0"):
                u = _uncertainty_in_parens(num, n, a)
                u.unit = unit
                out.append(u)
    return out


def _pair_uncertainties(numbers: list[ReportNumber], text: str) -> None:
    """'9.81 \\pm 0.05 m/s^2': the second is an uncertainty; both take the unit after it."""
    for a, b in zip(numbers, numbers[1:], strict=False):
        if _PM.match(text[a.end : b.start]):
            b.role = "uncertainty"
            if a.unit is None:
                a.unit = b.unit


def _trivial(n: ReportNumber, text: str) -> str | None:
    if n.role == "uncertainty":
        return None
    before = text[max(0, n.start - 24) : n.start]
    if _REF_WORDS.search(before):
        return "a figure, table, section or equation number"
    if n.value == 0:
        return "zero"
    if n.integer and n.value <= 10:
        return "a small integer"
    if n.integer and 1900 <= n.value <= 2100 and n.unit is None:
        return "a year"
    for c in _CONSTANTS:
        if abs(n.value - c) <= n.tol * (1 + 1e-9) and n.tol <= 0.05 * c:
            return "a common constant"
    return None
