"""Unit tests of the guards, without any model or I/O.

Guards of one call are tested on their own (pure: records in, checks out); the
ones whose meaning is in how they combine (a dedup that also nudges, a cycle of
deduplicated calls, a withdrawn tool) through the ledger, driven as the loop does.
"""

from __future__ import annotations

from typing import Any

import pytest

from labwright.core.agent.guards import CallRecord, Intervals, Verdict, fingerprint
from labwright.core.agent.guards.policies import FailureBreaker, Wander
from labwright.core.agent.ledger import Ledger
from labwright.core.agent.tools import traits_of
from labwright.core.agent.tools.base import ToolOutcome
from labwright.core.settings.config import GuardLimits


def ok(content="x", coverage=None, productive=True) -> ToolOutcome:
    return ToolOutcome(True, content, "ok", productive=productive, coverage=coverage)


def fail() -> ToolOutcome:
    return ToolOutcome(False, "no", "failed", productive=False)


NUDGE = "Repeating it will not bring anything new."  # the nudge message's own words


class Play:
    """A ledger driven as the loop drives it: one call per turn, the notes after it."""

    def __init__(self, limits: GuardLimits | None = None) -> None:
        self.ledger = Ledger(limits)
        self.turn = 0

    def propose(self, name: str, args: Any) -> CallRecord:
        self.turn += 1
        call_id = f"c{self.turn}"
        assistant = {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {"id": call_id, "type": "function", "function": {"name": name, "arguments": "{}"}}
            ],
        }
        self.ledger.reply(self.turn, assistant, [name])
        return self.ledger.propose(self.turn, call_id, name, args)

    def call(self, name: str, args: Any, outcome: ToolOutcome | None = None) -> CallRecord:
        """Propose it, run it with `outcome` (ok() by default) if it may run, settle it."""
        record = self.propose(name, args)
        self.last = self.ledger.settle(record, (outcome or ok()) if record.ran else None)
        if record.action != "stop":
            self.ledger.end_turn()
        return record

    def kinds(self) -> list[str]:
        """Guard kinds of the last call, in order, as the loop yields them."""
        return [e.kind for e in self.last if e.type == "guard"]

    def nudges(self) -> int:
        return sum(NUDGE in str(m["content"]) for m in self.ledger.messages())


def test_fingerprint_ignores_key_order_and_falls_back_to_str():
    assert fingerprint("read_file", {"path": "a", "offset": 1}) == fingerprint(
        "read_file", {"offset": 1, "path": "a"}
    )
    assert fingerprint("read_file", {"path": "a"}) != fingerprint("read_file", {"path": "b"})
    assert fingerprint("x", {"o": object}).startswith("x|{")  # not JSON-able: str()


def test_repeat_occurrences_run_then_dedup_then_nudge_then_stop():
    g = Play()
    args = {"path": "a.csv"}
    actions = []
    for _ in range(5):
        r = g.call("read_file", args)
        actions.append((r.action, [e.kind for e in r.events]))
    assert actions == [
        ("run", []),
        ("dedup", ["dedup"]),
        ("dedup", ["dedup", "nudge"]),
        ("dedup", ["dedup"]),
        ("stop", ["loop_stop"]),
    ]
    assert g.ledger.stop.reason.value == "loop"
    assert g.nudges() == 1  # sent once, after the turn that earned it


def test_nudge_is_given_once_per_run():
    g = Play()
    kinds = []
    for path in ("a", "b"):
        for _ in range(3):
            kinds += [e.kind for e in g.call("list_dir", {"path": path}).events]
    assert kinds.count("nudge") == 1


def test_a_failed_call_is_not_deduplicated():
    g = Play()
    args = {"path": "missing.csv"}
    g.call("read_file", args, fail())
    assert g.propose("read_file", args).action == "run"


def read(path: str, outcome: ToolOutcome) -> CallRecord:
    """A finished read_file call, as the failure breaker sees it after it ran."""
    return CallRecord(
        f"id-{path}", "read_file", {"path": path}, traits_of("read_file"), outcome=outcome
    )


