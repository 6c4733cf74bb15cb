"""The LaTeX source editor of the review pane: highlighting, line numbers, find and replace,
spell checking of the prose (a wavy underline; right-click for suggestions).

`EditorPanel` is the one widget to put in a layout: a `LatexEditor` (`.editor`)
with its `FindBar` (`.find_bar`, hidden until Ctrl+F / Ctrl+H) under it.
Every colour comes from the widget's palette, so the editor stays readable in
light and dark mode and follows a theme change while it is open.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from functools import partial

from PySide6.QtCore import QEvent, QObject, QPointF, QRect, QRectF, QSize, Qt, QTimer, Signal
from PySide6.QtGui import (
    QAction,
    QColor,
    QContextMenuEvent,
    QFont,
    QFontDatabase,
    QHelpEvent,
    QKeyEvent,
    QKeySequence,
    QPainter,
    QPaintEvent,
    QPalette,
    QPen,
    QPolygonF,
    QResizeEvent,
    QShortcut,
    QSyntaxHighlighter,
    QTextBlock,
    QTextCharFormat,
    QTextCursor,
    QTextDocument,
    QTextFormat,
)
from PySide6.QtWidgets import (
    QCheckBox,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QMenu,
    QPlainTextEdit,
    QPushButton,
    QTextEdit,
    QToolButton,
    QToolTip,
    QVBoxLayout,
    QWidget,
)

from labwright.core.report.review import spelling

TAB_WIDTH = 2  # spaces a Tab inserts: LaTeX sources in the templates indent by two
SPELL_PAUSE_MS = 500  # a word being typed is judged once typing pauses this long

# Environments whose body is math: their content gets the math format.
MATH_ENVIRONMENTS = (
    "equation",
    "equation*",
    "align",
    "align*",
    "gather",
    "gather*",
    "multline",
    "multline*",
    "flalign",
    "flalign*",
    "alignat",
    "alignat*",
    "eqnarray",
    "eqnarray*",
    "displaymath",
    "math",
)

# Block states: the mode a line ends in, so the next line starts in it.
NORMAL = 0
IN_BRACKET = 1  # \[ ... \]
IN_PAREN = 2  # \( ... \)
IN_DOLLAR = 3  # $ ... $
IN_DOUBLE_DOLLAR = 4  # $$ ... $$
IN_ENVIRONMENT = 16  # 16 + i: inside \begin{MATH_ENVIRONMENTS[i]}
# A block's state holds the colouring's state in its low bits and, above them, the spell
# checker's (core/report/review/spelling.py): math or verbatim going on to the next line.
SPELL_SHIFT = 5
_LATEX_STATE = (1 << SPELL_SHIFT) - 1

# \name, \name*, \<one char>, or a lone backslash at the end of a line (mid-typing)
_COMMAND = re.compile(r"\\(?:[A-Za-z@]+\*?|.)?", re.DOTALL)
_ENV_ARGUMENT = re.compile(r"\s*\{([^{}]*)\}")
_TODO = re.compile(r"TODO|FIXME|待补充")  # the markers the open-items list also looks for


def _open_environment(state: int) -> str | None:
    """The math environment a block state is inside, if any."""
    return MATH_ENVIRONMENTS[state - IN_ENVIRONMENT] if state >= IN_ENVIRONMENT else None


def is_dark(palette: QPalette) -> bool:
    """Whether text is drawn on a dark base (dark mode)."""
    return palette.color(QPalette.ColorGroup.Active, QPalette.ColorRole.Base).lightnessF() < 0.5


def luminance(c: QColor) -> float:
    """WCAG relative luminance, 0 (black) to 1 (white)."""

    def channel(v: float) -> float:
        return v / 12.92 if v <= 0.03928 else ((v + 0.055) / 1.055) ** 2.4

    return 0.2126 * channel(c.redF()) + 0.7152 * channel(c.greenF()) + 0.0722 * channel(c.blueF())


def contrast(a: QColor, b: QColor) -> float:
    """WCAG contrast ratio, 1 to 21; 4.5 is the bar for normal text."""
    hi, lo = sorted((luminance(a), luminance(b)), reverse=True)
    return (hi + 0.05) / (lo + 0.05)


def _tone(hue: int, saturation: float, base: QColor) -> QColor:
    """A colour of `hue` that reads on `base`: light variants on dark, dark ones on light."""
    dark = base.lightnessF() < 0.5
    lightness = 0.72 if dark else 0.36
    colour = QColor.fromHslF(hue / 360, saturation, lightness)
    # hues differ in brightness (green is far brighter than blue): move away from the
    # base until the contrast is good, whatever the palette
    while contrast(colour, base) < 4.5 and 0.05 < lightness < 0.95:
        lightness += 0.03 if dark else -0.03
        colour = QColor.fromHslF(hue / 360, saturation, lightness)
    return colour


def mix(a: QColor, b: QColor, weight: float) -> QColor:
    """`weight` of `a` and the rest of `b`."""
    return QColor.fromRgbF(
        a.redF() * weight + b.redF() * (1 - weight),
        a.greenF() * weight + b.greenF() * (1 - weight),
        a.blueF() * weight + b.blueF() * (1 - weight),
    )


def latex_formats(palette: QPalette) -> dict[str, QTextCharFormat]:
    """The highlighter's formats for a palette: command, environment, math, comment, todo."""
    dark = is_dark(palette)
    base = palette.color(QPalette.ColorRole.Base)
    text = palette.color(QPalette.ColorRole.Text)
    formats = {name: QTextCharFormat() for name in ("command", "environment", "math", "comment")}
    formats["command"].setForeground(_tone(215, 0.70, base))
    formats["environment"].setForeground(_tone(285, 0.55, base))
    formats["environment"].setFontWeight(QFont.Weight.DemiBold)
    formats["math"].setForeground(_tone(145, 0.60, base))
    # a comment is text pushed toward the background: quieter, still easily read
    formats["comment"].setForeground(mix(text, base, 0.62))
    formats["comment"].setFontItalic(True)
    todo = QTextCharFormat()
    todo.setForeground(_tone(25, 0.95, base))
    todo.setFontWeight(QFont.Weight.Bold)
    marker = QColor.fromHslF(45 / 360, 1.0, 0.5)
    marker.setAlphaF(0.22 if dark else 0.30)
    todo.setBackground(marker)
    formats["todo"] = todo
    misspelt = QTextCharFormat()
    misspelt.setUnderlineStyle(QTextCharFormat.UnderlineStyle.SpellCheckUnderline)
    misspelt.setUnderlineColor(_tone(0, 0.85, base))
    formats["misspelt"] = misspelt
    return formats


