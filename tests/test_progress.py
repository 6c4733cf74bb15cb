"""Live progress while a model writes: progress events during streamed calls, streamed
exploration turns (tool calls assembled from their pieces), and the CLI's log of them."""

from __future__ import annotations

import io
import json
import threading

from agent_helpers import FINISH_ARGS, MINIMAL_REPORT, config_for, explore_requests, route
from fakes import FakeLLM, call, http_error, keep_alive, ramble, raw, text, tool_calls
from labwright.cli import LogPrinter
from labwright.core.events import LLMCall, Progress
from labwright.core.llm.client import LLM
from labwright.core.llm.streamed import PROGRESS_EVERY_S
from labwright.core.run.pipeline import run_agent

READ = tool_calls(call("read_file", {"path": "data/pendulum.csv"}))
FINISH = tool_calls(call("finish_exploration", FINISH_ARGS))
LLM_KEYS = {"type", "role", "model", "prompt_tokens", "completion_tokens", "ms"}


def _run(llm, material, tmp_path, **overrides):
    config = config_for(llm, material, tmp_path / "run", **overrides)
    return list(run_agent(config))


def _journal(tmp_path) -> list[dict]:
    lines = (tmp_path / "run" / "events.jsonl").read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines]


def _in_flight_threads() -> list[threading.Thread]:
    return [t for t in threading.enumerate() if t.name == "labwright-llm-call"]


def test_a_long_streamed_call_shows_progress_that_stays_out_of_the_journal(material, tmp_path):
    # the first turn rambles 150 tokens, one every 10 ms: ~1.5 s of writing
    with FakeLLM(route([ramble(0.01), READ, FINISH])) as llm:
        events = _run(llm, material, tmp_path, max_tokens={"explore": 150})
    first_llm = next(i for i, e in enumerate(events) if isinstance(e, LLMCall))
    progress = [e for e in events[:first_llm] if isinstance(e, Progress)]
    assert len(progress) >= 3
    assert {(p.role, p.model) for p in progress} == {("explore", "fake-explore")}
    tokens, ms = [p.tokens for p in progress], [p.ms for p in progress]
    assert tokens == sorted(tokens) and tokens[-1] > tokens[0] > 0
    assert all(p.estimated for p in progress)  # no usage until the end: counted from the text
    # a few a second at most, and none in the first half second
    gaps = [b - a for a, b in zip(ms, ms[1:], strict=False)]
    assert ms[0] >= 500 and min(gaps) >= PROGRESS_EVERY_S * 1000 - 5, ms
    # the final llm event is as it always was: the server's count, the same fields
    assert events[first_llm].completion_tokens == 150
    journal = _journal(tmp_path)
    assert "progress" not in {e["type"] for e in journal}
    llm_events = [e for e in journal if e["type"] == "llm"]
    assert llm_events and all(set(e) == LLM_KEYS for e in llm_events)
    assert llm_events[0]["completion_tokens"] == 150
    assert "no_tool_call" in [e.kind for e in events if e.type == "guard"]  # it rambled
    assert events[-1].status == "ok"
    assert _in_flight_threads() == []


def test_an_exploration_makes_all_its_calls_in_one_thread_gone_when_it_ends(
    material, tmp_path, monkeypatch
):
    # A thread started for every turn costs a turn the wait for it to be scheduled.
    threads: list[threading.Thread] = []
    real_stream = LLM.stream

    def stream(self, *args, **kwargs):
        if kwargs.get("model") == "fake-explore":
            threads.append(threading.current_thread())
        return real_stream(self, *args, **kwargs)

    monkeypatch.setattr(LLM, "stream", stream)
    with FakeLLM(route([READ, READ, READ, FINISH])) as llm:
        events = _run(llm, material, tmp_path)
    assert events[-1].status == "ok"
    assert len(threads) == 4
    assert len({id(t) for t in threads}) == 1  # one worker for every turn
    assert threads[0].name == "labwright-llm-call" and threads[0] is not threading.main_thread()
    assert not threads[0].is_alive() and _in_flight_threads() == []  # joined as explore ended


