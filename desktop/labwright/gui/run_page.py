"""The run page: which folder and run, this run's options, how far it got, its steps and results.

Each part is a widget with one job; RunPage lays them out. The window feeds them.
"""

from __future__ import annotations

import html
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QHBoxLayout,
    QLabel,
    QProgressBar,
    QPushButton,
    QSpinBox,
    QSplitter,
    QVBoxLayout,
    QWidget,
)

from labwright.core.events import Event, LLMCall
from labwright.core.report import templates
from labwright.core.settings.saved import Settings
from labwright.gui.result_tabs import ResultTabs
from labwright.gui.state import remember_splitter
from labwright.gui.timeline import stage_label
from labwright.gui.timeline_view import TimelineView
from labwright.gui.widgets import MessageBanner, Words

if TYPE_CHECKING:
    from labwright.core.llm.client import Usage
    from labwright.core.material.workspace import ScanResult
    from labwright.core.settings.config import RunConfig


class RunHeader(QWidget):
    """Which folder and run are shown, what the scan found, which sandbox holds model code.

    The scan line and the sandbox line are kept as what they say, not as text: a language
    switch words them again."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.folder_label = QLabel()
        self.folder_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.scan_label = QLabel()
        self.scan_label.setWordWrap(True)
        self.sandbox_label = QLabel()  # which OS sandbox holds the model's code, once known
        self.sandbox_label.setWordWrap(True)
        self.sandbox_label.hide()
        self._scan: Mapping[str, Any] | Exception | None = None  # a scan's detail, or its failure
        self._scanning = False
        self._sandbox: Words | None = None
        self._place: tuple[Path | None, Path | None] = (None, None)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        for w in (self.folder_label, self.scan_label, self.sandbox_label):
            layout.addWidget(w)

    def retranslate(self) -> None:
        self.show_place(*self._place)
        self._show_scan_line()
        if self._sandbox is not None:
            self.sandbox_label.setText(self._sandbox())

    def show_place(self, folder: Path | None, run_dir: Path | None) -> None:
        """The material folder by name and place; the run by its name (its place on hover)."""
        self._place = (folder, run_dir)
        e = html.escape
        parts = []
        if folder is not None and folder.name:
            parts.append(f"<b>{e(folder.name)}</b> — {e(str(folder))}")
        if run_dir is not None:
            parts.append(e(self.tr("run {0}").format(run_dir.name)))
        self.folder_label.setText(" · ".join(parts))
        tips = [str(folder)] if folder is not None and folder.name else []
        if run_dir is not None:
            tips.append(self.tr("Run folder: {0}").format(run_dir))
        self.folder_label.setToolTip("\n".join(tips))

    def scanning(self) -> None:
        self._scan, self._scanning = None, True
        self._show_scan_line()

    def show_scan(self, result: ScanResult | Mapping[str, Any] | Exception) -> None:
        """A scan's result: from the background scan of a folder just opened (a ScanResult
        or its failure), or the `scan` milestone's detail of a run (its journal)."""
        from labwright.core.material.workspace import ScanResult  # (a scan module: on use)

        self._scan = result.to_dict() if isinstance(result, ScanResult) else result
        self._scanning = False
        self._show_scan_line()

    def clear_scan(self) -> None:
        self._scan, self._scanning, self._sandbox = None, False, None
        self.scan_label.setText("")
        self.sandbox_label.hide()

    def show_sandbox(self, words: Words) -> None:
        self._sandbox = words
        self.sandbox_label.setText(words())
        self.sandbox_label.show()

    def start_blocker(self) -> str | None:
        """Why Start cannot work on the folder as scanned, in a sentence; None when it can
        (also while the scan is still going: it is quick, and the run scans again)."""
        scan = self._scan
        if isinstance(scan, Exception):
            return self.tr("The folder could not be scanned: {0}").format(scan)
        if scan is None or _count(scan, "files"):
            return None
        hidden, skipped = _count(scan, "hidden"), _count(scan, "skipped")
        if hidden or skipped:
            return self.tr(
                "This folder holds nothing Labwright reads: its {0} hidden and {1} skipped entries are left out. Add your measurements, the lab manual or photos, or open another folder."
            ).format(hidden, skipped)
        return self.tr(
            "This folder is empty: there is nothing to read. Add your measurements, the lab manual or photos, or open another folder."
        )

    def _show_scan_line(self) -> None:
        blocker = self.start_blocker()
        if blocker is not None:
            self.scan_label.setText(f"⚠ {blocker}")
        elif self._scanning:
            self.scan_label.setText(self.tr("Scanning…"))
        elif isinstance(self._scan, Mapping):
            self.scan_label.setText(self._scan_words(self._scan))
        else:
            self.scan_label.setText("")

    def _scan_words(self, scan: Mapping[str, Any]) -> str:
        c = scan.get("counts") or {}
        text = self.tr("{0} files: {1} documents, {2} images, {3} data, {4} other").format(
            _count(scan, "files"),
            c.get("documents", 0),
            c.get("images", 0),
            c.get("data", 0),
            c.get("other", 0),
        )
        extras = []
        # literal tr() calls, so that lupdate sees each plural message
        if hidden := _count(scan, "hidden"):
            extras.append(self.tr("%n hidden", "", hidden))
        if huge := _count(scan, "huge"):
            extras.append(self.tr("%n too large to read", "", huge))
        if skipped := _count(scan, "skipped"):
            extras.append(self.tr("%n skipped", "", skipped))
        if not extras:
            return text
        return self.tr("{0} ({1})").format(text, self.tr(", ").join(extras))


