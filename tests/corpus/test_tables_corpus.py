"""The data read the way the student meant it, on seven real course folders.

Every expectation below is a TA's, written in the corpus before any code
(<folder>/EXPECTED.md and expected.json): the tables with their data-row counts, the
summary cells that must never enter statistics, the values stated beside the tables,
what is left out and why, families of curves, tables written sideways, units and the
resolutions in headers. The numbers are copied here; the corpus's files never are.
One test per expectation class and folder.
"""

from __future__ import annotations

import math
import unicodedata
from pathlib import Path

import pytest

from labwright.core.agent.tools import ToolContext
from labwright.core.agent.tools.list_dir import ListDir
from labwright.core.material.tables import (
    FileTables,
    Series,
    Table,
    collect_data,
    column_stats,
    scan_tables,
)
from labwright.core.material.workspace import scan_folder
from labwright.core.report.offline import offline_report
from labwright.core.report.templates import load_template

pytestmark = pytest.mark.corpus

GEIGER = "en-geiger-radioactivity"
AC = "en-ac-resonance"
FH = "en-excitation-ionisation"
EM = "en-electron-charge-mass"
PLANCK = "zh-photoelectric-planck"
RLC = "zh-rlc-resonance"
YOUNG = "zh-youngs-modulus"

GEIGER_XLSX = "1MP1 - Radioactivity.xlsx"
FH_XLSX = "1MP2 Excitation and Ionisation Potential.xlsx"
AC_LAB = "alternating current excel.xlsx"
AC_COPY = "Copy of AC resonance new.xlsx"
PLANCK_XLSX = "Plank_data.xlsx"
RLC_XLSX = "实验数据 (Ex.06 谐振电路 丁毅 2024-12-24).xlsx"
RLC_SWEEP = "20241224 RLC 实验, RLC 串联 1KHz~3KHz.txt"
YOUNG_XLSX = "实验数据 (Ex.01 杨氏模量 丁毅 2024-11-12).xlsx"


def _material(corpus: Path, folder: str) -> Path:
    path = corpus / folder / "material"
    if not path.is_dir():
        pytest.skip(f"{folder} is not in the corpus at {corpus}")
    return path


def _scan(corpus: Path, folder: str, name: str) -> FileTables:
    found = scan_tables(_material(corpus, folder), name)
    assert found is not None, name
    return found


def _data_files(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.suffix in (".xlsx", ".txt", ".csv"))


def _table(found: FileTables, sheet: str | None, where: str) -> Table:
    tables = [
        t
        for t in found.tables
        if (t.sheet or "").strip() == (sheet or "") and t.cell_range() == where
    ]
    ranges = [((t.sheet or "").strip(), t.cell_range()) for t in found.tables]
    assert len(tables) == 1, f"{sheet}!{where} not among {ranges}"
    return tables[0]


def _stat(table: Table, name: str, group: str | None = None) -> dict:
    [s] = [s for s in column_stats(table) if s["name"] == name and s.get("group") == group]
    return s


def _stated(found: FileTables) -> dict[str, tuple[str, float, str | None]]:
    return {x.where: (x.name, x.value, x.unit) for x in found.stated} | {
        f"{x.where}#{x.name}": (x.name, x.value, x.unit) for x in found.stated
    }


# --------------------------------------------------------------------------
# Tables found, with their data-row counts
# --------------------------------------------------------------------------

