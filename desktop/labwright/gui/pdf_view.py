"""The one PDF view of the app: the main window's PDF tab and the review pane's preview.

QtPdf's QPdfView draws the pages; around it this adds what a reader needs: zoom
(keys, Ctrl+wheel, fit width, fit page), "Page N of M", where the reader was in
each run's PDF (a rebuild keeps it, another run starts where its own reader left
it, never where the last run's was), the geometry SyncTeX needs (a point of the
view ↔ a point of a page, in PDF points) with a marker on the line it jumped to,
and an empty state that says in a sentence why there is no PDF.

The PDF is read as bytes beneath the run folder without following a link
(run_files.load_pdf), never opened by name.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from PySide6.QtCore import QEvent, QObject, QPointF, QSize, Qt, QTimer, Signal
from PySide6.QtGui import QAction, QKeySequence, QMouseEvent, QWheelEvent
from PySide6.QtPdf import QPdfDocument
from PySide6.QtPdfWidgets import QPdfView
from PySide6.QtWidgets import (
    QFrame,
    QLabel,
    QSizePolicy,
    QStackedWidget,
    QToolBar,
    QVBoxLayout,
    QWidget,
)

from labwright.gui import run_files

ZOOM_STEP = 1.25
MIN_ZOOM, MAX_ZOOM = 0.25, 6.0
MARKER_MS = 1500  # how long the SyncTeX target stays highlighted
MARKER_ABOVE_PT, MARKER_BELOW_PT = 11.0, 4.0  # the band around SyncTeX's baseline
EMPTY, PAGES = 0, 1  # the stack's pages: the sentence, the document


@dataclass(frozen=True)
class ViewState:
    """Where a reader was in a PDF: the page, how far down it, and the zoom."""

    page: int = 0
    down: float = 0.0  # the part of the page scrolled past, 0 at its top edge
    mode: QPdfView.ZoomMode = QPdfView.ZoomMode.FitToWidth
    zoom: float = 1.0  # the factor, when `mode` is Custom


class PdfView(QWidget):
    """A run's report.pdf with a zoom and page bar; a sentence when there is none."""

    double_clicked = Signal(int, float, float)  # 1-based page, x, y in PDF points

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.run_dir: Path | None = None  # whose PDF is shown (or was asked for)
        self._views: dict[Path, ViewState] = {}  # where the reader left each run's PDF
        self._empty_text: Callable[[], str] = self._no_pdf_yet
        self.document = QPdfDocument(self)
        self.view = QPdfView(self)
        self.view.setDocument(self.document)
        self.view.setPageMode(QPdfView.PageMode.MultiPage)
        self.view.setZoomMode(QPdfView.ZoomMode.FitToWidth)
        self.view.viewport().installEventFilter(self)
        self.view.pageNavigator().currentPageChanged.connect(self._show_page)
        self.document.pageCountChanged.connect(self._show_page)
        self.document.pageCountChanged.connect(self._show_zoom)
        self.view.zoomFactorChanged.connect(self._show_zoom)
        self.view.zoomModeChanged.connect(self._show_zoom)
        self.empty = QLabel()
        self.empty.setObjectName("pdfEmpty")
        self.empty.setWordWrap(True)
        self.empty.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.empty.setMargin(24)
        self.stack = QStackedWidget()
        self.stack.addWidget(self.empty)
        self.stack.addWidget(self.view)
        self.marker = QFrame(self.view.viewport())  # the SyncTeX target, for a moment
        self.marker.setObjectName("syncMarker")
        self.marker.setStyleSheet(
            "QFrame#syncMarker { background: rgba(255,190,0,70); border: 2px solid rgba(230,140,0,200); border-radius: 3px; }"
        )
        self.marker.setAttribute(Qt.WidgetAttribute.WA_TransparentForMouseEvents)
        self.marker.hide()
        self._marker_timer = QTimer(self, singleShot=True, interval=MARKER_MS)
        self._marker_timer.timeout.connect(self.marker.hide)
        self._build_actions()
        self._build_bar()
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(0)
        layout.addWidget(self.bar)
        layout.addWidget(self.stack, 1)
        self.retranslate()
        self._show_state()

    def _build_actions(self) -> None:
        # the keys work while the focus is in this view, or in a widget given to
        # `shortcuts_within` (the review pane, the run page)
        def action(keys: list[QKeySequence], slot: Callable[[], None]) -> QAction:
            a = QAction(self)
            a.setShortcuts(keys)
            a.setShortcutContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
            a.triggered.connect(slot)
            self.addAction(a)
            return a

        self.zoom_in_action = action([QKeySequence("Ctrl+="), QKeySequence("Ctrl++")], self.zoom_in)
        self.zoom_out_action = action([QKeySequence("Ctrl+-")], self.zoom_out)
        self.fit_width_action = action([QKeySequence("Ctrl+0")], self.fit_width)
        self.fit_page_action = action([QKeySequence("Ctrl+9")], self.fit_page)
        for a in (self.fit_width_action, self.fit_page_action):
            a.setCheckable(True)
        self.actions_of_view = (
            self.zoom_in_action,
            self.zoom_out_action,
            self.fit_width_action,
            self.fit_page_action,
        )

    def _build_bar(self) -> None:
        self.bar = QToolBar()
        self.bar.setIconSize(QSize(16, 16))
        self.bar.addAction(self.zoom_out_action)
        self.zoom_label = QLabel()
        self.zoom_label.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.zoom_label.setMinimumWidth(self.fontMetrics().horizontalAdvance("000 %") + 8)
        self.bar.addWidget(self.zoom_label)
        self.bar.addAction(self.zoom_in_action)
        self.bar.addAction(self.fit_width_action)
        self.bar.addAction(self.fit_page_action)
        spacer = QWidget()
        spacer.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Preferred)
        self.bar.addWidget(spacer)
        self.page_label = QLabel()
        self.bar.addWidget(self.page_label)

    def shortcuts_within(self, widget: QWidget) -> None:
        """The zoom keys also work while the focus is anywhere in `widget`."""
        widget.addActions(list(self.actions_of_view))

    def retranslate(self) -> None:
        self.zoom_in_action.setText(self.tr("Zoom &In"))
        self.zoom_in_action.setIconText("+")
        self.zoom_out_action.setText(self.tr("Zoom &Out"))
        self.zoom_out_action.setIconText("−")
        self.fit_width_action.setText(self.tr("Fit &Width"))
        self.fit_page_action.setText(self.tr("Fit &Page"))
        for a in self.actions_of_view:
            a.setToolTip(with_keys(a.text().replace("&", ""), a))
        self.empty.setText(self._empty_text())
        self._show_page()
        self._show_zoom()

    # -- what is shown ------------------------------------------------------------

    def show_run(self, run_dir: Path) -> bool:
        """Show `run_dir`'s PDF; False (and the empty sentence) when it has none.

        The same run again (a rebuild): the reader stays where they were. Another
        run: where its reader left it before, else its first page at the view's width."""
        if run_dir == self.run_dir and self.document.pageCount() > 0:
            where = self.view_state()
        else:
            self._remember()
            where = self._views.get(run_dir, ViewState())
        self.run_dir = run_dir
        self.marker.hide()
        shown = run_files.load_report_pdf(self.document, run_dir)
        self._show_state()
        if shown:
            self.restore(where)
        return shown

    def reload(self) -> bool:
        """The shown run's PDF again (rebuilt), where the reader was."""
        return self.show_run(self.run_dir) if self.run_dir is not None else False

    def clear(self) -> None:
        """Nothing shown (a new run is starting): the view of the last one is remembered."""
        self._remember()
        self.run_dir = None
        self.marker.hide()
        self.document.close()
        self._show_state()

    def set_empty_text(self, words: Callable[[], str]) -> None:
        """The sentence shown in place of a PDF; a function, so a language switch says it again."""
        self._empty_text = words
        self.empty.setText(words())

    def has_pages(self) -> bool:
        return self.document.pageCount() > 0

    def _no_pdf_yet(self) -> str:
        return self.tr("No PDF yet.")

    def _remember(self) -> None:
        if self.run_dir is not None and self.has_pages():
            self._views[self.run_dir] = self.view_state()

    def _show_state(self) -> None:
        pages = self.has_pages()
        self.stack.setCurrentIndex(PAGES if pages else EMPTY)
        self.bar.setVisible(pages)  # no zoom or pages to show: the sentence says why
        self.empty.setText(self._empty_text())
        for a in self.actions_of_view:
            a.setEnabled(pages)
        self._show_page()
        self._show_zoom()

    # -- where the reader is ----------------------------------------------------------

    def view_state(self) -> ViewState:
        """Where the top edge of the view is: on which page, and how far down it."""
        value = self.view.verticalScrollBar().value()
        count = self.document.pageCount()
        for page in range(count):
            start, height = self._slot(page)
            if value < start + height or page == count - 1:
                down = (value - start) / height if height > 0 else 0.0
                return ViewState(page, min(1.0, max(0.0, down)), *self._zoom_now())
        return ViewState(0, 0.0, *self._zoom_now())

    def restore(self, where: ViewState) -> None:
        self.view.setZoomMode(where.mode)
        if where.mode == QPdfView.ZoomMode.Custom:
            self.view.setZoomFactor(where.zoom)
        page = min(where.page, max(0, self.document.pageCount() - 1))
        nav = self.view.pageNavigator()
        nav.jump(page, QPointF(), nav.currentZoom())
        start, height = self._slot(page)
        self.view.verticalScrollBar().setValue(round(start + where.down * height))
        self._show_page()

    def _zoom_now(self) -> tuple[QPdfView.ZoomMode, float]:
        return self.view.zoomMode(), self.view.zoomFactor()

    def _slot(self, page: int) -> tuple[float, float]:
        """Where page `page` (0-based) and the gap above it begin in the scrolled area, and
        how tall they are, in pixels (the first page's gap is the document's margin)."""
        gap = self.view.pageSpacing()
        top = self._page_top(page)
        above = self.view.documentMargins().top() if page == 0 else gap
        return top - above, self._page_height(page) + above

    def _page_height(self, page: int) -> float:
        if not 0 <= page < self.document.pageCount():
            return 0.0
        return self.document.pagePointSize(page).height() * self.scale()

    def _page_top(self, page: int) -> float:
        """Where page `page` (0-based) begins in the view's scrolled area, in pixels."""
        top = float(self.view.documentMargins().top())
        for i in range(page):
            top += self._page_height(i) + self.view.pageSpacing()
        return top

    def _show_page(self, *_: object) -> None:
        count = self.document.pageCount()
        if count <= 0:
            self.page_label.setText(self.tr("No PDF yet"))
            return
        page = self.view.pageNavigator().currentPage() + 1
        self.page_label.setText(self.tr("Page {0} of {1}").format(min(page, count), count))

    # -- zoom -------------------------------------------------------------------------

    def zoom_factor(self) -> float:
        """The zoom now, as QPdfView counts it (1.0: a page at its printed size)."""
        if self.view.zoomMode() == QPdfView.ZoomMode.Custom:
            return self.view.zoomFactor()
        return self.scale() * 72.0 / max(1, self.view.logicalDpiX())

    def set_zoom(self, factor: float) -> None:
        self.view.setZoomMode(QPdfView.ZoomMode.Custom)
        self.view.setZoomFactor(min(MAX_ZOOM, max(MIN_ZOOM, factor)))

    def zoom_in(self) -> None:
        self.set_zoom(self.zoom_factor() * ZOOM_STEP)

    def zoom_out(self) -> None:
        self.set_zoom(self.zoom_factor() / ZOOM_STEP)

    def fit_width(self) -> None:
        self.view.setZoomMode(QPdfView.ZoomMode.FitToWidth)

    def fit_page(self) -> None:
        self.view.setZoomMode(QPdfView.ZoomMode.FitInView)

    def _show_zoom(self, *_: object) -> None:
        # the fit modes' zoom follows the view's size: the label shows what it is now
        self.zoom_label.setText(f"{round(self.zoom_factor() * 100)} %" if self.has_pages() else "")
        mode = self.view.zoomMode()
        self.fit_width_action.setChecked(mode == QPdfView.ZoomMode.FitToWidth)
        self.fit_page_action.setChecked(mode == QPdfView.ZoomMode.FitInView)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if watched is self.view.viewport():
            if event.type() == QEvent.Type.Resize:
                QTimer.singleShot(0, self, self._show_zoom)  # once QPdfView has laid out again
            if isinstance(event, QMouseEvent) and event.type() == QEvent.Type.MouseButtonDblClick:
                point = self.pdf_point(event.position())
                if point is not None:
                    self.double_clicked.emit(*point)
                return True
            if isinstance(event, QWheelEvent) and (
                event.modifiers() & Qt.KeyboardModifier.ControlModifier
            ):
                steps = event.angleDelta().y() / 120
                if steps and self.has_pages():
                    self.set_zoom(self.zoom_factor() * ZOOM_STEP**steps)
                return True
        return super().eventFilter(watched, event)

    # -- geometry (SyncTeX) ---------------------------------------------------------------

    def show_point(self, page: int, y: float) -> None:
        """Bring `y` (PDF points) of 1-based `page` into view and mark its line for a moment."""
        nav = self.view.pageNavigator()
        nav.jump(page - 1, QPointF(0.0, max(0.0, y - 40)), nav.currentZoom())
        QTimer.singleShot(0, self, lambda: self._mark(page - 1, y))  # once it has scrolled

    def _mark(self, page: int, y: float) -> None:
        """Highlight the band of the page around `y` (PDF points)."""
        top_left = self.view_point(page, 0.0, y - MARKER_ABOVE_PT)
        if top_left is None:
            return
        scale = self.scale()
        width = self.document.pagePointSize(page).width() * scale
        self.marker.setGeometry(
            round(top_left.x()),
            round(top_left.y()),
            round(width),
            max(8, round((MARKER_ABOVE_PT + MARKER_BELOW_PT) * scale)),
        )
        self.marker.show()
        self.marker.raise_()
        self._marker_timer.start()

    def scale(self) -> float:
        """Viewport pixels per PDF point, from QPdfView's layout rules."""
        view = self.view
        mode = view.zoomMode()
        if mode == QPdfView.ZoomMode.Custom or self.document.pageCount() == 0:
            return view.zoomFactor() * view.logicalDpiX() / 72.0
        sizes = [self.document.pagePointSize(i) for i in range(self.document.pageCount())]
        margins = view.documentMargins()
        width = view.viewport().width() - margins.left() - margins.right()
        scale = width / max(s.width() for s in sizes)
        if mode == QPdfView.ZoomMode.FitInView:
            height = view.viewport().height() - margins.top() - margins.bottom()
            scale = min(scale, height / max(s.height() for s in sizes))
        return scale

    def pdf_point(self, pos: QPointF) -> tuple[int, float, float] | None:
        """A viewport position as (1-based page, x, y) in PDF points, from QPdfView's layout:
        pages stacked top to bottom, centred, `pageSpacing` apart inside `documentMargins`."""
        view = self.view
        scale = self.scale()
        margins = view.documentMargins()
        y = pos.y() + view.verticalScrollBar().value() - margins.top()
        x_view = pos.x() + view.horizontalScrollBar().value()
        for i in range(self.document.pageCount()):
            size = self.document.pagePointSize(i)
            height = size.height() * scale
            if y <= height:
                left = max(margins.left(), (view.viewport().width() - size.width() * scale) / 2)
                return i + 1, (x_view - left) / scale, y / scale
            y -= height + view.pageSpacing()
        return None

    def view_point(self, page: int, x: float, y: float) -> QPointF | None:
        """The inverse of `pdf_point`: a point of a (0-based) page, in viewport pixels."""
        view = self.view
        if not 0 <= page < self.document.pageCount():
            return None
        scale = self.scale()
        width = self.document.pagePointSize(page).width() * scale
        left = max(view.documentMargins().left(), (view.viewport().width() - width) / 2)
        return QPointF(
            left + x * scale - view.horizontalScrollBar().value(),
            self._page_top(page) + y * scale - view.verticalScrollBar().value(),
        )


def with_keys(text: str, action: QAction) -> str:
    """A tooltip that names the action's shortcut, in the platform's words."""
    keys = action.shortcut().toString(QKeySequence.SequenceFormat.NativeText)
    return f"{text} ({keys})" if keys else text
