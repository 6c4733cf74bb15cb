"""Every number traceable: the report's numbers checked against the evidence.

A lab report lives or dies by its numbers, so after each draft the numbers of
the report's prose and tables are extracted (LaTeX-aware) and matched against
the numbers of the material that was read (evidence.py), deterministically:

* **matched** — the material has the value, allowing for rounding to the
  precision the report writes (|report − material| ≤ half a unit of the
  report's last digit), for unit prefixes (485 mm ↔ 0.485 m when the material
  states its unit; a stated unit that contradicts the report's — 0.485 cm for
  a column "Range, m" — is a mismatch), for percentages (12 % ↔ 0.12), and for
  statistics of the material's columns and repeated measurements (means,
  standard deviations, standard errors). A figure's printed output (a fit's
  slope) is evidence too, with the figure as its source.
* **derived** — the report shows how it got there and the arithmetic holds:
  a computation ("T = 20.16/10 = 2.016 s", \\frac, \\sqrt, powers, degrees),
  the mean / standard deviation / sum of values listed in the same sentence or
  table row, a ratio, difference or percentage discrepancy of two numbers of
  the same sentence, or the restatement of a number derived elsewhere. The
  rounding of every operand is propagated into the tolerance.
* **cited** — the sentence cites an outside source (not the material itself).
* **skipped** — trivial: integers up to 10, years, figure/table/section/
  equation numbers, common constants (g = 9.81, π, 0.5 ...).
* **unmatched** — none of the above: reported with the sentence around it and
  the closest value the material has.

`verify_report(tex, records)` is the engine; `verify_run(run_dir)` loads a run
directory and `write_numbers` stores numbers.json for the review pane.
"""

from __future__ import annotations

import ast
import bisect
import math
import operator
import re
import statistics
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .evidence import (
    PERCENT,
    EvidenceNumber,
    Source,
    Unit,
    evidence_numbers,
    header_unit,
    load_run_evidence,
    parse_unit,
)

__all__ = [
    "Check",
    "ReportNumber",
    "Verification",
    "extract_numbers",
    "verify_report",
    "verify_run",
    "write_numbers",
]

# -- what a number in the report is ------------------------------------------


@dataclass
class ReportNumber:
    text: str  # as written ("9.81", "1.2e-3", "485")
    value: float  # absolute value (signs are not checked: "-3.2" and "a drop of 3.2")
    tol: float  # half a unit of the last written digit
    start: int
    end: int
    line: int  # 1-based line in the .tex
    unit: Unit | None = None
    integer: bool = False  # written without a decimal point or exponent
    role: str = "value"  # "value" | "uncertainty"
    segment: int = 0  # sentence (or table row) index
    table: int | None = None
    row: int | None = None
    col: int | None = None
    trivial: str | None = None  # why it is not checked

    @property
    def percent(self) -> bool:
        return self.unit is not None and self.unit.is_percent


@dataclass
class Check:
    number: ReportNumber
    status: str  # matched | derived | cited | unmatched | skipped
    how: str = ""
    source: Source | None = None
    sentence: str = ""
    nearest: EvidenceNumber | None = None
    exact: float | None = None  # the derived value before rounding (restatements use it)

    def to_dict(self) -> dict[str, Any]:
        n = self.number
        d: dict[str, Any] = {
            "text": n.text,
            "value": n.value,
            "unit": n.unit.text if n.unit else None,
            "line": n.line,
            "status": self.status,
            "sentence": self.sentence,
        }
        if n.role != "value":
            d["role"] = n.role
        if self.how:
            d["how"] = self.how
        if self.source is not None:
            d["source"] = self.source.to_dict()
        if self.nearest is not None:
            d["nearest"] = {"text": self.nearest.text, **self.nearest.source.to_dict()}
        return d