TABLES: dict[str, list[tuple[str, str | None, str, int]]] = {
    GEIGER: [
        (GEIGER_XLSX, "Sheet1", "A1:G24", 23),
        (GEIGER_XLSX, "Sheet1", "A32:D52", 20),
        (GEIGER_XLSX, "Sheet1", "A57:I77", 20),
    ],
    AC: [
        (AC_COPY, "exp1", "A1:C20", 19),
        (AC_COPY, "exp2", "K68:M87", 19),
        (AC_COPY, "exp2", "A42:C46", 3),
        (AC_LAB, "Sheet1", "A6:C25", 19),
    ],
    FH: [
        (FH_XLSX, "PART A", "B4:J22", 17),
        (FH_XLSX, "PART A", "B24:J32", 7),
        (FH_XLSX, "PART B", "B4:J15", 10),
        (FH_XLSX, "PART B", "B17:J31", 13),
        (FH_XLSX, "PART C", "B4:J17", 12),
        (FH_XLSX, "PART C", "B19:J27", 7),
    ],
    EM: [
        ("src_v150.txt", None, "lines 1–9", 8),
        ("src_v200.txt", None, "lines 1–9", 8),
        ("src_v250.txt", None, "lines 1–8", 7),
        ("src_v300.txt", None, "lines 1–7", 6),
    ],
    PLANCK: [(PLANCK_XLSX, "Sheet1", "A5:G9", 5)],
    RLC: [
        (RLC_XLSX, "Sheet", "B31:F46", 15),
        (RLC_XLSX, "Sheet", "B55:H69", 14),
        (RLC_SWEEP, None, "lines 32–2033", 2001),
    ],
    YOUNG: [
        (YOUNG_XLSX, "1. 悬挂", "A4:G5", 6),
        (YOUNG_XLSX, "1. 悬挂", "A10:H19", 8),
        (YOUNG_XLSX, "2. 霍尔", "A4:H7", 6),
        (YOUNG_XLSX, "2. 霍尔", "A11:J14", 8),
        (YOUNG_XLSX, "2. 霍尔", "A22:H25", 6),
        (YOUNG_XLSX, "2. 霍尔", "A29:K32", 8),
        (YOUNG_XLSX, "3. 动态", "A7:I10", 8),
    ],
}


@pytest.mark.parametrize("folder", sorted(TABLES))
def test_tables_found_with_their_data_rows(corpus: Path, folder: str) -> None:
    for name, sheet, where, rows in TABLES[folder]:
        table = _table(_scan(corpus, folder, name), sheet, where)
        assert table.n_rows == rows, (name, sheet, where)


def test_geiger_the_report_shows_three_tables_and_no_copy(corpus: Path) -> None:
    folder = _material(corpus, GEIGER)
    overview = collect_data(folder, _data_files(folder))
    # Columns I:J repeat V and rate for a chart; H53:I54 are summaries: neither is a table.
    assert [t.cell_range() for t in overview.tables] == ["A1:G24", "A32:D52", "A57:I77"]


def test_excitation_headers_under_repeated_counts(corpus: Path) -> None:
    # "Voltage (±0.1 V)" merged over "1 2 3 Average": four columns of Voltage, in V.
    table = _table(_scan(corpus, FH, FH_XLSX), "PART A", "B4:J22")
    assert table.names == ["power supply", "Voltage 1", "Voltage 2", "Voltage 3",
                           "Voltage Average", "Current 1", "Current 2", "Current 3",
                           "Current Average"]  # fmt: skip
    assert table.units == ["V"] + ["V"] * 4 + ["μA"] * 4
    part_b = _table(_scan(corpus, FH, FH_XLSX), "PART B", "B17:J31")
    assert part_b.units == ["V"] + ["V"] * 4 + ["mA"] * 4  # µA and mA kept straight


# --------------------------------------------------------------------------
# Summary cells: recognised, kept out of the statistics
# --------------------------------------------------------------------------


