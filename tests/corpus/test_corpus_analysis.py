"""The analysis library on the TA corpus: each folder's data, read where it lies, computed
through core/analysis, against the TA's numbers (expected.json, copied here).

The data are read cell by cell as the TA's expected.py reads them (openpyxl), so what is
tested is the analysis, not the table detector (other tests own that)."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import openpyxl
import pytest

from labwright.core.analysis import (
    fit,
    format_value,
    measure,
    percent_difference,
    siunitx,
    successive_differences,
    type_a,
)

pytestmark = pytest.mark.corpus

E = 1.602176634e-19
H0 = 6.62607015e-34


def close(a: float, b: float, rel: float = 1e-6) -> bool:
    return math.isclose(a, b, rel_tol=rel)


def _sheet(folder: Path, name: str, sheet: str) -> openpyxl.worksheet.worksheet.Worksheet:
    return openpyxl.load_workbook(folder / name, data_only=True)[sheet]


def _num(v: object) -> float:
    return float(str(v).strip())


# -- zh-photoelectric-planck: U0 against ν, slope h/e ---------------------------------------


def _planck(folder: Path) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    ws = _sheet(folder, "Plank_data.xlsx", "Sheet1")
    nu = np.array([ws[f"{c}7"].value for c in "CDEFG"], float) * 1e14
    manual = np.array([ws[f"{c}8"].value for c in "CDEFG"], float)
    auto = np.array([ws[f"{c}9"].value for c in "CDEFG"], float)
    return nu, manual, auto


def test_planck_regression_gives_h_within_5_percent(corpus_folder):
    nu, manual, auto = _planck(corpus_folder("zh-photoelectric-planck"))
    f = fit(nu, manual)
    # expected.json fits[0]
    assert close(f.slope.nominal_value, 4.342207174034532e-15, 1e-9)
    assert close(f.slope.std_dev, 7.869926860577528e-17, 1e-7)
    assert close(f.intercept.nominal_value, -1.7304965896936804, 1e-9)
    assert close(f.intercept.std_dev, 0.053004692628504546, 1e-7)
    assert close(f.r, 0.9995076309693335, 1e-9)
    # EXPECTED.md: b = (4.342 ± 0.079)×10⁻¹⁵ V·s, r = 0.99951, h₂ = (6.96 ± 0.13)×10⁻³⁴ J·s, 5.0 %
    assert format_value(f.slope, unit="V s") == "(4.342 ± 0.079) × 10^-15 V s"
    assert format_value(f.slope, rule="pdg") == "(4.34 ± 0.08) × 10^-15"
    assert siunitx(f.slope, unit="V s", rule="pdg") == r"\SI{4.34(8)e-15}{\volt\second}"
    assert f"{f.r:.5f}" == "0.99951"
    h = E * f.slope
    assert close(h.nominal_value, 6.956982874225298e-34, 1e-9)
    assert close(h.std_dev, 1.260901292730629e-35, 1e-7)
    assert format_value(h, unit="J s") == "(6.96 ± 0.13) × 10^-34 J s"
    eta = percent_difference(h, H0)
    assert close(eta.nominal_value, 4.994102337194513, 1e-8)
    assert format_value(eta.nominal_value, digits=2) == "5.0"
    # the work function and the cut-off frequency, with the slope–intercept correlation
    assert close((-f.intercept).nominal_value, 1.7304965896936804, 1e-9)
    cutoff = -f.intercept / f.slope
    assert close(cutoff.nominal_value, 398529254900981.94, 1e-9)
    assert cutoff.std_dev < 0.02 * cutoff.nominal_value
    # 自动: b = 4.343×10⁻¹⁵ V·s, h = 6.96×10⁻³⁴ J·s (5.0 %)
    g = fit(nu, auto)
    assert close(g.slope.nominal_value, 4.342918439113933e-15, 1e-9)
    assert close(g.slope.std_dev, 7.992462583996111e-17, 1e-7)
    assert close(percent_difference(E * g.slope, H0).nominal_value, 5.011300650297139, 1e-8)


def test_planck_in_the_sandbox_prints_h_as_the_ta_writes_it(corpus_folder, tmp_path):
    """analyze on the real folder: load() gives the sideways table as the detector reads
    it (points as rows), the fit and h come out as the TA writes them."""
    from labwright.core.agent.tools.analyze import Analyze
    from labwright.core.agent.tools.base import ToolContext

    folder = corpus_folder("zh-photoelectric-planck")
    code = (
        "df = load('Plank_data.xlsx')\n"
        "print(len(df), df.attrs['units']['波长'])\n"
        "f = fit(df['频率'] * 1e14, df['截止电压 手动'])\n"
        "show('b', f.slope, 'V s')\n"
        "print(f'r = {f.r:.5f}')\n"
        "h = 1.602176634e-19 * f.slope\n"
        "show('h', h, 'J s')\n"
        "show('eta', percent_difference(h, 6.62607015e-34), '%')\n"
    )
    out = Analyze().run(
        {"code": code, "purpose": "h from the U0-nu regression", "inputs": ["Plank_data.xlsx"]},
        ToolContext(root=folder, run_dir=tmp_path),
    )
    assert out.ok, out.content
    assert out.evidence["text"].splitlines() == [
        "5 nm",
        "b = (4.342 ± 0.079) × 10^-15 V s",
        "r = 0.99951",
        "h = (6.96 ± 0.13) × 10^-34 J s",
        "eta = 5.0 ± 1.9 %",
    ]


def test_geiger_counting_statistics_through_load_leave_the_sum_rows_out(corpus_folder):
    """load() hands out data rows only: the 20 rates of Part B, not the sum (C53) and the
    'ave rate' (C54) under them — the issue's "mean 74.44" where the sheet says 39.08."""
    from labwright.core.analysis.tables import load_table

    folder = corpus_folder("en-geiger-radioactivity")
    part_b = load_table(folder, "1MP1 - Radioactivity.xlsx", table="A32:D52")
    assert len(part_b) == 20
    mean = measure(part_b["Rate"])
    assert close(mean.nominal_value, 39.083333333333336, 1e-9)
    assert close(mean.std_dev, 0.22806713898113623, 1e-6)


