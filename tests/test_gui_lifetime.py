"""Qt objects live and die in the GUI thread, with windows one after the other in one process.

Two windows in sequence, each with an offline run of examples/pendulum, crashed the process:
Python's automatic garbage collection ran in the run's worker thread (busy drawing plots),
freed Qt objects there, and shiboken's deferred deletion in the main thread segfaulted.
"""

from __future__ import annotations

import gc
import shutil
import threading
from pathlib import Path

from PySide6.QtCore import Qt

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "pendulum"


def test_two_windows_in_sequence_run_with_no_collection_off_the_gui_thread(
    qtbot, window_for, tmp_path
):
    collected_in: list[str] = []

    def note(phase: str, info: dict) -> None:
        if phase == "start":
            collected_in.append(threading.current_thread().name)

    gc.callbacks.append(note)
    try:
        for n in range(2):
            folder = tmp_path / f"copy{n}" / "pendulum"
            shutil.copytree(EXAMPLE, folder)
            w = window_for()
            w.load_folder(folder)
            qtbot.waitUntil(w.start_button.isEnabled, timeout=10_000)
            qtbot.mouseClick(w.offline_check, Qt.MouseButton.LeftButton)
            assert w.offline_check.isChecked()
            with qtbot.waitSignal(w.bridge.finished, timeout=120_000) as done:
                qtbot.mouseClick(w.start_button, Qt.MouseButton.LeftButton)
            assert done.args[0].status == "degraded"  # offline: a draft to review
            qtbot.waitUntil(lambda w=w: w.review is not None and w.review.isVisible())
            w.close()
            del w
        # the GUI thread still collects: cycles left by the closed windows go
        gc.collect()
    finally:
        gc.callbacks.remove(note)
    main = threading.main_thread().name
    assert collected_in, "nothing was collected at all"
    assert set(collected_in) == {main}, f"collections off the GUI thread: {set(collected_in)}"


def test_the_gui_thread_collects_on_a_timer_while_a_window_is_open(qtbot, window_for):
    window_for()
    assert not gc.isenabled()  # no thread but the GUI thread starts a collection
    collected: list[int] = []

    def note(phase: str, info: dict) -> None:
        if phase == "stop" and threading.current_thread() is threading.main_thread():
            collected.append(info["generation"])

    gc.callbacks.append(note)
    try:
        garbage = []
        for _ in range(5_000):  # cycles, as widgets and their connections make
            cycle: list = []
            cycle.append(cycle)
            garbage.append(cycle)
        del garbage, cycle
        qtbot.waitUntil(lambda: bool(collected), timeout=5_000)
    finally:
        gc.callbacks.remove(note)


# A fresh process, as the app is: the keyring module is first imported when Start asks for a
# key. No real keyring can answer: the session bus points nowhere and HOME is a temporary one.
CLOSED_WINDOW = r"""
import asyncio, gc, shutil, sys, weakref
from pathlib import Path
import qasync
from PySide6.QtCore import QCoreApplication, QEvent, Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication
app = QApplication([])
loop = qasync.QEventLoop(app)
asyncio.set_event_loop(loop)
from labwright.core.settings.saved import Settings
from labwright.gui.main_window import MainWindow

def until(test, seconds):
    for _ in range(int(seconds / 0.05)):
        if test():
            return
        loop.run_until_complete(asyncio.sleep(0.05))
    raise SystemExit("timed out")

folder = Path(sys.argv[1]) / "pendulum"
shutil.copytree(sys.argv[2], folder)
w = MainWindow(loop, Settings(provider="custom", explore_model="x", write_model="y", reflect=0))
w.show()
w.load_folder(folder)
until(w.start_button.isEnabled, 20)
QTest.mouseClick(w.offline_check, Qt.MouseButton.LeftButton)
QTest.mouseClick(w.start_button, Qt.MouseButton.LeftButton)
until(lambda: w.review is not None and w.review.isVisible(), 120)
closed = weakref.ref(w)
w.close()
del w
for _ in range(3):
    QCoreApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)
    app.processEvents()
    gc.collect()
print("alive" if closed() is not None else "freed")
"""


def test_a_closed_window_is_freed(tmp_path):
    import os
    import subprocess
    import sys

    env = {
        **os.environ,
        "QT_QPA_PLATFORM": "offscreen",
        "HOME": str(tmp_path),
        "XDG_CONFIG_HOME": str(tmp_path / "config"),
        "XDG_DATA_HOME": str(tmp_path / "data"),
        "DBUS_SESSION_BUS_ADDRESS": f"unix:path={tmp_path / 'no-bus'}",
        "LABWRIGHT_HOME": str(tmp_path / "home"),
    }
    env.pop("PYTHON_KEYRING_BACKEND", None)
    out = subprocess.run(
        [sys.executable, "-c", CLOSED_WINDOW, str(tmp_path), str(EXAMPLE)],
        env=env,
        capture_output=True,
        text=True,
        timeout=240,
    )
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.split()[-1] == "freed", "a closed window stays in memory"
