"""analyze end to end: model-written analysis in the figure sandbox, its printed results
kept as evidence, a report number traced to the line that printed it (DESIGN.md)."""

from __future__ import annotations

import hashlib
import json
import math
import shutil
from pathlib import Path

import numpy as np
import openpyxl
import pytest
from scipy import stats

from agent_helpers import FINISH_ARGS, config_for, executed, guard_kinds, of_type, route, run
from fakes import FakeLLM, call, text, tool_calls
from labwright.core.agent.sandbox import runner as sandbox_runner
from labwright.core.agent.sandbox.runner import _shown_results, run_analysis
from labwright.core.agent.sandbox.static_check import load_paths, parse
from labwright.core.agent.tools import build_tools, traits_of
from labwright.core.agent.tools.analyze import Analyze
from labwright.core.agent.tools.base import ToolContext
from labwright.core.analysis import EXTRA_NAMES

EXAMPLES = Path(__file__).resolve().parents[1] / "examples" / "pendulum"

PENDULUM = """
df = load("data/periods.csv")
T = df[["t10_run1", "t10_run2", "t10_run3"]].mean(axis=1) / 10
f = fit(df["length"], T**2)
print(f)
show("slope", f.slope, "s^2/m")
g = 4 * math.pi**2 / f.slope
show("g", g, "m/s^2")
show("percent difference from 9.81", percent_difference(g, 9.81), "%")
"""


@pytest.fixture
def pendulum(tmp_path) -> Path:
    dest = tmp_path / "pendulum"
    shutil.copytree(EXAMPLES, dest)
    return dest


def _expected_pendulum() -> tuple[float, float, float]:
    """slope, its standard error and g, computed independently (scipy, no labwright)."""
    raw = np.loadtxt(EXAMPLES / "data" / "periods.csv", delimiter=",", skiprows=1)
    t2 = (raw[:, 1:].mean(axis=1) / 10) ** 2
    ref = stats.linregress(raw[:, 0], t2)
    return ref.slope, ref.stderr, 4 * math.pi**2 / ref.slope


def analyze(code: str, purpose: str, inputs: list[str] | None = None) -> object:
    args: dict = {"code": "import math\n" + code, "purpose": purpose}
    if inputs is not None:
        args["inputs"] = inputs
    return call("analyze", args)


def _report(slope: float, u: float, g: float) -> str:
    return (
        "\\documentclass{article}\n\\usepackage{siunitx}\n\\begin{document}\n"
        "\\section{Analysis}\n"
        f"A straight line through $T^2$ against $L$ has the slope "
        f"$({slope:.3f} \\pm {u:.3f})$~\\si{{\\second\\squared\\per\\metre}}, "
        f"so $g = 4\\pi^2/\\text{{slope}} = {g:.3f}$~\\si{{\\metre\\per\\second\\squared}}.\n"
        "\\end{document}\n"
    )


