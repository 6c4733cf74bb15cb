"""The model client against a misbehaving server, call by call (real HTTP, FakeLLM).

Malformed replies are retried a fixed number of times and then explained; a
call never outlives its deadline, retries included; a cancel interrupts a call
stuck in a read; the fake server's hostile turns end when it closes.
"""

from __future__ import annotations

import json
import socket
import threading
import time

import pytest

from canary import SECRET_KEY
from fakes import (
    FakeLLM,
    call,
    delay,
    http_error,
    keep_alive,
    raw,
    raw_json,
    text,
    tool_calls,
    trickle,
)
from labwright.core.llm import client as llm_module
from labwright.core.llm.client import BAD_RESPONSE_RETRIES, LLM, Cancelled, LLMError

M = [{"role": "user", "content": "hi"}]


@pytest.fixture(autouse=True)
def quick_backoff(monkeypatch):
    monkeypatch.setattr(llm_module, "BACKOFF_BASE_S", 0.01)


def client(fake: FakeLLM, **kwargs) -> LLM:
    kwargs.setdefault("max_retries", 1)
    return LLM(fake.base_url, SECRET_KEY, **kwargs)


MALFORMED = {
    "truncated": raw(200, '{"id": "x", "choices": [{"message": {"content": "hal'),
    "html": raw(200, "<html><h1>Service Unavailable</h1></html>", "text/html"),
    "empty_body": raw(200, ""),
    "empty_choices": raw_json({"choices": []}),
    "null_message": raw_json({"choices": [{"index": 0, "message": None}]}),
    "null_function": raw_json(
        {"choices": [{"message": {"content": None, "tool_calls": [{"id": "c", "function": None}]}}]}
    ),
    "not_an_object": raw_json([1, 2, 3]),
    "error_in_200": raw_json({"error": {"message": "upstream exploded"}}),
}


@pytest.mark.parametrize("name", list(MALFORMED))
@pytest.mark.parametrize("method", ["chat", "stream"])
def test_a_malformed_reply_is_retried_then_a_bad_response_error(name, method):
    turn = MALFORMED[name]
    with FakeLLM([turn] * (BAD_RESPONSE_RETRIES + 1)) as fake:
        llm = client(fake)
        try:
            with pytest.raises(LLMError) as info:
                getattr(llm, method)(model="fake-write", messages=M)
        finally:
            llm.close()
        assert fake.calls == BAD_RESPONSE_RETRIES + 1
        assert not fake.failures
        assert "sent" in str(info.value) and fake.base_url in str(info.value)
    assert info.value.kind == "bad_response"


def test_the_error_shows_what_the_server_sent_clipped_and_without_the_key():
    page = f"<html><title>Gateway</title>{SECRET_KEY} " + "x" * 20_000 + "</html>"
    with FakeLLM([raw(200, page, "text/html")] * 3) as fake:
        llm = client(fake)
        with pytest.raises(LLMError) as info:
            llm.chat(model="fake-explore", messages=M)
        llm.close()
    message = str(info.value)
    assert "<html><title>Gateway</title>" in message and "text/html" in message
    assert SECRET_KEY not in message and "***" in message
    assert len(message) < 600


def test_a_malformed_reply_then_a_good_one_succeeds():
    with FakeLLM([raw(200, "<html/>", "text/html"), text("fine")]) as fake:
        llm = client(fake)
        reply = llm.chat(model="fake-explore", messages=M)
        llm.close()
    assert reply.content == "fine" and fake.calls == 2


def test_tool_arguments_sent_as_an_object_are_accepted():
    body = {
        "choices": [
            {
                "message": {
                    "content": None,
                    "tool_calls": [{"id": "c1", "function": {"name": "list_dir", "arguments": {}}}],
                },
                "finish_reason": "tool_calls",
            }
        ]
    }
    with FakeLLM([raw_json(body)]) as fake:
        llm = client(fake)
        reply = llm.chat(model="fake-explore", messages=M)
        llm.close()
    assert [(c.id, c.name, c.parsed_args()) for c in reply.tool_calls] == [("c1", "list_dir", {})]


