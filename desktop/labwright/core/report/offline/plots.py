"""The offline figures: a numeric table plotted with matplotlib, with its provenance."""

from __future__ import annotations

import contextlib
import io
import logging
import math
import sys
import textwrap
import threading
import warnings
from collections.abc import Iterator, Sequence
from datetime import datetime, timezone
from pathlib import Path
from types import ModuleType
from typing import Any

from labwright.core.material.tables import Table, table_roles
from labwright.core.material.tables.roles import INDEPENDENT, MEASURED, exactly_linear
from labwright.core.material.workspace import PathDenied, file_digest
from labwright.core.report.offline.columns import ColumnLabel, as_written, table_labels
from labwright.core.report.offline.formatting import tex_text
from labwright.core.report.offline.language import _CJK, _TEXT, table_title
from labwright.core.rundir.layout import save_sidecar, write_figure_file
from labwright.core.rundir.records import FigureSidecar, InputRecord, PlottedSeries, PlottedTable

MAX_Y_SERIES = 4
FIGURE_DPI = 100  # the canvas the layout is worked out on (matplotlib's own default)
SAVE_DPI = 150  # of the PNG
# No canvas of ours is ever larger (a figure is a few inches: ~1 M pixels at SAVE_DPI).
MAX_PIXELS = 16_000_000


# --------------------------------------------------------------------------
# Figures
# --------------------------------------------------------------------------


def _column(table: Table, j: int) -> list[float | None]:
    return [row[j] if j < len(row) else None for row in table.plot_rows()]


def _pairs(xs: Sequence[float | None], ys: Sequence[float | None]) -> list[tuple[float, float]]:
    return sorted((x, y) for x, y in zip(xs, ys, strict=False) if x is not None and y is not None)


def _exactly_linear(pairs: list[tuple[float, float]]) -> bool:
    """y = a·x + b to rounding error, like an angle in degrees next to it in radians."""
    return exactly_linear([p[0] for p in pairs], [p[1] for p in pairs])


def _distinct(values: Sequence[float | None]) -> int:
    return len({v for v in values if v is not None})


def _axis_name(table: Table, j: int) -> str:
    names = table.names[j] if j < len(table.names) else table.columns[j]
    return names.strip().casefold()


def _choose_axes(table: Table) -> tuple[int, list[int]] | None:
    """(x column, y columns) to plot: one relation, or None when the table has none.

    By the columns' roles: a trajectory is y against x; otherwise the measured
    quantities against the independent variable (time, angle, set points),
    never against a row number, and not the independent variable again in
    other units. Uncertainty columns become error bars, not series. Repeated readings
    with their mean beside them are drawn as the mean; a row total is not drawn.
    """
    roles = table_roles(table)
    n = len(table.columns)
    repeats = {k for r in table.row_summaries.values() if r.kind == "mean" for k in r.of}
    totals = {j for j, r in table.row_summaries.items() if r.kind == "sum"}
    measured = [
        j
        for j in range(n)
        if roles[j] == MEASURED and _distinct(_column(table, j)) >= 2 and j not in repeats | totals
    ]
    xs_named = {_axis_name(table, j): j for j in measured}
    if "x" in xs_named and "y" in xs_named:
        return xs_named["x"], [xs_named["y"]]
    x = next(
        (j for j in range(n) if roles[j] == INDEPENDENT and _distinct(_column(table, j)) >= 2),
        None,
    )
    if x is None:
        return None
    xs = _column(table, x)
    ys = [
        j
        for j in measured
        if len(_pairs(xs, _column(table, j))) >= 2
        and not _exactly_linear(_pairs(xs, _column(table, j)))
    ]
    return (x, ys[:MAX_Y_SERIES]) if ys else None


