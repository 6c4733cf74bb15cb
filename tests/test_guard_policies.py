"""One focused test per guard: records in, checks out; no model, no I/O, no ledger.

(How the guards combine is in test_guards.py; the transcript the ledger rebuilds,
against what the model is really sent, in test_ledger_transcript.py.)
"""

from __future__ import annotations

from typing import Any

from labwright.core.agent.guards import CallRecord, Verdict
from labwright.core.agent.guards.policies import (
    Coverage,
    CycleBreaker,
    Dedup,
    EvidenceGate,
    FailureBreaker,
    Fences,
    FigureCap,
    LoopBreaker,
    Wander,
)
from labwright.core.agent.guards.turns import CallCap, FinalWindow
from labwright.core.agent.ledger import Ledger
from labwright.core.agent.tools import TOOL_TYPES, traits_of
from labwright.core.agent.tools.base import ToolOutcome
from labwright.core.reasons import Reason
from labwright.core.settings.config import GuardLimits

LIMITS = GuardLimits()


def rec(name: str, args: Any = None, outcome: ToolOutcome | None = None, **kw: Any) -> CallRecord:
    r = CallRecord("c1", name, {} if args is None else args, traits_of(name), outcome=outcome, **kw)
    if outcome is not None:
        r.productive = outcome.productive
    return r


def ok(content: str = "x", coverage: tuple[str, int, int] | None = None, **kw: Any) -> ToolOutcome:
    return ToolOutcome(True, content, "ok", coverage=coverage, **kw)


def kinds(check) -> list[str]:
    return [e.kind for e in check.events]


def test_tools_declare_what_the_guards_need_and_nothing_else_names_them():
    traits = {t.name: t.traits for t in TOOL_TYPES}
    assert [n for n, t in traits.items() if t.reads] == ["read_file", "read_image"]
    assert [n for n, t in traits.items() if t.finishing] == ["finish_exploration"]
    assert [n for n, t in traits.items() if t.figure] == ["make_figure"]
    assert [n for n, t in traits.items() if t.lists] == ["list_dir"]
    assert not traits["make_figure"].concurrency_safe and traits["read_file"].concurrency_safe
    assert traits_of("delete_everything") == traits_of("") and not traits_of("x").reads
    from pathlib import Path

    agent = Path(__file__).resolve().parents[1] / "desktop" / "labwright" / "core" / "agent"
    loop = [agent / "explore.py", agent / "ledger.py", *sorted((agent / "guards").glob("*.py"))]
    for path in loop:  # the guards and the loop ask traits, never a tool's name
        code = path.read_text(encoding="utf-8")
        for name in traits:
            assert f'"{name}"' not in code, (path.name, name)


def test_fences_turn_a_refusal_into_its_guard_event():
    check = Fences().after(
        rec("read_file", outcome=ToolOutcome(False, "no", "refused '../x'", denied="path_denied"))
    )
    assert kinds(check) == ["path_denied"] and check.events[0].detail == "refused '../x'"
    assert (
        Fences().after(rec("read_file", outcome=ToolOutcome(False, "no", "missing"))).events == ()
    )


def test_failure_breaker_withdraws_after_failure_limit_in_a_row():
    g = FailureBreaker(GuardLimits(failure_limit=2), standing=lambda: "So far: a.csv.")
    bad = ToolOutcome(False, "crash", "f", productive=False)
    assert g.after(rec("make_figure", {"i": 1}, bad)).events == ()
    check = g.after(rec("make_figure", {"i": 2}, bad))
    assert kinds(check) == ["tool_disabled"] and check.trip
    assert "make_figure is now withdrawn" in check.note and "So far: a.csv." in check.note
    assert g.withholds("make_figure", traits_of("make_figure"))
    refused = g.before(rec("make_figure"))
    assert refused.answer.action == "refuse" and "2 failures in a row" in refused.answer.content
    assert g.before(rec("read_file")).answer is None  # only the failing tool


