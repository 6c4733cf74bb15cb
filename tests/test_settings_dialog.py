"""The settings dialog (pytest-qt, offscreen), against a fake keyring and the fake server."""

from __future__ import annotations

import threading

import pytest
from keyring.backends import fail
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QDialog

from fake_keyring import installed
from fakes import FakeLLM, call, rejects_tools, text_only, tool_calls
from labwright.core.settings.config import PROVIDERS
from labwright.core.settings.saved import (
    Settings,
    get_api_key,
    load_settings,
    set_api_key,
    settings_path,
)
from labwright.gui import settings_dialog
from labwright.gui.settings_dialog import SettingsDialog

KEY = "sk-typed-in-dialog-0123456789-f3a9"
CALLS_THE_TOOL = tool_calls(call("report_ready", {"word": "ok"}))


@pytest.fixture
def make_dialog(qtbot, memory_keyring):
    def make(settings: Settings | None = None) -> SettingsDialog:
        dialog = SettingsDialog(settings or Settings())
        qtbot.addWidget(dialog)
        dialog.show()
        return dialog

    return make


def choose(dialog: SettingsDialog, provider: str) -> None:
    dialog.provider_combo.setCurrentIndex(dialog.provider_combo.findData(provider))


def test_each_preset_fills_url_and_models(make_dialog):
    dialog = make_dialog(Settings(provider="custom", base_url="http://x.test/v1"))
    for name, preset in PROVIDERS.items():
        choose(dialog, "custom")
        dialog.write_edit.setText("something the user typed")
        choose(dialog, name)
        assert dialog.url_edit.text() == preset.base_url
        assert dialog.url_edit.isReadOnly()
        assert dialog.explore_edit.text() == preset.explore_model
        assert dialog.write_edit.text() == preset.write_model
        assert dialog.vision_edit.text() == (preset.vision_model or "")


def test_custom_url_is_editable_and_kept(make_dialog):
    dialog = make_dialog()
    choose(dialog, "custom")
    assert not dialog.url_edit.isReadOnly()
    # Custom starts from what was shown, then keeps what the user typed.
    assert dialog.url_edit.text() == PROVIDERS["deepseek"].base_url
    dialog.url_edit.setText("http://lab-server.test:8000/v1")
    dialog.explore_edit.setText("local-explorer")
    choose(dialog, "openai")
    assert dialog.url_edit.text() == PROVIDERS["openai"].base_url
    choose(dialog, "custom")
    assert dialog.url_edit.text() == "http://lab-server.test:8000/v1"
    assert dialog.explore_edit.text() == "local-explorer"
    dialog.accept()
    saved = load_settings()
    assert (saved.provider, saved.base_url) == ("custom", "http://lab-server.test:8000/v1")
    assert dialog.result_settings() == saved


def test_typed_key_goes_to_the_keyring_and_into_no_file(make_dialog, memory_keyring, isolated_home):
    dialog = make_dialog()
    assert dialog.key_edit.echoMode() == dialog.key_edit.EchoMode.Password
    assert dialog.key_edit.text() == ""
    dialog.key_edit.setText(KEY)
    dialog.accept()
    assert dialog.result() == QDialog.DialogCode.Accepted
    assert memory_keyring.store == {("labwright", "deepseek"): KEY}
    files = [p for p in isolated_home.rglob("*") if p.is_file()]
    assert any(p.name == "settings.json" for p in files)
    for path in files:
        assert KEY.encode() not in path.read_bytes(), path
    # Reopened: the field is empty and the placeholder shows only a masked fragment.
    again = make_dialog(load_settings())
    assert again.key_edit.text() == ""
    assert again.key_edit.placeholderText() == "stored: sk-…f3a9 (keyring)"
    assert again.forget_button.isEnabled()


