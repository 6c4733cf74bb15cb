"""A key kept in a file only you can read (issue 24): LABWRIGHT_HOME/keys/<provider>.

What could go wrong with a key file, and what each test checks as an effect:
- a link where the folder or the file should be: nothing outside is written, cut or
  read (the outside folder hashes the same; its canary "key" is never used);
- a FIFO, a huge file, another user's folder: never blocks, never used, refused;
- a folder or an old file left open to others: the write closes them (0700, 0600);
- readable by others even for an instant: a watcher lists the folder and stats every
  entry while 300 keys are written with umask 0 — no entry ever has a group or other
  bit (positive control: the same watcher sees a file written with plain open());
- where the key goes: a run with the file's key reaches the server it was stored for
  (which checks the Bearer key), no other server, and no other file of LABWRIGHT_HOME
  or the run folder, no output and no event holds it (positive control: the key file
  itself is found by the same search).
Without a keyring throughout (conftest installs keyring's fail backend).
"""

from __future__ import annotations

import contextlib
import os
import stat
import threading
from pathlib import Path

import pytest

from agent_helpers import FINISH_ARGS, route
from canary import CANARY, SECRET_KEY, leaks, snapshot
from fakes import FakeLLM, call, tool_calls
from labwright.cli import main
from labwright.core.settings import key_file
from labwright.core.settings.resolve import resolve_config
from labwright.core.settings.saved import (
    FILE,
    SESSION,
    KeyStoreError,
    Settings,
    get_api_key,
    save_settings,
    set_api_key,
)

OTHER = "http://127.0.0.1:9/v1"


@pytest.fixture
def outside(tmp_path) -> Path:
    """A folder outside LABWRIGHT_HOME with a "key" file holding the canary."""
    folder = tmp_path / "outside-keys"
    folder.mkdir()
    (folder / "deepseek").write_text(CANARY + "\n")
    return folder


def test_a_keys_folder_that_is_a_link_is_neither_written_nor_read(isolated_home, outside):
    before = snapshot(outside)
    (isolated_home / "keys").symlink_to(outside, target_is_directory=True)
    with pytest.raises(KeyStoreError) as e:
        set_api_key("deepseek", SECRET_KEY, FILE)
    assert "keys" in str(e.value) and SECRET_KEY not in str(e.value)
    assert get_api_key("deepseek") == (None, "none")  # the canary "key" is not taken
    assert "link" in (key_file.inspect("deepseek").problem or "")
    with pytest.raises(KeyStoreError):
        set_api_key("deepseek", None)  # forgetting does not remove through the link either
    assert snapshot(outside) == before


def test_a_key_file_that_is_a_link_is_replaced_never_followed(isolated_home, outside):
    before = snapshot(outside)
    keys = isolated_home / "keys"
    keys.mkdir(mode=0o700)
    (keys / "deepseek").symlink_to(outside / "deepseek")
    assert get_api_key("deepseek") == (None, "none")
    assert "link" in (key_file.inspect("deepseek").problem or "")
    set_api_key("deepseek", SECRET_KEY, FILE)
    st = (keys / "deepseek").lstat()
    assert stat.S_ISREG(st.st_mode) and stat.S_IMODE(st.st_mode) == 0o600
    assert get_api_key("deepseek") == (SECRET_KEY, "file")
    assert snapshot(outside) == before  # the link's target was not written


def test_a_fifo_or_a_huge_file_is_not_a_key(isolated_home):
    keys = isolated_home / "keys"
    keys.mkdir(mode=0o700)
    os.mkfifo(keys / "openai")
    got: list[object] = []
    reader = threading.Thread(target=lambda: got.append(get_api_key("openai")))
    reader.start()
    reader.join(10)
    if reader.is_alive():  # release it before failing, so no thread is left behind
        os.close(os.open(keys / "openai", os.O_WRONLY | os.O_NONBLOCK))
        reader.join(5)
        pytest.fail("reading a FIFO as a key blocked")
    assert got == [(None, "none")]
    (keys / "qwen").write_bytes(b"sk-" + b"x" * 1_000_000)
    assert get_api_key("qwen") == (None, "none")
    assert "larger than" in (key_file.inspect("qwen").problem or "")


def test_a_folder_or_file_left_open_to_others_is_closed_by_the_write(isolated_home):
    keys = isolated_home / "keys"
    keys.mkdir()
    keys.chmod(0o755)
    (keys / "deepseek").write_text("sk-old-key-000000000\n")
    (keys / "deepseek").chmod(0o644)
    assert key_file.inspect("deepseek").open_to_others  # Check Setup says so
    set_api_key("deepseek", SECRET_KEY, FILE)
    assert stat.S_IMODE(keys.stat().st_mode) == 0o700
    assert stat.S_IMODE((keys / "deepseek").stat().st_mode) == 0o600
    assert not key_file.inspect("deepseek").open_to_others


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0, reason="needs chown")
def test_another_users_keys_folder_is_refused(isolated_home):
    keys = isolated_home / "keys"
    keys.mkdir(mode=0o700)
    (keys / "deepseek").write_text(CANARY + "\n")
    os.chown(keys, 65534, 65534)
    with pytest.raises(KeyStoreError) as e:
        set_api_key("deepseek", SECRET_KEY, FILE)
    assert "another user" in str(e.value)
    assert get_api_key("deepseek") == (None, "none")
    assert (keys / "deepseek").read_text() == CANARY + "\n"


