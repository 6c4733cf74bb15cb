"""The offline figures are the ones a physicist draws: one rule per test, on small data.

Each test reads a small CSV through the real table detector, draws it with plot_table (or
a series with plot_series) and asserts on what the saved figure shows: its sidecar's
"shows" record, read back from the matplotlib artists (drawing.describe), and its
"fits"/"stdout". Never on pixels. Each rule has its positive control: data for which the
opposite must be drawn, so the check would see the rule broken.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from labwright.core.material.tables import Table, collect_data, extract_tables
from labwright.core.report.offline import plot_item, plot_table

H = 6.62607015e-34
E = 1.602176634e-19


def _write(folder: Path, name: str, text: str) -> str:
    (folder / name).parent.mkdir(parents=True, exist_ok=True)
    (folder / name).write_text(text, encoding="utf-8")
    return name


def _csv(header: str, rows: list[tuple[float, ...]]) -> str:
    return header + "\n" + "\n".join(",".join(f"{v:.6g}" for v in r) for r in rows) + "\n"


def _table(tmp_path: Path, text: str, name: str = "data.csv") -> Table:
    folder = tmp_path / "material"
    [table] = extract_tables(folder, [_write(folder, name, text)])
    return table


def _plot(tmp_path: Path, table: Table, stem: str = "fig", **kw: Any) -> tuple[dict, dict]:
    made = plot_table(table, tmp_path / "run" / "figures", stem, tmp_path / "material", **kw)
    assert made is not None
    meta = json.loads((tmp_path / "run" / "figures" / f"{stem}.json").read_text("utf-8"))
    return made, meta


def _data_axes(meta: dict) -> list[dict]:
    return [a for a in meta["shows"]["axes"] if a["role"] == "data"]


def _curves(meta: dict) -> list[dict]:
    return [c for a in _data_axes(meta) for c in a["curves"]]


# -- measured points are markers, never joined ------------------------------------------------


def test_measured_points_are_markers_never_joined(tmp_path: Path) -> None:
    # A resonance: a peak, no straight line through it.
    rows = [
        (f, 1 / math.sqrt(1 + 4 * (f / 4.5 - 4.5 / f) ** 2)) for f in (2, 3, 3.5, 4, 4.5, 5, 6, 8)
    ]
    _, meta = _plot(tmp_path, _table(tmp_path, _csv("f (kHz),V (V)", rows)))
    [curve] = _curves(meta)
    assert curve["points"] == 8 and curve["marker"] == "o"
    assert curve["joined"] is False  # before: ls="-" whenever x had no repeat and no fit
    assert meta["shows"]["axes"][0]["fits"] == []  # a peak is no straight line


def test_positive_control_a_recorded_trace_is_a_line(tmp_path: Path) -> None:
    rows = [(t * 1e-4, math.sin(t / 20)) for t in range(400)]
    _, meta = _plot(tmp_path, _table(tmp_path, _csv("t (s),U (V)", rows)))
    [curve] = _curves(meta)
    assert curve["joined"] is True and curve["marker"] == ""  # 400 samples: a trace


# -- error bars when σ is known -----------------------------------------------------------------


def test_error_bars_from_an_uncertainty_column(tmp_path: Path) -> None:
    rows = [(1, 2.0, 0.1), (2, 4.5, 0.1), (3, 5.1, 0.2), (4, 9.0, 0.2), (5, 9.2, 0.3)]
    made, meta = _plot(tmp_path, _table(tmp_path, _csv("U (V),I (mA),dI (mA)", rows)))
    [curve] = _curves(meta)
    assert curve["error_bars"] is True
    assert "dI" in made["caption"]


def test_error_bars_from_repeats_are_type_a(tmp_path: Path) -> None:
    rows = []
    for v in (10, 20, 30, 40, 50, 60):
        n = (v * 20 + 3, v * 20 - 5, v * 20 + 2 + v % 7)  # counts at each voltage
        rows.append((v, *n, round(sum(n) / 3, 2)))
    made, meta = _plot(tmp_path, _table(tmp_path, _csv("U (V),n1,n2,n3,n mean", rows)))
    [curve] = _curves(meta)
    assert curve["error_bars"] is True and curve["label"].startswith("n mean")
    assert "type A from the repeats n1 … n3" in made["caption"]
    assert len(_curves(meta)) == 1  # the repeats themselves are not drawn


def test_error_bars_from_the_resolution_are_type_b(tmp_path: Path) -> None:
    rows = [(1, 0.31), (2, 0.95), (3, 2.2), (4, 3.9), (5, 6.1)]
    made, meta = _plot(tmp_path, _table(tmp_path, _csv("t (s),Voltage (±0.1 V)", rows)))
    [curve] = _curves(meta)
    assert curve["error_bars"] is True
    assert "type B from the resolution ±0.1" in made["caption"]


def test_positive_control_no_sigma_no_error_bars(tmp_path: Path) -> None:
    rows = [(1, 0.31), (2, 0.95), (3, 2.2), (4, 3.9), (5, 6.1)]
    made, meta = _plot(tmp_path, _table(tmp_path, _csv("t (s),U (V)", rows)))
    [curve] = _curves(meta)
    assert curve["error_bars"] is False and "error bars" not in made["caption"].lower()


# -- the fitted line with its equation, and a residual panel -----------------------------------


def test_a_straight_line_is_fitted_with_its_equation_and_residuals(tmp_path: Path) -> None:
    noise = (0.03, -0.05, 0.02, 0.04, -0.03, -0.01)
    rows = [(x, 2.5 * x + 1.0 + e) for x, e in zip(range(1, 7), noise, strict=True)]
    made, meta = _plot(tmp_path, _table(tmp_path, _csv("x (m),y (N)", rows)))
    roles = [a["role"] for a in meta["shows"]["axes"]]
    assert roles == ["data", "residuals"]  # the residual panel beneath
    [fit_label] = meta["shows"]["axes"][0]["fits"]
    assert "±" in fit_label or "\\pm" in fit_label  # the equation with value ± u
    assert meta["shows"]["axes"][1]["curves"][0]["points"] == 6
    [record] = meta["fits"]
    slope = record["params"]["slope"]
    assert slope["value"] == pytest.approx(2.5, abs=0.03) and 0 < slope["u"] < 0.05
    # the report states it in siunitx, the sidecar prints it for verify
    [statement] = made["fits_tex"]
    assert "\\SI{2.4" in statement or "\\SI{2.5" in statement
    assert "slope = 2.4" in meta["stdout"] or "slope = 2.5" in meta["stdout"]


def test_positive_control_a_curve_is_not_fitted_with_a_line(tmp_path: Path) -> None:
    # T = 2π√(L/g): R² = 0.99 against L, but the points bend: no line, no residual panel.
    rows = [
        (length, 2 * math.pi * math.sqrt(length / 9.81))
        for length in (0.2, 0.4, 0.6, 0.8, 1.0, 1.2)
    ]
    _, meta = _plot(tmp_path, _table(tmp_path, _csv("L (m),T (s)", rows)))
    assert [a["role"] for a in meta["shows"]["axes"]] == ["data"]
    assert "fits" not in meta and "stdout" not in meta


def test_stopping_voltage_against_frequency_gives_plancks_constant(tmp_path: Path) -> None:
    nu = [5.196, 5.490, 6.879, 7.408, 8.214]  # 10^14 Hz
    noise = [0.004, -0.006, 0.003, 0.005, -0.004]
    rows = [(n, H / E * n * 1e14 - 1.75 + e) for n, e in zip(nu, noise, strict=True)]
    made, meta = _plot(tmp_path, _table(tmp_path, _csv("ν (10^14 Hz),U0 (V)", rows)))
    [record] = meta["fits"]
    constant = record["constant"]
    assert constant["symbol"] == "h" and constant["value"] == pytest.approx(H, rel=0.02)
    assert constant["percent_difference"] == pytest.approx(
        abs(constant["value"] - H) / H * 100, rel=1e-9
    )
    [statement] = made["fits_tex"]
    assert "Planck's constant" in statement and "\\SI{6." in statement
    assert "\\joule\\second" in statement and "from the accepted" in statement
    assert "h = e·slope = 6." in meta["stdout"]


# -- log axes when the data ask ---------------------------------------------------------------


def test_a_decay_is_drawn_on_a_log_axis_and_fitted_as_ln_y(tmp_path: Path) -> None:
    wobble = (1.02, 0.97, 1.03, 0.99, 1.01, 0.98, 1.0)
    rows = [
        (x, 1000 * math.exp(-x / 80) * w) for x, w in zip(range(0, 700, 100), wobble, strict=True)
    ]
    made, meta = _plot(tmp_path, _table(tmp_path, _csv("X (mg/cm^2),R (1/s)", rows)))
    assert _data_axes(meta)[0]["yscale"] == "log"
    assert meta["shows"]["axes"][-1]["xlabel"].endswith("(mg/cm²)")  # a raised power, no
    # mathtext: it would set a Chinese name beside it in fonts without CJK
    [record] = meta["fits"]
    assert record["model"] == "ln y linear in x"
    assert record["params"]["slope"]["value"] == pytest.approx(-1 / 80, rel=0.05)


def test_positive_control_a_line_keeps_a_linear_axis(tmp_path: Path) -> None:
    rows = [(x, 5 + 300 * x + (-1) ** x) for x in range(7)]  # spans 5 to 1805, but straight
    _, meta = _plot(tmp_path, _table(tmp_path, _csv("t (s),s (m)", rows)))
    assert _data_axes(meta)[0]["yscale"] == "linear"


# -- axes as quantity (unit), one curve per series with a legend -------------------------------


def test_axes_are_quantity_unit_and_each_series_is_in_the_legend(tmp_path: Path) -> None:
    rows = [(t, 1.0 + 0.1 * t**2, 1.2 + 0.08 * t**2) for t in range(6)]
    _, meta = _plot(tmp_path, _table(tmp_path, _csv("t (s),x1 (m),x2 (m)", rows)))
    [axes] = _data_axes(meta)
    assert [c["label"] for c in axes["curves"]] == ["x1 (m)", "x2 (m)"]
    assert axes["legend"][:1] == ["x1 (m)"] and "x2 (m)" in axes["legend"]
    assert meta["shows"]["axes"][-1]["xlabel"] == "$t$ (s)"  # the symbol in mathtext


# -- small multiples beyond six curves ----------------------------------------------------------


def _series_folder(tmp_path: Path, n: int) -> Path:
    folder = tmp_path / f"traces{n}"
    for k in range(n):
        rows = [(t, math.exp(-t / (5 + k)) * (1 + 0.01 * k)) for t in range(12)]
        _write(folder, f"run_{k:02d}.csv", _csv("t (ms),U (V)", rows))
    return folder


@pytest.mark.parametrize(("files", "panels"), [(8, 8), (5, 1)])
def test_more_than_six_curves_are_small_multiples(tmp_path: Path, files: int, panels: int) -> None:
    folder = _series_folder(tmp_path, files)
    [series] = collect_data(folder, sorted(p.name for p in folder.iterdir())).series
    made = plot_item(series, tmp_path / "run" / "figures", "s", folder)
    assert made is not None
    meta = json.loads((tmp_path / "run" / "figures" / "s.json").read_text("utf-8"))
    axes = _data_axes(meta)
    assert len(axes) == panels  # 8 curves: one panel each; 5: one axes (the control)
    assert sum(len(a["curves"]) for a in axes) == files
    assert all(not c["joined"] for a in axes for c in a["curves"])


# -- never a column against itself --------------------------------------------------------------


def test_never_a_column_against_itself(tmp_path: Path) -> None:
    # The quantity of x again: a copy beside the data for a chart, the x in mV, and a
    # second run's V (repeated (V, I) pairs) — "V (V) against V (V)" was the complaint.
    rows = [(v, v, v * 1000, 0.5 * v**2 + 0.1, v**1.3 + 0.2) for v in (1, 2, 3, 4, 5)]
    table = _table(tmp_path, _csv("V (V),V (V),V (mV),I (A),V (V)", rows))
    made, meta = _plot(tmp_path, table)
    assert meta["table"]["y"] == ["I (A)"]
    for axes in meta["shows"]["axes"]:
        assert not axes["ylabel"].startswith("V")
    assert "against" in made["caption"] and not made["caption"].startswith("V")


def test_x_is_the_meter_reading_of_the_setting(tmp_path: Path) -> None:
    # The supply's setting and the voltmeter's reading of it: I is drawn against the reading.
    rows = [(s, 0.93 * s + 0.05 * (s % 3), 0.001 * np.exp(s / 3)) for s in range(1, 11)]
    made, meta = _plot(tmp_path, _table(tmp_path, _csv("supply (V),U measured (V),I (mA)", rows)))
    assert meta["table"]["x"] == "U measured (V)" and meta["table"]["y"] == ["I (mA)"]
