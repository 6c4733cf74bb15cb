"""The timeline panel: the run's steps as a tree that follows the newest row."""

from __future__ import annotations

from PySide6.QtCore import QModelIndex, QPersistentModelIndex, QTimer
from PySide6.QtWidgets import QHeaderView, QTreeView, QWidget

from labwright.gui.timeline import TimelineModel

FOLLOW_MS = 150  # scrolling lays out the tree: once per 150 ms, not once per batch of rows


class TimelineView(QTreeView):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.timeline = TimelineModel(self)
        self.setModel(self.timeline)
        self.setUniformRowHeights(True)
        self.setAlternatingRowColors(True)
        # steps and details share the width: a fixed step column left the details a
        # sliver in a small window
        self.header().setSectionResizeMode(QHeaderView.ResizeMode.Stretch)
        self.timeline.rowsInserted.connect(self._follow)
        self._follow_timer = QTimer(self, singleShot=True, interval=FOLLOW_MS)
        self._follow_timer.timeout.connect(self._scroll_to_latest)
        self._latest = QPersistentModelIndex()

    def _follow(self, parent: QModelIndex, first: int, last: int) -> None:
        if parent.isValid() and not self.isExpanded(parent):
            self.expand(parent)
        self._latest = QPersistentModelIndex(self.timeline.index(last, 0, parent))
        if not self._follow_timer.isActive():
            self._follow_timer.start()

    def _scroll_to_latest(self) -> None:
        if self._latest.isValid():
            self.scrollTo(self._latest)
