"""Deleting a run folder someone sent, which holds links, deletes nothing outside it (issue 24).

History's Delete (the Delete key on the row) moves a run to the system's trash or, where
there is none, removes it for good once asked. A run folder in LABWRIGHT_HOME/runs may have
been copied in from someone else and hold links to anywhere: `figures -> ~/thesis`,
`report.pdf -> ~/private.pdf`, `build/cache -> ~`, a link in drafts/, a dangling link; or the
run folder's own name may be a link to a folder of the person's. Each case deletes through
the window and checks the effect: the outside folder hashes the same afterwards (every file,
folder and mode), the run is gone from History and from runs/. Positive control: a delete
that follows links, run on the same planting, does change the outside folder's hashes.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from PySide6.QtCore import QFile, Qt
from PySide6.QtWidgets import QMessageBox

from canary import CANARY, snapshot
from test_gui_history import click_row

# (the entry of the run folder, what the link points at in the outside folder)
LINKS = [
    ("figures", "thesis"),  # a whole folder of the person's
    ("report.pdf", "private.pdf"),
    ("drafts/v0.tex", "notes.tex"),
    ("build/cache", "."),  # the outside folder itself
    ("dangling", "never-made"),  # whatever follows it would create the file
]


@pytest.fixture
def outside(tmp_path) -> Path:
    """A folder of the person's that a hostile run folder points into."""
    root = tmp_path / "person"
    (root / "thesis" / "chapters").mkdir(parents=True)
    (root / "thesis" / "chapters" / "one.tex").write_text(CANARY, encoding="utf-8")
    (root / "private.pdf").write_text(CANARY, encoding="utf-8")
    (root / "notes.tex").write_text(CANARY, encoding="utf-8")
    return root


def hostile_run(offline_run: Path, home: Path, outside: Path) -> Path:
    """A run folder in History whose entries are links out of it."""
    run_dir = Path(shutil.copytree(offline_run, home / "runs" / "sent-by-a-classmate"))
    for entry, target in LINKS:
        path = run_dir / entry
        if path.is_dir():
            shutil.rmtree(path)
        else:
            path.unlink(missing_ok=True)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.symlink_to(outside / target)
    return run_dir


def delete_with_the_key(qtbot, w, run_dir: Path) -> None:
    click_row(qtbot, w, run_dir)
    qtbot.keyClick(w.history, Qt.Key.Key_Delete)


@pytest.fixture
def no_trash(monkeypatch) -> None:
    monkeypatch.setattr(QFile, "moveToTrash", lambda path: (False, ""))
    monkeypatch.setattr(QMessageBox, "question", lambda *a, **k: QMessageBox.StandardButton.Yes)


def test_deleting_for_good_removes_the_links_not_what_they_point_to(
    qtbot, window_for, offline_run, isolated_home, outside, no_trash
):
    run_dir = hostile_run(offline_run, isolated_home, outside)
    before = snapshot(outside)
    w = window_for()
    assert "cannot be opened" in w.history.item(0).text()  # listed, with the reason
    delete_with_the_key(qtbot, w, run_dir)
    assert not os.path.lexists(run_dir) and w.history.count() == 0
    assert snapshot(outside) == before
    assert not (outside / "never-made").exists()


def test_moving_to_the_trash_follows_nothing_either(
    qtbot, window_for, offline_run, isolated_home, outside, tmp_path, monkeypatch
):
    (tmp_path / "xdg").mkdir()
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))  # the trash: never the real one
    run_dir = hostile_run(offline_run, isolated_home, outside)
    before = snapshot(outside)
    w = window_for()
    delete_with_the_key(qtbot, w, run_dir)
    assert not os.path.lexists(run_dir)
    trashed = tmp_path / "xdg" / "Trash" / "files" / run_dir.name
    assert (trashed / "figures").is_symlink()  # moved as it was, a link still
    assert snapshot(outside) == before


def test_a_run_folder_that_is_itself_a_link_only_loses_the_link(
    qtbot, window_for, offline_run, isolated_home, outside, no_trash
):
    real = Path(shutil.copytree(offline_run, outside / "my-own-run"))
    (isolated_home / "runs").mkdir()
    link = isolated_home / "runs" / "20250101-000000-pendulum"
    link.symlink_to(real)
    before = snapshot(outside)
    w = window_for()
    assert w.history.count() == 1
    delete_with_the_key(qtbot, w, link)
    assert not os.path.lexists(link) and w.history.count() == 0
    assert snapshot(outside) == before and (real / "run.json").is_file()


def test_where_the_walk_cannot_be_kept_from_links_a_folder_holding_one_is_refused(
    qtbot, window_for, offline_run, isolated_home, outside, no_trash, monkeypatch
):
    # as on a system without descriptor-relative calls, where shutil.rmtree walks by name
    monkeypatch.setattr(shutil.rmtree, "avoids_symlink_attacks", False)
    run_dir = hostile_run(offline_run, isolated_home, outside)
    before, kept = snapshot(outside), snapshot(run_dir)
    w = window_for()
    delete_with_the_key(qtbot, w, run_dir)
    assert snapshot(run_dir) == kept and snapshot(outside) == before  # nothing removed
    said = w.notice.text()
    assert "could not be deleted" in said and "is a link" in said


def test_positive_control_a_delete_that_follows_links_is_seen(offline_run, isolated_home, outside):
    (isolated_home / "runs").mkdir()
    run_dir = hostile_run(offline_run, isolated_home, outside)
    before = snapshot(outside)
    for root, _dirs, files in os.walk(run_dir, followlinks=True):  # the naive way
        for name in files:
            path = Path(root) / name
            if path.is_file():
                path.resolve().unlink()
    assert snapshot(outside) != before
