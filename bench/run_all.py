"""Every benchmark in bench/, one after the other, and a table of their figures.

Each bench_*.py runs as a child process with a timeout; its own output is shown as
it comes, and its `RESULT name=… value=… goal=…` lines (bench/_result.py) make the
table: benchmark, figure, value, goal, verdict (ok / over goal / under goal / no
goal; "failed" or "timed out" when a benchmark gave no figure). Every benchmark
still measures against its own baseline in the same run (a ratio), so the table
compares across machines only as far as those ratios do.

    .venv/bin/python bench/run_all.py [--quick] [--real] [--write] [--only NAME ...]

--quick   smaller repeat counts where a benchmark takes one (noisier figures)
--real    also the real-server benchmark (llama-cpp-python + SmolLM2; minutes)
--write   put the table in docs/benchmarks.md under "Latest figures", with the
          date, the machine (CPUs, load average at the start) and the command
Exit status: 0 when every figure with a goal is within it, 1 otherwise.
"""

from __future__ import annotations

import argparse
import datetime
import os
import platform
import shlex
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

from _result import Result, parse

BENCH = Path(__file__).resolve().parent
ROOT = BENCH.parent
DOC = ROOT / "docs" / "benchmarks.md"
HEADING = "## Latest figures"
TIMEOUT_S = 900
REAL_TIMEOUT_S = 2400

# The smaller counts --quick passes (benchmarks without a count run as they are).
QUICK: dict[str, list[str]] = {
    "bench_analyze": ["--runs", "3"],
    "bench_compile": ["--runs", "2"],
    "bench_gui_events": ["2000"],
    "bench_inflight": ["--runs", "5"],
    "bench_loop": ["7"],
    "bench_paging": ["256"],
    "bench_preview": ["2"],
    "bench_sandbox": ["--runs", "3"],
    "bench_spelling": ["--keys", "50"],
    "bench_startup": ["3"],
    "bench_verify": ["20"],
    "bench_verify_chance": ["100"],
}
REAL_ONLY = {"bench_real_server"}


@dataclass
class Ran:
    name: str
    seconds: float
    code: int | None  # None: timed out
    results: list[Result] = field(default_factory=list)


def benchmarks(only: list[str], real: bool) -> list[Path]:
    found = sorted(BENCH.glob("bench_*.py"))
    if only:
        wanted = {n.removesuffix(".py") for n in only}
        wanted |= {f"bench_{n}" for n in list(wanted)}
        return [p for p in found if p.stem in wanted]
    return [p for p in found if real or p.stem not in REAL_ONLY]


def run_one(path: Path, args: list[str], timeout_s: float) -> Ran:
    env = {**os.environ, "QT_QPA_PLATFORM": os.environ.get("QT_QPA_PLATFORM", "offscreen")}
    env["PYTHONPATH"] = os.pathsep.join(
        p for p in (str(ROOT / "desktop"), env.get("PYTHONPATH", "")) if p
    )
    print(f"\n=== {path.stem} {' '.join(args)}".rstrip(), flush=True)
    start = time.monotonic()
    lines: list[str] = []
    timed_out = threading.Event()
    with subprocess.Popen(
        [sys.executable, str(path), *args],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        bufsize=1,
    ) as child:
        assert child.stdout is not None

        def kill() -> None:
            timed_out.set()
            child.kill()

        timer = threading.Timer(timeout_s, kill)  # its output is shown meanwhile
        timer.start()
        try:
            for line in child.stdout:
                lines.append(line)
                print("  " + line, end="", flush=True)
            child.wait()
        finally:
            timer.cancel()
            if child.poll() is None:  # Ctrl-C here: the benchmark goes too
                child.kill()
    seconds = time.monotonic() - start
    code = None if timed_out.is_set() else child.returncode
    return Ran(path.stem, seconds, code, parse("".join(lines)))


def rows(ran: list[Ran]) -> list[tuple[str, str, str, str, str]]:
    out = []
    for r in ran:
        if not r.results:
            why = "timed out" if r.code is None else f"failed (exit {r.code})"
            out.append((r.name, "-", "-", "-", why))
        for x in r.results:
            value = f"{x.value:.4g}" + (f" {x.unit}" if x.unit and x.unit != "x" else "")
            goal = (x.goal[:2] + " " + x.goal[2:]) if x.goal else "-"
            out.append((r.name, x.name, value, goal, x.verdict()))
    return out


def markdown(table: list[tuple[str, str, str, str, str]]) -> str:
    lines = ["| benchmark | figure | value | goal | verdict |", "| --- | --- | --- | --- | --- |"]
    lines += [f"| {' | '.join(row)} |" for row in table]
    return "\n".join(lines)


def plain(table: list[tuple[str, str, str, str, str]]) -> str:
    head = ("benchmark", "figure", "value", "goal", "verdict")
    widths = [max(len(r[i]) for r in [head, *table]) for i in range(5)]
    return "\n".join(
        "  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)).rstrip()
        for r in [head, *table]
    )


def section(table: list[tuple[str, str, str, str, str]], machine: str, command: str) -> str:
    today = datetime.date.today().isoformat()
    return (
        f"{HEADING}\n\n"
        f"Measured {today} on {machine}, with `{command}`. Written by that command "
        "(`--write`); a regression shows in this file's diff.\n\n"
        f"{markdown(table)}\n"
    )


def write_doc(text: str) -> None:
    """Replace the "Latest figures" section of docs/benchmarks.md (or add it at the end)."""
    from labwright.core.atomic import atomic_write_bytes

    doc = DOC.read_text(encoding="utf-8")
    start = doc.find(HEADING + "\n")
    if start < 0:
        doc = doc.rstrip("\n") + "\n\n" + text
    else:
        end = doc.find("\n## ", start + len(HEADING))
        doc = doc[:start] + text + (doc[end:] if end >= 0 else "")
    atomic_write_bytes(DOC, doc.encode("utf-8"), mode=0o644)


def machine() -> str:
    load = ", ".join(f"{x:.2f}" for x in os.getloadavg())
    return (
        f"{os.cpu_count()} CPUs ({platform.machine()}, {platform.system()}), "
        f"load average {load} at the start, Python {platform.python_version()}"
    )


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="smaller repeat counts")
    ap.add_argument("--real", action="store_true", help="also the real-server benchmark")
    ap.add_argument("--write", action="store_true", help="write the table into docs/benchmarks.md")
    ap.add_argument("--only", nargs="+", default=[], metavar="NAME", help="e.g. loop scan")
    ap.add_argument("--timeout", type=float, default=TIMEOUT_S, help="seconds per benchmark")
    a = ap.parse_args()
    command = "bench/run_all.py " + " ".join(shlex.quote(x) for x in sys.argv[1:])
    where = machine()
    sys.path.insert(0, str(ROOT / "desktop"))
    ran = []
    for path in benchmarks(a.only, a.real):
        args = QUICK.get(path.stem, []) if a.quick else []
        timeout = max(a.timeout, REAL_TIMEOUT_S) if path.stem in REAL_ONLY else a.timeout
        ran.append(run_one(path, args, timeout))
    table = rows(ran)
    print(f"\n{where}\n{command.strip()}\n")
    print(plain(table))
    if a.write:
        write_doc(section(table, where, command.strip()))
        print(f"\nwrote {DOC.relative_to(ROOT)}")
    return 0 if all(row[4] in ("ok", "no goal") for row in table) else 1


if __name__ == "__main__":
    sys.exit(main())
