"""Measurement uncertainty as physics courses teach it: type A, type B, combined, 逐差法.

- Type A (from repeats): the standard deviation of the mean, s/√n; with a stated
  confidence P (0.683, 0.95 ...) multiplied by Student's t for n − 1 degrees of freedom,
  as Chinese university courses ask (``type_a(values, confidence=0.683)``).
- Type B (from the instrument): its limit of error Δ divided by √3 (a uniform
  distribution, the usual convention), by 3 (normal, "Δ is 3σ") or by √6 (triangular),
  or by any divisor the manual gives.
- Combined: u = √(u_A² + u_B² + ...).
- 逐差法 (successive differences) for equally spaced readings: the first half subtracted
  from the second, each difference spanning the same k steps.

Through formulas, uncertainties propagate with the `uncertainties` package (ufloat,
umath, unumpy), which also keeps the correlations of fitted parameters.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import numpy as np

DIVISORS = {"uniform": math.sqrt(3), "normal": 3.0, "triangular": math.sqrt(6)}


def _values(values: Iterable[Any]) -> np.ndarray:
    arr = np.asarray(
        [getattr(v, "nominal_value", v) for v in np.ravel(np.asarray(values, dtype=object))],
        dtype=float,
    )
    return arr[np.isfinite(arr)]


def t_factor(n: int, confidence: float) -> float:
    """Student's t for n readings at confidence P (two-sided): t_P(n−1)."""
    from scipy import stats  # type: ignore[import-untyped]

    if not 0 < confidence < 1:
        raise ValueError(
            f"confidence must be between 0 and 1 (e.g. 0.683 or 0.95), not {confidence}"
        )
    if n < 2:
        raise ValueError("Student's t needs at least 2 readings")
    return float(stats.t.ppf((1 + confidence) / 2, n - 1))


def type_a(values: Iterable[Any], confidence: float | None = None) -> float:
    """Type A uncertainty of the mean of repeated readings: s/√n (times t_P when P is given).

    s is the sample standard deviation (n − 1). Missing readings (NaN) are left out."""
    x = _values(values)
    if len(x) < 2:
        raise ValueError("type A needs at least 2 readings")
    u = float(np.std(x, ddof=1) / math.sqrt(len(x)))
    return u * t_factor(len(x), confidence) if confidence is not None else u


def type_b(limit: float, distribution: str | float = "uniform") -> float:
    """Type B uncertainty from an instrument's limit of error Δ: Δ/√3 by default.

    `distribution`: "uniform" (√3), "normal" (3), "triangular" (√6), or the divisor
    itself as a number (the manual's convention)."""
    if isinstance(distribution, str):
        if distribution not in DIVISORS:
            raise ValueError(f"distribution is one of {', '.join(DIVISORS)} or a number")
        divisor = DIVISORS[distribution]
    else:
        divisor = float(distribution)
    if divisor <= 0:
        raise ValueError("the divisor must be positive")
    return abs(float(limit)) / divisor


def combined(*components: float) -> float:
    """√(u₁² + u₂² + ...): independent components of one uncertainty."""
    return math.hypot(*(float(c) for c in components if c is not None))


def measure(
    values: Iterable[Any],
    limit: float | None = None,
    *,
    confidence: float | None = None,
    distribution: str | float = "uniform",
    tag: str | None = None,
) -> Any:
    """The mean of repeated readings as a ufloat with u = √(u_A² + u_B²).

    u_A from the spread (with Student's t when `confidence` is given), u_B = Δ/√3 from the
    instrument's limit of error `limit` (or the `distribution`'s divisor). A single
    reading has only its type B uncertainty."""
    from uncertainties import ufloat  # type: ignore[import-untyped]

    x = _values(values)
    if len(x) == 0:
        raise ValueError("no readings")
    u_a = type_a(x, confidence) if len(x) >= 2 else 0.0
    u_b = type_b(limit, distribution) if limit is not None else 0.0
    if len(x) < 2 and limit is None:
        raise ValueError(
            "one reading needs the instrument's limit of error (limit=) for its uncertainty"
        )
    return ufloat(float(np.mean(x)), combined(u_a, u_b), tag)


@dataclass(frozen=True)
class Differences:
    """逐差法: the k differences y[i+k] − y[i] of 2k equally spaced readings."""

    differences: np.ndarray
    k: int  # steps each difference spans
    mean: Any  # ufloat: the mean difference, u = √(u_A² + u_B²)

    @property
    def per_step(self) -> Any:
        """The mean change over one step (mean / k)."""
        return self.mean / self.k

    def __str__(self) -> str:
        diffs = ", ".join(f"{d:.6g}" for d in self.differences)
        return f"successive differences over {self.k} steps: {diffs}; mean {self.mean:.2uP}"


def successive_differences(
    values: Iterable[Any],
    limit: float | None = None,
    *,
    confidence: float | None = None,
    distribution: str | float = "uniform",
    drop: str | None = None,
) -> Differences:
    """逐差法 for equally spaced readings y0..y(2k−1): d_i = y(i+k) − y(i), i < k.

    The mean of the d_i carries u_A from their spread (Student's t with `confidence`)
    combined with u_B from `limit` (a difference of two readings of one instrument: its
    limit of error as the manual states it for a difference). An odd count needs
    `drop="first"`, `"middle"` or `"last"`: which reading the manual leaves out."""
    y = np.asarray([getattr(v, "nominal_value", v) for v in values], dtype=float)
    if np.isnan(y).any():
        raise ValueError("a reading is missing (NaN): fill it in or leave it out first")
    if len(y) % 2:
        if drop == "first":
            y = y[1:]
        elif drop == "last":
            y = y[:-1]
        elif drop == "middle":
            y = np.delete(y, len(y) // 2)
        else:
            raise ValueError(
                f"{len(y)} readings: 逐差法 needs an even number; pass drop='first', 'middle' or 'last'"
            )
    if len(y) < 4:
        raise ValueError("逐差法 needs at least 4 readings")
    k = len(y) // 2
    d = y[k:] - y[:k]
    return Differences(d, k, measure(d, limit, confidence=confidence, distribution=distribution))
