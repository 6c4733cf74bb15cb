"""The OpenAI-compatible client: one call per model turn, with usage accounting.

The `openai` client sends the request and maps HTTP errors; everything after
that is ours, because a model server can answer anything:

- Replies are parsed here, from the raw body, and checked: a 200 with a
  truncated JSON body, an HTML page, no choices, `message: null` or a tool call
  without a function is a `bad_response`, retried a few times, then an
  `LLMError` that says what the server sent (clipped, the key scrubbed).
- Retries are ours too (the client's are off): 408/409/429/5xx, dropped
  connections and bad replies, with backoff and Retry-After — but never past the
  call's *deadline*, which covers every attempt.
- A watchdog thread per call enforces that deadline and the user's cancel: read
  timeouts restart on every byte, so a server that trickles a byte every few
  seconds or sends SSE keep-alives forever would never time out by itself. At
  the deadline (or on cancel) the watchdog shuts the call's sockets down, which
  wakes the blocked read at once; the call then raises `LLMError(kind="deadline")`
  or `Cancelled`. To know a call's sockets, connections are not kept alive
  between calls (a model call takes seconds; a new connection costs little).
- A run's wall-clock budget (--max-minutes) bounds every call as well: given
  `run_left`, a call's deadline is the earlier of its own and the end of the run's
  budget, retries included. A call the run's clock cut raises `TimeUp`.

Messages say what to do and never contain the key, nor the userinfo of a
base URL (https://user:key@host/v1).
"""

from __future__ import annotations

import contextlib
import email.utils
import json
import random
import re
import socket
import sys
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from labwright.core.llm.streamed import (
    ECHOED_REASONING,
    Meter,
    Streaming,
    ToolCallParts,
    reasoning_of,
    reasoning_tokens,
)
from labwright.core.secrets import hide_secrets, redact_url, url_secrets
from labwright.core.settings.config import tools_advice
from labwright.core.step_words import CallMistake

if TYPE_CHECKING:
    import openai

# `openai` is imported on first use, not here: it costs half a second, and the
# desktop window (which imports the core) must appear at once.

DEFAULT_DEADLINE_S = 300.0
BAD_RESPONSE_RETRIES = 2  # a malformed reply is asked again this many times, then an error
CONNECT_TIMEOUT_S = 5.0  # a connect cannot be cut by the watchdog: keep it short
BACKOFF_BASE_S = 0.5  # the first retry's wait; doubled for each next one
MAX_BACKOFF_S = 8.0
MAX_RETRY_AFTER_S = 60.0  # a longer Retry-After is not waited for: the error is reported
DEADLINE_SLACK_S = 0.25  # an error this close to the deadline is the deadline
WATCH_INTERVAL_S = 0.1  # how often the watchdog looks at the cancel flag
CLIP_CHARS = 200  # of a server's body or message in an error


class Cancelled(Exception):
    """The user cancelled; everything gathered so far is kept."""


class LLMError(Exception):
    """A model call failed for good; the message is for the user."""

    def __init__(self, message: str, *, kind: str = "error") -> None:
        super().__init__(message)
        # "auth", "not_found", "unreachable", "rate_limit", "server", "bad_request",
        # "context_length", "bad_response", "deadline", "tools_unsupported", "error"
        self.kind = kind


class TimeUp(LLMError):
    """The run's wall-clock budget (--max-minutes) ran out while the call was under way
    (or before it was sent): the call was cut at a deadline, the run's. Its kind stays
    "deadline"; the stages stop their model work with the run's time reason."""

    def __init__(self, message: str) -> None:
        super().__init__(message, kind="deadline")


class ToolsRejected(LLMError):
    """The server refused a request for its `tools`: this model (or this server as it
    was started) cannot call tools. Not retried; the message names the model and says
    what to use instead (config.tools_advice)."""

    def __init__(self, message: str, *, model: str, status: int, said: str, advice: str) -> None:
        super().__init__(message, kind="tools_unsupported")
        self.model = model
        self.status = status
        self.said = said  # the server's own words, clipped and scrubbed
        self.advice = advice


@dataclass(frozen=True)
class ToolCallRequest:
    id: str
    name: str
    arguments: str  # the raw JSON string the model sent

    def parsed_args(self) -> dict[str, Any]:
        """The arguments as a dict; raises CallMistake (a ValueError) saying why they are not."""
        if not self.arguments or not self.arguments.strip():
            return {}
        try:
            value = json.loads(self.arguments)
        except json.JSONDecodeError as e:
            raise CallMistake("args_not_json", error=e.msg, pos=e.pos) from None
        if not isinstance(value, dict):
            raise CallMistake("args_not_object")
        return value


