"""The run page's header as a person reads it (issue 24): which material folder, what its scan
found — also for a run reopened from History and after Start —, a folder with nothing to read
said before Start, and the header's lines in the language chosen now.

Folders are dropped or reopened with a double click, Start is clicked; a language switch is
what the app does on one (install the translator, retranslate the window)."""

from __future__ import annotations

import html
import json
import shutil
from pathlib import Path

import pytest
from PySide6.QtCore import Qt

from agent_helpers import FINISH_ARGS, route
from fakes import FakeLLM, call, tool_calls
from labwright.gui.main_window import RUN
from test_gui import drop, run_and_wait


def reopen_from_history(qtbot, w, run_dir: Path) -> None:
    """A double click on the run's row in History, as a person reopens it."""
    w.history.refresh()
    rows = [w.history.item(i) for i in range(w.history.count())]
    row = next(r for r in rows if r.data(Qt.ItemDataRole.UserRole) == str(run_dir))
    w.history.scrollToItem(row)
    pos = w.history.visualItemRect(row).center()
    qtbot.mouseClick(w.history.viewport(), Qt.MouseButton.LeftButton, pos=pos)
    qtbot.mouseDClick(w.history.viewport(), Qt.MouseButton.LeftButton, pos=pos)


def in_history(offline_run: Path, home: Path) -> Path:
    runs = home / "runs"
    runs.mkdir(exist_ok=True)
    return Path(shutil.copytree(offline_run, runs / offline_run.name))


def material_of(run_dir: Path) -> Path:
    return Path(json.loads((run_dir / "run.json").read_text())["config"]["folder"])


# -- the scan line and the header --------------------------------------------------------


def test_a_reopened_run_shows_its_scan_line_and_names_its_material_folder(
    qtbot, window_for, offline_run, isolated_home
):
    run_dir = in_history(offline_run, isolated_home)
    folder = material_of(run_dir)
    w = window_for()
    reopen_from_history(qtbot, w, run_dir)
    assert w.run_dir == run_dir
    # the scan the run made, from its journal: the files it saw, by kind
    assert "files:" in w.scan_label.text() and "data" in w.scan_label.text()
    header = w.run_page.header.folder_label.text()
    assert html.escape(str(folder)) in header  # the material folder, by name and place
    assert str(run_dir) not in header  # not the run folder Labwright keeps
    assert run_dir.name in header  # the run, by its name only
    assert str(run_dir) in w.run_page.header.folder_label.toolTip()  # its place on hover


def test_start_after_reopening_shows_the_new_runs_scan(
    qtbot, window_for, offline_run, isolated_home
):
    run_dir = in_history(offline_run, isolated_home)
    folder = material_of(run_dir)
    w = window_for()
    reopen_from_history(qtbot, w, run_dir)
    qtbot.mouseClick(w.review.back_button, Qt.MouseButton.LeftButton)  # it opened for review
    assert w.stack.currentIndex() == RUN
    w.offline_check.setChecked(True)
    done = run_and_wait(qtbot, w)
    assert done.status == "degraded" and w.run_dir != run_dir
    assert "files:" in w.scan_label.text()
    header = w.run_page.header.folder_label.text()
    assert html.escape(str(folder)) in header and str(w.run_dir) not in header


def test_control_a_dropped_folder_shows_its_scan_line(qtbot, window_for, material):
    w = window_for()
    drop(w.drop_zone, [material])
    qtbot.waitUntil(lambda: "files:" in w.scan_label.text(), timeout=10_000)
    assert w.start_button.isEnabled()


# -- a folder with nothing to read -----------------------------------------------------------


def hidden_only(tmp_path: Path) -> Path:
    folder = tmp_path / "only-hidden"
    (folder / ".git").mkdir(parents=True)
    (folder / ".git" / "config").write_text("[core]\n", encoding="utf-8")
    (folder / ".DS_Store").write_bytes(b"\0\0\0\1Bud1")
    return folder


@pytest.mark.parametrize("make", ["empty", "hidden"])
def test_a_folder_with_nothing_to_read_is_said_before_start(
    qtbot, window_for, tmp_path, isolated_home, make
):
    folder = tmp_path / "empty" if make == "empty" else hidden_only(tmp_path)
    folder.mkdir(exist_ok=True)
    w = window_for()
    drop(w.drop_zone, [folder])
    assert w.stack.currentIndex() == RUN
    qtbot.waitUntil(lambda: w.scan is not None, timeout=10_000)
    said = w.scan_label.text()
    assert "nothing" in said and "read" in said, said
    if make == "hidden":
        assert "hidden" in said  # says why the files there do not count
    assert not w.start_button.isEnabled() and not w.start_action.isEnabled()
    assert "nothing" in w.start_button.toolTip()  # the disabled button says why
    qtbot.mouseClick(w.start_button, Qt.MouseButton.LeftButton)
    w.start_action.trigger()  # Ctrl+R, Run > Start
    runs = isolated_home / "runs"
    assert w.run_dir is None and not (runs.is_dir() and any(runs.iterdir()))  # no run made


