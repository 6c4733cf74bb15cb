"""The incident suite: scripted models that replay what public agents really did.

Each scenario is a model script played through the fake OpenAI-compatible
server against the real exploration loop, with the verdict it must get and its
cost in explore-model calls. tests/incidents/test_incidents.py asserts them;
bench/bench_incidents.py plays them and prints the table of README.md.

Scripts are stubborn on purpose: they ignore nudges (the worst case a guard
must handle) but obey a forced `tool_choice`, as real APIs enforce it.
The writing stages are made cheap (no compile, no reflection); only explore
requests are counted.
"""

from __future__ import annotations

import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agent_helpers import (
    FINISH_ARGS,
    FORCE_FINISH,
    config_for,
    explore_requests,
    guard_kinds,
    of_type,
    route,
    run,
)
from fakes import FakeLLM, Turn, call, tool_calls

# Guards of the loop itself: one of these in a must-not-trip scenario is a false trip.
LOOP_GUARDS = frozenset(
    {"dedup", "nudge", "loop_stop", "reread", "cycle", "wander", "error_storm", "tool_disabled"}
)
TURN_BUDGET = 20  # max_tool_iters by default: what a naive loop would burn before stopping


# -- the material ---------------------------------------------------------------


def build_folder(root: Path) -> Path:
    """A lab folder big enough for every scenario: a manual, data, long logs, 30 notes."""
    (root / "data").mkdir(parents=True)
    (root / "notes").mkdir()
    (root / "manual.txt").write_text(
        "Simple pendulum\nMeasure the period T against the length L; verify T = 2*pi*sqrt(L/g).\n",
        encoding="utf-8",
    )
    (root / "data" / "pendulum.csv").write_text(
        "length_m,period_s\n0.20,0.90\n0.40,1.27\n0.60,1.55\n0.80,1.80\n1.00,2.01\n",
        encoding="utf-8",
    )
    (root / "data" / "log.txt").write_text(
        "".join(f"t={i} reading={i * 0.5:.1f}\n" for i in range(1500)), encoding="utf-8"
    )
    (root / "data" / "scope.txt").write_text(
        "".join(f"sample {i}: {i % 17 * 0.25:.2f} V\n" for i in range(600)), encoding="utf-8"
    )
    for i in range(30):
        (root / "notes" / f"n{i:02d}.txt").write_text(
            f"Note {i}: trial {i} with L = {0.2 + i * 0.02:.2f} m\n", encoding="utf-8"
        )
    return root


# -- turns ------------------------------------------------------------------------


def read(path: str, **kw: Any) -> Turn:
    return tool_calls(call("read_file", {"path": path, **kw}))


def ls(path: str = ".") -> Turn:
    return tool_calls(call("list_dir", {"path": path}))


def finish() -> Turn:
    return tool_calls(call("finish_exploration", FINISH_ARGS))


def page(path: str, n: int, size: int) -> Turn:
    return read(path, offset=n * size, limit=size)


# -- scenarios --------------------------------------------------------------------


@dataclass(frozen=True)
class Scenario:
    key: str  # "3a": the scenario number, a letter per variant
    title: str
    source: str  # the public incident it replays, or why it is here
    script: Callable[[int], Turn]  # explore turn n (0-based) -> the model's answer
    must_trip: bool  # False: honest work, any loop guard would be a false trip
    kinds: tuple[str, ...]  # guard events expected, in order
    status: str  # findings.json status: finished | cut_short | no_evidence
    reason: str | None  # why it was cut short
    calls: int  # explore-model calls spent
    naive: int  # what a loop with only its turn budget would spend
    naive_note: str = ""
    config: dict[str, Any] = field(default_factory=dict)

    @property
    def verdict(self) -> str:
        return verdict(self.status, self.reason, self.kinds)


def verdict(status: str, reason: str | None, kinds: tuple[str, ...] | list[str]) -> str:
    """How the table names an outcome: "finished", "finished (forced)", "cut_short: cycle"."""
    if status == "finished":
        return "finished" + (" (forced)" if "final_window" in kinds else "")
    return f"{status}: {reason}"


def _collapse(n: int) -> Turn:
    return read("data/pendulum.csv")


def _sweep(n: int) -> Turn:
    return page("data/log.txt", n, 100) if n < 15 else finish()


def _wrap(n: int) -> Turn:
    return page("data/scope.txt", n % 6, 100)  # 6 pages, then back to the start, forever


def _alternate(n: int) -> Turn:
    return page("data/log.txt", n % 2, 100)  # offset 0, 100, 0, 100, ...


def _thirty(n: int) -> Turn:
    if n == 0:
        return ls("notes")
    return read(f"notes/n{n - 1:02d}.txt") if n <= 30 else finish()


def _parallel(n: int) -> Turn:
    if n == 0:
        return ls(".")
    if n == 1:
        paths = [
            "manual.txt",
            "data/pendulum.csv",
            "data/log.txt",
            "data/scope.txt",
            "notes/n00.txt",
        ]
        return tool_calls(*[call("read_file", {"path": p}) for p in paths])
    return finish()