@dataclass(frozen=True)
class Reply:
    content: str
    tool_calls: list[ToolCallRequest]
    finish_reason: str | None
    model: str
    prompt_tokens: int
    completion_tokens: int
    ms: int
    # A reasoning model's thinking, kept apart from `content`: never part of an answer.
    reasoning: str = ""
    reasoning_tokens: int = 0  # the part of completion_tokens spent on it, if the server says
    reasoning_key: str = ""  # the field it came in (streamed.reasoning_of)

    def assistant_message(self) -> dict[str, Any]:
        """The reply as it goes back into the transcript. A turn that called tools keeps
        its `reasoning_content`: DeepSeek's thinking mode requires it back in every later
        request (HTTP 400 without it); others ignore it. Thinking without a tool call is
        not needed again, and only the field DeepSeek reads is ever sent back."""
        # "" and not null beside tool calls: llama-cpp-python's server rejects a null
        # content (HTTP 500, "Input should be a valid string"); every server takes "".
        msg: dict[str, Any] = {"role": "assistant", "content": self.content}
        if self.reasoning and self.tool_calls and self.reasoning_key == ECHOED_REASONING:
            msg[ECHOED_REASONING] = self.reasoning
        if self.tool_calls:
            msg["tool_calls"] = [
                {
                    "id": c.id,
                    "type": "function",
                    "function": {"name": c.name, "arguments": c.arguments or "{}"},
                }
                for c in self.tool_calls
            ]
        return msg


@dataclass
class RoleUsage:
    calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    ms: int = 0
    reasoning_tokens: int = 0  # part of completion_tokens (reasoning models)

    @property
    def total_tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens


@dataclass
class Usage:
    by_role: dict[str, RoleUsage] = field(default_factory=dict)
    # Part of the same calls split by (role, model the server said it served), for
    # cost.py's pricing; calls with no served name are in by_role only.
    by_model: dict[tuple[str, str], RoleUsage] = field(default_factory=dict)

    def add(self, role: str, reply: Reply) -> None:
        self.add_call(
            role,
            reply.prompt_tokens,
            reply.completion_tokens,
            reply.ms,
            reply.model,
            reasoning_tokens=reply.reasoning_tokens,
        )

    def add_call(
        self,
        role: str,
        prompt_tokens: int,
        completion_tokens: int,
        ms: int,
        model: str = "",
        *,
        reasoning_tokens: int = 0,
    ) -> None:
        """One call; `model` is the served model's name ("": unknown, priced as configured)."""
        counts = (prompt_tokens, completion_tokens, ms, reasoning_tokens)
        _count(self.by_role.setdefault(role, RoleUsage()), 1, *counts)
        if model:
            _count(self.by_model.setdefault((role, model), RoleUsage()), 1, *counts)

    def merge(self, other: Usage) -> Usage:
        """A new Usage with the calls of both."""
        total = Usage()
        for usage in (self, other):
            for role, u in usage.by_role.items():
                t = total.by_role.setdefault(role, RoleUsage())
                _count(t, u.calls, u.prompt_tokens, u.completion_tokens, u.ms, u.reasoning_tokens)
            for key, u in usage.by_model.items():
                t = total.by_model.setdefault(key, RoleUsage())
                _count(t, u.calls, u.prompt_tokens, u.completion_tokens, u.ms, u.reasoning_tokens)
        return total

    @property
    def total_tokens(self) -> int:
        return sum(u.total_tokens for u in self.by_role.values())

    def to_dict(self) -> dict[str, Any]:
        """run.json's usage per role; `reasoning_tokens` only for a role that had some."""
        out: dict[str, Any] = {}
        for role, u in sorted(self.by_role.items()):
            out[role] = {
                "calls": u.calls,
                "prompt_tokens": u.prompt_tokens,
                "completion_tokens": u.completion_tokens,
                "ms": u.ms,
            }
            if u.reasoning_tokens:
                out[role]["reasoning_tokens"] = u.reasoning_tokens
        return out


def _count(
    u: RoleUsage, calls: int, prompt: int, completion: int, ms: int, reasoning: int = 0
) -> None:
    u.calls += calls
    u.prompt_tokens += prompt
    u.completion_tokens += completion
    u.ms += ms
    u.reasoning_tokens += reasoning


class _BadResponse(Exception):
    """The server answered 200 with something that is not a usable reply."""


class _EmptyStream(_BadResponse):
    """A 200 event stream with no event in it. With tools, llama-cpp-python's
    function-calling formats answer every streamed request so, after generating the
    whole answer: asking again costs another generation for the same nothing."""


class _Cut(Exception):
    """The watchdog cut the call (deadline or cancel); `_Call.reason` says which."""