def test_geiger_summary_cells_never_enter_statistics(corpus: Path) -> None:
    found = _scan(corpus, GEIGER, GEIGER_XLSX)
    part_b = _table(found, "Sheet1", "A32:D52")
    rate = _stat(part_b, "Rate")
    # The sheet's own "ave rate" is 39.08: C53 (the sum, 781.7) is no 21st row.
    assert rate["n"] == 20
    assert rate["mean"] == pytest.approx(39.0833, abs=1e-4)
    assert rate["max"] == pytest.approx(40.9333, abs=1e-4)
    assert _stat(part_b, "std dev")["n"] == 20
    cells = {x.cell: x for x in part_b.summaries}
    assert set(cells) == {"C53", "C54", "F52", "H54", "I54"}
    assert (cells["C54"].label, cells["C54"].kind, cells["C54"].of) == ("ave rate", "mean", "Rate")
    assert cells["C54"].value == pytest.approx(39.0833, abs=1e-4)
    assert (cells["C53"].kind, cells["C53"].value) == ("sum", pytest.approx(781.6667, abs=1e-4))
    assert (cells["F52"].kind, cells["F52"].of) == ("sum", "std dev")
    assert cells["H54"].label == "average std dev"
    assert cells["C54"].describe() == "summary cell C54 (ave rate = 39.08, the mean of Rate)"
    # Per-row totals and means are columns of the table, and said to be so.
    part_a = _table(found, "Sheet1", "A1:G24")
    assert {j: r.kind for j, r in part_a.row_summaries.items()} == {4: "sum", 5: "mean"}


def test_youngs_summary_cells_never_enter_statistics(corpus: Path) -> None:
    found = _scan(corpus, YOUNG, YOUNG_XLSX)
    brass = _table(found, "2. 霍尔", "A4:H7")
    assert {x.cell: (x.label, round(x.value, 4)) for x in brass.summaries} == {
        "H5": ("平均值", 229.55), "H6": ("平均值", 23.4733), "H7": ("平均值", 0.9788),
    }  # fmt: skip
    d = _stat(brass, "长度d/mm")
    assert (d["n"], d["mean"]) == (6, pytest.approx(229.55, abs=1e-9))  # six readings, no 7th
    for where, cells in (("A11:J14", {"J12", "J13", "J14"}), ("A22:H25", {"H23", "H24", "H25"}),
                         ("A29:K32", {"K30", "K31", "K32"})):  # fmt: skip
        assert {x.cell for x in _table(found, "2. 霍尔", where).summaries} == cells
    # The OCR'd scratch sums under the wire table: M 1125 (the mean load), LM 9000 (the sum).
    wire = _table(found, "1. 悬挂", "A10:H19")
    assert {x.cell: (x.value, x.kind) for x in wire.summaries} == {
        "B21": (1125.0, "mean"), "B22": (9000.0, "sum"),
    }  # fmt: skip
    assert not any(x.value in (1125.0, 9000.0) for x in found.stated)


def test_geiger_offline_report_says_39_08_never_74_44(corpus: Path, tmp_path: Path) -> None:
    folder = _material(corpus, GEIGER)
    report = offline_report(folder, scan_folder(folder), load_template("lab-en"),
                            tmp_path / "run" / "figures", figures=[])  # fmt: skip
    assert "74.44" not in report.tex
    mean_row = next(line for line in report.tex.splitlines()
                    if line.startswith(r"\emph{mean}") and "$39.08$" in line)  # fmt: skip
    assert "$1172$" in mean_row
    assert "C54 (ave rate = 39.08, the mean of Rate)" in report.tex


# --------------------------------------------------------------------------
# Values stated beside the tables, with their cell
# --------------------------------------------------------------------------

