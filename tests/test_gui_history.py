"""History as a person cleans it up (issue 24): each row names its run apart from the others,
and a row is deleted with the Delete key, its context menu or File > Delete Run — to the
system's trash (here a trash in the test's own XDG_DATA_HOME), or for good once asked where
there is none; a run still going is kept.

Rows are chosen with a click, keys are pressed on the list, the context menu is the one a
right click opens (the platform's context-menu event at the row), and the question is
answered by patching QMessageBox.question, as the other GUI tests do."""

from __future__ import annotations

import json
import shutil
import time
from pathlib import Path

import pytest
from PySide6.QtCore import QFile, QPoint, Qt
from PySide6.QtGui import QContextMenuEvent
from PySide6.QtWidgets import QApplication, QMenu, QMessageBox

from agent_helpers import route
from canary import snapshot
from fakes import FakeLLM, call, delay, tool_calls


@pytest.fixture
def trash(tmp_path, monkeypatch) -> Path:
    """The freedesktop trash Qt moves to: under a private XDG_DATA_HOME, never the real one."""
    data = tmp_path / "xdg-data"
    data.mkdir()
    monkeypatch.setenv("XDG_DATA_HOME", str(data))
    return data / "Trash"


@pytest.fixture
def no_trash(monkeypatch) -> list[str]:
    """A system with no trash for the folder (QFile.moveToTrash says no), and the question
    that is asked then, answered Yes; what was asked is recorded."""
    asked: list[str] = []
    monkeypatch.setattr(QFile, "moveToTrash", lambda path: (False, ""))

    def question(parent, title, text, *args, **kwargs):
        asked.append(text)
        return QMessageBox.StandardButton.Yes

    monkeypatch.setattr(QMessageBox, "question", question)
    return asked


def past_run(offline_run: Path, home: Path, name: str, **meta) -> Path:
    """A copy of the offline run in History, with some of run.json changed."""
    runs = home / "runs"
    runs.mkdir(exist_ok=True)
    run_dir = Path(shutil.copytree(offline_run, runs / name))
    data = json.loads((run_dir / "run.json").read_text())
    data.update(meta)
    (run_dir / "run.json").write_text(json.dumps(data))
    return run_dir


def row_of(w, run_dir: Path):
    rows = [w.history.item(i) for i in range(w.history.count())]
    return next(r for r in rows if r.data(Qt.ItemDataRole.UserRole) == str(run_dir))


def click_row(qtbot, w, run_dir: Path) -> QPoint:
    if not w.isActiveWindow():  # keys go to the active window's focus, as on a desktop
        with qtbot.waitActive(w):
            w.activateWindow()
    row = row_of(w, run_dir)
    w.history.scrollToItem(row)
    pos = w.history.visualItemRect(row).center()
    qtbot.mouseClick(w.history.viewport(), Qt.MouseButton.LeftButton, pos=pos)
    return pos


# the offscreen platform's words for any popup menu (it cannot raise one or grab keys)
popup_menu = pytest.mark.qt_log_ignore("This plugin does not support (raise|grabbing)")


def right_click_menu(qtbot, w, run_dir: Path) -> QMenu:
    """What a right click on the row opens (the context-menu event the platform sends)."""
    pos = click_row(qtbot, w, run_dir)
    viewport = w.history.viewport()
    event = QContextMenuEvent(QContextMenuEvent.Reason.Mouse, pos, viewport.mapToGlobal(pos))
    QApplication.sendEvent(viewport, event)
    qtbot.waitUntil(lambda: isinstance(QApplication.activePopupWidget(), QMenu))
    return QApplication.activePopupWidget()


def choose_in_menu(qtbot, menu: QMenu, text: str) -> None:
    action = next(a for a in menu.actions() if a.text().replace("&", "") == text)
    qtbot.mouseClick(menu, Qt.MouseButton.LeftButton, pos=menu.actionGeometry(action).center())


# -- a distinct name per run ------------------------------------------------------------------


def test_runs_of_one_folder_are_numbered_and_told_apart(window_for, offline_run, isolated_home):
    started = time.mktime((2025, 3, 4, 14, 3, 0, 0, 0, -1))
    # three runs of the same folder in the same minute, two of them failed alike
    for n, status in enumerate(["failed", "failed", "cancelled"]):
        past_run(offline_run, isolated_home, f"run-{n}", status=status, started=started + n)
    w = window_for()
    texts = [w.history.item(i).text() for i in range(w.history.count())]
    assert len(texts) == 3 and len(set(texts)) == 3, texts  # no two rows alike
    assert [t.splitlines()[0] for t in texts] == [
        "◌ pendulum #3",
        "✗ pendulum #2",
        "✗ pendulum #1",
    ]
    assert all("2025-03-04 14:03" in t for t in texts)


def test_control_a_lone_run_has_no_number(window_for, offline_run, isolated_home):
    past_run(offline_run, isolated_home, "only")
    w = window_for()
    assert w.history.item(0).text().splitlines()[0] == "◐ pendulum"


# -- deleting -------------------------------------------------------------------------------


def test_the_delete_key_moves_the_chosen_run_to_the_trash(
    qtbot, window_for, offline_run, isolated_home, trash
):
    keep = past_run(offline_run, isolated_home, "20250101-keep", started=1)
    gone = past_run(offline_run, isolated_home, "20250102-gone", started=2)
    files = snapshot(gone)
    w = window_for()
    assert w.history.count() == 2
    click_row(qtbot, w, gone)
    qtbot.keyClick(w.history, Qt.Key.Key_Delete)
    assert not gone.exists() and keep.is_dir()
    assert snapshot(trash / "files" / gone.name) == files  # whole, and can be restored
    assert [w.history.item(i).data(Qt.ItemDataRole.UserRole) for i in range(w.history.count())] == [
        str(keep)
    ]
    assert w.notice.isVisible() and "trash" in w.notice.text()
    assert "pendulum #2" in w.notice.text()  # the run by the name its row had


