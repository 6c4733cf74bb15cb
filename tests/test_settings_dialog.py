"""The settings dialog (pytest-qt, offscreen), against a fake keyring and the fake server."""

from __future__ import annotations

import threading

import pytest
from keyring.backends import fail
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QDialog, QPushButton

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


def _click_ok(qtbot, dialog: SettingsDialog) -> None:
    from PySide6.QtWidgets import QDialogButtonBox

    ok = dialog.buttons.button(QDialogButtonBox.StandardButton.Ok)
    qtbot.mouseClick(ok, Qt.MouseButton.LeftButton)


def _choose_store(qtbot, dialog: SettingsDialog, text: str) -> None:
    """As a person does with the keyboard: focus the list of places, step to `text`."""
    combo = dialog.key_store_combo
    combo.setFocus()
    for _ in range(combo.count() + 1):
        if combo.currentText() == text:
            return
        qtbot.keyClick(combo, Qt.Key.Key_Down)
    raise AssertionError(f"{text!r} is not offered: {_items(combo)}")


def _items(combo) -> list[str]:
    return [combo.itemText(i) for i in range(combo.count())]


def _fits(edit) -> bool:
    """The line edit shows its whole placeholder (the hint was cut off before)."""
    room = edit.contentsRect().width() - 2 * edit.textMargins().left() - 8
    return edit.fontMetrics().horizontalAdvance(edit.placeholderText()) <= room


def _files_holding(root, needle: str) -> list[str]:
    return sorted(
        str(p.relative_to(root))
        for p in root.rglob("*")
        if p.is_file() and not p.is_symlink() and needle.encode() in p.read_bytes()
    )


def test_without_a_keyring_the_key_is_kept_in_a_file_only_you_can_read(qtbot, isolated_home):
    """Issue 24: no Secret Service. The dialog says so, offers a file only you can read
    or this session, never the keyring; the key typed and "Keep in a file only I can read"
    chosen, OK stores it (0600) and the reopened dialog says where."""
    import stat

    dialog = SettingsDialog(Settings())  # conftest: keyring's fail backend
    qtbot.addWidget(dialog)
    dialog.show()
    qtbot.waitExposed(dialog)
    assert dialog.key_edit.isEnabled() and _fits(dialog.key_edit)
    assert dialog.key_edit.placeholderText() == "No key stored. Paste your API key here."
    combo, note = dialog.key_store_combo, dialog.key_store_note
    assert _items(combo) == ["Keep in a file only I can read", "Keep for this session only"]
    assert combo.currentIndex() == -1 and not combo.isEnabled()  # nothing chosen for you
    assert note.isVisible() and note.text() == (
        "This computer has no system keyring (no Secret Service). Labwright can keep the key "
        "in a file only you can read, or for this session only."
    )
    # no text promises a keyring this machine does not have
    texts = [dialog.key_edit.toolTip(), note.text(), *_items(combo)]
    assert not any("keyring" in t.replace("no system keyring", "") for t in texts), texts

    qtbot.keyClicks(dialog.key_edit, KEY)
    assert combo.isEnabled()
    _click_ok(qtbot, dialog)  # not chosen yet: asked, nothing stored
    assert dialog.isVisible() and dialog.error_label.text() == (
        "Choose where to keep the key: in a file only you can read, or for this session only."
    )
    assert not (isolated_home / "keys").exists()
    _choose_store(qtbot, dialog, "Keep in a file only I can read")
    path = isolated_home / "keys" / "deepseek"
    assert note.text() == (
        f"Saved in {path}, which only your user account can read (as gh keeps its token)."
    )
    _click_ok(qtbot, dialog)
    assert dialog.result() == QDialog.DialogCode.Accepted
    assert path.read_text() == KEY + "\n" and stat.S_IMODE(path.stat().st_mode) == 0o600
    assert _files_holding(isolated_home, KEY) == ["keys/deepseek"]  # settings.json: no key
    assert KEY not in dialog.error_label.text() + note.text()

    again = SettingsDialog(load_settings())
    qtbot.addWidget(again)
    again.show()
    qtbot.waitExposed(again)
    assert again.key_edit.text() == ""
    assert again.key_edit.placeholderText() == "stored: sk-…f3a9 (file)"
    assert _fits(again.key_edit)
    assert again.key_store_combo.currentText() == "Keep in a file only I can read"
    assert again.forget_button.isEnabled()
    assert get_api_key("deepseek") == (KEY, "file")  # what a run looks up


