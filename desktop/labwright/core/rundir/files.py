"""The files of a run directory, read and written as typed records (records.py).

This module is the only place in Labwright that opens run.json, findings.json,
evidence.jsonl, figures.json, gaps.json and numbers.json (tests/test_rundir.py
scans the package for any other). Writes are atomic (core/atomic.py). A read
of a file that is absent returns None (or an empty list); one that is damaged,
or comes from a Labwright this one cannot read, raises RunFileError; one that is
a link (or reached through one) raises RunLinkError, a RunFileError: nothing is
read or written through a link (fence.py).
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable
from dataclasses import replace
from pathlib import Path
from typing import Any, TypeVar

from labwright.core.rundir import fence
from labwright.core.rundir.errors import RunLinkError
from labwright.core.rundir.names import (
    DRAFTS,
    EVIDENCE_JSONL,
    FIGURES_JSON,
    FINDINGS_JSON,
    GAPS_JSON,
    NUMBERS_JSON,
    draft_number,
)
from labwright.core.rundir.names import (
    RUN_FILES as RUN_FILES,
)
from labwright.core.rundir.names import (
    RUN_JSON as RUN_JSON,
)
from labwright.core.rundir.records import (
    SCHEMA_VERSION,
    EvidenceRecord,
    FigureRecord,
    FileRecord,
    FindingsRecord,
    GapRecord,
    NumbersRecord,
    RunFileError,
    RunRecord,
    _Bad,
    _Missing,
)

R = TypeVar("R", bound=FileRecord)


def _raw(path: Path) -> Any:
    """The JSON in `path`; RunFileError when it is not JSON (FileNotFoundError passes)."""
    try:
        text = fence.read_text(path.parent, path.name)
    except UnicodeDecodeError:
        raise RunFileError(
            f"{path.name} in {path.parent} is damaged: it is not UTF-8 text."
        ) from None
    except (FileNotFoundError, RunLinkError):
        raise
    except OSError as e:
        raise RunFileError(f"Cannot read {path}: {e.strerror}.") from None
    try:
        return json.loads(text)
    except json.JSONDecodeError as e:
        raise RunFileError(
            f"{path.name} in {path.parent} is damaged: {e.msg} at line {e.lineno}, "
            f"column {e.colno}."
        ) from None


def _damaged(path: Path, bad: _Bad) -> RunFileError:
    return RunFileError(f"{path.name} in {path.parent} is damaged: {bad.where} {bad.what}.")


def _load(path: Path, cls: type[R]) -> R | None:
    try:
        data = _raw(path)
    except FileNotFoundError:
        return None
    try:
        return cls.from_dict(data)
    except _Bad as bad:
        raise _damaged(path, bad) from None


def _load_list(path: Path, cls: type[R]) -> list[R] | None:
    try:
        data = _raw(path)
    except FileNotFoundError:
        return None
    if not isinstance(data, list):
        raise RunFileError(f"{path.name} in {path.parent} is damaged: it does not hold a list.")
    try:
        return [cls.from_dict(item, where=f"item {i + 1}") for i, item in enumerate(data)]
    except _Bad as bad:
        raise _damaged(path, bad) from None


# -- run.json -------------------------------------------------------------------


def is_run_dir(run_dir: Path) -> bool:
    """Whether `run_dir` holds an entry named run.json (readable or not: a link there is
    refused by whatever reads it next, with a sentence that says so)."""
    return Path(run_dir).is_dir() and os.path.lexists(Path(run_dir) / RUN_JSON)


def load_run(run_dir: Path) -> RunRecord:
    """run.json of `run_dir`. RunFileError says why it cannot be used.

    A run.json without "schema_version" comes from before the field existed and is
    read as version 1; only when it also lacks what this version needs does the
    error say it is too old."""
    path = Path(run_dir) / RUN_JSON
    try:
        data = _raw(path)
    except FileNotFoundError:
        raise RunFileError(f"{run_dir} is not a Labwright run directory (no run.json).") from None
    if not isinstance(data, dict):
        raise RunFileError(f"run.json in {run_dir} is damaged: it does not hold an object.")
    version = data.get("schema_version")
    if version is not None and (not isinstance(version, int) or isinstance(version, bool)):
        raise RunFileError(
            f"run.json in {run_dir} is damaged: its schema_version is {version!r}, "
            "not a whole number."
        )
    if isinstance(version, int) and version > SCHEMA_VERSION:
        raise RunFileError(
            f"This run was made by a newer Labwright (run.json schema {version}; this "
            f"version reads up to {SCHEMA_VERSION}). Update Labwright to open it."
        )
    if isinstance(version, int) and version < 1:
        raise RunFileError(f"run.json in {run_dir} is damaged: schema_version {version}.")
    try:
        record = RunRecord.from_dict({**data, "schema_version": version or 1})
    except _Missing as missing:
        if version is None:
            raise RunFileError(
                f"This run was made by an older Labwright (run.json has no schema version) "
                f"and lacks {', '.join(missing.names)}; this version cannot open it."
            ) from None
        raise _damaged(path, missing) from None
    except _Bad as bad:
        raise _damaged(path, bad) from None
    return record


def try_load_run(run_dir: Path) -> RunRecord | None:
    """run.json, or None when there is none or it cannot be used (lists, previews)."""
    try:
        return load_run(run_dir)
    except RunFileError:
        return None


def save_run(run_dir: Path, record: RunRecord) -> Path:
    data = replace(record, schema_version=SCHEMA_VERSION).to_dict()
    return fence.write_json(Path(run_dir), RUN_JSON, data)


def last_draft(run_dir: Path) -> int:
    """The number of the newest drafts/v<n>.tex (0 when there is none)."""
    names = fence.names_in(Path(run_dir), DRAFTS, "v*.tex")
    return max((n for name in names if (n := draft_number(name)) is not None), default=0)


# -- what the stages leave ------------------------------------------------------


def load_findings(run_dir: Path) -> FindingsRecord | None:
    return _load(Path(run_dir) / FINDINGS_JSON, FindingsRecord)


def save_findings(run_dir: Path, findings: FindingsRecord) -> None:
    fence.write_json(Path(run_dir), FINDINGS_JSON, findings.to_dict())


def load_evidence(run_dir: Path) -> list[EvidenceRecord]:
    """evidence.jsonl; a line that is not a record is skipped (each line stands alone)."""
    path = Path(run_dir) / EVIDENCE_JSONL
    try:
        lines = fence.read_text(path.parent, path.name, errors="replace").splitlines()
    except FileNotFoundError:
        return []
    except RunLinkError:
        raise
    except OSError as e:
        raise RunFileError(f"Cannot read {path}: {e.strerror}.") from None
    out = []
    for line in lines:
        if not line.strip():
            continue
        try:
            out.append(EvidenceRecord.from_dict(json.loads(line)))
        except (ValueError, _Bad):
            continue
    return out


def save_evidence(run_dir: Path, records: Iterable[EvidenceRecord]) -> None:
    fence.write_text(
        Path(run_dir),
        EVIDENCE_JSONL,
        "".join(json.dumps(r.to_dict(), ensure_ascii=False) + "\n" for r in records),
    )


def load_figures(run_dir: Path) -> list[FigureRecord] | None:
    return _load_list(Path(run_dir) / FIGURES_JSON, FigureRecord)


def save_figures(run_dir: Path, figures: Iterable[FigureRecord]) -> None:
    fence.write_json(Path(run_dir), FIGURES_JSON, [f.to_dict() for f in figures])


def load_gaps(run_dir: Path) -> list[GapRecord] | None:
    return _load_list(Path(run_dir) / GAPS_JSON, GapRecord)


def save_gaps(run_dir: Path, gaps: Iterable[GapRecord]) -> None:
    fence.write_json(Path(run_dir), GAPS_JSON, [g.to_dict() for g in gaps])


def load_numbers(run_dir: Path) -> NumbersRecord | None:
    return _load(Path(run_dir) / NUMBERS_JSON, NumbersRecord)


def save_numbers(run_dir: Path, numbers: NumbersRecord) -> Path:
    return fence.write_json(Path(run_dir), NUMBERS_JSON, numbers.to_dict())
