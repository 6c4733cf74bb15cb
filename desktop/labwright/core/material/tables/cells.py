"""Files as rows of cells: sheets of a workbook, lines of a delimited or aligned text file.

A cell is a number (float), a text (str) or empty (None). Rows come one at a
time, with their 1-based sheet row or file line, so a file of any length is
read in bounded memory; rows with nothing in them are not yielded (their
number is skipped). A number from a text file remembers how it was written
("0.200" keeps its precision).
"""

from __future__ import annotations

import codecs
import csv
import io
import math
import re
import warnings
import zipfile
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import BinaryIO

import numpy as np

from labwright.core.material.readers.delimited import sniff_delimiter
from labwright.core.material.readers.encoding import Encoding
from labwright.core.material.readers.page import clip
from labwright.core.material.readers.source import Opened
from labwright.core.material.readers.workbook import check_unpacked_size

Cell = float | str | None

# A merged range bigger than this is decoration (a banner over the sheet), not a header.
MAX_MERGE_CELLS = 400
MAX_MERGE_XML_BYTES = 32 * 1024 * 1024
_SAMPLE_LINES = 200


class Written(float):
    """A number from a text file that remembers how it was written."""

    text: str


def written(value: float, text: str) -> Written:
    number = Written(value)
    number.text = text
    return number


@dataclass(frozen=True)
class Row:
    number: int  # 1-based sheet row / file line
    cells: Sequence[Cell]


@dataclass
class Source:
    """The rows of one sheet or file, and how to turn a raw field into a number fast."""

    sheet: str | None
    rows: Iterator[Row]


_NUMBER = re.compile(r"[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?")
# Cells that say "no value here" inside a column of numbers: the row is still data.
MISSING = frozenset(
    ("", "-", "--", "—", "–", "?", "n/a", "na", "nan", "none", "null", "#n/a", "#div/0!",
     "#value!", "#ref!", "#num!", "#name?", "inf", "-inf", "x")
)  # fmt: skip


def parse_number(text: str, *, decimal_comma: bool) -> float | None:
    text = text.strip().replace("\u2212", "-")  # a typographic minus
    if decimal_comma and text.count(",") == 1 and "." not in text:
        text = text.replace(",", ".")
    if not _NUMBER.fullmatch(text):
        return None
    value = float(text)
    return value if math.isfinite(value) else None


def is_missing(cell: Cell) -> bool:
    return cell is None or (isinstance(cell, str) and cell.strip().casefold() in MISSING)


# --------------------------------------------------------------------------
# Workbooks
# --------------------------------------------------------------------------


def xlsx_sources(src: Opened) -> Iterator[Source]:
    import openpyxl

    with src.stream() as fh:
        check_unpacked_size(fh, src.name)  # a shared-string bomb is refused, not inflated
        merges = _merged_ranges(fh)
        # openpyxl warns about workbook features it drops when reading (data
        # validation, conditional formats...): irrelevant to values, so silenced here only.
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)
            wb = openpyxl.load_workbook(fh, read_only=True, data_only=True)
        try:
            for index, ws in enumerate(wb.worksheets):
                # Saved dimensions are often wrong (too small): read what is really there.
                ws.reset_dimensions()
                yield Source(ws.title, _sheet_rows(ws, merges.get(index, [])))
        finally:
            wb.close()


def _sheet_rows(ws: object, merges: list[tuple[int, int, int, int]]) -> Iterator[Row]:
    # A merged cell holds its value in the top-left cell only; a header merged
    # over three columns names all three, so the value is spread over the range.
    spread: dict[tuple[int, int], int] = {}
    for r1, c1, r2, c2 in merges:
        for r in range(r1, r2 + 1):
            for c in range(c1, c2 + 1):
                if (r, c) != (r1, c1):
                    spread[(r, c)] = 0
    held: dict[tuple[int, int], Cell] = {}
    origins = {(r1, c1): (r2, c2) for r1, c1, r2, c2 in merges}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        for number, values in enumerate(ws.iter_rows(values_only=True), start=1):  # type: ignore[attr-defined]
            cells = [xlsx_cell(v) for v in values]
            if spread or origins:
                for c, cell in enumerate(cells):
                    end = origins.get((number, c))
                    if end is not None and cell is not None:
                        for r in range(number, end[0] + 1):
                            for cc in range(c, end[1] + 1):
                                held[(r, cc)] = cell
                for (r, c), cell in list(held.items()):
                    if r == number:
                        while len(cells) <= c:
                            cells.append(None)
                        if cells[c] is None:
                            cells[c] = cell
                        del held[(r, c)]
            if any(c is not None for c in cells):
                yield Row(number, cells)