def test_a_key_for_this_session_only_is_written_nowhere(qtbot, isolated_home):
    dialog = SettingsDialog(Settings())
    qtbot.addWidget(dialog)
    dialog.show()
    qtbot.keyClicks(dialog.key_edit, KEY)
    _choose_store(qtbot, dialog, "Keep for this session only")
    assert "nothing is written to disk" in dialog.key_store_note.text()
    _click_ok(qtbot, dialog)
    assert dialog.result() == QDialog.DialogCode.Accepted
    assert _files_holding(isolated_home, KEY) == [] and not (isolated_home / "keys").exists()
    again = SettingsDialog(load_settings())
    qtbot.addWidget(again)
    assert again.key_edit.placeholderText() == "stored: sk-…f3a9 (this session)"
    assert get_api_key("deepseek") == (KEY, "session")
    # Forget key, OK: gone from the session too
    qtbot.mouseClick(again.forget_button, Qt.MouseButton.LeftButton)
    _click_ok(qtbot, again)
    assert get_api_key("deepseek") == (None, "none")


def test_with_a_keyring_it_is_offered_first_and_named(make_dialog, memory_keyring):
    dialog = make_dialog()
    combo = dialog.key_store_combo
    assert _items(combo) == [
        "Keep in the system keyring (MemoryKeyring)",
        "Keep in a file only I can read",
        "Keep for this session only",
    ]
    assert combo.currentIndex() == 0
    assert dialog.key_store_note.text() == (
        "The system keyring (MemoryKeyring) keeps the key encrypted, unlocked when you log in."
    )


def test_a_key_kept_in_a_file_is_used_by_the_next_run(
    qtbot, qloop, isolated_home, material, monkeypatch
):
    """The key typed in Settings for a custom server, kept in a file: Start in the window
    sends it, and only it, to that server; no other file holds it."""
    from agent_helpers import FINISH_ARGS, route
    from canary import leaks
    from fakes import FakeLLM
    from labwright.gui.main_window import MainWindow

    script = [
        tool_calls(call("read_file", {"path": "manual.txt"})),
        tool_calls(call("finish_exploration", FINISH_ARGS)),
    ]
    with FakeLLM(route(script), api_key=KEY) as llm:
        start = Settings(
            provider="custom",
            base_url=llm.base_url,
            explore_model="fake-explore",
            write_model="fake-write",
            reflect=0,
        )
        monkeypatch.setenv("LABWRIGHT_TEX", "none")  # the key is the point, not the PDF
        dialog = SettingsDialog(start)
        qtbot.addWidget(dialog)
        dialog.show()
        qtbot.keyClicks(dialog.key_edit, KEY)
        _choose_store(qtbot, dialog, "Keep in a file only I can read")
        _click_ok(qtbot, dialog)
        assert dialog.result() == QDialog.DialogCode.Accepted
        window = MainWindow(qloop, load_settings())
        qtbot.addWidget(window)
        window.show()
        window.load_folder(material)
        qtbot.waitUntil(window.start_button.isEnabled, timeout=10_000)
        with qtbot.waitSignal(window.bridge.finished, timeout=120_000):
            qtbot.mouseClick(window.start_button, Qt.MouseButton.LeftButton)
        sent = {h.get("authorization") for h in llm.headers}
        window.close()
    assert sent == {f"Bearer {KEY}"}
    found = leaks([isolated_home, material], [KEY])
    assert found == [f"{isolated_home / 'keys' / 'custom'}: {KEY[:12]}…"]  # the file alone


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
        relay.finished.emit(["m"], "", "", None)

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


# -- issue 24: the connection test, local servers, the model list ---------------------------


@pytest.fixture
def chinese():
    from labwright.gui.i18n import install_language

    install_language("zh_CN")
    yield
    install_language("en")


def _choose_by_keyboard(qtbot, combo, data) -> None:
    """Step through a combo box with the arrow keys, as a person does, to the item `data`."""
    combo.setFocus()
    target = combo.findData(data)
    key = Qt.Key.Key_Down if target > combo.currentIndex() else Qt.Key.Key_Up
    while combo.currentIndex() != target:
        qtbot.keyClick(combo, key)


def _test_connection(qtbot, dialog, timeout: int = 20_000) -> list:
    with qtbot.waitSignal(dialog.connection_tested, timeout=timeout) as blocker:
        qtbot.mouseClick(dialog.test_button, Qt.MouseButton.LeftButton)
    return blocker.args