def spelling_state(block_state: int) -> int:
    """The spell checker's state in a block's user state (-1: never highlighted)."""
    return block_state >> SPELL_SHIFT if block_state >= 0 else spelling.PROSE


class LatexHighlighter(QSyntaxHighlighter):
    """Commands, environment names, math (inline and multi-line display), comments, TODO markers."""

    def __init__(self, document: QTextDocument, palette: QPalette | None = None) -> None:
        super().__init__(document)
        self._formats = latex_formats(palette or QPalette())
        self.speller: spelling.Speller | None = None  # set_speller turns spell checking on
        # (block number, position in it) of the word being typed: not judged until it is
        # finished. A change of underline re-lays out and repaints the whole view, which
        # on every keystroke of a word is what makes typing feel slow.
        self.typing_at: Callable[[], tuple[int, int]] | None = None

    def set_palette(self, palette: QPalette) -> None:
        """Recolour for a new palette (e.g. the system switched to dark mode)."""
        self._formats = latex_formats(palette)
        self.rehighlight()

    def format_for(self, name: str) -> QTextCharFormat:
        return QTextCharFormat(self._formats[name])

    def set_speller(self, speller: spelling.Speller | None) -> None:
        self.speller = speller
        self.rehighlight()

    def misspelt_at(self, block: QTextBlock, position: int) -> spelling.Word | None:
        """The misspelt word of `block` under `position` (in the block), if any."""
        if self.speller is None:
            return None
        previous = block.previous()
        state = spelling_state(previous.userState()) if previous.isValid() else spelling.PROSE
        words, _ = spelling.prose_words(block.text(), state)
        return next(
            (w for w in words if w.start <= position <= w.end and self.speller.is_misspelt(w.text)),
            None,
        )

    def _underline_misspelt(self, text: str, previous: int) -> int:
        """Underline the misspelt prose words of this block; the spell state it ends in."""
        words, state = spelling.prose_words(text, spelling_state(previous))
        assert self.speller is not None
        typing = self.typing_at() if self.typing_at is not None else None
        if typing is not None and typing[0] == self.currentBlock().blockNumber():
            words = [w for w in words if not w.start <= typing[1] <= w.end]
        for word in self.speller.misspelt(words):
            for pos in range(word.start, word.end):  # over whatever colour is there
                underlined = self.format(pos)
                underlined.setUnderlineStyle(QTextCharFormat.UnderlineStyle.SpellCheckUnderline)
                underlined.setUnderlineColor(self._formats["misspelt"].underlineColor())
                self.setFormat(pos, 1, underlined)
        return state

    def highlightBlock(self, text: str) -> None:
        previous = self.previousBlockState()
        state = max(previous & _LATEX_STATE if previous >= 0 else NORMAL, NORMAL)
        if not text.strip() and state in (IN_DOLLAR, IN_DOUBLE_DOLLAR):
            state = NORMAL  # a paragraph break ends a runaway $: one stray $ must not tint the rest
        math: list[tuple[int, int]] = []  # spans of math, painted first
        marks: list[tuple[int, int, str]] = []  # commands, names, comments, painted over math
        math_from = 0 if state != NORMAL else -1
        i, n = 0, len(text)
        while i < n:
            ch = text[i]
            if ch == "%":  # `\%` never gets here: the backslash branch consumes it
                marks.append((i, n - i, "comment"))
                break
            if ch == "\\":
                token = _COMMAND.match(text, i)
                end = token.end() if token else i + 1  # the pattern matches any backslash
                name = token.group() if token else "\\"
                if state == NORMAL and name in ("\\[", "\\("):
                    state, math_from = (IN_BRACKET if name == "\\[" else IN_PAREN), i
                elif (state, name) in ((IN_BRACKET, "\\]"), (IN_PAREN, "\\)")):
                    math.append((math_from, end))
                    state = NORMAL
                elif name in ("\\begin", "\\end") and (arg := _ENV_ARGUMENT.match(text, end)):
                    env, was_normal = arg.group(1).strip(), state == NORMAL
                    if was_normal and name == "\\begin" and env in MATH_ENVIRONMENTS:
                        state = IN_ENVIRONMENT + MATH_ENVIRONMENTS.index(env)
                        math_from = arg.end()
                    elif name == "\\end" and env == _open_environment(state):
                        math.append((math_from, i))
                        state = NORMAL
                    if was_normal or state == NORMAL:  # \begin{aligned} inside math stays math
                        marks.append((i, end - i, "command"))
                    marks.append((arg.start(1), len(arg.group(1)), "environment"))
                    end = arg.end()
                elif state == NORMAL and name != "\\\\":  # a line break \\ is not a command
                    marks.append((i, end - i, "command"))
                i = end
                continue
            if ch == "$":
                double = text.startswith("$$", i)
                step = 2 if double else 1
                if state == NORMAL:
                    state, math_from = (IN_DOUBLE_DOLLAR if double else IN_DOLLAR), i
                elif state == IN_DOLLAR or (state == IN_DOUBLE_DOLLAR and double):
                    math.append((math_from, i + step))
                    state = NORMAL
                i += step
                continue
            i += 1
        if state != NORMAL:  # math goes on past this line (up to a comment, which is not math)
            stop = next((start for start, _, kind in marks if kind == "comment"), n)
            math.append((math_from, stop))
        for start, stop in math:
            self.setFormat(start, stop - start, self._formats["math"])
        for start, length, kind in marks:
            self.setFormat(start, length, self._formats[kind])
        for todo in _TODO.finditer(text):
            self.setFormat(todo.start(), todo.end() - todo.start(), self._formats["todo"])
        spell_state = spelling.PROSE
        if self.speller is not None:
            spell_state = self._underline_misspelt(text, previous)
        self.setCurrentBlockState(state | (spell_state << SPELL_SHIFT))


