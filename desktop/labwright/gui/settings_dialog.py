"""The settings dialog: provider and models, the API key, report defaults, budget and prices.

The simple settings (a number, a choice) get their widget from config.SCHEMA: its
kind, range, label and tip are the schema's (`_SettingField`), in the box the schema
names; the provider, the models, the key, the template and the price table are built
here. On OK every value is checked by its setting's kind before anything is saved.

Keys go to the OS keyring through `core.settings.set_api_key` on OK and are
never shown again: the key field stays empty, its placeholder names where the
stored key comes from and shows only a masked fragment of it.

"Test connection" lists the server's models and sends the exploring model one
tiny tool-call request (core/llm/probe.py: can it call tools?) from a worker
thread; the result comes back through a queued signal, so the GUI thread never
waits on the network, and the dialog does not close before that thread has
finished.
"""

from __future__ import annotations

import itertools
import os
import threading
from typing import Any

from PySide6.QtCore import QObject, QStringListModel, Qt, Signal, Slot
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QComboBox,
    QCompleter,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QSpinBox,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from labwright.core.llm.client import LLM, LLMError
from labwright.core.llm.probe import ToolProbe, probe_tools
from labwright.core.report import templates
from labwright.core.settings.config import PROVIDERS, SCHEMA
from labwright.core.settings.saved import (
    CUSTOM,
    KeyStoreError,
    Settings,
    get_api_key,
    key_env_names,
    keyring_available,
    mask_key,
    preset_settings,
    save_settings,
    set_api_key,
)
from labwright.core.settings.schema import TR_CONTEXT, Setting
from labwright.gui.i18n import translator

# A connection test should answer quickly or say why not; no retries behind the user's back.
TEST_TIMEOUT_S = 15.0


class _Invalid(Exception):
    """A field the user must correct before the settings can be saved."""


class _TestRelay(QObject):
    """Carries the worker's answer to the GUI thread (a queued connection: emitted off-thread)."""

    # models (list[str]) or None, error message, the tool-call test (ToolProbe) or None
    finished = Signal(object, str, object)


def _probe(
    relay: _TestRelay,
    base_url: str,
    key: str | None,
    key_lookup: tuple[str, str] | None,
    model: str,
    provider: str,
) -> None:
    """Worker thread: list the server's models, then ask `model` (the exploring one, if
    any) for one tool call. `key_lookup` = (provider, url) when the stored key is to be
    used; it is fetched here, so the key itself never sits in a widget."""
    if key is None and key_lookup is not None:
        key = get_api_key(*key_lookup)[0]
    models: list[str] | None = None
    message = ""
    tools: ToolProbe | None = None
    try:
        llm = LLM(base_url, key, timeout_s=TEST_TIMEOUT_S, max_retries=0, provider=provider)
        try:
            models = llm.list_models()
            if model:
                tools = probe_tools(llm, model)
        finally:
            llm.close()
    except LLMError as e:
        message = str(e)  # already says what to do, with the key scrubbed
    except Exception as e:  # e.g. a URL the HTTP client cannot even parse
        message = f"The connection test failed ({type(e).__name__}). Check the URL."
        if key:
            message = message.replace(key, "***")
    relay.finished.emit(models, message, tools)


_tr = translator(TR_CONTEXT)  # the widgets' texts of the settings schema


