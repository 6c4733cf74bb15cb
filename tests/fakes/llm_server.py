"""A fake OpenAI-compatible chat-completions server on loopback.

It plays scripted model turns over real HTTP so tests exercise the real `openai`
client, its retries, its SSE parser and our own HTTP path. Stdlib only.

    with FakeLLM([tool_calls(call("read_file", {"path": "a.csv"})), text("done")]) as llm:
        client = OpenAI(base_url=llm.base_url, api_key="sk-test", max_retries=0)
        ...
        assert llm.calls == 2

Hostile servers for reliability tests: `raw(status, body, content_type)` sends
exactly that (truncated JSON, an HTML page, `message: null`...), `trickle(every)`
sends a body one byte every `every` seconds, `keep_alive(every)` sends SSE
`: keep-alive` comments (forever, or `count` of them before an answer). Every
wait ends when the server closes, so no test hangs on them.

A reasoning model: `thinking(reasoning, turn)` answers `turn` with its
`reasoning_content` first (DeepSeek's thinking mode, Qwen). With
`FakeLLM(..., reasoning_back=True)` the server also holds clients to DeepSeek's
rule for tool turns: a later request must carry each such turn's
`reasoning_content` back in its assistant message, or it gets HTTP 400.
"""

from __future__ import annotations

import itertools
import json
import sys
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

__all__ = [
    "MAX_DELAY_SECONDS",
    "Call",
    "Delay",
    "FakeLLM",
    "Hang",
    "HttpError",
    "KeepAlive",
    "Ramble",
    "Raw",
    "Script",
    "Text",
    "Thinking",
    "ToolCalls",
    "Trickle",
    "Turn",
    "call",
    "delay",
    "hang",
    "http_error",
    "keep_alive",
    "ramble",
    "raw",
    "raw_json",
    "rejects_tools",
    "text",
    "text_only",
    "thinking",
    "tool_calls",
    "trickle",
]

# A scripted delay longer than this is a mistake in a test, not a scenario.
MAX_DELAY_SECONDS = 30.0
# Streamed content and tool arguments are cut into pieces this long, so clients
# really have to reassemble them.
_PIECE_CHARS = 8


# --- Turns -------------------------------------------------------------------


@dataclass(frozen=True)
class Text:
    content: str
    prompt_tokens: int = 10
    completion_tokens: int = 5
    finish_reason: str = "stop"


@dataclass(frozen=True)
class Call:
    name: str
    arguments: str  # sent verbatim: JSON normally, anything for robustness tests
    id: str | None = None


@dataclass(frozen=True)
class ToolCalls:
    calls: tuple[Call, ...]
    content: str | None = None
    prompt_tokens: int = 10
    completion_tokens: int = 5


@dataclass(frozen=True)
class HttpError:
    status: int
    message: str
    retry_after: float | None = None
    code: str | None = None


@dataclass(frozen=True)
class Delay:
    seconds: float
    turn: Turn


@dataclass(frozen=True)
class Raw:
    status: int
    body: bytes
    content_type: str
    headers: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True)
class Trickle:
    body: bytes
    every: float
    content_type: str


@dataclass(frozen=True)
class KeepAlive:
    every: float
    then: Text | ToolCalls | None
    count: int | None


@dataclass(frozen=True)
class Ramble:
    every: float
    word: str


@dataclass(frozen=True)
class Hang:
    pass


@dataclass(frozen=True)
class Thinking:
    reasoning: str
    turn: Text | ToolCalls
    reasoning_tokens: int
    every: float = 0.0  # seconds between streamed reasoning pieces


Turn = Text | ToolCalls | HttpError | Delay | Raw | Trickle | KeepAlive | Ramble | Hang | Thinking
# A list of turns played in order, or a function of (request body, request index).
Script = Sequence[Turn] | Callable[[dict, int], Turn]