@dataclass
class Verification:
    checks: list[Check] = field(default_factory=list)
    evidence_numbers: int = 0

    def by_status(self, *statuses: str) -> list[Check]:
        return [c for c in self.checks if c.status in statuses]

    @property
    def unmatched(self) -> list[Check]:
        return self.by_status("unmatched")

    @property
    def matched(self) -> list[Check]:
        return self.by_status("matched", "derived", "cited")

    @property
    def reason(self) -> str | None:
        """The degraded reason, when numbers could not be traced."""
        n = len(self.unmatched)
        if not n:
            return None
        return f"{n} number{'s' if n != 1 else ''} not found in the material"

    def summary(self) -> dict[str, Any]:
        """The short form for run.json: counts, and the open items with their sentences."""
        return {
            "checked": len(self.checks) - len(self.by_status("skipped")),
            "matched": len(self.matched),
            "unmatched": [
                {"text": c.number.text, "line": c.number.line, "sentence": c.sentence}
                for c in self.unmatched
            ],
            "file": "numbers.json",
        }

    def open_items(self) -> list[dict[str, Any]]:
        """Unmatched numbers as review-pane open items."""
        items = []
        for c in self.unmatched:
            near = ""
            if c.nearest is not None:
                near = (
                    f" (closest in the material: {c.nearest.text}, {c.nearest.source.describe()})"
                )
            items.append(
                {
                    "kind": "number_not_found",
                    "line": c.number.line,
                    "text": c.number.text,
                    "sentence": c.sentence,
                    "message": f"{_with_unit(c.number)} is not in the material that was read{near}.",
                }
            )
        return items

    def to_dict(self, report: str = "report.tex") -> dict[str, Any]:
        counts = {s: len(self.by_status(s)) for s in _STATUSES}
        counts["checked"] = len(self.checks) - counts["skipped"]
        return {
            "report": report,
            "evidence_numbers": self.evidence_numbers,
            "counts": counts,
            "unmatched": [c.to_dict() for c in self.unmatched],
            "matched": [c.to_dict() for c in self.matched],
            "skipped": [
                {"text": c.number.text, "line": c.number.line, "why": c.how}
                for c in self.by_status("skipped")
            ],
            "open_items": self.open_items(),
        }


_STATUSES = ("matched", "derived", "cited", "unmatched", "skipped")


def _with_unit(n: ReportNumber) -> str:
    if n.unit is None:
        return n.text
    return f"{n.text} %" if n.percent else f"{n.text} {n.unit.text}"


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
_BREAKS = re.compile(r"\\(?:(?:sub)*section|paragraph|chapter|item|caption|begin|end)\b|\n[ \t]*\n")
_SENTENCE_END = re.compile(r"(?<=[.!?。！？])\s+(?=[A-Z(\\\u4e00-\u9fff])|(?<=[。！？])")
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


# -- numbers in LaTeX ----------------------------------------------------------

