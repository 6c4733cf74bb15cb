"""The settings dialog: provider and models, the API key, report defaults, budget and prices.

The simple settings (a number, a choice) get their widget from config.SCHEMA: its
kind, range, label and tip are the schema's (`_SettingField`), in the box the schema
names; the provider, the models, the key, the template and the price table are built
here. On OK every value is checked by its setting's kind before anything is saved.

A key typed here is stored on OK (`core.settings.keys.set_api_key`) where the person
chose, among the places this machine has: the OS keyring, a file only they can read
(LABWRIGHT_HOME/keys/<provider>), or this session only. Without a keyring the dialog
says so and asks which of the other two; it never promises a keyring it does not have.
A stored key is never shown again: the key field stays empty, its placeholder names
where the key comes from and shows only a masked fragment of it.

A connection test's result belongs to what was tested: changing the provider, URL or
key clears it, changing the exploring model clears the tool-call verdict. A model of
the server's list goes to a role by a button or the list's context menu ("Use for
exploring / writing / vision"); a status line says what was filled.

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

from PySide6.QtCore import QObject, QSize, QStringListModel, Qt, Signal, Slot
from PySide6.QtGui import QAction
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
from labwright.core.settings import key_file
from labwright.core.settings.config import PROVIDERS, SCHEMA
from labwright.core.settings.providers import serve_commands
from labwright.core.settings.saved import (
    CUSTOM,
    FILE,
    KEYRING,
    SESSION,
    KeyStoreError,
    Settings,
    get_api_key,
    key_env_names,
    key_stores,
    keyring_name,
    mask_key,
    preset_settings,
    save_settings,
    set_api_key,
)
from labwright.core.settings.schema import TR_CONTEXT, Setting
from labwright.gui.i18n import current_language, translator
from labwright.gui.timeline import error_words

# A connection test should answer quickly or say why not; no retries behind the user's back.
TEST_TIMEOUT_S = 15.0


class _Invalid(Exception):
    """A field the user must correct before the settings can be saved."""


class _TestRelay(QObject):
    """Carries the worker's answer to the GUI thread (a queued connection: emitted off-thread)."""

    # models (list[str]) or None, error message, its kind (LLMError.kind), the
    # tool-call test (ToolProbe) or None
    finished = Signal(object, str, str, object)


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
    message = kind = ""
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
        message, kind = str(e), e.kind  # already says what to do, with the key scrubbed
    except Exception as e:  # e.g. a URL the HTTP client cannot even parse
        message = f"The connection test failed ({type(e).__name__}). Check the URL."
        if key:
            message = message.replace(key, "***")
    relay.finished.emit(models, message, kind, tools)


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


class _Note(QLabel):
    """A wrapped label that keeps the height its text needs at its width: a form layout
    would otherwise squeeze a note whose text grew after the dialog was laid out."""

    def __init__(self, name: str) -> None:
        super().__init__()
        self.setObjectName(name)
        self.setWordWrap(True)
        self.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)

    def setText(self, text: str) -> None:
        super().setText(text)
        self._keep_height()

    def resizeEvent(self, event: Any) -> None:
        super().resizeEvent(event)
        self._keep_height()

    def _keep_height(self) -> None:
        self.setMinimumHeight(self.heightForWidth(max(self.width(), 200)) if self.text() else 0)


class _CompactList(QListWidget):
    """A list that asks for a few rows' height (Qt's default asks for 192 px): with it the
    dialog fits a 1024×640 screen without squeezing its wrapped notes; it still takes
    whatever height is spare."""

    def sizeHint(self) -> QSize:
        return QSize(super().sizeHint().width(), 100)


