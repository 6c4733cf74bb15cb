"""Refresh desktop/labwright/resources/translations/labwright_zh_CN.ts from the code, with the texts of zh_CN.py.

    .venv/bin/python scripts/update_translations.py

Runs pyside6-lupdate over desktop/labwright/gui (new strings appear, gone ones
leave), then fills each message from scripts/zh_CN.py. A string with no
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

from zh_CN import ZH_CN  # noqa: E402


def main() -> None:
    lupdate = shutil.which("pyside6-lupdate", path=str(Path(sys.executable).parent))
    sources = sorted(str(p) for p in (ROOT / "desktop" / "labwright" / "gui").glob("*.py"))
    subprocess.run(
        [lupdate, *sources, "-ts", str(TS), "-no-obsolete", "-locations", "none"], check=True
    )
    tree = ET.parse(TS)
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
