"""`load`: a data file's measurement table as a pandas DataFrame, inside or outside the sandbox.

The tables are found by core/material/tables (the detector) in the parent process
(tables.py); what crosses into the sandbox is only their content, as plain JSON (a
"payload": the columns' physicist names, units, roles and values, the file and cell
range they come from). This module turns a payload back into DataFrames and picks the one
`load(path, sheet=None, table=None)` asks for. It imports nothing of labwright, so the
sandboxed child can load it on its own.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import PurePath, PurePosixPath
from typing import Any

Payload = Mapping[str, Any]  # {"files": {rel: {"tables": [...], "note": str}}}


class LoadError(LookupError):
    """A table `load` cannot give: the file was not prepared, or no table fits the request."""


def frame(table: Mapping[str, Any]) -> Any:
    """One payload table as a DataFrame: data rows only, units in df.attrs["units"]."""
    import pandas as pd  # type: ignore[import-untyped]

    columns = list(table["columns"])
    data = {name: list(values) for name, values in zip(columns, table["data"], strict=True)}
    df = pd.DataFrame(data, columns=columns)
    for name, kind in zip(columns, table.get("kinds", []), strict=False):
        if kind == "number":
            df[name] = pd.to_numeric(df[name], errors="coerce").astype(float)
    df.attrs = {
        "units": dict(zip(columns, table.get("units", [""] * len(columns)), strict=False)),
        "headers": dict(zip(columns, table.get("headers", columns), strict=False)),
        "roles": dict(zip(columns, table.get("roles", []), strict=False)),
        "uncertainty_of": dict(table.get("uncertainty_of", {})),
        "source": table.get("source", ""),
        "sheet": table.get("sheet"),
        "range": table.get("range", ""),
        "title": table.get("title", ""),
    }
    return df


def _rel(path: Any, data_dir: PurePath | None) -> str:
    """'Data/x.xlsx' for 'Data/x.xlsx', './Data/x.xlsx' or DATA_DIR / 'Data' / 'x.xlsx'."""
    p = PurePath(str(path))
    if data_dir is not None and p.is_absolute():
        try:
            p = p.relative_to(data_dir)
        except ValueError:
            raise LoadError(f"{path}: load reads files under DATA_DIR only") from None
    parts = [part for part in PurePosixPath(p.as_posix()).parts if part not in (".", "")]
    return "/".join(parts)


class Loader:
    """`load(path, sheet=None, table=None)` over the tables the parent prepared."""

    def __init__(self, payload: Payload, data_dir: PurePath | None = None) -> None:
        self.files: Mapping[str, Any] = payload.get("files", {})
        self.data_dir = data_dir

    def entry(self, path: Any) -> Mapping[str, Any]:
        rel = _rel(path, self.data_dir)
        entry = self.files.get(rel)
        if entry is None:
            folded = {k.casefold(): v for k, v in self.files.items()}
            entry = folded.get(rel.casefold())
        if entry is None:
            known = ", ".join(sorted(self.files)) or "none"
            raise LoadError(
                f"load({rel!r}): this file's tables were not prepared. Name it in the call's "
                f"`inputs` (or pass load() the path as a plain string). Prepared: {known}."
            )
        return entry

    def tables(self, path: Any) -> list[str]:
        """What load() can give of a file: one line per table (index, sheet, range, columns)."""
        entry = self.entry(path)
        lines = []
        for i, t in enumerate(entry.get("tables", [])):
            where = f"sheet {t['sheet']!r}, " if t.get("sheet") else ""
            units = t.get("units", [])
            cols = ", ".join(
                f"{c} ({u})" if u else str(c) for c, u in zip(t["columns"], units, strict=False)
            )
            lines.append(
                f"table={i}: {where}{t.get('range', '')}: {cols}; {t.get('n_rows', 0)} rows"
            )
        note = entry.get("note")
        return lines or [f"no table found ({note})" if note else "no table found"]

    def __call__(
        self, path: Any, sheet: str | int | None = None, table: int | str | None = None
    ) -> Any:
        entry = self.entry(path)
        found = list(entry.get("tables", []))
        if not found:
            note = entry.get("note") or "the detector found no measurement table in it"
            raise LoadError(f"load({_rel(path, self.data_dir)!r}): no table ({note})")
        if sheet is not None:
            found = [t for t in found if _sheet_matches(t.get("sheet"), sheet, entry)]
            if not found:
                sheets = sorted({str(t.get("sheet")) for t in entry["tables"]})
                raise LoadError(
                    f"no table on sheet {sheet!r}; sheets with tables: {', '.join(sheets)}"
                )
        chosen = _pick(found, table, path)
        return frame(chosen)


def _sheet_matches(name: str | None, wanted: str | int, entry: Mapping[str, Any]) -> bool:
    if isinstance(wanted, int):
        sheets = entry.get("sheets") or []
        return 0 <= wanted < len(sheets) and sheets[wanted] == name
    return name is not None and name.strip().casefold() == str(wanted).strip().casefold()


def _pick(
    found: Sequence[Mapping[str, Any]], table: int | str | None, path: Any
) -> Mapping[str, Any]:
    if table is None:
        return found[0]
    if isinstance(table, int) and not isinstance(table, bool):
        if not -len(found) <= table < len(found):
            raise LoadError(
                f"table={table}: {path} has {len(found)} table(s) there (0 to {len(found) - 1})"
            )
        return found[table]
    wanted = str(table).strip().casefold()
    for t in found:
        if wanted in (str(t.get("range", "")).casefold(), str(t.get("title", "")).casefold()):
            return t
    for t in found:
        if wanted and wanted in str(t.get("title", "")).casefold():
            return t
    raise LoadError(
        f"no table {table!r} in {path}; give its index (table=0, 1 ...) or its cell range"
    )
