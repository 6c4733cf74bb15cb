"""A run of examples/pendulum against a real server: llama-cpp-python with SmolLM2-135M.

Starts the server (tests/real_server.py; install it first with
`python3 scripts/real_server_setup.py`), runs `labwright run --json` on the bundled
example with the limits of tests/test_real_server.py, stamps each event as it arrives
and prints: the wall time, the model calls per role with their tokens, the time spent
in the model (the sum of the `llm` events' ms, each measured by the client around the
call) against the rest (Labwright's share: reading, guards, tools, TeX), and the wall
time of each stage.

    .venv/bin/python bench/bench_real_server.py [--max-minutes M] [--keep DIR]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

from _result import result  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "tests"), str(ROOT / "desktop")]

from real_server import LlamaServer, missing  # noqa: E402
from test_real_server import MAX_MINUTES, RUN_ARGS  # noqa: E402


def run(
    base_url: str, out: Path, max_minutes: float
) -> tuple[float, list[tuple[float, dict]], int]:
    cmd = [
        str(Path(sys.executable).with_name("labwright")),
        *("run", str(ROOT / "examples" / "pendulum"), "--out", str(out), "--json"),
        *("--provider", "llamacpp", "--base-url", base_url),
        *("--max-minutes", str(max_minutes), *RUN_ARGS),
    ]
    start = time.monotonic()
    stamped: list[tuple[float, dict]] = []
    with subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True) as p:
        assert p.stdout is not None
        for line in p.stdout:
            if line.startswith("{"):
                stamped.append((time.monotonic() - start, json.loads(line)))
        code = p.wait()
    return time.monotonic() - start, stamped, code


def report(wall: float, stamped: list[tuple[float, dict]], code: int, out: Path) -> None:
    events = [e for _, e in stamped]
    calls = [e for e in events if e["type"] == "llm"]
    by_role: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0, 0])
    for e in calls:
        r = by_role[e["role"]]
        r[0] += 1
        r[1] += e["prompt_tokens"]
        r[2] += e["completion_tokens"]
        r[3] += e["ms"]
    model_s = sum(e["ms"] for e in calls) / 1000
    guards = defaultdict(int)
    for e in events:
        if e["type"] == "guard":
            guards[e["kind"]] += 1
    done = events[-1] if events and events[-1]["type"] == "done" else {}
    run_json = json.loads((out / "run.json").read_text()) if (out / "run.json").exists() else {}

    print(
        f"exit {code}, status {done.get('status', '?')}, reasons "
        f"{[r.get('reason', r) if isinstance(r, dict) else r for r in run_json.get('reasons', [])]}"
    )
    print(f"report.pdf: {'yes' if (out / 'report.pdf').exists() else 'NO'}")
    print(f"wall time: {wall:.1f} s")
    print(
        f"{'role':<8} {'calls':>5} {'prompt tok':>10} {'compl tok':>9} {'model s':>8} {'out tok/s':>9}"
    )
    for role, (n, pt, ct, ms) in sorted(by_role.items()):
        rate = ct / (ms / 1000) if ms else 0
        print(f"{role:<8} {n:>5} {pt:>10} {ct:>9} {ms / 1000:>8.1f} {rate:>9.1f}")
    total = [sum(r[i] for r in by_role.values()) for i in range(4)]
    print(f"{'all':<8} {total[0]:>5} {total[1]:>10} {total[2]:>9} {total[3] / 1000:>8.1f}")
    rest = wall - model_s
    print(
        f"in the model: {model_s:.1f} s ({100 * model_s / wall:.0f} %); "
        f"Labwright (and TeX): {rest:.1f} s ({100 * rest / wall:.0f} %)"
    )
    print(f"guards: {dict(sorted(guards.items()))}")
    result("real_server_wall_s", wall, None, "s")
    result("real_server_model_share", 100 * model_s / wall, None, "%")
    # each stage's wall time, from the arrival of its milestones
    begun: dict[str, float] = {}
    for t, e in stamped:
        if e["type"] != "milestone":
            continue
        if e["status"] == "start":
            begun[e["stage"]] = t
        elif e["status"] == "end" and e["stage"] in begun:
            print(f"  stage {e['stage']:<8} {t - begun.pop(e['stage']):7.1f} s")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--max-minutes", type=float, default=MAX_MINUTES)
    ap.add_argument("--keep", type=Path, help="keep the run directory and server log here")
    a = ap.parse_args()
    lacking = missing()
    if lacking:
        print("missing: " + "; ".join(lacking) + "\nrun: python3 scripts/real_server_setup.py")
        return 2
    with tempfile.TemporaryDirectory() as tmp:
        base = a.keep or Path(tmp)
        base.mkdir(parents=True, exist_ok=True)
        out = base / "run"
        started = time.monotonic()
        with LlamaServer(base / "server.log") as server:
            print(f"server ready in {time.monotonic() - started:.1f} s at {server.base_url}")
            wall, stamped, code = run(server.base_url, out, a.max_minutes)
        report(wall, stamped, code, out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
