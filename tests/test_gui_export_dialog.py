"""Export's save dialog as a person meets it (issue 24): where it starts, a place it cannot use
refused while choosing, a zip whose files anyone may read, and Show in Folder on a desktop
without a file manager.

The Export button of the review pane is clicked; the platform's dialogs are answered by
patching QFileDialog's and QMessageBox's static functions, and QDesktopServices.openUrl
(which a desktop without a file manager answers False)."""

from __future__ import annotations

import json
import stat
import zipfile
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QDesktopServices, QGuiApplication
from PySide6.QtWidgets import QFileDialog, QMessageBox

from canary import snapshot
from labwright.gui import exporting
from labwright.gui.main_window import REVIEW


class SaveDialogs:
    """The save dialog answered in turn with `answers` (None: Cancel); what it was
    started with and what was said between are recorded."""

    def __init__(self, monkeypatch, answers: list[Path | None], open_url: bool = True):
        self.answers = list(answers)
        self.started: list[str] = []
        self.warned: list[tuple[str, str]] = []
        self.opened: list[str] = []

        def save(parent, caption, start, filters, *args, **kwargs):
            self.started.append(start)
            answer = self.answers.pop(0) if self.answers else None
            return ("", "") if answer is None else (str(answer), exporting.zip_filter())

        def warning(parent, title, text, *args, **kwargs):
            self.warned.append((title, text))
            return QMessageBox.StandardButton.Ok

        def open_in_manager(url):
            self.opened.append(url.toLocalFile())
            return open_url

        monkeypatch.setattr(QFileDialog, "getSaveFileName", save)
        monkeypatch.setattr(QMessageBox, "warning", warning)
        monkeypatch.setattr(QMessageBox, "question", lambda *a, **k: QMessageBox.StandardButton.Yes)
        monkeypatch.setattr(QDesktopServices, "openUrl", open_in_manager)


def material_of(run_dir: Path) -> Path:
    return Path(json.loads((run_dir / "run.json").read_text())["config"]["folder"])


def click_export(qtbot, w) -> None:
    assert w.stack.currentIndex() == REVIEW
    qtbot.mouseClick(w.review.export_button, Qt.MouseButton.LeftButton)


@pytest.fixture
def reviewing(window_for, offline_run):
    w = window_for()
    w.open_run(offline_run)  # a degraded draft: it opens for review
    return w


def test_the_dialog_starts_beside_the_material_folder_then_where_the_last_export_went(
    qtbot, reviewing, offline_run, tmp_path, monkeypatch
):
    material = material_of(offline_run)
    out = tmp_path / "handed-in"
    out.mkdir()
    dialogs = SaveDialogs(monkeypatch, [out / "first.zip", None])
    click_export(qtbot, reviewing)
    assert dialogs.started[0] == str(material.parent / "pendulum-report.zip")
    assert (out / "first.zip").is_file()
    click_export(qtbot, reviewing)
    assert dialogs.started[1] == str(out / "pendulum-report.zip")


def test_a_last_folder_gone_or_inside_the_material_is_not_where_it_starts(
    qtbot, reviewing, offline_run, monkeypatch
):
    from labwright.gui.state import ui_state

    material = material_of(offline_run)
    for last in (material / "data", material.parent / "gone"):
        state = ui_state()
        state.setValue(exporting.LAST_FOLDER_KEY, str(last))  # window.ini from an older day
        state.sync()
        dialogs = SaveDialogs(monkeypatch, [None])
        click_export(qtbot, reviewing)
        assert dialogs.started == [str(material.parent / "pendulum-report.zip")]


def test_the_material_or_run_folder_is_refused_while_choosing(
    qtbot, reviewing, offline_run, tmp_path, guarded_folder, monkeypatch
):
    material = guarded_folder(material_of(offline_run))
    good = tmp_path / "report.zip"
    dialogs = SaveDialogs(monkeypatch, [material / "in-material.zip", offline_run / "in-run", good])
    with qtbot.waitSignal(reviewing.review.exported, timeout=10_000) as done:
        click_export(qtbot, reviewing)
    # one click: the dialog came back twice, each time after the reason was said
    assert len(dialogs.started) == 3
    assert [t for t, _ in dialogs.warned] == ["Choose another place"] * 2
    assert "material folder" in dialogs.warned[0][1] and "run directory" in dialogs.warned[1][1]
    assert all(Path(s).parent == material.parent for s in dialogs.started[1:])  # never inside
    assert done.args == [good] and good.is_file()
    assert not (offline_run / "in-run").exists()


def test_control_cancelling_the_reopened_dialog_exports_nothing(
    qtbot, reviewing, offline_run, monkeypatch
):
    material = material_of(offline_run)
    before = snapshot(material)
    dialogs = SaveDialogs(monkeypatch, [material / "x.zip", None])
    click_export(qtbot, reviewing)
    assert len(dialogs.started) == 2 and len(dialogs.warned) == 1
    assert snapshot(material) == before and not reviewing.notice.isVisible()


def test_files_in_the_zip_are_readable_by_anyone_and_folders_are_folders(
    qtbot, reviewing, offline_run, tmp_path, monkeypatch
):
    assert stat.S_IMODE((offline_run / "report.tex").stat().st_mode) == 0o600  # the run's own
    SaveDialogs(monkeypatch, [tmp_path / "report.zip"])
    click_export(qtbot, reviewing)
    with zipfile.ZipFile(tmp_path / "report.zip") as z:
        modes = {i.filename: (i.external_attr >> 16, i.is_dir()) for i in z.infolist()}
    assert modes["figures/"] == (stat.S_IFDIR | 0o755, True)
    files = {n: m for n, (m, is_dir) in modes.items() if not is_dir}
    assert "report.tex" in files and "README.txt" in files and "figures/table1.pdf" in files
    assert set(files.values()) == {stat.S_IFREG | 0o644}, files
    # unpacked as unzip does, the figures folder comes first, so it exists for its files
    names = list(modes)
    assert names.index("figures/") < names.index("figures/table1.pdf")


def test_show_in_folder_without_a_file_manager_says_so_and_offers_the_path(
    qtbot, reviewing, tmp_path, monkeypatch
):
    out = tmp_path / "report.zip"
    dialogs = SaveDialogs(monkeypatch, [out], open_url=False)
    click_export(qtbot, reviewing)
    notice = reviewing.notice
    assert notice.isVisible() and "Show in Folder" in notice.button.text()
    qtbot.mouseClick(notice.button, Qt.MouseButton.LeftButton)
    assert dialogs.opened == [str(tmp_path)]  # it was tried
    assert "No file manager" in notice.text() and str(out) in notice.text()
    assert notice.label.textInteractionFlags() & Qt.TextInteractionFlag.TextSelectableByMouse
    qtbot.mouseClick(notice.button, Qt.MouseButton.LeftButton)  # "Copy Path"
    assert QGuiApplication.clipboard().text() == str(out)


def test_control_with_a_file_manager_show_in_folder_opens_it(
    qtbot, reviewing, tmp_path, monkeypatch
):
    dialogs = SaveDialogs(monkeypatch, [tmp_path / "report.zip"], open_url=True)
    click_export(qtbot, reviewing)
    qtbot.mouseClick(reviewing.notice.button, Qt.MouseButton.LeftButton)
    assert dialogs.opened == [str(tmp_path)]
    assert "Exported to" in reviewing.notice.text()