def _curves(
    table: Table, name: str
) -> list[tuple[list[tuple[list[float | None], list[str | None]]], str]]:
    """The rows to plot, one group per curve of a family (named "λ = 365 nm"), else one."""
    rows = table.plot_rows()
    texts = table.sample_labels if rows is table.sample and table.sample_labels else table.labels
    paired = [(row, texts[i] if i < len(texts) else []) for i, row in enumerate(rows)]
    if table.family is None:
        return [(paired, name)]
    f = table.family
    unit = f" {f.unit}" if f.unit else ""
    return [
        (
            [p for p in paired if p[1] and p[1][0] == label],
            _mpl_escaped(f"{f.label} = {label}{unit}"),
        )
        for label in f.labels
    ]


def linear_fit(pairs: list[tuple[float, float]]) -> dict[str, float] | None:
    """Least-squares line with the standard errors of slope and intercept, and R²."""
    import numpy as np

    if len(pairs) < 4 or len({p[0] for p in pairs}) < 3:
        return None
    x = np.array([p[0] for p in pairs])
    y = np.array([p[1] for p in pairs])
    (slope, intercept), cov = np.polyfit(x, y, 1, cov=True)
    residual = float(((y - (slope * x + intercept)) ** 2).sum())
    total = float(((y - y.mean()) ** 2).sum())
    if total == 0:
        return None
    return {
        "slope": float(slope),
        "slope_err": float(math.sqrt(max(cov[0][0], 0.0))),
        "intercept": float(intercept),
        "intercept_err": float(math.sqrt(max(cov[1][1], 0.0))),
        "r2": 1 - residual / total,
        "n": len(pairs),
    }


# A relation is drawn as a straight line when the data lie on one this closely.
LINEAR_R2 = 0.98


def _fit_text(fit: dict[str, float], lang: str = "en") -> str:
    def pm(v: float, e: float) -> str:
        digits = max(0, 1 - int(math.floor(math.log10(e)))) if e > 0 else 4
        return f"{v:.{digits}f} ± {e:.{digits}f}"

    return _TEXT[lang]["fit"].format(
        slope=pm(fit["slope"], fit["slope_err"]),
        intercept=pm(fit["intercept"], fit["intercept_err"]),
        r2=f"{fit['r2']:.4f}",
        n=int(fit["n"]),
    )


def _captions(
    table: Table,
    x: int,
    ys: list[int],
    fit: dict[str, float] | None,
    lang: str,
    labels: list[ColumnLabel],
) -> tuple[str, str]:
    """The figure's caption as plain text (stored with it) and as LaTeX (in the report)."""
    words = _TEXT[lang]
    sep = words["list_sep"]
    before, _, rest = words["against"].partition("{y}")
    middle, _, after = rest.partition("{x}")
    plain = before + sep.join(labels[j].plain for j in ys) + middle + labels[x].plain + after
    tex = (
        tex_text(before)
        + tex_text(sep).join(labels[j].tex for j in ys)
        + tex_text(middle)
        + labels[x].tex
        + tex_text(after)
    )
    tail = ""
    if fit is not None:
        tail += (" " if lang == "en" else "") + _fit_text(fit, lang)
    if table.omitted_rows and table.sample:
        tail += words["sampled"].format(k=f"{len(table.sample):,}", n=f"{table.n_rows:,}")
    tail += words["data"].format(title=table_title(table, lang))
    provenance = as_written(table, [x, *ys], labels, words)
    return plain + tail, tex + tex_text(tail) + provenance


def quiet_matplotlib() -> ModuleType:
    """matplotlib, imported without its complaints about a matplotlibrc: house_style
    ignores the file anyway, and the complaints quote its lines as they are — a lab
    folder's rc could put terminal escape sequences on the person's screen."""
    if "matplotlib" not in sys.modules:
        logger = logging.getLogger("matplotlib")
        level = logger.level
        logger.setLevel(logging.CRITICAL)
        try:
            import matplotlib  # noqa: F401
        finally:
            logger.setLevel(level)
    return sys.modules["matplotlib"]


