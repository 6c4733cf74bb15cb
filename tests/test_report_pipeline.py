"""The report stages end to end through the fake server: plan, draft, reflect, bib, compile, resume."""

from __future__ import annotations

import json

import pytest
from pypdf import PdfReader

from agent_helpers import (
    FINISH_ARGS,
    MINIMAL_REPORT,
    config_for,
    explore_requests,
    guard_kinds,
    of_type,
    route,
    run,
    writer_turn,
)
from fakes import FakeLLM, call, text, tool_calls
from labwright.cli import main
from labwright.core.events import DraftDetail, NumbersSummary
from labwright.core.report.latex import probe_engines
from labwright.core.run.pipeline import plan_pipeline, run_agent

needs_tex = pytest.mark.skipif(not probe_engines().can_compile, reason="no TeX engine")

EXPLORE = [
    tool_calls(call("read_file", {"path": "data/pendulum.csv"})),
    tool_calls(
        call(
            "finish_exploration",
            {**FINISH_ARGS, "assignment_requirements": ["a plot of T against L"]},
        )
    ),
]
LEAKY = MINIMAL_REPORT.replace(
    "\\section{Introduction}", "\\section{Introduction}\n<｜tool▁calls▁begin｜>"
)


def pdf_text(path) -> str:
    return "\n".join(page.extract_text() or "" for page in PdfReader(path).pages)


def milestones(events):
    return [(e.stage, e.index, e.total, e.status) for e in of_type(events, "milestone")]


def assert_indices_in_order(events):
    ms = of_type(events, "milestone")
    total = ms[0].total
    assert all(m.total == total for m in ms)
    indices = [m.index for m in ms]
    assert indices == sorted(indices)  # never go back
    finished = [m.index for m in ms if m.status in ("end", "skipped")]
    assert finished == list(range(1, total + 1))


def test_plan_comes_from_configuration_alone(material, tmp_path):
    engines = probe_engines()
    from labwright.core.settings.config import RunConfig

    c = RunConfig(folder=material, reflect=3)
    plan = plan_pipeline(c, engines)
    assert plan[:5] == ["scan", "explore", "figures", "gap", "draft"]
    assert plan.count("reflect") == 3 and plan[-2:] == (
        ["bib", "compile"] if engines.can_compile else plan[-2:]
    )
    brief = plan_pipeline(RunConfig(folder=material, template="brief-en", compile=False), engines)
    assert brief == ["scan", "explore", "figures", "draft", "reflect", "bib"]


@needs_tex
def test_healthy_run_ends_ok_with_a_pdf(material, tmp_path):
    with FakeLLM(route(EXPLORE)) as llm:
        events = run(config_for(llm, material, tmp_path / "run", compile=True, reflect=1))
    assert_indices_in_order(events)
    assert [m[0] for m in milestones(events) if m[3] != "start"] == [
        "scan",
        "explore",
        "figures",
        "gap",
        "draft",
        "reflect",
        "bib",
        "compile",
    ]
    done = of_type(events, "done")[-1]
    assert done.status == "ok" and done.reasons == []
    assert done.pdf and "pendulum data" in pdf_text(done.pdf)
    rundir = tmp_path / "run"
    assert (rundir / "drafts" / "v1.tex").is_file() and (rundir / "refs.bib").is_file()
    assert list((rundir / "figures").glob("*.pdf"))  # a plot of the CSV, made without the model
    meta = json.loads((rundir / "run.json").read_text())
    assert meta["status"] == "ok" and meta["compile"]["ok"] is True
    assert set(meta["usage"]) >= {"explore", "write", "reflect"}


def test_markup_twice_then_valid_gives_two_format_retries(material, tmp_path):
    answers = iter([text(LEAKY), text("```latex\n\\section{x}\n```"), text(MINIMAL_REPORT)])

    def writer(body):
        return (
            next(answers)
            if "complete LaTeX document" in json.dumps(body["messages"])
            else writer_turn(body)
        )

    with FakeLLM(route(EXPLORE, writer)) as llm:
        events = run(config_for(llm, material, tmp_path / "run"))
    assert guard_kinds(events).count("format_retry") == 2
    assert of_type(events, "done")[-1].status == "ok"
    assert (tmp_path / "run" / "report.tex").read_text() == MINIMAL_REPORT.strip()