def test_a_run_closed_during_an_exploration_call_leaves_no_thread(material, tmp_path):
    # The consumer stops listening mid-call (the app closed, a second Ctrl-C): the call
    # is cut and its worker joined before close() returns.
    with FakeLLM(route([ramble(0.01), FINISH])) as llm:
        run = run_agent(config_for(llm, material, tmp_path / "run", max_tokens={"explore": 5000}))
        for event in run:
            if isinstance(event, Progress):
                break
        assert _in_flight_threads()  # the call is in flight
        run.close()
        assert _in_flight_threads() == []
    assert llm.calls == 1


def test_keep_alives_alone_still_tick_once_a_second(material, tmp_path):
    # a server still reading the prompt: only SSE comments for ~2.4 s, then the answer
    with FakeLLM(route([keep_alive(0.3, READ, count=8), FINISH])) as llm:
        events = _run(llm, material, tmp_path)
    first_llm = next(i for i, e in enumerate(events) if isinstance(e, LLMCall))
    progress = [e for e in events[:first_llm] if isinstance(e, Progress)]
    assert len(progress) >= 2 and all(p.tokens == 0 for p in progress)
    ms = [p.ms for p in progress]
    assert ms == sorted(ms) and max(b - a for a, b in zip(ms, ms[1:], strict=False)) < 1500
    assert events[-1].status == "ok"


def test_a_streamed_exploration_turn_reassembles_tool_calls_split_across_chunks(material, tmp_path):
    long_args = {"path": "data/log.txt", "offset": 120, "limit": 40}
    turn = tool_calls(
        call("read_file", long_args, id="call_read"),
        call("list_dir", {"path": "data"}, id="call_list"),
        content="Reading the log and the data folder.",
    )
    with FakeLLM(route([turn, FINISH])) as llm:
        events = _run(llm, material, tmp_path)
        explore = explore_requests(llm)
    assert all(r["stream"] is True and r["tools"] for r in explore)
    calls = [e for e in events if e.type == "tool_call"]
    assert [(c.call_id, c.name, c.args) for c in calls[:2]] == [
        ("call_read", "read_file", long_args),
        ("call_list", "list_dir", {"path": "data"}),
    ]
    # the model's turn goes back as it was sent: ids, names, the arguments joined whole
    assistant = next(m for m in explore[1]["messages"] if m["role"] == "assistant")
    assert assistant["content"] == "Reading the log and the data folder."
    assert [
        (c["id"], c["function"]["name"], json.loads(c["function"]["arguments"]))
        for c in assistant["tool_calls"]
    ] == [("call_read", "read_file", long_args), ("call_list", "list_dir", {"path": "data"})]
    assert events[-1].status == "ok"


def _sse(*chunks: dict) -> str:
    return "".join(f"data: {json.dumps(c)}\n\n" for c in chunks) + "data: [DONE]\n\n"


def test_tool_call_pieces_without_an_index_or_with_the_object_as_arguments():
    """What some servers send: no `index` (a new id starts a call), the name repeated,
    the arguments as an object."""

    def delta(d: dict, finish=None) -> dict:
        return {"choices": [{"index": 0, "delta": d, "finish_reason": finish}]}

    body = _sse(
        delta({"tool_calls": [{"id": "a", "function": {"name": "read_file", "arguments": ""}}]}),
        delta({"tool_calls": [{"function": {"arguments": '{"path": "da'}}]}),
        delta({"tool_calls": [{"function": {"name": "read_file", "arguments": 'ta.csv"}'}}]}),
        delta({"tool_calls": [{"id": "b", "function": {"name": "list_dir", "arguments": {}}}]}),
        delta({}, "tool_calls"),
    )
    with FakeLLM([raw(200, body, "text/event-stream")]) as llm:
        client = LLM(llm.base_url, "sk-test", max_retries=0)
        try:
            reply = client.stream(model="fake-explore", messages=[{"role": "user", "content": "x"}])
        finally:
            client.close()
    assert [(c.id, c.name, c.parsed_args()) for c in reply.tool_calls] == [
        ("a", "read_file", {"path": "data.csv"}),
        ("b", "list_dir", {}),
    ]


