"""The offline report's figures and fits on the TA corpus, against the TA's expectations
(each folder's EXPECTED.md "Figures" and expected.json, written before the code).

Asserted on what each saved figure shows (its sidecar's "shows" record, read back from
the matplotlib artists) and on the numbers the report states, traced by verify."""

from __future__ import annotations

import json
import re
import unicodedata
from pathlib import Path
from typing import Any

import pytest

from labwright.core.material.workspace import scan_folder
from labwright.core.report.offline import offline_report
from labwright.core.report.offline.drawing import DENSE
from labwright.core.report.templates import load_template
from labwright.core.report.verify import verify_run
from labwright.core.rundir.records import FigureRecord

pytestmark = pytest.mark.corpus

FOLDERS = (
    "en-ac-resonance",
    "en-electron-charge-mass",
    "en-excitation-ionisation",
    "en-geiger-radioactivity",
    "zh-photoelectric-planck",
    "zh-rlc-resonance",
    "zh-youngs-modulus",
)


class Run:
    def __init__(self, folder: Path, run: Path, name: str) -> None:
        lang = "lab-zh" if name.startswith("zh") else "lab-en"
        self.report = offline_report(folder, scan_folder(folder), load_template(lang),
                                     run / "figures")  # fmt: skip
        self.run = run
        (run / "report.tex").write_text(self.report.tex, encoding="utf-8")
        self.metas = [
            json.loads((run / "figures" / f"{f.filename}.json").read_text("utf-8"))
            for f in self.report.figures
        ]

    def figure(self, x: str) -> tuple[FigureRecord, dict[str, Any]]:
        """(the figure, its sidecar) of the table figure whose x column is `x`."""
        for made, meta in zip(self.report.figures, self.metas, strict=True):
            if meta.get("table", {}).get("x") == x:
                return made, meta
        raise AssertionError(f"no figure against {x!r}: {[m.get('table') for m in self.metas]}")


_RUNS: dict[str, Run] = {}


@pytest.fixture
def offline(corpus: Path, tmp_path_factory: pytest.TempPathFactory):
    def made(name: str) -> Run:
        if name not in _RUNS:
            folder = corpus / name / "material"
            if not folder.is_dir():
                pytest.skip(f"the corpus folder {name} is not here")
            _RUNS[name] = Run(folder, tmp_path_factory.mktemp(name) / "run", name)
        return _RUNS[name]

    return made


def _expected(corpus: Path, name: str) -> dict[str, Any]:
    return json.loads((corpus / name / "expected.json").read_text("utf-8"))


def _axes(meta: dict, role: str = "data") -> list[dict]:
    return [a for a in meta["shows"]["axes"] if a["role"] == role]


# -- every folder: points as markers, no quantity against itself ---------------------------------


@pytest.mark.parametrize("name", FOLDERS)
def test_points_are_markers_and_nothing_is_drawn_against_itself(offline, name: str) -> None:
    run = offline(name)
    assert run.metas, "no figure at all"
    for meta in run.metas:
        x = meta["shows"]["axes"][-1]["xlabel"]
        for axes in meta["shows"]["axes"]:
            assert axes["ylabel"] != x, (meta["filename"], x)  # "V (V) against V (V)"
            for curve in axes["curves"]:
                if curve["points"] <= DENSE:  # a recorded trace may be a line; readings never
                    assert curve["marker"] and not curve["joined"], (meta["filename"], curve)
        table = meta.get("table")
        if table is not None:
            assert table["x"] not in table["y"]


# -- zh-photoelectric-planck: U0 against ν with the regression line → h ---------------------------


def test_planck_stopping_voltage_against_frequency_is_fitted_and_gives_h(offline, corpus) -> None:
    run = offline("zh-photoelectric-planck")
    made, meta = run.figure("频率(10^14Hz)")  # against ν, not λ (before: 波长 (nm), zigzag)
    [data] = _axes(meta)
    assert [c["points"] for c in data["curves"]] == [5, 5]  # 手动 and 自动, markers
    assert all(not c["joined"] for c in data["curves"])
    assert len(data["fits"]) == 2 and all("\\pm" in f for f in data["fits"])
    assert len(_axes(meta, "residuals")) == 1
    expected = _expected(corpus, "zh-photoelectric-planck")
    for record, fit, derived in zip(
        meta["fits"], expected["fits"], expected["derived"][:2], strict=True
    ):
        # the slope per 10^14 Hz, as the column is written
        assert record["params"]["slope"]["value"] * 1e-14 == pytest.approx(fit["slope"], 1e-9)
        assert record["params"]["slope"]["u"] * 1e-14 == pytest.approx(fit["slope_u"], 1e-6)
        constant = record["constant"]
        assert constant["symbol"] == "h"
        assert constant["value"] == pytest.approx(derived["value"], 1e-9)
        assert constant["u"] == pytest.approx(derived["u"], 1e-6)
        assert constant["percent_difference"] == pytest.approx(derived["percent_diff"], 1e-6)
    # stated in the text after the figure, as value ± u with siunitx, with the % difference
    assert len(made.fits_tex or []) == 2
    [statement] = [t for t in run.report.tex.splitlines() if t.startswith("\\paragraph{拟合}")]
    assert f"\\ref{{fig:{made.filename}}}" in statement
    assert statement.count("\\SI{6.96(13)e-34}{\\joule\\second}") == 2
    assert statement.count("5.0\\,\\%") == 2 and "\\num{0.4342(79)}" in statement
    assert "\\sisetup{separate-uncertainty=true}" in run.report.tex  # printed as ±