def _count(scan: Mapping[str, Any], name: str) -> int:
    """How many files, or hidden / huge / skipped entries (those past the listed cap too)."""
    value = scan.get(name)
    if name == "files":
        return value if isinstance(value, int) else 0
    listed = len(value) if isinstance(value, list) else 0
    omitted = scan.get("omitted")
    more = omitted.get(name, 0) if isinstance(omitted, Mapping) else 0
    return listed + (more if isinstance(more, int) else 0)


class RunOptions(QWidget):
    """This run's template, language, revisions and offline switch; Review, Start, Cancel."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.template_combo = QComboBox()
        self.template_combo.addItems(templates.available())
        self.lang_combo = QComboBox()
        self.lang_combo.addItem("English", "en")
        self.lang_combo.addItem("简体中文", "zh")
        self.reflect_spin = QSpinBox()
        self.reflect_spin.setRange(0, 5)
        self.offline_check = QCheckBox()
        self.template_label, self.lang_label, self.reflect_label = QLabel(), QLabel(), QLabel()
        self.review_button = QPushButton()
        self.start_button = QPushButton()
        self.start_button.setDefault(True)
        self.cancel_button = QPushButton()
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        for w in (
            self.template_label,
            self.template_combo,
            self.lang_label,
            self.lang_combo,
            self.reflect_label,
            self.reflect_spin,
            self.offline_check,
        ):
            layout.addWidget(w)
        layout.addStretch(1)
        for button in (self.review_button, self.start_button, self.cancel_button):
            layout.addWidget(button)

    def retranslate(self) -> None:
        self.template_label.setText(self.tr("Template"))
        self.lang_label.setText(self.tr("Language"))
        self.reflect_label.setText(self.tr("Revisions"))
        self.offline_check.setText(self.tr("Offline (no model)"))
        self.offline_check.setToolTip(
            self.tr("Write a skeleton report from the data alone, with no language model.")
        )
        self.start_button.setText(self.tr("Start"))
        self.review_button.setText(self.tr("Review and export…"))
        self.cancel_button.setText(self.tr("Cancel"))

    def apply_defaults(self, settings: Settings) -> None:
        """The choices of Settings, for the next run."""
        lang = settings.report_lang or "en"
        self.lang_combo.setCurrentIndex(max(0, self.lang_combo.findData(lang)))
        name = settings.template or templates.DEFAULT_BY_LANG.get(lang, "lab-en")
        self.template_combo.setCurrentIndex(max(0, self.template_combo.findText(name)))
        self.reflect_spin.setValue(
            settings.reflect
            if settings.reflect is not None
            else templates.load_template(name).reflect
        )

    def offline(self) -> bool:
        return self.offline_check.isChecked()

    def flags(self) -> dict[str, Any]:
        """The run's flags, as the command line would give them."""
        return {
            "template": self.template_combo.currentText(),
            "lang": self.lang_combo.currentData(),
            "reflect": self.reflect_spin.value(),
            "offline": self.offline(),
        }

    def set_running(self, running: bool) -> None:
        for w in (self.template_combo, self.lang_combo, self.reflect_spin, self.offline_check):
            w.setEnabled(not running)