def test_keep_alives_then_an_answer_stream_normally():
    with FakeLLM([keep_alive(0.05, text("after the wait"), count=4)]) as fake:
        llm = client(fake)
        pieces: list[str] = []
        reply = llm.stream(model="fake-write", messages=M, on_delta=pieces.append)
        llm.close()
    assert reply.content == "after the wait" == "".join(pieces)


def test_a_server_that_ignores_stream_true_still_answers():
    with FakeLLM([raw_json({"choices": [{"message": {"content": "whole"}}]})]) as fake:
        llm = client(fake)
        pieces: list[str] = []
        reply = llm.stream(model="fake-write", messages=M, on_delta=pieces.append)
        llm.close()
    assert reply.content == "whole" and pieces == ["whole"]


def test_a_stream_without_usage_counts_its_pieces_as_completion_tokens():
    # llama-cpp-python's server ignores stream_options.include_usage: one chunk per
    # token and no usage chunk. Counting nothing would blind the token budget.
    def chunk(delta: dict, finish: str | None = None) -> str:
        body = {"choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}
        return f"data: {json.dumps(body)}\n\n"

    sse = (
        "".join([chunk({"role": "assistant"}), *(chunk({"content": w}) for w in ["a", " b", " c"])])
        + chunk({}, "length")
        + "data: [DONE]\n\n"
    )
    with FakeLLM([raw(200, sse, "text/event-stream")]) as fake:
        llm = client(fake)
        reply = llm.stream(model="fake-write", messages=M, max_tokens=3)
        llm.close()
    assert reply.content == "a b c" and reply.finish_reason == "length"
    assert reply.completion_tokens == 3


# -- the deadline ------------------------------------------------------------------


def test_a_slow_whole_answer_is_waited_for_until_the_deadline_not_asked_twice():
    # A local server writes a non-streamed answer in silence for minutes and serves one
    # request at a time: a retry after the read timeout would only queue behind it.
    with FakeLLM([delay(1.5, text("late but whole"))]) as fake:
        llm = client(fake, timeout_s=0.5, deadline_s=10)
        reply = llm.chat(model="fake-write", messages=M)
        llm.close()
        assert fake.calls == 1
    assert reply.content == "late but whole"


@pytest.mark.parametrize(
    "turn, method",
    [
        (trickle(0.2), "chat"),  # a byte every 0.2 s: the read timeout never fires
        (keep_alive(0.2), "stream"),  # SSE comments forever
        (keep_alive(0.2), "chat"),
        (delay(20, text("too late")), "chat"),  # nothing at all
    ],
    ids=["trickle", "keep_alive_stream", "keep_alive_chat", "silence"],
)
def test_a_call_is_cut_at_its_deadline(turn, method):
    with FakeLLM([turn] * 3) as fake:
        llm = client(fake, timeout_s=10)
        start = time.monotonic()
        with pytest.raises(LLMError) as info:
            getattr(llm, method)(model="fake-write", messages=M, deadline_s=1.0)
        took = time.monotonic() - start
        llm.close()
    assert info.value.kind == "deadline"
    assert "1 s deadline" in str(info.value)
    assert took < 8  # not the 10 s read timeout, let alone forever


def test_retries_never_outlive_the_deadline():
    with FakeLLM([http_error(503, "overloaded")] * 50) as fake:
        llm = client(fake, max_retries=40)
        start = time.monotonic()
        with pytest.raises(LLMError) as info:
            llm.chat(model="fake-explore", messages=M, deadline_s=1.0)
        took = time.monotonic() - start
        llm.close()
        calls = fake.calls
    assert info.value.kind in ("server", "deadline")
    assert took < 5 and 2 <= calls < 41


def test_a_retry_after_past_the_deadline_is_not_waited_for():
    with FakeLLM([http_error(429, "slow down", retry_after=30)] * 2) as fake:
        llm = client(fake)
        start = time.monotonic()
        with pytest.raises(LLMError) as info:
            llm.chat(model="fake-explore", messages=M, deadline_s=2.0)
        took = time.monotonic() - start
        llm.close()
        calls = fake.calls
    assert info.value.kind == "rate_limit" and "deadline" in str(info.value)
    assert calls == 1 and took < 2


def test_a_long_answer_within_the_deadline_is_not_cut():
    with FakeLLM([delay(1.0, text("slow but fine"))]) as fake:
        llm = client(fake)
        reply = llm.chat(model="fake-explore", messages=M, deadline_s=5.0)
        llm.close()
    assert reply.content == "slow but fine"


# -- cancel ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "turn, method",
    [
        (delay(20, text("late")), "chat"),
        (trickle(1.0), "chat"),
        (keep_alive(1.0), "stream"),
        (http_error(429, "wait", retry_after=20), "chat"),  # cancelled while backing off
    ],
    ids=["silence", "trickle", "keep_alive", "backoff"],
)
def test_cancel_interrupts_a_stuck_call_within_two_seconds(turn, method):
    cancel = threading.Event()
    pressed: list[float] = []

    def press() -> None:
        pressed.append(time.monotonic())
        cancel.set()

    with FakeLLM([turn] * 2) as fake:
        llm = client(fake, timeout_s=60, deadline_s=60, cancelled=cancel.is_set)
        timer = threading.Timer(0.5, press)
        timer.start()
        with pytest.raises(Cancelled):
            getattr(llm, method)(model="fake-write", messages=M)
        gave_up = time.monotonic()
        timer.join()
        llm.close()
    assert gave_up - pressed[0] < 2


