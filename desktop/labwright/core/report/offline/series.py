"""A series of similar files in the skeleton: one table of files and one figure.

31 spectra are not 31 tables: the reader wants each file's key figures side by
side (rows, range of the independent variable, the peak and where it is, the
mean where it means something) and the curves on one set of axes (small multiples
beyond drawing.MAX_OVERLAID). At most MAX_CURVES curves are drawn, evenly spread over
the series, and the caption says how many; at most MAX_SERIES_ROWS files are listed, and the others are
named in a line under the table.
"""

from __future__ import annotations

from pathlib import Path, PurePosixPath
from typing import Any

from labwright.core.analysis import type_b
from labwright.core.material.tables import Series
from labwright.core.report.offline.columns import table_labels
from labwright.core.report.offline.drawing import (
    MAX_OVERLAID,
    SMALL_COLUMNS,
    Curve,
    describe,
    draw,
    wants_log_y,
)
from labwright.core.report.offline.formatting import (
    FLOAT_PLACEMENT,
    _breakable,
    format_stat,
    tex_text,
)
from labwright.core.report.offline.language import _CJK, _TEXT
from labwright.core.report.offline.plots import (
    FIGURE_DPI,
    _cjk_fonts,
    _short,
    figure_record,
    house_style,
    input_record,
    pdf_and_png,
    quiet_matplotlib,
)
from labwright.core.rundir.layout import save_sidecar, write_figure_file
from labwright.core.rundir.records import FigureSidecar, PlottedSeries

MAX_CURVES = 8  # files drawn; beyond drawing.MAX_OVERLAID, as small multiples
MAX_SERIES_ROWS = 40  # files listed in a series' table; the rest are named below it

_WORDS: dict[str, dict[str, str]] = {
    "en": {
        "caption": "Series {pattern}: {n} files of the same table ({header}), one row per file.",
        "file": "File",
        "rows": "rows",
        "range": "{x}: range",
        "peak": "peak of {y}",
        "at": "{x} at the peak",
        "mean": "mean of {y}",
        "more": "… and {n} more files: {names}.",
        "log": "{y} is a level in dB: no mean is given (a mean of dB values is not the level "
        "of the mean).",
        "independent": "{x} is the variable the files share: its range is given, never a mean.",
        "figure": "{y} against {x} for {k} of the {n} files of {pattern}{how}.",
        "all": "{y} against {x} for all {n} files of {pattern}.",
        "spread": " (evenly spread over the series; its table lists every file)",
        "left_out": "Left out",
        "sigma": "Error bars: type B from the resolution ±{res} the header states.",
    },
    "zh": {
        "caption": "文件序列 {pattern}：{n} 个表头相同（{header}）的文件，每行一个文件。",
        "file": "文件",
        "rows": "行数",
        "range": "{x} 范围",
        "peak": "{y} 峰值",
        "at": "峰值处的 {x}",
        "mean": "{y} 平均值",
        "more": "……另有 {n} 个文件：{names}。",
        "log": "{y} 为分贝（dB）值：不给出平均值（dB 值的平均并非平均功率的电平）。",
        "independent": "{x} 是各文件共同的自变量：只给出其范围，不求平均。",
        "figure": "{pattern} 中 {n} 个文件里的 {k} 个：{y} 随 {x} 的变化{how}。",
        "all": "{pattern} 中全部 {n} 个文件：{y} 随 {x} 的变化。",
        "spread": "（在序列中均匀选取；序列的表格列出全部文件）",
        "left_out": "未列出的内容",
        "sigma": "误差棒：由表头所写分度值 ±{res} 得到的 B 类不确定度。",
    },
}


def _range(span: tuple[float, float] | None) -> str:
    if span is None:
        return ""
    return f"{format_stat(span[0])}--{format_stat(span[1])}"