class RunMeter(QWidget):
    """How far the run is (its steps, or what it is doing) and what its calls have cost."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.progress = QProgressBar()
        self.progress.setTextVisible(True)
        self.usage_label = QLabel()
        self.tokens = 0
        self.cost = 0.0
        # the shown run's calls, priced as run.json prices them (core/settings/cost.py)
        self._usage: Usage | None = None
        self._priced: RunConfig | None = None
        self._text: Words | None = None  # worded again on a language switch
        self._running = False
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.progress, 1)
        layout.addWidget(self.usage_label)

    def retranslate(self) -> None:
        if self._text is not None:
            self.progress.setFormat(self._text())
        elif not self._running and self.progress.maximum() == 100 and self.progress.value() <= 0:
            self.progress.setFormat(self.tr("Ready"))
        self.show_usage()

    def say(self, words: Words) -> None:
        self._text = words
        self.progress.setFormat(words())

    def ready(self) -> None:
        self.progress.setRange(0, 100)
        self.progress.setValue(0)
        self.say(lambda: self.tr("Ready"))

    def starting(self) -> None:
        self.progress.setRange(0, 1)
        self.progress.setValue(0)
        self.say(lambda: self.tr("Starting…"))

    def cancelling(self) -> None:
        self.say(lambda: self.tr("Cancelling…"))

    def reset(self, priced: RunConfig | None = None) -> None:
        """No calls counted yet; `priced`: the configuration that prices them."""
        self.tokens, self.cost = 0, 0.0
        self._usage, self._priced = None, priced
        self.show_usage()

    def set_running(self, running: bool) -> None:
        """A running run shows its time limit beside the usage."""
        self._running = running
        self.show_usage()

    def count(self, events: list[Event]) -> None:
        """The model calls among `events`, in tokens and dollars."""
        calls = [ev for ev in events if isinstance(ev, LLMCall)]
        if not calls:
            return
        from labwright.core.llm.client import Usage  # a run's first call: start-up stays quick
        from labwright.core.settings.cost import spent_usd

        if self._usage is None:
            self._usage = Usage()
        for ev in calls:
            self.tokens += ev.prompt_tokens + ev.completion_tokens
            self._usage.add_call(
                ev.role,
                ev.prompt_tokens,
                ev.completion_tokens,
                ev.ms,
                ev.model,
                reasoning_tokens=ev.reasoning_tokens,
            )
        if self._priced is not None:
            self.cost = spent_usd(self._priced, self._usage)

    def show_steps(self, plan: list[str], done: int, stage: str) -> None:
        """Step N of M, and its name."""
        self.progress.setRange(0, len(plan))
        self.progress.setValue(done)
        stage = stage or plan[min(done, len(plan) - 1)]
        self.say(
            lambda: self.tr("Step {0} of {1}: {2}").format(
                min(done + 1, len(plan)), len(plan), stage_label(stage)
            )
        )

    def finish(self, status: str, steps: int) -> None:
        if steps and status in ("ok", "degraded"):
            self.progress.setRange(0, steps)
            self.progress.setValue(self.progress.maximum())
        self.say(lambda: self._status_words(status))

    def _status_words(self, status: str) -> str:
        return {
            "ok": self.tr("Done"),
            "degraded": self.tr("Done — needs review"),
            "failed": self.tr("Failed"),
            "cancelled": self.tr("Cancelled"),
            "running": self.tr("Running"),
        }.get(status, status)

    def show_usage(self) -> None:
        text = self.tr("{0:,} tokens").format(self.tokens) if self.tokens else ""
        if self.cost:
            text += f" · ${self.cost:.4f}"
        if self._running and self._priced is not None:
            # A slow local model: the user sees the run will end on its own, and when.
            limit = self.tr("time limit {0:g} min").format(self._priced.max_minutes)
            text = f"{text} · {limit}" if text else limit
        self.usage_label.setText(text)


class RunPage(QWidget):
    """The page of one run: header, options, meter, banner, and the timeline beside the results."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.header = RunHeader()
        self.options = RunOptions()
        self.meter = RunMeter()
        self.banner = MessageBanner()
        self.steps = TimelineView()
        self.results = ResultTabs()
        self.results.pdf.shortcuts_within(self)  # Ctrl+= zooms the PDF from anywhere here
        split = QSplitter()
        split.setObjectName("runSplitter")
        split.addWidget(self.steps)
        split.addWidget(self.results)
        split.setSizes([620, 580])
        self.splitter = split
        remember_splitter(split, "run")
        layout = QVBoxLayout(self)
        layout.addWidget(self.header)
        layout.addWidget(self.options)
        layout.addWidget(self.meter)
        layout.addWidget(self.banner)  # under the controls: showing it never moves them
        layout.addWidget(split, 1)

    def retranslate(self) -> None:
        self.header.retranslate()
        self.options.retranslate()
        self.meter.retranslate()
        self.banner.retranslate()
        self.steps.timeline.retranslate()
        self.results.retranslate()

    def show_message(
        self,
        text: str | Words,
        *,
        warning: bool = False,
        button: Words | None = None,
        slot: Callable[[], object] | None = None,
    ) -> None:
        self.banner.say(text, "warning" if warning else "error", button, slot)
