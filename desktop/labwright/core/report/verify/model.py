"""What the check works with: a number of the report, its check, and the whole result."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from labwright.core.material.evidence import EvidenceNumber, Source, Unit
from labwright.core.reasons import numbers_unmatched
from labwright.core.report.item_words import item_text
from labwright.core.rundir.names import NUMBERS_JSON, REPORT_TEX

# -- what a number in the report is ------------------------------------------


@dataclass
class ReportNumber:
    text: str  # as written ("9.81", "1.2e-3", "485")
    value: float  # absolute value (signs are not checked: "-3.2" and "a drop of 3.2")
    tol: float  # half a unit of the last written digit
    start: int
    end: int
    line: int  # 1-based line in the .tex
    unit: Unit | None = None
    integer: bool = False  # written without a decimal point or exponent
    role: str = "value"  # "value" | "uncertainty"
    segment: int = 0  # sentence (or table row) index
    table: int | None = None
    row: int | None = None
    col: int | None = None
    trivial: str | None = None  # why it is not checked
    # a set point (a table's independent-variable column, or matched to one in the
    # material): restated as it stands, never an operand of a derivation
    setpoint: bool = False

    @property
    def percent(self) -> bool:
        return self.unit is not None and self.unit.is_percent


@dataclass
class NumberCheck:
    number: ReportNumber
    status: str  # matched | derived | cited | unmatched | skipped
    how: str = ""
    source: Source | None = None
    sentence: str = ""
    nearest: EvidenceNumber | None = None
    exact: float | None = None  # the derived value before rounding (restatements use it)

    def to_dict(self) -> dict[str, Any]:
        n = self.number
        d: dict[str, Any] = {
            "text": n.text,
            "value": n.value,
            "unit": n.unit.text if n.unit else None,
            "line": n.line,
            "status": self.status,
            "sentence": self.sentence,
        }
        if n.role != "value":
            d["role"] = n.role
        if self.how:
            d["how"] = self.how
        if self.source is not None:
            d["source"] = self.source.to_dict()
        if self.nearest is not None:
            d["nearest"] = {"text": self.nearest.text, **self.nearest.source.to_dict()}
        return d


@dataclass
class Verification:
    checks: list[NumberCheck] = field(default_factory=list)
    evidence_numbers: int = 0

    def by_status(self, *statuses: str) -> list[NumberCheck]:
        return [c for c in self.checks if c.status in statuses]

    @property
    def unmatched(self) -> list[NumberCheck]:
        return self.by_status("unmatched")

    @property
    def matched(self) -> list[NumberCheck]:
        return self.by_status("matched", "derived", "cited")

    @property
    def reason(self) -> str | None:
        """The degraded reason, when numbers could not be traced."""
        n = len(self.unmatched)
        return numbers_unmatched(n) if n else None

    def summary(self) -> dict[str, Any]:
        """The short form for run.json: counts, and the open items with their sentences."""
        return {
            "checked": len(self.checks) - len(self.by_status("skipped")),
            "matched": len(self.matched),
            "unmatched": [
                {"text": c.number.text, "line": c.number.line, "sentence": c.sentence}
                for c in self.unmatched
            ],
            "file": NUMBERS_JSON,
        }

    def open_items(self) -> list[dict[str, Any]]:
        """Unmatched numbers as review-pane open items."""
        items = []
        for c in self.unmatched:
            code, params = "number_not_found", {"number": _with_unit(c.number)}
            if c.nearest is not None:
                code = "number_not_found_near"
                params |= {"closest": c.nearest.text, "where": c.nearest.source.describe()}
            items.append(
                {
                    "kind": "number_not_found",
                    "line": c.number.line,
                    "text": c.number.text,
                    "sentence": c.sentence,
                    "message": item_text(code, params),
                    "code": code,  # the message as data, for the app's languages
                    "params": params,
                }
            )
        return items

    def to_dict(self, report: str = REPORT_TEX) -> dict[str, Any]:
        counts = {s: len(self.by_status(s)) for s in _STATUSES}
        counts["checked"] = len(self.checks) - counts["skipped"]
        return {
            "report": report,
            "evidence_numbers": self.evidence_numbers,
            "counts": counts,
            "unmatched": [c.to_dict() for c in self.unmatched],
            "matched": [c.to_dict() for c in self.matched],
            "skipped": [
                {"text": c.number.text, "line": c.number.line, "why": c.how}
                for c in self.by_status("skipped")
            ],
            "open_items": self.open_items(),
        }


_STATUSES = ("matched", "derived", "cited", "unmatched", "skipped")


def _with_unit(n: ReportNumber) -> str:
    if n.unit is None:
        return n.text
    return f"{n.text} %" if n.percent else f"{n.text} {n.unit.text}"
