"""A small LRU of documents already converted to lines.

Parsing an xlsx, docx, pdf or notebook costs far more than slicing its lines,
and the model pages through the same document several times in a row. The key
is the file's identity (device, inode, size, mtime_ns): an edited file is
converted again, and a page is never served for another file that took its name.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass

from labwright.core.material.readers.page import LineMap, Span
from labwright.core.material.readers.source import Opened

MAX_DOCS = 16
MAX_CHARS = 64 * 1024 * 1024  # all cached documents together


@dataclass(frozen=True)
class Converted:
    lines: list[str]
    note: str = ""  # added to every page's note (sheet list, "no text: scanned?")
    productive: bool = True  # False when the conversion found nothing to read
    spans: tuple[Span, ...] = ()  # where each line comes from (page.Span); none: all plain

    @classmethod
    def of(cls, doc: LineMap, note: str = "", productive: bool = True) -> Converted:
        return cls(doc.lines, note, productive, tuple(doc.spans))

    @property
    def chars(self) -> int:
        return sum(len(x) for x in self.lines)


_docs: OrderedDict[tuple[tuple[int, int, int, int], str], tuple[Converted, int]] = OrderedDict()
_lock = threading.Lock()


def converted(src: Opened, kind: str, convert: Callable[[Opened], Converted]) -> Converted:
    key = (src.identity, kind)
    with _lock:
        hit = _docs.get(key)
        if hit is not None:
            _docs.move_to_end(key)
            return hit[0]
    doc = convert(src)  # outside the lock: parallel reads of other files go on
    chars = doc.chars
    with _lock:
        _docs[key] = (doc, chars)
        total = sum(c for _, c in _docs.values())
        while len(_docs) > 1 and (len(_docs) > MAX_DOCS or total > MAX_CHARS):
            _, (_, c) = _docs.popitem(last=False)
            total -= c
    return doc


def clear() -> None:
    with _lock:
        _docs.clear()
