"""The page a reader returns, the error it raises, and paging of in-memory lines.

A page carries, beside its text, where each of its lines comes from (`Span`s):
the sheet and row, the PDF page, the notebook cell, the Word table, and which
lines are the reader's own headings rather than the material. Whoever locates
a number (core/material/evidence.py) reads those, never the rendered headings,
so a reader may word its headings as it likes.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field, fields, replace
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from labwright.core.material.fence import Opened

DEFAULT_LIMIT = 200
DEFAULT_MAX_CHARS = 7000
# Wall-clock budget of one read: a converter that is still going after this
# long keeps what it has and says so, rather than holding the run for minutes.
DEFAULT_TIME_S = 15.0
# One cell, paragraph or PDF line longer than this is clipped when converted:
# a workbook can reuse one 20 MB shared string in thousands of cells, and
# copying it into every row would need gigabytes.
MAX_CELL_CHARS = 2000


@dataclass(frozen=True)
class Span:
    """Lines [start, end) of a reader's output (0-based, as `offset`) and their place in the file.

    `row` is the sheet or table row (1-based) of the first line; the next lines of
    the span are the next rows. A `marker` span is the reader's own text (a sheet
    heading, a page marker, a cell label): it locates the lines after it but holds
    nothing of the material.
    """

    start: int
    end: int
    marker: bool = False
    sheet: str | None = None
    row: int | None = None
    page: int | None = None  # PDF page, from 1
    cell: str | None = None  # notebook cell: its label ("In[3]") or else its type ("markdown")
    table: int | None = None  # the document's table, from 1 (Word)

    def place(self) -> tuple[Any, ...]:
        """Everything but the line range and row: lines with one place may share a span."""
        return (self.marker, self.sheet, self.page, self.cell, self.table)

    def row_of(self, line: int) -> int | None:
        return None if self.row is None else self.row + (line - self.start)

    def to_dict(self) -> dict[str, Any]:
        return {k: v for k, v in asdict(self).items() if v is not None and v is not False}

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> Span:
        """A span as `to_dict` wrote it; raises ValueError (or TypeError) on anything else."""
        known = {f.name for f in fields(cls)}
        span = cls(**{k: v for k, v in d.items() if k in known})
        if not (isinstance(span.start, int) and isinstance(span.end, int)):
            raise ValueError(f"a span's start and end are line numbers: {d!r}")
        return span


def clip_spans(spans: Iterable[Span], start: int, end: int) -> tuple[Span, ...]:
    """The spans' parts that fall in lines [start, end), rows moved with their lines."""
    out = []
    for s in spans:
        lo, hi = max(s.start, start), min(s.end, end)
        if lo < hi:
            out.append(replace(s, start=lo, end=hi, row=s.row_of(lo)))
    return tuple(out)


class LineMap:
    """A document being converted to lines, with the place of each line.

    Converters add lines through `add` with their place; lines in one place (and,
    for rows, consecutive rows) share one span. A line holding "\n" becomes
    several lines, so line numbers always match the page's text split on "\n".
    """

    def __init__(self) -> None:
        self.lines: list[str] = []
        self.spans: list[Span] = []

    def __len__(self) -> int:
        return len(self.lines)

    def add(
        self,
        text: str,
        *,
        marker: bool = False,
        sheet: str | None = None,
        row: int | None = None,
        page: int | None = None,
        cell: str | None = None,
        table: int | None = None,
    ) -> None:
        for part in text.split("\n"):
            n = len(self.lines)
            self.lines.append(part)
            span = Span(n, n + 1, marker, sheet, row, page, cell, table)
            last = self.spans[-1] if self.spans else None
            if (
                last is not None
                and last.end == n
                and last.place() == span.place()
                and last.row_of(n) == row
            ):
                self.spans[-1] = replace(last, end=n + 1)
            else:
                self.spans.append(span)

    def extend(self, texts: Iterable[str], **place: Any) -> None:
        for text in texts:
            self.add(text, **place)


@dataclass(frozen=True)
class Page:
    """One window of a file seen as lines.

    `text` holds plain lines joined by "\\n"; the tool adds any framing.
    `end` is one past the last line returned, so the next page starts at `end`.
    """

    text: str
    offset: int
    end: int
    total: int | None
    kind: str
    truncated: bool
    note: str
    productive: bool
    # Where the lines come from: contiguous, covering [offset, end) when there is text.
    spans: tuple[Span, ...] = ()


class ReadError(Exception):
    """The file can't be read; the message says why and what to do instead."""


class ReadCancelled(ReadError):
    """The run was cancelled while a file was being read; nothing is cached."""


def _never() -> bool:
    return False


@dataclass
class Budget:
    """How long a read may take, and the run's cancel flag, checked inside readers' loops.

    ``check()`` raises ReadCancelled as soon as ``cancelled()`` is true, and
    returns True once ``seconds`` have passed: the reader then stops and keeps
    what it has, with a note.
    """

    seconds: float = DEFAULT_TIME_S
    cancelled: Callable[[], bool] = _never
    start: float = field(default_factory=time.monotonic)

    def check(self) -> bool:
        if self.cancelled():
            raise ReadCancelled("reading was cancelled")
        return time.monotonic() - self.start > self.seconds


