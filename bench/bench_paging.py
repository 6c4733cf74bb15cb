"""Paging a huge CSV: is a page near the end as cheap as one near the start?

    python bench/bench_paging.py [SIZE_MB]      (default 1024)

Generates a CSV of about SIZE_MB in a temporary directory, then reports:
the first pass (the index is built while locating the end), 100 pages from
the start, 100 pages ending at the last line, their ratio (goal <= 1.5) and
the peak resident memory (goal <= 150 MB). The file is deleted afterwards.
"""

from __future__ import annotations

import resource
import sys
import tempfile
import time
from pathlib import Path

from _result import result  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "desktop"))

from labwright.core.material.readers import read_page  # noqa: E402

PAGES = 100


def generate(path: Path, size_mb: int) -> int:
    """Write ~size_mb of CSV quickly: one formatted block, repeated with a changing prefix."""
    rows = 20_000
    body = "".join(
        f",{i * 0.001:.3f},{(i * 7919) % 1000 / 3:.6f},{(i * 104729) % 9973 * 1e-3:.4f},sensor_{i % 16}\n"
        for i in range(rows)
    ).encode()
    lines = body.split(b"\n")[:-1]
    target = size_mb * 1024 * 1024
    written = 0
    block_no = 0
    with open(path, "wb") as f:
        f.write(b"block,t_s,x_m,y_m,channel\n")
        while written < target:
            prefix = str(block_no).encode()
            chunk = b"\n".join(prefix + ln for ln in lines) + b"\n"
            f.write(chunk)
            written += len(chunk)
            block_no += 1
    return written


def page_through(path: Path, start: int, pages: int) -> tuple[float, int, int]:
    """Seconds to read `pages` consecutive pages from `start`; (secs, pages read, lines)."""
    offset = start
    n = 0
    t0 = time.perf_counter()
    while n < pages:
        page = read_page(path, offset)
        n += 1
        if page.end == page.offset:
            break
        offset = page.end
        if "End of file" in page.note:
            break
    return time.perf_counter() - t0, n, offset - start


def peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KB on Linux


def main() -> None:
    size_mb = int(sys.argv[1]) if len(sys.argv) > 1 else 1024
    with tempfile.TemporaryDirectory(prefix="labwright-bench-") as tmp:
        path = Path(tmp) / "big.csv"
        t0 = time.perf_counter()
        size = generate(path, size_mb)
        print(f"generated {size / 2**20:,.0f} MB in {time.perf_counter() - t0:.1f} s: {path}")
        rss_before = peak_rss_mb()

        t0 = time.perf_counter()
        first = read_page(path, 0)
        t_first_page = time.perf_counter() - t0
        print(f"first page (cold, index not built): {t_first_page * 1000:.1f} ms; {first.note}")

        t0 = time.perf_counter()
        probe = read_page(path, 10**12)  # past the end: indexes the whole file
        t_pass = time.perf_counter() - t0
        total = probe.total or 0
        print(f"first pass (index to the end): {t_pass:.2f} s, {total:,} lines")

        # Lines per page at the start tell where the last 100 pages begin.
        t_head, n_head, lines_head = page_through(path, 0, PAGES)
        start_tail = max(0, total - lines_head)
        t_tail, n_tail, lines_tail = page_through(path, start_tail, PAGES)

        print(f"first {n_head} pages: {t_head * 1000:.1f} ms ({lines_head:,} lines)")
        print(
            f"last  {n_tail} pages: {t_tail * 1000:.1f} ms ({lines_tail:,} lines, from line {start_tail:,})"
        )
        ratio = t_tail / t_head if t_head else float("inf")
        print(f"ratio last/first: {ratio:.2f} (goal <= 1.5)")
        result("paging_last_vs_first", ratio, "<=1.5", "x")
        peak = peak_rss_mb()
        print(f"peak RSS: {peak:.1f} MB (before reading: {rss_before:.1f} MB; goal <= 150 MB)")
        result("paging_peak_rss_mb", peak, "<=150", "MB")


if __name__ == "__main__":
    main()
