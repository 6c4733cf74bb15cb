"""The review pane's LaTeX editor, its find bar and the diff view (pytest-qt, offscreen)."""

from __future__ import annotations

import sys

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QPalette, QTextCharFormat
from PySide6.QtWidgets import QApplication

from labwright.gui.diff_view import DiffView
from labwright.gui.editor import IN_BRACKET, NORMAL, EditorPanel, LatexEditor, contrast

REPORT = r"""\documentclass{article}
\begin{document}
\section{Results} % measured on Monday
The period grows as $T = 2\pi\sqrt{L/g}$ and 95\% of runs agree.
\[
  g = \frac{4\pi^2 L}{T^2}
\]
TODO: add the error analysis
\begin{equation}
  E = mc^2
\end{equation}
\end{document}
"""


@pytest.fixture
def panel(qtbot) -> EditorPanel:
    p = EditorPanel()
    qtbot.addWidget(p)
    p.resize(700, 500)
    return p


@pytest.fixture
def editor(panel) -> LatexEditor:
    panel.editor.set_text(REPORT)
    return panel.editor


def format_at(editor: LatexEditor, line: int, column: int) -> QTextCharFormat:
    """The highlighter's format at a (1-based line, 0-based column); empty when unformatted."""
    block = editor.document().findBlockByNumber(line - 1)
    for r in block.layout().formats():
        if r.start <= column < r.start + r.length:
            return QTextCharFormat(r.format)  # a copy: the range owns its format
    return QTextCharFormat()


def colour(fmt: QTextCharFormat) -> str:
    return (
        fmt.foreground().color().name() if fmt.foreground().style() != Qt.BrushStyle.NoBrush else ""
    )


def dark_palette() -> QPalette:
    p = QPalette()
    for role, value in (
        (QPalette.ColorRole.Window, "#2b2b2b"),
        (QPalette.ColorRole.WindowText, "#dcdcdc"),
        (QPalette.ColorRole.Base, "#1e1e1e"),
        (QPalette.ColorRole.AlternateBase, "#262626"),
        (QPalette.ColorRole.Text, "#dcdcdc"),
        (QPalette.ColorRole.Highlight, "#3d6ea8"),
    ):
        p.setColor(role, QColor(value))
    return p


# --- highlighting


def test_commands_comments_math_and_todo_get_distinct_formats(editor):
    command = format_at(editor, 3, 1)  # \section
    comment = format_at(editor, 3, 20)  # % measured...
    math = format_at(editor, 4, 22)  # inside $...$
    todo = format_at(editor, 8, 0)  # TODO
    environment = format_at(editor, 9, 8)  # {equation}
    colours = [colour(f) for f in (command, comment, math, todo, environment)]
    assert all(colours) and len(set(colours)) == 5
    assert comment.fontItalic()
    assert todo.fontWeight() >= 700
    assert colour(format_at(editor, 1, 0)) == colour(command)  # \documentclass
    assert colour(format_at(editor, 4, 0)) == ""  # plain prose stays plain


def test_an_escaped_percent_is_not_a_comment(editor):
    comment = colour(format_at(editor, 3, 20))
    line = editor.document().findBlockByNumber(3).text()
    after_percent = line.index(r"\%") + 3  # " of runs agree."
    assert colour(format_at(editor, 4, after_percent)) != comment
    assert colour(format_at(editor, 4, len(line) - 1)) == ""


def test_display_math_spanning_lines_keeps_the_math_state(editor):
    doc = editor.document()
    math = colour(format_at(editor, 4, 22))
    assert doc.findBlockByNumber(4).userState() == IN_BRACKET  # the line "\["
    assert colour(format_at(editor, 6, 4)) == math  # "g = \frac..." inside \[ ... \]
    assert doc.findBlockByNumber(6).userState() == NORMAL  # "\]" closes it
    assert colour(format_at(editor, 8, 8)) != math  # the TODO line after it is prose
    assert colour(format_at(editor, 10, 2)) == math  # E = mc^2 inside equation


