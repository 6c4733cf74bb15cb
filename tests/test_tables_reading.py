"""The reading rules of core/material/tables, one small file each (see docs/how-it-works.md).

Summaries by value and by label, stated values, what is left out and why (templates,
files marked bad, copies, an instrument's settings), families of curves, tables written
sideways, resolutions in headers, units a name's suffix may not give, digits kept.
The corpus tests (tests/corpus/) check the same rules on real course folders.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from labwright.core.material.evidence import header_unit
from labwright.core.material.tables import (
    FileTables,
    Table,
    collect_data,
    column_stats,
    scan_tables,
)
from labwright.core.material.tables.outline import outline
from labwright.core.material.tables.roles import assign_roles, parse_header, split_unit
from labwright.core.material.tables.screen import marked
from labwright.core.material.workspace import scan_folder
from labwright.core.report.offline import offline_report
from labwright.core.report.offline.columns import column_label
from labwright.core.report.offline.formatting import format_stat
from labwright.core.report.offline.plots import _curves
from labwright.core.report.templates import load_template


def _xlsx(path: Path, cells: dict[str, object], merges: tuple[str, ...] = ()) -> Path:
    import openpyxl

    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "Sheet1"
    for where, value in cells.items():
        ws[where] = value
    for merge in merges:
        ws.merge_cells(merge)
    wb.save(path)
    return path


def _scan(folder: Path, name: str) -> FileTables:
    found = scan_tables(folder, name)
    assert found is not None
    return found


def _stat(table: Table, name: str, group: str | None = None) -> dict:
    [s] = [s for s in column_stats(table) if s["name"] == name and s.get("group") == group]
    return s


def _rows(cells: dict[str, object], top: int, columns: str, rows: list[list[object]]) -> None:
    for i, row in enumerate(rows):
        for letter, value in zip(columns, row, strict=True):
            if value is not None:
                cells[f"{letter}{top + i}"] = value


# --------------------------------------------------------------------------
# Summaries
# --------------------------------------------------------------------------

RATES = [40.9, 39.5, 39.7, 40.3, 38.8]


def _counting_sheet(tmp_path: Path) -> Path:
    """Five count rates, then (as students write it) their sum under the column, its mean
    with a label beside it, the sum of another column off to the right, and a block of
    "average sd / overall sd" beside the end."""
    cells: dict[str, object] = {"A1": "n", "B1": "N", "C1": "Rate", "D1": "sd"}
    _rows(cells, 2, "ABCD", [[k + 1, 30 * r, r, (r / 30) ** 0.5] for k, r in enumerate(RATES)])
    cells["F6"] = sum((r / 30) ** 0.5 for r in RATES)  # a lone total, unlabelled
    cells["C7"] = sum(RATES)
    cells["C8"], cells["D8"] = sum(RATES) / 5, "ave rate"
    cells["H7"], cells["I7"] = "average sd", "overall sd"
    cells["H8"], cells["I8"] = sum((r / 30) ** 0.5 for r in RATES) / 5, 1.1414
    return _xlsx(tmp_path / "counts.xlsx", cells)


def test_totals_and_means_under_a_table_are_summaries_never_rows(tmp_path: Path) -> None:
    _counting_sheet(tmp_path)
    found = _scan(tmp_path, "counts.xlsx")
    [table] = found.tables
    assert (table.cell_range(), table.n_rows) == ("A1:D6", 5)
    rate = _stat(table, "Rate")
    assert (rate["n"], rate["mean"]) == (5, pytest.approx(sum(RATES) / 5))
    cells = {x.cell: (x.label, x.kind, x.of) for x in table.summaries}
    assert cells == {
        "C7": (None, "sum", "Rate"),
        "C8": ("ave rate", "mean", "Rate"),
        "F6": (None, "sum", "sd"),
        "H8": ("average sd", "mean", "sd"),
        "I8": ("overall sd", "summary", None),
    }
    assert found.leftover_ranges() == []  # every cell is in the table or one of its summaries


def test_a_full_last_row_equal_to_the_mean_is_still_a_row(tmp_path: Path) -> None:
    # Positive control: a data row filled like the others is data, whatever its value.
    (tmp_path / "xy.csv").write_text("x,y\n1,2\n2,4\n3,3\n", encoding="utf-8")
    [table] = _scan(tmp_path, "xy.csv").tables
    assert table.n_rows == 3 and table.summaries == []


def test_a_labelled_mean_row_in_a_text_column_is_a_summary(tmp_path: Path) -> None:
    (tmp_path / "m.csv").write_text(
        "Material,m (g)\nAl,10.0\nAl,12.0\nCu,30.0\nMean,17.33\n", encoding="utf-8"
    )
    [table] = _scan(tmp_path, "m.csv").tables
    assert table.n_rows == 3
    assert [(x.label, x.kind, x.cell) for x in table.summaries] == [("Mean", "mean", "line 5")]
    assert {s.get("group") for s in column_stats(table)} == {"Al", "Cu"}  # no "Mean" group


# --------------------------------------------------------------------------
# Headers: repeated counts, resolutions, units
# --------------------------------------------------------------------------


def test_a_count_header_that_starts_again_under_each_group(tmp_path: Path) -> None:
    cells: dict[str, object] = {
        "A1": "supply (V)",
        "B1": "Voltage (±0.1 V)",
        "F1": "Current (±0.01 mA)",
    }
    cells |= {f"{c}2": v for c, v in zip("BCDEFGHI", [1, 2, 3, "Average"] * 2, strict=True)}
    _rows(cells, 3, "ABCDEFGHI",
          [[s, s - 0.1, s, s + 0.1, s, 2 * s, 2 * s + 0.03, 2 * s - 0.03, 2 * s] for s in (1, 2, 3)])  # fmt: skip
    _xlsx(tmp_path / "fh.xlsx", cells, merges=("A1:A2", "B1:E1", "F1:I1"))
    [table] = _scan(tmp_path, "fh.xlsx").tables
    assert table.cell_range() == "A1:I5"
    assert table.names == ["supply", "Voltage 1", "Voltage 2", "Voltage 3", "Voltage Average",
                           "Current 1", "Current 2", "Current 3", "Current Average"]  # fmt: skip
    assert table.units == ["V"] * 5 + ["mA"] * 4
    assert table.resolutions == [None] + [0.1] * 4 + [0.01] * 4
    assert table.roles[1:] == ["measured"] * 8  # a "±" in a header is no uncertainty column
    assert {j: (r.kind, r.of) for j, r in table.row_summaries.items()} == {
        4: ("mean", (1, 2, 3)), 8: ("mean", (5, 6, 7)),
    }  # fmt: skip


def test_a_number_in_brackets_is_a_resolution_not_a_unit(tmp_path: Path) -> None:
    (tmp_path / "em.txt").write_text(
        "Current (0.001),Voltage (0.1),Diameter (0.1)\n1.755,150.3,12\n1.807,150.3,11\n",
        encoding="utf-8",
    )
    [table] = _scan(tmp_path, "em.txt").tables
    assert (table.names, table.units) == (["Current", "Voltage", "Diameter"], [None] * 3)
    assert table.resolutions == [0.001, 0.1, 0.1]
    assert parse_header("Range (2 mm)").resolution is None  # a width, not "±2 mm"
    assert parse_header("f (10^14Hz)").unit == "10^14Hz"  # a scaled unit, no resolution


def test_a_suffix_is_a_unit_only_when_the_quantity_can_have_it() -> None:
    assert split_unit("area_m") == ("area_m", None)
    assert split_unit("density_kg_m") == ("density_kg_m", None)
    assert split_unit("length_m") == ("length", "m")  # positive control
    assert split_unit("t10_run1_s") == ("t10_run1", "s")  # no quantity word: kept
    assert header_unit("area_m") is None and header_unit("volume_m") is None
    assert header_unit("length_m") is not None and header_unit("area_m2") is None
    assert column_label("area_m").plain == "area_m"  # not "area (m)"
    assert column_label("density_kg_m").plain == "density_kg_m"


def test_u_of_is_an_uncertainty_only_of_a_column_the_table_has() -> None:
    roles, of = assign_roles(["U(Vpp)", "f"], ["V", "kHz"], [[2.0, 2.0, 2.1], [1.0, 2.0, 3.0]],
                             [False, False])  # fmt: skip
    assert roles[0] != "uncertainty"
    roles, of = assign_roles(["d", "u(d)"], ["mm", "mm"], [[1.0, 2.0, 3.0], [0.1, 0.1, 0.2]],
                             [False, False])  # fmt: skip
    assert roles[1] == "uncertainty" and of == {1: 0}


# --------------------------------------------------------------------------
# Tables written sideways, families of curves
# --------------------------------------------------------------------------


def test_a_transposed_table_with_a_count_row_and_an_average_column(tmp_path: Path) -> None:
    cells: dict[str, object] = {"A1": "横梁的几何尺寸", "A3": "测量次数", "H3": "平均值"}
    cells |= {f"{c}3": str(k + 1) for k, c in enumerate("BCDEFG")}
    widths = ["23.50", "23.46", "23.44", "23.44", "23.48", "23.52"]
    cells |= {"A4": "宽度b/mm", **{f"{c}4": w for c, w in zip("BCDEFG", widths, strict=True)}}
    cells |= {"A5": "厚度a/mm", **{f"{c}5": f"0.98{k}" for k, c in enumerate("BCDEFG")}}
    cells["H4"], cells["H5"] = "   23.4733", "0.9825"
    _xlsx(tmp_path / "y.xlsx", cells)
    [table] = _scan(tmp_path, "y.xlsx").tables
    assert table.transposed and table.cell_range() == "A3:H5"
    assert (table.names, table.units) == (["测量次数", "宽度b", "厚度a"], [None, "mm", "mm"])
    assert table.n_rows == 6 and table.row_names == ["B", "C", "D", "E", "F", "G"]
    assert [w[1] for w in table.written] == widths  # "23.50" keeps its 0
    assert [(x.cell, x.label, x.kind) for x in table.summaries] == [
        ("H4", "平均值", "mean"), ("H5", "平均值", "mean")]  # fmt: skip
    assert _stat(table, "宽度b/mm")["n"] == 6  # the average is no seventh reading
    assert table.context == ["横梁的几何尺寸"]


def test_a_transposed_table_without_a_count_row(tmp_path: Path) -> None:
    cells: dict[str, object] = {"A1": "t (s)", "A2": "x (m)"}
    cells |= {f"{c}1": k * 0.1 for k, c in enumerate("BCDE")}
    cells |= {f"{c}2": 0.5 * k for k, c in enumerate("BCDE")}
    _xlsx(tmp_path / "t.xlsx", cells)
    [table] = _scan(tmp_path, "t.xlsx").tables
    assert table.transposed and table.names == ["t", "x"] and table.n_rows == 4


def test_an_upright_table_with_a_text_column_is_not_transposed(tmp_path: Path) -> None:
    # Positive control: names in the first column, a header above: rows are rows.
    (tmp_path / "d.csv").write_text(
        "Material,m (g),V (cm3)\nAl,10.1,3.74\nCu,30.5,3.40\nBrass,25.5,3.0\n", encoding="utf-8"
    )
    [table] = _scan(tmp_path, "d.csv").tables
    assert not table.transposed and table.names == ["Material", "m", "V"]


def test_blocks_labelled_one_under_another_are_one_family(tmp_path: Path) -> None:
    cells: dict[str, object] = {"A1": "不同频率下的伏安特性曲线"}
    top = 2
    for k, wavelength in enumerate((365, 405)):
        cells[f"A{top}"], cells[f"B{top}"], cells[f"C{top}"] = k + 1, "λ(nm)=", wavelength
        cells[f"A{top + 1}"], cells[f"A{top + 2}"], cells[f"A{top + 3}"] = "序号", "U(V)", "I(μA)"
        for j, c in enumerate("BCDE"):
            cells[f"{c}{top + 1}"], cells[f"{c}{top + 2}"] = j + 1, 5 * j
            cells[f"{c}{top + 3}"] = (k + 1) * (j + 0.5)
        top += 4
    _xlsx(tmp_path / "iv.xlsx", cells)
    found = _scan(tmp_path, "iv.xlsx")
    [table] = found.tables
    assert table.family is not None
    assert (table.family.label, table.family.unit, table.family.labels) == (
        "λ",
        "nm",
        ["365", "405"],
    )
    assert table.names == ["λ", "序号", "U", "I"] and table.n_rows == 8
    assert _stat(table, "I(μA)", "405")["max"] == 7.0
    assert found.stated == []  # "λ(nm)= 365" labels a curve: no stated value
    groups = _curves(table, "I")
    assert [name for _, name in groups] == ["λ = 365 nm", "λ = 405 nm"]
    assert [len(rows) for rows, _ in groups] == [4, 4]


def test_pairs_side_by_side_are_one_family_and_plotted_curve_by_curve(tmp_path: Path) -> None:
    cells: dict[str, object] = {"A1": "R=10", "D1": "R=20"}
    for left in ("A", "D"):
        right = chr(ord(left) + 1)
        cells[f"{left}2"], cells[f"{right}2"] = "f (kHz)", "V (V)"
        for k in range(5):
            cells[f"{left}{3 + k}"] = 1 + k
            cells[f"{right}{3 + k}"] = (k + 1) * (2 if left == "A" else 3)
    _xlsx(tmp_path / "rlc.xlsx", cells)
    [table] = _scan(tmp_path, "rlc.xlsx").tables
    assert table.family is not None and table.family.labels == ["10", "20"]
    assert (table.columns, table.n_rows) == (["R", "f (kHz)", "V (V)"], 10)
    assert _stat(table, "V (V)", "20")["max"] == 15
    made = offline_report(tmp_path, scan_folder(tmp_path), load_template("lab-en"),
                          tmp_path / "run" / "figures")  # fmt: skip
    [figure] = made.figures
    meta = json.loads((tmp_path / "run" / "figures" / f"{figure.filename}.json").read_text())
    assert meta["table"]["y"] == ["V (V)"]  # one quantity, one curve per R: never V against V
    assert [name for _, name in _curves(table, "V")] == ["R = 10", "R = 20"]


# --------------------------------------------------------------------------
# Stated values
# --------------------------------------------------------------------------


def test_values_stated_beside_a_table_and_under_a_name(tmp_path: Path) -> None:
    cells: dict[str, object] = {"A1": "x", "B1": "y"}
    _rows(cells, 2, "AB", [[1, 2.0], [2, 4.1], [3, 5.9]])
    cells |= {"A7": "Voperating", "B7": 1010, "C7": "v", "A8": "R", "B8": "10kΩ",
              "A9": "φ(mm)=", "B9": 4, "E7": "c", "E8": "5.50 V",
              "A11": "a=2.0375, b=-0.09675", "A12": "钼丝长度L=791.2mm，卷尺仪器误差e=±2.0mm"}  # fmt: skip
    _xlsx(tmp_path / "s.xlsx", cells)
    found = _scan(tmp_path, "s.xlsx")
    got = [(x.name, x.written, x.unit, x.where) for x in found.stated]
    assert got == [
        ("Voperating", "1010", "V", "Sheet1!A7:C7"),
        ("c", "5.50", "V", "Sheet1!E7:E8"),
        ("R", "10", "kΩ", "Sheet1!A8:B8"),
        ("φ", "4", "mm", "Sheet1!A9:B9"),
        ("a", "2.0375", None, "Sheet1!A11"),
        ("b", "-0.09675", None, "Sheet1!A11"),
        ("钼丝长度L", "791.2", "mm", "Sheet1!A12"),
        ("卷尺仪器误差e", "±2.0", "mm", "Sheet1!A12"),
    ]


def test_a_text_file_with_no_table_but_stated_results(tmp_path: Path) -> None:
    (tmp_path / "q.txt").write_text(
        "Resonance of the LC circuit\nQ = 72.48/(72.63−72.38) = 283.1\nf0 = 72.5 kHz\n",
        encoding="utf-8",
    )
    found = _scan(tmp_path, "q.txt")
    assert found.tables == []
    assert [(x.name, x.value, x.unit, x.where) for x in found.stated] == [
        ("Q", 283.1, None, "line 2"), ("f0", 72.5, "kHz", "line 3")]  # fmt: skip
    assert "72.48/(72.63−72.38)" in found.stated[0].text  # the working stays readable
    overview = collect_data(tmp_path, ["q.txt"])
    assert not any("no table found" in line for line in overview.left_out)
    report = offline_report(tmp_path, scan_folder(tmp_path), load_template("lab-en"),
                            tmp_path / "run" / "figures", figures=[])  # fmt: skip
    assert "Q = 283.1 — q.txt, line 2" in report.tex
    assert outline(tmp_path, ["q.txt"]).per_file["q.txt"][0] == "no table; values are stated in it"


def test_a_record_sheets_form_fields_are_left_out_not_stated(tmp_path: Path) -> None:
    cells: dict[str, object] = {"B2": "学生姓名", "B3": "丁毅", "B4": "学号", "B5": "2023K80099",
                                "B6": "成绩评定", "B8": "x", "C8": "y"}  # fmt: skip
    _rows(cells, 9, "BC", [[1, 2], [2, 4], [3, 6]])
    _xlsx(tmp_path / "r.xlsx", cells)
    found = _scan(tmp_path, "r.xlsx")
    assert found.stated == []
    assert [(x.where, x.kind) for x in found.left_out] == [("Sheet1!B2:B6", "record")]


# --------------------------------------------------------------------------
# Left out, and why
# --------------------------------------------------------------------------


def test_files_marked_bad_or_byte_copies_are_left_out(tmp_path: Path) -> None:
    data = "t (s),x (m)\n0,0.0\n1,1.1\n2,1.9\n"
    names = ["run.csv", "run-do-not-use.csv", "old_run.csv", "数据(作废).csv", "Copy of run.csv",
             "golden.csv", "bold_run.csv"]  # fmt: skip
    for k, name in enumerate(names):
        extra = "" if name in ("run.csv", "Copy of run.csv") else f"3,{k}.5\n"
        (tmp_path / name).write_text(data + extra, encoding="utf-8")
    overview = collect_data(tmp_path, names)
    shown = sorted({t.source for t in overview.tables})
    assert shown == ["bold_run.csv", "golden.csv", "run.csv"]  # "old" inside a word marks nothing
    lines = overview.left_out
    assert "run-do-not-use.csv: its name marks it as not to be used ('do-not-use')." in lines
    assert "old_run.csv: its name marks it as not to be used ('old')." in lines
    assert "数据(作废).csv: its name marks it as not to be used ('作废')." in lines
    assert "Copy of run.csv: the same bytes as run.csv." in lines
    listed = outline(tmp_path, names).per_file
    assert listed["Copy of run.csv"] == ["left out: the same bytes as run.csv"]
    assert marked("backup_2.xlsx") == "backup" and marked("oldham.csv") is None


def test_an_unfilled_block_beside_data_is_left_out(tmp_path: Path) -> None:
    cells: dict[str, object] = {"A1": "f (kHz)", "B1": "V (V)", "A10": "Part D", "A11": "f",
                                "B11": "Vr2"}  # fmt: skip
    _rows(cells, 2, "AB", [[1, 2.2], [2, 4.8], [3, 8.4]])
    _rows(cells, 12, "A", [[1], [2], [3], [4]])
    _xlsx(tmp_path / "ac.xlsx", cells)
    found = _scan(tmp_path, "ac.xlsx")
    assert [(x.where, x.kind) for x in found.left_out] == [("Sheet1!A11:B15", "unfilled")]
    overview = collect_data(tmp_path, ["ac.xlsx"])
    assert [t.cell_range() for t in overview.tables] == ["A1:B4"]
    assert overview.left_out == [
        "ac.xlsx › Sheet1!A11:B15: an unfilled block (Part D): only the set points are filled in."
    ]


def test_a_rounded_copy_beside_a_table_is_left_out(tmp_path: Path) -> None:
    cells: dict[str, object] = {"A1": "V", "B1": "I1", "C1": "I2", "D1": "I mean"}
    rows = [[k, 1.0 + k, 1.2 + k, 1.1 + k + 1 / 3] for k in range(4)]
    _rows(cells, 2, "ABCD", rows)
    _rows(cells, 2, "FG", [[k, round(1.1 + k + 1 / 3, 1)] for k in range(4)])
    _xlsx(tmp_path / "c.xlsx", cells)
    found = _scan(tmp_path, "c.xlsx")
    assert [t.cell_range() for t in found.tables] == ["A1:D5"]
    [copy] = found.left_out
    assert (copy.where, copy.kind) == ("Sheet1!F2:G5", "copy")
    assert copy.why == "a copy of V, I mean (from Sheet1!A1:D5), partly rounded: made for a chart"


TEK_HEADER = [
    ("Record Length", "2.500000e+03", "Points"),
    ("Sample Interval", "4.000000e-07", "s"),
    ("Trigger Point", "1.250000000000e+03", "Samples"),
    ("", "", ""),
    ("Source", "CH1", ""),
    ("Vertical Units", "V", ""),
]


def test_an_oscilloscopes_settings_beside_its_trace_are_left_out(tmp_path: Path) -> None:
    lines = []
    for k in range(200):
        key, value, unit = TEK_HEADER[k] if k < len(TEK_HEADER) else ("", "", "")
        lines.append(f"{key},{value},{unit},{-5e-4 + 4e-7 * k:.9f},{0.002 * (k % 7):.5f}")
    (tmp_path / "tek0000.csv").write_text("\n".join(lines) + "\n", encoding="utf-8")
    found = _scan(tmp_path, "tek0000.csv")
    [table] = found.tables
    assert table.col_numbers == [3, 4] and table.n_rows == 200
    assert all(s["max"] < 1 for s in column_stats(table))  # never "peak 2500, mean 469.1"
    [settings] = found.left_out
    assert settings.kind == "metadata"
    assert settings.why.startswith("the instrument's settings (Record Length, Sample Interval")


def test_commented_settings_above_an_export_are_left_out(tmp_path: Path) -> None:
    lines = ["#Digilent WaveForms Oscilloscope Acquisition", "#Device Name: Discovery2",
             "#Sample rate: 40000Hz", "#Samples: 5", "", "Time (s)\tChannel 1 (V)"]  # fmt: skip
    lines += [f"{k * 2.5e-5}\t{0.1 * k}" for k in range(5)]
    (tmp_path / "scope.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")
    found = _scan(tmp_path, "scope.txt")
    [table] = found.tables
    assert table.context == [] and table.n_rows == 5
    assert [(x.where, x.kind) for x in found.left_out] == [("lines 1–4", "metadata")]
    assert found.stated == []  # "#Sample rate: 40000Hz" is a setting, not a result


# --------------------------------------------------------------------------
# Precision and series labels
# --------------------------------------------------------------------------


def test_statistics_keep_the_digits_that_carry_the_signal(tmp_path: Path) -> None:
    assert format_stat(180.729, 0.0016) == "$180.7290$"
    assert format_stat(180.729) == "$180.7$"  # without a spread: 4 digits, as before
    assert format_stat(39.0833, 1.02) == "$39.08$"
    (tmp_path / "scale.csv").write_text(
        "trial,m (g)\n" + "".join(f"{k + 1},{m}\n" for k, m in
                                  enumerate(["180.727", "180.729", "180.731", "180.728", "180.730"])),
        encoding="utf-8",
    )  # fmt: skip
    report = offline_report(tmp_path, scan_folder(tmp_path), load_template("lab-en"),
                            tmp_path / "run" / "figures", figures=[])  # fmt: skip
    stats = {line.split("&")[0].strip(): line for line in report.tex.splitlines()
             if line.startswith(r"\emph{")}  # fmt: skip
    assert "$180.727$" in stats[r"\emph{min}"] and "$180.731$" in stats[r"\emph{max}"]
    assert "$180.7290$" in stats[r"\emph{mean}"]
    assert "$180.7$" not in report.tex


def test_files_of_one_shape_are_labelled_by_what_tells_them_apart(tmp_path: Path) -> None:
    for v in (150.3, 200.2, 249.5):
        (tmp_path / f"src_v{int(v)}.txt").write_text(
            "I (A),V (V),D (cm)\n" + "".join(f"{1 + k / 10},{v},{12 - k}\n" for k in range(3)),
            encoding="utf-8",
        )
    [series] = collect_data(tmp_path, sorted(p.name for p in tmp_path.iterdir())).series
    assert series.labels == ["V = 150.3 V", "V = 200.2 V", "V = 249.5 V"]
    for k, name in enumerate(("scope 20Hz.txt", "scope 250Hz.txt", "scope 50Hz.txt")):
        (tmp_path / name).write_text(f"t (s),U (V)\n0,1\n1,{k}\n2,3\n", encoding="utf-8")
    names = ["scope 20Hz.txt", "scope 250Hz.txt", "scope 50Hz.txt"]
    [series] = collect_data(tmp_path, names).series
    assert series.labels == ["20", "50", "250"]  # in natural order, whole numbers


def test_evidence_statistics_leave_out_the_total_and_mean_under_a_column(tmp_path: Path) -> None:
    from labwright.core.material.evidence import evidence_from_folder, evidence_numbers

    total, mean = sum(RATES), sum(RATES) / 5
    (tmp_path / "r.csv").write_text(
        "n,Rate\n" + "".join(f"{k + 1},{r}\n" for k, r in enumerate(RATES))
        + f",{total:.1f}\n,{mean:.2f}\n",
        encoding="utf-8",
    )  # fmt: skip
    # Positive control: readings whose last equals the mean of the others are all readings.
    (tmp_path / "c.csv").write_text("n,N\n1,1074\n2,1090\n3,1082\n", encoding="utf-8")

    def derived(name: str) -> dict[str, float]:
        numbers = evidence_numbers(evidence_from_folder(tmp_path, [name]), tmp_path)
        return {n.derived: n.value for n in numbers if n.derived}

    assert derived("r.csv")["mean"] == pytest.approx(mean)  # not the mean of 7 with the total
    assert derived("r.csv")["standard deviation"] == pytest.approx(0.79875, abs=1e-5)
    assert derived("c.csv")["mean"] == pytest.approx((1074 + 1090 + 1082) / 3)


def test_a_cell_that_breaks_its_columns_ratio_is_flagged(tmp_path: Path) -> None:
    volts = [1.8, 2.8, 4.0, 5.2, 7.4, 10.2, 13.4, 11.4]
    cells: dict[str, object] = {"A1": "f", "B1": "Vrms", "C1": "Vrms/Vrms,max"}
    _rows(cells, 2, "ABC", [[k + 1, v, v / 13.4] for k, v in enumerate(volts)])
    cells["C2"] = 2  # a formula pointing at another cell
    _xlsx(tmp_path / "n.xlsx", cells)
    [table] = _scan(tmp_path, "n.xlsx").tables
    [odd] = table.odd_cells
    assert (odd.cell, odd.value, odd.column) == ("C2", 2, "Vrms/Vrms,max")
    assert odd.expected == pytest.approx(1.8 / 13.4)
    # Positive control: the same column without the broken cell has nothing to flag.
    cells["C2"] = 1.8 / 13.4
    _xlsx(tmp_path / "m.xlsx", cells)
    assert _scan(tmp_path, "m.xlsx").tables[0].odd_cells == []


def test_a_block_of_names_with_units_and_no_readings_is_left_out(tmp_path: Path) -> None:
    cells: dict[str, object] = {"A1": "M/g", "B1": "Z/mm"}
    _rows(cells, 2, "AB", [[10, 0.12], [20, 0.25], [30, 0.37]])
    cells |= {"A7": "ΔZ /mm", "A8": "ΔU /mV", "A9": "U²/mV2"}
    cells |= {"A12": "Notes", "A13": "measured on Monday", "A14": "room 709"}  # control
    _xlsx(tmp_path / "u.xlsx", cells)
    found = _scan(tmp_path, "u.xlsx")
    assert [(x.where, x.kind) for x in found.left_out] == [("Sheet1!A7:A9", "unfilled")]


def test_files_no_reader_reads_are_named_as_left_out(tmp_path: Path) -> None:
    (tmp_path / "run.csv").write_text("t (s),x (m)\n0,0\n1,1.1\n2,1.9\n", encoding="utf-8")
    (tmp_path / "trace.dwf3work").write_bytes(b"\x00\x01binary workspace" * 10)
    report = offline_report(tmp_path, scan_folder(tmp_path), load_template("lab-en"),
                            tmp_path / "run" / "figures", figures=[])  # fmt: skip
    left = report.tex[report.tex.index(r"\paragraph{Left out}") :]
    assert "trace.dwf3work: files of a kind Labwright does not read (.dwf3work), left out." in left


def test_repeats_are_plotted_as_their_mean_and_a_row_total_not_at_all(tmp_path: Path) -> None:
    lines = ["V,n1,n2,n3,n sum,n average"]
    counts = ((198, 195, 202), (872, 865, 892), (984, 970, 983), (1000, 1014, 1002))
    for v, (a, b, c) in zip((800, 820, 840, 860), counts, strict=True):
        lines.append(f"{v},{a},{b},{c},{a + b + c},{(a + b + c) / 3}")
    (tmp_path / "g.csv").write_text("\n".join(lines) + "\n", encoding="utf-8")
    report = offline_report(tmp_path, scan_folder(tmp_path), load_template("lab-en"),
                            tmp_path / "run" / "figures")  # fmt: skip
    [figure] = report.figures
    meta = json.loads((tmp_path / "run" / "figures" / f"{figure.filename}.json").read_text())
    assert meta["table"]["y"] == ["n average"]  # not n1, n2, n3 and their sum on one axis
