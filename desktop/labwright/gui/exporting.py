"""Exporting from the app: ask about open items, choose a .zip or a folder, say where it went.

Every question goes through QMessageBox's and QFileDialog's static functions,
so the platform's own dialogs are used (and tests answer them by patching those).
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QCoreApplication, QStandardPaths, QUrl
from PySide6.QtGui import QDesktopServices
from PySide6.QtWidgets import QFileDialog, QMessageBox, QWidget

from labwright.core.export import export_report, export_warnings


def _tr(text: str) -> str:
    return QCoreApplication.translate("Export", text)


def zip_filter() -> str:
    return _tr("Zip archive (*.zip)")


def folder_filter() -> str:
    return _tr("Folder (*)")


def default_destination(run_dir: Path, folder: Path | None) -> Path:
    """Where the save dialog starts: the documents folder, named after the material."""
    docs = QStandardPaths.writableLocation(QStandardPaths.StandardLocation.DocumentsLocation)
    base = Path(docs) if docs and Path(docs).is_dir() else Path.home()
    stem = f"{folder.name}-report" if folder is not None and folder.name else run_dir.name
    return base / f"{stem}.zip"


def confirm_export(parent: QWidget | None, warnings: list[str]) -> bool:
    """Ask before exporting a draft that needs review; True to go on."""
    if not warnings:
        return True
    answer = QMessageBox.question(
        parent,
        _tr("Export a draft that needs review?"),
        "\n\n".join(warnings) + "\n\n" + _tr("Export anyway?"),
    )
    return answer == QMessageBox.StandardButton.Yes


def choose_destination(parent: QWidget | None, start: Path) -> tuple[Path, bool] | None:
    """The save dialog: (destination, as a zip) or None when the person cancelled."""
    path, chosen = QFileDialog.getSaveFileName(
        parent,
        _tr("Export the report"),
        str(start),
        f"{zip_filter()};;{folder_filter()}",
        zip_filter(),
    )
    if not path:
        return None
    dest = Path(path)
    as_zip = chosen != folder_filter() if chosen else dest.suffix.lower() == ".zip"
    if as_zip and dest.suffix.lower() != ".zip":
        dest = dest.with_name(dest.name + ".zip")
    return dest, as_zip


def export_with_dialogs(
    parent: QWidget | None,
    run_dir: Path,
    folder: Path | None = None,
    warnings: list[str] | None = None,
) -> Path | None:
    """Ask, choose, export; the exported path, or None when cancelled or refused (said why)."""
    if not confirm_export(parent, export_warnings(run_dir) if warnings is None else warnings):
        return None
    chosen = choose_destination(parent, default_destination(run_dir, folder))
    if chosen is None:
        return None
    dest, as_zip = chosen
    try:
        return export_report(run_dir, dest, as_zip=as_zip)
    except (OSError, ValueError) as e:
        QMessageBox.warning(parent, _tr("Export failed"), str(e))
        return None


def show_in_folder(path: Path) -> bool:
    """Open the system file manager where `path` is (the folder itself for an exported folder)."""
    where = path if path.is_dir() else path.parent
    return QDesktopServices.openUrl(QUrl.fromLocalFile(str(where)))
