"""Paging plain text files of any size by line.

A sparse index remembers the byte offset of every `STRIDE`-th line, built by
streaming the file in chunks and extended only as far as a request needs.
Serving a page is then a seek to the nearest checkpoint plus a short skip, so
a page near the end of a 1 GB CSV costs about the same as one at the start.
Indexes live in a small LRU keyed by the file's identity (device, inode, size,
mtime_ns), so an edited file is re-indexed and an unchanged one never is.

Lines end at "\\n", "\\r\\n" or a lone "\\r". Line terminators are found on
code units (1, 2 or 4 bytes), which is exact for UTF-8, GB18030, the single
byte code pages and UTF-16/32, because none of them ever uses those unit
values inside a multi-unit character.
"""

from __future__ import annotations

import codecs
import os
import re
import threading
from array import array
from collections import OrderedDict
from dataclasses import dataclass, field

import numpy as np

from labwright.core.material.readers.encoding import Encoding
from labwright.core.material.readers.page import (
    Budget,
    Page,
    Span,
    check_window,
    human_size,
    past_end_note,
    window_note,
)
from labwright.core.material.readers.source import Opened

STRIDE = 1024  # lines between checkpoints
CHUNK = 1024 * 1024  # bytes scanned per step; bounds the temporary arrays of a step
READ_BLOCK = 64 * 1024  # bytes read per step while serving a page
COMPLETE_BELOW = 256 * 1024 * 1024  # finish indexing at once when this little is left
INDEX_CACHE_SIZE = 8

_LINE_BREAK = re.compile(r"\r\n|\r|\n")


def _dtype(enc: Encoding) -> np.dtype:
    if enc.unit == 1:
        return np.dtype(np.uint8)
    big = enc.codec.endswith("be")
    return np.dtype((">" if big else "<") + ("u2" if enc.unit == 2 else "u4"))


def _line_starts(buf: bytes, base: int, enc: Encoding, at_eof: bool) -> tuple[np.ndarray, bool]:
    """Byte offsets where a new line starts after each terminator in buf.

    Returns (starts, held_cr): when buf ends in "\\r" and more data follows,
    that "\\r" is not yet decided (it may be the first half of "\\r\\n"), so it
    is excluded and reported for the caller to rescan.
    """
    unit = enc.unit
    arr = np.frombuffer(buf, dtype=_dtype(enc))
    nl = np.flatnonzero(arr == 10)
    held = False
    if 13 in arr:
        cr = np.flatnonzero(arr == 13)
        if len(cr) and cr[-1] == len(arr) - 1 and not at_eof:
            cr = cr[:-1]
            held = True
        if len(cr):
            nxt = cr + 1
            inside = nxt < len(arr)
            lone = cr[~inside | (arr[np.minimum(nxt, len(arr) - 1)] != 10)]
            nl = np.union1d(nl, lone)
    return base + (nl.astype(np.int64) + 1) * unit, held


