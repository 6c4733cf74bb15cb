"""The compile log of the review pane: TeX's errors and warnings, each a click from its line.

The entries come from the core's parse of the TeX log (file, line, message):
from a `CompileResult` after a recompile, or from run.json's last compile when
a run is opened. The same entries put the marks in the editor's gutter.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass, is_dataclass
from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHeaderView,
    QSizePolicy,
    QToolButton,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from labwright.core.rundir.names import is_report
from labwright.core.rundir.records import RunRecord

ERROR, WARNING = "error", "warning"
MARK = {ERROR: "✗", WARNING: "⚠"}
LOG_ROWS = 6  # rows the open log shows before it scrolls: the editor keeps the height
# where logparse puts a warning's line: "... (line 12)"; TeX's own "on input line 12"
_WARNING_LINE = re.compile(r"\(line (\d+)\)|on input line (\d+)")


@dataclass(frozen=True)
class LogEntry:
    severity: str  # ERROR | WARNING
    file: str  # as the log names it; "" when it does not
    line: int | None  # 1-based, in `file`
    message: str  # TeX's own words (English: it is TeX speaking)
    context: str = ""  # the source around the line, when the parse had it

    @property
    def in_report(self) -> bool:
        """Whether the line is one of report.tex, so the editor can go there."""
        return is_report(self.file)

    @property
    def editor_line(self) -> int | None:
        return self.line if self.in_report else None


def log_entries(errors: Iterable[Any], warnings: Iterable[Any]) -> list[LogEntry]:
    """Entries from a compile's errors (LogError objects or their run.json dicts) and warnings
    (logparse's sentences): errors first, each group in the log's order."""
    out = []
    for error in errors:
        e = asdict(error) if is_dataclass(error) and not isinstance(error, type) else error
        if not isinstance(e, Mapping):
            continue
        line = e.get("line")
        lines = str(e.get("message") or "").strip().splitlines()
        out.append(
            LogEntry(
                ERROR,
                str(e.get("file") or ""),
                line if isinstance(line, int) and line > 0 else None,
                lines[0] if lines else "",
                str(e.get("context") or ""),
            )
        )
    for warning in warnings:
        text = str(warning)
        m = _WARNING_LINE.search(text)
        line = int(next(g for g in m.groups() if g)) if m else None
        out.append(LogEntry(WARNING, "", line, text))
    return out


def entries_of_run(meta: RunRecord | None) -> list[LogEntry] | None:
    """The entries of run.json's last compile; None when it never compiled."""
    if meta is None or meta.compile is None:
        return None
    return log_entries(meta.compile.errors, meta.compile.warnings)


class LogPane(QWidget):
    """A header that folds the log open and shut, and the log: one row per error or warning.

    Clicking (or Enter on) a row of report.tex sends its line to `line_chosen`."""

    line_chosen = Signal(int)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._entries: list[LogEntry] = []
        self._compiled = False  # "no errors" is said only of a compile that happened
        self.header = QToolButton()
        self.header.setObjectName("logHeader")
        self.header.setCheckable(True)
        self.header.setAutoRaise(True)
        self.header.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
        self.header.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
        self.header.toggled.connect(self.set_open)
        self.list = QTreeWidget()
        self.list.setObjectName("compileLog")
        self.list.setColumnCount(2)
        self.list.setRootIsDecorated(False)
        self.list.setUniformRowHeights(True)
        self.list.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.list.header().setStretchLastSection(True)
        self.list.header().setSectionResizeMode(0, QHeaderView.ResizeMode.ResizeToContents)
        self.list.itemClicked.connect(self._chosen)
        self.list.itemActivated.connect(self._chosen)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(0)
        layout.addWidget(self.header)
        layout.addWidget(self.list)
        self.set_open(False)
        self.retranslate()

    def retranslate(self) -> None:
        self.list.setHeaderLabels([self.tr("Line"), self.tr("Message")])
        self._show_header()
        self._fill()

    @property
    def entries(self) -> list[LogEntry]:
        return list(self._entries)

    def set_entries(self, entries: list[LogEntry] | None) -> None:
        """A compile's entries, or None when nothing was compiled: an empty log stays shut."""
        self._compiled = entries is not None
        self._entries = list(entries or [])
        self.header.setEnabled(bool(self._entries))
        if not self._entries:
            self.set_open(False)
        self._show_header()
        self._fill()

    def is_open(self) -> bool:
        return self.header.isChecked()

    def set_open(self, shown: bool) -> None:
        if self.header.isChecked() != shown:
            self.header.setChecked(shown)  # comes back here through toggled
            return
        self.header.setArrowType(Qt.ArrowType.DownArrow if shown else Qt.ArrowType.RightArrow)
        self.list.setVisible(shown)

    def _show_header(self) -> None:
        errors = sum(1 for e in self._entries if e.severity == ERROR)
        warnings = len(self._entries) - errors
        if not self._compiled:
            text = self.tr("Compile log: not compiled yet")
        elif not self._entries:
            text = self.tr("Compile log: no errors or warnings")
        else:
            text = self.tr("Compile log: {0}, {1}").format(
                self.tr("%n error(s)", "", errors), self.tr("%n warning(s)", "", warnings)
            )
        self.header.setText(text)
        self.header.setToolTip(self.tr("Show or hide the errors and warnings of the last compile"))

    def _fill(self) -> None:
        self.list.clear()
        for entry in self._entries:
            if entry.line is None:
                where = ""
            elif entry.in_report:
                where = str(entry.line)
            else:
                where = f"{entry.file}:{entry.line}"
            row = QTreeWidgetItem([f"{MARK[entry.severity]} {where}".rstrip(), entry.message])
            tip = entry.message
            if entry.context:
                tip += "\n\n" + entry.context
            if entry.editor_line is None and entry.line is not None:
                tip += "\n" + self.tr("(in {0}, not in the report's source)").format(entry.file)
            for column in (0, 1):
                row.setToolTip(column, tip)
            row.setData(0, Qt.ItemDataRole.UserRole, entry.editor_line)
            self.list.addTopLevelItem(row)
        self._fit_height()

    def _fit_height(self) -> None:
        """As tall as its rows, up to LOG_ROWS: one error must not take the editor's lines."""
        rows = min(max(1, len(self._entries)), LOG_ROWS)
        row = self.list.sizeHintForRow(0) if self._entries else -1
        row = row if row > 0 else self.list.fontMetrics().height() + 6
        frame = 2 * self.list.frameWidth()
        self.list.setFixedHeight(rows * row + self.list.header().sizeHint().height() + frame)

    def _chosen(self, row: QTreeWidgetItem, _column: int = 0) -> None:
        line = row.data(0, Qt.ItemDataRole.UserRole)
        if line:
            self.line_chosen.emit(int(line))