# Formats parsed whole in memory (notebooks): bigger files are refused with a
# clear error rather than parsed into several times their size.
MAX_WHOLE_FILE_BYTES = 64 * 1024 * 1024


def check_whole_file_size(src: Opened, what: str) -> None:
    size = src.size
    if size > MAX_WHOLE_FILE_BYTES:
        raise ReadError(
            f"{src.name} is a {human_size(size)} {what}, more than the "
            f"{human_size(MAX_WHOLE_FILE_BYTES)} read_file parses at once; "
            "ask for a smaller export."
        )


def clip(text: str, limit: int = MAX_CELL_CHARS) -> str:
    """`text` cut to `limit` characters, marked with how long it was."""
    if len(text) <= limit:
        return text
    return f"{text[:limit]}… [cut: {len(text):,} characters]"


def check_window(offset: int, limit: int | None) -> int:
    """Validate offset/limit and return the effective limit."""
    if not isinstance(offset, int) or isinstance(offset, bool) or offset < 0:
        raise ReadError(
            f"offset must be a whole number >= 0 (got {offset!r}); use offset=0 to start."
        )
    if limit is None:
        return DEFAULT_LIMIT
    if not isinstance(limit, int) or isinstance(limit, bool) or limit < 1:
        raise ReadError(
            f"limit must be a whole number >= 1 (got {limit!r}); omit it for {DEFAULT_LIMIT} lines."
        )
    return limit


def fit_lines(lines: Sequence[str], max_chars: int) -> tuple[list[str], bool, bool]:
    """Keep the leading lines that fit in max_chars once joined by newlines.

    Returns (kept, truncated, cut_mid_line). The cut falls on a line boundary
    unless the very first line alone is too long; then that line is cut, because
    returning nothing would leave the model no way forward.
    """
    kept: list[str] = []
    used = 0
    for line in lines:
        cost = len(line) + (1 if kept else 0)
        if used + cost > max_chars:
            if not kept:
                kept.append(line[:max_chars])
                return kept, True, True
            return kept, True, False
        kept.append(line)
        used += cost
    return kept, False, False


def window_note(
    offset: int,
    end: int,
    total: int | None,
    *,
    truncated: bool,
    cut_mid_line: bool,
    max_chars: int,
    at_eof: bool,
    total_hint: str = "",
    first_line_len: int | None = None,
) -> str:
    """The sentence telling the model what it got and how to continue."""
    of = f" of {total:,}" if total is not None else (f" of {total_hint}" if total_hint else "")
    shown = f"Lines {offset:,}-{end - 1:,}{of}"
    if cut_mid_line:
        length = f" ({first_line_len:,} characters)" if first_line_len is not None else ""
        shown = (
            f"Line {offset:,}{of} is very long{length}; only its first {max_chars:,} characters "
            "are shown"
        )
    elif truncated:
        shown += f" (cut at {max_chars:,} characters)"
    if at_eof:
        return f"{shown}. End of file."
    return f"{shown}. Continue with offset={end}."


def past_end_note(offset: int, total: int) -> str:
    if total == 0:
        return "The file has no lines to show."
    return (
        f"Offset {offset:,} is past the end: the file has {total:,} lines (0-{total - 1:,}). "
        f"Use an offset below {total:,}."
    )


def page_of_lines(
    lines: Sequence[str],
    offset: int,
    limit: int | None,
    max_chars: int,
    kind: str,
    *,
    extra_note: str = "",
    productive: bool = True,
    spans: Sequence[Span] = (),
) -> Page:
    """Page through a document already converted to a list of lines.

    `spans` place the document's lines (all of them, as `LineMap` gives them);
    without them every line is plain material.
    """
    limit = check_window(offset, limit)
    total = len(lines)
    if offset >= total:
        note = past_end_note(offset, total)
        if extra_note:
            note = f"{note} {extra_note}"
        return Page("", offset, offset, total, kind, False, note, False)
    window = lines[offset : offset + limit]
    kept, truncated, mid = fit_lines(window, max_chars)
    end = offset + len(kept)
    note = window_note(
        offset,
        end,
        total,
        truncated=truncated,
        cut_mid_line=mid,
        max_chars=max_chars,
        at_eof=end >= total,
        first_line_len=len(window[0]) if mid else None,
    )
    if extra_note:
        note = f"{note} {extra_note}"
    placed = clip_spans(spans or (Span(0, total),), offset, end)
    return Page("\n".join(kept), offset, end, total, kind, truncated, note, productive, placed)


def human_size(n: int) -> str:
    size = float(n)
    for unit in ("bytes", "KB", "MB", "GB"):
        if size < 1024 or unit == "GB":
            if unit == "bytes":
                return f"{n:,} bytes"
            return f"{size:.1f} {unit}"
        size /= 1024
    return f"{n:,} bytes"  # pragma: no cover - loop always returns