STATED: dict[str, list[tuple[str, str, str, float, str | None]]] = {
    GEIGER: [
        (GEIGER_XLSX, "Sheet1!A25:C25", "Vstrarting", 780, "V"),
        (GEIGER_XLSX, "Sheet1!A26:C26", "Vthreshold", 840, "V"),
        (GEIGER_XLSX, "Sheet1!A27:C27", "Vbreakdown", 1180, "V"),
        (GEIGER_XLSX, "Sheet1!A28:C28", "Voperating", 1010, "V"),
    ],
    AC: [
        (AC_COPY, "exp2!B47", "a", 2.0375, None),
        (AC_COPY, "exp2!B47", "b", -0.09675, None),
        (AC_COPY, "exp2!C47", "a", 3.1935, None),
        (AC_COPY, "exp2!C47", "b", -0.16075, None),
        (AC_LAB, "Sheet1!A2:B2", "R", 10, "kΩ"),
        (AC_LAB, "Sheet1!A3:B3", "L", 0.5, "H"),
        (AC_LAB, "Sheet1!A4:B4", "C", 2100, "pF"),
        (AC_LAB, "Sheet1!A66:B66", "f", 3.8, "kHz"),
    ],
    PLANCK: [(PLANCK_XLSX, "Sheet1!B3:C3", "φ", 4, "mm")],
    RLC: [
        (RLC_XLSX, "Sheet!B22", "串联电路谐振频率f", 2.2475, "kHz"),
        (RLC_XLSX, "Sheet!B23:B24", "c", 5.50, "V"),
        (RLC_XLSX, "Sheet!B28:B29", "L", 5.52, "V"),
        (RLC_XLSX, "Sheet!B50:B51", "并联电路谐振频率f", 2.2472, "kHz"),
        (RLC_XLSX, "Sheet!B75:B76", "理论", 1414, None),
        (RLC_XLSX, "Sheet!B77:B78", "实际", 1410, None),
    ],
    YOUNG: [
        (YOUNG_XLSX, "1. 悬挂!A1", "钼丝长度L", 791.2, "mm"),
        (YOUNG_XLSX, "1. 悬挂!A1", "卷尺仪器误差e", 2.0, "mm"),
        (YOUNG_XLSX, "1. 悬挂!A8", "初始示数l_0", 1.00, "mm"),
        (YOUNG_XLSX, "1. 悬挂!A8", "千分尺仪器误差e", 0.005, "mm"),
        (YOUNG_XLSX, "2. 霍尔!A9", "显微镜初始读数Zo", 1.011, "mm"),
        (YOUNG_XLSX, "2. 霍尔!A27", "显微镜初始读数Zo", 0.046, "mm"),
        (YOUNG_XLSX, "3. 动态!A3", "长度L", 180.0, "mm"),
        (YOUNG_XLSX, "3. 动态!A4", "直径d", 5.956, "mm"),
        (YOUNG_XLSX, "3. 动态!A5", "样品质量m", 42.10, "g"),
    ],
}


@pytest.mark.parametrize("folder", sorted(STATED))
def test_values_stated_beside_the_tables_are_kept_with_their_cell(
    corpus: Path, folder: str
) -> None:
    for name, where, quantity, value, unit in STATED[folder]:
        found = _stated(_scan(corpus, folder, name))
        key = f"{where}#{quantity}"
        assert key in found, f"{quantity} = {value} at {where} not among {sorted(found)}"
        assert found[key][1] == pytest.approx(value)
        assert found[key][2] == unit, key


def test_geiger_offline_report_lists_the_stated_voltages(corpus: Path, tmp_path: Path) -> None:
    folder = _material(corpus, GEIGER)
    report = offline_report(folder, scan_folder(folder), load_template("lab-en"),
                            tmp_path / "run" / "figures", figures=[])  # fmt: skip
    assert r"\paragraph{Results stated in the material}" in report.tex
    assert "Voperating = 1010 V — 1MP1 - Radioactivity.xlsx, Sheet1!A28:C28" in report.tex


def test_rlc_instrument_settings_are_no_stated_values(corpus: Path) -> None:
    found = _scan(corpus, RLC, RLC_SWEEP)
    assert found.stated == []  # "#Start: 1000 Hz", "#Steps: 2001" are settings
    record = _scan(corpus, RLC, RLC_XLSX)
    assert not any(x.value == 2023.0 or "学号" in x.name for x in record.stated)


# --------------------------------------------------------------------------
# Left out of the data, with a line saying why
# --------------------------------------------------------------------------


