"""Every guard of the exploration loop, end to end through the fake model server."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from agent_helpers import (
    FINISH_ARGS,
    FORCE_FINISH,
    config_for,
    executed,
    explore_requests,
    findings,
    guard_kinds,
    of_type,
    route,
    run,
)
from fakes import FakeLLM, call, hang, http_error, text, tool_calls
from labwright.core.settings.config import GuardLimits


def read(path: str, **kw) -> object:
    return tool_calls(call("read_file", {"path": path, **kw}))


def finish(**kw) -> object:
    return tool_calls(call("finish_exploration", {**FINISH_ARGS, **kw}))


def done(events):
    return of_type(events, "done")[-1]


def test_model_that_always_repeats_one_read_is_stopped(material, tmp_path):
    with FakeLLM(route(lambda body, n: read("data/pendulum.csv"))) as llm:
        events = run(config_for(llm, material, tmp_path / "run"))
        calls = len(explore_requests(llm))
    assert calls <= 6
    assert len(executed(events, "read_file")) == 1  # the tool itself ran once
    assert len(of_type(events, "tool_call")) == len(of_type(events, "tool_result"))
    kinds = guard_kinds(events)
    assert kinds.count("nudge") == 1
    assert kinds[-1] == "loop_stop"
    assert "dedup" in kinds
    assert done(events).status == "degraded"
    f = findings(tmp_path / "run")
    assert f["status"] == "cut_short" and f["reason"] == "loop"
    assert f["files_read"] == ["data/pendulum.csv"]
    assert f["key_findings"] == [] and f["experiment"] is None  # nothing invented
    assert f["gathered"][0]["path"] == "data/pendulum.csv"


def test_paging_forward_through_a_long_file_trips_no_guard(material, tmp_path):
    script = [read("data/log.txt", offset=o, limit=200) for o in range(0, 1000, 200)] + [finish()]
    with FakeLLM(route(script)) as llm:
        events = run(config_for(llm, material, tmp_path / "run"))
    assert guard_kinds(events) == []
    assert len(executed(events, "read_file")) == 5
    assert done(events).status == "ok"
    assert findings(tmp_path / "run")["status"] == "finished"


def test_dedup_returns_the_earlier_result_without_running_again(material, tmp_path):
    script = [read("manual.txt"), read("manual.txt"), finish()]
    with FakeLLM(route(script)) as llm:
        events = run(config_for(llm, material, tmp_path / "run"))
        third = llm.requests[2]["messages"]
    assert guard_kinds(events) == ["dedup"]
    results = [e for e in of_type(events, "tool_result") if e.name == "read_file"]
    assert [r.cached for r in results] == [False, True]
    assert results[1].ok  # a repeat is not a failure
    assert "not run again" in third[-1]["content"] and "Simple pendulum" in third[-1]["content"]
    assert done(events).status == "ok"


def test_nudge_comes_once_at_the_third_repeat(material, tmp_path):
    script = (
        [read("manual.txt")] * 3 + [read("data/pendulum.csv")] + [read("manual.txt")] + [finish()]
    )
    with FakeLLM(route(script)) as llm:
        events = run(config_for(llm, material, tmp_path / "run"))
        fourth = llm.requests[3]["messages"]
    kinds = guard_kinds(events)
    assert kinds.count("nudge") == 1
    assert kinds.index("nudge") > kinds.index("dedup")
    assert fourth[-1]["role"] == "user" and "finish_exploration" in fourth[-1]["content"]
    assert "manual.txt" in fourth[-1]["content"]  # says where things stand
    assert done(events).status == "ok"  # the 4th repeat is still below the stop


def test_failure_breaker_withdraws_a_tool_after_three_crashes(material, tmp_path, crashing_reader):
    script = [
        read("manual.txt"),
        read("data/crash1.csv"),
        read("data/crash2.csv"),
        read("data/crash3.csv"),
        read("data/pendulum.csv"),
        finish(),
    ]
    with FakeLLM(route(script)) as llm:
        events = run(config_for(llm, material, tmp_path / "run"))
        offered = [llm.tool_names(i) for i in range(len(explore_requests(llm)))]
    assert "tool_disabled" in guard_kinds(events)
    assert "read_file" in offered[3] and "read_file" not in offered[4]
    refused = [e for e in of_type(events, "tool_result") if e.name == "read_file"][-1]
    assert not refused.ok  # the withdrawn tool is not run again
    crashed = [e for e in of_type(events, "tool_result") if "RuntimeError" in e.summary]
    assert len(crashed) == 3 and len(executed(events, "read_file")) == 1


def test_a_success_resets_the_failure_count(material, tmp_path, crashing_reader):
    script = [
        read("data/crash1.csv"),
        read("data/crash2.csv"),
        read("manual.txt"),
        read("data/crash3.csv"),
        finish(),
    ]
    with FakeLLM(route(script)) as llm:
        events = run(config_for(llm, material, tmp_path / "run"))
    assert "tool_disabled" not in guard_kinds(events)


def test_guessed_and_refused_paths_are_corrected_and_never_withdraw_a_tool(material, tmp_path):
    # A small local model's first calls: absolute paths from its training data, and
    # what a planted file might ask for. Each is answered with what is there.
    script = [
        read("/Users/your_username/lab/data/pendulum.csv"),
        read("../../etc/passwd"),
        read("pendulum.csv"),
        tool_calls(call("list_dir", {"path": "/home/user/experiment"})),
        tool_calls(call("list_dir", {"path": "dat"})),
        tool_calls(call("read_file", {"path": "data/pendulum.csv", "offset": "x"})),
        read("data/pendulum.csv"),
        finish(),
    ]
    with FakeLLM(route(script)) as llm:
        events = run(config_for(llm, material, tmp_path / "run"))
        answers = [r["messages"][-1]["content"] for r in explore_requests(llm)[1:]]
        offered = [llm.tool_names(i) for i in range(len(explore_requests(llm)))]
    kinds = guard_kinds(events)
    assert "tool_disabled" not in kinds and "error_storm" not in kinds
    assert all("read_file" in names and "list_dir" in names for names in offered)
    assert "Closest real paths: data/pendulum.csv" in answers[0]  # the tail was right
    assert "Closest real paths: data/pendulum.csv" in answers[2]  # the name was right
    assert "data/" in answers[3]  # the top level, for a folder that is not there
    assert "Closest real paths: data/" in answers[4]
    results = [e for e in of_type(events, "tool_result") if e.name == "read_file"]
    assert [r.ok for r in results] == [False, False, False, False, True]
    assert done(events).status == "ok"
    assert findings(tmp_path / "run")["files_read"] == ["data/pendulum.csv"]


def test_evidence_gate_refuses_twice_then_ends_with_nothing_invented(material, tmp_path):
    with FakeLLM(route(lambda body, n: finish())) as llm:
        events = run(config_for(llm, material, tmp_path / "run"))
        calls = len(explore_requests(llm))
    assert calls == 3
    assert guard_kinds(events) == ["evidence_retry"] * 3
    assert done(events).status == "degraded"
    assert done(events).reasons == ["no_evidence"]
    f = findings(tmp_path / "run")
    assert f["status"] == "no_evidence"
    assert f["experiment"] is None and f["key_findings"] == [] and f["files_read"] == []


def test_finish_after_reading_in_the_same_turn_is_accepted(material, tmp_path):
    both = tool_calls(
        call("read_file", {"path": "manual.txt"}), call("finish_exploration", FINISH_ARGS)
    )
    with FakeLLM(route([both])) as llm:
        events = run(config_for(llm, material, tmp_path / "run"))
    assert guard_kinds(events) == []
    assert findings(tmp_path / "run")["experiment"] == "Simple pendulum"


def _pager(body, n):
    """Reads forward forever; obeys a forced finish."""
    if body.get("tool_choice") == FORCE_FINISH:
        return finish()
    return read("data/log.txt", offset=n * 10, limit=10)


def test_final_window_forces_finish_once_evidence_exists(material, tmp_path):
    with FakeLLM(route(_pager)) as llm:
        events = run(config_for(llm, material, tmp_path / "run", max_tool_iters=3))
        choices = [llm.tool_choice(i) for i in range(len(explore_requests(llm)))]
    assert choices == ["auto", "auto", "auto", FORCE_FINISH]
    assert guard_kinds(events) == ["final_window"]
    assert done(events).status == "ok"


def test_final_window_then_hard_stop_when_the_model_ignores_it(material, tmp_path):
    with FakeLLM(route(lambda body, n: read("data/log.txt", offset=n * 10, limit=10))) as llm:
        events = run(config_for(llm, material, tmp_path / "run", max_tool_iters=3))
        calls = len(explore_requests(llm))
    assert calls == 3 + 2
    assert guard_kinds(events) == ["final_window", "tool_choice_fallback", "iteration_cap"]
    assert done(events).status == "degraded" and done(events).reasons == ["iteration_cap"]
    assert findings(tmp_path / "run")["files_read"] == ["data/log.txt"]


def test_final_window_keeps_tools_open_without_evidence(material, tmp_path):
    def model(body, n):
        return tool_calls(call("list_dir", {"path": "." if n % 2 else "data"}))

    with FakeLLM(route(model)) as llm:
        run(
            config_for(
                llm,
                material,
                tmp_path / "run",
                max_tool_iters=2,
                guards=GuardLimits(nudge_at=10, stop_at=11),
            )
        )
        choices = [llm.tool_choice(i) for i in range(len(explore_requests(llm)))]
    assert choices == ["auto"] * 4


def test_parallel_batch_returns_results_in_call_order(material, tmp_path):
    for i in range(5):
        (material / f"f{i}.txt").write_text(f"file {i}\n" * (200 * (5 - i)), encoding="utf-8")
    batch = tool_calls(*[call("read_file", {"path": f"f{i}.txt"}, id=f"c{i}") for i in range(5)])
    with FakeLLM(route([batch, finish()])) as llm:
        events = run(config_for(llm, material, tmp_path / "run"))
        second = llm.requests[1]["messages"]
    assert [e.call_id for e in of_type(events, "tool_result")][:5] == [f"c{i}" for i in range(5)]
    tool_msgs = [m for m in second if m["role"] == "tool"]
    assert [m["tool_call_id"] for m in tool_msgs] == [f"c{i}" for i in range(5)]
    assert all(f"file {i}" in m["content"] for i, m in enumerate(tool_msgs))
    assert guard_kinds(events) == []


def test_identical_calls_in_one_batch_run_once(material, tmp_path):
    twice = tool_calls(
        call("read_file", {"path": "manual.txt"}), call("read_file", {"path": "manual.txt"})
    )
    with FakeLLM(route([twice, finish()])) as llm:
        events = run(config_for(llm, material, tmp_path / "run"))
    assert len(executed(events, "read_file")) == 1
    assert guard_kinds(events) == ["dedup"]


def test_rereading_covered_lines_is_flagged_not_productive(material, tmp_path):
    script = [
        read("data/log.txt", offset=0, limit=100),
        read("data/log.txt", offset=10, limit=20),
        finish(),
    ]
    with FakeLLM(route(script)) as llm:
        events = run(config_for(llm, material, tmp_path / "run"))
    assert guard_kinds(events) == ["reread"]
    second = [e for e in of_type(events, "tool_result") if e.name == "read_file"][1]
    assert second.ok and not second.productive


@pytest.mark.parametrize(
    "path",
    [
        "../secret.txt",
        "data/../../secret.txt",
        "/etc/passwd",
        "C:\\Windows\\win.ini",
        "C:secret.txt",
        "\\\\server\\share\\x.txt",
        "//server/share/x.txt",
        "link-out.txt",
        "linkdir/secret.txt",
    ],
)
def test_every_path_escape_is_refused_and_the_model_told(material, tmp_path, path):
    outside = tmp_path / "secret.txt"
    outside.write_text("TOP SECRET", encoding="utf-8")
    os.symlink(outside, material / "link-out.txt")
    os.symlink(tmp_path, material / "linkdir")
    before = sorted(p.name for p in material.rglob("*"))
    with FakeLLM(route([read(path), read("manual.txt"), finish()])) as llm:
        events = run(config_for(llm, material, tmp_path / "run"))
        second = llm.requests[1]["messages"]
    assert guard_kinds(events) == ["path_denied"]
    first = of_type(events, "tool_result")[0]
    assert not first.ok
    reply = second[-1]["content"]
    assert "TOP SECRET" not in reply and "relative" in reply.lower()
    assert not any(
        "TOP SECRET" in line
        for line in (tmp_path / "run" / "events.jsonl").read_text().splitlines()
    )
    assert sorted(p.name for p in material.rglob("*")) == before
    assert done(events).status == "ok"  # the model corrected itself


def test_bad_arguments_and_unknown_tools_are_tool_errors(material, tmp_path):
    script = [
        tool_calls(call("read_file", '{"path": ')),
        tool_calls(call("delete_everything", {})),
        read("manual.txt"),
        finish(),
    ]
    with FakeLLM(route(script)) as llm:
        events = run(config_for(llm, material, tmp_path / "run"))
        msgs = llm.requests[2]["messages"]
    results = of_type(events, "tool_result")
    assert [r.ok for r in results[:2]] == [False, False]
    assert "not valid JSON" in msgs[-3]["content"] or "not valid JSON" in json.dumps(msgs)
    assert "unknown tool" in msgs[-1]["content"]
    assert done(events).status == "ok"


def test_a_text_answer_gets_a_reminder_to_use_tools(material, tmp_path):
    with FakeLLM(route([text("I think it is a pendulum."), read("manual.txt"), finish()])) as llm:
        events = run(config_for(llm, material, tmp_path / "run"))
        second = llm.requests[1]["messages"]
    assert second[-1]["role"] == "user" and "finish_exploration" in second[-1]["content"]
    assert done(events).status == "ok"


def test_rate_limit_is_retried_and_usage_is_accounted(material, tmp_path):
    script = [http_error(429, retry_after=0.01), read("manual.txt"), finish()]
    with FakeLLM(route(script)) as llm:
        events = run(config_for(llm, material, tmp_path / "run"))
        calls = len(explore_requests(llm))
    assert calls == 3
    llm_events = [e for e in of_type(events, "llm") if e.role == "explore"]
    assert len(llm_events) == 2  # the 429 was retried inside the client, not a turn
    meta = json.loads((tmp_path / "run" / "run.json").read_text())
    assert meta["usage"]["explore"]["calls"] == 2
    assert meta["usage"]["explore"]["prompt_tokens"] == sum(e.prompt_tokens for e in llm_events)
    assert meta["status"] == "ok"


def test_token_budget_stops_exploration(material, tmp_path):
    def model(body, n):
        return read("data/log.txt", offset=n * 10, limit=10)

    with FakeLLM(route(model)) as llm:
        events = run(config_for(llm, material, tmp_path / "run", budget_tokens=50))
        calls = len(explore_requests(llm))
    assert calls == 4  # 15 tokens a call: warned at 45 (>= 90 %), stopped at 60
    assert guard_kinds(events) == ["budget", "budget"]
    assert done(events).reasons == ["budget"]


def test_server_unreachable_fails_the_run_with_a_clear_message(material, tmp_path):
    from labwright.core.settings.config import RunConfig

    config = RunConfig(
        folder=material,
        out_dir=tmp_path / "run",
        base_url="http://127.0.0.1:9/v1",
        api_key="sk-test",
        max_retries=0,
        request_timeout_s=2,
    )
    events = run(config)
    err = of_type(events, "error")[0]
    assert "Cannot reach" in err.message and "sk-test" not in err.message
    assert done(events).status == "failed"


def test_the_api_key_reaches_no_file(material, tmp_path):
    with FakeLLM(route([read("manual.txt"), finish()])) as llm:
        config = config_for(llm, material, tmp_path / "run")
        run(config)
        assert llm.headers[0]["authorization"] == f"Bearer {config.api_key}"
    for path in (tmp_path / "run").rglob("*"):
        if path.is_file():
            assert config.api_key not in path.read_text(encoding="utf-8", errors="replace")
    assert config.api_key not in repr(config)


# -- guards beyond exact repeats (issue 7) -------------------------------------------


def ls(path: str = ".") -> object:
    return tool_calls(call("list_dir", {"path": path}))


def test_a_b_a_b_cycle_is_nudged_then_stopped(material, tmp_path):
    def model(body, n):
        return ls("data") if n % 2 == 0 else read("manual.txt")

    with FakeLLM(route(model)) as llm:
        events = run(config_for(llm, material, tmp_path / "run"))
        requests = explore_requests(llm)
    assert len(requests) == 6  # a naive loop would go on to its 20-turn budget
    kinds = guard_kinds(events)
    assert kinds == ["dedup", "dedup", "cycle", "nudge", "dedup", "cycle"]
    nudge = requests[4]["messages"][-1]
    assert nudge["role"] == "user" and "went round 2 times" in nudge["content"]
    assert "finish_exploration" in nudge["content"]
    assert done(events).status == "degraded" and done(events).reasons == ["cycle"]
    f = findings(tmp_path / "run")
    assert f["reason"] == "cycle" and f["files_read"] == ["manual.txt"]


def test_wandering_through_listings_already_seen_is_nudged_then_stopped(material, tmp_path):
    # ".", "./.", "././." ...: every call has new arguments, none brings anything new.
    with FakeLLM(route(lambda body, n: ls("." + "/." * n))) as llm:
        events = run(config_for(llm, material, tmp_path / "run"))
        requests = explore_requests(llm)
    assert len(requests) == 9
    assert guard_kinds(events) == ["wander", "nudge", "wander"]
    assert "nothing new" in requests[7]["messages"][-1]["content"]
    results = [e for e in of_type(events, "tool_result") if e.name == "list_dir"]
    assert results[0].productive and not any(r.productive for r in results[1:])
    assert done(events).reasons == ["wander"]


def test_rereads_and_errors_count_as_wandering_forward_pages_do_not(material, tmp_path):
    script = [read("data/log.txt", offset=0, limit=100)]
    script += [read("data/log.txt", offset=o, limit=10) for o in (0, 10, 20)]  # re-reads
    script += [read(f"missing{i}.csv") for i in range(2)]  # errors
    script += [read("data/log.txt", offset=100 + 10 * i, limit=10) for i in range(5)]  # new
    script += [finish()]
    limits = GuardLimits(nudge_at=10, stop_at=11, failure_limit=5, wander_nudge_at=5)
    with FakeLLM(route(script)) as llm:
        events = run(config_for(llm, material, tmp_path / "run", guards=limits))
    assert guard_kinds(events) == ["reread", "reread", "reread", "wander", "nudge"]
    assert done(events).status == "ok"  # nudged, not stopped: the model moved forward again


def test_an_error_storm_between_successes_withdraws_the_tool(material, tmp_path, crashing_reader):
    def model(body, n):
        if n % 2 == 0:
            return read(f"results/crash_{n}.csv")
        return read("data/log.txt", offset=n * 10, limit=10)

    script = [model(None, n) for n in range(9)] + [read("manual.txt"), finish()]
    with FakeLLM(route(script)) as llm:
        events = run(config_for(llm, material, tmp_path / "run"))
        offered = [llm.tool_names(i) for i in range(len(explore_requests(llm)))]
        told = llm.requests[9]["messages"][-1]["content"]
    kinds = guard_kinds(events)
    # Never 3 failures in a row: the consecutive breaker alone is blind to it. The call to
    # the withdrawn tool is the 6th idle call of the last 10: wandering, nudged.
    assert kinds == ["error_storm", "wander", "nudge"]
    assert "read_file" in offered[8] and "read_file" not in offered[9]
    assert "withdrawn" in told and "finish_exploration" in told
    refused = [e for e in of_type(events, "tool_result") if e.name == "read_file"][-1]
    assert not refused.ok
    assert done(events).status == "ok"


PRICED = {
    "fake-explore": {"prompt": 2200.0, "completion": 2200.0},  # $0.033 per fake call (15 tokens)
    "fake-write": {"prompt": 0.0, "completion": 0.0},
}


def test_money_budget_warns_at_90_percent_then_stops(material, tmp_path):
    def model(body, n):
        return read("data/log.txt", offset=n * 10, limit=10)

    with FakeLLM(route(model)) as llm:
        config = config_for(llm, material, tmp_path / "run", prices=PRICED, budget_usd=0.1)
        events = run(config)
        requests = explore_requests(llm)
    assert len(requests) == 4  # $0.099 after 3 calls: warned; $0.132 after 4: stopped
    budget = [e.detail for e in of_type(events, "guard") if e.kind == "budget"]
    assert budget[0].startswith("90% of the money budget used ($0.0990")
    assert budget[1].startswith("Money budget reached ($0.1320 of $0.1000)")
    # The wrap-up comes after the tool results, as the API wants.
    last = requests[3]["messages"]
    assert last[-2]["role"] == "tool" and last[-1]["role"] == "user"
    assert "Wrap up" in last[-1]["content"]
    assert done(events).reasons == ["budget"]
    meta = json.loads((tmp_path / "run" / "run.json").read_text())
    assert meta["config"]["prices"] == PRICED and meta["config"]["budget_usd"] == 0.1


def test_exploration_token_budget_stops_the_stage(material, tmp_path):
    def model(body, n):
        return read("data/log.txt", offset=n * 10, limit=10)

    with FakeLLM(route(model)) as llm:
        events = run(config_for(llm, material, tmp_path / "run", explore_budget_tokens=50))
        calls = len(explore_requests(llm))
        wrote = len(llm.requests) - calls
    assert calls == 4
    kinds = guard_kinds(events)
    assert kinds == ["budget", "budget"]
    assert "Exploration token budget reached" in of_type(events, "guard")[-1].detail
    assert wrote >= 1  # a stage budget ends the stage, not the run: the draft is still written
    assert done(events).reasons == ["budget"]


def test_the_transcript_after_a_trip_has_repeats_collapsed(material, tmp_path):
    script = [read("manual.txt")] * 3 + [read("data/pendulum.csv"), finish()]
    with FakeLLM(route(script)) as llm:
        events = run(config_for(llm, material, tmp_path / "run"))
        before, after, last = (explore_requests(llm)[i]["messages"] for i in (2, 3, 4))
    assert guard_kinds(events) == ["dedup", "dedup", "nudge"]

    def tool_contents(messages):
        return {m["tool_call_id"]: m["content"] for m in messages if m["role"] == "tool"}

    # Before the trip the model still gets the dedup message with its way out.
    assert "not run again" in tool_contents(before)["call_2"]
    # After it, the repeats are one-line stubs; the first pair is whole.
    tools = tool_contents(after)
    assert "Simple pendulum" in tools["call_1"]
    for repeat in ("call_2", "call_3"):
        assert tools[repeat].startswith("[repeat of call call_1") and "\n" not in tools[repeat]
    assert "not run again" not in json.dumps(after)
    # Every tool call keeps its answer, right after it.
    for messages in (after, last):
        calls = [c["id"] for m in messages if m["role"] == "assistant" for c in m["tool_calls"]]
        assert calls == list(tool_contents(messages))
    assert "period_s" in tool_contents(last)["call_4"]  # new results are never collapsed
    assert done(events).status == "ok"


def test_broken_calls_repeated_are_stopped_with_an_event(material, tmp_path):
    with FakeLLM(route(lambda body, n: tool_calls(call("read_file", '{"path": ')))) as llm:
        events = run(config_for(llm, material, tmp_path / "run"))
        calls = len(explore_requests(llm))
    assert calls <= 6
    kinds = guard_kinds(events)
    # broken arguments are the model's mistake: answered, never a withdrawn tool
    assert "tool_disabled" not in kinds and kinds[-1] in ("loop_stop", "wander")
    assert len(of_type(events, "tool_call")) == len(of_type(events, "tool_result"))
    assert done(events).status == "degraded"


# -- forced tool choice: servers that reject it or ignore it --------------------------------


def _pages(n: int) -> object:
    return read("data/log.txt", offset=n * 10, limit=10)


@pytest.mark.parametrize("status", [400, 500])
def test_a_server_that_rejects_forced_tool_choice_gets_words_instead(material, tmp_path, status):
    # llama.cpp's server answers tool_choice with HTTP 500; others with 400.
    def model(body, n):
        if body.get("tool_choice") == FORCE_FINISH:
            return http_error(status, "tool_choice is not supported")
        if "only call left" in body["messages"][-1]["content"]:
            return finish()
        return _pages(n)

    with FakeLLM(route(model)) as llm:
        events = run(config_for(llm, material, tmp_path / "run", max_tool_iters=3))
        requests = explore_requests(llm)
        choices = [llm.tool_choice(i) for i in range(len(requests))]
    kinds = guard_kinds(events)
    assert kinds == ["final_window", "tool_choice_fallback"]
    fallback = of_type(events, "guard")[-1]
    assert "tool_choice is not supported" in fallback.detail and fallback.turn == 4
    # the forced request failed (and was retried as the client does), then the same turn
    # was asked again without the forced choice, the instruction last
    assert FORCE_FINISH in choices and choices[-1] == "auto"
    assert "finish_exploration now" in requests[-1]["messages"][-1]["content"]
    assert done(events).status == "ok"
    assert findings(tmp_path / "run")["status"] == "finished"


def test_a_model_that_ignores_forced_tool_choice_is_told_once_then_the_window_ends(
    material, tmp_path
):
    with FakeLLM(route(lambda body, n: _pages(n))) as llm:  # never finishes, forced or not
        events = run(config_for(llm, material, tmp_path / "run", max_tool_iters=3))
        requests = explore_requests(llm)
        choices = [llm.tool_choice(i) for i in range(len(requests))]
    kinds = guard_kinds(events)
    assert kinds == ["final_window", "tool_choice_fallback", "iteration_cap"]
    assert choices == ["auto", "auto", "auto", FORCE_FINISH, "auto"]  # forced once, then words
    assert "only call left" in requests[4]["messages"][-1]["content"]
    assert done(events).status == "degraded"
    assert findings(tmp_path / "run")["reason"] == "iteration_cap"


def test_a_model_that_honours_forced_tool_choice_needs_no_fallback(material, tmp_path):
    def model(body, n):
        return finish() if body.get("tool_choice") == FORCE_FINISH else _pages(n)

    with FakeLLM(route(model)) as llm:
        events = run(config_for(llm, material, tmp_path / "run", max_tool_iters=3))
    assert guard_kinds(events) == ["final_window"]
    assert done(events).status == "ok"


# -- tool_choice "auto": servers that need it, servers that reject it ------------------------


def test_a_server_that_drops_the_tools_without_tool_choice_auto_is_sent_it(material, tmp_path):
    # llama-cpp-python's chatml-function-calling leaves the tools out of the prompt unless
    # tool_choice is "auto" (or forced): without it the model can only answer in text.
    def model(body, n):
        if body.get("tool_choice") is None:
            return text("I would read data/log.txt first.")
        return finish() if n >= 1 else _pages(n)

    with FakeLLM(route(model)) as llm:
        events = run(config_for(llm, material, tmp_path / "run"))
        choices = [llm.tool_choice(i) for i in range(len(explore_requests(llm)))]
    assert choices == ["auto", "auto"]
    assert "no_tool_call" not in guard_kinds(events)
    assert done(events).status == "ok"


def test_a_server_that_rejects_tool_choice_auto_is_asked_without_it(material, tmp_path):
    def model(body, n):
        if "tool_choice" in body:
            return http_error(400, "Unrecognized request argument supplied: tool_choice")
        return finish() if len(body["messages"]) > 2 else _pages(n)

    with FakeLLM(route(model)) as llm:
        events = run(config_for(llm, material, tmp_path / "run"))
        choices = [llm.tool_choice(i) for i in range(len(explore_requests(llm)))]
    # rejected once, then never sent again: the turn itself is asked again without it
    assert choices == ["auto", None, None]
    assert of_type(events, "error") == []
    assert done(events).status == "ok"
    assert findings(tmp_path / "run")["files_read"] == ["data/log.txt"]


def test_a_tool_turn_goes_back_with_text_content_never_null(material, tmp_path):
    # llama-cpp-python's server validates an assistant message's content as a string:
    # a null beside tool_calls is answered with HTTP 500 and the run could not go on.
    def model(body, n):
        if any(m["role"] == "assistant" and m.get("content") is None for m in body["messages"]):
            return http_error(500, "validation error: Input should be a valid string")
        return finish() if n >= 1 else _pages(n)

    with FakeLLM(route(model)) as llm:
        events = run(config_for(llm, material, tmp_path / "run"))
        sent = explore_requests(llm)[-1]["messages"]
    assert [m["content"] for m in sent if m["role"] == "assistant"] == [""]
    assert done(events).status == "ok"


def test_a_model_that_answered_then_hangs_ends_degraded_with_a_skeleton(material, tmp_path):
    # A weak local model guesses paths (nothing read), then a call runs away past its
    # deadline (llama-cpp-python ignores max_tokens while writing a tool call's arguments).
    # The model did answer: the run ends degraded with a skeleton, it does not fail.
    script = [tool_calls(call("read_file", {"path": "{file_name}.csv"})), hang()]
    with FakeLLM(route(script)) as llm:
        events = run(config_for(llm, material, tmp_path / "run", explore_deadline_s=1.0))
    assert guard_kinds(events) == ["deadline"]
    assert done(events).status == "degraded" and "model_error" in done(events).reasons
    f = findings(tmp_path / "run")
    assert f["status"] == "cut_short" and f["files_read"] == []
    meta = json.loads((tmp_path / "run" / "run.json").read_text())
    assert meta["skeleton"] is True  # nothing read: nothing written as fact


def test_nothing_read_asks_the_write_model_nothing(tmp_path):
    # A weak model that never reads a file: the draft is a skeleton, and the gap check
    # (minutes of a slow local model) would only say that nothing supports anything.
    example = Path(__file__).resolve().parents[1] / "examples" / "pendulum"
    folder = shutil.copytree(example, tmp_path / "pendulum")  # its manual lists requirements
    with FakeLLM(route(lambda body, n: text("I think the pendulum is fine."))) as llm:
        events = run(config_for(llm, folder, tmp_path / "run"))
        asked = [r["model"] for r in llm.requests]
    assert set(asked) == {"fake-explore"}
    assert done(events).status == "degraded" and "no_tool_call" in done(events).reasons
    gaps = json.loads((tmp_path / "run" / "gaps.json").read_text())
    assert gaps and all(g["supported"] is None for g in gaps)
    assert json.loads((tmp_path / "run" / "run.json").read_text())["skeleton"] is True
