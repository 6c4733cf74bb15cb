"""Jupyter notebooks (.ipynb) as lines: cells in order with their text outputs."""

from __future__ import annotations

import json

from labwright.core.material.readers.cache import Converted
from labwright.core.material.readers.encoding import detect_file_encoding
from labwright.core.material.readers.page import (
    Budget,
    LineMap,
    ReadError,
    check_whole_file_size,
)
from labwright.core.material.readers.source import Opened

_IMAGE_TYPES = ("image/png", "image/jpeg", "image/svg+xml", "image/gif")


def _text(value: object) -> str:
    if isinstance(value, list):
        return "".join(str(x) for x in value)
    return "" if value is None else str(value)


def _output_lines(out: dict) -> list[str]:
    kind = out.get("output_type")
    if kind == "stream":
        return _text(out.get("text")).splitlines()
    if kind == "error":
        return [f"{out.get('ename', 'Error')}: {out.get('evalue', '')}"]
    if kind in ("execute_result", "display_data", "pyout", "display"):
        data = out.get("data") or {}
        if "text/plain" in data:
            return _text(data["text/plain"]).splitlines()
        if any(t in data for t in _IMAGE_TYPES):
            return ["[image output]"]
        if "text/html" in data:
            return ["[HTML output]"]
        if "text" in out:  # nbformat 3
            return _text(out["text"]).splitlines()
        if any(t in out for t in ("png", "jpeg", "svg")):
            return ["[image output]"]
    return []


def cell_heading(ctype: str, count: object) -> str:
    """The line before a cell's source: its type and execution count."""
    return f"## [{ctype}]" + (f" In[{count}]" if count is not None else "")


def convert_ipynb(src: Opened, budget: Budget | None = None) -> Converted:
    check_whole_file_size(src, "notebook")
    enc = detect_file_encoding(src)
    try:
        raw = src.read_bytes().decode(enc.codec if enc else "utf-8", errors="replace")
        nb = json.loads(raw[1:] if raw.startswith("\ufeff") else raw)
    except (json.JSONDecodeError, UnicodeError) as e:
        raise ReadError(
            f"The notebook {src.name} is not valid JSON ({e}); it may be damaged."
        ) from e
    if not isinstance(nb, dict):
        raise ReadError(f"{src.name} is JSON but not a Jupyter notebook.")
    cells = nb.get("cells")
    if cells is None:  # nbformat 3 keeps cells inside worksheets
        cells = [c for ws in nb.get("worksheets", []) for c in ws.get("cells", [])]
    doc = LineMap()
    for cell in cells:
        if budget is not None and budget.check():
            doc.add("[reading stopped here: time limit]", marker=True)
            break
        if not isinstance(cell, dict):
            continue
        ctype = cell.get("cell_type", "?")
        count = cell.get("execution_count")
        label = f"In[{count}]" if count is not None else str(ctype)
        doc.add(cell_heading(ctype, count), marker=True, cell=label)
        doc.extend(_text(cell.get("source", cell.get("input"))).splitlines(), cell=label)
        out_lines: list[str] = []
        for out in cell.get("outputs", []) or []:
            if isinstance(out, dict):
                out_lines.extend(_output_lines(out))
        if out_lines:
            doc.add("### output", marker=True, cell=label)
            doc.extend(out_lines, cell=label)
    lang = (nb.get("metadata", {}).get("kernelspec") or {}).get("language") or ""
    note = f"Jupyter notebook with {len(cells)} cells" + (f" ({lang})" if lang else "") + "."
    return Converted.of(doc, note, bool(cells))
