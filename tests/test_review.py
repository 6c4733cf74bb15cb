"""The review core: open items, why a run is degraded, edits, diff, recompile, SyncTeX,
and re-drafting through the fake model server (issue 6)."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from agent_helpers import (
    FINISH_ARGS,
    MINIMAL_REPORT,
    config_for,
    explore_requests,
    of_type,
    route,
    run,
    writer_turn,
)
from fakes import FakeLLM, call, text, tool_calls
from labwright.cli import main
from labwright.core.events import RedraftDetail
from labwright.core.report import synctex
from labwright.core.report.latex import probe_engines
from labwright.core.report.review import (
    OpenItem,
    diff_lines,
    generated_draft,
    open_items,
    recompile,
    save_edit,
    unified_diff,
    why_degraded,
)
from labwright.core.run.pipeline import RedraftError, redraft

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "pendulum"
needs_tex = pytest.mark.skipif(not probe_engines().can_compile, reason="no TeX engine")
needs_synctex = pytest.mark.skipif(shutil.which("synctex") is None, reason="no synctex tool")

EXPLORE = [
    tool_calls(call("read_file", {"path": "data/pendulum.csv"})),
    tool_calls(call("finish_exploration", FINISH_ARGS)),
]
INVENTED = MINIMAL_REPORT.replace(
    "was read.", "was read. At 0.40 m the period was 1.27 s, so $g = 9.93$ m/s$^2$."
)


# -- fixtures ----------------------------------------------------------------------------


def lines_of(tex: str, needle: str) -> list[int]:
    return [n for n, line in enumerate(tex.splitlines(), 1) if needle in line]


def by_kind(items: list[OpenItem], kind: str) -> list[OpenItem]:
    return [i for i in items if i.kind == kind]


def fake_run_dir(tmp_path: Path, report: str, **meta) -> Path:
    """A run directory made by hand: run.json, report.tex and drafts/v1.tex."""
    d = tmp_path / "crafted"
    (d / "drafts").mkdir(parents=True)
    (d / "figures").mkdir()
    (d / "report.tex").write_text(report, encoding="utf-8")
    (d / "drafts" / "v1.tex").write_text(report, encoding="utf-8")
    base = {"status": "ok", "reasons": [], "template": "lab-en", "skeleton": True, "config": {}}
    (d / "run.json").write_text(json.dumps({**base, **meta}), encoding="utf-8")
    (d / "events.jsonl").write_text("", encoding="utf-8")
    return d


# -- open items ----------------------------------------------------------------------------


@needs_tex
def test_open_items_finds_each_kind_at_its_line(offline_run):
    tex = (offline_run / "report.tex").read_text(encoding="utf-8")
    tex = tex.replace(
        "\\section{Theory}",
        "\\section{Theory}\nAs shown before~\\cite{nope}, see Table~\\ref{tab:missing}.",
    )
    shutil.copy(offline_run / "figures" / "table1.pdf", offline_run / "figures" / "extra.pdf")
    (offline_run / "figures" / "extra.json").write_text('{"caption": "A spare plot"}')
    save_edit(offline_run, tex)
    cite_line = lines_of(tex, "\\cite{nope}")[0]

    ok = recompile(offline_run)
    assert ok.ok
    items = open_items(offline_run, compile_result=ok)
    [cite] = by_kind(items, "citation")
    assert cite.line == cite_line and "nope" in cite.message
    warnings = by_kind(items, "compile_warning")
    assert [w.line for w in warnings if "tab:missing" in w.message] == [cite_line]
    assert not [w for w in warnings if "nope" in w.message]  # already a citation item
    [unused] = by_kind(items, "figure_unused")
    assert unused.line is None and "figures/extra.pdf" in unused.message
    assert "A spare plot" in unused.message
    todos = by_kind(items, "todo")
    aim = lines_of(tex, "state the aim of the experiment")[0]
    assert (
        OpenItem(
            "todo",
            "TODO: state the aim of the experiment and its background.",
            aim,
            tex.splitlines()[aim - 1].strip(),
        )
        in todos
    )
    assert not [t for t in todos if "every TODO is for you" in t.detail]  # prose, not a marker
    gaps = by_kind(items, "gap")
    # The manual's three Analysis tasks and five "report must contain" items, each at the
    # TODO item where the results ask for it (not at the checklist after the conclusion).
    assert len(gaps) == 8
    assert gaps[0].line == lines_of(tex, "Compute the period T")[0]
    assert gaps[3].line == lines_of(tex, "an introduction with the theory")[0]
    assert not [t for t in todos if t.line in {g.line for g in gaps}]  # one item per place
    assert by_kind(items, "number") == []  # a skeleton's numbers come from the data by code

    broken = tex.replace("\\section{Results}", "\\section{Results}\n\\undefinedmacro")
    save_edit(offline_run, broken)
    bad = recompile(offline_run)
    assert not bad.ok
    [error] = by_kind(open_items(offline_run, compile_result=bad), "compile_error")
    assert error.line == lines_of(broken, "\\undefinedmacro")[0]
    assert "Undefined control sequence" in error.message and "undefinedmacro" in error.detail
    # without a result, run.json's last compile (recompile recorded it) gives the same
    assert by_kind(open_items(offline_run), "compile_error") == [error]
    lines = [i.line for i in open_items(offline_run)]
    numbered = [n for n in lines if n is not None]
    assert numbered == sorted(numbered) and lines[-1] is None  # by line, None last
    assert open_items(offline_run) == open_items(offline_run)


def test_todo_markers_of_the_chinese_template(tmp_path):
    report = "\n".join(
        [
            "\\documentclass{ctexart}",
            "\\begin{document}",
            "\\section{实验目的}",
            "\\textbf{待补充：} 写明实验目的。 % TODO",
            "每个待补充的地方都要完成。",  # the word in prose is no marker
            "% TODO: check the units",
            "TODOS are not TODO markers",
            "\\end{document}",
        ]
    )
    d = fake_run_dir(tmp_path, report, template="lab-zh")
    items = open_items(d)
    assert [(i.kind, i.line) for i in items] == [("todo", 4), ("todo", 6)]
    assert items[0].message == "待补充： 写明实验目的。"
    assert items[1].message == "待补充 (comment): check the units"


def test_an_open_item_keeps_the_math_and_macros_of_its_line(tmp_path):
    report = (
        "\\begin{document}\n"
        "\\textbf{TODO:} use $\\omega^2 = g/L$ and \\SI{9.81}{\\metre\\per\\second\\squared}.\n"
        "\\emph{TODO:} the \\textbf{error} in \\( T_0 \\) is 5\\%. % TODO\n"
        "\\end{document}\n"
    )
    items = open_items(fake_run_dir(tmp_path, report))
    assert [i.message for i in items] == [
        "TODO: use $\\omega^2 = g/L$ and \\SI{9.81}{\\metre\\per\\second\\squared}.",
        "TODO: the error in \\( T_0 \\) is 5%.",
    ]


def test_gaps_go_to_the_todo_that_names_them_and_close_when_it_is_removed(tmp_path):
    report = (
        "\\begin{document}\n"
        "\\textbf{TODO:} the value of $g$ with its uncertainty. % TODO\n"
        "\\textbf{TODO:} a plot of T against L. % TODO\n"
        "\\end{document}\n"
    )
    d = fake_run_dir(tmp_path, report)
    gaps = [
        {"requirement": "the value of g with its uncertainty", "supported": False, "why": "no"},
        {"requirement": "a plot of T against L", "supported": None, "why": "not checked"},
        {"requirement": "a photo of the apparatus", "supported": False, "why": "none"},
        {"requirement": "a table of the data", "supported": True, "why": "data.csv"},
    ]
    (d / "gaps.json").write_text(json.dumps(gaps))
    items = open_items(d)
    assert [(i.kind, i.line) for i in items] == [("gap", 2), ("gap", 3), ("gap", None)]
    assert items[0].message.startswith("Requirement not supported by the material: the value")
    assert items[1].message.startswith("Requirement not checked against the material")
    assert "photo" in items[2].message
    # the person writes the plot's paragraph and deletes its TODO: that gap is dealt with
    edited = report.replace("\\textbf{TODO:} a plot of T against L. % TODO\n", "Figure 1.\n")
    assert [i.line for i in open_items(d, edited)] == [2, None]


def test_unmatched_numbers_of_the_current_text_with_their_line(material, tmp_path):
    writer = lambda body: (  # noqa: E731
        text(INVENTED)
        if "complete LaTeX document" in json.dumps(body["messages"])
        else writer_turn(body)
    )
    with FakeLLM(route(EXPLORE, writer)) as llm:
        run(config_for(llm, material, tmp_path / "run"))
    rundir = tmp_path / "run"
    [item] = by_kind(open_items(rundir), "number")
    assert item.line == 4 and "9.93" in item.message and "g = 9.93" in item.detail
    fixed = INVENTED.replace(", so $g = 9.93$ m/s$^2$", "")
    assert by_kind(open_items(rundir, fixed), "number") == []  # the edit counts at once


# -- why degraded ----------------------------------------------------------------------------


def test_why_degraded_names_the_looping_call_and_the_files_read(material, tmp_path):
    script = [tool_calls(call("read_file", {"path": "manual.txt"}))] + [
        tool_calls(call("read_file", {"path": "data/pendulum.csv"}))
    ] * 10
    with FakeLLM(route(script)) as llm:
        events = run(config_for(llm, material, tmp_path / "run"))
    assert of_type(events, "done")[-1].reasons == ["loop"]
    why = why_degraded(tmp_path / "run")
    assert why == (
        "Exploration stopped: the model kept repeating the same calls. Details: "
        "read_file(data/pendulum.csv) was asked 5 times with the same "
        "arguments. This draft was written from the 2 files read before that: manual.txt, "
        "data/pendulum.csv. Check that every number and claim comes from them."
    )


def test_why_degraded_offline_and_ok(offline_run, tmp_path, material):
    assert why_degraded(offline_run).startswith("Offline run: no model read the material.")
    with FakeLLM(route(EXPLORE)) as llm:
        run(config_for(llm, material, tmp_path / "ok"))
    assert why_degraded(tmp_path / "ok") is None


def test_why_degraded_compile_failed_names_the_first_error(tmp_path):
    compile_entry = {
        "ok": False,
        "errors": [{"file": "report.tex", "line": 12, "message": "Undefined control sequence."}],
    }
    d = fake_run_dir(
        tmp_path, "x", status="degraded", reasons=["compile_failed"], compile=compile_entry
    )
    assert why_degraded(d) == (
        "The report did not compile; the last PDF that compiled is kept. First error at "
        "line 12: Undefined control sequence. Fix it in the editor and recompile."
    )


@pytest.mark.parametrize(
    "reason, words",
    [
        ("cycle", "same few calls. Details: the calls"),
        ("wander", "brought nothing new. Details: 8 of the last 10 calls"),
        ("iteration_cap", "without finishing. Details: no finish after 20 turns"),
        ("budget", "Exploration stopped: token budget reached"),
        ("no_evidence", "Nothing was read: the draft is a skeleton with TODOs."),
        ("draft_invalid", "usable LaTeX document"),
        ("cancelled", "The run was cancelled"),
        (
            "model error: timeout",
            "The model failed (timeout). It failed during the draft stage: slow",
        ),
        ("3 numbers not found in the material", "not found in the material that was read: 3."),
        ("model_error", "Exploration stopped because the model failed."),
        ("explore_cancelled", "Exploration was cancelled"),
        ("internal_error", "error.txt"),
        ("offline", "Offline run"),
        ("cut_short", "Exploration stopped before"),
        ("loop", "kept repeating the same calls"),
    ],
)
def test_why_degraded_explains_every_reason(tmp_path, reason, words):
    journal = [
        {"type": "guard", "kind": "cycle", "detail": "The calls A → B went round 3 times with "
         "the same arguments; exploration stopped and the report is drafted from what was read."},
        {"type": "guard", "kind": "wander", "detail": "8 of the last 10 calls brought nothing "
         "new (repeats); exploration stopped and the report is drafted from what was read."},
        {"type": "guard", "kind": "budget", "detail": "Token budget reached (45 of 40 tokens); "
         "exploration stopped."},
        {"type": "error", "stage": "draft", "message": "slow"},
    ]  # fmt: skip
    d = fake_run_dir(tmp_path, "x", status="degraded", reasons=[reason])
    (d / "events.jsonl").write_text("".join(json.dumps(e) + "\n" for e in journal))
    findings = {
        "reason": reason,
        "detail": "No finish after 20 turns and 2 final turns; exploration stopped.",
        "files_read": ["a.csv"],
    }
    (d / "findings.json").write_text(json.dumps(findings))
    why = why_degraded(d)
    assert words in why and not why.startswith("Degraded:")
    assert len(why) < 400


# -- edits, the generated draft, the diff ------------------------------------------------------


def test_save_edit_is_atomic_and_leaves_the_generated_draft_alone(offline_run, monkeypatch):
    generated = generated_draft(offline_run)
    assert generated == (offline_run / "drafts" / "v1.tex").read_text(encoding="utf-8")
    save_edit(offline_run, generated + "% my note\n")
    assert (offline_run / "report.tex").read_text(encoding="utf-8").endswith("% my note\n")
    assert generated_draft(offline_run) == generated
    drafts = sorted(p.name for p in (offline_run / "drafts").iterdir())
    assert drafts == ["v1.tex"]

    before = (offline_run / "report.tex").read_bytes()

    def fail(src, dst, **dir_fds):
        raise OSError("disk full")

    monkeypatch.setattr(os, "replace", fail)
    with pytest.raises(OSError):
        save_edit(offline_run, "half")
    assert (offline_run / "report.tex").read_bytes() == before
    assert not list(offline_run.glob(".report.tex.*"))  # no temp file left behind


def test_save_edit_of_the_same_text_does_not_rewrite(offline_run):
    path = offline_run / "report.tex"
    os.utime(path, ns=(1, 1))
    save_edit(offline_run, path.read_text(encoding="utf-8"))
    assert path.stat().st_mtime_ns == 1


def test_diff_lines_round_trip():
    before = "a\nb\nc\nd\n"
    after = "a\nB\nc\nd\ne\n"
    hunks = diff_lines(before, after)
    assert hunks == [
        ("equal", "a\n"),
        ("delete", "b\n"),
        ("insert", "B\n"),
        ("equal", "c\nd\n"),
        ("insert", "e\n"),
    ]
    assert "".join(t for op, t in hunks if op != "delete") == after
    assert "".join(t for op, t in hunks if op != "insert") == before
    assert diff_lines(before, before) == [("equal", before)]
    assert "-b\n+B\n" in unified_diff(before, after)


# -- recompile and SyncTeX ---------------------------------------------------------------------


@needs_tex
def test_recompile_keeps_the_last_good_pdf_and_publishes_a_fixed_one(offline_run):
    pdf = offline_run / "report.pdf"
    good = pdf.read_bytes()
    tex = (offline_run / "report.tex").read_text(encoding="utf-8")
    broken = tex.replace("\\section{Theory}", "\\section{Theory}\n\\undefinedmacro{x}")
    save_edit(offline_run, broken)

    bad = recompile(offline_run)
    assert not bad.ok and bad.pdf == pdf
    assert pdf.read_bytes() == good
    first = bad.errors[0]
    assert first.line == lines_of(broken, "\\undefinedmacro")[0]
    assert "\\undefinedmacro" in first.context
    meta = json.loads((offline_run / "run.json").read_text())
    assert meta["compile"]["ok"] is False and "compile_failed" in meta["reasons"]
    assert "First error at line" in why_degraded(offline_run)

    save_edit(offline_run, tex.replace("\\section{Theory}", "\\section{Theory}\nFixed text."))
    fixed = recompile(offline_run)
    assert fixed.ok and fixed.pdf == pdf and pdf.read_bytes() != good
    assert (offline_run / "report.synctex.gz").is_file()
    assert (offline_run / "build-review" / "report.pdf").is_file()
    meta = json.loads((offline_run / "run.json").read_text())
    assert meta["compile"]["ok"] is True and meta["reasons"] == ["offline"]
    assert not list(offline_run.glob(".*.tmp"))


@needs_tex
@needs_synctex
def test_synctex_round_trip_on_a_recompiled_report(offline_run):
    tex = offline_run / "report.tex"
    pdf = offline_run / "report.pdf"
    # the pipeline's PDF: its synctex file is the one in build/, which built that very PDF
    assert synctex.source_to_pdf(pdf, tex, 24) is not None
    (offline_run / "build" / "report.synctex.gz").unlink()
    assert synctex.source_to_pdf(pdf, tex, 24) is None
    assert synctex.pdf_to_source(pdf, 1, 100, 100) is None
    assert recompile(offline_run).ok  # publishes report.synctex.gz beside report.pdf
    line = lines_of(tex.read_text(encoding="utf-8"), "state the aim of the experiment")[0]
    page, x, y = synctex.source_to_pdf(pdf, tex, line)
    assert page == 1 and 0 < x < 600 and 0 < y < 850
    source, back = synctex.pdf_to_source(pdf, page, x + 20, y - 3)
    assert Path(source) == tex.resolve() and abs(back - line) <= 1


def test_synctex_without_the_tool_gives_none(offline_run, monkeypatch):
    (offline_run / "report.synctex.gz").write_bytes(b"not really")
    monkeypatch.setattr(synctex.shutil, "which", lambda name: None)
    assert synctex.pdf_to_source(offline_run / "report.pdf", 1, 100, 100) is None
    assert synctex.source_to_pdf(offline_run / "report.pdf", offline_run / "report.tex", 3) is None


# -- re-draft ---------------------------------------------------------------------------------


def _point_run_at(rundir: Path, llm: FakeLLM) -> None:
    """The fake listens on a new port each time: the run was "made" with this one, so it
    goes on with the run's models there (the server itself is given as a flag)."""
    meta = json.loads((rundir / "run.json").read_text())
    meta["config"]["base_url"] = llm.base_url
    (rundir / "run.json").write_text(json.dumps(meta))


