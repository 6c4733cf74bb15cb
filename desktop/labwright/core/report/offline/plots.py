"""The offline figures: a numeric table plotted with matplotlib, with its provenance."""

from __future__ import annotations

import hashlib
import io
import math
import re
import textwrap
import warnings
from collections.abc import Sequence
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from labwright.core.material.tables import Table
from labwright.core.material.workspace import PathDenied, resolve_in_folder
from labwright.core.report.offline.language import _CJK
from labwright.core.rundir.store import atomic_write_bytes, atomic_write_json

MAX_Y_SERIES = 4


# --------------------------------------------------------------------------
# Figures
# --------------------------------------------------------------------------

_UNCERTAINTY_NAME = re.compile(
    r"^(?:d|δ|Δ|delta|err|error|sigma|σ|u)\s|uncertaint|误差|不确定", re.IGNORECASE
)


def _column(table: Table, j: int) -> list[float | None]:
    return [row[j] if j < len(row) else None for row in table.rows]


def _pairs(xs: Sequence[float | None], ys: Sequence[float | None]) -> list[tuple[float, float]]:
    return sorted((x, y) for x, y in zip(xs, ys, strict=False) if x is not None and y is not None)


def _exactly_linear(pairs: list[tuple[float, float]]) -> bool:
    """y = a·x + b to rounding error, like an angle in degrees next to it in radians."""
    if len(pairs) < 3:
        return False
    xs, ys = [p[0] for p in pairs], [p[1] for p in pairs]
    mx, my = math.fsum(xs) / len(xs), math.fsum(ys) / len(ys)
    sxx = math.fsum((x - mx) ** 2 for x in xs)
    syy = math.fsum((y - my) ** 2 for y in ys)
    sxy = math.fsum((x - mx) * (y - my) for x, y in pairs)
    if sxx == 0 or syy == 0:
        return False
    return abs(sxy) / math.sqrt(sxx * syy) > 1 - 1e-9


def _choose_axes(table: Table) -> tuple[int, list[int]] | None:
    """(x column, y columns) to plot, or None when the table has nothing to plot.

    x is the first column with two distinct values. y prefers columns that vary,
    are not an uncertainty ("d range", "Δt") and are not just x in other units.
    """
    n = len(table.columns)
    x = next(
        (j for j in range(n) if len({v for v in _column(table, j) if v is not None}) >= 2), None
    )
    if x is None:
        return None
    xs = _column(table, x)
    usable = [j for j in range(n) if j != x and len(_pairs(xs, _column(table, j))) >= 2]
    preferred = [
        j
        for j in usable
        if len({p[1] for p in _pairs(xs, _column(table, j))}) >= 2
        and not _UNCERTAINTY_NAME.search(table.columns[j])
        and not _exactly_linear(_pairs(xs, _column(table, j)))
    ]
    ys = (preferred or usable)[:MAX_Y_SERIES]
    return (x, ys) if ys else None


def _cjk_fonts() -> list[str]:
    """Installed CJK font families matplotlib can fall back to for Chinese headers."""
    from matplotlib import font_manager

    names = sorted({f.name for f in font_manager.fontManager.ttflist})
    wanted = ("Noto Sans CJK SC", "Noto Serif CJK SC", "WenQuanYi Zen Hei", "SimHei",
              "Microsoft YaHei", "PingFang SC", "Source Han Sans SC")  # fmt: skip
    found = [n for n in wanted if n in names]
    return found or [n for n in names if "CJK" in n][:1]


def _short(text: str, width: int, lines: int) -> str:
    """Wrapped for a figure, with "$" escaped: matplotlib reads $...$ as mathtext,
    and a header like "$\\f{g}$" would make the figure fail to draw."""
    wrapped = "\n".join(textwrap.wrap(text, width, max_lines=lines, placeholder=" …"))
    return wrapped.replace("$", r"\$")


def plot_table(table: Table, figures_dir: Path, stem: str, folder: Path) -> dict | None:
    """Plot a table with matplotlib, in process; save figures/<stem>.pdf/.png/.json.

    The first column with two distinct values is x; up to 4 further columns
    are y (markers and lines, sorted by x). Series of very different sizes
    get a panel each so none is flattened. Returns {"filename", "caption",
    "pdf", "png"}, or None when the table has fewer than 2 rows or nothing to
    plot against x.
    """
    if len(table.rows) < 2 or len(table.columns) < 2:
        return None
    axes = _choose_axes(table)
    if axes is None:
        return None
    x, ys = axes
    xs = _column(table, x)
    series = [(table.columns[j], _pairs(xs, _column(table, j))) for j in ys]
    x_name = table.columns[x]
    caption = f"{'; '.join(name for name, _ in series)} against {x_name}. Data: {table.title}."
    pdf, png = _render(series, x_name, table.title)
    figures_dir.mkdir(parents=True, exist_ok=True)
    pdf_path, png_path = figures_dir / f"{stem}.pdf", figures_dir / f"{stem}.png"
    atomic_write_bytes(pdf_path, pdf)
    atomic_write_bytes(png_path, png)
    atomic_write_json(
        figures_dir / f"{stem}.json", _provenance(table, stem, caption, x, ys, folder)
    )
    return {"filename": stem, "caption": caption, "pdf": str(pdf_path), "png": str(png_path)}


