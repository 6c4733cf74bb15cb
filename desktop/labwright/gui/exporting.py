"""Exporting from the app: ask about open items, choose a .zip, a folder or a Word
document, say where it went.

Every question goes through QMessageBox's and QFileDialog's static functions,
so the platform's own dialogs are used (and tests answer them by patching those).
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
from labwright.gui.i18n import catalog_text, current_language
from labwright.gui.timeline import reason_explanation


def zip_filter() -> str:
    return QCoreApplication.translate("Export", "Zip archive (*.zip)")


def folder_filter() -> str:
    return QCoreApplication.translate("Export", "Folder (*)")


def docx_filter() -> str:
    return QCoreApplication.translate("Export", "Word document (*.docx)")


def default_destination(run_dir: Path, folder: Path | None) -> Path:
    """Where the save dialog starts: the documents folder, named after the material."""
    docs = QStandardPaths.writableLocation(QStandardPaths.StandardLocation.DocumentsLocation)
    base = Path(docs) if docs and Path(docs).is_dir() else Path.home()
    stem = f"{folder.name}-report" if folder is not None and folder.name else run_dir.name
    return base / f"{stem}.zip"


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
    """Ask, choose, export; the exported path, or None when cancelled or refused (said why)."""
    if not confirm_export(parent, export_questions(run_dir) if warnings is None else warnings):
        return None
    chosen = choose_destination(parent, default_destination(run_dir, folder))
    if chosen is None:
        return None
    dest, kind = chosen
    try:
        return export_report(run_dir, dest, as_zip=kind == "zip", as_docx=kind == "docx")
    except (OSError, ValueError) as e:
        QMessageBox.warning(
            parent, QCoreApplication.translate("Export", "Export failed"), refusal_words(e)
        )
        return None


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
