"""Screenshots of the app for a person to look at, in English and Chinese: empty, scanned, running,
finished (its PDF tab, also zoomed), settings, Check Setup, Settings and Check Setup on a machine
without a keyring or a key, review of a degraded draft, a compile error in review, and the export
notices (a zip, and Word).

    .venv/bin/python scripts/screenshots.py [OUT_DIR]

Starts its own Xvfb (a real X server, so fonts, styles and the PDF view render
as a user sees them) unless DISPLAY is already set, plays a run against the
fake model server from tests/fakes, and saves PNGs to OUT_DIR (default
screenshots/, which git ignores). Settings and runs go to a temporary
LABWRIGHT_HOME; nothing of the user's is touched.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# LABWRIGHT_SHOT_SIZE=1024x640 shoots a small window, as on a laptop
SIZE = tuple(int(n) for n in os.environ.get("LABWRIGHT_SHOT_SIZE", "1300x820").split("x"))
sys.path[:0] = [str(ROOT / "tests"), str(ROOT / "desktop")]


def start_xvfb() -> subprocess.Popen | None:
    if os.environ.get("DISPLAY"):
        return None
    if not shutil.which("Xvfb"):
        sys.exit("Xvfb is not installed (Debian/Ubuntu: apt-get install xvfb).")
    display = ":97"
    proc = subprocess.Popen(
        # a screen larger than the window, so the window manager-less X server never clips it
        [
            "Xvfb",
            display,
            "-screen",
            "0",
            f"{SIZE[0] + 200}x{SIZE[1] + 200}x24",
            "-nolisten",
            "tcp",
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    os.environ["DISPLAY"] = display
    time.sleep(0.8)
    return proc


def main() -> None:
    out = Path(sys.argv[1] if len(sys.argv) > 1 else ROOT / "screenshots").resolve()
    out.mkdir(parents=True, exist_ok=True)
    home = Path(tempfile.mkdtemp(prefix="labwright-shots-"))
    os.environ["LABWRIGHT_HOME"] = str(home)
    os.environ["LABWRIGHT_API_KEY"] = "sk-screenshot"
    os.environ.pop("QT_QPA_PLATFORM", None)
    xvfb = start_xvfb()
    try:
        if os.environ.get("LABWRIGHT_SHOT_LANG"):
            shoot(out, os.environ["LABWRIGHT_SHOT_LANG"])
        else:
            # one process per language, each with one window, as a person runs the app
            for lang in ("en", "zh_CN"):
                env = {**os.environ, "LABWRIGHT_SHOT_LANG": lang}
                subprocess.run([sys.executable, __file__, str(out)], env=env, check=True)
            print("\n".join(str(p) for p in sorted(out.glob("*.png"))))
    finally:
        if xvfb is not None:
            xvfb.terminate()
            xvfb.wait(5)
        shutil.rmtree(home, ignore_errors=True)


def shoot(out: Path, lang: str) -> None:
    import asyncio

    import qasync
    from PySide6.QtWidgets import QApplication

    from fakes import FakeLLM, call, delay, text, tool_calls
    from labwright.core.settings.saved import Settings
    from labwright.gui.app import create_app
    from labwright.gui.i18n import install_language
    from labwright.gui.main_window import MainWindow

    # LABWRIGHT_SHOT_MATERIAL points at the shared data from a worktree
    shared = ROOT.parent / "shared" / "data" / "projectile-motion"
    folder = Path(os.environ.get("LABWRIGHT_SHOT_MATERIAL", shared))
    if not folder.is_dir():
        folder = ROOT / "examples" / "pendulum"
    findings = {
        "experiment": "Projectile motion",
        "goal": "Range and height against angle and speed",
        "key_findings": ["Data/Projectile motion.xlsx: range peaks near 45°"],
    }

    def model(body: dict, n: int):
        if body["model"] == "fake-write":
            prompt = str(body["messages"][-1].get("content", ""))
            if "JSON only" in prompt:
                return text("[]")
            if "NO ISSUES" in prompt:
                return text("NO ISSUES")
            if "BibTeX" in prompt:
                return text("")
            return delay(0.6, text(DOC))
        explore = [
            tool_calls(call("list_dir", {"path": "."})),
            tool_calls(call("list_dir", {"path": "Data"})),
            tool_calls(call("read_file", {"path": "Data/Projectile motion.xlsx", "limit": 40})),
            tool_calls(call("read_file", {"path": "Data/Projectile motion.xlsx", "limit": 40})),
            tool_calls(
                call("read_file", {"path": "Manual/1GP2 Projectile Motion - Lab Manual.docx"})
            ),
            tool_calls(call("finish_exploration", findings)),
        ]
        return delay(0.35, explore[min(explore_calls(body), len(explore) - 1)])

    app = create_app()
    with FakeLLM(model) as llm:
        install_language(lang)
        loop = qasync.QEventLoop(app)
        asyncio.set_event_loop(loop)
        s = Settings(
            provider="custom",
            base_url=llm.base_url,
            explore_model="fake-explore",
            write_model="fake-write",
            reflect=1,
            ui_language=lang,
        )
        w = MainWindow(loop, s)
        w.resize(*SIZE)
        w.show()
        settle(app, 0.5)
        w.grab().save(str(out / f"empty-{lang}.png"))
        w.load_folder(folder)
        settle(app, 1.0)
        w.grab().save(str(out / f"scanned-{lang}.png"))
        shoot_settings(app, w, out / f"settings-{lang}.png")
        shoot_check_setup(app, w, out / f"check-setup-{lang}.png")
        shoot_without_keyring(app, w, out, lang)
        w.start_run()
        wait_until(
            app,
            lambda w=w: w.timeline.current_stage == "explore" and w.timeline.rowCount() > 1,
            20,
        )
        settle(app, 1.6)
        w.grab().save(str(out / f"running-{lang}.png"))
        wait_until(app, lambda w=w: not w.bridge.running, 120)
        settle(app, 1.0)
        w.grab().save(str(out / f"finished-{lang}.png"))
        w.results.setCurrentIndex(2)
        settle(app, 1.0)
        w.grab().save(str(out / f"finished-pdf-{lang}.png"))
        # View > Zoom In twice, as Ctrl+= does: the PDF tab zooms like the review's preview
        zoom_in = w.results.pdf.zoom_in_action
        zoom_in.trigger()
        zoom_in.trigger()
        settle(app, 1.0)
        w.grab().save(str(out / f"finished-pdf-zoomed-{lang}.png"))
        w.results.pdf.fit_width_action.trigger()
        # a degraded draft: an offline run opens the review pane by itself
        w.offline_check.setChecked(True)
        w.start_run()
        wait_until(app, lambda w=w: not w.bridge.running and w.review is not None, 120)
        settle(app, 1.5)
        w.review.editor.go_to_line(12)
        settle(app, 0.5)
        w.grab().save(str(out / f"review-{lang}.png"))
        w.review.right_tabs.setCurrentIndex(1)
        settle(app, 0.5)
        w.grab().save(str(out / f"review-changes-{lang}.png"))
        w.review.right_tabs.setCurrentIndex(0)
        # a compile error: marked in the gutter, listed in the log
        editor = w.review.editor
        line = next(
            n for n, t in enumerate(editor.text().splitlines(), 1) if t.startswith("\\section")
        )
        editor.go_to_line(line + 1)
        editor.insertPlainText("\\nosuchcommand ")
        compiled = []
        w.review.compiled.connect(compiled.append)
        w.review.recompile_action.trigger()
        wait_until(app, lambda c=compiled: bool(c), 120)
        settle(app, 1.0)
        w.grab().save(str(out / f"review-errors-{lang}.png"))
        # the export notice
        exported = Path(os.environ["LABWRIGHT_HOME"]) / f"report-{lang}.zip"
        w.review.export(exported, confirm=lambda _: True)
        settle(app, 0.5)
        w.grab().save(str(out / f"exported-{lang}.png"))
        # the Word export, for a course that wants a .docx (pandoc, core/report/word.py)
        docx = Path(os.environ["LABWRIGHT_HOME"]) / f"report-{lang}.docx"
        w.review.export(docx, confirm=lambda _: True)
        settle(app, 0.5)
        w.grab().save(str(out / f"exported-docx-{lang}.png"))
        w.close()
        asyncio.set_event_loop(None)
        loop.close()
    QApplication.processEvents()


def shoot_settings(app, w, path: Path) -> None:
    """The Settings dialog as Ctrl+, opens it, saved and closed again."""
    from labwright.gui.settings_dialog import SettingsDialog

    dialog = SettingsDialog(w.settings, w)
    dialog.show()
    settle(app, 0.8)
    dialog.grab().save(str(path))
    dialog.reject()
    settle(app, 0.2)


def shoot_check_setup(app, w, path: Path) -> None:
    """Help > Check Setup… once its checks have answered."""
    from labwright.gui.doctor_dialog import DoctorDialog

    w.check_setup_action.trigger()
    wait_until(app, lambda: w.findChild(DoctorDialog) is not None, 10)
    dialog = w.findChild(DoctorDialog)
    wait_until(app, lambda: bool(dialog.checks), 60)
    settle(app, 0.5)
    dialog.grab().save(str(path))
    dialog.reject()
    settle(app, 0.2)


def shoot_without_keyring(app, w, out: Path, lang: str) -> None:
    """No Secret Service and no key (DeepSeek): Settings with a key typed (asking where to
    keep it), then "a file only I can read" chosen; Check Setup saying offline reports work."""
    import keyring
    from keyring.backends import fail
    from PySide6.QtCore import Qt
    from PySide6.QtTest import QTest

    from labwright.core.settings.saved import Settings
    from labwright.gui.doctor_dialog import DoctorDialog
    from labwright.gui.settings_dialog import SettingsDialog

    previous_keyring, previous_key = keyring.get_keyring(), os.environ.pop("LABWRIGHT_API_KEY")
    keyring.set_keyring(fail.Keyring())
    try:
        dialog = SettingsDialog(Settings(), w)
        dialog.show()
        settle(app, 0.5)
        QTest.keyClicks(dialog.key_edit, "sk-fake-typed-for-this-screenshot")
        settle(app, 0.3)
        dialog.grab().save(str(out / f"settings-no-keyring-{lang}.png"))  # asked where
        dialog.key_store_combo.setFocus()
        QTest.keyClick(dialog.key_store_combo, Qt.Key.Key_Down)  # "Keep in a file only I can read"
        settle(app, 0.5)
        dialog.grab().save(str(out / f"settings-key-in-a-file-{lang}.png"))
        dialog.reject()
        settle(app, 0.2)
        doctor = DoctorDialog(w, settings=Settings())
        doctor.show()
        wait_until(app, lambda: bool(doctor.checks), 60)
        settle(app, 0.5)
        doctor.grab().save(str(out / f"check-setup-no-key-{lang}.png"))
        doctor.reject()
        settle(app, 0.2)
    finally:
        keyring.set_keyring(previous_keyring)
        os.environ["LABWRIGHT_API_KEY"] = previous_key


DOC = r"""\documentclass{article}
\usepackage{graphicx}
\begin{document}
\title{Lab Report: Projectile Motion}\maketitle
\section{Introduction}
The range $R$ of a projectile launched at speed $v$ and angle $\theta$ is $R = v^2 \sin 2\theta / g$.
\section{Results}
At $45^\circ$ the measured range was 0.59 m (Data/Projectile motion.xlsx, Part A).
\end{document}
"""


def explore_calls(body: dict) -> int:
    """How many explore turns this conversation has had (its assistant messages)."""
    return sum(1 for m in body["messages"] if m.get("role") == "assistant")


def settle(app, seconds: float) -> None:
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        app.processEvents()
        time.sleep(0.01)


def wait_until(app, cond, timeout: float) -> None:
    end = time.monotonic() + timeout
    while not cond():
        if time.monotonic() > end:
            raise TimeoutError("the app did not get there in time")
        app.processEvents()
        time.sleep(0.01)


if __name__ == "__main__":
    main()