class _SettingField:
    """The widget config.SCHEMA declares for one setting, and its value both ways."""

    def __init__(self, setting: Setting) -> None:
        spec = setting.widget
        assert spec is not None
        self.setting, self.spec = setting, spec
        self.widget: QWidget
        if spec.kind == "spin":
            self.widget = self._spin()
        elif spec.kind == "combo":
            combo = QComboBox()
            if spec.none_text:
                combo.addItem(_tr(spec.none_text), None)
            for value, text in spec.items:
                combo.addItem(text if value in spec.native else _tr(text), value)
            self.widget = combo
        elif spec.kind == "check":
            self.widget = QCheckBox()
        else:
            self.widget = QLineEdit()
        self.widget.setObjectName(spec.name)
        if spec.tip:
            self.widget.setToolTip(_tr(spec.tip))

    def _spin(self) -> QSpinBox:
        spec, kind = self.spec, self.setting.kind
        low = spec.minimum if spec.minimum is not None else getattr(kind, "minimum", 0)
        high = spec.maximum if spec.maximum is not None else getattr(kind, "maximum", None)
        spin = QSpinBox()
        if spec.none_text:  # the value just below the range means None
            low -= 1
            spin.setSpecialValueText(_tr(spec.none_text))
        spin.setRange(low, 2**31 - 1 if high is None else high)
        spin.setSingleStep(spec.step)
        spin.setGroupSeparatorShown(spec.separators)
        if spec.suffix:
            spin.setSuffix(_tr(spec.suffix))
        return spin

    def show(self, value: Any) -> None:
        w = self.widget
        if isinstance(w, QSpinBox):
            w.setValue(w.minimum() if value is None else round(value))
        elif isinstance(w, QComboBox):
            w.setCurrentIndex(max(0, w.findData(value)))
        elif isinstance(w, QCheckBox):
            w.setChecked(bool(value))
        elif isinstance(w, QLineEdit):
            w.setText("" if value is None else str(value))

    def value(self) -> Any:
        w = self.widget
        if isinstance(w, QSpinBox):
            none = bool(self.spec.none_text) and w.value() == w.minimum()
            return None if none else w.value()
        if isinstance(w, QComboBox):
            return w.currentData()
        if isinstance(w, QCheckBox):
            return w.isChecked()
        assert isinstance(w, QLineEdit)
        text = w.text().strip()
        return None if not text and self.setting.kind.optional else text