def test_file_delete_run_is_the_same_action_and_is_off_with_no_row_chosen(
    qtbot, window_for, offline_run, isolated_home, trash
):
    run_dir = past_run(offline_run, isolated_home, "one")
    w = window_for()
    delete = w.history.delete_action
    assert delete in w.file_menu.actions()
    assert delete.shortcut().matches(Qt.Key.Key_Delete) is not None
    assert not delete.isEnabled()  # nothing chosen yet
    click_row(qtbot, w, run_dir)
    assert delete.isEnabled()
    delete.trigger()
    assert not run_dir.exists() and w.history.count() == 0


@popup_menu
def test_without_a_trash_the_context_menu_asks_then_deletes_for_good(
    qtbot, window_for, offline_run, isolated_home, no_trash
):
    run_dir = past_run(offline_run, isolated_home, "one")
    w = window_for()
    menu = right_click_menu(qtbot, w, run_dir)
    choose_in_menu(qtbot, menu, "Delete Run…")
    assert no_trash and "for good" in no_trash[0] and "pendulum" in no_trash[0]
    assert not run_dir.exists() and w.history.count() == 0
    assert "deleted" in w.notice.text()


def test_saying_no_keeps_the_run(qtbot, window_for, offline_run, isolated_home, monkeypatch):
    run_dir = past_run(offline_run, isolated_home, "one")
    before = snapshot(run_dir)
    monkeypatch.setattr(QFile, "moveToTrash", lambda path: (False, ""))
    monkeypatch.setattr(QMessageBox, "question", lambda *a, **k: QMessageBox.StandardButton.No)
    w = window_for()
    click_row(qtbot, w, run_dir)
    qtbot.keyClick(w.history, Qt.Key.Key_Delete)
    assert snapshot(run_dir) == before and w.history.count() == 1


@popup_menu
def test_the_context_menu_reopens_too(qtbot, window_for, offline_run, isolated_home):
    run_dir = past_run(offline_run, isolated_home, "one")
    w = window_for()
    choose_in_menu(qtbot, right_click_menu(qtbot, w, run_dir), "Reopen Run")
    assert w.run_dir == run_dir


def test_deleting_the_run_on_screen_goes_back_to_its_folder(
    qtbot, window_for, offline_run, isolated_home, trash
):
    run_dir = past_run(offline_run, isolated_home, "one")
    w = window_for()
    w.history_dock.show()
    click_row(qtbot, w, run_dir)
    qtbot.keyClick(w.history, Qt.Key.Key_Return)  # reopened: it opens for review
    assert w.run_dir == run_dir and w.review is not None
    w.history_dock.show()  # (folded while reviewing; a person shows it from View)
    click_row(qtbot, w, run_dir)
    qtbot.keyClick(w.history, Qt.Key.Key_Delete)
    assert not run_dir.exists()
    assert w.run_dir is None and w.stack.currentIndex() == 1  # the material folder, scanned
    assert w.folder is not None and w.folder.name == "pendulum"
    assert not w.review_action.isEnabled() and not w.export_action.isEnabled()
    assert "trash" in w.notice.text()


def test_a_run_still_going_in_another_process_is_not_deleted(
    qtbot, window_for, offline_run, isolated_home, trash
):
    from labwright.core.rundir.store import RunStore

    run_dir = past_run(offline_run, isolated_home, "busy", status="running")
    folder = Path(json.loads((run_dir / "run.json").read_text())["config"]["folder"])
    before = snapshot(run_dir)
    store = RunStore(run_dir, folder, resume=True)  # as `labwright run --resume` holds it
    try:
        w = window_for()
        click_row(qtbot, w, run_dir)
        qtbot.keyClick(w.history, Qt.Key.Key_Delete)
        assert "still going" in w.notice.text()
        assert run_dir.is_dir() and not (trash / "files" / run_dir.name).exists()
    finally:
        store.close()
    after = snapshot(run_dir)
    after.pop(".lock", None), before.pop(".lock", None)
    assert after == before
    # control: once that process is done, the same key deletes it
    qtbot.keyClick(w.history, Qt.Key.Key_Delete)
    assert not run_dir.exists()


def test_the_run_going_in_this_window_is_not_deleted(qtbot, window_for, material, trash):
    def slow(body, n):
        return delay(1.0, tool_calls(call("read_file", {"path": "manual.txt"})))

    with FakeLLM(route(slow)) as llm:
        w = window_for(llm)
        w.load_folder(material)
        qtbot.waitUntil(lambda: "files" in w.scan_label.text(), timeout=10_000)
        qtbot.mouseClick(w.start_button, Qt.MouseButton.LeftButton)
        qtbot.waitUntil(lambda: w.history.count() == 1, timeout=10_000)  # listed as it runs
        run_dir = w.run_dir
        click_row(qtbot, w, run_dir)
        qtbot.keyClick(w.history, Qt.Key.Key_Delete)
        assert "still going" in w.notice.text() and (run_dir / "run.json").is_file()
        with qtbot.waitSignal(w.bridge.finished, timeout=20_000):
            qtbot.mouseClick(w.cancel_button, Qt.MouseButton.LeftButton)
    assert run_dir.is_dir()
