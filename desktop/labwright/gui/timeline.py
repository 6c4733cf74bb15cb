"""The step timeline: a Qt item model driven only by core events.

One top-level row per milestone of the plan, known from the first event;
tool calls, guards, errors and drafts nest under the milestone they happened
in. Guards carry a plain-language explanation and are highlighted.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from PySide6.QtCore import QAbstractItemModel, QCoreApplication, QModelIndex, QObject, Qt
from PySide6.QtGui import QBrush, QColor

from labwright.core.events import Event
from labwright.core.reasons import TR_CONTEXT, guard_text, reason_text
from labwright.core.settings.config import GuardLimits

KindRole = Qt.ItemDataRole.UserRole + 1  # "milestone", "tool", "guard", "error", "draft", "note"
StatusRole = (
    Qt.ItemDataRole.UserRole + 2
)  # milestones: pending/running/done/skipped; tools: running/ok/failed
StageRole = Qt.ItemDataRole.UserRole + 3

GUARD_COLOR = QColor(255, 176, 32, 70)  # translucent amber: readable on light and dark palettes
ERROR_COLOR = QColor(230, 60, 60, 70)


def stage_label(stage: str) -> str:
    labels = {
        "scan": QCoreApplication.translate("Timeline", "Scan the folder"),
        "explore": QCoreApplication.translate("Timeline", "Explore the material"),
        "figures": QCoreApplication.translate("Timeline", "Figures"),
        "gap": QCoreApplication.translate("Timeline", "Check the requirements"),
        "draft": QCoreApplication.translate("Timeline", "Write the draft"),
        "reflect": QCoreApplication.translate("Timeline", "Review and revise"),
        "bib": QCoreApplication.translate("Timeline", "Bibliography"),
        "compile": QCoreApplication.translate("Timeline", "Compile the PDF"),
    }
    return labels.get(stage, stage)


def _tr_reason(text: str) -> str:
    return QCoreApplication.translate(TR_CONTEXT, text)


def guard_explanation(kind: str, limits: GuardLimits | None = None) -> str:
    """What a guard event means, for a person watching the run: core/reasons.py's
    sentence, translated, with the run's own limits in it."""
    return guard_text(kind, limits, _tr_reason)


def reason_explanation(reason: str) -> str:
    """Why a run is degraded, in one translated sentence (core/reasons.py)."""
    return reason_text(reason, _tr_reason)


@dataclass(eq=False)  # nodes are identities: comparing field by field would walk subtrees
class Node:
    kind: str
    title: str
    detail: str = ""
    status: str = ""
    stage: str = ""
    tooltip: str = ""
    parent: Node | None = None
    children: list[Node] = field(default_factory=list)
    call_id: str = ""
    row_number: int = 0  # rows are only ever appended, so a node's row never changes
    shown: bool = False  # inserted into the model (until then, changes need no signal)

    def row(self) -> int:
        return self.row_number


