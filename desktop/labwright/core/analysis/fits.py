"""Least-squares fits with parameter uncertainties, as a lab report needs them.

`fit(x, y, model, sigma=None, p0=None)`:

- models linear in their parameters (``linear`` y = slope·x + intercept,
  ``proportional`` y = slope·x, ``quadratic`` y = a·x² + b·x + c, ``poly3`` ... y = c0 +
  c1·x + ...) are solved in closed form (weighted linear least squares, numpy.linalg,
  columns scaled so that x ~ 10¹⁴ Hz loses no digits);
- ``exponential`` y = a·e^(b·x), ``power`` y = a·x^b and any formula in x ("a*exp(-b*x)+c",
  parsed safely by expr.py) with scipy.optimize.curve_fit, started from a log-linear fit
  where one exists, or from `p0`.

With `sigma` (the y uncertainties, absolute) the fit is weighted and the parameter
uncertainties follow from sigma alone (curve_fit's absolute_sigma=True); χ²/ndf tells
whether sigma explains the scatter. Without it the uncertainties come from the scatter
(the residual variance RSS/(n − p)), as a spreadsheet's LINEST or scipy.stats.linregress
give them, and χ²/ndf is None. y given as ufloats brings its own sigma.

The parameters come back as correlated ufloats (uncertainties.correlated_values): a
quantity derived from two of them (a cut-off frequency −intercept/slope) gets the right
uncertainty.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .expr import Expression, ExpressionError, parse
from .fmt import format_value, round_pair

Model = Callable[..., Any]  # f(x, *params) -> y

LINEAR_MODELS = ("linear", "proportional", "quadratic")
NAMED_MODELS = (*LINEAR_MODELS, "exponential", "power", "polyN (poly2, poly3 ...)")
_POLY = re.compile(r"poly(?:nomial)?(\d{1,2})")


class FitError(ValueError):
    """A fit that cannot be made from these data (too few points, no convergence ...)."""


@dataclass
class Fit:
    """One fit: parameters as ufloats, goodness of fit, residuals and how to show it."""

    model: str  # "linear", "power", or the formula as written
    names: tuple[str, ...]
    values: np.ndarray
    cov: np.ndarray
    x: np.ndarray
    y: np.ndarray
    sigma: np.ndarray | None
    function: Model = field(repr=False)
    formula: str = ""  # the model as a formula in x and the parameter names
    params: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        from uncertainties import correlated_values, ufloat  # type: ignore[import-untyped]

        if np.all(np.isfinite(self.cov)):
            values = correlated_values(self.values, self.cov, tags=list(self.names))
        else:  # no estimate (curve_fit's inf): the values without an uncertainty
            values = [ufloat(v, math.nan, n) for v, n in zip(self.values, self.names, strict=True)]
        self.params = dict(zip(self.names, values, strict=True))

    # -- what a report quotes ---------------------------------------------------------------

    def __getitem__(self, name: str) -> Any:
        return self.params[name]

    def __getattr__(self, name: str) -> Any:
        # fit.slope, fit.intercept: the parameter by name
        params = self.__dict__.get("params") or {}
        if name in params:
            return params[name]
        raise AttributeError(name)

    @property
    def n(self) -> int:
        return len(self.x)

    @property
    def ndf(self) -> int:
        return self.n - len(self.names)

    @property
    def residuals(self) -> np.ndarray:
        """y − model(x) at each point used."""
        return self.y - self.predict(self.x)

    @property
    def chi2(self) -> float | None:
        if self.sigma is None:
            return None
        return float(np.sum((self.residuals / self.sigma) ** 2))

    @property
    def chi2_ndf(self) -> float | None:
        """χ²/ndf with the given sigma (≈ 1 when sigma explains the scatter); None without."""
        chi2 = self.chi2
        return None if chi2 is None or self.ndf <= 0 else chi2 / self.ndf

    @property
    def r2(self) -> float:
        """Coefficient of determination, 1 − Σres²/Σ(y − ȳ)² (unweighted)."""
        total = float(np.sum((self.y - self.y.mean()) ** 2))
        return 1.0 - float(np.sum(self.residuals**2)) / total if total > 0 else math.nan

    @property
    def r(self) -> float | None:
        """Pearson's correlation coefficient of x and y, for a straight-line fit."""
        if self.model not in ("linear", "proportional") or self.n < 2:
            return None
        return float(np.corrcoef(self.x, self.y)[0, 1])

    def predict(self, x: Any) -> np.ndarray:
        """The fitted curve's values at x (for a plot: plt.plot(xs, f.predict(xs)))."""
        with np.errstate(all="ignore"):
            return np.asarray(self.function(np.asarray(x, dtype=float), *self.values), dtype=float)

    __call__ = predict

    def at(self, x0: float) -> Any:
        """The fitted curve at one x, as a ufloat carrying the parameters' uncertainty
        (and their correlations): e.g. a frequency extrapolated to a node."""
        from uncertainties import wrap

        def value(*p: float) -> float:
            return float(self.function(np.asarray([float(x0)]), *p)[0])

        return wrap(value)(*self.params.values())

    # -- how it reads -------------------------------------------------------------------------

    def equation_tex(
        self, x: str = "x", y: str = "y", *, values: bool = True, rule: str = "2"
    ) -> str:
        r"""The fitted equation in LaTeX math (no $): 'y = 4.342\times10^{-15}\,x - 1.730' with
        the values rounded to their uncertainties, or the symbolic form (values=False)."""
        expr = parse(self.formula)
        symbols = {"x": x}
        if values:
            for name, p in self.params.items():
                symbols[name] = _param_tex(p, rule)
        return f"{y} = {expr.tex(symbols)}"

    def summary(self, rule: str = "2") -> str:
        lines = [f"{self.model} fit of {self.n} points: y = {self.formula}"]
        for name, p in self.params.items():
            lines.append(f"  {name} = {format_value(p, rule=rule)}")
        good = [f"R² = {self.r2:.5f}"]
        if self.r is not None:
            good.insert(0, f"r = {self.r:.5f}")
        chi = self.chi2_ndf
        good.append(
            f"χ²/ndf = {chi:.3g} (ndf = {self.ndf})"
            if chi is not None
            else "χ²/ndf: no sigma given"
        )
        lines.append("  " + ", ".join(good))
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.summary()

    def __repr__(self) -> str:
        return f"<Fit {self.model}: " + ", ".join(f"{k}={v}" for k, v in self.params.items()) + ">"


