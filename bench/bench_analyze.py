"""analyze's cost: one analysis (load a table, fit a line, show three results) through
run_analysis, against the same computation in a plain `python` subprocess.

The sandboxed side pays for the static check, the confinement, the audit hook, the
parent's table detection for load() and the child's imports (pandas, scipy.optimize,
scipy.stats, uncertainties, the analysis library); the plain side imports pandas,
scipy and uncertainties and computes the same line with scipy.stats.linregress.
Runs are interleaved so machine noise hits both alike.

    .venv/bin/python bench/bench_analyze.py [--runs N]
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time
from pathlib import Path

from _result import result  # noqa: E402
from labwright.core.agent.sandbox.runner import run_analysis
from labwright.core.confine import support

FOLDER = Path(__file__).resolve().parents[1] / "examples" / "pendulum"
CODE = """
import math
df = load("data/periods.csv")
T = df[["t10_run1", "t10_run2", "t10_run3"]].mean(axis=1) / 10
f = fit(df["length"], T**2)
show("slope", f.slope, "s^2/m")
show("g", 4 * math.pi**2 / f.slope, "m/s^2")
show("percent difference", percent_difference(4 * math.pi**2 / f.slope, 9.81), "%")
"""
PLAIN = f"""
import math, pandas as pd, scipy.optimize, scipy.stats, uncertainties
df = pd.read_csv({str(FOLDER / "data" / "periods.csv")!r})
T = df[["t10_run1_s", "t10_run2_s", "t10_run3_s"]].mean(axis=1) / 10
r = scipy.stats.linregress(df["length_m"], T**2)
s = uncertainties.ufloat(r.slope, r.stderr)
print(s, 4 * math.pi**2 / s)
"""


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=10)
    runs = ap.parse_args().runs
    print(f"confinement: {', '.join(support().layers()) or 'none'}")
    sandboxed, plain = [], []
    run_analysis("print(1)", data_dir=FOLDER)  # the font cache, once
    for _ in range(runs):
        t = time.perf_counter()
        r = run_analysis(CODE, data_dir=FOLDER, inputs=["data/periods.csv"])
        sandboxed.append(time.perf_counter() - t)
        assert r.ok, r.message
        t = time.perf_counter()
        subprocess.run([sys.executable, "-c", PLAIN], check=True, capture_output=True)
        plain.append(time.perf_counter() - t)
    s, p = statistics.median(sandboxed), statistics.median(plain)
    print(f"analyze (run_analysis): median {s * 1000:.0f} ms over {runs} runs")
    print(f"plain python, same computation: median {p * 1000:.0f} ms")
    print(f"ratio: {s / p:.2f}")
    result("analyze_ratio", s / p, None, "x")  # no goal yet: a figure to watch
    result("analyze_median_ms", s * 1000, None, "ms")


if __name__ == "__main__":
    main()