_TEX_NUMBER = re.compile(
    r"(?P<mant>\d{1,3}(?:(?:,|\{,\}|\\,)\d{3})+(?:\.\d+)?(?!\d)|\d+(?:\.\d+)?|\.\d+)"
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
    r"[\s~(]*$",
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
    """9.81(2): the 2 is in units of the last digit."""
    digits = m.group("unc")
    step = n.tol * 2
    return ReportNumber(
        text=digits,
        value=int(digits) * step,
        tol=step / 2,
        start=offset + m.start("unc"),
        end=offset + m.end("unc"),
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


@dataclass
class _Report:
    """The parsed report: its numbers, sentences and tables."""

    tex: str
    masked: _Masked
    numbers: list[ReportNumber]
    bounds: list[int]  # sentence starts
    headers: dict[tuple[int, int], str]  # (table, column) -> header text
    row_text: dict[tuple[int, int], str]

    def segment_span(self, seg: int) -> tuple[int, int]:
        start = self.bounds[seg - 1] if seg > 0 else 0
        end = self.bounds[seg] if seg < len(self.bounds) else len(self.tex)
        return start, end

    def sentence(self, n: ReportNumber) -> str:
        if n.table is not None and n.row is not None:
            text = self.row_text.get((n.table, n.row), "")
            header = self.headers.get((n.table, n.col or 0))
            return f"table row: {text}" + (f" (column: {header})" if header else "")
        a, b = self.segment_span(n.segment)
        return _clip_around(readable(self.masked.display[a:b]), readable(self.tex[n.start : n.end]))


def _clip_around(text: str, needle: str, width: int = 320) -> str:
    if len(text) <= width:
        return text
    at = max(0, text.find(needle))
    a = max(0, at - width // 2)
    return ("…" if a else "") + text[a : a + width].strip() + "…"


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
        if m.group("unc"):
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
            if num.group("unc"):
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


def _structure(
    masked: _Masked, numbers: list[ReportNumber]
) -> tuple[list[int], dict[tuple[int, int], str], dict[tuple[int, int], str]]:
    """Sentence boundaries; table rows, columns and headers of the numbers in tables."""
    text = masked.text
    bounds = {m.start() for m in _BREAKS.finditer(masked.tex)}
    bounds |= {m.end() for m in _SENTENCE_END.finditer(text)}
    headers: dict[tuple[int, int], str] = {}
    rows_text: dict[tuple[int, int], str] = {}
    cells_of: list[tuple[int, int, int, int, int]] = []  # (start, end, table, row, col)
    for t, (a, b) in enumerate(masked.tables):
        body = text[a:b]
        row_start = a
        for r, row in enumerate(re.split(r"\\\\", body)):
            bounds.add(row_start)
            cell_start = row_start
            for c, cell in enumerate(re.split(r"(?<!\\)&", row)):
                cells_of.append((cell_start, cell_start + len(cell), t, r, c))
                cell_start += len(cell) + 1
            rows_text[(t, r)] = " | ".join(
                readable(masked.display[s:e]) for s, e, tt, rr, _ in cells_of if (tt, rr) == (t, r)
            )
            row_start += len(row) + 2
        bounds.add(b)
    starts = [c[0] for c in cells_of]
    ordered = sorted(bounds)
    for n in numbers:
        n.segment = bisect.bisect_right(ordered, n.start)
        i = bisect.bisect_right(starts, n.start) - 1
        if i >= 0 and cells_of[i][0] <= n.start < cells_of[i][1]:
            _, _, n.table, n.row, n.col = cells_of[i]
    _table_headers(masked, numbers, cells_of, headers)
    return ordered, headers, rows_text


def _table_headers(
    masked: _Masked,
    numbers: list[ReportNumber],
    cells_of: list[tuple[int, int, int, int, int]],
    headers: dict[tuple[int, int], str],
) -> None:
    """Header cells are the text rows above the first numeric row; their units apply below."""
    numeric_rows = {(n.table, n.row) for n in numbers if n.table is not None and not n.integer}
    first_numeric: dict[int, int] = {}
    for t, r in sorted(numeric_rows):  # type: ignore[type-var]
        first_numeric.setdefault(t, r)  # type: ignore[arg-type]
    for s, e, t, r, c in cells_of:
        if r < first_numeric.get(t, 10**9):
            cell = readable(masked.display[s:e])
            if cell:
                headers[(t, c)] = cell
    for n in numbers:
        if n.table is None or n.unit is not None:
            continue
        if n.row is not None and n.row >= first_numeric.get(n.table, 10**9):
            head = headers.get((n.table, n.col or 0))
            if head:
                n.unit = header_unit(head)


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


# -- the evidence, searchable by value ------------------------------------------


class _Index:
    def __init__(self, numbers: list[EvidenceNumber]) -> None:
        self.numbers = sorted(numbers, key=lambda e: e.value)
        self.values = [e.value for e in self.numbers]

    def between(self, lo: float, hi: float) -> list[EvidenceNumber]:
        lo, hi = min(lo, hi), max(lo, hi)
        a = bisect.bisect_left(self.values, lo * (1 - 1e-12))
        b = bisect.bisect_right(self.values, hi * (1 + 1e-12))
        return self.numbers[a:b]

    def nearest(self, value: float) -> EvidenceNumber | None:
        if not self.numbers or value <= 0:
            return None
        i = bisect.bisect_left(self.values, value)
        near = [e for e in self.numbers[max(0, i - 1) : i + 1] if e.value > 0]
        return min(near, key=lambda e: abs(math.log(e.value / value)), default=None)


_FRACTION_WORDS = re.compile(
    r"ratio|fraction|relative|efficien|percent|rate|proportion|error|discrepan|yield|share|%"
    r"|比|率|相对|误差",
    re.I,
)


def _unit_conflict(a: Unit | None, b: Unit | None) -> bool:
    """Both units stated and different (kind or prefix): not the same quantity."""
    if a is None or b is None:
        return False
    return a.dims != b.dims or not math.isclose(a.factor, b.factor)


def _same_dims(a: Unit | None, b: Unit | None) -> bool:
    return a is not None and b is not None and a.dims == b.dims and not a.is_percent


def _rank(n: ReportNumber, e: EvidenceNumber, how_rank: int) -> tuple[float, ...]:
    data_first = 0 if e.source.kind in ("csv", "tsv", "xlsx", "figure_output", "text") else 1
    # a value whose stated unit agrees beats one whose unit is unknown
    agrees = 0 if _same_dims(n.unit, e.unit) or n.percent and e.unit is PERCENT else 1
    return (agrees, how_rank, 1 if e.derived else 0, data_first, abs(e.value - n.value))


def match_evidence(n: ReportNumber, index: _Index) -> tuple[EvidenceNumber, str] | None:
    """The best evidence number for a report number, with how they correspond."""
    v, t = n.value, n.tol * (1 + 1e-9) + 1e-12 * n.value
    hits: list[tuple[tuple[float, ...], EvidenceNumber, str]] = []
    for e in index.between(v - t, v + t):  # the same value, as written or rounded
        if _unit_conflict(n.unit, e.unit):
            continue  # 0.485 cm where the material says 0.485 m: a wrong unit
        if e.derived and n.unit is not None and not _same_dims(n.unit, e.unit):
            continue  # a statistic of a column whose unit is unknown: too loose a match
        how = "as written" if e.value == v or e.text == n.text else "rounded"
        hits.append((_rank(n, e, 0 if how == "as written" else 1), e, how))
    if n.unit is not None and not n.percent:
        hits += _converted(n, index, v, t)
    if n.percent:  # 12 % of a fraction 0.12 the material calls a ratio, an error...
        for e in index.between((v - t) / 100, (v + t) / 100):
            if e.unit is None and _FRACTION_WORDS.search(e.source.excerpt):
                hits.append((_rank(n, e, 3), e, f"{n.text} % = {e.text}"))
    else:
        for e in index.between((v - t) * 100, (v + t) * 100):
            if e.unit is PERCENT:
                hits.append((_rank(n, e, 3), e, f"{n.text} = {e.text} %"))
    if n.unit is not None and not any(_same_dims(n.unit, e.unit) for _, e, _ in hits):
        # the material states this value's unit and it is not the report's (0.59 cm for a
        # range in m): a copy of the value without a unit does not make it right
        nearby = index.between(v - t, v + t)
        if any(_same_dims(n.unit, e.unit) for e in nearby):
            return None
    if not hits:
        return None
    _, e, how = min(hits, key=lambda h: h[0])
    if e.derived:
        how = f"{e.derived} of the material's values" + ("" if how == "as written" else f" ({how})")
    return e, how


def _converted(
    n: ReportNumber, index: _Index, v: float, t: float
) -> list[tuple[tuple[float, ...], EvidenceNumber, str]]:
    """The value in another unit of the same kind (485 mm for 0.485 m)."""
    assert n.unit is not None
    hits = []
    factors = {1e-9, 1e-6, 1e-3, 1e-2, 1e-1, 1.0, 1e3, 1e6, 60.0, 3600.0}
    for q in factors:
        scale = n.unit.factor / q
        if math.isclose(scale, 1.0):
            continue
        for e in index.between((v - t) * scale, (v + t) * scale):
            if e.unit is None:
                continue  # a conversion needs the material's unit: 0.0458 is not 45.8 g
            if not (_same_dims(n.unit, e.unit) and math.isclose(e.unit.factor, q)):
                continue
            unit = e.unit.text if e.unit else "(SI)"
            hits.append((_rank(n, e, 2), e, f"{n.text} {n.unit.text} = {e.text} {unit}"))
    return hits


# -- derivations shown in the report -------------------------------------------

_FUNCS: dict[str, Callable[[float], float]] = {
    "sqrt": math.sqrt, "abs": abs, "ln": math.log, "log": math.log10, "exp": math.exp,
    "sin": math.sin, "cos": math.cos, "tan": math.tan,
}  # fmt: skip
_OPS: dict[type, Callable[[float, float], float]] = {
    ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul,
    ast.Div: operator.truediv, ast.Pow: operator.pow,
}  # fmt: skip
_RELATION = re.compile(r"=|\\approx|≈|\\simeq|\\cong")
_EXPR_TOKEN = re.compile(
    r"(?P<num>\d+\.?\d*(?:[eE][-+]?\d+)?|\.\d+)|(?P<func>\\?(?:sqrt|sin|cos|tan|ln|log|exp)\b)"
    r"|(?P<pi>\\pi\b|π)|(?P<op>\*\*|[-+*/^])|(?P<lp>\()|(?P<rp>\))|(?P<bar>\|)"
    r"|(?P<word>\\?[A-Za-zµΩ]+)|(?P<other>\S)"
)


def _eval(node: ast.AST) -> float:
    if isinstance(node, ast.Expression):
        return _eval(node.body)
    if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)):
        return float(node.value)
    if isinstance(node, ast.Name) and node.id == "pi":
        return math.pi
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        v = _eval(node.operand)
        return -v if isinstance(node.op, ast.USub) else v
    if isinstance(node, ast.BinOp) and type(node.op) in _OPS:
        left, right = _eval(node.left), _eval(node.right)
        if isinstance(node.op, ast.Pow) and (abs(right) > 64 or abs(left) > 1e100):
            raise ValueError("power out of range")
        return _OPS[type(node.op)](left, right)
    if (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id in _FUNCS
        and len(node.args) == 1
    ):
        return _FUNCS[node.func.id](_eval(node.args[0]))
    raise ValueError("not arithmetic")


def _latex_to_plain_math(s: str) -> str:
    """A LaTeX expression as plain arithmetic text (units, spacing and markup removed)."""
    s = re.sub(r"\\(?:SI|qty)\s*\{([^{}]*)\}\s*\{[^{}]*\}", r"\1", s)
    s = re.sub(r"\\num\s*\{([^{}]*)\}", r"\1", s)
    s = re.sub(r"\\(?:mathrm|text|textrm|mbox|si|unit|operatorname)\s*\{[^{}]*\}", " ", s)
    while m := re.search(r"\\[dt]?frac\s*(?=\{)", s):
        a_end = _group_end(s, m.end())
        b_start = _skip_ws(s, a_end)
        if b_start >= len(s) or s[b_start] != "{":
            break
        b_end = _group_end(s, b_start)
        s = (
            s[: m.start()]
            + f"(({s[m.end() + 1 : a_end - 1]})/({s[b_start + 1 : b_end - 1]}))"
            + s[b_end:]
        )
    s = re.sub(r"(\d+(?:\.\d+)?)\s*(?:\^\s*\{?\s*\\circ\s*\}?|°|\\degree\b)", r"(\1*pi/180)", s)
    for a, b in ((r"\times", "*"), (r"\cdot", "*"), ("×", "*"), ("·", "*"), (r"\ast", "*"),
                 (r"\div", "/"), ("÷", "/"), ("−", "-"), ("–", "-"), (r"\lvert", "|"),
                 (r"\rvert", "|"), (r"\vert", "|"), ("{,}", ""), (r"\%", ""), ("%", "")):  # fmt: skip
        s = s.replace(a, b)
    s = re.sub(r"\\(?:left|right|[bB]igg?[lr]?)\b|\\[,;:! ]|\\q?quad\b|\\\\|[~$&]", " ", s)
    s = re.sub(r"(?<=\d)(?:\s*\{\s*\}\s*)(?=\d)", "", s)
    return s.replace("{", "(").replace("}", ")").replace("[", "(").replace("]", ")")


@dataclass
class _Tok:
    kind: str
    text: str
    value: float = 0.0
    tol: float = 0.0


def _tokens(expr: str) -> list[_Tok]:
    toks: list[_Tok] = []
    for m in _EXPR_TOKEN.finditer(expr):
        kind = m.lastgroup or "other"
        text = m.group(0)
        if kind == "num":
            decimals = len(text.split(".")[1].split("e")[0].split("E")[0]) if "." in text else None
            # integer literals (counts, exponents, 10 in 20.16/10) are exact
            tol = 0.0 if decimals is None else 0.5 * 10.0**-decimals
            if "e" in text.lower() and decimals is not None:
                tol *= 10.0 ** int(re.split("[eE]", text)[1])
            toks.append(_Tok("num", text, float(text), tol))
        elif kind == "word" and toks and toks[-1].kind == "num" and parse_unit(text.lstrip("\\")):
            continue  # a unit after a number ("20.16 s / 10")
        elif kind == "word" and text.lstrip("\\") == "pi":
            toks.append(_Tok("pi", "pi"))
        else:
            toks.append(_Tok(kind, text.lstrip("\\") if kind == "func" else text))
    return toks


def _python(toks: Sequence[_Tok], values: Sequence[float] | None = None) -> str:
    out: list[str] = []
    bars = 0
    prev = None
    k = 0
    for tok in toks:
        atom_start = tok.kind in ("num", "pi", "func", "lp") or (
            tok.kind == "bar" and bars % 2 == 0
        )
        if prev in ("num", "pi", "rp", "barclose") and atom_start:
            out.append("*")  # implicit multiplication: 4\pi^2, 2(3)
        if tok.kind == "num":
            out.append(repr(values[k] if values is not None else tok.value))
            k += 1
            prev = "num"
        elif tok.kind == "bar":
            bars += 1
            out.append("abs(" if bars % 2 else ")")
            prev = "lp" if bars % 2 else "barclose"
        elif tok.kind == "op":
            out.append("**" if tok.text in ("^", "**") else tok.text)
            prev = "op"
        else:
            out.append("pi" if tok.kind == "pi" else tok.text)
            prev = tok.kind
    return " ".join(out)


def _evaluate(toks: Sequence[_Tok]) -> tuple[float, float] | None:
    """(value, rounding slack) of an arithmetic token run, or None if it is not one."""
    nums = [t for t in toks if t.kind == "num"]
    try:
        value = _eval(ast.parse(_python(toks), mode="eval"))
        slack = 0.0
        for i, t in enumerate(nums):
            if t.tol:
                bumped = [x.value + (t.tol if j == i else 0.0) for j, x in enumerate(nums)]
                slack += abs(_eval(ast.parse(_python(toks, bumped), mode="eval")) - value)
    except (SyntaxError, ValueError, ZeroDivisionError, OverflowError, TypeError):
        return None
    if not math.isfinite(value):
        return None
    return value, slack


def _arithmetic_suffix(piece: str) -> tuple[str, float, float] | None:
    """The longest arithmetic expression that ends the piece (what stands left of '=')."""
    toks = _tokens(_latex_to_plain_math(piece))
    start = len(toks)
    while start > 0 and toks[start - 1].kind not in ("word", "other"):
        start -= 1
    run = toks[start:]
    for i in range(len(run)):
        cand = run[i:]
        if not cand or cand[0].kind in ("op", "rp") and cand[0].text not in ("-",):
            continue
        operations = sum(t.kind in ("op", "func", "pi", "bar") for t in cand)
        if operations == 0 or sum(t.kind == "num" for t in cand) == 0:
            continue
        result = _evaluate(cand)
        if result is not None:
            return " ".join(t.text for t in cand), *result
    return None


def _computation(n: ReportNumber, report: _Report) -> tuple[str, float] | None:
    """'T = 20.16/10 = 2.016 s': the number right after '=' and the arithmetic before it."""
    text = report.masked.text
    a, _ = report.segment_span(n.segment)
    if n.table is not None:  # a table cell: the computation is inside the cell
        a = max(a, text.rfind("&", a, n.start) + 1)
    head = text[a : n.start]
    rels = list(_RELATION.finditer(head))
    if not rels or not re.fullmatch(r"[\s${(&]*|[\s$]*\\left\(", head[rels[-1].end() :]):
        return None
    piece_start = rels[-2].end() if len(rels) >= 2 else 0
    piece = head[piece_start : rels[-1].start()]
    found = _arithmetic_suffix(piece)
    if found is None:
        return None
    expr, value, slack = found
    if abs(abs(value) - n.value) <= n.tol * (1 + 1e-9) + slack + 1e-12 * n.value:
        return f"computation shown: {readable(expr)} = {value:.6g}", abs(value)
    return None


_MEAN_WORDS = re.compile(r"mean|average|avg|\\bar|\\overline|平均|mittel", re.I)
_SPREAD_WORDS = re.compile(
    r"deviation|std|\\sigma|σ|uncertaint|error|spread|\\pm|±|标准差|误差", re.I
)
_SUM_WORDS = re.compile(r"\bsum\b|total|plus|combined|总", re.I)
_DIFF_WORDS = re.compile(
    r"discrepan|differ|deviat|error|agree|relative|off by|compar|less than|more than|"
    r"higher|lower|increase|decrease|change|偏差|误差|相对|差",
    re.I,
)
_RATIO_WORDS = re.compile(r"ratio|times|factor|divided|fraction|relative|proportion|比", re.I)


def _stats_ops(words: str, role: str) -> dict[str, Callable[[list[float]], float]]:
    ops: dict[str, Callable[[list[float]], float]] = {}
    if _MEAN_WORDS.search(words):
        ops["mean"] = statistics.fmean
    if _SPREAD_WORDS.search(words) or role == "uncertainty":
        ops["standard deviation"] = statistics.stdev
        ops["standard error"] = lambda xs: statistics.stdev(xs) / math.sqrt(len(xs))
        ops["half the range"] = lambda xs: (max(xs) - min(xs)) / 2
    if _SUM_WORDS.search(words):
        ops["sum"] = math.fsum
    return ops


def _within(n: ReportNumber, f: Callable[[list[float]], float], ops: list[ReportNumber]) -> bool:
    vals = [o.value for o in ops]
    try:
        value = f(vals)
        slack = sum(
            abs(f([v + (o.tol if j == i else 0.0) for j, v in enumerate(vals)]) - value)
            for i, o in enumerate(ops)
        )
    except (ValueError, ZeroDivisionError, statistics.StatisticsError, OverflowError):
        return False
    return abs(abs(value) - n.value) <= n.tol * (1 + 1e-9) + slack + 1e-12 * n.value


def _runs(items: list[ReportNumber]) -> list[list[ReportNumber]]:
    return [items[i:j] for i in range(len(items)) for j in range(i + 2, len(items) + 1)]


def _window(n: ReportNumber, report: _Report) -> tuple[list[list[ReportNumber]], str]:
    """The numbers a derivation of n may use (by sentence or table line), and the words."""
    nums = [x for x in report.numbers if x is not n]
    text = report.masked.text
    if n.table is not None:
        row = [x for x in nums if (x.table, x.row) == (n.table, n.row)]
        before = [x for x in row if x.col is not None and n.col is not None and x.col < n.col]
        after = [x for x in row if x.col is not None and n.col is not None and x.col > n.col]
        column = [
            x for x in nums if (x.table, x.col) == (n.table, n.col) and (x.row or 0) < (n.row or 0)
        ]
        label = report.row_text.get((n.table, n.row or 0), "").split("|")[0]
        words = report.headers.get((n.table, n.col or 0), "") + " " + label
        lists = [before[-k:] for k in range(2, len(before) + 1)] + [
            after[:k] for k in range(2, len(after) + 1)
        ]
        lists += [column[-k:] for k in range(2, len(column) + 1)]
        return lists + [row], words
    same = [x for x in nums if x.segment == n.segment and x.table is None]
    prev = [x for x in nums if x.segment == n.segment - 1 and x.table is None]
    a, b = report.segment_span(n.segment)
    words = text[a:b]
    return _runs(same) + [prev + same], words


def _operand(x: ReportNumber, checks: dict[int, Check]) -> bool:
    """A number a derivation may start from: traced itself, or a common constant."""
    c = checks.get(id(x))
    if c is None or x.role != "value":
        return False
    return c.status in ("matched", "derived") or c.how == "a common constant"


def _compatible(a: ReportNumber, b: ReportNumber) -> bool:
    return a.unit is None or b.unit is None or a.unit.dims == b.unit.dims


def _pairs(
    n: ReportNumber, pool: list[ReportNumber], words: str, checks: dict[int, Check]
) -> str | None:
    tests: list[tuple[str, Callable[[list[float]], float]]] = []
    if n.percent or _DIFF_WORDS.search(words):
        tests += [
            ("percentage discrepancy |{a} − {b}|/{b}", lambda x: abs(x[0] - x[1]) / x[1] * 100),
            ("relative difference |{a} − {b}|/{b}", lambda x: abs(x[0] - x[1]) / x[1]),
        ]
    if _DIFF_WORDS.search(words):
        tests.append(("difference {a} − {b}", lambda x: x[0] - x[1]))
    if _RATIO_WORDS.search(words) or n.percent:
        tests += [("ratio {a}/{b}", lambda x: x[0] / x[1])]
        if n.percent:
            tests.append(("percentage {a}/{b}", lambda x: x[0] / x[1] * 100))
    if _SUM_WORDS.search(words):
        tests.append(("sum {a} + {b}", lambda x: x[0] + x[1]))
    pool = [x for x in pool if _operand(x, checks)]
    for a in pool:
        for b in pool:
            if a is b or not _compatible(a, b):
                continue
            # an accepted constant (9.81) is the reference: the denominator, never the value
            constant_first = checks[id(a)].status == "skipped" and checks[id(b)].status != "skipped"
            for how, f in tests:
                if constant_first and "/" in how:
                    continue
                if _within(n, f, [a, b]):
                    return how.format(a=a.text, b=b.text)
    return None


def _derivation(
    n: ReportNumber, report: _Report, checks: dict[int, Check]
) -> tuple[str, float | None] | None:
    found = _computation(n, report)
    if found:
        return found
    lists, words = _window(n, report)
    ops = _stats_ops(words, n.role)
    for values in lists if ops else []:
        values = [x for x in values if _operand(x, checks)]
        if len(values) < 2:
            continue
        for name, f in ops.items():
            if _within(n, f, values):
                return f"{name} of {', '.join(x.text for x in values)}", None
    pool = [x for values in lists[-1:] for x in values]
    how = _pairs(n, pool, words, checks)
    if how:
        return how, None
    for other in checks.values():  # the restatement of a value derived elsewhere
        if (
            other.status == "derived"
            and other.exact is not None
            and other.number is not n
            and abs(other.exact - n.value) <= n.tol * (1 + 1e-9)
        ):
            return f"same as the value derived on line {other.number.line}", other.exact
    return None


_NICE: dict[str, float] = {"": 1.0, "π": math.pi, "2π": 2 * math.pi, "4π²": 4 * math.pi**2,
                           "g": 9.81, "2g": 2 * 9.81, "1/2": 0.5}  # fmt: skip
for _k in (2, 3, 4, 5, 6, 8, 10, 20, 50, 100, 1000):
    _NICE.setdefault(str(_k), float(_k))
    _NICE[f"1/{_k}"] = 1 / _k
_NICE |= {"1/(2π)": 1 / (2 * math.pi), "1/(4π²)": 1 / (4 * math.pi**2), "1/g": 1 / 9.81,
          "1/(2g)": 1 / (2 * 9.81), "2/g": 2 / 9.81}  # fmt: skip
_POWERS = {1: "", 2: "²", -1: "⁻¹", -2: "⁻²", 0.5: "^½"}


def _column_formulas(report: _Report, checks: dict[int, Check]) -> None:
    """A table column computed from other columns (T = t̄/10, g = 4π²L/T²): accepted when
    one formula holds on at least two rows and two thirds of the rows, so a single
    invented cell breaks it for its own row only."""
    cells: dict[int, dict[int, dict[int, ReportNumber]]] = {}
    for n in report.numbers:
        if n.table is not None and n.row is not None and n.col is not None and n.role == "value":
            cells.setdefault(n.table, {}).setdefault(n.row, {}).setdefault(n.col, n)
    for t, rows in cells.items():
        cols = sorted({c for row in rows.values() for c in row})
        for j in cols:
            open_rows = [
                r
                for r, row in rows.items()
                if j in row and checks[id(row[j])].status == "unmatched"
            ]
            if open_rows:
                _fit_column(report, checks, t, rows, cols, j)


def _candidates(cols: list[int], j: int) -> Iterable[tuple[tuple[int, float], ...]]:
    others = [c for c in cols if c != j]
    for a in others:
        for p in _POWERS:
            yield ((a, p),)
    for a in others:
        for b in others:
            if a != b:
                for p in (1, 2, -1):
                    for q in (1, -1, -2, 2):
                        yield ((a, p), (b, q))


def _fit_column(
    report: _Report,
    checks: dict[int, Check],
    t: int,
    rows: dict[int, dict[int, ReportNumber]],
    cols: list[int],
    j: int,
) -> None:
    for terms in _candidates(cols, j):
        usable = [r for r, row in rows.items() if j in row and all(c in row for c, _ in terms)]
        if len(usable) < 2:
            continue
        preds = {}
        for r in usable:
            try:
                preds[r] = math.prod(rows[r][c].value ** p for c, p in terms)
            except (ZeroDivisionError, OverflowError, ValueError):
                break
        if len(preds) < len(usable) or not all(preds.values()):
            continue
        ratio = statistics.median(rows[r][j].value / preds[r] for r in usable)
        name = next((k for k, v in _NICE.items() if abs(ratio / v - 1) < 0.02), None)
        if name is None:
            continue
        k = _NICE[name]
        good = []
        for r in usable:
            target = rows[r][j]
            rel = sum(abs(p) * rows[r][c].tol / rows[r][c].value for c, p in terms)
            if abs(target.value - k * preds[r]) <= target.tol * (1 + 1e-9) + k * preds[r] * rel:
                good.append(r)
        if len(good) >= 2 and len(good) * 3 >= len(usable) * 2:
            head = report.headers.get
            formula = f"{name}·" if name else ""
            formula += "·".join(f"[{head((t, c), f'col {c + 1}')}]{_POWERS[p]}" for c, p in terms)
            for r in good:
                c = checks[id(rows[r][j])]
                if c.status == "unmatched":
                    c.status, c.how, c.exact = "derived", f"column formula: {formula}", k * preds[r]
            return


def _cited(n: ReportNumber, report: _Report) -> str | None:
    a, b = report.segment_span(n.segment)
    keys = re.findall(r"\\cite[a-zA-Z]*\*?(?:\[[^\]]*\])*\{([^{}]*)\}", report.tex[a:b])
    outside = [
        k.strip() for group in keys for k in group.split(",") if not k.strip().startswith("mat:")
    ]
    return ", ".join(outside) if outside else None


# -- the check -------------------------------------------------------------------


def verify_report(
    tex: str, records: Iterable[dict[str, Any]], folder: Path | None = None
) -> Verification:
    """Check every number of the report against the evidence records (see the module doc)."""
    report = _parse(tex)
    ev = evidence_numbers(records, folder)
    index = _Index(ev)
    checks: dict[int, Check] = {}  # by id() of the report number
    for n in report.numbers:
        sentence = report.sentence(n)
        if n.trivial:
            checks[id(n)] = Check(n, "skipped", n.trivial, sentence=sentence)
            continue
        hit = match_evidence(n, index)
        if hit:
            checks[id(n)] = Check(n, "matched", hit[1], hit[0].source, sentence)
        else:
            checks[id(n)] = Check(n, "unmatched", sentence=sentence)
    _column_formulas(report, checks)
    for _ in range(2):  # derived values may restate other derived values
        for n in report.numbers:
            c = checks[id(n)]
            if c.status != "unmatched":
                continue
            found = _derivation(n, report, checks)
            if found:
                c.status, c.how, c.exact = "derived", found[0], found[1]
                if c.exact is None:
                    c.exact = n.value
    for c in checks.values():
        if c.status == "unmatched":
            keys = _cited(c.number, report)
            if keys:
                c.status, c.how = "cited", f"cited: {keys}"
            else:
                c.nearest = _nearest(c.number, index)
    return Verification([checks[id(n)] for n in report.numbers], len(ev))


def _nearest(n: ReportNumber, index: _Index) -> EvidenceNumber | None:
    base = n.value * (n.unit.factor if n.unit and not n.percent else 1.0)
    cands = [e for e in (index.nearest(n.value), index.nearest(base)) if e is not None]
    if n.percent:
        cands += [e for e in (index.nearest(n.value / 100),) if e is not None]
    return min(cands, key=lambda e: abs(math.log(e.value / n.value)), default=None)


def run_folder(run_dir: Path) -> Path | None:
    """The material folder a run read (for workbook cell names), from its run.json."""
    import json

    try:
        meta = json.loads((run_dir / "run.json").read_text(encoding="utf-8"))
        folder = Path(meta["config"]["folder"])
    except (OSError, ValueError, KeyError, TypeError):
        return None
    return folder if folder.is_dir() else None


def verify_run(run_dir: Path, tex: str | None = None) -> Verification:
    """The check of a run directory's report.tex (or `tex`) against its evidence."""
    if tex is None:
        tex = (run_dir / "report.tex").read_text(encoding="utf-8")
    return verify_report(tex, load_run_evidence(run_dir), run_folder(run_dir))


def write_numbers(run_dir: Path, verification: Verification, report: str = "report.tex") -> Path:
    from .runstore import atomic_write_json

    path = run_dir / "numbers.json"
    atomic_write_json(path, verification.to_dict(report))
    return path