def _param_tex(p: Any, rule: str) -> str:
    r = round_pair(p.nominal_value, p.std_dev, rule=rule)
    return r.value + (rf"\times10^{{{r.exponent}}}" if r.exponent else "")


# -- the models ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Spec:
    name: str
    names: tuple[str, ...]
    formula: str
    function: Model
    design: Callable[[np.ndarray], np.ndarray] | None = None  # columns of a linear model
    guess: Callable[[np.ndarray, np.ndarray], list[float] | None] | None = None


def _linear_spec(name: str, names: tuple[str, ...], formula: str, powers: Sequence[int]) -> _Spec:
    def design(x: np.ndarray) -> np.ndarray:
        return np.column_stack([x**k for k in powers])

    def function(x: np.ndarray, *p: float) -> np.ndarray:
        return design(np.asarray(x, dtype=float)) @ np.asarray(p, dtype=float)

    return _Spec(name, names, formula, function, design)


def _exp_guess(x: np.ndarray, y: np.ndarray) -> list[float] | None:
    if np.all(y > 0) or np.all(y < 0):
        b, ln_a = np.polyfit(x, np.log(np.abs(y)), 1)
        return [float(np.sign(y[0]) * np.exp(ln_a)), float(b)]
    return None


def _power_guess(x: np.ndarray, y: np.ndarray) -> list[float] | None:
    if np.all(x > 0) and (np.all(y > 0) or np.all(y < 0)):
        b, ln_a = np.polyfit(np.log(x), np.log(np.abs(y)), 1)
        return [float(np.sign(y[0]) * np.exp(ln_a)), float(b)]
    return None


