"""Every compile error located: TeX's context lines matched back to the source, and the
structural check (chktex, or Labwright's own scan) where TeX cannot say (issue 24).

The logs are excerpts of XeLaTeX's own logs for these very sources (TeX Live 2022,
`-file-line-error`); tests/test_review_pane.py runs the same cases through a real
compile in the review pane."""

from __future__ import annotations

import shutil

import pytest

from labwright.core.report.latex import build, structure
from labwright.core.report.latex.logparse import parse_log, parse_log_errors
from labwright.core.report.latex.structure import (
    check_structure,
    chktex_brace_problems,
    structure_problems,
)
from labwright.core.report.templates import load_template

HEAD = "\\documentclass{article}\n\\begin{document}\n\n"
TAIL = "\n\\emph{The manual covers:} the pendulum.\n\n\\end{document}\n"


def doc(*body: str) -> str:
    """A document whose body lines start on line 4."""
    return HEAD + "\n".join(body) + TAIL


UNCLOSED_BOLD_LOG = r"""(./report.aux)
Runaway argument?
{a metre rule to measure the length. \par \emph {The manual covers:} \ETC.
! File ended while scanning use of \textbf .
<inserted text>
                \par
<*> report.tex

Here is how much of TeX's memory you used:
"""

MISSING_DOLLAR_LOG = r"""./report.tex:5: Missing $ inserted.
<inserted text>
                $
l.5

Here is how much of TeX's memory you used:
"""

ENDED_BY_LOG = r"""./report.tex:11: LaTeX Error: \begin{itemize} on input line 4 ended by \end{document}.

See the LaTeX manual or LaTeX Companion for explanation.
Type  H <return>  for immediate help.
 ...

l.11 \end{document}
"""

CAPTION_LOG = r"""./report.tex:6: Undefined control sequence.
<argument> ...gnorespaces The period \nosuchmacro
                                                  against length of the pend...
l.6 length of the pendulum.}
                             \label{fig:table1}
"""

CAPTION_BRACE_LOG = r"""Runaway argument?
{The period {against length.}\label {fig:a} \end {figure} \par \section \ETC.
! File ended while scanning use of \@xdblarg.
<inserted text>
                \par
<*> report.tex
"""


def test_an_unclosed_textbf_is_found_from_the_runaway_argument() -> None:
    source = doc("Some text.", "", "We used \\textbf{a metre rule to measure the length.")
    (error,) = parse_log(UNCLOSED_BOLD_LOG, source)
    assert error.line == 6
    assert "File ended while scanning use of \\textbf" in error.message
    assert "{a metre rule" in error.message  # the runaway text, as TeX showed it
    assert "> 6 | We used \\textbf{a metre rule" in error.context


def test_the_runaway_text_prefers_the_command_tex_named() -> None:
    source = doc(
        "a metre rule to measure the length.", "", "\\textbf{a metre rule to measure the length."
    )
    (error,) = parse_log(UNCLOSED_BOLD_LOG, source)
    assert error.line == 6  # not line 4, where the same words stand without \textbf


def test_a_runaway_over_several_lines_of_a_caption_is_found() -> None:
    source = doc(
        "\\begin{figure}",
        "\\caption{The period {against length.}\\label{fig:a}",
        "\\end{figure}",
    )
    (error,) = parse_log(CAPTION_BRACE_LOG, source)
    assert error.line == 5


def test_a_dollar_noticed_at_the_paragraph_end_points_at_the_dollar() -> None:
    source = doc("The period $T = 2\\pi\\sqrt{L/g} was measured.")
    (error,) = parse_log(MISSING_DOLLAR_LOG, source)
    assert error.line == 4  # TeX said 5: the blank line that ended the paragraph
    assert "Missing $ inserted." in error.message and "$ on line 4" in error.message


def test_a_missing_end_points_at_its_begin() -> None:
    source = doc("\\begin{itemize}", "  \\item one", "  \\item two")
    (error,) = parse_log(ENDED_BY_LOG, source)
    assert error.line == 4


def test_an_undefined_command_in_a_two_line_caption_goes_back_to_its_line() -> None:
    source = doc(
        "\\begin{figure}",
        "\\caption{The period \\nosuchmacro against",
        "length of the pendulum.}\\label{fig:table1}",
        "\\end{figure}",
    )
    (error,) = parse_log(CAPTION_LOG, source)
    assert error.line == 5  # TeX said 6, where the argument ended


def test_an_undefined_command_on_its_own_line_stays_there() -> None:
    source = doc("We used \\nosuch here.", "", "Then \\nosuch again.")
    log = "./report.tex:6: Undefined control sequence.\nl.6 Then \\nosuch\n                again.\n"
    (error,) = parse_log(log, source)
    assert error.line == 6


