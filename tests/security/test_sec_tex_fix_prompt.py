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
