"""What a reader reads from: an open file (core/material/fence.py's Opened), never a path again.

A tool opens its path beneath the picked folder once (workspace.open_in_folder)
and hands the readers that descriptor; everything they read (the sniffed head,
a zip's members, a sheet, a page) comes from it, so a folder changed meanwhile
cannot slip another file in. Caches key on the file's identity (device, inode,
size, mtime), not on its name, for the same reason.

The public readers also take a plain path (tests, the package's own files):
``reading`` opens it by name once, as a trusted path.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Hashable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Generic, TypeVar

from labwright.core.material.fence import Opened, open_by_name

__all__ = ["Lru", "Opened", "reading"]


@contextmanager
def reading(source: Path | str | Opened) -> Iterator[Opened]:
    """`source` itself when already open, else the path opened by name for this block."""
    if isinstance(source, Opened):
        yield source
        return
    with open_by_name(source) as opened:
        yield opened


K = TypeVar("K", bound=Hashable)
V = TypeVar("V")


class Lru(Generic[K, V]):
    """A small thread-safe least-recently-used map (tool calls read in parallel)."""

    def __init__(self, size: int) -> None:
        self.size = size
        self._items: OrderedDict[K, V] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: K) -> V | None:
        with self._lock:
            value = self._items.get(key)
            if value is not None:
                self._items.move_to_end(key)
            return value

    def put(self, key: K, value: V) -> None:
        with self._lock:
            self._items[key] = value
            self._items.move_to_end(key)
            while len(self._items) > self.size:
                self._items.popitem(last=False)

    def clear(self) -> None:
        with self._lock:
            self._items.clear()
