r"""The fits the offline report makes, with core/analysis, and how it states them.

A physics lab fits what is plainly a straight line: a curve of MIN_FIT_POINTS to
MAX_FIT_POINTS points (a relation, not a recorded trace) whose linear R² reaches
LINEAR_R2, weighted by the points' σ when they have one; a decay drawn on a log axis is
fitted as ln y against x. The parameters come from core.analysis.fit (standard
uncertainties, correlated), and are written as value ± u with core.analysis's rounding,
in siunitx when the report can load it.

When the line's slope is a known constant of physics (RELATIONS: the photoelectric
stopping voltage against frequency has slope h/e), the constant follows with its
uncertainty and its percent difference from the accepted value. Every number stated is
also printed, at full precision, into the figure's sidecar (`stdout`): `labwright verify`
reads that as the figure's output and traces the report's numbers to it.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from labwright.core.analysis import Fit, FitError, fit, format_value, percent_difference, si_unit
from labwright.core.analysis import siunitx as si_value
from labwright.core.analysis.fmt import round_pair
from labwright.core.material.evidence import parse_unit
from labwright.core.report.offline.drawing import Curve
from labwright.core.report.offline.formatting import tex_text

LINEAR_R2 = 0.98  # a relation is fitted as a straight line when the data lie on one this closely
MIN_FIT_POINTS = 4
MAX_FIT_POINTS = 60
E_CHARGE = 1.602176634e-19  # C, exact (SI 2019)


# -- units with a power of ten: "10^14Hz", "×10^-10 A" ------------------------------------

_SCALED_UNIT = re.compile(r"^\s*(?:[×x*]\s*)?10\s*\^\s*\(?([-+−]?\d+)\)?\s*(.*)$")


def unit_scale(unit: str | None) -> tuple[float, tuple[tuple[str, int], ...]] | None:
    """(factor to SI, dimensions) of a column's unit, a power of ten in front included."""
    if not unit:
        return None
    factor = 1.0
    m = _SCALED_UNIT.match(unit)
    if m:
        factor = 10.0 ** int(m.group(1).replace("−", "-"))
        unit = m.group(2).strip()
        if not unit:
            return factor, ()
    parsed = parse_unit(unit)
    if parsed is None:
        return None
    return factor * parsed.factor, tuple(parsed.dims)


# -- constants that are a line's slope -------------------------------------------------------


@dataclass(frozen=True)
class Relation:
    """A straight line whose slope gives a constant: which x and y, and how."""

    symbol: str  # "h"
    name: dict[str, str]  # "Planck's constant", per language
    x_name: re.Pattern[str]
    x_dims: tuple[tuple[str, int], ...]
    y_name: re.Pattern[str]
    y_dims: tuple[tuple[str, int], ...]
    unit: str  # of the constant, as core.analysis.fmt writes units
    accepted: float
    from_slope: Callable[[Any], Any]  # the slope in SI units -> the constant
    how: dict[str, str]  # "h = e·slope", per language


RELATIONS = (
    Relation(
        symbol="h",
        name={"en": "Planck's constant", "zh": "普朗克常数"},
        x_name=re.compile(r"频率|frequency|^\s*(?:ν|nu|f)\s*$", re.I),
        x_dims=(("s", -1),),
        y_name=re.compile(
            r"截止电压|遏止电压|stopping|cut-?off|retarding|^\s*[UV]_?\{?[0s]\}?\s*$", re.I
        ),
        y_dims=(("V", 1),),
        unit="J·s",
        accepted=6.62607015e-34,  # exact (SI 2019)
        from_slope=lambda slope: E_CHARGE * slope,
        how={"en": "h = e·slope", "zh": "h = e·斜率"},
    ),
    Relation(
        symbol="g",
        name={"en": "the acceleration of gravity", "zh": "重力加速度"},
        x_name=re.compile(r"摆长|length|^\s*[Ll]\s*$", re.I),
        x_dims=(("m", 1),),
        y_name=re.compile(
            r"周期\s*(?:²|\^\s*2|平方)|period\s*(?:²|\^\s*2|squared)|^\s*T\s*(?:²|\^\s*2)\s*$", re.I
        ),
        y_dims=(("s", 2),),
        unit="m/s^2",
        accepted=9.80665,  # standard gravity; the local value differs by up to 0.3 %
        from_slope=lambda slope: 4 * math.pi**2 / slope,
        how={"en": "g = 4π²/slope", "zh": "g = 4π²/斜率"},
    ),
)