def text(
    content: str,
    *,
    prompt_tokens: int = 10,
    completion_tokens: int = 5,
    finish_reason: str = "stop",
) -> Text:
    """An assistant message with content (finish_reason="length" simulates truncation)."""
    return Text(content, prompt_tokens, completion_tokens, finish_reason)


def call(name: str, arguments: dict[str, Any] | str, id: str | None = None) -> Call:
    """One tool call. A dict is serialized to JSON as OpenAI does; a str is sent
    verbatim, which is how tests send malformed arguments (e.g. '{"path": ')."""
    if not isinstance(arguments, str):
        arguments = json.dumps(arguments)
    return Call(name, arguments, id)


def tool_calls(
    *calls: Call, content: str | None = None, prompt_tokens: int = 10, completion_tokens: int = 5
) -> ToolCalls:
    """An assistant message with tool_calls; ids left None become call_1, call_2, ..."""
    if not calls:
        raise ValueError("tool_calls() needs at least one call()")
    return ToolCalls(tuple(calls), content, prompt_tokens, completion_tokens)


def http_error(
    status: int,
    message: str = "scripted error",
    retry_after: float | None = None,
    *,
    code: str | None = None,
) -> HttpError:
    """An HTTP error with an OpenAI error body; retry_after (seconds, may be a
    fraction) is sent as a Retry-After header."""
    return HttpError(status, message, retry_after, code)


def delay(seconds: float, turn: Turn) -> Delay:
    """Wait before answering with turn (for timeout tests). Cut short when the
    server closes, so an abandoned slow answer never holds up a test."""
    if not 0 <= seconds <= MAX_DELAY_SECONDS:
        raise ValueError(f"delay must be within 0..{MAX_DELAY_SECONDS} s, got {seconds}")
    return Delay(seconds, turn)


def raw(
    status: int,
    body: bytes | str,
    content_type: str = "application/json",
    headers: dict[str, str] | None = None,
) -> Raw:
    """Exactly this status and body, whatever was asked (streamed or not): truncated
    JSON, an HTML error page, a body with `message: null`..."""
    data = body.encode() if isinstance(body, str) else body
    return Raw(status, data, content_type, tuple((headers or {}).items()))


def raw_json(payload: Any, status: int = 200) -> Raw:
    """A JSON body of our choosing, e.g. a completion whose choices list is empty."""
    return raw(status, json.dumps(payload))


def trickle(
    every: float = 1.0, body: bytes | str = b"", content_type: str = "application/json"
) -> Trickle:
    """Headers at once, then the body one byte every `every` seconds: the server that
    keeps a read timeout from ever firing. The default body is a long, never finished
    JSON reply. Cut short when the server closes or the client hangs up."""
    if every <= 0:
        raise ValueError("trickle needs a positive interval")
    data = body.encode() if isinstance(body, str) else body
    return Trickle(
        data or b'{"id": "chatcmpl-trickle", "choices": [' + b" " * 100_000, every, content_type
    )


def keep_alive(
    every: float = 0.5, then: Text | ToolCalls | None = None, *, count: int | None = None
) -> KeepAlive:
    """An SSE stream that sends only `: keep-alive` comment lines, every `every`
    seconds: `count` of them and then the answer `then` (as a stream), or (count
    None) until the server closes or the client hangs up."""
    if every <= 0:
        raise ValueError("keep_alive needs a positive interval")
    if count is not None and then is None:
        raise ValueError("keep_alive with a count needs the answer that follows it")
    return KeepAlive(every, then, count)


def ramble(every: float = 0.0, word: str = "more ") -> Ramble:
    """A model that never stops on its own: one `word` (a token) every `every`
    seconds until the request's `max_tokens`, then finish_reason "length"; streamed
    token by token when the request streams. Without max_tokens it goes on until
    the server closes or the client hangs up, as a small local model does."""
    if every < 0:
        raise ValueError("ramble needs a non-negative interval")
    return Ramble(every, word)