def series_tex(series: Series, index: int, lang: str) -> list[str]:
    """The series as one table of its files (a `tab:series<index>` label)."""
    w = _WORDS[lang]
    # The columns as read (quantity and unit), not as written: "Current (0.001)" states a
    # resolution, not a unit.
    cols = [label.plain for label in table_labels(series.first, siunitx=False)]
    x = cols[series.x] if series.x is not None else None
    y = cols[series.y] if series.y is not None else None
    want_mean = y is not None and not series.logarithmic
    head = [w["file"], w["rows"]]
    if x is not None:
        head.append(w["range"].format(x=x))
    if y is not None:
        head.append(w["peak"].format(y=y))
        if x is not None:
            head.append(w["at"].format(x=x))
    if want_mean:
        head.append(w["mean"].format(y=y))
    header = ", ".join(cols[:5]) + (", …" if len(cols) > 5 else "")
    caption = w["caption"].format(pattern=series.pattern, n=len(series.tables), header=header)
    spec = "@{}>{\\raggedright\\arraybackslash}p{0.28\\linewidth}" + "r" * (len(head) - 1) + "@{}"
    out = [
        f"\\begin{{table}}[{FLOAT_PLACEMENT}]",
        "\\centering",
        "\\footnotesize",
        f"\\caption{{{tex_text(caption)}}}\\label{{tab:series{index}}}",
        f"\\begin{{tabular}}{{{spec}}}",
        "\\toprule",
        " & ".join(_breakable(h) for h in head) + r" \\",
        "\\midrule",
    ]
    curve = dict(zip(series.sources, series.labels, strict=False))
    for f in series.figures[:MAX_SERIES_ROWS]:
        name = PurePosixPath(f.source).name
        label = curve.get(f.source)
        cells = [_breakable(f"{name} ({label})" if label and label not in name else name),
                 str(f.rows)]  # fmt: skip
        if x is not None:
            cells.append(_range(f.x_range))
        if y is not None:
            cells.append(format_stat(f.peak) if f.peak is not None else "")
            if x is not None:
                cells.append(format_stat(f.peak_at) if f.peak_at is not None else "")
        if want_mean:
            cells.append(format_stat(f.mean) if f.mean is not None else "")
        out.append(" & ".join(cells) + r" \\")
    rest = series.figures[MAX_SERIES_ROWS:]
    if rest:
        names = ", ".join(PurePosixPath(f.source).name for f in rest)
        text = tex_text(w["more"].format(n=len(rest), names=names))
        out.append(
            f"\\multicolumn{{{len(head)}}}{{@{{}}p{{0.95\\linewidth}}}}{{\\emph{{{text}}}}} \\\\"
        )
    out += ["\\bottomrule", "\\end{tabular}", "\\end{table}"]
    notes = []
    if y is not None and series.logarithmic:
        notes.append(w["log"].format(y=y))
    if x is not None:
        notes.append(w["independent"].format(x=x))
    first = series.first
    resolutions = [
        f"{name} ±{res:g}" + (f" {unit}" if unit else "")
        for name, unit, res in zip(first.names, first.units, first.resolutions, strict=False)
        if res is not None
    ]
    if resolutions:
        notes.append(_TEXT[lang]["resolution"].format(items="; ".join(resolutions)))
    if notes:
        out.append(f"\\noindent{{\\footnotesize {tex_text(' '.join(notes))}}}\\par")
    out.append("")
    return out


def left_out_tex(lines: list[str], lang: str) -> list[str]:
    """What the skeleton does not show of the data, one item each."""
    if not lines:
        return []
    items = [f"  \\item {tex_text(line)}" for line in lines]
    return [
        f"\\paragraph{{{tex_text(_WORDS[lang]['left_out'])}}}",
        "\\begin{itemize}",
        *items,
        "\\end{itemize}",
        "",
    ]


def drawn(n: int, cap: int = MAX_CURVES) -> list[int]:
    """Indices of the files drawn: all when few, else `cap` evenly spread, first and last in."""
    if n <= cap:
        return list(range(n))
    return sorted({round(k * (n - 1) / (cap - 1)) for k in range(cap)})


