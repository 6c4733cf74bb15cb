"""The interface language: English source strings, translations from package data
(labwright/resources/translations/*.ts, read through labwright.core.resources).

Qt's .ts files are read directly (a QTranslator that looks strings up in the
parsed XML), so no compiled .qm binaries are generated or shipped.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from PySide6.QtCore import QCoreApplication, QLibraryInfo, QLocale, QTranslator
from PySide6.QtGui import QFont, QFontDatabase, QGuiApplication

from labwright.core import resources
from labwright.core.catalog import Catalog, Translate

LANGUAGES = {"en": "English", "zh_CN": "简体中文"}


# Which numerus form a count takes, by the .ts file's language (Qt's plural rules for the
# languages Labwright ships): Chinese has one form, English "1 file" and "2 files".
PLURAL_FORM: dict[str, Callable[[int], int]] = {
    "zh_CN": lambda n: 0,
    "en": lambda n: 0 if n == 1 else 1,
}


class TsTranslator(QTranslator):
    """Translations straight from a Qt Linguist .ts file, numerus forms (%n) included."""

    def __init__(self, ts_file: Path) -> None:
        import xml.etree.ElementTree as ET  # only when a translation is in use

        super().__init__()
        self._table: dict[tuple[str, str], list[str]] = {}
        root = ET.parse(ts_file).getroot()
        self._form = PLURAL_FORM.get(root.get("language") or "", lambda n: 0)
        for context in root.iter("context"):
            name = context.findtext("name") or ""
            for message in context.iter("message"):
                source = message.findtext("source")
                tr = message.find("translation")
                if (
                    source is None
                    or tr is None
                    or tr.get("type") in ("unfinished", "obsolete", "vanished")
                ):
                    continue
                forms = [f.text or "" for f in tr.iter("numerusform")] or [tr.text or ""]
                if all(forms):
                    self._table[(name, source)] = forms

    def translate(
        self, context: str, source: str, disambiguation: str | None = None, n: int = -1
    ) -> str | None:
        # None (a null QString), not "": Qt then keeps the source text, and PySide's tr()
        # can walk on to base-class contexts instead of taking "" for a translation.
        # Qt puts the count in for %n itself, in a translation and in a source alike.
        forms = self._table.get((context, source))
        if forms is None:
            return None
        return forms[min(self._form(n), len(forms) - 1)] if n >= 0 else forms[0]

    def isEmpty(self) -> bool:
        return not self._table

    def __len__(self) -> int:
        return len(self._table)


def translator(context: str) -> Translate:
    """The `tr` the core's wording functions take: Qt's translation under `context`."""
    return lambda text: QCoreApplication.translate(context, text)


def catalog_text(catalog: Catalog, code: str, params: Mapping[str, Any], english: str) -> str:
    """A core sentence given as a code and its params (core/catalog.py), in the interface
    language; `english` when the code is not known (a record of another version)."""
    text = catalog.text(code, params, translator(catalog.context))
    return english if text is None else text


def resolve_language(setting: str) -> str:
    """ "system" follows the OS: Chinese locales get zh_CN, everything else English."""
    if setting in LANGUAGES:
        return setting
    return "zh_CN" if QLocale.system().language() == QLocale.Language.Chinese else "en"


_installed: list[QTranslator] = []
_current = "en"
# sans-serif faces for Chinese, best first: without one named, Qt may take a serif (Song) face
CJK_SANS = (
    "Noto Sans CJK SC",
    "Source Han Sans SC",
    "Microsoft YaHei",
    "PingFang SC",
    "WenQuanYi Micro Hei",
    "Noto Sans SC",
)
_latin_families: list[str] | None = None


def current_language() -> str:
    """The interface language in use ("en" or "zh_CN")."""
    return _current


def ensure_language() -> None:
    """The language in use installed, if nothing installed one yet: English needs its .ts
    too, for its plural forms ("1 file", "2 files" from "%n file(s)")."""
    if not _installed and QCoreApplication.instance() is not None:
        install_language(_current)


def install_language(setting: str) -> str:
    """Switch the application's translators and UI font; returns the language now in use."""
    global _current
    app = QCoreApplication.instance()
    if app is None:
        raise RuntimeError("the interface language is installed into a running application")
    lang = resolve_language(setting)
    for old in _installed:
        app.removeTranslator(old)
    _installed.clear()
    ts = f"translations/labwright_{lang}.ts"  # English's holds its plural forms only
    if resources.exists(ts):
        with resources.path(ts) as real:
            translator = TsTranslator(real)
        app.installTranslator(translator)
        _installed.append(translator)
    if lang != "en":
        # Qt's own words (OK, Cancel, Yes, the file dialog), from the catalogue PySide6 ships
        qt = QTranslator()
        folder = QLibraryInfo.path(QLibraryInfo.LibraryPath.TranslationsPath)
        if qt.load(f"qtbase_{lang}", folder):
            app.installTranslator(qt)
            _installed.append(qt)
    _current = lang
    apply_ui_font(lang)
    return lang


def apply_ui_font(lang: str) -> None:
    """Chinese in a sans-serif face where one is installed; Latin text keeps the system font."""
    global _latin_families
    if not isinstance(QCoreApplication.instance(), QGuiApplication):
        return
    font = QGuiApplication.font()
    if _latin_families is None:
        _latin_families = list(font.families()) or [font.family()]
    families = list(_latin_families)
    if lang.startswith("zh"):
        installed = set(QFontDatabase.families())
        families += [f for f in CJK_SANS if f in installed][:1]
    if families != list(font.families()):
        font = QFont(font)
        font.setFamilies(families)
        QGuiApplication.setFont(font)
        _repolish_styled_widgets()


def _repolish_styled_widgets() -> None:
    """A widget with a style sheet (the banners, the drop zone) keeps the font it was
    polished with, it and its children: Qt passes a new application font on to every
    other widget only. Setting the sheet again polishes it in the new font."""
    from PySide6.QtWidgets import QApplication  # a QGuiApplication alone has no widgets

    if not isinstance(QCoreApplication.instance(), QApplication):
        return
    for widget in QApplication.allWidgets():
        sheet = widget.styleSheet()
        if sheet:
            widget.setStyleSheet(sheet)