def test_dedup_answers_a_repeat_of_a_success_with_the_head_of_its_result():
    g = Dedup(GuardLimits(dedup_head_chars=5))
    first = rec("read_file", {"path": "a"}, ok("0123456789"))
    assert g.before(first) == g.before(rec("read_file", {"path": "b"}))  # nothing yet
    g.approved(first)
    same = g.before(rec("read_file", {"path": "a"}))  # the first is still running
    assert same.answer.action == "same" and "asked twice in one turn" in same.events[0].detail
    g.after(first)
    again = g.before(rec("read_file", {"path": "a"}))
    assert again.answer.action == "dedup" and kinds(again) == ["dedup"]
    assert "01234…" in again.answer.content and "56789" not in again.answer.content
    g.after(rec("read_file", {"path": "x"}, ToolOutcome(False, "missing", "f")))
    assert g.before(rec("read_file", {"path": "x"})).answer is None  # a failure is not kept
    withdrawn = rec("read_file", {"path": "a"}, action="refuse")
    assert g.before(withdrawn).answer is None


def test_loop_breaker_nudges_then_stops_on_one_fingerprint():
    g = LoopBreaker(LIMITS)
    checks = [g.before(rec("list_dir", {"path": "."})) for _ in range(5)]
    assert [bool(c.nudge) for c in checks] == [False, False, True, True, False]
    assert checks[4].stop.reason is Reason.LOOP and kinds(checks[4]) == ["loop_stop"]
    assert "list_dir(.) was asked 5 times" in checks[4].stop.detail
    assert not g.before(rec("list_dir", {"path": "data"})).nudge  # other arguments, own count


def test_cycle_breaker_sees_a_b_a_b_and_not_a_refused_step():
    g = CycleBreaker(LIMITS)
    a, b = rec("list_dir", {"path": "data"}), rec("read_file", {"path": "m.txt"})
    checks = [g.before(r) for r in (a, b, a, b)]
    assert [kinds(c) for c in checks] == [[], [], [], ["cycle"]]
    assert checks[3].nudge.startswith("The calls list_dir(data) → read_file(m.txt) went round 2")
    g2 = CycleBreaker(LIMITS)
    refused = rec("read_file", {"path": "m.txt"}, action="refuse")
    assert all(g2.before(r).events == () for r in (a, refused, a, refused, a, refused))


def test_figure_cap_answers_past_the_limit_and_withholds_the_tool():
    g = FigureCap(2)
    for i in range(2):
        assert g.before(rec("make_figure", {"i": i})).answer is None
        g.approved(rec("make_figure", {"i": i}))
    assert not g.withholds("read_file", traits_of("read_file"))
    assert g.withholds("make_figure", traits_of("make_figure"))
    check = g.before(rec("make_figure", {"i": 9}))
    assert check.answer.action == "refuse" and check.answer.summary == "figure limit reached (2)"
    assert kinds(check) == ["figure_cap"] and "2 make_figure runs" in check.answer.content
    assert g.before(rec("make_figure", {"i": 0}, action="dedup")).answer is None
    g.approved(rec("read_file"))
    assert g.runs == 2  # only figures count


def test_coverage_keeps_new_lines_and_flags_lines_read_before():
    g = Coverage(LIMITS)
    assert g.after(rec("read_file", {"offset": 0}, ok(coverage=("f.csv", 0, 100)))).events == ()
    assert g.after(rec("read_file", {"offset": 100}, ok(coverage=("f.csv", 100, 200)))).events == ()
    assert g.files_read == ["f.csv"]
    check = g.after(rec("read_file", {"offset": 50}, ok(coverage=("f.csv", 50, 150))))
    assert kinds(check) == ["reread"] and check.unproductive and not check.nudge
    assert "lines 50–150 of f.csv had already been read" in check.note
    nudge = g.after(rec("read_file", {"offset": 51}, ok(coverage=("f.csv", 51, 60))))
    assert nudge.nudge == "f.csv was re-read 3 times without new lines."
    g.after(rec("read_file", {"offset": 52}, ok(coverage=("f.csv", 52, 60))))
    stop = g.after(rec("read_file", {"offset": 53}, ok(coverage=("f.csv", 53, 60))))
    assert kinds(stop) == ["reread", "loop_stop"] and stop.stop.reason is Reason.LOOP
    assert g.after(rec("read_file", {}, ToolOutcome(False, "no", "f"))).events == ()


def test_evidence_gate_opens_on_one_productive_read_only():
    g = EvidenceGate(GuardLimits(evidence_refusals=1))
    finish = rec("finish_exploration")
    assert g.before(rec("read_file")).answer is None  # it guards the way out only
    g.after(rec("list_dir", outcome=ok()))  # a listing is no evidence
    empty = rec("read_file", outcome=ok(productive=False))
    g.after(empty)
    first = g.before(finish)
    assert first.answer.action == "refuse" and kinds(first) == ["evidence_retry"]
    assert g.before(finish).stop.reason is Reason.NO_EVIDENCE
    g.after(rec("read_image", outcome=ok("a photo")))
    assert g.before(finish).answer is None and g.evidence == 1