def _relation(x_name: str, x_unit: str | None, y_name: str, y_unit: str | None) -> Relation | None:
    xs, ys = unit_scale(x_unit), unit_scale(y_unit)
    for r in RELATIONS:
        if not (r.x_name.search(x_name) and r.y_name.search(y_name)):
            continue
        if xs is None or xs[1] != r.x_dims:
            continue  # a slope in unknown units gives no constant
        if ys is not None and ys[1] != r.y_dims:
            continue
        return r
    return None


# -- the fit of one curve -----------------------------------------------------------------


@dataclass
class CurveFit:
    """A fit drawn on a figure and stated in the report."""

    curve: str  # the curve's name, plain text
    y_name: str
    x_name: str
    fit: Fit
    log: bool  # ln y fitted against x
    x_unit: str | None
    y_unit: str | None
    weighted: bool
    x_plain: str = ""
    y_tex: str = ""  # the axis labels as the report writes them (columns.py)
    x_tex: str = ""
    relation: Relation | None = None
    constant: Any = None  # ufloat, in SI
    difference: float | None = None  # percent from the accepted value

    def lines(self) -> list[str]:
        """What the fit printed, at full precision (the figure's `stdout`, for verify)."""
        y = f"ln({self.y_name})" if self.log else self.y_name
        slope, intercept = self.fit.params["slope"], self.fit.params["intercept"]
        out = [
            f"fit of {y} against {self.x_name} ({self.curve}): "
            f"{'weighted' if self.weighted else 'unweighted'} least squares, {self.fit.n} points",
            f"slope = {slope.nominal_value:.10g} ± {slope.std_dev:.6g}",
            f"intercept = {intercept.nominal_value:.10g} ± {intercept.std_dev:.6g}",
            f"R² = {self.fit.r2:.6f}",
        ]
        if self.fit.chi2_ndf is not None:
            out.append(f"χ²/ndf = {self.fit.chi2_ndf:.6g}")
        if self.relation is not None and self.constant is not None:
            r = self.relation
            out.append(
                f"{r.how['en']} = {self.constant.nominal_value:.8g} ± "
                f"{self.constant.std_dev:.6g} {r.unit}"
            )
            if self.difference is not None:
                out.append(
                    f"percent difference from {r.accepted:.9g} {r.unit}: {self.difference:.4g} %"
                )
        return out

    def plain(self, lang: str = "en") -> str:
        """The fit in plain text (the caption stored with the figure), in `lang`."""
        w = _WORDS[lang]
        good = f"R² = {self.fit.r2:.4f}"
        if self.fit.chi2_ndf is not None:
            good += f", χ²/ndf = {self.fit.chi2_ndf:.3g}"
        slope_unit = _slope_unit(self)
        out = w["fit"].format(
            y=f"ln({self.curve})" if self.log else self.curve,
            x=self.x_plain or self.x_name,
            how=w["weighted" if self.weighted else "unweighted"],
            n=self.fit.n,
            slope=format_value(self.fit.params["slope"], unit=slope_unit),
            intercept=format_value(
                self.fit.params["intercept"], unit="" if self.log else (self.y_unit or "")
            ),
            good=good,
        )
        r = self.relation
        if r is not None and self.constant is not None:
            out += (
                w["constant"]
                .format(
                    name=r.name[lang],
                    symbol=r.symbol,
                    how=r.how[lang],
                    value=format_value(self.constant, unit=r.unit),
                    accepted=f"{r.accepted:.9g} {r.unit}",
                    diff=_percent(self.difference) if self.difference is not None else "",
                )
                .replace("$", "")
                .replace("\\,\\%", " %")
            )
        return out

    def legend(self) -> str:
        """The fitted line's legend: its equation with value ± u (mathtext)."""
        y = r"\ln y" if self.log else "y"
        a = _mpl_value(self.fit.params["slope"])
        b = _mpl_value(self.fit.params["intercept"])
        return f"fit: ${y} = a\\,x + b$\n$a = {a}$, $b = {b}$"

    def text(self, lang: str, *, siunitx: bool) -> str:
        """The fit stated in the report (LaTeX)."""
        w = _WORDS[lang]
        slope, intercept = self.fit.params["slope"], self.fit.params["intercept"]
        y = f"$\\ln$({self.y_tex})" if self.log else self.y_tex
        good = f"$R^2 = {self.fit.r2:.4f}$"
        if self.fit.chi2_ndf is not None:
            good += f", $\\chi^2/\\mathrm{{ndf}} = {self.fit.chi2_ndf:.3g}$"
        out = w["fit"].format(
            y=y,
            x=self.x_tex,
            how=w["weighted" if self.weighted else "unweighted"],
            n=self.fit.n,
            slope=_tex_value(slope, _slope_unit(self), siunitx),
            intercept=_tex_value(intercept, "" if self.log else (self.y_unit or ""), siunitx),
            good=good,
        )
        r = self.relation
        if r is not None and self.constant is not None:
            out += w["constant"].format(
                name=r.name[lang],
                symbol=r.symbol,
                how=tex_text(r.how[lang]),
                value=_tex_value(self.constant, r.unit, siunitx),
                accepted=_tex_number(r.accepted, r.unit, siunitx),
                diff=_percent(self.difference) if self.difference is not None else "",
            )
        return out


