"""How often the number check "traces" a random number: the chance that an invented value passes.

    .venv/bin/python bench/bench_verify_chance.py [TRIALS] [SEED]     (default 400 per case, seed 14)

Two cases, each a report and the evidence it is checked against, as `labwright
verify` sees them: the offline skeleton of the bundled pendulum example
(examples/pendulum) and of the projectile-motion practical
(../shared/data/projectile-motion), with the evidence of their files read
through the readers. The report's numbers that the check traces (matched or
derived) are the real ones. Each trial takes one of them and writes in its
place a random number of the same magnitude and precision (same digits before
and after the point, a different value), runs the check again and looks at
that number: "traced" when it came back matched or derived.

Prints, per case, how many real numbers are traced and the chance rate (goal
<= 1 %), with the ways the random numbers were traced. The baseline the rate
is compared with is the real numbers' traced share in the same run.
"""

from __future__ import annotations

import random
import re
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from _result import result  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "desktop"))

from labwright.core.material.evidence import evidence_from_folder  # noqa: E402
from labwright.core.material.workspace import scan_folder  # noqa: E402
from labwright.core.report.offline import offline_report  # noqa: E402
from labwright.core.report.templates import load_template  # noqa: E402
from labwright.core.report.verify import verify_report  # noqa: E402
from labwright.core.report.verify.model import NumberCheck  # noqa: E402

PROJECTILE = ROOT.parent / "shared" / "data" / "projectile-motion"
PENDULUM = ROOT / "examples" / "pendulum"
TRACED = ("matched", "derived")


@dataclass
class Case:
    name: str
    tex: str
    records: list[dict]
    folder: Path


def case(name: str, folder: Path) -> Case:
    """The offline skeleton of `folder` and the evidence of every file it read."""
    scan = scan_folder(folder)
    with tempfile.TemporaryDirectory() as tmp:
        report = offline_report(folder, scan, load_template("lab-en"), Path(tmp), figures=[])
    paths = [p for bucket in ("documents", "data") for p in scan.sample.get(bucket, [])]
    return Case(name, report.tex, evidence_from_folder(folder, paths), folder)


def random_like(rng: random.Random, text: str) -> str:
    """A number written like `text` (same digits before and after the point), another value."""
    m = re.fullmatch(r"(\d+)(?:\.(\d+))?", text)
    assert m is not None
    whole, frac = m.group(1), m.group(2) or ""
    for _ in range(100):
        if whole == "0":
            lead = "0"
        else:
            lead = str(rng.randint(1, 9)) + "".join(str(rng.randint(0, 9)) for _ in whole[1:])
        if frac:
            digits = "".join(str(rng.randint(0, 9)) for _ in frac)
            if lead == "0" and not digits.strip("0"):
                continue
            out = f"{lead}.{digits}"
        else:
            out = lead
        if out != text:
            return out
    return text


def real_traces(c: Case) -> list[NumberCheck]:
    v = verify_report(c.tex, c.records, c.folder)
    return [
        ch for ch in v.checks
        if ch.status in TRACED and re.fullmatch(r"\d+(?:\.\d+)?", ch.number.text)
    ]  # fmt: skip


def chance(
    c: Case, trials: int, seed: int, batch: int = 10
) -> tuple[int, int, Counter[str], list[str]]:
    """(trials run, random numbers traced, how they were traced, examples).

    A check of a big report takes seconds, so each one carries `batch` random numbers,
    in different sentences or table rows (a derivation never joins two of them)."""
    rng = random.Random(seed)
    real = real_traces(c)
    traced, run = 0, 0
    ways: Counter[str] = Counter()
    examples: list[str] = []
    while run < trials:
        picks, places = [], set()
        for ch in rng.sample(real, len(real)):
            n = ch.number
            place = (n.table, n.row) if n.table is not None else ("s", n.segment)
            if place in places or (n.table is not None and ("col", n.table, n.col) in places):
                continue
            fake = random_like(rng, n.text)
            if fake == n.text:
                continue
            places |= {place, ("col", n.table, n.col)}
            picks.append((n, fake))
            if len(picks) >= min(batch, trials - run):
                break
        tex = c.tex
        for n, fake in sorted(picks, key=lambda p: -p[0].start):
            tex = tex[: n.start] + fake + tex[n.end :]
        checks = verify_report(tex, c.records, c.folder).checks
        # A random number is written with as many characters as the real one: same offsets.
        for n, fake in picks:
            hit = next((ch for ch in checks if ch.number.start == n.start), None)
            run += 1
            if hit is not None and hit.status in TRACED:
                traced += 1
                ways[re.sub(r"[\d.]+", "#", hit.how)[:60]] += 1
                if len(examples) < 8:
                    examples.append(f"{n.text} -> {fake}: {hit.status} ({hit.how[:90]})")
    return run, traced, ways, examples


def main() -> None:
    trials = int(sys.argv[1]) if len(sys.argv) > 1 else 400
    seed = int(sys.argv[2]) if len(sys.argv) > 2 else 14
    cases = [case("pendulum (offline skeleton)", PENDULUM)]
    if PROJECTILE.is_dir():
        cases.append(case("projectile-motion (offline skeleton)", PROJECTILE))
    total_run = total_traced = 0
    for c in cases:
        t0 = time.perf_counter()
        real = real_traces(c)
        all_numbers = len(verify_report(c.tex, c.records, c.folder).checks)
        run, traced, ways, examples = chance(c, trials, seed)
        total_run += run
        total_traced += traced
        print(f"\n{c.name}: {all_numbers} numbers in the report, {len(real)} real ones traced")
        print(f"  random numbers traced: {traced}/{run} = {100 * traced / max(run, 1):.2f} %"
              f"   ({time.perf_counter() - t0:.1f} s)")  # fmt: skip
        for way, k in ways.most_common(6):
            print(f"    {k:4d}  {way}")
        for e in examples:
            print(f"    e.g. {e}")
    rate = 100 * total_traced / max(total_run, 1)
    print(f"\nchance rate over all cases: {total_traced}/{total_run} = {rate:.2f} % (goal <= 1 %)")
    result("verify_chance_rate", rate, "<=1", "%")


if __name__ == "__main__":
    main()
