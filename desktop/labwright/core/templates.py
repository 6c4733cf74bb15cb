"""Report templates (resources/templates/*.json): preamble, sections, stages, reflection."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

from .config import resources_dir

DEFAULT_BY_LANG = {"en": "lab-en", "zh": "lab-zh"}


class TemplateError(ValueError):
    """An unknown or broken template; the message lists the ones that exist."""


@dataclass(frozen=True)
class Template:
    name: str
    lang: str
    title: str
    preamble: str
    sections: list[str]
    description: str = ""
    bibliography_style: str = "unsrt"
    stages: dict[str, bool] = field(default_factory=lambda: {"figures": True, "gap": True})
    reflect: int = 2
    todo: str = "TODO"

    def runs(self, stage: str) -> bool:
        return bool(self.stages.get(stage, True))


def templates_dir() -> Path:
    return resources_dir() / "templates"


def available() -> list[str]:
    return sorted(p.stem for p in templates_dir().glob("*.json"))


def load_template(name: str | None = None, lang: str | None = None) -> Template:
    """The named template, else the default for `lang` (English when unset)."""
    name = name or DEFAULT_BY_LANG.get(lang or "en", "lab-en")
    path = templates_dir() / f"{name}.json"
    if not path.is_file():
        raise TemplateError(f"No template named {name!r}. Available: {', '.join(available())}.")
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        return Template(**data)
    except (json.JSONDecodeError, TypeError) as e:
        raise TemplateError(f"Template {name!r} is broken: {e}") from None
