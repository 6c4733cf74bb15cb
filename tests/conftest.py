"""Shared fixtures: an isolated LABWRIGHT_HOME, no real keys, no leaked threads."""

from __future__ import annotations

import os
import shutil
import sys
import threading
import time
from pathlib import Path

import pytest

from canary import CANARY, snapshot

# Qt must never need a screen in tests; set before anything imports Qt.
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
# Some machines (this project's CI among them) set PYTHONDONTWRITEBYTECODE: every
# `labwright` process a test starts would then compile the package from source again
# (about 0.5 s each, hundreds of processes). Bytecode is written as in any installation.
os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
sys.dont_write_bytecode = False

# Real material the tests carry (tests/data/README.md: a part of ../shared/data, MIT licence).
PROJECTILE = Path(__file__).resolve().parent / "data" / "projectile-motion"
SECRET_ENV = (
    "LABWRIGHT_API_KEY",
    "DEEPSEEK_API_KEY",
    "OPENAI_API_KEY",
    "LABWRIGHT_BASE_URL",
    # the other presets' key variables (core/settings/config.PROVIDERS)
    "DASHSCOPE_API_KEY",
    "MOONSHOT_API_KEY",
    "SILICONFLOW_API_KEY",
    "OPENROUTER_API_KEY",
)


@pytest.fixture(autouse=True)
def isolated_home(tmp_path_factory, monkeypatch) -> Path:
    """Tests never touch the user's settings, runs or keys."""
    home = tmp_path_factory.mktemp("labwright-home")
    monkeypatch.setenv("LABWRIGHT_HOME", str(home))
    for name in SECRET_ENV:
        monkeypatch.delenv(name, raising=False)
    return home


@pytest.fixture(autouse=True)
def no_real_keyring():
    """No test may reach the OS keyring: by default there is none (tests that need one
    install a fake). Keys kept "for this session only" end with the test."""
    import keyring
    from keyring.backends import fail

    from labwright.core.settings.keys import forget_session_keys

    previous = keyring.get_keyring()
    keyring.set_keyring(fail.Keyring())
    yield
    keyring.set_keyring(previous)
    forget_session_keys()


@pytest.fixture(autouse=True)
def no_leaked_threads():
    """Fail a test that leaves a thread running (napari's conftest does the same)."""
    before = set(threading.enumerate())
    yield
    deadline = time.monotonic() + 3
    while True:
        leaked = [t for t in threading.enumerate() if t not in before and t.is_alive()]
        if not leaked or time.monotonic() > deadline:
            break
        time.sleep(0.02)
    assert not leaked, f"test leaked threads: {[t.name for t in leaked]}"


@pytest.fixture
def projectile(tmp_path) -> Path:
    """A private copy of the real projectile-motion material (tests may not write the original)."""
    dest = tmp_path / "projectile-motion"
    shutil.copytree(PROJECTILE, dest)
    return dest


@pytest.fixture(scope="session")
def offline_template(tmp_path_factory) -> Path:
    """One offline run of examples/pendulum (compiled when TeX is there), made once."""
    from labwright.cli import main

    root = tmp_path_factory.mktemp("offline")
    folder = root / "pendulum"
    shutil.copytree(Path(__file__).resolve().parents[1] / "examples" / "pendulum", folder)
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("LABWRIGHT_HOME", str(root / "home"))
        assert main(["run", str(folder), "--offline", "--out", str(root / "run")]) == 10
    return root / "run"


@pytest.fixture(scope="session")
def projectile_skeleton(tmp_path_factory):
    """The offline report of the projectile-motion material in the lab-en template, its
    figures and its PDF, made once: the tests that read them (tests/test_offline.py,
    tests/test_offline_floats.py) compiled the same skeleton each. Read only."""
    from types import SimpleNamespace

    from labwright.core.material.workspace import scan_folder
    from labwright.core.report.offline import offline_report
    from labwright.core.report.templates import load_template
    from test_offline import _compile

    root = tmp_path_factory.mktemp("projectile-skeleton")
    folder = root / "projectile-motion"
    shutil.copytree(PROJECTILE, folder)
    run = root / "run"
    report = offline_report(folder, scan_folder(folder), load_template("lab-en"), run / "figures")
    return SimpleNamespace(folder=folder, run=run, report=report, pdf=_compile(run, report.tex))


@pytest.fixture
def offline_run(offline_template, tmp_path) -> Path:
    """A private copy of that offline run: each test may edit it."""
    dest = tmp_path / "run"
    shutil.copytree(offline_template, dest)
    return dest


