"""The one PDF view (gui/pdf_view.py) where a person reads the report: the main window's
PDF tab and the review pane's preview. Zoom by keys, Ctrl+wheel and View's menu; each
run's PDF opens where its reader left it, never where the last run's reader was; a run
without a PDF says why in a sentence instead of showing a grey area (issue 24).

Runs are reopened from the History dock (a click and Enter), tabs clicked, keys pressed."""

from __future__ import annotations

import itertools
import json
import shutil
from pathlib import Path

import pytest
from PySide6.QtCore import QPoint, QPointF, QRect, Qt
from PySide6.QtGui import QAction, QWheelEvent
from PySide6.QtPdfWidgets import QPdfView
from PySide6.QtWidgets import QApplication, QLabel

from labwright.core.report.latex import probe_engines
from labwright.gui.main_window import REVIEW, RUN

needs_tex = pytest.mark.skipif(not probe_engines().can_compile, reason="no TeX engine")
CTRL = Qt.KeyboardModifier.ControlModifier


@pytest.fixture
def two_runs(offline_run, isolated_home) -> tuple[Path, Path]:
    """Two past runs in the History dock, each with a PDF of several pages."""
    runs = isolated_home / "runs"
    runs.mkdir()
    first, second = runs / "20250101-100000-first", runs / "20250101-110000-second"
    shutil.copytree(offline_run, first)
    shutil.copytree(offline_run, second)
    return first, second


def reopen(qtbot, w, run_dir: Path) -> None:
    """Click the run's row in the History dock and press Enter."""
    rows = [w.history.item(i) for i in range(w.history.count())]
    row = next(r for r in rows if r.data(Qt.ItemDataRole.UserRole) == str(run_dir))
    w.history.scrollToItem(row)
    center = w.history.visualItemRect(row).center()
    qtbot.mouseClick(w.history.viewport(), Qt.MouseButton.LeftButton, pos=center)
    qtbot.keyClick(w.history, Qt.Key.Key_Return)  # (QTest's double click never activates)
    qtbot.waitUntil(lambda: w.run_dir == run_dir)


def back_to_the_run_page(qtbot, w) -> None:
    if w.stack.currentIndex() == REVIEW:
        qtbot.mouseClick(w.review.back_button, Qt.MouseButton.LeftButton)
    assert w.stack.currentIndex() == RUN


def click_pdf_tab(qtbot, w) -> QPdfView:
    tabs = w.results
    titles = [tabs.tabText(i) for i in range(tabs.count())]
    bar = tabs.tabBar()
    qtbot.mouseClick(bar, Qt.MouseButton.LeftButton, pos=bar.tabRect(titles.index("PDF")).center())
    view = tabs.currentWidget().findChild(QPdfView)
    assert view is not None
    return view


def pdf_tab_of_a_run(qtbot, window_for, run_dir: Path):
    """A small window, `run_dir` reopened from History, its PDF tab clicked."""
    w = window_for()
    w.resize(1024, 640)
    with qtbot.waitActive(w):
        w.activateWindow()
    reopen(qtbot, w, run_dir)
    back_to_the_run_page(qtbot, w)
    return w, click_pdf_tab(qtbot, w)


def view_menu_action(w, text: str) -> QAction:
    """The action of View that a person sees (visible) under `text`."""
    shown = [a for a in w.view_menu.actions() if a.text() == text and a.isVisible()]
    assert len(shown) == 1, [a.text() for a in w.view_menu.actions() if a.isVisible()]
    return shown[0]


def ctrl_wheel(view: QPdfView, notches: int) -> None:
    viewport = view.viewport()
    wheel = QWheelEvent(
        QPointF(50, 50),
        QPointF(viewport.mapToGlobal(QPoint(50, 50))),
        QPoint(0, 0),
        QPoint(0, 120 * notches),
        Qt.MouseButton.NoButton,
        CTRL,
        Qt.ScrollPhase.NoScrollPhase,
        False,
    )
    QApplication.sendEvent(viewport, wheel)


def page_down_to(qtbot, view: QPdfView, page: int) -> None:
    """Page Down in the view until `page` (0-based) is the current one."""
    for _ in range(40):
        if view.pageNavigator().currentPage() >= page:
            return
        qtbot.keyClick(view, Qt.Key.Key_PageDown)
    raise AssertionError(f"Page Down never reached page {page + 1}")