def _cjk_fonts() -> list[str]:
    """Installed CJK font families matplotlib can fall back to for Chinese headers."""
    quiet_matplotlib()
    from matplotlib import font_manager

    names = sorted({f.name for f in font_manager.fontManager.ttflist})
    wanted = ("Noto Sans CJK SC", "Noto Serif CJK SC", "WenQuanYi Zen Hei", "SimHei",
              "Microsoft YaHei", "PingFang SC", "Source Han Sans SC")  # fmt: skip
    found = [n for n in wanted if n in names]
    return found or [n for n in names if "CJK" in n][:1]


# rcParams are the process's: without this lock, one run's plot leaving its style scope
# would put the person's settings back while another run's plot is being drawn.
_STYLE_LOCK = threading.RLock()


@contextlib.contextmanager
def house_style(fonts: Sequence[str]) -> Iterator[None]:
    """matplotlib's own defaults, whatever matplotlibrc it read on import.

    matplotlib reads ./matplotlibrc (a lab folder may hold one: `labwright run .` from
    inside it), $MATPLOTLIBRC, $MPLCONFIGDIR's or ~/.config/matplotlib's when it is
    imported; a `figure.dpi: 60000` there asked for a 300 GB canvas. Inside this scope
    every style parameter is matplotlib's default (style "default": the rc's backend,
    timezone and GUI settings are not style, and no offline figure uses them) and the
    fonts are `fonts`; the person's settings are back afterwards."""
    quiet_matplotlib()
    import matplotlib
    import matplotlib.style

    with (
        _STYLE_LOCK,
        matplotlib.style.context("default"),
        matplotlib.rc_context({"font.family": list(fonts)}),
        warnings.catch_warnings(),
    ):
        # A header in a script no installed font covers prints as boxes; the
        # figure is still right, so that warning only is silenced.
        warnings.filterwarnings("ignore", message=r"Glyph \d+ .*missing from", category=UserWarning)
        yield


def _mpl_escaped(text: str) -> str:
    """Data text for matplotlib: "$" escaped (a header like "$\\f{g}$" would be read as
    mathtext and make the figure fail to draw)."""
    return text.replace("$", r"\$")


def _short(text: str, width: int, lines: int) -> str:
    """Data text wrapped for a figure, with "$" escaped (see _mpl_escaped)."""
    wrapped = "\n".join(textwrap.wrap(text, width, max_lines=lines, placeholder=" …"))
    return _mpl_escaped(wrapped)


def _short_label(text: str, width: int, lines: int) -> str:
    """A label already mathtext-ready (columns.py), wrapped; a formula is kept whole."""
    if "$" in text.replace(r"\$", ""):
        return text
    return "\n".join(textwrap.wrap(text, width, max_lines=lines, placeholder=" …"))


