"""Event throughput into the live timeline, and how late a 10 ms GUI heartbeat gets.

    QT_QPA_PLATFORM=offscreen .venv/bin/python bench/bench_gui_events.py [N]

A fake run (no model) emits N events (default 10,000: tool calls and results
under `explore`, with guards sprinkled in) from the worker thread, through the
real bridge, into the main window's timeline. Prints events per second
(goal >= 5,000) and the worst lateness of a 10 ms QTimer heartbeat running in
the GUI thread meanwhile (goal <= 50 ms).
"""

from __future__ import annotations

import asyncio
import os
import sys
import tempfile
import time
from pathlib import Path

from _result import result  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "desktop"))
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ.setdefault("LABWRIGHT_HOME", tempfile.mkdtemp(prefix="labwright-bench-"))

import qasync  # noqa: E402
from PySide6.QtCore import QTimer  # noqa: E402

from labwright.core.events import Done, Guard, Milestone, ToolCall, ToolResult  # noqa: E402
from labwright.core.run import pipeline  # noqa: E402
from labwright.core.settings.saved import Settings  # noqa: E402
from labwright.gui.app import create_app  # noqa: E402
from labwright.gui.main_window import MainWindow  # noqa: E402

N = int(sys.argv[1]) if len(sys.argv) > 1 else 10_000
PLAN = ["scan", "explore", "draft", "bib"]


def fake_run(config, cancel, on_text=None):
    yield Milestone("scan", 1, 4, "start", {"plan": PLAN})
    yield Milestone("scan", 1, 4, "end", {"summary": "fake"})
    yield Milestone("explore", 2, 4, "start")
    sent = 4
    i = 0
    while sent < N - 5:
        yield ToolCall(i, f"c{i}", "read_file", {"path": f"data/f{i % 50}.csv", "offset": i})
        yield ToolResult(f"c{i}", "read_file", True, True, False, f"lines {i}–{i + 10}")
        sent += 2
        if i % 100 == 99:
            yield Guard("reread", f"call {i}")
            sent += 1
        i += 1
    yield Milestone("explore", 2, 4, "end")
    yield Milestone("draft", 3, 4, "skipped")
    yield Milestone("bib", 4, 4, "skipped")
    yield Done("ok")


def main() -> None:
    app = create_app()
    loop = qasync.QEventLoop(app)
    asyncio.set_event_loop(loop)
    pipeline.run_agent = fake_run  # the bridge and everything after it are real
    window = MainWindow(loop, Settings())
    window.resize(1200, 800)
    window.show()
    folder = Path(tempfile.mkdtemp())
    window.folder = folder
    window.offline_check.setChecked(True)

    beats: list[float] = []
    heartbeat = QTimer()
    heartbeat.setInterval(10)
    heartbeat.timeout.connect(lambda: beats.append(time.perf_counter()))
    received = 0

    def count(events: list) -> None:
        nonlocal received
        received += len(events)

    window.bridge.events.connect(count)
    finished = asyncio.Event()
    window.bridge.finished.connect(lambda _done: finished.set())
    heartbeat.start()
    start = time.perf_counter()
    window.start_run()
    with loop:
        loop.run_until_complete(finished.wait())
        elapsed = time.perf_counter() - start
        heartbeat.stop()
        window.close()
    late = max((b - a for a, b in zip(beats, beats[1:], strict=False)), default=0.0) - 0.010
    print(f"events delivered:    {received:,} in {elapsed:.3f} s")
    print(f"throughput:          {received / elapsed:,.0f} events/s   (goal >= 5,000)")
    print(
        f"heartbeat worst lateness: {late * 1000:.1f} ms over {len(beats)} beats   (goal <= 50 ms)"
    )
    result("gui_events_per_s", received / elapsed, ">=5000", "events/s")
    result("gui_heartbeat_late_ms", late * 1000, "<=50", "ms")
    print(f"timeline rows under explore: {window.timeline.rowCount(window.timeline.index(1, 0)):,}")


if __name__ == "__main__":
    main()
