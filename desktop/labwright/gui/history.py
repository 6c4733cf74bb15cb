"""Past runs, from LABWRIGHT_HOME/runs: each can be reopened from its run directory,
or deleted (the Delete key, the row's context menu, File > Delete Run).

Each row names its run apart from the others: the material folder, with a number
when the folder has several runs (#1 the oldest), then the date and time, the
status and the pages. A run folder there may have come from someone else (copied
in, unzipped): one that holds a link, or whose run.json cannot be used, is listed
with the sentence that says why, and nothing of it is read through a link
(core/rundir/fence.py); Reopen says the same sentence. Deleting moves the folder to
the system's trash (a rename: nothing in it is followed), and where there is none
asks, then removes it without following a link (fence.remove_run_folder).
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QCoreApplication, QFile, QPoint, Qt, Signal
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import (
    QDockWidget,
    QListWidget,
    QListWidgetItem,
    QMenu,
    QMessageBox,
    QWidget,
)

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


def numbered(runs: list[PastRun]) -> dict[Path, int]:
    """Each run's number among the runs of its material folder, 1 the oldest; only for
    folders that have more than one (a lone run needs no number)."""
    by_folder: dict[str, list[PastRun]] = {}
    for past in runs:
        by_folder.setdefault(_folder_key(past), []).append(past)
    out = {}
    for same in by_folder.values():
        if len(same) > 1:
            oldest_first = sorted(same, key=lambda p: (_started(p), p.run_dir.name))
            out.update({p.run_dir: n for n, p in enumerate(oldest_first, 1)})
    return out


def _folder_key(past: PastRun) -> str:
    meta = past.meta
    return str(meta.folder) if meta is not None and meta.folder else past.run_dir.name


def _started(past: PastRun) -> float:
    return (past.meta.started or 0.0) if past.meta is not None else 0.0


class HistoryList(QListWidget):
    run_chosen = Signal(Path)
    delete_requested = Signal(Path)  # the window decides (a run still going is kept)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        # a narrow dock wraps "time · status · pages" instead of cutting it
        self.setWordWrap(True)
        self.setTextElideMode(Qt.TextElideMode.ElideNone)
        self.setResizeMode(QListWidget.ResizeMode.Adjust)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.itemActivated.connect(self._activated)
        # Delete acts on the chosen row while the list has the focus; File > Delete Run
        # (the same action) from anywhere
        self.delete_action = QAction(self)
        self.delete_action.setShortcut(QKeySequence(QKeySequence.StandardKey.Delete))
        self.delete_action.setShortcutContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
        self.delete_action.triggered.connect(self._delete_chosen)
        self.addAction(self.delete_action)
        self.open_action = QAction(self)
        self.open_action.triggered.connect(self._open_chosen)
        self.row_menu = QMenu(self)
        self.row_menu.addAction(self.open_action)
        self.row_menu.addSeparator()
        self.row_menu.addAction(self.delete_action)
        self.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        self.customContextMenuRequested.connect(self._show_row_menu)
        self.currentItemChanged.connect(lambda *_: self._update_actions())
        self.retranslate()
        self.refresh()

    def retranslate(self) -> None:
        self.open_action.setText(self.tr("&Reopen Run"))
        self.delete_action.setText(self.tr("&Delete Run…"))
        self._update_actions()

    def chosen_run(self) -> Path | None:
        item = self.currentItem()
        return Path(item.data(Qt.ItemDataRole.UserRole)) if item is not None else None

    def row_name(self, run_dir: Path) -> str:
        """The run as its row names it, on one line (for questions and notices)."""
        for i in range(self.count()):
            item = self.item(i)
            if item.data(Qt.ItemDataRole.UserRole) == str(run_dir):
                return " · ".join(item.text()[2:].splitlines()[:2])
        return run_dir.name

    def _update_actions(self) -> None:
        chosen = self.currentItem() is not None
        self.open_action.setEnabled(chosen)
        self.delete_action.setEnabled(chosen)
        self.delete_action.setToolTip(
            self.tr("Delete the chosen run (moved to the trash where the system has one)")
            if chosen
            else self.tr("Choose a run in History first")
        )

    def _show_row_menu(self, pos: QPoint) -> None:
        item = self.itemAt(pos)
        if item is None:
            return
        self.setCurrentItem(item)
        self.row_menu.popup(self.viewport().mapToGlobal(pos))

    def _open_chosen(self) -> None:
        run_dir = self.chosen_run()
        if run_dir is not None:
            self.run_chosen.emit(run_dir)

    def _delete_chosen(self) -> None:
        run_dir = self.chosen_run()
        if run_dir is not None:
            self.delete_requested.emit(run_dir)

    def refresh(self) -> None:
        kept = self.chosen_run()
        self.clear()
        runs = past_runs()
        numbers = numbered(runs)
        for n, past in enumerate(runs):
            run_dir, meta = past.run_dir, past.meta
            folder = (meta.folder if meta and meta.folder else run_dir).name
            if run_dir in numbers:
                folder = self.tr("{0} #{1}").format(folder, numbers[run_dir])
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
            if run_dir == kept:
                self.setCurrentItem(item)
        self._update_actions()

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
        self.runs.retranslate()
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


def delete_run_folder(parent: QWidget, run_dir: Path, name: str) -> str | None:
    """Delete a run's folder: to the system's trash when it has one ("trash"), else, once
    the person agreed, for good ("removed"); None when they did not. OSError (a
    RunLinkError too) when it could not be done."""
    moved = QFile.moveToTrash(str(run_dir))  # a rename: nothing inside is followed
    if moved[0] if isinstance(moved, tuple) else moved:  # (PySide6 gives either form)
        return "trash"
    answer = QMessageBox.question(
        parent,
        QCoreApplication.translate("HistoryList", "Delete the run for good?"),
        QCoreApplication.translate(
            "HistoryList",
            "There is no trash for {0} on this system. Delete the run “{1}” and everything in its folder for good? This cannot be undone.",
        ).format(run_dir, name),
        QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No,
        QMessageBox.StandardButton.No,
    )
    if answer != QMessageBox.StandardButton.Yes:
        return None
    from labwright.core.rundir.fence import remove_run_folder

    remove_run_folder(run_dir)
    return "removed"