class LineNumberArea(QWidget):
    """The gutter left of the editor (the classic pattern of Qt's Code Editor example)."""

    def __init__(self, editor: LatexEditor) -> None:
        super().__init__(editor)
        self._editor = editor

    def sizeHint(self) -> QSize:
        return QSize(self._editor.line_number_area_width(), 0)

    def paintEvent(self, event: QPaintEvent) -> None:
        self._editor.paint_line_numbers(event)

    def event(self, event: QEvent) -> bool:
        if event.type() == QEvent.Type.ToolTip and isinstance(event, QHelpEvent):
            text = self._editor.mark_text(self._editor.line_at(event.pos().y()))
            if text:
                QToolTip.showText(event.globalPos(), text, self)
            else:
                QToolTip.hideText()
                event.ignore()
            return True
        return super().event(event)


class LatexEditor(QPlainTextEdit):
    """The report's LaTeX source: highlighting, line numbers, current line, Tab as spaces."""

    text_edited = Signal()  # the person changed the text (never for set_text)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._quiet = False  # set while the text changes without the person editing it
        self._find_bar: FindBar | None = None  # set by the FindBar made for this editor
        self.context_menu: QMenu | None = None  # the right-click menu while it is open
        # the word typed last is spell checked once typing pauses (see typing_at)
        self._spell_pause = QTimer(self, singleShot=True, interval=SPELL_PAUSE_MS)
        self._spell_pause.timeout.connect(self._check_typed_word)
        self._typed_block = -1
        # compile marks: a cursor at the start of each marked line follows that line
        # through edits above it, until the next compile replaces the marks
        self._marks: list[tuple[QTextCursor, str, str]] = []
        self.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
        # soft wrap: report prose is long lines, and sideways scrolling loses the reader
        self.setLineWrapMode(QPlainTextEdit.LineWrapMode.WidgetWidth)
        self.setTabStopDistance(self.fontMetrics().horizontalAdvance(" ") * TAB_WIDTH)
        self.highlighter = LatexHighlighter(self.document(), self.palette())
        self._rehighlight()  # now, not at Qt's deferred first pass that would look like an edit
        self._gutter = LineNumberArea(self)
        self.blockCountChanged.connect(self._update_gutter_width)
        self.updateRequest.connect(self._update_gutter)
        self.cursorPositionChanged.connect(self._highlight_current_line)
        self.textChanged.connect(self._on_text_changed)
        self._update_gutter_width()
        self._highlight_current_line()

    # --- the API of the review pane

    def set_text(self, text: str) -> None:
        """Load `text`: not an edit, so no text_edited and nothing to undo."""
        self._marks = []  # they were about the text this replaces
        with self._not_an_edit():
            self.setPlainText(text)
        self.document().clearUndoRedoStacks()
        self.document().setModified(False)

    def text(self) -> str:
        return self.toPlainText()

    def go_to_line(self, line: int) -> None:
        """Put the cursor at the start of `line` (1-based, clamped), centred, and focus."""
        line = min(max(line, 1), self.blockCount())
        self.setTextCursor(QTextCursor(self.document().findBlockByNumber(line - 1)))
        self.centerCursor()
        self.setFocus(Qt.FocusReason.OtherFocusReason)

    def current_line(self) -> int:
        return self.textCursor().blockNumber() + 1

    def set_marks(self, marks: Iterable[tuple[int, str, str]]) -> None:
        """The gutter's marks: (1-based line, "error" or "warning", message) each; lines
        out of range are left out. A mark stays with its line as the text is edited."""
        self._marks = []
        for line, severity, message in marks:
            if 1 <= line <= self.blockCount():
                cursor = QTextCursor(self.document().findBlockByNumber(line - 1))
                self._marks.append((cursor, severity, message))
        self._highlight_current_line()

    def marks(self) -> dict[int, list[tuple[str, str]]]:
        """The marked lines now: line -> [(severity, message), ...]."""
        out: dict[int, list[tuple[str, str]]] = {}
        for cursor, severity, message in self._marks:
            out.setdefault(cursor.blockNumber() + 1, []).append((severity, message))
        return out

    def mark_text(self, line: int | None) -> str:
        """The tooltip of a line's mark: its messages, errors first; "" when unmarked."""
        found = sorted(self.marks().get(line or 0, []), key=lambda m: m[0] != "error")
        return "\n".join(message for _, message in found)

    def line_at(self, y: int) -> int | None:
        """The 1-based line drawn at height `y` of the viewport (and gutter), if any."""
        block = self.firstVisibleBlock()
        while block.isValid():
            geometry = self.blockBoundingGeometry(block).translated(self.contentOffset())
            if geometry.top() <= y < geometry.bottom():
                return block.blockNumber() + 1
            if geometry.top() > y:
                return None
            block = block.next()
        return None

    def set_spell_language(self, language: str | None) -> None:
        """Check the prose's spelling in English and `language` (None: no checking)."""
        current = self.highlighter.speller
        if current is not None and current.language == language:
            return  # the same dictionaries: no need to go over the text again
        speller = spelling.Speller(language) if language else None
        with self._not_an_edit():
            self.highlighter.set_speller(speller)

    def show_find(self, replace: bool = False) -> None:
        """Open the find (or find and replace) bar of the panel this editor is in."""
        if self._find_bar is not None:
            self._find_bar.open(replace)

    # --- typing

    @contextmanager
    def _not_an_edit(self) -> Iterator[None]:
        self._quiet = True
        try:
            yield
        finally:
            self._quiet = False

    def _rehighlight(self) -> None:
        # re-highlighting ends in an edit block, which Qt reports as textChanged
        with self._not_an_edit():
            self.highlighter.set_palette(self.palette())

    def _on_text_changed(self) -> None:
        if not self._quiet:
            self.text_edited.emit()

    def keyPressEvent(self, event: QKeyEvent) -> None:
        if self.highlighter.speller is None or not event.text():
            self._handle_key(event)
            return
        self.highlighter.typing_at = self._cursor_place
        try:
            self._handle_key(event)
        finally:
            self.highlighter.typing_at = None
        self._typed_block = self.textCursor().blockNumber()
        self._spell_pause.start()

    def _cursor_place(self) -> tuple[int, int]:
        # asked while the key is handled: the cursor is already past the inserted text
        cursor = self.textCursor()
        return cursor.blockNumber(), cursor.positionInBlock()

    def _check_typed_word(self) -> None:
        block = self.document().findBlockByNumber(self._typed_block)
        if block.isValid():
            with self._not_an_edit():
                self.highlighter.rehighlightBlock(block)

    def _handle_key(self, event: QKeyEvent) -> None:
        key, mods = event.key(), event.modifiers()
        if key == Qt.Key.Key_Tab and mods == Qt.KeyboardModifier.NoModifier:
            # spaces, never a tab character: LaTeX does not care and diffs stay aligned
            cursor = self.textCursor()
            cursor.insertText(" " * (TAB_WIDTH - cursor.positionInBlock() % TAB_WIDTH))
            self.setTextCursor(cursor)
            return
        if key in (Qt.Key.Key_Return, Qt.Key.Key_Enter) and not (
            mods & ~Qt.KeyboardModifier.KeypadModifier
        ):
            # keep the indentation of the line, as inside an itemize
            cursor = self.textCursor()
            line = cursor.block().text()
            cursor.insertText("\n" + line[: len(line) - len(line.lstrip(" \t"))])
            self.setTextCursor(cursor)
            self.ensureCursorVisible()
            return
        super().keyPressEvent(event)

    # --- spelling: the right-click menu

    def contextMenuEvent(self, event: QContextMenuEvent) -> None:
        menu = self.createStandardContextMenu(event.pos())
        menu.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        self._add_spelling_actions(menu, self.cursorForPosition(event.pos()))
        menu.aboutToHide.connect(self._forget_menu)
        self.context_menu = menu
        menu.popup(event.globalPos())

    def _forget_menu(self) -> None:
        self.context_menu = None

    def _add_spelling_actions(self, menu: QMenu, cursor: QTextCursor) -> None:
        """Up to five suggestions, Add to Dictionary and Ignore, above the standard actions."""
        speller = self.highlighter.speller
        word = self.highlighter.misspelt_at(cursor.block(), cursor.positionInBlock())
        if speller is None or word is None:
            return
        standard = menu.actions()

        def put(action: QAction) -> None:  # above the standard actions
            if standard:
                menu.insertAction(standard[0], action)
            else:
                menu.addAction(action)

        start = cursor.block().position() + word.start
        suggestions = speller.suggestions(word.text)
        for suggestion in suggestions:
            action = QAction(suggestion, menu)
            bold = action.font()
            bold.setBold(True)
            action.setFont(bold)
            action.triggered.connect(partial(self._replace_word, start, word.text, suggestion))
            put(action)
        if not suggestions:
            none = QAction(self.tr("No suggestions"), menu)
            none.setEnabled(False)
            put(none)
        add = QAction(self.tr("Add “{0}” to Dictionary").format(word.text), menu)
        add.triggered.connect(partial(self._accept_word, word.text, True))
        ignore = QAction(self.tr("Ignore “{0}”").format(word.text), menu)
        ignore.triggered.connect(partial(self._accept_word, word.text, False))
        put(add)
        put(ignore)
        if standard:
            menu.insertSeparator(standard[0])

    def _replace_word(self, start: int, word: str, replacement: str) -> None:
        cursor = QTextCursor(self.document())
        cursor.setPosition(start)
        cursor.setPosition(start + len(word), QTextCursor.MoveMode.KeepAnchor)
        if cursor.selectedText() != word:  # the text changed since the menu opened
            return
        cursor.insertText(replacement)  # an edit like typing: undoable, saved
        self.setTextCursor(cursor)

    def _accept_word(self, word: str, keep: bool) -> None:
        """Add the word to the person's dictionary (`keep`) or ignore it this session."""
        speller = self.highlighter.speller
        if speller is None:
            return
        if keep:
            speller.add(word)
        else:
            speller.ignore(word)
        with self._not_an_edit():
            self.highlighter.rehighlight()

    # --- palette

    def changeEvent(self, event: QEvent) -> None:
        super().changeEvent(event)
        if event.type() == QEvent.Type.PaletteChange:
            self._rehighlight()
            self._highlight_current_line()
        elif event.type() == QEvent.Type.FontChange:
            self.setTabStopDistance(self.fontMetrics().horizontalAdvance(" ") * TAB_WIDTH)
            self._update_gutter_width()

    def _highlight_current_line(self) -> None:
        selection = QTextEdit.ExtraSelection()
        colour = QColor(self.palette().color(QPalette.ColorRole.Highlight))
        colour.setAlphaF(0.18 if is_dark(self.palette()) else 0.10)
        selection.format.setBackground(colour)
        selection.format.setProperty(QTextFormat.Property.FullWidthSelection, True)
        selection.cursor = self.textCursor()
        selection.cursor.clearSelection()
        error_tint = QColor(self._mark_colour("error"))
        error_tint.setAlphaF(0.16 if is_dark(self.palette()) else 0.10)
        errors = []
        for cursor, severity, _ in self._marks:
            if severity == "error":
                marked = QTextEdit.ExtraSelection()
                marked.format.setBackground(error_tint)
                marked.format.setProperty(QTextFormat.Property.FullWidthSelection, True)
                marked.cursor = QTextCursor(cursor.block())
                errors.append(marked)
        self.setExtraSelections([*errors, selection])
        self._gutter.update()  # the current line's number is drawn stronger

    # --- the line-number gutter

    def _mark_width(self) -> int:
        return self.fontMetrics().height()

    def _mark_colour(self, severity: str) -> QColor:
        base = self.palette().color(QPalette.ColorRole.Base)
        return _tone(0, 0.80, base) if severity == "error" else _tone(38, 0.95, base)

    def line_number_area_width(self) -> int:
        digits = max(2, len(str(self.blockCount())))
        # the mark column always there: a compile that marks a line must not shift the text
        return self._mark_width() + 16 + self.fontMetrics().horizontalAdvance("9") * digits

    def _update_gutter_width(self, _count: int = 0) -> None:
        self.setViewportMargins(self.line_number_area_width(), 0, 0, 0)

    def _update_gutter(self, rect: QRect, dy: int) -> None:
        if dy:
            self._gutter.scroll(0, dy)
        else:
            self._gutter.update(0, rect.y(), self._gutter.width(), rect.height())
        if rect.contains(self.viewport().rect()):
            self._update_gutter_width()

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        r = self.contentsRect()
        self._gutter.setGeometry(
            QRect(r.left(), r.top(), self.line_number_area_width(), r.height())
        )

    def paint_line_numbers(self, event: QPaintEvent) -> None:
        palette = self.palette()
        painter = QPainter(self._gutter)
        painter.fillRect(event.rect(), palette.color(QPalette.ColorRole.Window))
        painter.setFont(self.font())
        dim = mix(
            palette.color(QPalette.ColorRole.Text), palette.color(QPalette.ColorRole.Base), 0.5
        )
        strong = palette.color(QPalette.ColorRole.Text)
        current = self.textCursor().blockNumber()
        width, height = self._gutter.width() - 12, self.fontMetrics().height()
        marked: dict[int, str] = {}
        for cursor, severity, _ in self._marks:
            if marked.get(cursor.blockNumber()) != "error":
                marked[cursor.blockNumber()] = severity
        block = self.firstVisibleBlock()
        number = block.blockNumber()
        top = round(self.blockBoundingGeometry(block).translated(self.contentOffset()).top())
        bottom = top + round(self.blockBoundingRect(block).height())
        while block.isValid() and top <= event.rect().bottom():
            if block.isVisible() and bottom >= event.rect().top():
                painter.setPen(strong if number == current else dim)
                align = Qt.AlignmentFlag.AlignRight
                painter.drawText(0, top, width, height, align, str(number + 1))
                if number in marked:
                    self._paint_mark(painter, marked[number], top, height)
            block = block.next()
            top = bottom
            bottom = top + round(self.blockBoundingRect(block).height())
            number += 1
        painter.end()

    def _paint_mark(self, painter: QPainter, severity: str, top: int, height: int) -> None:
        """A red disc with a cross for an error, an amber triangle for a warning."""
        size = max(8, height - 4)
        x, y = 3, top + (height - size) / 2
        colour = self._mark_colour(severity)
        painter.save()
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(colour)
        if severity == "error":
            painter.drawEllipse(QRectF(x, y, size, size))
            pen = QPen(QColor("white"), max(1.5, size / 7))
            painter.setPen(pen)
            inset = size * 0.3
            painter.drawLine(
                QPointF(x + inset, y + inset), QPointF(x + size - inset, y + size - inset)
            )
            painter.drawLine(
                QPointF(x + size - inset, y + inset), QPointF(x + inset, y + size - inset)
            )
        else:
            painter.drawPolygon(
                QPolygonF(
                    [QPointF(x + size / 2, y), QPointF(x + size, y + size), QPointF(x, y + size)]
                )
            )
        painter.restore()


