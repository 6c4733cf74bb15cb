"""Report templates (labwright/resources/templates/*.json): preamble, sections, stages, reflection."""

from __future__ import annotations

import json
from dataclasses import dataclass, field

from labwright.core import resources

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


def available() -> list[str]:
    return resources.names("templates", ".json")


def load_template(name: str | None = None, lang: str | None = None) -> Template:
    """The named template, else the default for `lang` (English when unset)."""
    name = name or DEFAULT_BY_LANG.get(lang or "en", "lab-en")
    relpath = f"templates/{name}.json"
    if not resources.exists(relpath):
        raise TemplateError(f"No template named {name!r}. Available: {', '.join(available())}.")
    try:
        data = json.loads(resources.text(relpath))
        return Template(**data)
    except (json.JSONDecodeError, TypeError) as e:
        raise TemplateError(f"Template {name!r} is broken: {e}") from None
