"""Unit tests of the guards, without any model or I/O."""

from __future__ import annotations

import pytest

from labwright.core.agent.guards import Guards, Intervals, fingerprint
from labwright.core.agent.tools.base import ToolOutcome
from labwright.core.settings.config import GuardLimits


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


# -- cycles -------------------------------------------------------------------------


def _walk(g: Guards, calls: list[tuple[str, dict]]) -> list[tuple[str, list[str]]]:
    """Play calls through before_call/after_call as the loop would; (action, kinds) each."""
    out = []
    for name, args in calls:
        v = g.before_call(name, args)
        out.append((v.action, [e.kind for e in v.events]))
        if v.action == "stop":
            break
        if v.action == "run":
            g.after_call(name, args, ok(f"{name} {args}"))
    return out


A = ("list_dir", {"path": "data"})
B = ("read_file", {"path": "manual.txt"})
C = ("read_file", {"path": "data/pendulum.csv"})


def test_a_b_a_b_nudges_after_two_full_rounds_and_stops_at_three():
    g = Guards()
    steps = _walk(g, [A, B, A, B, A, B, A])
    assert steps == [
        ("run", []),
        ("run", []),
        ("dedup", ["dedup"]),  # A-B-A: not yet a full second round
        ("dedup", ["dedup", "cycle", "nudge"]),
        ("dedup", ["dedup"]),  # 3rd A: the loop breaker's nudge was already given
        ("stop", ["cycle"]),
    ]
    assert g.stop_reason == "cycle" and "list_dir(data) → read_file(manual.txt)" in g.stop_detail
    assert g.take_nudge() is not None and g.take_nudge() is None


def test_cycles_of_three_and_four_calls_are_found():
    D = ("list_dir", {"path": "."})
    for block, nudge_at, stop_at in (([A, B, C], 6, 9), ([A, B, C, D], 8, 12)):
        g = Guards(GuardLimits(nudge_at=10, stop_at=11))  # keep the loop breaker out of it
        steps = _walk(g, block * 4)
        kinds = [k for _, k in steps]
        assert "cycle" in kinds[nudge_at - 1] and "cycle" not in sum(kinds[: nudge_at - 1], [])
        assert len(steps) == stop_at and steps[-1] == ("stop", ["cycle"])


def test_a_cycle_longer_than_cycle_max_len_is_left_to_the_other_guards():
    D = ("list_dir", {"path": "."})
    g = Guards(GuardLimits(nudge_at=10, stop_at=11, cycle_max_len=3))
    kinds = sum((k for _, k in _walk(g, [A, B, C, D] * 3)), [])
    assert "cycle" not in kinds


def test_the_same_call_again_and_again_is_no_cycle():
    g = Guards(GuardLimits(nudge_at=10, stop_at=11))
    kinds = sum((k for _, k in _walk(g, [A] * 8)), [])
    assert "cycle" not in kinds  # A-A-A-A is the loop breaker's (dedup, nudge, loop_stop)


def test_forward_pages_and_different_files_never_make_a_cycle():
    g = Guards()
    pages = [("read_file", {"path": "log.txt", "offset": o}) for o in range(0, 2000, 100)]
    files = [("read_file", {"path": f"n{i}.txt"}) for i in range(30)]
    kinds = sum((k for _, k in _walk(g, pages + files)), [])
    assert kinds == []


def test_cycle_thresholds_are_tunable():
    g = Guards(GuardLimits(cycle_nudge_at=3, cycle_stop_at=4, nudge_at=10, stop_at=11))
    steps = _walk(g, [A, B] * 5)
    assert "cycle" in steps[5][1] and steps[-1] == ("stop", ["cycle"]) and len(steps) == 8


def test_calls_to_a_withdrawn_tool_are_no_step_of_a_cycle():
    g = Guards()
    g.disabled.add("read_file")
    steps = _walk(g, [A, B, A, B, A, B])
    assert all("cycle" not in k for _, k in steps)
    assert [a for a, _ in steps][1::2] == ["refuse"] * 3


# -- wandering ----------------------------------------------------------------------


def settle(g: Guards, name: str, outcome: ToolOutcome, *, cached: bool = False, i: int = 0):
    return [
        e.kind for e in g.settle(name, {"i": i}, outcome, cached=cached, call_id=f"c{i}", index=i)
    ]


def test_wandering_nudges_at_six_idle_calls_in_ten_then_stops_at_eight():
    g = Guards()
    kinds = []
    for i in range(8):
        kinds.append(settle(g, "read_file", fail(), i=i))
    assert kinds == [[], [], [], [], [], ["wander", "nudge"], [], ["wander"]]
    assert g.stop_reason == "wander"


def test_new_information_keeps_the_window_from_filling():
    g = Guards()
    kinds = []
    for i in range(40):  # a useful call for each idle one: 5 of 10 at most
        useful = ok(f"page {i}") if i % 2 else fail()
        kinds += settle(g, "read_file", useful, i=i)
    assert kinds == [] and g.stop_reason is None


def test_what_counts_as_nothing_new():
    g = Guards()
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
        settle(g, name, outcome, cached=cached, i=i)
        assert g.idle[-1] is idle, (i, name)
        assert outcome.productive is not idle or name != "list_dir" or not idle


def test_finishing_is_never_counted_as_wandering():
    g = Guards()
    for i in range(10):
        assert settle(g, "finish_exploration", fail(), i=i) == []
    assert not g.idle