def test_forget_key_deletes_it_on_ok_only(make_dialog, memory_keyring):
    set_api_key("deepseek", KEY)
    dialog = make_dialog()
    dialog.forget_button.click()
    assert "forgotten" in dialog.key_edit.placeholderText()
    assert memory_keyring.store  # nothing happens before OK
    dialog.reject()
    assert memory_keyring.store
    dialog = make_dialog()
    dialog.forget_button.click()
    dialog.accept()
    assert memory_keyring.store == {}


def test_key_belongs_to_the_provider_it_was_typed_for(make_dialog, memory_keyring):
    dialog = make_dialog()
    dialog.key_edit.setText(KEY)
    choose(dialog, "openai")
    assert dialog.key_edit.text() == ""
    choose(dialog, "deepseek")
    assert dialog.key_edit.text() == KEY
    dialog.accept()
    assert memory_keyring.store == {("labwright", "deepseek"): KEY}


def test_environment_key_is_named_not_shown(qtbot, monkeypatch):
    monkeypatch.setenv("DEEPSEEK_API_KEY", KEY)
    with installed(fail.Keyring()):
        dialog = SettingsDialog(Settings())
        qtbot.addWidget(dialog)
        assert dialog.key_edit.placeholderText() == "from DEEPSEEK_API_KEY"
        assert not dialog.forget_button.isEnabled()


def test_no_keyring_error_is_shown_and_the_dialog_stays(qtbot):
    with installed(fail.Keyring()):
        dialog = SettingsDialog(Settings())
        qtbot.addWidget(dialog)
        dialog.show()
        dialog.key_edit.setText(KEY)
        dialog.accept()
        assert dialog.isVisible() and dialog.result() != QDialog.DialogCode.Accepted
        assert dialog.error_label.isVisible()
        assert "No system keyring is available" in dialog.error_label.text()
        assert KEY not in dialog.error_label.text()
        # Clearing the key lets the rest be saved.
        dialog.key_edit.clear()
        dialog.accept()
        assert dialog.result() == QDialog.DialogCode.Accepted


def test_test_connection_lists_the_servers_models(make_dialog, qtbot):
    with FakeLLM([CALLS_THE_TOOL], models=("alpha-1", "beta-2")) as llm:
        dialog = make_dialog()
        choose(dialog, "custom")
        dialog.url_edit.setText(llm.base_url)
        with qtbot.waitSignal(dialog.connection_tested, timeout=10_000) as blocker:
            dialog.test_button.click()
        assert blocker.args == [True]
    items = [dialog.models_list.item(i).text() for i in range(dialog.models_list.count())]
    assert items == ["alpha-1", "beta-2"]
    assert "2 models" in dialog.test_status.text()
    assert dialog.test_button.isEnabled()


def test_test_connection_uses_the_stored_key(make_dialog, qtbot):
    set_api_key("custom", "sk-right-key-0000")
    with FakeLLM([CALLS_THE_TOOL], api_key="sk-right-key-0000") as llm:
        dialog = make_dialog(Settings(provider="custom", base_url=llm.base_url))
        with qtbot.waitSignal(dialog.connection_tested, timeout=10_000) as blocker:
            dialog.test_button.click()
        assert blocker.args == [True]


def test_wrong_key_shows_the_401_message_without_the_key(make_dialog, qtbot):
    wrong = "sk-wrong-key-9876543210"
    with FakeLLM(api_key="sk-right") as llm:
        dialog = make_dialog(Settings(provider="custom", base_url=llm.base_url))
        dialog.key_edit.setText(wrong)
        with qtbot.waitSignal(dialog.connection_tested, timeout=10_000) as blocker:
            dialog.test_button.click()
        assert blocker.args == [False]
    message = dialog.test_status.text()
    assert "401" in message and "Check the key" in message
    assert wrong not in message
    assert dialog.models_list.count() == 0


def test_unreachable_server_says_what_to_do(make_dialog, qtbot):
    dialog = make_dialog(Settings(provider="custom", base_url="http://127.0.0.1:9/v1"))
    with qtbot.waitSignal(dialog.connection_tested, timeout=20_000):
        dialog.test_button.click()
    assert "Cannot reach" in dialog.test_status.text()


