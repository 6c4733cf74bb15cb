"""The window's own state (geometry, dock and splitter sizes) in LABWRIGHT_HOME/window.ini.

Kept apart from settings.json (the person's choices, shared with the CLI) and
out of QSettings' default place, so a temporary LABWRIGHT_HOME isolates it too.
"""

from __future__ import annotations

from PySide6.QtCore import QSettings, QTimer
from PySide6.QtWidgets import QSplitter

from labwright.core.settings.config import labwright_home


def ui_state() -> QSettings:
    """The state file of the current LABWRIGHT_HOME (read afresh, so tests stay isolated)."""
    return QSettings(str(labwright_home() / "window.ini"), QSettings.Format.IniFormat)


def remember_splitter(splitter: QSplitter, key: str) -> None:
    """Restore `splitter`'s sizes from the state file and save them whenever they move."""
    saved = ui_state().value(f"splitters/{key}")
    if saved is not None:
        splitter.restoreState(saved)

    def save() -> None:
        state = ui_state()
        state.setValue(f"splitters/{key}", splitter.saveState())
        state.sync()

    # a drag moves the handle many times a second: write once it rests
    timer = QTimer(splitter, singleShot=True, interval=300)
    timer.timeout.connect(save)
    splitter.splitterMoved.connect(lambda *_: timer.start())
