"""Review: read the draft, fix it, see it compiled, export it.

The pane opens by itself on a degraded draft, with a banner that says why.
Every edit is saved to the run directory within a second (atomically, off the
GUI thread); the generated draft stays in drafts/ and the Changes tab shows
the difference. Recompile builds in a folder of its own and the preview is
reloaded only after a successful build, keeping its page and zoom.
"""

from __future__ import annotations

import html
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtGui import (
    QAction,
    QKeySequence,
    QPainter,
    QPaintEvent,
)
from PySide6.QtWidgets import (
    QCheckBox,
    QHBoxLayout,
    QInputDialog,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QSizePolicy,
    QSplitter,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from labwright.core.report import review, synctex
from labwright.core.report.export import export_report
from labwright.core.report.item_words import ITEMS
from labwright.core.report.review.files import report_language
from labwright.core.rundir.files import try_load_run
from labwright.core.rundir.layout import RunDir
from labwright.core.rundir.records import RunRecord
from labwright.gui import run_files
from labwright.gui.bridge import call_in_thread
from labwright.gui.compile_log import ERROR, LogEntry, LogPane, entries_of_run, log_entries
from labwright.gui.diff_view import DiffView
from labwright.gui.editor import EditorPanel
from labwright.gui.exporting import (
    confirm_export,
    degraded_words,
    export_questions,
    export_with_dialogs,
    refusal_words,
)
from labwright.gui.i18n import catalog_text
from labwright.gui.pdf_view import PdfView, with_keys

if TYPE_CHECKING:
    import asyncio
    from concurrent.futures import Future

    from labwright.core.report.latex import CompileResult

ITEM_CHARS = 160  # as the core shortens them: the tooltip has the whole line
SAVE_DELAY_MS = 400  # an edit reaches the disk within a second, without a write per keystroke
KIND_MARK = {
    "todo": "✎",
    "gap": "◇",
    "citation": "❝",
    "compile_error": "✗",
    "compile_warning": "⚠",
    "figure_unused": "▣",
    "number": "#",
}


class ReviewPane(QWidget):
    redraft_requested = Signal(str)  # the person's note; the main window runs it
    compiled = Signal(bool)  # a recompile finished: True when the preview was reloaded
    exported = Signal(Path)  # where an export went
    closed = Signal()
    _save_finished = Signal(object)  # from the saver thread: None, or the exception

    def __init__(
        self, loop: asyncio.AbstractEventLoop | None = None, parent: QWidget | None = None
    ) -> None:
        super().__init__(parent)
        self.loop = loop
        self.run_dir: Path | None = None
        self._saver = ThreadPoolExecutor(max_workers=1, thread_name_prefix="labwright-save")
        self._save_timer = QTimer(self, singleShot=True, interval=SAVE_DELAY_MS)
        self._save_timer.timeout.connect(self.save_now)
        self._save_finished.connect(self._saved)
        self._save_state = "saved"
        self._save_error = ""
        self._pending_saves = 0
        self._compiling: threading.Thread | None = None
        self._status_text: Callable[[], str] | None = None  # said again on a language switch
        self._build()
        self.retranslate()

    # -- construction -----------------------------------------------------

    def _build(self) -> None:
        self.title = QLabel()  # which run is open
        self.title.setObjectName("reviewTitle")
        self.title.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.banner = QLabel()
        self.banner.setObjectName("reviewBanner")
        self.banner.setWordWrap(True)
        self.banner.setStyleSheet(
            "QLabel#reviewBanner { padding: 8px; border-radius: 4px; background: rgba(255,176,32,70); }"
        )
        self.banner.hide()
        self.panel = EditorPanel()
        self.editor = self.panel.editor
        self.editor.text_edited.connect(self._edited)
        self.items = QListWidget()
        self.items.setWordWrap(True)  # an item's "(line N)" is at its end: it must be seen
        self.items.setTextElideMode(Qt.TextElideMode.ElideNone)
        self.items.setResizeMode(QListWidget.ResizeMode.Adjust)
        self.items.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.items.itemActivated.connect(self._item_chosen)
        self.items.itemClicked.connect(self._item_chosen)
        self.items_label = QLabel()
        self.log_pane = LogPane()
        self.log_pane.line_chosen.connect(self.editor.go_to_line)
        self.diff = DiffView()
        self.pdf = PdfView()  # the preview: zoom, pages, SyncTeX's geometry
        self.pdf.double_clicked.connect(self._pdf_clicked)
        self.pdf.set_empty_text(self._no_pdf_words)
        self.status = ElidedLabel()
        # a long message must not push the buttons about: it is cut, and whole in the tooltip
        self.status.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.save_label = QLabel()
        self.save_label.setObjectName("saveState")
        self.recompile_button = QPushButton()
        self.compile_on_save = QCheckBox()
        self.show_in_pdf_button = QPushButton()
        self.redraft_button = QPushButton()
        self.export_button = QPushButton()
        self.export_button.clicked.connect(self._export_clicked)
        self.back_button = QPushButton()
        self.back_button.clicked.connect(self.closed)

        # actions: the window's menus list these; their keys work while the pane has focus
        def action(keys: list[QKeySequence], slot: Callable[[], Any]) -> QAction:
            a = QAction(self)
            a.setShortcuts(keys)
            a.setShortcutContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
            a.triggered.connect(slot)
            self.addAction(a)
            return a

        self.recompile_action = action([QKeySequence("Ctrl+B")], self.recompile)
        self.save_action = action([QKeySequence(QKeySequence.StandardKey.Save)], self.save_now)
        self.show_in_pdf_action = action([QKeySequence("Ctrl+J")], self.show_cursor_in_pdf)
        self.redraft_action = action([], self._ask_redraft)
        self.pdf.shortcuts_within(self)  # Ctrl+= zooms while typing in the editor too
        self.zoom_in_action = self.pdf.zoom_in_action
        self.zoom_out_action = self.pdf.zoom_out_action
        self.fit_width_action = self.pdf.fit_width_action
        self.fit_page_action = self.pdf.fit_page_action
        self.log_action = action([QKeySequence("Ctrl+L")], _nothing)
        self.log_action.setCheckable(True)
        self.log_action.toggled.connect(self.log_pane.set_open)
        self.log_pane.header.toggled.connect(self.log_action.setChecked)
        self.find_action = self.panel.find_action
        self.replace_action = self.panel.replace_action
        self.recompile_button.clicked.connect(self.recompile_action.trigger)
        self.show_in_pdf_button.clicked.connect(self.show_in_pdf_action.trigger)
        self.redraft_button.clicked.connect(self.redraft_action.trigger)

        left = QSplitter(Qt.Orientation.Vertical)
        items_box = QWidget()
        il = QVBoxLayout(items_box)
        il.setContentsMargins(0, 0, 0, 0)
        il.addWidget(self.items_label)
        il.addWidget(self.items)
        left.addWidget(items_box)
        editor_box = QWidget()
        el = QVBoxLayout(editor_box)
        el.setContentsMargins(0, 0, 0, 0)
        el.setSpacing(0)
        el.addWidget(self.panel, 1)
        el.addWidget(self.log_pane)
        left.addWidget(editor_box)
        left.setStretchFactor(1, 1)
        left.setSizes([130, 420])
        self.right_tabs = QTabWidget()
        self.right_tabs.addTab(self.pdf, "")
        self.right_tabs.addTab(self.diff, "")
        self.splitter = QSplitter()
        self.splitter.setObjectName("reviewSplitter")
        self.splitter.addWidget(left)
        self.splitter.addWidget(self.right_tabs)
        # the preview a little wider than the editor (which wraps): at 1024 px the page then
        # fits its width at a readable zoom instead of about half size
        self.splitter.setStretchFactor(0, 9)
        self.splitter.setStretchFactor(1, 11)
        self.splitter.setSizes([450, 550])
        self.left_splitter = left
        left.setObjectName("reviewLeftSplitter")
        buttons = QHBoxLayout()
        for w in (
            self.back_button,
            self.recompile_button,
            self.compile_on_save,
            self.show_in_pdf_button,
        ):
            buttons.addWidget(w)
        buttons.addWidget(self.status, 1)
        buttons.addWidget(self.save_label)
        buttons.addWidget(self.redraft_button)
        buttons.addWidget(self.export_button)
        layout = QVBoxLayout(self)
        # buttons first: a banner that comes and goes below them never moves them
        layout.addLayout(buttons)
        layout.addWidget(self.title)
        layout.addWidget(self.banner)
        layout.addWidget(self.splitter, 1)

    def retranslate(self) -> None:
        self.items_label.setText(self.tr("Open items"))
        self.recompile_button.setText(self.tr("Recompile"))
        self.recompile_button.setToolTip(
            with_keys(self.tr("Build the PDF again"), self.recompile_action)
        )
        self.compile_on_save.setText(self.tr("Recompile on save"))
        self.show_in_pdf_button.setText(self.tr("Show line in PDF"))
        self.show_in_pdf_button.setToolTip(
            with_keys(self.tr("Show the cursor's line in the preview"), self.show_in_pdf_action)
        )
        self.redraft_button.setText(self.tr("Re-draft…"))
        self.export_button.setText(self.tr("Export…"))
        self.back_button.setText(self.tr("Back to the run"))
        self.right_tabs.setTabText(0, self.tr("Preview"))
        self.right_tabs.setTabText(1, self.tr("Changes"))
        self.recompile_action.setText(self.tr("&Recompile"))
        self.save_action.setText(self.tr("&Save Now"))
        self.show_in_pdf_action.setText(self.tr("Show Line in &PDF"))
        self.redraft_action.setText(self.tr("Re-&draft…"))
        self.log_action.setText(self.tr("Compile &Log"))
        self.log_pane.retranslate()
        self.pdf.retranslate()
        self.panel.retranslate()
        if self.run_dir is not None:
            self._show_banner()
            self.refresh()
        self._show_title()
        self._show_save_state()
        self._update_redraft()
        if self._status_text is not None:
            self._set_status(self._status_text)

    # -- a run ------------------------------------------------------------------

    def open_run(self, run_dir: Path) -> None:
        self.save_now()
        self.run_dir = run_dir
        self._show_banner()
        tex = run_files.read_report(run_dir)
        self.editor.set_spell_language(report_language(run_dir, tex))
        self.editor.set_text(tex)
        self._show_log(entries_of_run(self._meta()))
        self.pdf.show_run(run_dir)  # where its reader was, or its first page
        self.refresh()
        self._set_status(None)
        self._save_state = "saved"
        self._show_save_state()
        self._show_title()
        self._update_redraft()

    def _show_banner(self) -> None:
        why = degraded_words(self.run_dir) if self.run_dir is not None else None
        self.banner.setText(why or "")
        self.banner.setVisible(bool(why))

    def _meta(self) -> RunRecord | None:
        return try_load_run(self.run_dir) if self.run_dir is not None else None

    def material_folder(self) -> Path | None:
        meta = self._meta()
        return meta.folder if meta is not None else None

    def _show_title(self) -> None:
        if self.run_dir is None:
            self.title.setText("")
            return
        folder = self.material_folder()
        name = folder.name if folder is not None else self.run_dir.name
        self.title.setText(
            self.tr("Reviewing <b>{0}</b> — run {1}").format(
                html.escape(name), html.escape(self.run_dir.name)
            )
        )
        self.title.setToolTip(str(self.run_dir))

    def redraft_blocker(self) -> str | None:
        """Why a re-draft cannot work on this run, in plain words; None when it can."""
        if self.run_dir is None:
            return ""
        meta = self._meta()
        if meta is not None and meta.config.offline:
            return self.tr(
                "This run was offline: no model read the material, so there is nothing to draft from. Start a new run with a model instead."
            )
        folder = meta.folder if meta is not None else None
        if folder is not None and not folder.is_dir():
            return self.tr("The material folder of this run is gone; it is needed to draft.")
        return None

    def _update_redraft(self) -> None:
        why = self.redraft_blocker()
        for w in (self.redraft_button, self.redraft_action):
            w.setEnabled(why is None)
        tip = why or self.tr(
            "Write the report again from what was read, with a note for the writer"
        )
        self.redraft_button.setToolTip(tip)
        self.redraft_action.setToolTip(tip)

    def refresh(self, compile_result: CompileResult | None = None) -> None:
        """Open items and the diff, from the current text."""
        if self.run_dir is None:
            return
        text = self.editor.text()
        self.items.clear()
        for item in review.open_items(self.run_dir, text, compile_result):
            where = self.tr("line {0}").format(item.line) if item.line else ""
            message = item_words(item)
            row = QListWidgetItem(
                f"{KIND_MARK.get(item.kind, '•')} {message}" + (f"  ({where})" if where else "")
            )
            tip = item.detail or message
            row.setToolTip(f"{tip}\n{where}" if where and where not in tip else tip)
            row.setData(Qt.ItemDataRole.UserRole, item.line)
            row.setData(Qt.ItemDataRole.UserRole + 1, item.kind)
            self.items.addItem(row)
        self.diff.show_diff(review.generated_draft(self.run_dir), text)

    def _item_chosen(self, row: QListWidgetItem) -> None:
        line = row.data(Qt.ItemDataRole.UserRole)
        if line:
            self.editor.go_to_line(int(line))

    def _set_status(self, text: Callable[[], str] | None) -> None:
        """A status message, as a function that words it: a language switch says it again."""
        self._status_text = text
        shown = text() if text is not None else ""
        self.status.setText(shown)
        self.status.setToolTip(shown)

    # -- saving -------------------------------------------------------------------

    def _edited(self) -> None:
        self._save_state = "unsaved"
        self._show_save_state()
        self._save_timer.start()

    def save_now(self) -> None:
        """Write the editor's text now (off the GUI thread, in order); then recompile if asked."""
        self._save_timer.stop()
        if self.run_dir is None or not self.editor.document().isModified():
            return
        self.editor.document().setModified(False)
        self._pending_saves += 1
        self._save_state = "saving"
        self._show_save_state()
        future = self._saver.submit(review.save_edit, self.run_dir, self.editor.text())
        future.add_done_callback(lambda f: self._save_finished.emit(f.exception()))
        if self.compile_on_save.isChecked():
            future.add_done_callback(self._saved_then_compile)

    def _saved(self, error: BaseException | None) -> None:
        self._pending_saves = max(0, self._pending_saves - 1)
        if error is not None:
            self._save_state, self._save_error = "failed", str(error)
            self.editor.document().setModified(True)  # still to be written: the next save tries
        elif self._pending_saves == 0 and not self.editor.document().isModified():
            self._save_state = "saved"
        self._show_save_state()

    def _show_save_state(self) -> None:
        words = {
            "saved": self.tr("✓ Saved"),
            "saving": self.tr("Saving…"),
            "unsaved": self.tr("● Unsaved changes"),
            "failed": self.tr("✗ Not saved"),
        }
        self.save_label.setText(words[self._save_state])
        self.save_label.setToolTip(
            self.tr("Could not save: {0}").format(self._save_error)
            if self._save_state == "failed"
            else self.tr("Every edit is saved to the run folder within a second.")
        )

    def _saved_then_compile(self, _future: Future[None]) -> None:  # saver thread
        if self.loop is not None:
            self.loop.call_soon_threadsafe(self.recompile)

    def flush_saves(self, timeout_s: float = 5.0) -> None:
        """Every pending edit on disk (used on close and before export)."""
        self.save_now()
        self._saver.submit(lambda: None).result(timeout_s)

    # -- compile and preview ----------------------------------------------------------

    def recompile(self) -> None:
        if self.run_dir is None or self.loop is None or self.compiling:
            return
        self.flush_saves()
        self._set_status(lambda: self.tr("Compiling…"))
        self.recompile_button.setEnabled(False)
        self.recompile_action.setEnabled(False)
        self._compiling = call_in_thread(
            self.loop, partial(review.recompile, self.run_dir), self._compiled
        )

    @property
    def compiling(self) -> bool:
        return self._compiling is not None and self._compiling.is_alive()

    def _compiled(self, result: CompileResult | Exception) -> None:
        self._compiling = None
        self.recompile_button.setEnabled(True)
        self.recompile_action.setEnabled(True)
        if isinstance(result, Exception):
            self._set_status(lambda: self.tr("Compile failed: {0}").format(result))
            return
        self._show_log(log_entries(result.errors, result.warnings))
        if result.ok:
            self._set_status(lambda: self.tr("Compiled in {0:.1f} s").format(result.seconds))
            self.pdf.reload()  # a rebuild: the reader stays where they were
        else:
            n = len(result.errors)
            self._set_status(
                lambda: self.tr("%n compile error(s): the preview shows the last good PDF", "", n)
            )
        self.refresh(result)
        self.compiled.emit(result.ok)

    def _show_log(self, entries: list[LogEntry] | None) -> None:
        """The log pane and the gutter marks; errors open the log, as TeXstudio does."""
        self.log_pane.set_entries(entries)
        self.log_action.setEnabled(self.log_pane.header.isEnabled())  # nothing to unfold
        entries = entries or []
        self.editor.set_marks(
            (e.editor_line, e.severity, e.message) for e in entries if e.editor_line is not None
        )
        if any(e.severity == ERROR for e in entries):
            self.log_pane.set_open(True)

    # -- SyncTeX ------------------------------------------------------------------------

    def show_cursor_in_pdf(self) -> None:
        if self.run_dir is None:
            return
        run = RunDir(self.run_dir)
        hit = synctex.source_to_pdf(run.report_pdf, run.report_tex, self.editor.current_line())
        if hit is None:
            self._set_status(lambda: self.tr("SyncTeX has no position for this line."))
            return
        page, _x, y = hit
        self.right_tabs.setCurrentWidget(self.pdf)
        self.pdf.show_point(page, y)

    def _pdf_clicked(self, page: int, x: float, y: float) -> None:
        """A double click in the preview: the editor goes to the line SyncTeX names."""
        if self.run_dir is None:
            return
        hit = synctex.pdf_to_source(RunDir(self.run_dir).report_pdf, page, x, y)
        if hit is not None:
            self.editor.go_to_line(hit[1])

    def _no_pdf_words(self) -> str:
        """The preview's sentence when there is no PDF, after what happened to the run."""
        meta = self._meta()
        if meta is not None and meta.status == "cancelled":
            return self.tr(
                "The run was cancelled before its PDF was built. Recompile builds it from the source on the left."
            )
        return self.tr("No PDF yet. Recompile builds it from the source on the left.")

    # -- re-draft and export ----------------------------------------------------------------

    def _ask_redraft(self) -> None:
        if self.redraft_blocker() is not None:
            return
        note, ok = QInputDialog.getText(
            self,
            self.tr("Re-draft"),
            self.tr(
                "Write the report again from what was read (no new exploration). A note for the writer, optional (e.g. “use SI units”, “shorter”):"
            ),
        )
        if ok:
            self.flush_saves()
            self.redraft_requested.emit(note.strip())

    def _export_clicked(self) -> None:
        self.export()

    def export(
        self,
        dest: Path | None = None,
        as_zip: bool | None = None,
        confirm: Callable[[str], bool] | None = None,
    ) -> Path | None:
        """Export a folder, a .zip or a .docx; a degraded draft with open items asks first.

        Without `dest` the person chooses in the save dialog (a .zip, a folder or a .docx)."""
        if self.run_dir is None:
            return None
        self.flush_saves()
        if dest is None:
            out = export_with_dialogs(self, self.run_dir, self.material_folder())
        else:
            warnings = export_questions(self.run_dir)
            ask = confirm or (lambda text: confirm_export(self, [text]))
            if warnings and not ask("\n".join(warnings)):
                return None
            zip_it = dest.suffix.lower() == ".zip" if as_zip is None else as_zip
            try:
                docx = dest.suffix.lower() == ".docx"
                out = export_report(self.run_dir, dest, as_zip=zip_it, as_docx=docx)
            except (OSError, ValueError) as e:
                why = refusal_words(e)
                self._set_status(lambda: self.tr("Export failed: {0}").format(why))
                return None
        if out is not None:
            self._set_status(lambda: self.tr("Exported to {0}").format(out))
            self.exported.emit(out)
        return out

    # -- closing ----------------------------------------------------------------------------

    def shutdown(self) -> None:
        """Save what is pending, let a compile finish, stop the saver thread."""
        try:
            self.flush_saves()
        finally:
            self._saver.shutdown(wait=True)
        if self._compiling is not None:
            self._compiling.join(30)


def item_words(item: review.OpenItem) -> str:
    """An open item's sentence in the interface language, from its code and params."""
    if not item.code:
        return item.message
    words = catalog_text(ITEMS, item.code, item.params, item.message)
    return words if len(words) <= ITEM_CHARS else words[: ITEM_CHARS - 1] + "…"


class ElidedLabel(QLabel):
    """A one-line label that ends in "…" when it has not the room (the tooltip has it whole),
    rather than running into its neighbour."""

    def paintEvent(self, event: QPaintEvent) -> None:
        painter = QPainter(self)
        metrics = self.fontMetrics()
        shown = metrics.elidedText(self.text(), Qt.TextElideMode.ElideMiddle, self.width())
        painter.drawText(self.rect(), int(self.alignment() | Qt.AlignmentFlag.AlignVCenter), shown)


def _nothing() -> None:
    """A checkable action's work is done by its toggled signal."""