class _CompactTable(QTableWidget):
    def sizeHint(self) -> QSize:
        return QSize(super().sizeHint().width(), 130)


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
        # Where each typed key is to be kept (keys.KEYRING, FILE, SESSION), as chosen.
        self._pending_stores: dict[str, str] = {}
        self._stores = key_stores()  # where this machine can keep a key, the best first
        self._key_provider = settings.provider  # the provider the key field belongs to now
        # What a custom URL had, so a trip through a preset does not lose it.
        self._custom = preset_settings(CUSTOM, settings) if settings.provider == CUSTOM else None
        self._worker: threading.Thread | None = None
        self._relay: _TestRelay | None = None
        self._close_with: int | None = None  # a close requested while the test was running
        self._stale_test = False  # what the running test checks was changed meanwhile

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
        # How to start a server on this computer (a local preset), its commands selectable.
        self.server_hint = _Note("server_hint")
        self.server_hint.hide()
        self.url_edit = QLineEdit()
        self.url_edit.setPlaceholderText("https://example.com/v1")
        self.url_edit.setToolTip(
            self.tr("Choose Custom URL to enter the address of another server.")
        )
        self.key_edit = QLineEdit()
        self.key_edit.setEchoMode(QLineEdit.EchoMode.Password)
        self.key_edit.setClearButtonEnabled(True)
        # Wide enough for the whole hint "stored: sk-…f3a9 (this session)".
        self.key_edit.setMinimumWidth(self.key_edit.fontMetrics().horizontalAdvance("x" * 36))
        self.key_edit.setToolTip(
            self.tr(
                "A key typed here replaces the stored one when you press OK, kept where you choose below."
            )
        )
        # Where a typed key is kept: only the places this machine has, none preselected
        # when there is no keyring (a key in a file is the person's choice to make).
        self.key_store_combo = QComboBox()
        self.key_store_combo.setObjectName("key_store_combo")
        self.key_store_combo.setAccessibleName(self.tr("Where to keep the key"))
        for store in self._stores:
            self.key_store_combo.addItem(self._store_text(store), store)
        self.key_store_combo.setPlaceholderText(self.tr("Choose where to keep the key…"))
        self.key_store_note = _Note("key_store_note")  # what the chosen place means
        self.forget_button = QPushButton(self.tr("Forget key"))
        self.forget_button.setAutoDefault(False)
        key_row = QHBoxLayout()
        key_row.setContentsMargins(0, 0, 0, 0)
        key_row.addWidget(self.key_edit, 1)
        key_row.addWidget(self.forget_button)
        provider_form = QFormLayout()
        provider_form.addRow(self.tr("&Provider:"), self.provider_combo)
        provider_form.addRow(self.server_hint)
        provider_form.addRow(self.tr("Base &URL:"), self.url_edit)
        key_label = QLabel(self.tr("API &key:"))
        key_label.setBuddy(self.key_edit)  # a row holding a layout gets no buddy by itself
        provider_form.addRow(key_label, key_row)
        provider_form.addRow("", self.key_store_combo)
        provider_form.addRow(self.key_store_note)
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
        self.test_status = QLabel(self._test_intro())
        self.test_status.setWordWrap(True)
        self.test_status.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.tools_status = QLabel()  # the tool-call test's verdict
        self.tools_status.setWordWrap(True)
        self.tools_status.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.tools_status.hide()
        self.models_list = _CompactList()
        self.models_list.setMinimumHeight(80)
        self.models_list.setToolTip(
            self.tr(
                "Select a model, then choose its role with the buttons or the right-click menu; a double-click uses it for writing."
            )
        )
        # A model of the list goes to a role only when the person says which: the same
        # actions as buttons and as the list's context menu.
        self.use_actions: dict[str, QAction] = {}
        use_buttons = QVBoxLayout()
        use_buttons.setContentsMargins(0, 0, 0, 0)
        for role, text in (
            ("explore", self.tr("Use for exploring")),
            ("write", self.tr("Use for writing")),
            ("vision", self.tr("Use for vision")),
        ):
            action = QAction(text, self)
            action.triggered.connect(self._use_selected_model)
            action.setData(role)
            self.use_actions[role] = action
            self.models_list.addAction(action)
            button = QPushButton(text)
            button.setObjectName(f"use_for_{role}")
            button.setAutoDefault(False)
            button.clicked.connect(action.trigger)
            action.changed.connect(lambda b=button, a=action: b.setEnabled(a.isEnabled()))
            use_buttons.addWidget(button)
        use_buttons.addStretch(1)
        self.models_list.setContextMenuPolicy(Qt.ContextMenuPolicy.ActionsContextMenu)
        self.models_status = QLabel()  # which field a model of the list went to
        self.models_status.setObjectName("models_status")
        self.models_status.setWordWrap(True)
        self.models_status.hide()
        list_row = QHBoxLayout()
        list_row.setContentsMargins(0, 0, 0, 0)
        list_row.addWidget(self.models_list, 1)
        list_row.addLayout(use_buttons)
        test_layout = QVBoxLayout()
        test_layout.addWidget(self.test_button, 0, Qt.AlignmentFlag.AlignLeft)
        test_layout.addWidget(self.test_status)
        test_layout.addWidget(self.tools_status)
        test_layout.addLayout(list_row, 1)  # the list takes the spare height
        test_layout.addWidget(self.models_status)
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
        self.prices_table = _CompactTable(0, 3)
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
            self.key_store_combo,
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
        self._fit_to_screen()

        self.provider_combo.currentIndexChanged.connect(self._on_provider_changed)
        self.url_edit.editingFinished.connect(self._refresh_key_hint)
        self.url_edit.textEdited.connect(self._clear_test)
        self.key_edit.textChanged.connect(self._on_key_typed)
        self.key_store_combo.activated.connect(self._on_store_chosen)
        self.forget_button.clicked.connect(self._forget_key)
        self.explore_edit.textChanged.connect(self._on_explore_model_changed)
        self.test_button.clicked.connect(self._start_test)
        self.models_list.itemDoubleClicked.connect(self._use_listed_model)
        self.models_list.currentItemChanged.connect(self._enable_use_actions)
        self._enable_use_actions()
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
        self._clear_test()
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
        self._clear_test()
        self._refresh_key_hint()

    @Slot(int)
    def _on_store_chosen(self, index: int) -> None:
        if index >= 0:
            self._pending_stores[self._key_provider] = self.key_store_combo.itemData(index)
        self._refresh_key_hint()

    @Slot()
    def _forget_key(self) -> None:
        self.key_edit.blockSignals(True)
        self.key_edit.clear()
        self.key_edit.blockSignals(False)
        self._pending_keys[self._key_provider] = None
        self._clear_test()
        self._refresh_key_hint()

    def _store_text(self, store: str) -> str:
        if store == KEYRING:
            return self.tr("Keep in the system keyring ({0})").format(keyring_name())
        if store == FILE:
            return self.tr("Keep in a file only I can read")
        return self.tr("Keep for this session only")

    def _store_note(self, store: str | None, provider: str) -> str:
        """What keeping the key in `store` means (None: not chosen yet), in plain words."""
        if store == KEYRING:
            return self.tr(
                "The system keyring ({0}) keeps the key encrypted, unlocked when you log in."
            ).format(keyring_name())
        if store == FILE:
            where = key_file.shown_path(key_file.key_path(provider))
            return self.tr(
                "Saved in {0}, which only your user account can read (as gh keeps its token)."
            ).format(where)
        if store == SESSION:
            return self.tr("Kept in memory until Labwright closes; nothing is written to disk.")
        return self.tr(
            "This computer has no system keyring (no Secret Service). Labwright can keep the key in a file only you can read, or for this session only."
        )

    def _shown_store(self, provider: str, where: str) -> str | None:
        """The place the store list shows: the one chosen for a typed key, else where the
        stored key is, else the keyring when there is one (None: nothing chosen yet)."""
        if provider in self._pending_stores:
            return self._pending_stores[provider]
        if where in self._stores:
            return where
        return KEYRING if KEYRING in self._stores else None

    def _chosen_store(self, provider: str) -> str:
        """Where the key typed for `provider` goes on OK; _Invalid when not chosen."""
        store = self._pending_stores.get(provider)
        if store is None and KEYRING in self._stores:
            store = KEYRING
        if store is None:
            raise _Invalid(
                self.tr(
                    "Choose where to keep the key: in a file only you can read, or for this session only."
                )
            )
        return store

    @Slot()
    def _refresh_key_hint(self) -> None:
        """The placeholder says where the key comes from, with a masked fragment at most."""
        provider = self._key_provider
        pending = self._pending_keys.get(provider, "")
        preset = PROVIDERS.get(provider)
        key, where = get_api_key(provider, self.url_edit.text().strip() or None)
        if provider in self._pending_keys and pending is None:
            hint = self.tr("The stored key will be forgotten when you press OK.")
            can_forget = False
        else:
            stored = {
                KEYRING: self.tr("stored: {key} (keyring)"),
                FILE: self.tr("stored: {key} (file)"),
                SESSION: self.tr("stored: {key} (this session)"),
            }
            if where in stored:
                hint = stored[where].format(key=mask_key(key))
            elif where.startswith("environment:"):
                hint = self.tr("from {name}").format(name=where.split(":", 1)[1])
            elif preset is not None and not preset.needs_key:
                hint = self.tr("Not needed: the server runs on this computer")
            else:
                hint = self.tr("No key stored. Paste your API key here.")
            can_forget = where in stored or bool(pending)
        self.key_edit.setPlaceholderText(hint)
        # A server on this computer takes no key; one started with a key of its own
        # gets it from LABWRIGHT_API_KEY (or choose Custom URL).
        takes_key = preset is None or preset.needs_key
        self.key_edit.setEnabled(takes_key)
        self.forget_button.setEnabled(can_forget)
        store = self._shown_store(provider, where)
        self.key_store_combo.setCurrentIndex(self.key_store_combo.findData(store))
        # The place is chosen for a key being typed; otherwise it says where the key is.
        self.key_store_combo.setEnabled(bool(pending))
        self.key_store_note.setText(self._store_note(store, provider))
        for w in (self.key_store_combo, self.key_store_note):
            w.setVisible(takes_key)
        self._refresh_server_hint()

    @Slot()
    def _refresh_server_hint(self) -> None:
        """Under a preset on this computer: the commands that start it and fetch the model."""
        provider = self._key_provider
        commands = [f"`{c}`" for c in serve_commands(provider, self.explore_edit.text().strip())]
        hints = {
            "ollama": self.tr("Start Ollama with {0}, then download the model with {1}."),
            "lmstudio": self.tr(
                "Start LM Studio's server (its Developer tab, or {0}), then download and load the model: {1}, {2}."
            ),
            "llamacpp": self.tr(
                "Start the server with your model file: {0} (--jinja lets the model call tools)."
            ),
            "vllm": self.tr("Start vLLM with tool calls turned on: {0}"),
        }
        template = hints.get(provider)
        self.server_hint.setVisible(template is not None)
        self.server_hint.setText(template.format(*commands) if template else "")

    @Slot(QListWidgetItem)
    def _use_listed_model(self, item: QListWidgetItem) -> None:
        self.models_list.setCurrentItem(item)
        self.use_actions["write"].trigger()

    @Slot()
    def _use_selected_model(self) -> None:
        action = self.sender()
        item = self.models_list.currentItem()
        if not isinstance(action, QAction) or item is None:
            return
        role, model = action.data(), item.text()
        edit = {"explore": self.explore_edit, "write": self.write_edit}.get(role, self.vision_edit)
        edit.setText(model)
        said = {
            "explore": self.tr("Model for exploring set to {0}."),
            "write": self.tr("Model for writing set to {0}."),
            "vision": self.tr("Model for vision set to {0}."),
        }[role]
        self.models_status.setText(said.format(model))
        self.models_status.show()

    @Slot()
    def _enable_use_actions(self) -> None:
        chosen = self.models_list.currentItem() is not None
        for action in self.use_actions.values():
            action.setEnabled(chosen)

    @Slot(str)
    def _on_explore_model_changed(self, _text: str) -> None:
        # The tool-call verdict was about the model tested; the server's list still holds.
        self.tools_status.clear()
        self.tools_status.hide()
        self._refresh_server_hint()

    @Slot()
    def _clear_test(self) -> None:
        """Forget the connection test's result: it was about another server or key."""
        if self._worker is not None:
            self._stale_test = True  # its answer, when it comes, is not shown
        self.test_status.setText(self._test_intro())
        self.tools_status.clear()
        self.tools_status.hide()
        self.models_list.clear()
        self._model_names.setStringList([])
        self.models_status.hide()
        self._enable_use_actions()

    def _test_intro(self) -> str:
        return self.tr(
            "Lists the models the server offers and checks that the exploring model can call tools, using the key above."
        )

    def _fit_to_screen(self) -> None:
        """The size the content asks for, but never larger than the screen (a 1024×640
        laptop): the list and the price table give up height first."""
        hint = self.sizeHint()
        width, height = max(hint.width(), 880), hint.height()
        screen = self.screen()
        if screen is not None:
            room = screen.availableGeometry()
            width = min(width, room.width())
            height = min(height, room.height() - 40)  # the window's title bar
        self.resize(width, max(height, self.minimumSizeHint().height()))

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
        self._clear_test()
        self._stale_test = False  # cleared for this test, not during it
        self.test_status.setText(self.tr("Connecting to {url}…").format(url=url))
        self._worker.start()

    @Slot(object, str, str, object)
    def _on_tested(
        self, models: list[str] | None, message: str, kind: str, tools: ToolProbe | None
    ) -> None:
        assert self._worker is not None
        self._worker.join()  # it emitted as its last act: this returns at once
        self._worker = None
        self._relay = None
        self.test_button.setEnabled(True)
        stale, self._stale_test = self._stale_test, False
        if stale:  # the provider, URL or key changed while it ran: not their answer
            models, tools = None, None
            self.test_status.setText(self._test_intro())
        elif models is None:
            self.test_status.setText(self._connection_words(kind, message))
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

    def _connection_words(self, kind: str, message: str) -> str:
        """The client's message for the app: its CLI wording ("run with --offline")
        becomes what the window offers; in Chinese the sentence for its kind (timeline.py)
        and the server's address."""
        if current_language() != "en":
            url = self.url_edit.text().strip()
            words = error_words(kind, message)
            return f"{words}\n{url}" if words != message and url else words
        tick = self.tr("tick “Offline” in the main window")
        return message.replace("run with --offline", tick).replace("--offline", tick)

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
        try:
            stores = {p: self._chosen_store(p) for p, k in self._pending_keys.items() if k}
        except _Invalid as e:
            return self._show_error(str(e))
        for provider, key in list(self._pending_keys.items()):
            try:
                set_api_key(provider, key, stores.get(provider, KEYRING))
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
