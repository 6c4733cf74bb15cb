"""Reasoning models (DeepSeek's thinking mode, Qwen…): `reasoning_content` is kept apart
from the answer, sent back within tool turns as DeepSeek requires, and counted in usage."""

from __future__ import annotations

import json
import threading

import pytest

from agent_helpers import FINISH_ARGS, MINIMAL_REPORT, config_for, explore_requests, route
from fakes import FakeLLM, call, text, thinking, tool_calls
from labwright.cli import main
from labwright.core.events import Progress
from labwright.core.llm.client import LLM, LLMError
from labwright.core.run.pipeline import run_agent

M = [{"role": "user", "content": "hi"}]
PLAN = "The csv holds the lengths; I should read it before anything else."
DONE = "I have what I need."
SECRET = "SECRET-THOUGHT: the report should start with the pendulum."


def _client(llm: FakeLLM) -> LLM:
    return LLM(llm.base_url, "sk-test", max_retries=0)


@pytest.mark.parametrize("method", ["chat", "stream"])
def test_reasoning_is_kept_apart_from_the_answer_and_counted(method):
    turn = thinking(PLAN, text("The answer."), reasoning_tokens=14)
    with FakeLLM([turn]) as llm:
        client = _client(llm)
        try:
            reply = getattr(client, method)(model="fake-write", messages=M)
        finally:
            client.close()
    assert reply.content == "The answer." and reply.reasoning == PLAN
    assert reply.reasoning_tokens == 14 and reply.completion_tokens == 5 + 14
    # an answer without tool calls does not carry its thinking into the transcript
    assert "reasoning_content" not in reply.assistant_message()


@pytest.mark.parametrize("method", ["chat", "stream"])
def test_a_tool_turn_keeps_its_reasoning_content_for_the_next_request(method):
    turn = thinking(PLAN, tool_calls(call("read_file", {"path": "a.csv"})))
    with FakeLLM([turn]) as llm:
        client = _client(llm)
        try:
            reply = getattr(client, method)(model="fake-explore", messages=M)
        finally:
            client.close()
    message = reply.assistant_message()
    assert message["reasoning_content"] == PLAN and message["tool_calls"]
    assert PLAN not in (message["content"] or "")


def test_the_fake_holds_clients_to_deepseeks_rule():
    """The check the run below relies on bites: a tool turn sent back without its
    reasoning_content is refused as DeepSeek refuses it."""
    turn = thinking(PLAN, tool_calls(call("read_file", {"path": "a.csv"}, id="c1")))
    with FakeLLM([turn, text("ok")], reasoning_back=True) as llm:
        client = _client(llm)
        try:
            reply = client.chat(model="fake-explore", messages=M)
            dropped = {
                k: v for k, v in reply.assistant_message().items() if k != "reasoning_content"
            }
            answer = {"role": "tool", "tool_call_id": "c1", "content": "1,2"}
            with pytest.raises(LLMError, match="Missing `reasoning_content`") as e:
                client.chat(model="fake-explore", messages=[*M, dropped, answer])
        finally:
            client.close()
    assert e.value.kind == "bad_request"


