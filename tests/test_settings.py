"""Settings (settings.json) and API keys (a fake keyring; never the real one)."""

from __future__ import annotations

import json
from pathlib import Path

import keyring.errors
import pytest
from keyring.backends import chainer, fail

from fake_keyring import MemoryKeyring, installed
from labwright.core.settings import saved as st
from labwright.core.settings.config import PROVIDERS, RunConfig, key_from_env
from labwright.core.settings.saved import (
    KeyStoreError,
    Settings,
    get_api_key,
    keyring_available,
    load_settings,
    mask_key,
    run_config,
    save_settings,
    set_api_key,
    settings_path,
    settings_problem,
)

KEY = "sk-test-0123456789abcdef-f3a9"


@pytest.fixture
def no_keyring():
    with installed(fail.Keyring()) as kr:
        yield kr


def full_settings() -> Settings:
    return Settings(
        provider="custom",
        base_url="http://127.0.0.1:9/v1",
        explore_model="m-explore",
        write_model="m-write",
        vision_model="m-vision",
        template="lab-zh",
        report_lang="zh",
        reflect=3,
        ui_language="zh_CN",
        budget_tokens=200_000,
        prices={"m-write": {"prompt": 0.27, "completion": 1.1}},
        recent_folders=["/data/a", "/data/b"],
    )


# --- settings.json ---------------------------------------------------------------


def test_settings_live_in_labwright_home(isolated_home):
    assert settings_path() == isolated_home / "settings.json"


def test_missing_file_gives_defaults():
    assert load_settings() == Settings()
    assert settings_problem() is None
    d = Settings()
    assert (d.provider, d.base_url) == ("deepseek", PROVIDERS["deepseek"].base_url)
    assert (d.explore_model, d.write_model) == ("deepseek-chat", "deepseek-chat")


def test_round_trip():
    s = full_settings()
    save_settings(s)
    assert load_settings() == s
    assert settings_problem() is None
    # atomic write: no temp file left beside it
    assert [p.name for p in settings_path().parent.iterdir()] == ["settings.json"]


@pytest.mark.parametrize("content", [b"{not json", b"[1, 2]", b"\xff\xfe\x00garbage"])
def test_corrupt_file_is_moved_aside_and_defaults_used(content):
    settings_path().write_bytes(content)
    assert load_settings() == Settings()
    note = settings_problem()
    assert note and "damaged" in note
    aside = list(settings_path().parent.glob("settings.json.bad-*"))
    assert len(aside) == 1 and aside[0].name in note
    assert aside[0].read_bytes() == content  # never lost
    assert not settings_path().exists()
    # The next load is clean, and saving does not touch the kept copy.
    assert load_settings() == Settings() and settings_problem() is None
    save_settings(Settings())
    assert aside[0].read_bytes() == content


def test_two_corrupt_files_in_one_second_are_both_kept():
    for content in (b"{one", b"{two"):
        settings_path().write_bytes(content)
        load_settings()
    kept = sorted(p.read_bytes() for p in settings_path().parent.glob("settings.json.bad-*"))
    assert kept == [b"{one", b"{two"]


def test_unreadable_file_gives_defaults_with_a_note():
    settings_path().mkdir(parents=True)  # a folder where the file should be
    assert load_settings() == Settings()
    assert "Could not read" in (settings_problem() or "")


def test_wrong_types_fall_back_per_field_and_unknown_keys_are_ignored():
    data = {
        "provider": "custom",
        "base_url": "http://example.test/v1",
        "explore_model": 42,
        "write_model": "w",
        "vision_model": ["x"],
        "template": "",
        "report_lang": "fr",
        "reflect": True,
        "ui_language": "de",
        "budget_tokens": -5,
        "prices": {
            "good": {"prompt": 1, "completion": 2.5},
            "bad": {"prompt": "cheap", "completion": 1},
            "negative": {"prompt": -1, "completion": 1},
            "flag": {"prompt": True, "completion": 1},
        },
        "recent_folders": ["/a", 3, "/a", "/b"],
        "shiny_future_option": {"x": 1},
    }
    settings_path().write_text(json.dumps(data), encoding="utf-8")
    s = load_settings()
    assert settings_problem() is None
    d = Settings()
    assert s.provider == "custom" and s.base_url == "http://example.test/v1"
    assert s.explore_model == d.explore_model and s.write_model == "w"
    assert s.vision_model is None and s.template is None and s.report_lang is None
    assert s.reflect is None and s.ui_language == "system" and s.budget_tokens is None
    assert s.prices == {"good": {"prompt": 1.0, "completion": 2.5}}
    assert s.recent_folders == ["/a", "/b"]


