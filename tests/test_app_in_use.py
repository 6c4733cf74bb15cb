"""The app as a person uses it (issue 15): export, keys and menus, the editor, the preview,
plain words and orientation. Buttons are clicked and actions triggered; the platform's
dialogs are answered by patching QFileDialog's and QMessageBox's static functions."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import threading
import zipfile
from pathlib import Path

import pytest
from PySide6.QtCore import QEvent, QMimeData, QPoint, QPointF, Qt, QUrl
from PySide6.QtGui import QAction, QDesktopServices, QDropEvent, QKeySequence, QWheelEvent
from PySide6.QtPdfWidgets import QPdfView
from PySide6.QtWidgets import QFileDialog, QMenu, QMessageBox

from labwright.core.events import Done, Milestone
from labwright.core.report.latex import probe_engines
from labwright.gui import exporting
from labwright.gui.main_window import REVIEW, RUN
from labwright.gui.timeline import StatusRole, TimelineModel

needs_tex = pytest.mark.skipif(not probe_engines().can_compile, reason="no TeX engine")
needs_latexmk = pytest.mark.skipif(shutil.which("latexmk") is None, reason="no latexmk")


class Dialogs:
    """Answers for the static dialogs, and what they were asked. The save dialog answers
    `save_as` once, then Cancel: a person whose place was refused gives up when asked again."""

    def __init__(self, monkeypatch, save_as: Path | None, folder: bool = False, yes: bool = True):
        self.asked: list[str] = []
        self.saved: list[str] = []
        self.warned: list[str] = []
        self.opened: list[QUrl] = []

        def question(parent, title, text, *args, **kwargs):
            self.asked.append(text)
            return QMessageBox.StandardButton.Yes if yes else QMessageBox.StandardButton.No

        def save(parent, caption, start, filters, *args, **kwargs):
            self.saved.append(start)
            if save_as is None or len(self.saved) > 1:
                return "", ""
            chosen = exporting.folder_filter() if folder else exporting.zip_filter()
            assert chosen in filters.split(";;")
            return str(save_as), chosen

        def warning(parent, title, text, *args, **kwargs):
            self.warned.append(text)
            return QMessageBox.StandardButton.Ok

        monkeypatch.setattr(QMessageBox, "question", question)
        monkeypatch.setattr(QMessageBox, "warning", warning)
        monkeypatch.setattr(QFileDialog, "getSaveFileName", save)
        monkeypatch.setattr(
            QDesktopServices, "openUrl", lambda url: self.opened.append(url) or True
        )


def activate(qtbot, w) -> None:
    with qtbot.waitActive(w):
        w.activateWindow()


# -- 1. export ------------------------------------------------------------------------


@needs_tex
@needs_latexmk
def test_the_export_button_writes_a_zip_that_compiles_alone(
    qtbot, window_for, offline_run, tmp_path, monkeypatch
):
    dialogs = Dialogs(monkeypatch, tmp_path / "out" / "pendulum-report")
    (tmp_path / "out").mkdir()
    w = window_for()
    w.open_run(offline_run)
    assert w.stack.currentIndex() == REVIEW
    with qtbot.waitSignal(w.review.exported, timeout=10_000) as done:
        qtbot.mouseClick(w.review.export_button, Qt.MouseButton.LeftButton)
    out = tmp_path / "out" / "pendulum-report.zip"  # the .zip the filter chose was added
    assert done.args == [out] and out.is_file()
    assert dialogs.asked and "offline" in dialogs.asked[0].lower()  # degraded: asked first
    assert dialogs.saved[0].endswith("pendulum-report.zip")  # named after the material
    assert w.notice.isVisible() and "pendulum-report.zip" in w.notice.text()
    qtbot.mouseClick(w.notice.button, Qt.MouseButton.LeftButton)  # "Show in Folder"
    assert [Path(u.toLocalFile()) for u in dialogs.opened] == [out.parent]

    unpacked = tmp_path / "elsewhere"
    with zipfile.ZipFile(out) as z:
        z.extractall(unpacked)
    (unpacked / "report.pdf").unlink()
    proc = subprocess.run(
        ["latexmk", "-xelatex", "-interaction=nonstopmode", "-halt-on-error", "report.tex"],
        cwd=unpacked,
        capture_output=True,
        timeout=120,
        check=False,
    )
    assert proc.returncode == 0, proc.stdout.decode(errors="replace")[-2000:]
    assert (unpacked / "report.pdf").is_file()


def test_file_menu_export_writes_a_folder_from_the_run_page(
    qtbot, window_for, offline_run, tmp_path, monkeypatch
):
    dialogs = Dialogs(monkeypatch, tmp_path / "bundle", folder=True)
    w = window_for()
    w.open_run(offline_run)
    qtbot.mouseClick(w.review.back_button, Qt.MouseButton.LeftButton)
    assert w.stack.currentIndex() == RUN
    assert w.export_action in w.file_menu.actions()
    assert w.export_action.shortcut() == QKeySequence("Ctrl+E")
    assert w.export_action.isEnabled()
    w.export_action.trigger()
    assert (tmp_path / "bundle" / "report.tex").is_file()
    assert dialogs.asked and "bundle" in w.notice.text()


def test_saying_no_or_cancelling_exports_nothing_and_a_refusal_is_shown(
    qtbot, window_for, offline_run, tmp_path, monkeypatch
):
    w = window_for()
    w.open_run(offline_run)
    Dialogs(monkeypatch, tmp_path / "no.zip", yes=False)
    qtbot.mouseClick(w.review.export_button, Qt.MouseButton.LeftButton)
    Dialogs(monkeypatch, None)
    qtbot.mouseClick(w.review.export_button, Qt.MouseButton.LeftButton)
    assert not list(tmp_path.glob("*.zip")) and not w.notice.isVisible()
    # into the run directory: refused, and said why
    dialogs = Dialogs(monkeypatch, offline_run / "inside.zip")
    qtbot.mouseClick(w.review.export_button, Qt.MouseButton.LeftButton)
    assert dialogs.warned and "run directory" in dialogs.warned[0]
    assert len(dialogs.saved) == 2  # asked again at once, where the refused place was not
    assert not (offline_run / "inside.zip").exists()


def test_export_is_offered_only_when_there_is_a_report(window_for):
    w = window_for()
    assert not w.export_action.isEnabled()
    assert "no report" in w.export_action.toolTip()


# -- 2. keys and menus ----------------------------------------------------------------


def test_ctrl_comma_opens_settings_and_the_no_key_banner_has_a_button(
    qtbot, window_for, material, monkeypatch
):
    from labwright.gui import settings_dialog

    opened = []
    monkeypatch.setattr(
        settings_dialog.SettingsDialog, "exec", lambda self: opened.append(self) or 0
    )
    w = window_for()
    assert QKeySequence("Ctrl+,") in w.settings_action.shortcuts()
    activate(qtbot, w)
    qtbot.keyClick(w, Qt.Key.Key_Comma, Qt.KeyboardModifier.ControlModifier)
    assert len(opened) == 1
    w.settings.provider = "deepseek"
    monkeypatch.delenv("LABWRIGHT_API_KEY")
    w.load_folder(material)
    qtbot.mouseClick(w.start_button, Qt.MouseButton.LeftButton)
    assert "No API key" in w.banner.text() and "Ctrl+," in w.banner.text()
    assert w.banner.button.isVisible()
    qtbot.mouseClick(w.banner.button, Qt.MouseButton.LeftButton)
    assert len(opened) == 2


def _menu_actions(menu: QMenu) -> list[QAction]:
    out = []
    for a in menu.actions():
        out.append(a)
        if a.menu() is not None:
            out += _menu_actions(a.menu())
    return out


def test_every_action_is_in_a_menu_with_its_keys(window_for, offline_run):
    w = window_for()
    w.open_run(offline_run)  # builds the review pane, whose actions join the menus
    in_menus = [
        a
        for m in (w.file_menu, w.edit_menu, w.run_menu, w.view_menu, w.help_menu)
        for a in _menu_actions(m)
    ]
    own = [a for a in w.findChildren(QAction) if a.text() and not a.isSeparator()]
    own = [a for a in own if a.menu() is None and a is not w.history_dock.toggleViewAction()]
    missing = [a.text() for a in own if a not in in_menus]
    assert missing == []
    for action, keys in (
        (w.review.recompile_action, "Ctrl+B"),
        (w.review.find_action, QKeySequence(QKeySequence.StandardKey.Find).toString()),
        (w.export_action, "Ctrl+E"),
        (w.review.zoom_in_action, "Ctrl+="),
    ):
        assert action in in_menus and action.shortcut().toString() == keys


# -- 3. the editor ----------------------------------------------------------------


KEYSTROKES = [
    "\\",
    "\\\\",
    "$\\",
    "\\[\\",
    "\\begin{equation}\\",
    "\\begin{",
    "\\end{equation}$$\\",
    "% \\",
    "$x$ \\(",
    "\\)\\]",
    "{\\",
    "\\%\\",
    "TODO \\",  # (QTest types ASCII only)
    "\\begin{align*}a\\\\b\\end{align*}\\",
]


def test_no_keystroke_sequence_raises_in_the_highlighter(qtbot, window_for, offline_run):
    w = window_for()
    w.open_run(offline_run)
    editor = w.review.editor
    for seq in KEYSTROKES:
        for line in (1, 5, editor.blockCount()):
            editor.go_to_line(line)
            qtbot.keyClick(editor, Qt.Key.Key_End)
            qtbot.keyClicks(editor, seq)
            qtbot.keyClick(editor, Qt.Key.Key_Return)
            qtbot.keyClicks(editor, seq)
            qtbot.keyClick(editor, Qt.Key.Key_Backspace)
            qtbot.keyClick(editor, Qt.Key.Key_Backspace)
    # pytest-qt fails the test on an exception in highlightBlock or a Qt warning
    assert "\\begin{align*}" in editor.text()


def test_soft_wrap_by_default_and_the_save_indicator(qtbot, window_for, offline_run):
    from PySide6.QtWidgets import QPlainTextEdit

    w = window_for()
    w.open_run(offline_run)
    pane = w.review
    assert pane.editor.lineWrapMode() == QPlainTextEdit.LineWrapMode.WidgetWidth
    assert "Saved" in pane.save_label.text()
    pane.editor.go_to_line(3)
    qtbot.keyClicks(pane.editor, "% note")
    assert "Unsaved" in pane.save_label.text()
    qtbot.waitUntil(lambda: "Saved" in pane.save_label.text(), timeout=3_000)
    assert "% note" in (offline_run / "report.tex").read_text()


def test_review_opens_with_the_focus_in_the_editor_and_ctrl_f_finds(qtbot, window_for, offline_run):
    w = window_for()
    activate(qtbot, w)
    w.open_run(offline_run)
    assert w.focusWidget() is w.review.editor
    qtbot.keyClick(w.review.editor, Qt.Key.Key_F, Qt.KeyboardModifier.ControlModifier)
    assert w.review.panel.find_bar.isVisible()


# -- 4. the preview ----------------------------------------------------------------


@needs_tex
def test_zoom_keys_wheel_fit_modes_and_page_counter(qtbot, window_for, offline_run):
    w = window_for()
    w.resize(1024, 640)
    activate(qtbot, w)
    w.open_run(offline_run)
    pane = w.review
    view = pane.pdf.view
    pages = pane.pdf.document.pageCount()
    assert pages >= 2 and pane.pdf.page_label.text() == f"Page 1 of {pages}"
    before = pane.pdf.zoom_factor()
    pane.editor.setFocus()
    qtbot.keyClick(pane.editor, Qt.Key.Key_Equal, Qt.KeyboardModifier.ControlModifier)
    assert view.zoomMode() == QPdfView.ZoomMode.Custom
    assert view.zoomFactor() == pytest.approx(before * 1.25)
    assert pane.pdf.zoom_label.text() == f"{round(before * 125)} %"
    qtbot.keyClick(pane.editor, Qt.Key.Key_Minus, Qt.KeyboardModifier.ControlModifier)
    assert view.zoomFactor() == pytest.approx(before)
    wheel = QWheelEvent(
        QPointF(50, 50),
        QPointF(view.viewport().mapToGlobal(QPoint(50, 50))),
        QPoint(0, 0),
        QPoint(0, 120),
        Qt.MouseButton.NoButton,
        Qt.KeyboardModifier.ControlModifier,
        Qt.ScrollPhase.NoScrollPhase,
        False,
    )
    from PySide6.QtWidgets import QApplication

    QApplication.sendEvent(view.viewport(), wheel)
    assert view.zoomFactor() == pytest.approx(before * 1.25)
    pane.fit_page_action.trigger()
    assert view.zoomMode() == QPdfView.ZoomMode.FitInView and pane.fit_page_action.isChecked()
    pane.fit_width_action.trigger()
    assert view.zoomMode() == QPdfView.ZoomMode.FitToWidth
    view.pageNavigator().jump(1, QPointF(), view.pageNavigator().currentZoom())
    assert pane.pdf.page_label.text() == f"Page 2 of {pages}"


@needs_tex
def test_the_synctex_target_is_highlighted_for_a_moment(qtbot, window_for, offline_run):
    w = window_for()
    w.open_run(offline_run)
    pane = w.review
    lines = pane.editor.text().splitlines()
    line = next(n for n, t in enumerate(lines, 1) if t.startswith("\\section"))
    pane.editor.go_to_line(line + 1)
    qtbot.mouseClick(pane.show_in_pdf_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(pane.pdf.marker.isVisible, timeout=2_000)
    marker = pane.pdf.marker.geometry()
    assert marker.width() > 100 and pane.pdf.view.viewport().rect().intersects(marker)
    qtbot.waitUntil(lambda: not pane.pdf.marker.isVisible(), timeout=5_000)


@needs_tex
@pytest.mark.qt_log_ignore("This plugin does not support raise")  # the tooltip, offscreen
def test_compile_errors_are_marked_in_the_gutter_and_listed_in_the_log(
    qtbot, window_for, offline_run
):
    from PySide6.QtGui import QHelpEvent
    from PySide6.QtWidgets import QApplication, QToolTip

    w = window_for()
    w.resize(1024, 640)
    activate(qtbot, w)
    w.open_run(offline_run)
    pane, editor, log = w.review, w.review.editor, w.review.log_pane
    assert not any(s == "error" for m in editor.marks().values() for s, _ in m)
    assert "no errors" in log.header.text() or "0 error" in log.header.text()
    lines = editor.text().splitlines()
    line = next(n for n, t in enumerate(lines, 1) if t.startswith("\\section")) + 1
    editor.go_to_line(line)
    qtbot.keyClicks(editor, "\\nosuchcommand ")
    with qtbot.waitSignal(pane.compiled, timeout=120_000) as done:
        qtbot.keyClick(editor, Qt.Key.Key_B, Qt.KeyboardModifier.ControlModifier)
    assert done.args == [False]
    marks = editor.marks()
    assert [s for s, _ in marks[line]] == ["error"]
    assert "Undefined control sequence" in editor.mark_text(line)
    # hovering the mark tells what is wrong
    block = editor.document().findBlockByNumber(line - 1)
    y = round(editor.blockBoundingGeometry(block).translated(editor.contentOffset()).center().y())
    gutter = editor._gutter
    QApplication.sendEvent(
        gutter, QHelpEvent(QEvent.Type.ToolTip, QPoint(4, y), gutter.mapToGlobal(QPoint(4, y)))
    )
    assert "Undefined control sequence" in QToolTip.text()
    # the log opened by itself, with the error on its line
    assert log.is_open() and log.list.isVisible() and "1 error" in log.header.text()
    rows = [log.list.topLevelItem(i) for i in range(log.list.topLevelItemCount())]
    row = next(r for r in rows if "Undefined control sequence" in r.text(1))
    assert row.text(0) == f"✗ {line}"
    editor.go_to_line(1)
    qtbot.keyClick(editor, Qt.Key.Key_Return)  # a line above: the mark moves with its line
    assert line + 1 in editor.marks() and line not in editor.marks()
    qtbot.keyClick(editor, Qt.Key.Key_Backspace)
    assert line in editor.marks()
    qtbot.mouseClick(
        log.list.viewport(), Qt.MouseButton.LeftButton, pos=log.list.visualItemRect(row).center()
    )
    assert editor.current_line() == line and editor.hasFocus()
    # the log folds shut from the View menu and opens again
    assert pane.log_action in w.view_menu.actions() and pane.log_action.isChecked()
    pane.log_action.trigger()
    assert not log.list.isVisible() and not log.header.isChecked()
    qtbot.mouseClick(log.header, Qt.MouseButton.LeftButton)
    assert log.list.isVisible() and pane.log_action.isChecked()
    # fixed by hand, rebuilt from the Run menu: the marks go
    qtbot.keyClick(editor, Qt.Key.Key_Home)
    for _ in "\\nosuchcommand ":
        qtbot.keyClick(editor, Qt.Key.Key_Delete)
    assert editor.text().splitlines()[line - 1] == lines[line - 1]
    assert pane.recompile_action in w.run_menu.actions()
    with qtbot.waitSignal(pane.compiled, timeout=120_000) as done:
        pane.recompile_action.trigger()
    assert done.args == [True]
    assert not any(s == "error" for m in editor.marks().values() for s, _ in m)
    assert "Undefined control sequence" not in " ".join(
        log.list.topLevelItem(i).text(1) for i in range(log.list.topLevelItemCount())
    )
    # a clean build leaves no empty table open: the log shuts and has nothing to open
    assert "no errors or warnings" in log.header.text()
    assert not log.list.isVisible() and not pane.log_action.isEnabled()
    qtbot.mouseClick(log.header, Qt.MouseButton.LeftButton)
    assert not log.list.isVisible()


def test_a_runs_last_compile_errors_are_marked_when_it_opens(window_for, offline_run):
    meta = json.loads((offline_run / "run.json").read_text())
    meta["compile"] = {
        "ok": False,
        "errors": [
            {"file": "./report.tex", "line": 7, "message": "Missing $ inserted."},
            {"file": "figures/x.tex", "line": 3, "message": "Undefined control sequence."},
        ],
        "warnings": ["Citation `knuth' undefined (line 9)", "BibTeX: empty refs"],
    }
    (offline_run / "run.json").write_text(json.dumps(meta))
    w = window_for()
    w.open_run(offline_run)
    editor, log = w.review.editor, w.review.log_pane
    assert editor.marks() == {
        7: [("error", "Missing $ inserted.")],
        9: [("warning", "Citation `knuth' undefined (line 9)")],
    }
    assert log.is_open() and "2 error" in log.header.text() and "2 warning" in log.header.text()
    texts = [log.list.topLevelItem(i).text(0) for i in range(log.list.topLevelItemCount())]
    assert texts == ["✗ 7", "✗ figures/x.tex:3", "⚠ 9", "⚠"]


# -- 5. plain words --------------------------------------------------------------------


def test_redraft_is_not_offered_on_an_offline_run_and_says_why(window_for, offline_run):
    w = window_for()
    w.open_run(offline_run)
    pane = w.review
    assert not pane.redraft_button.isEnabled() and not pane.redraft_action.isEnabled()
    assert "offline" in pane.redraft_button.toolTip().lower()


def test_no_internal_names_in_the_timeline_of_an_offline_run(qtbot, window_for, offline_run):
    w = window_for()
    w.open_run(offline_run)
    shown = []
    for r in range(w.timeline.rowCount()):
        shown += [w.timeline.index(r, c).data() or "" for c in (0, 1)]
    text = " ".join(shown)
    for internal in ("status:", "reason:", "files_read", "cut_short", "chars", "{", "_"):
        assert internal not in text, internal
    assert "Offline" in text and "characters" in text


# -- 6. orientation -----------------------------------------------------------------------


def test_the_window_and_the_review_name_the_folder_and_run(window_for, offline_run, material):
    w = window_for()
    assert w.windowTitle() == "Labwright"
    w.open_run(offline_run)
    folder = json.loads((offline_run / "run.json").read_text())["config"]["folder"]
    assert Path(folder).name in w.windowTitle() and offline_run.name in w.windowTitle()
    assert offline_run.name in w.review.title.text()
    assert not w.history_dock.isVisible()  # folded away while reviewing
    w.tokens = 1234
    w.load_folder(material)
    assert w.windowTitle().startswith("material") and w.usage_label.text() == ""
    assert w.history_dock.isVisible()


def test_a_failed_run_shows_no_running_step():
    model = TimelineModel()
    model.apply(
        [
            Milestone("scan", 1, 2, "start", {"plan": ["scan", "explore"]}),
            Milestone("scan", 1, 2, "end"),
            Milestone("explore", 2, 2, "start"),
            Done("failed", reasons=["internal_error"]),
        ]
    )
    assert model.index(1, 0).data(StatusRole) == "failed"
    assert model.index(1, 0).data().startswith("✗")


def test_history_rows_show_folder_time_status_and_pages(window_for, offline_run, isolated_home):
    runs = isolated_home / "runs"
    runs.mkdir()
    shutil.copytree(offline_run, runs / offline_run.name)
    w = window_for()
    row = w.history.item(0).text()
    assert "pendulum" in row and "needs review" in row and "page" in row


def test_quitting_mid_run_asks_first(qtbot, window_for, material, monkeypatch):
    from agent_helpers import route
    from fakes import FakeLLM, call, delay, tool_calls

    def slow(body, n):
        return delay(0.5, tool_calls(call("read_file", {"path": "manual.txt"})))

    with FakeLLM(route(slow)) as llm:
        w = window_for(llm)
        w.load_folder(material)
        qtbot.waitUntil(lambda: "files" in w.scan_label.text(), timeout=10_000)
        qtbot.mouseClick(w.start_button, Qt.MouseButton.LeftButton)
        # the run says when it will end on its own (Settings' time limit, 60 min by default)
        assert "time limit 60 min" in w.usage_label.text()
        asked = []
        monkeypatch.setattr(
            QMessageBox,
            "question",
            lambda *a, **k: asked.append(a[2]) or QMessageBox.StandardButton.No,
        )
        w.quit_action.trigger()
        assert asked and "stop it and quit" in asked[0]
        assert w.isVisible() and w.bridge.running
        monkeypatch.setattr(QMessageBox, "question", lambda *a, **k: QMessageBox.StandardButton.Yes)
        w.quit_action.trigger()
        assert not w.isVisible() and not w.bridge.running


def test_a_folder_dropped_on_the_run_page_opens_it(qtbot, window_for, material, tmp_path):
    other = tmp_path / "other"
    other.mkdir()
    (other / "notes.txt").write_text("x", encoding="utf-8")
    w = window_for()
    w.load_folder(material)
    mime = QMimeData()
    mime.setUrls([QUrl.fromLocalFile(str(other))])
    event = QDropEvent(
        QPointF(5, 5),
        Qt.DropAction.CopyAction,
        mime,
        Qt.MouseButton.LeftButton,
        Qt.KeyboardModifier.NoModifier,
    )
    w.dropEvent(event)
    assert w.folder == other.resolve() and w.stack.currentIndex() == RUN


# -- 7. layout -----------------------------------------------------------------------------


def test_splitter_sizes_are_remembered_in_labwright_home(
    qtbot, window_for, offline_run, isolated_home
):
    w = window_for()
    w.resize(1024, 640)
    w.open_run(offline_run)
    split = w.review.splitter
    total = sum(split.sizes())
    split.setSizes([total - 300, 300])
    split.splitterMoved.emit(total - 300, 1)  # what dragging the handle reports
    qtbot.waitUntil(lambda: (isolated_home / "window.ini").is_file(), timeout=2_000)
    w2 = window_for()
    w2.resize(1024, 640)
    w2.open_run(offline_run)
    assert w2.review.splitter.sizes()[1] == pytest.approx(300, abs=30)


def test_open_items_wrap_and_name_their_line(window_for, offline_run):
    w = window_for()
    w.resize(1024, 640)
    w.open_run(offline_run)
    items = w.review.items
    assert items.wordWrap()
    with_line = [
        items.item(i) for i in range(items.count()) if items.item(i).data(Qt.ItemDataRole.UserRole)
    ]
    assert with_line and all("line " in i.toolTip() for i in with_line)


# -- 8. whole Chinese -------------------------------------------------------------------------


def _english_patterns() -> list[re.Pattern[str]]:
    """Each interface string whose Chinese differs from it, as a pattern of its English
    form ({0} matches anything): a widget showing one was not translated."""
    import xml.etree.ElementTree as ET

    ts = Path(__file__).resolve().parents[1] / "desktop/labwright/resources/translations"
    root = ET.parse(ts / "labwright_zh_CN.ts").getroot()
    out = []
    for m in root.iter("message"):
        source, translation = m.findtext("source") or "", m.findtext("translation") or ""
        if source == translation or not any(c.isalpha() for c in source):
            continue
        pattern = re.sub(r"\\\{[^}]*\\\}|%n", ".+", re.escape(source.replace("&", "")))
        out.append(re.compile(pattern, re.DOTALL))
    return out


def _shown_texts(w) -> list[str]:
    from PySide6.QtWidgets import QAbstractButton, QLabel, QTabWidget

    texts = [w.windowTitle(), w.progress.format(), w.history_dock.windowTitle()]
    for label in w.findChildren(QLabel):
        if label.isVisibleTo(w):
            texts.append(label.text())
    for button in w.findChildren(QAbstractButton):
        if button.isVisibleTo(w):
            texts += [button.text(), button.toolTip()]
    for tabs in w.findChildren(QTabWidget):
        texts += [tabs.tabText(i) for i in range(tabs.count())]
    for menu in (w.file_menu, w.edit_menu, w.run_menu, w.view_menu, w.help_menu):
        texts.append(menu.title())
        texts += [a.text() for a in _menu_actions(menu)]
    model = w.timeline
    texts += [model.headerData(c, Qt.Orientation.Horizontal) for c in (0, 1)]
    for r in range(model.rowCount()):
        texts += [model.index(r, c).data() or "" for c in (0, 1)]
    return [t.replace("&", "") for t in texts if t]


def test_switching_to_chinese_retranslates_everything_on_screen(window_for, offline_run):
    from labwright.gui.i18n import install_language

    w = window_for()
    w.resize(1024, 640)
    w.open_run(offline_run)  # the review pane is built and shown
    qtbot_texts_en = _shown_texts(w)
    assert any("Open items" in t for t in qtbot_texts_en)
    patterns = _english_patterns()
    try:
        install_language("zh_CN")
        w.retranslate()  # what the app does on a language switch
        for page in (REVIEW, RUN):
            if page == RUN:
                w.review.back_button.click()
            left = [t for t in _shown_texts(w) if any(p.fullmatch(t) for p in patterns)]
            assert left == [], left
        assert w.timeline.index(0, 0).data().endswith("扫描文件夹")
        assert w.banner.isVisible() and "离线" in w.banner.text()
    finally:
        install_language("en")
        w.retranslate()
    assert w.start_button.text() == "Start"


def test_chinese_brings_qt_own_buttons_and_a_sans_serif_font(qapp):
    from PySide6.QtGui import QFontDatabase
    from PySide6.QtWidgets import QDialogButtonBox

    from labwright.gui.i18n import install_language

    try:
        install_language("zh_CN")
        box = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel
        )
        assert {b.text() for b in box.buttons()} == {"确定", "取消"}
        if "Noto Sans CJK SC" in QFontDatabase.families():
            assert "Noto Sans CJK SC" in qapp.font().families()
    finally:
        install_language("en")
    assert "Noto Sans CJK SC" not in qapp.font().families()


def test_core_messages_lose_their_command_line_flags():
    from labwright.gui.main_window import plain_words

    said = plain_words(
        "No API key for DeepSeek. Add one in Settings, set DEEPSEEK_API_KEY, pass "
        "--api-key, or run offline (--offline, or tick “Offline” in the app)."
    )
    assert "--" not in said and said.endswith("or run offline (tick “Offline”).")
    assert "--" not in plain_words("Cannot reach the server. Check it, or run with --offline.")


def test_a_refused_redraft_keeps_the_runs_own_status(offline_run):
    from labwright.core.settings.saved import load_settings
    from labwright.gui.run_control import _redraft_job

    events = list(_redraft_job(offline_run, None, load_settings(), "", threading.Event(), print))
    assert [e.type for e in events] == ["error", "done"]
    assert "offline" in events[0].message and events[1].status == "degraded"


def _broken_compile(run_dir: Path) -> None:
    meta = json.loads((run_dir / "run.json").read_text())
    meta["compile"] = {
        "ok": False,
        "errors": [{"file": "report.tex", "line": 7, "message": "Missing $ inserted."}],
        "warnings": [],
    }
    (run_dir / "run.json").write_text(json.dumps(meta))


def test_in_chinese_open_items_and_export_refusals_are_worded_from_the_cores_data(
    qtbot, window_for, offline_run, monkeypatch
):
    from labwright.gui.i18n import install_language

    _broken_compile(offline_run)
    w = window_for()
    try:
        install_language("zh_CN")
        w.retranslate()
        w.open_run(offline_run)
        items = [w.review.items.item(i).text() for i in range(w.review.items.count())]
        shown = "\n".join(items)
        assert "编译错误：Missing $ inserted." in shown  # TeX's words stay TeX's
        assert "尚未对照材料核查的要求：" in shown and "TODO 占位：\\author{TODO}" in shown
        for english in ("Requirement not", "Compile error", "placeholder", "(comment)"):
            assert english not in shown, english
        dialogs = Dialogs(monkeypatch, offline_run / "inside.zip")
        qtbot.mouseClick(w.review.export_button, Qt.MouseButton.LeftButton)
        assert dialogs.warned and "位于运行文件夹之内" in dialogs.warned[0]
        install_language("en")
        w.retranslate()  # the same items, worded again
        items = [w.review.items.item(i).text() for i in range(w.review.items.count())]
        assert any(t.startswith("✗ Compile error: Missing $ inserted.") for t in items)
    finally:
        install_language("en")


def test_in_chinese_a_model_failure_is_said_in_chinese_and_in_english_as_the_server_said(
    qtbot, window_for, material
):
    from fakes import FakeLLM, http_error
    from labwright.gui.i18n import install_language

    with FakeLLM([http_error(401, "invalid key")] * 4) as llm:
        w = window_for(llm)
        try:
            install_language("zh_CN")
            w.retranslate()
            w.load_folder(material)
            qtbot.waitUntil(lambda: w.start_button.isEnabled(), timeout=10_000)
            qtbot.mouseClick(w.start_button, Qt.MouseButton.LeftButton)
            qtbot.waitUntil(lambda: w.banner.text() != "", timeout=20_000)
            assert "模型服务器拒绝了 API 密钥" in w.banner.text()
            qtbot.waitUntil(lambda: not w.bridge.running, timeout=20_000)
            assert any("拒绝了 API 密钥" in t for t in _timeline_details(w.timeline))
            install_language("en")
            w.retranslate()
            assert "refused the API key (401)" in w.banner.text()
        finally:
            install_language("en")


def _timeline_details(model, parent=None) -> list[str]:
    """The detail column of every row, nested ones too."""
    from PySide6.QtCore import QModelIndex

    parent = parent or QModelIndex()
    out = []
    for r in range(model.rowCount(parent)):
        out.append(model.index(r, 1, parent).data() or "")
        out += _timeline_details(model, model.index(r, 0, parent))
    return out