def thinking(
    reasoning: str,
    turn: Text | ToolCalls,
    *,
    reasoning_tokens: int | None = None,
    every: float = 0.0,
) -> Thinking:
    """A reasoning model's answer: `reasoning` as `reasoning_content` in the message
    (unstreamed), or streamed as deltas before the content and tool calls, one piece
    every `every` seconds. Usage counts it: completion_tokens grows by
    `reasoning_tokens` (default: one a word), reported as
    completion_tokens_details.reasoning_tokens."""
    if not reasoning:
        raise ValueError("thinking() needs some reasoning")
    if not 0 <= every * len(_pieces(reasoning)) <= MAX_DELAY_SECONDS:
        raise ValueError(f"thinking would stream longer than {MAX_DELAY_SECONDS} s")
    count = len(reasoning.split()) if reasoning_tokens is None else reasoning_tokens
    return Thinking(reasoning, turn, count, every)


def hang() -> Hang:
    """Accept the request and never answer (no headers, no byte) until the server closes."""
    return Hang()


# --- Server ------------------------------------------------------------------


class FakeLLM:
    """Context manager. `with FakeLLM(script) as llm:` serves on llm.base_url
    ("http://127.0.0.1:PORT/v1") until the block ends, then joins every thread."""

    def __init__(
        self,
        script: Script | None = None,
        *,
        models: Sequence[str] = ("fake-explore", "fake-write", "fake-vision"),
        api_key: str | None = None,
        served: dict[str, str] | None = None,
        reasoning_back: bool = False,
    ) -> None:
        self.models = tuple(models)
        # DeepSeek's thinking mode: the reasoning of a tool turn must come back
        self.reasoning_back = reasoning_back
        self._reasoning_of_call: dict[str, str] = {}  # tool call id -> the turn's reasoning
        self.api_key = api_key
        # requested model -> the name the replies report (as a dated snapshot would)
        self.served = dict(served or {})
        self.requests: list[dict] = []  # chat completion bodies, in arrival order
        self.headers: list[dict[str, str]] = []  # their headers, keys lower-cased
        # Every TCP connection accepted, whatever it asked (GET /models, a bad path...):
        # a test that a client never reached this server checks this, not `requests`.
        self.connections = 0
        # Server-side problems (script exhausted, script raised, bad request body):
        # tests can assert this is empty to catch mistakes the client swallowed.
        self.failures: list[str] = []
        self._script_fn: Callable[[dict, int], Turn] | None = None
        self._turns: list[Turn] = []
        if callable(script):
            self._script_fn = script
        elif script is not None:
            self._turns = list(script)
        self._next_turn = 0
        self._call_ids = itertools.count(1)
        self._lock = threading.Lock()
        self._closing = threading.Event()
        self._server: _Server | None = None
        self._thread: threading.Thread | None = None

    # -- lifecycle --

    def __enter__(self) -> FakeLLM:
        self._closing.clear()
        self._server = _Server(("127.0.0.1", 0), _Handler)
        self._server.fake = self
        # A short poll interval keeps shutdown() (and so every test) fast.
        self._thread = threading.Thread(
            target=self._server.serve_forever,
            kwargs={"poll_interval": 0.05},
            name="FakeLLM-server",
            daemon=True,
        )
        self._thread.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def close(self) -> None:
        if self._server is None:
            return
        self._closing.set()  # wakes handlers sleeping in a delay()
        self._server.shutdown()
        self._server.server_close()  # closes the socket and joins handler threads
        assert self._thread is not None
        self._thread.join()
        self._server = None

    @property
    def base_url(self) -> str:
        if self._server is None:
            raise RuntimeError("FakeLLM is not running; use it as a context manager")
        return f"http://127.0.0.1:{self._server.server_address[1]}/v1"

    # -- script and inspection --

    def push(self, *turns: Turn) -> None:
        """Append scripted turns (list scripts only)."""
        if self._script_fn is not None:
            raise TypeError("cannot push turns onto a callable script")
        with self._lock:
            self._turns.extend(turns)

    @property
    def calls(self) -> int:
        """Number of chat completion requests received (including rejected ones)."""
        with self._lock:
            return len(self.requests)

    @property
    def last_request(self) -> dict:
        with self._lock:
            if not self.requests:
                raise AssertionError("FakeLLM received no chat completion request")
            return self.requests[-1]

    def tool_names(self, i: int) -> list[str]:
        """Names of the tools offered in request i."""
        return [t["function"]["name"] for t in self.requests[i].get("tools") or []]

    def tool_choice(self, i: int) -> Any:
        """The tool_choice sent in request i, or None."""
        return self.requests[i].get("tool_choice")

    # -- used by the handler threads --

    def _record(self, body: dict, headers: dict[str, str]) -> int:
        with self._lock:
            self.requests.append(body)
            self.headers.append(headers)
            return len(self.requests) - 1

    def _fail(self, message: str) -> HttpError:
        with self._lock:
            self.failures.append(message)
        return HttpError(500, message, code="fake_llm_failure")

    def _turn_for(self, body: dict, n: int) -> Turn:
        turn: object
        if self._script_fn is not None:
            try:
                turn = self._script_fn(body, n)
            except Exception as exc:  # surface script bugs as a loud 500, not a hang
                return self._fail(f"FakeLLM script raised {exc!r} on request {n}")
        else:
            with self._lock:
                if self._next_turn >= len(self._turns):
                    turn = None
                else:
                    turn = self._turns[self._next_turn]
                    self._next_turn += 1
            if turn is None:
                return self._fail(f"FakeLLM script exhausted: request {n} has no scripted turn")
        # Catch e.g. a bare call(...) where tool_calls(call(...)) was meant.
        if not isinstance(turn, (*_TURN_TYPES,)):
            return self._fail(f"FakeLLM script gave {turn!r} for request {n}, not a turn")
        return turn

    def _new_call_id(self) -> str:
        with self._lock:
            return f"call_{next(self._call_ids)}"

    def _gave_reasoning(self, call_ids: list[str], reasoning: str) -> None:
        with self._lock:
            for call_id in call_ids:
                self._reasoning_of_call[call_id] = reasoning

    def _reasoning_missing(self, body: dict) -> HttpError | None:
        """DeepSeek's 400 for a request that drops a tool turn's reasoning_content."""
        if not self.reasoning_back:
            return None
        for i, msg in enumerate(body.get("messages") or []):
            if not isinstance(msg, dict) or msg.get("role") != "assistant":
                continue
            ids = [c.get("id") for c in msg.get("tool_calls") or [] if isinstance(c, dict)]
            with self._lock:
                given = next(
                    (self._reasoning_of_call[c] for c in ids if c in self._reasoning_of_call), None
                )
            if given is not None and msg.get("reasoning_content") != given:
                return HttpError(
                    400,
                    f"Missing `reasoning_content` field in the assistant message at message "
                    f"index {i}. For more information, please refer to "
                    "https://api-docs.deepseek.com/guides/thinking_mode#tool-calls",
                    code="invalid_request_error",
                )
        return None