def test_ac_blank_template_duplicate_and_unfilled_blocks_are_left_out(
    corpus: Path, tmp_path: Path
) -> None:
    folder = _material(corpus, AC)
    overview = collect_data(folder, _data_files(folder))
    sources = {t.source for t in overview.tables}
    assert "AC Resonance 1.0.xlsx" not in sources and "Experiment 1.xlsx" not in sources
    assert not any(t.template for t in overview.tables)
    lines = overview.left_out
    assert (
        "AC Resonance 1.0.xlsx: a blank template (sheets Experiment 1, Experiment 2): only "
        "the set points are filled in, no readings." in lines
    )
    assert "Experiment 1.xlsx: the same numbers as a table shown, not repeated." in lines
    assert any(line.startswith(f"{AC_LAB} › Sheet1!A57:C63: an unfilled block") for line in lines)
    assert any(line.startswith(f"{AC_LAB} › Sheet1!A74:B93: an unfilled block") for line in lines)
    # The template's own R = 14 kΩ is no value of this experiment.
    assert not any(x.source == "AC Resonance 1.0.xlsx" for x in overview.stated)
    # …and the model is told the same when it lists the folder.
    listing = ListDir().run({"path": "."}, ToolContext(folder, tmp_path)).content
    assert "  left out: a blank template (sheets Experiment 1, Experiment 2)" in listing


def test_rlc_instrument_header_is_left_out_not_averaged(corpus: Path, tmp_path: Path) -> None:
    sweep = _scan(corpus, RLC, RLC_SWEEP)
    [header] = sweep.left_out
    assert (header.where, header.kind) == ("lines 1–30", "metadata")
    assert "Device Name, Serial Number" in header.why
    [table] = sweep.tables
    assert table.context == []  # "#Attenuation: 1 X" is no title of the data
    assert table.n_rows == 2001 and table.first_row == 33
    for name in ("20241224 RLC 实验, RLC 暂态, 20Hz 20K Ohm.txt",
                 "20241224 RLC 实验, RLC 暂态, 50Hz 1410 Ohm.txt"):  # fmt: skip
        found = _scan(corpus, RLC, name)
        assert [x.kind for x in found.left_out] == ["metadata"]
        assert [t.n_rows for t in found.tables] == [8192]
    record = _scan(corpus, RLC, RLC_XLSX)
    assert [(x.where, x.kind) for x in record.left_out][0] == ("Sheet!B3:B17", "record")
    folder = _material(corpus, RLC)
    listing = ListDir().run({"path": "."}, ToolContext(folder, tmp_path)).content
    assert (
        "  left out: lines 1–30: the instrument's settings (Digilent WaveForms Impedance "
        "Analyzer, Device Name, Serial Number, …), 30 lines: metadata, never averaged as data"
    ) in listing


def test_excitation_rounded_copies_for_charts_are_left_out(corpus: Path) -> None:
    found = _scan(corpus, FH, FH_XLSX)
    copies = [x for x in found.left_out if x.kind == "copy"]
    assert [x.where for x in copies] == ["PART A!L6:M22", "PART A!L26:M32", "PART B!L6:M15",
                                         "PART B!L19:M31", "PART C!L6:M17", "PART C!L21:M27"]  # fmt: skip
    assert "partly rounded" in copies[3].why  # M19 = 113 for J19 = 113.33
    assert len(found.tables) == 6


# --------------------------------------------------------------------------
# Families of curves
# --------------------------------------------------------------------------


