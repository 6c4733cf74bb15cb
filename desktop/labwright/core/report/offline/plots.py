"""The offline figures: a numeric table plotted with matplotlib, with its provenance."""

from __future__ import annotations

import contextlib
import io
import logging
import math
import sys
import textwrap
import threading
import unicodedata
import warnings
from collections.abc import Iterator, Sequence
from datetime import datetime, timezone
from pathlib import Path
from types import ModuleType
from typing import Any

from labwright.core.analysis import combined, type_a, type_b
from labwright.core.material.tables import Table, table_roles
from labwright.core.material.tables.roles import INDEPENDENT, MEASURED, exactly_linear
from labwright.core.material.workspace import PathDenied, file_digest
from labwright.core.report.offline.columns import ColumnLabel, as_written, table_labels
from labwright.core.report.offline.drawing import (
    MAX_OVERLAID,
    SMALL_COLUMNS,
    Curve,
    describe,
    draw,
    wants_log_y,
)
from labwright.core.report.offline.fitting import LINEAR_R2, CurveFit, fit_curve
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
    candidates = [
        j for j in range(n) if roles[j] == INDEPENDENT and _distinct(_column(table, j)) >= 2
    ]
    if not candidates:
        return None
    x = _straightest(table, candidates, measured)
    reading = _reading_of(table, x, measured)
    if reading is not None:  # the meter's reading of the setting is the x a physicist plots
        x = reading
    xs = _column(table, x)
    ys = [
        j
        for j in measured
        if j != x
        and _axis_name(table, j) != _axis_name(table, x)  # never a quantity against itself
        and len(_pairs(xs, _column(table, j))) >= 2
        and not _exactly_linear(_pairs(xs, _column(table, j)))
    ]
    ys = [j for j in ys if not any(_ratio(table, j, k) is not None for k in ys if k > j)]
    return (x, ys[:MAX_Y_SERIES]) if ys else None


# A measured column follows the setting this closely (R²) when it is the setting's reading.
READING_R2 = 0.9


def _reading_of(table: Table, x: int, measured: list[int]) -> int | None:
    """The measured column that reads the set quantity x (a voltmeter's "Voltage Average"
    beside the supply's "power supply (V)": the same unit, rising with it), else None."""
    import numpy as np

    unit = table.units[x] if x < len(table.units) else None
    if not unit:
        return None
    for j in measured:
        if j >= len(table.units) or table.units[j] != unit:
            continue
        pairs = _pairs(_column(table, x), _column(table, j))
        if len(pairs) < 3:
            continue
        a, b = np.array(pairs, dtype=float).T
        if np.ptp(a) == 0 or np.ptp(b) == 0:
            continue
        r = float(np.corrcoef(a, b)[0, 1])
        if r > 0 and r * r >= READING_R2:
            return j
    return None


def _straightest(table: Table, candidates: list[int], measured: list[int]) -> int:
    """Of several independent columns (λ and ν of a photoelectric table), the one the first
    measured quantity is most nearly a straight line against: the plot a physicist draws
    (U₀ against ν, not λ). The first one when there is no such choice."""
    if len(candidates) == 1 or not measured:
        return candidates[0]
    import numpy as np

    def r2(x: int) -> float:
        pairs = _pairs(_column(table, x), _column(table, measured[0]))
        if len(pairs) < 3:
            return -1.0
        a, b = np.array(pairs, dtype=float).T
        if np.ptp(a) == 0 or np.ptp(b) == 0:
            return -1.0
        return float(np.corrcoef(a, b)[0, 1] ** 2)

    scores = [r2(x) for x in candidates]
    best = max(range(len(candidates)), key=lambda k: (scores[k], -k))
    return candidates[best] if scores[best] > scores[0] + 1e-3 else candidates[0]


def nfkc(text: str) -> str:
    return unicodedata.normalize("NFKC", text)


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

    def named(label: str) -> str:
        # "12kΩ" carries its unit already: "R = 12kΩ", not "R = 12kΩ kΩ"
        # (compared NFKC: the ohm sign Ω and the capital omega Ω are one unit)
        has_unit = f.unit and nfkc(label.replace(" ", "")).endswith(nfkc(f.unit))
        unit = f" {f.unit}" if f.unit and not has_unit else ""
        return _mpl_escaped(f"{f.label} = {label}{unit}")

    return [([p for p in paired if p[1] and p[1][0] == label], named(label)) for label in f.labels]


