"""The desktop app through pytest-qt (offscreen) and the fake model server."""

from __future__ import annotations

import json
from pathlib import Path

from PySide6.QtCore import QMimeData, QPointF, Qt, QUrl
from PySide6.QtGui import QDropEvent

from agent_helpers import FINISH_ARGS, route
from fakes import FakeLLM, call, delay, thinking, tool_calls
from labwright.core.events import Guard, Milestone, ToolCall, ToolResult
from labwright.gui.main_window import REVIEW, MainWindow
from labwright.gui.timeline import KindRole, StatusRole, TimelineModel

EXPLORE_XLSX = [
    tool_calls(call("list_dir", {"path": "Data"})),
    tool_calls(call("read_file", {"path": "Data/Projectile motion.xlsx", "limit": 60})),
    tool_calls(call("finish_exploration", {**FINISH_ARGS, "experiment": "Projectile motion"})),
]


def drop(widget, paths: list[Path]) -> None:
    mime = QMimeData()
    mime.setUrls([QUrl.fromLocalFile(str(p)) for p in paths])
    event = QDropEvent(
        QPointF(10, 10),
        Qt.DropAction.CopyAction,
        mime,
        Qt.MouseButton.LeftButton,
        Qt.KeyboardModifier.NoModifier,
    )
    widget.dropEvent(event)


def top_rows(model: TimelineModel) -> list[tuple[str, str]]:
    return [
        (model.index(r, 0).data(), model.index(r, 0).data(StatusRole))
        for r in range(model.rowCount())
    ]


def children(model: TimelineModel, row: int) -> list:
    parent = model.index(row, 0)
    return [model.index(r, 0, parent) for r in range(model.rowCount(parent))]


def run_and_wait(qtbot, w: MainWindow, timeout: int = 60_000) -> object:
    with qtbot.waitSignal(w.bridge.finished, timeout=timeout) as blocker:
        qtbot.mouseClick(w.start_button, Qt.MouseButton.LeftButton)
    return blocker.args[0]


def test_empty_window_explains_itself(window_for):
    w = window_for()
    assert w.stack.currentIndex() == 0
    assert "Drop a folder" in w.drop_zone.title.text()
    assert w.drop_zone.open_button.isVisible()
    assert not w.start_button.isEnabled()


def test_dropping_a_file_or_two_things_says_why_politely(window_for, material):
    w = window_for()
    drop(w.drop_zone, [material / "manual.txt"])
    assert "is a file" in w.drop_zone.message.text()
    drop(w.drop_zone, [material, material / "data"])
    assert "one folder" in w.drop_zone.message.text()
    assert w.stack.currentIndex() == 0 and w.folder is None


def test_dropping_projectile_motion_runs_to_a_report(qtbot, window_for, projectile):
    with FakeLLM(route(EXPLORE_XLSX)) as llm:
        w = window_for(llm)
        drop(w.drop_zone, [projectile])
        assert w.stack.currentIndex() == 1
        qtbot.waitUntil(lambda: "documents" in w.scan_label.text(), timeout=10_000)
        assert "3 documents" in w.scan_label.text() and "4 data" in w.scan_label.text()
        streamed = []
        w.bridge.text.connect(lambda restart, pieces: streamed.append((restart, pieces)))
        done = run_and_wait(qtbot, w)
    assert done.status == "ok"
    rows = top_rows(w.timeline)
    assert [status for _, status in rows] == ["done"] * len(rows)
    assert len(rows) == len(w.timeline.plan) and w.timeline.plan[0] == "scan"
    assert w.progress.value() == w.progress.maximum() == len(rows)
    explore_row = w.timeline.plan.index("explore")
    tools = [i.data() for i in children(w.timeline, explore_row) if i.data(KindRole) == "tool"]
    assert any("read_file" in t and "Projectile motion.xlsx" in t for t in tools)
    assert "\\documentclass" in w.results.source.toPlainText()
    assert streamed and streamed[0][0] is True  # the live draft started fresh, then grew
    assert "\\documentclass" in w.results.draft.toPlainText()
    assert w.history.count() == 1
    assert str(projectile) in w.settings.recent_folders


