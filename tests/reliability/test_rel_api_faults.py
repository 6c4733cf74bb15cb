"""The API fault matrix: whatever the model server does, a run ends honestly.

Each fault is played in four places: the first exploration turn (nothing gathered:
the run fails), a later exploration turn (evidence gathered: degraded), the write
stages asked without streaming (CLI) and streamed (the app). After every
scenario the run has a final status with its reason (never "running"), the key
(echoed by some faults) is in no file of the run, and the picked folder is
unchanged (the `guarded_folder` fixture).
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest

from agent_helpers import (
    FINISH_ARGS,
    MINIMAL_REPORT,
    config_for,
    explore_requests,
    guard_kinds,
    of_type,
    route,
    writer_turn,
)
from canary import SECRET_KEY, leaks
from fakes import (
    FakeLLM,
    call,
    hang,
    http_error,
    keep_alive,
    raw,
    raw_json,
    text,
    tool_calls,
    trickle,
)
from labwright.core.llm import client as llm_module
from labwright.core.run.pipeline import run_agent

DEADLINE_S = 1.5
HTML = (
    "<!DOCTYPE html><html><head><title>502 Bad Gateway</title></head><body>"
    f"<h1>502 Bad Gateway</h1><p>upstream auth {SECRET_KEY}</p></body></html>"
)
NULL_FUNCTION = {
    "id": "chatcmpl-x",
    "model": "fake",
    "choices": [
        {
            "index": 0,
            "finish_reason": "tool_calls",
            "message": {
                "role": "assistant",
                "content": None,
                "tool_calls": [{"id": "call_x", "type": "function", "function": None}],
            },
        }
    ],
}

# name: (turn, LLMError kind, requests one explore call makes with max_retries=1, shown text)
FAULTS: dict[str, tuple[Any, str, int | None, str]] = {
    "truncated_json": (
        raw(200, '{"id": "chatcmpl-1", "choices": [{"index": 0, "message": {"role": "assi'),
        "bad_response",
        3,
        "not JSON",
    ),
    "html_body": (raw(200, HTML, "text/html"), "bad_response", 3, "502 Bad Gateway"),
    "empty_choices": (
        raw_json({"id": "chatcmpl-1", "choices": [], "model": "fake"}),
        "bad_response",
        3,
        "no choices",
    ),
    "null_message": (
        raw_json({"choices": [{"index": 0, "message": None, "finish_reason": "stop"}]}),
        "bad_response",
        3,
        "message is missing or null",
    ),
    "null_function": (raw_json(NULL_FUNCTION), "bad_response", 3, "no function name"),
    "sse_cut_short": (
        raw(
            200,
            'data: {"choices": [{"index": 0, "delta": {"content": "\\\\doc"}}]}\n\n',
            "text/event-stream",
        ),
        "bad_response",
        3,
        "ended before|not JSON",  # streamed | asked without streaming
    ),
    "auth_401": (
        http_error(401, f"Incorrect API key provided: {SECRET_KEY}", code="invalid_api_key"),
        "auth",
        1,
        "refused the API key",
    ),
    "not_found_404": (
        http_error(404, "The model `fake-explore` does not exist", code="model_not_found"),
        "not_found",
        1,
        "no such model",
    ),
    "rate_limit_429": (
        http_error(429, "Rate limit reached", retry_after=0.01),
        "rate_limit",
        2,
        "429",
    ),
    "server_500": (http_error(500, "internal error"), "server", 2, "failed (500)"),
    "overloaded_503": (
        http_error(503, "overloaded", retry_after=0.01),
        "server",
        2,
        "failed (503)",
    ),
    "context_length": (
        http_error(
            400,
            "This model's maximum context length is 65536 tokens. However, you requested 70000 tokens.",
            code="context_length_exceeded",
        ),
        "context_length",
        1,
        "context",
    ),
    "trickle": (trickle(0.3), "deadline", None, "deadline"),
    "keep_alive": (keep_alive(0.2), "deadline", None, "deadline"),
    "hang": (hang(), "deadline", None, "deadline"),  # not a byte, not even headers
}
WHERE = ["explore_first", "explore_later", "write_chat", "write_stream"]


@pytest.fixture(autouse=True)
def quick_backoff(monkeypatch):
    """Retries wait milliseconds here: the matrix is about outcomes, not patience."""
    monkeypatch.setattr(llm_module, "BACKOFF_BASE_S", 0.01)


def _read_turn(n: int) -> Any:
    return tool_calls(call("read_file", {"path": "manual.txt", "offset": n * 2, "limit": 2}))


def _script(where: str, fault: Any) -> tuple[Any, Any]:
    def explore(body: dict, n: int) -> Any:
        if where == "explore_first" or (where == "explore_later" and n >= 1):
            return fault
        if n == 0:
            return _read_turn(0)
        return tool_calls(call("finish_exploration", FINISH_ARGS))

    def writer(body: dict) -> Any:
        return fault if where.startswith("write") else writer_turn(body)

    return explore, writer


@pytest.mark.parametrize("where", WHERE)
@pytest.mark.parametrize("fault_name", list(FAULTS))
def test_a_fault_ends_the_run_honestly(
    fault_name, where, material, tmp_path, guarded_folder, isolated_home
):
    fault, kind, attempts, shown = FAULTS[fault_name]
    folder = guarded_folder(material)
    out = tmp_path / "run"
    explore, writer = _script(where, fault)
    pieces: list[tuple[str, str]] = []
    start = time.monotonic()
    with FakeLLM(route(explore, writer)) as llm:
        config = config_for(
            llm,
            folder,
            out,
            api_key=SECRET_KEY,
            explore_deadline_s=DEADLINE_S,
            write_deadline_s=DEADLINE_S,
        )
        on_text = (lambda k, t: pieces.append((k, t))) if where == "write_stream" else None
        events = list(run_agent(config, on_text=on_text))
        first_explore_requests = len(explore_requests(llm))
        server_failures = list(llm.failures)
    elapsed = time.monotonic() - start

    assert not server_failures  # the script itself was sound
    done = events[-1]
    meta = json.loads((out / "run.json").read_text(encoding="utf-8"))
    assert done.type == "done" and meta["status"] == done.status
    errors = [e.message for e in of_type(events, "error")]
    assert errors, "a fault must be reported as an error event"
    assert any(any(s in m for s in shown.split("|")) for m in errors), errors
    if where == "explore_first":
        assert done.status == "failed"
        assert f"model error: {kind}" in meta["reasons"]
        assert meta["error"] == errors[-1]
        if attempts is not None:
            assert first_explore_requests == attempts  # retried a fixed number of times
    else:
        # evidence was gathered: the run goes on without the model and says why
        assert done.status == "degraded"
        expected = "model_error" if where == "explore_later" else f"model error: {kind}"
        assert expected in meta["reasons"]
        assert (out / "report.tex").is_file()
    if kind == "deadline":
        assert "deadline" in guard_kinds(events)
        assert elapsed < 60  # cut at its deadline, not after a trickle's 15 minutes
    if where == "write_stream" and fault_name == "sse_cut_short":
        # each retry of a stream that had shown text starts the shown text over
        kinds = [k for k, _ in pieces]
        assert ("delta", "start") in zip(kinds, kinds[1:], strict=False)
    assert leaks([out, isolated_home], [SECRET_KEY]) == []
    assert all(SECRET_KEY not in json.dumps(e.to_dict()) for e in events)


def test_a_malformed_reply_then_a_good_one_is_just_a_retry(material, tmp_path, guarded_folder):
    folder = guarded_folder(material)
    script = [
        raw(200, "<html>busy</html>", "text/html"),
        _read_turn(0),
        raw_json({"choices": [{"index": 0, "message": None}]}),
        tool_calls(call("finish_exploration", FINISH_ARGS)),
    ]
    with FakeLLM(route(script)) as llm:
        events = list(run_agent(config_for(llm, folder, tmp_path / "run", api_key=SECRET_KEY)))
        requests = len(explore_requests(llm))
    assert requests == 4
    assert [e.role for e in of_type(events, "llm")].count("explore") == 2  # two real turns
    assert not of_type(events, "error")
    assert events[-1].status == "ok"


def test_a_stream_retried_after_pieces_starts_the_shown_text_over(
    material, tmp_path, guarded_folder
):
    folder = guarded_folder(material)
    broken = raw(
        200,
        'data: {"choices": [{"index": 0, "delta": {"content": "BROKEN"}}]}\n\n',
        "text/event-stream",
    )
    drafts = {"n": 0}

    def writer(body: dict) -> Any:
        prompt = json.dumps(body["messages"][-1].get("content", ""))
        if any(s in prompt for s in ("Answer with JSON only", "BibTeX", "NO ISSUES")):
            return writer_turn(body)  # the short answers; only the draft breaks
        drafts["n"] += 1
        return broken if drafts["n"] == 1 else text(MINIMAL_REPORT)

    pieces: list[tuple[str, str]] = []
    explore = [_read_turn(0), tool_calls(call("finish_exploration", FINISH_ARGS))]
    with FakeLLM(route(explore, writer)) as llm:
        config = config_for(llm, folder, tmp_path / "run")
        events = list(run_agent(config, on_text=lambda k, t: pieces.append((k, t))))
    assert events[-1].status == "ok"
    # what the app shows after the last "start" is the good draft, without the broken piece
    last = max(i for i, (k, _) in enumerate(pieces) if k == "start")
    shown = "".join(t for k, t in pieces[last + 1 :] if k == "delta")
    assert "BROKEN" not in shown and "\\documentclass" in shown
    assert Path(tmp_path / "run" / "report.tex").read_text(encoding="utf-8").strip() == (
        MINIMAL_REPORT.strip()
    )
