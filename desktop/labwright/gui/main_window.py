"""The main window: drop a folder, check the scan, start, watch the run, read the report.

The window composes its parts, each with one job: the welcome page, the run page
(gui/run_page.py: header, options, meter, banner, timeline, results), the review
pane, the history dock, the menus, and the run control (gui/run_control.py: the
worker and what must be asked before it starts). It keeps which folder and run
are shown and routes between the parts: a folder loaded, a run started, its
events, its end, a past run reopened, the review opened and closed.

The first window is the welcome page: the run page (and the run control, the
timeline, the results and their PDF view) is built the first time a folder or
a run is shown, and what only some sessions use (the review pane, export, a
run's core) is imported in the slot that needs it, so the window is on screen
quickly (bench/bench_startup.py).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Generic, TypeVar

from PySide6.QtCore import QCoreApplication, Qt, Signal
from PySide6.QtGui import (
    QCloseEvent,
    QDragEnterEvent,
    QDropEvent,
    QGuiApplication,
    QKeySequence,
)
from PySide6.QtWidgets import (
    QFileDialog,
    QMainWindow,
    QMessageBox,
    QStackedWidget,
    QVBoxLayout,
    QWidget,
)

from labwright.core.settings.saved import Settings, load_settings, save_settings
from labwright.gui.gcguard import collect_in_gui_thread
from labwright.gui.history import HistoryDock
from labwright.gui.i18n import ensure_language
from labwright.gui.menus import WindowMenus
from labwright.gui.state import remember_splitter, ui_state
from labwright.gui.welcome import WelcomePage
from labwright.gui.widgets import MessageBanner, Words, dropped_folder, folder_problem

if TYPE_CHECKING:
    import asyncio

    from PySide6.QtWidgets import (
        QCheckBox,
        QLabel,
        QProgressBar,
        QPushButton,
    )

    from labwright.core.events import Done, Error, Event, ScanDetail, ScanPlan
    from labwright.core.material.workspace import ScanResult
    from labwright.core.rundir.records import RunRecord
    from labwright.core.settings.config import GuardLimits, RunConfig
    from labwright.gui.bridge import RunBridge
    from labwright.gui.result_tabs import ResultTabs
    from labwright.gui.review_pane import ReviewPane
    from labwright.gui.run_control import RunControl
    from labwright.gui.run_page import RunPage
    from labwright.gui.timeline import TimelineModel
    from labwright.gui.widgets import Banner

WELCOME, RUN, REVIEW = 0, 1, 2
T = TypeVar("T")


class OnRunPage(Generic[T]):
    """A part of the run page as an attribute of the window (the page is built on first use)."""

    def __init__(self, part: Callable[[RunPage], T]) -> None:
        self._part = part

    def __get__(self, window: MainWindow, owner: type | None = None) -> T:
        return self._part(window.run_page)


class MainWindow(QMainWindow):
    language_changed = Signal(str)
    # the run page's parts a person works with, under the names the window always gave them
    scan_label: OnRunPage[QLabel] = OnRunPage(lambda p: p.header.scan_label)
    sandbox_label: OnRunPage[QLabel] = OnRunPage(lambda p: p.header.sandbox_label)
    banner: OnRunPage[Banner] = OnRunPage(lambda p: p.banner)
    offline_check: OnRunPage[QCheckBox] = OnRunPage(lambda p: p.options.offline_check)
    start_button: OnRunPage[QPushButton] = OnRunPage(lambda p: p.options.start_button)
    cancel_button: OnRunPage[QPushButton] = OnRunPage(lambda p: p.options.cancel_button)
    review_button: OnRunPage[QPushButton] = OnRunPage(lambda p: p.options.review_button)
    progress: OnRunPage[QProgressBar] = OnRunPage(lambda p: p.meter.progress)
    usage_label: OnRunPage[QLabel] = OnRunPage(lambda p: p.meter.usage_label)
    timeline: OnRunPage[TimelineModel] = OnRunPage(lambda p: p.steps.timeline)
    results: OnRunPage[ResultTabs] = OnRunPage(lambda p: p.results)

    def __init__(
        self, loop: asyncio.AbstractEventLoop | None = None, settings: Settings | None = None
    ) -> None:
        super().__init__()
        ensure_language()  # a window made without app.start() (a test, a script) counts too
        self.loop = loop
        self.settings = settings or load_settings()
        self.folder: Path | None = None
        self.scan: ScanResult | None = None
        self.run_dir: Path | None = None
        self.review: ReviewPane | None = None  # built the first time it is opened
        self._run_parts: tuple[RunPage, RunControl] | None = None  # built when first shown
        self.shown_at = 0.0  # when the app put it on screen (bench/bench_startup.py)
        self._io_threads: list[threading.Thread] = []
        collect_in_gui_thread()  # a run's worker must never free a Qt object (see gcguard)
        self._build()
        self._connect()
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
        if self._run_parts is not None:
            self.control.attach_loop(loop)
        if self.review is not None:
            self.review.loop = loop

    # -- construction -------------------------------------------------------

    def _build(self) -> None:
        # a notice above every page: what was just done, and the one thing to do next
        self.notice = MessageBanner()
        self.notice.setObjectName("notice")
        self.stack = QStackedWidget()
        central = QWidget()
        cl = QVBoxLayout(central)
        cl.setContentsMargins(0, 0, 0, 0)
        cl.setSpacing(0)
        cl.addWidget(self.notice)
        cl.addWidget(self.stack, 1)
        self.setCentralWidget(central)
        self.welcome = WelcomePage()
        self.stack.addWidget(self.welcome)
        self.history_dock = HistoryDock(self)
        self.addDockWidget(Qt.DockWidgetArea.LeftDockWidgetArea, self.history_dock)
        self.menus = WindowMenus(self)
        self.menus.view_menu.addAction(self.history_dock.toggleViewAction())
        self.drop_zone = self.welcome.drop_zone
        self.history = self.history_dock.runs
        self.menus.add_history_actions([self.history.open_action, self.history.delete_action])
        m = self.menus
        self.open_action, self.export_action = m.open_action, m.export_action
        self.start_action, self.cancel_action = m.start_action, m.cancel_action
        self.review_action, self.settings_action = m.review_action, m.settings_action
        self.quit_action, self.about_action = m.quit_action, m.about_action
        self.check_setup_action = m.check_setup_action
        self.file_menu, self.edit_menu, self.run_menu = m.file_menu, m.edit_menu, m.run_menu
        self.view_menu, self.help_menu = m.view_menu, m.help_menu
        self.welcome.show_recent(self.settings.recent_folders)

    @property
    def run_page(self) -> RunPage:
        return self._run_page_and_control()[0]

    @property
    def control(self) -> RunControl:
        return self._run_page_and_control()[1]

    @property
    def bridge(self) -> RunBridge:
        return self.control.bridge

    def _running(self) -> bool:
        """A run or re-draft is going (never, before the run page is built)."""
        return self._run_parts is not None and self._run_parts[1].running

    def _run_page_and_control(self) -> tuple[RunPage, RunControl]:
        if self._run_parts is None:
            self._run_parts = self._build_run_page()
            self.run_page.retranslate()
            self._page_changed(self.stack.currentIndex())
            self._update_buttons()
        return self._run_parts

    def _build_run_page(self) -> tuple[RunPage, RunControl]:
        """The run page and its control, the first time a folder or run is shown."""
        from labwright.gui.run_control import RunControl
        from labwright.gui.run_page import RunPage

        page = RunPage()
        self.stack.insertWidget(RUN, page)
        self.menus.add_pdf_view(page.results.pdf)
        control = RunControl(
            page.banner, page.header, self.open_settings, self._settings_keys, self
        )
        if self.loop is not None:
            control.attach_loop(self.loop)
        control.bridge.events.connect(self.on_events)
        control.bridge.finished.connect(self.on_finished)
        control.bridge.text.connect(self.on_text)
        m, options = self.menus, page.options
        options.start_button.clicked.connect(m.start_action.trigger)
        options.cancel_button.clicked.connect(m.cancel_action.trigger)
        options.review_button.clicked.connect(self.open_review)
        options.apply_defaults(self.settings)
        return page, control

    def _connect(self) -> None:
        self.welcome.folder_chosen.connect(self.load_folder)
        self.welcome.open_requested.connect(self.choose_folder)
        self.history.run_chosen.connect(self.open_run)
        self.history.delete_requested.connect(self.delete_run)
        self.stack.currentChanged.connect(self._page_changed)
        m = self.menus
        for action, slot in (
            (m.open_action, self.choose_folder),
            (m.export_action, self.export),
            (m.start_action, self.start_run),
            (m.cancel_action, self.cancel_run),
            (m.review_action, self.open_review),
            (m.settings_action, self.open_settings),
            (m.quit_action, self.close),
            (m.about_action, self.about),
            (m.check_setup_action, self.check_setup),
        ):
            action.triggered.connect(slot)

    def retranslate(self) -> None:
        """Every visible string, so a language switch takes effect at once; hidden pages
        too: they are shown again later, in the language chosen now."""
        self._update_title()
        self.welcome.retranslate()
        if self._run_parts is not None:
            self.run_page.retranslate()
        if self.review is not None:
            self.review.retranslate()
        self.history_dock.retranslate()
        self.menus.retranslate()
        self.notice.retranslate()
        self._update_buttons()  # the tooltips of Start and Export too

    @property
    def tokens(self) -> int:
        return self.run_page.meter.tokens

    @tokens.setter
    def tokens(self, value: int) -> None:
        self.run_page.meter.tokens = value

    @property
    def cost(self) -> float:
        return self.run_page.meter.cost

    def _settings_keys(self) -> str:
        return self.settings_action.shortcut().toString(QKeySequence.SequenceFormat.NativeText)

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

    def _show_place(self, folder: Path | None = None) -> None:
        """The header and title: which folder, and which run (its directory)."""
        self.run_page.header.show_place(folder if folder is not None else self.folder, self.run_dir)
        self._update_title()

    def _show_page(self, index: int) -> None:
        if index != REVIEW:
            self._leave_review()
        self.stack.setCurrentIndex(index)

    def _page_changed(self, index: int) -> None:
        """View's zoom is the zoom of the PDF on screen (the PDF tab's on the welcome page)."""
        if index == REVIEW and self.review is not None:
            self.menus.show_pdf_actions_of(self.review.pdf)
        elif self._run_parts is not None:
            self.menus.show_pdf_actions_of(self._run_parts[0].results.pdf)

    # -- folder ---------------------------------------------------------------

    def choose_folder(self) -> None:
        path = QFileDialog.getExistingDirectory(
            self, self.tr("Choose the folder of experiment material")
        )
        if path:
            self.load_folder(Path(path))

    def load_folder(self, folder: Path) -> None:
        if self._running():
            self.show_banner(self.tr("A run is going; cancel it before opening another folder."))
            return
        problem = folder_problem(folder)
        if problem:
            self._show_page(WELCOME)
            self.welcome.show_problem(problem)
            return
        self.folder = folder.resolve()
        self.settings.remember_folder(self.folder)
        save_settings(self.settings)
        self.welcome.show_recent(self.settings.recent_folders)
        self.run_dir = None
        self.scan = None
        self._clear_run_page()
        self.run_page.header.clear_scan()
        self.run_page.meter.reset()  # the counters are the shown run's: a new folder has none yet
        self._show_place()
        self.run_page.header.scanning()
        self.run_page.meter.ready()
        self._show_page(RUN)
        from labwright.core.material.workspace import scan_folder  # loaded on first use
        from labwright.gui.bridge import call_in_thread

        assert self.loop is not None, "the app attaches its loop before a folder is loaded"
        self._io_threads = [t for t in self._io_threads if t.is_alive()]
        self._io_threads.append(
            call_in_thread(self.loop, partial(scan_folder, self.folder), self._scanned)
        )
        self._update_buttons()

    def _scanned(self, result: ScanResult | Exception) -> None:
        self.run_page.header.show_scan(result)
        if not isinstance(result, Exception):
            self.scan = result
        self._update_buttons()  # an empty or unreadable folder: Start says why it cannot

    def _clear_run_page(self, limits: GuardLimits | None = None) -> None:
        """An empty timeline (quoting `limits`) and results, no banner or notice."""
        self.timeline.clear(limits)
        self.results.clear()
        self.hide_banner()
        self.notice.dismiss()

    # -- a run ------------------------------------------------------------------

    def start_run(self) -> None:
        if self.folder is None or self._running():
            return
        page = self.run_page
        config = self.control.start(self.folder, page.options.flags(), self.settings)
        if config is None:
            return
        self.run_dir = config.out_dir
        self._clear_run_page(config.guards)
        page.meter.reset(config)
        self._show_place()
        page.meter.starting()
        page.meter.set_running(True)  # with the run's time limit, now that it runs
        self._update_buttons()

    def cancel_run(self) -> None:
        if self._running() and self.control.cancel():
            self.run_page.meter.cancelling()
            self.cancel_button.setEnabled(False)

    def on_events(self, events: list[Event]) -> None:
        from labwright.core.events import Draft, Error, Milestone, ScanDetail, ScanPlan
        from labwright.gui import run_files

        self.timeline.apply(events)
        meter = self.run_page.meter
        meter.count(events)
        for ev in events:
            if isinstance(ev, Error):
                self.show_banner(partial(error_sentence, ev))
            elif isinstance(ev, Draft) and self.run_dir is not None:
                self.results.draft.setPlainText(run_files.read_report(self.run_dir))
            elif isinstance(ev, Milestone) and isinstance(ev.detail, (ScanPlan, ScanDetail)):
                self._on_scan_step(ev.detail)
        plan = self.timeline.plan
        if plan and self._running():
            meter.show_steps(plan, self.timeline.done_count, self.timeline.current_stage)
        meter.show_usage()

    def _on_scan_step(self, detail: ScanPlan | ScanDetail) -> None:
        from labwright.core.events import ScanPlan

        if isinstance(detail, ScanPlan):
            if self._running():  # run.json says "running" by now: History lists the run
                self.history.refresh()
        else:
            # what this run's scan found (also replayed from the journal of a run
            # reopened from History): the header's scan line is the run's
            self.run_page.header.show_scan(detail.to_dict())

    def on_text(self, restart: bool, pieces: str) -> None:
        """The draft as the model writes it, every 40 ms."""
        if restart:
            self.results.start_draft()
            self.results.setCurrentWidget(self.results.draft)
        self.results.append_draft(pieces)

    def on_finished(self, done: Done | None) -> None:
        from labwright.gui import run_files
        from labwright.gui.timeline import reason_explanation

        status = done.status if done is not None else "failed"
        meter = self.run_page.meter
        meter.set_running(False)  # the time limit goes with the run
        meter.finish(status, len(self.timeline.plan))
        reasons = list(done.reasons) if done is not None else []
        if status == "degraded" and reasons:
            self.show_banner(
                lambda: self.tr("This draft needs your review: {0}").format(
                    " ".join(reason_explanation(r) for r in reasons)
                ),
                warning=True,
            )
        if self.run_dir is not None and self.run_dir.is_dir():
            self.results.load_run(self.run_dir)
            if run_files.has_report(self.run_dir):
                self.results.setCurrentWidget(self.results.source)
        self.history.refresh()
        self._update_buttons()
        if status == "degraded" and self._has_report():
            self.open_review()  # a degraded draft must be read before it is used

    def _has_report(self) -> bool:
        if self.run_dir is None:
            return False
        from labwright.gui import run_files  # (QtPdf: once a run is shown)

        return run_files.has_report(self.run_dir)

    def redraft(self, note: str) -> None:
        """Write the report again from the journal, with the person's note; no new exploration."""
        if self.run_dir is None or self._running():
            return
        if not self.control.redraft(self.run_dir, note or None, self.settings):
            return  # the person would not send this run to their settings' server
        self._show_page(RUN)
        self.hide_banner()
        self.results.clear()
        self._update_buttons()

    def open_run(self, run_dir: Path) -> None:
        """Reopen a past run from its directory: its journal replays into the timeline."""
        if self._running():
            self.show_banner(self.tr("A run is going; cancel it before opening another."))
            return
        from labwright.core.events import Done
        from labwright.core.reasons import limits_of
        from labwright.core.rundir.fence import RunLinkError, check_run_dir
        from labwright.core.rundir.files import RunFileError, load_run
        from labwright.core.rundir.store import read_journal

        try:
            # A run folder someone sent may hold links: refused before anything of it is read.
            check_run_dir(run_dir)
        except RunLinkError as e:
            self.show_banner(self.tr("This run cannot be opened: {0}").format(e))
            return
        try:
            events = read_journal(run_dir)
        except OSError as e:
            self.show_banner(self.tr("This run cannot be opened: {0}").format(e))
            return
        meta: RunRecord | None = None
        problem = None
        try:
            meta = load_run(run_dir)
        except RunFileError as e:  # the journal still replays; the banner says what is wrong
            problem = str(e)
        folder = (meta.folder if meta else None) or Path()
        self.folder = folder if meta and folder.is_dir() else None
        self.run_dir = run_dir
        self._show_page(RUN)
        self._show_place(folder)
        self.run_page.header.clear_scan()
        self._clear_run_page(limits_of(meta.to_dict() if meta else {}))
        self.run_page.meter.reset(_priced_config(meta))
        self.on_events(events)
        done = next((e for e in reversed(events) if isinstance(e, Done)), None)
        if done is not None:
            self.on_finished(done)
        else:
            self.results.load_run(run_dir)
        self._update_buttons()
        if problem:
            self.show_banner(problem)

    def delete_run(self, run_dir: Path) -> None:
        """Delete a past run (History's Delete): to the trash, or for good once asked; never
        a run still going, here or in another process (its lock says so)."""
        from labwright.core.rundir.store import is_running
        from labwright.gui.history import delete_run_folder

        name = self.history.row_name(run_dir)
        if (self._running() and self.run_dir == run_dir) or is_running(run_dir):
            self.notice.say(
                lambda: self.tr("“{0}” is still going: cancel it before deleting it.").format(name),
                "warning",
            )
            return
        shown = self.run_dir == run_dir
        if shown and self.review is not None:
            self.review.flush_saves()  # nothing of it is written after it is gone
        try:
            how = delete_run_folder(self, run_dir, name)
        except OSError as e:
            why = str(e)
            self.notice.say(
                lambda: self.tr("“{0}” could not be deleted: {1}").format(name, why), "error"
            )
            return
        if how is None:
            return
        self.history.refresh()
        if shown:
            self._forget_shown_run()
        if how == "trash":
            self.notice.say(lambda: self.tr("“{0}” was moved to the trash.").format(name), "info")
        else:
            self.notice.say(lambda: self.tr("“{0}” was deleted.").format(name), "info")

    def _forget_shown_run(self) -> None:
        """The run on screen is gone: its folder again when it is there, else the first page."""
        self.run_dir = None
        self._leave_review()
        if self.folder is not None and self.folder.is_dir():
            self.load_folder(self.folder)
        else:
            self.folder = None
            self._show_page(WELCOME)
            self._update_buttons()

    # -- the review pane -------------------------------------------------------------

    def open_review(self) -> None:
        """The review pane on the current run's report."""
        if self.run_dir is None or not self._has_report() or self._running():
            return
        review = self._review_pane()
        review.open_run(self.run_dir)
        if self.stack.currentIndex() != REVIEW:
            self.history_dock.fold()  # the editor needs the width
        self._show_page(REVIEW)
        review.editor.setFocus(Qt.FocusReason.OtherFocusReason)  # Ctrl+F works at once
        self._update_buttons()

    def _review_pane(self) -> ReviewPane:
        if self.review is None:
            from labwright.gui.review_pane import ReviewPane  # the editor loads when needed

            r = ReviewPane(self.loop)
            self.review = r
            r.closed.connect(self._review_closed)
            r.redraft_requested.connect(self.redraft)
            r.exported.connect(self._show_exported)
            self.stack.addWidget(r)
            remember_splitter(r.splitter, "review")
            remember_splitter(r.left_splitter, "review-left")
            m = self.menus
            m.add_to(m.edit_menu, [r.find_action, r.replace_action], separator=False)
            m.add_to(m.edit_menu, [r.save_action])
            m.edit_menu.menuAction().setVisible(True)
            m.add_to(m.run_menu, [r.recompile_action, r.redraft_action])
            m.add_to(m.view_menu, [r.show_in_pdf_action])
            m.add_pdf_view(r.pdf)
            m.add_to(m.view_menu, [r.log_action], separator=False)
            self._page_changed(self.stack.currentIndex())
        return self.review

    def _leave_review(self) -> None:
        if self.stack.currentIndex() == REVIEW:
            if self.review is not None:
                self.review.flush_saves()
            self.history_dock.unfold()

    def _review_closed(self) -> None:
        self._leave_review()
        if self.run_dir is not None:
            self.results.load_run(self.run_dir)
        self._show_page(RUN)
        self._update_buttons()

    # -- small things -------------------------------------------------------------

    def show_banner(
        self,
        text: str | Words,
        *,
        warning: bool = False,
        button: Words | None = None,
        slot: Callable[[], object] | None = None,
    ) -> None:
        """A message on the run page; given as a function, it is worded again on a language switch."""
        self.run_page.show_message(text, warning=warning, button=button, slot=slot)

    def hide_banner(self) -> None:
        if self._run_parts is not None:
            self.banner.dismiss()

    def _update_buttons(self) -> None:
        """Every action enabled only when it can work."""
        running, m = self._running(), self.menus
        blocker = self._start_blocker()
        can_start = self.folder is not None and not running and blocker is None
        can_review = self._has_report() and not running
        m.start_action.setEnabled(can_start)
        m.start_action.setToolTip(blocker or m.start_action.text().replace("&", ""))
        m.cancel_action.setEnabled(running)
        m.review_action.setEnabled(can_review)
        m.export_action.setEnabled(can_review)
        if self._run_parts is not None:
            options = self.run_page.options
            options.start_button.setEnabled(can_start)
            options.start_button.setToolTip(blocker or self.tr("Start a run on this folder"))
            options.cancel_button.setEnabled(running)
            options.review_button.setEnabled(can_review)
            options.set_running(running)
        if self.review is not None:
            reviewing = self.stack.currentIndex() == REVIEW
            r = self.review
            for a in (
                r.find_action,
                r.replace_action,
                r.save_action,
                r.recompile_action,
                r.show_in_pdf_action,
                r.log_action,
            ):
                a.setEnabled(reviewing and (a is not r.recompile_action or not r.compiling))
            r.redraft_action.setEnabled(reviewing and r.redraft_blocker() is None)
        self._update_export_tip()
        self._update_title()

    def _start_blocker(self) -> str | None:
        """Why Start cannot work on the folder shown (empty, unreadable), or None."""
        if self._run_parts is None or self.folder is None:
            return None
        return self.run_page.header.start_blocker()

    def _update_export_tip(self) -> None:
        if self.export_action.isEnabled():
            self.export_action.setToolTip(self.tr("Export the report as a .zip or a folder"))
        elif self._running():
            self.export_action.setToolTip(self.tr("Wait for the run to finish"))
        else:
            self.export_action.setToolTip(self.tr("There is no report to export yet"))

    # -- export ---------------------------------------------------------------------

    def export(self) -> Path | None:
        """File > Export: from the review pane when it is open, else the run's report."""
        if self.run_dir is None or self._running() or not self._has_report():
            return None
        if self.stack.currentIndex() == REVIEW and self.review is not None:
            return self.review.export()
        from labwright.gui.exporting import export_with_dialogs  # the core's export: on use

        out = export_with_dialogs(self, self.run_dir, self.folder)
        if out is not None:
            self._show_exported(out)
        return out

    def _show_exported(self, path: Path) -> None:
        self.notice.say(
            lambda: self.tr("Exported to {0}").format(path),
            "info",
            lambda: self.tr("Show in Folder"),
            lambda: self._show_in_folder(path),
        )

    def _show_in_folder(self, path: Path) -> None:
        """The file manager where the export went; without one (a minimal desktop), the
        path to copy instead of a click that does nothing."""
        from labwright.gui.exporting import show_in_folder

        if show_in_folder(path):
            return
        self.notice.say(
            lambda: self.tr("No file manager could be opened. The export is at: {0}").format(path),
            "warning",
            lambda: self.tr("Copy Path"),
            lambda: QGuiApplication.clipboard().setText(str(path)),
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
        if event.mimeData().hasUrls() and not self._running():
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
            if self._run_parts is not None:
                self.run_page.options.apply_defaults(self.settings)
                if self.banner.button.isVisible():  # "no key": the settings may have fixed it
                    self.hide_banner()

    def check_setup(self) -> None:
        """Help > Check setup…: what `labwright doctor` says, in a window."""
        from labwright.gui.doctor_dialog import DoctorDialog

        dialog = DoctorDialog(self, settings=self.settings)
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dialog.open()

    def closeEvent(self, event: QCloseEvent) -> None:
        if self._running():
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
        self.history_dock.unfold()  # folded only for the review: it is there next time
        state = ui_state()
        state.setValue("window/geometry", self.saveGeometry())
        state.setValue("window/state", self.saveState())
        state.sync()
        # shutdown order: cancel, join with a timeout; the app closes the loop after
        if self._run_parts is not None:
            self.control.shutdown(timeout_s=5.0)
        if self.review is not None:
            self.review.shutdown()
        for t in self._io_threads:
            t.join(2.0)
        super().closeEvent(event)


def plain_words(message: str) -> str:
    """A core message for the app: the CLI's flags become what the app offers instead."""
    tick = QCoreApplication.translate("MainWindow", "tick “Offline”")
    return (
        message.replace("run with --offline", tick)
        .replace("(--offline, or tick “Offline” in the app)", f"({tick})")
        .replace("pass --api-key, ", "")
        .replace(" (labwright run --resume)", "")
    )


def error_sentence(ev: Error) -> str:
    """An error event as the banner says it, in the interface language."""
    from labwright.gui.timeline import error_words

    return error_words(ev.kind, plain_words(ev.message), ev.words)


def _priced_config(meta: RunRecord | None) -> RunConfig | None:
    """A past run's configuration, for pricing its calls as its run.json does."""
    from labwright.core.settings.config import config_from_public

    if meta is None:
        return None
    try:
        return config_from_public(meta.config.to_dict(), None)
    except (KeyError, TypeError, ValueError):
        return None