@dataclass
class _Call:
    """One model call: its deadline, its cancel flag and the sockets it opened."""

    deadline: float
    budget_s: float
    cancelled: Callable[[], bool]
    by_run: bool = False  # the deadline is the end of the run's time budget, not the call's
    reason: str | None = None  # "deadline" | "cancelled", once cut
    streams: list[Any] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)
    wake: threading.Event = field(default_factory=threading.Event)  # cut: stop sleeping
    done: threading.Event = field(default_factory=threading.Event)  # finished: stop watching

    def remaining(self) -> float:
        return self.deadline - time.monotonic()

    def check(self) -> None:
        if self.reason is None:
            if self.cancelled():
                self.cut("cancelled")
            elif self.remaining() <= 0:
                self.cut("deadline")
        if self.reason is not None:
            raise _Cut

    def cut(self, reason: str) -> None:
        with self.lock:
            if self.reason is None:
                self.reason = reason
            streams = list(self.streams)
        self.wake.set()
        for stream in streams:
            _shutdown(stream)

    def trace(self, name: str, info: dict[str, Any]) -> None:
        """httpcore's trace hook, in the calling thread: remember each new connection."""
        if not name.endswith(("connect_tcp.complete", "start_tls.complete")):
            return
        stream = info.get("return_value")
        if stream is None:
            return
        with self.lock:
            self.streams.append(stream)
            late = self.reason is not None
        if late:  # cut while this connection was being made
            _shutdown(stream)

    def watch(self) -> None:
        """The watchdog thread: cut the call at its deadline or when cancelled."""
        while not self.done.wait(max(0.0, min(WATCH_INTERVAL_S, self.remaining()))):
            if self.cancelled():
                self.cut("cancelled")
                return
            if self.remaining() <= 0:
                self.cut("deadline")
                return


def _shutdown(stream: Any) -> None:
    # shutdown(), not close(): it wakes a read blocked in another thread at once.
    try:
        sock = stream.get_extra_info("socket")
        if sock is not None:
            sock.shutdown(socket.SHUT_RDWR)
    except (OSError, AttributeError, ValueError):
        pass  # already closed: nothing left to wake