def xlsx_cell(value: object) -> Cell:
    if value is None:
        return None
    if isinstance(value, bool):  # a bool is an int to Python, not a measurement
        return "TRUE" if value else "FALSE"
    if isinstance(value, (int, float)):
        return float(value) if math.isfinite(value) else None
    # Clipped first: one huge shared string may fill every cell of the sheet.
    text = " ".join(clip(str(value)).split())
    if not text:
        return None
    number = parse_number(text, decimal_comma=False)
    # A number typed as text ("0.190", OCR'd sheets) keeps its digits, as in a text file.
    return text if number is None else written(number, text)


_MERGE = re.compile(rb'<(?:\w+:)?mergeCell\b[^>]*\bref="([A-Z]+)(\d+):([A-Z]+)(\d+)"')


def _letters(col: bytes) -> int:
    return column_index(col.decode())


def column_index(letters: str) -> int:
    """A sheet column's index from its letters (A: 0, AA: 26)."""
    n = 0
    for ch in letters:
        n = n * 26 + ord(ch) - 64
    return n - 1


def _merged_ranges(fh: BinaryIO) -> dict[int, list[tuple[int, int, int, int]]]:
    """Merged ranges per sheet index: (first row, first col, last row, last col), cols from 0.

    openpyxl's read-only mode does not expose them, so they are read from the
    sheet XML directly (the <mergeCell> elements), sheets in workbook order.
    """
    out: dict[int, list[tuple[int, int, int, int]]] = {}
    try:
        with zipfile.ZipFile(fh) as z:
            workbook = z.read("xl/workbook.xml")
            rels = z.read("xl/_rels/workbook.xml.rels")
            targets = dict(
                re.findall(rb'<Relationship\b[^>]*\bId="([^"]+)"[^>]*\bTarget="([^"]+)"', rels)
            )
            targets |= {
                k: v
                for v, k in re.findall(
                    rb'<Relationship\b[^>]*\bTarget="([^"]+)"[^>]*\bId="([^"]+)"', rels
                )
            }
            sheets = re.findall(rb"<(?:\w+:)?sheet\b[^>]*\br:id=\"([^\"]+)\"", workbook)
            names = set(z.namelist())
            for index, rid in enumerate(sheets):
                target = targets.get(rid, b"").decode().lstrip("/")
                member = target if target.startswith("xl/") else f"xl/{target}"
                if member not in names or z.getinfo(member).file_size > MAX_MERGE_XML_BYTES:
                    continue
                found = []
                for m in _MERGE.finditer(z.read(member)):
                    r1, r2 = int(m.group(2)), int(m.group(4))
                    c1, c2 = _letters(m.group(1)), _letters(m.group(3))
                    if (r2 - r1 + 1) * (c2 - c1 + 1) <= MAX_MERGE_CELLS:
                        found.append((r1, c1, r2, c2))
                if found:
                    out[index] = found
    except (OSError, KeyError, zipfile.BadZipFile, ValueError):
        return {}
    finally:
        fh.seek(0)
    return out


# --------------------------------------------------------------------------
# Text files
# --------------------------------------------------------------------------


@dataclass(frozen=True)
class TextLayout:
    delimiter: str | None  # None: whitespace-aligned columns
    decimal_comma: bool


def text_layout(src: Opened, enc: Encoding) -> TextLayout:
    lines = _head_lines(src, enc)
    found = sniff_delimiter(src, enc)
    delimiter = found[0] if found is not None else _numeric_delimiter(lines)
    # With ";" or tab as the delimiter, "1,25" is a decimal comma (European exports).
    return TextLayout(delimiter, delimiter not in (None, ","))


def _head_lines(src: Opened, enc: Encoding) -> list[str]:
    lines = []
    with _open_text(src, enc) as f:
        for line in f:
            if line.strip():
                lines.append(line.rstrip("\r\n"))
                if len(lines) >= _SAMPLE_LINES:
                    break
    return lines


def _open_text(src: Opened, enc: Encoding) -> io.TextIOWrapper:
    raw = src.stream()
    raw.seek(enc.bom_len)
    codec = codecs.lookup(enc.codec).name
    # newline=None: "\r\n", "\r" and "\n" all end a line, as the readers count them.
    return io.TextIOWrapper(raw, encoding=codec, errors="replace", newline=None)


def text_rows(src: Opened, enc: Encoding, layout: TextLayout, start: int = 1) -> Iterator[Row]:
    convert = text_cell_parser(layout.decimal_comma)
    with _open_text(src, enc) as f:
        for number, line in enumerate(f, start=1):
            if number < start or not line.strip():
                continue
            cells = [convert(field) for field in split_line(line.rstrip("\n"), layout.delimiter)]
            if any(c is not None for c in cells):
                yield Row(number, cells)


