"""Values the student stated beside the tables: "Voperating 1010 v", "a=2.0375, b=-0.09675".

Read from the cells in no table (and the titles above tables), in these forms:

* an assignment in one cell or line: "L=791.2mm，e=±2.0mm" (two), "Q = 72.48/(72.63−72.38)
  = 283.1" (the value after the last "=", the expression kept in the text);
* a name, then its value in the next cell of the row, then perhaps its unit:
  "Vstrarting | 780 | v", "R | 10kΩ", "φ(mm)= | 4";
* a name ending in "=" or ":" (or a symbol such as "c"), and under it its value with a
  unit: "并联电路谐振频率f=_" over "2.2472 KHZ", "c" over "5.50 V".

Never from an instrument's commented settings ("#Sample rate: 40000Hz") nor from the
header of a record sheet (姓名, 学号, 成绩评定 …): those are left out as metadata.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from labwright.core.material.tables.cells import Cell, Row, Written
from labwright.core.material.tables.roles import is_unit, parse_header
from labwright.core.material.tables.summary import cell_words, is_summary_label

MAX_NAME = 40

# The header of a paper record sheet: who, where, when, the grade.
RECORD_LABEL = re.compile(
    r"^(?:实验名称|实验名|地点|实验地点|学生姓名|姓名|学号|班级|分班分组座号|座号|组号|实验日期_?|日期|成绩评定|成绩"
    r"|教师签字|教师签名|指导教师|助教|学生|同组者|name|student(?: name| id| number)?|id|date"
    r"|instructor|signature|lab partners?|partner|group|section|grade)\s*[:：_]*\s*$",
    re.I,
)

_NUMBER = r"[-+−]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+−]?\d+)?"
_VALUE = re.compile(rf"^\s*(±|\+/-|\+-)?\s*({_NUMBER})\s*(.*?)\s*$")
_SEPARATORS = re.compile(r"[;；]|[,，、](?=\s*[^\d\s.])")
_EQUALS = re.compile(r"\s*[=＝]\s*")
_LABEL_END = re.compile(r"\s*(?:[=＝:：]\s*_*|_+)\s*$")
_SYMBOL = re.compile(r"^[A-Za-zΑ-Ωα-ωµ][A-Za-z0-9_Α-Ωα-ω]{0,2}$")
# How units are typed in a hurry ("KHZ", "khz", "5.52v"): the unit they mean.
_UNIT_FIXES = {
    "hz": "Hz", "khz": "kHz", "mhz": "MHz", "v": "V", "mv": "mV", "kv": "kV", "a": "A",
    "ma": "mA", "ua": "µA", "μa": "µA", "ω": "Ω", "kω": "kΩ", "ohm": "Ω",
    "kohm": "kΩ", "mm": "mm", "cm": "cm", "us": "µs",
    "nm": "nm", "pf": "pF", "nf": "nF", "uf": "µF", "μf": "µF",
}  # fmt: skip


@dataclass(frozen=True)
class Stated:
    """A stated value found in a grid, before the file and sheet are known."""

    first: tuple[int, int]  # (row, column) of the first cell
    last: tuple[int, int]
    name: str
    value: float
    unit: str | None
    written: str
    text: str


def fix_unit(text: str) -> str | None:
    """The unit `text` states, as it is written or as a hurried hand means it, else None."""
    t = text.strip().rstrip(".。;；,，")
    if not t:
        return None
    fixed = _UNIT_FIXES.get(t.casefold())
    if fixed is not None:
        return fixed  # "KHz", "KHZ": kHz (not kelvin times hertz); "5.52v": V
    return t if is_unit(t) else None


def _number(text: str) -> float:
    return float(text.replace("−", "-"))


def _value(text: str, *, need_unit: bool = False) -> tuple[float, str, str | None] | None:
    """(value, as written, unit) of "791.2mm", "±2.0mm", "2.2472 KHZ", "1410工"; None when
    the text is no value ("1-04-5号", "备.2")."""
    m = _VALUE.match(text)
    if not m:
        return None
    sign, number, rest = m.group(1), m.group(2), m.group(3)
    unit = fix_unit(rest) if rest else None
    if rest and unit is None:
        first = rest.split()[0]
        if re.match(r"[-\d.]", rest) or (len(rest) > 3 and fix_unit(first) is None):
            return None  # more numbers or words after it: not one value
        unit = fix_unit(first)
    if need_unit and unit is None:
        return None
    written = (sign or "") + number.replace("−", "-")
    return _number(number), written, unit


def _name(text: str) -> tuple[str, str | None] | None:
    """A name as written before "=" ("Voperating", "钼丝长度L"), and the unit in it
    ("φ(mm)": φ, mm); None when it is no name."""
    name = _LABEL_END.sub("", " ".join(text.split())).strip(" ,，:：")
    if not name or len(name) > MAX_NAME or name.startswith("#"):
        return None
    if not re.search(r"[^\W\d_]", name) or RECORD_LABEL.match(name) or is_summary_label(name):
        return None
    header = parse_header(name)
    return (header.name, header.unit) if header.unit else (name, None)


def in_text(text: str) -> list[tuple[str, float, str, str | None]]:
    """(name, value, as written, unit) of each assignment in a cell or line."""
    out = []
    for segment in _SEPARATORS.split(text):
        if not re.search(r"[=＝]", segment):
            continue
        parts = _EQUALS.split(segment.strip())
        named = _name(parts[0]) if len(parts) >= 2 else None
        value = _value(parts[-1]) if named else None
        if named is None or value is None:
            continue
        name, name_unit = named
        out.append((name, value[0], value[1], value[2] or name_unit))
    return out


def _text(cell: Cell) -> str | None:
    if isinstance(cell, Written):
        return cell.text
    if isinstance(cell, float):
        return None
    return cell_words(cell)


def stated_in_grid(
    by_number: dict[int, Row], cells: Iterable[tuple[int, int]], *, text_file: bool = False
) -> tuple[list[Stated], list[tuple[int, int]]]:
    """The stated values among `cells` (those in no table, and titles), and the cells of a
    record sheet's header among them (left out as metadata, never read as values)."""
    free = set(cells)

    def at(r: int, c: int) -> Cell:
        row = by_number.get(r)
        return row.cells[c] if (r, c) in free and row is not None and c < len(row.cells) else None

    record = _record_cells(free, at)
    taken: set[tuple[int, int]] = set(record)
    out: list[Stated] = []
    if text_file:
        for r in sorted({r for r, _ in free}):
            cols = sorted(c for rr, c in free if rr == r)
            line = " ".join(t for c in cols if (t := _text(at(r, c)) or _plain(at(r, c))))
            if line.lstrip().startswith("#"):
                continue
            for name, value, written, unit in in_text(line):
                out.append(Stated((r, cols[0]), (r, cols[-1]), name, value, unit, written, line))
        return out, record
    for r, c in sorted(free):
        if (r, c) in taken:
            continue
        text = _text(at(r, c))
        if text is None or isinstance(at(r, c), Written):
            continue
        if cell_words(at(r, c - 1)) == text:
            continue  # a merged cell's text, spread over the range: read once, at its start
        found = in_text(text)
        for name, value, written, unit in found:
            out.append(Stated((r, c), (r, c), name, value, unit, written, text))
        if found:
            taken.add((r, c))
            continue
        pair = _beside(r, c, text, at) or _under(r, c, text, at)
        if pair is not None:
            stated, used = pair
            out.append(stated)
            taken.update(used)
    return out, record


