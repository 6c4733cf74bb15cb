"""English and Simplified Chinese through Qt's translation system."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from PySide6.QtWidgets import QWidget

from labwright.core.settings.saved import Settings
from labwright.gui.i18n import TsTranslator, install_language
from labwright.gui.main_window import MainWindow

ROOT = Path(__file__).resolve().parents[1]
# the source scripts/update_translations.py maintains; shipped as package data
TS = ROOT / "desktop" / "labwright" / "resources" / "translations" / "labwright_zh_CN.ts"


def sources(ts: Path) -> set[tuple[str, str]]:
    root = ET.parse(ts).getroot()
    return {
        (c.findtext("name"), m.findtext("source"))
        for c in root.iter("context")
        for m in c.iter("message")
    }


# every message of the code is in the .ts, and none is unfinished: tests/test_translations.py


def test_the_window_speaks_chinese_and_switches_back(qtbot):
    try:
        assert install_language("zh_CN") == "zh_CN"
        w = MainWindow(None, Settings())
        qtbot.addWidget(w)
        assert w.start_button.text() == "开始"
        assert [w.results.tabText(i) for i in range(3)] == [
            "实时草稿",
            "报告",
            "PDF",
        ]  # same in both
        assert w.drop_zone.title.text() == "将实验材料文件夹拖到这里"
        assert (
            w.timeline.headerData(0, __import__("PySide6.QtCore").QtCore.Qt.Orientation.Horizontal)
            == "步骤"
        )
        install_language("en")
        w.retranslate()
        assert w.start_button.text() == "Start"
    finally:
        install_language("en")


@pytest.mark.parametrize("setting, expected", [("en", "en"), ("zh_CN", "zh_CN")])
def test_an_explicit_language_wins_over_the_system(setting, expected, qapp):
    try:
        assert install_language(setting) == expected
    finally:
        install_language("en")


def test_translator_reads_the_ts_file():
    t = TsTranslator(TS)
    assert len(t) > 100
    assert t.translate("RunOptions", "Cancel") == "取消"
    assert t.translate("MainWindow", "not a string of ours") is None  # a null QString: not found


# -- every visible text of the main states, in Chinese --------------------------------------

# What may stay in Latin letters inside a Chinese interface: names of things, not words.
NAMES = {
    "Labwright",
    "LaTeX",
    "TeX",
    "SyncTeX",
    "BibTeX",
    "PDF",
    "API",
    "URL",
    "TODO",
    "OS",
    "Ctrl",
    "Shift",
    "Alt",
    "Esc",
    "PgUp",
    "PgDown",
    "zip",
    "JSON",
    "CSV",
    "DeepSeek",
    "OpenAI",
    "Qwen",
    "DashScope",
    "Kimi",
    "Moonshot",
    "SiliconFlow",
    "OpenRouter",
    "LM",
    "Studio",
    "llama",
    "cpp",
    "vLLM",
    "Ollama",
    "Noto",
    "Sans",
    "CJK",
    "SC",
    "Fusion",
    "English",
    "MiB",
    "KiB",
    "GiB",
}
_FILEISH = re.compile(r"\S*[/\\.]\S*[A-Za-z0-9]|\w+\(.*?\)|\w*_\w+|\\\w+(\{[^}]*\})?|[A-Z_]{3,}")
_WORD = re.compile(r"[A-Za-z]{2,}")


def _translation_patterns() -> list[re.Pattern[str]]:
    """Every Chinese text of the .ts file, as a pattern ({0}, {name}, %n match anything)."""
    root = ET.parse(TS).getroot()
    out = []
    for m in root.iter("message"):
        tr = m.find("translation")
        forms = [f.text or "" for f in tr.iter("numerusform")] or [tr.text or ""]
        for translation in (f.replace("&", "") for f in forms if f):
            pattern = re.sub(r"\\\{[^}]*\\\}|%n", ".+", re.escape(translation))
            out.append(re.compile(pattern, re.DOTALL))
    return out


def _latin_words(text: str, allowed: set[str]) -> list[str]:
    """The words of `text` in Latin letters that are not a file, a call, a number or a name."""
    stripped = _FILEISH.sub(" ", text)
    return [w for w in _WORD.findall(stripped) if w not in NAMES and w not in allowed]


def _untranslated(texts: list[str], allowed: set[str]) -> list[str]:
    patterns = _translation_patterns()
    bad = []
    # a row's status mark (✓, ◇…) is no word
    for text in dict.fromkeys(re.sub(r"^\W+", "", t.replace("&", "")) for t in texts if t):
        if any(p.fullmatch(text) for p in patterns):
            continue
        # rows join their parts: each part must be from the .ts, or hold no words of English
        parts = re.split(r"\n|, |，|：| · |（|）", text)
        if any(
            _latin_words(part, allowed) and not any(p.fullmatch(part) for p in patterns)
            for part in parts
        ):
            bad.append(text)
    return bad


def _visible_texts(top) -> list[str]:
    from PySide6.QtCore import QModelIndex, Qt
    from PySide6.QtWidgets import (
        QAbstractButton,
        QAbstractItemView,
        QComboBox,
        QDockWidget,
        QGroupBox,
        QLabel,
        QLineEdit,
        QMainWindow,
        QPlainTextEdit,
        QTabWidget,
        QTextEdit,
    )

    texts = [top.windowTitle()]
    if isinstance(top, QMainWindow):
        for action in top.menuBar().actions():
            texts.append(action.text())
            texts += [a.text() for a in action.menu().actions()] if action.menu() else []
    for w in top.findChildren(QWidget):
        if not w.isVisibleTo(top):
            continue
        texts.append(w.toolTip())
        if isinstance(w, (QLabel, QAbstractButton)):
            texts.append(w.text())
        elif isinstance(w, QGroupBox):
            texts.append(w.title())
        elif isinstance(w, QDockWidget):
            texts.append(w.windowTitle())
        elif isinstance(w, QTabWidget):
            texts += [w.tabText(i) for i in range(w.count())]
        elif isinstance(w, QComboBox):
            texts += [w.itemText(i) for i in range(w.count())]
        elif isinstance(w, QLineEdit):
            texts.append(w.placeholderText())  # its text is the person's own
        elif isinstance(w, (QPlainTextEdit, QTextEdit)):
            texts.append(w.placeholderText())  # the report's source, TeX's log: not ours
        elif isinstance(w, QAbstractItemView) and w.model() is not None:
            model = w.model()
            header = getattr(w, "header", None) or getattr(w, "horizontalHeader", None)
            if header is not None and not header().isHidden():
                texts += [
                    model.headerData(c, Qt.Orientation.Horizontal)
                    for c in range(model.columnCount())
                ]
            stack = [QModelIndex()]
            while stack:
                parent = stack.pop()
                for r in range(model.rowCount(parent)):
                    for c in range(_columns(model, parent)):
                        texts.append(model.index(r, c, parent).data())
                    stack.append(model.index(r, 0, parent))
    return [t for t in texts if isinstance(t, str) and t.strip()]


EXAMPLE = ROOT / "examples" / "pendulum"


def test_no_visible_text_in_chinese_is_outside_the_translation_file(
    qtbot, window_for, tmp_path, monkeypatch
):
    """Every state a person walks through, in Chinese: a run whose model reads, repeats
    itself and is stopped by the guards, its timeline, its review, Settings."""
    import shutil

    from PySide6.QtCore import Qt, QTimer
    from PySide6.QtWidgets import QApplication, QDialog

    from agent_helpers import route
    from fakes import FakeLLM, call, thinking, tool_calls

    folder = tmp_path / "pendulum"
    shutil.copytree(EXAMPLE, folder)
    from labwright.core.report.templates import available

    # the folder's own names, the models', the report templates' (lab-en): not words of ours
    names = {p.stem for p in folder.rglob("*")} | {folder.name, "fake", "explore", "write"}
    names |= {part for t in available() for part in t.split("-")}
    first = tool_calls(call("list_dir", {"path": "."}), call("read_file", {"path": "nope.csv"}))
    # the first turn thinks aloud for a while (streamed): the running step shows its progress
    script = [thinking("Which file holds the periods? " * 6, first, every=0.1)]
    script += [tool_calls(call("read_file", {"path": "data/periods.csv"}))] * 8
    seen: dict[str, list[str]] = {}
    try:
        install_language("zh_CN")
        with FakeLLM(route(script)) as llm:
            w = window_for(llm)
            w.retranslate()
            w.resize(1024, 640)
            seen["start"] = _visible_texts(w)
            w.load_folder(folder)
            qtbot.waitUntil(w.start_button.isEnabled, timeout=10_000)
            seen["folder"] = _visible_texts(w)
            with qtbot.waitSignal(w.bridge.finished, timeout=120_000):
                qtbot.mouseClick(w.start_button, Qt.MouseButton.LeftButton)
                qtbot.waitUntil(lambda: w.timeline.current_stage == "explore", timeout=10_000)
                detail = w.timeline.index(w.timeline.plan.index("explore"), 1)
                qtbot.waitUntil(lambda: " · " in (detail.data() or ""), timeout=10_000)
                seen["running"] = _visible_texts(w)  # "思考中… N 个词元 · T 秒"
                assert detail.data() in seen["running"]
            qtbot.waitUntil(lambda: w.review is not None and w.review.isVisible())
            seen["review"] = _visible_texts(w)
            w.review.back_button.click()
            seen["timeline"] = _visible_texts(w)
            kinds = set(_timeline_kinds(w.timeline))
            assert {"tool", "guard"} <= kinds  # the run had tool calls and guards to show

            def answer_settings() -> None:
                dialog = next(
                    d
                    for d in QApplication.topLevelWidgets()
                    if isinstance(d, QDialog) and d.isVisible()
                )
                seen["settings"] = _visible_texts(dialog)
                dialog.reject()

            QTimer.singleShot(0, answer_settings)
            w.settings_action.trigger()
            assert "settings" in seen

            def answer_about() -> None:
                box = QApplication.activeModalWidget()
                seen["about"] = _visible_texts(box)
                box.accept()

            QTimer.singleShot(0, answer_about)
            w.about_action.trigger()
            assert "about" in seen

            from labwright.gui.doctor_dialog import DoctorDialog

            w.check_setup_action.trigger()  # Help > Check Setup…: it checks in a worker
            qtbot.waitUntil(lambda: w.findChild(DoctorDialog) is not None)
            doctor = w.findChild(DoctorDialog)
            qtbot.waitUntil(lambda: bool(doctor.checks), timeout=60_000)
            seen["check setup"] = _visible_texts(doctor)
            with qtbot.waitSignal(doctor.finished):
                doctor.reject()
    finally:
        install_language("en")
    for state, texts in seen.items():
        bad = _untranslated(texts, names)
        assert bad == [], f"{state}: {bad}"


def _columns(model, parent) -> int:
    try:
        return model.columnCount(parent)
    except TypeError:  # a list's model keeps it private: one column
        return 1


def _timeline_kinds(model):
    from PySide6.QtCore import QModelIndex

    from labwright.gui.timeline import KindRole

    stack = [QModelIndex()]
    while stack:
        parent = stack.pop()
        for r in range(model.rowCount(parent)):
            index = model.index(r, 0, parent)
            yield index.data(KindRole)
            stack.append(index)


def test_the_walk_finds_english_that_is_not_in_the_translation_file():
    # the check itself: English outside the .ts is found; names, files, calls and Chinese pass
    assert _untranslated(["Data: 3 entries"], set()) == ["Data: 3 entries"]
    assert (
        _untranslated(["数据：3 项", "read_file(data/a.csv)", "report.tex", "PDF", "12.5"], set())
        == []
    )
    assert _untranslated(["data/pendulum.csv：3 项"], set()) == []
    assert _untranslated(["Labwright — pendulum"], {"pendulum"}) == []
