"""The app under a real X server (Xvfb), driven by real key presses (xdotool): the xcb
platform plugin loads, the window appears, Ctrl+, and Ctrl+O open their dialogs, Escape
closes them, Ctrl+Q quits with exit code 0. The offscreen tests cannot see any of this.

Skipped when Xvfb or xdotool is missing, except in CI (env CI set), where that fails."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

DESKTOP = Path(__file__).resolve().parents[1] / "desktop"
TOOLS = ("Xvfb", "xdotool")


def _need_tools() -> None:
    missing = [t for t in TOOLS if shutil.which(t) is None]
    if missing:
        message = f"not installed: {', '.join(missing)} (Debian: apt-get install xvfb xdotool)"
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)


def _wait(what: str, done, timeout_s: float = 20.0):
    """Poll an outside process's state (an X server, a window): there is no signal to wait on."""
    end = time.monotonic() + timeout_s
    while True:
        result = done()
        if result:
            return result
        if time.monotonic() > end:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.1)


@pytest.fixture
def xserver() -> Iterator[str]:
    """A private Xvfb on the first free display number; its DISPLAY."""
    _need_tools()
    number = next(n for n in range(60, 160) if not Path(f"/tmp/.X11-unix/X{n}").exists())
    display = f":{number}"
    proc = subprocess.Popen(
        ["Xvfb", display, "-screen", "0", "1280x800x24", "-nolisten", "tcp"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        _wait("the X server's socket", Path(f"/tmp/.X11-unix/X{number}").exists)
        yield display
    finally:
        proc.terminate()
        proc.wait(10)


def _xdotool(display: str, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["xdotool", *args],
        env={**os.environ, "DISPLAY": display},
        capture_output=True,
        text=True,
        timeout=30,
        check=False,
    )


def _window(display: str, name: str) -> str | None:
    """The id of the visible window whose title matches `name`, or None."""
    found = _xdotool(display, "search", "--onlyvisible", "--name", name)
    ids = found.stdout.split()
    return ids[-1] if found.returncode == 0 and ids else None


def _press(display: str, window: str, keys: str) -> None:
    # focus first: XTEST key presses go to the focused window (no window manager here)
    assert _xdotool(display, "windowfocus", "--sync", window).returncode == 0
    assert _xdotool(display, "key", "--clearmodifiers", keys).returncode == 0


def test_the_app_opens_its_dialogs_and_quits_cleanly_on_an_x_server(xserver, tmp_path):
    env = {
        **os.environ,
        "DISPLAY": xserver,
        "LABWRIGHT_HOME": str(tmp_path / "home"),
        "PYTHONPATH": str(DESKTOP),
        "PYTHONFAULTHANDLER": "1",
    }
    env.pop("QT_QPA_PLATFORM", None)  # the xcb plugin, as on a desktop
    for name in ("LABWRIGHT_API_KEY", "DEEPSEEK_API_KEY", "OPENAI_API_KEY"):
        env.pop(name, None)
    app = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import sys; from labwright.cli import main; sys.exit(main())",
            "gui",
        ],
        env=env,
        cwd=tmp_path,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        main = _wait("the main window", lambda: _window(xserver, "^Labwright$"), 60)

        _press(xserver, main, "ctrl+comma")
        settings = _wait("the Settings dialog", lambda: _window(xserver, "^Settings$"))
        _press(xserver, settings, "Escape")
        _wait("Settings to close", lambda: _window(xserver, "^Settings$") is None)

        _press(xserver, main, "ctrl+o")
        chooser = _wait("the folder chooser", lambda: _window(xserver, "Choose the folder"))
        _press(xserver, chooser, "Escape")
        _wait("the chooser to close", lambda: _window(xserver, "Choose the folder") is None)

        _press(xserver, main, "ctrl+q")
        output, _ = app.communicate(timeout=30)
    finally:
        if app.poll() is None:
            app.kill()
            app.communicate()
    assert app.returncode == 0, output
    assert "Fatal Python error" not in output
    assert not any((tmp_path / "home").glob("**/crash*")), "the app wrote a crash log"