@needs_tex
def test_four_invalid_drafts_fall_back_to_the_skeleton_and_still_compile(material, tmp_path):
    def writer(body):
        return (
            text(LEAKY)
            if "complete LaTeX document" in json.dumps(body["messages"])
            else writer_turn(body)
        )

    with FakeLLM(route(EXPLORE, writer)) as llm:
        events = run(config_for(llm, material, tmp_path / "run", compile=True))
        drafts = [r for r in llm.requests if "complete LaTeX document" in json.dumps(r["messages"])]
    assert len(drafts) == 4
    assert guard_kinds(events).count("format_retry") == 4
    done = of_type(events, "done")[-1]
    assert done.status == "degraded" and "draft_invalid" in done.reasons
    tex = (tmp_path / "run" / "report.tex").read_text()
    assert "Simple pendulum" in tex and "TODO" in tex  # the skeleton, filled with the findings
    assert done.pdf is not None


def test_reflection_converging_after_round_one_skips_the_rest(material, tmp_path):
    rounds = iter(
        [
            text("1. The conclusion is missing."),
            text(
                MINIMAL_REPORT.replace(
                    "was read.", "was read.\n\\section{Conclusion} T grows with L."
                )
            ),
            text("NO ISSUES"),
        ]
    )

    def writer(body):
        prompt = json.dumps(body["messages"])
        if "Review this lab report" in prompt or "Revise the report" in prompt:
            return next(rounds)
        return writer_turn(body)

    with FakeLLM(route(EXPLORE, writer)) as llm:
        events = run(config_for(llm, material, tmp_path / "run", reflect=3))
    reflects = [(m.index, m.status) for m in of_type(events, "milestone") if m.stage == "reflect"]
    first = reflects[0][0]
    assert reflects == [
        (first, "start"),
        (first, "end"),
        (first + 1, "start"),
        (first + 1, "end"),
        (first + 2, "skipped"),
    ]
    assert_indices_in_order(events)
    assert [d.version for d in of_type(events, "draft")] == [1, 2]
    assert of_type(events, "done")[-1].status == "ok"


@needs_tex
def test_compile_error_repaired_by_the_fix_model(material, tmp_path):
    broken = MINIMAL_REPORT.replace("was read.", "was read. \\undefinedmacro")

    def writer(body):
        prompt = json.dumps(body["messages"])
        if "does not compile" in prompt:
            assert "undefinedmacro" in prompt  # the error and its source lines reach the model
            return text(MINIMAL_REPORT)
        if "complete LaTeX document" in prompt:
            return text(broken)
        return writer_turn(body)

    with FakeLLM(route(EXPLORE, writer)) as llm:
        events = run(config_for(llm, material, tmp_path / "run", compile=True))
    assert guard_kinds(events) == ["compile_fix"]
    done = of_type(events, "done")[-1]
    assert done.status == "ok" and done.pdf


@needs_tex
def test_compile_error_the_fix_model_cannot_repair_ends_degraded(material, tmp_path):
    broken = MINIMAL_REPORT.replace("was read.", "was read. \\undefinedmacro")

    def writer(body):
        prompt = json.dumps(body["messages"])
        if "does not compile" in prompt or "complete LaTeX document" in prompt:
            return text(broken)
        return writer_turn(body)

    with FakeLLM(route(EXPLORE, writer)) as llm:
        events = run(config_for(llm, material, tmp_path / "run", compile=True))
    assert guard_kinds(events) == ["compile_fix", "compile_fix"]
    done = of_type(events, "done")[-1]
    assert done.status == "degraded" and done.reasons == ["compile_failed"]
    meta = json.loads((tmp_path / "run" / "run.json").read_text())
    assert meta["compile"]["errors"][0]["line"] is not None


