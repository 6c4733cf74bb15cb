"""What the reader finds beside the data rows, as typed records.

* `SummaryCell`: a total, mean or other summary the student wrote under or beside a
  table ("ave rate" 39.08 under 20 count rates), recognised by its label or by its
  value (the sum, mean or standard deviation of the column's rows). Never a data row.
* `StatedResult`: a value the student stated in a cell or a line ("Voperating 1010 v",
  "a=2.0375, b=-0.09675", "Q = 72.48/(72.63−72.38) = 283.1"), with where it stands.
* `LeftOut`: what is kept out of the data and why (a blank template, an unfilled block,
  an instrument's header, a file its author marked as bad, a copy of another file).
* `Family`: tables of the same columns read as one family of curves (V–I pairs side by
  side, one block per wavelength), with the label of each curve.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import PurePosixPath


def short_number(value: float) -> str:
    """4 significant digits, the way a summary line quotes a value (39.08, 781.7)."""
    text = f"{value:.4g}"
    return text if "e" not in text else f"{value:.3e}"


def rows_title(source: str, sheet: str | None, first: int, last: int, context: list[str]) -> str:
    """A table's title: its file (and sheet) with the rows it spans, then its context."""
    name = PurePosixPath(source).name
    where = (
        f"{name} › {sheet.strip()}, rows {first}–{last}"
        if sheet is not None
        else f"{name}, lines {first}–{last}"
    )
    context = [c for c in context if c.strip()]
    if context:
        where += " — " + "; ".join(context)
    return where


_KIND_WORDS = {
    "sum": "the sum of {of}",
    "mean": "the mean of {of}",
    "std": "the standard deviation of {of}",
}


@dataclass(frozen=True)
class SummaryCell:
    """A summary of a table's rows written in the sheet: kept out of the data."""

    cell: str  # "C54" in a sheet, "line 12" in a text file
    value: float
    label: str | None  # the words beside it ("ave rate"), None when unlabelled
    kind: str  # "sum", "mean", "std" (what its value is), or "summary" (by its label)
    of: str | None = None  # the column it summarises, as the table names it

    def describe(self) -> str:
        """ "summary cell C54 (ave rate = 39.08, the mean of Rate)"."""
        named = f"{self.label} = " if self.label else "= "
        what = _KIND_WORDS.get(self.kind, "")
        tail = f", {what.format(of=self.of)}" if what and self.of else ""
        return f"summary cell {self.cell} ({named}{short_number(self.value)}{tail})"

    def to_dict(self) -> dict:
        return {"cell": self.cell, "value": self.value, "label": self.label,
                "kind": self.kind, "of": self.of}  # fmt: skip


@dataclass(frozen=True)
class StatedResult:
    """A value stated in the material beside the data: name, value, unit and where."""

    name: str  # as written before "=" ("Voperating", "钼丝长度L", "a")
    value: float
    unit: str | None
    where: str  # "Sheet1!A28:C28", "line 3"
    source: str  # the file, relative to the folder (posix)
    written: str  # the value as written ("1010", "±2.0", "2.0375")
    text: str  # the whole cell or line, as written (an expression stays readable)

    def describe(self) -> str:
        """ "Voperating = 1010 V (1MP1.xlsx, Sheet1!A28:C28)"."""
        unit = f" {self.unit}" if self.unit else ""
        return f"{self.name} = {self.written}{unit} ({self.source}, {self.where})"

    def to_dict(self) -> dict:
        return {"name": self.name, "value": self.value, "unit": self.unit, "where": self.where,
                "source": self.source, "written": self.written, "text": self.text}  # fmt: skip


@dataclass(frozen=True)
class LeftOut:
    """Something read and kept out of the data, with the reason in words."""

    source: str  # the file (posix)
    where: str  # "Sheet1!A58:C63", "lines 1–30", "" for the whole file
    kind: str  # "template", "unfilled", "metadata", "marked", "duplicate", "copy", "record"
    why: str  # the sentence a person reads

    def describe(self) -> str:
        where = f" › {self.where}" if self.where else ""
        return f"{self.source}{where}: {self.why}"

    def to_dict(self) -> dict:
        return {"source": self.source, "where": self.where, "kind": self.kind, "why": self.why}


@dataclass(frozen=True)
class OddCell:
    """A cell that breaks the rule its column follows on every other row (a ratio column
    V/13.4 with one cell 2 from a formula pointing elsewhere): shown, and said to be odd."""

    cell: str  # "G3"
    value: float
    expected: float  # what the column's rule gives there
    column: str  # the column, as the table names it
    rule: str  # "Vrms × 0.07463" — how the column follows another on the other rows

    def describe(self) -> str:
        return (
            f"{self.cell} = {short_number(self.value)} breaks its column ({self.column} = "
            f"{self.rule} on every other row: {short_number(self.expected)} expected)"
        )


@dataclass(frozen=True)
class RowSummary:
    """A column that is each row's sum or mean of other columns ("n average": n1–n3)."""

    kind: str  # "sum" or "mean"
    of: tuple[int, ...]  # the columns it summarises, as indices in the table

    def describe(self, columns: list[str]) -> str:
        names = [columns[k] for k in self.of if k < len(columns)]
        shown = f"{names[0]} … {names[-1]}" if len(names) > 2 else " and ".join(names)
        return f"the {self.kind} of {shown} in each row"


@dataclass(frozen=True)
class Family:
    """Tables of the same columns read as curves of one family, one label per curve."""

    label: str  # the label column's name ("R", "λ", "curve")
    unit: str | None  # of the labels ("nm"), when they are numbers with a unit
    labels: list[str]  # one per curve, as shown ("365", "12kΩ")
    members: list[str]  # where each curve stands ("A14:K17")
    note: str = ""  # how a label was read, when it was not plain ("the sheet writes λ(mm)")
    numbers: list[float | None] = field(default_factory=list)  # the labels as numbers

    def to_dict(self) -> dict:
        return {"label": self.label, "unit": self.unit, "labels": self.labels,
                "members": self.members, "note": self.note}  # fmt: skip