def _percent(d: float) -> str:
    """A percent difference to two significant digits (5.0, 0.051), whole from 10 up."""
    a = abs(d)
    return f"{d:.0f}" if a >= 10 else f"{d:.1f}" if a >= 1 else f"{d:.2g}"


def _slope_unit(f: CurveFit) -> str:
    if f.log:
        return f"1/{f.x_unit}" if f.x_unit and unit_scale(f.x_unit) else ""
    if f.x_unit and f.y_unit and not _SCALED_UNIT.match(f.x_unit):
        return f"{f.y_unit}/{f.x_unit}"
    return ""


def _mpl_value(p: Any) -> str:
    """value ± u for mathtext: '(4.34 \\pm 0.08)\\times10^{-15}'."""
    r = round_pair(p.nominal_value, p.std_dev)
    body = f"{r.value} \\pm {r.uncertainty}" if r.uncertainty is not None else r.value
    return f"({body})\\times10^{{{r.exponent}}}" if r.exponent else body


def _tex_value(p: Any, unit: str, siunitx: bool) -> str:
    if siunitx and (not unit or _units_known(unit)):
        return si_value(p, unit=unit)
    return "$" + format_value(p, style="tex") + "$" + (f" {tex_text(unit)}" if unit else "")


def _tex_number(v: float, unit: str, siunitx: bool) -> str:
    if siunitx and _units_known(unit):
        return rf"\SI{{{v:.9g}}}{{{_si(unit)}}}"
    return f"${v:.9g}$ {tex_text(unit)}"


def _si(unit: str) -> str:
    return si_unit(unit) or ""


def _units_known(unit: str) -> bool:
    return si_unit(unit) is not None