def plot_series(
    series: Series, figures_dir: Path, stem: str, folder: Path, lang: str = "en"
) -> dict | None:
    """One overlay plot of the series' measured quantity against its independent variable;
    figures/<stem>.pdf/.png/.json. None when the series has no such pair."""
    if series.x is None or series.y is None:
        return None
    x, y = series.x, series.y
    picks = drawn(len(series.tables))
    curves = []
    for i in picks:
        t = series.tables[i]
        pairs = sorted(
            (xv, yv)
            for row in t.plot_rows()
            if len(row) > max(x, y) and (xv := row[x]) is not None and (yv := row[y]) is not None
        )
        if len(pairs) >= 2:
            label = series.labels[i] if i < len(series.labels) else ""
            curves.append((label or PurePosixPath(t.source).stem, pairs))
    if not curves:
        return None
    w = _WORDS[lang]
    shown = table_labels(series.first, siunitx=False)
    x_name, y_name = shown[x].plain, shown[y].plain
    n = len(series.tables)
    if len(curves) == n:
        caption = w["all"].format(y=y_name, x=x_name, n=n, pattern=series.pattern)
    else:
        caption = w["figure"].format(
            y=y_name, x=x_name, k=len(curves), n=n, pattern=series.pattern, how=w["spread"]
        )
    res = series.first.resolutions[y] if y < len(series.first.resolutions) else None
    sigma = type_b(res) if res else None
    if sigma is not None:
        caption += " " + w["sigma"].format(res=f"{res:g}")
    pdf, png, shown_as = _render(curves, x_name, y_name, series.pattern, sigma)
    # figures/ of the run: written beneath the run folder, never through a link
    pdf_path = write_figure_file(figures_dir, f"{stem}.pdf", pdf)
    png_path = write_figure_file(figures_dir, f"{stem}.png", png)
    meta = _provenance(series, picks, stem, caption, folder)
    meta.shows = shown_as
    save_sidecar(figures_dir, meta)
    return {"filename": stem, "caption": caption, "pdf": str(pdf_path), "png": str(png_path)}


def _render(
    curves: list[tuple[str, list[tuple[float, float]]]],
    x_name: str,
    y_name: str,
    title: str,
    sigma: float | None = None,
) -> tuple[bytes, bytes, dict[str, Any]]:
    """One curve per file on shared axes (drawing.py: markers, or a line for a recorded
    trace), small multiples beyond drawing.MAX_OVERLAID files; `sigma` is every point's
    (type B of the resolution the header states); and what the figure shows."""
    quiet_matplotlib()  # before any import of matplotlib: it reads the rc then
    from matplotlib.figure import Figure

    texts = [x_name, y_name, title, *(name for name, _ in curves)]
    fonts = ["DejaVu Sans", *(_cjk_fonts() if any(_CJK.search(t) for t in texts) else [])]
    shown = [
        Curve(
            _short(name, 30, 1),
            [p[0] for p in pairs],
            [p[1] for p in pairs],
            [sigma] * len(pairs) if sigma is not None else None,
        )
        for name, pairs in curves
    ]
    multiples = len(shown) > MAX_OVERLAID
    with house_style(fonts):
        rows = -(-len(shown) // SMALL_COLUMNS)
        size = (7.0, 1.0 + 1.8 * rows) if multiples else (6.4, 3.8)
        fig = Figure(figsize=size, dpi=FIGURE_DPI, layout="constrained")
        draw(
            fig,
            [shown],
            x_name=_short(x_name, 60, 2),
            y_names=[_short(y_name, 45, 2)],
            log_y=[wants_log_y(shown)],
            small_multiples=multiples,
        )
        fig.suptitle(_short(title, 80, 2), fontsize=9)
        drawn = describe(fig)
        pdf, png = pdf_and_png(fig)
    return pdf, png, drawn


def _provenance(
    series: Series, picks: list[int], stem: str, caption: str, folder: Path
) -> FigureSidecar:
    inputs = [input_record(folder, series.tables[i].source) for i in picks]
    assert series.x is not None and series.y is not None
    x_name, y_name = series.columns[series.x], series.columns[series.y]
    code = (
        "labwright.core.report.offline.series.plot_series (deterministic, no model): "
        f"{len(picks)} of the {len(series.tables)} files of {series.pattern}; "
        f"x = {x_name!r}; y = {y_name!r}; no averaging across files."
    )
    return figure_record(
        stem,
        caption,
        code,
        inputs,
        series=PlottedSeries(
            pattern=series.pattern,
            files=len(series.tables),
            drawn=[series.tables[i].source for i in picks],
            x=x_name,
            y=y_name,
        ),
    )
