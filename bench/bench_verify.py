"""The number check on generated drafts with planted fabrications.

    .venv/bin/python bench/bench_verify.py [DRAFTS] [SEED]      (default 60 drafts, seed 8)

Evidence is real: the projectile-motion workbook and its discrepancy notebook
(../shared/data/projectile-motion) and the bundled pendulum example (CSV and
setup notes), read through the readers exactly as read_file pages them, plus
the printed output of a least-squares fit of T² against L (as make_figure's
stdout would be). Each draft mixes honest numbers — quoted as written, rounded,
in other units (cm, mm, ms), as percentages, derived with the computation shown,
means of listed values, ratios, percentage discrepancies, a table with a
computed column, a fit's slope — with planted fabrications: perturbed values
(3-20 % off), invented constants, wrong unit prefixes, and wrong arithmetic.
A planted value that happens to stand in the material at its written
precision (same unit) is redrawn: no checker could call it invented.

Prints the recall of the planted numbers (goal 100 %) and the false flags on
honest numbers (goal <= 2 %), with every miss and false flag listed.
"""

from __future__ import annotations

import math
import random
import statistics
import sys
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "desktop"))

from _result import result  # noqa: E402
from labwright.core.material.evidence import (  # noqa: E402
    EvidenceNumber,
    evidence_from_folder,
    evidence_numbers,
)
from labwright.core.report.verify import verify_report  # noqa: E402

PROJECTILE = ROOT.parent / "shared" / "data" / "projectile-motion"
PENDULUM = ROOT / "examples" / "pendulum"
PREAMBLE = "\\documentclass{article}\n\\usepackage{siunitx,booktabs}\n\\begin{document}\n"


@dataclass
class Item:
    line: int
    text: str  # the number as written
    planted: bool
    kind: str


def sig(value: float, digits: int) -> str:
    """A value rounded to `digits` significant digits, as a person writes it."""
    if value == 0:
        return "0"
    decimals = max(0, digits - 1 - math.floor(math.log10(abs(value))))
    return f"{value:.{decimals}f}"


def load_evidence() -> tuple[list[dict], dict[str, list[EvidenceNumber]]]:
    records = evidence_from_folder(
        PROJECTILE,
        [
            "Data/Projectile motion.xlsx",
            "Data/Final Graph/Calculation of Percentage discrepancy.nb",
        ],
    )
    pend = evidence_from_folder(PENDULUM, ["data/periods.csv", "data/setup.txt"])
    for r in pend:
        r["path"] = "pendulum/" + r["path"]
    records += pend
    records.append(fit_output())
    numbers = evidence_numbers(records, None)
    cols: dict[str, list[EvidenceNumber]] = {}
    for n in numbers:
        s = n.source
        if n.derived or s.column is None:
            continue
        if s.sheet == "Part A " and s.column in ("Range, m", "Height, m", "Angle, °"):
            cols.setdefault(s.column, []).append(n)
        if s.sheet == "Part A " and s.column == "Experimental Velocity, ms-1":
            cols.setdefault("velocity", []).append(n)
    return records, cols


def pendulum_rows() -> list[tuple[float, list[float]]]:
    rows = []
    for line in (PENDULUM / "data" / "periods.csv").read_text().splitlines()[1:]:
        cells = [float(x) for x in line.split(",")]
        rows.append((cells[0], cells[1:]))
    return rows


def fit_output() -> dict:
    """What a make_figure fit of T² against L prints (least squares, computed here)."""
    xs, ys = [], []
    for length, runs in pendulum_rows():
        xs.append(length)
        ys.append((statistics.fmean(runs) / 10) ** 2)
    mx, my = statistics.fmean(xs), statistics.fmean(ys)
    slope = sum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True)) / sum(
        (x - mx) ** 2 for x in xs
    )
    intercept = my - slope * mx
    text = f"slope = {slope:.5f} s^2/m\nintercept = {intercept:.5f} s^2\ng_fit = {4 * math.pi**2 / slope:.4f}\n"
    return {"path": "figures/t2_vs_l.pdf", "kind": "figure_output", "text": text, "inputs": []}


class Draft:
    def __init__(self) -> None:
        self.lines: list[str] = []
        self.items: list[Item] = []
        self.dropped = 0  # planted values that coincided with an honest one of the draft

    def add(self, template: str, *numbers: tuple[str, bool, str]) -> None:
        """One sentence per line; {} take the numbers, which are recorded with their label."""
        line = len(PREAMBLE.splitlines()) + sum(x.count("\n") + 1 for x in self.lines) + 1
        self.lines.append(template.format(*[n[0] for n in numbers]))
        for text, planted, kind in numbers:
            self.items.append(Item(line, text, planted, kind))

    def tex(self) -> str:
        return PREAMBLE + "\n".join(self.lines) + "\n\\end{document}\n"


def in_material(text: str, factor: float, index: list[EvidenceNumber]) -> bool:
    """Does the material hold this value (in SI: value*factor) at its written precision?"""
    decimals = len(text.split(".")[1]) if "." in text else 0
    v, tol = float(text) * factor, 0.5 * 10**-decimals * factor
    return any(abs(e.base - v) <= tol * 1.000001 for e in index)


