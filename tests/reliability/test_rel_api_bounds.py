"""Every model call is bounded: max_tokens per role on every request, so a model that
never stops on its own (a small local one) is cut by the server, not waited for."""

from __future__ import annotations

import json
from typing import Any

from agent_helpers import FINISH_ARGS, config_for, of_type, route, run, writer_turn
from fakes import FakeLLM, call, ramble, tool_calls
from labwright.core.run.pipeline import run_agent


def test_a_model_that_never_stops_is_cut_by_max_tokens_and_the_run_ends(material, tmp_path):
    drafts = 0

    def writer(body: dict[str, Any]) -> Any:
        nonlocal drafts
        if writer_turn(body).content.startswith("\\documentclass"):  # a draft is asked
            drafts += 1
            if drafts == 1:
                return ramble()  # the first draft rambles until max_tokens cuts it
        return writer_turn(body)

    script = [
        ramble(),  # an exploration turn of endless text, cut at the explore role's bound
        tool_calls(call("read_file", {"path": "manual.txt"})),
        tool_calls(call("finish_exploration", FINISH_ARGS)),
    ]
    out = tmp_path / "run"
    with FakeLLM(route(script, writer)) as llm:
        config = config_for(llm, material, out, max_tokens={"explore": 40, "write": 60})
        pieces: list[str] = []
        events = list(run_agent(config, on_text=lambda kind, piece: pieces.append(piece)))
        requests = list(llm.requests)
        failures = list(llm.failures)
    assert not failures
    assert events[-1].type == "done" and events[-1].status in ("ok", "degraded")
    assert {r["model"]: r.get("max_tokens") for r in requests} == {
        "fake-explore": 40,
        "fake-write": 60,
    }
    assert all("max_tokens" in r for r in requests)  # every call, none unbounded
    rambles = [e for e in of_type(events, "llm") if e.completion_tokens in (40, 60)]
    assert len(rambles) == 2  # both were answered, cut at their bound, and the run went on
    assert (out / "report.tex").is_file()
    assert pieces.count("more ") == 60  # the rambling draft streamed, token by token, to its cut


def test_unset_roles_send_their_default_bound(material, tmp_path):
    script = [
        tool_calls(call("read_file", {"path": "manual.txt"})),
        tool_calls(call("finish_exploration", FINISH_ARGS)),
    ]
    with FakeLLM(route(script)) as llm:
        run(config_for(llm, material, tmp_path / "run"))
        sent = {r["model"]: r.get("max_tokens") for r in llm.requests}
    assert sent == {"fake-explore": 2048, "fake-write": 8192}
    config = json.loads((tmp_path / "run" / "run.json").read_text())["config"]
    assert config["max_tokens"]["explore"] == 2048 and config["max_tokens"]["fix"] == 8192


def test_the_bounds_have_command_line_options(material, tmp_path, capsys):
    from labwright.cli import main

    out = tmp_path / "run"
    script = [
        tool_calls(call("read_file", {"path": "manual.txt"})),
        tool_calls(call("finish_exploration", FINISH_ARGS)),
    ]
    with FakeLLM(route(script)) as llm:
        args = ["run", str(material), "--out", str(out), "--base-url", llm.base_url]
        args += ["--explore-model", "fake-explore", "--write-model", "fake-write", "--no-compile"]
        args += ["--api-key", "sk-test", "--reflect", "0"]
        args += ["--explore-max-tokens", "300", "--write-max-tokens", "3000"]
        assert main(args) in (0, 10)
        sent = {r["model"]: r.get("max_tokens") for r in llm.requests}
    assert sent == {"fake-explore": 300, "fake-write": 3000}
    tokens = json.loads((out / "run.json").read_text())["config"]["max_tokens"]
    assert tokens == {"explore": 300, "vision": 300, "write": 3000, "reflect": 3000, "fix": 3000}
    assert main(["run", str(material), "--offline", "--write-max-tokens", "0"]) == 2
    assert "--write-max-tokens must be" in capsys.readouterr().err


def test_past_the_time_budget_the_run_ends_degraded_with_what_it_gathered(material, tmp_path):
    now = [1000.0]  # the run's clock, driven by the model's turns: no sleeping, no wall clock

    def explore(body: dict[str, Any], n: int) -> Any:
        now[0] += 10 * 60  # each exploration turn "takes" ten minutes
        return tool_calls(call("read_file", {"path": "manual.txt", "offset": n * 2, "limit": 2}))

    out = tmp_path / "run"
    with FakeLLM(route(explore)) as llm:
        config = config_for(llm, material, out, max_minutes=25, max_tool_iters=20)
        events = list(run_agent(config, clock=lambda: now[0]))
        explore_calls = sum(r["model"] == "fake-explore" for r in llm.requests)
        write_calls = sum(r["model"] == "fake-write" for r in llm.requests)
    meta = json.loads((out / "run.json").read_text())
    assert explore_calls == 3  # 30 min > 25: stopped after the third turn, not at the 20th
    assert write_calls == 0  # no model work past the limit: the draft is built from the findings
    assert events[-1].status == "degraded" and meta["status"] == "degraded"
    assert "time_up" in meta["reasons"]
    assert meta["config"]["max_minutes"] == 25
    stops = [e.detail for e in of_type(events, "guard") if e.kind == "budget"]
    assert stops and "Time budget reached (30.0 min of 25.0 min)" in stops[0]
    assert (out / "report.tex").is_file() and (out / "evidence.jsonl").read_text().strip()


def test_max_minutes_on_the_command_line(material, tmp_path, capsys):
    from labwright.cli import main

    out = tmp_path / "run"
    assert (
        main(["run", str(material), "--offline", "--out", str(out), "--max-minutes", "7.5"]) == 10
    )
    assert json.loads((out / "run.json").read_text())["config"]["max_minutes"] == 7.5
    assert main(["run", str(material), "--offline", "--max-minutes", "0"]) == 2
    assert "max_minutes must be a positive number of minutes" in capsys.readouterr().err