def visible_sentences(widget) -> list[str]:
    return [lab.text() for lab in widget.findChildren(QLabel) if lab.isVisible() and lab.text()]


# -- zoom in the main window's PDF tab ----------------------------------------------------


@needs_tex
def test_the_pdf_tab_zooms_by_keys_wheel_and_the_view_menu(qtbot, window_for, two_runs):
    first, _ = two_runs
    w, view = pdf_tab_of_a_run(qtbot, window_for, first)
    zoom_in = view_menu_action(w, "Zoom &In")
    assert zoom_in.isEnabled(), "View > Zoom In is greyed out in the PDF tab"
    pdf = w.results.pdf
    pages = pdf.document.pageCount()
    assert pages >= 2 and pdf.page_label.text() == f"Page 1 of {pages}"
    before = pdf.zoom_factor()
    view.setFocus()
    qtbot.keyClick(view, Qt.Key.Key_Equal, CTRL)
    assert view.zoomMode() == QPdfView.ZoomMode.Custom
    assert view.zoomFactor() == pytest.approx(before * 1.25)
    assert pdf.zoom_label.text() == f"{round(before * 125)} %"
    qtbot.keyClick(view, Qt.Key.Key_Minus, CTRL)
    assert view.zoomFactor() == pytest.approx(before)
    ctrl_wheel(view, 1)
    assert view.zoomFactor() == pytest.approx(before * 1.25)
    zoom_in.trigger()
    assert view.zoomFactor() == pytest.approx(before * 1.25**2)
    view_menu_action(w, "Zoom &Out").trigger()
    assert view.zoomFactor() == pytest.approx(before * 1.25)
    qtbot.keyClick(view, Qt.Key.Key_9, CTRL)
    assert view.zoomMode() == QPdfView.ZoomMode.FitInView
    assert view_menu_action(w, "Fit &Page").isChecked()
    qtbot.keyClick(view, Qt.Key.Key_0, CTRL)
    assert view.zoomMode() == QPdfView.ZoomMode.FitToWidth
    view_menu_action(w, "Fit &Page").trigger()
    assert view.zoomMode() == QPdfView.ZoomMode.FitInView
    view_menu_action(w, "Fit &Width").trigger()
    assert view.zoomMode() == QPdfView.ZoomMode.FitToWidth
    page_down_to(qtbot, view, 1)
    assert pdf.page_label.text() == f"Page 2 of {pages}"


@needs_tex
def test_a_zoom_key_from_another_tab_shows_the_pdf_it_zoomed(qtbot, window_for, two_runs):
    first, _ = two_runs
    w = window_for()
    with qtbot.waitActive(w):
        w.activateWindow()
    reopen(qtbot, w, first)
    back_to_the_run_page(qtbot, w)
    w.results.setCurrentWidget(w.results.source)
    w.results.source.setFocus()
    qtbot.keyClick(w.results.source, Qt.Key.Key_Equal, CTRL)
    assert w.results.currentWidget() is w.results.pdf
    assert w.results.pdf.view.zoomMode() == QPdfView.ZoomMode.Custom


@needs_tex
def test_view_lists_the_zoom_of_the_pdf_on_screen_only(qtbot, window_for, two_runs):
    """One Zoom In in View at a time (the tab's or the preview's), so a key is never ambiguous."""
    first, _ = two_runs
    w = window_for()
    with qtbot.waitActive(w):
        w.activateWindow()
    reopen(qtbot, w, first)
    assert w.stack.currentIndex() == REVIEW
    assert view_menu_action(w, "Zoom &In") is w.review.zoom_in_action
    back_to_the_run_page(qtbot, w)
    assert view_menu_action(w, "Zoom &In") is w.results.pdf.zoom_in_action
    # the key zooms the tab's PDF and leaves the preview's as it was
    preview = w.review.pdf.view.zoomMode()
    view = click_pdf_tab(qtbot, w)
    view.setFocus()
    qtbot.keyClick(view, Qt.Key.Key_Equal, CTRL)
    assert view.zoomMode() == QPdfView.ZoomMode.Custom
    assert w.review.pdf.view.zoomMode() == preview


