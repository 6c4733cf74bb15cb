"""After a run: the report source, the PDF, the figures and the findings."""

from __future__ import annotations

import html
from pathlib import Path

from PySide6.QtCore import QSize, Qt
from PySide6.QtGui import QFontDatabase, QIcon
from PySide6.QtWidgets import (
    QListWidget,
    QListWidgetItem,
    QPlainTextEdit,
    QSplitter,
    QTabWidget,
    QTextBrowser,
    QWidget,
)

from labwright.core.report.review.text import short
from labwright.core.rundir.files import RunFileError, load_findings, try_load_run
from labwright.core.rundir.layout import RunDir
from labwright.core.rundir.names import in_figures
from labwright.core.rundir.records import FigureSidecar
from labwright.gui import run_files
from labwright.gui.pdf_view import PdfView

THUMB_W, THUMB_H = 200, 150
CAPTION_CHARS = 60  # about two lines under a thumbnail


class ResultTabs(QTabWidget):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        mono = QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont)
        self.draft = QPlainTextEdit(readOnly=True)
        self.draft.setFont(mono)

        self.source = QPlainTextEdit(readOnly=True)
        self.source.setFont(mono)

        self.pdf = PdfView()
        self._no_pdf = "waiting"  # why the PDF tab has none: waiting, cancelled, not_compiled
        self.pdf.set_empty_text(self._no_pdf_words)
        # a zoom key, or View > Zoom, shows the PDF it zooms
        for action in self.pdf.actions_of_view:
            action.triggered.connect(lambda: self.setCurrentWidget(self.pdf))
        self.figures = QListWidget()
        self.figures.setViewMode(QListWidget.ViewMode.IconMode)
        self.figures.setIconSize(QSize(THUMB_W, THUMB_H))
        # every cell the same size, the caption wrapped under its thumbnail: a long caption
        # must neither clip the picture nor push the next one right
        self.figures.setGridSize(QSize(THUMB_W + 24, THUMB_H + 56))
        self.figures.setUniformItemSizes(True)
        self.figures.setWordWrap(True)
        self.figures.setTextElideMode(Qt.TextElideMode.ElideRight)
        self.figures.setMovement(QListWidget.Movement.Static)
        self.figures.setResizeMode(QListWidget.ResizeMode.Adjust)
        self.figures.currentItemChanged.connect(self._show_figure)
        self.figure_info = QPlainTextEdit(readOnly=True)
        self.figure_info.setFont(mono)
        self.findings = QTextBrowser()
        figures_page = QSplitter(Qt.Orientation.Vertical)
        figures_page.addWidget(self.figures)
        figures_page.addWidget(self.figure_info)
        for page in (self.draft, self.source, self.pdf, figures_page, self.findings):
            self.addTab(page, "")
        self.retranslate()

    def retranslate(self) -> None:
        self.draft.setPlaceholderText(self.tr("The draft appears here while it is written."))
        self.source.setPlaceholderText(
            self.tr("The report's LaTeX source appears here when the run has written it.")
        )
        titles = (
            self.tr("Live draft"),
            self.tr("Report"),
            self.tr("PDF"),
            self.tr("Figures"),
            self.tr("Findings"),
        )
        for i, title in enumerate(titles):
            self.setTabText(i, title)
        self.pdf.retranslate()

    def clear(self) -> None:
        self._fresh = False
        self.draft.clear()
        self.source.clear()
        self._no_pdf = "waiting"
        self.pdf.clear()
        self.figures.clear()
        self.figure_info.clear()
        self.findings.clear()

    def start_draft(self) -> None:
        """A new document begins: the old one stays until its first words arrive, so the
        tab is never blank while a revision is being thought out."""
        self._fresh = True

    def append_draft(self, text: str) -> None:
        if not text:
            return
        if getattr(self, "_fresh", False):
            self._fresh = False
            self.draft.clear()
        self.draft.moveCursor(self.draft.textCursor().MoveOperation.End)
        self.draft.insertPlainText(text)

    def load_run(self, run_dir: Path) -> None:
        """Fill every tab from a run directory (a finished run, or one reopened from history)."""
        # Every file beneath the run folder, no link followed (run_files.py).
        if run_files.has_report(run_dir):
            self.source.setPlainText(run_files.read_report(run_dir))
        meta = try_load_run(run_dir)
        self._no_pdf = (
            "cancelled" if meta is not None and meta.status == "cancelled" else "not_compiled"
        )
        self.pdf.show_run(run_dir)
        self._load_figures(run_dir)
        self._load_findings(run_dir)

    def _no_pdf_words(self) -> str:
        if self._no_pdf == "cancelled":
            return self.tr(
                "The run was cancelled before the report was compiled, so there is no PDF."
            )
        if self._no_pdf == "not_compiled":
            return self.tr("No PDF: the report was not compiled (see the timeline for why).")
        return self.tr("The PDF appears here when the run has compiled the report.")

    def _load_figures(self, run_dir: Path) -> None:
        self.figures.clear()
        run = RunDir(run_dir)
        try:
            names = run.figure_names("*.png")
        except OSError:  # figures/ is a link (RunLinkError) or unreadable: none shown
            names = []
        for name in names:
            stem = name.removesuffix(".png")
            sidecar = run.figure(stem) or FigureSidecar(stem)
            icon = QIcon(run_files.pixmap(run_dir, in_figures(name)))
            caption = sidecar.caption or stem
            item = QListWidgetItem(icon, short(caption, CAPTION_CHARS))
            item.setData(Qt.ItemDataRole.UserRole, sidecar)
            item.setToolTip(caption)  # the whole caption; below the thumbnail it is shortened
            self.figures.addItem(item)

    def _show_figure(self, item: QListWidgetItem | None) -> None:
        if item is None:
            self.figure_info.clear()
            return
        sidecar = item.data(Qt.ItemDataRole.UserRole)
        if not isinstance(sidecar, FigureSidecar):
            sidecar = FigureSidecar()
        inputs = ", ".join(i.path for i in sidecar.inputs)
        label = self.tr("Inputs:")
        self.figure_info.setPlainText(
            f"{sidecar.caption}\n\n{label} {inputs or '—'}\n\n{sidecar.code}"
        )

    def _load_findings(self, run_dir: Path) -> None:
        e = html.escape
        try:
            f = load_findings(run_dir)
        except RunFileError as err:
            self.findings.setHtml(f"<p>{e(str(err))}</p>")
            return
        if f is None:
            self.findings.setHtml("<p>" + e(self.tr("No findings yet.")) + "</p>")
            return
        parts = []
        if f.experiment:
            parts.append(f"<h2>{e(f.experiment)}</h2>")
        else:
            why = e(f.detail or f.reason or "")
            parts.append("<p><b>" + e(self.tr("Exploration did not conclude:")) + f"</b> {why}</p>")
        if f.goal:
            parts.append("<p><b>" + e(self.tr("Goal:")) + f"</b> {e(f.goal)}</p>")
        sections = (
            (self.tr("Key findings"), f.key_findings),
            (self.tr("Requirements"), f.assignment_requirements),
            (self.tr("Files read"), f.files_read),
        )
        for title, items in sections:
            if items:
                rows = "".join(f"<li>{e(str(x))}</li>" for x in items)
                parts.append(f"<h3>{e(title)}</h3><ul>{rows}</ul>")
        if f.method_approach:
            parts.append("<h3>" + e(self.tr("Method")) + f"</h3><p>{e(f.method_approach)}</p>")
        self.findings.setHtml("".join(parts))
