"""The cost of watching a model call: a streamed call through llm/inflight.py (worker
thread, queue, progress meter, progress events) against the same call made directly.

The fake server streams a long answer (a draft of ~N pieces) at full speed, so
the difference is all ours; interleaved runs, medians and their ratio. Goal:
ratio <= 1.1 (a real model takes seconds a call; this is milliseconds).

    .venv/bin/python bench/bench_inflight.py [--runs 15] [--chars 40000]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

from _result import result  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "tests"), str(ROOT / "desktop")]

from fakes import FakeLLM, text  # noqa: E402
from labwright.core.llm.client import LLM  # noqa: E402
from labwright.core.llm.inflight import in_flight  # noqa: E402

GOAL = 1.1
M = [{"role": "user", "content": "write"}]


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=15)
    ap.add_argument("--chars", type=int, default=40_000)
    a = ap.parse_args()
    answer = ("The period grows with the square root of the length. " * a.chars)[: a.chars]
    direct, watched, events = [], [], 0
    with FakeLLM(lambda body, n: text(answer)) as llm:
        client = LLM(llm.base_url, "sk-bench", max_retries=0)
        try:
            for _ in range(a.runs):
                t = time.perf_counter()
                client.stream(model="fake-write", messages=M, on_delta=lambda p: None)
                direct.append(time.perf_counter() - t)

                t = time.perf_counter()
                run = in_flight(
                    "write",
                    "fake-write",
                    lambda feed: client.stream(
                        model="fake-write",
                        messages=M,
                        on_delta=feed.piece,
                        on_progress=feed.progress,
                        cancelled=feed.cancelled,
                    ),
                    cancelled=lambda: False,
                    on_piece=lambda p: None,
                )
                events += sum(1 for _ in run)
                watched.append(time.perf_counter() - t)
        finally:
            client.close()
    d, w = statistics.median(direct), statistics.median(watched)
    ratio = w / d
    pieces = a.chars // 8  # the fake streams 8 characters a chunk
    print(f"streamed answer: {a.chars} characters in ~{pieces} chunks, {a.runs} runs each")
    print(f"direct call:      median {d * 1000:8.1f} ms")
    print(f"through in_flight: median {w * 1000:8.1f} ms  ({events} progress events in all)")
    print(f"ratio {ratio:.3f} (goal <= {GOAL})")
    result("inflight_ratio", ratio, f"<={GOAL}", "x")
    return 0 if ratio <= GOAL else 1


if __name__ == "__main__":
    sys.exit(main())
