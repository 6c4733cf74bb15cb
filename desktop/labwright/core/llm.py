"""The OpenAI-compatible client: one call per model turn, with usage accounting.

Retries with backoff on 429, 5xx, timeouts and dropped connections are the
`openai` client's own (it honours Retry-After); we only set how many. Errors
are turned into `LLMError` with a message that says what to do and never
contains the key.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import openai

# `openai` is imported on first use, not here: it costs half a second, and the
# desktop window (which imports the core) must appear at once.


class LLMError(Exception):
    """A model call failed for good; the message is for the user."""

    def __init__(self, message: str, *, kind: str = "error") -> None:
        super().__init__(message)
        self.kind = kind  # "auth", "unreachable", "rate_limit", "server", "bad_request", "error"


@dataclass(frozen=True)
class ToolCallRequest:
    id: str
    name: str
    arguments: str  # the raw JSON string the model sent

    def parsed_args(self) -> dict[str, Any]:
        """The arguments as a dict; raises ValueError with a reason when they are not."""
        if not self.arguments or not self.arguments.strip():
            return {}
        try:
            value = json.loads(self.arguments)
        except json.JSONDecodeError as e:
            raise ValueError(f"arguments are not valid JSON ({e.msg} at char {e.pos})") from None
        if not isinstance(value, dict):
            raise ValueError("arguments must be a JSON object")
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

    def assistant_message(self) -> dict[str, Any]:
        """The reply as it goes back into the transcript."""
        msg: dict[str, Any] = {"role": "assistant", "content": self.content or None}
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

    @property
    def total_tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens


@dataclass
class Usage:
    by_role: dict[str, RoleUsage] = field(default_factory=dict)

    def add(self, role: str, reply: Reply) -> None:
        self.add_call(role, reply.prompt_tokens, reply.completion_tokens, reply.ms)

    def add_call(self, role: str, prompt_tokens: int, completion_tokens: int, ms: int) -> None:
        u = self.by_role.setdefault(role, RoleUsage())
        u.calls += 1
        u.prompt_tokens += prompt_tokens
        u.completion_tokens += completion_tokens
        u.ms += ms

    @property
    def total_tokens(self) -> int:
        return sum(u.total_tokens for u in self.by_role.values())

    def to_dict(self) -> dict[str, Any]:
        return {
            role: {
                "calls": u.calls,
                "prompt_tokens": u.prompt_tokens,
                "completion_tokens": u.completion_tokens,
                "ms": u.ms,
            }
            for role, u in sorted(self.by_role.items())
        }


class LLM:
    """A thin, honest wrapper: the real `openai` client against any base URL."""

    def __init__(
        self,
        base_url: str,
        api_key: str | None,
        *,
        timeout_s: float = 120.0,
        max_retries: int = 4,
    ) -> None:
        import openai

        self._secret = api_key or ""
        # Local servers (Ollama, llama.cpp) accept any key; the client insists on one.
        self._client = openai.OpenAI(
            base_url=base_url,
            api_key=api_key or "unused",
            timeout=timeout_s,
            max_retries=max_retries,
        )
        self.base_url = base_url

    def close(self) -> None:
        self._client.close()

    def chat(
        self,
        *,
        model: str,
        messages: list[dict[str, Any]],
        tools: list[dict[str, Any]] | None = None,
        tool_choice: str | dict[str, Any] | None = None,
        temperature: float | None = None,
    ) -> Reply:
        kwargs: dict[str, Any] = {"model": model, "messages": messages}
        if tools:
            kwargs["tools"] = tools
            if tool_choice is not None:
                kwargs["tool_choice"] = tool_choice
        if temperature is not None:
            kwargs["temperature"] = temperature
        start = time.monotonic()
        try:
            resp = self._client.chat.completions.create(**kwargs)
        except _openai().OpenAIError as e:
            raise self._explain(e) from None
        ms = int((time.monotonic() - start) * 1000)
        if not resp.choices:
            raise LLMError(f"The model server sent an empty answer (model {model}).")
        choice = resp.choices[0]
        calls = [
            ToolCallRequest(c.id or f"call_{i}", c.function.name, c.function.arguments or "")
            for i, c in enumerate(choice.message.tool_calls or [])
            if getattr(c, "function", None) is not None
        ]
        usage = resp.usage
        return Reply(
            content=choice.message.content or "",
            tool_calls=calls,
            finish_reason=choice.finish_reason,
            model=resp.model or model,
            prompt_tokens=getattr(usage, "prompt_tokens", 0) or 0,
            completion_tokens=getattr(usage, "completion_tokens", 0) or 0,
            ms=ms,
        )

    def stream(
        self,
        *,
        model: str,
        messages: list[dict[str, Any]],
        on_delta: Callable[[str], None] | None = None,
    ) -> Reply:
        """A text-only streamed call; `on_delta` sees each piece as it arrives."""
        start = time.monotonic()
        parts: list[str] = []
        prompt = completion = 0
        finish = None
        try:
            chunks: Iterator[Any] = self._client.chat.completions.create(
                model=model,
                messages=messages,
                stream=True,
                stream_options={"include_usage": True},
            )
            for chunk in chunks:
                if chunk.usage is not None:
                    prompt = chunk.usage.prompt_tokens or 0
                    completion = chunk.usage.completion_tokens or 0
                for choice in chunk.choices or []:
                    piece = choice.delta.content if choice.delta else None
                    if piece:
                        parts.append(piece)
                        if on_delta is not None:
                            on_delta(piece)
                    finish = choice.finish_reason or finish
        except _openai().OpenAIError as e:
            raise self._explain(e) from None
        return Reply(
            "".join(parts),
            [],
            finish,
            model,
            prompt,
            completion,
            int((time.monotonic() - start) * 1000),
        )

    def list_models(self) -> list[str]:
        try:
            return sorted(m.id for m in self._client.models.list())
        except _openai().OpenAIError as e:
            raise self._explain(e) from None

    def _explain(self, e: openai.OpenAIError) -> LLMError:
        """A message that says what to do; the key is scrubbed whatever the server echoed."""
        openai = _openai()
        where = self.base_url
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
                "after retries. Wait a little or check your plan.",
                kind="rate_limit",
            )
        elif isinstance(e, openai.APIStatusError) and e.status_code >= 500:
            err = LLMError(
                f"The model server at {where} failed ({e.status_code}) after retries.",
                kind="server",
            )
        elif isinstance(e, openai.APIStatusError):
            err = LLMError(
                f"The model server at {where} rejected the request ({e.status_code}): "
                f"{_short(e.message)}",
                kind="bad_request",
            )
        else:
            err = LLMError(f"Model call failed: {_short(str(e))}")
        if self._secret and self._secret in str(err):
            err = LLMError(str(err).replace(self._secret, "***"), kind=err.kind)
        return err


def _openai() -> Any:
    import openai

    return openai


def _short(text: str, limit: int = 300) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[: limit - 1] + "…"
