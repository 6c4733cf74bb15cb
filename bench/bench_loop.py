"""Loop overhead: a 20-turn exploration against the fake server vs 20 raw openai calls.

Both send the same requests (the transcripts the loop built, replayed raw) to
the same zero-delay fake server over loopback, and both receive every answer to
its end: the raw side reads each streamed answer's bytes, and leaves the parsing
to the loop (the SDK's own chunk objects cost more than the loop's whole parser,
which would flatter the loop). So the difference is what the loop adds: the
first message (the scan summary, the outline of the data file's tables), parsing
the answers, guards, tool execution, events, transcript handling, the threads a
call runs in. Runs interleaved, prints medians and the ratio (goal: <= 1.15).
Also the ratio of the CPU time each side takes (the process's, all threads, the
fake server's too): not the goal, but what a busy machine disturbs least.

    .venv/bin/python bench/bench_loop.py [repeats]
"""

from __future__ import annotations

import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "tests"), str(ROOT / "desktop")]

import openai  # noqa: E402

from _result import result  # noqa: E402
from fakes import FakeLLM, call, tool_calls  # noqa: E402
from labwright.core.agent.explore import explore  # noqa: E402
from labwright.core.agent.tools import ToolContext  # noqa: E402
from labwright.core.llm.client import LLM, Usage  # noqa: E402
from labwright.core.material.workspace import scan_folder  # noqa: E402
from labwright.core.settings.config import RunConfig  # noqa: E402

TURNS = 20
GOAL = 1.15


def model(body: dict, n: int):
    turn = n % TURNS
    if turn == TURNS - 1:
        return tool_calls(
            call("finish_exploration", {"experiment": "x", "goal": "y", "key_findings": ["z"]})
        )
    return tool_calls(call("read_file", {"path": "data.csv", "offset": turn * 50, "limit": 50}))


Timing = tuple[float, float]  # wall seconds, process CPU seconds


def one_exploration(llm_url: str, folder: Path, out: Path) -> Timing:
    config = RunConfig(
        folder=folder, out_dir=out, base_url=llm_url, api_key="sk-bench", max_tool_iters=TURNS
    )
    client = LLM(llm_url, "sk-bench", max_retries=0)
    scan = scan_folder(folder)
    start, cpu = time.perf_counter(), time.process_time()
    gen = explore(config, client, scan, ToolContext(folder, out, client), Usage())
    try:
        while True:
            next(gen)
    except StopIteration as stop:
        assert stop.value.status == "finished", stop.value.reason
    elapsed = time.perf_counter() - start, time.process_time() - cpu
    client.close()
    return elapsed


def raw_calls(llm_url: str, bodies: list[dict]) -> Timing:
    """The same requests the loop sent (same transcripts, same tools), sent raw, each
    answer received to its end."""
    client = openai.OpenAI(base_url=llm_url, api_key="sk-bench", max_retries=0)
    start, cpu = time.perf_counter(), time.process_time()
    for body in bodies:
        with client.chat.completions.with_streaming_response.create(**body) as answer:
            answer.read()
    elapsed = time.perf_counter() - start, time.process_time() - cpu
    client.close()
    return elapsed


def main() -> None:
    repeats = int(sys.argv[1]) if len(sys.argv) > 1 else 15
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp) / "material"
        folder.mkdir()
        (folder / "data.csv").write_text("".join(f"{i},{i * 0.1:.1f}\n" for i in range(TURNS * 50)))
        loop_t, raw_t = [], []
        with FakeLLM(model) as llm:
            one_exploration(llm.base_url, folder, Path(tmp) / "warm")
            bodies = [dict(b) for b in llm.requests[:TURNS]]
            raw_calls(llm.base_url, bodies)
            for i in range(repeats):
                loop_t.append(one_exploration(llm.base_url, folder, Path(tmp) / f"run{i}"))
                raw_t.append(raw_calls(llm.base_url, bodies))
    loop_m, raw_m = (statistics.median(t[0] for t in ts) for ts in (loop_t, raw_t))
    loop_c, raw_c = (statistics.median(t[1] for t in ts) for ts in (loop_t, raw_t))
    print(f"turns per run:            {TURNS}")
    print(
        f"exploration loop, median: {loop_m * 1000:8.1f} ms  ({loop_m / TURNS * 1000:.2f} ms/turn)"
    )
    print(f"raw openai calls, median: {raw_m * 1000:8.1f} ms  ({raw_m / TURNS * 1000:.2f} ms/call)")
    print(f"ratio loop/raw:           {loop_m / raw_m:8.3f}   (goal <= {GOAL})")
    result("loop_ratio", loop_m / raw_m, f"<={GOAL}", "x")
    print(f"CPU time, median:         loop {loop_c * 1000:.1f} ms, raw {raw_c * 1000:.1f} ms")
    print(f"CPU ratio loop/raw:       {loop_c / raw_c:8.3f}")
    result("loop_cpu_ratio", loop_c / raw_c, None, "x")


if __name__ == "__main__":
    main()
