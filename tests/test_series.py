"""Series of many similar files: one table of files and one overlay plot; the model's outline.

The corpus is tests/data/messy/make_messy.py's bench_day/ (31 analyzer spectra, 14
scope traces, a note) and spectra/ (4 spectra). Every expectation is written by hand
from how the generator's docstring defines the files, not from the code under test.
"""

from __future__ import annotations

import importlib.util
import json
import shutil
from pathlib import Path

import pytest

from labwright.core.agent.tools import ToolContext
from labwright.core.agent.tools.list_dir import ListDir
from labwright.core.material.tables import Series, collect_data, column_stats, scan_tables
from labwright.core.material.tables.outline import outline
from labwright.core.material.workspace import scan_folder
from labwright.core.report.offline import offline_report
from labwright.core.report.templates import load_template

MAKE = Path(__file__).parent / "data" / "messy" / "make_messy.py"


@pytest.fixture(scope="module")
def messy(tmp_path_factory: pytest.TempPathFactory) -> Path:
    spec = importlib.util.spec_from_file_location("make_messy", MAKE)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    out = tmp_path_factory.mktemp("messy")
    module.make(out)
    return out


def _files(folder: Path, sub: str = "") -> list[str]:
    base = folder / sub if sub else folder
    return sorted(p.relative_to(folder).as_posix() for p in base.rglob("*") if p.is_file())


def test_a_folder_of_45_instrument_files_is_two_series(messy: Path) -> None:
    overview = collect_data(messy, _files(messy, "bench_day"))
    spectra, traces = overview.items
    assert isinstance(spectra, Series) and isinstance(traces, Series)
    assert (spectra.pattern, len(spectra.tables)) == ("bench_day/SA_*.csv", 31)
    assert (traces.pattern, len(traces.tables)) == ("bench_day/scope_*.csv", 14)
    # Natural order: SA_001 … SA_031.
    assert [f.source for f in spectra.figures][:2] == [
        "bench_day/SA_001.csv",
        "bench_day/SA_002.csv",
    ]
    # Spectrum k peaks at -20 - k/2 dBm at 600 + 20k Hz over 500–1500 Hz; 51 rows; no mean of dB.
    for k in (1, 17, 31):
        f = spectra.figures[k - 1]
        assert (f.rows, f.x_range, f.mean) == (51, (500.0, 1500.0), None)
        assert f.peak == pytest.approx(-20 - k / 2) and f.peak_at == 600 + 20 * k
    # Trace j: a pulse of 0.1·j V from 0.50 ms, 11 of 200 samples: mean 11·0.1·j/200.
    f = traces.figures[13]
    assert (f.source, f.rows, f.x_range) == ("bench_day/scope_14.csv", 200, (0.0, 1.99))
    assert (f.peak, f.peak_at) == (pytest.approx(1.4), 0.5)
    assert f.mean == pytest.approx(11 * 1.4 / 200)
    # The note is no table: said, not dropped silently.
    assert overview.left_out == ["bench_day/notes.txt: no table found in this file."]


def test_a_level_in_db_is_never_averaged_and_the_frequency_has_no_statistics(messy: Path) -> None:
    found = scan_tables(messy, "bench_day/SA_003.csv")
    assert found is not None
    [table] = found.tables
    [level] = column_stats(table)  # nothing for the frequency: the independent variable
    assert level["name"] == "Level (dBm)"
    assert (level["n"], level["max"], level["mean"], level["std"]) == (51, -21.5, None, None)


def test_what_is_left_out_is_said(messy: Path) -> None:
    overview = collect_data(messy, _files(messy), max_items=3)
    assert len(overview.items) == 3  # of 11: absorbers, 2 series, densities, side_by_side ×2, …
    [more, template, empty] = overview.left_out
    assert more.startswith("8 more tables or series are not shown (at most 3): ")
    assert "spectra/gain_*.txt" in more and "notes.txt" in empty
    # The blank template is no data: left out, with the reason, never a table.
    assert template == (
        "template.csv: a blank template: only the set points are filled in, no readings."
    )
    # Every table is either shown or named in that line.
    shown = {t.source for t in overview.tables}
    assert "template.csv" not in shown
    for rel in ("units_row.csv", "densities.csv"):
        assert rel in shown or rel in more