class TimelineModel(QAbstractItemModel):
    COLUMNS = 2

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._root = Node("root", "")
        self._calls: dict[str, Node] = {}
        self._pending: list[Node] = []
        self._current: Node | None = None
        self.plan: list[str] = []
        self.done_count = 0
        self.current_stage = ""
        self.limits = GuardLimits()  # the run's own: its guard rows quote them

    # -- feeding ------------------------------------------------------------

    def clear(self, limits: GuardLimits | None = None) -> None:
        self.limits = limits or GuardLimits()
        self.beginResetModel()
        self._root.children.clear()
        self._calls.clear()
        self._pending = []
        self._current = None
        self.plan, self.done_count, self.current_stage = [], 0, ""
        self.endResetModel()

    def apply(self, events: list[Event]) -> None:
        """Take a batch of events; new rows under one parent are inserted in one go."""
        for event in events:
            handler = getattr(self, f"_on_{event.type}", None)
            if handler is not None:
                handler(event)
        self._flush_pending()

    def _on_milestone(self, ev: Any) -> None:
        self._flush_pending()  # rows so far belong to the milestone before this one
        if not self.plan or len(self.plan) != ev.total:
            plan = (ev.detail or {}).get("plan") if isinstance(ev.detail, dict) else None
            self._set_plan(plan if plan and len(plan) == ev.total else self._guess_plan(ev))
        node = self._root.children[ev.index - 1]
        node.stage = ev.stage
        if ev.status == "start":
            node.status = "running"
            self.current_stage = ev.stage
            self._current = node
        else:
            node.status = "done" if ev.status == "end" else "skipped"
            self.done_count = max(self.done_count, ev.index)
            node.detail = _summary(ev.detail)
        self._changed(node)

    def _on_tool_call(self, ev: Any) -> None:
        args = ", ".join(f"{k}={_short(v)}" for k, v in ev.args.items() if k not in ("code",))
        node = Node("tool", f"{ev.name}({args})", status="running", call_id=ev.call_id)
        if "code" in ev.args:
            node.tooltip = str(ev.args["code"])
        self._calls[ev.call_id] = node
        self._add(node)

    def _on_tool_result(self, ev: Any) -> None:
        node = self._calls.get(ev.call_id)
        if node is None:
            return
        node.status = "ok" if ev.ok else "failed"
        node.detail = ev.summary + (
            QCoreApplication.translate("Timeline", " (earlier result)") if ev.cached else ""
        )
        self._changed(node)

    def _on_guard(self, ev: Any) -> None:
        self._add(
            Node(
                "guard",
                guard_explanation(ev.kind, self.limits),
                detail=ev.detail,
                status=ev.kind,
                tooltip=ev.detail,
            )
        )

    def _on_error(self, ev: Any) -> None:
        self._add(
            Node(
                "error",
                QCoreApplication.translate("Timeline", "Error"),
                detail=ev.message,
                tooltip=ev.message,
            )
        )

    def _on_draft(self, ev: Any) -> None:
        title = QCoreApplication.translate("Timeline", "Draft version {0}").format(ev.version)
        self._add(
            Node(
                "draft",
                title,
                detail=QCoreApplication.translate("Timeline", "{0} characters").format(ev.chars),
            )
        )

    # -- structure helpers -----------------------------------------------

    def _guess_plan(self, ev: Any) -> list[str]:
        plan = list(self.plan) + [""] * max(0, ev.total - len(self.plan))
        plan[ev.index - 1] = ev.stage
        return plan[: ev.total]

    def _set_plan(self, plan: list[str]) -> None:
        self.beginResetModel()
        old = {i: n for i, n in enumerate(self._root.children)}
        self._root.children = []
        counts: dict[str, int] = {}
        for i, stage in enumerate(plan):
            node = old.get(i) or Node("milestone", "", status="pending", stage=stage)
            node.stage, node.parent, node.row_number, node.shown = stage, self._root, i, True
            counts[stage] = counts.get(stage, 0) + 1
            total = plan.count(stage)
            node.title = stage_label(stage) + (f" {counts[stage]}/{total}" if total > 1 else "")
            self._root.children.append(node)
        self.plan = list(plan)
        self.endResetModel()

    def _add(self, node: Node) -> None:
        if not self._root.children:
            self._set_plan(["scan"])
        parent = self._current or self._root.children[0]
        if self._pending and self._pending[0].parent is not parent:
            self._flush_pending()
        node.parent = parent
        self._pending.append(node)

    def _flush_pending(self) -> None:
        """Insert the rows collected so far (all under one parent) with one signal pair."""
        if not self._pending:
            return
        parent = self._pending[0].parent
        assert parent is not None
        first = len(parent.children)
        self.beginInsertRows(
            self.createIndex(parent.row(), 0, parent), first, first + len(self._pending) - 1
        )
        for i, node in enumerate(self._pending):
            node.row_number, node.shown = first + i, True
        parent.children.extend(self._pending)
        self._pending = []
        self.endInsertRows()

    def _changed(self, node: Node) -> None:
        left = self.createIndex(node.row(), 0, node)
        right = self.createIndex(node.row(), self.COLUMNS - 1, node)
        self.dataChanged.emit(left, right)

    # -- QAbstractItemModel -----------------------------------------------

    def index(self, row: int, column: int, parent: QModelIndex = QModelIndex()) -> QModelIndex:  # noqa: B008
        if not self.hasIndex(row, column, parent):
            return QModelIndex()
        node = parent.internalPointer() if parent.isValid() else self._root
        return self.createIndex(row, column, node.children[row])

    def parent(self, index: QModelIndex = QModelIndex()) -> QModelIndex:  # noqa: B008
        if not index.isValid():
            return QModelIndex()
        node: Node = index.internalPointer()
        parent = node.parent
        if parent is None or parent is self._root:
            return QModelIndex()
        return self.createIndex(parent.row(), 0, parent)

    def rowCount(self, parent: QModelIndex = QModelIndex()) -> int:  # noqa: B008
        if parent.column() > 0:
            return 0
        node = parent.internalPointer() if parent.isValid() else self._root
        return len(node.children)

    def columnCount(self, parent: QModelIndex = QModelIndex()) -> int:  # noqa: B008
        return self.COLUMNS

    def headerData(
        self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole
    ) -> Any:
        if orientation == Qt.Orientation.Horizontal and role == Qt.ItemDataRole.DisplayRole:
            return (
                QCoreApplication.translate("Timeline", "Step"),
                QCoreApplication.translate("Timeline", "Detail"),
            )[section]
        return None

    def data(self, index: QModelIndex, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid():
            return None
        node: Node = index.internalPointer()
        if role == Qt.ItemDataRole.DisplayRole:
            if index.column() == 0:
                return f"{_MARKS.get(node.status, '')} {node.title}".strip()
            return node.detail
        if role == Qt.ItemDataRole.ToolTipRole:
            return node.tooltip or node.detail or None
        if role == Qt.ItemDataRole.BackgroundRole:
            if node.kind == "guard":
                return QBrush(GUARD_COLOR)
            if node.kind == "error" or node.status == "failed":
                return QBrush(ERROR_COLOR)
            return None
        if role == KindRole:
            return node.kind
        if role == StatusRole:
            return node.status
        if role == StageRole:
            return node.stage
        return None

    def flags(self, index: QModelIndex) -> Qt.ItemFlag:
        return _ROW_FLAGS if index.isValid() else Qt.ItemFlag.NoItemFlags


_ROW_FLAGS = (
    Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable
)  # computed once: flags() is hot
_MARKS = {
    "pending": "○",
    "running": "◔",
    "done": "●",
    "skipped": "◌",
    "ok": "✓",
    "failed": "✗",
}


def _short(value: Any, limit: int = 48) -> str:
    text = value if isinstance(value, str) else str(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _summary(detail: Any) -> str:
    if isinstance(detail, dict):
        if "summary" in detail:
            return str(detail["summary"])
        parts = [
            f"{k}: {_short(v, 40)}"
            for k, v in detail.items()
            if v not in (None, "", [], {}) and k not in ("plan", "run_dir", "folder")
        ]
        return ", ".join(parts[:4])
    return "" if detail is None else str(detail)
