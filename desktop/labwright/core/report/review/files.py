"""The run directory's files as the review reads them (a missing or broken file reads as empty).

run.json, findings.json and gaps.json come through core/rundir/files.py, as typed records;
the others beneath the run folder without following a link (core/rundir/fence.py): a link
reads as empty too."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from labwright.core.rundir import fence
from labwright.core.rundir.files import RunFileError, load_findings, load_gaps, try_load_run
from labwright.core.rundir.records import FindingsRecord, GapRecord, RunRecord
from labwright.core.rundir.store import read_journal


def read_json(run_dir: Path, rel: str, default: Any) -> Any:
    try:
        return json.loads(fence.read_text(run_dir, rel))
    except (OSError, ValueError):
        return default


def run_meta(run_dir: Path) -> RunRecord:
    """run.json, or an empty record when there is none to read (the lists still work)."""
    return try_load_run(run_dir) or RunRecord(status="", config={})


def findings(run_dir: Path) -> FindingsRecord:
    try:
        return load_findings(run_dir) or FindingsRecord()
    except RunFileError:
        return FindingsRecord()


def gaps(run_dir: Path) -> list[GapRecord]:
    try:
        return load_gaps(run_dir) or []
    except RunFileError:
        return []


def journal(run_dir: Path) -> list[dict[str, Any]]:
    try:
        return read_journal(run_dir)
    except OSError:
        return []


def read_text(run_dir: Path, rel: str) -> str:
    try:
        return fence.read_text(run_dir, rel)
    except (OSError, UnicodeDecodeError):
        return ""