@pytest.mark.parametrize(
    "script, verdict",
    [
        ([CALLS_THE_TOOL], "my-explorer can call tools."),
        (
            text_only(),
            "my-explorer answered in text without calling the tool (weak tool support).",
        ),
        (
            rejects_tools(),
            "my-explorer rejects tools (HTTP 400): "
            "'registry.ollama.ai/library/my-explorer does not support tools'",
        ),
    ],
)
def test_test_connection_says_whether_the_model_can_call_tools(make_dialog, qtbot, script, verdict):
    with FakeLLM(script, api_key=KEY) as llm:
        dialog = make_dialog()
        choose(dialog, "custom")
        for edit, typed in ((dialog.url_edit, llm.base_url), (dialog.explore_edit, "my-explorer")):
            qtbot.keyClick(edit, Qt.Key.Key_A, Qt.KeyboardModifier.ControlModifier)
            qtbot.keyClicks(edit, typed)
        qtbot.keyClicks(dialog.key_edit, KEY)
        with qtbot.waitSignal(dialog.connection_tested, timeout=60_000) as blocker:
            qtbot.mouseClick(dialog.test_button, Qt.MouseButton.LeftButton)
        requests = list(llm.requests)
    assert blocker.args == [True]  # the server answered; the verdict is about the model
    assert dialog.tools_status.isVisible()
    assert verdict in dialog.tools_status.text()
    assert KEY not in dialog.tools_status.text() + dialog.test_status.text()
    assert [r["model"] for r in requests] == ["my-explorer"]  # one tiny request
    assert requests[0]["tools"][0]["function"]["name"] == "report_ready"
    if "rejects" in verdict:
        assert "Use a model that supports tool (function) calling." in dialog.tools_status.text()


def test_every_preset_is_offered_and_local_ones_take_no_key(make_dialog):
    dialog = make_dialog()
    offered = [dialog.provider_combo.itemData(i) for i in range(dialog.provider_combo.count())]
    assert offered == [*PROVIDERS, "custom"]
    labels = [dialog.provider_combo.itemText(i) for i in range(dialog.provider_combo.count())]
    assert "Qwen (DashScope)" in labels and "llama.cpp server (on this computer)" in labels
    for name, preset in PROVIDERS.items():
        choose(dialog, name)
        assert dialog.key_edit.isEnabled() == preset.needs_key, name
        if preset.local:
            assert dialog.key_edit.placeholderText() == (
                "Not needed: the server runs on this computer"
            )
        else:
            assert "Paste your API key" in dialog.key_edit.placeholderText()
    choose(dialog, "custom")
    assert dialog.key_edit.isEnabled()


def test_closing_waits_for_a_running_test(make_dialog, qtbot, monkeypatch):
    release = threading.Event()

    def slow_probe(relay, base_url, key, key_lookup, model, provider):
        release.wait(10)
        relay.finished.emit(["m"], "", None)

    monkeypatch.setattr(settings_dialog, "_probe", slow_probe)
    dialog = make_dialog()
    dialog.test_button.click()
    assert not dialog.test_button.isEnabled()
    dialog.reject()
    assert dialog.isVisible()  # not closed with a thread still running
    release.set()
    qtbot.waitUntil(lambda: not dialog.isVisible(), timeout=5_000)
    assert dialog.result() == QDialog.DialogCode.Rejected


def test_language_changed_only_when_it_changed(make_dialog, qtbot):
    dialog = make_dialog()
    with qtbot.assertNotEmitted(dialog.language_changed):
        dialog.accept()
    dialog = make_dialog()
    dialog.ui_lang_combo.setCurrentIndex(dialog.ui_lang_combo.findData("zh_CN"))
    with qtbot.waitSignal(dialog.language_changed) as blocker:
        dialog.accept()
    assert blocker.args == ["zh_CN"]
    assert load_settings().ui_language == "zh_CN"


