"""Cancel during a model call (issue 24): the step it stopped says ⊘ cancelled, never ● done.

The fake server holds each explore call for a second; Cancel is clicked while one is held."""

from __future__ import annotations

from PySide6.QtCore import Qt

from agent_helpers import route
from fakes import FakeLLM, call, delay, tool_calls
from labwright.gui.timeline import StatusRole
from test_gui import run_and_wait
from test_gui_folder import reopen_from_history


def _slow(body, n):
    page = {"path": "data/log.txt", "offset": n * 5, "limit": 5}
    return delay(1.0, tool_calls(call("read_file", page)))


def test_cancel_during_a_model_call_marks_explore_cancelled(qtbot, window_for, material):
    with FakeLLM(route(_slow)) as llm:
        w = window_for(llm)
        w.load_folder(material)
        qtbot.waitUntil(lambda: "files" in w.scan_label.text(), timeout=10_000)
        qtbot.mouseClick(w.start_button, Qt.MouseButton.LeftButton)
        qtbot.waitUntil(lambda: w.timeline.current_stage == "explore", timeout=10_000)
        row = w.timeline.plan.index("explore")
        # a model call is held: the step says it waits for the model
        qtbot.waitUntil(lambda: "model" in (w.timeline.index(row, 1).data() or ""), timeout=10_000)
        with qtbot.waitSignal(w.bridge.finished, timeout=5_000) as blocker:
            qtbot.mouseClick(w.cancel_button, Qt.MouseButton.LeftButton)
    assert blocker.args[0].status == "cancelled"
    explore = w.timeline.index(row, 0)
    assert explore.data(StatusRole) == "cancelled"
    assert explore.data().startswith("⊘"), explore.data()
    assert "cancel" in (w.timeline.index(row, 1).data() or "").lower()
    # the steps after it never ran: none says done
    later = [w.timeline.index(r, 0).data(StatusRole) for r in range(row + 1, len(w.timeline.plan))]
    assert "done" not in later
    assert w.progress.format() == "Cancelled"
    # reopened from History, its journal says the same
    w2 = window_for()
    reopen_from_history(qtbot, w2, w.run_dir)
    assert w2.timeline.index(row, 0).data(StatusRole) == "cancelled"


def test_control_a_finished_exploration_is_done(qtbot, window_for, material):
    from agent_helpers import FINISH_ARGS

    script = [
        tool_calls(call("read_file", {"path": "manual.txt"})),
        tool_calls(call("finish_exploration", FINISH_ARGS)),
    ]
    with FakeLLM(route(script)) as llm:
        w = window_for(llm)
        w.load_folder(material)
        qtbot.waitUntil(lambda: "files" in w.scan_label.text(), timeout=10_000)
        run_and_wait(qtbot, w)
    explore = w.timeline.index(w.timeline.plan.index("explore"), 0)
    assert explore.data(StatusRole) == "done" and explore.data().startswith("●")
