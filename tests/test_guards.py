"""Unit tests of the guards, without any model or I/O."""

from __future__ import annotations

import pytest

from labwright.core.config import GuardLimits
from labwright.core.guards import Guards, Intervals, fingerprint
from labwright.core.tools.base import ToolOutcome


def ok(content="x", coverage=None, productive=True) -> ToolOutcome:
    return ToolOutcome(True, content, "ok", productive=productive, coverage=coverage)


def fail() -> ToolOutcome:
    return ToolOutcome(False, "no", "failed", productive=False)


def test_fingerprint_ignores_key_order_and_falls_back_to_str():
    assert fingerprint("read_file", {"path": "a", "offset": 1}) == fingerprint(
        "read_file", {"offset": 1, "path": "a"}
    )
    assert fingerprint("read_file", {"path": "a"}) != fingerprint("read_file", {"path": "b"})
    assert fingerprint("x", {"o": object}).startswith("x|{")  # not JSON-able: str()


def test_repeat_occurrences_run_then_dedup_then_nudge_then_stop():
    g = Guards()
    args = {"path": "a.csv"}
    actions = []
    for _ in range(5):
        v = g.before_call("read_file", args)
        actions.append((v.action, [e.kind for e in v.events]))
        if v.action == "run":
            g.after_call("read_file", args, ok())
    assert actions == [
        ("run", []),
        ("dedup", ["dedup"]),
        ("dedup", ["dedup", "nudge"]),
        ("dedup", ["dedup"]),
        ("stop", ["loop_stop"]),
    ]
    assert g.stop_reason == "loop"
    assert g.take_nudge() is not None and g.take_nudge() is None


def test_nudge_is_given_once_per_run():
    g = Guards()
    kinds = []
    for path in ("a", "b"):
        for _ in range(3):
            kinds += [e.kind for e in g.before_call("list_dir", {"path": path}).events]
    assert kinds.count("nudge") == 1


def test_a_failed_call_is_not_deduplicated():
    g = Guards()
    args = {"path": "missing.csv"}
    g.before_call("read_file", args)
    g.after_call("read_file", args, fail())
    assert g.before_call("read_file", args).action == "run"


def test_three_consecutive_failures_withdraw_the_tool_and_success_resets():
    g = Guards()
    g.after_call("read_file", {"path": "1"}, fail())
    g.after_call("read_file", {"path": "2"}, fail())
    g.after_call("read_file", {"path": "3"}, ok())
    g.after_call("read_file", {"path": "4"}, fail())
    assert "read_file" not in g.disabled
    g.after_call("read_file", {"path": "5"}, fail())
    events = g.after_call("read_file", {"path": "6"}, fail())
    assert [e.kind for e in events] == ["tool_disabled"]
    assert "read_file" in g.disabled
    assert g.before_call("read_file", {"path": "7"}).action == "refuse"


def test_finishing_tool_is_never_withdrawn():
    g = Guards()
    for _ in range(5):
        g.after_call("finish_exploration", {}, fail())
    assert "finish_exploration" not in g.disabled


def test_evidence_gate_counts_only_productive_reads():
    g = Guards()
    g.after_call("list_dir", {"path": "."}, ok())
    g.after_call("read_file", {"path": "empty.txt"}, ok(productive=False))
    assert g.before_call("finish_exploration", {}).action == "refuse"
    g.after_call("read_file", {"path": "a.txt"}, ok(coverage=("a.txt", 0, 10)))
    assert g.before_call("finish_exploration", {}).action == "run"


def test_evidence_gate_gives_up_after_the_refusals():
    g = Guards(GuardLimits(evidence_refusals=2))
    actions = [g.before_call("finish_exploration", {}).action for _ in range(3)]
    assert actions == ["refuse", "refuse", "stop"]
    assert g.stop_reason == "no_evidence"


def test_coverage_forward_pages_are_new_and_overlaps_within_are_rereads():
    g = Guards()
    for start in (0, 100, 200):
        out = ok(coverage=("f.txt", start, start + 100))
        assert g.after_call("read_file", {"offset": start}, out) == []
        assert out.productive
    partly_new = ok(coverage=("f.txt", 250, 350))
    assert g.after_call("read_file", {"offset": 250}, partly_new) == []
    reread = ok(coverage=("f.txt", 20, 80))
    assert [e.kind for e in g.after_call("read_file", {"offset": 20}, reread)] == ["reread"]
    assert not reread.productive


def test_rereads_of_one_file_nudge_then_stop():
    g = Guards()
    g.after_call("read_file", {"offset": 0}, ok(coverage=("f", 0, 100)))
    kinds = []
    for i in range(1, 5):
        kinds += [
            e.kind for e in g.after_call("read_file", {"offset": i}, ok(coverage=("f", i, 50)))
        ]
    assert kinds == ["reread", "reread", "nudge", "reread", "reread", "loop_stop"]
    assert g.stop_reason == "loop"


def test_intervals_merge():
    iv = Intervals()
    iv.add(0, 10)
    iv.add(20, 30)
    assert not iv.covers(5, 25)
    iv.add(10, 20)
    assert iv.covers(5, 25) and iv.spans == [(0, 30)]


@pytest.mark.parametrize(
    "limits", [dict(nudge_at=0), dict(stop_at=3, nudge_at=3), dict(failure_limit=0)]
)
def test_guards_can_be_tuned_not_disabled(limits):
    with pytest.raises(ValueError):
        GuardLimits(**limits)
