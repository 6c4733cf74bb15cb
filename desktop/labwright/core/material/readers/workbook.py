"""Excel workbooks (.xlsx/.xlsm) as lines: every sheet, one row per line."""

from __future__ import annotations

import datetime as dt
import warnings
import zipfile
from typing import TYPE_CHECKING, BinaryIO

from labwright.core.material.readers.cache import Converted
from labwright.core.material.readers.page import (
    MAX_CELL_CHARS,
    Budget,
    LineMap,
    ReadError,
    clip,
    human_size,
)
from labwright.core.material.readers.source import Opened

if TYPE_CHECKING:
    from openpyxl.workbook.workbook import Workbook
    from openpyxl.worksheet.worksheet import Worksheet


def format_cell(v: object) -> str:
    if v is None:
        return ""
    if isinstance(v, bool):
        return "TRUE" if v else "FALSE"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        return format_float(v)
    if isinstance(v, dt.datetime):
        if v.time() == dt.time(0):
            return v.date().isoformat()
        return v.isoformat(sep=" ")
    if isinstance(v, (dt.date, dt.time)):
        return v.isoformat()
    if isinstance(v, dt.timedelta):
        return str(v)
    # Clip first: the cell may be one 20 MB shared string reused by every row,
    # and each copy below would cost its full size.
    text = clip(str(v))
    # One row must stay one line, so a cell's own line breaks and tabs become spaces.
    return " ".join(text.split()) if any(c in text for c in "\t\r\n") else text.strip()


def format_float(v: float) -> str:
    """The shortest faithful form, without binary floating-point noise.

    Excel keeps 15 significant digits; values like 0.30000000000000004 are
    artefacts of arithmetic, shown as 0.3 there. A repr that needs 16-17
    digits is kept only when 15 digits would lose a real digit.
    """
    if v != v or v in (float("inf"), float("-inf")):
        return str(v)
    if v.is_integer() and abs(v) < 1e15:
        return str(int(v))
    r = repr(v)
    g15 = format(v, ".15g")
    if float(g15) == v:
        return g15 if len(g15) <= len(r) else r
    digits = len(g15.split("e")[0].replace("-", "").replace(".", "").lstrip("0"))
    return g15 if digits <= 12 else r


# Bounds of one conversion. A 2.3 MB file can hold 15 M rows; the model pages
# 200 lines at a time, so what lies past these caps is counted, not read.
MAX_LINES = 100_000  # rows kept, over all sheets
MAX_ROWS_SCANNED = 500_000  # rows looked at, empty ones included
MAX_TEXT_CHARS = 32 * 1024 * 1024  # characters kept, over all sheets
# openpyxl loads the whole shared-string table; a few KB of zip can unpack to GBs.
MAX_SHARED_STRINGS_BYTES = 128 * 1024 * 1024


def check_unpacked_size(fh: BinaryIO, name: str) -> None:
    """Refuse a workbook whose shared strings unpack to more than the cap.

    Python's zipfile never inflates a member past its declared size, so the
    declared size is a real bound, not a hint.
    """
    try:
        with zipfile.ZipFile(fh) as z:
            for info in z.infolist():
                if info.filename.lower().endswith("sharedstrings.xml") and (
                    info.file_size > MAX_SHARED_STRINGS_BYTES
                ):
                    raise ReadError(
                        f"The workbook {name} holds {human_size(info.file_size)} of text once "
                        f"unpacked, more than the {human_size(MAX_SHARED_STRINGS_BYTES)} this "
                        "reader accepts; ask for a CSV export."
                    )
    except zipfile.BadZipFile:
        pass  # openpyxl says it better below
    finally:
        fh.seek(0)