class LLM:
    """A thin, honest wrapper: the real `openai` client against any base URL."""

    def __init__(
        self,
        base_url: str,
        api_key: str | None,
        *,
        timeout_s: float = 120.0,
        max_retries: int = 4,
        deadline_s: float = DEFAULT_DEADLINE_S,
        cancelled: Callable[[], bool] | None = None,
        provider: str | None = None,
        run_left: Callable[[], float] | None = None,
    ) -> None:
        """`run_left`: the seconds left of the run's wall-clock budget, asked at the start
        of every call; a call never outlives it (None: no run budget)."""
        import openai

        self._secrets = sorted(
            {s for s in [api_key or "", *url_secrets(base_url)] if s}, key=len, reverse=True
        )
        self.base_url = redact_url(base_url)  # what messages show
        self.timeout_s = timeout_s
        self.max_retries = max(0, max_retries)
        self.deadline_s = deadline_s
        self.cancelled = cancelled or (lambda: False)
        self.provider = provider  # the preset in use (config.PROVIDERS), for its advice
        self.run_left = run_left
        self._local = threading.local()  # the call running in this thread, for the trace hook
        http = _http_module()
        self._http = openai.DefaultHttpxClient(
            timeout=http.Timeout(timeout_s, connect=min(CONNECT_TIMEOUT_S, timeout_s)),
            limits=http.Limits(max_keepalive_connections=0),
            event_hooks={"request": [self._on_request]},
        )
        self._http_errors = (http.HTTPError, http.StreamError)
        # Local servers (Ollama, llama.cpp) accept any key; the client insists on one.
        self._client = openai.OpenAI(
            base_url=base_url,
            api_key=api_key or "unused",
            max_retries=0,  # ours: bounded by the call's deadline, interruptible by cancel
            http_client=self._http,
        )

    def close(self) -> None:
        self._client.close()
        self._http.close()

    # -- the calls ---------------------------------------------------------

    def chat(
        self,
        *,
        model: str,
        messages: list[dict[str, Any]],
        tools: list[dict[str, Any]] | None = None,
        tool_choice: str | dict[str, Any] | None = None,
        temperature: float | None = None,
        max_tokens: int | None = None,
        deadline_s: float | None = None,
        cancelled: Callable[[], bool] | None = None,
    ) -> Reply:
        kwargs: dict[str, Any] = {"model": model, "messages": messages}
        if tools:
            kwargs["tools"] = tools
            if tool_choice is not None:
                kwargs["tool_choice"] = tool_choice
        if temperature is not None:
            kwargs["temperature"] = temperature
        if max_tokens is not None:
            kwargs["max_tokens"] = max_tokens
        return self._call(kwargs, deadline_s, cancelled)

    def stream(
        self,
        *,
        model: str,
        messages: list[dict[str, Any]],
        on_delta: Callable[[str], None] | None = None,
        on_retry: Callable[[], None] | None = None,
        on_progress: Callable[[Streaming], None] | None = None,
        tools: list[dict[str, Any]] | None = None,
        tool_choice: str | dict[str, Any] | None = None,
        max_tokens: int | None = None,
        deadline_s: float | None = None,
        cancelled: Callable[[], bool] | None = None,
    ) -> Reply:
        """A streamed call; `on_delta` sees each piece of content as it arrives,
        `on_retry` is told when an attempt that already sent pieces starts over, and
        `on_progress` how far the answer got, a few times a second (streamed.Meter).
        Tool calls are assembled from their streamed pieces."""
        kwargs: dict[str, Any] = {
            "model": model,
            "messages": messages,
            "stream": True,
            "stream_options": {"include_usage": True},
        }
        if tools:
            kwargs["tools"] = tools
            if tool_choice is not None:
                kwargs["tool_choice"] = tool_choice
        if max_tokens is not None:
            kwargs["max_tokens"] = max_tokens
        return self._call(kwargs, deadline_s, cancelled, on_delta, on_retry, on_progress)

    def list_models(self) -> list[str]:
        call = _Call(time.monotonic() + self.timeout_s, self.timeout_s, self.cancelled)
        with self._watching(call):
            self._local.call = call
            try:
                page = self._client.models.list(timeout=self.timeout_s)
                return sorted(m.id for m in page)
            except _openai().OpenAIError as e:
                if call.reason:
                    raise self._cut_error(call, 1, None) from None
                raise self._explain(e) from None
            finally:
                self._local.call = None

    # -- retries, deadline, cancel -----------------------------------------

    def _call(
        self,
        kwargs: dict[str, Any],
        deadline_s: float | None,
        cancelled: Callable[[], bool] | None,
        on_delta: Callable[[str], None] | None = None,
        on_retry: Callable[[], None] | None = None,
        on_progress: Callable[[Streaming], None] | None = None,
    ) -> Reply:
        start = time.monotonic()
        own = self.deadline_s if deadline_s is None else deadline_s
        call = self._new_call(start, own, cancelled or self.cancelled)
        meter = Meter(on_progress, start)  # counts each attempt anew, the time from start
        attempts = bad = retries = 0
        last: LLMError | None = None
        delivered = [False]  # a streamed attempt has shown pieces: a retry must say so

        def delta(piece: str) -> None:
            delivered[0] = True
            if on_delta is not None:
                on_delta(piece)

        with self._watching(call):
            while True:
                try:
                    call.check()
                    if delivered[0] and on_retry is not None:
                        on_retry()
                    delivered[0] = False
                    attempts += 1
                    meter.restart()
                    reply = self._attempt(call, kwargs, delta, meter)
                    ms = int((time.monotonic() - start) * 1000)
                    return Reply(**{**reply, "ms": ms})
                except Exception as exc:
                    if call.reason or isinstance(exc, _Cut):
                        raise self._cut_error(call, attempts, last) from None
                    err, wait = self._classify(exc, kwargs["model"], attempts, bad, retries)
                    if isinstance(exc, _EmptyStream) and kwargs.get("tools"):
                        wait = None  # the caller asks unstreamed instead (explore.py)
                    if call.remaining() <= DEADLINE_SLACK_S:
                        # The attempt's own timeout, capped at the deadline, beat the
                        # watchdog by a hair: it is the deadline all the same.
                        call.cut("deadline")
                        raise self._cut_error(call, attempts, err) from None
                    if err.kind == "bad_response":
                        bad += 1
                    else:
                        retries += 1
                last = err
                if wait is None:
                    raise err
                if wait >= call.remaining():
                    # The deadline comes first: the real cause is the last error.
                    which = (
                        "the run's time budget would run out"
                        if call.by_run
                        else f"the call's {call.budget_s:g} s deadline would pass"
                    )
                    raise LLMError(f"{err} Retries stopped: {which} while waiting.", kind=err.kind)
                if call.wake.wait(wait):
                    raise self._cut_error(call, attempts, last)

    def _new_call(self, start: float, own_s: float, cancelled: Callable[[], bool]) -> _Call:
        """A call's deadline: the earlier of its own and the end of the run's budget."""
        left = self.run_left() if self.run_left is not None else own_s
        if left < own_s:
            budget = max(0.0, left)
            return _Call(start + budget, budget, cancelled, by_run=True)
        return _Call(start + own_s, own_s, cancelled)

    def _classify(
        self, exc: Exception, model: str, attempts: int, bad: int, retries: int
    ) -> tuple[LLMError, float | None]:
        """The error for the user, and how long to wait before a retry (None: no retry)."""
        if isinstance(exc, _BadResponse):
            err = LLMError(
                self._scrub(
                    f"The model server at {self.base_url} sent {exc} "
                    f"(model {model}; {attempts} attempt(s))."
                ),
                kind="bad_response",
            )
            return err, _backoff(bad) if bad < BAD_RESPONSE_RETRIES else None
        if isinstance(exc, _openai().OpenAIError):
            if _rejects_tools(exc):  # the same request can only fail the same way
                return self._tools_rejected(exc, model), None
            wait = _retry_wait(exc, retries) if retries < self.max_retries else None
            return self._explain(exc), wait
        if isinstance(exc, self._http_errors):  # a body read after the headers broke off
            err = LLMError(
                self._scrub(
                    f"The connection to the model server at {self.base_url} broke off "
                    f"during the answer ({type(exc).__name__})."
                ),
                kind="unreachable",
            )
            return err, _backoff(retries) if retries < self.max_retries else None
        raise exc  # a bug of ours, not the server's: it must stay visible

    @contextlib.contextmanager
    def _watching(self, call: _Call) -> Iterator[None]:
        watchdog = threading.Thread(target=call.watch, name="labwright-llm-watchdog", daemon=True)
        watchdog.start()
        try:
            yield
        finally:
            call.done.set()
            watchdog.join()

    def _on_request(self, request: Any) -> None:
        call = getattr(self._local, "call", None)
        if call is not None:
            request.extensions = {**request.extensions, "trace": call.trace}

    def _attempt(
        self,
        call: _Call,
        kwargs: dict[str, Any],
        on_delta: Callable[[str], None],
        meter: Meter | None = None,
    ) -> dict[str, Any]:
        # A non-streamed answer is silent until it is whole: its silence limit is the
        # deadline. A retry after a shorter read timeout would queue behind the answer
        # a local server (one request at a time) is still writing for nobody.
        silence = self.timeout_s if kwargs.get("stream") else call.remaining()
        timeout = max(0.05, min(silence, call.remaining()))
        http = _http_module()
        timeout_cfg = http.Timeout(timeout, connect=min(CONNECT_TIMEOUT_S, timeout))
        self._local.call = call
        try:
            with self._client.chat.completions.with_streaming_response.create(
                **kwargs, timeout=timeout_cfg
            ) as resp:
                ctype = resp.headers.get("content-type", "")
                if kwargs.get("stream") and "text/event-stream" in ctype:
                    return _read_stream(resp.iter_lines(), kwargs["model"], on_delta, meter)
                parsed = _parse_completion(resp.read(), ctype, kwargs["model"])
                if kwargs.get("stream") and parsed["content"]:
                    on_delta(parsed["content"])  # a server that ignored stream=True
                return parsed
        finally:
            self._local.call = None

    def _cut_error(self, call: _Call, attempts: int, last: LLMError | None) -> Exception:
        if call.reason == "cancelled":
            return Cancelled()
        why = f" Last error: {last}" if last else ""
        if call.by_run:
            when = (
                f"while waiting for the model server at {self.base_url} ({attempts} "
                "attempt(s)); the call was cut"
                if attempts
                else "before the call was sent"
            )
            return TimeUp(
                self._scrub(f"The run's time budget (--max-minutes) ran out {when}.{why}")
            )
        return LLMError(
            self._scrub(
                f"The model server at {self.base_url} did not finish answering within the "
                f"call's {call.budget_s:g} s deadline ({attempts} attempt(s)); the call was "
                f"cut.{why}"
            ),
            kind="deadline",
        )

    # -- messages ----------------------------------------------------------

    def _scrub(self, text: str) -> str:
        return hide_secrets(text, self._secrets)

    def _tools_rejected(self, e: Any, model: str) -> ToolsRejected:
        said = self._scrub(_server_message(e))
        advice = tools_advice(self.base_url, self.provider)
        return ToolsRejected(
            self._scrub(
                f"The model {model} at {self.base_url} rejects tool calls "
                f"(HTTP {e.status_code}): {said} Labwright explores the folder by calling "
                f"tools, so it needs a model that can. {advice}"
            ),
            model=model,
            status=e.status_code,
            said=said,
            advice=advice,
        )

    def _explain(self, e: openai.OpenAIError) -> LLMError:
        """A message that says what to do; the key is scrubbed whatever the server echoed."""
        openai = _openai()
        where = self.base_url
        said = _server_message(e)
        if isinstance(e, openai.AuthenticationError):
            err = LLMError(
                f"The server at {where} refused the API key (401). Check the key in "
                "Settings, or LABWRIGHT_API_KEY.",
                kind="auth",
            )
        elif isinstance(e, openai.APITimeoutError):
            err = LLMError(
                f"The model server at {where} did not answer in time.", kind="unreachable"
            )
        elif isinstance(e, openai.APIConnectionError):
            err = LLMError(
                f"Cannot reach the model server at {where}. Check the URL and your "
                "connection, or run with --offline.",
                kind="unreachable",
            )
        elif isinstance(e, openai.RateLimitError):
            err = LLMError(
                f"The model server at {where} kept answering 429 (rate limit or quota) "
                f"after retries: {said} Wait a little or check your plan.",
                kind="rate_limit",
            )
        elif isinstance(e, openai.APIStatusError) and e.status_code >= 500:
            err = LLMError(
                f"The model server at {where} failed ({e.status_code}) after retries: {said}",
                kind="server",
            )
        elif isinstance(e, openai.APIStatusError) and _context_exceeded(e):
            err = LLMError(
                f"The request is longer than the model's context ({e.status_code}): {said} "
                "Use a model with a longer context, or lower the turn budget (--max-iters).",
                kind="context_length",
            )
        elif isinstance(e, openai.APIStatusError) and e.status_code == 404:
            err = LLMError(
                f"The model server at {where} has no such model or endpoint (404): {said} "
                "Check the model name and the base URL (it usually ends in /v1).",
                kind="not_found",
            )
        elif isinstance(e, openai.APIStatusError):
            err = LLMError(
                f"The model server at {where} rejected the request ({e.status_code}): {said}",
                kind="bad_request",
            )
        else:
            err = LLMError(f"Model call failed: {_clip(str(e))}")
        return LLMError(self._scrub(str(err)), kind=err.kind)


