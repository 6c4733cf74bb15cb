"""Exporting from the app: ask about open items, choose a .zip, a folder or a Word
document, say where it went.

Every question goes through QMessageBox's and QFileDialog's static functions,
so the platform's own dialogs are used (and tests answer them by patching those).
The save dialog starts where the last export went, else beside the material
folder (never inside it, nor inside the run folder); a place the export cannot
use (the material folder, the run folder, a folder that is not empty) is refused
while choosing: the reason is said and the dialog opens again at once.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QCoreApplication, QStandardPaths, QUrl
from PySide6.QtGui import QDesktopServices
from PySide6.QtWidgets import QFileDialog, QMessageBox, QWidget

from labwright.core.report.export import (
    REFUSALS,
    ExportError,
    export_report,
    export_warnings,
)
from labwright.core.report.review import open_items, why_degraded
from labwright.core.rundir.files import try_load_run
from labwright.core.rundir.layout import RunDir
from labwright.core.rundir.store import is_within
from labwright.gui.i18n import catalog_text, current_language
from labwright.gui.state import ui_state
from labwright.gui.timeline import reason_explanation

LAST_FOLDER_KEY = "export/last_folder"  # in window.ini (gui/state.py)
# ExportError codes about the place chosen: the dialog opens again, the rest end the export
PLACE_REFUSALS = frozenset(
    {"in_material", "in_run", "zip_is_folder", "no_parent", "folder_is_file", "folder_not_empty"}
)


def zip_filter() -> str:
    return QCoreApplication.translate("Export", "Zip archive (*.zip)")


def folder_filter() -> str:
    return QCoreApplication.translate("Export", "Folder (*)")


def docx_filter() -> str:
    return QCoreApplication.translate("Export", "Word document (*.docx)")


def default_destination(run_dir: Path, folder: Path | None) -> Path:
    """Where the save dialog starts, named after the material: the folder of the last
    export, else the material folder's parent, else the documents folder; never a
    place inside the material folder (Labwright never writes there) or the run folder."""
    if folder is None:
        meta = try_load_run(run_dir)
        folder = meta.folder if meta is not None else None
    stem = f"{folder.name}-report" if folder is not None and folder.name else run_dir.name
    return start_folder(run_dir, folder) / f"{stem}.zip"


def start_folder(run_dir: Path, folder: Path | None) -> Path:
    last = ui_state().value(LAST_FOLDER_KEY)
    docs = QStandardPaths.writableLocation(QStandardPaths.StandardLocation.DocumentsLocation)
    for base in (
        Path(last) if isinstance(last, str) and last else None,
        folder.parent if folder is not None and folder.name else None,
        Path(docs) if docs else None,
    ):
        if base is not None and base.is_dir() and not _inside(base, run_dir, folder):
            return base
    return Path.home()


def _inside(place: Path, run_dir: Path, folder: Path | None) -> bool:
    return is_within(place, run_dir) or (folder is not None and is_within(place, folder))


def remember_export(out: Path) -> None:
    """The next export's dialog starts where this one went."""
    state = ui_state()
    state.setValue(LAST_FOLDER_KEY, str(out.parent))
    state.sync()


def degraded_words(run_dir: Path) -> str | None:
    """Why a run is degraded, for the review banner and the export question.

    In English the core's full explanation (which call, what had been read); in another
    language the translated sentences of the one table (core/reasons.py)."""
    if current_language() == "en":
        return why_degraded(run_dir)
    meta = try_load_run(run_dir)
    reasons = meta.reasons if meta is not None else []
    return " ".join(reason_explanation(r) for r in reasons) or None


def export_questions(run_dir: Path) -> list[str]:
    """What to ask before exporting (core/export.export_warnings), in the interface language."""
    if current_language() == "en":
        try:
            return export_warnings(run_dir)
        except OSError:  # a run folder holding a link: export_report says so, nothing to ask
            return []
    out = []
    why = degraded_words(run_dir)
    if why:
        out.append(QCoreApplication.translate("Export", "This draft is degraded: {0}").format(why))
    items = open_items(run_dir)
    if items:
        out.append(
            QCoreApplication.translate("Export", "Open items remain: {0}.").format(len(items))
        )
    if not RunDir(run_dir).has_pdf():
        out.append(
            QCoreApplication.translate(
                "Export", "There is no compiled PDF yet: the export holds the LaTeX source only."
            )
        )
    return out


def confirm_export(parent: QWidget | None, warnings: list[str]) -> bool:
    """Ask before exporting a draft that needs review; True to go on."""
    if not warnings:
        return True
    answer = QMessageBox.question(
        parent,
        QCoreApplication.translate("Export", "Export a draft that needs review?"),
        "\n\n".join(warnings) + "\n\n" + QCoreApplication.translate("Export", "Export anyway?"),
    )
    return answer == QMessageBox.StandardButton.Yes


def choose_destination(parent: QWidget | None, start: Path) -> tuple[Path, str] | None:
    """The save dialog: (destination, "zip" | "folder" | "docx") or None when cancelled."""
    path, chosen = QFileDialog.getSaveFileName(
        parent,
        QCoreApplication.translate("Export", "Export the report"),
        str(start),
        f"{zip_filter()};;{folder_filter()};;{docx_filter()}",
        zip_filter(),
    )
    if not path:
        return None
    dest = Path(path)
    by_filter = {zip_filter(): "zip", folder_filter(): "folder", docx_filter(): "docx"}
    by_suffix = {".zip": "zip", ".docx": "docx"}
    kind = by_filter.get(chosen) or by_suffix.get(dest.suffix.lower(), "zip")
    if kind in by_suffix.values() and dest.suffix.lower() != f".{kind}":
        dest = dest.with_name(f"{dest.name}.{kind}")
    return dest, kind


def export_with_dialogs(
    parent: QWidget | None,
    run_dir: Path,
    folder: Path | None = None,
    warnings: list[str] | None = None,
) -> Path | None:
    """Ask, choose, export; the exported path, or None when cancelled or refused (said why).

    A place the export refuses (inside the material folder, the run folder, a folder
    that is not empty, ...) is said at once and the dialog opens again."""
    if not confirm_export(parent, export_questions(run_dir) if warnings is None else warnings):
        return None
    start = default_destination(run_dir, folder)
    while True:
        chosen = choose_destination(parent, start)
        if chosen is None:
            return None
        dest, kind = chosen
        try:
            out = export_report(run_dir, dest, as_zip=kind == "zip", as_docx=kind == "docx")
        except ExportError as e:
            if e.code not in PLACE_REFUSALS:
                _say_failed(parent, e)
                return None
            QMessageBox.warning(
                parent,
                QCoreApplication.translate("Export", "Choose another place"),
                refusal_words(e),
            )
            start = start.parent / dest.name  # the same name, where the dialog started
            continue
        except (OSError, ValueError) as e:
            _say_failed(parent, e)
            return None
        remember_export(out)
        return out


def _say_failed(parent: QWidget | None, e: BaseException) -> None:
    QMessageBox.warning(
        parent, QCoreApplication.translate("Export", "Export failed"), refusal_words(e)
    )


def refusal_words(e: BaseException) -> str:
    """Why an export was refused, in the interface language (the core's ExportError
    says it as a code and params); other failures (a full disk) as the system said them."""
    if isinstance(e, ExportError):
        return catalog_text(REFUSALS, e.code, e.params, str(e))
    return str(e)


def show_in_folder(path: Path) -> bool:
    """Open the system file manager where `path` is (the folder itself for an exported folder)."""
    where = path if path.is_dir() else path.parent
    return QDesktopServices.openUrl(QUrl.fromLocalFile(str(where)))
