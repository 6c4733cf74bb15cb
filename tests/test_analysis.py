"""The analysis library (core/analysis): fits, uncertainties, derived columns, formatting.

Known answers come from independent code on the same numbers — scipy.stats.linregress,
numpy.polyfit with its covariance, scipy.optimize.curve_fit, numpy by hand — never from
the library itself."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from scipy import optimize, stats

from labwright.core.analysis import (
    ExpressionError,
    FitError,
    combined,
    derive,
    fit,
    format_value,
    make_show,
    measure,
    parse,
    percent_difference,
    round_pair,
    si_unit,
    siunitx,
    successive_differences,
    t_factor,
    type_a,
    type_b,
)

# examples/pendulum/data/periods.csv: L (m) and the mean of three 10-swing times (s)
L = np.array([0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0])
T10 = np.array(
    [
        [8.98, 9.04, 8.98],
        [11.00, 10.95, 11.01],
        [12.82, 12.77, 12.82],
        [14.25, 14.27, 14.25],
        [15.46, 15.66, 15.63],
        [16.88, 16.71, 16.70],
        [17.93, 17.97, 18.03],
        [19.09, 19.14, 19.05],
        [20.16, 20.16, 20.08],
    ]
)
T2 = (T10.mean(axis=1) / 10) ** 2
SIGMA_T2 = 2 * np.sqrt(T2) * T10.std(axis=1, ddof=1) / math.sqrt(3) / 10  # σ(T²) = 2T σ(T)


def close(a: float, b: float, rel: float = 1e-9) -> bool:
    return math.isclose(a, b, rel_tol=rel, abs_tol=1e-300)


# -- fits -------------------------------------------------------------------------------------


def test_an_unweighted_line_is_what_linregress_gives():
    f = fit(L, T2)
    ref = stats.linregress(L, T2)
    assert close(f.slope.nominal_value, ref.slope) and close(f.slope.std_dev, ref.stderr)
    assert close(f.intercept.nominal_value, ref.intercept)
    assert close(f.intercept.std_dev, ref.intercept_stderr)
    assert close(f.r, ref.rvalue) and close(f.r2, ref.rvalue**2, 1e-12)
    assert f.chi2_ndf is None  # no sigma, no χ²
    assert np.allclose(f.residuals, T2 - (ref.slope * L + ref.intercept))


def test_a_weighted_line_is_numpy_polyfit_with_absolute_sigma():
    f = fit(L, T2, sigma=SIGMA_T2)
    coef, cov = np.polyfit(L, T2, 1, w=1 / SIGMA_T2, cov="unscaled")
    assert close(f.slope.nominal_value, coef[0]) and close(f.intercept.nominal_value, coef[1])
    assert close(f.slope.std_dev, math.sqrt(cov[0, 0]))
    assert close(f.intercept.std_dev, math.sqrt(cov[1, 1]))
    chi2 = float(np.sum(((T2 - np.polyval(coef, L)) / SIGMA_T2) ** 2))
    assert close(f.chi2_ndf, chi2 / (len(L) - 2))


def test_x_of_order_1e14_loses_no_digits():
    # stopping voltage against frequency in Hz: the normal equations alone would lose it
    nu = np.array([8.2, 7.4, 6.9, 5.5, 5.2]) * 1e14
    u0 = np.array([1.82, 1.49, 1.25, 0.66, 0.54])
    ref = stats.linregress(nu, u0)
    f = fit(nu, u0)
    assert close(f.slope.nominal_value, ref.slope, 1e-10)
    assert close(f.slope.std_dev, ref.stderr, 1e-8)


def test_the_parameters_are_correlated_ufloats():
    f = fit(L, T2)
    coef, cov = np.polyfit(L, T2, 1, cov=True)  # scaled by RSS/(n − p), as without sigma
    # where the line meets y = 0: −intercept/slope, propagated with the covariance
    x0 = -f.intercept / f.slope
    grad = np.array(
        [f.intercept.nominal_value / f.slope.nominal_value**2, -1 / f.slope.nominal_value]
    )
    assert close(x0.std_dev, math.sqrt(grad @ cov @ grad), 1e-6)


def test_a_proportional_fit_has_no_intercept():
    f = fit(L, T2, "proportional")
    slope, res, *_ = np.linalg.lstsq(L[:, None], T2, rcond=None)
    s2 = float(res[0]) / (len(L) - 1)
    assert list(f.params) == ["slope"]
    assert close(f.slope.nominal_value, slope[0])
    assert close(f.slope.std_dev, math.sqrt(s2 / np.sum(L**2)))


def test_a_quadratic_and_a_polynomial_are_curve_fit_s_answer():
    x = np.array([0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7])
    y = np.array([590.1, 588.0, 587.1, 586.9, 587.6, 589.2, 591.9, 595.3])
    q = fit(x, y, "quadratic")
    p, cov = optimize.curve_fit(lambda x, a, b, c: a * x**2 + b * x + c, x, y)
    assert np.allclose([q.a.nominal_value, q.b.nominal_value, q.c.nominal_value], p, rtol=1e-7)
    assert np.allclose([q.a.std_dev, q.b.std_dev, q.c.std_dev], np.sqrt(np.diag(cov)), rtol=1e-5)
    # the curve at a point, with the parameters' covariance: J cov Jᵀ
    jac = np.array([0.224**2, 0.224, 1.0])
    at = q.at(0.224)
    assert close(at.nominal_value, float(np.polyval(p, 0.224)), 1e-7)
    assert close(at.std_dev, math.sqrt(jac @ cov @ jac), 1e-4)
    cubic = fit(x, y, "poly3")
    p3 = np.polyfit(x, y, 3)
    assert np.allclose([cubic.params[f"c{k}"].nominal_value for k in range(4)], p3[::-1])


def test_exponential_and_power_start_from_their_log_line():
    x = np.array([0.0, 1, 2, 3, 4, 5])
    y = np.array([10.2, 6.0, 3.7, 2.2, 1.37, 0.80])
    e = fit(x, y, "exponential")
    p, cov = optimize.curve_fit(lambda x, a, b: a * np.exp(b * x), x, y, p0=[10, -0.5])
    assert np.allclose([e.a.nominal_value, e.b.nominal_value], p, rtol=1e-6)
    assert np.allclose([e.a.std_dev, e.b.std_dev], np.sqrt(np.diag(cov)), rtol=1e-4)
    xp = np.array([1.0, 2, 3, 4, 5])
    yp = np.array([2.0, 8.1, 18.0, 32.5, 49.0])
    pw = fit(xp, yp, "power", sigma=0.5)
    p, cov = optimize.curve_fit(
        lambda x, a, b: a * x**b, xp, yp, p0=[2, 2], sigma=np.full(5, 0.5), absolute_sigma=True
    )
    assert np.allclose([pw.a.nominal_value, pw.b.nominal_value], p, rtol=1e-6)
    assert np.allclose([pw.a.std_dev, pw.b.std_dev], np.sqrt(np.diag(cov)), rtol=1e-4)


def test_a_formula_fit_is_curve_fit_on_the_same_function():
    x = np.array([0.0, 0.5, 1, 1.5, 2, 3, 4])
    y = np.array([5.10, 3.95, 3.18, 2.55, 2.12, 1.58, 1.30])
    f = fit(x, y, "a*exp(-b*x)+c", p0={"a": 4, "b": 1, "c": 1})
    p, cov = optimize.curve_fit(lambda x, a, b, c: a * np.exp(-b * x) + c, x, y, p0=[4, 1, 1])
    assert list(f.params) == ["a", "b", "c"]
    assert np.allclose([v.nominal_value for v in f.params.values()], p, rtol=1e-6)
    assert np.allclose([v.std_dev for v in f.params.values()], np.sqrt(np.diag(cov)), rtol=1e-4)
    assert f.equation_tex() == r"y = 4.120\,e^{-0.638\,x} + 0.976"  # to the u digits


def test_ufloat_y_brings_its_sigma():
    from uncertainties import unumpy

    f = fit(L, unumpy.uarray(T2, SIGMA_T2))
    g = fit(L, T2, sigma=SIGMA_T2)
    assert close(f.slope.std_dev, g.slope.std_dev) and f.chi2_ndf == g.chi2_ndf


def test_missing_points_are_left_out():
    y = T2.copy()
    y[3] = np.nan
    f = fit(L, y)
    keep = ~np.isnan(y)
    assert f.n == 8 and close(f.slope.nominal_value, stats.linregress(L[keep], y[keep]).slope)


@pytest.mark.parametrize(
    ("args", "kwargs", "said"),
    [
        (([1, 2], [1, 2]), {}, "at least 3 points"),
        ((L, T2), {"sigma": np.zeros(9)}, "sigma must be positive"),
        ((L, T2[:4]), {}, "x has 9 values and y 4"),
        ((L, T2, "cosh-ish"), {}, "neither a named model"),
        ((L, T2, "a*b"), {}, "has no x"),
        ((L, T2, "a*x"), {"p0": [1, 2]}, "p0 has 2 values"),
        ((L, T2, "a*x"), {"p0": {"q": 1}}, "p0 names q"),
    ],
)
def test_a_fit_that_cannot_be_made_says_why(args, kwargs, said):
    with pytest.raises(FitError, match=said):
        fit(*args, **kwargs)


def test_a_fit_that_does_not_converge_asks_for_starting_values():
    x = np.linspace(1, 10, 20)
    y = 3 * np.sin(7 * x) + 0.1 * x
    with pytest.raises(FitError, match="did not converge.*p0=\\{'a': ..., 'b': ...\\}"):
        fit(x, y, "a*exp(b*x)", p0=[1, 1], maxfev=3)
    with pytest.raises(FitError, match="found no uncertainties.*p0="):
        fit(x, y, "a*sin(w*x)/(x-d)**9")  # undefined at x = d = 1, its start


def test_the_fitted_equation_reads_as_a_report_writes_it():
    nu = np.array([8.2, 7.4, 6.9, 5.5, 5.2]) * 1e14
    u0 = np.array([1.82, 1.49, 1.25, 0.66, 0.54])
    f = fit(nu, u0)
    assert f.equation_tex(r"\nu", "U_0") == r"U_0 = 4.288\times10^{-15}\,\nu - 1.695"
    assert fit(L, T2, "power").equation_tex(values=False) == "y = a\\,x^{b}"
    assert "slope = " in str(f) and "r = 0.99" in str(f)


# -- formulas -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "__import__('os').system('true')",
        "x.__class__",
        "().__class__.__bases__",
        "(lambda: 1)()",
        "[x][0]",
        "'text'",
        "open('x')",
        "exp(x, x)",
        "sqrt(x=1)",
        "x if x else 1",
        "(y := 2)",
        "x == 1",
        "x and x",
        "f'{x}'",
        "__x__ + 1",
        "exp",
        "x[0]",
        "*x",
        "1j * x",
        "True * x",
        "x" + " + x" * 250,
    ],
)
def test_a_formula_is_plain_arithmetic_or_refused(text):
    with pytest.raises(ExpressionError):
        parse(text)


def test_an_allowed_formula_computes_what_numpy_computes():
    x = np.array([0.5, 1.0, 2.0])
    e = parse("a*exp(-b*x) + c*sqrt(x)/log(1+x) - abs(-x)**2")
    assert e.names == ("a", "b", "x", "c")
    want = 2 * np.exp(-0.3 * x) + 4 * np.sqrt(x) / np.log(1 + x) - x**2
    assert np.allclose(e.evaluate(a=2, b=0.3, c=4, x=x), want)
    assert parse("9**9**9").evaluate() == math.inf  # floats: no hour-long integer power
    assert parse("U·I").names == ("U", "I") and parse("ln R").names == ("R",)
    assert parse("x²").evaluate(x=3.0) == 9.0


def test_a_formula_carries_uncertainties_through_functions():
    from uncertainties import ufloat, unumpy

    r = ufloat(2.0, 0.1)
    got = parse("ln(R) + abs(-R)").evaluate(R=r)
    assert close(got.nominal_value, math.log(2) + 2) and close(got.std_dev, 0.1 * (1 / 2 + 1))
    arr = parse("sqrt(R)").evaluate(R=unumpy.uarray([4.0, 9.0], [0.4, 0.9]))
    assert np.allclose(unumpy.std_devs(arr), [0.1, 0.15])


# -- uncertainty ----------------------------------------------------------------------------


def test_type_a_is_the_standard_deviation_of_the_mean_with_student_t():
    x = [0.192, 0.190, 0.193, 0.189, 0.191, 0.193]
    s_mean = np.std(x, ddof=1) / math.sqrt(6)
    assert close(type_a(x), s_mean)
    assert close(t_factor(6, 0.683), stats.t.ppf((1 + 0.683) / 2, 5))
    assert close(type_a(x, confidence=0.95), s_mean * 2.570581835636314, 1e-9)
    with pytest.raises(ValueError, match="at least 2"):
        type_a([1.0])


def test_type_b_divides_the_limit_of_error_by_the_convention():
    assert close(type_b(0.02), 0.02 / math.sqrt(3))
    assert close(type_b(0.02, "normal"), 0.02 / 3)
    assert close(type_b(0.02, "triangular"), 0.02 / math.sqrt(6))
    assert close(type_b(0.02, 2), 0.01)
    assert close(combined(3, 4), 5.0)


def test_a_measurement_combines_type_a_and_type_b():
    x = [0.192, 0.190, 0.193, 0.189, 0.191, 0.193]
    m = measure(x, 0.004)
    assert close(m.nominal_value, float(np.mean(x)))
    assert close(m.std_dev, math.hypot(np.std(x, ddof=1) / math.sqrt(6), 0.004 / math.sqrt(3)))
    single = measure([791.2], 2.0)  # one reading: its instrument alone
    assert close(single.std_dev, 2.0 / math.sqrt(3))


def test_successive_differences_subtract_the_first_half_from_the_second():
    y = [10.0, 12.1, 13.9, 16.2, 18.0, 19.9, 22.1, 24.0]
    d = successive_differences(y, 0.05)
    want = np.array(y[4:]) - np.array(y[:4])
    assert np.allclose(d.differences, want) and d.k == 4
    assert close(d.mean.nominal_value, want.mean())
    uA = np.std(want, ddof=1) / 2
    assert close(d.mean.std_dev, math.hypot(uA, 0.05 / math.sqrt(3)))
    assert close(d.per_step.nominal_value, want.mean() / 4)
    with pytest.raises(ValueError, match="drop="):
        successive_differences(y[:7])
    assert successive_differences(y[:7], drop="middle").k == 3


# -- derived quantities ---------------------------------------------------------------------


def _df() -> pd.DataFrame:
    df = pd.DataFrame({"U": [1.0, 2.0], "I": [0.1, 0.25], "P": [2.0, 4.0], "R": [10.0, 20.0]})
    df["U_0 (V)"] = [3.0, 4.0]
    df.attrs["units"] = {"U": "V", "I": "A", "P": "W", "R": "Ω", "U_0 (V)": "V"}
    return df


@pytest.mark.parametrize(
    ("formula", "values", "unit"),
    [
        ("UI = U·I", [0.1, 0.5], "V A"),
        ("Pinv = 1/P", [0.5, 0.25], "W^-1"),
        ("lnR = ln R", [math.log(10), math.log(20)], ""),
        ("U2 = U²", [1.0, 4.0], "V^2"),
        ("k = U/I", [10.0, 8.0], "V A^-1"),
        ("bad = U + I", [1.1, 2.25], ""),
        ("twice = `U_0 (V)` * 2", [6.0, 8.0], "V"),
    ],
)
def test_a_derived_column_gets_its_unit(formula, values, unit):
    df = _df()
    out = derive(df, formula)
    name = formula.split("=")[0].strip()
    assert np.allclose(out[name], values)
    assert out.attrs["units"][name] == unit
    assert name not in df.columns  # the caller's frame is left as it was


def test_percent_difference_from_a_reference():
    from uncertainties import ufloat

    assert close(percent_difference(6.957e-34, 6.626e-34), (6.957 - 6.626) / 6.626 * 100)
    h = ufloat(6.957e-34, 0.126e-34)
    pd_ = percent_difference(h, 6.62607015e-34)
    assert close(pd_.std_dev, 0.126e-34 / 6.62607015e-34 * 100)
    assert close(percent_difference(-9.0, -10.0), 10.0)


# -- value ± uncertainty --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "u", "rule", "text"),
    [
        (-0.33612, 0.07371, "2", "-0.336 ± 0.074"),  # DESIGN.md's example
        (4.3422e-15, 7.87e-17, "pdg", "(4.34 ± 0.08) × 10^-15"),
        (4.3422e-15, 7.87e-17, "2", "(4.342 ± 0.079) × 10^-15"),
        (6.957e-34, 1.2609e-35, "2", "(6.96 ± 0.13) × 10^-34"),
        (5.7952e-3, 5.98e-5, "pdg", "(5.80 ± 0.06) × 10^-3"),
        (1.2345, 0.0996, "2", "1.23 ± 0.10"),  # the rounding carries into a new digit
        (1.2345, 0.354, "pdg", "1.23 ± 0.35"),  # PDG: 100–354 keep two digits
        (1.2345, 0.355, "pdg", "1.2 ± 0.4"),  # 355–949 one
        (1.2345, 0.949, "pdg", "1.2 ± 0.9"),
        (1.2345, 0.951, "pdg", "1.2 ± 1.0"),  # 950–999 round up to 1000, two digits
        (12345.6, 123.0, "2", "12350 ± 120"),
        (0.0, 0.05, "2", "0.000 ± 0.050"),
        (9.7671, 0.0398, "1", "9.77 ± 0.04"),
        (-2e-5, 3e-6, "2", "(-2.00 ± 0.30) × 10^-5"),
    ],
)
def test_value_and_uncertainty_are_rounded_together(value, u, rule, text):
    assert format_value(value, u, rule=rule) == text


def test_a_value_alone_keeps_its_digits():
    assert format_value(9.80665) == "9.807"
    assert format_value(3.98529e14) == "3.985 × 10^14"
    assert format_value(2.0, digits=3) == "2.00"


def test_siunitx_takes_the_compact_uncertainty():
    assert siunitx(4.3422e-15, 7.87e-17, "V s", rule="pdg") == r"\SI{4.34(8)e-15}{\volt\second}"
    assert siunitx(-0.33612, 0.07371) == r"\num{-0.336(74)}"
    assert siunitx(1230.0, 120.0, "Hz") == r"\SI{1230(120)}{\hertz}"
    assert siunitx(5.7952e-3, 5.98e-5, "cm^2/mg", rule="pdg") == (
        r"\SI{5.80(6)e-3}{\centi\metre\squared\per\milli\gram}"
    )
    assert si_unit("m/s^2") == r"\metre\per\second\squared" and si_unit("a.u.") is None
    assert siunitx(1.5, 0.2, "a.u.") == r"\SI{1.50(20)}{a.u.}"  # a literal unit


def test_a_ufloat_formats_with_its_own_uncertainty():
    from uncertainties import ufloat

    assert format_value(ufloat(-0.33612, 0.07371), unit="V") == "-0.336 ± 0.074 V"
    assert format_value((2.5, 0.123)) == "2.50 ± 0.12"
    r = round_pair(4.3422e-15, 7.87e-17, rule="pdg")
    assert (r.value, r.uncertainty, r.exponent) == ("4.34", "0.08", -15)
    assert format_value(4.3422e-15, 7.87e-17, "V s", rule="pdg", style="tex") == (
        r"(4.34 \pm 0.08)\times 10^{-15}~\si{\volt\second}"
    )


def test_show_prints_one_line_and_records_it():
    from uncertainties import ufloat

    printed: list[str] = []
    results: list[dict] = []
    show = make_show(results, printed.append)
    show("g", ufloat(9.7671, 0.0398), "m/s^2")
    show("n", 3)
    show("line", fit(L, T2))
    assert printed[0] == "g = 9.767 ± 0.040 m/s^2" and printed[1] == "n = 3.000"
    assert printed[2].startswith("line: linear fit of 9 points")
    assert printed[3].startswith("line.slope = 4.04")
    assert results[0] == {
        "name": "g",
        "value": 9.7671,
        "u": 0.0398,
        "unit": "m/s^2",
        "text": "g = 9.767 ± 0.040 m/s^2",
    }
    with pytest.raises(TypeError, match="one number"):
        show("all", np.array([1.0, 2.0]))