# -- en-geiger-radioactivity: ln R against absorber thickness, weighted by Poisson ----------


def _geiger(folder: Path):
    return _sheet(folder, "1MP1 - Radioactivity.xlsx", "Sheet1")


def test_geiger_absorption_coefficient_from_the_weighted_ln_fit(corpus_folder):
    ws = _geiger(corpus_folder("en-geiger-radioactivity"))
    x = np.array([ws[f"C{r}"].value for r in range(58, 78)], float)  # mg/cm^2
    counts = np.array([[ws[f"{c}{r}"].value for c in "DEFG"] for r in range(58, 78)], float)
    rate = counts.mean(axis=1) / 30
    rate_u = np.sqrt(counts.sum(axis=1)) / (4 * 30)  # Poisson, of the mean rate
    steep = x <= 522
    f = fit(x[steep], np.log(rate[steep]), sigma=(rate_u / rate)[steep])
    mu = -f.slope
    # expected.json fits[0] / partC
    assert f.n == 13
    assert close(mu.nominal_value, 0.005795157581244242, 1e-8)
    assert close(mu.std_dev, 5.9824769388823555e-05, 1e-6)
    assert close(f.intercept.nominal_value, 3.667963624272322, 1e-9)
    assert close(f.intercept.std_dev, 0.007174584030174474, 1e-6)
    assert close(f.chi2_ndf, 16.34144017152628, 1e-6)
    # EXPECTED.md: μm = (5.80 ± 0.06)×10⁻³ cm²/mg; unweighted (6.18 ± 0.15)×10⁻³
    assert format_value(mu, unit="cm^2/mg", rule="pdg") == "(5.80 ± 0.06) × 10^-3 cm^2/mg"
    plain = fit(x[steep], np.log(rate[steep]))
    assert close(-plain.slope.nominal_value, 0.006182363524012447, 1e-8)
    assert close(plain.slope.std_dev, 0.0001543281035229228, 1e-6)
    assert format_value(-plain.slope, rule="pdg") == "(6.18 ± 0.15) × 10^-3"
    # the half-value thickness ln2/μm = 120 ± 1 mg/cm²
    half = math.log(2) / mu
    assert close(half.nominal_value, 119.60799526889205, 1e-8)
    assert close(half.std_dev, 1.2347413566767322, 1e-6)
    assert format_value(half, rule="1") == "120 ± 1"


