"""Spotting delimited tables (CSV/TSV) in text files and naming their columns."""

from __future__ import annotations

import csv
import functools
import io
import os
from pathlib import Path

from labwright.core.material.readers.encoding import Encoding

SAMPLE_BYTES = 64 * 1024
SAMPLE_LINES = 30
_CANDIDATES = ("\t", ",", ";", "|")
_NAMES = {"\t": "tab", ",": "comma", ";": "semicolon", "|": "pipe"}


def _sample_lines(path: Path, enc: Encoding) -> list[str]:
    with open(path, "rb") as f:
        f.seek(enc.bom_len)
        raw = f.read(SAMPLE_BYTES)
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


@functools.lru_cache(maxsize=64)
def _sniff(path_str: str, size: int, mtime_ns: int, enc: Encoding) -> tuple[str, list[str]] | None:
    lines = _sample_lines(Path(path_str), enc)
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


def sniff_delimiter(path: Path, enc: Encoding) -> tuple[str, list[str]] | None:
    """(delimiter, first-line fields) when the file reads as a delimited table."""
    st = os.stat(path)
    return _sniff(str(path), st.st_size, st.st_mtime_ns, enc)


def delimited_note(delim: str, header: list[str]) -> str:
    shown = ", ".join(h for h in header[:12])
    if len(header) > 12:
        shown += f", ... ({len(header)} fields)"
    if len(shown) > 240:
        shown = shown[:240] + "..."
    return f"Delimiter: {_NAMES[delim]}. First line: {shown}."
