"""Small widgets of the main window: the drop zone, the banner."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import QCoreApplication, QMimeData, Qt, Signal
from PySide6.QtGui import QDragEnterEvent, QDragLeaveEvent, QDropEvent
from PySide6.QtWidgets import (
    QFrame,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QToolButton,
    QVBoxLayout,
    QWidget,
)


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


def dropped_folder(mime: QMimeData) -> tuple[Path | None, str | None]:
    """The one local folder a drop carries, or why it cannot be used."""
    urls = mime.urls()
    local = [Path(u.toLocalFile()) for u in urls if u.isLocalFile()]
    if len(urls) != 1 or len(local) != 1:
        return None, QCoreApplication.translate(
            "DropZone", "Please drop one folder at a time, from this computer."
        )
    problem = folder_problem(local[0])
    return (None, problem) if problem else (local[0], None)


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

    def dragLeaveEvent(self, event: QDragLeaveEvent) -> None:
        self._set_hover(False)

    def dropEvent(self, event: QDropEvent) -> None:
        self._set_hover(False)
        folder, problem = dropped_folder(event.mimeData())
        if problem or folder is None:
            self.show_message(problem or "")
            event.ignore()
            return
        self.show_message("")
        event.acceptProposedAction()
        self.folder_dropped.emit(folder)


class Banner(QFrame):
    """A message across the window, with a button when there is one thing to do about it."""

    COLORS = {
        "error": "rgba(230,60,60,60)",
        "warning": "rgba(255,176,32,70)",
        "info": "rgba(60,160,90,55)",
    }

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("banner")
        self.label = QLabel()
        self.label.setWordWrap(True)
        self.label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.button = QPushButton()
        self.button.hide()
        self.close_button = QToolButton()
        self.close_button.setText("×")
        self.close_button.setAutoRaise(True)
        self.close_button.clicked.connect(self.dismiss)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(8, 4, 4, 4)
        layout.addWidget(self.label, 1)
        layout.addWidget(self.button)
        layout.addWidget(self.close_button, 0, Qt.AlignmentFlag.AlignTop)
        self._slot: Callable[[], object] | None = None
        self.button.clicked.connect(self._clicked)
        self.set_kind("error")
        self.hide()

    def set_kind(self, kind: str) -> None:
        self.kind = kind
        self.setStyleSheet(
            f"QFrame#banner {{ border-radius: 4px; background: {self.COLORS[kind]}; }}"
        )

    def show_message(
        self,
        text: str,
        kind: str = "error",
        button: str | None = None,
        slot: Callable[[], object] | None = None,
    ) -> None:
        self.set_kind(kind)
        self.label.setText(text)
        self.label.setToolTip("")
        self._slot = slot
        self.button.setText(button or "")
        self.button.setVisible(bool(button and slot))
        self.show()

    def text(self) -> str:
        return self.label.text()

    def dismiss(self) -> None:
        self.hide()
        self.label.setText("")
        self._slot = None

    def _clicked(self) -> None:
        if self._slot is not None:
            self._slot()


Words = Callable[[], str]  # a sentence made in the interface language when it is shown


class MessageBanner(Banner):
    """A banner whose message and button are worded again on a language switch: given as
    functions, they are said in the language chosen later, also while the banner is hidden."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._words: Words | None = None
        self._button_words: Words | None = None

    def say(
        self,
        text: str | Words,
        kind: str = "error",
        button: Words | None = None,
        slot: Callable[[], object] | None = None,
    ) -> None:
        self._words = text if callable(text) else None
        self._button_words = button
        self.show_message(
            text() if callable(text) else text, kind, button() if button else None, slot
        )

    def dismiss(self) -> None:
        self._words = self._button_words = None
        super().dismiss()

    def has_button(self) -> bool:
        return not self.button.isHidden()

    def retranslate(self) -> None:
        if self._words is not None:
            self.label.setText(self._words())
        if self._button_words is not None:
            self.button.setText(self._button_words())
