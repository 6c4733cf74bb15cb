"""Can this model call tools? One tiny tool-call request, for the connection test in
Settings and `labwright doctor`.

Exploration is nothing but tool calls, so a model that cannot make them fails (the
server rejects `tools`) or wanders (it answers in prose). The probe offers one
trivial tool, asks for it by name, and bounds the answer (a few hundred tokens, a
short deadline): it costs a fraction of a cent, or a few seconds of a local model.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from labwright.core.llm.client import LLM, LLMError, Reply, ToolsRejected
from labwright.core.settings.config import tools_advice
from labwright.core.step_words import Words

PROBE_TOOL_NAME = "report_ready"
PROBE_TOOL: dict = {
    "type": "function",
    "function": {
        "name": PROBE_TOOL_NAME,
        "description": "Tell the user that the connection works.",
        "parameters": {
            "type": "object",
            "properties": {"word": {"type": "string", "description": "Any short word."}},
            "required": ["word"],
        },
    },
}
PROBE_MESSAGES: list[dict] = [
    {"role": "system", "content": "You are a connection test. Answer only by calling a tool."},
    {"role": "user", "content": f'Call the tool {PROBE_TOOL_NAME} with word "ok".'},
]
# Enough for a reasoning model to think a little before calling; small enough that a
# model rambling in prose stops soon.
PROBE_MAX_TOKENS = 256
# A local server may still be loading its model on the first request: a little slack.
PROBE_DEADLINE_S = 30.0

Verdict = Literal["tools", "text", "rejected", "failed"]


@dataclass(frozen=True)
class ToolProbe:
    """What the probe found. `detail`: the model's text, the server's words or the error
    (scrubbed of the key by the client)."""

    verdict: Verdict
    model: str
    detail: str = ""
    status: int | None = None  # the HTTP status of a rejection
    advice: str = ""  # what to use instead (rejected, text)
    cut: bool = False  # text: the answer hit the probe's token limit
    kind: str = ""  # failed: LLMError.kind

    @property
    def ok(self) -> bool:
        return self.verdict == "tools"

    def words(self) -> str:
        """The verdict in plain English, naming the model (a Words: the app words it)."""
        if self.verdict == "tools":
            return Words("probe_tools", model=self.model)
        if self.verdict == "text" and self.cut:
            return Words("probe_text_cut", model=self.model, tokens=PROBE_MAX_TOKENS)
        if self.verdict == "text":
            return Words("probe_text", model=self.model)
        if self.verdict == "rejected":
            return Words("probe_rejected", model=self.model, status=self.status, detail=self.detail)
        return Words("probe_failed", model=self.model, detail=self.detail)


def probe_tools(
    llm: LLM,
    model: str,
    *,
    deadline_s: float = PROBE_DEADLINE_S,
    max_tokens: int = PROBE_MAX_TOKENS,
) -> ToolProbe:
    """Send one tool-call request to `model`; never raises for what the server does.

    No temperature is sent: some reasoning models reject any, and exploration sends none."""

    def ask(choice: str | None) -> Reply:
        return llm.chat(
            model=model,
            messages=PROBE_MESSAGES,
            tools=[PROBE_TOOL],
            tool_choice=choice,
            max_tokens=max_tokens,
            deadline_s=deadline_s,
        )

    try:
        # "auto", as exploration sends it (some servers offer the tools only then),
        # and without it where the server rejects the field
        try:
            reply = ask("auto")
        except LLMError as e:
            if e.kind != "bad_request" or "tool_choice" not in str(e).lower():
                raise
            reply = ask(None)
    except ToolsRejected as e:
        return ToolProbe("rejected", model, e.said, status=e.status, advice=e.advice)
    except LLMError as e:
        return ToolProbe("failed", model, str(e), kind=e.kind)
    if reply.tool_calls:
        # Any tool call shows the model can make them; a wrong name is a weak model's slip.
        return ToolProbe("tools", model, ", ".join(c.name for c in reply.tool_calls))
    text = " ".join(reply.content.split())
    return ToolProbe(
        "text",
        model,
        text[:120] + ("…" if len(text) > 120 else ""),
        advice=tools_advice(llm.base_url, llm.provider),
        cut=reply.finish_reason == "length",
    )