def test_a_folder_that_cannot_be_scanned_is_said_and_start_is_off(
    qtbot, window_for, material, monkeypatch
):
    from labwright.core.material import workspace

    def refused(root, **kw):  # what the OS says of a folder it will not list
        raise PermissionError(f"The folder {str(root)!r} cannot be read: permission denied.")

    monkeypatch.setattr(workspace, "scan_folder", refused)
    w = window_for()
    drop(w.drop_zone, [material])
    qtbot.waitUntil(lambda: "could not be scanned" in w.scan_label.text(), timeout=10_000)
    assert "permission denied" in w.scan_label.text()
    assert not w.start_button.isEnabled()
    assert "could not be scanned" in w.start_button.toolTip()


def test_control_material_after_an_empty_folder_starts_again(qtbot, window_for, tmp_path, material):
    (tmp_path / "empty").mkdir()
    w = window_for()
    drop(w.drop_zone, [tmp_path / "empty"])
    qtbot.waitUntil(lambda: not w.start_button.isEnabled() and w.scan is not None, timeout=10_000)
    w.load_folder(material)
    qtbot.waitUntil(lambda: "files:" in w.scan_label.text(), timeout=10_000)
    assert w.start_button.isEnabled() and w.start_action.isEnabled()
    assert "nothing" not in w.start_button.toolTip()


# -- the header in the language chosen now ------------------------------------------------------


def test_the_scan_and_sandbox_lines_follow_a_switch_to_chinese(qtbot, window_for, material):
    from labwright.core import confine
    from labwright.gui.i18n import install_language

    if not confine.support().any:
        raise AssertionError("this machine has no OS sandbox: " + confine.support().describe())
    script = [
        tool_calls(call("read_file", {"path": "manual.txt"})),
        tool_calls(call("finish_exploration", FINISH_ARGS)),
    ]
    with FakeLLM(route(script)) as llm:
        w = window_for(llm)
        drop(w.drop_zone, [material])
        qtbot.waitUntil(lambda: "files:" in w.scan_label.text(), timeout=10_000)
        run_and_wait(qtbot, w)
    assert "sandbox" in w.sandbox_label.text()
    try:
        install_language("zh_CN")
        w.retranslate()  # what the app does on a language switch
        assert "个文件" in w.scan_label.text(), w.scan_label.text()
        assert "沙箱" in w.sandbox_label.text(), w.sandbox_label.text()
    finally:
        install_language("en")
        w.retranslate()
    assert "files:" in w.scan_label.text() and "sandbox" in w.sandbox_label.text()


def test_the_banner_takes_the_chinese_font_at_once(qtbot, window_for, material, monkeypatch):
    from PySide6.QtGui import QFontDatabase
    from PySide6.QtWidgets import QApplication

    from labwright.gui.i18n import CJK_SANS, install_language

    sans = [f for f in CJK_SANS if f in QFontDatabase.families()]
    if not sans:
        pytest.skip("no CJK sans-serif face installed")
    w = window_for()
    w.settings.provider = "deepseek"
    monkeypatch.delenv("LABWRIGHT_API_KEY")
    drop(w.drop_zone, [material])
    qtbot.waitUntil(lambda: "files:" in w.scan_label.text(), timeout=10_000)
    qtbot.mouseClick(w.start_button, Qt.MouseButton.LeftButton)  # no key: the banner says so
    assert w.banner.isVisible()
    try:
        install_language("zh_CN")
        w.retranslate()
        assert "API" in w.banner.text()
        wanted = QApplication.font().families()
        assert sans[0] in wanted
        # the banner, its words and its button in the face every other label has now
        shown = (w.banner.label, w.banner.button, w.scan_label, w.notice.label)
        qtbot.waitUntil(lambda: w.scan_label.font().families() == wanted)  # Qt passes it on
        assert [x.font().families() for x in shown] == [wanted] * len(shown)
    finally:
        install_language("en")
        w.retranslate()
    assert sans[0] not in w.banner.label.font().families()
