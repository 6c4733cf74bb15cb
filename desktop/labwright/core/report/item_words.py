"""The words of the review's open items: one English template per code, filled from the item's
params. `OpenItem.message` is the filled English (the CLI and export README use it); the app
translates the template with context `TR_CONTEXT` and fills it from the same params, and
scripts/update_translations.py collects `all_texts()` into the .ts file.

Params hold what the item is about (a requirement, a cite key, TeX's own message, a
path): those stay as they are in every language.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Any

TR_CONTEXT = "OpenItems"
Translate = Callable[[str], str]

ITEM_TEXT: dict[str, str] = {
    "todo_placeholder": "{word} placeholder: {line}",
    "todo_comment": "{word} (comment): {comment}",
    "todo_marked": "{word}: {text}",  # the line's words; a `% TODO` comment marks it
    "todo_text": "{text}",  # the line's words already say TODO
    "gap_unsupported": "Requirement not supported by the material: {requirement}",
    "gap_unchecked": "Requirement not checked against the material: {requirement}",
    "citation": "Unresolved citation: \\cite{{{key}}} has no entry in refs.bib",
    "compile_error": "Compile error: {message}",
    "compile_error_in": "Compile error in {where}: {message}",
    "compile_warning": "Compile warning: {warning}",
    "figure_unused": "Figure not in the report: {path}",
    "figure_unused_caption": "Figure not in the report: {path} ({caption})",
    "number_not_found": "{number} is not in the material that was read.",
    "number_not_found_near": (
        "{number} is not in the material that was read (closest in the material: "
        "{closest}, {where})."
    ),
}

_PLACEHOLDER = re.compile(r"\{[a-z_]*\}")


def _same(text: str) -> str:
    return text


def all_texts() -> list[str]:
    """The templates with more than their params (not just "{text}"), for the translation
    file: a colon alone is translated too (Chinese writes it full-width)."""
    return [t for t in ITEM_TEXT.values() if _PLACEHOLDER.sub("", t).strip()]


def item_text(code: str, params: Mapping[str, Any], tr: Translate = _same) -> str:
    """An item's sentence from its code and params, in the words `tr` gives."""
    template = ITEM_TEXT.get(code)
    if template is None:
        return str(params.get("message", ""))
    words = tr(template) if template in all_texts() else template
    return words.format(**{k: str(v) for k, v in params.items()})
