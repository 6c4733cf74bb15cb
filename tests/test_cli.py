"""`labwright run` as a user and other programs see it: events on stdout, exit status, run dir."""

from __future__ import annotations

import json

import pytest

from agent_helpers import FINISH_ARGS, route
from fakes import FakeLLM, call, tool_calls
from labwright.cli import main
from labwright.core.events import event_from_json


def finish():
    return tool_calls(call("finish_exploration", FINISH_ARGS))


def test_run_json_prints_every_event_as_in_the_journal(material, tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("LABWRIGHT_API_KEY", "sk-env-key-0123456789")
    script = [tool_calls(call("read_file", {"path": "manual.txt"})), finish()]
    with FakeLLM(route(script)) as llm:
        code = main(
            [
                "run",
                str(material),
                "--json",
                "--out",
                str(tmp_path / "run"),
                "--base-url",
                llm.base_url,
                "--explore-model",
                "fake-explore",
                *("--write-model", "fake-write", "--no-compile", "--reflect", "0"),
            ]
        )
        assert llm.headers[0]["authorization"] == "Bearer sk-env-key-0123456789"
    assert code == 0
    lines = capsys.readouterr().out.splitlines()
    journal = (tmp_path / "run" / "events.jsonl").read_text(encoding="utf-8").splitlines()
    assert lines == journal
    events = [event_from_json(line) for line in lines]
    ms = [e for e in events if e.type == "milestone"]
    plan = ["scan", "explore", "figures", "gap", "draft", "bib"]
    assert [(e.stage, e.index) for e in ms if e.status == "end"] == [
        (s, i + 1) for i, s in enumerate(plan)
    ]
    assert {e.total for e in ms} == {len(plan)}
    assert events[-1].type == "done" and events[-1].status == "ok"
    run_json = json.loads((tmp_path / "run" / "run.json").read_text())
    assert run_json["status"] == "ok" and run_json["calls"]["explore"] == 2
    assert "sk-env-key" not in json.dumps(run_json)
    assert (
        json.loads((tmp_path / "run" / "findings.json").read_text())["experiment"]
        == "Simple pendulum"
    )


def test_degraded_run_exits_10_with_a_readable_log(material, tmp_path, capsys):
    with FakeLLM(
        route(lambda body, n: tool_calls(call("read_file", {"path": "manual.txt"})))
    ) as llm:
        code = main(
            [
                "run",
                str(material),
                "--out",
                str(tmp_path / "run"),
                "--base-url",
                llm.base_url,
                "--api-key",
                "sk-x",
                *("--explore-model", "fake-explore", "--write-model", "fake-write"),
                *("--no-compile", "--reflect", "0"),
            ]
        )
    assert code == 10
    err = capsys.readouterr().err
    assert "[1/6 scan]" in err and "[2/6 explore]" in err
    assert "! loop_stop" in err and "done: degraded (loop)" in err


@pytest.mark.parametrize(
    "argv_tail, message",
    [
        (["missing-folder"], "does not exist"),
        (["manual.txt-as-folder"], "is a file"),
    ],
)
def test_bad_folder_exits_2(material, tmp_path, capsys, argv_tail, message):
    target = material / "manual.txt" if argv_tail[0].startswith("manual") else tmp_path / "nope"
    assert main(["run", str(target), "--offline"]) == 2
    assert message in capsys.readouterr().err


def test_missing_key_exits_2_and_says_what_to_do(material, capsys):
    assert main(["run", str(material)]) == 2
    err = capsys.readouterr().err
    assert "DEEPSEEK_API_KEY" in err and "--offline" in err


def test_output_inside_the_picked_folder_is_refused(material, capsys):
    before = sorted(p.name for p in material.rglob("*"))
    assert main(["run", str(material), "--offline", "--out", str(material / "out")]) == 2
    assert "never writes into the folder" in capsys.readouterr().err
    assert sorted(p.name for p in material.rglob("*")) == before


def test_default_run_dir_is_under_labwright_home(material, isolated_home, capsys):
    assert main(["run", str(material), "--offline", "--json", "--no-compile"]) == 10
    runs = list((isolated_home / "runs").iterdir())
    assert len(runs) == 1 and (runs[0] / "events.jsonl").is_file()
    last = json.loads(capsys.readouterr().out.splitlines()[-1])
    assert last == {
        "type": "done",
        "status": "degraded",
        "report": str(runs[0] / "report.tex"),
        "pdf": None,
        "reasons": ["offline"],
    }
