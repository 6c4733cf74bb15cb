"""What the person changed: a line diff of the generated draft against their version.

Unified-style rows — old and new line numbers, then `-`, `+` or a space — with
removed lines tinted red and added ones green (translucent over the palette's
base, so both modes read well). Long unchanged runs collapse to a few lines of
context around "… N unchanged lines …"; a summary line comes first.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass

from PySide6.QtCore import QEvent
from PySide6.QtGui import (
    QColor,
    QFont,
    QFontDatabase,
    QPalette,
    QTextBlockFormat,
    QTextCharFormat,
    QTextCursor,
)
from PySide6.QtWidgets import QPlainTextEdit, QWidget

from labwright.gui.editor import is_dark, mix

CONTEXT = 3  # unchanged lines kept around each change
MIN_COLLAPSED = 3  # shorter unchanged runs are shown whole


@dataclass(frozen=True)
class DiffRow:
    kind: str  # "summary", "same", "removed", "added" or "skipped"
    text: str
    old: int | None = None  # 1-based line in the generated draft
    new: int | None = None  # 1-based line in the person's version
    skipped: int = 0  # unchanged lines a "skipped" row stands for


def diff_rows(before: list[str], after: list[str], context: int = CONTEXT) -> list[DiffRow]:
    """The rows of the diff, with unchanged runs collapsed (`skipped` rows carry the count)."""
    rows: list[DiffRow] = []
    if before == after:
        return rows  # nothing to show but the summary
    opcodes = difflib.SequenceMatcher(None, before, after, autojunk=False).get_opcodes()
    for index, (tag, i1, i2, j1, j2) in enumerate(opcodes):
        if tag != "equal":
            rows += [DiffRow("removed", before[i], old=i + 1) for i in range(i1, i2)]
            rows += [DiffRow("added", after[j], new=j + 1) for j in range(j1, j2)]
            continue
        same = [DiffRow("same", before[i1 + k], i1 + k + 1, j1 + k + 1) for k in range(i2 - i1)]
        head = context if index > 0 else 0  # context after the change above
        tail = context if index < len(opcodes) - 1 else 0  # context before the change below
        hidden = len(same) - head - tail
        if hidden < MIN_COLLAPSED:  # a marker standing for a line or two hides nothing
            rows += same
        else:
            rows += [
                *same[:head],
                DiffRow("skipped", "", skipped=hidden),
                *same[len(same) - tail :],
            ]
    return rows


class DiffView(QPlainTextEdit):
    """Read-only diff of the generated draft (before) against the person's version (after)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setReadOnly(True)
        self.setLineWrapMode(QPlainTextEdit.LineWrapMode.NoWrap)
        self.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
        self.document().setUndoRedoEnabled(False)
        self.added = 0
        self.removed = 0
        self.rows: list[DiffRow] = []
        self._texts: tuple[str, str] | None = None

    def show_diff(self, before: str, after: str) -> None:
        """Show what changed from `before` (the generated draft) to `after`."""
        self._texts = (before, after)
        old, new = before.splitlines(), after.splitlines()
        body = diff_rows(old, new)
        self.added = sum(row.kind == "added" for row in body)
        self.removed = sum(row.kind == "removed" for row in body)
        self.rows = [DiffRow("summary", self.summary()), *body]
        self._render(len(str(max(len(old), len(new), 1))))

    def summary(self) -> str:
        if not (self.added or self.removed):
            return self.tr("No changes from the generated draft")
        return self.tr("+{0} −{1} lines").format(self.added, self.removed)

    def after_line_at(self, block_number: int) -> int | None:
        """The line of the person's version a row shows (for jumping to it), if any."""
        if 0 <= block_number < len(self.rows):
            return self.rows[block_number].new
        return None

    def _render(self, width: int) -> None:
        formats = self._formats()
        plain = QTextBlockFormat()
        scroll = self.verticalScrollBar().value()
        self.document().clear()
        cursor = QTextCursor(self.document())
        cursor.beginEditBlock()
        for index, row in enumerate(self.rows):
            block, chars = formats.get(row.kind, (plain, QTextCharFormat()))
            if index:
                cursor.insertBlock(block)
            else:
                cursor.setBlockFormat(block)
            cursor.insertText(self._line(row, width), chars)
        cursor.endEditBlock()
        self.verticalScrollBar().setValue(scroll)

    def _line(self, row: DiffRow, width: int) -> str:
        if row.kind == "summary":
            return row.text
        if row.kind == "skipped":
            return self.tr("… {0} unchanged lines …").format(row.skipped)
        old = "" if row.old is None else str(row.old)
        new = "" if row.new is None else str(row.new)
        sign = {"removed": "-", "added": "+"}.get(row.kind, " ")
        return f"{old.rjust(width)} {new.rjust(width)} {sign} {row.text}"

    def _formats(self) -> dict[str, tuple[QTextBlockFormat, QTextCharFormat]]:
        """Background and text formats per row kind, from the current palette."""
        palette = self.palette()
        dark = is_dark(palette)
        result: dict[str, tuple[QTextBlockFormat, QTextCharFormat]] = {}
        for kind, hue in (("removed", 0), ("added", 130)):
            tint = QColor.fromHslF(hue / 360, 0.75, 0.5)
            tint.setAlphaF(0.26 if dark else 0.18)  # translucent over the base colour
            block = QTextBlockFormat()
            block.setBackground(tint)
            result[kind] = (block, QTextCharFormat())
        summary = QTextCharFormat()
        summary.setFontWeight(QFont.Weight.Bold)
        skipped = QTextCharFormat()
        skipped.setFontItalic(True)
        text, base = palette.color(QPalette.ColorRole.Text), palette.color(QPalette.ColorRole.Base)
        skipped.setForeground(mix(text, base, 0.6))
        band = QTextBlockFormat()
        band.setBackground(palette.color(QPalette.ColorRole.AlternateBase))
        result["summary"] = (QTextBlockFormat(), summary)
        result["skipped"] = (band, skipped)
        return result

    def changeEvent(self, event: QEvent) -> None:
        super().changeEvent(event)
        if event.type() == QEvent.Type.PaletteChange and self._texts is not None:
            self.show_diff(*self._texts)  # the tints are baked into the blocks: redo them
