"""Against a real OpenAI-compatible server we did not write: llama-cpp-python's server
with SmolLM2-135M-Instruct (scripts/real_server_setup.py installs both).

A 135M model calls tools badly and writes poor LaTeX; that is the point: the run must
still end by itself, ok or degraded, with a compiled PDF, bounded by its own limits.

Marked `real_server` (`-m "not real_server"` leaves it out locally). In CI (CI set)
it never skips: a machine without the server or the model fails it.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from labwright.core.llm.client import LLM
from labwright.core.llm.probe import probe_tools
from real_server import LlamaServer, missing

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "examples" / "pendulum"
# The run's own limits. Measured on 2 busy cores: an explore turn takes 5-40 s, a draft
# of 1,500 tokens about a minute. The time budget is what ends the run if the model
# keeps failing; the test's own timeout is a last resort far above it.
MAX_MINUTES = 6.0
RUN_ARGS = [
    *("--max-iters", "4"),
    *("--explore-max-tokens", "256"),
    *("--write-max-tokens", "1536"),
    *("--explore-deadline", "90"),
    *("--write-deadline", "150"),
    *("--reflect", "0"),
]
HARD_TIMEOUT_S = MAX_MINUTES * 60 + 300  # a stage past the budget finishes its call

# One worker starts the server and runs every test against it: a second llama server
# (and its model) on the same two cores would slow both past their budgets.
pytestmark = [
    pytest.mark.real_server,
    pytest.mark.timeout(int(HARD_TIMEOUT_S) + 300),
]


@pytest.fixture(scope="session")  # once, on the one worker of this file
def server(tmp_path_factory):
    lacking = missing()
    if lacking:
        what = "; ".join(lacking)
        if os.environ.get("CI"):
            pytest.fail(f"real-server test in CI without {what}: .ci/run installs them")
        pytest.skip(f"no real server ({what}): python3 scripts/real_server_setup.py")
    log = tmp_path_factory.mktemp("llama-server") / "server.log"
    with LlamaServer(log) as s:
        yield s


@pytest.fixture
def llm(server):
    client = LLM(server.base_url, None, max_retries=1)
    yield client
    client.close()


def test_a_plain_completion_stops_at_max_tokens(llm):
    reply = llm.chat(
        model="default",
        messages=[{"role": "user", "content": "Count from 1 to 200, separated by commas."}],
        max_tokens=12,
        deadline_s=60,
    )
    assert reply.finish_reason == "length"
    assert 0 < reply.completion_tokens <= 12
    assert reply.content.strip()


def test_a_streamed_completion_stops_at_max_tokens(llm):
    pieces: list[str] = []
    reply = llm.stream(
        model="default",
        messages=[{"role": "user", "content": "Write a long story about a pendulum."}],
        on_delta=pieces.append,
        max_tokens=16,
        deadline_s=60,
    )
    assert reply.finish_reason == "length"
    assert len(pieces) > 1 and "".join(pieces) == reply.content
    assert 0 < reply.completion_tokens <= 16


def test_the_tool_probe_gets_a_verdict_from_the_real_server(llm):
    result = probe_tools(llm, "default")
    # a weak model may call the tool or answer in words; either is a verdict the
    # user can act on. "failed" would mean we could not read the server's answer.
    assert result.verdict in ("tools", "text"), result.words()


def test_a_run_on_the_example_ends_by_itself_with_a_pdf(server, tmp_path):
    out = tmp_path / "run"
    cmd = [
        str(Path(sys.executable).with_name("labwright")),
        *("run", str(EXAMPLE), "--out", str(out), "--json"),
        *("--provider", "llamacpp", "--base-url", server.base_url),
        *("--max-minutes", str(MAX_MINUTES), *RUN_ARGS),
    ]
    answered = server.requests()
    started = time.monotonic()
    try:
        done = subprocess.run(
            cmd, capture_output=True, text=True, timeout=HARD_TIMEOUT_S, cwd=tmp_path
        )
    except subprocess.TimeoutExpired as e:
        pytest.fail(f"the run did not end by itself in {HARD_TIMEOUT_S:g} s: {e.stderr!r}")
    took = time.monotonic() - started
    why = f"exit {done.returncode} after {took:.0f} s\n{done.stderr[-3000:]}"
    assert done.returncode in (0, 10), why
    assert "Traceback" not in done.stderr, why
    assert not (out / "error.txt").exists(), (out / "error.txt").read_text()

    run = json.loads((out / "run.json").read_text())
    assert run["status"] in ("ok", "degraded"), run
    assert "internal_error" not in json.dumps(run.get("reasons", [])), run
    pdf = out / "report.pdf"
    assert pdf.exists() and pdf.read_bytes().startswith(b"%PDF"), why

    events = [json.loads(line) for line in (out / "events.jsonl").read_text().splitlines()]
    assert events[-1]["type"] == "done"
    calls = [e for e in events if e["type"] == "llm"]
    assert any(e["role"] == "explore" for e in calls), "the model was never asked to explore"
    assert server.requests() - answered >= len(calls)  # the real server answered them
    assert sum(e["completion_tokens"] for e in calls) > 0
    # bounded by its own limits: every writing call within its max_tokens (explore calls
    # are bounded by their deadline only: with tool_choice "auto" this server ignores
    # max_tokens), and a run past its time budget says so rather than going on
    assert all(e["completion_tokens"] <= 1536 for e in calls if e["role"] != "explore")
    if took > MAX_MINUTES * 60:
        assert "time_up" in json.dumps(run.get("reasons", [])), why
