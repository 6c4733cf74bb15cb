"""The words of the review's open items: one English template per code, filled from the item's
params. `OpenItem.message` is the filled English (the CLI and export README use it); the app
words the same code and params from the catalog `ITEMS` (core/catalog.py).

Params hold what the item is about (a requirement, a cite key, TeX's own message, a
path): those stay as they are in every language.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from labwright.core.catalog import Catalog, Translate, same

TR_CONTEXT = "OpenItems"

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

ITEMS = Catalog(TR_CONTEXT, ITEM_TEXT)


def all_texts() -> list[str]:
    """The templates with more than their params (not just "{text}"), for the .ts file."""
    return ITEMS.all_texts()


def item_text(code: str, params: Mapping[str, Any], tr: Translate = same) -> str:
    """An item's sentence from its code and params, in the words `tr` gives (the item's own
    message for a code not known)."""
    text = ITEMS.text(code, params, tr)
    return str(params.get("message", "")) if text is None else text
