"""Text-only exploration turns are a guard (no_tool_call): shown, counted, answered with
what to do, and a few in a row end exploration with what was gathered."""

from __future__ import annotations

import json

from agent_helpers import FINISH_ARGS, config_for, explore_requests, of_type, route, run
from fakes import FakeLLM, call, text, tool_calls
from labwright.core.settings.config import GuardLimits


def read(path: str) -> object:
    return tool_calls(call("read_file", {"path": path}))


def test_text_only_turns_in_a_row_end_exploration_with_what_was_gathered(material, tmp_path):
    chat = text("Sure! I would be happy to help you write a lab report about this experiment.")
    out = tmp_path / "run"
    with FakeLLM(route([read("manual.txt"), chat, chat, chat])) as llm:
        events = run(config_for(llm, material, out))
        asked = explore_requests(llm)
        failures = list(llm.failures)
    assert not failures and len(asked) == 4  # the default limit: three in a row, then the end
    guards = [e for e in of_type(events, "guard") if e.kind == "no_tool_call"]
    assert [g.turn for g in guards] == [2, 3, 4]
    assert "exploration stopped" in guards[-1].detail
    # each text answer was answered with what to do, counting down
    notes = [r["messages"][-1] for r in asked[2:]]
    assert all(n["role"] == "user" and "Use the tools" in n["content"] for n in notes)
    assert "finish_exploration" in notes[0]["content"] and "2 more" in notes[0]["content"]
    assert "1 more" in notes[1]["content"]
    meta = json.loads((out / "run.json").read_text())
    assert events[-1].status == "degraded" and "no_tool_call" in meta["reasons"]
    assert "manual.txt" in (out / "evidence.jsonl").read_text()  # what was read is kept
    assert (out / "report.tex").is_file()


def test_a_tool_call_resets_the_count_and_the_limit_is_configurable(material, tmp_path):
    chat = text("Let me think about it.")
    script = [chat, read("manual.txt"), chat, read("manual.txt"), chat]
    script += [tool_calls(call("finish_exploration", FINISH_ARGS))]
    with FakeLLM(route(script)) as llm:
        events = run(config_for(llm, material, tmp_path / "run", guards=GuardLimits()))
    assert len([e for e in of_type(events, "guard") if e.kind == "no_tool_call"]) == 3
    assert events[-1].status == "ok"  # never two in a row: exploration finished

    with FakeLLM(route([read("manual.txt"), chat])) as llm:
        limits = GuardLimits(no_tool_call_stop_at=1)
        events = run(config_for(llm, material, tmp_path / "run1", guards=limits))
    meta = json.loads((tmp_path / "run1" / "run.json").read_text())
    assert (
        "no_tool_call" in meta["reasons"] and meta["config"]["guards"]["no_tool_call_stop_at"] == 1
    )