class SettingsDialog(QDialog):
    language_changed = Signal(str)  # on OK, when the interface language changed
    connection_tested = Signal(bool)  # after a connection test: True when models were listed

    def __init__(self, settings: Settings, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle(self.tr("Settings"))
        self._original = settings.updated({})  # a copy: the caller's stays as it was
        self._saved: Settings | None = None
        # Keys typed or forgotten but not yet stored: provider -> key, None = forget.
        self._pending_keys: dict[str, str | None] = {}
        self._key_provider = settings.provider  # the provider the key field belongs to now
        # What a custom URL had, so a trip through a preset does not lose it.
        self._custom = preset_settings(CUSTOM, settings) if settings.provider == CUSTOM else None
        self._worker: threading.Thread | None = None
        self._relay: _TestRelay | None = None
        self._close_with: int | None = None  # a close requested while the test was running

        self._build()
        self._load(settings)

    # --- layout ---------------------------------------------------------------

    def _build(self) -> None:
        # Provider
        self.provider_combo = QComboBox()
        for name, preset in PROVIDERS.items():
            label = preset.label or name
            if preset.local:
                label = self.tr("{0} (on this computer)").format(label)
            self.provider_combo.addItem(label, name)
        self.provider_combo.addItem(self.tr("Custom URL"), CUSTOM)
        self.url_edit = QLineEdit()
        self.url_edit.setPlaceholderText("https://example.com/v1")
        self.url_edit.setToolTip(
            self.tr("Choose Custom URL to enter the address of another server.")
        )
        self.key_edit = QLineEdit()
        self.key_edit.setEchoMode(QLineEdit.EchoMode.Password)
        self.key_edit.setClearButtonEnabled(True)
        # Wide enough for the whole hint "stored: sk-…f3a9 (keyring)".
        self.key_edit.setMinimumWidth(self.key_edit.fontMetrics().horizontalAdvance("x" * 34))
        self.key_edit.setToolTip(
            self.tr(
                "A key typed here replaces the stored one when you press OK. It is kept in the system keyring, never in a file."
            )
        )
        self.forget_button = QPushButton(self.tr("Forget key"))
        self.forget_button.setAutoDefault(False)
        key_row = QHBoxLayout()
        key_row.setContentsMargins(0, 0, 0, 0)
        key_row.addWidget(self.key_edit, 1)
        key_row.addWidget(self.forget_button)
        provider_form = QFormLayout()
        provider_form.addRow(self.tr("&Provider:"), self.provider_combo)
        provider_form.addRow(self.tr("Base &URL:"), self.url_edit)
        key_label = QLabel(self.tr("API &key:"))
        key_label.setBuddy(self.key_edit)  # a row holding a layout gets no buddy by itself
        provider_form.addRow(key_label, key_row)
        provider_box = QGroupBox(self.tr("Model provider"))
        provider_box.setLayout(provider_form)

        # Models
        self.explore_edit = QLineEdit()
        self.write_edit = QLineEdit()
        self.vision_edit = QLineEdit()
        self.vision_edit.setPlaceholderText(self.tr("None (images are not examined)"))
        self._model_names = QStringListModel(self)  # filled by a successful connection test
        for edit in (self.explore_edit, self.write_edit, self.vision_edit):
            completer = QCompleter(self._model_names, edit)
            completer.setCaseSensitivity(Qt.CaseSensitivity.CaseInsensitive)
            completer.setFilterMode(Qt.MatchFlag.MatchContains)
            edit.setCompleter(completer)
        models_form = QFormLayout()
        models_form.addRow(self.tr("&Exploring:"), self.explore_edit)
        models_form.addRow(self.tr("&Writing:"), self.write_edit)
        models_form.addRow(self.tr("&Vision:"), self.vision_edit)
        models_box = QGroupBox(self.tr("Model for each role"))
        models_box.setLayout(models_form)

        # Connection test
        self.test_button = QPushButton(self.tr("&Test connection"))
        self.test_button.setAutoDefault(False)
        self.test_status = QLabel(
            self.tr(
                "Lists the models the server offers and checks that the exploring model can call tools, using the key above."
            )
        )
        self.test_status.setWordWrap(True)
        self.test_status.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.tools_status = QLabel()  # the tool-call test's verdict
        self.tools_status.setWordWrap(True)
        self.tools_status.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.tools_status.hide()
        self.models_list = QListWidget()
        self.models_list.setMinimumHeight(80)
        self.models_list.setToolTip(self.tr("Double-click a model to use it for writing."))
        test_layout = QVBoxLayout()
        test_layout.addWidget(self.test_button, 0, Qt.AlignmentFlag.AlignLeft)
        test_layout.addWidget(self.test_status)
        test_layout.addWidget(self.tools_status)
        test_layout.addWidget(self.models_list, 1)  # the list takes the spare height
        test_box = QGroupBox(self.tr("Connection"))
        test_box.setLayout(test_layout)

        # Report defaults
        self.template_combo = QComboBox()
        self.template_combo.addItem(self.tr("Default for the report language"), None)
        for name in templates.available():
            self.template_combo.addItem(name, name)
        # The schema's own widgets, by setting name (and as attributes named by the schema).
        self.fields: dict[str, _SettingField] = {}
        report_form = QFormLayout()
        report_form.addRow(self.tr("Te&mplate:"), self.template_combo)
        self._add_fields(report_form, "report")
        report_box = QGroupBox(self.tr("Report defaults"))
        report_box.setLayout(report_form)

        # Budget and prices
        self.prices_table = QTableWidget(0, 3)
        self.prices_table.setHorizontalHeaderLabels(
            [self.tr("Model"), self.tr("Prompt $/1M"), self.tr("Completion $/1M")]
        )
        for col, tip in (
            (1, self.tr("US dollars per million prompt (input) tokens.")),
            (2, self.tr("US dollars per million completion (output) tokens.")),
        ):
            header_item = self.prices_table.horizontalHeaderItem(col)
            if header_item is not None:  # set by setHorizontalHeaderLabels just above
                header_item.setToolTip(tip)
        header = self.prices_table.horizontalHeader()
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        for col in (1, 2):
            header.setSectionResizeMode(col, QHeaderView.ResizeMode.ResizeToContents)
        self.prices_table.verticalHeader().setVisible(False)
        self.prices_table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.prices_table.setTabKeyNavigation(False)  # Tab leaves the table, arrows move inside
        self.prices_table.setMinimumHeight(120)
        self.add_price_button = QPushButton(self.tr("Add price"))
        self.remove_price_button = QPushButton(self.tr("Remove price"))
        for b in (self.add_price_button, self.remove_price_button):
            b.setAutoDefault(False)
        price_buttons = QHBoxLayout()
        price_buttons.addWidget(self.add_price_button)
        price_buttons.addWidget(self.remove_price_button)
        price_buttons.addStretch(1)
        budget_form = QFormLayout()
        self._add_fields(budget_form, "budget")
        prices_label = QLabel(self.tr("Prices, to estimate the cost of a run:"))
        prices_label.setWordWrap(True)
        budget_form.addRow(prices_label)
        budget_form.addRow(self.prices_table)
        budget_form.addRow(price_buttons)
        budget_box = QGroupBox(self.tr("Budget and prices"))
        budget_box.setLayout(budget_form)

        # Interface
        ui_form = QFormLayout()
        self._add_fields(ui_form, "interface")
        ui_box = QGroupBox(self.tr("Interface"))
        ui_box.setLayout(ui_form)

        # Messages and buttons
        self.error_label = QLabel()
        self.error_label.setWordWrap(True)
        self.error_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        font = self.error_label.font()
        font.setBold(True)  # stands out without a colour that would clash with a dark palette
        self.error_label.setFont(font)
        self.error_label.hide()
        self.buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel
        )
        self.buttons.button(QDialogButtonBox.StandardButton.Ok).setDefault(True)

        left = QVBoxLayout()
        left.addWidget(provider_box)
        left.addWidget(models_box)
        left.addWidget(test_box, 1)
        right = QVBoxLayout()
        right.addWidget(report_box)
        right.addWidget(budget_box, 1)
        right.addWidget(ui_box)
        columns = QHBoxLayout()
        columns.addLayout(left, 1)
        columns.addLayout(right, 1)
        root = QVBoxLayout(self)
        root.addLayout(columns, 1)
        root.addWidget(self.error_label)
        root.addWidget(self.buttons)

        order: list[QWidget] = [
            self.provider_combo,
            self.url_edit,
            self.key_edit,
            self.forget_button,
            self.explore_edit,
            self.write_edit,
            self.vision_edit,
            self.test_button,
            self.models_list,
            self.template_combo,
            *self._field_widgets("report"),
            *self._field_widgets("budget"),
            self.prices_table,
            self.add_price_button,
            self.remove_price_button,
            *self._field_widgets("interface"),
            self.buttons,
        ]
        for first, then in itertools.pairwise(order):
            QWidget.setTabOrder(first, then)
        hint = self.sizeHint()
        self.resize(max(hint.width(), 880), hint.height())

        self.provider_combo.currentIndexChanged.connect(self._on_provider_changed)
        self.url_edit.editingFinished.connect(self._refresh_key_hint)
        self.key_edit.textChanged.connect(self._on_key_typed)
        self.forget_button.clicked.connect(self._forget_key)
        self.test_button.clicked.connect(self._start_test)
        self.models_list.itemDoubleClicked.connect(self._use_listed_model)
        self.add_price_button.clicked.connect(self._new_price_row)
        self.remove_price_button.clicked.connect(self._remove_price_rows)
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)

    def _load(self, s: Settings) -> None:
        self.provider_combo.blockSignals(True)  # filling in, not the user choosing a preset
        self.provider_combo.setCurrentIndex(max(0, self.provider_combo.findData(s.provider)))
        self.provider_combo.blockSignals(False)
        self._show_models(s)
        self.template_combo.setCurrentIndex(max(0, self.template_combo.findData(s.template)))
        for name, f in self.fields.items():
            f.show(s.get(name))
        for model, price in sorted(s.prices.items()):
            self._add_price_row(model, price["prompt"], price["completion"])
        self._refresh_key_hint()

    def _add_fields(self, form: QFormLayout, group: str) -> None:
        """The schema's widgets of the box `group`, one row each, in the schema's order."""
        for setting in SCHEMA.widgets(group):
            assert setting.widget is not None
            f = _SettingField(setting)
            self.fields[setting.name] = f
            setattr(self, setting.widget.name, f.widget)
            form.addRow(_tr(setting.widget.label), f.widget)

    def _field_widgets(self, group: str) -> list[QWidget]:
        return [f.widget for f in self.fields.values() if f.spec.group == group]

    def _show_models(self, s: Settings) -> None:
        self.url_edit.setText(s.base_url)
        self.url_edit.setReadOnly(s.provider != CUSTOM)
        self.explore_edit.setText(s.explore_model)
        self.write_edit.setText(s.write_model)
        self.vision_edit.setText(s.vision_model or "")

    # --- provider and key -------------------------------------------------------

    def _provider(self) -> str:
        return self.provider_combo.currentData()

    @Slot(int)
    def _on_provider_changed(self, _index: int) -> None:
        current = self._widget_settings()
        if current.provider != CUSTOM and self._key_provider == CUSTOM:
            self._custom = preset_settings(CUSTOM, current)
        if current.provider == CUSTOM:
            # Custom keeps what the user typed for it before, else starts from what is shown.
            chosen = self._custom or preset_settings(CUSTOM, current)
        else:
            chosen = preset_settings(current.provider, current)
        self._key_provider = current.provider
        self._show_models(chosen)
        # A key typed for one provider stays with it; the field now shows the new provider's.
        self.key_edit.blockSignals(True)
        self.key_edit.setText(self._pending_keys.get(current.provider) or "")
        self.key_edit.blockSignals(False)
        self._refresh_key_hint()

    @Slot(str)
    def _on_key_typed(self, text: str) -> None:
        provider = self._key_provider
        if text.strip():
            self._pending_keys[provider] = text.strip()
        elif self._pending_keys.get(provider):
            del self._pending_keys[provider]  # typed, then erased: keep the stored key
        self._refresh_key_hint()

    @Slot()
    def _forget_key(self) -> None:
        self.key_edit.blockSignals(True)
        self.key_edit.clear()
        self.key_edit.blockSignals(False)
        self._pending_keys[self._key_provider] = None
        self._refresh_key_hint()

    @Slot()
    def _refresh_key_hint(self) -> None:
        """The placeholder says where the key comes from, with a masked fragment at most."""
        provider = self._key_provider
        pending = self._pending_keys.get(provider, "")
        preset = PROVIDERS.get(provider)
        if provider in self._pending_keys and pending is None:
            hint = self.tr("The stored key will be forgotten when you press OK.")
            can_forget = False
        else:
            key, where = get_api_key(provider, self.url_edit.text().strip() or None)
            if where == "keyring":
                hint = self.tr("stored: {key} (keyring)").format(key=mask_key(key))
            elif where.startswith("environment:"):
                hint = self.tr("from {name}").format(name=where.split(":", 1)[1])
            elif preset is not None and not preset.needs_key:
                hint = self.tr("Not needed: the server runs on this computer")
            elif not keyring_available():
                hint = self.tr("No system keyring. Set LABWRIGHT_API_KEY instead.")
            else:
                hint = self.tr("No key stored. Paste your API key here.")
            can_forget = where == "keyring" or bool(pending)
        self.key_edit.setPlaceholderText(hint)
        # A server on this computer takes no key; one started with a key of its own
        # gets it from LABWRIGHT_API_KEY (or choose Custom URL).
        self.key_edit.setEnabled(preset is None or preset.needs_key)
        self.forget_button.setEnabled(can_forget)

    @Slot(QListWidgetItem)
    def _use_listed_model(self, item: QListWidgetItem) -> None:
        self.write_edit.setText(item.text())

    # --- connection test --------------------------------------------------------

    @Slot()
    def _start_test(self) -> None:
        if self._worker is not None:
            return
        url = self.url_edit.text().strip()
        if not url:
            self.test_status.setText(self.tr("Enter the server's base URL first."))
            return
        provider = self._key_provider
        typed = self._pending_keys.get(provider)
        lookup: tuple[str, str] | None = (provider, url)
        if provider in self._pending_keys and typed is None:
            # The stored key is about to be forgotten: test with the environment's key only.
            typed = _env_key(provider, url)
            lookup = None
        self._relay = _TestRelay()  # no parent: it lives as long as the worker needs it
        self._relay.finished.connect(self._on_tested, Qt.ConnectionType.QueuedConnection)
        model = self.explore_edit.text().strip()
        self._worker = threading.Thread(
            target=_probe,
            args=(self._relay, url, typed, lookup, model, provider),
            name="labwright-connection-test",
            daemon=True,
        )
        self.test_button.setEnabled(False)
        self.models_list.clear()
        self.tools_status.clear()
        self.tools_status.hide()
        self.test_status.setText(self.tr("Connecting to {url}…").format(url=url))
        self._worker.start()

    @Slot(object, str, object)
    def _on_tested(self, models: list[str] | None, message: str, tools: ToolProbe | None) -> None:
        assert self._worker is not None
        self._worker.join()  # it emitted as its last act: this returns at once
        self._worker = None
        self._relay = None
        self.test_button.setEnabled(True)
        if models is None:
            self.test_status.setText(message)
        elif not models:
            self.test_status.setText(self.tr("Connected, but the server lists no models."))
        else:
            self.test_status.setText(
                self.tr("Connected. The server offers {n} models.").format(n=len(models))
            )
            self.models_list.addItems(models)
            self._model_names.setStringList(models)
        if tools is not None:
            self.tools_status.setText(self._tools_words(tools))
            self.tools_status.show()
        self.connection_tested.emit(models is not None)
        if self._close_with is not None:
            super().done(self._close_with)

    def _tools_words(self, probe: ToolProbe) -> str:
        """The tool-call test's verdict for a person; the server's own words and the
        advice for its provider are quoted as they are."""
        if probe.verdict == "tools":
            return self.tr("{model} can call tools.").format(model=probe.model)
        if probe.verdict == "text":
            return self.tr(
                "{model} answered in text without calling the tool (weak tool support). Exploring the folder needs a model that calls tools."
            ).format(model=probe.model)
        if probe.verdict == "rejected":
            words = self.tr("{model} rejects tools (HTTP {status}): {reason}").format(
                model=probe.model, status=probe.status, reason=probe.detail
            )
            return f"{words}\n{probe.advice}" if probe.advice else words
        return self.tr("The tool-call test failed: {message}").format(message=probe.detail)

    def done(self, result: int) -> None:
        # Never block the GUI on the network: a close during a test waits for its answer.
        if self._worker is not None:
            self._close_with = result
            self.setEnabled(False)
            self.test_status.setText(self.tr("Closing when the connection test answers…"))
            return
        super().done(result)

    # --- prices -------------------------------------------------------------------

    def _add_price_row(self, model: str, prompt: float | None, completion: float | None) -> None:
        row = self.prices_table.rowCount()
        self.prices_table.insertRow(row)
        cells = [model] + ["" if v is None else f"{v:g}" for v in (prompt, completion)]
        for col, text in enumerate(cells):
            item = QTableWidgetItem(text)
            if col:
                item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
            self.prices_table.setItem(row, col, item)

    @Slot()
    def _new_price_row(self) -> None:
        # Most likely the user wants to price a model they use and have not priced yet.
        priced = set(self._prices(strict=False))
        used = [self.explore_edit.text().strip(), self.write_edit.text().strip()]
        model = next((m for m in used if m and m not in priced), "")
        self._add_price_row(model, None, None)
        row = self.prices_table.rowCount() - 1
        column = 1 if model else 0
        self.prices_table.setCurrentCell(row, column)
        cell = self.prices_table.item(row, column)
        if cell is not None:
            self.prices_table.editItem(cell)

    @Slot()
    def _remove_price_rows(self) -> None:
        rows = {i.row() for i in self.prices_table.selectedIndexes()}
        if not rows and self.prices_table.currentRow() >= 0:
            rows = {self.prices_table.currentRow()}
        for row in sorted(rows, reverse=True):
            self.prices_table.removeRow(row)

    def _cell_text(self, row: int, column: int) -> str:
        cell = self.prices_table.item(row, column)
        return cell.text() if cell is not None else ""

    def _prices(self, strict: bool) -> dict[str, dict[str, float]]:
        """The price table; `strict` raises _Invalid for a row the user must fix."""
        out: dict[str, dict[str, float]] = {}
        for row in range(self.prices_table.rowCount()):
            texts = [self._cell_text(row, c).strip().replace(",", ".") for c in range(3)]
            model, prompt, completion = texts
            if not any(texts):
                continue  # an empty row is no price
            try:
                if not model:
                    raise ValueError
                values = float(prompt), float(completion)
                if any(v < 0 or v != v or v == float("inf") for v in values):
                    raise ValueError
            except ValueError:
                if strict:
                    raise _Invalid(
                        self.tr(
                            "Price row {row}: enter a model name and two prices in dollars "
                            "per million tokens (for example 0.27 and 1.10)."
                        ).format(row=row + 1)
                    ) from None
                continue
            out[model] = {"prompt": values[0], "completion": values[1]}
        return out

    # --- result -------------------------------------------------------------------

    def _widget_settings(self, strict: bool = False) -> Settings:
        explore = self.explore_edit.text().strip()
        write = self.write_edit.text().strip()
        if strict and not (explore and write):
            raise _Invalid(self.tr("Enter a model for exploring and one for writing."))
        if strict and not self.url_edit.text().strip():
            raise _Invalid(self.tr("Enter the server's base URL."))
        values = {
            "provider": self._provider(),
            "base_url": self.url_edit.text().strip() or self._original.base_url,
            "explore_model": explore or self._original.explore_model,
            "write_model": write or self._original.write_model,
            "vision_model": self.vision_edit.text().strip() or None,
            "template": self.template_combo.currentData(),
            "prices": self._prices(strict),
            **{name: f.value() for name, f in self.fields.items()},
        }
        if strict:
            for name, value in values.items():
                problem = SCHEMA[name].problem(value)
                if problem is not None:  # the widgets offer only what fits: a bug if seen
                    raise _Invalid(str(problem))
        # recent_folders and what the dialog does not show are kept as they were
        return self._original.updated(values)

    def result_settings(self) -> Settings:
        """What OK saved; before that, what the dialog currently shows."""
        return self._saved if self._saved is not None else self._widget_settings()

    def accept(self) -> None:
        try:
            s = self._widget_settings(strict=True)
        except _Invalid as e:
            return self._show_error(str(e))
        # Keys first: when the keyring refuses, nothing is half-saved and the dialog stays.
        for provider, key in list(self._pending_keys.items()):
            try:
                set_api_key(provider, key)
            except KeyStoreError as e:
                return self._show_error(str(e))
            del self._pending_keys[provider]
        try:
            save_settings(s)
        except OSError as e:
            return self._show_error(
                self.tr("Could not save the settings ({reason}).").format(
                    reason=e.strerror or type(e).__name__
                )
            )
        self._saved = s
        self.error_label.hide()
        if s.ui_language != self._original.ui_language:
            self.language_changed.emit(s.ui_language)
        super().accept()

    def _show_error(self, message: str) -> None:
        self.error_label.setText(message)
        self.error_label.show()


def _env_key(provider: str, base_url: str) -> str | None:
    for name in key_env_names(provider, base_url):
        if os.environ.get(name):
            return os.environ[name]
    return None
