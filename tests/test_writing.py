"""Unit tests of the writing stages' validation, bibliography and convergence rules."""

from __future__ import annotations

import pytest

from agent_helpers import MINIMAL_REPORT
from labwright.core.llm.client import Usage
from labwright.core.report.templates import TemplateError, available, load_template
from labwright.core.report.writing import (
    Writer,
    build_bib,
    changed_materially,
    cite_keys,
    ensure_bibliography,
    latex_problems,
    material_refs,
    strip_fences,
)
from labwright.core.settings.config import RunConfig


def test_fences_are_stripped_not_failures():
    fenced = f"Here is the report:\n```latex\n{MINIMAL_REPORT}```\nHope it helps."
    assert strip_fences(fenced) == MINIMAL_REPORT.strip()
    assert latex_problems(strip_fences(fenced)) == []


@pytest.mark.parametrize(
    "leak",
    [
        "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>read_file",
        "<｜DSML｜function_calls>",
        '<tool_call>{"name": "read_file"}</tool_call>',
        '{"tool_calls": [{"id": "x"}]}',
    ],
)
def test_tool_call_markup_makes_a_draft_invalid(leak):
    doc = MINIMAL_REPORT.replace("\\section{Introduction}", "\\section{Introduction}\n" + leak)
    assert any("contains" in p for p in latex_problems(doc))


def test_a_fragment_is_not_a_document():
    assert set(latex_problems("\\section{Results} g = 9.8")) == {
        "no \\documentclass",
        "no \\begin{document}",
        "no \\end{document}",
    }


def test_cite_keys_in_order_without_duplicates():
    tex = r"as in \cite{a,b} and \citep[p.~3]{c} and \cite{a}"
    assert cite_keys(tex) == ["a", "b", "c"]


def test_whitespace_is_not_a_material_change_but_a_number_is():
    assert not changed_materially("g = 9.8\nm/s", "g  =  9.8 m/s")
    assert changed_materially("g = 9.8 m/s", "g = 9.7 m/s")


def test_material_documents_become_citable_keys():
    refs = material_refs(["Manual/Lab Manual.pdf", "Manual/Lab Manual.docx", "guide.md"])
    assert [r["key"] for r in refs] == ["mat:lab-manual", "mat:guide"]


def _writer(tmp_path, llm=None) -> Writer:
    return Writer(RunConfig(folder=tmp_path), llm, Usage(), load_template("lab-en"))


def test_bib_keeps_material_refs_and_flags_what_cannot_resolve(tmp_path):
    tex = r"\cite{mat:lab-manual} and \cite{taylor1997}" + "\n\\end{document}"
    gen = build_bib(_writer(tmp_path), tex, material_refs(["Lab Manual.pdf"]))
    with pytest.raises(StopIteration) as stop:
        next(gen)  # no model: nothing to yield
    bib, unresolved = stop.value.value
    assert "@misc{mat:lab-manual" in bib and "Lab Manual.pdf" in bib
    assert unresolved == ["taylor1997"]


def test_bibliography_line_is_added_only_when_something_is_cited():
    assert ensure_bibliography(MINIMAL_REPORT, "unsrt") == MINIMAL_REPORT
    cited = MINIMAL_REPORT.replace("was read.", r"was read \cite{x}.")
    out = ensure_bibliography(cited, "unsrt")
    assert out.index("\\bibliography{refs}") < out.index("\\end{document}")


def test_templates_exist_in_both_languages_and_unknown_names_are_explained():
    assert {"lab-en", "lab-zh"} <= set(available())
    zh = load_template(lang="zh")
    assert "ctexart" in zh.preamble and zh.sections[0] == "实验目的"
    with pytest.raises(TemplateError, match="Available: .*lab-en"):
        load_template("no-such")
