"""Past runs, from LABWRIGHT_HOME/runs: each can be reopened from its run directory."""

from __future__ import annotations

import json
import time
from pathlib import Path

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QListWidget, QListWidgetItem, QWidget

from labwright.core.settings.config import labwright_home
from labwright.gui.timeline import reason_explanation

STATUS_MARK = {"ok": "●", "degraded": "◐", "failed": "✗", "cancelled": "◌", "running": "◔"}


def past_runs(limit: int = 200) -> list[tuple[Path, dict]]:
    """(run dir, run.json) of the newest runs first; unreadable ones are skipped."""
    root = labwright_home() / "runs"
    if not root.is_dir():
        return []
    out = []
    for d in sorted((p for p in root.iterdir() if p.is_dir()), key=lambda p: p.name, reverse=True)[
        :limit
    ]:
        try:
            out.append((d, json.loads((d / "run.json").read_text(encoding="utf-8"))))
        except (OSError, ValueError):
            continue
    return out


class HistoryList(QListWidget):
    run_chosen = Signal(Path)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.itemActivated.connect(self._activated)
        self.refresh()

    def refresh(self) -> None:
        self.clear()
        for run_dir, meta in past_runs():
            folder = Path(meta.get("config", {}).get("folder", run_dir.name)).name
            when = time.strftime("%Y-%m-%d %H:%M", time.localtime(meta.get("started") or 0))
            status = meta.get("status", "?")
            item = QListWidgetItem(f"{STATUS_MARK.get(status, '?')} {folder}  ·  {when}")
            reasons = [str(r) for r in meta.get("reasons") or []]
            why = "".join(f"\n{reason_explanation(r)}" for r in reasons)
            item.setToolTip(f"{run_dir}\n{status}: {', '.join(reasons) or '—'}{why}")
            item.setData(Qt.ItemDataRole.UserRole, str(run_dir))
            self.addItem(item)

    def _activated(self, item: QListWidgetItem) -> None:
        self.run_chosen.emit(Path(item.data(Qt.ItemDataRole.UserRole)))