def test_a_thinking_model_explores_drafts_and_never_shows_its_thoughts(material, tmp_path):
    explore = [
        thinking(PLAN, tool_calls(call("read_file", {"path": "data/pendulum.csv"})), every=0.1),
        thinking(DONE, tool_calls(call("finish_exploration", FINISH_ARGS))),
    ]

    def writer(body):
        prompt = json.dumps(body["messages"][-1].get("content", ""))
        if "Answer with JSON only" in prompt:
            return thinking(SECRET, text("[]"), reasoning_tokens=3)
        if "BibTeX" in prompt:
            return text("")
        return thinking(SECRET, text(MINIMAL_REPORT), reasoning_tokens=40)

    with FakeLLM(route(explore, writer), reasoning_back=True) as llm:
        config = config_for(llm, material, tmp_path / "run")
        events = list(run_agent(config))
        requests = explore_requests(llm)
        assert not llm.failures
    assert events[-1].status == "ok"
    # the second turn was asked with the first turn's thinking back in its message
    assistant = next(m for m in requests[1]["messages"] if m["role"] == "assistant")
    assert assistant["reasoning_content"] == PLAN and assistant["tool_calls"]
    # the report is the answer alone
    report = (tmp_path / "run" / "report.tex").read_text(encoding="utf-8")
    assert report.strip() == MINIMAL_REPORT.strip() and "SECRET" not in report
    assert all("SECRET" not in p.read_text() for p in (tmp_path / "run" / "drafts").iterdir())
    # thinking is counted: run.json per role, the llm events
    usage = json.loads((tmp_path / "run" / "run.json").read_text())["usage"]
    assert usage["explore"]["reasoning_tokens"] == len(PLAN.split()) + len(DONE.split())
    assert usage["write"]["reasoning_tokens"] == 40
    assert usage["write"]["completion_tokens"] == 5 + 40
    assert "reasoning_tokens" not in usage.get("bib", {})  # a call that did not think
    lines = (tmp_path / "run" / "events.jsonl").read_text(encoding="utf-8").splitlines()
    journal = [json.loads(line) for line in lines]
    assert [e.get("reasoning_tokens") for e in journal if e["type"] == "llm"][:1] == [
        len(PLAN.split())
    ]
    # while it thought, it did not look idle: progress, marked as thinking
    thought = [e for e in events if isinstance(e, Progress) and e.role == "explore"]
    assert thought and thought[0].thinking and thought[0].tokens > 0


def test_a_resumed_run_still_counts_the_thinking_it_did(material, tmp_path, monkeypatch):
    """Usage after a kill comes from the journal's llm events: their reasoning_tokens too."""
    explore = [
        thinking(PLAN, tool_calls(call("read_file", {"path": "data/pendulum.csv"}))),
        tool_calls(call("finish_exploration", FINISH_ARGS)),
    ]
    run_dir, stop = tmp_path / "run", threading.Event()
    with FakeLLM(route(explore)) as llm:
        for event in run_agent(config_for(llm, material, run_dir), stop):
            if event.type == "milestone" and event.stage == "explore" and event.status == "end":
                stop.set()  # cancelled once explored
    meta = json.loads((run_dir / "run.json").read_text())
    meta["usage"], meta["calls"], meta["status"] = {}, {}, "running"  # as after kill -9
    (run_dir / "run.json").write_text(json.dumps(meta))
    monkeypatch.setenv("LABWRIGHT_API_KEY", "sk-test")
    with FakeLLM(route([])) as llm:
        meta["config"]["base_url"] = llm.base_url
        (run_dir / "run.json").write_text(json.dumps(meta))
        assert main(["run", "--resume", str(run_dir), "--base-url", llm.base_url]) == 0
        assert explore_requests(llm) == []
    usage = json.loads((run_dir / "run.json").read_text())["usage"]
    assert usage["explore"]["reasoning_tokens"] == len(PLAN.split())


def test_a_model_that_thinks_inside_its_answer_is_drafted_without_the_thinking(material, tmp_path):
    """A reasoning model served without a reasoning parser writes <think>…</think> first."""
    explore = [
        tool_calls(call("read_file", {"path": "data/pendulum.csv"})),
        tool_calls(call("finish_exploration", FINISH_ARGS)),
    ]

    def writer(body):
        prompt = json.dumps(body["messages"][-1].get("content", ""))
        if "Answer with JSON only" in prompt:
            return text("<think>\nnothing missing\n</think>\n[]")
        if "BibTeX" in prompt:
            return text("")
        return text(f"<think>\n{SECRET}\n</think>\n\n{MINIMAL_REPORT}")

    with FakeLLM(route(explore, writer)) as llm:
        events = list(run_agent(config_for(llm, material, tmp_path / "run")))
    report = (tmp_path / "run" / "report.tex").read_text(encoding="utf-8")
    assert "SECRET" not in report and report.strip() == MINIMAL_REPORT.strip()
    assert events[-1].status == "ok"
