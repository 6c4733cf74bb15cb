"""Run control: start a run or a re-draft in the worker, cancel it, and say first what
stops it (settings that cannot start a run, no key, no sandbox, another server)."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from dataclasses import asdict, replace
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QObject, Qt
from PySide6.QtWidgets import QMessageBox, QWidget

from labwright.core.events import Done, DoneStatus, Error, Event
from labwright.core.settings.config import RunConfig, provider_for_url
from labwright.core.settings.resolve import key_problem, resolve_config
from labwright.core.settings.saved import Settings
from labwright.core.step_words import words_of
from labwright.gui.bridge import RunBridge
from labwright.gui.run_page import RunHeader
from labwright.gui.timeline import step_words
from labwright.gui.widgets import MessageBanner

if TYPE_CHECKING:
    import asyncio

    from labwright.core.confine import Support


class RunControl(QObject):
    """The one worker of the window (RunBridge) and what has to be asked before it starts."""

    def __init__(
        self,
        banner: MessageBanner,
        header: RunHeader,
        open_settings: Callable[[], None],
        settings_keys: Callable[[], str],
        parent: QWidget,
    ) -> None:
        super().__init__(parent)
        self.bridge = RunBridge(None, self)
        self._banner = banner
        self._header = header
        self._open_settings = open_settings
        self._settings_keys = settings_keys  # the shortcut of Settings, in the platform's words
        self._dialog_parent = parent

    def attach_loop(self, loop: asyncio.AbstractEventLoop) -> None:
        self.bridge.attach_loop(loop)

    @property
    def running(self) -> bool:
        return self.bridge.running

    def start(self, folder: Path, flags: dict[str, Any], settings: Settings) -> RunConfig | None:
        """Start a run on `folder`; its configuration, or None when it did not start (said why)."""
        try:
            config = resolve_config(folder, flags=flags, settings=settings)
        except ValueError as e:  # settings.json edited by hand: the core's check says which value
            why, said = str(e), words_of(e.args[0] if e.args else None)
            self._banner.say(
                lambda: self.tr("These settings cannot start a run: {0}").format(
                    step_words(said, why)
                )
            )
            return None
        if key_problem(config):  # the core decides; the app says it in its own words
            provider = provider_for_url(config.base_url).name
            keys = self._settings_keys()
            self._banner.say(
                lambda: self.tr(
                    "No API key is set for {0}. Add one in Settings ({1}), or tick “Offline” to write a skeleton report without a model."
                ).format(provider, keys),
                button=lambda: self.tr("Open Settings"),
                slot=self._open_settings,
            )
            return None
        if not flags.get("offline"):
            allow = self._sandbox_consent()
            if allow is None:
                return None
            config = replace(config, allow_unconfined=allow)
        from labwright.core.rundir.store import prepare_run_dir

        config = prepare_run_dir(config)
        self.bridge.start(replace(config))
        return config

    def redraft(self, run_dir: Path, note: str | None, settings: Settings) -> bool:
        """Write `run_dir`'s report again; False when the person would not send it to their
        settings' server."""
        use_server = self._redraft_server(run_dir, settings)
        if use_server is None:
            return False
        # the person's server and key, as for a new run (core/rundir/resume.py), never
        # the run's: a run folder may come from someone else
        copy = Settings(**asdict(settings))  # for the worker thread
        self.bridge.start_job(partial(_redraft_job, run_dir, note, copy, use_server), run_dir)
        return True

    def cancel(self) -> bool:
        if not self.bridge.running:
            return False
        self.bridge.cancel()
        return True

    def shutdown(self, timeout_s: float) -> None:
        self.bridge.shutdown(timeout_s=timeout_s)

    def _sandbox_consent(self) -> bool | None:
        """Say which OS sandbox holds the model's figure code; without one, ask first.

        True: run figure code unconfined; False: no model figures (Labwright plots the
        tables itself); None: the person cancelled the start.
        """
        from labwright.core.confine import support

        s = support()
        self._header.show_sandbox(lambda: self._sandbox_words(s))  # worded again on a switch
        if s.any:
            return False
        box = QMessageBox(self._dialog_parent)
        box.setIcon(QMessageBox.Icon.Warning)
        box.setWindowTitle(self.tr("No sandbox"))
        box.setText(
            self.tr(
                "This machine offers no operating-system sandbox, so figure code written by the model would be held only by Labwright's own checks."
            )
        )
        box.setInformativeText(
            self.tr(
                "Without model figures, Labwright plots the data tables itself. A folder from someone you do not trust should not get model figures here."
            )
        )
        run_it = box.addButton(self.tr("Allow model figures"), QMessageBox.ButtonRole.AcceptRole)
        safe = box.addButton(self.tr("Without model figures"), QMessageBox.ButtonRole.RejectRole)
        box.addButton(QMessageBox.StandardButton.Cancel)
        box.setDefaultButton(safe)
        box.exec()
        clicked = box.clickedButton()
        if clicked is run_it:
            return True
        if clicked is safe:
            return False
        return None

    def _sandbox_words(self, s: Support) -> str:
        """The header's sandbox line, in the interface language of the moment."""
        if not s.any:
            return self.tr(
                "No operating-system sandbox on this machine: model-written code is held only by Labwright's own checks."
            )
        layers = []
        if s.fs:
            layers.append(
                self.tr("Landlock (files and signals)")
                if s.signals
                else self.tr("Landlock (files)")
            )
        if s.namespaces:
            layers.append(self.tr("no network"))
        if s.seccomp:
            layers.append(self.tr("seccomp"))
        return self.tr("Model-written code runs in a sandbox: {0}.").format(
            self.tr(", ").join(layers)
        )

    def _redraft_server(self, run_dir: Path, settings: Settings) -> str | None:
        """The server a re-draft may use although the run was made with another: ""
        when there is nothing to ask (the same server, or a run the re-draft itself
        refuses, saying why), the person's own server when they agreed, None when not."""
        from labwright.core.rundir.files import try_load_run
        from labwright.core.rundir.resume import server_change

        meta = try_load_run(run_dir)
        if meta is None or meta.folder is None:
            return ""
        try:
            mine = resolve_config(meta.folder, settings=settings)
        except ValueError:
            return ""
        change = server_change(meta, mine)
        if change is None:
            return ""
        box = QMessageBox(self._dialog_parent)
        box.setIcon(QMessageBox.Icon.Warning)
        box.setWindowTitle(self.tr("Another server"))
        box.setTextFormat(Qt.TextFormat.PlainText)  # the URLs come from a run folder
        box.setText(
            self.tr(
                "This run was made with the server {0}. A re-draft sends the run's findings and your API key to the server of your settings: {1}."
            ).format(change.recorded, change.chosen)
        )
        box.setInformativeText(
            self.tr(
                "A run folder from someone else may name their own server; Labwright never uses it."
            )
        )
        mine_button = box.addButton(
            self.tr("Use my settings ({0})").format(change.chosen.replace("&", "&&")),
            QMessageBox.ButtonRole.AcceptRole,
        )
        cancel = box.addButton(QMessageBox.StandardButton.Cancel)
        box.setDefaultButton(cancel)
        box.exec()
        return change.chosen if box.clickedButton() is mine_button else None


def _redraft_job(
    run_dir: Path,
    note: str | None,
    settings: Settings,
    use_server: str,
    cancel: threading.Event,
    on_text: Callable[[str, str], None],
) -> Iterator[Event]:
    from labwright.core.run.pipeline import RedraftError, redraft

    try:
        yield from redraft(
            run_dir,
            note=note,
            settings=settings,
            use_server=use_server or None,
            cancel=cancel,
            on_text=on_text,
        )
    except RedraftError as e:
        # refused before anything was written: the run is as it was, and says so
        yield Error("draft", e.words)
        from labwright.core.rundir.files import try_load_run

        meta = try_load_run(run_dir)
        status = _AS_DONE.get(meta.status, "degraded") if meta else "degraded"
        yield Done(status, reasons=list(meta.reasons) if meta else [])


# a run's recorded status as its Done says it ("running": a run that stopped midway)
_AS_DONE: dict[str, DoneStatus] = {
    "ok": "ok",
    "degraded": "degraded",
    "failed": "failed",
    "cancelled": "cancelled",
}