def test_three_consecutive_failures_withdraw_the_tool_and_success_resets():
    g = FailureBreaker(GuardLimits(), standing=lambda: "")
    g.after(read("1", fail()))
    g.after(read("2", fail()))
    g.after(read("3", ok()))
    g.after(read("4", fail()))
    assert not g.withholds("read_file", traits_of("read_file"))
    g.after(read("5", fail()))
    check = g.after(read("6", fail()))
    assert [e.kind for e in check.events] == ["tool_disabled"]
    assert g.withholds("read_file", traits_of("read_file"))
    assert g.before(read("7", ok())).answer.action == "refuse"


def test_finishing_tool_is_never_withdrawn():
    g = Play()
    g.call("read_file", {"path": "a.txt"}, ok(coverage=("a.txt", 0, 10)))  # opens the gate
    for i in range(5):
        assert g.call("finish_exploration", {"i": i}, fail()).ran
    assert "finish_exploration" not in g.ledger.withheld()


def test_evidence_gate_counts_only_productive_reads():
    g = Play()
    g.call("list_dir", {"path": "."}, ok())
    g.call("read_file", {"path": "empty.txt"}, ok(productive=False))
    assert g.propose("finish_exploration", {}).action == "refuse"
    g.call("read_file", {"path": "a.txt"}, ok(coverage=("a.txt", 0, 10)))
    assert g.propose("finish_exploration", {}).action == "run"


def test_evidence_gate_gives_up_after_the_refusals():
    g = Play(GuardLimits(evidence_refusals=2))
    actions = [g.call("finish_exploration", {}).action for _ in range(3)]
    assert actions == ["refuse", "refuse", "stop"]
    assert g.ledger.stop.reason.value == "no_evidence"


def test_coverage_forward_pages_are_new_and_overlaps_within_are_rereads():
    g = Play()
    for start in (0, 100, 200):
        r = g.call("read_file", {"offset": start}, ok(coverage=("f.txt", start, start + 100)))
        assert g.kinds() == []
        assert r.productive
    g.call("read_file", {"offset": 250}, ok(coverage=("f.txt", 250, 350)))  # partly new
    assert g.kinds() == []
    reread = g.call("read_file", {"offset": 20}, ok(coverage=("f.txt", 20, 80)))
    assert g.kinds() == ["reread"]
    assert not reread.productive


def test_rereads_of_one_file_nudge_then_stop():
    g = Play()
    g.call("read_file", {"offset": 0}, ok(coverage=("f", 0, 100)))
    kinds = []
    for i in range(1, 5):
        g.call("read_file", {"offset": i}, ok(coverage=("f", i, 50)))
        kinds += g.kinds()
    assert kinds == ["reread", "reread", "nudge", "reread", "reread", "loop_stop"]
    assert g.ledger.stop.reason.value == "loop"


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


# -- cycles -------------------------------------------------------------------------


def _walk(g: Play, calls: list[tuple[str, dict]]) -> list[tuple[str, list[str]]]:
    """Play calls through the ledger as the loop would; (action, kinds before it ran) each."""
    out = []
    for name, args in calls:
        r = g.call(name, args, ok(f"{name} {args}"))
        out.append((r.action, [e.kind for e in r.events]))
        if r.action == "stop":
            break
    return out


A = ("list_dir", {"path": "data"})
B = ("read_file", {"path": "manual.txt"})
C = ("read_file", {"path": "data/pendulum.csv"})


def test_a_b_a_b_nudges_after_two_full_rounds_and_stops_at_three():
    g = Play()
    steps = _walk(g, [A, B, A, B, A, B, A])
    assert steps == [
        ("run", []),
        ("run", []),
        ("dedup", ["dedup"]),  # A-B-A: not yet a full second round
        ("dedup", ["dedup", "cycle", "nudge"]),
        ("dedup", ["dedup"]),  # 3rd A: the loop breaker's nudge was already given
        ("stop", ["cycle"]),
    ]
    stop = g.ledger.stop
    assert stop.reason.value == "cycle" and "list_dir(data) → read_file(manual.txt)" in stop.detail
    assert g.nudges() == 1