def test_wander_counts_calls_that_bring_nothing_new():
    g = Wander(GuardLimits(wander_window=4, wander_nudge_at=2, wander_stop_at=3))
    idle = rec("read_file", outcome=ToolOutcome(False, "no", "f", productive=False))
    assert not g.settle(rec("read_file", outcome=ok("page"))).unproductive
    assert not g.settle(rec("list_dir", outcome=ok("Contents of '.':\nx.csv"))).unproductive
    assert g.settle(rec("list_dir", outcome=ok("Contents of './.':\nx.csv"))).unproductive
    g2 = Wander(GuardLimits(wander_window=4, wander_nudge_at=2, wander_stop_at=3))
    checks = [g2.settle(idle) for _ in range(3)]
    assert [kinds(c) for c in checks] == [[], ["wander"], ["wander"]]
    assert checks[1].nudge and checks[2].stop.reason is Reason.WANDER
    cached = rec("read_file", outcome=ok("fresh"), cached=True)
    assert Wander(LIMITS).settle(cached).unproductive


def test_final_window_forces_the_way_out_once_something_was_read():
    g = FinalWindow(max_turns=3, window=2, finishing="finish_exploration")
    assert g.start(3, evidence=True, standing="s") == g.start(1, evidence=False, standing="s")
    assert not g.forces(3, True)
    opened = g.start(4, evidence=True, standing="So far you have read 1 file(s): a.csv.")
    assert kinds(opened) == ["final_window"] and opened.trip
    assert "finish_exploration is now forced" in opened.events[0].detail
    assert "a.csv" in opened.note and g.forces(4, True) and not g.forces(4, False)
    unread = g.start(4, evidence=False, standing="")
    assert "tools stay open" in unread.events[0].detail and "nothing has been read" in unread.note
    assert g.start(5, evidence=True, standing="").events == ()  # the window's 2nd turn
    end = g.start(6, evidence=True, standing="")
    assert kinds(end) == ["iteration_cap"] and end.stop.reason is Reason.ITERATION_CAP


def test_call_cap_lets_the_first_calls_through_and_names_the_rest():
    g = CallCap(2)
    assert g.split(["read_file", "list_dir"]) == (2, g.split([])[1])
    kept, check = g.split(["read_file", "list_dir", "read_file", "make_figure", "make_figure"])
    assert kept == 2 and kinds(check) == ["call_cap"]
    assert check.events[0].detail == (
        "The model asked for 5 tool calls in one turn; the first 2 ran, 3 were not run "
        "(make_figure, read_file)."
    )
    assert "first 2 tool calls" in check.note


# -- the ledger's part: one nudge, the first stop, events that say which call ----------


def test_the_ledger_grants_one_nudge_keeps_the_first_stop_and_stamps_each_event():
    ledger = Ledger()
    assistant = {"role": "assistant", "content": None, "tool_calls": []}
    ledger.reply(1, assistant, ["read_file"] * 3)
    records = [ledger.propose(1, f"c{i}", "read_file", {"path": "a.csv"}) for i in range(3)]
    ledger.settle(records[0], ok("a", coverage=("a.csv", 0, 3)))
    events = ledger.settle(records[1]) + ledger.settle(records[2])  # "same": the batch's first
    guards = [e for e in events if e.type == "guard"]
    assert [g.kind for g in guards] == ["dedup", "dedup", "nudge"]
    assert [(g.call_id, g.tool, g.turn, g.files) for g in guards][2] == (
        "c2",
        "read_file",
        1,
        ["a.csv"],
    )
    assert guards[0].to_dict()["call_id"] == "c1"
    ledger.end(Reason.MODEL_ERROR, "first")
    ledger.spend(Verdict("stop", "budget"))
    assert ledger.stop.reason is Reason.MODEL_ERROR and ledger.stop.detail == "first"


def test_a_guard_event_without_a_call_keeps_its_old_json_form():
    from labwright.core.events import Guard, event_from_json

    assert Guard("budget", "spent").to_dict() == {
        "type": "guard",
        "kind": "budget",
        "detail": "spent",
    }
    stamped = Guard("reread", "r", call_id="c1", tool="read_file", turn=2, files=["a.csv"])
    assert event_from_json(stamped.to_json()) == stamped
