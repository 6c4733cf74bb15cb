"""The fake LLM server, checked against the real `openai` client over loopback."""

from __future__ import annotations

import json
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Iterator

import openai
import pytest
from openai import OpenAI

from fakes import FakeLLM, call, delay, http_error, text, tool_calls

MESSAGES = [{"role": "user", "content": "hi"}]
READ_FILE_TOOL = {
    "type": "function",
    "function": {
        "name": "read_file",
        "parameters": {"type": "object", "properties": {"path": {"type": "string"}}},
    },
}
FINISH_TOOL = {
    "type": "function",
    "function": {"name": "finish_exploration", "parameters": {"type": "object"}},
}


@pytest.fixture(autouse=True)
def no_leaked_threads() -> Iterator[None]:
    before = set(threading.enumerate())
    yield
    leaked = [t for t in threading.enumerate() if t not in before]
    assert not leaked, f"threads left running: {leaked}"


def client_for(llm: FakeLLM, **kwargs) -> OpenAI:
    kwargs.setdefault("max_retries", 0)
    kwargs.setdefault("api_key", "sk-test")
    return OpenAI(base_url=llm.base_url, **kwargs)


def chat(client: OpenAI, **kwargs):
    kwargs.setdefault("model", "fake-explore")
    kwargs.setdefault("messages", MESSAGES)
    return client.chat.completions.create(**kwargs)


def test_text_turn() -> None:
    script = [text("hello", prompt_tokens=7, completion_tokens=3)]
    with FakeLLM(script) as llm, client_for(llm) as client:
        resp = chat(client, model="fake-write")
    assert resp.object == "chat.completion"
    assert resp.model == "fake-write"
    assert resp.id and resp.created > 0
    assert resp.choices[0].message.content == "hello"
    assert resp.choices[0].finish_reason == "stop"
    assert (resp.usage.prompt_tokens, resp.usage.completion_tokens) == (7, 3)
    assert resp.usage.total_tokens == 10
    assert llm.calls == 1 and not llm.failures


def test_tool_calls_parse_into_client_objects() -> None:
    script = [
        tool_calls(
            call("read_file", {"path": "a.csv", "offset": 0}),
            call("list_dir", {}, id="mine"),
            call("read_file", '{"path": '),  # malformed arguments are sent verbatim
        )
    ]
    with FakeLLM(script) as llm, client_for(llm) as client:
        resp = chat(client)
    choice = resp.choices[0]
    assert choice.finish_reason == "tool_calls"
    assert choice.message.content is None
    first, second, third = choice.message.tool_calls
    assert (first.id, first.function.name) == ("call_1", "read_file")
    assert json.loads(first.function.arguments) == {"path": "a.csv", "offset": 0}
    assert (second.id, second.function.name) == ("mine", "list_dir")
    assert third.id == "call_2"
    assert third.function.arguments == '{"path": '


def test_streaming_text_is_split_and_reassembles() -> None:
    content = "The projectile lands after 1.43 s at 9.8 m from the launcher."
    with FakeLLM([text(content)]) as llm, client_for(llm) as client:
        chunks = list(chat(client, stream=True))
    assert all(c.object == "chat.completion.chunk" for c in chunks)
    assert chunks[0].choices[0].delta.role == "assistant"
    pieces = [c.choices[0].delta.content for c in chunks if c.choices[0].delta.content]
    assert len(pieces) > 2
    assert "".join(pieces) == content
    assert chunks[-1].choices[0].finish_reason == "stop"
    assert all(c.usage is None for c in chunks)  # not asked for


def test_streaming_tool_calls_reassemble() -> None:
    args_a = {"path": "data/trial_01.csv", "offset": 40, "limit": 20}
    script = [tool_calls(call("read_file", args_a), call("list_dir", {"path": "."}))]
    with FakeLLM(script) as llm, client_for(llm) as client:
        calls: dict[int, dict] = {}
        finish = None
        for chunk in chat(client, stream=True):
            choice = chunk.choices[0]
            finish = choice.finish_reason or finish
            for tc in choice.delta.tool_calls or []:
                slot = calls.setdefault(tc.index, {"id": None, "name": "", "arguments": ""})
                slot["id"] = tc.id or slot["id"]
                slot["name"] += tc.function.name or ""
                slot["arguments"] += tc.function.arguments or ""
    assert finish == "tool_calls"
    assert [calls[0]["id"], calls[1]["id"]] == ["call_1", "call_2"]
    assert [calls[0]["name"], calls[1]["name"]] == ["read_file", "list_dir"]
    assert json.loads(calls[0]["arguments"]) == args_a
    assert json.loads(calls[1]["arguments"]) == {"path": "."}


def test_streaming_usage_chunk_when_asked() -> None:
    script = [text("ok", prompt_tokens=12, completion_tokens=4)]
    with FakeLLM(script) as llm, client_for(llm) as client:
        chunks = list(chat(client, stream=True, stream_options={"include_usage": True}))
    last = chunks[-1]
    assert last.choices == []
    assert (last.usage.prompt_tokens, last.usage.completion_tokens) == (12, 4)
    assert last.usage.total_tokens == 16
    assert all(c.usage is None for c in chunks[:-1])


def test_rate_limit_then_success_with_client_retry() -> None:
    script = [http_error(429, "slow down", retry_after=0.01), text("after retry")]
    with FakeLLM(script) as llm, client_for(llm, max_retries=1) as client:
        resp = chat(client)
    assert resp.choices[0].message.content == "after retry"
    assert llm.calls == 2