def _spec(model: str) -> _Spec:
    key = model.strip().lower()
    if key == "linear":
        return _linear_spec("linear", ("slope", "intercept"), "slope*x + intercept", (1, 0))
    if key == "proportional":
        return _linear_spec("proportional", ("slope",), "slope*x", (1,))
    if key == "quadratic":
        return _linear_spec("quadratic", ("a", "b", "c"), "a*x**2 + b*x + c", (2, 1, 0))
    if m := _POLY.fullmatch(key):
        degree = int(m.group(1))
        names = tuple(f"c{k}" for k in range(degree + 1))
        formula = " + ".join(
            ["c0"] + [f"c{k}*x" + (f"**{k}" if k > 1 else "") for k in range(1, degree + 1)]
        )
        return _linear_spec(key, names, formula, range(degree + 1))
    if key == "exponential":
        return _Spec(
            "exponential",
            ("a", "b"),
            "a*exp(b*x)",
            lambda x, a, b: a * np.exp(b * x),
            guess=_exp_guess,
        )
    if key == "power":
        return _Spec(
            "power", ("a", "b"), "a*x**b", lambda x, a, b: a * np.power(x, b), guess=_power_guess
        )
    return _expression_spec(model)


def _expression_spec(text: str) -> _Spec:
    try:
        expr = parse(text)
    except ExpressionError as e:
        raise FitError(
            f"model {text!r} is neither a named model ({', '.join(NAMED_MODELS)}) nor a formula: {e}"
        ) from None
    if "x" not in expr.names:
        raise FitError(f"the formula {text!r} has no x: write the model as a function of x")
    names = tuple(n for n in expr.names if n != "x")
    if not names:
        raise FitError(f"the formula {text!r} has no parameter to fit")
    return _Spec(text.strip(), names, text.strip(), _formula_function(expr, names))


def _formula_function(expr: Expression, names: tuple[str, ...]) -> Model:
    def function(x: np.ndarray, *p: float) -> Any:
        env: dict[str, Any] = dict(zip(names, p, strict=True))
        env["x"] = x
        return np.broadcast_to(expr(env), np.shape(x)).astype(float)

    return function


# -- the fit ------------------------------------------------------------------------------------


def _array(values: Any, what: str) -> tuple[np.ndarray, np.ndarray | None]:
    """Floats of `values` (a list, array, Series, or ufloats: then their std devs too)."""
    raw = np.asarray(getattr(values, "values", values), dtype=object).ravel()
    if raw.size and any(hasattr(v, "nominal_value") for v in raw):
        nominal = np.array([float(getattr(v, "nominal_value", v)) for v in raw])
        std = np.array([float(getattr(v, "std_dev", 0.0)) for v in raw])
        return nominal, std
    try:
        return np.asarray(raw, dtype=float), None
    except (TypeError, ValueError):
        raise FitError(f"{what} must be numbers") from None


def fit(
    x: Any,
    y: Any,
    model: str = "linear",
    sigma: Any = None,
    p0: Sequence[float] | Mapping[str, float] | None = None,
    *,
    maxfev: int = 20000,
) -> Fit:
    """Fit `model` to (x, y) by least squares (see the module docstring for the models).

    sigma: the y uncertainties (one number or one per point), taken as absolute. Points
    with a missing x, y or sigma (NaN) are left out. p0: starting values for a nonlinear
    model, as a list in the order of the parameters' first appearance or a dict."""
    if not isinstance(model, str):
        raise FitError(f"model must be a name ({', '.join(NAMED_MODELS)}) or a formula in x")
    spec = _spec(model)
    xs, _ = _array(x, "x")
    ys, y_std = _array(y, "y")
    if len(xs) != len(ys):
        raise FitError(f"x has {len(xs)} values and y {len(ys)}")
    s = _sigma(sigma, y_std, len(ys))
    keep = np.isfinite(xs) & np.isfinite(ys)
    if s is not None:
        keep &= np.isfinite(s)
    xs, ys = xs[keep], ys[keep]
    s = s[keep] if s is not None else None
    if s is not None and np.any(s <= 0):
        raise FitError(
            "sigma must be positive for every point (a zero sigma would weigh it infinitely)"
        )
    p = len(spec.names)
    if len(xs) <= p:
        raise FitError(
            f"{len(xs)} points for {p} parameters: uncertainties need at least {p + 1} points"
        )
    if spec.design is not None:
        values, cov = _linear_least_squares(spec.design(xs), ys, s)
    else:
        values, cov = _curve_fit(spec, xs, ys, s, p0, maxfev)
    return Fit(spec.name, spec.names, values, cov, xs, ys, s, spec.function, spec.formula)