def _no_exploring(body, n):
    raise AssertionError("a re-draft asked the explore model")


def test_redraft_with_a_note_drafts_again_without_exploring(material, tmp_path):
    rundir = tmp_path / "run"
    with FakeLLM(route(EXPLORE)) as llm:
        first = run(config_for(llm, material, rundir, reflect=1))
    plan = json.loads((rundir / "run.json").read_text())["plan"]
    calls_before = json.loads((rundir / "run.json").read_text())["calls"]
    generated = generated_draft(rundir)
    edited = generated.replace("was read.", "was read by me.")
    save_edit(rundir, edited)

    drafts_seen: list[str] = []
    redrafted = MINIMAL_REPORT.replace("was read.", "was read, in SI units.")

    def writer(body):
        prompt = json.dumps(body["messages"], ensure_ascii=False)
        if "complete LaTeX document" in prompt:
            drafts_seen.append(body["messages"][-1]["content"])
            return text(redrafted)
        return writer_turn(body)

    with FakeLLM(route(_no_exploring, writer)) as llm:
        _point_run_at(rundir, llm)
        events = list(
            redraft(rundir, note="use SI units", api_key="sk-test", base_url=llm.base_url)
        )
        assert explore_requests(llm) == []

    [prompt] = drafts_seen
    assert "# Notes from the person" in prompt and "use SI units" in prompt
    milestones = of_type(events, "milestone")
    head = milestones[0]
    assert (head.stage, head.status, head.index, head.total) == (
        "draft",
        "start",
        plan.index("draft") + 1,
        len(plan),
    )
    assert head.detail == RedraftDetail("use SI units")
    assert head.to_dict()["detail"] == {"redraft": True, "note": "use SI units"}
    assert [m.stage for m in milestones if m.status != "start"] == plan[plan.index("draft") :]
    done = of_type(events, "done")[-1]
    assert done.status == "ok" and done.reasons == []
    n = max(d.version for d in of_type(first, "draft"))
    assert (rundir / "drafts" / f"v{n + 1}.tex").read_text() == redrafted.strip()
    assert (rundir / "drafts" / "edited-1.tex").read_text() == edited  # the person's work kept
    assert (rundir / "report.tex").read_text() == redrafted.strip()
    assert generated_draft(rundir) == redrafted.strip()
    journal = [json.loads(x) for x in (rundir / "events.jsonl").read_text().splitlines()]
    assert [e["stage"] for e in journal if e["type"] == "milestone"].count("scan") == 2
    assert journal[-1]["type"] == "done"
    meta = json.loads((rundir / "run.json").read_text())
    assert meta["status"] == "ok" and meta["calls"]["explore"] == 2  # the first run's, kept
    # the usage sums the first run and the re-draft (one draft, one critique)
    assert meta["calls"]["write"] == calls_before["write"] + 1
    assert meta["calls"]["reflect"] == calls_before["reflect"] + 1