@dataclass
class LineIndex:
    """Checkpoints of one file: `checkpoints[i]` is the byte offset of line i*STRIDE."""

    size: int
    enc: Encoding
    checkpoints: array = field(default_factory=lambda: array("q"))
    scanned_to: int = 0  # bytes [0, scanned_to) have been indexed
    lines_seen: int = 0  # line starts found in that range (line 0 included)
    total: int | None = None  # set once the whole file is indexed
    lock: threading.Lock = field(default_factory=threading.Lock)

    def __post_init__(self) -> None:
        self.scanned_to = self.enc.bom_len
        if self.size <= self.enc.bom_len:
            self.total = 0
        else:
            self.checkpoints.append(self.enc.bom_len)
            self.lines_seen = 1

    def extend(
        self,
        src: Opened,
        *,
        until_line: int | None = None,
        budget: Budget | None = None,
        optional: bool = False,
    ) -> None:
        """Index forward until `until_line` has a checkpoint at or before it, or EOF.

        `budget` is checked per chunk: a cancel raises ReadCancelled; a spent
        time budget ends an `optional` extension (one only there to learn the
        total), never one a requested line depends on.
        """
        if self.total is not None:
            return
        unit = self.enc.unit
        with src.stream() as f:
            f.seek(self.scanned_to)
            while self.total is None:
                if budget is not None and budget.check() and (optional or until_line is None):
                    return
                if (
                    until_line is not None
                    and self.lines_seen > until_line
                    and self.scanned_to > self.enc.bom_len
                ):
                    # The checkpoint covering until_line exists once we are past it;
                    # one chunk is always scanned so the total can be estimated.
                    return
                if self.size - self.scanned_to <= COMPLETE_BELOW and until_line is not None:
                    until_line = None  # cheap enough to learn the total now
                    optional = True
                buf = f.read(CHUNK)
                if len(buf) % unit:
                    buf += f.read(unit - len(buf) % unit)
                at_eof = self.scanned_to + len(buf) >= self.size or not buf
                starts, held = _line_starts(buf, self.scanned_to, self.enc, at_eof)
                if held:
                    f.seek(-unit, os.SEEK_CUR)
                    buf_len = len(buf) - unit
                else:
                    buf_len = len(buf)
                self._record(starts, at_eof)
                self.scanned_to += buf_len
                if at_eof:
                    self._finish()

    def _record(self, starts: np.ndarray, at_eof: bool) -> None:
        if not len(starts):
            return
        if at_eof and starts[-1] >= self.size:
            # A terminator at the very end doesn't open another line.
            starts = starts[:-1]
            if not len(starts):
                return
        n0 = self.lines_seen  # number of the first line in `starts`
        first = (-n0) % STRIDE  # index in `starts` of the next multiple of STRIDE
        if first < len(starts):
            self.checkpoints.extend(starts[first::STRIDE].tolist())
        self.lines_seen += len(starts)

    def _finish(self) -> None:
        self.total = self.lines_seen
        self.scanned_to = self.size

    def estimate_total(self) -> int | None:
        if self.total is not None:
            return self.total
        if self.scanned_to <= self.enc.bom_len or self.lines_seen < 2:
            return None
        return int(self.lines_seen * self.size / self.scanned_to)

    def locate(self, src: Opened, line: int, budget: Budget | None = None) -> int | None:
        """Byte offset where `line` starts, or None when the file has fewer lines."""
        with self.lock:
            self.extend(src, until_line=line, budget=budget)
            if self.total is not None and line >= self.total:
                return None
            cp = line // STRIDE
            pos = self.checkpoints[cp]
        skip = line - cp * STRIDE
        return _skip_lines(src, pos, skip, self.enc) if skip else pos


def _skip_lines(src: Opened, pos: int, count: int, enc: Encoding) -> int:
    """The byte offset `count` line starts after `pos` (the caller knows they exist)."""
    with src.stream() as f:
        f.seek(pos)
        size = src.size
        block = READ_BLOCK
        while True:
            buf = f.read(block)
            if len(buf) % enc.unit:
                buf += f.read(enc.unit - len(buf) % enc.unit)
            at_eof = pos + len(buf) >= size or not buf
            starts, held = _line_starts(buf, pos, enc, at_eof)
            if len(starts) >= count:
                return int(starts[count - 1])
            count -= len(starts)
            pos += len(buf) - (enc.unit if held else 0)
            f.seek(pos)
            if at_eof:
                return pos
            block = min(block * 2, CHUNK)


@dataclass(frozen=True)
class _Lines:
    lines: list[str]
    cut_mid_line: bool
    first_line_len: int | None  # known only when the first line was cut
    hit_eof: bool