def test_wander_thresholds_are_tunable():
    g = Guards(GuardLimits(wander_window=4, wander_nudge_at=2, wander_stop_at=3))
    kinds = [settle(g, "read_file", fail(), i=i) for i in range(3)]
    assert kinds == [[], ["wander", "nudge"], ["wander"]]


# -- error storms -------------------------------------------------------------------


def test_error_shape_drops_names_paths_and_numbers():
    from labwright.core.agent.guards import error_shape

    a = error_shape("Cannot read 'results/run_1.csv': No such file: run_1.csv. Check the name.")
    b = error_shape("Cannot read 'out/run_22.csv': No such file: run_22.csv. Check the name.")
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
        False, f"Cannot read '{path}': No such file: {path}. Check the name.", "failed", False
    )


def test_the_same_error_between_successes_is_an_error_storm():
    g = Guards()
    kinds = []
    for i in range(10):
        outcome = missing(f"run_{i}.csv") if i % 2 == 0 else ok(f"page {i}")
        kinds += [e.kind for e in g.after_call("read_file", {"path": f"run_{i}.csv"}, outcome)]
        if i == 8:
            assert "withdrawn" in outcome.content and "finish_exploration" in outcome.content
    assert kinds == ["error_storm"]  # at the 5th same error, though never 3 in a row
    assert "read_file" in g.disabled and g.tripped
    assert g.before_call("read_file", {"path": "z"}).action == "refuse"


def test_different_errors_between_successes_are_no_storm():
    g = Guards()
    errors = [
        missing("a.csv"),
        ToolOutcome(False, "Cannot read 'b.bin': binary file", "f", False),
        ToolOutcome(False, "refused path '/etc/x': absolute paths are not allowed", "f", False),
        ToolOutcome(False, "Cannot read 'c.pdf': the PDF is encrypted", "f", False),
        ToolOutcome(False, "arguments are not valid JSON", "f", False),
    ]
    for i, outcome in enumerate(errors):
        assert g.after_call("read_file", {"path": str(i)}, outcome) == []
        g.after_call("read_file", {"path": f"ok{i}"}, ok())
    assert not g.disabled


def test_error_storm_threshold_is_tunable():
    g = Guards(GuardLimits(error_storm_at=2, error_storm_window=3))
    g.after_call("read_file", {"path": "a"}, missing("a"))
    g.after_call("read_file", {"path": "c"}, ok())
    events = g.after_call("read_file", {"path": "b"}, missing("b"))
    assert [e.kind for e in events] == ["error_storm"]


# -- collapsing repeats after a trip ---------------------------------------------------


def _transcript(g: Guards, calls: list[tuple[str, str, bool]]) -> list[dict]:
    """(call id, path, cached) each: an assistant message and its tool message."""
    messages: list[dict] = [{"role": "system", "content": "s"}]
    for call_id, path, cached in calls:
        args = {"path": path}
        messages.append(
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {
                        "id": call_id,
                        "type": "function",
                        "function": {"name": "read_file", "arguments": f'{{"path": "{path}"}}'},
                    }
                ],
            }
        )
        content = f"repeat of {path}" if cached else f"content of {path}"
        g.settle(
            "read_file", args, ok(content), cached=cached, call_id=call_id, index=len(messages)
        )
        messages.append({"role": "tool", "tool_call_id": call_id, "content": content})
    return messages


def test_repeats_are_collapsed_only_after_a_trip_and_every_call_keeps_its_answer():
    g = Guards()
    messages = _transcript(
        g, [("c1", "a", False), ("c2", "a", True), ("c3", "b", False), ("c4", "a", True)]
    )
    before = [m["content"] for m in messages]
    assert g.collapse(messages) == 0 and [m["content"] for m in messages] == before
    g.tripped = True
    assert g.collapse(messages) == 2
    tools = [m for m in messages if m["role"] == "tool"]
    assert [m["tool_call_id"] for m in tools] == ["c1", "c2", "c3", "c4"]
    assert tools[0]["content"] == "content of a" and tools[2]["content"] == "content of b"
    assert tools[1]["content"].startswith("[repeat of call c1") and "\n" not in tools[1]["content"]
    assert tools[3]["content"] == tools[1]["content"]
    assert g.collapse(messages) == 0  # idempotent


def test_same_arguments_with_a_new_result_are_not_collapsed():
    g = Guards()
    messages = [{"role": "system", "content": "s"}] * 3
    g.settle("read_file", {"path": "a"}, fail(), cached=False, call_id="c1", index=0)
    g.settle("read_file", {"path": "a"}, ok("now it exists"), cached=False, call_id="c2", index=1)
    g.settle("read_file", {"path": "a"}, ok("x"), cached=True, call_id="c3", index=2)
    assert set(g.stubs) == {2} and "call c2" in g.stubs[2]  # the cache repeats c2, not c1
    g.tripped = True
    g.collapse([dict(m) for m in messages])


def test_any_nudge_or_stop_is_a_trip():
    for play in (
        lambda g: _walk(g, [A] * 3),
        lambda g: _walk(g, [A, B] * 2),
        lambda g: [g.after_call("read_file", {"p": i}, fail()) for i in range(3)],
    ):
        g = Guards()
        assert not g.tripped
        play(g)
        assert g.tripped


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
    assert Guards(None).limits == GuardLimits()
    from labwright.core.settings.config import config_from_public

    with pytest.raises(ValueError):
        config_from_public({"folder": ".", "guards": {"wander_stop_at": 10**6}}, None)