def test_a_killed_redraft_resumes_as_a_redraft(material, tmp_path, monkeypatch, capsys):
    rundir = tmp_path / "run"
    with FakeLLM(route(EXPLORE)) as llm:
        run(config_for(llm, material, rundir))
    with FakeLLM(route(_no_exploring)) as llm:
        _point_run_at(rundir, llm)
        gen = redraft(rundir, note="shorter", api_key="sk-test", base_url=llm.base_url)
        for event in gen:
            if event.type == "milestone" and event.stage == "draft" and event.status == "end":
                break
        gen.close()  # the process "dies" after the new draft
        monkeypatch.setenv("LABWRIGHT_API_KEY", "sk-test")
        assert main(["run", "--resume", str(rundir), "--base-url", llm.base_url, "--json"]) == 0
        drafts = [r for r in llm.requests if "complete LaTeX document" in json.dumps(r)]
    assert len(drafts) == 1  # the draft was not made again
    stages = [json.loads(x).get("stage") for x in capsys.readouterr().out.splitlines()]
    assert "bib" in stages and "draft" not in stages  # bib of the first run no longer counts


def test_redraft_refuses_what_it_cannot_do(offline_run, material, tmp_path):
    with pytest.raises(RedraftError, match="offline"):
        next(redraft(offline_run))
    with FakeLLM(route(EXPLORE)) as llm:
        run(config_for(llm, material, tmp_path / "model-run"))
    meta = json.loads((tmp_path / "model-run" / "run.json").read_text())
    meta["config"]["base_url"] = "https://api.deepseek.com/v1"
    (tmp_path / "model-run" / "run.json").write_text(json.dumps(meta))
    with pytest.raises(RedraftError, match="No API key"):
        next(redraft(tmp_path / "model-run"))
    with pytest.raises(RedraftError, match="not a Labwright run"):
        next(redraft(tmp_path))