def _watch(folder: Path, stop: threading.Event, seen: list[tuple[str, int]]) -> None:
    """Every mode any entry of `folder` has while `stop` is not set."""
    while not stop.is_set():
        try:
            names = os.listdir(folder)
        except FileNotFoundError:
            continue
        for name in names:
            with contextlib.suppress(FileNotFoundError):  # a temporary file renamed meanwhile
                seen.append((name, stat.S_IMODE(os.lstat(folder / name).st_mode)))


def test_no_key_file_is_ever_readable_by_others(isolated_home):
    keys = isolated_home / "keys"
    set_api_key("openai", "sk-first-000000000000", FILE)  # the folder exists to be watched
    seen: list[tuple[str, int]] = []
    stop = threading.Event()
    watcher = threading.Thread(target=_watch, args=(keys, stop, seen))
    old = os.umask(0)
    watcher.start()
    try:
        for i in range(300):
            set_api_key("openai", f"{SECRET_KEY}-{i}", FILE)
        # positive control: a file written as open() writes is seen with its loose mode
        with open(keys / "control", "w") as f:
            f.write("x")
        for _ in range(200):
            if any(name == "control" for name, _ in seen):
                break
            threading.Event().wait(0.01)
    finally:
        stop.set()
        watcher.join(10)
        os.umask(old)
    key_modes = {mode for name, mode in seen if name != "control"}
    temp_seen = {name for name, _ in seen if name.startswith(".openai.")}
    assert key_modes == {0o600}, key_modes
    assert {mode for name, mode in seen if name == "control"} == {0o666}  # the watcher sees
    assert len(seen) > 300 and temp_seen  # it watched while the temporary files existed
    assert get_api_key("openai") == (f"{SECRET_KEY}-299", "file")


@pytest.mark.parametrize("store", [FILE, SESSION])
def test_a_stored_key_goes_to_its_own_server_only(material, store):
    set_api_key("deepseek", SECRET_KEY, store)
    set_api_key("custom", "sk-fake-custom-server-key", store)
    assert resolve_config(material, settings=Settings(), env={}).api_key == SECRET_KEY
    other = {"base_url": OTHER}
    assert resolve_config(material, flags=other, settings=Settings(), env={}).api_key is None
    mine = Settings(provider="custom", base_url=OTHER)
    assert resolve_config(material, settings=mine, env={}).api_key == "sk-fake-custom-server-key"
    elsewhere = {"base_url": "http://127.0.0.1:10/v1"}
    assert resolve_config(material, flags=elsewhere, settings=mine, env={}).api_key is None
    # a preset moved by --provider/--base-url is another server: not DeepSeek's key
    moved = {"provider": "deepseek", "base_url": OTHER}
    assert resolve_config(material, flags=moved, settings=Settings(), env={}).api_key is None


def test_a_run_with_the_files_key_leaves_it_nowhere_else(
    material, tmp_path, isolated_home, capsys, guarded_folder
):
    guarded_folder(material)
    script = [
        tool_calls(call("read_file", {"path": "manual.txt"})),
        tool_calls(call("finish_exploration", FINISH_ARGS)),
    ]
    with FakeLLM(route(script), api_key=SECRET_KEY) as llm, FakeLLM() as other:
        save_settings(
            Settings(
                provider="custom",
                base_url=llm.base_url,
                explore_model="fake-explore",
                write_model="fake-write",
            )
        )
        set_api_key("custom", SECRET_KEY, FILE)
        out = tmp_path / "run"
        code = main(["run", str(material), "--out", str(out), "--json", "--no-compile"])
        # another server named by a flag is reached, but without the custom server's key
        main(["run", str(material), "--base-url", other.base_url, "--no-compile"])
        served = [h.get("authorization") for h in llm.headers]
        other_saw = [str(h) for h in other.headers]
        other_connections = other.connections
    printed = capsys.readouterr()
    assert code == 0, printed.err
    assert served and set(served) == {f"Bearer {SECRET_KEY}"}  # the run used the file's key
    assert other_connections > 0 and not any(SECRET_KEY in h for h in other_saw)
    assert SECRET_KEY not in printed.out + printed.err
    key_path = isolated_home / "keys" / "custom"
    found = leaks([isolated_home, out], [SECRET_KEY])
    assert found == [f"{key_path}: {SECRET_KEY[:12]}…"]  # control: the search does see it
