"""The tables `load` hands sandboxed code: found here in the parent, sent as plain data.

The table detector (core/material/tables) reads the picked folder through its fence; the
child gets only the result (analysis/frames.py turns it into DataFrames), so no detector
code runs where model-written code runs and nothing of the folder is opened there for it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

# All the cells of one run's tables (they cross as JSON in the child's job file).
MAX_CELLS = 400_000


def tables_for(data_dir: Path, rels: list[str]) -> dict[str, Any]:
    """The payload of `load` for these files (relative to the picked folder)."""
    # on use: the analysis library (~180 ms of imports) only when an analysis loads tables
    from labwright.core.analysis.tables import prepare

    return prepare(data_dir, rels, max_cells=MAX_CELLS)