# -- each run's PDF opens where its reader left it ---------------------------------------------


@needs_tex
def test_the_pdf_tab_remembers_the_page_and_zoom_of_each_run(qtbot, window_for, two_runs):
    first, second = two_runs
    w, view = pdf_tab_of_a_run(qtbot, window_for, first)
    qtbot.keyClick(view, Qt.Key.Key_Equal, CTRL)
    zoomed = view.zoomFactor()
    page_down_to(qtbot, view, 1)
    left_at = view.verticalScrollBar().value()
    assert left_at > 0
    reopen(qtbot, w, second)
    back_to_the_run_page(qtbot, w)
    view = click_pdf_tab(qtbot, w)
    # the second run's PDF starts at its top, at the width of the view
    assert view.pageNavigator().currentPage() == 0
    assert view.verticalScrollBar().value() == 0
    assert view.zoomMode() == QPdfView.ZoomMode.FitToWidth
    reopen(qtbot, w, first)
    back_to_the_run_page(qtbot, w)
    view = click_pdf_tab(qtbot, w)
    assert view.zoomMode() == QPdfView.ZoomMode.Custom
    assert view.zoomFactor() == pytest.approx(zoomed)
    assert view.pageNavigator().currentPage() == 1
    assert abs(view.verticalScrollBar().value() - left_at) <= 2  # rounding of the layout
    assert w.results.pdf.page_label.text().startswith("Page 2 of ")


@needs_tex
def test_the_review_preview_remembers_each_runs_page_too(qtbot, window_for, two_runs):
    first, second = two_runs
    w = window_for()
    w.resize(1024, 640)
    with qtbot.waitActive(w):
        w.activateWindow()
    reopen(qtbot, w, first)
    assert w.stack.currentIndex() == REVIEW
    view = w.review.findChild(QPdfView)
    page_down_to(qtbot, view, 1)
    back_to_the_run_page(qtbot, w)  # History is folded away while reviewing
    reopen(qtbot, w, second)
    assert w.stack.currentIndex() == REVIEW
    assert view.pageNavigator().currentPage() == 0 and view.verticalScrollBar().value() == 0
    back_to_the_run_page(qtbot, w)
    reopen(qtbot, w, first)
    assert view.pageNavigator().currentPage() == 1


# -- no PDF: a sentence, not a grey area -----------------------------------------------


def test_a_cancelled_run_says_why_its_pdf_tab_is_empty(qtbot, window_for, material):
    from agent_helpers import route
    from fakes import FakeLLM, call, delay, tool_calls

    def slow(body, n):
        return delay(1.0, tool_calls(call("read_file", {"path": "manual.txt"})))

    with FakeLLM(route(slow)) as llm:
        w = window_for(llm)
        w.load_folder(material)
        qtbot.waitUntil(lambda: "files" in w.scan_label.text(), timeout=10_000)
        view = click_pdf_tab(qtbot, w)
        assert not view.isVisible()
        assert any("appears here" in t for t in visible_sentences(w.results.currentWidget()))
        qtbot.mouseClick(w.start_button, Qt.MouseButton.LeftButton)
        qtbot.waitUntil(lambda: w.timeline.current_stage == "explore", timeout=10_000)
        with qtbot.waitSignal(w.bridge.finished, timeout=5_000):
            qtbot.mouseClick(w.cancel_button, Qt.MouseButton.LeftButton)
    view = click_pdf_tab(qtbot, w)
    assert not view.isVisible(), "a blank grey area"
    said = visible_sentences(w.results.currentWidget())
    assert any("cancelled" in t for t in said), said
    assert not w.results.pdf.zoom_in_action.isEnabled()  # nothing to zoom


def test_the_review_of_a_cancelled_run_without_a_pdf_says_so(
    qtbot, window_for, offline_run, isolated_home
):
    runs = isolated_home / "runs"
    runs.mkdir()
    run = runs / "20250101-100000-cancelled"
    shutil.copytree(offline_run, run)
    (run / "report.pdf").unlink(missing_ok=True)
    meta = json.loads((run / "run.json").read_text(encoding="utf-8"))
    meta["status"] = "cancelled"  # stopped after the draft, before the compile
    (run / "run.json").write_text(json.dumps(meta), encoding="utf-8")
    w = window_for()
    reopen(qtbot, w, run)
    qtbot.mouseClick(w.review_button, Qt.MouseButton.LeftButton)
    assert w.stack.currentIndex() == REVIEW
    preview = w.review.right_tabs.currentWidget()
    view = preview.findChild(QPdfView)
    assert view is not None and not view.isVisible(), "a blank grey area"
    said = visible_sentences(preview)
    assert any("cancelled" in t and "Recompile" in t for t in said), said


