"""The step timeline: a Qt item model driven only by core events.

One top-level row per milestone of the plan, known from the first event;
tool calls, guards, errors and drafts nest under the milestone they happened
in. Guards carry a plain-language explanation and are highlighted.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, overload

from PySide6.QtCore import (
    QAbstractItemModel,
    QCoreApplication,
    QModelIndex,
    QObject,
    QPersistentModelIndex,
    Qt,
)
from PySide6.QtGui import QBrush, QColor

from labwright.core.error_words import ERROR_TEXT, FAILURE_BRIEF
from labwright.core.events import (
    BibDetail,
    CompileDetail,
    Done,
    Draft,
    DraftDetail,
    Error,
    Event,
    ExploreDetail,
    ExploreSkipped,
    FiguresDetail,
    GapDetail,
    Guard,
    LLMCall,
    Milestone,
    MilestoneDetail,
    Progress,
    RawDetail,
    ReflectDetail,
    ScanDetail,
    ScanPlan,
    StageNames,
    ToolCall,
    ToolResult,
)
from labwright.core.reasons import (
    TR_CONTEXT,
    Degrade,
    Reason,
    explore_reason,
    guard_text,
    reason_text,
)
from labwright.core.settings.config import GuardLimits
from labwright.core.step_words import TR_CONTEXT as STEPS_CONTEXT
from labwright.core.step_words import step_text
from labwright.gui.i18n import catalog_text, current_language, translator

if TYPE_CHECKING:
    from typing import TypeAlias

    AnyIndex: TypeAlias = QModelIndex | QPersistentModelIndex  # what Qt's model API takes

KindRole = Qt.ItemDataRole.UserRole + 1  # "milestone", "tool", "guard", "error", "draft", "note"
StatusRole = (
    Qt.ItemDataRole.UserRole + 2
)  # milestones: pending/running/done/skipped; tools: running/ok/failed
StageRole = Qt.ItemDataRole.UserRole + 3

GUARD_COLOR = QColor(255, 176, 32, 70)  # translucent amber: readable on light and dark palettes
ERROR_COLOR = QColor(230, 60, 60, 70)


def as_count(value: Any) -> int:
    """A count of a run's record for a %n message: a record from elsewhere may hold anything."""
    try:
        return int(value)
    except (TypeError, ValueError):
        return 0


def stage_label(stage: str) -> str:
    labels = {
        StageNames.SCAN: QCoreApplication.translate("Timeline", "Scan the folder"),
        StageNames.EXPLORE: QCoreApplication.translate("Timeline", "Explore the material"),
        StageNames.FIGURES: QCoreApplication.translate("Timeline", "Figures"),
        StageNames.GAP: QCoreApplication.translate("Timeline", "Check the requirements"),
        StageNames.DRAFT: QCoreApplication.translate("Timeline", "Write the draft"),
        StageNames.REFLECT: QCoreApplication.translate("Timeline", "Review and revise"),
        StageNames.BIB: QCoreApplication.translate("Timeline", "Bibliography"),
        StageNames.COMPILE: QCoreApplication.translate("Timeline", "Compile the PDF"),
    }
    return labels.get(stage, stage)


_tr_reason = translator(TR_CONTEXT)


def step_words(words: Any, english: str) -> str:
    """A tool result's or guard's sentence in the UI language, from the event's `words`
    (core/step_words.py); its English when it has none (an older run)."""
    return step_text(words, english, translator(STEPS_CONTEXT))


def guard_explanation(kind: str, limits: GuardLimits | None = None) -> str:
    """What a guard event means, for a person watching the run: core/reasons.py's
    sentence, translated, with the run's own limits in it."""
    return guard_text(kind, limits, _tr_reason)


def reason_explanation(reason: str) -> str:
    """Why a run is degraded, in one translated sentence (core/reasons.py)."""
    parsed = Degrade.parse(reason)
    if parsed is not None and parsed.reason is Reason.MODEL_FAILED:
        # "The model failed (unreachable)." names a code: say what it means
        kind = model_failure(parsed.kind)
        return reason_text(Degrade(Reason.MODEL_FAILED, kind=kind), _tr_reason)
    return reason_text(reason, _tr_reason)


def model_failure(kind: str) -> str:
    """A model failure's kind (LLMError.kind) in a few translated words."""
    return catalog_text(FAILURE_BRIEF, kind, {}, catalog_text(FAILURE_BRIEF, "", {}, kind))