def _sigma_of(table: Table, j: int, err: int | None) -> tuple[Any, str]:
    """How a point of column j gets its σ, and the words for it: an uncertainty column
    beside it; the spread of the repeats it is the mean of (type A, with the resolution's
    type B combined when the header states one); the resolution alone (type B); or the σ
    of the mean it is a fixed multiple of (a rate = counts/30 s). (None, "") when unknown."""

    def resolution(k: int) -> float | None:
        return table.resolutions[k] if k < len(table.resolutions) else None

    def repeats_of(k: int) -> tuple[int, ...] | None:
        s = table.row_summaries.get(k)
        return s.of if s is not None and s.kind == "mean" and len(s.of) >= 2 else None

    if err is not None:
        return (lambda row: _cell(row, err)), f"error bars: {table.columns[err]}"
    of = repeats_of(j)
    res = resolution(j) or (resolution(of[0]) if of else None)
    u_b = type_b(res) if res else None
    if of is not None:

        def from_repeats(row: list[float | None]) -> float | None:
            values = [v for k in of if (v := _cell(row, k)) is not None]
            if len(values) < 2:
                return u_b
            u_a = type_a(values)
            return combined(u_a, u_b) if u_b else u_a

        names = f"{table.columns[of[0]]} … {table.columns[of[-1]]}"
        how = "type A from the repeats " + names + (f", type B ±{res:g} combined" if res else "")
        return from_repeats, "error bars: " + how
    if u_b is not None:
        return (lambda row: u_b), f"error bars: type B from the resolution ±{res:g}"
    for m in table.row_summaries:
        factor = _ratio(table, j, m) if repeats_of(m) else None
        if factor is not None:
            base, how = _sigma_of(table, m, None)
            return _scaled(base, abs(factor)), f"{how} (of {table.columns[m]}, scaled)"
    return None, ""


def _scaled(base: Any, factor: float) -> Any:
    def sigma(row: list[float | None]) -> float | None:
        s = base(row)
        return s * factor if s is not None else None

    return sigma


def _cell(row: list[float | None], k: int) -> float | None:
    return row[k] if k < len(row) else None


def _ratio(table: Table, j: int, m: int) -> float | None:
    """c when column j is c × column m in every row (to rounding), else None."""
    ratios = [
        a / b
        for row in table.plot_rows()
        if (a := _cell(row, j)) is not None and (b := _cell(row, m)) is not None and b != 0
    ]
    if len(ratios) < 3 or j == m:
        return None
    c = sum(ratios) / len(ratios)
    if c == 0 or any(abs(r - c) > 1e-6 * abs(c) for r in ratios):
        return None
    return c