def plot_table(
    table: Table,
    figures_dir: Path,
    stem: str,
    folder: Path,
    *,
    lang: str = "en",
    siunitx: bool = True,
) -> dict | None:
    """Plot a table with matplotlib, in process; save figures/<stem>.pdf/.png/.json.

    The first column with two distinct values is x; up to 4 further columns
    are y (markers and lines, sorted by x). Series of very different sizes
    get a panel each so none is flattened. Axes and legend show the columns
    as a physicist writes them (columns.py); the caption is in `lang`.
    Returns {"filename", "caption", "caption_tex", "pdf", "png"}, or None
    when the table has fewer than 2 rows or nothing to plot against x.
    """
    if len(table.rows) < 2 or len(table.columns) < 2 or table.template:
        return None
    axes = _choose_axes(table)
    if axes is None:
        return None
    x, ys = axes
    labels = table_labels(table, siunitx=siunitx)
    errors = {target: j for j, target in table.uncertainty_of.items()}
    if table.family is not None:  # one curve per member of the family, of one quantity
        ys = ys[-1:]
    series = []
    for j in ys:
        err = errors.get(j)
        for curve, name in _curves(table, labels[j].mpl):
            rows = [
                (xv, yv, (row[err] if err is not None and err < len(row) else None))
                for row, texts in curve
                if (xv := row[x]) is not None and (yv := row[j]) is not None
            ]
            rows.sort()
            series.append((name, [(a, b) for a, b, _ in rows], [e for _, _, e in rows]))
    fit = None
    if len(series) == 1:
        fit = linear_fit(series[0][1])
        if fit is not None and fit["r2"] < LINEAR_R2:
            fit = None
    caption, caption_tex = _captions(table, x, ys, fit, lang, labels)
    pdf, png = _render(
        series,
        labels[x].mpl,
        _mpl_escaped(table_title(table, lang)),
        fit,
        _TEXT[lang]["fit_legend"],
        one_panel=table.family is not None,
        y_name=labels[ys[0]].mpl if table.family is not None else None,
    )
    # figures/ of the run: written beneath the run folder, never through a link
    pdf_path = write_figure_file(figures_dir, f"{stem}.pdf", pdf)
    png_path = write_figure_file(figures_dir, f"{stem}.png", png)
    meta = _provenance(table, stem, caption, x, ys, folder)
    meta.fit = fit
    save_sidecar(figures_dir, meta)
    made: dict[str, Any] = {
        "filename": stem,
        "caption": caption,
        "caption_tex": caption_tex,
        "pdf": str(pdf_path),
        "png": str(png_path),
    }
    if fit is not None:
        made["fit"] = fit
    return made


def _render(
    series: list[tuple[str, list[tuple[float, float]], list[float | None]]],
    x_name: str,
    title: str,
    fit: dict[str, float] | None = None,
    fit_legend: str = "fit",
    *,
    one_panel: bool = False,
    y_name: str | None = None,
) -> tuple[bytes, bytes]:
    """The figure as PDF and PNG. Names are mathtext-ready: "$" escaped where it is text.
    Curves of one family (`one_panel`) share their axes, whatever their sizes, and the y
    axis is their quantity (`y_name`), the legend their labels."""
    quiet_matplotlib()  # before any import of matplotlib: it reads the rc then
    from matplotlib.figure import Figure

    # Sizes far apart would flatten the small series: then one panel each.
    peaks = [max((abs(y) for _, y in pairs), default=1.0) or 1.0 for _, pairs, _ in series]
    panels = len(series) if max(peaks) / min(peaks) > 4 and not one_panel else 1
    # A CJK fallback only when needed: embedding (a subset of) a CJK font costs
    # a second per figure even when no glyph of it is used.
    texts = [x_name, title, *(name for name, _, _ in series)]
    fonts = ["DejaVu Sans", *(_cjk_fonts() if any(_CJK.search(t) for t in texts) else [])]
    with house_style(fonts):
        fig = Figure(figsize=(6.4, 3.4 + 1.2 * (panels - 1)), dpi=FIGURE_DPI, layout="constrained")
        grid = fig.subplots(panels, 1, sharex=True, squeeze=False)[:, 0]
        for i, (name, pairs, errs) in enumerate(series):
            ax = grid[i if panels > 1 else 0]
            xs = [p[0] for p in pairs]
            # Repeated x values (runs of one setting) make a line zigzag; a fitted
            # line or a long trace needs no joining line either.
            line = "-" if len(set(xs)) == len(xs) and fit is None else "none"
            big = len(pairs) > 300
            yerr = [e or 0.0 for e in errs] if any(e is not None for e in errs) else None
            ax.errorbar(xs, [p[1] for p in pairs], yerr=yerr, marker="." if big else "o",
                        ms=2 if big else 4, lw=1.2, ls=line, capsize=2,
                        label=_short_label(name, 40, 2))  # fmt: skip
            if fit is not None:
                lo, hi = min(xs), max(xs)
                ax.plot([lo, hi], [fit["slope"] * lo + fit["intercept"],
                                   fit["slope"] * hi + fit["intercept"]],
                        lw=1, color="0.3", label=fit_legend)  # fmt: skip
                ax.legend(fontsize=8)
            if panels > 1:
                ax.set_ylabel(_short_label(name, 24, 3), fontsize=8)
        if panels == 1:
            names = [name for name, _, _ in series]
            grid[0].set_ylabel(_short_label(y_name or "; ".join(names), 45, 3), fontsize=9)
            if len(series) > 1:
                grid[0].legend(fontsize=8)
        for ax in grid:
            ax.grid(True, alpha=0.3)
        grid[-1].set_xlabel(_short_label(x_name, 60, 2))
        fig.suptitle(_short_label(title, 80, 2), fontsize=9)
        return pdf_and_png(fig)