def text_cell_parser(decimal_comma: bool) -> Callable[[str], Cell]:
    def convert(field: str) -> Cell:
        text = field.strip()
        if text[:1] == '"':
            text = text.strip('"').strip()
        if not text:
            return None
        # The common case first: float() is fast and right for plain numbers; the
        # regex only confirms the forms float() also accepts but a table does not mean
        # as numbers ("nan", "1_000", "infinity").
        try:
            value = float(text)
        except ValueError:
            number = parse_number(text, decimal_comma=decimal_comma)
            return text if number is None else written(number, text)
        if math.isfinite(value) and "_" not in text and text.isascii():
            return written(value, text)
        return text

    return convert


def _numeric_delimiter(lines: list[str]) -> str | None:
    """The delimiter that splits the most numbers out of the lines, or None (whitespace).

    The readers' sniffer wants most lines to have one field count, which a few
    metadata lines above a short table defeat; here only the numbers count.
    """
    best: tuple[int, str] | None = None
    for delimiter in ("\t", ";", ",", "|"):
        convert = text_cell_parser(delimiter != ",")
        score = 0
        for line in lines:
            cells = [convert(f) for f in split_line(line, delimiter)]
            numbers = sum(1 for c in cells if isinstance(c, float))
            texts = sum(1 for c in cells if isinstance(c, str))
            if numbers >= 2:
                score += numbers - texts
        if score > 0 and (best is None or score > best[0]):
            best = (score, delimiter)
    return best[1] if best is not None else None


def split_line(line: str, delimiter: str | None) -> list[str]:
    if delimiter is not None:
        if '"' not in line:
            return line.split(delimiter)
        return next(csv.reader([line], delimiter=delimiter), [])
    # Whitespace-aligned columns (instrument .dat/.txt). Numbers split on any
    # run of blanks; a header like "time (s)   voltage (V)" only on tabs or
    # two or more spaces, so a name with a space stays one column.
    plain = line.split()
    if len(plain) >= 2 and all(parse_number(p, decimal_comma=False) is not None for p in plain):
        return plain
    wide = [p for p in re.split(r"\t|\s{2,}", line.strip()) if p]
    return wide if len(wide) >= 2 else plain


BULK_CHUNK = 1 << 16


def bulk_numbers(
    src: Opened,
    enc: Encoding,
    layout: TextLayout,
    start: int,
    cols: list[int],
    span: tuple[int, int],
) -> Iterator[tuple[int, np.ndarray, bool]]:
    """A numeric table's rows from line `start` on, read by pandas in blocks.

    Yields (first line, block of the table's columns, stopped): a block ends
    where a line does not fit the table (a blank line, words in its columns,
    cells beside it); then `stopped` is True and the next line is that one.
    Raises ValueError when pandas cannot parse the text (the caller reads on
    line by line).
    """
    import pandas as pd  # type: ignore[import-untyped]  # pandas ships no type hints

    if enc.unit != 1:
        raise ValueError("bulk reading needs an ASCII-compatible encoding")
    width = span[1] + 1
    codec = "utf-8-sig" if enc.bom_len and enc.codec.startswith("utf") else enc.codec
    stream = src.stream()
    reader = pd.read_csv(
        stream,
        sep=layout.delimiter if layout.delimiter is not None else r"\s+",
        header=None,
        names=list(range(width + 1)),
        skiprows=start - 1,
        skip_blank_lines=False,
        chunksize=BULK_CHUNK,
        encoding=codec,
        encoding_errors="replace",
        decimal="," if layout.decimal_comma else ".",
        quotechar='"',
        na_filter=True,
        low_memory=False,
        engine="c",
    )
    line = start
    with stream, reader:
        for frame in reader:
            k = len(frame)
            bad = np.zeros(k, dtype=bool)
            others = [c for c in frame.columns if c not in cols]
            for c in others:
                bad |= frame[c].notna().to_numpy()
            numbers = np.empty((k, len(cols)), dtype=float)
            for i, c in enumerate(cols):
                column = frame[c]
                if column.dtype.kind in "fiu":
                    numbers[:, i] = column.to_numpy(dtype=float)
                    continue
                coerced = pd.to_numeric(column, errors="coerce")
                words = column.notna() & coerced.isna()
                if words.any():
                    texts = column[words].astype(str).str.strip().str.casefold()
                    words[words] = ~texts.isin(MISSING)
                bad |= words.to_numpy()
                numbers[:, i] = coerced.to_numpy(dtype=float)
            bad |= np.isnan(numbers).all(axis=1)
            stop = int(np.argmax(bad)) if bad.any() else k
            yield line, numbers[:stop], stop < k
            if stop < k:
                return
            line += k