def _sigma(sigma: Any, y_std: np.ndarray | None, n: int) -> np.ndarray | None:
    if sigma is None:
        if y_std is not None and np.any(y_std > 0):
            return y_std
        return None
    s, _ = _array(sigma, "sigma")
    if s.size == 1:
        s = np.full(n, float(s[0]))
    if len(s) != n:
        raise FitError(f"sigma has {len(s)} values for {n} points")
    return np.abs(s)


def _linear_least_squares(
    a: np.ndarray, y: np.ndarray, s: np.ndarray | None
) -> tuple[np.ndarray, np.ndarray]:
    """Closed form: β = (AᵀWA)⁻¹AᵀWy, cov = (AᵀWA)⁻¹ (× RSS/(n−p) without sigma)."""
    w = 1.0 / s if s is not None else np.ones_like(y)
    aw, yw = a * w[:, None], y * w
    scale = np.linalg.norm(aw, axis=0)
    scale[scale == 0] = 1.0
    scaled = aw / scale
    beta_s, *_ = np.linalg.lstsq(scaled, yw, rcond=None)
    cov_s = np.linalg.pinv(scaled.T @ scaled)
    beta = beta_s / scale
    cov = cov_s / np.outer(scale, scale)
    if s is None:
        n, p = a.shape
        rss = float(np.sum((y - a @ beta) ** 2))
        cov = cov * rss / (n - p)
    return beta, cov


def _start(spec: _Spec, x: np.ndarray, y: np.ndarray, p0: Any) -> list[float]:
    if isinstance(p0, Mapping):
        unknown = set(p0) - set(spec.names)
        if unknown:
            raise FitError(
                f"p0 names {', '.join(sorted(unknown))}, not parameters of {spec.formula!r}"
            )
        return [float(p0.get(name, 1.0)) for name in spec.names]
    if p0 is not None:
        start = [float(v) for v in p0]
        if len(start) != len(spec.names):
            raise FitError(f"p0 has {len(start)} values for the parameters {', '.join(spec.names)}")
        return start
    guessed = spec.guess(x, y) if spec.guess is not None else None
    return guessed or [1.0] * len(spec.names)


def _curve_fit(
    spec: _Spec, x: np.ndarray, y: np.ndarray, s: np.ndarray | None, p0: Any, maxfev: int
) -> tuple[np.ndarray, np.ndarray]:
    import warnings

    from scipy.optimize import OptimizeWarning, curve_fit  # type: ignore[import-untyped]

    start = _start(spec, x, y, p0)
    try:
        with np.errstate(all="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore", OptimizeWarning)
            values, cov = curve_fit(
                spec.function, x, y, p0=start, sigma=s, absolute_sigma=s is not None, maxfev=maxfev
            )
    except RuntimeError as e:  # no convergence
        raise FitError(
            f"the fit of {spec.formula!r} did not converge ({e}); give starting values "
            f"p0={_p0_hint(spec)} near the expected result"
        ) from None
    except (ValueError, TypeError) as e:
        raise FitError(f"the fit of {spec.formula!r} failed: {e}") from None
    cov = np.asarray(cov, dtype=float)
    if not np.all(np.isfinite(cov)):
        raise FitError(
            f"the fit of {spec.formula!r} found no uncertainties (the model is flat or undefined "
            f"near its start); give starting values p0={_p0_hint(spec)} near the expected result"
        )
    return np.asarray(values, dtype=float), cov


def _p0_hint(spec: _Spec) -> str:
    return "{" + ", ".join(repr(n) + ": ..." for n in spec.names) + "}"
