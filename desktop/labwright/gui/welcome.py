"""The first page: drop a folder of material here, open one, or pick a recent one."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QLabel, QListWidget, QListWidgetItem, QVBoxLayout, QWidget

from labwright.gui.widgets import DropZone


class WelcomePage(QWidget):
    folder_chosen = Signal(Path)  # dropped, or a recent one activated
    open_requested = Signal()  # "Open Folder…": the window asks for one

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.drop_zone = DropZone()
        self.drop_zone.folder_dropped.connect(self.folder_chosen)
        self.drop_zone.open_requested.connect(self.open_requested)
        self.recent_label = QLabel()
        self.recent = QListWidget()
        self.recent.itemActivated.connect(self._recent_chosen)
        layout = QVBoxLayout(self)
        layout.addWidget(self.drop_zone, 3)
        layout.addWidget(self.recent_label)
        layout.addWidget(self.recent, 1)
        self.retranslate()

    def retranslate(self) -> None:
        self.drop_zone.retranslate()
        self.recent_label.setText(self.tr("Recent folders"))

    def show_recent(self, folders: list[str]) -> None:
        self.recent.clear()
        self.recent.addItems(folders)

    def show_problem(self, text: str) -> None:
        """Why a folder cannot be used, under the drop target."""
        self.drop_zone.show_message(text)

    def _recent_chosen(self, item: QListWidgetItem) -> None:
        self.folder_chosen.emit(Path(item.text()))