def test_cycles_of_three_and_four_calls_are_found():
    D = ("list_dir", {"path": "."})
    for block, nudge_at, stop_at in (([A, B, C], 6, 9), ([A, B, C, D], 8, 12)):
        g = Play(GuardLimits(nudge_at=10, stop_at=11))  # keep the loop breaker out of it
        steps = _walk(g, block * 4)
        kinds = [k for _, k in steps]
        assert "cycle" in kinds[nudge_at - 1] and "cycle" not in sum(kinds[: nudge_at - 1], [])
        assert len(steps) == stop_at and steps[-1] == ("stop", ["cycle"])


def test_a_cycle_longer_than_cycle_max_len_is_left_to_the_other_guards():
    D = ("list_dir", {"path": "."})
    g = Play(GuardLimits(nudge_at=10, stop_at=11, cycle_max_len=3))
    kinds = sum((k for _, k in _walk(g, [A, B, C, D] * 3)), [])
    assert "cycle" not in kinds


def test_the_same_call_again_and_again_is_no_cycle():
    g = Play(GuardLimits(nudge_at=10, stop_at=11))
    kinds = sum((k for _, k in _walk(g, [A] * 8)), [])
    assert "cycle" not in kinds  # A-A-A-A is the loop breaker's (dedup, nudge, loop_stop)


def test_forward_pages_and_different_files_never_make_a_cycle():
    g = Play()
    pages = [("read_file", {"path": "log.txt", "offset": o}) for o in range(0, 2000, 100)]
    files = [("read_file", {"path": f"n{i}.txt"}) for i in range(30)]
    kinds = sum((k for _, k in _walk(g, pages + files)), [])
    assert kinds == []


def test_cycle_thresholds_are_tunable():
    g = Play(GuardLimits(cycle_nudge_at=3, cycle_stop_at=4, nudge_at=10, stop_at=11))
    steps = _walk(g, [A, B] * 5)
    assert "cycle" in steps[5][1] and steps[-1] == ("stop", ["cycle"]) and len(steps) == 8


def test_calls_to_a_withdrawn_tool_are_no_step_of_a_cycle():
    g = Play()
    for i in range(3):
        g.call("read_file", {"path": f"missing{i}"}, fail())
    assert "read_file" in g.ledger.withheld()
    steps = _walk(g, [A, B, A, B, A, B])
    assert all("cycle" not in k for _, k in steps)
    assert [a for a, _ in steps][1::2] == ["refuse"] * 3


# -- wandering ----------------------------------------------------------------------


def settled(name: str, outcome: ToolOutcome, *, cached: bool = False, i: int = 0) -> CallRecord:
    """A call with its final answer, as the wandering guard sees it."""
    r = CallRecord(f"c{i}", name, {"i": i}, traits_of(name), outcome=outcome, cached=cached)
    r.productive = outcome.productive
    return r


def settle(g: Wander, name: str, outcome: ToolOutcome, *, cached: bool = False, i: int = 0):
    check = g.settle(settled(name, outcome, cached=cached, i=i))
    return [e.kind for e in check.events] + (["nudge"] if check.nudge else [])


def test_wandering_nudges_at_six_idle_calls_in_ten_then_stops_at_eight():
    g = Wander(GuardLimits())
    kinds = []
    for i in range(8):
        kinds.append(settle(g, "read_file", fail(), i=i))
    assert kinds == [[], [], [], [], [], ["wander", "nudge"], [], ["wander"]]
    assert g.settle(settled("read_file", fail())).stop.reason.value == "wander"


def test_new_information_keeps_the_window_from_filling():
    g = Wander(GuardLimits())
    kinds = []
    for i in range(40):  # a useful call for each idle one: 5 of 10 at most
        useful = ok(f"page {i}") if i % 2 else fail()
        kinds += settle(g, "read_file", useful, i=i)
    assert kinds == []


