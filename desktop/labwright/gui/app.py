"""Start the desktop app: a qasync loop in the GUI thread, the main window, the translator."""

from __future__ import annotations

import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtGui import QIcon, QPixmap
from PySide6.QtWidgets import QApplication

from labwright.core import resources
from labwright.core.settings.saved import (
    load_settings,
    save_settings,
    settings_path,
    settings_problem,
)
from labwright.gui.i18n import install_language
from labwright.gui.main_window import MainWindow

if TYPE_CHECKING:
    from asyncio import AbstractEventLoop


def create_app(argv: list[str] | None = None) -> QApplication:
    running = QApplication.instance()
    app = running if isinstance(running, QApplication) else QApplication(argv or sys.argv[:1])
    app.setApplicationName("Labwright")
    app.setOrganizationName("Labwright")
    app.setStyle("Fusion")  # Fusion follows the system's light or dark scheme on every platform
    app.setWindowIcon(app_icon())
    return app


def app_icon() -> QIcon:
    """The window icon, from package data: read as bytes, so no file has to outlive a call."""
    pixmap = QPixmap()
    pixmap.loadFromData(resources.data("icons/labwright.svg"), "SVG")
    return QIcon(pixmap)


def start(folder: Path | None = None) -> tuple[QApplication, MainWindow, AbstractEventLoop]:
    """Everything up to the event loop: the window is on screen first, the loop made after."""
    app = create_app()
    first_run = not settings_path().exists()
    settings = load_settings()
    install_language(settings.ui_language)
    window = MainWindow(None, settings)

    def switch_language(lang: str) -> None:
        install_language(lang)
        window.retranslate()

    window.language_changed.connect(switch_language)
    window.show()
    app.processEvents()  # paint it now
    window.shown_at = time.time()  # what bench/bench_startup.py measures
    import asyncio  # only now: the window is on screen while asyncio and qasync load

    import qasync  # type: ignore[import-untyped]  # (qasync ships no type hints)

    loop = qasync.QEventLoop(app)
    asyncio.set_event_loop(loop)
    window.attach_loop(loop)
    problem = settings_problem()
    if problem:
        from labwright.core.step_words import words_of
        from labwright.gui.timeline import step_words

        said = words_of(problem)  # worded in the UI language, again on a switch
        window.show_banner(lambda: step_words(said, problem), warning=True)
    if folder is not None:
        window.load_folder(folder)
    if first_run:  # TeX missing, the disk full: say so now, not after the first run
        from labwright.gui.doctor_dialog import show_if_needed

        show_if_needed(window)
    return app, window, loop


def main(folder: Path | None = None) -> int:
    import asyncio

    app, window, loop = start(folder)
    closed = asyncio.Event()
    app.aboutToQuit.connect(closed.set)
    try:
        loop.run_until_complete(closed.wait())
    finally:  # what qasync's `with loop:` does on leaving
        loop.stop()
        loop.close()
    # shutdown order: the window cancelled and joined the worker in closeEvent; now the loop is closed
    save_settings(window.settings)
    return 0
