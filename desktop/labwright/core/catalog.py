"""The core's tables of words: one English template per code, translated in the app.

The core never translates (it never imports Qt). A `Catalog` names the translation
context of its templates; the core keeps a sentence's code and params (a `Words`, an
`OpenItem`, an `ExportError`, a reason) and fills the English template itself for the
CLI, the journal and the logs. The app words the same code and params in the interface
language through `labwright.gui.i18n.catalog_text`, which passes
`QCoreApplication.translate` with the catalog's context as `tr`. The messages reach the
.ts file through `scripts/update_translations.py`, which collects `all_texts()` of every
catalog it lists (a new catalog is added there).

Params hold what a sentence is about (a path, a call, TeX's own message): they stay as
they are in every language, except the English words of `params_words` (a budget's
name), which are translated under the same context.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

Translate = Callable[[str], str]

_PLACEHOLDER = re.compile(r"\{[A-Za-z_]*\}")


def same(text: str) -> str:
    """The `tr` of English: every text as it is."""
    return text


@dataclass(frozen=True)
class Catalog:
    """English templates by code, translated under `context`."""

    context: str
    templates: Mapping[str, str]
    params_words: tuple[str, ...] = ()  # English words that fill params, translated too
    word_params: frozenset[str] = frozenset()  # the params they fill

    def english(self, code: str, **params: object) -> str:
        """The filled English sentence (KeyError for a code the table does not have)."""
        return self.templates[code].format(**{k: str(v) for k, v in params.items()})

    def template(self, code: str, tr: Translate = same) -> str | None:
        """The template of `code` in the words `tr` gives; None for a code not known (a
        record from another version). A template of params alone ("{text}") stays as is."""
        template = self.templates.get(code)
        if template is None:
            return None
        return tr(template) if _has_words(template) else template

    def text(self, code: str, params: Mapping[str, Any], tr: Translate = same) -> str | None:
        """The sentence of `code` filled from `params`, in the words `tr` gives; None when
        the code is not known or a translation lost a placeholder."""
        template = self.template(code, tr)
        if template is None:
            return None
        shown = {k: self.param(k, v, tr) for k, v in params.items()}
        try:
            return template.format(**shown)
        except (KeyError, IndexError, ValueError):
            return None

    def param(self, key: str, value: Any, tr: Translate = same) -> str:
        """A param as shown: one of `params_words` translated, anything else as it is."""
        if key in self.word_params and str(value) in self.params_words:
            return tr(str(value))
        return str(value)

    def all_texts(self) -> list[str]:
        """Every text to translate, for the .ts file: the templates with more than their
        params (a colon alone counts: Chinese writes it full-width), and `params_words`."""
        return list(
            dict.fromkeys(
                [*(t for t in self.templates.values() if _has_words(t)), *self.params_words]
            )
        )


def _has_words(template: str) -> bool:
    return bool(_PLACEHOLDER.sub("", template).strip())
