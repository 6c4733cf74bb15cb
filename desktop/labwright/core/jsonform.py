"""The JSON form of typed records: one plumbing for the event details (events.py) and the
run folder's records (rundir/records.py), whose classes differ in how strict they are."""

from __future__ import annotations

from typing import Any, get_type_hints


def plain(value: Any) -> Any:
    """`value` as JSON types: a record (anything with to_dict) as its dict, all the way down.
    A string stays a string, also one that knows its dict (step_words.Words)."""
    to_dict = getattr(value, "to_dict", None)
    if callable(to_dict) and not isinstance(value, (type, str)):
        return to_dict()
    if isinstance(value, list):
        return [plain(v) for v in value]
    if isinstance(value, dict):
        return {k: plain(v) for k, v in value.items()}
    return value


_FIELD_TYPES: dict[type, dict[str, Any]] = {}


def field_types(cls: type) -> dict[str, Any]:
    """The type hints of a record class, resolved once."""
    if cls not in _FIELD_TYPES:
        _FIELD_TYPES[cls] = get_type_hints(cls)
    return _FIELD_TYPES[cls]