def perturb(rng: random.Random, value: float, digits: int, index, factor: float) -> str:
    for _ in range(200):
        p = value * (1 + rng.choice((-1, 1)) * rng.uniform(0.03, 0.20))
        text = sig(p, digits)
        if not in_material(text, factor, index) and not in_material(text, 1.0, index):
            return text
    raise RuntimeError("no perturbation outside the material")


def invented(rng: random.Random, everything: list[EvidenceNumber]) -> tuple:
    """A constant the material never gives (redrawn while it happens to stand there)."""
    for _ in range(200):
        template, value, factor = rng.choice(
            [
                ("The drag coefficient of the ball is {}.", f"{rng.uniform(0.3, 0.6):.3f}", 1.0),
                ("The launcher spring constant is {} N/m.", f"{rng.uniform(20, 90):.1f}", 1.0),
                ("The local value $g = {}$ m/s$^2$ was used.", rng.choice(["9.78", "9.79", "9.83"]), 1.0),
                ("The ball's mass is {} g.", f"{rng.uniform(20, 60):.1f}", 1e-3),
            ]
        )  # fmt: skip
        if not in_material(value, factor, everything) and not in_material(value, 1.0, everything):
            return (template, (value, True, "invented constant"))
    raise RuntimeError("no invented value outside the material")


def generate(rng: random.Random, cols, everything: list[EvidenceNumber]) -> Draft:
    d = Draft()
    ranges, heights, angles, vel = (
        cols["Range, m"],
        cols["Height, m"],
        cols["Angle, °"],
        cols["velocity"],
    )
    rows = pendulum_rows()
    slope = float(fit_output()["text"].split()[2])

    # honest: as written, rounded, other units
    i = rng.randrange(len(ranges))
    angle = angles[i].text
    d.add(
        "At {}$^\\circ$ the range was {} m.",
        (angle, False, "as written"),
        (ranges[i].text, False, "as written"),
    )
    j = rng.randrange(len(ranges))
    d.add(
        "The range at {}° was {} cm.",
        (angles[j].text, False, "as written"),
        (sig(ranges[j].value * 100, 3), False, "unit"),
    )
    k = rng.randrange(len(heights))
    d.add(
        "A maximum height of \\SI{{{}}}{{\\milli\\metre}} was reached.",
        (sig(heights[k].value * 1000, 2), False, "unit"),
    )
    m = rng.randrange(len(vel))
    d.add("The launch velocity was {} m\\,s$^{{-1}}$.", (sig(vel[m].value, 2), False, "rounded"))
    length, runs = rows[rng.randrange(len(rows))]
    d.add(
        "For $L = {}$\\,m ten oscillations took {} s.",
        (f"{length:.3f}", False, "as written"),
        (f"{runs[0]:.2f}", False, "as written"),
    )
    # honest: derived, with the computation shown
    t10 = runs[0]
    d.add(
        "So $T = {}/10 = {}$\\,s.",
        (f"{t10:.2f}", False, "as written"),
        (f"{t10 / 10:.3f}", False, "computation"),
    )
    g = 4 * math.pi**2 * length / (t10 / 10) ** 2
    d.add(
        "Then $g = 4\\pi^2 L/T^2 = 4\\pi^2 \\times {} / {}^2 = {}$\\,m/s$^2$.",
        (f"{length:.3f}", False, "as written"), (f"{t10 / 10:.3f}", False, "computation"), (sig(g, 3), False, "computation"),
    )  # fmt: skip
    mean = statistics.fmean(runs)
    d.add(
        "The timings {}, {} and {} s have a mean of {} s.",
        *[(f"{r:.2f}", False, "as written") for r in runs], (f"{mean:.2f}", False, "mean"),
    )  # fmt: skip
    d.add(
        "The fit of $T^2$ against $L$ has a slope of {} s$^2$/m.",
        (sig(slope, 3), False, "figure output"),
    )
    gi = rng.choice([8.55, 6.84, 9.40, 12.48, 8.64, 9.72, 7.19, 8.75, 9.15])
    pd = abs(gi - 9.81) / 9.81 * 100
    d.add(
        "The notebook's $g = {}$ m/s$^2$ differs from 9.81 m/s$^2$ by {}\\,\\%.",
        (f"{gi:.2f}", False, "as written"), (f"{pd:.1f}", False, "percentage"),
    )  # fmt: skip
    a, b = rng.sample(range(len(ranges)), 2)
    d.add(
        "The range {} m is {}\\% of the range {} m.",
        (ranges[a].text, False, "as written"), (sig(ranges[a].value / ranges[b].value * 100, 3), False, "percentage"),
        (ranges[b].text, False, "as written"),
    )  # fmt: skip
    # honest: a table with a computed column (T = t/10)
    d.lines.append("\\begin{tabular}{ccc}\\toprule\n$L$ (m) & $t_{10}$ (s) & $T$ (s)\\\\\\midrule")
    for length, runs in rng.sample(rows, 4):
        d.add(
            "{} & {} & {} \\\\",
            (f"{length:.3f}", False, "table"), (f"{runs[1]:.2f}", False, "table"), (f"{runs[1] / 10:.3f}", False, "table column formula"),
        )  # fmt: skip
    d.lines.append("\\bottomrule\\end{tabular}")

    # planted: three or four of these, in random places
    planted = []
    r = rng.randrange(len(ranges))
    planted.append(
        (
            "At {}° the range was {} m.",
            (angles[r].text, False, "as written"),
            (perturb(rng, ranges[r].value, 3, everything, 1.0), True, "perturbed"),
        )
    )
    h = rng.randrange(len(heights))
    planted.append(
        (
            "The height at that angle was {} cm.",
            (
                perturb(rng, heights[h].value * 100, 3, everything, 0.01),
                True,
                "perturbed, other unit",
            ),
        )
    )
    planted.append(invented(rng, everything))
    w = rng.randrange(len(ranges))
    wrong_unit = rng.choice(
        [
            ("The range at {}° was {} cm.", (angles[w].text, False, "as written"), (ranges[w].text, True, "wrong unit")),
            ("Ten oscillations at $L = {}$ m took {} ms.", (f"{rows[w % 9][0]:.3f}", False, "as written"), (f"{rows[w % 9][1][0]:.2f}", True, "wrong unit")),
        ]
    )  # fmt: skip
    if not in_material(wrong_unit[2][0], 0.01 if "cm" in wrong_unit[0] else 0.001, everything):
        planted.append(wrong_unit)
    length, runs = rows[rng.randrange(len(rows))]
    bad_t = perturb(rng, runs[2] / 10, 3, everything, 1.0)
    planted.append(
        (
            "Hence $T = {}/10 = {}$ s.",
            (f"{runs[2]:.2f}", False, "as written"),
            (bad_t, True, "wrong arithmetic"),
        )
    )
    gi = rng.choice([8.55, 7.19, 7.72, 7.85])
    bad_pd = perturb(rng, abs(gi - 9.81) / 9.81 * 100, 3, everything, 1.0)
    planted.append(
        (
            "Our $g = {}$ m/s$^2$ is {}\\,\\% off the accepted 9.81 m/s$^2$.",
            (f"{gi:.2f}", False, "as written"),
            (bad_pd, True, "wrong percentage"),
        )
    )
    rng.shuffle(planted)
    honest = [(float(i.text), i.text) for i in d.items]
    for template, *numbers in planted:
        # a planted value equal to one the draft itself honestly gives is not invented
        if any(n[1] and any(_same(n[0], h) for h in honest) for n in numbers):
            d.dropped += 1
            continue
        d.add(template, *numbers)
    return d