def test_the_sentence_is_said_again_in_chinese(qtbot, window_for, material):
    from labwright.gui.i18n import install_language

    w = window_for()
    w.load_folder(material)
    qtbot.waitUntil(lambda: "files" in w.scan_label.text(), timeout=10_000)
    click_pdf_tab(qtbot, w)
    try:
        install_language("zh_CN")
        w.retranslate()
        said = visible_sentences(w.results.currentWidget())
        assert "运行编译好报告后，PDF 会显示在这里。" in said, said
    finally:
        install_language("en")
        w.retranslate()


# -- SyncTeX both ways, through the one view -----------------------------------------------


@needs_tex
def test_a_double_click_on_the_marked_line_goes_back_to_its_source(qtbot, window_for, two_runs):
    first, _ = two_runs
    w = window_for()
    w.resize(1024, 640)
    with qtbot.waitActive(w):
        w.activateWindow()
    reopen(qtbot, w, first)
    pane = w.review
    lines = pane.editor.text().splitlines()
    line = next(n for n, t in enumerate(lines, 1) if t.startswith("\\section")) + 1
    pane.editor.go_to_line(line)
    qtbot.mouseClick(pane.show_in_pdf_button, Qt.MouseButton.LeftButton)
    marker = pane.pdf.marker
    qtbot.waitUntil(marker.isVisible, timeout=2_000)
    target = marker.geometry().center()
    target.setX(marker.geometry().left() + 80)  # on the text, near the line's start
    pane.editor.go_to_line(1)
    qtbot.mouseDClick(pane.pdf.view.viewport(), Qt.MouseButton.LeftButton, pos=target)
    assert abs(pane.editor.current_line() - line) <= 1


# -- the Figures tab: long captions clipped the pictures and pushed them right (issue 24) --

LONG = (
    "Period squared against length for every pendulum length measured, with the fitted "
    "proportional line whose slope gives 4π²/g, and the residuals of the fit beneath it"
)


@needs_tex
def test_long_captions_neither_clip_nor_push_the_thumbnails(qtbot, window_for, two_runs):
    run = two_runs[0]
    pngs = sorted((run / "figures").glob("*.png"))
    assert pngs, "the offline pendulum run draws figures"
    for png in pngs:
        sidecar = png.with_suffix(".json")
        meta = json.loads(sidecar.read_text(encoding="utf-8")) if sidecar.exists() else {}
        sidecar.write_text(json.dumps({**meta, "caption": LONG}), encoding="utf-8")
    w = window_for()
    w.resize(1024, 640)
    reopen(qtbot, w, run)
    back_to_the_run_page(qtbot, w)
    tabs = w.results
    bar = tabs.tabBar()
    titles = [tabs.tabText(i) for i in range(tabs.count())]
    qtbot.mouseClick(
        bar, Qt.MouseButton.LeftButton, pos=bar.tabRect(titles.index("Figures")).center()
    )
    figures = tabs.figures
    qtbot.waitUntil(figures.isVisible)
    assert figures.count() == len(pngs)
    grid, icon = figures.gridSize(), figures.iconSize()
    rects = [figures.visualItemRect(figures.item(i)) for i in range(figures.count())]
    for i, rect in enumerate(rects):
        assert rect.width() <= grid.width() and rect.width() >= icon.width(), rect
        assert figures.viewport().rect().left() <= rect.left()
        item = figures.item(i)
        assert item.toolTip() == LONG and item.text().endswith("…")  # all of it on hover
        assert len(item.text()) < len(LONG)
    for a, b in itertools.pairwise(rects):  # side by side, none over another
        assert not QRect(a).intersects(b)
    if len(rects) > 1 and rects[0].top() == rects[1].top():
        assert rects[1].left() - rects[0].left() == grid.width()  # not pushed by the caption