@pytest.mark.parametrize(
    "lang, says",
    [
        ("en", "tick “Offline” in the main window"),
        ("zh_CN", "勾选“离线”"),
    ],
)
def test_connection_errors_say_what_the_app_offers_not_a_flag(qtbot, make_dialog, lang, says):
    from labwright.gui.i18n import install_language

    install_language(lang)
    try:
        dialog = make_dialog(Settings(provider="custom", base_url="http://127.0.0.1:9/v1"))
        assert _test_connection(qtbot, dialog) == [False]
        message = dialog.test_status.text()
    finally:
        install_language("en")
    assert says in message and "--offline" not in message, message
    assert "127.0.0.1:9" in message  # which server, in both languages


def test_a_new_provider_url_key_or_model_clears_the_old_result(qtbot, make_dialog):
    with FakeLLM([CALLS_THE_TOOL] * 4, models=("alpha-1", "beta-2")) as llm:
        dialog = make_dialog(Settings(provider="custom", base_url=llm.base_url))
        intro = dialog.test_status.text()
        changes = [
            lambda: _choose_by_keyboard(qtbot, dialog.provider_combo, "openai"),
            lambda: qtbot.keyClicks(dialog.url_edit, "x"),
            lambda: qtbot.keyClicks(dialog.key_edit, "sk-another-key-0000"),
        ]
        for change in changes:
            _choose_by_keyboard(qtbot, dialog.provider_combo, "custom")
            qtbot.keyClick(dialog.url_edit, Qt.Key.Key_A, Qt.KeyboardModifier.ControlModifier)
            qtbot.keyClicks(dialog.url_edit, llm.base_url)
            qtbot.keyClick(dialog.key_edit, Qt.Key.Key_A, Qt.KeyboardModifier.ControlModifier)
            qtbot.keyClick(dialog.key_edit, Qt.Key.Key_Delete)
            assert _test_connection(qtbot, dialog) == [True]
            assert "2 models" in dialog.test_status.text() and dialog.tools_status.isVisible()
            change()
            assert dialog.test_status.text() == intro
            assert dialog.models_list.count() == 0 and not dialog.tools_status.isVisible()
        # another exploring model: its tool-call verdict is gone, the server's list stays
        _choose_by_keyboard(qtbot, dialog.provider_combo, "custom")
        qtbot.keyClick(dialog.url_edit, Qt.Key.Key_A, Qt.KeyboardModifier.ControlModifier)
        qtbot.keyClicks(dialog.url_edit, llm.base_url)
        qtbot.keyClick(dialog.key_edit, Qt.Key.Key_A, Qt.KeyboardModifier.ControlModifier)
        qtbot.keyClick(dialog.key_edit, Qt.Key.Key_Delete)
        assert _test_connection(qtbot, dialog) == [True]
    qtbot.keyClicks(dialog.explore_edit, "-other")
    assert not dialog.tools_status.isVisible() and dialog.models_list.count() == 2


def test_an_answer_about_the_provider_left_behind_is_not_shown(qtbot, make_dialog, monkeypatch):
    release = threading.Event()

    def slow_probe(relay, base_url, key, key_lookup, model, provider):
        release.wait(10)
        relay.finished.emit(["old-model"], "", "", None)

    monkeypatch.setattr(settings_dialog, "_probe", slow_probe)
    dialog = make_dialog()
    qtbot.mouseClick(dialog.test_button, Qt.MouseButton.LeftButton)
    _choose_by_keyboard(qtbot, dialog.provider_combo, "qwen")
    with qtbot.waitSignal(dialog.connection_tested, timeout=5_000):
        release.set()
    assert dialog.models_list.count() == 0
    assert "Connected" not in dialog.test_status.text()
    assert dialog.test_button.isEnabled()


@pytest.mark.parametrize(
    "provider, commands",
    [
        ("ollama", ["`ollama serve`", "`ollama pull qwen2.5:7b`"]),
        ("lmstudio", ["`lms server start`", "`lms load qwen2.5-7b-instruct`"]),
        ("llamacpp", ["`llama-server --jinja -m MODEL.gguf --port 8080`"]),
        ("vllm", ["`vllm serve Qwen/Qwen2.5-7B-Instruct --enable-auto-tool-choice"]),
    ],
)
def test_a_local_preset_says_how_to_start_its_server(qtbot, make_dialog, provider, commands):
    dialog = make_dialog()
    assert not dialog.server_hint.isVisible()  # DeepSeek: nothing to start
    _choose_by_keyboard(qtbot, dialog.provider_combo, provider)
    hint = dialog.server_hint
    assert hint.isVisible() and hint.wordWrap()
    assert all(c in hint.text() for c in commands), hint.text()
    assert not dialog.key_store_combo.isVisible()  # no key for a server on this computer
    if provider == "ollama":  # the model typed is the one to pull
        qtbot.keyClick(dialog.explore_edit, Qt.Key.Key_A, Qt.KeyboardModifier.ControlModifier)
        qtbot.keyClicks(dialog.explore_edit, "llama3.1:8b")
        assert "`ollama pull llama3.1:8b`" in hint.text()
    _choose_by_keyboard(qtbot, dialog.provider_combo, "deepseek")
    assert not hint.isVisible()


