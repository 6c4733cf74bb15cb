"""The one loader of package data (labwright.core.resources) and the prompt files it serves."""

from __future__ import annotations

import re
import string
from pathlib import Path

import pytest

from labwright.core import resources
from labwright.core.report.templates import TemplateError, available, load_template

ROOT = Path(__file__).resolve().parents[1]
CORE = ROOT / "desktop" / "labwright" / "core"
PROMPTS = ROOT / "desktop" / "labwright" / "resources" / "prompts"


def _used(kind: str) -> set[str]:
    """Names passed as a literal to prompt("…") or message("…") anywhere in core/."""
    found: set[str] = set()
    for py in CORE.rglob("*.py"):
        src = py.read_text(encoding="utf-8")
        found |= set(re.findall(rf'\b{kind}\(\s*"([\w/]+)"', src))
        # message("a" if x else "b")
        for m in re.finditer(rf'\b{kind}\(\s*"(\w+)"\s+if\b[^()]*?\belse\s+"(\w+)"', src):
            found |= set(m.groups())
    return found


def test_every_prompt_and_message_the_code_names_exists_and_none_is_orphaned() -> None:
    prompts = {p.stem for p in PROMPTS.glob("*.md")}
    messages = {p.stem for p in (PROMPTS / "messages").glob("*.md")}
    assert _used("prompt") == prompts
    assert _used("message") == messages


@pytest.mark.parametrize("path", sorted(PROMPTS.rglob("*.md")), ids=lambda p: p.stem)
def test_prompt_files_are_valid_format_strings(path: Path) -> None:
    # a stray { in a prompt would raise only when the model is about to be asked
    fields = [f for _, f, _, _ in string.Formatter().parse(path.read_text(encoding="utf-8"))]
    assert all(f is None or f.isidentifier() for f in fields), fields


def test_message_drops_only_the_files_final_newline() -> None:
    assert resources.message("standing_none") == "So far nothing has been read."
    dedup = resources.message("guard_dedup", call="c()", head="line1\n", more="")
    assert dedup.startswith("You already called c() ") and "began:\nline1\n\nTo" in dedup
    assert not dedup.endswith("\n")
    assert resources.prompt("retry", problems="P").endswith("\n")  # prompts keep theirs


def test_paths_outside_the_resources_are_refused() -> None:
    for bad in ("../core/config.py", "/etc/passwd", "prompts/../../cli.py", ""):
        with pytest.raises(ValueError):
            resources.text(bad)
        assert not resources.exists(bad)
    with pytest.raises(TemplateError, match="Available: "):
        load_template("../resources/templates/lab-en")


def test_names_text_and_a_real_file_for_qt() -> None:
    assert available() == resources.names("templates", ".json")
    assert {"lab-en", "lab-zh"} <= set(available())
    assert resources.names("no-such-folder", ".json") == []
    with pytest.raises(FileNotFoundError):
        resources.text("prompts/no_such_prompt.md")
    with resources.path("translations/labwright_zh_CN.ts") as real:
        assert real.is_file()
        assert real.read_text(encoding="utf-8") == resources.text("translations/labwright_zh_CN.ts")


def test_the_app_icon_comes_from_package_data(qapp) -> None:
    from labwright.gui.app import app_icon, create_app

    icon = app_icon()
    assert not icon.isNull()
    assert icon.availableSizes()[0].width() == 256  # the SVG's own size, so it was rendered
    assert not create_app().windowIcon().isNull()