def _render(
    series: list[tuple[str, list[tuple[float, float]]]], x_name: str, title: str
) -> tuple[bytes, bytes]:
    import matplotlib
    from matplotlib.figure import Figure

    # Sizes far apart would flatten the small series: then one panel each.
    peaks = [max(abs(y) for _, y in pairs) or 1.0 for _, pairs in series]
    panels = len(series) if max(peaks) / min(peaks) > 4 else 1
    # A CJK fallback only when needed: embedding (a subset of) a CJK font costs
    # a second per figure even when no glyph of it is used.
    texts = [x_name, title, *(name for name, _ in series)]
    fonts = ["DejaVu Sans", *(_cjk_fonts() if any(_CJK.search(t) for t in texts) else [])]
    # A user's matplotlibrc may say usetex. (A literal in the call: matplotlib types its keys.)
    with (
        matplotlib.rc_context({"font.family": fonts, "text.usetex": False}),
        warnings.catch_warnings(),
    ):
        # A header in a script no installed font covers prints as boxes; the
        # figure is still right, so that warning only is silenced.
        warnings.filterwarnings("ignore", message=r"Glyph \d+ .*missing from", category=UserWarning)
        fig = Figure(figsize=(6.4, 3.4 + 1.2 * (panels - 1)), layout="constrained")
        grid = fig.subplots(panels, 1, sharex=True, squeeze=False)[:, 0]
        for i, (name, pairs) in enumerate(series):
            ax = grid[i if panels > 1 else 0]
            xs = [p[0] for p in pairs]
            # Repeated x values (runs of one setting) make a line zigzag: markers only.
            line = "-" if len(set(xs)) == len(xs) else "none"
            ax.plot(xs, [p[1] for p in pairs], marker="o", ms=4, lw=1.2, ls=line,
                    label=_short(name, 40, 2))  # fmt: skip
            if panels > 1:
                ax.set_ylabel(_short(name, 24, 3), fontsize=8)
        if panels == 1:
            names = [name for name, _ in series]
            grid[0].set_ylabel(_short("; ".join(names), 45, 3), fontsize=9)
            if len(series) > 1:
                grid[0].legend(fontsize=8)
        for ax in grid:
            ax.grid(True, alpha=0.3)
        grid[-1].set_xlabel(_short(x_name, 60, 2))
        fig.suptitle(_short(title, 80, 2), fontsize=9)
        # Lay out once, then freeze: otherwise each of the two saves lays out again.
        fig.draw_without_rendering()
        fig.set_layout_engine("none")
        out = []
        for fmt, meta in (("pdf", {"CreationDate": None}), ("png", {})):
            buf = io.BytesIO()
            fig.savefig(buf, format=fmt, dpi=150, metadata=meta)
            out.append(buf.getvalue())
    return out[0], out[1]


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _provenance(
    table: Table, stem: str, caption: str, x: int, ys: list[int], folder: Path
) -> dict[str, Any]:
    """The same fields the sandbox writes for a model's figure, plus the table's location."""
    import matplotlib

    inputs = []
    try:
        path = resolve_in_folder(folder, table.source)
        inputs.append({"path": table.source, "sha256": _sha256(path), "bytes": path.stat().st_size})
    except (PathDenied, OSError):
        inputs.append({"path": table.source, "sha256": None, "bytes": None})
    where = f"sheet {table.sheet!r}, " if table.sheet is not None else ""
    code = (
        f"labwright.core.report.offline.plot_table (deterministic, no model): {table.source}, {where}"
        f"rows {table.first_row}-{table.last_row}; x = {table.columns[x]!r}; "
        f"y = {', '.join(repr(table.columns[j]) for j in ys)}; markers and lines, sorted by x."
    )
    return {
        "filename": stem,
        "caption": caption,
        "code": code,
        "inputs": inputs,
        "files": [f"{stem}.pdf", f"{stem}.png"],
        "figures": 1,
        "created": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "matplotlib": matplotlib.__version__,
        "table": {
            "source": table.source,
            "sheet": table.sheet,
            "first_row": table.first_row,
            "last_row": table.last_row,
            "x": table.columns[x],
            "y": [table.columns[j] for j in ys],
        },
    }