def error_words(kind: str, message: str, words: Any = None) -> str:
    """An error event for a person. In English the core's own message (it names the server,
    the status, what to do); in another language its `words` translated, else the
    translated sentence for its kind, or the message when the kind is not known."""
    if current_language() == "en":
        return message
    if words is not None:
        return step_words(words, message)
    return catalog_text(ERROR_TEXT, kind, {}, message)


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
    raw: Any = None  # what the words were made from: they are made again on a language switch
    live: Any = None  # a running step's model call in flight: (tokens, ms, estimated, thinking)

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
            if isinstance(event, ToolCall):  # the most frequent first
                self._on_tool_call(event)
            elif isinstance(event, ToolResult):
                self._on_tool_result(event)
            elif isinstance(event, Progress):
                self._on_progress(event)
            elif isinstance(event, LLMCall):
                self._on_llm(event)
            elif isinstance(event, Guard):
                self._on_guard(event)
            elif isinstance(event, Milestone):
                self._on_milestone(event)
            elif isinstance(event, Draft):
                self._on_draft(event)
            elif isinstance(event, Error):
                self._on_error(event)
            elif isinstance(event, Done):
                self._on_done(event)
        self._flush_pending()

    def _on_milestone(self, ev: Milestone) -> None:
        self._flush_pending()  # rows so far belong to the milestone before this one
        if not self.plan or len(self.plan) != ev.total:
            plan = ev.detail.plan if isinstance(ev.detail, ScanPlan) else None
            self._set_plan(plan if plan and len(plan) == ev.total else self._guess_plan(ev))
        node = self._root.children[ev.index - 1]
        node.stage = ev.stage
        if ev.status == "start":
            node.status = "running"
            self.current_stage = ev.stage
            self._current = node
        else:
            node.status = _ended(ev)
            node.live = None
            self.done_count = max(self.done_count, ev.index)
            node.raw = (ev.stage, ev.status, ev.detail)
            node.detail = milestone_summary(ev.stage, ev.status, ev.detail)
        self._changed(node)

    def _on_progress(self, ev: Progress) -> None:
        """A model writing: the running step says how far it got, until the call ends."""
        node = self._current
        if node is None or node.status != "running":
            return
        node.live = (ev.tokens, ev.ms, ev.estimated, ev.thinking)
        node.detail = progress_words(*node.live)
        self._changed(node)

    def _on_llm(self, ev: LLMCall) -> None:
        node = self._current
        if node is not None and node.live is not None:
            node.live = None
            node.detail = milestone_summary(*node.raw) if node.raw is not None else ""
            self._changed(node)

    def _on_tool_call(self, ev: ToolCall) -> None:
        args = ", ".join(f"{k}={_short(v)}" for k, v in ev.args.items() if k not in ("code",))
        node = Node("tool", f"{ev.name}({args})", status="running", call_id=ev.call_id)
        if "code" in ev.args:
            node.tooltip = str(ev.args["code"])
        self._calls[ev.call_id] = node
        self._add(node)

    def _on_tool_result(self, ev: ToolResult) -> None:
        node = self._calls.get(ev.call_id)
        if node is None:
            return
        node.status = "ok" if ev.ok else "failed"
        node.raw = (ev.summary, ev.cached, ev.words)
        node.detail = _tool_detail(*node.raw)
        self._changed(node)

    def _on_guard(self, ev: Guard) -> None:
        words = ev.words
        self._add(
            Node(
                "guard",
                guard_explanation(ev.kind, self.limits),
                detail=step_words(words, ev.detail),
                status=ev.kind,
                tooltip=ev.detail,  # the core's own sentence, for whoever helps
                raw=(words, ev.detail),
            )
        )

    def _on_done(self, ev: Done) -> None:
        """A run that ends failed or cancelled leaves no step or tool looking as if it ran on."""
        if ev.status not in ("failed", "cancelled"):
            return
        for milestone in self._root.children:
            if milestone.status == "running":
                milestone.status = "failed" if ev.status == "failed" else "cancelled"
                if milestone.live is not None:
                    milestone.live, milestone.detail = None, ""
                if milestone.shown:
                    self._changed(milestone)
        for node in self._calls.values():
            if node.status == "running":
                node.status = "cancelled"
                if node.shown:
                    self._changed(node)

    def _on_error(self, ev: Error) -> None:
        raw = (ev.kind, ev.message, ev.words)
        self._add(
            Node(
                "error",
                QCoreApplication.translate("Timeline", "Error"),
                detail=error_words(*raw),
                tooltip=ev.message,  # the specifics (server, status) for whoever helps
                raw=raw,
            )
        )

    def _on_draft(self, ev: Draft) -> None:
        node = Node("draft", "", raw=(ev.version, ev.chars))
        self._words(node)
        self._add(node)

    # -- words --------------------------------------------------------------

    def _words(self, node: Node) -> None:
        """A node's title and detail in the current language."""
        if node.kind == "milestone":
            total = self.plan.count(node.stage)
            nth = sum(
                1 for n in self._root.children[: node.row_number + 1] if n.stage == node.stage
            )
            node.title = stage_label(node.stage) + (f" {nth}/{total}" if total > 1 else "")
            if node.live is not None:
                node.detail = progress_words(*node.live)
            elif node.raw is not None:
                node.detail = milestone_summary(*node.raw)
        elif node.kind == "tool" and node.raw is not None:
            node.detail = _tool_detail(*node.raw)
        elif node.kind == "guard":
            node.title = guard_explanation(node.status, self.limits)
            if node.raw is not None:
                node.detail = step_words(*node.raw)
        elif node.kind == "error":
            node.title = QCoreApplication.translate("Timeline", "Error")
            if node.raw is not None:
                node.detail = error_words(*node.raw)
        elif node.kind == "draft" and node.raw is not None:
            version, chars = node.raw
            node.title = QCoreApplication.translate("Timeline", "Draft version {0}").format(version)
            node.detail = QCoreApplication.translate(
                "Timeline", "%n character(s)", "", as_count(chars)
            )

    def retranslate(self) -> None:
        """Every row's words again, after a language switch."""
        stack = list(self._root.children)
        while stack:
            node = stack.pop()
            self._words(node)
            stack.extend(node.children)
        for parent in [self._root, *self._all_parents()]:
            if parent.children:
                first = self.createIndex(0, 0, parent.children[0])
                last = self.createIndex(
                    len(parent.children) - 1, self.COLUMNS - 1, parent.children[-1]
                )
                self.dataChanged.emit(first, last)
        self.headerDataChanged.emit(Qt.Orientation.Horizontal, 0, self.COLUMNS - 1)

    def _all_parents(self) -> list[Node]:
        out, stack = [], list(self._root.children)
        while stack:
            node = stack.pop()
            if node.children:
                out.append(node)
                stack.extend(node.children)
        return out

    # -- structure helpers -----------------------------------------------

    def _guess_plan(self, ev: Milestone) -> list[str]:
        plan = list(self.plan) + [""] * max(0, ev.total - len(self.plan))
        plan[ev.index - 1] = ev.stage
        return plan[: ev.total]

    def _set_plan(self, plan: list[str]) -> None:
        self.beginResetModel()
        old = {i: n for i, n in enumerate(self._root.children)}
        self._root.children = []
        for i, stage in enumerate(plan):
            node = old.get(i) or Node("milestone", "", status="pending", stage=stage)
            node.stage, node.parent, node.row_number, node.shown = stage, self._root, i, True
            self._root.children.append(node)
        self.plan = list(plan)
        for node in self._root.children:
            self._words(node)
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

    def index(self, row: int, column: int, parent: AnyIndex = QModelIndex()) -> QModelIndex:  # noqa: B008
        if not self.hasIndex(row, column, parent):
            return QModelIndex()
        node = parent.internalPointer() if parent.isValid() else self._root
        return self.createIndex(row, column, node.children[row])

    @overload
    def parent(self) -> QObject | None: ...
    @overload
    def parent(self, child: AnyIndex) -> QModelIndex: ...
    def parent(self, child: AnyIndex | None = None) -> QObject | QModelIndex | None:
        """QObject's parent without an index (Qt's overload), the row's parent with one."""
        if child is None:
            return super().parent()
        if not child.isValid():
            return QModelIndex()
        node: Node = child.internalPointer()
        parent = node.parent
        if parent is None or parent is self._root:
            return QModelIndex()
        return self.createIndex(parent.row(), 0, parent)

    def rowCount(self, parent: AnyIndex = QModelIndex()) -> int:  # noqa: B008
        if parent.column() > 0:
            return 0
        node = parent.internalPointer() if parent.isValid() else self._root
        return len(node.children)

    def columnCount(self, parent: AnyIndex = QModelIndex()) -> int:  # noqa: B008
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

    def data(self, index: AnyIndex, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
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

    def flags(self, index: AnyIndex) -> Qt.ItemFlag:
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
    "cancelled": "⊘",
}


