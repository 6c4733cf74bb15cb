"""The machine-readable line a benchmark prints for each of its figures.

    RESULT name=loop_ratio value=1.083 goal=<=1.15 unit=x

`goal` is `<=N`, `>=N` or `none` (a figure kept to watch, with no goal of its own);
`unit` is optional. bench/run_all.py reads these lines; the human output around
them stays as it was. Names are one word (letters, digits, `_`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

LINE = re.compile(
    r"^RESULT name=(?P<name>\w+) value=(?P<value>\S+) goal=(?P<goal>none|[<>]=\S+)"
    r"(?: unit=(?P<unit>\S+))?\s*$"
)


@dataclass(frozen=True)
class Result:
    name: str
    value: float
    goal: str | None  # "<=1.15", ">=5000" or None
    unit: str = ""

    def line(self) -> str:
        unit = f" unit={self.unit}" if self.unit else ""
        return f"RESULT name={self.name} value={self.value:.6g} goal={self.goal or 'none'}{unit}"

    def verdict(self) -> str:
        """ok / over goal / under goal / no goal."""
        if self.goal is None:
            return "no goal"
        op, bound = self.goal[:2], float(self.goal[2:])
        if op == "<=":
            return "ok" if self.value <= bound else "over goal"
        return "ok" if self.value >= bound else "under goal"


def result(name: str, value: float, goal: str | None = None, unit: str = "") -> None:
    """Print one figure's RESULT line (after the benchmark's own output of it)."""
    print(Result(name, float(value), goal, unit).line(), flush=True)


def parse(text: str) -> list[Result]:
    """Every RESULT line in a benchmark's output, in order."""
    out = []
    for raw in text.splitlines():
        m = LINE.match(raw.strip())
        if m:
            goal = None if m["goal"] == "none" else m["goal"]
            out.append(Result(m["name"], float(m["value"]), goal, m["unit"] or ""))
    return out