# -- parsing what the server sent ----------------------------------------------


def _parse_completion(body: bytes, ctype: str, model: str) -> dict[str, Any]:
    """A non-streamed chat completion, checked field by field."""
    try:
        data = json.loads(body)
    except (ValueError, UnicodeDecodeError):
        what = "an empty body" if not body.strip() else f"{len(body)} bytes"
        raise _BadResponse(
            f"a reply that is not JSON ({ctype or 'no content type'}, {what}): {_clip(body)}"
        ) from None
    if not isinstance(data, dict):
        raise _BadResponse(f"a JSON reply that is not an object: {_clip(body)}")
    if data.get("error"):
        raise _BadResponse(f"an error in a 200 reply: {_clip(_error_text(data['error']))}")
    choices = data.get("choices")
    if not isinstance(choices, list) or not choices:
        raise _BadResponse(f"a reply with no choices: {_clip(body)}")
    choice = choices[0]
    message = choice.get("message") if isinstance(choice, dict) else None
    if not isinstance(message, dict):
        raise _BadResponse(f"a reply whose message is missing or null: {_clip(body)}")
    content = _text(message.get("content"))
    if content is None:
        raise _BadResponse(f"a message whose content is not text: {_clip(body)}")
    raw_calls = message.get("tool_calls") or []
    if not isinstance(raw_calls, list):
        raise _BadResponse(f"tool_calls that are not a list: {_clip(body)}")
    calls = [_tool_call(c, i, body) for i, c in enumerate(raw_calls)]
    prompt, completion = _usage(data.get("usage"))
    finish = choice.get("finish_reason")
    reasoning, key = reasoning_of(message)
    return {
        "content": content,
        "tool_calls": calls,
        "finish_reason": finish if isinstance(finish, str) else None,
        "model": data["model"] if isinstance(data.get("model"), str) and data["model"] else model,
        "prompt_tokens": prompt,
        "completion_tokens": completion,
        "reasoning": reasoning,
        "reasoning_tokens": reasoning_tokens(data.get("usage")),
        "reasoning_key": key,
    }


