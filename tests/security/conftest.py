"""Security scenarios: the picked folder must come out unchanged, nothing may leak."""

from __future__ import annotations

from pathlib import Path

import pytest

from canary import CANARY, leaks, snapshot


@pytest.fixture
def outside_canary(tmp_path) -> Path:
    """A file outside any picked folder that no run may read, copy or show."""
    path = tmp_path / "outside" / "secret.txt"
    path.parent.mkdir()
    path.write_text(f"{CANARY}\n", encoding="utf-8")
    return path


@pytest.fixture
def guarded_folder(tmp_path):
    """Yields a function that registers a picked folder; after the test the folder
    must hash the same as when it was registered."""
    watched: list[tuple[Path, dict]] = []

    def watch(folder: Path) -> Path:
        watched.append((folder, snapshot(folder)))
        return folder

    yield watch
    for folder, before in watched:
        assert snapshot(folder) == before, f"the picked folder {folder} was changed"


__all__ = ["CANARY", "leaks"]
