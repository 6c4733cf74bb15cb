"""labwright.core.report.latex: probe, compile (real TeX), log parsing, escaping."""

from __future__ import annotations

import dataclasses
import os
import sys
import time
import uuid
from pathlib import Path

import pytest
from pypdf import PdfReader

from labwright.core.report.latex import (
    NO_ENGINES,
    Engines,
    compile_tex,
    escape_latex,
    parse_blg,
    parse_log,
    parse_warnings,
    probe_engines,
    subprocess_env,
)

ENGINES = probe_engines()

# On CI the TeX tests are the point: a machine without TeX must fail, not skip.
if os.environ.get("CI") == "true" and not ENGINES.can_compile_lang("zh"):
    raise RuntimeError(
        "CI=true but no usable TeX for English and Chinese reports was found: "
        f"{ENGINES.to_dict()}. .ci/run must install it: {ENGINES.install_hint()}"
    )

needs_tex = pytest.mark.skipif(not ENGINES.can_compile, reason="no TeX engine installed")
needs_zh = pytest.mark.skipif(
    not ENGINES.can_compile_lang("zh"), reason="no XeLaTeX + ctex + CJK font"
)

ENGLISH = r"""\documentclass{article}
\usepackage{graphicx}
\begin{document}
\section{Results}
The method follows Knuth~\cite{knuth1984}; the data are in Figure~\ref{fig:plot}.
\begin{figure}[h]
  \centering
  \includegraphics[width=0.5\linewidth]{figures/plot.pdf}
  \caption{Measured values}
  \label{fig:plot}
\end{figure}
\newpage
\section{Discussion}
The second page.
\bibliographystyle{plain}
\bibliography{refs}
\end{document}
"""

REFS = """@book{knuth1984,
  author = {Donald E. Knuth},
  title = {The TeXbook},
  publisher = {Addison-Wesley},
  year = {1984}
}
"""

CHINESE = r"""\documentclass[UTF8]{ctexart}
\begin{document}
\section{实验目的}
测量重力加速度。\textbf{粗体}与\textsf{黑体}。
\end{document}
"""

BROKEN_LINE = 5
BROKEN = r"""\documentclass{article}
\begin{document}
First line of text.
Second line of text.
Here comes \undefinedmacro{x} trouble.
Last line.
\end{document}
"""


def _text(pdf: Path) -> str:
    return "\n".join(page.extract_text() or "" for page in PdfReader(pdf).pages)


def _write(folder: Path, text: str, name: str = "report.tex") -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    tex = folder / name
    tex.write_text(text, encoding="utf-8")
    return tex


