"""The private TA corpus: seven real course folders, never committed (see its README.md).

Found at $LABWRIGHT_CORPUS, else ~/.cache/labwright-corpus; every test here is skipped,
with the reason, when it is absent.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest


def corpus_root() -> Path:
    given = os.environ.get("LABWRIGHT_CORPUS")
    return Path(given) if given else Path.home() / ".cache" / "labwright-corpus"


@pytest.fixture(scope="session")
def corpus() -> Path:
    root = corpus_root()
    if not (root / "README.md").is_file():
        pytest.skip(
            f"the private TA corpus is not at {root} (set LABWRIGHT_CORPUS to its folder): "
            "its data files are never committed"
        )
    return root


@pytest.fixture
def corpus_folder():
    """corpus_folder("zh-photoelectric-planck") → that folder's material/, or a skip."""

    def find(name: str) -> Path:
        folder = corpus_root() / name / "material"
        if not folder.is_dir():
            pytest.skip(
                f"the TA corpus folder {name} is not here ({folder}); set LABWRIGHT_CORPUS to "
                "the corpus (its files are private and never committed)"
            )
        return folder

    return find