def test_a_listed_model_goes_to_the_role_the_person_says(qtbot, make_dialog):
    with FakeLLM([CALLS_THE_TOOL], models=("alpha-1", "beta-2", "gamma-3")) as llm:
        dialog = make_dialog(Settings(provider="custom", base_url=llm.base_url))
        assert _test_connection(qtbot, dialog) == [True]
    buttons = {
        role: dialog.findChild(QPushButton, f"use_for_{role}") for role in dialog.use_actions
    }
    assert [b.text() for b in buttons.values()] == [
        "Use for exploring",
        "Use for writing",
        "Use for vision",
    ]
    assert not any(b.isEnabled() for b in buttons.values())  # nothing selected yet
    view = dialog.models_list

    def click_row(row: int) -> None:
        rect = view.visualItemRect(view.item(row))
        qtbot.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())

    click_row(1)
    assert all(b.isEnabled() for b in buttons.values())
    qtbot.mouseClick(buttons["explore"], Qt.MouseButton.LeftButton)
    assert dialog.explore_edit.text() == "beta-2"
    assert dialog.models_status.isVisible()
    assert dialog.models_status.text() == "Model for exploring set to beta-2."
    # the right-click menu holds the same three
    assert [a.text() for a in view.actions()] == [b.text() for b in buttons.values()]
    click_row(2)
    dialog.use_actions["vision"].trigger()
    assert dialog.vision_edit.text() == "gamma-3"
    assert dialog.models_status.text() == "Model for vision set to gamma-3."
    # a double-click still uses it for writing, and now says so
    click_row(0)  # a double-click's first click, as the mouse sends it
    rect = view.visualItemRect(view.item(0))
    qtbot.mouseDClick(view.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    assert dialog.write_edit.text() == "alpha-1"
    assert dialog.models_status.text() == "Model for writing set to alpha-1."
    assert dialog.explore_edit.text() == "beta-2"  # the others untouched


def test_settings_without_a_keyring_speak_chinese(qtbot, chinese, isolated_home):
    """Every text of the new states in Chinese: no keyring with a key typed and a file
    chosen, its note; a local preset's hint; the model list's buttons and status."""
    from test_i18n import _untranslated, _visible_texts

    seen: dict[str, list[str]] = {}
    with FakeLLM([CALLS_THE_TOOL], models=("alpha-1", "beta-2")) as llm:
        dialog = SettingsDialog(Settings())
        qtbot.addWidget(dialog)
        dialog.show()
        seen["no keyring"] = _visible_texts(dialog)
        qtbot.keyClicks(dialog.key_edit, KEY)
        _choose_store(qtbot, dialog, "保存在只有我能读取的文件中")
        seen["file"] = _visible_texts(dialog)
        _choose_store(qtbot, dialog, "仅在本次会话中保留")
        seen["session"] = _visible_texts(dialog)
        _click_ok(qtbot, dialog)
        assert dialog.result() == QDialog.DialogCode.Accepted
        again = SettingsDialog(load_settings())
        qtbot.addWidget(again)
        again.show()
        assert again.key_edit.placeholderText() == "已保存：sk-…f3a9（本次会话）"
        _choose_by_keyboard(qtbot, again.provider_combo, "ollama")
        seen["ollama"] = _visible_texts(again)
        assert "`ollama serve`" in again.server_hint.text()
        _choose_by_keyboard(qtbot, again.provider_combo, "custom")
        qtbot.keyClick(again.url_edit, Qt.Key.Key_A, Qt.KeyboardModifier.ControlModifier)
        qtbot.keyClicks(again.url_edit, llm.base_url)
        assert _test_connection(qtbot, again) == [True]
        again.models_list.setCurrentRow(0)
        again.use_actions["explore"].trigger()
        seen["models"] = _visible_texts(again)
    from labwright.core.report.templates import available

    names = {"alpha", "beta", "deepseek", "custom"}
    names |= {part for t in available() for part in t.split("-")}  # lab-en: a name
    for state, texts in seen.items():
        assert _untranslated(texts, names) == [], state
