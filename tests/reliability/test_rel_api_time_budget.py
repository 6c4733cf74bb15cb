"""--max-minutes bounds a model call in flight, not only the turns between calls.

A server that never answers (no byte, a byte now and then, SSE keep-alives
forever) holds a call until its own deadline (minutes). The run's wall-clock
budget must cut it sooner: every call's deadline is the earlier of its own and
what is left of the run's budget, retries included. The run then ends as any
budget stop does: a `budget` guard saying the time budget ran out, reason
`time_up`, a report drafted from what was gathered (degraded), never `failed`.

Each scenario sets the call's own deadline far beyond the run's budget, so a run
that ends within the bounded wait can only have been cut by the run's clock.
"""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from PIL import Image
from rel_run_proc import run_cli

from agent_helpers import FINISH_ARGS, MINIMAL_REPORT, config_for, guard_kinds, of_type, route
from agent_helpers import writer_turn as polite_writer
from canary import SECRET_KEY, leaks
from fakes import FakeLLM, call, hang, http_error, keep_alive, text, tool_calls, trickle
from labwright.core.events import Event
from labwright.core.llm.client import LLM, LLMError, TimeUp
from labwright.core.run.pipeline import run_agent

READ = tool_calls(call("read_file", {"path": "manual.txt"}))
FINISH = tool_calls(
    call("finish_exploration", {**FINISH_ARGS, "assignment_requirements": ["Plot T against L"]})
)
OWN_DEADLINE_S = 60.0  # the call's own deadline: a run cut by it would take a minute
SHORT_BUDGET_MIN = 0.05  # 3 s: the run's whole budget when the first explore call hangs
# A budget that leaves room for the exploration, the figure and the stages before the
# stuck one (matplotlib's import alone takes a second on a busy machine).
WRITE_BUDGET_MIN = 0.2  # 12 s
BOUND_S = 30.0  # a bounded wait, well short of the call's own deadline

STUCK = {
    "hang": hang,  # accepts the request and sends nothing, not even headers
    "trickle": lambda: trickle(0.3),  # one byte of a JSON body every 0.3 s
    "keep_alive": lambda: keep_alive(0.3),  # SSE comments forever
}
# Which writing request is held, by what its prompt asks for (resources/prompts).
WRITE_PROMPTS = {
    "gap": "Answer with JSON only",
    "draft": "# Findings of the exploration",
    "reflect": "NO ISSUES",
    "bib": "BibTeX",
}
CITING_REPORT = MINIMAL_REPORT.replace(
    r"\end{document}", "As measured before \\cite{nowhere2020}.\n\\end{document}"
)


def _time_up_stops(events: list[Event]) -> list[str]:
    return [
        e.detail
        for e in of_type(events, "guard")
        if e.kind == "budget" and e.detail.startswith("Time budget reached")
    ]


def _assert_ended_by_the_run_clock(
    events: list[Event], out: Path, took: float, bound: float = BOUND_S
) -> None:
    assert took < bound, f"the run took {took:.1f} s: the call was not cut at the run's budget"
    done = events[-1]
    assert done.type == "done" and done.status == "degraded", done
    assert "time_up" in done.reasons, done.reasons
    assert not any(r.startswith("model error") for r in done.reasons), done.reasons
    assert _time_up_stops(events), guard_kinds(events)
    assert "deadline" not in guard_kinds(events)  # the call's own deadline never fired
    errors = [e.message for e in of_type(events, "error")]
    assert any("run's time budget (--max-minutes) ran out" in m for m in errors), errors
    meta = json.loads((out / "run.json").read_text(encoding="utf-8"))
    assert meta["status"] == "degraded" and "time_up" in meta["reasons"]
    assert (out / "report.tex").is_file()  # the run still ends in a draft
    assert leaks([out], [SECRET_KEY]) == []


def _run(config: Any, **kwargs: Any) -> tuple[list[Event], float]:
    start = time.monotonic()
    events = list(run_agent(config, **kwargs))
    return events, time.monotonic() - start


@pytest.mark.parametrize("stuck", list(STUCK))
def test_the_run_budget_cuts_a_first_explore_call_that_never_answers(
    stuck, material, tmp_path, guarded_folder
):
    folder = guarded_folder(material)
    out = tmp_path / "run"
    with FakeLLM(route([STUCK[stuck]()])) as llm:
        config = config_for(
            llm,
            folder,
            out,
            api_key=SECRET_KEY,
            max_minutes=SHORT_BUDGET_MIN,
            explore_deadline_s=OWN_DEADLINE_S,
            request_timeout_s=OWN_DEADLINE_S,
        )
        events, took = _run(config)
        requests = list(llm.requests)
    assert [r["model"] for r in requests] == ["fake-explore"]  # the one call, then no more
    _assert_ended_by_the_run_clock(events, out, took)
    stop = _time_up_stops(events)[0]
    assert "of 3.0 s); exploration stopped" in stop, stop  # in seconds: "0.1 min" would lie
    meta = json.loads((out / "run.json").read_text(encoding="utf-8"))
    assert meta["skeleton"] is True  # nothing was read: the draft is the skeleton


