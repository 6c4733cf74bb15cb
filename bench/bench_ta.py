"""A TA's checklist over real course folders: what an offline report gets right.

The corpus is private (real lab folders fetched from public repositories; their files are
never committed): $LABWRIGHT_CORPUS or ~/.cache/labwright-corpus, one folder per course
lab with `material/` (what a student drops on the app) and `expected.json` (what a TA
expects of the report, written before the code: tables, summary cells, stated results,
fits, derived values, the manual's requirements, files to leave out, figures).

For each folder it makes an offline report (or reads one made before: --runs DIR) and
checks, from the report's text and run folder alone:
  pdf       it compiled
  stated    values the student stated beside the tables appear in the report
  fits      the fitted parameters a TA computed appear (within 1 %)
  derived   derived results (h, mu_m, percent differences...) appear (within 1 %)
  reqs      the manual's requirements listed, against the TA's count
  left out  each file the TA says to leave out is named as left out, not shown as data
  figures   figures drawn, against the TA's count (and how many carry a fitted line)
  traced    share of the report's numbers `labwright verify` traces to the material

    .venv/bin/python bench/bench_ta.py [--runs DIR] [--keep DIR] [FOLDER ...]

It prints one row per folder and a RESULT line per check (the share found, no goal);
nothing is asserted.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

from _result import result

ROOT = Path(__file__).resolve().parents[1]
LABWRIGHT = [sys.executable, "-m", "labwright.cli"]

_NUM = re.compile(
    r"(?<![\w.])([-−]?\d+(?:[.,]\d+)?)"  # mantissa
    r"(?:\s*(?:\\times|×|\\cdot)\s*10\^\{?([-−]?\d+)\}?|[eE]([-+−]?\d+))?"
)
_PAREN_PM = re.compile(
    r"\(\s*([-−]?\d+(?:\.\d+)?)\s*(?:\\pm|±)\s*(\d+(?:\.\d+)?)\s*\)\s*(?:\\times|×)\s*10\^\{?([-−]?\d+)\}?"
)


def corpus_dir() -> Path:
    return Path(os.environ.get("LABWRIGHT_CORPUS") or Path.home() / ".cache" / "labwright-corpus")


# siunitx's compact uncertainty: \SI{6.96(13)e-34}{...} is 6.96e-34 ± 0.13e-34
_COMPACT = re.compile(r"(?<![\w.])(\d+)(?:\.(\d+))?\((\d+)\)(?:[eE]([-+]?\d+))?")


def numbers_in(text: str) -> list[float]:
    """Every number the text shows, with its power of ten applied (1.2e-3, 1.2\\times10^{-3},
    (4.34 \\pm 0.08)\\times 10^{-15} gives 4.34e-15 and 0.08e-15, as 4.34(8)e-15 does)."""
    text = text.replace("−", "-")
    found: list[float] = []
    for m in _PAREN_PM.finditer(text):
        scale = 10.0 ** int(m[3])
        found += [float(m[1]) * scale, float(m[2]) * scale]
    for m in _COMPACT.finditer(text):
        scale = 10.0 ** int(m[4] or 0)
        decimals = len(m[2] or "")
        found += [float(f"{m[1]}.{m[2] or 0}") * scale, int(m[3]) * 10.0**-decimals * scale]
    for m in _NUM.finditer(text):
        try:
            value = float(m[1].replace(",", "."))
        except ValueError:
            continue
        power = m[2] or m[3]
        found.append(value * 10.0 ** int(power) if power else value)
    return found


def shown(value: float, numbers: list[float], rel: float = 0.01) -> bool:
    if value == 0:
        return any(n == 0 for n in numbers)
    return any(math.isclose(n, value, rel_tol=rel) for n in numbers)


def _values(entry: dict) -> list[float]:
    v = entry.get("value")
    items = v if isinstance(v, list) else [v]
    return [float(x) for x in items if isinstance(x, (int, float)) and not isinstance(x, bool)]


def make_report(material: Path, out: Path) -> int:
    env = dict(os.environ, PYTHONPATH=str(ROOT / "desktop"))
    done = subprocess.run(
        [*LABWRIGHT, "run", str(material), "--offline", "--out", str(out)],
        capture_output=True,
        text=True,
        env=env,
        timeout=900,
    )
    return done.returncode


def traced_share(run: Path) -> tuple[int, int]:
    env = dict(os.environ, PYTHONPATH=str(ROOT / "desktop"))
    done = subprocess.run(
        [*LABWRIGHT, "verify", str(run), "--json"], capture_output=True, text=True, env=env
    )
    try:
        data = json.loads(done.stdout)
    except json.JSONDecodeError:
        return 0, 0
    matched = len(data.get("matched", []))
    return matched, matched + len(data.get("unmatched", []))


def check(folder: Path, run: Path) -> dict[str, str]:
    expected = json.loads((folder / "expected.json").read_text(encoding="utf-8"))
    tex_path = run / "report.tex"
    tex = tex_path.read_text(encoding="utf-8") if tex_path.is_file() else ""
    numbers = numbers_in(tex)
    row: dict[str, str] = {"pdf": "yes" if (run / "report.pdf").is_file() else "no"}

    def ratio(name: str, hits: int, total: int) -> None:
        row[name] = f"{hits}/{total}" if total else "—"

    stated = [v for e in expected.get("stated_results", []) for v in _values(e)]
    ratio("stated", sum(shown(v, numbers, 0.001) for v in stated), len(stated))
    fit_values = [
        v
        for f in expected.get("fits", [])
        for k in ("slope", "intercept", "a", "b", "c")
        for v in _values({"value": f.get(k)})
    ]
    ratio("fits", sum(shown(v, numbers) for v in fit_values), len(fit_values))
    derived = [v for e in expected.get("derived", []) for v in _values(e)]
    ratio("derived", sum(shown(v, numbers) for v in derived), len(derived))

    reqs = re.findall(r"\\item", _section(tex, ("Requirements", "要求", "实验任务")))
    row["reqs"] = f"{len(reqs)} (TA {len(expected.get('requirements', []))})"
    left = _section(tex, ("Left out", "未收录", "未列入", "略去"))
    named = [e for e in expected.get("left_out", []) if Path(e["file"]).name in left]
    ratio("left out", len(named), len(expected.get("left_out", [])))
    figures = tex.count("\\includegraphics")
    fitted = len(re.findall(r"least-squares|最小二乘|fitted|拟合", tex))
    row["figures"] = f"{figures} (TA {len(expected.get('figures', []))}, fit {fitted})"
    matched, total = traced_share(run)
    row["traced"] = f"{100 * matched / total:.0f} % of {total}" if total else "—"
    return row


def _section(tex: str, names: tuple[str, ...]) -> str:
    """The text from a heading or paragraph naming one of `names` to the next section."""
    for name in names:
        i = tex.find(name)
        if i >= 0:
            j = tex.find("\\section", i + 1)
            return tex[i : j if j > 0 else len(tex)]
    return ""


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("folders", nargs="*", help="corpus folders (default: all)")
    ap.add_argument("--runs", type=Path, help="read the reports made before in DIR/<folder>")
    ap.add_argument("--keep", type=Path, help="make the reports into DIR/<folder> and keep them")
    a = ap.parse_args(argv)
    corpus = corpus_dir()
    folders = [corpus / f for f in a.folders] or sorted(
        p for p in corpus.iterdir() if (p / "expected.json").is_file()
    )
    if not folders:
        print(f"no corpus at {corpus} (set LABWRIGHT_CORPUS)", file=sys.stderr)
        return 2
    rows = {}
    with tempfile.TemporaryDirectory() as tmp:
        for folder in folders:
            if a.runs:
                run = a.runs / folder.name
            else:
                run = (a.keep or Path(tmp)) / folder.name
                make_report(folder / "material", run)
            rows[folder.name] = check(folder, run)
    columns = list(next(iter(rows.values())))
    print("| folder | " + " | ".join(columns) + " |")
    print("| --- |" + " --- |" * len(columns))
    for name, row in rows.items():
        print(f"| {name} | " + " | ".join(row[c] for c in columns) + " |")
    for c in ("stated", "fits", "derived", "left out"):
        hit = total = 0
        for row in rows.values():
            if "/" in row[c]:
                h, t = row[c].split("/")
                hit, total = hit + int(h), total + int(t)
        print(f"{c}: {hit}/{total}")
        result(f"ta_{c.replace(' ', '_')}", 100 * hit / total if total else 0.0, None, "%")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
