"""The main window: drop a folder, check the scan, start, watch the run, read the report."""

from __future__ import annotations

import html
from collections.abc import Callable
from dataclasses import asdict, replace
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import asyncio

    from labwright.core.material.workspace import ScanResult

from PySide6.QtCore import (
    QCoreApplication,
    QModelIndex,
    QPersistentModelIndex,
    Qt,
    QTimer,
    Signal,
)
from PySide6.QtGui import (
    QAction,
    QCloseEvent,
    QDragEnterEvent,
    QDropEvent,
    QKeySequence,
)
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDockWidget,
    QFileDialog,
    QHBoxLayout,
    QHeaderView,
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

from labwright.core.events import Event
from labwright.core.llm.client import Usage
from labwright.core.reasons import limits_of
from labwright.core.report import templates
from labwright.core.rundir.records import RunRecord
from labwright.core.settings.config import RunConfig, config_from_public, provider_for_url
from labwright.core.settings.cost import spent_usd
from labwright.core.settings.resolve import key_problem, resolve_config
from labwright.core.settings.saved import Settings, load_settings, save_settings
from labwright.core.step_words import words_of
from labwright.gui import run_files
from labwright.gui.bridge import RunBridge, call_in_thread
from labwright.gui.exporting import export_with_dialogs, show_in_folder
from labwright.gui.gcguard import collect_in_gui_thread
from labwright.gui.history import HistoryList
from labwright.gui.i18n import current_language
from labwright.gui.result_tabs import ResultTabs
from labwright.gui.state import remember_splitter, ui_state
from labwright.gui.timeline import (
    TimelineModel,
    error_words,
    reason_explanation,
    stage_label,
    step_words,
)
from labwright.gui.widgets import Banner, DropZone, dropped_folder, folder_problem

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
        # the shown run's calls, priced as run.json prices them (core/settings/cost.py)
        self.usage = Usage()
        self.priced_config: RunConfig | None = None
        self._io_threads: list = []
        self._banner_text: Callable[[], str] | None = None  # worded again on a language switch
        self._progress_text: Callable[[], str] | None = None
        self._notice_text: Callable[[], str] | None = None
        self._history_was_visible = True
        collect_in_gui_thread()  # a run's worker must never free a Qt object (see gcguard)
        self.bridge = RunBridge(None, self)
        self.bridge.events.connect(self.on_events)
        self.bridge.finished.connect(self.on_finished)
        self.bridge.text.connect(self.on_text)
        self._build()
        self.retranslate()
        if loop is not None:
            self.attach_loop(loop)
        self.resize(1200, 780)
        self.resizeDocks([self.history_dock], [220], Qt.Orientation.Horizontal)
        state = ui_state()
        if state.value("window/geometry") is not None:
            self.restoreGeometry(state.value("window/geometry"))
        if state.value("window/state") is not None:
            self.restoreState(state.value("window/state"))
        self.setAcceptDrops(True)  # a folder dropped anywhere in the window opens it
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
        # a notice above every page: what was just done, and the one thing to do next
        self.notice = Banner()
        self.notice.setObjectName("notice")
        central = QWidget()
        cl = QVBoxLayout(central)
        cl.setContentsMargins(0, 0, 0, 0)
        cl.setSpacing(0)
        cl.addWidget(self.notice)
        cl.addWidget(self.stack, 1)
        self.setCentralWidget(central)

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
        self.banner = Banner()
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
        # steps and details share the width: a fixed step column left the details a sliver
        # in a small window
        self.tree.header().setSectionResizeMode(QHeaderView.ResizeMode.Stretch)
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
        split.setObjectName("runSplitter")
        split.addWidget(self.tree)
        split.addWidget(self.results)
        split.setSizes([620, 580])
        self.run_splitter = split
        remember_splitter(split, "run")
        run_page = QWidget()
        rl = QVBoxLayout(run_page)
        rl.addWidget(self.folder_label)
        rl.addWidget(self.scan_label)
        rl.addWidget(self.sandbox_label)
        rl.addLayout(settings_row)
        rl.addLayout(progress_row)
        rl.addWidget(self.banner)  # under the controls: showing it never moves them
        rl.addWidget(split, 1)
        self.stack.addWidget(run_page)
        self.review = None  # the review pane is built the first time it is opened

        # history of past runs
        self.history = HistoryList()
        self._history_lang = current_language()
        self.history.run_chosen.connect(self.open_run)
        self.history_dock = QDockWidget(self)
        self.history_dock.setObjectName("history")
        self.history_dock.setWidget(self.history)
        self.addDockWidget(Qt.DockWidgetArea.LeftDockWidgetArea, self.history_dock)

        # actions and shortcuts: every one is in a menu, with its keys shown there
        self.open_action = QAction(self, shortcut=QKeySequence.StandardKey.Open)
        self.open_action.triggered.connect(self.choose_folder)
        self.export_action = QAction(self, shortcut=QKeySequence("Ctrl+E"))
        self.export_action.triggered.connect(self.export)
        self.start_action = QAction(self, shortcut=QKeySequence("Ctrl+R"))
        self.start_action.triggered.connect(self.start_run)
        self.cancel_action = QAction(self, shortcut=QKeySequence("Ctrl+."))
        self.cancel_action.triggered.connect(self.cancel_run)
        self.review_action = QAction(self, shortcut=QKeySequence("Ctrl+Shift+R"))
        self.review_action.triggered.connect(self.open_review)
        self.settings_action = QAction(self)
        self.settings_action.setShortcuts(settings_keys())
        self.settings_action.triggered.connect(self.open_settings)
        self.quit_action = QAction(self, shortcut=QKeySequence.StandardKey.Quit)
        self.quit_action.triggered.connect(self.close)
        self.about_action = QAction(self)
        self.about_action.triggered.connect(self.about)
        self.start_button.clicked.connect(self.start_action.trigger)
        self.cancel_button.clicked.connect(self.cancel_action.trigger)
        menus = self.menuBar()
        self.file_menu = menus.addMenu("")
        for a in (self.open_action, self.export_action):
            self.file_menu.addAction(a)
        self.file_menu.addSeparator()
        self.file_menu.addAction(self.settings_action)
        self.file_menu.addSeparator()
        self.file_menu.addAction(self.quit_action)
        # the review pane's own actions join these menus when it is first built
        self.edit_menu = menus.addMenu("")
        self.run_menu = menus.addMenu("")
        for a in (self.start_action, self.cancel_action, self.review_action):
            self.run_menu.addAction(a)
        self.view_menu = menus.addMenu("")
        self.view_menu.addAction(self.history_dock.toggleViewAction())
        # Help: a setup check, then About
        self.check_setup_action = QAction(self)
        # not Qt's text heuristics: on macOS "setup" would make it the Preferences item
        self.check_setup_action.setMenuRole(QAction.MenuRole.NoRole)
        self.check_setup_action.triggered.connect(self.check_setup)
        self.help_menu = menus.addMenu("")
        self.help_menu.addAction(self.check_setup_action)
        self.help_menu.addAction(self.about_action)
        self.edit_menu.menuAction().setVisible(False)
        self._apply_run_defaults()
        self._fill_recent()

    def retranslate(self) -> None:
        """Every visible string, so a language switch takes effect at once."""
        self._update_title()
        self.drop_zone.retranslate()
        self.results.retranslate()
        self.timeline.retranslate()
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
        if self._history_lang != current_language():  # its rows were worded at start-up
            self._history_lang = current_language()
            self.history.refresh()
        self.open_action.setText(self.tr("&Open Folder…"))
        self.export_action.setText(self.tr("&Export…"))
        self.start_action.setText(self.tr("&Start"))
        self.cancel_action.setText(self.tr("&Cancel Run"))
        self.review_action.setText(self.tr("&Review and Export…"))
        self.settings_action.setText(self.tr("S&ettings…"))
        self.quit_action.setText(self.tr("&Quit"))
        self.about_action.setText(self.tr("&About Labwright"))
        self.file_menu.setTitle(self.tr("&File"))
        self.edit_menu.setTitle(self.tr("&Edit"))
        self.run_menu.setTitle(self.tr("&Run"))
        self.view_menu.setTitle(self.tr("&View"))
        self.check_setup_action.setText(self.tr("Check &Setup…"))
        self.help_menu.setTitle(self.tr("&Help"))
        self._show_usage()
        # hidden pages too: they are shown again later, in the language chosen now
        if self._banner_text is not None:
            self.banner.label.setText(self._banner_text())
        if self._notice_text is not None:
            self.notice.label.setText(self._notice_text())
            self.notice.button.setText(self.tr("Show in Folder"))
        if not self.banner.button.isHidden():
            self.banner.button.setText(self.tr("Open Settings"))
        if self._progress_text is not None:
            self.progress.setFormat(self._progress_text())
        elif (
            not self.bridge.running
            and self.progress.maximum() == 100
            and self.progress.value() <= 0
        ):
            self.progress.setFormat(self.tr("Ready"))
        self._update_export_tip()

    def _set_progress_text(self, words: Callable[[], str]) -> None:
        self._progress_text = words
        self.progress.setFormat(words())

    def _update_title(self) -> None:
        """The window says which folder and which run it shows."""
        parts = []
        if self.folder is not None or self.run_dir is not None:
            name = self.folder.name if self.folder is not None else ""
            if self.run_dir is not None:
                parts.append(
                    self.tr("{0} — run {1}").format(name, self.run_dir.name)
                    if name
                    else self.tr("run {0}").format(self.run_dir.name)
                )
            else:
                parts.append(name)
        parts.append(self.tr("Labwright"))
        self.setWindowTitle(" — ".join(parts))

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
        self.notice.dismiss()
        self.sandbox_label.hide()
        self._reset_usage()  # the counters are the shown run's: a new folder has none yet
        self._show_place()
        self.scan_label.setText(self.tr("Scanning…"))
        self.progress.setRange(0, 100)
        self.progress.setValue(0)
        self._set_progress_text(lambda: self.tr("Ready"))
        self._leave_review()
        self.stack.setCurrentIndex(RUN)
        from labwright.core.material.workspace import (
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
        except ValueError as e:  # settings.json edited by hand: the core's check says which value
            why, said = str(e), words_of(e.args[0] if e.args else None)
            self.show_banner(
                lambda: self.tr("These settings cannot start a run: {0}").format(
                    step_words(said, why)
                )
            )
            return
        if key_problem(config):  # the core decides; the app says it in its own words
            provider = provider_for_url(config.base_url).name
            keys = self.settings_action.shortcut().toString(QKeySequence.SequenceFormat.NativeText)
            self.show_banner(
                lambda: self.tr(
                    "No API key is set for {0}. Add one in Settings ({1}), or tick “Offline” to write a skeleton report without a model."
                ).format(provider, keys),
                button=self.tr("Open Settings"),
                slot=self.open_settings,
            )
            return
        if not offline:
            allow = self._sandbox_consent()
            if allow is None:
                return
            config = replace(config, allow_unconfined=allow)
        from labwright.core.rundir.store import prepare_run_dir

        config = prepare_run_dir(config)
        self.run_dir = config.out_dir
        self.timeline.clear(config.guards)
        self.results.clear()
        self.hide_banner()
        self.notice.dismiss()
        self._reset_usage(config)
        self._show_place()
        self.progress.setRange(0, 1)
        self.progress.setValue(0)
        self._set_progress_text(lambda: self.tr("Starting…"))
        self.bridge.start(replace(config))
        self._show_usage()  # with the run's time limit, now that it runs
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
                self.tr("Model-written code runs in a sandbox: {0}.").format(
                    self.tr(", ").join(layers)
                )
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
            self._set_progress_text(lambda: self.tr("Cancelling…"))
            self.cancel_button.setEnabled(False)

    def on_events(self, events: list[Event]) -> None:
        self.timeline.apply(events)
        for ev in events:
            if ev.type == "llm":
                self.tokens += ev.prompt_tokens + ev.completion_tokens
                self.usage.add_call(
                    ev.role,
                    ev.prompt_tokens,
                    ev.completion_tokens,
                    ev.ms,
                    ev.model,
                    reasoning_tokens=ev.reasoning_tokens,
                )
                if self.priced_config is not None:
                    self.cost = spent_usd(self.priced_config, self.usage)
            elif ev.type == "error":
                kind, message, words = ev.kind, ev.message, getattr(ev, "words", None)
                self.show_banner(
                    lambda k=kind, m=message, w=words: error_words(k, plain_words(m), w)
                )
            elif ev.type == "draft" and self.run_dir is not None:
                self.results.draft.setPlainText(run_files.read_text(self.run_dir, "report.tex"))
        plan = self.timeline.plan
        if plan and self.bridge.running:
            self.progress.setRange(0, len(plan))
            self.progress.setValue(self.timeline.done_count)
            done = self.timeline.done_count
            stage = self.timeline.current_stage or plan[min(done, len(plan) - 1)]
            self._set_progress_text(
                lambda: self.tr("Step {0} of {1}: {2}").format(
                    min(done + 1, len(plan)), len(plan), stage_label(stage)
                )
            )
        self._show_usage()

    def on_text(self, restart: bool, pieces: str) -> None:
        """The draft as the model writes it, every 40 ms."""
        if restart:
            self.results.start_draft()
            self.results.setCurrentWidget(self.results.draft)
        self.results.append_draft(pieces)

    def on_finished(self, done: Any) -> None:
        status = getattr(done, "status", "failed")
        self._show_usage()  # the time limit goes with the run
        if self.timeline.plan and status in ("ok", "degraded"):
            self.progress.setRange(0, len(self.timeline.plan))
            self.progress.setValue(self.progress.maximum())
        self._set_progress_text(lambda: self._status_words(status))
        reasons = list(getattr(done, "reasons", None) or [])
        if status == "degraded" and reasons:
            self.show_banner(
                lambda: self.tr("This draft needs your review: {0}").format(
                    " ".join(reason_explanation(r) for r in reasons)
                ),
                warning=True,
            )
        if self.run_dir is not None and self.run_dir.is_dir():
            self.results.load_run(self.run_dir)
            if run_files.has_file(self.run_dir, "report.tex"):
                self.results.setCurrentWidget(self.results.source)
        self.history.refresh()
        self._update_buttons()
        if (
            status == "degraded"
            and self.run_dir is not None
            and run_files.has_file(self.run_dir, "report.tex")
        ):
            self.open_review()  # a degraded draft must be read before it is used

    def open_review(self) -> None:
        """The review pane on the current run's report."""
        if (
            self.run_dir is None
            or not run_files.has_file(self.run_dir, "report.tex")
            or self.bridge.running
        ):
            return
        review = self._review_pane()
        review.open_run(self.run_dir)
        if self.stack.currentIndex() != REVIEW:
            # the editor needs the width: history folds away while reviewing
            self._history_was_visible = self.history_dock.isVisible()
            self.history_dock.hide()
        self.stack.setCurrentIndex(REVIEW)
        review.editor.setFocus(Qt.FocusReason.OtherFocusReason)  # Ctrl+F works at once
        self._update_buttons()

    def _review_pane(self) -> Any:
        if self.review is None:
            from labwright.gui.review_pane import (
                ReviewPane,  # the editor and diff load only when needed
            )

            self.review = ReviewPane(self.loop)
            self.review.closed.connect(self._review_closed)
            self.review.redraft_requested.connect(self.redraft)
            self.review.exported.connect(self._show_exported)
            self.stack.addWidget(self.review)
            remember_splitter(self.review.splitter, "review")
            remember_splitter(self.review.left_splitter, "review-left")
            r = self.review
            self.edit_menu.addAction(r.find_action)
            self.edit_menu.addAction(r.replace_action)
            self.edit_menu.addSeparator()
            self.edit_menu.addAction(r.save_action)
            self.edit_menu.menuAction().setVisible(True)
            self.run_menu.addSeparator()
            for a in (r.recompile_action, r.redraft_action):
                self.run_menu.addAction(a)
            self.view_menu.addSeparator()
            for a in (
                r.show_in_pdf_action,
                r.zoom_in_action,
                r.zoom_out_action,
                r.fit_width_action,
                r.fit_page_action,
                r.log_action,
            ):
                self.view_menu.addAction(a)
        return self.review

    def _leave_review(self) -> None:
        if self.stack.currentIndex() == REVIEW:
            if self.review is not None:
                self.review.flush_saves()
            if self._history_was_visible:
                self.history_dock.show()

    def _review_closed(self) -> None:
        self._leave_review()
        if self.run_dir is not None:
            self.results.load_run(self.run_dir)
        self.stack.setCurrentIndex(RUN)
        self._update_buttons()

    def redraft(self, note: str) -> None:
        """Write the report again from the journal, with the person's note; no new exploration."""
        if self.run_dir is None or self.bridge.running:
            return
        use_server = self._redraft_server()
        if use_server is None:
            return  # the person would not send this run to their settings' server
        self._leave_review()
        self.stack.setCurrentIndex(RUN)
        self.hide_banner()
        self.results.clear()
        # the person's server and key, as for a new run (core/rundir/resume.py), never
        # the run's: a run folder may come from someone else
        settings = Settings(**asdict(self.settings))  # a copy for the worker thread
        job = partial(_redraft_job, self.run_dir, note or None, settings, use_server)
        self.bridge.start_job(job, self.run_dir)
        self._update_buttons()

    def _redraft_server(self) -> str | None:
        """The server a re-draft may use although the run was made with another: ""
        when there is nothing to ask (the same server, or a run the re-draft itself
        refuses, saying why), the person's own server when they agreed, None when not."""
        from labwright.core.rundir.files import try_load_run
        from labwright.core.rundir.resume import server_change

        assert self.run_dir is not None
        meta = try_load_run(self.run_dir)
        if meta is None or meta.folder is None:
            return ""
        try:
            mine = resolve_config(meta.folder, settings=self.settings)
        except ValueError:
            return ""
        change = server_change(meta, mine)
        if change is None:
            return ""
        box = QMessageBox(self)
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

    def open_run(self, run_dir: Path) -> None:
        """Reopen a past run from its directory: its journal replays into the timeline."""
        if self.bridge.running:
            self.show_banner(self.tr("A run is going; cancel it before opening another."))
            return
        from labwright.core.events import event_from_dict
        from labwright.core.rundir.fence import RunLinkError, check_run_dir
        from labwright.core.rundir.store import read_journal

        try:
            # A run folder someone sent may hold links: refused before anything of it is read.
            check_run_dir(run_dir)
        except RunLinkError as e:
            self.show_banner(self.tr("This run cannot be opened: {0}").format(e))
            return
        try:
            events = [event_from_dict(e) for e in read_journal(run_dir)]
        except (OSError, KeyError, TypeError) as e:
            self.show_banner(self.tr("This run cannot be opened: {0}").format(e))
            return
        from labwright.core.rundir.files import RunFileError, load_run

        meta: RunRecord | None = None
        problem = None
        try:
            meta = load_run(run_dir)
        except RunFileError as e:  # the journal still replays; the banner says what is wrong
            problem = str(e)
        folder = (meta.folder if meta else None) or Path()
        self.folder = folder if meta and folder.is_dir() else None
        self.run_dir = run_dir
        self._leave_review()
        self.stack.setCurrentIndex(RUN)
        self._show_place(folder)
        self.scan_label.setText("")
        self.sandbox_label.hide()
        self.hide_banner()
        self.notice.dismiss()
        self.timeline.clear(limits_of(meta.to_dict() if meta else {}))
        self.results.clear()
        self._reset_usage(_priced_config(meta))
        self.on_events(events)
        done = next((e for e in reversed(events) if e.type == "done"), None)
        self.on_finished(done) if done else self.results.load_run(run_dir)
        self._update_buttons()
        if problem:
            self.show_banner(problem)

    # -- small things -------------------------------------------------------------

    def show_banner(
        self,
        text: str | Callable[[], str],
        *,
        warning: bool = False,
        button: str | None = None,
        slot: Callable[[], object] | None = None,
    ) -> None:
        """A message on the run page; given as a function, it is worded again on a language switch."""
        self._banner_text = text if callable(text) else None
        self.banner.show_message(
            text() if callable(text) else text,
            "warning" if warning else "error",
            button,
            slot,
        )

    def hide_banner(self) -> None:
        self._banner_text = None
        self.banner.dismiss()

    def _status_words(self, status: str) -> str:
        return {
            "ok": self.tr("Done"),
            "degraded": self.tr("Done — needs review"),
            "failed": self.tr("Failed"),
            "cancelled": self.tr("Cancelled"),
            "running": self.tr("Running"),
        }.get(status, status)

    def _reset_usage(self, priced: RunConfig | None = None) -> None:
        self.tokens, self.cost = 0, 0.0
        self.usage, self.priced_config = Usage(), priced
        self._show_usage()

    def _show_place(self, folder: Path | None = None) -> None:
        """The header and title: which folder, and which run (its directory)."""
        folder = folder if folder is not None else self.folder
        name = html.escape(folder.name) if folder is not None else ""
        where = self.run_dir if self.run_dir is not None else folder
        self.folder_label.setText(f"<b>{name}</b> — {html.escape(str(where or ''))}")
        self.folder_label.setToolTip(str(where or ""))
        self._update_title()

    def _show_usage(self) -> None:
        text = self.tr("{0:,} tokens").format(self.tokens) if self.tokens else ""
        if self.cost:
            text += f" · ${self.cost:.4f}"
        if self.bridge.running and self.priced_config is not None:
            # A slow local model: the user sees the run will end on its own, and when.
            limit = self.tr("time limit {0:g} min").format(self.priced_config.max_minutes)
            text = f"{text} · {limit}" if text else limit
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
        """Every action enabled only when it can work."""
        running = self.bridge.running
        self.start_button.setEnabled(self.folder is not None and not running)
        self.start_action.setEnabled(self.folder is not None and not running)
        self.cancel_button.setEnabled(running)
        has_report = self.run_dir is not None and run_files.has_file(self.run_dir, "report.tex")
        self.review_button.setEnabled(has_report and not running)
        self.review_action.setEnabled(has_report and not running)
        self.export_action.setEnabled(has_report and not running)
        self.cancel_action.setEnabled(running)
        for w in (self.template_combo, self.lang_combo, self.reflect_spin, self.offline_check):
            w.setEnabled(not running)
        if self.review is not None:
            reviewing = self.stack.currentIndex() == REVIEW
            r = self.review
            for a in (
                r.find_action,
                r.replace_action,
                r.save_action,
                r.recompile_action,
                r.show_in_pdf_action,
                r.zoom_in_action,
                r.zoom_out_action,
                r.fit_width_action,
                r.fit_page_action,
                r.log_action,
            ):
                a.setEnabled(reviewing and (a is not r.recompile_action or not r.compiling))
            r.redraft_action.setEnabled(reviewing and r.redraft_blocker() is None)
        self._update_export_tip()
        self._update_title()

    def _update_export_tip(self) -> None:
        if self.export_action.isEnabled():
            self.export_action.setToolTip(self.tr("Export the report as a .zip or a folder"))
        elif self.bridge.running:
            self.export_action.setToolTip(self.tr("Wait for the run to finish"))
        else:
            self.export_action.setToolTip(self.tr("There is no report to export yet"))

    # -- export ---------------------------------------------------------------------

    def export(self) -> Path | None:
        """File > Export: from the review pane when it is open, else the run's report."""
        if self.run_dir is None or self.bridge.running:
            return None
        if not run_files.has_file(self.run_dir, "report.tex"):
            return None
        if self.stack.currentIndex() == REVIEW and self.review is not None:
            return self.review.export()
        out = export_with_dialogs(self, self.run_dir, self.folder)
        if out is not None:
            self._show_exported(out)
        return out

    def _show_exported(self, path: Path) -> None:
        self._notice_text = lambda: self.tr("Exported to {0}").format(path)
        self.notice.show_message(
            self._notice_text(), "info", self.tr("Show in Folder"), lambda: show_in_folder(path)
        )

    def about(self) -> None:
        from importlib.metadata import PackageNotFoundError, version

        try:
            number = version("labwright")
        except PackageNotFoundError:  # run from a source tree
            number = ""
        QMessageBox.about(
            self,
            self.tr("About Labwright"),
            self.tr(
                "Labwright {0}: turns a folder of lab material into a LaTeX report you review."
            ).format(number),
        )

    # -- drag and drop anywhere -------------------------------------------------------

    def dragEnterEvent(self, event: QDragEnterEvent) -> None:
        if event.mimeData().hasUrls() and not self.bridge.running:
            event.acceptProposedAction()
        else:
            event.ignore()

    def dropEvent(self, event: QDropEvent) -> None:
        folder, problem = dropped_folder(event.mimeData())
        if folder is None:
            self.show_banner(problem or "")
            event.ignore()
            return
        event.acceptProposedAction()
        self.load_folder(folder)

    def open_settings(self) -> None:
        from labwright.gui.settings_dialog import SettingsDialog

        dialog = SettingsDialog(self.settings, self)
        dialog.language_changed.connect(self.language_changed)
        if dialog.exec():
            self.settings = dialog.result_settings()
            self._apply_run_defaults()
            if self.banner.button.isVisible():  # "no key": the settings may have fixed it
                self.hide_banner()

    def check_setup(self) -> None:
        """Help > Check setup…: what `labwright doctor` says, in a window."""
        from labwright.gui.doctor_dialog import DoctorDialog

        dialog = DoctorDialog(self, settings=self.settings)
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dialog.open()

    def closeEvent(self, event: QCloseEvent) -> None:
        if self.bridge.running:
            answer = QMessageBox.question(
                self,
                self.tr("Quit Labwright?"),
                self.tr("A run is in progress — stop it and quit?"),
                QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No,
                QMessageBox.StandardButton.No,
            )
            if answer != QMessageBox.StandardButton.Yes:
                event.ignore()
                return
        if self.stack.currentIndex() == REVIEW and self._history_was_visible:
            self.history_dock.show()  # folded only for the review: it is there next time
        state = ui_state()
        state.setValue("window/geometry", self.saveGeometry())
        state.setValue("window/state", self.saveState())
        state.sync()
        # shutdown order: cancel, join with a timeout; the app closes the loop after
        self.bridge.shutdown(timeout_s=5.0)
        if self.review is not None:
            self.review.shutdown()
        for t in self._io_threads:
            t.join(2.0)
        super().closeEvent(event)


def _redraft_job(
    run_dir: Path,
    note: str | None,
    settings: Settings,
    use_server: str,
    cancel: Any,
    on_text: Any,
) -> Any:
    from labwright.core.events import Done, Error
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
        status = meta.status if meta else None
        yield Done(
            status if status in ("ok", "degraded", "failed", "cancelled") else "degraded",
            reasons=list(meta.reasons) if meta else [],
        )


def settings_keys() -> list[QKeySequence]:
    """The platform's Preferences keys, and Ctrl+, where the platform has none (Linux)."""
    keys = QKeySequence.keyBindings(QKeySequence.StandardKey.Preferences)
    comma = QKeySequence("Ctrl+,")
    return keys if comma in keys else [*keys, comma]


def plain_words(message: str) -> str:
    """A core message for the app: the CLI's flags become what the app offers instead."""
    tick = QCoreApplication.translate("MainWindow", "tick “Offline”")
    return (
        message.replace("run with --offline", tick)
        .replace("(--offline, or tick “Offline” in the app)", f"({tick})")
        .replace("pass --api-key, ", "")
        .replace(" (labwright run --resume)", "")
    )


def _priced_config(meta: RunRecord | None) -> RunConfig | None:
    """A past run's configuration, for pricing its calls as its run.json does."""
    if meta is None:
        return None
    try:
        return config_from_public(dict(meta.config), None)
    except (KeyError, TypeError, ValueError):
        return None
