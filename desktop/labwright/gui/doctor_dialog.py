"""Help > Check setup…: `labwright doctor`'s checks in a window, with the fix commands.

The same checks as the command line (labwright/doctor.py) but Qt's own libraries:
the window is on screen, so they are there. The provider check makes two small
requests, so the checks run in a worker thread; a close while they run waits for
their answer (bounded by doctor.PROVIDER_TIMEOUT_S and the tool-call test's
deadline, probe.PROBE_DEADLINE_S) rather than leaving the thread.

On the first start (no settings file yet) the app runs the local checks itself and
opens this dialog with them only when something needed is missing
(`show_if_needed`).
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, Qt, Signal, Slot
from PySide6.QtGui import QColor, QFontDatabase, QGuiApplication
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QHeaderView,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from labwright import doctor
from labwright.core.step_words import words_of
from labwright.gui.timeline import step_words

if TYPE_CHECKING:
    from labwright.core.settings.saved import Settings


class _Relay(QObject):
    """Carries the worker's checks to the GUI thread (emitted off-thread: a queued connection)."""

    finished = Signal(object)


def _work(relay: _Relay, settings: Settings | None) -> None:
    try:
        checks = doctor.run_checks(qt=False, settings=settings)
    except Exception as e:  # a check that breaks must still end the wait
        checks = [doctor.Check("Checks", False, f"{type(e).__name__}: {e}")]
    relay.finished.emit(checks)


class DoctorDialog(QDialog):
    checked = Signal()  # the table shows a finished set of checks

    def __init__(
        self,
        parent: QWidget | None = None,
        *,
        settings: Settings | None = None,
        checks: Sequence[doctor.Check] | None = None,
    ) -> None:
        """`checks`: already made (first run), shown as they are; otherwise they run now."""
        super().__init__(parent)
        self.setObjectName("doctor_dialog")
        self.settings = settings
        self._worker: threading.Thread | None = None
        self._relay: _Relay | None = None
        self._close_with: int | None = None
        self.checks: list[doctor.Check] = []

        self.summary = QLabel()
        self.summary.setWordWrap(True)
        self.table = QTableWidget(0, 3)
        self.table.verticalHeader().hide()
        self.table.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        self.table.setWordWrap(True)
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(1, QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(2, QHeaderView.ResizeMode.Stretch)
        self.fix_label = QLabel()
        self.fixes = QPlainTextEdit(readOnly=True)
        self.fixes.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
        self.again_button = QPushButton()
        self.again_button.clicked.connect(self.run_checks)
        self.copy_button = QPushButton()
        self.copy_button.clicked.connect(self._copy_fixes)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.addButton(self.again_button, QDialogButtonBox.ButtonRole.ActionRole)
        buttons.addButton(self.copy_button, QDialogButtonBox.ButtonRole.ActionRole)
        buttons.rejected.connect(self.reject)

        layout = QVBoxLayout(self)
        layout.addWidget(self.summary)
        layout.addWidget(self.table, 2)
        layout.addWidget(self.fix_label)
        layout.addWidget(self.fixes, 1)
        layout.addWidget(buttons)
        self.resize(820, 520)
        self.retranslate()
        if checks is None:
            self.run_checks()
        else:
            self._show(list(checks))

    def retranslate(self) -> None:
        self.setWindowTitle(self.tr("Check Setup"))
        self.table.setHorizontalHeaderLabels(
            [self.tr("Check"), self.tr("Status"), self.tr("Details")]
        )
        self.fix_label.setText(self.tr("To fix what is missing, run:"))
        self.again_button.setText(self.tr("Check &again"))
        self.copy_button.setText(self.tr("&Copy commands"))

    def _status_text(self, check: doctor.Check) -> str:
        return {
            "ok": self.tr("ok"),
            "missing": self.tr("missing"),
            "warning": self.tr("warning"),
        }[check.status]

    @Slot()
    def run_checks(self) -> None:
        if self._worker is not None:
            return
        self.again_button.setEnabled(False)
        self.summary.setText(self.tr("Checking…"))
        self._relay = _Relay()  # no parent: it lives as long as the worker needs it
        self._relay.finished.connect(self._on_checked, Qt.ConnectionType.QueuedConnection)
        self._worker = threading.Thread(
            target=_work, args=(self._relay, self.settings), name="labwright-doctor", daemon=True
        )
        self._worker.start()

    @Slot(object)
    def _on_checked(self, checks: list[doctor.Check]) -> None:
        if self._worker is not None:
            self._worker.join()
        self._worker = self._relay = None
        self.again_button.setEnabled(True)
        self._show(checks)
        if self._close_with is not None:
            super().done(self._close_with)

    def _show(self, checks: list[doctor.Check]) -> None:
        self.checks = checks
        self.table.setRowCount(len(checks))
        colours = {"ok": QColor(63, 163, 122), "missing": QColor(220, 60, 60)}
        for row, check in enumerate(checks):
            status = QTableWidgetItem(self._status_text(check))
            status.setForeground(colours.get(check.status, QColor(230, 150, 20)))
            detail = _worded(check.detail)
            for col, item in enumerate(
                (QTableWidgetItem(_worded(check.name)), status, QTableWidgetItem(detail))
            ):
                item.setToolTip(detail)
                self.table.setItem(row, col, item)
        self.table.resizeRowsToContents()
        self.summary.setText(self._verdict(checks))
        steps = [f"# {_worded(c.name)}\n" + "\n".join(c.fix) for c in checks if not c.ok and c.fix]
        self.fixes.setPlainText("\n\n".join(steps))
        for w in (self.fix_label, self.fixes, self.copy_button):
            w.setVisible(bool(steps))
        self.checked.emit()

    def _verdict(self, checks: list[doctor.Check]) -> str:
        """doctor.verdict's line, in the UI language: "not ready" only when no report
        can be made, not for a missing key or TeX (warnings)."""
        kind, named = doctor.verdict(checks)
        names = self.tr(", ").join(_worded(c.name) for c in named)
        if kind == "not_ready":
            return self.tr("Labwright is not ready yet: {0}.").format(names)
        if kind == "offline_only":
            return self.tr("Offline reports work; reports written by a model need: {0}.").format(
                names
            )
        if kind == "warnings":
            return self.tr("Labwright can make reports. Warnings: {0}.").format(names)
        return self.tr("Everything Labwright needs is there.")

    def _copy_fixes(self) -> None:
        QGuiApplication.clipboard().setText(self.fixes.toPlainText())

    def done(self, result: int) -> None:
        # Never block the GUI on the network: a close during the checks waits for them.
        if self._worker is not None:
            self._close_with = result
            self.setEnabled(False)
            self.summary.setText(self.tr("Closing when the checks answer…"))
            return
        super().done(result)


def _worded(text: str) -> str:
    """A check's name or detail in the UI language (doctor.py says them as step words)."""
    return step_words(words_of(text), text)


def show_if_needed(parent: QWidget) -> DoctorDialog | None:
    """First run: the local checks (no request to a provider not chosen yet), and the
    dialog only when something Labwright needs is missing, or TeX (no PDFs without it)."""
    tex = doctor.tex_checks()
    checks = [*tex, doctor.key_check(), doctor.disk_check()]
    if not doctor.failed_needed(checks) and tex[0].ok:
        return None
    dialog = DoctorDialog(parent, checks=checks)
    dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
    dialog.show()
    return dialog