def test_a_comment_inside_display_math_is_still_a_comment(panel):
    panel.editor.set_text("\\[\n  x^2 % squared\n\\]\nafter")
    comment_at = panel.editor.document().findBlockByNumber(1).text().index("%")
    math, comment = format_at(panel.editor, 2, 2), format_at(panel.editor, 2, comment_at)
    assert colour(math) != colour(comment) and comment.fontItalic()
    assert colour(format_at(panel.editor, 4, 0)) == ""


@pytest.mark.parametrize("dark", [False, True], ids=["light", "dark"])
def test_highlighting_is_readable_in_light_and_dark_mode(panel, dark):
    if dark:
        panel.editor.setPalette(dark_palette())
    panel.editor.set_text(REPORT)
    base = panel.editor.palette().color(QPalette.ColorRole.Base)
    spots = {"command": (3, 1), "comment": (3, 20), "math": (4, 22), "todo": (8, 0)}
    spots["environment"] = (9, 8)
    for name, (line, column) in spots.items():
        fg = format_at(panel.editor, line, column).foreground().color()
        assert contrast(fg, base) >= 4.5, f"{name} {fg.name()} on {base.name()}"


def test_a_palette_change_recolours_the_open_text(editor):
    light = colour(format_at(editor, 3, 1))
    editor.setPalette(dark_palette())
    dark = format_at(editor, 3, 1).foreground().color()
    assert dark.name() != light and dark.lightnessF() > 0.5


# --- editing


def test_set_text_is_not_an_edit(qtbot, panel):
    edited: list[bool] = []
    panel.editor.text_edited.connect(lambda: edited.append(True))
    panel.editor.set_text(REPORT)
    assert panel.editor.text() == REPORT
    assert edited == []
    assert not panel.editor.document().isUndoAvailable()
    panel.editor.setPalette(dark_palette())  # re-highlighting is not an edit either
    assert edited == []