class FindBar(QWidget):
    """Find and replace under the editor: Enter / Shift+Enter step, Esc closes."""

    def __init__(self, editor: LatexEditor, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._editor = editor
        editor._find_bar = self
        self.find_edit = QLineEdit()
        self.find_edit.setClearButtonEnabled(True)
        self.previous_button = QToolButton()
        self.previous_button.setArrowType(Qt.ArrowType.UpArrow)
        self.next_button = QToolButton()
        self.next_button.setArrowType(Qt.ArrowType.DownArrow)
        self.case_check = QCheckBox()
        self.count_label = QLabel()
        self.count_label.setMinimumWidth(self.fontMetrics().horizontalAdvance("0000 of 0000"))
        self.close_button = QToolButton()
        self.close_button.setText("×")
        self.close_button.setAutoRaise(True)
        self.replace_edit = QLineEdit()
        self.replace_button = QPushButton()
        self.replace_all_button = QPushButton()

        layout = QGridLayout(self)
        layout.setContentsMargins(6, 4, 6, 4)
        layout.setVerticalSpacing(4)
        layout.addWidget(self.find_edit, 0, 0)
        row = QHBoxLayout()
        for w in (self.previous_button, self.next_button, self.case_check):
            row.addWidget(w)
        row.addSpacing(8)
        row.addWidget(self.count_label)
        row.addStretch(1)
        row.addWidget(self.close_button)
        layout.addLayout(row, 0, 1)
        layout.addWidget(self.replace_edit, 1, 0)
        replace_row = QHBoxLayout()
        replace_row.addWidget(self.replace_button)
        replace_row.addWidget(self.replace_all_button)
        replace_row.addStretch(1)
        layout.addLayout(replace_row, 1, 1)
        layout.setColumnStretch(0, 3)
        layout.setColumnStretch(1, 2)

        self.find_edit.textEdited.connect(self._search_as_typed)
        self.previous_button.clicked.connect(self.find_previous)
        self.next_button.clicked.connect(self.find_next)
        self.case_check.toggled.connect(self._search_as_typed)
        self.close_button.clicked.connect(self.close_bar)
        self.replace_button.clicked.connect(self.replace)
        self.replace_all_button.clicked.connect(self.replace_all)
        self.find_edit.installEventFilter(self)
        self.replace_edit.installEventFilter(self)
        # recount after edits, once typing pauses: counting on every key would be wasted work
        self._recount = QTimer(self)
        self._recount.setSingleShot(True)
        self._recount.setInterval(150)
        self._recount.timeout.connect(self._update_count)
        editor.textChanged.connect(self._schedule_recount)
        self.retranslate()
        self.hide()

    def retranslate(self) -> None:
        self.find_edit.setPlaceholderText(self.tr("Find"))
        self.previous_button.setToolTip(self.tr("Previous match (Shift+Enter)"))
        self.next_button.setToolTip(self.tr("Next match (Enter)"))
        self.case_check.setText(self.tr("Match case"))
        self.close_button.setToolTip(self.tr("Close (Esc)"))
        self.replace_edit.setPlaceholderText(self.tr("Replace with"))
        self.replace_button.setText(self.tr("Replace"))
        self.replace_all_button.setText(self.tr("Replace All"))
        self._update_count()

    # --- opening and closing

    def open(self, replace: bool = False) -> None:
        """Show the bar (with the replace row when `replace`), the selection as the search."""
        selected = self._editor.textCursor().selectedText()
        if selected and "\u2029" not in selected:  # one line of selection: what to look for
            self.find_edit.setText(selected)
        self.replace_edit.setVisible(replace)
        self.replace_button.setVisible(replace)
        self.replace_all_button.setVisible(replace)
        self.show()
        self.find_edit.setFocus(Qt.FocusReason.ShortcutFocusReason)
        self.find_edit.selectAll()
        self._update_count()

    def close_bar(self) -> None:
        self.hide()
        self._editor.setFocus(Qt.FocusReason.OtherFocusReason)

    def keyPressEvent(self, event: QKeyEvent) -> None:
        if event.key() == Qt.Key.Key_Escape:
            self.close_bar()
            return
        super().keyPressEvent(event)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        # Enter in a QLineEdit reaches its parent too; take it here so it acts once
        if (
            event.type() == QEvent.Type.KeyPress
            and isinstance(event, QKeyEvent)
            and event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter)
        ):
            if watched is self.replace_edit:
                self.replace()
            elif event.modifiers() & Qt.KeyboardModifier.ShiftModifier:
                self.find_previous()
            else:
                self.find_next()
            return True
        return super().eventFilter(watched, event)

    # --- finding

    def _flags(self, backward: bool = False) -> QTextDocument.FindFlag:
        flags = QTextDocument.FindFlag(0)
        if self.case_check.isChecked():
            flags |= QTextDocument.FindFlag.FindCaseSensitively
        if backward:
            flags |= QTextDocument.FindFlag.FindBackward
        return flags

    def _find_from(self, cursor: QTextCursor, backward: bool) -> bool:
        """Select the next match from `cursor`, wrapping around the document's end."""
        needle = self.find_edit.text()
        found = QTextCursor()
        if needle:
            doc = self._editor.document()
            found = doc.find(needle, cursor, self._flags(backward))
            if found.isNull():
                start = QTextCursor(doc)
                if backward:
                    start.movePosition(QTextCursor.MoveOperation.End)
                found = doc.find(needle, start, self._flags(backward))
            if not found.isNull():
                self._editor.setTextCursor(found)
                self._editor.centerCursor()
        if found.isNull():
            # the last partial match must not stay selected: the next key typed would replace it
            here = self._editor.textCursor()
            here.setPosition(here.selectionStart())
            self._editor.setTextCursor(here)
        self._update_count()
        return not found.isNull()

    def find_next(self) -> bool:
        return self._find_from(self._editor.textCursor(), backward=False)

    def find_previous(self) -> bool:
        return self._find_from(self._editor.textCursor(), backward=True)

    def _search_as_typed(self) -> None:
        # from the start of the selection, so the match under the cursor stays selected
        cursor = self._editor.textCursor()
        cursor.setPosition(cursor.selectionStart())
        self._find_from(cursor, backward=False)

    def _matches(self) -> list[tuple[int, int]]:
        needle = self.find_edit.text()
        doc = self._editor.document()
        found: list[tuple[int, int]] = []
        cursor = doc.find(needle, 0, self._flags()) if needle else QTextCursor()
        while not cursor.isNull():
            found.append((cursor.selectionStart(), cursor.selectionEnd()))
            cursor = doc.find(needle, cursor, self._flags())
        return found

    def _schedule_recount(self) -> None:
        if self.isVisible():
            self._recount.start()

    def _update_count(self) -> None:
        if not self.find_edit.text():
            self.count_label.clear()
            return
        matches = self._matches()
        if not matches:
            self.count_label.setText(self.tr("No matches"))
            return
        cursor = self._editor.textCursor()
        here = (cursor.selectionStart(), cursor.selectionEnd())
        if here in matches:
            self.count_label.setText(
                self.tr("{0} of {1}").format(matches.index(here) + 1, len(matches))
            )
        else:
            self.count_label.setText(self.tr("%n match(es)", "", len(matches)))

    # --- replacing

    def _selection_is_match(self, cursor: QTextCursor) -> bool:
        selected, needle = cursor.selectedText(), self.find_edit.text()
        if not needle or not cursor.hasSelection():
            return False
        if self.case_check.isChecked():
            return selected == needle
        return selected.casefold() == needle.casefold()

    def replace(self) -> None:
        """Replace the selected match, then select the next one."""
        cursor = self._editor.textCursor()
        if self._selection_is_match(cursor):
            cursor.insertText(self.replace_edit.text())
            self._editor.setTextCursor(cursor)
        self.find_next()

    def replace_all(self) -> int:
        """Replace every match as one undo step; how many were replaced."""
        needle, replacement = self.find_edit.text(), self.replace_edit.text()
        if not needle:
            return 0
        doc = self._editor.document()
        count = 0
        edit = QTextCursor(doc)
        edit.beginEditBlock()  # the whole replacement undoes with one Ctrl+Z
        found = doc.find(needle, 0, self._flags())
        while not found.isNull():
            found.insertText(replacement)
            count += 1
            # on from the end of the inserted text: a replacement containing the needle is not re-found
            found = doc.find(needle, found, self._flags())
        edit.endEditBlock()
        self._recount.stop()
        if count:
            self.count_label.setText(self.tr("%n replaced", "", count))
        else:
            self.count_label.setText(self.tr("No matches"))
        return count


