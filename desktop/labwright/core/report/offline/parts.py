"""Which part of the manual each table and figure belongs to, and the tables not worth showing.

A table goes to the part it names or whose words it shares: a sheet or title
"PART B", "exp2", "Experiment 2", "2. 霍尔" names the second part (by its
letter or number, else its place among the parts); otherwise the words of its
file and sheet names, its title and headers are weighed against each part's
title and requirements, words that several parts share counting less ("12 kΩ"
and "Q" point to "Part B: The Q Factor", 并联 to "4.2 测 RLC 并联电路…"). A
tie or too little in common leaves it unplaced: the skeleton shows it under
"Other data", before the discussion. A table between two of one part, in the
same sheet, is of that part too.

Tables not shown: one with no data rows (nothing but the set points filled in,
or no number at all), and one whose rows repeat another's (a copy in a second
workbook); each gets a line under "Left out".
"""

from __future__ import annotations

import math
import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import PurePosixPath

from labwright.core.material.tables import Series, Table
from labwright.core.report.offline.formatting import format_value
from labwright.core.report.offline.requirements import ManualTasks

Item = Table | Series

MIN_SCORE = 1.0  # weighed words a table must share with a part to be placed there
MIN_REPEAT_ROWS = 5  # a copy of fewer rows may be a coincidence


def item_key(item: Item) -> str:
    """Which table or series a figure plots, as the figures stage records it."""
    if isinstance(item, Series):
        return f"series:{item.pattern}"
    # Tables side by side share their rows: the first column tells them apart.
    column = item.col_numbers[0] if item.col_numbers else 0
    return f"table:{item.source}|{item.sheet or ''}|{item.first_row}|{column}"


# --------------------------------------------------------------------------
# Tables not worth showing
# --------------------------------------------------------------------------


@dataclass(frozen=True)
class Dropped:
    """A table left out, and why (the skeleton words the line in the report's language)."""

    index: int
    why: str  # "empty" or "repeat"
    like: int | None = None  # the item it repeats
    cell: tuple[str, str, str] | None = None  # (column, kept value, dropped value) that differ


def drop_repeats(items: Sequence[Item]) -> list[Dropped]:
    """The tables to leave out: no data rows, or the same rows as an earlier table."""
    out: list[Dropped] = []
    kept: list[int] = []
    for i, item in enumerate(items):
        if isinstance(item, Series):
            continue
        if _empty(item):
            out.append(Dropped(i, "empty"))
            continue
        for j in kept:
            other = items[j]
            assert isinstance(other, Table)
            copy, cell = _one_cell_apart(other, item)
            if copy:
                out.append(Dropped(i, "repeat", j, cell))
                break
        else:
            kept.append(i)
    return out


def _empty(table: Table) -> bool:
    """No data: no number in any row, or only the set points of a template filled in."""
    if table.template:
        return True
    return not any(v is not None for row in table.rows for v in row)


def _one_cell_apart(kept: Table, table: Table) -> tuple[bool, tuple[str, str, str] | None]:
    """(is it a copy of `kept`, the one cell that differs: column, kept value, this value).

    A copy may have one cell retyped (a formula gone wrong): still a copy, said so."""
    if len(kept.rows) != len(table.rows) or len(table.rows) < MIN_REPEAT_ROWS:
        return False, None
    if kept.omitted_rows != table.omitted_rows:
        return False, None
    diff: list[tuple[int, float | None, float | None]] = []
    for a, b in zip(kept.rows, table.rows, strict=True):
        if len(a) != len(b):
            return False, None
        for j, (x, y) in enumerate(zip(a, b, strict=True)):
            if not _same(x, y):
                diff.append((j, x, y))
                if len(diff) > 1:
                    return False, None
    if not diff:
        return True, None
    j, x, y = diff[0]
    column = table.columns[j] if j < len(table.columns) else f"col {j + 1}"
    return True, (column, _shown(x), _shown(y))


def _same(x: float | None, y: float | None) -> bool:
    if x is None or y is None:
        return x is y
    return math.isclose(x, y, rel_tol=1e-9, abs_tol=1e-12)


def _shown(v: float | None) -> str:
    return "—" if v is None else format_value(v, None)


# --------------------------------------------------------------------------
# Parts
# --------------------------------------------------------------------------

_LETTER = {c: i + 1 for i, c in enumerate("ABCDEFGHIJKLMNOP")}
_ROMAN = {"I": 1, "II": 2, "III": 3, "IV": 4, "V": 5, "VI": 6, "VII": 7, "VIII": 8}
_HANZI = {c: i + 1 for i, c in enumerate("一二三四五六七八九十")}

