"""Column names as a physicist writes them (core/report/offline/columns.py): written out by
hand, case by case; a name that does not parse is shown exactly as written."""

from __future__ import annotations

from pathlib import Path

import pytest

from labwright.core.material.tables import Table, extract_tables
from labwright.core.report.offline.columns import column_label, math_name, si_unit
from labwright.core.report.offline.formatting import tex_text
from labwright.core.report.offline.skeleton import _table_tex

# raw header → (LaTeX shown in a table header, shown otherwise than written?)
CASES = [
    ("length_m", r"length $L$ (\si{\metre})", True),
    ("mass_kg", r"mass $m$ (\si{\kilo\gram})", True),
    ("initial_speed", "initial speed", True),
    (
        "(V_o)^2* SIN(2* thetha)",
        r"$(V_{o})^{2}\allowbreak \sin(2\allowbreak \theta)$",
        True,
    ),
    ("0.5*(v_0*sin(theta))^2", r"$0.5\allowbreak (v_{0}\allowbreak \sin(\theta))^{2}$", True),
    ("f (kHz)", r"$f$ (\si{\kilo\hertz})", False),
    ("V [V]", r"$V$ (\si{\volt})", False),
    ("距离/cm", r"距离 (\si{\centi\metre})", False),
    ("Range, m", r"Range $R$ (\si{\metre})", False),
    ("g (m/s^2)", r"$g$ (\si{\metre\per\second\squared})", False),
    ("T^2 (s^2)", r"$T^{2}$ (\si{\second\squared})", True),
    ("θ (°)", r"$\theta$ (\si{\degree})", True),
    ("Δt (ms)", r"$\Delta\allowbreak t$ (\si{\milli\second})", True),
    ("d x", r"$\delta x$", True),  # an uncertainty column, as the roles read it
    ("sqrt(L)", r"$\sqrt{L}$", True),  # a formula, not litres
    ("x", "$x$", False),
    # Conservative: not parsed, shown escaped exactly as written.
    ("v2sin2thetha", "v2sin2thetha", False),  # v·2 or v²? not guessed
    ("0.5(Vsintheta)^2", None, False),
    ("Experimental Velocity, ms-1", "Experimental Velocity (ms-1)", False),  # m/s or 1/ms?
    ("counts (a.u.)", "counts (a.u.)", False),  # no siunitx unit: text
    ("% discrepancy", r"\% discrepancy", False),
    ("1", "1", False),  # a trial number is no quantity
    ("$\\input{x}$", None, False),
]


@pytest.mark.parametrize(("raw", "tex", "changed"), CASES)
def test_column_label(raw: str, tex: str | None, changed: bool) -> None:
    label = column_label(raw)
    if tex is None:  # escaped as written, break points aside
        assert label.tex.replace(r"\allowbreak{}", "") == tex_text(raw)
    else:
        assert label.tex == tex
    assert label.changed is changed


def test_math_and_plain_forms_agree() -> None:
    label = column_label("(V_o)^2* SIN(2* thetha)")
    assert label.mpl == r"$(V_{o})^{2} \sin(2 \theta)$"  # mathtext for the figure's axes
    assert label.plain == "(V_o)^2* SIN(2* thetha)"
    assert column_label("length_m").mpl == "length $L$ (m)"
    assert column_label("cost $5 (V)").mpl == r"cost \$5 (V)"  # a "$" in data is no formula
    assert math_name("Vexp^2+gdsin(theta )") is None


def test_without_siunitx_units_are_text() -> None:
    assert column_label("f (kHz)", siunitx=False).tex == "$f$ (kHz)"


@pytest.mark.parametrize(
    ("unit", "si"),
    [
        ("m/s^2", r"\si{\metre\per\second\squared}"),
        ("kg m^-3", r"\si{\kilo\gram\per\metre\cubed}"),
        ("m s⁻²", r"\si{\metre\per\second\squared}"),
        ("µA", r"\si{\micro\ampere}"),
        ("kΩ", r"\si{\kilo\ohm}"),
        ("ms", r"\si{\milli\second}"),
        ("%", r"\si{\percent}"),
        ("ms-1", None),
        ("mmHg", None),
        ("J/(kg K)", None),
        ("a.u.", None),
    ],
)
def test_si_unit(unit: str, si: str | None) -> None:
    assert si_unit(unit) == si


def test_table_headers_and_raw_names_in_the_caption(tmp_path: Path) -> None:
    (tmp_path / "data.csv").write_text(
        "length_m,T (s),(V_o)^2* SIN(2* thetha)\n0.2,0.90,1\n0.4,1.27,2\n0.6,1.55,3\n",
        encoding="utf-8",
    )
    (table,) = extract_tables(tmp_path, ["data.csv"])
    tex = "\n".join(_table_tex(table, 1, "en"))
    header = next(line for line in tex.splitlines() if line.startswith("line &"))
    assert r"length $L$ (\si{\metre})" in header and r"$T$ (\si{\second})" in header
    assert r"\sin(2\allowbreak \theta)" in header and "length\\_m" not in header
    caption = next(line for line in tex.splitlines() if line.startswith("\\caption"))
    assert r"Columns as written in the file: \texttt{length\_m}" in caption
    assert r"\texttt{(V\_o)\textasciicircum{}2* SIN(2* thetha)}" in caption
    assert r"\texttt{T (s)}" not in caption  # written plainly: nothing to restore


def test_hand_built_table_without_detector_fields() -> None:
    table = Table("t.csv", None, 2, 3, "t.csv, lines 2–3", ["x_m", "y"], [[1.0, 2.0], [2.0, 3.0]])
    tex = "\n".join(_table_tex(table, 1, "en"))
    assert "x\\_m" in tex  # "x_m": one letter is no word, so no unit is guessed from it


def test_figure_axes_and_caption_use_the_labels(tmp_path: Path) -> None:
    from labwright.core.report.offline.plots import plot_table

    (tmp_path / "data.csv").write_text(
        "time_s,height_m\n0,1.0\n1,3.1\n2,4.9\n3,7.2\n4,8.8\n", encoding="utf-8"
    )
    (table,) = extract_tables(tmp_path, ["data.csv"])
    made = plot_table(table, tmp_path / "figures", "fig", tmp_path)
    assert made is not None
    assert made["caption"].startswith("height (m) against time (s).")
    assert made["caption_tex"].startswith(
        r"height $h$ (\si{\metre}) against time $t$ (\si{\second})."
    )
    assert r"\texttt{time\_s}" in made["caption_tex"]  # the raw names, in the provenance
