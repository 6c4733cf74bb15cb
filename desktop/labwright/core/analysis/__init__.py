"""The analysis a physics lab report needs: fits, uncertainties, derived quantities, results.

Pure Python over numpy, scipy and `uncertainties`; no Qt, and — but for tables.py, which
reads a folder's tables through core/material — nothing of labwright: the figure
sandbox's child loads this package on its own (core/agent/sandbox/harness.py) to give
model-written code `load`, `fit`, `show` and the rest (namespace.py). The offline report
uses the same functions in the parent.

- fits.py: least squares (linear, proportional, polynomial, exponential, power, a formula
  in x), weighted by sigma, parameters as correlated ufloats, χ²/ndf, R², residuals;
- uncertainty.py: type A (with Student's t), type B (Δ/√3 ...), combined, 逐差法;
- derived.py: derived columns by formula, with units; percent difference;
- fmt.py: value ± uncertainty to one or two significant digits (or the PDG rule), plain
  text and siunitx;
- expr.py: formulas parsed with `ast`, never evaluated as code;
- frames.py: `load` — a table as a DataFrame from what tables.py prepared.
"""

from __future__ import annotations

from .derived import derive, derived_unit, percent_difference
from .expr import Expression, ExpressionError, parse
from .fits import Fit, FitError, fit
from .fmt import format_value, round_pair, si_unit, siunitx
from .frames import Loader, LoadError, frame
from .namespace import EXTRA_NAMES, make_show, predefined
from .uncertainty import (
    Differences,
    combined,
    measure,
    successive_differences,
    t_factor,
    type_a,
    type_b,
)

__all__ = [
    "EXTRA_NAMES",
    "Differences",
    "Expression",
    "ExpressionError",
    "Fit",
    "FitError",
    "LoadError",
    "Loader",
    "combined",
    "derive",
    "derived_unit",
    "fit",
    "format_value",
    "frame",
    "make_show",
    "measure",
    "parse",
    "percent_difference",
    "predefined",
    "round_pair",
    "si_unit",
    "siunitx",
    "successive_differences",
    "t_factor",
    "type_a",
    "type_b",
]
