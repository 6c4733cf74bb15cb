"""Test doubles. `from fakes import FakeLLM, text, tool_calls, call, ...`"""

from .llm_server import (
    MAX_DELAY_SECONDS,
    Call,
    Delay,
    FakeLLM,
    HttpError,
    Script,
    Text,
    ToolCalls,
    Turn,
    call,
    delay,
    http_error,
    text,
    tool_calls,
)

__all__ = [
    "MAX_DELAY_SECONDS",
    "Call",
    "Delay",
    "FakeLLM",
    "HttpError",
    "Script",
    "Text",
    "ToolCalls",
    "Turn",
    "call",
    "delay",
    "http_error",
    "text",
    "tool_calls",
]
