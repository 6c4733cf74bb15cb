"""Start-up: process start to the main window shown, against a bare PySide6 window.

    .venv/bin/python bench/bench_startup.py [runs]

Each measurement is a fresh process; it reports the wall-clock moment its
window was painted (the bare window: its first idle moment after show()),
measured from the parent's clock just before spawning. Runs are interleaved; prints
medians and the ratio (goal <= 2). Both start from compiled bytecode, as an
installed app does (LABWRIGHT_BENCH_FROM_SOURCE=1 keeps PYTHONDONTWRITEBYTECODE
if it is set: every Labwright module is then compiled on every start).
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _result import result  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]

BARE = """
import sys, time
from PySide6.QtWidgets import QApplication, QMainWindow
from PySide6.QtCore import QTimer
app = QApplication(sys.argv[:1])
w = QMainWindow(); w.resize(1200, 780); w.show()
QTimer.singleShot(0, lambda: (print(time.time()), app.quit()))
app.exec()
"""

LABWRIGHT = """
import sys, time
sys.path.insert(0, %r)
from PySide6.QtCore import QTimer
from labwright.gui.app import start
app, window, loop = start()  # what `labwright` does before it runs the loop
QTimer.singleShot(0, lambda: (print(window.shown_at), app.quit()))
with loop:
    app.exec()
"""


def measure(code: str, env: dict) -> float:
    start = time.time()
    out = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True
    ).stdout
    return float(out.strip().splitlines()[-1]) - start


def main() -> None:
    runs = int(sys.argv[1]) if len(sys.argv) > 1 else 7
    env = {
        **os.environ,
        "QT_QPA_PLATFORM": os.environ.get("QT_QPA_PLATFORM", "offscreen"),
        "LABWRIGHT_HOME": tempfile.mkdtemp(prefix="labwright-bench-"),
    }
    if env.get("PYTHONDONTWRITEBYTECODE") and os.environ.get("LABWRIGHT_BENCH_FROM_SOURCE") != "1":
        # Both start as an installed app does, from compiled bytecode (pip compiles it;
        # PySide6's is there already): with PYTHONDONTWRITEBYTECODE set, every Labwright
        # module would be compiled from its source on every start, which no installed
        # app does. Labwright's bytecode goes to a folder of its own, none to the tree.
        del env["PYTHONDONTWRITEBYTECODE"]
        env["PYTHONPYCACHEPREFIX"] = tempfile.mkdtemp(prefix="labwright-bench-pyc-")
    app_code = LABWRIGHT % str(ROOT / "desktop")
    measure(BARE, env), measure(app_code, env)  # warm the disk and bytecode caches for both
    bare, ours = [], []
    for _ in range(runs):
        bare.append(measure(BARE, env))
        ours.append(measure(app_code, env))
    b, o = statistics.median(bare), statistics.median(ours)
    print(f"bare PySide6 window shown: median {b * 1000:6.0f} ms")
    print(f"Labwright main window:     median {o * 1000:6.0f} ms")
    print(f"ratio:                     {o / b:6.2f}   (goal <= 2)")
    result("startup_ratio", o / b, "<=2", "x")


if __name__ == "__main__":
    main()