def test_killed_after_explore_then_resumed_makes_no_new_exploration_calls(
    material, tmp_path, monkeypatch, capsys
):
    rundir = tmp_path / "run"
    with FakeLLM(route(EXPLORE)) as llm:
        gen = run_agent(config_for(llm, material, rundir))
        for event in gen:
            if event.type == "milestone" and event.stage == "explore" and event.status == "end":
                break
        gen.close()  # the consumer goes away here (a real kill -9: tests/reliability)
    # a run nobody listens to any more says so; it never stays "running"
    assert json.loads((rundir / "run.json").read_text())["status"] == "cancelled"

    def no_exploring(body, n):
        raise AssertionError("resume asked the explore model again")

    monkeypatch.setenv("LABWRIGHT_API_KEY", "sk-test")
    with FakeLLM(route(no_exploring)) as llm:
        meta = json.loads((rundir / "run.json").read_text())
        meta["config"]["base_url"] = llm.base_url
        (rundir / "run.json").write_text(json.dumps(meta))
        code = main(["run", "--resume", str(rundir), "--base-url", llm.base_url, "--json"])
        assert explore_requests(llm) == []
    assert code == 0
    lines = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    assert lines[0]["type"] == "milestone" and lines[0]["stage"] == "figures"
    assert lines[-1]["status"] == "ok"
    journal = [json.loads(x) for x in (rundir / "events.jsonl").read_text().splitlines()]
    assert [e["stage"] for e in journal if e["type"] == "milestone" and e["status"] == "end"][
        :2
    ] == ["scan", "explore"]
    assert (rundir / "report.tex").is_file()


@needs_tex
def test_offline_run_on_projectile_motion_gives_a_pdf_with_tables_and_plots(
    projectile, tmp_path, capsys
):
    code = main(["run", str(projectile), "--offline", "--out", str(tmp_path / "run")])
    assert code == 10  # offline is always reviewed
    rundir = tmp_path / "run"
    meta = json.loads((rundir / "run.json").read_text())
    assert meta["reasons"] == ["offline"] and meta["calls"] == {}
    assert meta["compile"]["ok"] is True
    pdf = pdf_text(rundir / "report.pdf")
    assert "0.485" in pdf and "TODO" in pdf  # a value of the workbook's Part A table
    assert len(list((rundir / "figures").glob("*.pdf"))) >= 2
    assert len(PdfReader(rundir / "report.pdf").pages) >= 2


# -- the number check (issue 8) ----------------------------------------------------

INVENTED = MINIMAL_REPORT.replace(
    "was read.", "was read. At 0.40 m the period was 1.27 s, so $g = 9.93$ m/s$^2$."
)
FIXED = MINIMAL_REPORT.replace("was read.", "was read. At 0.40 m the period was 1.27 s.")


def number_writer(revision: str, seen: list[str]):
    """A write model that drafts INVENTED, and revises to `revision`."""

    def writer(body):
        prompt = json.dumps(body["messages"])
        if "Revise the report" in prompt:
            seen.append(body["messages"][-1]["content"])
            return text(revision)
        if "Review this lab report" in prompt:
            seen.append(body["messages"][-1]["content"])
            return text("NO ISSUES")  # the critic misses it; the check does not
        if "complete LaTeX document" in prompt:
            return text(INVENTED)
        return writer_turn(body)

    return writer


def test_an_invented_number_goes_to_reflect_and_the_revision_removes_it(material, tmp_path):
    seen: list[str] = []
    with FakeLLM(route(EXPLORE, number_writer(FIXED, seen))) as llm:
        events = run(config_for(llm, material, tmp_path / "run", reflect=2))
    critique, revise = seen[0], seen[1]
    assert "line 4: 9.93 m/s^2" in critique and "g = 9.93 m/s^2" in critique
    assert "Numbers not found in the material" in revise and "9.93" in revise
    drafts = of_type(events, "draft")
    assert [d.degraded for d in drafts] == [True, False]
    done = of_type(events, "done")[-1]
    assert done.status == "ok" and done.reasons == []
    rundir = tmp_path / "run"
    meta = json.loads((rundir / "run.json").read_text())
    assert meta["numbers"]["unmatched"] == [] and meta["numbers"]["matched"] == 2
    numbers = json.loads((rundir / "numbers.json").read_text())
    assert numbers["matched"][0]["source"]["path"] == "data/pendulum.csv"
    draft_end = [
        m for m in of_type(events, "milestone") if m.stage == "draft" and m.status == "end"
    ]
    assert draft_end[0].detail == DraftDetail(
        1, draft_end[0].detail.chars, False, NumbersSummary(3, 1)
    )