def test_what_counts_as_nothing_new():
    g = Wander(GuardLimits())
    listing = "Contents of '.' (2 entries):\ndata/\nmanual.txt\ttext\t1 KB"
    respelled = "Contents of './.' (2 entries):\ndata/\nmanual.txt\ttext\t1 KB"
    other = ToolOutcome(True, "Contents of 'data' (1 entries):\nx.csv\tdata\t1 KB", "ok")
    cases = [
        ("list_dir", ToolOutcome(True, listing, "ok"), False, False),  # new listing
        ("list_dir", ToolOutcome(True, respelled, "ok"), False, True),  # same listing, new spelling
        ("list_dir", other, False, False),
        ("read_file", ok(), True, True),  # answered from an earlier result
        ("read_file", fail(), False, True),  # an error
        ("read_file", ok(productive=False), False, True),  # empty, or lines already read
        ("read_file", ok("next page"), False, False),
    ]
    for i, (name, outcome, cached, idle) in enumerate(cases):
        check = g.settle(settled(name, outcome, cached=cached, i=i))
        assert g.idle[-1] is idle, (i, name)
        assert check.unproductive is idle, (i, name)  # the call is reported as not productive


def test_finishing_is_never_counted_as_wandering():
    g = Play()
    g.call("read_file", {"path": "a.txt"}, ok(coverage=("a.txt", 0, 10)))
    wander = next(p for p in g.ledger.policies if isinstance(p, Wander))
    for i in range(10):
        g.call("finish_exploration", {"i": i}, fail())
        assert g.kinds() == []
    assert not any(wander.idle)


def test_wander_thresholds_are_tunable():
    g = Wander(GuardLimits(wander_window=4, wander_nudge_at=2, wander_stop_at=3))
    kinds = [settle(g, "read_file", fail(), i=i) for i in range(3)]
    assert kinds == [[], ["wander", "nudge"], ["wander"]]


# -- error storms -------------------------------------------------------------------


def test_error_shape_drops_names_paths_and_numbers():
    from labwright.core.agent.guards import error_shape

    a = error_shape("Cannot read 'results/run_1.csv': No such file: run_1.csv. Ruling the name.")
    b = error_shape("Cannot read 'out/run_22.csv': No such file: run_22.csv. Ruling the name.")
    c = error_shape("Cannot read 'x.csv': x.csv can't be read: permission denied.")
    assert a == b and a != c
    assert error_shape("NameError: name 'df' is not defined (line 3)") == error_shape(
        'NameError: name "fit" is not defined (line 17)'
    )
    # the call's own argument values go too, e.g. files without an extension
    assert error_shape("No such file: alpha.", {"path": "raw/alpha"}) == error_shape(
        "No such file: beta.", {"path": "beta"}
    )


def missing(path: str) -> ToolOutcome:
    return ToolOutcome(
        False, f"Cannot read '{path}': No such file: {path}. Ruling the name.", "failed", False
    )


def test_the_same_error_between_successes_is_an_error_storm():
    g = FailureBreaker(GuardLimits(), standing=lambda: "Nothing read yet.")
    kinds = []
    for i in range(10):
        outcome = missing(f"run_{i}.csv") if i % 2 == 0 else ok(f"page {i}")
        check = g.after(read(f"run_{i}.csv", outcome))
        kinds += [e.kind for e in check.events]
        if i == 8:  # what the model reads: the error, then the note
            assert "withdrawn" in check.note and "finish_exploration" in check.note
            assert check.trip
    assert kinds == ["error_storm"]  # at the 5th same error, though never 3 in a row
    assert g.withholds("read_file", traits_of("read_file"))
    assert g.before(read("z", ok())).answer.action == "refuse"


def test_different_errors_between_successes_are_no_storm():
    g = FailureBreaker(GuardLimits(), standing=lambda: "")
    errors = [
        missing("a.csv"),
        ToolOutcome(False, "Cannot read 'b.bin': binary file", "f", False),
        ToolOutcome(False, "refused path '/etc/x': absolute paths are not allowed", "f", False),
        ToolOutcome(False, "Cannot read 'c.pdf': the PDF is encrypted", "f", False),
        ToolOutcome(False, "arguments are not valid JSON", "f", False),
    ]
    for i, outcome in enumerate(errors):
        assert g.after(read(str(i), outcome)).events == ()
        g.after(read(f"ok{i}", ok()))
    assert not g.withdrawn