_TURN_TYPES = (Text, ToolCalls, HttpError, Delay, Raw, Trickle, KeepAlive, Ramble, Hang, Thinking)


class _Server(ThreadingHTTPServer):
    fake: FakeLLM
    # Non-daemon handler threads are joined by server_close() on every Python
    # version we support; handlers are bounded (socket timeout, interruptible
    # delays), so joining cannot hang.
    daemon_threads = False

    def verify_request(self, request: Any, client_address: Any) -> bool:
        with self.fake._lock:
            self.fake.connections += 1
        return True

    def handle_error(self, request: Any, client_address: Any) -> None:
        # A client that gave up (timeout test, closed stream) is expected; anything
        # else is a bug in the fake and must stay visible.
        exc = sys.exc_info()[1]
        if isinstance(exc, (ConnectionError, TimeoutError)):
            return
        self.fake._fail(f"FakeLLM handler crashed: {exc!r}")
        super().handle_error(request, client_address)


class _Handler(BaseHTTPRequestHandler):
    server: _Server
    # HTTP/1.0: one request per connection. No handler thread then sits on an
    # idle keep-alive connection, which would block a clean shutdown.
    protocol_version = "HTTP/1.0"
    timeout = 10  # seconds; bounds a read from a client that stalls
    _sse_started = False  # the SSE head is out (after keep-alives): the answer is a stream

    def log_message(self, format: str, *args: Any) -> None:
        pass  # keep test output clean (and never echo request details)

    # -- routing --

    def do_GET(self) -> None:
        if self._path() != "/v1/models":
            return self._not_found()
        if not self._authorized():
            return None
        data = [
            {"id": m, "object": "model", "created": 0, "owned_by": "fake-llm"}
            for m in self.server.fake.models
        ]
        return self._send_json(200, {"object": "list", "data": data})

    def do_POST(self) -> None:
        if self._path() != "/v1/chat/completions":
            return self._not_found()
        fake = self.server.fake
        length = int(self.headers.get("Content-Length") or 0)
        try:
            body = json.loads(self.rfile.read(length) or b"null")
        except ValueError:
            body = None
        if not isinstance(body, dict):
            fake._fail("FakeLLM got a request body that is not a JSON object")
            return self._send_error(HttpError(400, "request body must be a JSON object"))
        n = fake._record(body, {k.lower(): v for k, v in self.headers.items()})
        if not self._authorized():
            return None
        missing = fake._reasoning_missing(body)
        if missing is not None:
            return self._send_error(missing)
        return self._play(fake._turn_for(body, n), body, n)

    def _path(self) -> str:
        return self.path.split("?", 1)[0].rstrip("/")

    def _not_found(self) -> None:
        self._send_error(HttpError(404, f"no route for {self.command} {self._path()}"))

    def _authorized(self) -> bool:
        key = self.server.fake.api_key
        if key is None or self.headers.get("Authorization") == f"Bearer {key}":
            return True
        self._send_error(HttpError(401, "Incorrect API key provided", code="invalid_api_key"))
        return False

    # -- answers --

    def _play(self, turn: Turn, body: dict, n: int) -> None:
        fake = self.server.fake
        while isinstance(turn, Delay):
            if fake._closing.wait(turn.seconds):
                return  # shutting down: the client has given up on this answer
            turn = turn.turn
        if isinstance(turn, HttpError):
            return self._send_error(turn)
        if isinstance(turn, Raw):
            return self._send_raw(turn)
        if isinstance(turn, Trickle):
            return self._send_trickle(turn)
        if isinstance(turn, Hang):
            fake._closing.wait()
            return None
        if isinstance(turn, Ramble):
            return self._send_ramble(turn, body, n)
        if isinstance(turn, KeepAlive):
            if not self._send_keep_alives(turn) or turn.then is None:
                return None
            turn = turn.then
        thought: Thinking | None = None
        if isinstance(turn, Thinking):
            thought, turn = turn, turn.turn
        message: dict[str, Any] = {"role": "assistant", "content": None, "refusal": None}
        if isinstance(turn, Text):
            message["content"] = turn.content
            finish_reason = turn.finish_reason
        else:
            message["content"] = turn.content
            message["tool_calls"] = [
                {
                    "id": c.id or fake._new_call_id(),
                    "type": "function",
                    "function": {"name": c.name, "arguments": c.arguments},
                }
                for c in turn.calls
            ]
            finish_reason = "tool_calls"
        usage: dict[str, Any] = {
            "prompt_tokens": turn.prompt_tokens,
            "completion_tokens": turn.completion_tokens,
            "total_tokens": turn.prompt_tokens + turn.completion_tokens,
        }
        every = 0.0
        if thought is not None:
            message["reasoning_content"] = thought.reasoning
            every = thought.every
            usage["completion_tokens"] += thought.reasoning_tokens
            usage["total_tokens"] += thought.reasoning_tokens
            usage["completion_tokens_details"] = {"reasoning_tokens": thought.reasoning_tokens}
            ids = [c["id"] for c in message.get("tool_calls", [])]
            fake._gave_reasoning(ids, thought.reasoning)
        envelope = {
            "id": f"chatcmpl-fake{n}",
            "created": int(time.time()),
            "model": fake.served.get(body.get("model", ""), body.get("model", "")),
            "system_fingerprint": None,
        }
        if body.get("stream") or self._sse_started:
            include_usage = bool((body.get("stream_options") or {}).get("include_usage"))
            chunks = _stream_chunks(
                envelope, message, finish_reason, usage if include_usage else None
            )
            return self._send_sse(chunks, every)
        choice = {"index": 0, "message": message, "finish_reason": finish_reason, "logprobs": None}
        return self._send_json(
            200, {**envelope, "object": "chat.completion", "choices": [choice], "usage": usage}
        )

    def _send_error(self, err: HttpError) -> None:
        if err.status >= 500:
            error_type = "server_error"
        elif err.status == 429:
            error_type = "requests"  # what OpenAI sends for rate limits
        else:
            error_type = "invalid_request_error"
        headers: dict[str, str] = {}
        if err.retry_after is not None:
            headers["Retry-After"] = str(err.retry_after)
        if err.code == "fake_llm_failure":
            # The client must not retry a broken script: fail once, loudly.
            headers["x-should-retry"] = "false"
        payload = {
            "error": {"message": err.message, "type": error_type, "param": None, "code": err.code}
        }
        self._send_json(err.status, payload, headers)

    def _send_json(self, status: int, payload: dict, headers: dict[str, str] | None = None) -> None:
        data = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(data)

    def _send_raw(self, turn: Raw) -> None:
        self.send_response(turn.status)
        self.send_header("Content-Type", turn.content_type)
        self.send_header("Content-Length", str(len(turn.body)))
        for name, value in turn.headers:
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(turn.body)

    def _send_trickle(self, turn: Trickle) -> None:
        closing = self.server.fake._closing
        self.send_response(200)
        self.send_header("Content-Type", turn.content_type)
        self.send_header("Content-Length", str(len(turn.body)))
        self.end_headers()
        self.wfile.flush()
        for i in range(len(turn.body)):
            self.wfile.write(turn.body[i : i + 1])  # a hung-up client raises here: handled
            self.wfile.flush()
            if closing.wait(turn.every):
                return

    def _send_ramble(self, turn: Ramble, body: dict, n: int) -> None:
        closing = self.server.fake._closing
        limit = body.get("max_tokens")
        limit = limit if isinstance(limit, int) and limit > 0 else None
        stream = bool(body.get("stream"))
        envelope = {
            "id": f"chatcmpl-fake{n}",
            "created": int(time.time()),
            "model": body.get("model", ""),
            "system_fingerprint": None,
        }

        def chunk(delta: dict, finish: str | None = None) -> bytes:
            choice = {"index": 0, "delta": delta, "finish_reason": finish, "logprobs": None}
            data = {**envelope, "object": "chat.completion.chunk", "choices": [choice]}
            return b"data: " + json.dumps(data).encode() + b"\n\n"

        if stream:
            self._sse_head()
            self.wfile.write(chunk({"role": "assistant", "content": ""}))
        tokens = 0
        while limit is None or tokens < limit:
            if stream:
                self.wfile.write(chunk({"content": turn.word}))  # a hung-up client raises
                self.wfile.flush()
            tokens += 1
            # with no limit and no interval, a short wait keeps the endless loop off the CPU
            if closing.wait(turn.every or (0.01 if limit is None else 0)):
                return None
        usage = {"prompt_tokens": 10, "completion_tokens": tokens, "total_tokens": 10 + tokens}
        if stream:
            self.wfile.write(chunk({}, "length"))
            final = {**envelope, "object": "chat.completion.chunk", "choices": [], "usage": usage}
            self.wfile.write(b"data: " + json.dumps(final).encode() + b"\n\n")
            self.wfile.write(b"data: [DONE]\n\n")
            return None
        message = {"role": "assistant", "content": turn.word * tokens, "refusal": None}
        choice = {"index": 0, "message": message, "finish_reason": "length", "logprobs": None}
        return self._send_json(
            200, {**envelope, "object": "chat.completion", "choices": [choice], "usage": usage}
        )

    def _send_keep_alives(self, turn: KeepAlive) -> bool:
        """True when all `count` keep-alives went out (the answer follows)."""
        closing = self.server.fake._closing
        self._sse_head()
        for _ in itertools.count() if turn.count is None else range(turn.count):
            self.wfile.write(b": keep-alive\n\n")
            self.wfile.flush()
            if closing.wait(turn.every):
                return False
        return True

    def _sse_head(self) -> None:
        # No Content-Length: under HTTP/1.0 the body ends when the connection closes.
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.end_headers()
        self._sse_started = True

    def _send_sse(self, chunks: Iterator[dict], every: float = 0.0) -> None:
        """The chunks; `every` seconds after each reasoning piece (a model thinking)."""
        if not self._sse_started:
            self._sse_head()
        closing = self.server.fake._closing
        for chunk in chunks:
            self.wfile.write(b"data: " + json.dumps(chunk).encode() + b"\n\n")
            self.wfile.flush()
            thinks = any("reasoning_content" in c["delta"] for c in chunk.get("choices", []))
            if every and thinks and closing.wait(every):
                return
        self.wfile.write(b"data: [DONE]\n\n")


