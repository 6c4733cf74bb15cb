"""Small widgets of the main window: the drop zone."""

from __future__ import annotations

import os
from pathlib import Path

from PySide6.QtCore import QCoreApplication, Qt, Signal
from PySide6.QtGui import QDragEnterEvent, QDropEvent
from PySide6.QtWidgets import QFrame, QLabel, QPushButton, QVBoxLayout, QWidget


def folder_problem(path: Path) -> str | None:
    """Why `path` cannot be used as the material folder, politely; None when it can."""
    if not path.exists():
        return QCoreApplication.translate("DropZone", "“{0}” does not exist any more.").format(
            path.name
        )
    if not path.is_dir():
        return QCoreApplication.translate(
            "DropZone",
            "“{0}” is a file. Please drop the folder that holds your experiment material.",
        ).format(path.name)
    if not os.access(path, os.R_OK | os.X_OK):
        return QCoreApplication.translate(
            "DropZone", "Labwright is not allowed to read “{0}”. Check its permissions."
        ).format(path.name)
    return None


class DropZone(QFrame):
    """A large target: drop a folder here, or open one."""

    folder_dropped = Signal(Path)
    open_requested = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setAcceptDrops(True)
        self.setObjectName("dropZone")
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.setMinimumSize(420, 240)
        self.title = QLabel()
        font = self.title.font()
        font.setPointSizeF(font.pointSizeF() * 1.6)
        self.title.setFont(font)
        self.hint = QLabel()
        self.hint.setWordWrap(True)
        self.message = QLabel("")
        self.message.setWordWrap(True)
        self.message.setObjectName("dropMessage")
        self.open_button = QPushButton()
        self.open_button.clicked.connect(self.open_requested)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(48, 24, 48, 24)
        layout.addStretch(1)
        for w in (self.title, self.hint, self.open_button, self.message):
            if isinstance(w, QLabel):  # full width, centred text: wrapped lines get room
                w.setAlignment(Qt.AlignmentFlag.AlignCenter)
                layout.addWidget(w)
            else:
                layout.addWidget(w, 0, Qt.AlignmentFlag.AlignHCenter)
        layout.addStretch(1)
        self._set_hover(False)
        self.retranslate()

    def retranslate(self) -> None:
        self.title.setText(self.tr("Drop a folder of experiment material"))
        # fmt: off
        self.hint.setText(self.tr("Measurements, the lab manual, photos — Labwright reads them and drafts your report. It never changes your files."))  # noqa: E501 (one literal, for lupdate)
        # fmt: on
        self.open_button.setText(self.tr("Open Folder…"))

    def _set_hover(self, on: bool) -> None:
        # palette roles keep it readable in light and dark mode
        style = "QFrame#dropZone { border: 2px dashed palette(mid); border-radius: 12px; }"
        if on:
            style = "QFrame#dropZone { border: 2px dashed palette(highlight); border-radius: 12px; background: palette(alternate-base); }"
        self.setStyleSheet(style)

    def show_message(self, text: str) -> None:
        self.message.setText(text)

    def dragEnterEvent(self, event: QDragEnterEvent) -> None:
        if event.mimeData().hasUrls():
            event.acceptProposedAction()
            self._set_hover(True)
        else:
            event.ignore()

    def dragLeaveEvent(self, event) -> None:
        self._set_hover(False)

    def dropEvent(self, event: QDropEvent) -> None:
        self._set_hover(False)
        urls = event.mimeData().urls()
        local = [Path(u.toLocalFile()) for u in urls if u.isLocalFile()]
        if len(urls) != 1 or len(local) != 1:
            self.show_message(self.tr("Please drop one folder at a time, from this computer."))
            event.ignore()
            return
        problem = folder_problem(local[0])
        if problem:
            self.show_message(problem)
            event.ignore()
            return
        self.show_message("")
        event.acceptProposedAction()
        self.folder_dropped.emit(local[0])