def _make_figure(path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    path.parent.mkdir(parents=True, exist_ok=True)
    fig, ax = plt.subplots(figsize=(3, 2))
    ax.plot([0, 1, 2, 3], [0, 1, 4, 9], marker="o")
    ax.set_xlabel("t / s")
    fig.savefig(path)
    plt.close(fig)


# --- probe -----------------------------------------------------------------


def test_probe_is_cached_and_fast() -> None:
    start = time.monotonic()
    fresh = probe_engines(refresh=True)
    assert time.monotonic() - start < 1.0
    assert probe_engines() is fresh  # once per process
    assert fresh.to_dict()["engine"] == fresh.engine


def test_no_engine_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("LABWRIGHT_TEX", "none")
    engines = probe_engines()
    assert engines.engine is None
    assert not engines.can_compile
    assert not engines.can_compile_lang("zh")
    assert engines.install_hint()
    for platform in ("linux", "darwin", "win32"):
        assert engines.install_hint(platform)
    assert "mactex" in engines.install_hint("darwin").lower()
    assert "miktex" in engines.install_hint("win32").lower()

    result = compile_tex(_write(tmp_path, BROKEN), engines=engines)
    assert not result.ok and result.pdf is None and result.engine is None
    assert "No TeX engine" in result.errors[0].message
    assert not (tmp_path / "build").exists()


def test_engine_preference_and_languages() -> None:
    every = Engines("/x/latexmk", "/x/xelatex", "/x/lualatex", "/x/pdflatex", True, True)
    assert every.engine == "xelatex" and every.can_compile_lang("zh-CN")
    assert dataclasses.replace(every, xelatex=None).engine == "lualatex"
    pdf_only = dataclasses.replace(every, xelatex=None, lualatex=None)
    assert pdf_only.engine == "pdflatex"
    assert pdf_only.can_compile_lang("en") and not pdf_only.can_compile_lang("zh")
    assert not dataclasses.replace(every, cjk_font=False).can_compile_lang("zh")
    assert not dataclasses.replace(every, ctex=False).can_compile_lang("zh")
    lua_only = dataclasses.replace(every, xelatex=None)
    assert not lua_only.can_compile_lang("zh")  # ctex on LuaLaTeX needs LuaTeX-ja
    assert dataclasses.replace(lua_only, luatexja=True).can_compile_lang("zh")
    assert NO_ENGINES.install_hint() and every.install_hint() == ""


def test_subprocess_env_drops_secrets(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DEEPSEEK_API_KEY", "sk-secret")
    monkeypatch.setenv("GITHUB_TOKEN", "t")
    monkeypatch.setenv("my_secret_thing", "s")
    env = subprocess_env()
    assert not {"DEEPSEEK_API_KEY", "GITHUB_TOKEN", "my_secret_thing"} & env.keys()
    assert env["max_print_line"] == "10000" and env["openout_any"] == "p"
    assert "PATH" in env
    assert subprocess_env(extra_path=["/opt/tex/bin"])["PATH"].endswith(os.pathsep + "/opt/tex/bin")


@pytest.mark.skipif(sys.platform.startswith("win"), reason="POSIX executable bits")
def test_probe_finds_tex_outside_path(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    from labwright.core.report.latex import probe

    fake = tmp_path / "texbin" / "xelatex"
    fake.parent.mkdir()
    fake.write_text("#!/bin/sh\n", encoding="utf-8")
    fake.chmod(0o755)
    with monkeypatch.context() as m:
        m.setenv("PATH", str(tmp_path / "empty"))
        m.setattr(probe, "_extra_tex_dirs", lambda: [str(fake.parent)])
        found = probe_engines(refresh=True)
    probe_engines(refresh=True)  # restore the real cache for the other tests
    assert found.xelatex == str(fake) and found.latexmk is None
    assert found.tool_dirs() == [str(fake.parent)]


# --- compile ---------------------------------------------------------------


@needs_tex
def test_english_report_with_figure_and_bibliography(tmp_path: Path) -> None:
    tex = _write(tmp_path, ENGLISH)
    (tmp_path / "refs.bib").write_text(REFS, encoding="utf-8")
    _make_figure(tmp_path / "figures" / "plot.pdf")

    result = compile_tex(tex, engines=ENGINES)

    assert result.ok, result.errors
    assert result.pdf == tmp_path / "report.pdf"
    assert result.engine == ENGINES.engine and result.seconds > 0
    assert len(PdfReader(result.pdf).pages) == 2
    text = _text(result.pdf)
    assert "The TeXbook" in text and "[1]" in text  # the citation resolved
    assert not [w for w in result.warnings if "undefined" in w]
    # Build products stay in build/; the run directory only gains the PDF.
    assert {p.name for p in tmp_path.iterdir()} == {
        "report.tex",
        "refs.bib",
        "figures",
        "build",
        "report.pdf",
    }


@needs_tex
def test_without_latexmk_runs_engine_and_bibtex(tmp_path: Path) -> None:
    tex = _write(tmp_path, ENGLISH)
    (tmp_path / "refs.bib").write_text(REFS, encoding="utf-8")
    _make_figure(tmp_path / "figures" / "plot.pdf")

    result = compile_tex(tex, engines=dataclasses.replace(ENGINES, latexmk=None))

    assert result.ok, result.errors
    text = _text(result.pdf)
    assert "The TeXbook" in text and "[1]" in text and "Figure 1" in text


@needs_zh
def test_chinese_report_text_is_extractable(tmp_path: Path) -> None:
    # A folder name with a space and Chinese, as users' folders often have.
    tex = _write(tmp_path / "实验 报告", CHINESE)

    result = compile_tex(tex, engines=ENGINES)

    assert result.ok, result.errors
    assert len(PdfReader(result.pdf).pages) == 1
    fandol_only = sys.platform.startswith("linux") and ENGINES.ctex_fontset is None
    if fandol_only and os.environ.get("CI") != "true":
        pytest.skip(
            "only Fandol fonts: the PDF's text cannot be extracted (install fonts-noto-cjk)"
        )
    # Fails with CTeX's Linux default (Fandol: no ToUnicode map in the PDF);
    # passes because the probe picks the Noto CJK fontset when it is there.
    text = _text(result.pdf)
    assert "实验目的" in text and "重力加速度" in text
    assert not [w for w in result.warnings if "Missing character" in w]


@needs_tex
def test_error_then_fix_then_break_keeps_last_good_pdf(tmp_path: Path) -> None:
    tex = _write(tmp_path, BROKEN)

    broken = compile_tex(tex, engines=ENGINES)
    assert not broken.ok and broken.pdf is None
    assert not (tmp_path / "report.pdf").exists()
    first = broken.errors[0]
    assert first.line == BROKEN_LINE and first.file == "report.tex"
    assert "Undefined control sequence" in first.message
    assert r"\undefinedmacro" in first.context
    assert f"> {BROKEN_LINE} | Here comes" in first.context

    fixed_source = BROKEN.replace(r"\undefinedmacro{x}", "no")
    tex.write_text(fixed_source, encoding="utf-8")
    fixed = compile_tex(tex, engines=ENGINES)
    assert fixed.ok and fixed.pdf == tmp_path / "report.pdf"
    assert "Here comes no trouble" in _text(fixed.pdf)
    good_bytes = fixed.pdf.read_bytes()

    tex.write_text(fixed_source.replace("Last line.", r"\alsoundefined"), encoding="utf-8")
    again = compile_tex(tex, engines=ENGINES)
    assert not again.ok and again.errors[0].line == 6
    assert again.pdf == tmp_path / "report.pdf"
    assert again.pdf.read_bytes() == good_bytes
    assert not list(tmp_path.glob("*.tmp"))


@needs_tex
@pytest.mark.parametrize("latexmk", [True, False], ids=["latexmk", "direct"])
def test_broken_bibliography_points_into_refs_bib(tmp_path: Path, latexmk: bool) -> None:
    tex = _write(tmp_path, ENGLISH.replace(r"\includegraphics", r"%\includegraphics"))
    (tmp_path / "refs.bib").write_text(REFS.replace("Knuth},", "Knuth}"), encoding="utf-8")
    engines = ENGINES if latexmk else dataclasses.replace(ENGINES, latexmk=None)

    result = compile_tex(tex, engines=engines)

    assert not result.ok and result.pdf is None
    bib_error = next(e for e in result.errors if e.file == "refs.bib")
    assert bib_error.line == 3 and "BibTeX" in bib_error.message
    assert "> 3 |   title = {The TeXbook}," in bib_error.context


@needs_tex
def test_warnings_for_citations_references_and_missing_glyphs(tmp_path: Path) -> None:
    tex = _write(
        tmp_path,
        "\\documentclass{article}\n\\begin{document}\n"
        "Hello 中文. See \\cite{nokey} and \\ref{nolabel}.\n\\end{document}\n",
    )
    result = compile_tex(tex, engines=ENGINES)
    assert result.ok
    joined = "\n".join(result.warnings)
    assert "Citation `nokey' undefined" in joined
    assert "Reference `nolabel' undefined" in joined
    if ENGINES.engine in ("xelatex", "lualatex"):
        assert "中" in joined and "ctex" in joined


@needs_tex
def test_escaped_data_text_compiles_and_renders(tmp_path: Path) -> None:
    data = "50% of a_b & c#d $5 ~x ^y \\path {z}"
    math = "$x_1$"
    assert escape_latex(math) == math
    body = escape_latex(data) + "\n\n" + escape_latex(f"value {math} here")
    tex = _write(
        tmp_path, f"\\documentclass{{article}}\n\\begin{{document}}\n{body}\n\\end{{document}}\n"
    )

    result = compile_tex(tex, engines=ENGINES)

    assert result.ok, result.errors
    text = _text(result.pdf)
    assert data in text
    assert "value x" in text and "$" not in text.split("value", 1)[1]


def _loop_document(tmp_path: Path) -> Path:
    # A unique name lets the test find leftover processes by command line.
    name = f"loop_{uuid.uuid4().hex[:8]}.tex"
    return _write(
        tmp_path,
        "\\documentclass{article}\n\\begin{document}\n\\loop\\iftrue\\repeat\n\\end{document}\n",
        name,
    )


def _processes_mentioning(needle: str) -> list[int]:
    found = []
    for proc in Path("/proc").glob("[0-9]*"):
        try:
            if needle.encode() in (proc / "cmdline").read_bytes():
                found.append(int(proc.name))
        except OSError:
            continue
    return found


@needs_tex
def test_cancel_stops_compile_promptly(tmp_path: Path) -> None:
    tex = _loop_document(tmp_path)
    cancel_at = time.monotonic() + 1.0

    result = compile_tex(tex, engines=ENGINES, cancel=lambda: time.monotonic() > cancel_at)

    assert not result.ok and result.pdf is None
    assert "cancelled" in result.errors[0].message.lower()
    assert result.seconds < 3.0
    if Path("/proc").is_dir():
        assert _processes_mentioning(tex.name) == []


@needs_tex
def test_timeout_stops_compile(tmp_path: Path) -> None:
    tex = _loop_document(tmp_path)

    result = compile_tex(tex, engines=ENGINES, timeout_s=1.0)

    assert not result.ok
    assert "timed out" in result.errors[0].message
    assert result.seconds < 3.0
    if Path("/proc").is_dir():
        assert _processes_mentioning(tex.name) == []


# --- log parsing (snippets of real XeTeX logs) ------------------------------

FILE_LINE_LOG = r"""(./report.aux)
LaTeX Warning: Citation `nokey' on page 1 undefined on input line 4.

LaTeX Warning: Reference `nolabel' on page 1 undefined on input line 4.

./report.tex:6: Undefined control sequence.
l.6 \foo
        {bar} here
Here is how much of TeX's memory you used:
"""

CLASSIC_LOG = r"""(./report.aux)
! Undefined control sequence.
l.6 \foo
        {bar} here
Here is how much of TeX's memory you used:
 460 strings out of 478788
No pages of output.
"""

MISSING_PACKAGE_LOG = r"""(/usr/share/texlive/texmf-dist/tex/latex/base/size10.clo
File: size10.clo 2021/10/04 v1.4n Standard LaTeX file (size option)
)
! LaTeX Error: File `nonexistentpkg.sty' not found.

Type X to quit or <RETURN> to proceed,
or enter new name. (Default extension: sty)

Enter file name:
./report.tex:3: Emergency stop.
<read *>

l.3 \begin
          {document}^^M
Here is how much of TeX's memory you used:
"""

PACKAGE_ERROR_LOG = r"""./report.tex:9: Package graphics Error: Division by 0.

See the graphics package documentation for explanation.
Type  H <return>  for immediate help.
 ...

l.9 \scalebox{1/0}
                  {x}
"""

SOURCE = "\n".join(f"line {n}" for n in range(1, 12)).replace("line 6", r"\foo{bar} here")


def test_parse_file_line_error_format() -> None:
    (error,) = parse_log(FILE_LINE_LOG, SOURCE, "report.tex")
    assert (error.file, error.line) == ("report.tex", 6)
    assert error.message.startswith("Undefined control sequence.")
    assert r"\foo" in error.message  # where TeX stopped
    assert error.context.splitlines() == [
        "  3 | line 3",
        "  4 | line 4",
        "  5 | line 5",
        "> 6 | \\foo{bar} here",
        "  7 | line 7",
        "  8 | line 8",
        "  9 | line 9",
    ]


def test_parse_classic_format() -> None:
    (error,) = parse_log(CLASSIC_LOG, SOURCE, "report.tex")
    assert (error.file, error.line) == ("report.tex", 6)
    assert error.message.startswith("Undefined control sequence.")
    assert "> 6 | \\foo{bar} here" in error.context


def test_parse_missing_package_prefers_cause_over_emergency_stop() -> None:
    errors = parse_log(MISSING_PACKAGE_LOG, SOURCE)
    assert len(errors) == 1
    assert "nonexistentpkg.sty' not found" in errors[0].message
    assert errors[0].line == 3


def test_parse_package_error_and_unknown_source() -> None:
    (error,) = parse_log(PACKAGE_ERROR_LOG, None)
    assert error.line == 9 and "Division by 0" in error.message
    assert error.context == ""  # no source given
    assert parse_log("This is XeTeX\nOutput written on report.xdv (1 page).\n") == []


def test_parse_missing_file_inside_a_package_names_that_file() -> None:
    log = (
        "! LaTeX Error: File `luatexja.sty' not found.\n\nType X to quit or <RETURN> to proceed,\n"
        "Enter file name: \n"
        "/usr/share/texlive/texmf-dist/tex/latex/ctex/engine/ctex-engine-luatex.def:46: Emergency stop.\n"
        "<read *> \n   \nl.46 \\@ifpackagelater\n"
    )
    (error,) = parse_log(log, SOURCE, "report.tex")
    assert error.file.endswith("ctex-engine-luatex.def") and error.line == 46
    assert "luatexja.sty' not found" in error.message and error.context == ""


def test_parse_errors_in_other_files_and_no_legal_end() -> None:
    log = (
        "./sections/intro.tex:2: Undefined control sequence.\nl.2 \\oops\n\n"
        "! Emergency stop.\n*** (job aborted, no legal \\end found)\n"
    )
    errors = parse_log(log, SOURCE, "report.tex")
    assert [(e.file, e.line) for e in errors] == [("sections/intro.tex", 2)]
    assert errors[0].context == ""  # only report.tex's source was given
    (abort,) = parse_log("! Emergency stop.\n*** (job aborted, no legal \\end found)\n")
    assert "no legal \\end found" in abort.message


def test_parse_warnings_summaries() -> None:
    log = (
        "LaTeX Warning: Citation `a' on page 1 undefined on input line 4.\n"
        "LaTeX Warning: Citation `a' on page 2 undefined on input line 9.\n"
        "Missing character: There is no 中 (U+4E2D) in font [lmroman10-regular]:mapping=tex-text;!\n"
        "Missing character: There is no 文 (U+6587) in font [lmroman10-regular]:mapping=tex-text;!\n"
        "Overfull \\hbox (12.5pt too wide) in paragraph at lines 20--21\n"
        "Overfull \\hbox (3.0pt too wide) in paragraph at lines 30--31\n"
        "LaTeX Warning: Label `eq:1' multiply defined.\n"
    )
    warnings = parse_warnings(log)
    assert warnings[0] == "Citation `a' undefined (line 4)"
    assert "Label `eq:1' multiply defined" in warnings
    assert any("lmroman10-regular: 中文" in w and "ctex" in w for w in warnings)
    assert "2 overfull box(es); worst 12.5pt too wide (line 20)" in warnings


def test_parse_blg_bibtex_and_biber() -> None:
    blg = (
        "I was expecting a `,' or a `}'---line 4 of file refs.bib\n"
        "I found no \\citation commands---while reading file report.aux\n"
        "Warning--empty year in a\n"
        "[91] Utils.pm:209> ERROR - BibTeX subsystem: refs.bib, line 4, syntax error\n"
        "[92] Biber.pm:1> WARN - Duplicate entry key a\n"
    )
    bib = "@book{a,\n  title = {X}\n  year = {2000}\n}\n"
    errors, warnings = parse_blg(blg, lambda f: bib if f == "refs.bib" else None)
    assert [(e.file, e.line) for e in errors] == [("refs.bib", 4), ("", None)]
    assert "> 4 | }" in errors[0].context
    assert "syntax error" in errors[1].message  # "no \\citation" is not an error
    assert warnings == ["BibTeX: empty year in a", "BibTeX: Duplicate entry key a"]


# --- escaping --------------------------------------------------------------


@pytest.mark.parametrize(
    ("raw", "escaped"),
    [
        ("50% & _", r"50\% \& \_"),
        ("a\\b", r"a\textbackslash{}b"),
        ("{x}", r"\{x\}"),
        ("~^#", r"\textasciitilde{}\textasciicircum{}\#"),
        ("costs $5 and $10", r"costs \$5 and \$10"),
        ("$x_1$ and \\(a_b\\)", "$x_1$ and \\(a_b\\)"),
        ("$$", r"\$\$"),
        ("100% of $\\alpha$", r"100\% of $\alpha$"),
    ],
)
def test_escape_latex(raw: str, escaped: str) -> None:
    assert escape_latex(raw) == escaped


def test_escape_is_deterministic_not_idempotent() -> None:
    once = escape_latex("a_b")
    assert escape_latex("a_b") == once
    assert escape_latex(once) != once  # documented: escape raw data once