def test_a_fitted_slope_in_the_draft_traces_to_the_analysis_line_that_printed_it(
    pendulum, tmp_path, guarded_folder, capsys
):
    slope, u, g = _expected_pendulum()
    guarded_folder(pendulum)
    script = [
        tool_calls(call("read_file", {"path": "data/periods.csv"})),
        tool_calls(analyze(PENDULUM, "g from the T^2-L fit", ["data/periods.csv"])),
        tool_calls(call("finish_exploration", FINISH_ARGS)),
    ]
    prompts: list[str] = []

    def writer(body):
        prompt = json.dumps(body["messages"], ensure_ascii=False)
        if "Answer with JSON only" in prompt:
            return text("[]")
        if "BibTeX" in body["messages"][-1].get("content", ""):
            return text("")
        prompts.append(prompt)
        return text(_report(slope, u, g))

    out = tmp_path / "run"
    with FakeLLM(route(script, writer)) as llm:
        events = run(config_for(llm, pendulum, out))
        back = [r for r in llm.requests if r["model"] == "fake-explore"][2]["messages"][-1]
    assert of_type(events, "done")[-1].status == "ok"
    # the model read what the code printed: the fit and the shown results
    assert back["role"] == "tool" and f"slope = {slope:.3f} ± {u:.3f} s^2/m" in back["content"]
    assert f"g = {g:.3f}" in back["content"]
    # kept as evidence, with its code, inputs and purpose
    records = [json.loads(x) for x in (out / "evidence.jsonl").read_text().splitlines()]
    (analysis,) = [r for r in records if r["kind"] == "analysis_output"]
    assert analysis["path"].startswith("analysis/g-from-the-t-2-l-fit-")
    assert analysis["inputs"] == ["data/periods.csv"] and "fit(df" in analysis["code"]
    data = (pendulum / "data" / "periods.csv").read_bytes()
    digest = hashlib.sha256(data).hexdigest()
    assert analysis["input_files"] == [
        {"path": "data/periods.csv", "sha256": digest, "bytes": len(data)}
    ]
    assert analysis["purpose"] == "g from the T^2-L fit"
    shown = {r["name"]: r for r in analysis["results"]}
    assert math.isclose(shown["slope"]["value"], slope, rel_tol=1e-9)
    assert math.isclose(shown["slope"]["u"], u, rel_tol=1e-9)
    # the write model was shown it as the analysis's output
    assert any("printed by the analysis: g from the T^2-L fit" in p for p in prompts)
    # numbers.json (the draft's number check) and `labwright verify` trace the slope to it
    numbers = json.loads((out / "numbers.json").read_text())
    traced = {m["text"]: m for m in numbers["matched"]}
    for written in (f"{slope:.3f}", f"{u:.3f}", f"{g:.3f}"):
        src = traced[written]["source"]
        assert src["path"] == analysis["path"], traced[written]
        assert src["location"].endswith("printed by the analysis")
    line = traced[f"{slope:.3f}"]["source"]["excerpt"]
    assert line == f"slope = {slope:.3f} ± {u:.3f} s^2/m"
    assert analysis["text"].split("\n")[shown["slope"]["line"]] == line

    from labwright.cli import main

    capsys.readouterr()
    assert main(["verify", str(out), "--all"]) == 0
    said = capsys.readouterr().out
    assert f"{slope:.3f} ← {analysis['path']}, line " in said
    assert line in said


def test_positive_control_a_number_the_analysis_did_not_print_is_not_traced(pendulum, tmp_path):
    """The same run with the draft quoting a slope no line printed: verify flags it."""
    slope, u, g = _expected_pendulum()
    script = [
        tool_calls(call("read_file", {"path": "data/periods.csv"})),
        tool_calls(analyze(PENDULUM, "g from the T^2-L fit", ["data/periods.csv"])),
        tool_calls(call("finish_exploration", FINISH_ARGS)),
    ]

    def writer(body):
        prompt = json.dumps(body["messages"], ensure_ascii=False)
        if "Answer with JSON only" in prompt:
            return text("[]")
        if "BibTeX" in body["messages"][-1].get("content", ""):
            return text("")
        return text(_report(slope * 1.37, u, g))

    out = tmp_path / "run"
    with FakeLLM(route(script, writer)) as llm:
        run(config_for(llm, pendulum, out))
    numbers = json.loads((out / "numbers.json").read_text())
    assert f"{slope * 1.37:.3f}" in [m["text"] for m in numbers["unmatched"]]


def test_analyze_does_not_open_the_evidence_gate_and_runs_alone(pendulum, tmp_path, monkeypatch):
    """Its numbers may be typed into the code: only a read opens the way out. And it is a
    sandboxed process like a figure: never in a parallel batch."""
    from labwright.core.agent import explore as explore_mod

    batches = []
    real = explore_mod._execute

    def spy(batch, ctx, cancelled):
        batches.append([s.name for s in batch])
        return real(batch, ctx, cancelled)

    monkeypatch.setattr(explore_mod, "_execute", spy)
    script = [
        tool_calls(analyze("show('g', ufloat(9.8, 0.1), 'm/s^2')", "an invented g")),
        tool_calls(call("finish_exploration", FINISH_ARGS)),
        tool_calls(
            call("read_file", {"path": "manual.md"}),
            analyze(PENDULUM, "g", ["data/periods.csv"]),
            call("list_dir", {"path": "data"}),
        ),
        tool_calls(call("finish_exploration", FINISH_ARGS)),
    ]
    with FakeLLM(route(script)) as llm:
        events = run(config_for(llm, pendulum, tmp_path / "run"))
    assert "evidence_retry" in guard_kinds(events)  # the first finish was refused
    assert [b for b in batches if b][1:4] == [["read_file"], ["analyze"], ["list_dir"]]
    assert len(executed(events, "analyze")) == 2
    assert not traits_of("analyze").concurrency_safe and not traits_of("analyze").reads


