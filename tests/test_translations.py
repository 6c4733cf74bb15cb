"""The .ts files are the source of the translations: scripts/update_translations.py merges
the code's messages into them (as lupdate does) and never overwrites what a translator
wrote in Qt Linguist."""

from __future__ import annotations

import importlib.util
import shutil
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
TRANSLATIONS = ROOT / "desktop" / "labwright" / "resources" / "translations"
TS = TRANSLATIONS / "labwright_zh_CN.ts"


def _script():
    spec = importlib.util.spec_from_file_location(
        "update_translations", ROOT / "scripts" / "update_translations.py"
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture
def script():
    return _script()


def messages(ts: Path) -> dict[tuple[str, str], ET.Element]:
    root = ET.parse(ts).getroot()
    return {
        (c.findtext("name"), m.findtext("source")): m
        for c in root.iter("context")
        for m in c.iter("message")
    }


def test_the_translation_files_hold_every_message_of_the_code(script, capsys):
    # check mode runs lupdate over the code into copies: nothing may change
    assert script.main(["--check"]) == 0, capsys.readouterr().out


def test_the_check_sees_a_message_missing_from_the_file(script, tmp_path, monkeypatch):
    # positive control: a .ts that lacks a message of the code is reported
    copy = tmp_path / "translations"
    shutil.copytree(TRANSLATIONS, copy)
    text = TS.read_text(encoding="utf-8")
    source = "<source>Scan the folder</source>"
    assert source in text
    (copy / TS.name).write_text(text.replace(source, "<source>Scan the fold</source>"), "utf-8")
    monkeypatch.setattr(script, "TRANSLATIONS", copy)
    assert script.main(["--check"]) == 1


def test_no_chinese_message_is_unfinished():
    unfinished = [
        source
        for (_, source), m in messages(TS).items()
        if m.find("translation").get("type") == "unfinished"
        or not "".join(m.find("translation").itertext()).strip()
    ]
    assert unfinished == []


def test_an_edit_made_in_linguist_survives_an_update(script, tmp_path, monkeypatch):
    copy = tmp_path / "translations"
    shutil.copytree(TRANSLATIONS, copy)
    ts = copy / TS.name
    tree = ET.parse(ts)
    # what Qt Linguist writes: a new translation, a translator's comment, a message
    # marked unfinished again for review
    found = {
        (c.findtext("name"), m.findtext("source")): m
        for c in tree.getroot().iter("context")
        for m in c.iter("message")
    }
    start = found[("WindowMenus", "&Start")]
    start.find("translation").text = "开跑(&S)"
    ET.SubElement(start, "translatorcomment").text = "shorter on the toolbar"
    found[("Timeline", "Scan the folder")].find("translation").set("type", "unfinished")
    tree.write(ts, encoding="utf-8", xml_declaration=True)
    # the code gained one message of the core and lost another
    core = script.core_messages()
    gone = ("Steps", "no vision model")
    assert gone in core
    new = ("Steps", "{path}: a brand-new sentence")
    monkeypatch.setattr(script, "core_messages", lambda: [m for m in core if m != gone] + [new])

    script.update(copy, tmp_path)

    after = messages(ts)
    assert after[("WindowMenus", "&Start")].findtext("translation") == "开跑(&S)"
    assert (
        after[("WindowMenus", "&Start")].findtext("translatorcomment") == "shorter on the toolbar"
    )
    assert after[("Timeline", "Scan the folder")].find("translation").get("type") == "unfinished"
    assert after[new].find("translation").get("type") == "unfinished"
    assert after[gone].find("translation").get("type") in ("vanished", "obsolete")
    assert after[gone].findtext("translation") == "没有视觉模型"  # kept, should it come back
    # every other translation is as it was
    before = messages(TS)
    same = [k for k in before if k not in (gone, ("WindowMenus", "&Start"))]
    assert all(
        "".join(after[k].find("translation").itertext())
        == "".join(before[k].find("translation").itertext())
        for k in same
    )


# -- plurals: %n with Qt's numerus forms ----------------------------------------------------


@pytest.mark.parametrize(
    "lang, one, three",
    [
        ("en", "1 file read, 1 model call", "3 files read, 3 model calls"),
        ("zh_CN", "读了 1 个文件，1 次模型调用", "读了 3 个文件，3 次模型调用"),
    ],
)
def test_a_count_is_said_with_its_number_in_both_languages(qapp, lang, one, three):
    from labwright.core.events import ExploreDetail
    from labwright.gui.i18n import install_language
    from labwright.gui.timeline import milestone_summary

    try:
        install_language(lang)
        said = [
            milestone_summary(
                "explore", "done", ExploreDetail(status="finished", files_read=n, model_calls=n)
            )
            for n in (1, 3)
        ]
    finally:
        install_language("en")
    assert said == [one, three]


def test_every_plural_form_holds_its_number():
    for name in ("labwright_zh_CN.ts", "labwright_en.ts"):
        root = ET.parse(TRANSLATIONS / name).getroot()
        plural = [m for m in root.iter("message") if m.get("numerus") == "yes"]
        assert plural, name
        for m in plural:
            forms = [f.text or "" for f in m.find("translation").iter("numerusform")]
            assert len(forms) == (1 if "zh" in name else 2), m.findtext("source")
            assert all("%n" in f for f in forms), m.findtext("source")
