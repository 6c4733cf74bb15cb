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
    assert rows["TeX engine"][0] == "warning" and "no xelatex" in rows["TeX engine"][1]
    assert rows["Model provider"][0] == "ok" and "answers" in rows["Model provider"][1]
    assert "can call tools" in rows["Model provider"][1]
    assert "Qt platform libraries" not in rows  # the window is open: Qt's libraries are there
    # no TeX: reports are written (as .tex), only not compiled: a warning, not "not ready"
    assert dialog.summary.text() == (
        "Labwright can make reports. Warnings: TeX engine, Chinese reports (ctex, CJK font)."
    )
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
    assert _rows(dialog)["TeX engine"][0] == "warning"
    monkeypatch.setattr("labwright.core.report.latex.probe_engines", lambda: FULL_TEX)
    with qtbot.waitSignal(dialog.checked, timeout=15_000):
        qtbot.mouseClick(dialog.again_button, qtbot_left())
    assert _rows(dialog)["TeX engine"][0] == "ok"
    dialog.close()


@pytest.mark.parametrize(
    "lang, provider, key_row, summary",
    [
        (
            "en",
            (
                "warning",
                "deepseek at https://api.deepseek.com/v1: no API key yet. Offline "
                "reports work; for reports written by a model, add one in Settings (kept in a "
                "file only you can read)",
            ),
            (
                "ok",
                "deepseek: none yet; with no system keyring here, Settings keeps keys in "
                "a file only you can read, in {keys}",
            ),
            "Labwright can make reports. Warnings: Model provider.",
        ),
        (
            "zh_CN",
            (
                "警告",
                "deepseek（https://api.deepseek.com/v1）：尚无 API 密钥。离线报告可以生成；"
                "要由模型撰写报告，请在设置中添加密钥（保存在只有你能读取的文件中）",
            ),
            (
                "正常",
                "deepseek：尚无密钥；本机没有系统钥匙串，设置会把密钥保存在只有你能读取的"
                "文件中，位于 {keys}",
            ),
            "Labwright 可以生成报告。警告：模型服务商。",
        ),
    ],
)
def test_check_setup_without_a_key_is_no_reason_for_not_ready(
    qtbot, qloop, monkeypatch, isolated_home, lang, provider, key_row, summary
):
    """Issue 24: DeepSeek, no key, no keyring: offline reports work, so the provider line
    is a warning saying so and how to add a key here, never "not ready"."""
    from labwright.gui.i18n import install_language
    from labwright.gui.main_window import MainWindow

    monkeypatch.setattr("labwright.core.report.latex.probe_engines", lambda: FULL_TEX)
    install_language(lang)
    try:
        window = MainWindow(qloop, Settings())
        qtbot.addWidget(window)
        window.show()
        window.check_setup_action.trigger()  # Help > Check Setup…
        qtbot.waitUntil(lambda: window.findChild(DoctorDialog) is not None)
        dialog = window.findChild(DoctorDialog)
        qtbot.waitUntil(lambda: bool(dialog.checks), timeout=15_000)
        rows = _rows(dialog)
        words = dialog.summary.text()
        with qtbot.waitSignal(dialog.finished):
            dialog.reject()
        window.close()
    finally:
        install_language("en")
    names = {"en": ("Model provider", "API key"), "zh_CN": ("模型服务商", "API 密钥")}[lang]
    assert rows[names[0]] == provider
    assert rows[names[1]] == (key_row[0], key_row[1].format(keys=isolated_home / "keys"))
    assert words == summary
    assert "not ready" not in words and "尚未就绪" not in words
    assert "cannot be stored" not in str(rows)  # no fix that Settings could not do
    fixes = dialog.fixes.toPlainText()
    assert "“Keep in a file only I can read” (no keyring here)" in fixes


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
    assert rows["TeX engine"][0] == "warning"  # shown anyway: no PDFs without it
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