def test_a_per_call_cancel_flag_overrides_the_clients():
    cancel = threading.Event()
    with FakeLLM([delay(20, text("late"))]) as fake:
        llm = client(fake)
        timer = threading.Timer(0.3, cancel.set)
        timer.start()
        with pytest.raises(Cancelled):
            llm.chat(model="fake-explore", messages=M, cancelled=cancel.is_set)
        timer.join()
        llm.close()


def test_parallel_calls_are_cut_independently():
    """Vision calls run in parallel on one client: cutting one leaves the others alone."""
    results: dict[str, object] = {}

    def script(body, n):
        return trickle(0.2) if body["model"] == "slow" else delay(0.5, text("quick"))

    with FakeLLM(script) as fake:
        llm = client(fake)

        def ask(model: str, deadline: float) -> None:
            try:
                results[model] = llm.chat(model=model, messages=M, deadline_s=deadline).content
            except LLMError as e:
                results[model] = e.kind

        threads = [
            threading.Thread(target=ask, args=("slow", 0.8)),
            threading.Thread(target=ask, args=("fast", 5.0)),
        ]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        llm.close()
    assert results == {"slow": "deadline", "fast": "quick"}


# -- the fake server's hostile turns end when it closes --------------------------------


@pytest.mark.parametrize("turn", [trickle(5.0), keep_alive(5.0)], ids=["trickle", "keep_alive"])
def test_hostile_turns_are_cut_short_when_the_server_closes(turn):
    fake = FakeLLM([turn]).__enter__()
    port = int(fake.base_url.rsplit(":", 1)[1].split("/")[0])
    sock = socket.create_connection(("127.0.0.1", port))
    body = b'{"model": "m", "messages": []}'
    sock.sendall(
        b"POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
        + f"Content-Length: {len(body)}\r\n\r\n".encode()
        + body
    )
    head = sock.recv(4096)
    assert head.startswith(b"HTTP/1.0 200")
    start = time.monotonic()
    fake.close()  # the handler is mid-wait: it must not sit out its 5 s
    assert time.monotonic() - start < 2
    sock.close()


def test_tool_calls_still_parse_after_the_rewrite():
    with FakeLLM([tool_calls(call("read_file", {"path": "a.csv"}), call("list_dir", {}))]) as fake:
        llm = client(fake)
        reply = llm.chat(model="fake-explore", messages=M, tools=[], max_tokens=99)
        llm.close()
        sent = fake.last_request
    assert [c.name for c in reply.tool_calls] == ["read_file", "list_dir"]
    assert reply.tool_calls[0].parsed_args() == {"path": "a.csv"}
    assert sent["max_tokens"] == 99
