"""The window's menus and their actions: every action is in a menu, with its keys shown there.

The window connects the actions to what they do; the review pane's and the PDF
views' own actions join these menus (View lists the zoom of the PDF on screen).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QObject
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QMainWindow, QMenu

if TYPE_CHECKING:
    from labwright.gui.pdf_view import PdfView


class WindowMenus(QObject):
    def __init__(self, window: QMainWindow) -> None:
        super().__init__(window)

        def action(*keys: QKeySequence) -> QAction:
            a = QAction(window)
            a.setShortcuts(list(keys))
            return a

        self.open_action = action(QKeySequence(QKeySequence.StandardKey.Open))
        self.export_action = action(QKeySequence("Ctrl+E"))
        self.start_action = action(QKeySequence("Ctrl+R"))
        self.cancel_action = action(QKeySequence("Ctrl+."))
        self.review_action = action(QKeySequence("Ctrl+Shift+R"))
        self.settings_action = action(*settings_keys())
        self.quit_action = action(QKeySequence(QKeySequence.StandardKey.Quit))
        self.about_action = action()
        self.check_setup_action = action()
        # not Qt's text heuristics: on macOS "setup" would make it the Preferences item
        self.check_setup_action.setMenuRole(QAction.MenuRole.NoRole)
        bar = window.menuBar()
        self.file_menu = bar.addMenu("")
        for a in (self.open_action, self.export_action):
            self.file_menu.addAction(a)
        self.file_menu.addSeparator()
        self.file_menu.addAction(self.settings_action)
        self.file_menu.addSeparator()
        self.file_menu.addAction(self.quit_action)
        self.edit_menu = bar.addMenu("")  # the review pane's, once it is built
        self.edit_menu.menuAction().setVisible(False)
        self.run_menu = bar.addMenu("")
        for a in (self.start_action, self.cancel_action, self.review_action):
            self.run_menu.addAction(a)
        self.view_menu = bar.addMenu("")
        self.help_menu = bar.addMenu("")  # a setup check, then About
        self.help_menu.addAction(self.check_setup_action)
        self.help_menu.addAction(self.about_action)
        self._pdf_views: list[PdfView] = []

    def retranslate(self) -> None:
        self.open_action.setText(self.tr("&Open Folder…"))
        self.export_action.setText(self.tr("&Export…"))
        self.start_action.setText(self.tr("&Start"))
        self.cancel_action.setText(self.tr("&Cancel Run"))
        self.review_action.setText(self.tr("&Review and Export…"))
        self.settings_action.setText(self.tr("S&ettings…"))
        self.quit_action.setText(self.tr("&Quit"))
        self.about_action.setText(self.tr("&About Labwright"))
        self.check_setup_action.setText(self.tr("Check &Setup…"))
        self.file_menu.setTitle(self.tr("&File"))
        self.edit_menu.setTitle(self.tr("&Edit"))
        self.run_menu.setTitle(self.tr("&Run"))
        self.view_menu.setTitle(self.tr("&View"))
        self.help_menu.setTitle(self.tr("&Help"))

    def add_history_actions(self, actions: list[QAction]) -> None:
        """History's Reopen Run and Delete Run (on the chosen row), under Export in File."""
        separator = next(a for a in self.file_menu.actions() if a.isSeparator())
        self.file_menu.insertSeparator(separator)
        for a in actions:
            self.file_menu.insertAction(separator, a)

    def add_pdf_view(self, view: PdfView) -> None:
        """View lists the zoom of each PDF view; only the one on screen is shown (and its keys
        work), so Ctrl+= always means the PDF in front of the person."""
        self.view_menu.addSeparator()
        for a in view.actions_of_view:
            self.view_menu.addAction(a)
        self._pdf_views.append(view)

    def show_pdf_actions_of(self, shown: PdfView) -> None:
        for view in self._pdf_views:
            for a in view.actions_of_view:
                a.setVisible(view is shown)

    def add_to(self, menu: QMenu, actions: list[QAction], separator: bool = True) -> None:
        if separator and menu.actions():
            menu.addSeparator()
        for a in actions:
            menu.addAction(a)


def settings_keys() -> list[QKeySequence]:
    """The platform's Preferences keys, and Ctrl+, where the platform has none (Linux)."""
    keys = QKeySequence.keyBindings(QKeySequence.StandardKey.Preferences)
    comma = QKeySequence("Ctrl+,")
    return keys if comma in keys else [*keys, comma]
