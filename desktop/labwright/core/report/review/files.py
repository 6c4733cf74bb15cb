"""The run directory's files as the review reads them (a missing or broken file reads as empty).

run.json, findings.json and gaps.json come through core/rundir/files.py, as typed records;
the others beneath the run folder without following a link (core/rundir/fence.py): a link
reads as empty too."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from labwright.core.events import Event
from labwright.core.report.templates import TemplateError, load_template
from labwright.core.rundir import fence
from labwright.core.rundir.files import RunFileError, load_findings, load_gaps, try_load_run
from labwright.core.rundir.layout import RunDir
from labwright.core.rundir.records import ConfigRecord, FindingsRecord, GapRecord, RunRecord
from labwright.core.rundir.store import read_journal


def read_json(run_dir: Path, rel: str, default: Any) -> Any:
    try:
        return json.loads(fence.read_text(run_dir, rel))
    except (OSError, ValueError):
        return default


def run_meta(run_dir: Path) -> RunRecord:
    """run.json, or an empty record when there is none to read (the lists still work)."""
    return try_load_run(run_dir) or RunRecord(status="", config=ConfigRecord())


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


def journal(run_dir: Path) -> list[Event]:
    try:
        return read_journal(run_dir)
    except OSError:
        return []


def read_text(run_dir: Path, rel: str) -> str:
    try:
        return fence.read_text(run_dir, rel)
    except (OSError, UnicodeDecodeError):
        return ""


_CTEX = re.compile(r"\\(?:documentclass|usepackage)\s*(?:\[[^\]]*\])?\s*\{ctex")


def report_language(run_dir: Path, tex: str | None = None) -> str:
    """The report's language ("en", "zh"): a ctex document (`tex`, else report.tex) is
    Chinese; else the run's setting, else its template's, else English."""
    if tex is None:
        tex = RunDir(run_dir).report_text()
    if _CTEX.search(tex):
        return "zh"
    meta = try_load_run(run_dir)
    if meta is None:
        return "en"
    lang = meta.config.lang
    if lang:
        return lang
    try:
        return load_template(meta.template).lang if meta.template else "en"
    except TemplateError:
        return "en"
