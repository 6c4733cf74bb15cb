"""Writes the messy-sheet corpus into a folder, deterministically (no randomness without a seed).

    python tests/data/messy/make_messy.py OUT_DIR [--big]

Each file is a kind of mess seen in real course folders. The expected tables,
headers, roles and statistics are written down by hand in
tests/test_tables_messy.py, not derived from this script. The 10^5-row file
(and bench/bench_tables.py's 10^6-row one) are made only on request, at test
or bench time, never committed.
"""

from __future__ import annotations

import math
import sys
from pathlib import Path


def side_by_side(out: Path) -> None:
    """A series in A-C, 30 rows; a small R/Q table from I22, beside it."""
    import openpyxl

    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "Data"
    ws["A1"] = "Calibration run 3"
    ws.append([])
    ws["A3"], ws["B3"], ws["C3"] = "I (mA)", "Reading (div)", "d Reading"
    for k in range(30):
        r = 4 + k
        ws.cell(r, 1, 10 * (k + 1))
        ws.cell(r, 2, round(0.5 * (k + 1) + 0.01 * (k % 3), 3))
        ws.cell(r, 3, 0.05)
    ws["I21"] = "Resonance"
    ws["I22"], ws["J22"] = "R (Ω)", "Q"
    for k, (r_, q) in enumerate([(10, 35.2), (22, 16.1), (47, 7.4)]):
        ws.cell(23 + k, 9, r_)
        ws.cell(23 + k, 10, q)
    ws["A36"] = "Note: reading at 250 mA repeated"
    wb.save(out / "side_by_side.xlsx")


def count_header(out: Path) -> None:
    """Absorbers: a text column, a merged "Counts" over a header row 1-4, two-row header."""
    import openpyxl

    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "Absorption"
    ws["A1"], ws["B1"], ws["C1"] = "Absorber", "Thickness (mm)", "Counts in 60 s"
    ws.merge_cells("C1:F1")
    for k in range(4):
        ws.cell(2, 3 + k, k + 1)
    rows = [
        ("Al", 1.0, [812, 790, 805, 799]),
        ("Al", 2.0, [650, 661, 644, 655]),
        ("Poly", 1.0, [902, 915, 899, 910]),
        ("Poly", 2.0, [850, 841, 858, 847]),
    ]
    for i, (name, t, counts) in enumerate(rows):
        ws.cell(3 + i, 1, name)
        ws.cell(3 + i, 2, t)
        for k, c in enumerate(counts):
            ws.cell(3 + i, 3 + k, c)
    wb.save(out / "absorbers.xlsx")


def units_row(out: Path) -> None:
    """A units row under the names, and a "Mean" row under the data."""
    lines = ["Voltage;Current;Power", "[V];[mA];[mW]"]
    for k in range(1, 7):
        v = 0.5 * k
        i = 2.0 * v + 0.1
        lines.append(f"{v:.1f};{i:.2f};{v * i:.3f}".replace(".", ","))
    lines.append("Mean;;")
    (out / "units_row.csv").write_text("\n".join(lines) + "\n", encoding="utf-8")


def template(out: Path) -> None:
    """A template sheet: only the set frequencies are filled in."""
    text = "f (kHz),V_in [V],V_out [V],phase (°)\n" + "".join(
        f"{f},,,\n" for f in (0.1, 0.2, 0.5, 1, 2, 5, 10, 20)
    )
    (out / "template.csv").write_text(text, encoding="utf-8")


def densities(out: Path) -> None:
    """Repeated measurements of different materials: a category column."""
    lines = ["Material,m (g),V (cm3),rho (g/cm3)"]
    data = {"Al": (2.70, [10.1, 20.3, 15.2]), "Cu": (8.96, [30.5, 44.8, 12.4]),
            "Brass": (8.50, [25.5, 17.0, 34.0])}  # fmt: skip
    for name, (rho, masses) in data.items():
        for m in masses:
            v = round(m / rho, 2)
            lines.append(f"{name},{m},{v},{round(m / v, 3)}")
    (out / "densities.csv").write_text("\n".join(lines) + "\n", encoding="utf-8")


def gbk(out: Path) -> None:
    """GBK text with Chinese headers and units after a slash; a title line above."""
    lines = ["单摆实验数据", "摆长/cm,周期T/s,误差/s"]
    for k, length in enumerate((40, 60, 80, 100, 120)):
        period = 2 * math.pi * math.sqrt(length / 100 / 9.8)
        lines.append(f"{length},{period:.3f},{0.01 + 0.001 * k:.3f}")
    (out / "单摆.csv").write_bytes(("\n".join(lines) + "\n").encode("gbk"))


