"""Refresh desktop/labwright/resources/translations/labwright_zh_CN.ts from the code, with the texts of zh_CN.py.

    .venv/bin/python scripts/update_translations.py

Runs pyside6-lupdate over desktop/labwright/gui (new strings appear, gone ones
leave), adds the core's tables of sentences (core/reasons.py, core/report/item_words.py,
core/report/export.py, core/step_words.py, and the Settings dialog's widgets that
core/settings/config.py declares: the GUI translates them at run time, so lupdate cannot
see them), then fills each message
from scripts/zh_CN.py. A string with no
translation stays "unfinished" (shown in English) and is listed, and a test
fails on it.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TS = ROOT / "desktop" / "labwright" / "resources" / "translations" / "labwright_zh_CN.ts"
sys.path.insert(0, str(ROOT / "scripts"))
sys.path.insert(0, str(ROOT / "desktop"))

from zh_CN import ZH_CN  # noqa: E402

from labwright.core import reasons, step_words  # noqa: E402
from labwright.core.report import export, item_words  # noqa: E402
from labwright.core.settings import config, schema  # noqa: E402

# the core's tables of sentences, each translated by the GUI under its own context
CORE_TABLES = [
    (reasons.TR_CONTEXT, reasons.all_texts),
    (item_words.TR_CONTEXT, item_words.all_texts),
    (export.TR_CONTEXT, export.all_texts),
    (step_words.TR_CONTEXT, step_words.all_texts),
    (schema.TR_CONTEXT, config.SCHEMA.texts),
]


def add_core_context(root: ET.Element, name: str, texts: list[str]) -> None:
    """One table of the core's sentences, as one context of the .ts file."""
    for old in [c for c in root.iter("context") if c.findtext("name") == name]:
        root.remove(old)
    context = ET.SubElement(root, "context")
    ET.SubElement(context, "name").text = name
    for text in dict.fromkeys(texts):
        message = ET.SubElement(context, "message")
        ET.SubElement(message, "source").text = text
        ET.SubElement(message, "translation", type="unfinished")
    ET.indent(context, space="    ")  # laid out as lupdate lays out its own contexts
    context.tail = "\n"
    if len(root) > 1:
        root[-2].tail = "\n"


def main() -> None:
    lupdate = shutil.which("pyside6-lupdate", path=str(Path(sys.executable).parent))
    sources = sorted(str(p) for p in (ROOT / "desktop" / "labwright" / "gui").glob("*.py"))
    subprocess.run(
        [lupdate, *sources, "-ts", str(TS), "-no-obsolete", "-locations", "none"], check=True
    )
    tree = ET.parse(TS)
    for name, texts in CORE_TABLES:
        add_core_context(tree.getroot(), name, texts())
    missing = []
    for message in tree.getroot().iter("message"):
        source = message.findtext("source") or ""
        tr = message.find("translation")
        if source in ZH_CN:
            tr.text = ZH_CN[source]
            tr.attrib.pop("type", None)
        else:
            missing.append(source)
    tree.write(TS, encoding="utf-8", xml_declaration=True)
    print(f"{TS.relative_to(ROOT)}: {sum(1 for _ in tree.getroot().iter('message'))} strings")
    for source in missing:
        print(f"  untranslated: {source!r}")


if __name__ == "__main__":
    main()
