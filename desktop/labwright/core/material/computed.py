"""Values computed from the material, kept as evidence with what they were computed from.

A report's statistics, fits and derived quantities are traced to the computation
that made them, over the rows it really used (never the total or mean written
under a column), not to whatever cell happens to hold the same value. Whoever
computes a number the report prints records it here:

    trace = Computations()
    trace.add("mean", 39.08, path="1MP1.xlsx", over="column 'Rate', Sheet1!D33:D52",
              sheet="Sheet1", n=20)
    trace.add("slope", 4.1e-15, path="data.xlsx", over="U against ν, Sheet1!B2:C6",
              uncertainty=0.2e-15, unit="V/Hz", inputs=[...])
    records = trace.records()  # lines of evidence.jsonl (kind "computation")

Values stated in the material ("Voperating 1010 v") are recorded with `stated`, so
a report number traces to the cell or line that states it. `evidence.py` reads the
records back as evidence numbers; `labwright verify` names the computation.
Pure Python.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

__all__ = ["COMPUTATION", "STATED", "Computation", "Computations"]

COMPUTATION = "computation"  # evidence.jsonl kind of a computed value
STATED = "stated"  # ... and of a value stated in the material
MAX_INPUTS = 50  # the values kept with a computation (a reviewer's excerpt, not the data)


@dataclass(frozen=True)
class Computation:
    """One value the report computed: what it is, and from which values of which file."""

    name: str  # what the value is: "mean", "standard deviation", "slope", "Q"
    value: float
    path: str  # the data file its inputs stand in (relative to the folder, posix)
    over: str  # its inputs, as a reviewer finds them: "column 'Rate', Sheet1!D33:D52"
    sheet: str | None = None
    n: int | None = None  # how many values went in
    inputs: tuple[float, ...] = ()  # the values themselves (the first MAX_INPUTS)
    unit: str | None = None
    uncertainty: float | None = None  # its standard uncertainty (a fit's parameter)
    kind: str = COMPUTATION

    def line(self) -> str:
        """ "mean of column 'Rate', Sheet1!D33:D52 (20 values) = 39.0795"."""
        used = f" ({self.n} values)" if self.n is not None else ""
        pm = f" ± {self.uncertainty:.6g}" if self.uncertainty is not None else ""
        unit = f" {self.unit}" if self.unit else ""
        if self.kind == STATED:
            return f"{self.name} = {self.value:.12g}{unit} (stated at {self.over})"
        return f"{self.name} of {self.over}{used} = {self.value:.12g}{pm}{unit}"

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {"name": self.name, "value": self.value, "over": self.over}
        for key in ("sheet", "n", "unit", "uncertainty"):
            if getattr(self, key) is not None:
                d[key] = getattr(self, key)
        if self.inputs:
            d["inputs"] = list(self.inputs)
        return d

    def record(self) -> dict[str, Any]:
        """Its line of evidence.jsonl."""
        return {"path": self.path, "kind": self.kind, "text": self.line(),
                "computation": self.to_dict()}  # fmt: skip

    @classmethod
    def from_record(cls, record: dict[str, Any]) -> Computation | None:
        """The computation of an evidence record, or None when it is not one (or damaged:
        a run folder is untrusted, its records are data)."""
        c = record.get("computation")
        kind = record.get("kind")
        if kind not in (COMPUTATION, STATED) or not isinstance(c, dict):
            return None
        value, unc, n = _number(c.get("value")), _number(c.get("uncertainty")), c.get("n")
        if value is None or unc is None and c.get("uncertainty") is not None:
            return None
        inputs = c.get("inputs") or []
        if not isinstance(inputs, list) or not all(_finite(v) for v in inputs):
            inputs = []
        return cls(
            name=str(c.get("name") or "value")[:120],
            value=value,
            path=str(record.get("path") or "?"),
            over=str(c.get("over") or "")[:300],
            sheet=str(c["sheet"]) if isinstance(c.get("sheet"), str) else None,
            n=n if isinstance(n, int) and not isinstance(n, bool) else None,
            inputs=tuple(float(v) for v in inputs[:MAX_INPUTS]),
            unit=str(c["unit"])[:40] if isinstance(c.get("unit"), str) else None,
            uncertainty=unc,
            kind=str(kind),
        )


def _finite(v: object) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)


def _number(v: object) -> float | None:
    """v as a finite float, else None (a record's value is untrusted data)."""
    return float(v) if isinstance(v, (int, float)) and _finite(v) else None


@dataclass
class Computations:
    """What a report computed (and quoted from the material), in order."""

    items: list[Computation] = field(default_factory=list)

    def add(
        self,
        name: str,
        value: float | None,
        *,
        path: str,
        over: str,
        sheet: str | None = None,
        n: int | None = None,
        inputs: Iterable[float | None] = (),
        unit: str | None = None,
        uncertainty: float | None = None,
    ) -> Computation | None:
        """Record `name` = `value`, computed from `inputs` (the values it used: data rows
        only) found at `over` in `path`; a value that is no number is not recorded."""
        value = _number(value)
        if value is None:
            return None
        used = [x for v in inputs if (x := _number(v)) is not None]
        c = Computation(
            name, value, path, over, sheet, n if n is not None else (len(used) or None),
            tuple(used[:MAX_INPUTS]), unit,
            _number(uncertainty),
        )  # fmt: skip
        self.items.append(c)
        return c

    def stated(
        self, name: str, value: float, *, path: str, where: str, unit: str | None = None
    ) -> Computation | None:
        """A value the material states beside its data (a cell or a line), quoted."""
        if not _finite(value):
            return None
        c = Computation(name, float(value), path, where, unit=unit, kind=STATED)
        self.items.append(c)
        return c

    def records(self) -> list[dict[str, Any]]:
        return [c.record() for c in self.items]