def test_an_error_without_a_line_takes_the_structural_check() -> None:
    source = doc("\\begin{itemize}", "\\item one")
    log = "! Emergency stop.\n*** (job aborted, no legal \\end found)\n"
    (error,) = parse_log(log, source)
    assert error.line == 4 and "\\begin{itemize} on line 4" in error.message


def test_a_forged_runaway_names_only_a_line_of_the_report() -> None:
    """The log is TeX's, so the model's: the runaway text only ever picks a line of the
    report (never another file), and a text found nowhere leaves the line unknown."""
    log = "Runaway argument?\n{no such words anywhere\n! File ended while scanning use of \\textbf .\n"
    (error,) = parse_log(log, doc("Fine text."))
    assert error.line is None and error.file == "report.tex"
    seen = []

    def read(file: str) -> str | None:
        seen.append(file)
        return None

    parse_log_errors("./events.jsonl:2: Undefined control sequence.\nl.2 \\x\n", read, "report.tex")
    assert seen == ["events.jsonl"]  # asked for, refused by read_source: nothing quoted


# -- the structural check ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("body", "line", "kind"),
    [
        (["We used \\textbf{a metre rule."], 4, "brace"),
        (["We used a metre rule} here."], 4, "brace"),
        (["The period $T = 2\\pi was measured."], 4, "math"),
        (["\\[ x = 1", "", "\\]"], 4, "math"),
        (["\\begin{itemize}", "\\item one"], 4, "environment"),
        (["\\begin{figure}", "\\caption{open", "\\end{figure}"], 5, "brace"),
        (["\\end{table}"], 4, "environment"),
    ],
)
def test_the_own_check_finds_each_imbalance(body, line, kind) -> None:
    problems = check_structure(doc(*body))
    assert [(p.line, p.kind) for p in problems][:1] == [(line, kind)], problems


def test_the_own_check_is_quiet_on_balanced_sources(offline_template) -> None:
    """No false alarms: the offline report, the templates, escapes, verbatim, comments."""
    tricky = doc(
        "Costs \\$5 and 50\\% {\\em more} \\{set\\} % a } in a comment",
        "\\verb|}{$| and $a^{2}$, $$b$$, \\(c\\), \\[d\\]",
        "\\begin{verbatim}",
        "} $ \\begin{x}",
        "\\end{verbatim}",
        "\\begin{equation}",
        "\\left\\{ x \\right. \\\\[2pt]",
        "\\end{equation}",
    )
    assert check_structure(tricky) == []
    assert check_structure((offline_template / "report.tex").read_text(encoding="utf-8")) == []
    for name in ("lab-en", "lab-zh", "brief-en"):
        preamble = load_template(name).preamble
        assert check_structure(preamble + "\n\\begin{document}\nText.\n\\end{document}\n") == []


@pytest.mark.skipif(shutil.which("chktex") is None, reason="chktex is not installed")
def test_chktex_finds_the_braces_and_the_own_check_the_rest() -> None:
    source = doc("We used \\textbf{a metre rule.", "", "\\begin{itemize}")
    braces = chktex_brace_problems(source)
    assert braces is not None and [p.line for p in braces] == [4]
    assert "(chktex)" in braces[0].message
    problems = structure_problems(source)
    assert [(p.line, p.kind) for p in problems] == [(4, "brace"), (6, "environment")]
    assert "(chktex)" in problems[0].message
    # an open $ hides the brace from chktex: the own scan's answer is taken
    hidden = doc("We used \\textbf{a metre rule.", "", "The period $T was.")
    assert chktex_brace_problems(hidden) == []
    assert [(p.line, p.kind) for p in structure_problems(hidden)] == [(4, "brace"), (6, "math")]


def test_without_chktex_the_own_check_finds_the_braces(monkeypatch) -> None:
    monkeypatch.setattr(structure.shutil, "which", lambda name: None)
    source = doc("We used \\textbf{a metre rule.")
    assert chktex_brace_problems(source) is None
    (problem,) = structure_problems(source)
    assert problem.line == 4 and "(chktex)" not in problem.message


@pytest.mark.skipif(shutil.which("chktex") is None, reason="chktex is not installed")
def test_chktex_follows_no_input_of_the_source(tmp_path, outside_canary) -> None:
    """chktex reads what it is given and nothing the source names (-I0, confined)."""
    outside_canary.write_text("\\textbf{unclosed in the outside file\n", encoding="utf-8")
    source = doc(f"\\input{{{outside_canary}}}", "Fine.")
    assert chktex_brace_problems(source) == []
    control = doc("\\textbf{unclosed in the outside file")  # the same text given: found
    assert [p.line for p in chktex_brace_problems(control) or []] == [4]


def test_the_compile_asks_tex_for_file_and_line() -> None:
    assert "-file-line-error" in build._latexmk_cmd("latexmk", "xelatex", "report.tex", "build")
