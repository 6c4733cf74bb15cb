"""Review: read the draft, fix it, see it compiled, export it.

The pane opens by itself on a degraded draft, with a banner that says why.
Every edit is saved to the run directory within a second (atomically, off the
GUI thread); the generated draft stays in drafts/ and the Changes tab shows
the difference. Recompile builds in a folder of its own and the preview is
reloaded only after a successful build, keeping its page and zoom.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QEvent, QObject, QPointF, Qt, QTimer, Signal
from PySide6.QtGui import QKeySequence, QMouseEvent, QShortcut
from PySide6.QtPdf import QPdfDocument
from PySide6.QtPdfWidgets import QPdfView
from PySide6.QtWidgets import (
    QCheckBox,
    QFileDialog,
    QHBoxLayout,
    QInputDialog,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QMessageBox,
    QPushButton,
    QSplitter,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from labwright.core.report import review, synctex
from labwright.core.report.export import export_report, export_warnings
from labwright.gui.bridge import call_in_thread
from labwright.gui.diff_view import DiffView
from labwright.gui.editor import EditorPanel

if TYPE_CHECKING:
    import asyncio

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
    closed = Signal()

    def __init__(
        self, loop: asyncio.AbstractEventLoop | None = None, parent: QWidget | None = None
    ) -> None:
        super().__init__(parent)
        self.loop = loop
        self.run_dir: Path | None = None
        self._saver = ThreadPoolExecutor(max_workers=1, thread_name_prefix="labwright-save")
        self._save_timer = QTimer(self, singleShot=True, interval=SAVE_DELAY_MS)
        self._save_timer.timeout.connect(self.save_now)
        self._compiling: threading.Thread | None = None
        self._build()
        self.retranslate()

    # -- construction -----------------------------------------------------

    def _build(self) -> None:
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
        self.items.itemActivated.connect(self._item_chosen)
        self.items.itemClicked.connect(self._item_chosen)
        self.items_label = QLabel()
        self.diff = DiffView()
        self.pdf_doc = QPdfDocument(self)
        self.pdf_view = QPdfView(self)
        self.pdf_view.setDocument(self.pdf_doc)
        self.pdf_view.setPageMode(QPdfView.PageMode.MultiPage)
        self.pdf_view.setZoomMode(QPdfView.ZoomMode.FitToWidth)
        self.pdf_view.viewport().installEventFilter(self)
        self.status = QLabel()
        self.recompile_button = QPushButton()
        self.recompile_button.clicked.connect(self.recompile)
        self.compile_on_save = QCheckBox()
        self.show_in_pdf_button = QPushButton()
        self.show_in_pdf_button.clicked.connect(self.show_cursor_in_pdf)
        self.redraft_button = QPushButton()
        self.redraft_button.clicked.connect(self._ask_redraft)
        self.export_button = QPushButton()
        self.export_button.clicked.connect(self.export)
        self.back_button = QPushButton()
        self.back_button.clicked.connect(self.closed)

        left = QWidget()
        ll = QVBoxLayout(left)
        ll.setContentsMargins(0, 0, 0, 0)
        ll.addWidget(self.items_label)
        ll.addWidget(self.items)
        self.right_tabs = QTabWidget()
        self.right_tabs.addTab(self.pdf_view, "")
        self.right_tabs.addTab(self.diff, "")
        split = QSplitter()
        split.addWidget(left)
        split.addWidget(self.panel)
        split.addWidget(self.right_tabs)
        split.setSizes([260, 560, 520])
        buttons = QHBoxLayout()
        for w in (
            self.back_button,
            self.recompile_button,
            self.compile_on_save,
            self.show_in_pdf_button,
        ):
            buttons.addWidget(w)
        buttons.addStretch(1)
        buttons.addWidget(self.status)
        buttons.addStretch(1)
        buttons.addWidget(self.redraft_button)
        buttons.addWidget(self.export_button)
        layout = QVBoxLayout(self)
        layout.addWidget(self.banner)
        layout.addLayout(buttons)
        layout.addWidget(split, 1)
        for key, slot in (
            (QKeySequence("Ctrl+B"), self.recompile),
            (QKeySequence.StandardKey.Save, self.save_now),
        ):
            shortcut = QShortcut(key, self)
            shortcut.setContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
            shortcut.activated.connect(slot)

    def retranslate(self) -> None:
        self.items_label.setText(self.tr("Open items"))
        self.recompile_button.setText(self.tr("Recompile (Ctrl+B)"))
        self.compile_on_save.setText(self.tr("Recompile on save"))
        self.show_in_pdf_button.setText(self.tr("Show line in PDF"))
        self.redraft_button.setText(self.tr("Re-draft…"))
        self.export_button.setText(self.tr("Export…"))
        self.back_button.setText(self.tr("Back to the run"))
        self.right_tabs.setTabText(0, self.tr("Preview"))
        self.right_tabs.setTabText(1, self.tr("Changes"))
        self.panel.find_bar.retranslate()

    # -- a run ------------------------------------------------------------------

    def open_run(self, run_dir: Path) -> None:
        self.save_now()
        self.run_dir = run_dir
        why = review.why_degraded(run_dir)
        self.banner.setText(why or "")
        self.banner.setVisible(bool(why))
        self.editor.set_text(_read(run_dir / "report.tex"))
        self._load_pdf(keep_view=False)
        self.refresh()
        self.status.setText("")

    def refresh(self, compile_result: Any = None) -> None:
        """Open items and the diff, from the current text."""
        if self.run_dir is None:
            return
        text = self.editor.text()
        self.items.clear()
        for item in review.open_items(self.run_dir, text, compile_result):
            where = self.tr("line {0}").format(item.line) if item.line else ""
            row = QListWidgetItem(
                f"{KIND_MARK.get(item.kind, '•')} {item.message}"
                + (f"  ({where})" if where else "")
            )
            row.setToolTip(item.detail or item.message)
            row.setData(Qt.ItemDataRole.UserRole, item.line)
            row.setData(Qt.ItemDataRole.UserRole + 1, item.kind)
            self.items.addItem(row)
        self.diff.show_diff(review.generated_draft(self.run_dir), text)

    def _item_chosen(self, row: QListWidgetItem) -> None:
        line = row.data(Qt.ItemDataRole.UserRole)
        if line:
            self.editor.go_to_line(int(line))

    # -- saving -------------------------------------------------------------------

    def _edited(self) -> None:
        self._save_timer.start()

    def save_now(self) -> None:
        """Write the editor's text now (off the GUI thread, in order); then recompile if asked."""
        self._save_timer.stop()
        if self.run_dir is None or not self.editor.document().isModified():
            return
        self.editor.document().setModified(False)
        future = self._saver.submit(review.save_edit, self.run_dir, self.editor.text())
        if self.compile_on_save.isChecked():
            future.add_done_callback(self._saved_then_compile)

    def _saved_then_compile(self, _future: Any) -> None:  # saver thread
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
        self.status.setText(self.tr("Compiling…"))
        self.recompile_button.setEnabled(False)
        self._compiling = call_in_thread(
            self.loop, partial(review.recompile, self.run_dir), self._compiled
        )

    @property
    def compiling(self) -> bool:
        return self._compiling is not None and self._compiling.is_alive()

    def _compiled(self, result: Any) -> None:
        self._compiling = None
        self.recompile_button.setEnabled(True)
        if isinstance(result, Exception):
            self.status.setText(self.tr("Compile failed: {0}").format(result))
            return
        if result.ok:
            self.status.setText(self.tr("Compiled in {0:.1f} s").format(result.seconds))
            self._load_pdf(keep_view=True)
        else:
            self.status.setText(
                self.tr("{0} compile error(s): the preview shows the last good PDF").format(
                    len(result.errors)
                )
            )
        self.refresh(result)
        self.compiled.emit(result.ok)

    def _load_pdf(self, *, keep_view: bool) -> None:
        assert self.run_dir is not None
        pdf = self.run_dir / "report.pdf"
        nav = self.pdf_view.pageNavigator()
        page, zoom, mode = nav.currentPage(), self.pdf_view.zoomFactor(), self.pdf_view.zoomMode()
        self.pdf_doc.close()
        if not pdf.is_file():
            return
        self.pdf_doc.load(str(pdf))
        if keep_view:  # the person was reading somewhere: stay there
            self.pdf_view.setZoomMode(mode)
            if mode == QPdfView.ZoomMode.Custom:
                self.pdf_view.setZoomFactor(zoom)
            nav.jump(min(page, max(0, self.pdf_doc.pageCount() - 1)), QPointF(), nav.currentZoom())

    # -- SyncTeX ------------------------------------------------------------------------

    def show_cursor_in_pdf(self) -> None:
        if self.run_dir is None:
            return
        hit = synctex.source_to_pdf(
            self.run_dir / "report.pdf", self.run_dir / "report.tex", self.editor.current_line()
        )
        if hit is None:
            self.status.setText(self.tr("SyncTeX has no position for this line."))
            return
        page, x, y = hit
        self.right_tabs.setCurrentWidget(self.pdf_view)
        nav = self.pdf_view.pageNavigator()
        nav.jump(page - 1, QPointF(x, max(0.0, y - 40)), nav.currentZoom())

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if watched is self.pdf_view.viewport() and event.type() == QEvent.Type.MouseButtonDblClick:
            self._pdf_clicked(event)  # type: ignore[arg-type]
            return True
        return super().eventFilter(watched, event)

    def _pdf_clicked(self, event: QMouseEvent) -> None:
        if self.run_dir is None or self.pdf_doc.pageCount() == 0:
            return
        point = self._pdf_point(event.position())
        if point is None:
            return
        page, x, y = point
        hit = synctex.pdf_to_source(self.run_dir / "report.pdf", page, x, y)
        if hit is not None:
            self.editor.go_to_line(hit[1])

    def _pdf_point(self, pos: QPointF) -> tuple[int, float, float] | None:
        """A viewport position as (1-based page, x, y) in PDF points, from QPdfView's layout:
        pages stacked top to bottom, centred, `pageSpacing` apart inside `documentMargins`."""
        view = self.pdf_view
        scale = view.zoomFactor() * view.logicalDpiX() / 72.0
        if view.zoomMode() != QPdfView.ZoomMode.Custom:
            # fit modes: QPdfView computes the factor from the widest page and the viewport
            widest = max(
                self.pdf_doc.pagePointSize(i).width() for i in range(self.pdf_doc.pageCount())
            )
            margins = view.documentMargins()
            scale = (view.viewport().width() - margins.left() - margins.right()) / widest
        margins = view.documentMargins()
        y = pos.y() + view.verticalScrollBar().value() - margins.top()
        x_view = pos.x() + view.horizontalScrollBar().value()
        for i in range(self.pdf_doc.pageCount()):
            size = self.pdf_doc.pagePointSize(i)
            height = size.height() * scale
            if y <= height:
                left = max(margins.left(), (view.viewport().width() - size.width() * scale) / 2)
                return i + 1, (x_view - left) / scale, y / scale
            y -= height + view.pageSpacing()
        return None

    # -- re-draft and export ----------------------------------------------------------------

    def _ask_redraft(self) -> None:
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

    def export(
        self,
        dest: Path | None = None,
        as_zip: bool | None = None,
        confirm: Callable[[str], bool] | None = None,
    ) -> Path | None:
        """Export a folder or a .zip; a degraded draft with open items asks first."""
        if self.run_dir is None:
            return None
        self.flush_saves()
        warnings = export_warnings(self.run_dir)
        ask = confirm or self._confirm
        if warnings and not ask("\n".join(warnings)):
            return None
        if dest is None:
            path, _ = QFileDialog.getSaveFileName(
                self,
                self.tr("Export the report"),
                str(Path.home() / f"{self.run_dir.name}.zip"),
                self.tr("Zip archive (*.zip);;Folder (*)"),
            )
            if not path:
                return None
            dest = Path(path)
        zip_it = dest.suffix.lower() == ".zip" if as_zip is None else as_zip
        try:
            out = export_report(self.run_dir, dest, as_zip=zip_it)
        except (OSError, ValueError) as e:
            self.status.setText(self.tr("Export failed: {0}").format(e))
            return None
        self.status.setText(self.tr("Exported to {0}").format(out))
        return out

    def _confirm(self, text: str) -> bool:
        answer = QMessageBox.question(
            self,
            self.tr("Export a draft that needs review?"),
            text + "\n\n" + self.tr("Export anyway?"),
        )
        return answer == QMessageBox.StandardButton.Yes

    # -- closing ----------------------------------------------------------------------------

    def shutdown(self) -> None:
        """Save what is pending, let a compile finish, stop the saver thread."""
        try:
            self.flush_saves()
        finally:
            self._saver.shutdown(wait=True)
        if self._compiling is not None:
            self._compiling.join(30)


def _read(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return ""
