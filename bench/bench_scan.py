"""Benchmark the zero-model scan: speed against `find`, memory against tree size.

Run by hand:  .venv/bin/python bench/bench_scan.py

* Speed: a tree of 100,000 small files (10 x 100 directories x 100 files) is
  scanned by `scan_folder` and by `find ROOT -type f | wc -l`; each is warmed
  once, then the best of 3 is kept. Goal: scan_folder / find <= 2. scan_folder
  does more than that find: it stats every file for its size, while find
  -type f reads the type from the directory listing and stats nothing. So the
  same find with `-printf '%s\n'` (GNU), which stats every file too, is timed
  as a like-for-like reference.
* Memory: peak tracemalloc during scan_folder on 10,000 and on 100,000 files
  with the same directory shape (100 files per directory, 100 directories per
  group). Goal: roughly equal, not 10x. What the scan holds is one directory
  listing plus the pending directories, so its memory follows the widest
  directory, not the number of files.

The trees live in a temporary directory that is removed at the end.
"""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
import tracemalloc
from collections.abc import Callable
from pathlib import Path

from _result import result  # noqa: E402
from labwright.core.material.workspace import scan_folder

DIRS_PER_GROUP = 100
FILES_PER_DIR = 100
PAYLOAD = b"t,x\n0,1\n"


def make_tree(root: Path, groups: int) -> int:
    """groups x DIRS_PER_GROUP x FILES_PER_DIR small files under root; returns the file count."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_TRUNC | getattr(os, "O_BINARY", 0)
    count = 0
    for g in range(groups):
        for d in range(DIRS_PER_GROUP):
            folder = root / f"group{g:02d}" / f"run{d:03d}"
            folder.mkdir(parents=True)
            for f in range(FILES_PER_DIR):
                fd = os.open(folder / f"m{f:03d}.csv", flags, 0o644)
                os.write(fd, PAYLOAD)
                os.close(fd)
                count += 1
    return count


def best_of(fn: Callable[[], object], runs: int = 3) -> float:
    fn()  # warm: page cache, dentry cache, imports
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times)


def find_count(root: Path, extra: str = "") -> int:
    out = subprocess.run(
        f"find {shlex.quote(str(root))} -type f {extra}| wc -l",
        shell=True,
        check=True,
        capture_output=True,
        text=True,
    )
    return int(out.stdout.strip())


def find_with_sizes_works(root: Path) -> bool:
    """GNU find's -printf; BSD/macOS find has none."""
    probe = subprocess.run(
        ["find", str(root), "-maxdepth", "0", "-printf", "%s\\n"], capture_output=True
    )
    return probe.returncode == 0


def peak_memory(root: Path) -> int:
    tracemalloc.start()
    try:
        tracemalloc.reset_peak()
        scan_folder(root)
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def main() -> int:
    if shutil.which("find") is None or shutil.which("wc") is None:
        print("needs `find` and `wc` on PATH (POSIX); nothing measured")
        return 1
    with tempfile.TemporaryDirectory(prefix="labwright-bench-") as tmp:
        small, big = Path(tmp) / "small", Path(tmp) / "big"
        t0 = time.perf_counter()
        n_small = make_tree(small, groups=1)
        n_big = make_tree(big, groups=10)
        print(f"made {n_small:,} + {n_big:,} files in {time.perf_counter() - t0:.1f} s under {tmp}")

        scanned = scan_folder(big)
        found = find_count(big)
        assert scanned.files == n_big == found, (scanned.files, n_big, found)

        t_scan = best_of(lambda: scan_folder(big))
        t_find = best_of(lambda: find_count(big))
        print(f"scan_folder on {n_big:,} files: {t_scan * 1000:.0f} ms (best of 3)")
        print(f"find -type f | wc -l on the same tree: {t_find * 1000:.0f} ms (best of 3)")
        print(f"ratio scan_folder / find: {t_scan / t_find:.2f}  (goal <= 2)")
        result("scan_vs_find", t_scan / t_find, "<=2", "x")
        # find -type f reads d_type and never stats; the scan must stat every
        # file for its size. This is the same work done by find, for reference.
        if find_with_sizes_works(big):
            t_sizes = best_of(lambda: find_count(big, "-printf '%s\\n' "))
            print(
                f"find -type f -printf '%s\\n' | wc -l (stats every file): {t_sizes * 1000:.0f} ms"
            )
            print(f"ratio scan_folder / find with sizes: {t_scan / t_sizes:.2f}")

        peak_small, peak_big = peak_memory(small), peak_memory(big)
        print(f"peak tracemalloc, {n_small:,} files: {peak_small / 1024:.0f} KiB")
        print(f"peak tracemalloc, {n_big:,} files: {peak_big / 1024:.0f} KiB")
        print(f"memory ratio 100k / 10k: {peak_big / peak_small:.2f}  (goal: roughly 1, not 10)")
        result("scan_memory_100k_vs_10k", peak_big / peak_small, "<=2", "x")  # roughly 1, not 10
        print(f"summary: {scanned.summary()}")
        t0 = time.perf_counter()
    print(f"removed the trees in {time.perf_counter() - t0:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