def test_a_run_whose_breaker_fires_shows_the_guard_and_ends_degraded(qtbot, window_for, material):
    with FakeLLM(
        route(lambda body, n: tool_calls(call("read_file", {"path": "manual.txt"})))
    ) as llm:
        w = window_for(llm)
        w.load_folder(material)
        qtbot.waitUntil(lambda: "files" in w.scan_label.text(), timeout=10_000)
        done = run_and_wait(qtbot, w)
    assert done.status == "degraded"
    explore_row = w.timeline.plan.index("explore")
    guards = [i for i in children(w.timeline, explore_row) if i.data(KindRole) == "guard"]
    assert [g.data(StatusRole) for g in guards][-1] == "loop_stop"
    assert guards[-1].data(Qt.ItemDataRole.BackgroundRole) is not None  # highlighted
    assert "loop" in guards[-1].data().lower()  # explained in plain words
    assert "review" in w.banner.text()
    assert w.stack.currentIndex() == REVIEW  # a degraded draft opens for review by itself


def test_cancel_mid_exploration_stops_the_worker_and_marks_the_run(qtbot, window_for, material):
    def slow(body, n):
        page = {"path": "data/log.txt", "offset": n * 5, "limit": 5}
        return delay(1.0, tool_calls(call("read_file", page)))

    with FakeLLM(route(slow)) as llm:
        w = window_for(llm)
        w.load_folder(material)
        qtbot.waitUntil(lambda: "files" in w.scan_label.text(), timeout=10_000)
        qtbot.mouseClick(w.start_button, Qt.MouseButton.LeftButton)
        qtbot.waitUntil(lambda: w.timeline.current_stage == "explore", timeout=10_000)
        with qtbot.waitSignal(w.bridge.finished, timeout=2_500) as blocker:
            qtbot.mouseClick(w.cancel_button, Qt.MouseButton.LeftButton)
    assert blocker.args[0].status == "cancelled"
    assert not w.bridge.running
    meta = json.loads((w.run_dir / "run.json").read_text())
    assert meta["status"] == "cancelled"
    assert (w.run_dir / "findings.json").is_file()  # what was gathered is kept


def test_the_running_step_shows_how_far_the_model_got(qtbot, window_for, material):
    slow = thinking(
        "Let me think about which file holds the periods. " * 4,
        tool_calls(call("read_file", {"path": "data/pendulum.csv"})),
        every=0.1,  # ~2.5 s of thinking, streamed
    )
    finish = tool_calls(call("finish_exploration", FINISH_ARGS))
    with FakeLLM(route([slow, finish])) as llm:
        w = window_for(llm)
        w.load_folder(material)
        qtbot.waitUntil(lambda: "files" in w.scan_label.text(), timeout=10_000)
        with qtbot.waitSignal(w.bridge.finished, timeout=60_000):
            qtbot.mouseClick(w.start_button, Qt.MouseButton.LeftButton)
            qtbot.waitUntil(lambda: w.timeline.current_stage == "explore", timeout=10_000)
            row = w.timeline.plan.index("explore")
            detail = w.timeline.index(row, 1)
            qtbot.waitUntil(lambda: "thinking…" in (detail.data() or ""), timeout=10_000)
            assert "tokens ·" in detail.data() and " s" in detail.data()
            assert w.timeline.index(row, 0).data(StatusRole) == "running"
    # once the call and the step are over, the row says what the step did instead
    assert "thinking" not in (w.timeline.index(row, 1).data() or "")
    assert "1 file read" in w.timeline.index(row, 1).data()  # one file: said in the singular