def _captions(
    table: Table,
    x: int,
    ys: list[int],
    fits: list[CurveFit],
    lang: str,
    labels: list[ColumnLabel],
    *,
    siunitx: bool = True,
    notes: Sequence[str] = (),
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
    for note in notes:
        tail += " " + note[0].upper() + note[1:] + "."
    if table.omitted_rows and table.sample:
        tail += words["sampled"].format(k=f"{len(table.sample):,}", n=f"{table.n_rows:,}")
    tail += words["data"].format(title=table_title(table, lang))
    provenance = as_written(table, [x, *ys], labels, words)
    # The fit's statement is the report's text (fits_tex), after the figure: here a pointer.
    fit_tex = tex_text(words["fit_caption"]) if fits else ""
    fit_plain = "".join(" " + f.plain(lang) for f in fits)
    return plain + fit_plain + tail, tex + fit_tex + tex_text(tail) + provenance


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

    The measured quantities against the independent variable (see _choose_axes), drawn
    as drawing.py draws them: markers with error bars when σ is known (_sigma_of), one
    curve per series with a legend, a fitted straight line with its equation and residual
    panel when the data are plainly one (fitting.py), a log y axis when the data ask,
    small multiples beyond drawing.MAX_OVERLAID curves. Series of very different sizes
    get a panel each so none is flattened. The caption is in `lang` and states the fit.
    Returns {"filename", "caption", "caption_tex", "pdf", "png"} (and "fits"), or None
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
    panels: list[list[Curve]] = []
    notes: list[str] = []
    for j in ys:
        sigma_of, how = _sigma_of(table, j, errors.get(j))
        if how and how not in notes:
            notes.append(how)
        curves = []
        for rows_of_curve, name in _curves(table, labels[j].mpl):
            points = sorted(
                (xv, yv, sigma_of(row) if sigma_of is not None else None)
                for row, _texts in rows_of_curve
                if (xv := _cell(row, x)) is not None and (yv := _cell(row, j)) is not None
            )
            if points:
                curves.append(
                    Curve(
                        _short_label(name, 40, 2),
                        [p[0] for p in points],
                        [p[1] for p in points],
                        [p[2] for p in points] if sigma_of is not None else None,
                        extra={"column": j},
                    )
                )
        if curves:
            panels.append(curves)
    if not panels:
        return None
    y_names = [labels[j].mpl for j in ys]
    if table.family is not None or _one_scale(panels):
        panels, y_names = [[c for p in panels for c in p]], ["; ".join(y_names)]
        if table.family is not None:
            y_names = [labels[ys[0]].mpl]
    log_y = [wants_log_y(p) for p in panels]
    # a family's curves (I–V at each λ) are curves, not lines
    fits = _fits(table, x, panels, log_y, labels) if table.family is None else []
    caption, caption_tex = _captions(table, x, ys, fits, lang, labels, siunitx=siunitx, notes=notes)
    pdf, png, drawn = _render(
        panels,
        labels[x].mpl,
        y_names,
        _mpl_escaped(table_title(table, lang)),
        log_y=log_y,
        residual_name=_TEXT[lang]["residual"],
    )
    # figures/ of the run: written beneath the run folder, never through a link
    pdf_path = write_figure_file(figures_dir, f"{stem}.pdf", pdf)
    png_path = write_figure_file(figures_dir, f"{stem}.png", png)
    meta = _provenance(table, stem, caption, x, ys, folder)
    meta.shows = drawn
    if fits:
        meta.fits = [_fit_record(f) for f in fits]
        # What the fit printed: `labwright verify` traces the report's numbers to it.
        meta.stdout = "\n".join(line for f in fits for line in f.lines()) + "\n"
    save_sidecar(figures_dir, meta)
    made: dict[str, Any] = {
        "filename": stem,
        "caption": caption,
        "caption_tex": caption_tex,
        "pdf": str(pdf_path),
        "png": str(png_path),
    }
    if fits:
        made["fits"] = meta.fits
        made["fits_tex"] = [f.text(lang, siunitx=siunitx) for f in fits]
    return made


def _fits(
    table: Table, x: int, panels: list[list[Curve]], log_y: list[bool], labels: list[ColumnLabel]
) -> list[CurveFit]:
    """Each curve that is plainly a straight line, fitted (fitting.fit_curve)."""
    fits = []
    for p, log in zip(panels, log_y, strict=True):
        for c in p:
            col = c.extra["column"]
            found = fit_curve(
                c,
                plain_name=labels[col].plain,
                x_name=_name(table, x),
                y_name=_name(table, col),
                x_unit=table.units[x] if x < len(table.units) else None,
                y_unit=table.units[col] if col < len(table.units) else None,
                log_y=log,
                x_tex=labels[x].tex,
                y_tex=labels[col].tex,
                x_plain=labels[x].plain,
            )
            if found is not None:
                fits.append(found)
    return fits


def _name(table: Table, j: int) -> str:
    return table.names[j] if j < len(table.names) and table.names[j] else table.columns[j]


def _fit_record(f: CurveFit) -> dict[str, Any]:
    params = {
        name: {"value": float(p.nominal_value), "u": float(p.std_dev)}
        for name, p in f.fit.params.items()
    }
    out: dict[str, Any] = {
        "curve": f.curve,
        "model": "ln y linear in x" if f.log else "linear",
        "weighted": f.weighted,
        "n": f.fit.n,
        "params": params,
        "r2": f.fit.r2,
    }
    if f.relation is not None and f.constant is not None:
        out["constant"] = {
            "symbol": f.relation.symbol,
            "value": float(f.constant.nominal_value),
            "u": float(f.constant.std_dev),
            "unit": f.relation.unit,
            "accepted": f.relation.accepted,
            "percent_difference": f.difference,
        }
    return out


def _one_scale(panels: list[list[Curve]]) -> bool:
    """Series of similar sizes share one axes; sizes far apart get a panel each."""
    if len(panels) < 2:
        return True
    peaks = [max((abs(v) for c in p for v in c.y), default=1.0) or 1.0 for p in panels]
    return max(peaks) / min(peaks) <= 4


def _render(
    panels: list[list[Curve]],
    x_name: str,
    y_names: list[str],
    title: str,
    *,
    log_y: list[bool] | None = None,
    residual_name: str = "residual",
) -> tuple[bytes, bytes, dict[str, Any]]:
    """The figure as PDF and PNG, and what it shows (drawing.describe). Names are
    mathtext-ready: "$" escaped where it is text."""
    quiet_matplotlib()  # before any import of matplotlib: it reads the rc then
    from matplotlib.figure import Figure

    curves = [c for p in panels for c in p]
    multiples = len(curves) > MAX_OVERLAID
    texts = [x_name, title, *y_names, *(c.name for c in curves)]
    fonts = ["DejaVu Sans", *(_cjk_fonts() if any(_CJK.search(t) for t in texts) else [])]
    with house_style(fonts):
        if multiples:
            rows = -(-len(curves) // SMALL_COLUMNS)
            size = (7.0, 1.0 + 1.8 * rows)
        else:
            extra = len(panels) - 1 + sum(any(c.fit is not None for c in p) for p in panels)
            size = (6.4, 3.4 + 1.2 * extra)
        fig = Figure(figsize=size, dpi=FIGURE_DPI, layout="constrained")
        draw(
            fig,
            panels,
            x_name=_short_label(x_name, 60, 2),
            y_names=[_short_label(y, 45 if len(panels) == 1 else 24, 3) for y in y_names],
            log_y=log_y,
            small_multiples=multiples,
            residual_name=residual_name,
        )
        fig.suptitle(_short_label(title, 80, 2), fontsize=9)
        drawn = describe(fig)
        pdf, png = pdf_and_png(fig)
    return pdf, png, drawn


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
        f"{', '.join(table_roles(table))}; error bars from uncertainty columns, repeats (type A) "
        f"or resolutions (type B); a straight-line fit (core.analysis.fit, weighted by the "
        f"error bars when every point has one) when R² >= {LINEAR_R2}."
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
