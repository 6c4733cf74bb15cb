"""The incident suite (tests/incidents/README.md): every scenario gets its verdict at its cost."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from incident_scenarios import LOOP_GUARDS, SCENARIOS, TURN_BUDGET, Scenario, expected_table, play

README = Path(__file__).with_name("README.md")


def assert_every_call_answered(messages: list[dict[str, Any]]) -> None:
    """The API's rule: an assistant message's tool calls are answered, each by one tool
    message, right after it and before anything else."""
    for i, msg in enumerate(messages):
        if msg["role"] != "assistant" or not msg.get("tool_calls"):
            continue
        ids = [c["id"] for c in msg["tool_calls"]]
        answers = messages[i + 1 : i + 1 + len(ids)]
        assert [m.get("tool_call_id") for m in answers] == ids, (i, ids, answers)
        assert all(m["role"] == "tool" and m["content"] for m in answers)


@pytest.mark.parametrize("scenario", SCENARIOS, ids=lambda s: s.key)
def test_incident_gets_its_verdict_at_its_cost(scenario: Scenario, tmp_path: Path) -> None:
    played = play(scenario, tmp_path)
    assert (played.status, played.reason) == (scenario.status, scenario.reason)
    assert played.kinds == list(scenario.kinds)
    assert played.calls == scenario.calls
    assert not played.false_trip
    if not scenario.must_trip:
        assert not set(played.kinds) & LOOP_GUARDS  # honest work trips no loop guard
    elif scenario.naive == TURN_BUDGET:
        assert played.calls < scenario.naive  # a loop costs less than the budget it would burn
    for body in played.requests:
        assert_every_call_answered(body["messages"])
    if "nudge" in played.kinds:
        # After the trip the loop's own repeats are collapsed: no dedup text re-primes it.
        last = played.requests[-1]["messages"]
        assert not any("You already called" in str(m.get("content")) for m in last)


def test_suite_has_no_false_trips_and_covers_the_issue() -> None:
    keys = {re.match(r"\d+", s.key).group() for s in SCENARIOS}  # type: ignore[union-attr]
    assert keys == {str(i) for i in range(1, 11)}
    assert {s.key for s in SCENARIOS if not s.must_trip} >= {"2", "4", "5", "8"}


def test_readme_table_is_the_suite() -> None:
    """README.md shows the expected figures, which the test above proves; regenerate it
    with `bench/bench_incidents.py --readme` after changing a scenario."""
    assert expected_table() in README.read_text(encoding="utf-8")
