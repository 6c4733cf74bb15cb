"""Work around PySide6 6.12's lost references to None and True on Python 3.11.

PySide6 6.12.0 returns the `None` of a void Qt method (`setText`,
`setObjectName`, a highlighter's `setFormat`…) and the `True` that
`Signal.emit()` reports without taking a reference to them. Each such call
from Python lowers the object's reference count by one; on Python 3.12+ None
and True are immortal and nothing happens, but on 3.11 a busy window brings a
count to zero within minutes and the interpreter aborts ("none_dealloc" /
"bool_dealloc"). `pin_singletons()` gives each affected object a reference
count no program can spend (2**40), which is what 3.12's immortality does.
It runs once, when `labwright.gui` is imported, and only where a probe finds
the bug, so a fixed PySide6 is left alone.
"""

from __future__ import annotations

import ctypes
import sys
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QObject, Signal

PINNED = 1 << 40


def _drops(obj: Any, call: Callable[[], Any]) -> bool:
    before = sys.getrefcount(obj)
    for _ in range(8):
        call()
    return before - sys.getrefcount(obj) >= 8


def pin_singletons() -> list[str]:
    """Pin None and True when this PySide6 loses references to them; returns what was pinned."""
    if sys.version_info >= (3, 12):
        return []  # immortal already

    class _Probe(QObject):
        ping = Signal()

    probe = _Probe()
    pinned = []
    for name, obj, call in (
        ("None", None, lambda: probe.setObjectName("probe")),
        ("True", True, probe.ping.emit),
    ):
        if _drops(obj, call):
            ctypes.c_ssize_t.from_address(id(obj)).value += PINNED
            pinned.append(name)
    return pinned


PINNED_NOW = pin_singletons()
