"""Past runs, from LABWRIGHT_HOME/runs: each can be reopened from its run directory."""

from __future__ import annotations

import time
from pathlib import Path

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QListWidget, QListWidgetItem, QWidget

from labwright.core.rundir.files import try_load_run
from labwright.core.rundir.records import RunRecord
from labwright.core.settings.config import labwright_home
from labwright.gui.timeline import reason_explanation

STATUS_MARK = {"ok": "●", "degraded": "◐", "failed": "✗", "cancelled": "◌", "running": "◔"}


PAGE_COUNT_ROWS = 30
_PAGES: dict[tuple[str, float], int] = {}


def page_count(pdf: Path) -> int:
    """Pages of a run's PDF (0 when there is none), remembered while the file is unchanged."""
    try:
        key = (str(pdf), pdf.stat().st_mtime)
    except OSError:
        return 0
    if key not in _PAGES:
        from pypdf import PdfReader  # loaded only when a history has PDFs

        try:
            _PAGES[key] = len(PdfReader(pdf).pages)
        except Exception:  # a broken PDF in an old run: no count, no crash
            _PAGES[key] = 0
    return _PAGES[key]


def past_runs(limit: int = 200) -> list[tuple[Path, RunRecord]]:
    """(run dir, run.json) of the newest runs first; unreadable ones are skipped."""
    root = labwright_home() / "runs"
    if not root.is_dir():
        return []
    out = []
    for d in sorted((p for p in root.iterdir() if p.is_dir()), key=lambda p: p.name, reverse=True)[
        :limit
    ]:
        meta = try_load_run(d)
        if meta is not None:
            out.append((d, meta))
    return out


class HistoryList(QListWidget):
    run_chosen = Signal(Path)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        # a narrow dock wraps "time · status · pages" instead of cutting it
        self.setWordWrap(True)
        self.setTextElideMode(Qt.TextElideMode.ElideNone)
        self.setResizeMode(QListWidget.ResizeMode.Adjust)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.itemActivated.connect(self._activated)
        self.refresh()

    def refresh(self) -> None:
        self.clear()
        for n, (run_dir, meta) in enumerate(past_runs()):
            folder = (meta.folder or run_dir).name
            when = time.strftime("%Y-%m-%d %H:%M", time.localtime(meta.started or 0))
            status = meta.status
            line = f"{when}  ·  {self.status_words(status)}"
            # reading a PDF costs a little: the recent runs are the ones told apart
            pages = page_count(run_dir / "report.pdf") if n < PAGE_COUNT_ROWS else 0
            if pages:
                line += "  ·  " + (
                    self.tr("1 page") if pages == 1 else self.tr("{0} pages").format(pages)
                )
            item = QListWidgetItem(f"{STATUS_MARK.get(status, '?')} {folder}\n{line}")
            why = "".join(f"\n{reason_explanation(r)}" for r in meta.reasons)
            item.setToolTip(f"{run_dir}\n{self.status_words(status)}{why}")
            item.setData(Qt.ItemDataRole.UserRole, str(run_dir))
            self.addItem(item)

    def status_words(self, status: str) -> str:
        return {
            "ok": self.tr("done"),
            "degraded": self.tr("needs review"),
            "failed": self.tr("failed"),
            "cancelled": self.tr("cancelled"),
            "running": self.tr("stopped midway"),
        }.get(status, status)

    def _activated(self, item: QListWidgetItem) -> None:
        self.run_chosen.emit(Path(item.data(Qt.ItemDataRole.UserRole)))