def test_error_storm_threshold_is_tunable():
    g = FailureBreaker(GuardLimits(error_storm_at=2, error_storm_window=3), standing=lambda: "")
    g.after(read("a", missing("a")))
    g.after(read("c", ok()))
    check = g.after(read("b", missing("b")))
    assert [e.kind for e in check.events] == ["error_storm"]


# -- collapsing repeats after a trip ---------------------------------------------------


def _tools(g: Play) -> dict[str, str]:
    return {m["tool_call_id"]: m["content"] for m in g.ledger.messages() if m["role"] == "tool"}


def test_repeats_are_collapsed_only_after_a_trip_and_every_call_keeps_its_answer():
    g = Play(GuardLimits(nudge_at=4, stop_at=5))  # three asks of `a` trip nothing here
    for path in ("a", "a", "b", "a"):
        g.call("read_file", {"path": path}, ok(f"content of {path}"))
    assert [r.cached for r in g.ledger.records()] == [False, True, False, True]
    before = _tools(g)
    assert not g.ledger.tripped and before["c1"] == "content of a"
    assert "not run again" in before["c2"] and before["c4"] == before["c2"]
    g.ledger.spend(Verdict("run", "Wrap up."))  # the budget's wrap-up trips the guards
    tools = _tools(g)
    assert sum(tools[k] != before[k] for k in before) == 2
    assert list(tools) == ["c1", "c2", "c3", "c4"]  # every call keeps its answer
    assert tools["c1"] == "content of a" and tools["c3"] == "content of b"
    assert tools["c2"].startswith("[repeat of call c1") and "\n" not in tools["c2"]
    assert tools["c4"] == tools["c2"]
    assert _tools(g) == tools  # rebuilding changes nothing


def test_same_arguments_with_a_new_result_are_not_collapsed():
    g = Play()
    g.call("read_file", {"path": "a"}, fail())
    g.call("read_file", {"path": "a"}, ok("now it exists"))
    g.call("read_file", {"path": "a"}, ok("x"))  # answered from c2's result
    repeats = {r.call_id: r.repeat_of for r in g.ledger.records()}
    assert repeats == {"c1": None, "c2": None, "c3": "c2"}  # the cache repeats c2, not c1
    assert g.ledger.tripped and "call c2" in _tools(g)["c3"]


def test_any_nudge_or_stop_is_a_trip():
    for play in (
        lambda g: _walk(g, [A] * 3),
        lambda g: _walk(g, [A, B] * 2),
        lambda g: [g.call("read_file", {"p": i}, fail()) for i in range(3)],
    ):
        g = Play()
        assert not g.ledger.tripped
        play(g)
        assert g.ledger.tripped


# -- budgets ------------------------------------------------------------------------


def _usage(**tokens: tuple[int, int]):
    from labwright.core.llm.client import RoleUsage, Usage

    u = Usage()
    for role, (p, c) in tokens.items():
        u.by_role[role] = RoleUsage(1, p, c, 0)
    return u


def _config(**kw):
    from pathlib import Path

    from labwright.core.settings.config import RunConfig

    return RunConfig(folder=Path("."), **kw)


PRICES = {"deepseek-chat": {"prompt": 0.5, "completion": 2.0}}  # USD per 1M tokens


def test_money_is_counted_per_model_and_role():
    from labwright.core.agent.guards import spent_usd

    usage = _usage(explore=(1_000_000, 100_000), write=(200_000, 50_000))
    assert spent_usd(_config(prices=PRICES), usage) == pytest.approx(0.5 + 0.2 + 0.1 + 0.1)
    assert spent_usd(_config(), usage) == 0  # no prices: money not tracked