def convert_xlsx(src: Opened, budget: Budget | None = None) -> Converted:
    import openpyxl
    from openpyxl.utils.exceptions import InvalidFileException

    budget = budget or Budget()
    with src.stream() as fh:
        check_unpacked_size(fh, src.name)
        try:
            with warnings.catch_warnings():
                # openpyxl warns about features it drops (data validation, slicers...);
                # irrelevant when only reading values.
                warnings.simplefilter("ignore", UserWarning)
                wb = openpyxl.load_workbook(fh, read_only=True, data_only=True)
        except (InvalidFileException, zipfile.BadZipFile, KeyError, ValueError, OSError) as e:
            raise ReadError(
                f"The workbook {src.name} is damaged or not a real .xlsx file ({e}); "
                "try another file or ask for a CSV export."
            ) from e
        try:
            doc, names, cut = _sheet_lines(wb, budget)
        finally:
            wb.close()
    note = f"Workbook with {len(names)} sheet{'s' if len(names) != 1 else ''}: {', '.join(names)}; cells are tab-separated, empty rows skipped."
    if cut:
        note += f" {cut}"
    return Converted.of(doc, note, any(not s.marker for s in doc.spans))


def sheet_heading(title: str, size: str) -> str:
    """The line before a sheet's rows: its name and what was read of it."""
    return f"## Sheet: {title} ({size})"


def _declared_rows(ws: Worksheet) -> int | None:
    try:
        return int(ws.max_row) if ws.max_row else None
    except (TypeError, ValueError):  # no or a broken <dimension>
        return None


def _sheet_lines(wb: Workbook, budget: Budget) -> tuple[LineMap, list[str], str]:
    """Every sheet's rows as lines, within the caps; the third value says what was cut."""
    doc = LineMap()
    names: list[str] = []
    cut = ""
    clipped = 0
    chars = 0
    scanned = 0
    for ws in wb.worksheets:
        names.append(ws.title)
        if cut:
            doc.add(
                sheet_heading(ws.title, "not read: reading stopped before it"),
                marker=True,
                sheet=ws.title,
            )
            continue
        rows: list[tuple[int, str]] = []
        width = 0
        height = 0
        sheet_cut = ""
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)
            for r, row in enumerate(ws.iter_rows(values_only=True), start=1):
                scanned += 1
                if budget.check():
                    sheet_cut = f"time limit ({budget.seconds:g} s)"
                elif len(doc) + len(rows) >= MAX_LINES:
                    sheet_cut = f"{MAX_LINES:,} rows"
                elif scanned > MAX_ROWS_SCANNED:
                    sheet_cut = f"{MAX_ROWS_SCANNED:,} rows scanned"
                elif chars > MAX_TEXT_CHARS:
                    sheet_cut = f"{MAX_TEXT_CHARS // 1024**2} M characters"
                if sheet_cut:
                    height = r - 1
                    break
                cells = [format_cell(v) for v in row]
                while cells and not cells[-1]:
                    cells.pop()
                if not cells:
                    continue  # empty rows carry nothing and cost a line each
                clipped += sum(1 for v in row if isinstance(v, str) and len(v) > MAX_CELL_CHARS)
                height = r
                width = max(width, len(cells))
                line = "\t".join(cells)
                chars += len(line)
                rows.append((r, line))
        if sheet_cut:
            declared = _declared_rows(ws)
            of = f" of about {declared:,}" if declared and declared > height else ""
            size = f"first {height:,}{of} rows x {width} cols; cut"
            cut = (
                f"Reading stopped at the {sheet_cut} limit in sheet '{ws.title}' after row "
                f"{height:,}{of}: later rows and sheets are not shown."
            )
        else:
            size = f"{height} rows x {width} cols"
        doc.add(sheet_heading(ws.title, size), marker=True, sheet=ws.title)
        for r, line in rows:
            doc.add(line, sheet=ws.title, row=r)
        if not rows:
            doc.add("(empty sheet)", marker=True, sheet=ws.title)
    if clipped:
        cut = f"{cut} {clipped:,} cells longer than {MAX_CELL_CHARS:,} characters are cut.".strip()
    return doc, names, cut
