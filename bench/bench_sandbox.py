"""Sandbox cost: one simple plot through run_figure vs. a plain `python` subprocess.

Both sides start a fresh interpreter, import matplotlib (Agg), draw the same plot
and write the same PDF + PNG (bbox_inches="tight", 150 dpi). The sandboxed side
pays for everything a real figure pays for: the static check, the confinement
trampoline (Landlock, namespaces, seccomp where this machine has them), the
audit hook, the disk meter and the parent's validation. Runs are interleaved so
machine noise hits both alike. Goal: median ratio <= 1.5.

    .venv/bin/python bench/bench_sandbox.py [--runs N]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _result import result  # noqa: E402
from labwright.core.agent.sandbox import run_figure
from labwright.core.confine import support

PLOT = """
import numpy as np
import matplotlib.pyplot as plt

x = np.linspace(0, 10, 200)
fig, ax = plt.subplots()
ax.plot(x, np.sin(x), label="sin")
ax.set_xlabel("t / s")
ax.legend()
"""

PLAIN = (
    "import matplotlib\nmatplotlib.use('Agg')\n"
    + PLOT
    + "\nimport sys\nfig.savefig(sys.argv[1] + '.pdf', bbox_inches='tight')\n"
    "fig.savefig(sys.argv[1] + '.png', dpi=150, bbox_inches='tight')\n"
)


def _plain(out: Path) -> float:
    env = {**os.environ, "MPLBACKEND": "Agg"}
    started = time.perf_counter()
    subprocess.run([sys.executable, "-c", PLAIN, str(out / "plain")], check=True, env=env)
    return time.perf_counter() - started


def _sandboxed(data: Path, figures: Path) -> float:
    started = time.perf_counter()
    result = run_figure(PLOT, data_dir=data, figures_dir=figures, filename="bench", caption="bench")
    elapsed = time.perf_counter() - started
    if not result.ok:
        raise SystemExit(f"sandboxed run failed: {result.message}")
    return elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=10)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        data, figures, out = root / "data", root / "figures", root / "plain"
        for folder in (data, out):
            folder.mkdir()
        _plain(out), _sandboxed(data, figures)  # warm-up: page cache, font cache
        plain: list[float] = []
        sandboxed: list[float] = []
        for _ in range(args.runs):
            plain.append(_plain(out))
            sandboxed.append(_sandboxed(data, figures))
    p_best, p_med = min(plain), statistics.median(plain)
    s_best, s_med = min(sandboxed), statistics.median(sandboxed)
    print(f"confinement        : {support().describe()}")
    print(f"runs each          : {args.runs} (interleaved, after one warm-up)")
    print(f"plain python       : best {p_best * 1000:7.1f} ms   median {p_med * 1000:7.1f} ms")
    print(f"run_figure sandbox : best {s_best * 1000:7.1f} ms   median {s_med * 1000:7.1f} ms")
    ratio = s_med / p_med
    print(f"ratio              : best {s_best / p_best:.2f}   median {ratio:.2f}   (goal <= 1.5)")
    result("sandbox_ratio", ratio, "<=1.5", "x")


if __name__ == "__main__":
    main()
