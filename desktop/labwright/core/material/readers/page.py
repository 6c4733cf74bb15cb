"""The page a reader returns, the error it raises, and paging of in-memory lines."""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

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


def check_whole_file_size(path: Path, what: str) -> None:
    size = path.stat().st_size
    if size > MAX_WHOLE_FILE_BYTES:
        raise ReadError(
            f"{path.name} is a {human_size(size)} {what}, more than the "
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
) -> Page:
    """Page through a document already converted to a list of lines."""
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
    return Page("\n".join(kept), offset, end, total, kind, truncated, note, productive)


def human_size(n: int) -> str:
    size = float(n)
    for unit in ("bytes", "KB", "MB", "GB"):
        if size < 1024 or unit == "GB":
            if unit == "bytes":
                return f"{n:,} bytes"
            return f"{size:.1f} {unit}"
        size /= 1024
    return f"{n:,} bytes"  # pragma: no cover - loop always returns