def test_a_server_that_cannot_stream_tools_gets_unstreamed_turns(material, tmp_path):
    turns = iter([READ, FINISH])

    def play(body, n):
        if body["model"] != "fake-explore":
            return route([])(body, n)  # the writer
        if body.get("stream"):
            return http_error(400, "Streaming is not supported when tools are given")
        return next(turns)

    with FakeLLM(play) as llm:
        events = _run(llm, material, tmp_path)
        explore = explore_requests(llm)
        writes = [r for r in llm.requests if r["model"] == "fake-write"]
    # streamed once, refused; the same turn unstreamed; unstreamed from then on
    assert [bool(r.get("stream")) for r in explore] == [True, False, False]
    assert explore[0]["messages"] == explore[1]["messages"]
    assert all(r.get("stream") for r in writes)  # writing without tools still streams
    assert events[-1].status == "ok"


def test_a_server_that_streams_nothing_for_tools_gets_unstreamed_turns(material, tmp_path):
    # llama-cpp-python's chatml-function-calling: a streamed request with tools is a 200
    # event stream with no event in it; unstreamed, the same request answers.
    turns = iter([READ, FINISH])

    def play(body, n):
        if body["model"] != "fake-explore":
            return route([])(body, n)
        if body.get("stream"):
            return raw(200, "", "text/event-stream")
        return next(turns)

    with FakeLLM(play) as llm:
        events = _run(llm, material, tmp_path)
        explore = explore_requests(llm)
    # not asked again streamed (each try costs the server a whole answer): unstreamed
    assert [bool(r.get("stream")) for r in explore] == [True, False, False]
    assert events[-1].status == "ok"


def test_every_writing_call_streams_and_shows_progress_when_slow(material, tmp_path):
    def writer(body):
        prompt = json.dumps(body["messages"][-1].get("content", ""))
        if "BibTeX" in prompt or "Answer with JSON only" in prompt:
            return text("[]" if "JSON" in prompt else "")
        return keep_alive(0.3, text(MINIMAL_REPORT), count=4)

    with FakeLLM(route([READ, FINISH], writer)) as llm:
        events = _run(llm, material, tmp_path)
    roles = {p.role for p in events if isinstance(p, Progress)}
    assert "write" in roles
    assert events[-1].status in ("ok", "degraded")


# -- the CLI's human log ---------------------------------------------------------


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def _progress(ms: int, tokens: int = 1234, thinking: bool = False) -> Progress:
    return Progress("explore", "qwen", tokens, ms, True, thinking)


def test_the_log_redraws_one_status_line_on_a_terminal():
    out = _Terminal()
    printer = LogPrinter(out=out)
    for ms in (500, 750, 1000):
        printer(_progress(ms, tokens=ms))
    printer(LLMCall("explore", "qwen", 10, 1000, 1100))
    screen = out.getvalue()
    assert screen.count("\r\x1b[K") == 4  # three redraws, then cleared for the next line
    assert "\n" not in screen.split("· explore")[0]  # no line was added while it wrote
    assert "writing, ~1,000 tokens, 1 s…" in screen
    assert screen.endswith("· explore model qwen: 10+1000 tokens, 1.1 s\n")


def test_the_log_to_a_file_notes_a_long_call_only_now_and_then():
    out = io.StringIO()
    printer = LogPrinter(out=out)
    for ms in range(250, 40_000, 250):  # 40 s of progress, four a second
        printer(_progress(ms, thinking=ms < 20_000))
    lines = out.getvalue().splitlines()
    assert len(lines) == 2  # at 15 s and 30 s
    assert "thinking, ~1,234 tokens, 15 s" in lines[0] and "writing" in lines[1]
    assert "\r" not in out.getvalue()
