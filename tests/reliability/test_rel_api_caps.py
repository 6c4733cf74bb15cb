"""Bounded work: at most N tool calls per turn and M figures per run, each with a guard."""

from __future__ import annotations

import json
import time

from agent_helpers import FINISH_ARGS, config_for, executed, guard_kinds, of_type, route, run
from canary import SECRET_KEY, leaks
from fakes import FakeLLM, call, tool_calls
from labwright.core.settings.config import GuardLimits

TINY_PLOT = "import matplotlib.pyplot as plt\nplt.plot([0, 1], [0, {i}])\n"


def figure(i: int) -> object:
    return call(
        "make_figure",
        {"code": TINY_PLOT.format(i=i), "filename": f"fig{i}", "caption": f"Figure {i}"},
    )


def answered_ids(messages: list[dict]) -> tuple[list[str], list[str]]:
    """Ids of the tool calls the transcript lists, and of the tool messages answering them."""
    asked = [
        c["id"] for m in messages if m["role"] == "assistant" for c in m.get("tool_calls") or []
    ]
    answered = [m["tool_call_id"] for m in messages if m["role"] == "tool"]
    return asked, answered


def test_a_turn_of_a_thousand_figures_runs_only_the_per_turn_cap(
    material, tmp_path, guarded_folder
):
    folder = guarded_folder(material)
    cap = 3  # the default is 8; each figure is a sandboxed process of a few seconds
    script = [
        tool_calls(*(figure(i) for i in range(1000))),
        tool_calls(call("read_file", {"path": "manual.txt"})),
        tool_calls(call("finish_exploration", FINISH_ARGS)),
    ]
    start = time.monotonic()
    with FakeLLM(route(script)) as llm:
        config = config_for(
            llm,
            folder,
            tmp_path / "run",
            api_key=SECRET_KEY,
            guards=GuardLimits(max_calls_per_turn=cap),
        )
        events = run(config)
        second = llm.requests[1]["messages"]
    took = time.monotonic() - start

    assert len(executed(events, "make_figure")) == cap
    assert len(of_type(events, "tool_call")) == cap + 2  # the dropped ones never ran
    assert guard_kinds(events).count("call_cap") == 1
    cap_guard = next(e for e in of_type(events, "guard") if e.kind == "call_cap")
    assert "1000" in cap_guard.detail and str(1000 - cap) in cap_guard.detail
    assert len(list((tmp_path / "run" / "figures").glob("*.pdf"))) == cap
    # the API's rule: every call the transcript lists has its tool message, in order
    asked, answered = answered_ids(second)
    assert asked == answered and len(asked) == cap
    assert f"at most {cap} calls per turn" in second[-1]["content"]  # the model is told
    assert events[-1].status == "ok"
    assert took < 120  # ~700 figures in 500 s before the cap
    assert leaks([tmp_path / "run"], [SECRET_KEY]) == []


def test_figures_past_the_run_cap_are_answered_not_run(material, tmp_path, guarded_folder):
    folder = guarded_folder(material)
    limits = GuardLimits(max_figures=2)
    script = [
        tool_calls(call("read_file", {"path": "manual.txt"}), figure(1), figure(2), figure(3)),
        tool_calls(figure(4)),  # not offered any more, asked anyway
        tool_calls(call("finish_exploration", FINISH_ARGS)),
    ]
    with FakeLLM(route(script)) as llm:
        events = run(config_for(llm, folder, tmp_path / "run", guards=limits))
        offered = [llm.tool_names(i) for i in range(3)]
        second = llm.requests[1]["messages"]
        third = llm.requests[2]["messages"]

    assert len(executed(events, "make_figure")) == 2
    assert guard_kinds(events).count("figure_cap") == 2
    refused = [e for e in of_type(events, "tool_result") if e.name == "make_figure" and not e.ok]
    assert [e.summary for e in refused] == ["figure limit reached (2)"] * 2
    assert "figure limit reached" in second[-1]["content"]
    assert "figure limit reached" in third[-1]["content"]
    assert "make_figure" in offered[0] and "make_figure" not in offered[1]
    assert sorted(p.name for p in (tmp_path / "run" / "figures").glob("*.pdf")) == [
        "fig1.pdf",
        "fig2.pdf",
    ]
    findings = json.loads((tmp_path / "run" / "findings.json").read_text())
    assert [f["filename"] for f in findings["figures"]] == ["fig1", "fig2"]
    assert events[-1].status == "ok"


def test_the_caps_are_part_of_the_run_configuration(material, tmp_path):
    with FakeLLM(route([tool_calls(call("finish_exploration", FINISH_ARGS))] * 5)) as llm:
        config = config_for(llm, material, tmp_path / "run", guards=GuardLimits(max_figures=3))
        run(config)
    guards = json.loads((tmp_path / "run" / "run.json").read_text())["config"]["guards"]
    assert guards["max_figures"] == 3 and guards["max_calls_per_turn"] == 8  # the default


def test_the_limits_have_command_line_options(material, tmp_path, capsys):
    from labwright.cli import main

    out = tmp_path / "run"
    with FakeLLM(route([tool_calls(call("finish_exploration", FINISH_ARGS))] * 5)) as llm:
        args = ["run", str(material), "--out", str(out), "--base-url", llm.base_url]
        args += ["--explore-model", "fake-explore", "--write-model", "fake-write", "--no-compile"]
        args += ["--api-key", "sk-test", "--reflect", "0"]
        args += ["--explore-deadline", "42", "--write-deadline", "99.5"]
        args += ["--max-calls-per-turn", "5", "--max-figures", "2"]
        assert main(args) in (0, 10)
    config = json.loads((out / "run.json").read_text())["config"]
    assert config["explore_deadline_s"] == 42 and config["write_deadline_s"] == 99.5
    assert config["guards"]["max_calls_per_turn"] == 5 and config["guards"]["max_figures"] == 2
    for bad in (["--max-figures", "0"], ["--write-deadline", "-1"]):
        assert main(["run", str(material), "--offline", *bad]) == 2
    assert "must be" in capsys.readouterr().err


def test_max_tokens_per_role_reach_the_server(material, tmp_path):
    script = [
        tool_calls(call("read_file", {"path": "manual.txt"})),
        tool_calls(call("finish_exploration", FINISH_ARGS)),
    ]
    with FakeLLM(route(script)) as llm:
        config = config_for(
            llm, material, tmp_path / "run", max_tokens={"explore": 321, "write": 654}
        )
        events = run(config)
        sent = {(r["model"], r.get("max_tokens")) for r in llm.requests}
    assert events[-1].status == "ok"
    assert sent == {("fake-explore", 321), ("fake-write", 654)}  # each call carries its role's