def test_rate_limit_error_carries_retry_after() -> None:
    with (
        FakeLLM([http_error(429, "slow down", retry_after=2)]) as llm,
        client_for(llm) as client,
        pytest.raises(openai.RateLimitError) as err,
    ):
        chat(client)
    assert err.value.response.headers["retry-after"] == "2"
    assert err.value.body["message"] == "slow down"


def test_server_errors_map_to_client_exceptions() -> None:
    with (
        FakeLLM([http_error(503, "overloaded")]) as llm,
        client_for(llm) as client,
        pytest.raises(openai.InternalServerError, match="overloaded"),
    ):
        chat(client)


def test_exhausted_script_fails_loudly_and_is_not_retried() -> None:
    with FakeLLM([text("only one")]) as llm, client_for(llm, max_retries=2) as client:
        chat(client)
        with pytest.raises(openai.InternalServerError, match="exhausted"):
            chat(client)
    assert llm.calls == 2  # the client obeyed x-should-retry: false
    assert len(llm.failures) == 1 and "exhausted" in llm.failures[0]


def test_push_appends_turns() -> None:
    with FakeLLM() as llm, client_for(llm) as client:
        llm.push(text("one"), text("two"))
        assert [chat(client).choices[0].message.content for _ in range(2)] == ["one", "two"]


def test_callable_script_sees_body_and_index() -> None:
    def always_read(body: dict, n: int):
        return tool_calls(call("read_file", {"path": "a.csv"}, id=f"r{n}"), content=body["model"])

    with FakeLLM(always_read) as llm, client_for(llm) as client:
        ids = [chat(client, model="m").choices[0].message.tool_calls[0].id for _ in range(3)]
        with pytest.raises(TypeError):
            llm.push(text("no"))
    assert ids == ["r0", "r1", "r2"]
    assert llm.calls == 3


def test_callable_script_that_raises_answers_500() -> None:
    def broken(body: dict, n: int):
        raise KeyError("oops")

    with (
        FakeLLM(broken) as llm,
        client_for(llm) as client,
        pytest.raises(openai.InternalServerError, match="oops"),
    ):
        chat(client)
    assert "oops" in llm.failures[0]


def test_something_that_is_not_a_turn_answers_500() -> None:
    script = [call("read_file", {"path": "a.csv"})]  # meant: tool_calls(call(...))
    with (
        FakeLLM(script) as llm,
        client_for(llm) as client,
        pytest.raises(openai.InternalServerError, match="not a turn"),
    ):
        chat(client)
    assert len(llm.failures) == 1


def test_models_endpoint() -> None:
    with FakeLLM(models=("a", "b")) as llm, client_for(llm) as client:
        assert [m.id for m in client.models.list()] == ["a", "b"]


def test_api_key_is_checked_when_configured() -> None:
    with FakeLLM([text("ok")], api_key="sk-good") as llm:
        with client_for(llm, api_key="sk-bad") as client:
            with pytest.raises(openai.AuthenticationError):
                chat(client)
            with pytest.raises(openai.AuthenticationError):
                client.models.list()
        with client_for(llm, api_key="sk-good") as client:
            assert chat(client).choices[0].message.content == "ok"
    # The rejected request is recorded but consumed no turn.
    assert llm.calls == 2
    assert [h["authorization"] for h in llm.headers] == ["Bearer sk-bad", "Bearer sk-good"]


def test_unknown_path_is_404_json() -> None:
    with FakeLLM() as llm:
        with pytest.raises(urllib.error.HTTPError) as err:
            urllib.request.urlopen(llm.base_url + "/embeddings", data=b"{}", timeout=5)
        with err.value as response:
            assert response.code == 404
            assert "error" in json.loads(response.read())


def test_requests_record_tools_and_tool_choice() -> None:
    forced = {"type": "function", "function": {"name": "finish_exploration"}}
    with FakeLLM([text("a"), text("b")]) as llm, client_for(llm) as client:
        chat(client, tools=[READ_FILE_TOOL, FINISH_TOOL])
        chat(client, tools=[FINISH_TOOL], tool_choice=forced, messages=[*MESSAGES, MESSAGES[0]])
    assert llm.tool_names(0) == ["read_file", "finish_exploration"]
    assert llm.tool_choice(0) is None
    assert llm.tool_names(1) == ["finish_exploration"]
    assert llm.tool_choice(1) == forced
    assert llm.last_request is llm.requests[1]
    assert len(llm.last_request["messages"]) == 2


def test_delay_lets_the_client_time_out_and_exit_is_prompt() -> None:
    start = time.monotonic()
    with (
        FakeLLM([delay(20, text("too late"))]) as llm,
        client_for(llm, timeout=0.2) as client,
        pytest.raises(openai.APITimeoutError),
    ):
        chat(client)
    assert time.monotonic() - start < 5  # the sleeping handler was woken, not waited for


def test_delay_is_bounded() -> None:
    with pytest.raises(ValueError):
        delay(3600, text("never"))


def test_threads_return_to_baseline_even_after_an_abandoned_stream() -> None:
    baseline = threading.active_count()
    long_text = "x" * 4000
    with FakeLLM([text(long_text)]) as llm, client_for(llm) as client:
        assert threading.active_count() > baseline
        with chat(client, stream=True) as stream:
            next(iter(stream))  # read one chunk, then hang up
    assert threading.active_count() == baseline
