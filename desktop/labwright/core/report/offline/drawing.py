"""How the offline figures are drawn: points as a physicist plots them.

Measured points are markers, never joined (a line through readings zigzags wherever a
setting repeats and pretends to know what lies between them); only a dense recorded
trace (an oscilloscope's thousands of samples) is a thin line. A point's σ, when known,
is an error bar. A fitted curve is drawn over the points, its equation (value ± u) in the
legend, with the residuals in a panel beneath. More than MAX_OVERLAID curves become small
multiples, one panel each on shared axes, instead of a smear. A y axis is logarithmic when
the data ask for it (all positive, spanning decades, straighter as ln y than as y).

`describe(fig)` reads back what a Figure shows (axes, scales, labels, markers, lines,
error bars, legends): it goes into the figure's sidecar so tests and reviewers can check
a figure without looking at pixels.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

MAX_OVERLAID = 6  # curves on one axes; more are drawn as small multiples
DENSE = 300  # points of one curve from which it is a recorded trace: a line, no markers
SMALL_COLUMNS = 3  # panels per row of small multiples
LOG_SPAN = 20.0  # max/min of positive y from which a log axis may be asked for
FALLING = 0.75  # share of steps in which a decay falls (counts scatter on its flat tail)


@dataclass
class Curve:
    """One series of points: its name (the legend's text, mathtext-ready), its points,
    each point's σ when known (else None), and the fitted curve to draw over it."""

    name: str
    x: list[float]
    y: list[float]
    sigma: list[float | None] | None = None
    fit: Any = None  # core.analysis Fit (of y, or of ln y when fit_log)
    fit_log: bool = False
    fit_label: str = ""
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def dense(self) -> bool:
        return len(self.x) > DENSE

    def yerr(self) -> list[float] | None:
        if self.sigma is None or not any(s is not None for s in self.sigma):
            return None
        return [s if s is not None and math.isfinite(s) else 0.0 for s in self.sigma]

    def fitted(self, xs: Any) -> np.ndarray:
        y = self.fit.predict(xs)
        return np.exp(y) if self.fit_log else y

    def residuals(self) -> np.ndarray:
        """y − fit(x) at the points, in the units of y (for a ln fit too)."""
        return np.asarray(self.y, dtype=float) - self.fitted(np.asarray(self.x, dtype=float))


def wants_log_y(curves: Sequence[Curve]) -> bool:
    """The data ask for a log y axis: a decay (counts through absorbers, a discharge).
    Every y positive, the values spanning more than LOG_SPAN, most curves falling in
    most steps and lying straighter as ln y against x than as y. A rise (a thyratron's
    onset) stays linear: its knee is read off a linear axis."""
    ys = [v for c in curves for v in c.y]
    if not ys or min(ys) <= 0 or max(ys) / min(ys) < LOG_SPAN:
        return False
    decays = 0
    for c in curves:
        if len(set(c.x)) < 3:
            continue
        x, y = np.asarray(c.x, dtype=float), np.asarray(c.y, dtype=float)
        order = np.argsort(x, kind="stable")
        falling = float(np.mean(np.diff(y[order]) < 0))
        if falling >= FALLING and _r2(x, np.log(y)) > _r2(x, y):
            decays += 1
    return decays > 0 and decays * 2 >= len(curves)


def _r2(x: np.ndarray, y: np.ndarray) -> float:
    if np.ptp(x) == 0 or np.ptp(y) == 0:
        return 0.0
    return float(np.corrcoef(x, y)[0, 1] ** 2)


def _plot_points(ax: Any, curve: Curve, label: str, color: Any = None) -> Any:
    """The curve's points (an ErrorbarContainer), or a dense trace's line: the handle."""
    xs, ys = curve.x, curve.y
    if curve.dense:  # a recorded trace: thousands of samples are a line, not dots
        (line,) = ax.plot(xs, ys, lw=0.8, ls="-", marker="", label=label, color=color)
        line.set_gid("points")
        return line
    container = ax.errorbar(xs, ys, yerr=curve.yerr(), ls="none", marker="o", ms=4,
                            capsize=2, elinewidth=0.8, label=label, color=color)  # fmt: skip
    container.lines[0].set_gid("points")
    return container


def _color(handle: Any) -> Any:
    line = handle.lines[0] if hasattr(handle, "lines") else handle
    return line.get_color()


def _plot_fit(ax: Any, curve: Curve, color: Any) -> Any:
    lo, hi = min(curve.x), max(curve.x)
    xs = np.linspace(lo, hi, 200)
    (line,) = ax.plot(xs, curve.fitted(xs), ls="-", lw=1.0, marker="", color=color,
                      label=curve.fit_label, gid="fit")  # fmt: skip
    return line


def _plot_residuals(ax: Any, curve: Curve, color: Any) -> None:
    container = ax.errorbar(curve.x, curve.residuals(), yerr=curve.yerr(), ls="none", marker="o",
                            ms=3, capsize=2, elinewidth=0.8, color=color, label=curve.name)  # fmt: skip
    container.lines[0].set_gid("points")


def draw(
    fig: Any,
    panels: list[list[Curve]],
    *,
    x_name: str,
    y_names: list[str],
    log_y: Sequence[bool] | None = None,
    small_multiples: bool = False,
    residual_name: str = "residual",
) -> None:
    """Draw `panels` (each a list of curves sharing one axes) into `fig`.

    With `small_multiples` every panel is one curve in a grid, axes shared, its name as
    the panel's title. Otherwise panels stack vertically with a shared x; a panel whose
    curves carry a fit gets a residual panel beneath. `log_y`: per panel."""
    logs = list(log_y) if log_y is not None else [False] * len(panels)
    if small_multiples:
        _draw_small_multiples(fig, [c for p in panels for c in p], x_name, y_names[0], any(logs))
        return
    rows: list[tuple[list[Curve], str, bool, bool]] = []
    for curves, y_name, log in zip(panels, y_names, logs, strict=True):
        rows.append((curves, y_name, False, log))
        if any(c.fit is not None for c in curves):
            rows.append((curves, residual_name, True, False))
    ratios = [1 if resid else 3 for _, _, resid, _ in rows]
    grid = fig.subplots(len(rows), 1, sharex=True, squeeze=False,
                        gridspec_kw={"height_ratios": ratios})[:, 0]  # fmt: skip
    colors: dict[int, Any] = {}
    for ax, (curves, y_name, resid, log) in zip(grid, rows, strict=True):
        if resid:
            ax.axhline(0.0, color="0.4", lw=0.8)
            for c in curves:
                if c.fit is not None:
                    _plot_residuals(ax, c, colors[id(c)])
            ax.set_gid("residuals")
        else:
            handles = []
            for c in curves:
                handle = _plot_points(ax, c, c.name)
                colors[id(c)] = _color(handle)
                handles.append(handle)
                if c.fit is not None:  # each curve's fit right after its points
                    handles.append(_plot_fit(ax, c, colors[id(c)]))
            if log:
                ax.set_yscale("log")
            if len(curves) > 1 or any(c.fit is not None for c in curves):
                ax.legend(handles=handles, fontsize=7, ncol=2 if len(curves) > 3 else 1)
            ax.set_gid("data")
        ax.set_ylabel(y_name, fontsize=8 if resid else 9)
        ax.grid(True, alpha=0.3)
    grid[-1].set_xlabel(x_name)


def _draw_small_multiples(
    fig: Any, curves: list[Curve], x_name: str, y_name: str, log_y: bool
) -> None:
    cols = min(SMALL_COLUMNS, len(curves))
    nrows = math.ceil(len(curves) / cols)
    grid = fig.subplots(nrows, cols, sharex=True, sharey=True, squeeze=False)
    for k, ax in enumerate(grid.flat):
        if k >= len(curves):
            ax.set_visible(False)
            continue
        c = curves[k]
        _plot_points(ax, c, c.name)
        ax.set_title(c.name, fontsize=7)
        if log_y:
            ax.set_yscale("log")
        ax.grid(True, alpha=0.3)
        ax.tick_params(labelsize=7)
        ax.set_gid("data")
    fig.supxlabel(x_name, fontsize=9)
    fig.supylabel(y_name, fontsize=9)


# -- what a figure shows, read back from it ------------------------------------------------


def describe(fig: Any) -> dict[str, Any]:
    """The figure as data: per visible axes its role, labels, scales, legend, the curves
    drawn (points as markers or a line, their count, whether they carry error bars), and
    the fitted lines. Read from matplotlib's artists, not from what was asked for."""
    from matplotlib.container import ErrorbarContainer

    axes = []
    for ax in fig.axes:
        if not ax.get_visible():
            continue
        bars = {id(c.lines[0]): c for c in ax.containers if isinstance(c, ErrorbarContainer)}
        curves = []
        for line in ax.get_lines():
            if line.get_gid() != "points":
                continue  # an error bar's cap, a fitted curve, a zero line
            container = bars.get(id(line))
            marker = line.get_marker()
            curves.append(
                {
                    "label": str((container or line).get_label()),
                    "points": len(line.get_xdata()),
                    "marker": "" if marker in (None, "", " ", "None", "none") else str(marker),
                    "joined": line.get_linestyle() not in ("None", "none", "", " "),
                    "error_bars": bool(container is not None and container.has_yerr),
                }
            )
        fits = [str(line.get_label()) for line in ax.get_lines() if line.get_gid() == "fit"]
        legend = ax.get_legend()
        axes.append(
            {
                "role": ax.get_gid() or "data",
                "title": ax.get_title(),
                "xlabel": ax.get_xlabel() or (fig._supxlabel.get_text() if fig._supxlabel else ""),
                "ylabel": ax.get_ylabel() or (fig._supylabel.get_text() if fig._supylabel else ""),
                "xscale": ax.get_xscale(),
                "yscale": ax.get_yscale(),
                "curves": curves,
                "fits": fits,
                "legend": [t.get_text() for t in legend.get_texts()] if legend else [],
            }
        )
    return {"axes": axes}
