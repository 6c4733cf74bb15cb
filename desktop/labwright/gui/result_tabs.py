"""After a run: the report source, the PDF, the figures and the findings."""

from __future__ import annotations

import html
import json
from pathlib import Path
from typing import Any

from PySide6.QtCore import QSize, Qt
from PySide6.QtGui import QFontDatabase, QIcon
from PySide6.QtPdf import QPdfDocument
from PySide6.QtPdfWidgets import QPdfView
from PySide6.QtWidgets import (
    QLabel,
    QListWidget,
    QListWidgetItem,
    QPlainTextEdit,
    QSplitter,
    QTabWidget,
    QTextBrowser,
    QVBoxLayout,
    QWidget,
)

from labwright.core.rundir import fence
from labwright.core.rundir.files import RunFileError, load_findings
from labwright.gui import run_files


class ResultTabs(QTabWidget):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        mono = QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont)
        self.draft = QPlainTextEdit(readOnly=True)
        self.draft.setFont(mono)

        self.source = QPlainTextEdit(readOnly=True)
        self.source.setFont(mono)

        self.pdf_doc = QPdfDocument(self)
        self.pdf_view = QPdfView(self)
        self.pdf_view.setDocument(self.pdf_doc)
        self.pdf_view.setPageMode(QPdfView.PageMode.MultiPage)
        self.pdf_view.setZoomMode(QPdfView.ZoomMode.FitToWidth)
        self.figures = QListWidget()
        self.figures.setViewMode(QListWidget.ViewMode.IconMode)
        self.figures.setIconSize(QSize(200, 150))
        self.figures.setResizeMode(QListWidget.ResizeMode.Adjust)
        self.figures.currentItemChanged.connect(self._show_figure)
        self.figure_info = QPlainTextEdit(readOnly=True)
        self.figure_info.setFont(mono)
        self.findings = QTextBrowser()
        figures_page = QSplitter(Qt.Orientation.Vertical)
        figures_page.addWidget(self.figures)
        figures_page.addWidget(self.figure_info)
        self.pdf_note = QLabel("")
        pdf_page = QWidget()
        pdf_layout = QVBoxLayout(pdf_page)
        pdf_layout.setContentsMargins(0, 0, 0, 0)
        pdf_layout.addWidget(self.pdf_note)
        pdf_layout.addWidget(self.pdf_view, 1)
        for page in (self.draft, self.source, pdf_page, figures_page, self.findings):
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

    def clear(self) -> None:
        self._fresh = False
        self.draft.clear()
        self.source.clear()
        self.pdf_doc.close()
        self.pdf_note.setText("")
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
        if run_files.has_file(run_dir, "report.tex"):
            self.source.setPlainText(run_files.read_text(run_dir, "report.tex"))
        if run_files.load_pdf(self.pdf_doc, run_dir, "report.pdf"):
            self.pdf_note.setText("")
        else:
            self.pdf_note.setText(
                self.tr("No PDF: the report was not compiled (see the timeline for why).")
            )
        self._load_figures(run_dir)
        self._load_findings(run_dir)

    def _load_figures(self, run_dir: Path) -> None:
        self.figures.clear()
        try:
            names = fence.names_in(run_dir, "figures", "*.png")
        except OSError:  # figures/ is a link (RunLinkError) or unreadable: none shown
            names = []
        for name in names:
            stem = name.removesuffix(".png")
            meta = _read_json(run_dir, f"figures/{stem}.json") or {}
            icon = QIcon(run_files.pixmap(run_dir, f"figures/{name}"))
            item = QListWidgetItem(icon, meta.get("caption") or stem)
            item.setData(Qt.ItemDataRole.UserRole, meta)
            item.setToolTip(meta.get("caption") or stem)
            self.figures.addItem(item)

    def _show_figure(self, item: QListWidgetItem | None) -> None:
        if item is None:
            self.figure_info.clear()
            return
        meta: dict[str, Any] = item.data(Qt.ItemDataRole.UserRole) or {}
        inputs = ", ".join(i.get("path", "") for i in meta.get("inputs", []))
        label = self.tr("Inputs:")
        self.figure_info.setPlainText(
            f"{meta.get('caption', '')}\n\n{label} {inputs or '—'}\n\n{meta.get('code', '')}"
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


def _read_json(run_dir: Path, rel: str) -> Any:
    try:
        return json.loads(fence.read_text(run_dir, rel))
    except (OSError, ValueError):
        return None