_PART_LABEL = re.compile(
    r"^(?:part|section|experiment|exercise|activity|investigation)\s+([A-Z]|\d{1,2}|[IVX]{1,4})\b"
    r"|^实验([一二三四五六七八九十])|^[（(]([一二三四五六七八九十])[)）]",
    re.IGNORECASE,
)
# What names a part in a sheet, a title or a file name.
_TABLE_LABEL = re.compile(
    r"\bpart\s*[-_]?\s*([A-H]|\d{1,2})\b|\b(?:exp(?:eriment)?|ex|lab|task|section|trial)\s*[-_.]?\s*(\d{1,2})\b"
    r"|实验([一二三四五六七八九十])|^\s*(\d{1,2})\s*[.、．]",
    re.IGNORECASE,
)
_GENERIC_SHEET = re.compile(r"^(?:sheet|工作表|sheet\s*\d+|表\d*)$", re.IGNORECASE)


def part_number(part: str, position: int) -> int:
    """The part's own letter or number ("Part B" → 2, "实验三" → 3); else its place."""
    m = _PART_LABEL.match(part)
    if not m:
        return position
    label = next(g for g in m.groups() if g)
    if label.upper() in _LETTER and label.upper() not in _ROMAN:
        return _LETTER[label.upper()]
    if label.upper() in _ROMAN:
        return _ROMAN[label.upper()]
    if label in _HANZI:
        return _HANZI[label]
    return int(label)


def _label_number(text: str, *, lone_letter: bool = False) -> int | None:
    text = text.strip()
    if lone_letter and re.fullmatch(r"[A-H]", text):
        return _LETTER[text]
    m = _TABLE_LABEL.search(text)
    if not m:
        return None
    label = next(g for g in m.groups() if g)
    if label.upper() in _LETTER:
        return _LETTER[label.upper()]
    if label in _HANZI:
        return _HANZI[label]
    return int(label)


def table_number(item: Item) -> int | None:
    """The part a table names: its title's words first, then its sheet, then its file."""
    table = item.first if isinstance(item, Series) else item
    context = table.title.partition(" — ")[2]
    for piece in re.split(r"[;；]", context):
        n = _label_number(piece, lone_letter=True)
        if n is not None:
            return n
    sheet = (table.sheet or "").strip()
    if sheet and not _GENERIC_SHEET.match(sheet):
        n = _label_number(sheet)
        if n is not None:
            return n
    return _label_number(PurePosixPath(table.source).stem)


_STOP = frozenset(
    [
        "a",
        "an",
        "and",
        "are",
        "as",
        "at",
        "be",
        "by",
        "each",
        "for",
        "from",
        "graph",
        "in",
        "into",
        "is",
        "it",
        "its",
        "of",
        "on",
        "or",
        "plot",
        "the",
        "this",
        "to",
        "value",
        "values",
        "vs",
        "versus",
        "with",
        "obtained",
        "obtain",
        "using",
        "use",
        "data",
        "table",
        "sheet",
        "row",
        "rows",
        "col",
        "column",
        "line",
        "lines",
        "part",
        "experiment",
        "determine",
        "compare",
        "from",
        "theory",
        "theoretical",
        "xlsx",
        "csv",
        "txt",
    ]
) | {"实验", "数据", "测量", "记录"}
# A number with its unit ("12 kΩ", "2100pF", "0.5 H") is one word: it names a setting.
_TOKEN = re.compile(
    r"\d+(?:\.\d+)?\s*(?:[kMmµμnpc]?(?:Ω|ohm|hz|h|f|v|a|s|g|m|w)|mm|cm|nm)(?![A-Za-z])"
    r"|[A-Za-z][A-Za-z]+|[A-Z]",
    re.IGNORECASE,
)
_CJK_RUN = re.compile(r"[\u3400-\u9fff]+")


def _tokens(text: str) -> set[str]:
    """Words (and numbers with their unit, "12kω"), and ideograph pairs of Chinese runs."""
    text = unicodedata.normalize("NFKC", text)  # the ohm sign is an omega
    out = set()
    for m in _TOKEN.finditer(text):
        token = re.sub(r"\s+", "", m.group()).casefold()
        if token not in _STOP:
            out.add(token)
    for run in _CJK_RUN.findall(text):
        out.update(pair for i in range(len(run) - 1) if (pair := run[i : i + 2]) not in _STOP)
    return out


def _item_tokens(item: Item, *, whole_file: bool) -> set[str]:
    """The words of a table. Its file's name speaks for it only when the file holds
    nothing else ("RLC 暂态 … .txt"): "alternating current excel.xlsx" names the
    experiment, not one of its parts."""
    table = item.first if isinstance(item, Series) else item
    context = table.title.partition(" — ")[2]
    names = [table.sheet or "", context, *table.columns]
    if whole_file:
        names.append(PurePosixPath(table.source).stem)
    if isinstance(item, Series):
        names.append(item.pattern)
    names += _settings(table)
    return set().union(*(_tokens(n) for n in names))


MAX_SETTINGS = 3  # a column with more distinct values is a reading, not a setting