def test_no_key_says_what_to_do(qtbot, window_for, material, monkeypatch):
    w = window_for()
    w.settings.provider = "deepseek"
    monkeypatch.delenv("LABWRIGHT_API_KEY")
    w.load_folder(material)
    qtbot.mouseClick(w.start_button, Qt.MouseButton.LeftButton)
    assert not w.bridge.running
    assert "No API key" in w.banner.text() and "Settings" in w.banner.text()


def test_history_reopens_a_past_run(qtbot, window_for, material):
    w = window_for()
    w.load_folder(material)
    w.offline_check.setChecked(True)
    run_and_wait(qtbot, w)
    run_dir = w.run_dir
    w2 = window_for()
    assert w2.history.count() == 1
    w2.open_run(run_dir)
    assert [s for _, s in top_rows(w2.timeline)] == ["done", "skipped"] + ["done"] * (
        len(w2.timeline.plan) - 2
    )
    assert "TODO" in w2.results.source.toPlainText()


def test_timeline_model_passes_the_model_tester(qtmodeltester):
    model = TimelineModel()
    plan = ["scan", "explore", "draft", "reflect", "reflect", "bib"]
    events = [
        Milestone("scan", 1, 6, "start", {"plan": plan}),
        Milestone("scan", 1, 6, "end", {"summary": "3 files"}),
        Milestone("explore", 2, 6, "start"),
        ToolCall(1, "c1", "read_file", {"path": "a.csv"}),
        ToolResult("c1", "read_file", True, True, False, "a.csv lines 0–10"),
        Guard("dedup", "read_file(a.csv) repeated"),
        Milestone("explore", 2, 6, "end"),
        Milestone("draft", 3, 6, "start"),
        Milestone("draft", 3, 6, "end"),
        Milestone("reflect", 4, 6, "skipped"),
        Milestone("reflect", 5, 6, "skipped"),
    ]
    model.apply(events)
    qtmodeltester.check(model)
    assert [model.index(r, 0).data(StatusRole) for r in range(6)] == [
        "done",
        "done",
        "done",
        "skipped",
        "skipped",
        "pending",
    ]
    assert model.index(3, 0).data().endswith("Review and revise 1/2")
    assert model.done_count == 5


def test_thousands_of_emits_and_void_calls_cannot_free_true_or_none(qapp):
    """PySide6 6.12 loses a reference to True per emit and to None per void call (qtcompat)."""
    import sys

    from PySide6.QtCore import QObject, Signal

    from labwright.gui import qtcompat

    class Pinger(QObject):
        ping = Signal(int)

    pinger = Pinger()
    before = {"True": sys.getrefcount(True), "None": sys.getrefcount(None)}
    for i in range(5000):
        pinger.ping.emit(i)
        pinger.setObjectName("p")
    for name, obj in (("True", True), ("None", None)):
        if name in qtcompat.PINNED_NOW:
            assert sys.getrefcount(obj) > qtcompat.PINNED // 2  # spent, but never near zero
        else:
            assert abs(sys.getrefcount(obj) - before[name]) < 100  # this PySide6 keeps them


def test_labwright_gui_folder_opens_the_window_with_the_folder_loaded(qtbot, monkeypatch, material):
    """`labwright gui FOLDER` goes to the app, which shows the window with the folder loaded."""
    from labwright import cli
    from labwright.gui import app as gui_app

    started = {}

    def fake_main(folder):
        app, window, loop = gui_app.start(folder)  # everything `labwright gui` does before the loop
        qtbot.addWidget(window)
        started.update(window=window, loop=loop)
        return 0

    monkeypatch.setattr(gui_app, "main", fake_main)
    assert cli.main(["gui", str(material)]) == 0
    window, loop = started["window"], started["loop"]
    try:
        assert window.isVisible() and window.folder == material.resolve()
        qtbot.waitUntil(lambda: "files" in window.scan_label.text(), timeout=10_000)
    finally:
        window.close()
        import asyncio

        asyncio.set_event_loop(None)
        loop.close()


