"""Past runs, from LABWRIGHT_HOME/runs: each can be reopened from its run directory.

A run folder there may have come from someone else (copied in, unzipped): one that
holds a link, or whose run.json cannot be used, is listed with the sentence that
says why, and nothing of it is read through a link (core/rundir/fence.py); Reopen
says the same sentence.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QDockWidget, QListWidget, QListWidgetItem, QWidget

from labwright.core.settings.config import labwright_home
from labwright.gui.i18n import current_language

if TYPE_CHECKING:
    from labwright.core.rundir.records import RunRecord

STATUS_MARK = {"ok": "●", "degraded": "◐", "failed": "✗", "cancelled": "◌", "running": "◔"}
UNUSABLE_MARK = "⚠"


PAGE_COUNT_ROWS = 30
_PAGES: dict[tuple[str, float, int], int] = {}


def page_count(run_dir: Path) -> int:
    """Pages of a run's report.pdf (0 when there is none, or it is a link), remembered
    while the file is unchanged."""
    from labwright.core.rundir.layout import RunDir

    try:
        with RunDir(run_dir).open_pdf() as f:
            st = os.fstat(f.fileno())
            key = (str(run_dir), st.st_mtime, st.st_size)
            if key not in _PAGES:
                from pypdf import PdfReader  # loaded only when a history has PDFs

                try:
                    _PAGES[key] = len(PdfReader(f).pages)
                except Exception:  # a broken PDF in an old run: no count, no crash
                    _PAGES[key] = 0
            return _PAGES[key]
    except OSError:
        return 0


@dataclass(frozen=True)
class PastRun:
    run_dir: Path
    meta: RunRecord | None  # run.json, when it can be read
    problem: str | None  # why the run cannot be opened (a link in it, a damaged run.json)


def past_runs(limit: int = 200) -> list[PastRun]:
    """The run folders (those with a run.json) of the newest runs first."""
    root = labwright_home() / "runs"
    if not root.is_dir():
        return []
    # the run folders' readers, once there are runs: the window shows sooner without
    from labwright.core.rundir import fence
    from labwright.core.rundir.files import is_run_dir, load_run
    from labwright.core.rundir.records import RunFileError

    out = []
    for d in sorted((p for p in root.iterdir() if p.is_dir()), key=lambda p: p.name, reverse=True)[
        :limit
    ]:
        if not is_run_dir(d):
            continue
        problem = meta = None
        try:
            fence.check_run_dir(d)
        except RunFileError as e:
            problem = str(e)
        try:
            meta = load_run(d)
        except RunFileError as e:
            problem = problem or str(e)
        out.append(PastRun(d, meta, problem))
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
        for n, past in enumerate(past_runs()):
            run_dir, meta = past.run_dir, past.meta
            folder = (meta.folder if meta and meta.folder else run_dir).name
            when = (
                time.strftime("%Y-%m-%d %H:%M", time.localtime(meta.started or 0)) if meta else ""
            )
            if past.problem is not None:
                words = self.tr("cannot be opened")
                line = f"{when}  ·  {words}" if when else words
                item = QListWidgetItem(f"{UNUSABLE_MARK} {folder}\n{line}")
                item.setToolTip(f"{run_dir}\n{past.problem}")
            else:
                assert meta is not None
                status = meta.status
                line = f"{when}  ·  {self.status_words(status)}"
                # reading a PDF costs a little: the recent runs are the ones told apart
                pages = page_count(run_dir) if n < PAGE_COUNT_ROWS else 0
                if pages:
                    line += "  ·  " + self.tr("%n page(s)", "", pages)
                item = QListWidgetItem(f"{STATUS_MARK.get(status, '?')} {folder}\n{line}")
                from labwright.gui.timeline import reason_explanation  # once a run is listed

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


class HistoryDock(QDockWidget):
    """The past runs beside the window; folded away while a report is reviewed (the editor
    needs the width) and back as it was after."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("history")
        self.runs = HistoryList()
        self.setWidget(self.runs)
        self._lang = current_language()  # the rows were worded in it
        self._was_visible = True
        self._folded = False

    def retranslate(self) -> None:
        self.setWindowTitle(self.tr("History"))
        if self._lang != current_language():
            self._lang = current_language()
            self.runs.refresh()

    def fold(self) -> None:
        if not self._folded:
            self._was_visible, self._folded = self.isVisible(), True
        self.hide()

    def unfold(self) -> None:
        if self._folded and self._was_visible:
            self.show()
        self._folded = False
