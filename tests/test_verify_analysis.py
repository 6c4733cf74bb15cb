"""Report numbers traced to what analysis code printed (material/evidence.py reads its
lines; report/verify extracts siunitx's compact form with an exponent)."""

from __future__ import annotations

import math

from labwright.core.material.evidence import evidence_numbers
from labwright.core.report.verify import extract_numbers, verify_report

RECORD = {
    "path": "analysis/planck-3fa2c1",
    "kind": "analysis_output",
    "text": (
        "linear fit of 5 points: y = slope*x + intercept\n"
        "  slope = (4.342 ± 0.079) × 10^-15\n"
        "h = (6.96 ± 0.13) × 10^-34 J s\n"
        "eta = 5.0 ± 1.9 %\n"
        "raw 4.34220717e-15\n"
    ),
    "inputs": ["Plank_data.xlsx"],
    "results": [
        {
            "name": "h",
            "value": 6.956982874225298e-34,
            "u": 1.260901292730629e-35,
            "unit": "J s",
            "text": "h = (6.96 ± 0.13) × 10^-34 J s",
            "line": 2,
        },
        {
            "name": "eta",
            "value": 4.9941,
            "u": 1.9,
            "unit": "%",
            "text": "eta = 5.0 ± 1.9 %",
            "line": 3,
        },
    ],
}


def _values(line: int) -> list[tuple[float, str | None]]:
    found = [n for n in evidence_numbers([RECORD]) if n.source.line == line]
    return sorted((n.value, n.unit.text if n.unit else None) for n in found)


def test_a_shared_power_of_ten_gives_the_mantissas_and_the_whole_values():
    got = _values(1)
    assert [v for v, _ in got] == sorted([4.342, 0.079, 4.342e-15, 0.079e-15])
    assert not any(v in (10.0, 15.0) for v, _ in got)  # "× 10^-15" is no number of its own


def test_a_shown_result_is_kept_exactly_with_its_unit():
    got = _values(2)
    assert (6.956982874225298e-34, "J s") in got and (1.260901292730629e-35, "J s") in got
    src = next(n.source for n in evidence_numbers([RECORD]) if n.source.line == 2)
    assert src.location == "line 3 printed by the analysis"
    assert src.excerpt == "h = (6.96 ± 0.13) × 10^-34 J s"
    assert src.path == "analysis/planck-3fa2c1"


def test_siunitx_compact_uncertainty_before_the_exponent():
    tex = r"\begin{document}$h = \SI{6.96(13)e-34}{\joule\second}$\end{document}"
    value, u = extract_numbers(tex)
    assert math.isclose(value.value, 6.96e-34) and value.unit is not None
    assert math.isclose(u.value, 0.13e-34) and u.role == "uncertainty"


def test_every_way_a_report_quotes_the_analysis_traces_to_its_line():
    tex = r"""\documentclass{article}\usepackage{siunitx}\begin{document}
The slope is $(4.342 \pm 0.079)\times10^{-15}$~V\,s and $h = \SI{6.96(13)e-34}{\joule\second}$,
that is $h = 6.957\times10^{-34}$~J\,s, \SI{4.99}{\percent} above the accepted value.
\end{document}"""
    v = verify_report(tex, [RECORD])
    checks = {c.number.text: c for c in v.checks if c.status != "skipped"}
    for text in ("4.342", "0.079", "6.96(13)e-34", "13", r"6.957\times10^{-34}", "4.99"):
        c = checks[text]
        assert c.status == "matched", (text, c.status, c.how)
        assert c.source.path == "analysis/planck-3fa2c1"
    assert checks["4.99"].source.line == 3 and checks["6.96(13)e-34"].source.line == 2


def test_positive_control_a_value_no_line_printed_is_not_traced():
    tex = r"\begin{document}The slope is $(4.913 \pm 0.079)\times10^{-15}$~V\,s.\end{document}"
    v = verify_report(tex, [RECORD])
    assert {c.number.text: c.status for c in v.checks}["4.913"] == "unmatched"