def test_budget_warns_once_then_stops():
    from labwright.core.agent.guards import Budget

    usage = _usage(explore=(0, 0))
    budget = Budget(_config(budget_usd=1.0, prices=PRICES), usage, stage="explore")
    verdicts = []
    for _ in range(5):
        usage.by_role["explore"].prompt_tokens += 500_000  # $0.25 a step
        v = budget.check()
        verdicts.append((v.action, [e.kind for e in v.events], bool(v.content)))
    assert verdicts[:4] == [
        ("run", [], False),
        ("run", [], False),
        ("run", [], False),
        ("stop", ["budget"], True),
    ]
    usage2 = _usage(explore=(0, 0))
    budget = Budget(_config(budget_tokens=100), usage2, stage="explore")
    usage2.by_role["explore"].prompt_tokens = 92
    v = budget.check()
    assert v.action == "run" and "Wrap up" in v.content and v.events[0].kind == "budget"
    assert budget.check().events == []  # warned once
    usage2.by_role["explore"].prompt_tokens = 100
    v = budget.check()
    assert v.action == "stop" and v.content.startswith("Token budget reached")


def test_stage_budget_counts_from_the_stage_start():
    from labwright.core.agent.guards import Budget

    usage = _usage(explore=(5_000, 0))  # spent before, e.g. a resumed run
    budget = Budget(_config(explore_budget_tokens=1_000), usage, stage="explore")
    assert budget.check().action == "run" and not budget.exhausted
    usage.by_role["explore"].prompt_tokens += 1_000
    v = budget.check()
    assert v.action == "stop" and "Exploration token budget reached" in v.content
    assert not Budget(_config(explore_budget_tokens=1_000), usage).limits  # not a stage budget


@pytest.mark.parametrize(
    "kw",
    [
        dict(budget_usd=1.0),  # no price for the models: money could not be watched
        dict(explore_budget_usd=1.0, prices={"deepseek-chat": {"prompt": 1.0}}),
        dict(prices={"m": {"prompt": -1, "completion": 1}}),
        dict(budget_usd=0, prices=PRICES),
        dict(explore_budget_tokens=0),
        dict(explore_budget_tokens=-5),
    ],
)
def test_money_and_stage_budgets_are_validated(kw):
    with pytest.raises(ValueError):
        _config(**kw)


def test_prices_and_budgets_reach_run_json_and_come_back():
    from labwright.core.settings.config import config_from_public

    c = _config(prices=PRICES, budget_usd=2.5, explore_budget_tokens=9000, api_key="sk-secret")
    public = c.public_dict()
    assert public["prices"] == PRICES and public["budget_usd"] == 2.5
    assert "sk-secret" not in repr(public)
    back = config_from_public(public, api_key=None)
    assert (back.prices, back.budget_usd, back.explore_budget_tokens) == (PRICES, 2.5, 9000)


# -- no setting turns a guard off -----------------------------------------------------


@pytest.mark.parametrize(
    "limits",
    [
        dict(cycle_nudge_at=1),  # one pass is not a cycle
        dict(cycle_max_len=1),
        dict(cycle_stop_at=2),  # not above cycle_nudge_at
        dict(wander_stop_at=6),  # not above wander_nudge_at
        dict(wander_window=7),  # wander_stop_at (8) could never be reached
        dict(error_storm_at=11),  # above its window: could never trip
        dict(error_storm_window=0),
        dict(budget_warn_percent=100),
        dict(wander_nudge_at=0),
        dict(stop_at=None),  # "off" is not a value
        dict(stop_at=False),
        dict(nudge_at=2.5),
        dict(stop_at=float("inf")),
    ],
)
def test_new_guards_can_be_tuned_not_disabled(limits):
    with pytest.raises(ValueError):
        GuardLimits(**limits)


def test_a_run_without_guard_limits_gets_the_defaults():
    assert Ledger(None).limits == GuardLimits()
    from labwright.core.settings.config import config_from_public

    with pytest.raises(ValueError):
        config_from_public({"folder": ".", "guards": {"wander_stop_at": 10**6}}, None)