def _pieces(s: str) -> list[str]:
    return [s[i : i + _PIECE_CHARS] for i in range(0, len(s), _PIECE_CHARS)]


def _stream_chunks(
    envelope: dict, message: dict, finish_reason: str, usage: dict | None
) -> Iterator[dict]:
    """The chunks OpenAI sends for one message: role, content pieces, tool call
    pieces, finish_reason, then (if asked) a usage-only chunk with no choices."""

    def chunk(delta: dict, finish: str | None = None) -> dict:
        out = {
            **envelope,
            "object": "chat.completion.chunk",
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish, "logprobs": None}],
        }
        if usage is not None:
            out["usage"] = None  # as OpenAI does: null on every chunk but the last
        return out

    yield chunk({"role": "assistant", "content": "", "refusal": None})
    for piece in _pieces(message.get("reasoning_content") or ""):
        yield chunk({"content": None, "reasoning_content": piece})  # as DeepSeek streams it
    for piece in _pieces(message["content"] or ""):
        yield chunk({"content": piece})
    for index, tc in enumerate(message.get("tool_calls", [])):
        fn = tc["function"]
        head = {"name": fn["name"], "arguments": ""}
        yield chunk(
            {"tool_calls": [{"index": index, "id": tc["id"], "type": "function", "function": head}]}
        )
        for piece in _pieces(fn["arguments"]):
            yield chunk({"tool_calls": [{"index": index, "function": {"arguments": piece}}]})
    yield chunk({}, finish_reason)
    if usage is not None:
        yield {**envelope, "object": "chat.completion.chunk", "choices": [], "usage": usage}


# --- Models that cannot call tools -----------------------------------------------


def rejects_tools(
    message: str = "registry.ollama.ai/library/{model} does not support tools",
    *,
    status: int = 400,
    then: Text | ToolCalls | None = None,
) -> Callable[[dict, int], Turn]:
    """A script for a model that cannot take `tools` (as Ollama answers for one): every
    request that offers tools gets HTTP `status` with `message` ({model}: the model
    asked for); a request without tools gets `then` (default: a short text)."""

    def play(body: dict, n: int) -> Turn:
        if body.get("tools"):
            return http_error(status, message.format(model=body.get("model", "")))
        return then or text("A plain answer, no tools involved.")

    return play


def text_only(content: str = "Sure! I would now call the tool with the word ok.") -> Script:
    """A script for a model with weak tool support: it answers every request in prose,
    tools offered or not, however many requests come."""
    return lambda body, n: text(content)