def test_report_defaults_budget_and_prices_are_saved(make_dialog):
    dialog = make_dialog(Settings(recent_folders=["/data/x"]))
    dialog.template_combo.setCurrentIndex(dialog.template_combo.findData("lab-zh"))
    dialog.report_lang_combo.setCurrentIndex(dialog.report_lang_combo.findData("zh"))
    dialog.reflect_spin.setValue(0)
    dialog.budget_spin.setValue(150_000)
    dialog.add_price_button.click()  # proposes the first unpriced model in use
    table = dialog.prices_table
    assert table.item(0, 0).text() == "deepseek-chat"
    table.item(0, 1).setText("0.27")
    table.item(0, 2).setText("1,10")  # a decimal comma is understood
    dialog.accept()
    s = load_settings()
    assert (s.template, s.report_lang, s.reflect, s.budget_tokens) == ("lab-zh", "zh", 0, 150_000)
    assert s.prices == {"deepseek-chat": {"prompt": 0.27, "completion": 1.1}}
    assert s.recent_folders == ["/data/x"]  # untouched by the dialog
    # And back: the defaults show as such.
    again = make_dialog(s)
    assert again.reflect_spin.value() == 0 and again.prices_table.rowCount() == 1
    again.reflect_spin.setValue(-1)
    again.budget_spin.setValue(0)
    again.template_combo.setCurrentIndex(0)
    again.prices_table.selectRow(0)
    again.remove_price_button.click()
    again.accept()
    s = load_settings()
    assert (s.reflect, s.budget_tokens, s.template, s.prices) == (None, None, None, {})


def test_a_bad_price_keeps_the_dialog_open(make_dialog):
    dialog = make_dialog()
    dialog.add_price_button.click()
    dialog.prices_table.item(0, 1).setText("cheap")
    dialog.accept()
    assert dialog.isVisible() and "Price row 1" in dialog.error_label.text()
    assert not settings_path().exists()  # nothing saved


def test_escape_cancels_and_enter_accepts(make_dialog, qtbot):
    dialog = make_dialog()
    dialog.write_edit.setText("changed")
    qtbot.keyClick(dialog, Qt.Key.Key_Escape)
    assert dialog.result() == QDialog.DialogCode.Rejected
    assert load_settings().write_model == "deepseek-chat"
    dialog = make_dialog()
    dialog.write_edit.setFocus()
    dialog.write_edit.setText("changed")
    qtbot.keyClick(dialog.write_edit, Qt.Key.Key_Return)
    assert dialog.result() == QDialog.DialogCode.Accepted
    assert load_settings().write_model == "changed"


def test_nothing_stored_when_cancelled(make_dialog, memory_keyring):
    dialog = make_dialog()
    dialog.key_edit.setText(KEY)
    dialog.reject()
    assert memory_keyring.store == {}
    assert get_api_key("deepseek") == (None, "none")


def test_the_time_limit_is_set_in_settings_and_reaches_the_run(make_dialog, qtbot, tmp_path):
    from PySide6.QtWidgets import QDialogButtonBox

    from labwright.core.settings.resolve import resolve_config

    dialog = make_dialog()
    assert dialog.minutes_spin.value() == 60  # the default shows as a number, not a blank
    dialog.minutes_spin.setFocus()
    dialog.minutes_spin.selectAll()
    qtbot.keyClicks(dialog.minutes_spin, "15")
    qtbot.mouseClick(dialog.buttons.button(QDialogButtonBox.StandardButton.Ok), Qt.LeftButton)
    assert load_settings().max_minutes == 15
    folder = tmp_path / "material"
    folder.mkdir()
    assert resolve_config(folder, flags={}).max_minutes == 15.0
    assert make_dialog(load_settings()).minutes_spin.value() == 15
