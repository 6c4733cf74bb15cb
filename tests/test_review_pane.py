"""The review pane: the banner, open items, autosave, recompile and preview, export."""

from __future__ import annotations

import zipfile

import pytest
from PySide6.QtCore import Qt

from agent_helpers import route
from fakes import FakeLLM, call, tool_calls
from labwright.core.report.latex import probe_engines
from labwright.gui.main_window import REVIEW

needs_tex = pytest.mark.skipif(not probe_engines().can_compile, reason="no TeX engine")


def item_kinds(pane) -> list[str]:
    return [
        pane.items.item(i).data(Qt.ItemDataRole.UserRole + 1) for i in range(pane.items.count())
    ]


def test_a_degraded_run_opens_the_review_with_the_reason_and_open_items(
    qtbot, window_for, material
):
    with FakeLLM(
        route(lambda body, n: tool_calls(call("read_file", {"path": "manual.txt"})))
    ) as llm:
        w = window_for(llm)
        w.load_folder(material)
        qtbot.waitUntil(lambda: "files" in w.scan_label.text(), timeout=10_000)
        w.offline_check.setChecked(False)
        with qtbot.waitSignal(w.bridge.finished, timeout=60_000):
            w.start_run()
    assert w.stack.currentIndex() == REVIEW
    pane = w.review
    assert pane.banner.isVisible()
    assert "read_file(manual.txt)" in pane.banner.text() and "5 times" in pane.banner.text()
    assert "figure_unused" in item_kinds(pane)  # the table plot the minimal draft never shows
    assert "\\documentclass" in pane.editor.text()


def test_typing_reaches_the_file_within_a_second_and_a_new_window_shows_it(
    qtbot, window_for, offline_run
):
    w = window_for()
    w.open_run(offline_run)
    assert w.stack.currentIndex() == REVIEW  # offline is degraded: review opens by itself
    editor = w.review.editor
    editor.go_to_line(3)
    qtbot.keyClicks(editor, "% checked by Ada")
    qtbot.keyClick(editor, Qt.Key.Key_Return)
    qtbot.waitUntil(
        lambda: "checked by Ada" in (offline_run / "report.tex").read_text(), timeout=1_000
    )
    assert (
        "checked by Ada" not in (offline_run / "drafts" / "v1.tex").read_text()
    )  # the generated draft is kept
    w.close()
    w2 = window_for()
    w2.open_run(offline_run)
    assert "checked by Ada" in w2.review.editor.text()
    assert "+1" in w2.review.diff.toPlainText()