def test_planck_iv_curves_are_four_curves_by_wavelength(offline) -> None:
    run = offline("zh-photoelectric-planck")
    made, meta = run.figure("U_ak(V)")
    [data] = _axes(meta)
    labels = [c["label"] for c in data["curves"]]
    assert labels == ["λ = 365 nm", "λ = 405 nm", "λ = 436 nm", "λ = 546 nm"]
    assert data["legend"] == labels and data["fits"] == []  # curves, not lines
    assert "10⁻¹⁰ A" in data["ylabel"]  # before: "I (10^-10A)"


def test_planck_fit_numbers_are_traced_by_verify(offline) -> None:
    run = offline("zh-photoelectric-planck")
    made, _ = run.figure("频率(10^14Hz)")
    v = verify_run(run.run, run.report.tex)
    fit_sentence = [c for c in v.checks if "直线拟合" in c.sentence or "普朗克常数" in c.sentence]
    numbers = {c.number.text: c for c in fit_sentence}
    for text in ("0.4342", "1.730", "6.96(13)e-34", "0.4343", "1.732"):
        check = numbers[text]
        assert check.status == "matched", (text, check.status, check.how)
        assert check.source is not None and check.source.path.startswith("figures/")


def test_planck_positive_control_a_changed_h_is_not_traced(offline) -> None:
    run = offline("zh-photoelectric-planck")
    tex = run.report.tex.replace("\\SI{6.96(13)e-34}", "\\SI{6.71(13)e-34}", 1)
    assert tex != run.report.tex
    v = verify_run(run.run, tex)
    [check] = [c for c in v.checks if c.number.text == "6.71(13)e-34"]
    assert check.status == "unmatched"


# -- en-geiger-radioactivity: count rate with error bars; R against X on a log axis ---------------


def test_geiger_absorption_is_on_a_log_axis_with_error_bars(offline) -> None:
    run = offline("en-geiger-radioactivity")
    _, meta = run.figure("Density(mg/cm^2)")
    [data] = _axes(meta)  # before: "Mean" and "Count rate" (= Mean/30 s), two linear panels
    assert data["yscale"] == "log"
    [curve] = data["curves"]
    assert curve["label"].startswith("Count rate") and curve["error_bars"]


def test_geiger_plateau_is_count_rate_with_error_bars(offline) -> None:
    run = offline("en-geiger-radioactivity")
    made, meta = run.figure("v")
    [data] = _axes(meta)
    [curve] = data["curves"]  # the rate alone: n average is the same curve × 30 s
    assert curve["label"].startswith("rate") and curve["error_bars"] and not curve["joined"]
    assert "type A from the repeats n1 … n3" in made.caption


# -- en-excitation-ionisation: I against the measured voltage, with error bars ---------------------


def test_excitation_current_is_drawn_against_the_measured_voltage(offline) -> None:
    run = offline("en-excitation-ionisation")
    assert len(run.metas) == 6
    for meta in run.metas:
        assert "power supply" not in meta["table"]["x"]  # "never the supply setting on the x-axis"
        assert re.search(r"Volt(age|meter)", meta["table"]["x"])
        [data] = _axes(meta)
        assert all(c["error_bars"] for c in data["curves"])  # the triplicate readings
        assert data["yscale"] == "linear"  # the onset is read off a linear axis


# -- en-electron-charge-mass: one marker series per V, error bars from the resolution --------------


def test_electron_series_is_one_marker_series_per_voltage(offline) -> None:
    run = offline("en-electron-charge-mass")
    [meta] = run.metas
    [data] = _axes(meta)
    assert [c["label"] for c in data["curves"]] == [
        "Voltage = 150.3", "Voltage = 200.2", "Voltage = 249.5", "Voltage = 301.2",
    ]  # fmt: skip
    assert all(c["error_bars"] and not c["joined"] for c in data["curves"])
    assert data["xlabel"] != data["ylabel"]


# -- zh-rlc-resonance: the oscilloscope traces are lines, the record sheet's readings points -------


def test_rlc_traces_are_lines_and_readings_are_points(offline) -> None:
    run = offline("zh-rlc-resonance")
    kinds = {
        (c["points"] > DENSE, c["joined"])
        for meta in run.metas
        for a in _axes(meta)
        for c in a["curves"]
    }
    assert kinds == {(True, True), (False, False)}


# -- en-ac-resonance: Part B's side-by-side series as two curves by R -------------------------------


def test_ac_part_b_is_two_curves_named_by_their_resistance(offline) -> None:
    run = offline("en-ac-resonance")
    labels = [
        [unicodedata.normalize("NFKC", c["label"]) for a in _axes(meta) for c in a["curves"]]
        for meta in run.metas
        if any(c["label"].startswith("R = ") for a in _axes(meta) for c in a["curves"])
    ]
    assert ["R = 12kΩ", "R = 8kΩ"] in labels  # before: "R = 12kΩ kΩ" (the unit twice)
