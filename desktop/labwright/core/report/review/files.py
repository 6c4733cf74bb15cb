"""The run directory's files as the review reads them (a missing or broken file reads as empty)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from labwright.core.rundir.store import read_journal


def read_json(path: Path, default: Any) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return default


def run_meta(run_dir: Path) -> dict[str, Any]:
    meta = read_json(run_dir / "run.json", {})
    return meta if isinstance(meta, dict) else {}


def journal(run_dir: Path) -> list[dict[str, Any]]:
    try:
        return read_journal(run_dir)
    except OSError:
        return []


def read_text(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return ""
