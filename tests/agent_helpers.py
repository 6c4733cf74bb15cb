"""Helpers to run the agent against the fake model server."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from fakes import FakeLLM, text
from labwright.core.events import Event
from labwright.core.run.pipeline import run_agent
from labwright.core.settings.config import GuardLimits, RunConfig

FORCE_FINISH = {"type": "function", "function": {"name": "finish_exploration"}}
FINISH_ARGS = {
    "experiment": "Simple pendulum",
    "goal": "Verify T = 2*pi*sqrt(L/g)",
    "key_findings": ["data/pendulum.csv: period grows with length"],
}


MINIMAL_REPORT = r"""\documentclass{article}
\begin{document}
\section{Introduction}
The pendulum data in data/pendulum.csv was read.
\end{document}
"""


def writer_turn(body: dict[str, Any]) -> Any:
    """A well-behaved write model: answers each writing prompt in the form it asks for."""
    prompt = json.dumps(body["messages"][-1].get("content", ""))
    if "Answer with JSON only" in prompt:
        return text("[]")
    if "NO ISSUES" in prompt:
        return text("NO ISSUES")
    if "BibTeX" in prompt:
        return text("")
    return text(MINIMAL_REPORT)


def route(explore_script: Any, writer: Any = None) -> Any:
    """One fake server, two roles: explore (and vision) turns from a script, writing from `writer`."""
    turns = iter(explore_script) if isinstance(explore_script, list) else None
    explore_calls = 0

    def answer(body: dict[str, Any], n: int) -> Any:
        nonlocal explore_calls
        if body["model"] != "fake-write":
            explore_calls += 1
            if turns is not None:
                return next(turns)
            return explore_script(body, explore_calls - 1)
        return (writer or writer_turn)(body)

    return answer


def explore_requests(llm: FakeLLM) -> list[dict[str, Any]]:
    return [r for r in llm.requests if r["model"] == "fake-explore"]


def config_for(llm: FakeLLM, folder: Path, out: Path, **overrides: Any) -> RunConfig:
    values: dict[str, Any] = dict(
        folder=folder,
        out_dir=out,
        base_url=llm.base_url,
        api_key="sk-test-secret-0123456789",
        explore_model="fake-explore",
        write_model="fake-write",
        max_retries=1,
        request_timeout_s=10,
        guards=GuardLimits(),
        compile=False,
        reflect=0,
    )
    values.update(overrides)
    return RunConfig(**values)


def run(config: RunConfig) -> list[Event]:
    return list(run_agent(config))


def of_type(events: list[Event], type_: str) -> list[Any]:
    return [e for e in events if e.type == type_]


def guard_kinds(events: list[Event]) -> list[str]:
    return [e.kind for e in of_type(events, "guard")]


def executed(events: list[Event], name: str) -> list[Any]:
    """Tool results of calls that really ran (not cached, not refused)."""
    return [e for e in of_type(events, "tool_result") if e.name == name and not e.cached and e.ok]


def findings(run_dir: Path) -> dict[str, Any]:
    return json.loads((run_dir / "findings.json").read_text(encoding="utf-8"))
