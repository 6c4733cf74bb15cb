"""Where a key typed in Settings is kept: the keyring, a file only you can read, or this
session; one stored key per provider; the order they are looked up in; the environment
above them all. Without a keyring (conftest installs keyring's fail backend) unless a
test installs the in-memory one."""

from __future__ import annotations

import os
import stat

import pytest

from labwright.core.settings import key_file, keys
from labwright.core.settings.resolve import resolve_config, resolve_with_key_source
from labwright.core.settings.saved import (
    FILE,
    KEYRING,
    SESSION,
    KeyStoreError,
    Settings,
    get_api_key,
    key_stores,
    set_api_key,
)

KEY = "sk-fake-kept-key-of-the-test"
OTHER_KEY = "sk-fake-other-key-of-the-test"


def files_holding(root, needle: str) -> list[str]:
    return sorted(
        str(p.relative_to(root))
        for p in root.rglob("*")
        if p.is_file() and not p.is_symlink() and needle.encode() in p.read_bytes()
    )


def test_without_a_keyring_settings_can_keep_a_key_in_a_file_or_for_the_session():
    assert key_stores() == (FILE, SESSION)


def test_with_a_keyring_it_comes_first(memory_keyring):
    assert key_stores() == (KEYRING, FILE, SESSION)
    assert keys.keyring_name() == "MemoryKeyring"


def test_a_key_in_a_file_only_you_can_read(isolated_home):
    set_api_key("deepseek", KEY, FILE)
    path = isolated_home / "keys" / "deepseek"
    assert path.read_text() == KEY + "\n"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700
    assert files_holding(isolated_home, KEY) == ["keys/deepseek"]  # and nowhere else
    assert get_api_key("deepseek") == (KEY, "file")
    assert get_api_key("openai") == (None, "none")  # one file per provider
    set_api_key("deepseek", None)
    assert not path.exists() and get_api_key("deepseek") == (None, "none")


def test_the_file_is_private_whatever_the_umask(isolated_home):
    old = os.umask(0)
    try:
        set_api_key("openai", KEY, FILE)
        set_api_key("openai", OTHER_KEY, FILE)  # replaced, not rewritten in place
    finally:
        os.umask(old)
    path = isolated_home / "keys" / "openai"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700
    assert path.read_text() == OTHER_KEY + "\n"
    assert sorted(p.name for p in path.parent.iterdir()) == ["openai"]  # no temp file left


def test_a_key_for_this_session_only_touches_no_file(isolated_home):
    set_api_key("deepseek", KEY, SESSION)
    assert get_api_key("deepseek") == (KEY, "session")
    assert files_holding(isolated_home, KEY) == []
    assert not (isolated_home / "keys").exists()
    keys.forget_session_keys()  # what the end of the process does
    assert get_api_key("deepseek") == (None, "none")


@pytest.mark.parametrize("first, then", [(KEYRING, FILE), (FILE, KEYRING), (FILE, SESSION)])
def test_storing_a_key_forgets_it_in_the_other_stores(memory_keyring, isolated_home, first, then):
    set_api_key("deepseek", OTHER_KEY, first)
    set_api_key("deepseek", KEY, then)
    assert get_api_key("deepseek") == (KEY, then)
    assert memory_keyring.store == ({("labwright", "deepseek"): KEY} if then == KEYRING else {})
    assert files_holding(isolated_home, KEY) == (["keys/deepseek"] if then == FILE else [])
    assert files_holding(isolated_home, OTHER_KEY) == []
    set_api_key("deepseek", "")  # forgotten everywhere
    assert get_api_key("deepseek") == (None, "none") and memory_keyring.store == {}


def test_the_lookup_order_is_session_keyring_file(memory_keyring):
    # Settings never leaves two; a key file copied in by hand beside a keyring entry can.
    key_file.write_key("deepseek", "sk-in-the-file-000000")
    assert get_api_key("deepseek") == ("sk-in-the-file-000000", "file")
    memory_keyring.store[("labwright", "deepseek")] = "sk-in-the-keyring-0000"
    assert get_api_key("deepseek") == ("sk-in-the-keyring-0000", "keyring")
    keys._session["deepseek"] = "sk-in-the-session-000"
    assert get_api_key("deepseek") == ("sk-in-the-session-000", "session")


@pytest.mark.parametrize("store", [FILE, SESSION])
def test_the_environment_and_the_flag_still_win(store, monkeypatch, tmp_path):
    set_api_key("deepseek", KEY, store)
    s = Settings()
    assert resolve_with_key_source(tmp_path, settings=s, env={})[1] == store
    assert resolve_config(tmp_path, settings=s, env={}).api_key == KEY
    env = {"DEEPSEEK_API_KEY": OTHER_KEY}
    assert resolve_with_key_source(tmp_path, settings=s, env=env)[0].api_key == OTHER_KEY
    assert resolve_with_key_source(tmp_path, settings=s, env=env)[1] == (
        "environment:DEEPSEEK_API_KEY"
    )
    flagged = resolve_with_key_source(tmp_path, flags={"api_key": "sk-flag-1"}, settings=s, env=env)
    assert (flagged[0].api_key, flagged[1]) == ("sk-flag-1", "flag")


def test_a_file_that_cannot_be_written_says_where_without_the_key(isolated_home):
    (isolated_home / "keys").write_text("a file where the folder should be")
    with pytest.raises(KeyStoreError) as e:
        set_api_key("deepseek", KEY, FILE)
    assert "keys" in str(e.value) and KEY not in str(e.value)
    assert get_api_key("deepseek") == (None, "none")


def test_a_provider_name_is_never_a_path():
    for name in ("../settings.json", "/etc/passwd", "", "custom/../x"):
        with pytest.raises(ValueError):
            key_file.key_path(name)