def _same(text: str, honest: tuple[float, str]) -> bool:
    decimals = len(text.split(".")[1]) if "." in text else 0
    return abs(float(text) - honest[0]) <= 0.5 * 10**-decimals * 1.000001


def main() -> int:
    n_drafts = int(sys.argv[1]) if len(sys.argv) > 1 else 60
    seed = int(sys.argv[2]) if len(sys.argv) > 2 else 8
    rng = random.Random(seed)
    records, cols = load_evidence()
    everything = evidence_numbers(records, None)
    planted = found = honest = false_flags = 0
    misses, flags = [], []
    dropped = 0
    t0 = time.perf_counter()
    for _ in range(n_drafts):
        draft = generate(rng, cols, everything)
        dropped += draft.dropped
        checked = verify_report(draft.tex(), records)
        status = {(c.number.line, c.number.text): c for c in checked.checks}
        for item in draft.items:
            check = status.get((item.line, item.text))
            if check is None:
                raise SystemExit(f"not extracted: {item}")
            if check.status == "skipped":
                continue
            if item.planted:
                planted += 1
                if check.status == "unmatched":
                    found += 1
                else:
                    misses.append((item, check.how))
            else:
                honest += 1
                if check.status == "unmatched":
                    false_flags += 1
                    flags.append((item, check.sentence))
    secs = time.perf_counter() - t0
    print(f"drafts: {n_drafts} (seed {seed}), {secs / n_drafts * 1000:.0f} ms per check")
    print(f"planted values equal to an honest number of their draft, left out: {dropped}")
    print(
        f"planted fabrications: {planted}, flagged: {found} → recall {found / planted:.1%} (goal 100 %)"
    )
    print(
        f"honest numbers: {honest}, flagged: {false_flags} → false flags "
        f"{false_flags / honest:.2%} (goal <= 2 %)"
    )
    result("verify_recall", 100 * found / planted, ">=100", "%")
    result("verify_false_flags", 100 * false_flags / honest, "<=2", "%")
    for item, how in misses[:20]:
        print(f"  missed  [{item.kind}] {item.text}: accepted as {how}")
    for item, sentence in flags[:20]:
        print(f"  flagged [{item.kind}] {item.text}: {sentence}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