def _tool_call(c: Any, i: int, body: bytes) -> ToolCallRequest:
    fn = c.get("function") if isinstance(c, dict) else None
    if not isinstance(fn, dict) or not isinstance(fn.get("name"), str) or not fn["name"]:
        raise _BadResponse(f"a tool call with no function name: {_clip(body)}")
    args = fn.get("arguments")
    if isinstance(args, (dict, list)):  # some servers send the object, not its JSON
        args = json.dumps(args)
    elif not isinstance(args, str):
        args = ""
    call_id = c.get("id")
    return ToolCallRequest(
        call_id if isinstance(call_id, str) and call_id else f"call_{i}", fn["name"], args
    )


def _read_stream(
    lines: Iterator[str],
    model: str,
    on_delta: Callable[[str], None],
    meter: Meter | None = None,
) -> dict[str, Any]:
    """An SSE chat stream: `data:` events until [DONE]; comments (keep-alives) skipped.
    Content, reasoning and tool-call pieces are reassembled; `meter` sees every line."""
    meter = meter or Meter(None, 0.0)
    parts: list[str] = []
    thinking: list[str] = []
    thinking_key = ""
    calls = ToolCallParts()
    served = model  # the model the chunks say served it (a dated snapshot), for pricing
    prompt = completion = thought = 0
    finish: str | None = None
    done = False
    events = 0
    pieces = 0  # content, reasoning and tool-call deltas: the count of a stream without usage
    junk: list[str] = []
    data_lines: list[str] = []

    def handle(data: str) -> None:
        nonlocal prompt, completion, thought, thinking_key, served, finish, done, events, pieces
        if data.strip() == "[DONE]":
            done = True
            return
        try:
            chunk = json.loads(data)
        except ValueError:
            raise _BadResponse(f"a stream event that is not JSON: {_clip(data)}") from None
        if not isinstance(chunk, dict):
            raise _BadResponse(f"a stream event that is not an object: {_clip(data)}")
        if chunk.get("error"):
            raise _BadResponse(f"an error in the stream: {_clip(_error_text(chunk['error']))}")
        events += 1
        if isinstance(chunk.get("model"), str) and chunk["model"]:
            served = chunk["model"]
        if chunk.get("usage"):
            prompt, completion = _usage(chunk["usage"])
            thought = reasoning_tokens(chunk["usage"]) or thought
            meter.served(completion)
        choices = chunk.get("choices") or []
        if not isinstance(choices, list):
            raise _BadResponse(f"stream choices that are not a list: {_clip(data)}")
        for choice in choices:
            if not isinstance(choice, dict):
                raise _BadResponse(f"a stream choice that is not an object: {_clip(data)}")
            delta = choice.get("delta")
            piece = _text(delta.get("content")) if isinstance(delta, dict) else ""
            if piece:
                parts.append(piece)
                pieces += 1
                on_delta(piece)
                meter.text(piece)
            reasoning, key = reasoning_of(delta)
            if reasoning:  # a thinking model's thoughts: kept apart, never content
                thinking.append(reasoning)
                thinking_key = thinking_key or key
                pieces += 1
                meter.text(reasoning, reasoning=True)
            if isinstance(delta, dict) and delta.get("tool_calls") is not None:
                pieces += 1
                try:
                    meter.text(calls.add(delta["tool_calls"]))
                except ValueError as e:
                    raise _BadResponse(f"{e}: {_clip(data)}") from None
            if isinstance(choice.get("finish_reason"), str):
                finish = choice["finish_reason"]

    for line in lines:
        meter.tick()  # keep-alives too: time passes, and the watcher is told so
        if not line.strip():  # the end of an event
            if data_lines:
                handle("\n".join(data_lines))
                data_lines = []
        elif line.startswith(":"):
            continue  # a comment: the keep-alives some servers send
        elif line.startswith("data:"):
            data_lines.append(line[5:].removeprefix(" "))
        elif not line.startswith(("event:", "id:", "retry:")) and len(junk) < 5:
            junk.append(line)
        if done:
            break
    if data_lines and not done:
        handle("\n".join(data_lines))
    if not events:
        shown = _clip("\n".join(junk)) if junk else "nothing"
        raise _EmptyStream(f"an event stream with no answer in it: {shown}")
    if not done and finish is None:
        raise _BadResponse("a stream that ended before the answer was complete")
    tool_calls = []
    for i, c in enumerate(calls.calls()):
        if not c["name"]:
            raise _BadResponse(f"a streamed tool call with no function name (call {i + 1})")
        tool_calls.append(ToolCallRequest(c["id"] or f"call_{i}", c["name"], c["arguments"]))
    if not prompt and not completion:
        # No usage although asked (llama-cpp-python ignores stream_options): one piece
        # per token, as such servers send them, so budgets still see the answer.
        completion = pieces
    return {
        "content": "".join(parts),
        "tool_calls": tool_calls,
        "finish_reason": finish,
        "model": served,
        "prompt_tokens": prompt,
        "completion_tokens": completion,
        "reasoning": "".join(thinking),
        "reasoning_tokens": thought,
        "reasoning_key": thinking_key,
    }


