"""Cancel and deadlines through a whole run: a stuck model call never holds the run.

The conftest fails any test that leaves a thread behind: the watchdog thread of
every model call must be joined, whether the call ended, was cut or cancelled.
"""

from __future__ import annotations

import json
import threading
import time
from typing import Any

import pytest

from agent_helpers import FINISH_ARGS, config_for, guard_kinds, of_type, route, writer_turn
from canary import SECRET_KEY, leaks
from fakes import FakeLLM, call, delay, keep_alive, text, tool_calls, trickle
from labwright.core.run.pipeline import run_agent

READ = tool_calls(call("read_file", {"path": "manual.txt"}))
FINISH = tool_calls(call("finish_exploration", FINISH_ARGS))


def _cancel_after(seconds: float, cancel: threading.Event, at: list[float]) -> threading.Timer:
    def press() -> None:
        at.append(time.monotonic())
        cancel.set()

    timer = threading.Timer(seconds, press)
    timer.start()
    return timer


def _is_draft(body: dict) -> bool:
    return "# Findings of the exploration" in json.dumps(body["messages"][-1].get("content", ""))


@pytest.mark.parametrize("stage", ["explore", "write", "write_streamed"])
def test_cancel_interrupts_a_stuck_model_call(stage, material, tmp_path, guarded_folder):
    folder = guarded_folder(material)
    cancel = threading.Event()
    timers: list[threading.Timer] = []
    pressed: list[float] = []

    def stuck() -> Any:
        timers.append(_cancel_after(0.5, cancel, pressed))  # the user presses Cancel mid-call
        return delay(20, text("far too late"))

    def explore(body: dict, n: int) -> Any:
        if stage == "explore" and n == 1:
            return stuck()
        return [READ, FINISH][min(n, 1)]

    def writer(body: dict) -> Any:
        if stage != "explore" and _is_draft(body):
            return stuck()
        return writer_turn(body)

    out = tmp_path / "run"
    with FakeLLM(route(explore, writer)) as llm:
        config = config_for(llm, folder, out, api_key=SECRET_KEY, request_timeout_s=60)
        on_text = (lambda kind, piece: None) if stage == "write_streamed" else None
        events = list(run_agent(config, cancel, on_text=on_text))
        ended = time.monotonic()
    for timer in timers:
        timer.join()

    assert timers, "the stuck call was never made"
    assert events[-1].type == "done" and events[-1].status == "cancelled"
    assert ended - pressed[0] < 2 + 1  # the call gives up within 2 s; the run then ends
    meta = json.loads((out / "run.json").read_text(encoding="utf-8"))
    assert meta["status"] == "cancelled" and "cancelled" in meta["reasons"]
    assert (out / "findings.json").is_file()  # what was gathered is kept
    assert leaks([out], [SECRET_KEY]) == []


@pytest.mark.parametrize("turn", [trickle(0.3), keep_alive(0.3)], ids=["trickle", "keep_alive"])
def test_a_stuck_explore_call_is_cut_at_its_deadline_with_a_guard(
    turn, material, tmp_path, guarded_folder
):
    folder = guarded_folder(material)
    script = [READ, turn, turn, turn]
    with FakeLLM(route(script)) as llm:
        config = config_for(llm, folder, tmp_path / "run", explore_deadline_s=1.0)
        start = time.monotonic()
        events = list(run_agent(config))
        took = time.monotonic() - start
    deadline = [e for e in of_type(events, "guard") if e.kind == "deadline"]
    assert len(deadline) == 1 and "1 s" in deadline[0].detail
    assert events[-1].status == "degraded" and "model_error" in events[-1].reasons
    assert took < 30


def test_a_write_call_is_cut_at_the_write_deadline(material, tmp_path, guarded_folder):
    folder = guarded_folder(material)

    def writer(body: dict) -> Any:
        return trickle(0.3) if _is_draft(body) else writer_turn(body)

    with FakeLLM(route([READ, FINISH], writer)) as llm:
        config = config_for(llm, folder, tmp_path / "run", write_deadline_s=1.0)
        events = list(run_agent(config))
    assert "deadline" in guard_kinds(events)
    assert events[-1].status == "degraded"
    assert "model error: deadline" in events[-1].reasons
    meta = json.loads((tmp_path / "run" / "run.json").read_text(encoding="utf-8"))
    assert meta["skeleton"] is True  # the report was drafted without the model
