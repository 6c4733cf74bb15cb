"""The transcript is rebuilt from the ledger: what it rebuilds is exactly what was sent.

One exploration through the fake model server with a duplicate call, a tool that
fails until it is withdrawn, and a model that runs into the final window. For
every request the server received, the ledger's `messages(upto=n)` must be that
request's messages, byte for byte; and the parts the guards shape (the duplicate's
answer, the withdrawal, the collapsed repeats, the forced-finish note) are there.
"""

from __future__ import annotations

import json

import pytest

from agent_helpers import FINISH_ARGS, FORCE_FINISH, config_for, explore_requests, route, run
from fakes import FakeLLM, call, tool_calls
from labwright.core.agent import explore as explore_mod
from labwright.core.agent.ledger import Ledger


@pytest.fixture
def ledgers(monkeypatch):
    """The ledger of each exploration the test runs."""
    made: list[Ledger] = []

    class Kept(Ledger):
        def __init__(self, *args, **kwargs) -> None:
            super().__init__(*args, **kwargs)
            made.append(self)

    monkeypatch.setattr(explore_mod, "Ledger", Kept)
    return made


def read(path: str) -> object:
    return tool_calls(call("read_file", {"path": path}))


def test_every_request_is_the_transcript_the_ledger_rebuilds(
    material, tmp_path, ledgers, crashing_reader
):
    script = [
        read("manual.txt"),  # 1
        read("manual.txt"),  # 2: a duplicate, answered from call 1
        read("data/crash1.csv"),  # 3-5: three crashes withdraw read_file (a trip)
        read("data/crash2.csv"),
        read("data/crash3.csv"),
        tool_calls(call("list_dir", {"path": "data"})),  # 6: the last turn of the budget
        tool_calls(call("finish_exploration", FINISH_ARGS)),  # 7: the window forces it
    ]
    with FakeLLM(route(script)) as llm:
        events = run(config_for(llm, material, tmp_path / "run", max_tool_iters=6))
        requests = explore_requests(llm)
        offered = [llm.tool_names(i) for i in range(len(requests))]
        choices = [llm.tool_choice(i) for i in range(len(requests))]
    (ledger,) = ledgers
    assert len(requests) == 7 and ledger.findings is not None

    for n, request in enumerate(requests, start=1):
        assert request["messages"] == ledger.messages(upto=n), f"request {n}"

    def tool_answers(n: int) -> dict[str, str]:
        return {
            m["tool_call_id"]: m["content"]
            for m in requests[n - 1]["messages"]
            if m["role"] == "tool"
        }

    # The duplicate's answer: the earlier result, not a second run.
    assert "not run again" in tool_answers(3)["call_2"]
    assert "Simple pendulum" in tool_answers(3)["call_2"]
    # The withdrawal: said after the failure that caused it, and the tool no longer offered.
    assert "read_file is now withdrawn" in tool_answers(6)["call_5"]
    assert "read_file" in offered[4] and "read_file" not in offered[5]
    # After that trip, the duplicate is a one-line stub; the first answer stays whole.
    assert tool_answers(6)["call_2"].startswith("[repeat of call call_1")
    assert "Simple pendulum" in tool_answers(6)["call_1"]
    # The final window: its note is the last message, and the way out is forced.
    last = requests[6]["messages"][-1]
    assert last["role"] == "user" and "finish_exploration now" in last["content"]
    assert "manual.txt" in last["content"]  # where things stand
    assert choices == ["auto"] * 6 + [FORCE_FINISH]

    guards = [e for e in events if e.type == "guard"]
    assert [g.kind for g in guards] == ["dedup", "tool_disabled", "final_window"]
    dedup, disabled, window = guards
    assert (dedup.call_id, dedup.tool, dedup.turn, dedup.files) == (
        "call_2",
        "read_file",
        2,
        ["manual.txt"],
    )
    assert (disabled.call_id, disabled.turn, disabled.files) == ("call_5", 5, ["data/crash3.csv"])
    assert window.turn == 7 and window.call_id is None
    journal = [
        json.loads(line) for line in (tmp_path / "run" / "events.jsonl").read_text().splitlines()
    ]
    journaled = [e for e in journal if e["type"] == "guard"]
    assert journaled[0]["call_id"] == "call_2" and "call_id" not in journaled[2]


def test_a_cap_note_and_a_reminder_to_use_tools_are_rebuilt_too(material, tmp_path, ledgers):
    from fakes import text
    from labwright.core.settings.config import GuardLimits

    three = tool_calls(*[call("read_file", {"path": p}) for p in ("manual.txt", "a", "b")])
    script = [text("Let me think."), three, tool_calls(call("finish_exploration", FINISH_ARGS))]
    with FakeLLM(route(script)) as llm:
        limits = GuardLimits(max_calls_per_turn=1)
        run(config_for(llm, material, tmp_path / "run", guards=limits))
        requests = explore_requests(llm)
    (ledger,) = ledgers
    for n, request in enumerate(requests, start=1):
        assert request["messages"] == ledger.messages(upto=n), f"request {n}"
    assert "Use the tools" in requests[1]["messages"][-1]["content"]
    third = requests[2]["messages"]
    assert [len(m.get("tool_calls", [])) for m in third if m["role"] == "assistant"] == [0, 1]
    assert third[-2]["role"] == "tool" and "Only the first 1 tool calls" in third[-1]["content"]