def _ended(ev: Milestone) -> str:
    """How a step ended: a step that ends because Cancel stopped it (an exploration cut in
    the middle of a model call) is cancelled, not done."""
    if ev.status != "end":
        return "skipped"
    match ev.detail:
        case ExploreDetail(status="cancelled"):
            return "cancelled"
    return "done"


def _short(value: Any, limit: int = 48) -> str:
    text = value if isinstance(value, str) else str(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _tool_detail(summary: str, cached: bool, words: Any = None) -> str:
    said = step_words(words, summary)
    return said + (QCoreApplication.translate("Timeline", " (earlier result)") if cached else "")


def progress_words(tokens: int, ms: int, estimated: bool, thinking: bool) -> str:
    """A model call in flight, e.g. "writing… 1,234 tokens · 12 s"."""
    secs = ms // 1000
    if tokens <= 0:
        return QCoreApplication.translate("Timeline", "waiting for the model… {0} s").format(secs)
    count = f"{tokens:,}"
    if thinking:
        words = QCoreApplication.translate("Timeline", "thinking… {0} tokens · {1} s")
    else:
        words = QCoreApplication.translate("Timeline", "writing… {0} tokens · {1} s")
    return words.format(("~" if estimated else "") + count, secs)


def milestone_summary(stage: str, status: str, detail: MilestoneDetail | None) -> str:
    """What a finished step did, in plain words (never the event's field names)."""
    parts: list[str] = []

    match detail:
        case ScanDetail(files=files):
            parts.append(QCoreApplication.translate("Timeline", "%n file(s)", "", as_count(files)))
        case ExploreSkipped(reason="offline"):
            parts.append(
                QCoreApplication.translate("Timeline", "Offline: no model read the material")
            )
        case ExploreDetail():
            parts.append(
                QCoreApplication.translate(
                    "Timeline", "%n file(s) read", "", as_count(detail.files_read)
                )
            )
            if detail.model_calls:
                parts.append(
                    QCoreApplication.translate(
                        "Timeline", "%n model call(s)", "", as_count(detail.model_calls)
                    )
                )
            if detail.status != "finished":  # stopped early: say why
                parts.append(reason_explanation(explore_reason(detail.reason)))
        case FiguresDetail(count=figures):
            parts.append(
                QCoreApplication.translate("Timeline", "%n figure(s)", "", as_count(figures))
            )
        case GapDetail(requirements=requirements, unmet=unmet):
            parts.append(
                QCoreApplication.translate(
                    "Timeline", "%n requirement(s)", "", as_count(requirements)
                )
            )
            parts.append(
                QCoreApplication.translate("Timeline", "%n not yet met", "", as_count(len(unmet)))
            )
        case DraftDetail():
            parts.append(
                QCoreApplication.translate("Timeline", "version {0}").format(detail.version)
            )
            parts.append(
                QCoreApplication.translate(
                    "Timeline", "%n character(s)", "", as_count(detail.chars)
                )
            )
            if detail.skeleton:
                parts.append(QCoreApplication.translate("Timeline", "a skeleton with TODOs"))
            if detail.numbers is not None and detail.numbers.unmatched:
                parts.append(
                    QCoreApplication.translate(
                        "Timeline",
                        "%n number(s) not found in the material",
                        "",
                        as_count(detail.numbers.unmatched),
                    )
                )
        case ReflectDetail():
            parts.append(
                QCoreApplication.translate("Timeline", "round {0} of {1}").format(
                    detail.round, detail.of
                )
            )
            reason = detail.reason or ""
            if status == "skipped":
                if reason.startswith("skeleton"):
                    parts.append(
                        QCoreApplication.translate("Timeline", "nothing for a model to revise")
                    )
                elif reason == "token budget":
                    parts.append(
                        QCoreApplication.translate("Timeline", "the token budget is used up")
                    )
                elif reason == "converged":
                    parts.append(
                        QCoreApplication.translate("Timeline", "the draft no longer changes")
                    )
            elif detail.converged:
                parts.append(QCoreApplication.translate("Timeline", "the draft no longer changes"))
        case BibDetail(entries=entries, unresolved=unresolved):
            parts.append(
                QCoreApplication.translate("Timeline", "%n reference(s)", "", as_count(entries))
            )
            if unresolved:
                parts.append(
                    QCoreApplication.translate(
                        "Timeline", "%n citation(s) unresolved", "", as_count(len(unresolved))
                    )
                )
        case CompileDetail(ok=ok, fix_rounds=fix_rounds):
            parts.append(
                QCoreApplication.translate("Timeline", "compiled")
                if ok
                else QCoreApplication.translate("Timeline", "did not compile")
            )
            if fix_rounds:
                parts.append(
                    QCoreApplication.translate(
                        "Timeline", "%n fix round(s)", "", as_count(fix_rounds)
                    )
                )
        case RawDetail(data=str() as said):
            parts.append(said)
    return QCoreApplication.translate("Timeline", ", ").join(parts)  # "，" in Chinese