def test_typing_is_an_edit_and_undoes(qtbot, panel):
    panel.show()
    ed = panel.editor
    ed.set_text("abc")
    ed.moveCursor(ed.textCursor().MoveOperation.End)
    with qtbot.waitSignal(ed.text_edited, timeout=1000):
        qtbot.keyClicks(ed, "def")
    assert ed.text() == "abcdef"
    qtbot.keyClick(ed, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    assert ed.text() == "abc"
    qtbot.keyClick(ed, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    assert ed.text() == "abc"  # the loaded text is not undone


def test_tab_inserts_spaces_and_enter_keeps_the_indent(qtbot, panel):
    ed = panel.editor
    ed.set_text("")
    qtbot.keyClick(ed, Qt.Key.Key_Tab)
    qtbot.keyClicks(ed, "x")
    qtbot.keyClick(ed, Qt.Key.Key_Return)
    qtbot.keyClicks(ed, "y")
    assert ed.text() == "  x\n  y"


def test_go_to_line_moves_centres_and_clamps(qtbot, panel):
    ed = panel.editor
    ed.set_text("\n".join(f"line {i}" for i in range(1, 301)))
    panel.show()
    ed.go_to_line(150)
    assert ed.current_line() == 150
    assert ed.textCursor().positionInBlock() == 0
    assert ed.firstVisibleBlock().blockNumber() > 100  # scrolled to it
    ed.go_to_line(10_000)
    assert ed.current_line() == 300
    ed.go_to_line(0)
    assert ed.current_line() == 1


def test_the_line_number_gutter_grows_with_the_line_count(panel):
    ed = panel.editor
    ed.set_text("\n".join("x" for _ in range(9)))
    narrow = ed.line_number_area_width()
    ed.set_text("\n".join("x" for _ in range(10_000)))
    assert ed.line_number_area_width() > narrow
    assert ed.viewportMargins().left() == ed.line_number_area_width()


def test_long_reports_do_not_wear_out_none(panel):
    # PySide6 6.12 takes a reference from None on every void call; the highlighter makes
    # thousands of them per long load, which must never let None's count reach zero
    from labwright.gui import qtcompat

    long_report = REPORT * 400  # ~5000 lines
    before = sys.getrefcount(None)
    for _ in range(3):
        panel.editor.set_text(long_report)
    if "None" in qtcompat.PINNED_NOW:
        assert sys.getrefcount(None) > qtcompat.PINNED // 2
    else:
        assert sys.getrefcount(None) >= before - 100


# --- find and replace


def test_find_next_and_previous_wrap_and_count(qtbot, panel):
    ed, bar = panel.editor, panel.find_bar
    ed.set_text("cat dog cat\nbird cat")
    panel.show()
    ed.show_find()
    assert bar.isVisible()
    qtbot.keyClicks(bar.find_edit, "cat")
    assert ed.textCursor().selectionStart() == 0
    assert bar.count_label.text() == "1 of 3"
    qtbot.keyClick(bar.find_edit, Qt.Key.Key_Return)
    assert bar.count_label.text() == "2 of 3"
    bar.find_next()
    assert bar.count_label.text() == "3 of 3"
    bar.find_next()  # wraps to the first
    assert bar.count_label.text() == "1 of 3"
    qtbot.keyClick(bar.find_edit, Qt.Key.Key_Return, Qt.KeyboardModifier.ShiftModifier)
    assert bar.count_label.text() == "3 of 3"  # wraps back to the last
    assert ed.current_line() == 2


def test_find_can_match_case_and_say_nothing_matches(qtbot, panel):
    ed, bar = panel.editor, panel.find_bar
    ed.set_text("Cat cat CAT")
    ed.show_find()
    bar.find_edit.setText("cat")
    bar.find_next()
    assert bar.count_label.text().endswith("of 3")
    bar.case_check.setChecked(True)
    assert bar.count_label.text() == "1 of 1"
    bar.find_edit.setText("dog")
    bar.find_next()
    assert bar.count_label.text() == "No matches"


def test_a_search_that_stops_matching_leaves_nothing_selected_to_overwrite(qtbot, panel):
    ed, bar = panel.editor, panel.find_bar
    ed.set_text("the period of the pendulum")
    panel.show()
    ed.show_find()
    qtbot.keyClicks(bar.find_edit, "perio")
    assert ed.textCursor().selectedText() == "perio"
    qtbot.keyClicks(bar.find_edit, "x")  # "periox": nothing matches any more
    assert bar.count_label.text() == "No matches"
    assert not ed.textCursor().hasSelection()
    qtbot.keyClick(bar.find_edit, Qt.Key.Key_Escape)  # back in the editor, typing
    qtbot.keyClicks(ed, "Z")
    assert ed.text() == "the Zperiod of the pendulum"  # inserted, nothing overwritten


def test_replace_replaces_the_current_match_then_moves_on(qtbot, panel):
    ed, bar = panel.editor, panel.find_bar
    ed.set_text("a x a x")
    ed.show_find(replace=True)
    assert not bar.replace_edit.isHidden()
    bar.find_edit.setText("x")
    bar.replace_edit.setText("y")
    bar.find_next()
    bar.replace()
    assert ed.text() == "a y a x"
    assert ed.textCursor().selectedText() == "x"  # the next match is selected


def test_replace_all_is_one_undo_step(qtbot, panel):
    ed, bar = panel.editor, panel.find_bar
    ed.set_text("x + x = 2x")
    ed.show_find(replace=True)
    bar.find_edit.setText("x")
    bar.replace_edit.setText("xx")  # the replacement holds the needle: no endless loop
    assert bar.replace_all() == 3
    assert ed.text() == "xx + xx = 2xx"
    assert bar.count_label.text() == "3 replaced"
    ed.undo()
    assert ed.text() == "x + x = 2x"
    assert not ed.document().isUndoAvailable()


def test_escape_closes_the_bar(qtbot, panel):
    panel.show()
    panel.editor.show_find()
    assert panel.find_bar.isVisible()
    qtbot.keyClick(panel.find_bar.find_edit, Qt.Key.Key_Escape)
    assert not panel.find_bar.isVisible()


def test_ctrl_f_and_ctrl_h_open_the_bar(qtbot, panel):
    with qtbot.waitActive(panel):
        panel.show()
        panel.activateWindow()
    panel.editor.setFocus()
    qtbot.keyClick(panel.editor, Qt.Key.Key_F, Qt.KeyboardModifier.ControlModifier)
    assert panel.find_bar.isVisible() and not panel.find_bar.replace_edit.isVisible()
    qtbot.keyClick(panel.find_bar.find_edit, Qt.Key.Key_Escape)
    assert not panel.find_bar.isVisible()
    panel.editor.setFocus()
    qtbot.keyClick(panel.editor, Qt.Key.Key_H, Qt.KeyboardModifier.ControlModifier)
    assert panel.find_bar.replace_edit.isVisible()
    assert QApplication.focusWidget() is panel.find_bar.find_edit


# --- the diff view


def tint(view: DiffView, row: int) -> QColor:
    return view.document().findBlockByNumber(row).blockFormat().background().color()


def test_the_diff_counts_and_tints_an_edit(qtbot):
    view = DiffView()
    qtbot.addWidget(view)
    before = "intro\nold result\nend\n"
    after = "intro\nnew result\nmore\nend\n"
    view.show_diff(before, after)
    lines = view.toPlainText().splitlines()
    assert lines[0] == "+2 −1 lines"
    assert view.isReadOnly()
    removed = next(i for i, line in enumerate(lines) if "- old result" in line)
    added = next(i for i, line in enumerate(lines) if "+ new result" in line)
    red, green = tint(view, removed), tint(view, added)
    assert red.red() > red.green() and green.green() > green.red()
    assert 0 < red.alphaF() < 1 and 0 < green.alphaF() < 1  # translucent over the base
    assert view.after_line_at(added) == 2
    same = next(i for i, line in enumerate(lines) if line.endswith("  intro"))
    assert view.document().findBlockByNumber(same).blockFormat().background().style() == (
        Qt.BrushStyle.NoBrush
    )


def test_identical_texts_say_no_changes(qtbot):
    view = DiffView()
    qtbot.addWidget(view)
    view.show_diff(REPORT, REPORT)
    assert view.toPlainText() == "No changes from the generated draft"
    view.show_diff("", "")
    assert view.toPlainText() == "No changes from the generated draft"


def test_long_unchanged_runs_collapse(qtbot):
    view = DiffView()
    qtbot.addWidget(view)
    before = [f"line {i}" for i in range(1, 101)]
    after = list(before)
    after[49] = "line fifty, edited"
    view.show_diff("\n".join(before), "\n".join(after))
    lines = view.toPlainText().splitlines()
    assert lines[0] == "+1 −1 lines"
    assert lines[1] == "… 46 unchanged lines …"  # lines 1-46; 47-49 are context
    assert lines[-1] == "… 47 unchanged lines …"  # 51-53 are context, then 54-100
    assert len(lines) == 1 + 1 + 3 + 2 + 3 + 1


def test_the_diff_is_tinted_for_dark_mode_too(qtbot):
    view = DiffView()
    qtbot.addWidget(view)
    view.show_diff("a\nb", "a\nc")
    light = tint(view, 3).alphaF()
    view.setPalette(dark_palette())  # recoloured in place
    assert view.toPlainText().splitlines()[0] == "+1 −1 lines"
    assert tint(view, 3).alphaF() > light


def test_short_unchanged_runs_are_shown_whole(qtbot):
    view = DiffView()
    qtbot.addWidget(view)
    before = [f"line {i}" for i in range(1, 12)]
    after = [*before]
    after[1], after[9] = "two", "ten"  # 7 unchanged lines between: 3 + 1 + 3, nothing to hide
    view.show_diff("\n".join(before), "\n".join(after))
    text = view.toPlainText()
    assert "unchanged" not in text
    assert all(f"line {i}" in text for i in range(1, 12))
