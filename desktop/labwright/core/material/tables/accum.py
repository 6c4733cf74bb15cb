"""Statistics over every row of a table, in bounded memory.

Rows arrive one at a time (a 10^6-row export is never held whole); they are
buffered in blocks and each block is folded into running counts with numpy
(Chan's pairwise update of mean and squared deviations), so the figures are
those of all rows, with the precision of a two-pass computation per block.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

BLOCK = 8192


@dataclass
class Moments:
    n: int = 0
    mean: float = 0.0
    m2: float = 0.0  # sum of squared deviations from the mean
    lo: float = math.inf
    hi: float = -math.inf

    def fold(self, values: np.ndarray) -> None:
        values = values[~np.isnan(values)]
        k = int(values.size)
        if not k:
            return
        mean = float(values.mean())
        m2 = float(((values - mean) ** 2).sum())
        n = self.n + k
        delta = mean - self.mean
        self.mean += delta * k / n
        self.m2 += m2 + delta * delta * self.n * k / n
        self.n = n
        self.lo = min(self.lo, float(values.min()))
        self.hi = max(self.hi, float(values.max()))

    @property
    def std(self) -> float | None:
        """The sample standard deviation (n - 1); None for fewer than two values."""
        return math.sqrt(self.m2 / (self.n - 1)) if self.n > 1 else None


class Accumulator:
    """Moments per column, and per column and group when rows carry a group label."""

    def __init__(self, width: int) -> None:
        self.width = width
        self.total = [Moments() for _ in range(width)]
        self.groups: dict[str, list[Moments]] = {}
        # Per column, the whole row where it reached its largest value: where a
        # spectrum peaks (the frequency beside the peak), over all rows.
        self.peaks: list[list[float] | None] = [None] * width
        self._rows: list[list[float | None]] = []
        self._labels: list[str | None] = []

    def add(self, row: list[float | None], group: str | None = None) -> None:
        self._rows.append(row)
        self._labels.append(group)
        if len(self._rows) >= BLOCK:
            self.flush()

    def fold_block(self, block: np.ndarray) -> None:
        """Fold rows (one per line of `block`, NaN where no number) into the totals."""
        for j in range(self.width):
            before = self.total[j].hi
            self.total[j].fold(block[:, j])
            if self.total[j].hi > before:
                column = block[:, j]
                at = int(np.nanargmax(column))
                self.peaks[j] = [float(v) for v in block[at]]

    def flush(self) -> None:
        if not self._rows:
            return
        block = np.array(
            [[math.nan if v is None else v for v in row] for row in self._rows], dtype=float
        ).reshape(len(self._rows), self.width)
        self.fold_block(block)
        if any(label is not None for label in self._labels):
            labels = np.array([label or "" for label in self._labels], dtype=object)
            for label in dict.fromkeys(self._labels):
                if label is None:
                    continue
                mask = labels == label
                moments = self.groups.setdefault(label, [Moments() for _ in range(self.width)])
                for j in range(self.width):
                    moments[j].fold(block[mask, j])
        self._rows.clear()
        self._labels.clear()
