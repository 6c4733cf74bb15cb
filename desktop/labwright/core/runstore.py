"""The run directory: the journal, run.json and every file a run writes, atomically.

Layout (DESIGN.md): run.json, events.jsonl, findings.json, evidence.jsonl,
report.tex, drafts/, refs.bib, figures/, report.pdf. The picked folder is
never written to: a run directory inside it is refused.
"""

from __future__ import annotations

import json
import os
import re
import tempfile
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

from .config import RunConfig, labwright_home
from .events import Event


class RunDirError(Exception):
    """The run directory cannot be used; the message says why and what to do."""


def atomic_write_bytes(path: Path, data: bytes) -> None:
    """Write to a temp file beside `path`, then rename over it: readers never see half a file."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def atomic_write_text(path: Path, text: str) -> None:
    atomic_write_bytes(path, text.encode("utf-8"))


def atomic_write_json(path: Path, data: Any) -> None:
    atomic_write_text(path, json.dumps(data, ensure_ascii=False, indent=2) + "\n")


def _slug(name: str) -> str:
    slug = re.sub(r"[^\w.-]+", "-", name, flags=re.UNICODE).strip("-.")
    return slug[:40] or "run"


def new_run_dir(runs_root: Path, folder: Path) -> Path:
    """runs/<date>-<time>-<folder name>, made unique with a counter."""
    stamp = time.strftime("%Y%m%d-%H%M%S")
    base = runs_root / f"{stamp}-{_slug(folder.name)}"
    candidate, n = base, 1
    while candidate.exists():
        n += 1
        candidate = base.with_name(f"{base.name}-{n}")
    return candidate


def prepare_run_dir(config: RunConfig) -> RunConfig:
    """The config with its run directory chosen (LABWRIGHT_HOME/runs/... by default)."""
    if config.out_dir is not None:
        return config
    return replace(config, out_dir=new_run_dir(labwright_home() / "runs", config.folder))


def is_within(child: Path, parent: Path) -> bool:
    child, parent = Path(os.path.realpath(child)), Path(os.path.realpath(parent))
    return child == parent or parent in child.parents


class RunStore:
    """One run's directory. Events are appended and flushed one by one."""

    def __init__(self, run_dir: Path, folder: Path, *, resume: bool = False) -> None:
        if is_within(run_dir, folder):
            raise RunDirError(
                f"The output folder {run_dir} is inside the material folder {folder}; "
                "Labwright never writes into the folder you picked. Choose another --out."
            )
        if resume and not (run_dir / "events.jsonl").is_file():
            raise RunDirError(f"{run_dir} holds no run to resume (no events.jsonl).")
        if not resume and (run_dir / "events.jsonl").exists():
            raise RunDirError(
                f"{run_dir} already holds a run. Choose an empty folder, or continue it "
                "with --resume."
            )
        try:
            run_dir.mkdir(parents=True, exist_ok=True)
            (run_dir / "drafts").mkdir(exist_ok=True)
            (run_dir / "figures").mkdir(exist_ok=True)
            self._journal = open(run_dir / "events.jsonl", "a", encoding="utf-8")  # noqa: SIM115
        except OSError as e:
            raise RunDirError(f"Cannot create the run folder {run_dir}: {e.strerror}.") from None
        self.dir = run_dir

    def append(self, event: Event) -> None:
        self._journal.write(event.to_json() + "\n")
        self._journal.flush()

    def write_json(self, name: str, data: Any) -> Path:
        path = self.dir / name
        atomic_write_json(path, data)
        return path

    def write_text(self, name: str, text: str) -> Path:
        path = self.dir / name
        atomic_write_text(path, text)
        return path

    def append_jsonl(self, name: str, records: list[dict[str, Any]]) -> None:
        with open(self.dir / name, "a", encoding="utf-8") as f:
            for rec in records:
                f.write(json.dumps(rec, ensure_ascii=False) + "\n")

    def close(self) -> None:
        if not self._journal.closed:
            self._journal.close()


def read_journal(run_dir: Path) -> list[dict[str, Any]]:
    """The events of a run; a torn last line (a killed run) is ignored."""
    out = []
    with open(run_dir / "events.jsonl", encoding="utf-8") as f:
        for line in f:
            try:
                out.append(json.loads(line))
            except json.JSONDecodeError:
                break
    return out
