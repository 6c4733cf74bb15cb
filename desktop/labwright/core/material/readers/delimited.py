"""Spotting delimited tables (CSV/TSV) in text files and naming their columns."""

from __future__ import annotations

import csv
import io

from labwright.core.material.readers.encoding import Encoding
from labwright.core.material.readers.source import Lru, Opened

SAMPLE_BYTES = 64 * 1024
SAMPLE_LINES = 30
_CANDIDATES = ("\t", ",", ";", "|")
_NAMES = {"\t": "tab", ",": "comma", ";": "semicolon", "|": "pipe"}


def _sample_lines(src: Opened, enc: Encoding) -> list[str]:
    raw = src.pread(SAMPLE_BYTES, enc.bom_len)
    raw = raw[: len(raw) // enc.unit * enc.unit]
    text = raw.decode(enc.codec, errors="replace")
    lines = [ln for ln in text.splitlines() if ln.strip()]
    if len(raw) == SAMPLE_BYTES and len(lines) > 1:
        lines = lines[:-1]  # the last one may be cut
    return lines[:SAMPLE_LINES]


def _field_counts(lines: list[str], delim: str) -> list[int]:
    try:
        return [len(row) for row in csv.reader(io.StringIO("\n".join(lines)), delimiter=delim)]
    except csv.Error:
        return []


def _sniff(src: Opened, enc: Encoding) -> tuple[str, list[str]] | None:
    lines = _sample_lines(src, enc)
    if len(lines) < 2:
        return None
    best: tuple[float, str] | None = None
    for delim in _CANDIDATES:
        counts = _field_counts(lines, delim)
        if not counts:
            continue
        # Instrument exports often start with a few metadata lines; judge the body.
        body = counts[len(counts) // 4 :] if len(counts) >= 8 else counts
        common = max(set(body), key=body.count)
        if common < 2:
            continue
        share = body.count(common) / len(body)
        if share >= 0.8 and (best is None or share > best[0]):
            best = (share, delim)
    if best is None:
        return None
    delim = best[1]
    header = next(csv.reader([lines[0]], delimiter=delim), [])
    return delim, [h.strip() for h in header]


# By the file's identity: an edited (or another) file is sniffed again.
_found: Lru[tuple[tuple[int, int, int, int], Encoding], tuple[tuple[str, list[str]] | None]] = Lru(
    64
)


def sniff_delimiter(src: Opened, enc: Encoding) -> tuple[str, list[str]] | None:
    """(delimiter, first-line fields) when the file reads as a delimited table."""
    key = (src.identity, enc)
    hit = _found.get(key)
    if hit is None:
        hit = (_sniff(src, enc),)
        _found.put(key, hit)
    return hit[0]


def delimited_note(delim: str, header: list[str]) -> str:
    shown = ", ".join(h for h in header[:12])
    if len(header) > 12:
        shown += f", ... ({len(header)} fields)"
    if len(shown) > 240:
        shown = shown[:240] + "..."
    return f"Delimiter: {_NAMES[delim]}. First line: {shown}."
