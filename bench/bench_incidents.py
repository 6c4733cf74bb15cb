"""The incident suite's figure: model calls spent per incident, against a naive loop.

Plays every scenario of tests/incidents/ (scripted model, fake server, the real
loop), prints the table, the totals and the false-trip count (goal: 0), and
any scenario whose measured verdict or cost differs from the one expected.

    .venv/bin/python bench/bench_incidents.py            # print the table
    .venv/bin/python bench/bench_incidents.py --readme   # also rewrite tests/incidents/README.md
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

from _result import result  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "tests"), str(ROOT / "tests" / "incidents"), str(ROOT / "desktop")]

from incident_scenarios import SCENARIOS, play, table  # noqa: E402

README = ROOT / "tests" / "incidents" / "README.md"
START, END = "<!-- table:start -->", "<!-- table:end -->"


def main() -> int:
    start = time.perf_counter()
    played = [play(s) for s in SCENARIOS]
    elapsed = time.perf_counter() - start
    text = table([(p.scenario, p.calls, p.verdict, p.kinds) for p in played])
    print(text)
    spent = sum(p.calls for p in played)
    naive = sum(p.scenario.naive for p in played)
    honest = [p for p in played if not p.scenario.must_trip]
    false_trips = [p.scenario.key for p in played if p.false_trip]
    missed = [p.scenario.key for p in played if p.scenario.must_trip and p.status == "finished"]
    off = [p.scenario.key for p in played if not p.matches]
    print()
    print(f"scenarios:          {len(played)} ({len(honest)} must not trip)")
    print(f"model calls:        {spent}  (naive loop: {naive}, ratio {spent / naive:.2f})")
    print(f"false trips:        {len(false_trips)}  {' '.join(false_trips)}".rstrip())
    print(f"missed loops:       {len(missed)}  {' '.join(missed)}".rstrip())
    print(f"off expectation:    {len(off)}  {' '.join(off)}".rstrip())
    print(f"wall time:          {elapsed:.1f} s")
    result("incident_false_trips", len(false_trips), "<=0")
    result("incident_missed_loops", len(missed), "<=0")
    result("incident_off_expectation", len(off), "<=0")
    result("incident_calls_vs_naive", spent / naive, None, "x")
    if "--readme" in sys.argv[1:]:
        body = README.read_text(encoding="utf-8")
        head, _, rest = body.partition(START)
        _, _, tail = rest.partition(END)
        README.write_text(f"{head}{START}\n{text}\n{END}{tail}", encoding="utf-8")
        print(f"wrote {README.relative_to(ROOT)}")
    return 1 if false_trips or off else 0


if __name__ == "__main__":
    sys.exit(main())