class EditorPanel(QWidget):
    """The editor with its find bar under it: the one widget the review pane lays out."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.editor = LatexEditor(self)
        self.find_bar = FindBar(self.editor, self)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(0)
        layout.addWidget(self.editor, 1)
        layout.addWidget(self.find_bar)
        context = Qt.ShortcutContext.WidgetWithChildrenShortcut
        # Cmd+H hides the whole app on macOS; Cmd+Alt+F is the usual replace shortcut there
        replace_keys = QKeySequence("Ctrl+Alt+F" if sys.platform == "darwin" else "Ctrl+H")
        # actions, not bare shortcuts: the window's Edit menu lists these same objects, and
        # their keys act only while the focus is in this panel
        self.find_action = QAction(self)
        self.find_action.setShortcut(QKeySequence(QKeySequence.StandardKey.Find))
        self.replace_action = QAction(self)
        self.replace_action.setShortcut(replace_keys)
        for action in (self.find_action, self.replace_action):
            action.setShortcutContext(context)
            self.addAction(action)
        self._close_shortcut = QShortcut(QKeySequence(Qt.Key.Key_Escape), self)
        self._close_shortcut.setContext(context)
        self.find_action.triggered.connect(self._open_find)
        self.replace_action.triggered.connect(self._open_replace)
        # Esc closes the bar from the editor too, but only while the bar is open
        self._close_shortcut.activated.connect(self.find_bar.close_bar)
        self._close_shortcut.setEnabled(False)
        self.retranslate()
        self.find_bar.installEventFilter(self)

    def retranslate(self) -> None:
        self.find_action.setText(self.tr("&Find…"))
        self.replace_action.setText(self.tr("Find and &Replace…"))
        self.find_bar.retranslate()

    def _open_find(self) -> None:
        self.find_bar.open(replace=False)

    def _open_replace(self) -> None:
        self.find_bar.open(replace=True)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if watched is self.find_bar and event.type() in (QEvent.Type.Show, QEvent.Type.Hide):
            self._close_shortcut.setEnabled(event.type() == QEvent.Type.Show)
        return super().eventFilter(watched, event)
