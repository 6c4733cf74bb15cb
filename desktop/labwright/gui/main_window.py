"""The main window: drop a folder, check the scan, start, watch the run, read the report."""

from __future__ import annotations

from dataclasses import replace
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import asyncio

    from labwright.core.workspace import ScanResult

from PySide6.QtCore import QModelIndex, QPersistentModelIndex, Qt, QTimer, Signal
from PySide6.QtGui import QAction, QCloseEvent, QKeySequence
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDockWidget,
    QFileDialog,
    QHBoxLayout,
    QLabel,
    QListWidget,
    QMainWindow,
    QMessageBox,
    QProgressBar,
    QPushButton,
    QSpinBox,
    QSplitter,
    QStackedWidget,
    QTreeView,
    QVBoxLayout,
    QWidget,
)

from labwright.core import templates
from labwright.core.config import RunConfig, config_from_public, provider_for_url
from labwright.core.cost import spent_usd
from labwright.core.events import Event
from labwright.core.llm import Usage
from labwright.core.reasons import limits_of
from labwright.core.resolve import key_problem, resolve_config
from labwright.core.settings import Settings, load_settings, save_settings

from .bridge import RunBridge, call_in_thread
from .history import HistoryList
from .result_tabs import ResultTabs
from .timeline import TimelineModel, reason_explanation
from .widgets import DropZone, folder_problem

WELCOME, RUN, REVIEW = 0, 1, 2