def pdf_and_png(fig: Any) -> tuple[bytes, bytes]:
    """A figure's PDF (no creation date: the same figure gives the same bytes) and PNG,
    drawn inside house_style. No canvas is larger than MAX_PIXELS: a figure whose size
    and dpi would need more is drawn at the dpi that fits."""
    fig.set_dpi(capped_dpi(fig, fig.dpi))
    # Lay out once, then freeze: otherwise each of the two saves lays out again.
    fig.draw_without_rendering()
    fig.set_layout_engine("none")
    out = []
    for fmt, meta in (("pdf", {"CreationDate": None}), ("png", {})):
        buf = io.BytesIO()
        fig.savefig(buf, format=fmt, dpi=capped_dpi(fig, SAVE_DPI), metadata=meta)
        out.append(buf.getvalue())
    return out[0], out[1]


def capped_dpi(fig: Any, dpi: float) -> float:
    """`dpi`, or less when the figure's size at `dpi` would pass MAX_PIXELS."""
    width, height = fig.get_size_inches()
    area = max(float(width) * float(height), 1e-6)
    return min(float(dpi), math.sqrt(MAX_PIXELS / area))


def input_record(folder: Path, source: str) -> InputRecord:
    """A file of the material as the figure was drawn from it (its hash; None when it
    cannot be read beneath the folder)."""
    try:
        sha256, size, _ = file_digest(folder, source)
    except (PathDenied, OSError):
        return InputRecord(source)
    return InputRecord(source, sha256, size)


def _provenance(
    table: Table, stem: str, caption: str, x: int, ys: list[int], folder: Path
) -> FigureSidecar:
    """The same fields the sandbox writes for a model's figure, plus the table's location."""

    inputs = [input_record(folder, table.source)]
    where = f"sheet {table.sheet!r}, " if table.sheet is not None else ""
    code = (
        f"labwright.core.report.offline.plot_table (deterministic, no model): {table.source}, {where}"
        f"rows {table.first_row}-{table.last_row}; x = {table.columns[x]!r}; "
        f"y = {', '.join(repr(table.columns[j]) for j in ys)}; roles "
        f"{', '.join(table_roles(table))}; error bars from uncertainty columns; a straight-line "
        f"fit (numpy.polyfit) when R² >= {LINEAR_R2}."
    )
    plotted = PlottedTable(
        source=table.source,
        sheet=table.sheet,
        first_row=table.first_row,
        last_row=table.last_row,
        x=table.columns[x],
        y=[table.columns[j] for j in ys],
    )
    return figure_record(stem, caption, code, inputs, table=plotted)


def figure_record(
    stem: str,
    caption: str,
    code: str,
    inputs: list[InputRecord],
    *,
    table: PlottedTable | None = None,
    series: PlottedSeries | None = None,
) -> FigureSidecar:
    """The sidecar of a figure the offline report drew (figures/<stem>.json), with what
    it shows (`table` or `series`; the caller adds a `fit`) beside the fields every
    figure has."""
    matplotlib = quiet_matplotlib()

    return FigureSidecar(
        filename=stem,
        caption=caption,
        code=code,
        inputs=inputs,
        files=[f"{stem}.pdf", f"{stem}.png"],
        figures=1,
        created=datetime.now(timezone.utc).isoformat(timespec="seconds"),
        matplotlib=matplotlib.__version__,
        table=table,
        series=series,
    )