def test_the_run_budget_cuts_a_vision_call_inside_read_image(material, tmp_path, guarded_folder):
    Image.new("RGB", (64, 48), (200, 10, 10)).save(material / "scope.png")
    folder = guarded_folder(material)
    out = tmp_path / "run"
    asked = tool_calls(call("read_image", {"path": "scope.png", "question": "What is shown?"}))
    script = [asked, hang(), FINISH]  # the explore turn, then the vision call that hangs
    with FakeLLM(route(script)) as llm:
        config = config_for(
            llm,
            folder,
            out,
            api_key=SECRET_KEY,
            vision_model="fake-vision",
            max_minutes=SHORT_BUDGET_MIN,
            explore_deadline_s=OWN_DEADLINE_S,  # the vision call's own deadline too
            request_timeout_s=OWN_DEADLINE_S,
        )
        start = time.monotonic()
        events = list(run_agent(config))
        took = time.monotonic() - start
        models = [r["model"] for r in llm.requests]
    assert models == ["fake-explore", "fake-vision"]  # no explore turn after the cut
    assert took < BOUND_S, f"the run took {took:.1f} s"
    done = events[-1]
    assert done.status == "degraded" and "time_up" in done.reasons, done
    assert _time_up_stops(events) and "deadline" not in guard_kinds(events)
    vision = [e for e in of_type(events, "tool_result") if e.name == "read_image"]
    assert vision and not vision[0].ok  # the tool answered; the run went on to its draft
    assert (out / "report.tex").is_file()


@pytest.mark.parametrize(
    ("stage", "stuck"),
    [
        ("gap", "keep_alive"),
        ("draft", "keep_alive"),
        ("draft", "hang"),
        ("reflect", "keep_alive"),
        ("bib", "keep_alive"),
    ],
)
def test_the_run_budget_cuts_a_streamed_write_call(stage, stuck, material, tmp_path):
    out = tmp_path / "run"
    reached = threading.Event()

    def writer(body: dict[str, Any]) -> Any:
        asked = json.dumps(body["messages"][-1].get("content", ""))
        if WRITE_PROMPTS[stage] in asked:
            reached.set()
            return STUCK[stuck]()
        if WRITE_PROMPTS["draft"] in asked or "revised" in asked.lower():
            return text(CITING_REPORT)  # cites a key the material lacks: bib asks the model
        return polite_writer(body)

    pieces: list[str] = []
    with FakeLLM(route([READ, FINISH], writer)) as llm:
        config = config_for(
            llm,
            material,
            out,
            api_key=SECRET_KEY,
            reflect=1,
            max_minutes=WRITE_BUDGET_MIN,
            write_deadline_s=10 * OWN_DEADLINE_S,
            request_timeout_s=10 * OWN_DEADLINE_S,
        )
        events, took = _run(config, on_text=lambda kind, piece: pieces.append(piece))
    assert reached.is_set(), f"the {stage} request was never made (the budget ran out before)"
    _assert_ended_by_the_run_clock(events, out, took, WRITE_BUDGET_MIN * 60 + BOUND_S)
    assert "the run stopped" in _time_up_stops(events)[0]
    done = events[-1]
    assert "draft_invalid" not in done.reasons  # the clock, not a bad document, ended it
    assert of_type(events, "milestone")[-1].stage == "bib"  # every stage still ended


def test_retries_never_outlive_the_run_budget():
    with FakeLLM([http_error(503, "busy", retry_after=1.0)] * 50) as fake:
        llm = LLM(fake.base_url, "sk-test", max_retries=50, run_left=lambda: 2.0)
        start = time.monotonic()
        try:
            with pytest.raises(LLMError) as info:
                llm.chat(model="fake-explore", messages=[{"role": "user", "content": "hi"}])
        finally:
            llm.close()
        took = time.monotonic() - start
    assert took < 2.0 + 1.0  # the call's own deadline is the client's 300 s
    assert "run's time budget would run out while waiting" in str(info.value)
    assert info.value.kind == "server"  # the real cause stays the server's


def test_a_call_started_past_the_run_budget_is_not_sent():
    with FakeLLM([text("never asked")]) as fake:
        llm = LLM(fake.base_url, "sk-test", run_left=lambda: -1.0)
        try:
            with pytest.raises(TimeUp) as info:
                llm.stream(model="fake-write", messages=[{"role": "user", "content": "hi"}])
        finally:
            llm.close()
        assert fake.calls == 0
    assert "before the call was sent" in str(info.value) and info.value.kind == "deadline"


def test_a_call_whose_own_deadline_is_sooner_keeps_it():
    """Positive control: with time to spare in the run, the call's own deadline cuts it."""
    with FakeLLM([hang()]) as fake:
        llm = LLM(fake.base_url, "sk-test", run_left=lambda: 600.0)
        try:
            with pytest.raises(LLMError) as info:
                llm.chat(model="fake-explore", messages=[{"role": "user", "content": "hi"}],
                         deadline_s=1.0)  # fmt: skip
        finally:
            llm.close()
    assert not isinstance(info.value, TimeUp)
    assert info.value.kind == "deadline" and "1 s deadline" in str(info.value)


def test_max_minutes_bounds_a_call_in_flight_through_the_cli(material, tmp_path):
    out = tmp_path / "run"
    with FakeLLM(route([hang()])) as llm:
        args = [
            "run", material, "--out", out, "--base-url", llm.base_url, "--no-compile",
            "--explore-model", "fake-explore", "--write-model", "fake-write",
            "--max-minutes", str(SHORT_BUDGET_MIN), "--explore-deadline", str(OWN_DEADLINE_S),
        ]  # fmt: skip
        start = time.monotonic()
        code, stderr = run_cli(args, tmp_path / "logs", "cli", timeout=OWN_DEADLINE_S * 2)
        took = time.monotonic() - start
    assert took < BOUND_S, f"labwright run took {took:.1f} s"
    said = stderr.decode("utf-8", "replace")
    assert code == 10, said  # degraded: a report was written
    assert "Time budget reached" in said and "time_up" in said
    assert "A token, money or time budget is nearly or fully used." in said  # the guard's gloss
    meta = json.loads((out / "run.json").read_text(encoding="utf-8"))
    assert meta["status"] == "degraded" and meta["reasons"] == ["time_up"]