def test_files_alike_in_name_and_shape_only_are_a_series(tmp_path: Path) -> None:
    for name, header in (
        ("a.csv", "t (s),V (V)"),
        ("b.csv", "t (s),V (V)"),
        ("c.csv", "t (s),I (A)"),
    ):
        (tmp_path / name).write_text(
            header
            + f"\n0,1\n1,2\n2,{name[0]}4\n".replace("a", "").replace("b", "5").replace("c", "6"),
            encoding="utf-8",
        )
    overview = collect_data(tmp_path, ["a.csv", "b.csv", "c.csv"])
    assert overview.series == [] and len(overview.items) == 3  # two alike are not a series
    for k in range(3):
        (tmp_path / f"run_{k}.csv").write_text(
            f"t (s),V (V)\n0,1\n1,2\n2,{k + 4}\n", encoding="utf-8"
        )
    [series] = collect_data(tmp_path, [f"run_{k}.csv" for k in range(3)]).series
    assert series.pattern == "run_*.csv"


def test_the_offline_report_shows_a_series_as_one_table_and_one_overlay(
    messy: Path, tmp_path: Path
) -> None:
    folder = tmp_path / "day"
    shutil.copytree(messy / "bench_day", folder)
    report = offline_report(folder, scan_folder(folder), load_template("lab-en"), tmp_path / "fig")
    tex = report.tex
    assert tex.count("\\label{tab:series") == 2 and "tab:data" not in tex
    assert "Series SA\\_*.csv: 31 files of the same table" in tex
    assert "031.csv" in tex and "14.csv" in tex  # every file has its row
    assert "Level (dBm) is a level in dB: no mean is given" in tex
    assert "mean of Level" not in tex and "mean of CH1" in tex
    assert "notes.txt: no table found" in tex
    spectra, traces = report.figures
    assert spectra.caption.startswith("Level (dBm) against Frequency (Hz) for 8 of the 31 files")
    assert traces.caption.startswith("CH1 (V) against Time (ms) for 8 of the 14 files")
    meta = json.loads((tmp_path / "fig" / f"{spectra.filename}.json").read_text())
    drawn = meta["series"]["drawn"]
    assert len(drawn) == 8 and drawn[0] == "SA_001.csv" and drawn[-1] == "SA_031.csv"


def test_few_files_are_all_drawn(messy: Path, tmp_path: Path) -> None:
    folder = tmp_path / "spectra"
    shutil.copytree(messy / "spectra", folder)
    report = offline_report(folder, scan_folder(folder), load_template("lab-en"), tmp_path / "fig")
    [figure] = report.figures
    assert figure.caption.startswith("amplitude (dB) against frequency (Hz) for all 4 files")


def test_list_dir_outlines_the_tables_and_a_series_in_one_line(messy: Path, tmp_path: Path) -> None:
    ctx = ToolContext(messy, tmp_path)
    day = ListDir().run({"path": "bench_day"}, ctx).content
    lines = day.splitlines()
    assert not any("SA_002.csv" in line for line in lines)  # 31 files, one entry
    assert any(line.startswith("SA_*.csv\tdata\t31 files") for line in lines)
    assert (
        "  bench_day/SA_*.csv: a series of 31 files alike (SA_001.csv … SA_031.csv), "
        "each lines 1–52, 51 rows: Frequency (Hz), Level (dBm)" in lines
    )
    assert "notes.txt\tdata" in day and "  no table found (text in line 1)" in lines
    root = ListDir().run({"path": "."}, ctx).content.splitlines()
    at = root.index(next(line for line in root if line.startswith("side_by_side.xlsx\t")))
    assert root[at + 1 : at + 4] == [
        "  'Data'!A3:C33, 30 rows: I (mA), Reading (div), d Reading",
        "  'Data'!I22:J25, 3 rows: R (Ω), Q",
        "  cells in no table: Data!A36",
    ]
    # A blank template is left out of the data, and the model is told why.
    at = root.index(next(line for line in root if line.startswith("template.csv\t")))
    assert root[at + 1] == (
        "  left out: a blank template: only the set points are filled in, no readings"
    )


def test_the_outline_is_capped_with_a_count(messy: Path) -> None:
    found = outline(messy, _files(messy), max_lines=4)
    lines = found.lines()
    assert (
        len(lines) == 5 and lines[-1].startswith("+") and "more tables not described" in lines[-1]
    )