def _abab(n: int) -> Turn:
    return ls("data") if n % 2 == 0 else read("manual.txt")


def _abc(n: int) -> Turn:
    return [ls("."), read("manual.txt"), read("data/pendulum.csv")][n % 3]


def _storm(n: int) -> Turn:
    # A file the model is sure exists, each time another: a mistake, answered with the
    # closest real paths; no tool is withdrawn, and the wandering guard bounds it.
    return read(f"results/run_{n}.csv")


def _storm_between(n: int) -> Turn:
    # Every other call reads new lines: the wrong guesses are corrected, read_file stays
    # offered, and the exploration goes on to the turn budget with real evidence.
    return read(f"results/run_{n}.csv") if n % 2 == 0 else page("data/log.txt", n // 2, 100)


def _never_finishes(n: int) -> Turn:
    return page("data/log.txt", n, 40)  # always something new; never calls finish


def _finish_first(n: int) -> Turn:
    return finish()


def _finish_then_read(n: int) -> Turn:
    return [finish(), read("manual.txt"), finish()][min(n, 2)]


def _poll(n: int) -> Turn:
    return ls(".")


def _poll_respelled(n: int) -> Turn:
    return ls("." + "/." * n)  # ".", "./.", "././." ...: other arguments, the same listing


SCENARIOS: tuple[Scenario, ...] = (
    Scenario(
        "1",
        "total collapse: the same call forever",
        "qwen-code #4695 (43 repeats)",
        _collapse,
        must_trip=True,
        kinds=("dedup", "dedup", "nudge", "dedup", "loop_stop"),
        status="cut_short",
        reason="loop",
        calls=5,
        naive=TURN_BUDGET,
        naive_note="the incident: 43",
    ),
    Scenario(
        "2",
        "paging sweep forward, 15 pages of 100 lines",
        "honest work",
        _sweep,
        must_trip=False,
        kinds=(),
        status="finished",
        reason=None,
        calls=16,
        naive=16,
    ),
    Scenario(
        "3a",
        "the sweep wraps back to the start",
        "paging loops (everruns #2295)",
        _wrap,
        must_trip=True,
        kinds=("dedup",) * 6 + ("wander", "nudge", "dedup", "dedup", "wander"),
        status="cut_short",
        reason="wander",
        calls=14,
        naive=TURN_BUDGET,
    ),
    Scenario(
        "3b",
        "alternating offsets 0, 100, 0, 100",
        "paging loops (everruns #2295)",
        _alternate,
        must_trip=True,
        kinds=("dedup", "dedup", "cycle", "nudge", "dedup", "cycle"),
        status="cut_short",
        reason="cycle",
        calls=6,
        naive=TURN_BUDGET,
    ),
    Scenario(
        "4",
        "30 different files read one by one",
        "honest work (deer-flow #1987 is its inverse)",
        _thirty,
        must_trip=False,
        kinds=(),
        status="finished",
        reason=None,
        calls=32,
        naive=32,
        config={"max_tool_iters": 40},
    ),
    Scenario(
        "5",
        "five parallel reads of different files in one turn",
        "qwen-code #3236 (tripped on it)",
        _parallel,
        must_trip=False,
        kinds=(),
        status="finished",
        reason=None,
        calls=3,
        naive=3,
    ),
    Scenario(
        "6a",
        "A-B-A-B between two calls",
        "opencode #47759 (missed it)",
        _abab,
        must_trip=True,
        kinds=("dedup", "dedup", "cycle", "nudge", "dedup", "cycle"),
        status="cut_short",
        reason="cycle",
        calls=6,
        naive=TURN_BUDGET,
    ),
    Scenario(
        "6b",
        "A-B-C-A-B-C between three calls",
        "opencode #47759, longer cycle",
        _abc,
        must_trip=True,
        kinds=("dedup", "dedup", "dedup", "cycle", "nudge", "dedup", "dedup", "cycle"),
        status="cut_short",
        reason="cycle",
        calls=9,
        naive=TURN_BUDGET,
    ),
    Scenario(
        "7a",
        "guessing files that are not there, each time another",
        "qwen-code #10887's shape; small local models",
        _storm,
        must_trip=True,
        kinds=("wander", "nudge", "wander"),
        status="cut_short",
        reason="wander",
        calls=8,
        naive=TURN_BUDGET,
    ),
    Scenario(
        "7b",
        "wrong guesses between good reads: corrected, never blinded",
        "a refused path must not withdraw read_file",
        _storm_between,
        must_trip=False,
        kinds=("final_window",),
        status="finished",
        reason=None,
        calls=TURN_BUDGET + 1,
        naive=TURN_BUDGET,
        naive_note="and no findings",
    ),
    Scenario(
        "8",
        "never finishing: useful reads until the turn budget",
        "honest but endless",
        _never_finishes,
        must_trip=False,
        kinds=("final_window",),
        status="finished",
        reason=None,
        calls=TURN_BUDGET + 1,
        naive=TURN_BUDGET,
        naive_note="and no findings",
    ),
    Scenario(
        "9a",
        "finishing without having read anything",
        "invented findings",
        _finish_first,
        must_trip=True,
        kinds=("evidence_retry",) * 3,
        status="no_evidence",
        reason="no_evidence",
        calls=3,
        naive=1,
        naive_note="and invents the findings",
    ),
    Scenario(
        "9b",
        "finishing too early, then reading when told",
        "the gate is no dead end",
        _finish_then_read,
        must_trip=False,
        kinds=("evidence_retry",),
        status="finished",
        reason=None,
        calls=3,
        naive=1,
        naive_note="and invents the findings",
    ),
    Scenario(
        "10a",
        "polling the same listing while nothing changes",
        "polling loops",
        _poll,
        must_trip=True,
        kinds=("dedup", "dedup", "nudge", "dedup", "loop_stop"),
        status="cut_short",
        reason="loop",
        calls=5,
        naive=TURN_BUDGET,
    ),
    Scenario(
        "10b",
        "polling the listing under new spellings",
        "polling loops, exact-repeat checks blind",
        _poll_respelled,
        must_trip=True,
        kinds=("wander", "nudge", "wander"),
        status="cut_short",
        reason="wander",
        calls=9,
        naive=TURN_BUDGET,
    ),
)


# -- playing one ------------------------------------------------------------------


@dataclass
class Played:
    scenario: Scenario
    calls: int
    kinds: list[str]
    status: str
    reason: str | None
    requests: list[dict[str, Any]]  # the explore requests, for transcript checks

    @property
    def verdict(self) -> str:
        return verdict(self.status, self.reason, self.kinds)

    @property
    def false_trip(self) -> bool:
        expected = set(self.scenario.kinds) & LOOP_GUARDS
        return not self.scenario.must_trip and bool(set(self.kinds) & LOOP_GUARDS - expected)

    @property
    def matches(self) -> bool:
        s = self.scenario
        return (self.calls, tuple(self.kinds), self.status, self.reason) == (
            s.calls,
            s.kinds,
            s.status,
            s.reason,
        )


def _model(script: Callable[[int], Turn]) -> Callable[[dict, int], Turn]:
    def model(body: dict, n: int) -> Turn:
        if body.get("tool_choice") == FORCE_FINISH:
            return finish()  # real APIs enforce tool_choice
        return script(n)

    return model


def play(scenario: Scenario, workdir: Path | None = None) -> Played:
    """Run one scenario end to end: fake server, real loop, real tools, real journal."""
    with tempfile.TemporaryDirectory() as tmp:
        base = workdir or Path(tmp)
        folder = build_folder(base / "material")
        with FakeLLM(route(_model(scenario.script))) as llm:
            events = run(config_for(llm, folder, base / "run", **scenario.config))
            requests = explore_requests(llm)
            assert not llm.failures, llm.failures
        done = of_type(events, "done")[-1]
        explore_end = [
            e for e in of_type(events, "milestone") if e.stage == "explore" and e.status == "end"
        ][-1]
        assert done.status in ("ok", "degraded"), done
        return Played(
            scenario,
            len(requests),
            guard_kinds(events),
            explore_end.detail.status,
            explore_end.detail.reason,
            requests,
        )


# -- the table --------------------------------------------------------------------


def table(rows: list[tuple[Scenario, int, str, list[str]]]) -> str:
    """The markdown table of README.md, then the suite's figures, from
    (scenario, calls spent, verdict, guard kinds) per row."""
    lines = [
        "| # | scenario | source | must trip | guards, in order | verdict | model calls | naive loop |",
        "| --- | --- | --- | --- | --- | --- | ---: | ---: |",
    ]
    for s, calls, verdict, kinds in rows:
        naive = f"{s.naive}" + (f" ({s.naive_note})" if s.naive_note else "")
        fired = " → ".join(dict.fromkeys(kinds)) or "none"  # each kind once, first seen first
        lines.append(
            f"| {s.key} | {s.title} | {s.source} | {'yes' if s.must_trip else 'no'} | "
            f"{fired} | {verdict} | {calls} | {naive} |"
        )
    total = sum(calls for _, calls, _, _ in rows)
    naive_total = sum(s.naive for s, _, _, _ in rows)
    lines.append(f"| | **total** | | | | | **{total}** | **{naive_total}** |")
    honest = [(s, kinds) for s, _, _, kinds in rows if not s.must_trip]
    false_trips = sum(1 for s, kinds in honest if set(kinds) & LOOP_GUARDS - set(s.kinds))
    loops = [(s, v) for s, _, v, _ in rows if s.must_trip]
    missed = sum(1 for _, v in loops if v.startswith("finished"))
    lines += [
        "",
        f"Across the suite: **{total}** model calls against **{naive_total}** for a naive "
        f"loop (ratio {total / naive_total:.2f}); false trips: **{false_trips}** of "
        f"{len(honest)} must-not-trip scenarios; loops missed: **{missed}** of {len(loops)}.",
    ]
    return "\n".join(lines)


def expected_table() -> str:
    return table([(s, s.calls, s.verdict, list(s.kinds)) for s in SCENARIOS])