@needs_tex
def test_a_compile_error_is_listed_clicking_it_jumps_and_a_fix_reloads_the_pdf(
    qtbot, window_for, offline_run
):
    w = window_for()
    w.open_run(offline_run)
    pane, editor = w.review, w.review.editor
    pdf = offline_run / "report.pdf"
    good = pdf.read_bytes()
    lines = editor.text().splitlines()
    bad_line = next(n for n, text in enumerate(lines, 1) if text.startswith("\\section"))
    lines.insert(bad_line, "\\undefinedmacro")
    editor.set_text("\n".join(lines))
    editor.document().setModified(True)
    with qtbot.waitActive(w):
        w.activateWindow()
    editor.setFocus()
    with qtbot.waitSignal(pane.compiled, timeout=60_000) as failed:
        qtbot.keyClick(editor, Qt.Key.Key_B, Qt.KeyboardModifier.ControlModifier)
    assert failed.args == [False]
    assert pdf.read_bytes() == good  # the last good PDF stays
    errors = [
        pane.items.item(i)
        for i in range(pane.items.count())
        if pane.items.item(i).data(Qt.ItemDataRole.UserRole + 1) == "compile_error"
    ]
    assert errors and errors[0].data(Qt.ItemDataRole.UserRole) == bad_line + 1
    editor.go_to_line(1)
    rect = pane.items.visualItemRect(errors[0])
    qtbot.mouseClick(pane.items.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    assert editor.current_line() == bad_line + 1
    del lines[bad_line]
    lines.insert(bad_line, "% fixed")
    editor.set_text("\n".join(lines))
    editor.document().setModified(True)
    with qtbot.waitSignal(pane.compiled, timeout=60_000) as fixed:
        pane.recompile()
    assert fixed.args == [True]
    assert pdf.read_bytes() != good and pane.pdf.document.pageCount() >= 1
    assert "compile_error" not in item_kinds(pane)


def test_export_asks_first_for_a_degraded_draft_then_writes_a_zip(
    qtbot, window_for, offline_run, tmp_path
):
    w = window_for()
    w.open_run(offline_run)
    asked = []
    assert (
        w.review.export(tmp_path / "out.zip", confirm=lambda text: asked.append(text) or False)
        is None
    )
    assert asked and "offline" in asked[0].lower()
    assert not (tmp_path / "out.zip").exists()
    out = w.review.export(tmp_path / "out.zip", confirm=lambda text: True)
    names = zipfile.ZipFile(out).namelist()
    assert "report.tex" in names and any(n.startswith("figures/") for n in names)


@needs_tex
def test_a_recompile_keeps_the_page_and_zoom_of_the_preview(qtbot, window_for, offline_run):
    from PySide6.QtCore import QPointF
    from PySide6.QtPdfWidgets import QPdfView

    w = window_for()
    w.open_run(offline_run)
    pane = w.review
    assert pane.pdf.document.pageCount() >= 2
    pane.pdf.view.setZoomMode(QPdfView.ZoomMode.Custom)
    pane.pdf.view.setZoomFactor(1.7)
    pane.pdf.view.pageNavigator().jump(1, QPointF(), 1.7)
    pane.editor.set_text(
        pane.editor.text().replace("\\end{document}", "One more line.\n\\end{document}")
    )
    pane.editor.document().setModified(True)
    with qtbot.waitSignal(pane.compiled, timeout=60_000) as done:
        pane.recompile()
    assert done.args == [True]
    assert pane.pdf.view.zoomMode() == QPdfView.ZoomMode.Custom
    assert pane.pdf.view.zoomFactor() == pytest.approx(1.7)
    assert pane.pdf.view.pageNavigator().currentPage() == 1


def test_redraft_from_the_review_pane_writes_again_without_exploring(qtbot, window_for, material):
    import json

    from agent_helpers import FINISH_ARGS, explore_requests

    script = [
        tool_calls(call("read_file", {"path": "manual.txt"})),
        tool_calls(call("finish_exploration", FINISH_ARGS)),
    ]
    with FakeLLM(route(script)) as llm:
        w = window_for(llm)
        w.load_folder(material)
        qtbot.waitUntil(lambda: "files" in w.scan_label.text(), timeout=10_000)
        with qtbot.waitSignal(w.bridge.finished, timeout=60_000):
            w.start_run()
        w.open_review()
        explored = len(explore_requests(llm))
        with qtbot.waitSignal(w.bridge.finished, timeout=60_000) as done:
            w.review.redraft_requested.emit("use SI units")
        writes = [json.dumps(r["messages"]) for r in llm.requests if r["model"] == "fake-write"]
    assert done.args[0].status in ("ok", "degraded")
    assert len(explore_requests(llm)) == explored  # nothing explored again
    assert any("use SI units" in m for m in writes)
    assert (w.run_dir / "drafts" / "v2.tex").is_file()


# -- every compile error located (issue 24) ----------------------------------------------


def _line_of(editor, start: str) -> int:
    return next(n for n, t in enumerate(editor.text().splitlines(), 1) if t.startswith(start))


def _type_at_line_start(qtbot, editor, line: int, text: str) -> None:
    editor.go_to_line(line)
    qtbot.keyClick(editor, Qt.Key.Key_Home)
    qtbot.keyClicks(editor, text)


def _unclosed_bold(qtbot, editor) -> int:
    line = _line_of(editor, "\\textbf{TODO:} state the aim")
    _type_at_line_start(qtbot, editor, line, "We used \\textbf{a metre rule to measure it. ")
    return line


def _missing_end_itemize(qtbot, editor) -> int:
    end = _line_of(editor, "\\end{itemize}")
    begin = max(n for n in range(1, end) if editor.text().splitlines()[n - 1] == "\\begin{itemize}")
    editor.go_to_line(end)
    qtbot.keyClick(editor, Qt.Key.Key_Home)
    qtbot.keyClick(editor, Qt.Key.Key_End, Qt.KeyboardModifier.ShiftModifier)
    qtbot.keyClick(editor, Qt.Key.Key_Delete)
    return begin


def _extra_brace(qtbot, editor) -> int:
    line = _line_of(editor, "\\textbf{TODO:} state the aim")
    _type_at_line_start(qtbot, editor, line, "We used a metre rule} to measure it. ")
    return line


def _unclosed_dollar(qtbot, editor) -> int:
    line = _line_of(editor, "\\textbf{TODO:} state the aim")
    _type_at_line_start(qtbot, editor, line, "The period $T = 2\\pi\\sqrt{L/g} was measured. ")
    return line


def _undefined_command(qtbot, editor) -> int:
    line = _line_of(editor, "\\textbf{TODO:} state the aim")
    _type_at_line_start(qtbot, editor, line, "\\nosuchcommand ")
    return line


def _error_in_a_caption(qtbot, editor) -> int:
    """An undefined command in a caption that now spans two lines: TeX reads the whole
    argument first and reports the line where it ends."""
    line = _line_of(editor, "\\caption{t10")
    _type_at_line_start(qtbot, editor, line, "")
    for _ in "\\caption{":
        qtbot.keyClick(editor, Qt.Key.Key_Right)
    qtbot.keyClicks(editor, "The period \\nosuchmacro against")
    qtbot.keyClick(editor, Qt.Key.Key_Return)
    return line


BROKEN = {
    "unclosed textbf": _unclosed_bold,
    "missing end itemize": _missing_end_itemize,
    "extra brace": _extra_brace,
    "unclosed dollar": _unclosed_dollar,
    "undefined control sequence": _undefined_command,
    "error in a caption": _error_in_a_caption,
}


@needs_tex
@pytest.mark.parametrize("case", list(BROKEN))
def test_every_compile_error_gets_a_gutter_mark_and_its_log_entry_jumps_there(
    case, qtbot, window_for, offline_run
):
    w = window_for()
    with qtbot.waitActive(w):
        w.activateWindow()
    w.open_run(offline_run)
    pane, editor, log = w.review, w.review.editor, w.review.log_pane
    line = BROKEN[case](qtbot, editor)
    with qtbot.waitSignal(pane.compiled, timeout=120_000) as done:
        qtbot.keyClick(editor, Qt.Key.Key_B, Qt.KeyboardModifier.ControlModifier)
    assert done.args == [False]
    errors = {n for n, marks in editor.marks().items() if any(s == "error" for s, _ in marks)}
    assert line in errors, (line, editor.marks())
    rows = [log.list.topLevelItem(i) for i in range(log.list.topLevelItemCount())]
    row = next(r for r in rows if r.text(0) == f"✗ {line}")
    editor.go_to_line(1)
    qtbot.mouseClick(
        log.list.viewport(), Qt.MouseButton.LeftButton, pos=log.list.visualItemRect(row).center()
    )
    assert editor.current_line() == line and editor.hasFocus()


def test_the_compile_log_is_empty_only_after_a_compile_and_then_stays_shut(qtbot):
    from labwright.gui.compile_log import ERROR, LogEntry, LogPane

    log = LogPane()
    qtbot.addWidget(log)
    log.show()
    log.set_entries(None)  # a run that never compiled
    assert "not compiled yet" in log.header.text() and not log.header.isEnabled()
    qtbot.mouseClick(log.header, Qt.MouseButton.LeftButton)
    assert not log.list.isVisible()
    log.set_entries([LogEntry(ERROR, "report.tex", 3, "Undefined control sequence.")])
    qtbot.mouseClick(log.header, Qt.MouseButton.LeftButton)
    assert log.list.isVisible() and log.list.topLevelItemCount() == 1
    log.set_entries([])  # the fix compiled clean: no empty table left open
    assert "no errors or warnings" in log.header.text()
    assert not log.list.isVisible() and not log.header.isEnabled()