def test_unknown_provider_and_edited_preset_url_are_corrected():
    settings_path().write_text(
        json.dumps({"provider": "openai", "base_url": "http://evil.test/v1"}), encoding="utf-8"
    )
    assert load_settings().base_url == PROVIDERS["openai"].base_url
    settings_path().write_text(json.dumps({"provider": "nonesuch"}), encoding="utf-8")
    assert load_settings().provider == "deepseek"


def test_saved_file_holds_no_key(memory_keyring, isolated_home):
    set_api_key("custom", KEY)
    save_settings(full_settings())
    for path in isolated_home.rglob("*"):
        if path.is_file():
            assert KEY.encode() not in path.read_bytes()
    data = json.loads(settings_path().read_text(encoding="utf-8"))
    assert not any("key" in name for name in data)


def test_remember_folder_dedups_and_keeps_ten(tmp_path):
    s = Settings()
    folders = [tmp_path / f"f{i}" for i in range(12)]
    for f in folders:
        s.remember_folder(f)
    s.remember_folder(folders[5])
    assert len(s.recent_folders) == 10
    assert s.recent_folders[0] == str(folders[5].resolve())
    assert s.recent_folders[1] == str(folders[11].resolve())
    assert len(set(s.recent_folders)) == 10
    assert str(folders[0].resolve()) not in s.recent_folders


def test_cost_from_prices():
    s = Settings(prices={"m": {"prompt": 0.27, "completion": 1.10}})
    assert s.cost("m", 1_000_000, 0) == pytest.approx(0.27)
    assert s.cost("m", 200_000, 50_000) == pytest.approx(0.054 + 0.055)
    assert s.cost("unpriced", 10, 10) is None


def test_preset_fills_url_and_models_and_custom_keeps_them():
    s = st.preset_settings("openai", Settings())
    assert (s.base_url, s.explore_model, s.write_model, s.vision_model) == (
        "https://api.openai.com/v1",
        "gpt-4o-mini",
        "gpt-4o",
        "gpt-4o-mini",
    )
    custom = st.preset_settings("custom", Settings(base_url="http://x.test/v1", write_model="w"))
    assert custom.provider == "custom"
    assert (custom.base_url, custom.write_model) == ("http://x.test/v1", "w")


# --- keys ------------------------------------------------------------------------------


def test_key_round_trip_through_the_keyring(memory_keyring):
    assert keyring_available()
    assert get_api_key("deepseek") == (None, "none")
    set_api_key("deepseek", KEY)
    assert memory_keyring.store == {("labwright", "deepseek"): KEY}
    assert get_api_key("deepseek") == (KEY, "keyring")
    assert get_api_key("openai") == (None, "none")  # one key per provider
    set_api_key("deepseek", None)
    assert get_api_key("deepseek") == (None, "none")
    set_api_key("deepseek", "")  # forgetting what is not there is fine
    set_api_key("deepseek", KEY)
    set_api_key("deepseek", "")
    assert memory_keyring.store == {}


def test_environment_wins_over_the_keyring(memory_keyring, monkeypatch):
    # The documented order (README, "Where settings come from"): environment, then keyring.
    set_api_key("deepseek", KEY)
    assert get_api_key("deepseek") == (KEY, "keyring")
    monkeypatch.setenv("DEEPSEEK_API_KEY", "sk-from-env-0000")
    assert get_api_key("deepseek") == ("sk-from-env-0000", "environment:DEEPSEEK_API_KEY")


def test_environment_fallback_without_a_keyring(no_keyring, monkeypatch):
    assert not keyring_available()
    assert get_api_key("deepseek") == (None, "none")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-openai-1111")
    monkeypatch.setenv("DEEPSEEK_API_KEY", "sk-deepseek-2222")
    assert get_api_key("deepseek") == ("sk-deepseek-2222", "environment:DEEPSEEK_API_KEY")
    assert get_api_key("openai") == ("sk-openai-1111", "environment:OPENAI_API_KEY")
    assert get_api_key("ollama") == (None, "none")
    monkeypatch.setenv("LABWRIGHT_API_KEY", "sk-labwright-3333")
    assert get_api_key("deepseek") == ("sk-labwright-3333", "environment:LABWRIGHT_API_KEY")
    assert get_api_key("ollama")[1] == "environment:LABWRIGHT_API_KEY"