def _read_lines(src: Opened, pos: int, limit: int, max_chars: int, enc: Encoding) -> _Lines:
    """Decode up to `limit` lines from `pos`, stopping once max_chars is reached."""
    decoder = codecs.getincrementaldecoder(enc.codec)(errors="replace")
    lines: list[str] = []
    used = 0
    pending = ""
    with src.stream() as f:
        f.seek(pos)
        eof = False
        while len(lines) < limit:
            raw = f.read(READ_BLOCK)
            eof = not raw
            pending += decoder.decode(raw, final=eof)
            # Hold back a trailing "\r": it may be the first half of "\r\n".
            scan_to = len(pending) - 1 if pending.endswith("\r") and not eof else len(pending)
            start = 0
            for m in _LINE_BREAK.finditer(pending, 0, scan_to):
                line = pending[start : m.start()]
                start = m.end()
                cost = len(line) + (1 if lines else 0)
                if used + cost > max_chars:
                    return _finish_cut(lines, line, max_chars, len(line))
                lines.append(line)
                used += cost
                if len(lines) >= limit:
                    return _Lines(lines, False, None, False)
            pending = pending[start:]
            cost = len(pending) + (1 if lines else 0)
            if used + cost > max_chars:
                # The current line is already too long to fit: no need to read it all.
                return _finish_cut(lines, pending, max_chars, None)
            if eof:
                if pending:
                    lines.append(pending)
                return _Lines(lines, False, None, True)
    return _Lines(lines, False, None, eof)  # pragma: no cover - loop returns


def _finish_cut(lines: list[str], line: str, max_chars: int, line_len: int | None) -> _Lines:
    if lines:
        return _Lines(lines, False, None, False)
    return _Lines([line[:max_chars]], True, line_len, False)


_index_cache: OrderedDict[tuple[int, int, int, int], LineIndex] = OrderedDict()
_index_cache_lock = threading.Lock()


def line_index(src: Opened, enc: Encoding) -> LineIndex:
    key = src.identity
    with _index_cache_lock:
        idx = _index_cache.get(key)
        if idx is not None and idx.enc == enc:
            _index_cache.move_to_end(key)
            return idx
        idx = LineIndex(src.size, enc)
        _index_cache[key] = idx
        while len(_index_cache) > INDEX_CACHE_SIZE:
            _index_cache.popitem(last=False)
        return idx


def read_text_page(
    src: Opened,
    enc: Encoding,
    offset: int,
    limit: int | None,
    max_chars: int,
    kind: str = "text",
    extra_note: str = "",
    *,
    budget: Budget | None = None,
) -> Page:
    limit = check_window(offset, limit)
    idx = line_index(src, enc)
    enc_note = f"Encoding: {enc.label}." if enc.worth_mentioning else ""
    tail = " ".join(x for x in (extra_note, enc_note) if x)

    def with_tail(note: str) -> str:
        return f"{note} {tail}" if tail else note

    pos = idx.locate(src, offset, budget)
    if pos is None:
        lines_total = idx.total or 0
        note = (
            past_end_note(offset, lines_total)
            if lines_total
            else "The file is empty: it has no lines."
        )
        return Page("", offset, offset, lines_total, kind, False, with_tail(note), False)

    got = _read_lines(src, pos, limit, max_chars, enc)
    end = offset + len(got.lines)
    # Finishing a small remainder of the index here lets the note give the total.
    with idx.lock:
        if idx.total is None and idx.size - idx.scanned_to <= COMPLETE_BELOW:
            idx.extend(src, budget=budget, optional=True)
    total = idx.total
    at_eof = got.hit_eof or (total is not None and end >= total)
    if at_eof and total is None:
        total = end
    hint = ""
    if total is None:
        est = idx.estimate_total()
        hint = f"about {est:,} (estimated; {human_size(idx.size)} file)" if est else ""
    note = window_note(
        offset,
        end,
        total,
        truncated=got.cut_mid_line or (not at_eof and len(got.lines) < limit),
        cut_mid_line=got.cut_mid_line,
        max_chars=max_chars,
        at_eof=at_eof,
        total_hint=hint,
        first_line_len=got.first_line_len,
    )
    truncated = got.cut_mid_line or (not at_eof and len(got.lines) < limit)
    text = "\n".join(got.lines)
    spans = (Span(offset, end),) if end > offset else ()
    return Page(text, offset, end, total, kind, truncated, with_tail(note), True, spans)
