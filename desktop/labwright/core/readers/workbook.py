"""Excel workbooks (.xlsx/.xlsm) as lines: every sheet, one row per line."""

from __future__ import annotations

import datetime as dt
import warnings
import zipfile
from pathlib import Path

from .cache import Converted
from .page import ReadError


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
    # One row must stay one line, so a cell's own line breaks and tabs become spaces.
    return " ".join(str(v).split()) if any(c in str(v) for c in "\t\r\n") else str(v).strip()


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


def convert_xlsx(path: Path) -> Converted:
    import openpyxl
    from openpyxl.utils.exceptions import InvalidFileException

    # A file object, because openpyxl refuses paths without an Excel extension.
    with open(path, "rb") as fh:
        try:
            with warnings.catch_warnings():
                # openpyxl warns about features it drops (data validation, slicers...);
                # irrelevant when only reading values.
                warnings.simplefilter("ignore", UserWarning)
                wb = openpyxl.load_workbook(fh, read_only=True, data_only=True)
        except (InvalidFileException, zipfile.BadZipFile, KeyError, ValueError, OSError) as e:
            raise ReadError(
                f"The workbook {path.name} is damaged or not a real .xlsx file ({e}); "
                "try another file or ask for a CSV export."
            ) from e
        try:
            lines, names = _sheet_lines(wb)
        finally:
            wb.close()
    note = f"Workbook with {len(names)} sheet{'s' if len(names) != 1 else ''}: {', '.join(names)}; cells are tab-separated, empty rows skipped."
    return Converted(
        lines, note, any(not x.startswith(("## Sheet:", "(empty sheet)")) for x in lines)
    )


def _sheet_lines(wb) -> tuple[list[str], list[str]]:
    lines: list[str] = []
    names: list[str] = []
    for ws in wb.worksheets:
        names.append(ws.title)
        rows: list[str] = []
        width = 0
        height = 0
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)
            for r, row in enumerate(ws.iter_rows(values_only=True), start=1):
                cells = [format_cell(v) for v in row]
                while cells and not cells[-1]:
                    cells.pop()
                if not cells:
                    continue  # empty rows carry nothing and cost a line each
                height = r
                width = max(width, len(cells))
                rows.append("\t".join(cells))
        lines.append(f"## Sheet: {ws.title} ({height} rows x {width} cols)")
        lines.extend(rows if rows else ["(empty sheet)"])
    return lines, names