def _answer_sandbox_question(qtbot, button_text: str | None) -> list[str]:
    """Click a button of the "No sandbox" question once it shows (as a person would);
    None presses Cancel. Returns the question's text once it was answered."""
    from PySide6.QtCore import QTimer
    from PySide6.QtWidgets import QApplication, QMessageBox

    seen: list[str] = []

    def click() -> None:
        box = QApplication.activeModalWidget()
        if not isinstance(box, QMessageBox):
            QTimer.singleShot(20, click)
            return
        seen.append(box.text())
        if button_text is None:
            target = box.button(QMessageBox.StandardButton.Cancel)
        else:
            target = next(b for b in box.buttons() if b.text() == button_text)
        qtbot.mouseClick(target, Qt.MouseButton.LeftButton)

    QTimer.singleShot(0, click)
    return seen


def test_without_an_os_sandbox_the_app_asks_and_no_model_code_runs(
    qtbot, window_for, material, monkeypatch
):
    from labwright.core import confine

    monkeypatch.setattr(confine, "_SUPPORT", confine.Support())  # a machine with no layer
    figure = tool_calls(
        call(
            "make_figure",
            {
                "code": "import matplotlib.pyplot as plt\nplt.plot([1, 2])",
                "filename": "f",
                "caption": "c",
            },
        )
    )
    script = [
        tool_calls(call("read_file", {"path": "manual.txt"})),
        figure,
        tool_calls(call("finish_exploration", FINISH_ARGS)),
    ]
    with FakeLLM(route(script)) as llm:
        w = window_for(llm)
        w.load_folder(material)
        qtbot.waitUntil(lambda: "files" in w.scan_label.text(), timeout=10_000)
        asked = _answer_sandbox_question(qtbot, "Without model figures")
        done = run_and_wait(qtbot, w)
    assert asked and "no operating-system sandbox" in asked[0]
    assert "No operating-system sandbox" in w.sandbox_label.text()
    assert done.status in ("ok", "degraded")
    meta = json.loads((w.run_dir / "run.json").read_text())
    assert meta["config"]["allow_unconfined"] is False
    results = [
        json.loads(line)
        for line in (w.run_dir / "events.jsonl").read_text().splitlines()
        if '"tool_result"' in line
    ]
    made = [r for r in results if r["name"] == "make_figure"]
    assert made and not made[0]["ok"]  # refused: no model code ran
    assert not list((w.run_dir / "figures").glob("f*.png"))


def test_cancelling_the_sandbox_question_starts_nothing(qtbot, window_for, material, monkeypatch):
    from labwright.core import confine

    monkeypatch.setattr(confine, "_SUPPORT", confine.Support())
    w = window_for()
    w.load_folder(material)
    qtbot.waitUntil(lambda: "files" in w.scan_label.text(), timeout=10_000)
    asked = _answer_sandbox_question(qtbot, None)
    qtbot.mouseClick(w.start_button, Qt.MouseButton.LeftButton)
    assert asked  # exec() returned only after the question was answered
    assert not w.bridge.running and w.run_dir is None


def test_the_run_says_which_sandbox_holds_model_code(qtbot, window_for, material):
    from labwright.core import confine

    if not confine.support().any:  # CI is Linux with Landlock; say so loudly elsewhere
        raise AssertionError("this machine has no OS sandbox: " + confine.support().describe())
    with FakeLLM(
        route(
            [
                tool_calls(call("read_file", {"path": "manual.txt"})),
                tool_calls(call("finish_exploration", FINISH_ARGS)),
            ]
        )
    ) as llm:
        w = window_for(llm)
        w.load_folder(material)
        qtbot.waitUntil(lambda: "files" in w.scan_label.text(), timeout=10_000)
        run_and_wait(qtbot, w)
    assert "Landlock" in w.sandbox_label.text() and w.sandbox_label.isVisible()