class MainWindow(QMainWindow):
    language_changed = Signal(str)

    def __init__(
        self, loop: asyncio.AbstractEventLoop | None = None, settings: Settings | None = None
    ) -> None:
        super().__init__()
        self.loop = loop
        self.settings = settings or load_settings()
        self.folder: Path | None = None
        self.scan: ScanResult | None = None
        self.run_dir: Path | None = None
        self.tokens = 0
        self.cost = 0.0
        # the shown run's calls, priced as run.json prices them (core/cost.py)
        self.usage = Usage()
        self.priced_config: RunConfig | None = None
        self._io_threads: list = []
        self.bridge = RunBridge(None, self)
        self.bridge.events.connect(self.on_events)
        self.bridge.finished.connect(self.on_finished)
        self.bridge.text.connect(self.on_text)
        self._build()
        self.retranslate()
        if loop is not None:
            self.attach_loop(loop)
        self.resize(1200, 780)
        self._update_buttons()

    def attach_loop(self, loop: asyncio.AbstractEventLoop) -> None:
        """The asyncio loop of the GUI thread (the app shows the window before making it)."""
        self.loop = loop
        self.bridge.attach_loop(loop)
        if self.review is not None:
            self.review.loop = loop

    # -- construction -------------------------------------------------------

    def _build(self) -> None:
        self.stack = QStackedWidget()
        self.setCentralWidget(self.stack)

        # welcome page: the drop target and recent folders
        self.drop_zone = DropZone()
        self.drop_zone.folder_dropped.connect(self.load_folder)
        self.drop_zone.open_requested.connect(self.choose_folder)
        self.recent_label = QLabel()
        self.recent = QListWidget()
        self.recent.itemActivated.connect(self._recent_chosen)
        welcome = QWidget()
        wl = QVBoxLayout(welcome)
        wl.addWidget(self.drop_zone, 3)
        wl.addWidget(self.recent_label)
        wl.addWidget(self.recent, 1)
        self.stack.addWidget(welcome)

        # run page
        self.folder_label = QLabel()
        self.folder_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.scan_label = QLabel()
        self.scan_label.setWordWrap(True)
        self.sandbox_label = QLabel()  # which OS sandbox holds the model's code, once known
        self.sandbox_label.setWordWrap(True)
        self.sandbox_label.hide()
        self.banner = QLabel()
        self.banner.setObjectName("banner")
        self.banner.setWordWrap(True)
        self.banner.setStyleSheet(
            "QLabel#banner { padding: 6px; border-radius: 4px; background: rgba(230,60,60,60); }"
        )
        self.banner.hide()
        self.template_combo = QComboBox()
        self.template_combo.addItems(templates.available())
        self.lang_combo = QComboBox()
        self.lang_combo.addItem("English", "en")
        self.lang_combo.addItem("简体中文", "zh")
        self.reflect_spin = QSpinBox()
        self.reflect_spin.setRange(0, 5)
        self.offline_check = QCheckBox()
        self.template_label, self.lang_label, self.reflect_label = QLabel(), QLabel(), QLabel()
        self.start_button = QPushButton()
        self.start_button.setDefault(True)
        self.cancel_button = QPushButton()
        self.progress = QProgressBar()
        self.progress.setTextVisible(True)
        self.usage_label = QLabel()
        self.timeline = TimelineModel(self)
        self.tree = QTreeView()
        self.tree.setModel(self.timeline)
        self.tree.setUniformRowHeights(True)
        self.tree.setAlternatingRowColors(True)
        self.tree.setColumnWidth(0, 340)
        self.tree.header().setStretchLastSection(True)
        self.timeline.rowsInserted.connect(self._follow)
        self._follow_timer = QTimer(self, singleShot=True, interval=150)
        self._follow_timer.timeout.connect(self._scroll_to_latest)
        self._latest = QPersistentModelIndex()
        self.results = ResultTabs()

        settings_row = QHBoxLayout()
        for w in (
            self.template_label,
            self.template_combo,
            self.lang_label,
            self.lang_combo,
            self.reflect_label,
            self.reflect_spin,
            self.offline_check,
        ):
            settings_row.addWidget(w)
        settings_row.addStretch(1)
        self.review_button = QPushButton()
        self.review_button.clicked.connect(self.open_review)
        settings_row.addWidget(self.review_button)
        settings_row.addWidget(self.start_button)
        settings_row.addWidget(self.cancel_button)
        progress_row = QHBoxLayout()
        progress_row.addWidget(self.progress, 1)
        progress_row.addWidget(self.usage_label)
        split = QSplitter()
        split.addWidget(self.tree)
        split.addWidget(self.results)
        split.setSizes([620, 580])
        run_page = QWidget()
        rl = QVBoxLayout(run_page)
        rl.addWidget(self.folder_label)
        rl.addWidget(self.scan_label)
        rl.addWidget(self.sandbox_label)
        rl.addLayout(settings_row)
        rl.addWidget(self.banner)
        rl.addLayout(progress_row)
        rl.addWidget(split, 1)
        self.stack.addWidget(run_page)
        self.review = None  # the review pane is built the first time it is opened

        # history of past runs
        self.history = HistoryList()
        self.history.run_chosen.connect(self.open_run)
        self.history_dock = QDockWidget(self)
        self.history_dock.setObjectName("history")
        self.history_dock.setWidget(self.history)
        self.addDockWidget(Qt.DockWidgetArea.LeftDockWidgetArea, self.history_dock)

        # actions and shortcuts
        self.open_action = QAction(self, shortcut=QKeySequence.StandardKey.Open)
        self.open_action.triggered.connect(self.choose_folder)
        self.start_action = QAction(self, shortcut=QKeySequence("Ctrl+R"))
        self.start_action.triggered.connect(self.start_run)
        self.cancel_action = QAction(self, shortcut=QKeySequence("Ctrl+."))
        self.cancel_action.triggered.connect(self.cancel_run)
        self.settings_action = QAction(self, shortcut=QKeySequence.StandardKey.Preferences)
        self.settings_action.triggered.connect(self.open_settings)
        self.quit_action = QAction(self, shortcut=QKeySequence.StandardKey.Quit)
        self.quit_action.triggered.connect(self.close)
        self.start_button.clicked.connect(self.start_run)
        self.cancel_button.clicked.connect(self.cancel_run)
        self.file_menu = self.menuBar().addMenu("")
        for a in (
            self.open_action,
            self.start_action,
            self.cancel_action,
            self.settings_action,
            self.quit_action,
        ):
            self.file_menu.addAction(a)
        self.view_menu = self.menuBar().addMenu("")
        self.view_menu.addAction(self.history_dock.toggleViewAction())
        self.check_setup_action = QAction(self)
        # not Qt's text heuristics: on macOS "setup" would make it the Preferences item
        self.check_setup_action.setMenuRole(QAction.MenuRole.NoRole)
        self.check_setup_action.triggered.connect(self.check_setup)
        self.help_menu = self.menuBar().addMenu("")
        self.help_menu.addAction(self.check_setup_action)
        self._apply_run_defaults()
        self._fill_recent()

    def retranslate(self) -> None:
        """Every visible string, so a language switch takes effect at once."""
        self.setWindowTitle(self.tr("Labwright"))
        self.drop_zone.retranslate()
        self.results.retranslate()
        self.timeline.headerDataChanged.emit(Qt.Orientation.Horizontal, 0, 1)
        self.recent_label.setText(self.tr("Recent folders"))
        self.template_label.setText(self.tr("Template"))
        self.lang_label.setText(self.tr("Language"))
        self.reflect_label.setText(self.tr("Revisions"))
        self.offline_check.setText(self.tr("Offline (no model)"))
        self.offline_check.setToolTip(
            self.tr("Write a skeleton report from the data alone, with no language model.")
        )
        self.start_button.setText(self.tr("Start"))
        self.review_button.setText(self.tr("Review and export…"))
        if self.review is not None:
            self.review.retranslate()
        self.cancel_button.setText(self.tr("Cancel"))
        self.history_dock.setWindowTitle(self.tr("History"))
        self.open_action.setText(self.tr("&Open Folder…"))
        self.start_action.setText(self.tr("&Start"))
        self.cancel_action.setText(self.tr("&Cancel Run"))
        self.settings_action.setText(self.tr("S&ettings…"))
        self.quit_action.setText(self.tr("&Quit"))
        self.file_menu.setTitle(self.tr("&File"))
        self.view_menu.setTitle(self.tr("&View"))
        self.check_setup_action.setText(self.tr("Check &Setup…"))
        self.help_menu.setTitle(self.tr("&Help"))
        self._show_usage()
        if (
            not self.bridge.running
            and self.progress.maximum() == 100
            and self.progress.value() <= 0
        ):
            self.progress.setFormat(self.tr("Ready"))

    def _apply_run_defaults(self) -> None:
        s = self.settings
        lang = s.report_lang or "en"
        self.lang_combo.setCurrentIndex(max(0, self.lang_combo.findData(lang)))
        name = s.template or templates.DEFAULT_BY_LANG.get(lang, "lab-en")
        self.template_combo.setCurrentIndex(max(0, self.template_combo.findText(name)))
        self.reflect_spin.setValue(
            s.reflect if s.reflect is not None else templates.load_template(name).reflect
        )

    def _recent_chosen(self, item) -> None:
        self.load_folder(Path(item.text()))

    def _fill_recent(self) -> None:
        self.recent.clear()
        self.recent.addItems(self.settings.recent_folders)

    # -- folder ---------------------------------------------------------------

    def choose_folder(self) -> None:
        path = QFileDialog.getExistingDirectory(
            self, self.tr("Choose the folder of experiment material")
        )
        if path:
            self.load_folder(Path(path))

    def load_folder(self, folder: Path) -> None:
        if self.bridge.running:
            self.show_banner(self.tr("A run is going; cancel it before opening another folder."))
            return
        problem = folder_problem(folder)
        if problem:
            self.stack.setCurrentIndex(WELCOME)
            self.drop_zone.show_message(problem)
            return
        self.folder = folder.resolve()
        self.settings.remember_folder(self.folder)
        save_settings(self.settings)
        self._fill_recent()
        self.run_dir = None
        self.scan = None
        self.timeline.clear()
        self.results.clear()
        self.hide_banner()
        self.folder_label.setText(f"<b>{self.folder.name}</b> — {self.folder}")
        self.scan_label.setText(self.tr("Scanning…"))
        self.progress.setRange(0, 100)
        self.progress.setValue(0)
        self.progress.setFormat(self.tr("Ready"))
        self.stack.setCurrentIndex(RUN)
        from labwright.core.workspace import (
            scan_folder,  # loaded on first use: start-up stays quick
        )

        self._io_threads = [t for t in self._io_threads if t.is_alive()]
        self._io_threads.append(
            call_in_thread(self.loop, partial(scan_folder, self.folder), self._scanned)
        )
        self._update_buttons()

    def _scanned(self, result: Any) -> None:
        if isinstance(result, Exception):
            self.scan_label.setText(self.tr("The folder could not be scanned: {0}").format(result))
            return
        self.scan = result
        c = result.counts
        text = self.tr("{0} files: {1} documents, {2} images, {3} data, {4} other").format(
            result.files,
            c.get("documents", 0),
            c.get("images", 0),
            c.get("data", 0),
            c.get("other", 0),
        )
        extras = []
        if result.hidden:
            extras.append(self.tr("{0} hidden").format(len(result.hidden)))
        if result.huge:
            extras.append(self.tr("{0} too large to read").format(len(result.huge)))
        if result.skipped:
            extras.append(self.tr("{0} skipped").format(len(result.skipped)))
        self.scan_label.setText(text + (f" ({', '.join(extras)})" if extras else ""))
        self._update_buttons()

    # -- a run ------------------------------------------------------------------

    def start_run(self) -> None:
        if self.folder is None or self.bridge.running:
            return
        offline = self.offline_check.isChecked()
        # the window's controls are this run's flags; the rest as the CLI resolves it
        flags = {
            "template": self.template_combo.currentText(),
            "lang": self.lang_combo.currentData(),
            "reflect": self.reflect_spin.value(),
            "offline": offline,
        }
        try:
            config = resolve_config(self.folder, flags=flags, settings=self.settings)
        except ValueError as e:
            self.show_banner(str(e))
            return
        if key_problem(config):  # the core decides; the app says it in its own words
            self.show_banner(
                self.tr(
                    "No API key is set for {0}. Open Settings (Ctrl+,) to add one, or tick “Offline” to write a skeleton report without a model."
                ).format(provider_for_url(config.base_url).name)
            )
            return
        if not offline:
            allow = self._sandbox_consent()
            if allow is None:
                return
            config = replace(config, allow_unconfined=allow)
        from labwright.core.runstore import prepare_run_dir

        config = prepare_run_dir(config)
        self.run_dir = config.out_dir
        self.timeline.clear(config.guards)
        self.results.clear()
        self.hide_banner()
        self.tokens, self.cost = 0, 0.0
        self.usage, self.priced_config = Usage(), config
        self._show_usage()
        self.progress.setRange(0, 1)
        self.progress.setValue(0)
        self.progress.setFormat(self.tr("Starting…"))
        self.bridge.start(replace(config))
        self._update_buttons()

    def _sandbox_consent(self) -> bool | None:
        """Say which OS sandbox holds the model's figure code; without one, ask first.

        True: run figure code unconfined; False: no model figures (Labwright plots the
        tables itself); None: the person cancelled the start.
        """
        from labwright.core.confine import support

        s = support()
        if s.any:
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
            self.sandbox_label.setText(
                self.tr("Model-written code runs in a sandbox: {0}.").format(", ".join(layers))
            )
            self.sandbox_label.show()
            return False
        self.sandbox_label.setText(
            self.tr(
                "No operating-system sandbox on this machine: model-written code is held only by Labwright's own checks."
            )
        )
        self.sandbox_label.show()
        box = QMessageBox(self)
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

    def cancel_run(self) -> None:
        if self.bridge.running:
            self.bridge.cancel()
            self.progress.setFormat(self.tr("Cancelling…"))
            self.cancel_button.setEnabled(False)

    def on_events(self, events: list[Event]) -> None:
        self.timeline.apply(events)
        for ev in events:
            if ev.type == "llm":
                self.tokens += ev.prompt_tokens + ev.completion_tokens
                self.usage.add_call(
                    ev.role, ev.prompt_tokens, ev.completion_tokens, ev.ms, ev.model
                )
                if self.priced_config is not None:
                    self.cost = spent_usd(self.priced_config, self.usage)
            elif ev.type == "error":
                self.show_banner(ev.message)
            elif ev.type == "draft" and self.run_dir is not None:
                self.results.draft.setPlainText(_read(self.run_dir / "report.tex"))
        plan = self.timeline.plan
        if plan:
            self.progress.setRange(0, len(plan))
            self.progress.setValue(self.timeline.done_count)
            stage = (
                self.timeline.current_stage or plan[min(self.timeline.done_count, len(plan) - 1)]
            )
            self.progress.setFormat(f"{self.timeline.done_count}/{len(plan)} · {stage}")
        self._show_usage()

    def on_text(self, restart: bool, pieces: str) -> None:
        """The draft as the model writes it, every 40 ms."""
        if restart:
            self.results.draft.clear()
            self.results.setCurrentWidget(self.results.draft)
        self.results.append_draft(pieces)

    def on_finished(self, done: Any) -> None:
        status = getattr(done, "status", "failed")
        words = {
            "ok": self.tr("Done"),
            "degraded": self.tr("Done — needs review"),
            "failed": self.tr("Failed"),
            "cancelled": self.tr("Cancelled"),
        }
        if self.timeline.plan and status in ("ok", "degraded"):
            self.progress.setValue(self.progress.maximum())
        self.progress.setFormat(words.get(status, status))
        if status == "degraded" and done.reasons:
            self.show_banner(
                self.tr("This draft needs your review: {0}.").format(
                    " ".join(reason_explanation(r) for r in done.reasons).rstrip(".")
                ),
                warning=True,
            )
        if self.run_dir is not None and self.run_dir.is_dir():
            self.results.load_run(self.run_dir)
            if (self.run_dir / "report.tex").is_file():
                self.results.setCurrentWidget(self.results.source)
        self.history.refresh()
        self._update_buttons()
        if (
            status == "degraded"
            and self.run_dir is not None
            and (self.run_dir / "report.tex").is_file()
        ):
            self.open_review()  # a degraded draft must be read before it is used

    def open_review(self) -> None:
        """The review pane on the current run's report."""
        if (
            self.run_dir is None
            or not (self.run_dir / "report.tex").is_file()
            or self.bridge.running
        ):
            return
        if self.review is None:
            from .review_pane import ReviewPane  # the editor and diff load only when needed

            self.review = ReviewPane(self.loop)
            self.review.closed.connect(self._review_closed)
            self.review.redraft_requested.connect(self.redraft)
            self.stack.addWidget(self.review)
        self.review.open_run(self.run_dir)
        self.stack.setCurrentIndex(REVIEW)

    def _review_closed(self) -> None:
        if self.review is not None:
            self.review.flush_saves()
        if self.run_dir is not None:
            self.results.load_run(self.run_dir)
        self.stack.setCurrentIndex(RUN)

    def redraft(self, note: str) -> None:
        """Write the report again from the journal, with the person's note; no new exploration."""
        if self.run_dir is None or self.bridge.running:
            return
        self.stack.setCurrentIndex(RUN)
        self.hide_banner()
        self.results.clear()
        # the run's own server and key (core/resolve.resumed_config), not today's settings
        self.bridge.start_job(partial(_redraft_job, self.run_dir, note or None, None), self.run_dir)
        self._update_buttons()

    def open_run(self, run_dir: Path) -> None:
        """Reopen a past run from its directory: its journal replays into the timeline."""
        if self.bridge.running:
            self.show_banner(self.tr("A run is going; cancel it before opening another."))
            return
        from labwright.core.events import event_from_dict
        from labwright.core.runstore import read_journal

        try:
            events = [event_from_dict(e) for e in read_journal(run_dir)]
        except (OSError, KeyError, TypeError) as e:
            self.show_banner(self.tr("This run cannot be opened: {0}").format(e))
            return
        meta = _read_json(run_dir / "run.json") or {}
        folder = Path(meta.get("config", {}).get("folder", ""))
        self.folder = folder if folder.is_dir() else None
        self.run_dir = run_dir
        self.stack.setCurrentIndex(RUN)
        self.folder_label.setText(f"<b>{folder.name}</b> — {run_dir}")
        self.scan_label.setText("")
        self.hide_banner()
        self.timeline.clear(limits_of(meta))
        self.results.clear()
        self.tokens, self.cost = 0, 0.0
        self.usage, self.priced_config = Usage(), _priced_config(meta)
        self.on_events(events)
        done = next((e for e in reversed(events) if e.type == "done"), None)
        self.on_finished(done) if done else self.results.load_run(run_dir)
        self._update_buttons()

    # -- small things -------------------------------------------------------------

    def show_banner(self, text: str, *, warning: bool = False) -> None:
        color = "rgba(255,176,32,70)" if warning else "rgba(230,60,60,60)"
        self.banner.setStyleSheet(
            f"QLabel#banner {{ padding: 6px; border-radius: 4px; background: {color}; }}"
        )
        self.banner.setText(text)
        self.banner.show()

    def hide_banner(self) -> None:
        self.banner.hide()
        self.banner.setText("")

    def _show_usage(self) -> None:
        text = self.tr("{0:,} tokens").format(self.tokens) if self.tokens else ""
        if self.cost:
            text += f" · ${self.cost:.4f}"
        self.usage_label.setText(text)

    def _follow(self, parent, first: int, last: int) -> None:
        # scrolling lays out the tree: do it once per 150 ms, not once per batch of rows
        if parent.isValid() and not self.tree.isExpanded(parent):
            self.tree.expand(parent)
        self._latest = QPersistentModelIndex(self.timeline.index(last, 0, parent))
        if not self._follow_timer.isActive():
            self._follow_timer.start()

    def _scroll_to_latest(self) -> None:
        if self._latest.isValid():
            self.tree.scrollTo(QModelIndex(self._latest))

    def _update_buttons(self) -> None:
        running = self.bridge.running
        self.start_button.setEnabled(self.folder is not None and not running)
        self.start_action.setEnabled(self.folder is not None and not running)
        self.cancel_button.setEnabled(running)
        has_report = self.run_dir is not None and (self.run_dir / "report.tex").is_file()
        self.review_button.setEnabled(has_report and not running)
        self.cancel_action.setEnabled(running)
        for w in (self.template_combo, self.lang_combo, self.reflect_spin, self.offline_check):
            w.setEnabled(not running)

    def open_settings(self) -> None:
        from .settings_dialog import SettingsDialog

        dialog = SettingsDialog(self.settings, self)
        dialog.language_changed.connect(self.language_changed)
        if dialog.exec():
            self.settings = dialog.result_settings()
            self._apply_run_defaults()

    def check_setup(self) -> None:
        """Help > Check setup…: what `labwright doctor` says, in a window."""
        from .doctor_dialog import DoctorDialog

        dialog = DoctorDialog(self, settings=self.settings)
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dialog.open()

    def closeEvent(self, event: QCloseEvent) -> None:
        # shutdown order: cancel, join with a timeout; the app closes the loop after
        self.bridge.shutdown(timeout_s=5.0)
        if self.review is not None:
            self.review.shutdown()
        for t in self._io_threads:
            t.join(2.0)
        super().closeEvent(event)


def _redraft_job(
    run_dir: Path, note: str | None, key: str | None, cancel: Any, on_text: Any
) -> Any:
    from labwright.core.pipeline import redraft

    return redraft(run_dir, note=note, api_key=key, cancel=cancel, on_text=on_text)


def _priced_config(meta: dict[str, Any]) -> RunConfig | None:
    """A past run's configuration, for pricing its calls as its run.json does."""
    try:
        return config_from_public(dict(meta["config"]), None)
    except (KeyError, TypeError, ValueError):
        return None


def _read(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return ""


def _read_json(path: Path) -> Any:
    import json

    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