def test_ac_part_b_side_by_side_is_one_family_not_six_columns(corpus: Path) -> None:
    copy = _table(_scan(corpus, AC, AC_COPY), "exp2", "A2:G21")
    assert copy.family is not None
    assert (copy.family.label, copy.family.labels) == ("R", ["12", "8"])
    assert copy.columns[0] == "R" and copy.names[1:] == ["f", "Vrms", "Vrms/Vrms,max"]
    assert copy.n_rows == 38 and len(copy.columns) == 4
    # Statistics per curve, never across the two resistors.
    assert _stat(copy, "Vrms", "12")["n"] == 19 and _stat(copy, "Vrms", "8")["n"] == 19
    assert _stat(copy, "Vrms", "8")["max"] == 13.4
    lab = _table(_scan(corpus, AC, AC_LAB), "Sheet1", "A33:G52")
    assert lab.family is not None
    # The sheet writes the ohm sign (U+2126): the labels as written, the unit as a unit.
    assert [unicodedata.normalize("NFKC", x) for x in lab.family.labels] == ["12kΩ", "8kΩ"]
    assert lab.family.unit == "kΩ"


def test_planck_iv_blocks_are_one_family_by_wavelength_in_nm(corpus: Path) -> None:
    found = _scan(corpus, PLANCK, PLANCK_XLSX)
    iv = _table(found, "Sheet1", "A14:K29")
    assert iv.family is not None
    assert (iv.family.label, iv.family.unit) == ("λ", "nm")  # the sheet writes "λ(mm)="
    assert iv.family.labels == ["365", "405", "436", "546"]
    assert "λ(mm)" in iv.family.note
    assert iv.n_rows == 40
    current = _stat(iv, "I(10^-10A)", "365")
    assert (current["n"], current["min"], current["max"]) == (10, 1.1, 62.3)
    assert _stat(iv, "I(10^-10A)", "546")["max"] == 12.5
    assert iv.roles == ["category", "index", "independent", "measured"]
    assert "不同频率下的伏安特性曲线" in iv.context


def test_electron_files_are_one_family_by_their_voltage(corpus: Path) -> None:
    folder = _material(corpus, EM)
    overview = collect_data(folder, _data_files(folder))
    [series] = overview.items
    assert isinstance(series, Series)
    assert series.labels == ["Voltage = 150.3", "Voltage = 200.2", "Voltage = 249.5",
                             "Voltage = 301.2"]  # fmt: skip
    assert [t.n_rows for t in series.tables] == [8, 8, 7, 6]


# --------------------------------------------------------------------------
# Tables written sideways
# --------------------------------------------------------------------------


def test_planck_transposed_table_is_read_with_rows_as_columns(corpus: Path) -> None:
    table = _table(_scan(corpus, PLANCK, PLANCK_XLSX), "Sheet1", "A5:G9")
    assert table.transposed
    assert table.names == ["序号", "波长", "频率", "截止电压 手动", "截止电压 自动"]
    assert table.units[1:3] == ["nm", "10^14Hz"]
    assert [row[1] for row in table.rows] == [365, 405, 436, 546, 577]
    assert [row[3] for row in table.rows] == [1.829, 1.481, 1.273, 0.672, 0.503]
    assert table.row_names == ["C", "D", "E", "F", "G"]


def test_youngs_transposed_blocks_and_the_shifted_cast_iron_block(corpus: Path) -> None:
    found = _scan(corpus, YOUNG, YOUNG_XLSX)
    wire = _table(found, "1. 悬挂", "A4:G5")
    assert wire.transposed and wire.names == ["测量次数", "d"] and wire.units == [None, "mm"]
    assert [row[1] for row in wire.rows] == [0.192, 0.192, 0.190, 0.191, 0.191, 0.192]
    cast_iron = _table(found, "2. 霍尔", "A29:K32")
    assert cast_iron.row_names[0] == "C"  # one column right of the brass block
    assert [row[1] for row in cast_iron.rows][:2] == [20.2, 39.6]
    dynamic = _table(found, "3. 动态", "A7:I10")
    assert dynamic.transposed and [row[3] for row in dynamic.rows][4] == 586.789


# --------------------------------------------------------------------------
# Units parsed, resolutions read, precision kept
# --------------------------------------------------------------------------


