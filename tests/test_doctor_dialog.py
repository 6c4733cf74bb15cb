"""The doctor in the app: Help > Check Setup…, and on the first start when something needed is missing."""

from __future__ import annotations

import asyncio

import pytest
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QDialogButtonBox

from fakes import FakeLLM, call, tool_calls
from labwright.core.report.latex import Engines
from labwright.core.settings.saved import Settings, save_settings
from labwright.gui.doctor_dialog import DoctorDialog

FULL_TEX = Engines(
    latexmk="/usr/bin/latexmk",
    xelatex="/usr/bin/xelatex",
    lualatex=None,
    pdflatex=None,
    ctex=True,
    cjk_font=True,
)


def _rows(dialog: DoctorDialog) -> dict[str, tuple[str, str]]:
    t = dialog.table
    return {
        t.item(r, 0).text(): (t.item(r, 1).text(), t.item(r, 2).text()) for r in range(t.rowCount())
    }


def _menu_action(window, menu_title: str, action_title: str):
    for menu_action in window.menuBar().actions():
        if menu_action.text().replace("&", "") == menu_title:
            for action in menu_action.menu().actions():
                if action.text().replace("&", "") == action_title:
                    return action
    raise AssertionError(f"no {menu_title} > {action_title}")


def test_help_check_setup_shows_the_checks_and_the_fixes(qtbot, window_for, monkeypatch):
    monkeypatch.setenv("LABWRIGHT_TEX", "none")
    with FakeLLM([tool_calls(call("report_ready", {"word": "ok"}))]) as llm:
        window = window_for(llm)
        _menu_action(window, "Help", "Check Setup…").trigger()
        qtbot.waitUntil(lambda: window.findChild(DoctorDialog) is not None)
        dialog = window.findChild(DoctorDialog)
        qtbot.waitUntil(lambda: bool(dialog.checks), timeout=45_000)  # the worker answered
        assert llm.calls == 1  # the models list, then one tiny tool-call request
    rows = _rows(dialog)
    assert rows["TeX engine"][0] == "missing" and "no xelatex" in rows["TeX engine"][1]
    assert rows["Model provider"][0] == "ok" and "answers" in rows["Model provider"][1]
    assert "can call tools" in rows["Model provider"][1]
    assert "Qt platform libraries" not in rows  # the window is open: Qt's libraries are there
    assert "not ready" in dialog.summary.text() and "TeX engine" in dialog.summary.text()
    assert "sudo apt-get install texlive-xetex" in dialog.fixes.toPlainText()

    qtbot.mouseClick(dialog.copy_button, qtbot_left())
    assert "sudo apt-get install texlive-xetex" in QGuiApplication.clipboard().text()
    close = dialog.findChild(QDialogButtonBox).button(QDialogButtonBox.StandardButton.Close)
    with qtbot.waitSignal(dialog.finished):
        qtbot.mouseClick(close, qtbot_left())
    assert not dialog.isVisible()


def test_check_again_runs_the_checks_anew(qtbot, window_for, monkeypatch):
    monkeypatch.setenv("LABWRIGHT_TEX", "none")
    window = window_for()  # DeepSeek without a key: nothing is sent anywhere
    monkeypatch.delenv("LABWRIGHT_API_KEY")
    window.check_setup_action.trigger()
    qtbot.waitUntil(lambda: window.findChild(DoctorDialog) is not None)
    dialog = window.findChild(DoctorDialog)
    qtbot.waitUntil(lambda: bool(dialog.checks), timeout=15_000)
    assert _rows(dialog)["TeX engine"][0] == "missing"
    monkeypatch.setattr("labwright.core.report.latex.probe_engines", lambda: FULL_TEX)
    with qtbot.waitSignal(dialog.checked, timeout=15_000):
        qtbot.mouseClick(dialog.again_button, qtbot_left())
    assert _rows(dialog)["TeX engine"][0] == "ok"
    dialog.close()


def qtbot_left():
    from PySide6.QtCore import Qt

    return Qt.MouseButton.LeftButton


@pytest.fixture
def started(qtbot):
    """`labwright` up to its event loop, as gui.app.start() makes it; closed after."""
    from labwright.gui import app as gui_app

    made = []

    def start():
        app, window, loop = gui_app.start()
        qtbot.addWidget(window)
        made.append((window, loop))
        return window

    yield start
    for window, loop in made:
        window.close()
        asyncio.set_event_loop(None)
        loop.close()


def test_first_start_without_tex_shows_the_checks(started, monkeypatch):
    monkeypatch.setenv("LABWRIGHT_TEX", "none")
    window = started()
    dialog = window.findChild(DoctorDialog)
    assert dialog is not None and dialog.isVisible()
    rows = _rows(dialog)
    assert rows["TeX engine"][0] == "missing"
    assert "Model provider" not in rows  # no provider chosen yet: nothing is asked of one


def test_first_start_with_everything_there_shows_nothing(started, monkeypatch):
    monkeypatch.setattr("labwright.core.report.latex.probe_engines", lambda: FULL_TEX)
    window = started()
    assert window.findChild(DoctorDialog) is None  # a missing keyring is no reason to interrupt


def test_later_starts_show_nothing(started, monkeypatch):
    monkeypatch.setenv("LABWRIGHT_TEX", "none")
    save_settings(Settings())  # the app has run before
    window = started()
    assert window.findChild(DoctorDialog) is None