def _plain(cell: Cell) -> str | None:
    return None if cell is None else (cell if isinstance(cell, str) else f"{cell:g}")


def _beside(r: int, c: int, text: str, at) -> tuple[Stated, list[tuple[int, int]]] | None:  # type: ignore[no-untyped-def]
    """ "Vstrarting | 780 | v", "R | 10kΩ", "φ(mm)= | 4": the name, its value right of it."""
    named = _name(text)
    if named is None:
        return None
    name, name_unit = named
    cell = at(r, c + 1)
    if isinstance(cell, float):
        written = cell.text if isinstance(cell, Written) else f"{cell:g}"
        value, unit, last = float(cell), None, c + 1
        after = at(r, c + 2)
        if isinstance(after, str) and (u := fix_unit(after)) is not None:
            unit, last = u, c + 2
    elif isinstance(cell, str) and (parsed := _value(cell)) is not None:
        value, written, unit = parsed
        last = c + 1
    else:
        return None
    unit = unit or name_unit
    shown = " ".join(_plain(at(r, k)) or "" for k in range(c, last + 1)).strip()
    used = [(r, k) for k in range(c, last + 1)]
    return Stated((r, c), (r, last), name, value, unit, written, shown), used


def _under(r: int, c: int, text: str, at) -> tuple[Stated, list[tuple[int, int]]] | None:  # type: ignore[no-untyped-def]
    """ "并联电路谐振频率f=_" over "2.2472 KHZ"; a symbol ("c", "L") over "5.50 V"."""
    symbol = bool(_SYMBOL.match(text))
    if not (_LABEL_END.search(text) or symbol):
        return None
    named = _name(text)
    below = at(r + 1, c)
    if named is None or below is None:
        return None
    if isinstance(below, float):
        if symbol:
            return None  # a bare number under a letter says no unit: too little to go on
        value, written, unit = float(below), _plain(below) or "", None
    else:
        parsed = _value(str(below), need_unit=symbol)
        if parsed is None:
            return None
        value, written, unit = parsed
    name, name_unit = named
    shown = f"{text} {_plain(below)}"
    return Stated((r, c), (r + 1, c), name, value, unit or name_unit, written, shown), [
        (r, c),
        (r + 1, c),
    ]


def _record_cells(free: set[tuple[int, int]], at) -> list[tuple[int, int]]:  # type: ignore[no-untyped-def]
    """A record sheet's header labels (学生姓名, 学号 …) and the cell each fills in."""
    labels = [
        (r, c)
        for r, c in sorted(free)
        if (t := _text(at(r, c))) and RECORD_LABEL.match(t) and cell_words(at(r, c - 1)) != t
    ]
    if len(labels) < 2:
        return []
    out = list(labels)
    for r, c in labels:
        for cell in ((r, c + 1), (r + 1, c)):
            value = at(*cell)
            if value is None or cell_words(value) == _text(at(r, c)):
                continue  # the label's own merged cell
            if not (isinstance(value, str) and RECORD_LABEL.match(" ".join(value.split()))):
                out.append(cell)
            break
    return sorted(set(out))


def cell_span(cells: Sequence[tuple[int, int]]) -> tuple[int, int, int, int]:
    rows = [r for r, _ in cells]
    cols = [c for _, c in cells]
    return min(rows), min(cols), max(rows), max(cols)