def _text(content: Any) -> str | None:
    """Message content as text: a string, null, or a list of text parts."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        texts = [p.get("text") for p in content if isinstance(p, dict)]
        if all(isinstance(t, str) for t in texts):
            return "".join(texts)  # type: ignore[arg-type]
    return None


def _usage(usage: Any) -> tuple[int, int]:
    if not isinstance(usage, dict):
        return 0, 0

    def count(key: str) -> int:
        value = usage.get(key)
        return value if isinstance(value, int) and value >= 0 else 0

    return count("prompt_tokens"), count("completion_tokens")


def _error_text(error: Any) -> str:
    if isinstance(error, dict) and isinstance(error.get("message"), str):
        return error["message"]
    return json.dumps(error) if not isinstance(error, str) else error


def _server_message(e: Any) -> str:
    body = getattr(e, "body", None)
    if isinstance(body, dict):
        inner = body.get("error", body)
        if isinstance(inner, dict) and isinstance(inner.get("message"), str):
            return _clip(inner["message"])
    return _clip(getattr(e, "message", "") or str(e))


# What servers say when a model (or the server as started) cannot take `tools`: Ollama
# "<model> does not support tools", OpenAI "tools is not supported with this model",
# SiliconFlow "Function call is not supported for this model", OpenRouter "No endpoints
# found that support tool use", llama.cpp without --jinja "tools param requires --jinja
# flag" (a 500), vLLM without tool parsing "\"auto\" tool choice requires
# --enable-auto-tool-choice".
_TOOLS_REJECTED = re.compile(
    r"(\bnot|n't|\bnever) supports?(ed)?( the)? (tools?\b|tool[ _-]?(use|calls?|calling)"
    r"|function[ _-]?call)"
    r"|\b(tools?|tool[ _-]?(use|calls?|calling)|function[ _-]?call(s|ing)?)( param(eter)?)? "
    r"(is|are) not (supported|enabled|available|allowed)"
    r"|endpoints? found that supports? tool"
    r"|tools param requires|enable-auto-tool-choice"
    r"|(unrecognized|unsupported|unknown|extra|invalid) (request )?(argument|param(eter)?|field)s?"
    r"[^.]{0,30}\btools\b"
)


def _rejects_tools(e: Any) -> bool:
    """An HTTP error that says the request's `tools` cannot be taken. One about
    `tool_choice` alone is not: a forced choice has its own fallback (explore)."""
    status = getattr(e, "status_code", None)
    if not isinstance(status, int) or status < 400 or status in (401, 403, 408, 429):
        return False
    text = f"{_server_message(e)} {getattr(e, 'message', '')}".lower()
    if ("tool_choice" in text or "tool choice" in text) and "enable-auto-tool-choice" not in text:
        return False
    return _TOOLS_REJECTED.search(text) is not None


def _context_exceeded(e: Any) -> bool:
    if getattr(e, "status_code", 0) == 413:
        return True
    code = getattr(e, "code", None)
    text = f"{code} {getattr(e, 'message', '')}".lower()
    return code == "context_length_exceeded" or any(
        s in text
        for s in ("context length", "context_length", "maximum context", "too many tokens")
    )


def _backoff(n: int) -> float:
    """0.5, 1, 2, 4, 8 s, with jitter so parallel calls do not retry in step."""
    return min(MAX_BACKOFF_S, BACKOFF_BASE_S * 2**n) * random.uniform(0.75, 1.0)


def _retry_wait(e: Any, n: int) -> float | None:
    """How long to wait before retrying this error, or None when it is not retried."""
    headers = getattr(getattr(e, "response", None), "headers", None) or {}
    should = str(headers.get("x-should-retry", "")).lower()
    if should == "false":
        return None
    status = getattr(e, "status_code", None)
    openai = _openai()
    if isinstance(e, openai.APIConnectionError):  # includes timeouts
        return _backoff(n)
    if status is None or (status not in (408, 409, 429) and status < 500 and should != "true"):
        return None
    after = _retry_after(headers)
    if after is None:
        return _backoff(n)
    return after if after <= MAX_RETRY_AFTER_S else None


def _retry_after(headers: Any) -> float | None:
    try:
        if headers.get("retry-after-ms") is not None:
            return max(0.0, float(headers["retry-after-ms"]) / 1000)
        value = headers.get("retry-after")
        if value is None:
            return None
        try:
            return max(0.0, float(value))
        except ValueError:
            when = email.utils.parsedate_to_datetime(value)
            return max(0.0, when.timestamp() - time.time())
    except (TypeError, ValueError, OverflowError):
        return None


def _clip(text: str | bytes, limit: int = CLIP_CHARS) -> str:
    """One line, at most `limit` characters, control characters escaped."""
    if isinstance(text, bytes):
        text = text[: limit * 4].decode("utf-8", errors="replace")
    text = " ".join(str(text).split())
    text = "".join(c if c.isprintable() else f"\\x{ord(c):02x}" for c in text)
    return repr(text) if len(text) <= limit else repr(text[: limit - 1] + "…")


def _openai() -> Any:
    import openai

    return openai


def _http_module() -> Any:
    """The HTTP library the installed `openai` speaks (httpx, or httpx2 in openai 3)."""
    import openai

    base = next(c for c in type.mro(openai.DefaultHttpxClient) if c.__name__ == "Client")
    return sys.modules[base.__module__.split(".")[0]]