@pytest.fixture
def memory_keyring():
    """An in-memory keyring in place of the OS one."""
    from fake_keyring import MemoryKeyring, installed

    with installed(MemoryKeyring()) as kr:
        yield kr


@pytest.fixture
def material(tmp_path) -> Path:
    """A small experiment folder: a data table, a long log, a manual."""
    root = tmp_path / "material"
    (root / "data").mkdir(parents=True)
    (root / "data" / "pendulum.csv").write_text(
        "length_m,period_s\n0.20,0.90\n0.40,1.27\n0.60,1.55\n0.80,1.80\n1.00,2.01\n",
        encoding="utf-8",
    )
    (root / "data" / "log.txt").write_text(
        "".join(f"t={i} reading={i * 0.5:.1f}\n" for i in range(1000)), encoding="utf-8"
    )
    (root / "manual.txt").write_text(
        "Simple pendulum\nMeasure the period T against the length L and verify T = 2*pi*sqrt(L/g).\n",
        encoding="utf-8",
    )
    return root


@pytest.fixture
def crashing_reader(material, monkeypatch) -> None:
    """read_file's reader crashes on files named crash*: the tool itself failing."""
    import labwright.core.agent.tools.read_file as read_file

    real = read_file.read_page
    for rel in ["data/crash1.csv", "data/crash2.csv", "data/crash3.csv"] + [
        f"results/crash_{n}.csv" for n in range(10)
    ]:
        (material / rel).parent.mkdir(exist_ok=True)
        (material / rel).write_text("a,b\n1,2\n", encoding="utf-8")

    def read_page(path, *args, **kw):
        if path.name.startswith("crash"):
            raise RuntimeError("reader crashed")
        return real(path, *args, **kw)

    monkeypatch.setattr(read_file, "read_page", read_page)


# -- the desktop app -------------------------------------------------------------


@pytest.fixture
def qloop(qapp):
    """The qasync loop the app runs in the GUI thread."""
    import asyncio

    import qasync

    loop = qasync.QEventLoop(qapp, already_running=False)
    asyncio.set_event_loop(loop)
    yield loop
    asyncio.set_event_loop(None)
    loop.close()
    from labwright.gui.gcguard import stop_collecting

    stop_collecting()  # the windows installed it; tests after this one collect as Python does


@pytest.fixture
def window_for(qtbot, qloop, monkeypatch):
    """Main windows whose settings point at a fake model server (or at none)."""
    from PySide6.QtWidgets import QMessageBox

    from labwright.core.settings.saved import Settings
    from labwright.gui.main_window import MainWindow

    # "A run is in progress — stop it and quit?": yes (a modal would wait for ever here).
    # Patched before the test, not after it: when a test fails with its run still going,
    # pytest-qt closes the window before this fixture's teardown, and the real question
    # would hang the worker where no timeout reaches (Qt's modal loop). A test that
    # patches QMessageBox.question itself overrides this.
    monkeypatch.setattr(QMessageBox, "question", lambda *a, **k: QMessageBox.StandardButton.Yes)
    windows = []

    def make(llm=None):
        s = Settings(
            provider="custom", explore_model="fake-explore", write_model="fake-write", reflect=0
        )
        if llm is not None:
            s.base_url = llm.base_url
        monkeypatch.setenv("LABWRIGHT_API_KEY", "sk-test-gui")
        w = MainWindow(qloop, s)
        qtbot.addWidget(w)
        w.show()
        windows.append(w)
        return w

    yield make
    # a test that answered the question itself ("no": keep the window) is over now
    monkeypatch.setattr(QMessageBox, "question", lambda *a, **k: QMessageBox.StandardButton.Yes)
    for w in windows:
        w.close()  # cancel and join any worker, as a user closing the window would


# -- security and reliability scenarios (tests/security, tests/reliability) --


@pytest.fixture
def outside_canary(tmp_path) -> Path:
    """A file outside any picked folder that no run may read, copy or show."""
    path = tmp_path / "outside" / "secret.txt"
    path.parent.mkdir()
    path.write_text(f"{CANARY}\n", encoding="utf-8")
    return path


@pytest.fixture
def guarded_folder(tmp_path):
    """Yields a function that registers a picked folder; after the test the folder
    must hash the same as when it was registered."""
    watched: list[tuple[Path, dict]] = []

    def watch(folder: Path) -> Path:
        watched.append((folder, snapshot(folder)))
        return folder

    yield watch
    for folder, before in watched:
        assert snapshot(folder) == before, f"the picked folder {folder} was changed"
