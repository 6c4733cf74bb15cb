"""Work around a PySide6 bug: `Signal.emit()` called from Python drops a reference to True.

PySide6 6.12.0 returns the `True` that emit() reports without taking a
reference to it, so every emit from Python lowers True's reference count by
one. On Python 3.12+ True is immortal and nothing happens; on Python 3.11 a
few thousand emits (a busy timeline) bring the count to zero and the
interpreter aborts ("bool_dealloc: deallocating True or False"). Every emit of
ours goes through `emit()`, which gives the reference back — only when the
probe below finds the bug, so a fixed PySide6 costs nothing.
"""

from __future__ import annotations

import ctypes
import sys
from typing import Any

from PySide6.QtCore import QObject, Signal


def _emit_drops_true() -> bool:
    if sys.version_info >= (3, 12):
        return False  # True is immortal: a lost reference cannot hurt

    class _Probe(QObject):
        ping = Signal()

    probe = _Probe()
    before = sys.getrefcount(True)
    for _ in range(8):
        probe.ping.emit()
    lost = before - sys.getrefcount(True)
    for _ in range(max(0, lost)):  # repair what the probe itself cost
        ctypes.pythonapi.Py_IncRef(ctypes.py_object(True))
    return lost >= 8


EMIT_DROPS_TRUE = _emit_drops_true()


def emit(signal: Any, *args: Any) -> None:
    """`signal.emit(*args)`, safe from the reference bug above."""
    signal.emit(*args)
    if EMIT_DROPS_TRUE:
        ctypes.pythonapi.Py_IncRef(ctypes.py_object(True))