def test_geiger_counting_statistics_part_b(corpus_folder):
    ws = _geiger(corpus_folder("en-geiger-radioactivity"))
    rates = np.array([ws[f"B{r}"].value for r in range(33, 53)], float) / 30
    mean = measure(rates)
    assert close(mean.nominal_value, 39.083333333333336, 1e-12)  # never the 74.44 of the sum row
    assert close(mean.std_dev, 0.22806713898113623, 1e-9)
    assert close(type_a(rates), 0.22806713898113623, 1e-9)
    sigma = float(np.std(rates, ddof=1))
    poisson = math.sqrt(mean.nominal_value / 30)
    assert close(sigma, 1.0199472523914255) and close(poisson, 1.1413929112175956)
    assert close(percent_difference(sigma, poisson), 10.640127306960087, 1e-9)
    assert format_value(mean, unit="s^-1") == "39.08 ± 0.23 s^-1"


def test_geiger_plateau_slope(corpus_folder):
    ws = _geiger(corpus_folder("en-geiger-radioactivity"))
    v = np.array([ws[f"A{r}"].value for r in range(2, 25)], float)
    n = np.array([[ws[f"{c}{r}"].value for c in "BCD"] for r in range(2, 25)], float)
    rate = n.mean(axis=1) / 30
    plateau = (v >= 840) & (v <= 1180)
    f = fit(v[plateau], rate[plateau])
    assert close(f.slope.nominal_value, 0.025416236670106635, 1e-9)
    assert close(f.slope.std_dev, 0.0011278274515201508, 1e-7)


# -- zh-youngs-modulus: 逐差法, type A + type B, propagation, extrapolation -----------------

YOUNGS = "实验数据 (Ex.01 杨氏模量 丁毅 2024-11-12).xlsx"
G = 9.807  # the report's value


def _youngs(folder: Path, sheet: str):
    return openpyxl.load_workbook(folder / YOUNGS, data_only=True)[sheet]


def test_youngs_stretching_with_successive_differences(corpus_folder):
    s1 = _youngs(corpus_folder("zh-youngs-modulus"), "1. 悬挂")
    d = measure([_num(s1[f"{c}5"].value) for c in "BCDEFG"], 0.004)  # mm, micrometer ±0.004
    assert close(d.nominal_value, 0.191333333, 1e-8) and close(d.std_dev, 0.00233333, 1e-5)
    length = measure([791.2], 2.0)  # mm, one tape reading ±2.0 mm: type B alone
    assert close(length.std_dev, 2.0 / math.sqrt(3))
    load = np.array([_num(s1[f"C{r}"].value) for r in range(12, 20)])
    unload = [s1[f"D{r}"].value for r in range(12, 20)]
    readings = np.array(
        [(a + _num(b)) / 2 if b is not None else a for a, b in zip(load, unload, strict=True)]
    )  # the 2000 g row has no unloading reading
    diffs = successive_differences(readings, 0.005)
    assert np.allclose(diffs.differences, [-0.85, -0.825, -0.9, -0.9])
    dl = -diffs.mean  # the readings fall as the load grows
    assert close(dl.nominal_value, 0.86875, 1e-12) and close(dl.std_dev, 0.0189709, 1e-5)
    force = 1.0 * G  # ΔM = 1 kg between the halves
    y = 4 * force * (length * 1e-3) / (math.pi * (d * 1e-3) ** 2 * (dl * 1e-3))
    assert close(y.nominal_value, 3.10639e11, 1e-5) and close(y.std_dev, 1.01796e10, 1e-4)
    assert format_value(y, unit="N/m^2") == "(3.11 ± 0.10) × 10^11 N/m^2"
    assert close(percent_difference(y, 2.3e11).nominal_value, 35.0606, 1e-5)
    # 最小二乘: the readings against the load
    mass = np.array([_num(s1[f"B{r}"].value) for r in range(12, 20)]) * 1e-3
    f = fit(mass, readings * 1e-3)
    assert close(f.slope.nominal_value, -0.000867857142857143, 1e-9)
    assert close(f.slope.std_dev, 1.3415985320934011e-05, 1e-7)
    assert close(f.r, -0.999284, 1e-6)


