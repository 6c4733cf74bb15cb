"""read_page: sniff the file, pick the reader, return one page."""

from __future__ import annotations

import errno
import functools
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from labwright.core.material.fence import NotRegularFile, Opened, open_by_name
from labwright.core.material.readers import cache
from labwright.core.material.readers.cache import Converted
from labwright.core.material.readers.delimited import delimited_note, sniff_delimiter
from labwright.core.material.readers.describe import describe_image, describe_sniffed
from labwright.core.material.readers.mathematica import convert_nb
from labwright.core.material.readers.notebooks import convert_ipynb
from labwright.core.material.readers.page import (
    DEFAULT_MAX_CHARS,
    DEFAULT_TIME_S,
    Budget,
    Page,
    ReadError,
    Span,
    check_window,
    page_of_lines,
    past_end_note,
)
from labwright.core.material.readers.pdf import convert_pdf
from labwright.core.material.readers.sniff import Sniffed, sniff
from labwright.core.material.readers.source import Lru
from labwright.core.material.readers.text import read_text_page
from labwright.core.material.readers.word import convert_docx
from labwright.core.material.readers.workbook import convert_xlsx

_CONVERTERS = {
    "xlsx": convert_xlsx,
    "docx": convert_docx,
    "pdf": convert_pdf,
    "ipynb": convert_ipynb,
    "mathematica": convert_nb,
}

# Extensions that hold tables often enough to check for a delimiter.
_MAYBE_TABLE = {"", ".dat", ".txt", ".data", ".out", ".log", ".asc", ".prn"}


# Sniffing reads a few KB but runs on every page; keyed by the file's identity
# (and its suffix, which decides between look-alike text kinds).
_sniffed: Lru[tuple[tuple[int, int, int, int], str], Sniffed] = Lru(256)


def _sniff_cached(src: Opened) -> Sniffed:
    key = (src.identity, src.suffix.lower())
    found = _sniffed.get(key)
    if found is None:
        found = sniff(src)
        _sniffed.put(key, found)
    return found


@contextmanager
def _opened_file(path: Path) -> Iterator[Opened]:
    """A path the caller trusts opened once by name, as a ReadError when it is no readable file."""
    try:
        opened = open_by_name(path)
    except FileNotFoundError:
        raise ReadError(f"No such file: {path.name}. Check the name with list_dir.") from None
    except PermissionError:
        raise ReadError(f"{path.name} can't be read: permission denied.") from None
    except NotRegularFile:
        raise ReadError(_NOT_REGULAR.format(name=path.name)) from None
    except OSError as e:
        raise ReadError(f"{path.name} can't be read ({e.strerror or e}).") from None
    with opened:
        yield opened


_NOT_REGULAR = "{name} is not a regular file (a device, pipe or socket); it can't be read."


def _fact_page(text: str, kind: str, offset: int, productive: bool, note: str) -> Page:
    """A one-line page for files that have facts but no text."""
    if offset >= 1:
        return Page("", offset, offset, 1, kind, False, past_end_note(offset, 1), False)
    return Page(text, 0, 1, 1, kind, False, note, productive, (Span(0, 1),))


def _ole_error(src: Opened, s: Sniffed) -> ReadError:
    ext = src.suffix.lower()
    if ext in (".xls", ".xlt"):
        what = "an old Excel 97-2003 workbook (.xls)"
        fix = "ask the user to save it as .xlsx or CSV"
    elif ext in (".doc", ".dot"):
        what = "an old Word 97-2003 document (.doc)"
        fix = "ask the user to save it as .docx or PDF"
    else:
        what = f"an {s.what}"
        fix = "ask the user for a modern export (.xlsx, .docx, PDF or CSV)"
    return ReadError(f"{src.name} is {what}, which can't be read here; {fix}.")


def read_page(
    source: Path | Opened,
    offset: int = 0,
    limit: int | None = None,
    *,
    max_chars: int = DEFAULT_MAX_CHARS,
    cancelled: Callable[[], bool] | None = None,
    time_budget_s: float = DEFAULT_TIME_S,
) -> Page:
    """One page of a file seen as lines; raises ReadError with an actionable message.

    `source` is a file opened beneath the picked folder (what the tools pass:
    everything is read from that descriptor) or a path the caller trusts,
    opened by name once. `cancelled` is polled inside the readers' loops: once
    it returns True the read stops and ReadCancelled (a ReadError) is raised.
    A conversion still going after `time_budget_s` keeps what it has and says
    so in the note.
    """
    limit = check_window(offset, limit)
    if not isinstance(source, Opened):
        with _opened_file(Path(source)) as opened:
            return read_page(
                opened,
                offset,
                limit,
                max_chars=max_chars,
                cancelled=cancelled,
                time_budget_s=time_budget_s,
            )
    src = source
    if src.is_dir:
        raise ReadError(
            f"{src.name} is a directory, not a file; use list_dir to see what it holds."
        )
    budget = Budget(time_budget_s, cancelled) if cancelled is not None else Budget(time_budget_s)
    budget.check()
    try:
        s = _sniff_cached(src)
        return _read(src, s, offset, limit, max_chars, budget)
    except ReadError:
        raise
    except PermissionError:
        raise ReadError(f"{src.name} can't be read: permission denied.") from None
    except OSError as e:
        if e.errno == errno.EISDIR:
            raise ReadError(f"{src.name} is a directory; use list_dir.") from None
        raise ReadError(f"{src.name} can't be read ({e.strerror or e}).") from None


def _read(src: Opened, s: Sniffed, offset: int, limit: int, max_chars: int, budget: Budget) -> Page:
    if s.kind == "empty":
        return Page("", offset, offset, 0, "empty", False, "The file is empty (0 bytes).", False)
    if s.kind == "ole":
        raise _ole_error(src, s)
    if s.kind == "image":
        text, ok = describe_image(src, s.what)
        note = (
            "An image: this is all read_file can tell; use read_image to look at it."
            if ok
            else "The image can't be decoded, so there is nothing more to read."
        )
        return _fact_page(text, "image", offset, ok, note)
    if s.kind in ("archive", "binary"):
        text = describe_sniffed(src, s)
        note = (
            "An archive: read_file can only describe it, not unpack it."
            if s.kind == "archive"
            else "A binary file with no text: read_file can only describe it."
        )
        return _fact_page(text, s.kind, offset, True, note)
    if s.kind in _CONVERTERS:
        convert = functools.partial(_CONVERTERS[s.kind], budget=budget)
        doc: Converted = cache.converted(src, s.kind, convert)
        if not doc.lines:
            return Page("", offset, offset, 0, s.kind, False, doc.note or "Nothing to read.", False)
        return page_of_lines(
            doc.lines,
            offset,
            limit,
            max_chars,
            s.kind,
            extra_note=doc.note,
            productive=doc.productive,
            spans=doc.spans,
        )
    # Plain text, possibly a table.
    assert s.encoding is not None
    kind = s.kind
    extra = ""
    if kind in ("csv", "tsv") or src.suffix.lower() in _MAYBE_TABLE:
        found = sniff_delimiter(src, s.encoding)
        if found is not None:
            delim, header = found
            if kind == "text" and src.suffix.lower() in ("", ".dat", ".data"):
                kind = "tsv" if delim == "\t" else "csv"
            extra = delimited_note(delim, header)
    return read_text_page(src, s.encoding, offset, limit, max_chars, kind, extra, budget=budget)