def test_a_traceback_is_the_models_to_fix_and_never_withdraws_the_tool(pendulum, tmp_path):
    broken = [tool_calls(analyze(f"x = {i} / 0", f"try {i}")) for i in range(4)]
    script = [
        tool_calls(call("read_file", {"path": "data/periods.csv"})),
        *broken,
        tool_calls(analyze(PENDULUM, "g", ["data/periods.csv"])),
        tool_calls(call("finish_exploration", FINISH_ARGS)),
    ]
    with FakeLLM(route(script)) as llm:
        events = run(config_for(llm, pendulum, tmp_path / "run"))
        answers = [
            r["messages"][-1]["content"] for r in llm.requests if r["model"] == "fake-explore"
        ]
    assert "tool_disabled" not in guard_kinds(events)
    assert "ZeroDivisionError" in answers[2]
    assert len(executed(events, "analyze")) == 1  # the fifth call still ran, and worked
    assert "g = " in answers[6]


def _ctx(root: Path, run_dir: Path) -> ToolContext:
    return ToolContext(root=root, run_dir=run_dir)


def test_the_predefined_names_are_designs_and_the_librarys(pendulum, tmp_path):
    names = ["load", "fit", "show", "ufloat", "unumpy", "umath", *EXTRA_NAMES]
    code = (
        "import uncertainties\n"
        + "found = {"
        + ", ".join(f"{n!r}: {n}" for n in names)
        + "}\n"
        + "print(len(found), sorted(found))\n"
        "x = ufloat(2.0, 0.1) * umath.sqrt(ufloat(4.0, 0.4))\n"
        "print(f'{x:.2uP}', DATA_DIR.is_dir())\n"
    )
    r = run_analysis(code, data_dir=pendulum)
    assert r.ok, r.message
    first = r.stdout.splitlines()[0]
    assert first.startswith(f"{6 + len(EXTRA_NAMES)} ")
    assert "4.00±0.28 True" in r.stdout


def test_load_reads_a_real_workbook_by_sheet_and_its_fit_is_the_students_gradient(
    projectile, tmp_path
):
    """The projectile workbook's 'gradient' sheet holds the student's own slope m of range
    against v0² sin 2θ for the first set: the fit of load()'s table gives it back."""
    wb = openpyxl.load_workbook(
        projectile / "Data" / "Projectile motion.xlsx", data_only=True, read_only=True
    )
    students_m = wb["gradient"]["B3"].value
    wb.close()
    code = (
        "df = load('Data/Projectile motion.xlsx', sheet='Part A ')\n"
        "print(df.attrs['range'], df.attrs['units']['Range'], len(df))\n"
        "f = fit(df['(V_o)^2* SIN(2*thetha)'], df['Range'])\n"
        "show('m', f.slope)\n"
        "print(repr(f.slope.nominal_value))\n"
        "print(tables('Data/Projectile motion.xlsx')[0])\n"
    )
    out = Analyze().run(
        {"code": code, "purpose": "the gradient", "inputs": ["Data/Projectile motion.xlsx"]},
        _ctx(projectile, tmp_path / "run"),
    )
    assert out.ok, out.content
    lines = out.evidence["text"].splitlines()
    assert lines[0] == "B4:V10 m 5"
    assert math.isclose(float(lines[2]), students_m, rel_tol=1e-6)
    assert lines[3].startswith("table=0: sheet 'Part A ', B4:V10: Angle (°)")


def test_a_file_the_code_names_is_prepared_and_one_it_does_not_is_explained(pendulum):
    tree, _ = parse("a = load(DATA_DIR / 'data' / 'periods.csv')\nb = load('x.csv')\nload(p)")
    assert load_paths(tree) == ["data/periods.csv", "x.csv"]
    ok = run_analysis("print(len(load(DATA_DIR / 'data' / 'periods.csv')))", data_dir=pendulum)
    assert ok.ok and ok.stdout.strip() == "9"
    name = "'data/' + 'periods.csv'"
    r = run_analysis(f"print(load({name}))", data_dir=pendulum)
    assert not r.ok and r.code_error
    assert "were not prepared" in r.message and "inputs" in r.message


