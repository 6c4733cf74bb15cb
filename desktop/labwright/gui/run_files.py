"""A run folder's files as the app shows them: read beneath the run folder without
following a link (core/rundir/fence.py). A file that cannot be read that way (a
link, a FIFO, none at all) shows as absent; Reopen refuses a run folder holding one
with a sentence before any of this runs (MainWindow.open_run).

Qt's own loaders open files by name and follow links, so the PDF preview and the
figure thumbnails get the bytes, never the path.
"""

from __future__ import annotations

import contextlib
from pathlib import Path

from PySide6.QtCore import QBuffer, QByteArray, QIODevice
from PySide6.QtGui import QPixmap
from PySide6.QtPdf import QPdfDocument

from labwright.core.rundir import fence
from labwright.core.rundir.layout import RunDir
from labwright.core.rundir.names import REPORT_PDF


def has_file(run_dir: Path, rel: str) -> bool:
    return fence.is_file(run_dir, rel)


def has_report(run_dir: Path) -> bool:
    return RunDir(run_dir).has_report()


def read_report(run_dir: Path) -> str:
    """report.tex ("" when it cannot be read without following a link)."""
    return RunDir(run_dir).report_text(errors="replace")


def load_report_pdf(doc: QPdfDocument, run_dir: Path) -> bool:
    """report.pdf in `doc` (run_files.load_pdf)."""
    return load_pdf(doc, run_dir, REPORT_PDF)


def read_text(run_dir: Path, rel: str) -> str:
    """The text of `rel` ("" when it cannot be read without following a link)."""
    try:
        return fence.read_text(run_dir, rel, errors="replace")
    except OSError:
        return ""


def pixmap(run_dir: Path, rel: str) -> QPixmap:
    image = QPixmap()
    with contextlib.suppress(OSError):  # a link, none at all: an empty picture
        image.loadFromData(fence.read_bytes(run_dir, rel))
    return image


def load_pdf(doc: QPdfDocument, run_dir: Path, rel: str) -> bool:
    """Show `rel` in `doc` from its bytes; False (and `doc` empty) when there is none."""
    doc.close()
    for old in doc.findChildren(QBuffer):  # the bytes of the PDF shown before
        old.close()
        old.deleteLater()
    try:
        data = fence.read_bytes(run_dir, rel)
    except OSError:
        return False
    buffer = QBuffer(doc)  # lives as long as the document reads from it
    buffer.setData(QByteArray(data))
    buffer.open(QIODevice.OpenModeFlag.ReadOnly)
    doc.load(buffer)
    return doc.status() == QPdfDocument.Status.Ready