def _settings(table: Table) -> list[str]:
    """The settings a column holds, as the manual writes them ("12 kΩ", "8 kΩ"): blocks
    stacked into one table (R = "12kΩ" down its first rows, then "8kΩ") name their part
    by them. A column of few values, each repeated, is a setting; more is a reading."""
    out = []
    for k in range(len(table.columns)):
        unit = table.units[k] if k < len(table.units) else None
        numbers = {v for row in table.rows if k < len(row) and (v := row[k]) is not None}
        texts = {row[k] for row in table.labels if k < len(row) and row[k]}
        values = [f"{v:g} {unit}" for v in sorted(numbers)] if unit else []
        values += sorted(str(t) for t in texts)
        if 0 < len(values) <= MAX_SETTINGS and len(table.rows) > len(values):
            out += values
    return out


@dataclass
class _Part:
    name: str
    number: int
    title: set[str]
    words: set[str]


def _profiles(manual: ManualTasks) -> list[_Part]:
    out = []
    for k, part in enumerate(manual.parts, start=1):
        title = _tokens(re.sub(r"^(?:part|section|experiment)\s+\w+\s*[:.]?", "", part, flags=re.I))
        words = set(title).union(
            _tokens(manual.part_text.get(part, "")),
            *(_tokens(r.text) for r in manual.requirements if r.part == part),
        )
        out.append(_Part(part, part_number(part, k), title, words))
    return out


def place(items: Sequence[Item], manual: ManualTasks) -> dict[int, str]:
    """Item index → the part it belongs to, for the items that fit one."""
    if not manual.parts:
        return {}
    profiles = _profiles(manual)
    per_file: dict[str, int] = {}
    for item in items:
        source = _table(item).source
        per_file[source] = per_file.get(source, 0) + 1
    numbers = {p.number for p in profiles}
    df = _parts_with(profiles)
    placed: dict[int, str] = {}
    for i, item in enumerate(items):
        named = table_number(item)
        if named is not None and named in numbers:
            placed[i] = next(p.name for p in profiles if p.number == named)
            continue
        source = _table(item).source
        best = _best(_item_tokens(item, whole_file=per_file[source] == 1), profiles, df)
        if best is not None:
            placed[i] = best
    _between(items, placed, manual.parts)
    return placed


def _parts_with(profiles: list[_Part]) -> dict[str, int]:
    """For each word, how many parts have it: one all parts share tells none apart."""
    df: dict[str, int] = {}
    for p in profiles:
        for w in p.words:
            df[w] = df.get(w, 0) + 1
    return df


def _best(tokens: set[str], profiles: list[_Part], df: dict[str, int]) -> str | None:
    n = len(profiles)
    scores = []
    for p in profiles:
        score = 0.0
        for w in tokens & p.words:
            weight = math.log((n + 1) / df[w])
            score += weight * (2 if w in p.title else 1)
        scores.append((score, p.name))
    scores.sort(reverse=True)
    top, name = scores[0]
    second = scores[1][0] if len(scores) > 1 else 0.0
    if top < MIN_SCORE or top - second < 0.25 * top:
        return None  # too little in common, or as much with another part
    return name


def _between(items: Sequence[Item], placed: dict[int, str], parts: list[str]) -> None:
    """Unplaced tables placed by their neighbours in the same sheet, whose order is the
    manual's: one between two tables of a part is of that part; one right under a
    table (its summary row: "average std dev") is of that table's part; the one just
    before the second part's first table, at the top of the sheet, is of the first part."""

    def sheet_of(i: int) -> tuple[str, str]:
        table = _table(items[i])
        return (table.source, table.sheet or "")

    for i in range(len(items)):
        if i in placed:
            continue
        here = sheet_of(i)
        same = [j for j in range(len(items)) if j != i and sheet_of(j) == here]
        before = [j for j in same if j < i]
        after = [j for j in same if j > i]
        prev = before[-1] if before else None
        nxt = after[0] if after else None
        if (
            prev in placed
            and nxt in placed
            and placed[prev] == placed[nxt]
            or prev in placed
            and 0 <= _table(items[i]).first_row - _table(items[prev]).last_row <= 2
        ):
            placed[i] = placed[prev]
        elif prev is None and nxt in placed and parts.index(placed[nxt]) == 1:
            placed[i] = parts[0]


def _table(item: Item) -> Table:
    return item.first if isinstance(item, Series) else item


def place_text(text: str, manual: ManualTasks) -> str:
    """The part a figure's caption names or shares its words with; "" when none."""
    if not manual.parts or not text:
        return ""
    profiles = _profiles(manual)
    m = _TABLE_LABEL.search(text)
    if m:
        named = _label_number(m.group())
        hit = [p.name for p in profiles if p.number == named]
        if hit:
            return hit[0]
    return _best(_tokens(text), profiles, _parts_with(profiles)) or ""
