"""The one way to read Labwright's package data (labwright/resources/).

Prompts (including every message the model sees from the agent loop and its
guards), report templates, translations and icons ship inside the package, so a wheel,
a non-editable install and a bundle read them the same way a checkout does:
through importlib.resources, never a path computed from __file__.
"""

from __future__ import annotations

import functools
from collections.abc import Iterator
from contextlib import contextmanager
from importlib.resources import as_file, files
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from importlib.abc import Traversable  # importlib.resources.abc from Python 3.11 on

_PACKAGE = "labwright"
_FOLDER = "resources"


def _locate(relpath: str) -> Traversable:
    """`relpath` ("prompts/fix.md") inside the resources folder; nothing outside it.

    Names come from settings and flags (a template name), so ".." and absolute
    paths are refused rather than resolved.
    """
    parts = PurePosixPath(relpath).parts
    if not parts or PurePosixPath(relpath).is_absolute() or any(p in ("..", ".") for p in parts):
        raise ValueError(f"not a resource path: {relpath!r}")
    node = files(_PACKAGE).joinpath(_FOLDER)
    for part in parts:
        node = node.joinpath(part)
    return node


def exists(relpath: str) -> bool:
    try:
        return _locate(relpath).is_file()
    except ValueError:
        return False


@functools.cache  # package data, read-only while the app runs: a prompt is read once
def text(relpath: str) -> str:
    """The file's text (UTF-8); FileNotFoundError when there is no such resource."""
    return _locate(relpath).read_text(encoding="utf-8")


def data(relpath: str) -> bytes:
    """The file's bytes (icons)."""
    return _locate(relpath).read_bytes()


def names(folder: str, suffix: str) -> list[str]:
    """Sorted stems of the files in `folder` ending in `suffix` (".json" → template names)."""
    node = _locate(folder)
    if not node.is_dir():
        return []
    return sorted(
        c.name[: -len(suffix)] for c in node.iterdir() if c.is_file() and c.name.endswith(suffix)
    )


@contextmanager
def path(relpath: str) -> Iterator[Path]:
    """A real file for APIs that need one (Qt's translators and icons); may be temporary."""
    with as_file(_locate(relpath)) as real:
        yield real


def prompt(name: str, **values: Any) -> str:
    """prompts/<name>.md with its {placeholders} filled (str.format: literal braces are doubled)."""
    return text(f"prompts/{name}.md").format(**values)


def message(name: str, **values: Any) -> str:
    """prompts/messages/<name>.md filled in, without the file's final newline: the short
    notes the agent loop and its guards put in the transcript (a refusal, a nudge, a stub)."""
    body = text(f"prompts/messages/{name}.md")
    return body.removesuffix("\n").format(**values)
