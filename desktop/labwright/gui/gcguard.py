"""Garbage collection in the GUI thread only.

Python collects reference cycles in whichever thread happens to allocate when
a threshold is passed; in the app that is often a run's worker thread, busy
drawing plots. When such a collection frees the last Python reference to a Qt
object (a closed window, a dialog, a timer), shiboken 6.12 hands the C++
deletion to the main thread as a pending call, and that call crashed the
process (SIGSEGV in `BindingManager::runDeletionInMainThread`, seen with two
windows one after the other in one process). So automatic collection is
switched off while the app runs and a timer in the GUI thread collects
instead, generation by generation with Python's own thresholds: the pattern
pyqtgraph's `GarbageCollector` uses for the same reason.
"""

from __future__ import annotations

import gc

from PySide6.QtCore import QCoreApplication, QObject, QTimer

INTERVAL_MS = 500


class GuiThreadCollector(QObject):
    """Collects in the GUI thread on a timer; automatic collection is off while it lives."""

    def __init__(self, app: QCoreApplication) -> None:
        super().__init__(app)
        self.app = app
        self.thresholds = gc.get_threshold()
        self._timer = QTimer(self, interval=INTERVAL_MS)
        self._timer.timeout.connect(self.collect)
        self._timer.start()
        app.aboutToQuit.connect(self.stop)
        gc.disable()

    def collect(self) -> None:
        """What the automatic collector would have done by now, done here."""
        counts = gc.get_count()
        for generation in (2, 1, 0):
            if counts[generation] > self.thresholds[generation]:
                gc.collect(generation)
                return

    def stop(self) -> None:
        """Back to Python's own collection (the app is quitting: no worker is left)."""
        global _installed
        self._timer.stop()
        gc.enable()
        self.setParent(None)
        if _installed is self:
            _installed = None  # the next `collect_in_gui_thread` installs a fresh one


# the collector of the running application; looked up here, not with app.findChild: the
# first findChild of a process costs PySide some 15 ms, which the window's start-up felt
_installed: GuiThreadCollector | None = None


def collect_in_gui_thread() -> GuiThreadCollector:
    """Install the collector once per application (idempotent); call from the GUI thread."""
    global _installed
    app = QCoreApplication.instance()
    assert app is not None, "a QApplication first"
    if _installed is None or _installed.app is not app:
        _installed = GuiThreadCollector(app)
    return _installed


def stop_collecting() -> None:
    """Python's own collection again (tests, between windows of a long-lived QApplication)."""
    if _installed is not None:
        _installed.stop()