def test_electron_header_brackets_are_resolutions_not_units(corpus: Path) -> None:
    table = _scan(corpus, EM, "src_v150.txt").tables[0]
    assert table.names == ["Current", "Voltage", "Diameter"]
    assert table.units == [None, None, None]  # "Current (0.001)": not a unit
    assert table.resolutions == [0.001, 0.1, 0.1]


def test_excitation_uncertainty_in_headers_is_the_resolution(corpus: Path) -> None:
    found = _scan(corpus, FH, FH_XLSX)
    a = _table(found, "PART A", "B4:J22")
    assert a.resolutions == [None] + [0.1] * 4 + [1e-5] * 4  # "Current (±0.00001 μA)"
    assert a.roles[1:] == ["measured"] * 8  # "±" in a header is no uncertainty column
    b = _table(found, "PART B", "B4:J15")
    assert b.resolutions[5:] == [10.0] * 4  # "Ammeter (± 10 mA)"
    assert {j: r.kind for j, r in a.row_summaries.items()} == {4: "mean", 8: "mean"}


def test_youngs_digits_are_kept_as_written(corpus: Path, tmp_path: Path) -> None:
    found = _scan(corpus, YOUNG, YOUNG_XLSX)
    wire = _table(found, "1. 悬挂", "A4:G5")
    assert [w[1] for w in wire.written] == ["0.192", "0.192", "0.190", "0.191", "0.191", "0.192"]
    cast = _table(found, "2. 霍尔", "A22:H25")
    assert [w[2] for w in cast.written][4] == "23.341"
    load = _table(found, "1. 悬挂", "A10:H19")
    assert load.rows[-1][3] is None  # the 2000 g row has no unloading reading: not 0
    folder = _material(corpus, YOUNG)
    report = offline_report(folder, scan_folder(folder), load_template("lab-zh"),
                            tmp_path / "run" / "figures", figures=[])  # fmt: skip
    # d = 0.19133 mm (sd 0.00082): the mean keeps the digits its spread needs, not "0.1913".
    assert "$0.19133$" in report.tex
    assert "$0.190$" in report.tex


def test_rlc_numbers_typed_as_text_are_numbers(corpus: Path) -> None:
    table = _table(_scan(corpus, RLC, RLC_XLSX), "Sheet", "B31:F46")
    assert [row[0] for row in table.rows][:3] == [1.88, 2.00, 2.08]
    assert table.written[1][1] == "2.00"
    assert table.roles[1] == "constant"  # U = 2.00 V held constant
    parallel = _table(_scan(corpus, RLC, RLC_XLSX), "Sheet", "B55:H69")
    # φ and I are left to compute: empty named columns of the table, not a template.
    assert not parallel.template and parallel.roles[3] == "empty" and parallel.roles[6] == "empty"
    assert math.isclose(_stat(parallel, "Vimag /mV")["max"], 1290)


def test_ac_the_cell_from_a_wrong_formula_is_flagged(corpus: Path) -> None:
    # Copy… exp2 G3 = 2 (=M69, a wrong reference): 1.8/13.4 = 0.134 is what the column gives.
    copy = _table(_scan(corpus, AC, AC_COPY), "exp2", "A2:G21")
    [odd] = copy.odd_cells
    assert (odd.cell, odd.value) == ("G3", 2)
    assert odd.expected == pytest.approx(0.134, abs=5e-4)


def test_youngs_unfilled_calculation_block_is_left_out(corpus: Path) -> None:
    # '2. 霍尔' A33:B38 (Δ Zt, Δ Ui, U², Z², Z·U) holds only labels: left to fill in.
    found = _scan(corpus, YOUNG, YOUNG_XLSX)
    unfilled = [x for x in found.left_out if x.kind == "unfilled"]
    assert [x.where for x in unfilled] == ["2. 霍尔!A33:B38"]
    assert len(found.tables) == 7  # and no table of it