def stacked(out: Path) -> None:
    """Two tables one under the other with titles, separated by a blank line; a free note."""
    lines = ["Run A", "t (s),x (m),y (m)"]
    lines += [
        f"{0.1 * k:.1f},{1.5 * 0.1 * k:.3f},{2.0 * 0.1 * k - 4.9 * (0.1 * k) ** 2:.4f}"
        for k in range(6)
    ]
    lines += ["", "Run B", "t (s),x (m),y (m)"]
    lines += [
        f"{0.1 * k:.1f},{2.5 * 0.1 * k:.3f},{3.0 * 0.1 * k - 4.9 * (0.1 * k) ** 2:.4f}"
        for k in range(8)
    ]
    lines += ["", "operator: J. Doe", "g = 9.81"]
    (out / "stacked.csv").write_text("\n".join(lines) + "\n", encoding="utf-8")


def series(out: Path) -> None:
    """A series of similar files: spectra at several gains."""
    folder = out / "spectra"
    folder.mkdir(exist_ok=True)
    for gain in (1, 2, 5, 10):
        text = "frequency (Hz)\tamplitude (dB)\n" + "".join(
            f"{f}\t{20 * math.log10(gain) - 3 * math.log10(f):.2f}\n" for f in range(100, 1100, 100)
        )
        (folder / f"gain_{gain:02d}.txt").write_text(text, encoding="utf-8")


def instrument_day(out: Path) -> None:
    """One folder of a day at the bench: 31 analyzer spectra, 14 scope traces and a note.

    Spectrum k (SA_001.csv … SA_031.csv): 51 frequencies 500–1500 Hz in steps of 20,
    a Lorentzian line of level -20 - k/2 dBm exactly at 600 + 20·k Hz over a -70 dBm floor.
    Trace j (scope_01.csv … scope_14.csv): 200 times 0.00–1.99 ms; a pulse of 0.1·j V
    from 0.50 to 0.60 ms (11 samples), 0 V elsewhere.
    """
    folder = out / "bench_day"
    folder.mkdir(exist_ok=True)
    for k in range(1, 32):
        fk, height = 600 + 20 * k, 50 - k / 2
        lines = ["Frequency (Hz),Level (dBm)"]
        for i in range(51):
            f = 500 + 20 * i
            lines.append(f"{f},{-70 + height / (1 + ((f - fk) / 40) ** 2):.2f}")
        (folder / f"SA_{k:03d}.csv").write_text("\n".join(lines) + "\n", encoding="utf-8")
    for j in range(1, 15):
        lines = ["Time (ms),CH1 (V)"]
        for i in range(200):
            lines.append(f"{i / 100:.2f},{0.1 * j if 50 <= i <= 60 else 0.0:.2f}")
        (folder / f"scope_{j:02d}.csv").write_text("\n".join(lines) + "\n", encoding="utf-8")
    (folder / "notes.txt").write_text(
        "Bench day 3: analyzer sweeps SA_*, scope captures scope_*.\n", encoding="utf-8"
    )


def big(out: Path, rows: int = 100_000, name: str = "tracking.csv") -> Path:
    """A tracker export: frame, time, x, y, and constant mass/size columns."""
    path = out / name
    with open(path, "w", encoding="utf-8", newline="\n") as f:
        f.write("frame,t (s),x (m),y (m),mass (kg),size (px)\n")
        for k in range(rows):
            t = k / 1000
            # x grows linearly, y is a parabola; a deterministic wobble keeps them from being exact
            x = 1.2 * t + 0.001 * math.sin(k)
            y = 5.0 * t - 4.9 * t * t + 0.001 * math.cos(k)
            f.write(f"{k},{t:.3f},{x:.5f},{y:.5f},0.05,12\n")
    return path


def make(out: Path, *, with_big: bool = False) -> None:
    out.mkdir(parents=True, exist_ok=True)
    for make_one in (
        side_by_side,
        count_header,
        units_row,
        template,
        densities,
        gbk,
        stacked,
        series,
        instrument_day,
    ):
        make_one(out)
    if with_big:
        big(out)


if __name__ == "__main__":
    make(Path(sys.argv[1]), with_big="--big" in sys.argv)