@pytest.mark.parametrize(
    "provider, url",
    [("deepseek", None), ("openai", None), ("ollama", None), ("custom", "http://x.test/v1")],
)
def test_environment_lookup_agrees_with_the_core(no_keyring, monkeypatch, provider, url):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-openai-1111")
    monkeypatch.setenv("DEEPSEEK_API_KEY", "sk-deepseek-2222")
    preset_url = url or PROVIDERS[provider].base_url
    assert get_api_key(provider, url)[0] == key_from_env(preset_url)


def test_storing_without_a_keyring_says_what_to_do(no_keyring):
    with pytest.raises(KeyStoreError) as e:
        set_api_key("deepseek", KEY)  # the keyring, asked for by name
    assert "No system keyring is available; keep the key in a file only you can read" in str(
        e.value
    )
    assert "LABWRIGHT_API_KEY" in str(e.value) and KEY not in str(e.value)
    set_api_key("deepseek", None)  # forgetting needs no keyring: there is nothing in it
    assert get_api_key("deepseek") == (None, "none")


def test_an_empty_chainer_is_no_keyring(monkeypatch):
    monkeypatch.setattr(chainer.ChainerBackend, "backends", [])
    with installed(chainer.ChainerBackend()):
        assert not keyring_available()
        with pytest.raises(KeyStoreError):
            set_api_key("deepseek", KEY)


class LockedKeyring(MemoryKeyring):
    def set_password(self, service: str, username: str, password: str) -> None:
        raise keyring.errors.PasswordSetError(f"collection is locked, cannot store {password}")

    def get_password(self, service: str, username: str) -> str | None:
        raise keyring.errors.KeyringLocked("locked")


def test_a_refusing_keyring_raises_without_the_key(monkeypatch):
    monkeypatch.setenv("DEEPSEEK_API_KEY", "sk-env-4444")
    with installed(LockedKeyring()):
        with pytest.raises(KeyStoreError) as e:
            set_api_key("deepseek", KEY)
        assert "locked" in str(e.value) and KEY not in str(e.value)
        # A locked keyring still lets the environment supply the key.
        assert get_api_key("deepseek") == ("sk-env-4444", "environment:DEEPSEEK_API_KEY")


def test_mask_key():
    assert mask_key(None) == "" and mask_key("") == ""
    assert mask_key("sk-fake-0123456789abcd-f3a9") == "sk-…f3a9"
    for short in ("a", "abc", "sk-12345", "sk-1234567"):
        masked = mask_key(short)
        assert short not in masked and len(masked) <= 3


# --- runs ------------------------------------------------------------------------------


def test_run_config_from_settings(tmp_path):
    s = full_settings()
    cfg = run_config(s, tmp_path, api_key=KEY)
    assert isinstance(cfg, RunConfig)
    assert cfg.folder == Path(tmp_path) and cfg.api_key == KEY
    assert (cfg.base_url, cfg.explore_model, cfg.write_model, cfg.vision_model) == (
        "http://127.0.0.1:9/v1",
        "m-explore",
        "m-write",
        "m-vision",
    )
    assert (cfg.template, cfg.lang, cfg.reflect, cfg.budget_tokens) == ("lab-zh", "zh", 3, 200_000)
    assert cfg.prices == s.prices and cfg.prices is not s.prices
    assert KEY not in json.dumps(cfg.public_dict()) and KEY not in repr(cfg)


def test_run_config_overrides_win(tmp_path):
    cfg = run_config(Settings(), tmp_path, api_key=None, reflect=0, compile=False, out_dir=tmp_path)
    assert (cfg.reflect, cfg.compile, cfg.out_dir) == (0, False, tmp_path)
    assert (cfg.lang, cfg.template, cfg.budget_tokens) == (None, None, None)
    with pytest.raises(TypeError):
        run_config(Settings(), tmp_path, api_key=None, no_such_option=1)


def test_a_key_in_the_url_never_reaches_the_settings_file(isolated_home):
    from canary import SECRET_KEY, leaks
    from labwright.core.settings.saved import Settings, load_settings, save_settings

    save_settings(
        Settings(provider="custom", base_url=f"https://user:{SECRET_KEY}@models.example/v1")
    )
    assert not leaks([isolated_home], [SECRET_KEY])
    assert load_settings().base_url == "https://models.example/v1"
