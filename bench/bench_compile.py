"""Compile overhead: our compile_tex against plain `latexmk -xelatex`.

Generates a realistic ~5-page English lab report (sections, a table, a
figure, citations, a bibliography), then interleaves N runs of each on the
same file, every run from a fresh build folder (cold: bibtex and all passes),
and prints the medians and their ratio. Goal: ratio <= 1.2.

    .venv/bin/python bench/bench_compile.py [--runs 5]
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _result import result  # noqa: E402
from labwright.core.report.latex import compile_tex, probe_engines

GOAL = 1.2

REFS = r"""@book{taylor1997,
  author = {John R. Taylor},
  title = {An Introduction to Error Analysis},
  publisher = {University Science Books},
  year = {1997},
  edition = {2}
}
@article{nelson1981,
  author = {Robert A. Nelson and M. G. Olsson},
  title = {The pendulum: rich physics from a simple system},
  journal = {American Journal of Physics},
  volume = {54},
  pages = {112--121},
  year = {1986}
}
@book{halliday2013,
  author = {David Halliday and Robert Resnick and Jearl Walker},
  title = {Fundamentals of Physics},
  publisher = {Wiley},
  year = {2013},
  edition = {10}
}
"""

PARAGRAPH = (
    "The period of a simple pendulum depends, for small amplitudes, only on its length and on "
    "the local gravitational acceleration. Deviations from the ideal model arise from the finite "
    "amplitude, the mass of the string, air drag and the reaction time of the observer, each of "
    "which we estimate below and compare with the statistical scatter of the measurements. "
)


def _figure(path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np

    lengths = np.linspace(0.2, 1.2, 11)
    periods = 2 * np.pi * np.sqrt(lengths / 9.81)
    fig, ax = plt.subplots(figsize=(5, 3.2))
    ax.errorbar(lengths, periods**2, yerr=0.02, fmt="o", label="measured")
    ax.plot(lengths, 4 * np.pi**2 * lengths / 9.81, label="fit")
    ax.set_xlabel("L / m")
    ax.set_ylabel("T$^2$ / s$^2$")
    ax.legend()
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path)
    plt.close(fig)


def _table() -> str:
    rows = "\n".join(
        f"    {length:.2f} & {period:.3f} & {period**2:.3f} & 0.02 \\\\"
        for length, period in ((0.2 + 0.1 * i, 2.0064 * (0.2 + 0.1 * i) ** 0.5) for i in range(11))
    )
    return (
        "\\begin{table}[htbp]\n  \\centering\n  \\caption{Measured periods}\n  \\label{tab:data}\n"
        "  \\begin{tabular}{S[table-format=1.2] S[table-format=1.3] S[table-format=1.3] c}\n"
        "    \\toprule\n    {$L$ / m} & {$T$ / s} & {$T^2$ / s$^2$} & {$\\sigma_T$ / s} \\\\\n"
        f"    \\midrule\n{rows}\n    \\bottomrule\n  \\end{{tabular}}\n\\end{{table}}\n"
    )


def report_source() -> str:
    sections = ["Introduction", "Theory", "Apparatus and method", "Results", "Discussion"]
    body: list[str] = []
    for i, title in enumerate(sections):
        body.append(f"\\section{{{title}}}\\label{{sec:{i}}}")
        body.append((PARAGRAPH * 3) + "See \\cite{taylor1997,nelson1981}.\n")
        body.append(PARAGRAPH * 2 + f"As Section~\\ref{{sec:{max(i - 1, 0)}}} showed.\n")
        if title == "Theory":
            body.append("\\begin{equation}\n  T = 2\\pi\\sqrt{L/g}\\label{eq:T}\n\\end{equation}\n")
        if title == "Results":
            body.append(_table())
            body.append(
                "\\begin{figure}[htbp]\n  \\centering\n"
                "  \\includegraphics[width=0.7\\linewidth]{figures/period.pdf}\n"
                "  \\caption{$T^2$ against $L$ with a linear fit.}\\label{fig:fit}\n\\end{figure}\n"
                "Table~\\ref{tab:data} and Figure~\\ref{fig:fit} give "
                "$g = \\SI{9.79 \\pm 0.04}{m/s^2}$ via Equation~\\eqref{eq:T} "
                "\\cite{halliday2013}.\n"
            )
        body.append(PARAGRAPH * 2)
    return (
        "\\documentclass[11pt,a4paper]{article}\n"
        "\\usepackage{amsmath,graphicx,booktabs,siunitx}\n"
        "\\usepackage[margin=2.5cm]{geometry}\n\\usepackage{hyperref}\n"
        "\\title{Measuring $g$ with a Simple Pendulum}\n\\author{A. Student}\n\\date{}\n"
        "\\begin{document}\n\\maketitle\n\\tableofcontents\n"
        + "\n".join(body)
        + "\n\\bibliographystyle{plain}\n\\bibliography{refs}\n\\end{document}\n"
    )


def _ours(tex: Path, build: Path) -> float:
    engines = probe_engines()
    start = time.perf_counter()
    result = compile_tex(tex, engines=engines, build_dir=build)
    elapsed = time.perf_counter() - start
    if not result.ok:
        sys.exit(f"compile_tex failed: {result.errors}")
    return elapsed


def _plain(tex: Path, outdir: Path, latexmk: str) -> float:
    cmd = [latexmk, "-xelatex", "-interaction=nonstopmode", "-halt-on-error", f"-outdir={outdir}"]
    start = time.perf_counter()
    done = subprocess.run([*cmd, tex.name], cwd=tex.parent, capture_output=True, check=False)
    elapsed = time.perf_counter() - start
    if done.returncode != 0:
        sys.exit(f"plain latexmk failed:\n{done.stdout.decode(errors='replace')[-2000:]}")
    return elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()

    engines = probe_engines()
    if not (engines.latexmk and engines.xelatex):
        sys.exit("needs latexmk and xelatex: " + engines.install_hint())

    with tempfile.TemporaryDirectory(prefix="lw-bench-") as tmp:
        folder = Path(tmp)
        tex = folder / "report.tex"
        tex.write_text(report_source(), encoding="utf-8")
        (folder / "refs.bib").write_text(REFS, encoding="utf-8")
        _figure(folder / "figures" / "period.pdf")

        ours: list[float] = []
        plain: list[float] = []
        for i in range(args.runs):
            # Alternate which goes first so caches and drift favour neither.
            order = ("ours", "plain") if i % 2 == 0 else ("plain", "ours")
            for which in order:
                build = folder / f"build-{which}-{i}"
                if which == "ours":
                    ours.append(_ours(tex, build))
                else:
                    plain.append(_plain(tex, build, engines.latexmk))
                shutil.rmtree(build, ignore_errors=True)
            print(f"run {i + 1}: compile_tex {ours[-1]:.2f} s   latexmk {plain[-1]:.2f} s")

        from pypdf import PdfReader

        pages = len(PdfReader(folder / "report.pdf").pages)

    med_ours, med_plain = statistics.median(ours), statistics.median(plain)
    ratio = med_ours / med_plain
    print(f"report: {pages} pages, engine {engines.engine}, {args.runs} runs each, cold builds")
    print(f"median compile_tex: {med_ours:.3f} s")
    print(f"median latexmk -xelatex: {med_plain:.3f} s")
    print(f"ratio: {ratio:.3f} (goal <= {GOAL}) {'OK' if ratio <= GOAL else 'OVER GOAL'}")
    result("compile_ratio", ratio, f"<={GOAL}", "x")


if __name__ == "__main__":
    main()
