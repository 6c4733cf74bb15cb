r"""A whole run whose model writes file-reading LaTeX: nothing outside reaches the
model server (the compile-fix prompt), the run directory or the PDF (issue 11).

The scripted write model answers every draft with a report that reads the
outside canary by absolute path and ``../`` path, reads the labwright
process's /proc/<pid>/environ, and ends with an error, so the compile fails
and the compile-fix prompt is built from the log. Every request body the fake
server received, every file of the run and the run's export are searched for
the canary and the key; the error text the fix model gets must name no file
outside the run.
"""

from __future__ import annotations

import json
import os

from agent_helpers import FINISH_ARGS, config_for, guard_kinds, of_type, route, run, writer_turn
from canary import CANARY, SECRET_KEY, leaks
from fakes import FakeLLM, call, text, tool_calls
from labwright.cli import main

EXPLORE = [
    tool_calls(call("read_file", {"path": "data/pendulum.csv"})),
    tool_calls(call("finish_exploration", FINISH_ARGS)),
]


def test_fix_prompt_and_run_carry_no_outside_text_or_key(material, tmp_path, outside_canary):
    rel = os.path.relpath(outside_canary, tmp_path / "run")
    report = (
        "\\documentclass{article}\n\\usepackage{verbatim}\n\\begin{document}\n"
        "\\section{Introduction}\nThe pendulum data in data/pendulum.csv was read.\n"
        # an error that quotes what it read: the log, then the fix prompt, would carry it
        f"\\newread\\rd \\immediate\\openin\\rd={{{outside_canary}}} "
        "\\immediate\\read\\rd to\\x \\errmessage{\\x}\n"
        f"\\verbatiminput{{{outside_canary}}}\n"
        f"\\input{{{rel}}}\n"
        f"\\catcode0=9 \\verbatiminput{{/proc/{os.getpid()}/environ}}\n"
        "\\undefinedmacro\n\\end{document}\n"
    )
    fix_prompts: list[str] = []

    def writer(body):
        prompt = json.dumps(body["messages"])
        if "does not compile" in prompt:
            fix_prompts.append(body["messages"][-1]["content"])
            return text(report)
        if "complete LaTeX document" in prompt:
            return text(report)
        return writer_turn(body)

    with FakeLLM(route(EXPLORE, writer)) as llm:
        config = config_for(llm, material, tmp_path / "run", compile=True, api_key=SECRET_KEY)
        events = run(config)
        bodies = json.dumps(llm.requests)

    assert guard_kinds(events).count("compile_fix") >= 1 and fix_prompts
    assert CANARY not in bodies and SECRET_KEY not in bodies
    # the errors part is built from the log; the report part is the model's own text
    errors_part = "\n".join(p.split("\n# Report\n", 1)[0] for p in fix_prompts)
    assert "undefinedmacro" in errors_part or "<path outside the run>" in errors_part
    assert str(outside_canary) not in errors_part and str(outside_canary.parent) not in errors_part
    assert leaks([tmp_path / "run"], [CANARY, SECRET_KEY]) == []
    assert of_type(events, "done")[-1].status in ("degraded", "failed")
    dest = tmp_path / "export.zip"
    assert main(["export", str(tmp_path / "run"), str(dest), "--zip"]) == 0
    assert leaks([dest], [CANARY, SECRET_KEY]) == []


# -- lines the model's TeX writes to the log are not file names to quote (issue 21) --

FORGED = (
    "\\documentclass{article}\n\\begin{document}\n"
    "\\section{Introduction}\nThe pendulum data in data/pendulum.csv was read.\n"
    # what TeX writes to the log looks like TeX's own `file:line: error` lines
    "\\immediate\\write17{./events.jsonl:2: Forged error about the journal.}\n"
    "\\immediate\\write17{./run.json:3: Forged error about the run.}\n"
    "\\immediate\\write17{./report.tex:4: Forged error about the report.}\n"
    "\\undefinedmacro\n\\end{document}\n"
)


def _quoted(prompt: str, path, first: int, last: int) -> list[str]:
    """Lines first..last of `path` that `prompt` quotes as source context ("N | text")."""
    lines = path.read_text(encoding="utf-8").splitlines()
    return [
        f"{n} | {lines[n - 1][:40]}"
        for n in range(first, min(last, len(lines)) + 1)
        if f"{n} | {lines[n - 1][:40]}" in prompt
    ]


def test_forged_log_lines_quote_no_file_but_the_report(material, tmp_path):
    """`\\immediate\\write17{./events.jsonl:2: ...}` made Labwright quote lines 1-5
    of the journal in the compile-fix request and in run.json. The same forgery
    naming report.tex does quote report.tex: the check would see a quote."""
    fix_prompts: list[str] = []

    def writer(body):
        prompt = json.dumps(body["messages"])
        if "does not compile" in prompt:
            fix_prompts.append(body["messages"][-1]["content"])
            return text(FORGED)
        if "complete LaTeX document" in prompt:
            return text(FORGED)
        return writer_turn(body)

    with FakeLLM(route(EXPLORE, writer)) as llm:
        config = config_for(llm, material, tmp_path / "run", compile=True, api_key=SECRET_KEY)
        events = run(config)

    run_dir = tmp_path / "run"
    assert guard_kinds(events).count("compile_fix") >= 1 and fix_prompts
    errors_part = "\n".join(p.split("\n# Report\n", 1)[0] for p in fix_prompts)
    assert "Forged error about the journal" in errors_part  # the line itself is shown
    assert _quoted(errors_part, run_dir / "events.jsonl", 1, 5) == []
    assert _quoted(errors_part, run_dir / "run.json", 1, 6) == []
    assert _quoted(errors_part, run_dir / "report.tex", 1, 7) != []  # the control
    journal = (run_dir / "events.jsonl").read_text(encoding="utf-8").splitlines()[:5]
    record = (run_dir / "run.json").read_text(encoding="utf-8")
    assert not any(line[:60] in record for line in journal if len(line) > 30)


def test_compile_tex_quotes_only_the_report_and_its_bib(tmp_path):
    """Through compile_tex: errors naming the journal, run.json, a figure's code or a
    system file carry no context; those naming report.tex and refs.bib do."""
    from labwright.core.report.latex import compile_tex, probe_engines

    run_dir = tmp_path / "run"
    (run_dir / "figures").mkdir(parents=True)
    for name in ("events.jsonl", "run.json", "figures/fig1.py", "refs.bib"):
        (run_dir / name).write_text(f"{CANARY} first\n{CANARY} second\n", encoding="utf-8")
    names = ["events.jsonl", "run.json", "figures/fig1.py", "/etc/hostname", "refs.bib"]
    forged = "".join(f"\\immediate\\write17{{./{n}:1: Forged.}}\n" for n in names)
    forged = forged.replace(".//etc", "/etc")
    tex = run_dir / "report.tex"
    tex.write_text(FORGED.replace("\\undefinedmacro", forged + "\\undefinedmacro"), "utf-8")

    result = compile_tex(tex, engines=probe_engines())

    contexts = {e.file: e.context for e in result.errors}
    assert {"events.jsonl", "run.json", "figures/fig1.py"} <= set(contexts)
    assert all(contexts[n] == "" for n in ("events.jsonl", "run.json", "figures/fig1.py"))
    assert not any(CANARY in contexts[n] for n in contexts if n != "refs.bib")
    assert CANARY in contexts["refs.bib"] and "Forged error about the report" in str(result.errors)
    report = [e.context for e in result.errors if e.file == "report.tex" and e.line == 4]
    assert report and "\\section{Introduction}" in report[0]  # the forged line, in the report
