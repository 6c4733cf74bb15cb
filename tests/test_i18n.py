"""English and Simplified Chinese through Qt's translation system."""

from __future__ import annotations

import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

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


def test_every_string_is_translated():
    root = ET.parse(TS).getroot()
    unfinished = [
        m.findtext("source")
        for m in root.iter("message")
        if m.find("translation").get("type") == "unfinished" or not m.findtext("translation")
    ]
    assert unfinished == []


def test_the_translation_file_covers_every_string_in_the_code(tmp_path):
    lupdate = shutil.which("pyside6-lupdate", path=str(Path(sys.executable).parent))
    assert lupdate, "pyside6-lupdate comes with PySide6-Essentials"
    fresh = tmp_path / "fresh.ts"
    code = sorted(str(p) for p in (ROOT / "desktop" / "labwright" / "gui").glob("*.py"))
    subprocess.run([lupdate, *code, "-ts", str(fresh)], check=True, capture_output=True)
    missing = sources(fresh) - sources(TS)
    assert not missing, f"run scripts/update_translations.py; new strings: {sorted(missing)[:5]}"


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
    assert t.translate("MainWindow", "Cancel") == "取消"
    assert t.translate("MainWindow", "not a string of ours") is None  # a null QString: not found