def test_a_revision_that_keeps_an_invented_number_ends_degraded(material, tmp_path, capsys):
    seen: list[str] = []
    with FakeLLM(
        route(EXPLORE, number_writer(INVENTED.replace("was read.", "was read. "), seen))
    ) as llm:
        events = run(config_for(llm, material, tmp_path / "run", reflect=1))
    done = of_type(events, "done")[-1]
    assert done.status == "degraded"
    assert done.reasons == ["1 number not found in the material"]
    rundir = tmp_path / "run"
    meta = json.loads((rundir / "run.json").read_text())
    [item] = meta["numbers"]["unmatched"]
    assert item["text"] == "9.93" and "g = 9.93" in item["sentence"]
    numbers = json.loads((rundir / "numbers.json").read_text())
    assert numbers["open_items"][0]["kind"] == "number_not_found"
    # the user fixes the report by hand; verify agrees
    (rundir / "report.tex").write_text(FIXED)
    assert main(["verify", str(rundir)]) == 0
    assert "0 not found" in capsys.readouterr().out


def test_token_budget_spent_before_the_draft_ends_in_the_skeleton(material, tmp_path):
    with FakeLLM(route(EXPLORE)) as llm:
        events = run(config_for(llm, material, tmp_path / "run", budget_tokens=40))
        drafts = [r for r in llm.requests if "complete LaTeX document" in json.dumps(r["messages"])]
    assert drafts == []  # 30 tokens exploring + 15 on the gap check: nothing left to draft with
    assert "budget" in guard_kinds(events)
    done = of_type(events, "done")[-1]
    assert done.status == "degraded" and "budget" in done.reasons
    assert "TODO" in (tmp_path / "run" / "report.tex").read_text()


def test_money_is_priced_in_run_json_and_a_money_budget_stops_the_run(material, tmp_path, capsys):
    price = ["--price", "fake-explore=1000,2000", "--price", "fake-write=1000,2000"]
    with FakeLLM(route(EXPLORE)) as llm:
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
                "--explore-model",
                "fake-explore",
                "--write-model",
                "fake-write",
                "--no-compile",
                "--reflect",
                "0",
                "--budget-usd",
                "0.05",
                *price,
            ]
        )
    meta = json.loads((tmp_path / "run" / "run.json").read_text())
    # each call: 10 prompt + 5 completion tokens = 0.01 + 0.01 = $0.02
    assert meta["cost_usd"] == pytest.approx(0.02 * sum(u["calls"] for u in meta["usage"].values()))
    assert meta["cost_usd"] <= 0.06 and "budget" in meta["reasons"]
    assert code == 10


def test_a_malformed_price_is_bad_input(material, capsys):
    assert main(["run", str(material), "--offline", "--price", "gpt=cheap"]) == 2
    assert "MODEL=PROMPT,COMPLETION" in capsys.readouterr().err


def test_the_draft_streams_through_on_text_as_the_model_writes_it(material, tmp_path):
    seen: list[tuple[str, str]] = []
    with FakeLLM(route(EXPLORE)) as llm:
        config = config_for(llm, material, tmp_path / "run")
        events = list(run_agent(config, on_text=lambda kind, text: seen.append((kind, text))))
        requests = list(llm.requests)
    assert seen[0] == ("start", "write")
    assert [text for kind, text in seen if kind == "start"] == ["write"]  # only the document
    pieces = [text for kind, text in seen if kind == "delta"]
    assert len(pieces) > 3  # it arrived in pieces, not at the end
    assert "".join(pieces) == MINIMAL_REPORT
    # every call streams (its progress shows), and asks for the usage at the end
    assert all(r.get("stream") for r in requests)
    assert all(r["stream_options"] == {"include_usage": True} for r in requests)
    assert of_type(events, "done")[-1].status == "ok"
    journal = (tmp_path / "run" / "events.jsonl").read_text()
    assert "delta" not in journal  # the journal keeps drafts, not keystrokes