_WORDS = {
    "en": {
        "fit": (
            "Straight-line fit of {y} against {x} ({how} least squares, {n} points): "
            "slope {slope}, intercept {intercept}, {good}."
        ),
        "weighted": "weighted by the error bars",
        "unweighted": "unweighted",
        "constant": (
            " Hence {name} {how}: ${symbol}$ = {value}, {diff}\\,\\% from the accepted {accepted}."
        ),
    },
    "zh": {
        "fit": (
            "{y} 对 {x} 的直线拟合（{how}最小二乘法，{n} 个点）："
            "斜率 {slope}，截距 {intercept}，{good}。"
        ),
        "weighted": "按误差棒加权的",
        "unweighted": "不加权的",
        "constant": "由此得{name}（{how}）：${symbol}$ = {value}，与公认值 {accepted} 相差 {diff}\\,\\%。",
    },
}


def fit_curve(
    curve: Curve,
    *,
    plain_name: str,
    x_name: str,
    y_name: str,
    x_unit: str | None,
    y_unit: str | None,
    log_y: bool = False,
    x_tex: str = "",
    y_tex: str = "",
    x_plain: str = "",
) -> CurveFit | None:
    """Fit `curve` when it is plainly a straight line (of ln y on a log axis); the fit is
    set on the curve for drawing and returned for the report. None when no fit is made."""
    n = len(curve.x)
    if not MIN_FIT_POINTS <= n <= MAX_FIT_POINTS or len(set(curve.x)) < 3:
        return None
    x = np.asarray(curve.x, dtype=float)
    y = np.asarray(curve.y, dtype=float)
    sigma = _weights(curve)
    if log_y:
        if np.any(y <= 0):
            return None
        found = _line(x, np.log(y), sigma / y if sigma is not None else None)
    else:
        found = _line(x, y, sigma)
    if found is None or not (found.r2 >= LINEAR_R2) or _curved(found):
        return None
    curve.fit, curve.fit_log = found, log_y
    result = CurveFit(plain_name, y_name, x_name, found, log_y, x_unit, y_unit, sigma is not None,
                      y_tex=y_tex or tex_text(y_name), x_tex=x_tex or tex_text(x_name),
                      x_plain=x_plain)  # fmt: skip
    if not log_y:
        _constant(result)
    curve.fit_label = result.legend()
    return result


def _weights(curve: Curve) -> np.ndarray | None:
    """The points' σ when every point has a positive one; else None (an unweighted fit)."""
    if curve.sigma is None:
        return None
    s = [v if v is not None else math.nan for v in curve.sigma]
    arr = np.asarray(s, dtype=float)
    if not np.all(np.isfinite(arr)) or np.any(arr <= 0):
        return None
    return arr


CURVATURE_SIGMAS = 3.0  # a quadratic term this many σ from zero: the points bend


def _curved(line: Fit) -> bool:
    """The points bend away from the line (T against L of a pendulum has R² = 0.99 and is
    no line): a quadratic fit's x² term is CURVATURE_SIGMAS or more from zero."""
    if line.n < 5:
        return False
    try:
        bent = fit(line.x, line.y, "quadratic", sigma=line.sigma)
    except FitError:
        return False
    a = bent.params["a"]
    return bool(a.std_dev > 0 and abs(a.nominal_value) >= CURVATURE_SIGMAS * a.std_dev)


def _line(x: np.ndarray, y: np.ndarray, sigma: np.ndarray | None) -> Fit | None:
    try:
        return fit(x, y, "linear", sigma=sigma)
    except FitError:
        return None


def _constant(result: CurveFit) -> None:
    r = _relation(result.x_name, result.x_unit, result.y_name, result.y_unit)
    if r is None:
        return
    xs, ys = unit_scale(result.x_unit), unit_scale(result.y_unit)
    assert xs is not None
    slope_si = result.fit.params["slope"] * (ys[0] if ys else 1.0) / xs[0]
    result.relation = r
    result.constant = r.from_slope(slope_si)
    diff = percent_difference(result.constant, r.accepted)
    result.difference = float(getattr(diff, "nominal_value", diff))
