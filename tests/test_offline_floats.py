"""Floats placed so that no page of the offline report is left mostly blank.

Measured on the compiled PDF: for every page but the last, how far down its content
reaches (text positions from pypdf, figures where they are drawn); a table pinned in
place with [H] that does not fit what is left of a page leaves the rest of it empty.
"""

from __future__ import annotations

import math
import warnings
from pathlib import Path

import pytest

from labwright.core.material.workspace import scan_folder
from labwright.core.report.offline import offline_report
from labwright.core.report.templates import load_template

PENDULUM = Path(__file__).resolve().parents[1] / "examples" / "pendulum"


def page_fill(page) -> float:
    """How far down `page` its content reaches: 0 at the top, 1 at the bottom edge.

    Text inside a figure (a form XObject) is skipped — pypdf gives it in the figure's
    own coordinates — and the figure counts from where it is drawn. The page number
    at the foot is not content.
    """
    height = float(page.mediabox.height)
    lows: list[float] = []
    depth = [0]

    def before(op: bytes, args: list, cm: list, tm: list) -> None:
        if op == b"Do":
            if depth[0] == 0:
                lows.append(cm[5])
            depth[0] += 1

    def after(op: bytes, args: list, cm: list, tm: list) -> None:
        if op == b"Do":
            depth[0] -= 1

    def text(t: str, cm: list, tm: list, font: object, size: float) -> None:
        if depth[0] or not t.strip():
            return
        y = tm[4] * cm[1] + tm[5] * cm[3] + cm[5]
        if not (t.strip().isdigit() and y < 0.12 * height):
            lows.append(y)

    page.extract_text(visitor_operand_before=before, visitor_operand_after=after, visitor_text=text)
    return 1 - min(lows) / height if lows else 0.0


def _fills(pdf: Path) -> list[float]:
    from pypdf import PdfReader

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return [page_fill(p) for p in PdfReader(str(pdf)).pages]


def _tall_tables(root: Path) -> Path:
    """Two 24-row tables, each with its plot: too tall to fit under the first page's text."""
    folder = root / "lab"
    (folder / "data").mkdir(parents=True)
    rows = ["length_m,T (s),T2 (s^2)"]
    for i in range(24):
        length = 0.2 + 0.05 * i
        t = 2 * math.pi * math.sqrt(length / 9.81)
        rows.append(f"{length:.2f},{t:.3f},{t * t:.3f}")
    (folder / "data" / "pendulum.csv").write_text("\n".join(rows) + "\n", encoding="utf-8")
    rows = ["time_s,x_m,y_m"]
    for i in range(24):
        t = 0.05 * i
        rows.append(f"{t:.2f},{1.2 * t:.3f},{3 * t - 4.9 * t * t:.3f}")
    (folder / "data" / "trajectory.csv").write_text("\n".join(rows) + "\n", encoding="utf-8")
    (folder / "manual.md").write_text(
        "# Lab 2\n\n## Aim\nMeasure g.\n\n## The report must contain\n"
        "- a table of the measurements;\n- a plot of T² against L with the fit;\n",
        encoding="utf-8",
    )
    return folder


@pytest.mark.parametrize(("material", "template"), [
    ("tall", "lab-zh"),  # pinned with [H], its third page was 38 % full
    ("tall", "brief-en"),
    ("pendulum", "lab-en"),
    # the skeleton tests/test_offline.py compiles too (conftest's projectile_skeleton)
    pytest.param("projectile", "lab-en"),
])  # fmt: skip
def test_no_page_but_the_last_is_mostly_blank(
    material: str, template: str, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    from test_offline import _compile

    if material == "projectile":
        made = request.getfixturevalue("projectile_skeleton")
        report, pdf = made.report, made.pdf
    else:
        folder = _tall_tables(tmp_path) if material == "tall" else PENDULUM
        run = tmp_path / "run"
        report = offline_report(
            folder, scan_folder(folder), load_template(template), run / "figures"
        )
        pdf = _compile(run, report.tex)
    assert "[H]" not in report.tex and report.figures
    fills = _fills(pdf)
    assert len(fills) >= 2
    half_empty = [(n, round(f, 2)) for n, f in enumerate(fills[:-1], start=1) if f < 0.5]
    assert not half_empty, fills