def test_youngs_hall_method_brass(corpus_folder):
    s2 = _youngs(corpus_folder("zh-youngs-modulus"), "2. 霍尔")
    d = measure([_num(s2[f"{c}5"].value) for c in "BCDEFG"], 0.12)  # mm rule
    b = measure([_num(s2[f"{c}6"].value) for c in "BCDEFG"], 0.02)  # vernier
    a = measure([_num(s2[f"{c}7"].value) for c in "BCDEFG"], 0.004)  # micrometer
    cols = "BCDEFGHI"
    mass = np.array([_num(s2[f"{c}12"].value) for c in cols])
    z = np.array([_num(s2[f"{c}13"].value) for c in cols])
    u = np.array([_num(s2[f"{c}14"].value) for c in cols])
    dz = successive_differences(z, 0.005).mean
    dm = successive_differences(mass, 0.1).mean
    assert close(dz.nominal_value, 0.44375, 1e-9) and close(dz.std_dev, 0.0129767, 1e-5)
    assert close(dm.nominal_value, 39.0, 1e-9) and close(dm.std_dev, 0.845577, 1e-5)
    y = (d * 1e-3) ** 3 * (dm * 1e-3) * G / (4 * (a * 1e-3) ** 3 * (b * 1e-3) * (dz * 1e-3))
    assert close(y.nominal_value, 1.18395e11, 1e-5) and close(y.std_dev, 4.52921e9, 1e-4)
    assert format_value(y, unit="N/m^2") == "(1.184 ± 0.045) × 10^11 N/m^2"
    assert close(percent_difference(y, 10.55e10).nominal_value, 12.2227, 1e-4)
    k = fit(z, u)  # the Hall sensor's calibration K = dU/dZ
    assert close(k.slope.nominal_value, 213.7411435718714, 1e-9)
    assert close(k.slope.std_dev, 2.7784271609437363, 1e-7)


def test_youngs_dynamic_method_extrapolates_to_the_node(corpus_folder):
    s3 = _youngs(corpus_folder("zh-youngs-modulus"), "3. 动态")
    x = np.array([_num(s3[f"{c}9"].value) for c in "BCDEFGHI"])
    f1 = np.array([_num(s3[f"{c}10"].value) for c in "BCDEFGHI"])
    q = fit(x, f1, "quadratic")
    node = q.at(0.224)
    assert close(node.nominal_value, 586.813, 1e-6) and close(node.std_dev, 0.163914, 1e-4)
    assert format_value(node, unit="Hz") == "586.81 ± 0.16 Hz"
    y = 1.6067 * 0.180**3 * 42.10e-3 * node**2 / 5.956e-3**4
    assert close(y.nominal_value, 1.07948e11, 1e-5) and close(y.std_dev, 6.03061e7, 1e-4)
    assert format_value(y, unit="N/m^2") == "(1.07948 ± 0.00060) × 10^11 N/m^2"
    assert close(percent_difference(y, 10.55e10).nominal_value, 2.32034, 1e-4)


# -- en-ac-resonance: a formula fit (Eq. 13) ----------------------------------------------------


def test_ac_resonance_curve_fit_of_the_manuals_formula(corpus_folder):
    ws = _sheet(corpus_folder("en-ac-resonance"), "alternating current excel.xlsx", "Sheet1")
    f_hz = np.array([ws[f"A{r}"].value for r in range(7, 26)], float) * 1e3
    v = np.array([ws[f"B{r}"].value for r in range(7, 26)], float)
    res = fit(
        f_hz,
        v / v.max(),
        "A/sqrt(1 + Q**2*(x/f0 - f0/x)**2)",
        p0={"A": 1, "f0": 4.5e3, "Q": 1.5},
    )
    assert list(res.params) == ["A", "Q", "f0"]
    assert close(res.f0.nominal_value, 4465.09, 1e-5) and close(res.f0.std_dev, 39.3822, 1e-4)
    assert close(res.Q.nominal_value, 1.65688, 1e-5) and close(res.Q.std_dev, 0.0637161, 1e-4)
    assert close(res.A.nominal_value, 1.04425, 1e-5) and close(res.A.std_dev, 0.0195236, 1e-4)
    rms = float(np.sqrt(np.mean(res.residuals**2)))
    assert close(rms, 0.0286745, 1e-4)
    q_theory = math.sqrt(0.5 / 2100e-12) / 10e3
    assert close(percent_difference(res.Q, q_theory).nominal_value, 7.378, 1e-3)


def test_the_corpus_marker_is_on_every_test_here(request):
    assert request.node.get_closest_marker("corpus") is not None


@pytest.mark.parametrize("name", ["no-such-folder"])
def test_a_missing_folder_skips_with_the_reason(corpus_folder, name):
    with pytest.raises(pytest.skip.Exception, match="LABWRIGHT_CORPUS"):
        corpus_folder(name)
