"""Offline run on the projectile-motion material: wall time and peak memory, by stage.

    .venv/bin/python bench/bench_offline.py [FOLDER]

Runs `labwright run FOLDER --offline` in a child process (so peak RSS is the
run's own), three times, and prints the median wall time, the peak RSS and
the time of each stage from the journal.
"""

from __future__ import annotations

import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _result import result  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
DEFAULT = ROOT.parent / "shared" / "data" / "projectile-motion"


def one_run(folder: Path, out: Path) -> tuple[float, int]:
    env = {**os.environ, "LABWRIGHT_HOME": str(out.parent / "home")}
    start = time.perf_counter()
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "labwright.cli",
            "run",
            str(folder),
            "--offline",
            "--json",
            "--out",
            str(out),
        ],
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    wall = time.perf_counter() - start
    if proc.returncode not in (0, 10):
        sys.exit(f"run failed ({proc.returncode}): {proc.stderr[-2000:]}")
    peak_kb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    return wall, peak_kb


def stage_times(run_dir: Path) -> dict[str, float]:
    """Seconds per stage: the journal has no clock, so run once in-process and time the milestones."""
    from labwright.core.run.pipeline import run_agent
    from labwright.core.settings.config import RunConfig

    times: dict[str, float] = {}
    last = time.perf_counter()
    for event in run_agent(RunConfig(folder=FOLDER, out_dir=run_dir, offline=True)):
        now = time.perf_counter()
        if event.type == "milestone" and event.status in ("end", "skipped"):
            times[event.stage] = times.get(event.stage, 0.0) + now - last
            last = now
        elif event.type == "milestone":
            last = now
    return times


FOLDER = Path(sys.argv[1]) if len(sys.argv) > 1 else DEFAULT

if __name__ == "__main__":
    sys.path.insert(0, str(ROOT / "desktop"))
    with tempfile.TemporaryDirectory() as tmp:
        walls = []
        for i in range(3):
            wall, peak_kb = one_run(FOLDER, Path(tmp) / f"run{i}")
            walls.append(wall)
        meta = json.loads((Path(tmp) / "run0" / "run.json").read_text())
        pages = "?"
        try:
            from pypdf import PdfReader

            pages = len(PdfReader(Path(tmp) / "run0" / "report.pdf").pages)
        except Exception:  # no PDF (no TeX engine): report what there is
            pass
        print(f"folder:            {FOLDER}")
        print(
            f"offline run, wall: median {statistics.median(walls):.2f} s  (runs: {', '.join(f'{w:.2f}' for w in walls)})"
        )
        print(f"peak RSS:          {peak_kb / 1024:.0f} MB (largest of the runs, child process)")
        result("offline_wall_s", statistics.median(walls), None, "s")
        result("offline_peak_rss_mb", peak_kb / 1024, None, "MB")
        print(
            f"report:            {pages} pages, status {meta['status']}, compile {meta.get('compile', {}).get('ok')}"
        )
        for stage, secs in stage_times(Path(tmp) / "inproc").items():
            print(f"  {stage:<8} {secs:6.2f} s")
