"""make_figure through the exploration loop: figures land in the run, refusals are guards, it runs alone."""

from __future__ import annotations

import json

from agent_helpers import FINISH_ARGS, config_for, executed, guard_kinds, of_type, route, run
from fakes import FakeLLM, call, tool_calls

PLOT = """
import pandas as pd
import matplotlib.pyplot as plt
df = pd.read_csv(DATA_DIR / "data" / "pendulum.csv")
plt.plot(df["length_m"], df["period_s"] ** 2, "o")
slope = (df["period_s"] ** 2 / df["length_m"]).mean()
print(f"slope={slope:.3f}")
"""


def figure(code: str, name: str = "t2_vs_l") -> object:
    return call(
        "make_figure",
        {
            "code": code,
            "filename": name,
            "caption": "T^2 against L",
            "inputs": ["data/pendulum.csv"],
        },
    )


def test_a_figure_lands_in_the_run_with_its_provenance(material, tmp_path):
    script = [
        tool_calls(call("read_file", {"path": "data/pendulum.csv"}), figure(PLOT)),
        tool_calls(call("finish_exploration", FINISH_ARGS)),
    ]
    with FakeLLM(route(script)) as llm:
        events = run(config_for(llm, material, tmp_path / "run"))
        back = llm.requests[1]["messages"][-1]["content"]
    figs = tmp_path / "run" / "figures"
    assert (figs / "t2_vs_l.pdf").is_file() and (figs / "t2_vs_l.png").is_file()
    meta = json.loads((figs / "t2_vs_l.json").read_text())
    assert meta["caption"] == "T^2 against L" and meta["inputs"][0]["path"] == "data/pendulum.csv"
    assert "slope=" in back  # printed values come back to the model
    findings = json.loads((tmp_path / "run" / "findings.json").read_text())
    assert findings["figures"][0]["filename"] == "t2_vs_l"
    assert json.loads((tmp_path / "run" / "figures.json").read_text())[0]["filename"] == "t2_vs_l"
    assert list(material.rglob("*.pdf")) == []  # nothing written into the material
    assert of_type(events, "done")[-1].status == "ok"


def test_a_refused_figure_is_a_sandbox_denied_guard(material, tmp_path):
    script = [
        tool_calls(figure("import os\nos.system('touch /tmp/x')")),
        tool_calls(call("read_file", {"path": "manual.txt"})),
        tool_calls(call("finish_exploration", FINISH_ARGS)),
    ]
    with FakeLLM(route(script)) as llm:
        events = run(config_for(llm, material, tmp_path / "run"))
        back = llm.requests[1]["messages"][-1]["content"]
    assert guard_kinds(events) == ["sandbox_denied"]
    assert "os" in back and "not allowed" in back.lower()
    assert not (tmp_path / "run" / "figures" / "t2_vs_l.pdf").exists()


def test_make_figure_runs_alone_between_parallel_batches(material, tmp_path, monkeypatch):
    from labwright.core.agent import explore as explore_mod

    batches = []
    real = explore_mod._execute

    def spy(batch, ctx, cancelled):
        batches.append([s.name for s in batch])
        return real(batch, ctx, cancelled)

    monkeypatch.setattr(explore_mod, "_execute", spy)
    turn = tool_calls(
        call("read_file", {"path": "manual.txt"}),
        call("list_dir", {"path": "data"}),
        figure(PLOT),
        call("read_file", {"path": "data/pendulum.csv"}),
    )
    with FakeLLM(route([turn, tool_calls(call("finish_exploration", FINISH_ARGS))])) as llm:
        events = run(config_for(llm, material, tmp_path / "run"))
    assert batches[:3] == [["read_file", "list_dir"], ["make_figure"], ["read_file"]]
    assert [e.name for e in of_type(events, "tool_result")][:4] == [
        "read_file",
        "list_dir",
        "make_figure",
        "read_file",
    ]
    assert len(executed(events, "make_figure")) == 1