def test_printing_nothing_is_no_evidence(pendulum, tmp_path):
    out = Analyze().run({"code": "x = 1", "purpose": "nothing"}, _ctx(pendulum, tmp_path))
    assert out.ok and not out.productive and out.evidence is None
    assert "printed nothing" in out.content


def test_refused_code_is_a_sandbox_denial(pendulum, tmp_path):
    out = Analyze().run(
        {"code": "import subprocess\nsubprocess.run(['true'])", "purpose": "escape"},
        _ctx(pendulum, tmp_path),
    )
    assert not out.ok and out.denied == "sandbox_denied" and out.fault == "call"
    assert "static check" in out.content


def test_without_an_os_sandbox_analysis_is_disabled_unless_allowed(pendulum, tmp_path, monkeypatch):
    from labwright.core import confine

    monkeypatch.setattr(
        confine, "support", lambda: confine.Support(0, False, False, "linux"), raising=True
    )
    out = Analyze().run({"code": "print(1)", "purpose": "p"}, _ctx(pendulum, tmp_path))
    assert not out.ok and "disabled on this machine" in out.content
    assert out.summary == "analysis disabled (no OS sandbox)"


def test_figure_code_may_fit_too(pendulum, tmp_path):
    from labwright.core.agent.sandbox import run_figure

    code = (
        "import matplotlib.pyplot as plt\n"
        "df = load('data/periods.csv')\n"
        "f = fit(df['length'], (df['t10_run1'] / 10) ** 2)\n"
        "plt.plot(df['length'], f.predict(df['length']))\n"
        "show('slope', f.slope)\n"
    )
    r = run_figure(
        code, data_dir=pendulum, figures_dir=tmp_path / "figures", filename="f", caption="c"
    )
    assert r.ok, r.message
    assert "slope = 4.0" in r.stdout


def test_only_results_the_code_printed_are_kept():
    stdout = "a = 1.0 ± 0.1\nb = 2\n"
    raw = [
        {"name": "a", "value": 1.0, "u": 0.1, "unit": "", "text": "a = 1.0 ± 0.1"},
        {"name": "forged", "value": 9.0, "u": None, "unit": "", "text": "forged = 9"},
        {"name": "bad", "value": "9", "u": None, "text": "b = 2"},
        "not a record",
    ]
    kept = _shown_results(raw, stdout)
    assert [(r["name"], r["line"]) for r in kept] == [("a", 0)]
    assert _shown_results({"not": "a list"}, stdout) == []


def test_the_tool_is_offered_and_the_prompts_ask_for_the_analysis(pendulum, tmp_path):
    from labwright.core.resources import prompt

    tools = build_tools(_ctx(pendulum, tmp_path))
    assert "analyze" in tools
    schema = tools["analyze"].schema()["function"]
    assert set(schema["parameters"]["properties"]) == {"code", "inputs", "purpose"}
    script = [
        tool_calls(call("read_file", {"path": "data/periods.csv"})),
        tool_calls(call("finish_exploration", FINISH_ARGS)),
    ]
    with FakeLLM(route(script)) as llm:
        run(config_for(llm, pendulum, tmp_path / "run"))
        system = llm.requests[0]["messages"][0]["content"]
    assert "`analyze`" in system and "percent difference" in system
    assert "analysis/..." in prompt(
        "draft_system",
        preamble="",
        title_hint="",
        sections="",
        language="en",
        todo="TODO",
        bibstyle="plain",
    )


def test_an_analysis_needs_no_figure_and_keeps_none(pendulum, tmp_path, monkeypatch):
    seen = []
    real = sandbox_runner._run_child

    def spy(**kwargs):
        outcome = real(**kwargs)
        seen.append(sorted(p.name for p in kwargs["staging"].iterdir()))
        return outcome

    monkeypatch.setattr(sandbox_runner, "_run_child", spy)
    r = run_analysis(
        "import matplotlib.pyplot as plt\nplt.plot([1, 2])\nprint('done')", data_dir=pendulum
    )
    assert r.ok and r.stdout.strip() == "done"
    assert seen == [[]]  # nothing staged
