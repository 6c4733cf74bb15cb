"""What a streamed answer is made of, piece by piece: the parts client.py reassembles.

- `Meter` counts an answer as it arrives (content, reasoning, tool-call pieces) and
  reports how far it got at a modest rate: at most every PROGRESS_EVERY_S, and at
  least every HEARTBEAT_S while anything arrives (keep-alives too), so a slow model
  never looks idle. The count is the server's when it streams usage, else an
  estimate from the characters received (`estimated`).
- `ToolCallParts` assembles streamed tool calls: each delta carries an `index`, the
  first one the call's `id` and name, the next ones fragments of the arguments.
- `reasoning_of` reads a reasoning model's thinking (`reasoning_content`: DeepSeek,
  Qwen, llama.cpp; `reasoning`: OpenRouter, Ollama, vLLM) from a message or a delta.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

PROGRESS_EVERY_S = 0.25  # at most four reports a second
HEARTBEAT_S = 1.0  # and one a second while bytes or keep-alives arrive
# The field a server that requires its reasoning back within a tool turn (DeepSeek's
# thinking mode) reads it from; the one reasoning field that is sent back.
ECHOED_REASONING = "reasoning_content"


@dataclass(frozen=True)
class Streaming:
    """How far a streamed answer got."""

    tokens: int  # completion tokens so far (reasoning included)
    ms: int  # since the call started
    estimated: bool  # from the characters received, not the server's count
    thinking: bool  # only reasoning so far: a thinking model before its answer


def estimate_tokens(text: str) -> float:
    """About how many tokens `text` is: ~4 characters a token for Latin script, ~1 a
    character for CJK and other wide scripts (as BPE tokenizers of these models cut)."""
    wide = sum(1 for c in text if ord(c) >= 0x2E80)
    return (len(text) - wide) / 4 + wide


class Meter:
    """Counts one call's answer as it streams and reports it now and then. A retry
    (`restart`) counts its attempt from zero; the time counts from the call's start."""

    def __init__(
        self,
        report: Callable[[Streaming], None] | None,
        start: float,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._report = report
        self._start = start
        self._clock = clock
        self._last: float | None = None  # when the last report went out
        self._reported: tuple[int, bool] | None = None
        self.restart()

    def restart(self) -> None:
        self._estimate = 0.0
        self._served: int | None = None  # the server's own count, when it streams usage
        self._answered = False  # content or a tool call arrived (not only reasoning)
        self._reasoned = False

    @property
    def tokens(self) -> int:
        return self._served if self._served is not None else round(self._estimate)

    def text(self, piece: str, *, reasoning: bool = False) -> None:
        if not piece:
            return
        self._estimate += estimate_tokens(piece)
        if reasoning:
            self._reasoned = True
        else:
            self._answered = True
        self.tick()

    def served(self, completion_tokens: int) -> None:
        """The server's count so far (a server that sends usage with its chunks)."""
        if completion_tokens > 0:
            self._served = completion_tokens
            self.tick()

    def tick(self) -> None:
        """Something arrived (a piece, a keep-alive): report if it is time to."""
        if self._report is None:
            return
        now = self._clock()
        since = None if self._last is None else now - self._last
        state = (self.tokens, self._reasoned and not self._answered)
        if since is not None and since < PROGRESS_EVERY_S:
            return
        if state == self._reported and since is not None and since < HEARTBEAT_S:
            return  # nothing new: only the heartbeat says time passes
        self._last = now
        self._reported = state
        ms = int((now - self._start) * 1000)
        self._report(Streaming(self.tokens, ms, self._served is None, state[1]))


class ToolCallParts:
    """Streamed tool calls, assembled by their `index`."""

    def __init__(self) -> None:
        self._calls: dict[int, dict[str, str]] = {}

    def add(self, deltas: Any) -> str:
        """One delta's `tool_calls`; returns the text it added (for the meter). Raises
        ValueError saying what is wrong with a delta that is not tool calls."""
        if not isinstance(deltas, list):
            raise ValueError("streamed tool_calls that are not a list")
        added: list[str] = []
        for d in deltas:
            if not isinstance(d, dict):
                raise ValueError("a streamed tool call that is not an object")
            call = self._calls.setdefault(self._index(d), {"id": "", "name": "", "arguments": ""})
            if isinstance(d.get("id"), str) and d["id"] and not call["id"]:
                call["id"] = d["id"]
            fn = d.get("function")
            if fn is None:
                continue
            if not isinstance(fn, dict):
                raise ValueError("a streamed tool call whose function is not an object")
            name, args = fn.get("name"), fn.get("arguments")
            # the name comes whole in the first delta; a server that repeats it is no longer name
            if isinstance(name, str) and name and name != call["name"]:
                call["name"] += name
                added.append(name)
            if isinstance(args, (dict, list)):  # some servers send the object, not its JSON
                args = json.dumps(args)
            if isinstance(args, str) and args:
                call["arguments"] += args
                added.append(args)
        return "".join(added)

    def _index(self, d: dict[str, Any]) -> int:
        index = d.get("index")
        if isinstance(index, int) and not isinstance(index, bool) and index >= 0:
            return index
        # No index (a few servers): a new id starts a new call, anything else continues one.
        new_id = d.get("id")
        if (
            isinstance(new_id, str)
            and new_id
            and all(c["id"] != new_id for c in self._calls.values())
        ):
            return max(self._calls, default=-1) + 1
        return max(self._calls, default=0)

    def calls(self) -> list[dict[str, str]]:
        """The assembled calls in index order: {id, name, arguments} (id may be "")."""
        return [self._calls[i] for i in sorted(self._calls)]


def reasoning_of(message: Any) -> tuple[str, str]:
    """A message's (or a delta's) reasoning text and the field it came in; ("", "")
    when it has none."""
    if not isinstance(message, dict):
        return "", ""
    for key in (ECHOED_REASONING, "reasoning"):
        value = message.get(key)
        if isinstance(value, str) and value:
            return value, key
    return "", ""


def reasoning_tokens(usage: Any) -> int:
    """`completion_tokens_details.reasoning_tokens` of a usage block (0 when absent)."""
    details = usage.get("completion_tokens_details") if isinstance(usage, dict) else None
    value = details.get("reasoning_tokens") if isinstance(details, dict) else None
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else 0
