"""The table detector on the messy-sheet corpus (tests/data/messy/make_messy.py).

Every expectation below is written by hand from what the file holds, not
computed by the detector's own code: the tables and their ranges, headers,
units, column roles, statistics, and the cells that are in no table.
"""

from __future__ import annotations

import importlib.util
import math
from pathlib import Path

import pytest

from labwright.core.material.tables import FileTables, Table, column_stats, scan_tables

MAKE = Path(__file__).parent / "data" / "messy" / "make_messy.py"


def _maker():
    spec = importlib.util.spec_from_file_location("make_messy", MAKE)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def messy(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("messy")
    _maker().make(out)
    return out


def _scan(folder: Path, rel: str) -> FileTables:
    found = scan_tables(folder, rel)
    assert found is not None
    return found


def _stat(table: Table, name: str, group: str | None = None) -> dict:
    [s] = [s for s in column_stats(table) if s["name"] == name and s.get("group") == group]
    return s


def test_side_by_side_tables_are_separate_and_whole(messy: Path) -> None:
    found = _scan(messy, "side_by_side.xlsx")
    series, side = found.tables
    # The series runs past row 22, where the side table starts: no row lost, nothing glued.
    assert (series.cell_range(), series.n_rows) == ("A3:C33", 30)
    assert series.columns == ["I (mA)", "Reading (div)", "d Reading"]
    assert series.roles == ["independent", "measured", "uncertainty"]
    assert series.uncertainty_of == {2: 1}
    assert "Calibration run 3" in series.title
    reading = _stat(series, "Reading (div)")
    assert (reading["n"], reading["min"], reading["max"]) == (30, 0.5, 15.02)
    assert reading["mean"] == pytest.approx(7.76)
    # No statistics of the set currents, nor of a constant uncertainty.
    assert [s["name"] for s in column_stats(series)] == ["Reading (div)"]
    assert (side.cell_range(), side.columns, side.roles) == (
        "I22:J25",
        ["R (Ω)", "Q"],
        ["independent", "measured"],
    )
    assert "Resonance" in side.title
    assert _stat(side, "Q")["mean"] == pytest.approx((35.2 + 16.1 + 7.4) / 3)
    # The note under the data is in no table, and says where it is.
    assert found.leftover_ranges() == ["Data!A36"]


def test_count_header_under_a_merged_name_and_a_text_column(messy: Path) -> None:
    [table] = _scan(messy, "absorbers.xlsx").tables
    assert table.cell_range() == "A1:F6"
    assert table.columns == ["Absorber", "Thickness (mm)"] + [
        f"Counts in 60 s {k}" for k in range(1, 5)
    ]
    assert table.roles == ["category", "independent"] + ["measured"] * 4
    assert [row[0] for row in table.labels] == ["Al", "Al", "Poly", "Poly"]
    # Grouped by absorber, never across them; nothing for the thickness set points.
    assert {s.get("group") for s in column_stats(table)} == {"Al", "Poly"}
    assert _stat(table, "Counts in 60 s 1", "Al")["mean"] == 731.0
    assert _stat(table, "Counts in 60 s 1", "Poly")["mean"] == 876.0
    assert not any(s["name"] == "Thickness (mm)" for s in column_stats(table))


def test_units_row_decimal_commas_and_a_summary_row(messy: Path) -> None:
    found = _scan(messy, "units_row.csv")
    [table] = found.tables
    assert table.columns == ["Voltage [V]", "Current [mA]", "Power [mW]"]
    assert table.units == ["V", "mA", "mW"]
    assert table.roles == ["independent", "measured", "measured"]
    assert [row[0] for row in table.rows] == [0.5, 1.0, 1.5, 2.0, 2.5, 3.0]
    assert _stat(table, "Current [mA]")["mean"] == pytest.approx(3.6)
    assert _stat(table, "Power [mW]")["mean"] == pytest.approx(7.7583, abs=2e-3)
    assert found.leftover_ranges() == ["line 9"]  # "Mean;;" is no data row


def test_template_sheet_is_recognised(messy: Path) -> None:
    [table] = _scan(messy, "template.csv").tables
    assert table.template
    assert table.units == ["kHz", "V", "V", "°"]
    assert table.roles == ["independent", "empty", "empty", "empty"]
    assert column_stats(table) == []  # no mean of set points


def test_category_column_groups_the_statistics(messy: Path) -> None:
    [table] = _scan(messy, "densities.csv").tables
    assert table.roles == ["category", "measured", "measured", "measured"]
    stats = column_stats(table)
    assert all("group" in s for s in stats)  # no density averaged over different materials
    assert {s["group"] for s in stats} == {"Al", "Cu", "Brass"}
    assert _stat(table, "rho (g/cm3)", "Al")["mean"] == pytest.approx(2.70, abs=0.01)
    assert _stat(table, "rho (g/cm3)", "Cu")["mean"] == pytest.approx(8.96, abs=0.02)


def test_gbk_csv_with_chinese_headers_and_slash_units(messy: Path) -> None:
    [table] = _scan(messy, "单摆.csv").tables
    assert table.columns == ["摆长/cm", "周期T/s", "误差/s"]
    assert table.names == ["摆长", "周期T", "误差"]
    assert table.units == ["cm", "s", "s"]
    assert table.roles == ["independent", "measured", "uncertainty"]
    assert table.uncertainty_of == {2: 1}
    assert "单摆实验数据" in table.title
    assert _stat(table, "周期T/s")["n"] == 5


def test_stacked_tables_with_titles_and_notes_left_over(messy: Path) -> None:
    found = _scan(messy, "stacked.csv")
    a, b = found.tables
    assert (a.cell_range(), b.cell_range()) == ("lines 2–8", "lines 11–19")
    assert ("Run A" in a.title, "Run B" in b.title) == (True, True)
    assert a.roles == b.roles == ["independent", "measured", "measured"]
    assert found.leftover_ranges() == ["lines 21–22"]


def test_file_series_each_file_one_table(messy: Path) -> None:
    for gain in (1, 2, 5, 10):
        [table] = _scan(messy, f"spectra/gain_{gain:02d}.txt").tables
        assert table.units == ["Hz", "dB"]
        assert table.roles == ["independent", "measured"]
        assert table.n_rows == 10


def test_hundred_thousand_rows_statistics_over_all_rows(tmp_path: Path) -> None:
    _maker().big(tmp_path, rows=100_000)
    [table] = _scan(tmp_path, "tracking.csv").tables
    assert table.n_rows == 100_000 and len(table.rows) == 500  # shown: 500; counted: all
    assert table.roles == ["index", "independent", "measured", "measured", "constant", "constant"]
    assert [s["name"] for s in column_stats(table)] == ["x (m)", "y (m)"]
    x = _stat(table, "x (m)")
    assert x["n"] == 100_000
    # mean of 1.2·k/1000 over k < 10^5 is 1.2 · 49.9995; the wobble averages out
    assert x["mean"] == pytest.approx(1.2 * 49.9995, abs=1e-4)
    assert x["max"] == pytest.approx(1.2 * 99.999, abs=2e-3)
    # the sample for plots spans the whole run, not its first rows
    assert table.sample[-1][1] == pytest.approx(99.9, abs=0.2)


def test_projectile_roles(projectile: Path) -> None:
    found = _scan(projectile, "Data/Projectile motion.xlsx")
    first = found.tables[0]
    roles = dict(zip(first.columns, first.roles, strict=True))
    assert roles["Angle, °"] == roles["Angle, rad."] == "independent"
    assert roles["Angle of 1 ° in rad."] == "constant"
    assert roles["Range, m"] == roles["Height, m"] == "measured"
    assert roles["d range"] == roles["d height"] == "uncertainty"
    assert first.columns[first.uncertainty_of[first.columns.index("d range")]] == "Range, m"
    assert first.units[first.columns.index("Range, m")] == "m"
    # Three launch speeds, three tables of Part A, each with 5 angles.
    part_a = [t for t in found.tables if t.sheet == "Part A "]
    assert [(t.first_row, t.n_rows) for t in part_a] == [(6, 5), (15, 5), (24, 5)]
    assert not any(s["name"].startswith("Angle") for s in column_stats(first))
    # In "Part A (1)" a side table stands beside the main one (F62:G78); its copies are
    # listed as repeats, never glued to the angles.
    side = [t for t in found.tables if t.sheet == "Part A (1)" and min(t.col_numbers) >= 5]
    assert all(max(t.col_numbers) <= 7 for t in side)
    assert math.isclose(first.rows[0][first.columns.index("Range, m")] or 0, 0.485)


# --------------------------------------------------------------------------
# The offline figures use the roles
# --------------------------------------------------------------------------


def _plot(table: Table, tmp: Path, folder: Path) -> dict:
    import json

    from labwright.core.report.offline.plots import plot_table

    made = plot_table(table, tmp / "figures", "fig", folder)
    assert made is not None
    return made | {"meta": json.loads((tmp / "figures" / "fig.json").read_text(encoding="utf-8"))}


def test_calibration_is_fitted_with_error_bars(messy: Path, tmp_path: Path) -> None:
    series = _scan(messy, "side_by_side.xlsx").tables[0]
    made = _plot(series, tmp_path, messy)
    assert made["meta"]["table"]["x"] == "I (mA)" and made["meta"]["table"]["y"] == [
        "Reading (div)"
    ]
    [fit] = made["fits"]
    # Reading = 0.05·I (+ a 0.01 zigzag): the slope and its small uncertainty, R² near 1;
    # weighted by the error bars, so the uncertainty comes from them, not the scatter
    slope = fit["params"]["slope"]
    assert slope["value"] == pytest.approx(0.05, abs=1e-4) and 0 < slope["u"] < 2e-4
    assert fit["weighted"] is True
    assert fit["r2"] > 0.999 and "Straight-line fit of Reading (div)" in made["caption"]


def test_template_and_category_only_tables_are_not_plotted(messy: Path, tmp_path: Path) -> None:
    from labwright.core.report.offline.plots import plot_table

    for rel in ("template.csv", "densities.csv"):
        [table] = _scan(messy, rel).tables
        assert plot_table(table, tmp_path / "figures", "x", messy) is None


def test_trajectory_is_y_against_x_over_the_whole_run(tmp_path: Path) -> None:
    _maker().big(tmp_path, rows=20_000)
    [table] = _scan(tmp_path, "tracking.csv").tables
    made = _plot(table, tmp_path, tmp_path)
    assert made["meta"]["table"]["x"] == "x (m)" and made["meta"]["table"]["y"] == ["y (m)"]
    assert "spread evenly over all 20,000" in made["caption"]


def test_projectile_range_against_angle(projectile: Path, tmp_path: Path) -> None:
    first = _scan(projectile, "Data/Projectile motion.xlsx").tables[0]
    made = _plot(first, tmp_path, projectile)
    assert made["meta"]["table"]["x"] == "Angle, °"
    assert made["meta"]["table"]["y"][0] == "Range, m"
    # never the angle against itself in radians, nor an uncertainty as a series
    assert not any(y.startswith(("Angle", "d ")) for y in made["meta"]["table"]["y"])
