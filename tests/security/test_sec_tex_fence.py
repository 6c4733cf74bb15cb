r"""TeX reads only what the README says, on every platform (issue 21).

Landlock is one wall; where it is absent (macOS, Windows, old kernels) the
others must hold alone, so every attempt here runs twice: with this machine's
Landlock and with Landlock forced off (confine's probe answers "nothing"), as
on those systems. The attempts aim at a canary outside the run, one in the
user's real home (`~user/...`, the kpathsea expansion openin_any does not
see), one under the Python prefix (which the old policy granted), and the
run's own journal (inside the run, but not one of TeX's documented inputs):
by TeX's own file reads and by xdvipdfmx's specials (`pdf:fstream`,
`pdf:image`, `pdf:epdf`, `html:<img>`, in literal, hex and octal-escaped
strings), through compile_tex. Each is checked by its effect: neither canary
nor key in any file of the run, in any decompressed PDF stream, among the
PDF's images, or in the compile result.

The attempts are grouped by the classes of tex_reads.statement(): what Check Setup
says is blocked on this machine (with or without Landlock) is run and must be
blocked; what it says is not fenced is run too and must really get through,
so the sentence the user reads is neither too strong nor too weak. Positive
controls show the same payloads do carry a file that is inside the run.
"""

from __future__ import annotations

import os
import pwd
import shutil
import subprocess
import sys
import uuid
from pathlib import Path

import pytest
from tex_leaks import carried, pdf_text, png, text_pdf

from canary import CANARY, SECRET_KEY
from labwright import doctor
from labwright.core import confine
from labwright.core.report.latex import compile_tex, jail, probe_engines, tex_reads

ENGINES = probe_engines()
PREAMBLE = (
    "\\documentclass{article}\n\\usepackage{verbatim}\n\\usepackage{graphicx}\n"
    "\\begin{document}\nStart.\n"
)
LANDLOCK = confine.support()
NONE = confine.Support()
LAYERS = {"landlock": LANDLOCK, "no-landlock": NONE}


def _fstream(path: str) -> str:
    return (
        f"\\special{{pdf:fstream @lwfs {path}}}"
        "\\special{pdf:put @resources << /LWX @lwfs >>}\\special{pdf:close @lwfs}"
    )


def _octal(path: str) -> str:
    return "\\detokenize{" + path.replace("/", "\\057") + "}"


# name -> TeX; @OUT@: the outside folder, @REL@: it relative to the run, @USER@ and
# @HOME@: the user and the canary folder relative to their home, @PREFIX@: a canary
# folder under the Python prefix, @HEX@: the outside secret.txt as a PDF hex string.
PAYLOADS: dict[str, str] = {
    "verbatiminput-absolute": r"\verbatiminput{@OUT@/secret.txt}",
    "input-dotdot": r"\input{@REL@/secret.txt}",
    "write18-cat": r"\immediate\write18{cat @OUT@/secret.txt > pwned.tex}\input{pwned.tex}",
    "tilde-user-verbatiminput": r"\verbatiminput{~@USER@/@HOME@/secret.txt}",
    "tilde-user-input": r"\input{~@USER@/@HOME@/secret.txt}",
    "tilde-home": r"\verbatiminput{~/@HOME@/secret.txt}",
    "variable": r"\verbatiminput{$LC_LABWRIGHT_CANARY/secret.txt}",
    "caret-code-tilde": r"\verbatiminput{^^7e@USER@/@HOME@/secret.txt}",
    "string-tilde": r"\def\u{@USER@}\verbatiminput{\string~\u/@HOME@/secret.txt}",
    "uchar-tilde": r"\def\u{@USER@}\verbatiminput{\Uchar126\u/@HOME@/secret.txt}",
    "lccode-tilde": (
        r"\lccode`\X=`\~ \lowercase{\def\t{X}}\def\u{@USER@}"
        r"\verbatiminput{\t\u/@HOME@/secret.txt}"
    ),
    "fstream-absolute": _fstream("(@OUT@/secret.txt)"),
    "fstream-hex": _fstream("<@HEX@>"),
    "fstream-octal": _fstream("(@OCTAL@)"),
    "fstream-dotdot": _fstream("(@REL@/secret.txt)"),
    "fstream-python-prefix": _fstream("(@PREFIX@/secret.txt)"),
    "fstream-home": _fstream("(~@USER@/@HOME@/secret.txt)"),
    "fstream-run-journal": _fstream("(events.jsonl)"),
    "fstream-link-in-figures": _fstream("(figures/leak.txt)"),
    "image-absolute": r"\special{pdf:image width 1cm (@OUT@/canary.png)}",
    "image-dotdot": r"\special{pdf:image width 1cm (@REL@/canary.png)}",
    "epdf-absolute": r"\special{pdf:epdf (@OUT@/canary.pdf)}",
    "html-img": r'\special{html:<img src="@OUT@/canary.png">}',
    "includegraphics-absolute": r"\includegraphics{@OUT@/canary.png}",
    "font-outside": r'\font\lw="[@OUT@/outside-font.otf]" at 10pt \lw A',
    "built-tilde": (r"\def\t{~}\def\u{@USER@}\verbatiminput{\t\u/@HOME@/secret.txt}"),
}
# tex_reads.statement()'s classes -> the attempts that show each (every class has some).
CLASSES: dict[str, tuple[str, ...]] = {
    "absolute_names": ("verbatiminput-absolute", "input-dotdot"),
    "shell_escape": ("write18-cat",),
    "home_names_written": (
        "tilde-user-verbatiminput",
        "tilde-user-input",
        "tilde-home",
        "variable",
        "caret-code-tilde",
        "string-tilde",
        "uchar-tilde",
        "lccode-tilde",
    ),
    "special_files": (
        "fstream-absolute",
        "fstream-hex",
        "fstream-octal",
        "fstream-dotdot",
        "fstream-python-prefix",
        "fstream-home",
        "fstream-run-journal",
        "fstream-link-in-figures",
        "image-absolute",
        "image-dotdot",
        "epdf-absolute",
        "html-img",
        "includegraphics-absolute",
    ),
    "font_files": ("font-outside",),
    "other_files": ("built-tilde",),
    "home_names_built": ("built-tilde",),
    "engine_reads": (),  # only without XeLaTeX: not this machine's engine
}


# A font file has no canary to find: that no PDF is made from it is the effect checked.
MADE_NO_PDF = {"font-outside"}


def _cases(expect: str) -> list:
    cases = []
    for layer, support in LAYERS.items():
        said = tex_reads.statement(ENGINES.engine, support)
        for code in said.blocked if expect == "blocked" else said.open:
            cases += [
                pytest.param(layer, name, id=f"{layer}-{code}-{name}") for name in CLASSES[code]
            ]
    return cases


@pytest.fixture
def layer(request, monkeypatch) -> str:
    """Landlock as this machine has it, or forced off (as on macOS and Windows)."""
    name = request.param if hasattr(request, "param") else "landlock"
    if name == "landlock" and not LANDLOCK.fs:
        pytest.skip("this machine has no Landlock")  # the other half still runs
    monkeypatch.setattr(confine, "_SUPPORT", LAYERS[name])
    return name


@pytest.fixture(autouse=True)
def key_in_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LABWRIGHT_API_KEY", SECRET_KEY)


def _canary_folder(parent: Path) -> Path:
    folder = parent / f"labwright-test-canary-{uuid.uuid4().hex[:8]}"
    folder.mkdir()
    (folder / "secret.txt").write_text(f"{CANARY}\n", encoding="utf-8")
    png(folder / "canary.png", CANARY)
    return folder


@pytest.fixture
def home_canary() -> Path:
    """A canary in the user's real home (the one getpwuid names, which kpathsea's
    `~user` finds), removed after the test."""
    folder = _canary_folder(Path(pwd.getpwuid(os.getuid()).pw_dir))
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture
def prefix_canary() -> Path:
    """A canary under this Python's prefix, which the TeX policy used to grant."""
    folder = _canary_folder(Path(sys.prefix))
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture
def outside(outside_canary: Path, monkeypatch) -> Path:
    d = outside_canary.parent
    png(d / "canary.png", CANARY)
    text_pdf(d / "canary.pdf", CANARY)
    font = subprocess.run(
        ["kpsewhich", "lmroman10-regular.otf"], capture_output=True, text=True, check=True
    ).stdout.strip()
    shutil.copy(font, d / "outside-font.otf")
    # an environment variable TeX is given (LC_* are kept) that names the outside folder
    monkeypatch.setenv("LC_LABWRIGHT_CANARY", str(d))
    return d


@pytest.fixture(autouse=True)
def tex_walls_alone(monkeypatch):
    """The attempts put a link in figures/; the run-folder walk (core/rundir/fence.py)
    would refuse every one before TeX starts. Skipped here, so what is tested is what
    TeX's own fence holds (test_sec_run_links.py tests the walk)."""
    from labwright.core.rundir import fence as run_fence

    monkeypatch.setattr(run_fence, "check_run_dir", lambda run_dir: None)


def _run_dir(tmp_path: Path) -> Path:
    run_dir = tmp_path / "run"
    (run_dir / "figures").mkdir(parents=True)
    (run_dir / "events.jsonl").write_text(f'{{"type": "note", "text": "{CANARY}"}}\n', "utf-8")
    return run_dir


def _body(name: str, run_dir: Path, outside: Path, home: Path, prefix: Path) -> str:
    home_dir = Path(pwd.getpwuid(os.getuid()).pw_dir)
    secret = str(outside / "secret.txt")
    values = {
        "@OUT@": str(outside),
        "@REL@": os.path.relpath(outside, run_dir),
        "@USER@": pwd.getpwuid(os.getuid()).pw_name,
        "@HOME@": str(home.relative_to(home_dir)),
        "@PREFIX@": str(prefix),
        "@HEX@": secret.encode().hex(),
        "@OCTAL@": _octal(secret),
    }
    body = PAYLOADS[name]
    for key, value in values.items():
        body = body.replace(key, value)
    return body


def _attempt(name, tmp_path, outside, home_canary, prefix_canary):
    run_dir = _run_dir(tmp_path)
    (run_dir / "figures" / "leak.txt").symlink_to(outside / "secret.txt")
    body = _body(name, run_dir, outside, home_canary, prefix_canary)
    tex = run_dir / "report.tex"
    tex.write_text(PREAMBLE + body + "\n\nEnd.\n\\end{document}\n", encoding="utf-8")
    result = compile_tex(tex, engines=ENGINES)
    return run_dir, result


def _still_there(run_dir: Path) -> list[str]:
    """The run's own journal holds the canary by design: not a leak of it."""
    (run_dir / "events.jsonl").unlink()
    return carried(run_dir, [run_dir / "figures" / "leak.txt"], None)


@pytest.mark.parametrize(("layer", "name"), _cases("blocked"), indirect=["layer"])
def test_what_check_setup_says_is_blocked_is_blocked(
    layer, name, tmp_path, outside, home_canary, prefix_canary
):
    run_dir, result = _attempt(name, tmp_path, outside, home_canary, prefix_canary)

    found = carried(run_dir, [run_dir / "figures" / "leak.txt"], result)
    assert [f for f in found if "events.jsonl" not in f] == [], result.errors
    assert not list(tmp_path.rglob("pwned*"))
    if name in MADE_NO_PDF:  # what would carry the outside file is not made at all
        assert not result.ok and not (run_dir / "report.pdf").exists()


@pytest.mark.parametrize(("layer", "name"), _cases("open"), indirect=["layer"])
def test_what_check_setup_says_is_not_fenced_is_not(
    layer, name, tmp_path, outside, home_canary, prefix_canary
):
    """Keeps the sentence honest: were this fenced, Check Setup would under-promise."""
    run_dir, result = _attempt(name, tmp_path, outside, home_canary, prefix_canary)

    assert result.ok, result.errors
    assert CANARY in pdf_text(run_dir / "report.pdf")


def test_every_class_the_statement_names_has_attempts():
    codes = set()
    for engine in ("xelatex", "lualatex", "pdflatex"):
        for support in LAYERS.values():
            said = tex_reads.statement(engine, support)
            codes |= {*said.blocked, *said.open}
    assert codes <= set(CLASSES)
    assert all(CLASSES[c] for c in codes - {"engine_reads"})
    assert set(PAYLOADS) == {n for names in CLASSES.values() for n in names}


@pytest.mark.parametrize("layer", list(LAYERS), indirect=True)
def test_check_setup_states_the_fence_of_this_machine(layer):
    (check,) = doctor.tex_fence_checks()
    said = tex_reads.statement(ENGINES.engine)

    assert check.detail == doctor.tex_fence_words(said)
    assert check.ok == said.confined and not check.needed
    if said.confined:
        assert "confined by Landlock" in check.detail and "not fenced" not in check.detail
    else:
        assert "no confinement by the operating system" in check.detail
        assert "not fenced: a ~user/ or $VAR/ name the document builds" in check.detail
        assert "home_names_built" in said.open and check.fix


@pytest.mark.parametrize("layer", ["landlock"], indirect=True)
def test_landlock_alone_keeps_the_python_prefix_closed(
    layer, tmp_path, outside, home_canary, prefix_canary, monkeypatch
):
    """Labwright's own checks switched off: the policy itself no longer grants the
    Python prefix (nor /opt) to TeX. Before: fstream copied the prefix's file."""
    monkeypatch.setattr(tex_reads, "check_xdv", lambda *a, **k: [])
    monkeypatch.setattr(tex_reads, "check_sources", lambda *a, **k: [])

    run_dir, result = _attempt(
        "fstream-python-prefix", tmp_path, outside, home_canary, prefix_canary
    )

    assert _still_there(run_dir) == []
    pol = jail.policy(run_dir / "report.tex", run_dir / "build", ENGINES.tool_dirs())
    assert sys.prefix not in pol.read and os.path.realpath(sys.prefix) not in pol.read
    assert "/opt" not in pol.read or any(t.startswith("/opt") for t in jail.tex_trees())


@pytest.mark.parametrize("layer", list(LAYERS), indirect=True)
@pytest.mark.parametrize(
    "body",
    [
        _fstream("(figures/secret.txt)"),
        _fstream("<@FIGHEX@>"),
        r"\special{pdf:image width 1cm (figures/canary.png)}",
        r"\special{pdf:epdf (figures/canary.pdf)}",
        r'\special{html:<img src="figures/canary.png">}',
        r"\verbatiminput{figures/secret.txt}",
    ],
    ids=["fstream", "fstream-hex", "image", "epdf", "html-img", "verbatiminput"],
)
def test_control_the_same_payloads_carry_a_file_inside_the_run(layer, body, tmp_path, outside):
    run_dir = _run_dir(tmp_path)
    (run_dir / "events.jsonl").unlink()
    for name in ("secret.txt", "canary.png", "canary.pdf"):
        shutil.copy(outside / name, run_dir / "figures" / name)
    body = body.replace("@FIGHEX@", b"figures/secret.txt".hex())
    tex = run_dir / "report.tex"
    tex.write_text(PREAMBLE + body + "\n\\end{document}\n", encoding="utf-8")

    result = compile_tex(tex, engines=ENGINES)

    assert result.ok, result.errors
    assert carried(run_dir, [], None) != []


@pytest.mark.parametrize("layer", list(LAYERS), indirect=True)
def test_ordinary_documents_are_not_refused(layer, tmp_path, outside):
    """No false alarm on what reports contain: ties before references, URLs with
    /~user/, math with $a/b$, images from figures/ and the TeX trees, hyperref's
    specials, a font from the trees by file name."""
    run_dir = _run_dir(tmp_path)
    shutil.copy(outside / "canary.png", run_dir / "figures" / "plot.png")
    body = (
        "\\section{A}\\label{s}See Section~\\ref{s} and Fig.~1, Mr.~Smith; "
        "\\texttt{http://example.edu/~smith/page} and $v/c$.\n\n"
        "\\includegraphics[width=1cm]{figures/plot.png}"
        "\\includegraphics[width=1cm]{example-image-a}\n\n"
        '\\font\\lm="[lmroman10-regular.otf]" at 10pt {\\lm Text}\n'
    )
    tex = run_dir / "report.tex"
    preamble = PREAMBLE.replace("\\begin{document}", "\\usepackage{hyperref}\n\\begin{document}")
    tex.write_text(preamble + body + "\\end{document}\n", encoding="utf-8")

    result = compile_tex(tex, engines=ENGINES)

    assert result.ok, result.errors


@pytest.mark.parametrize("layer", ["no-landlock"], indirect=True)
@pytest.mark.parametrize(
    ("special", "said"),
    [
        (r"\special{pdf:mapfile @OUT@/secret.txt}", "pdf:mapfile"),
        (r"\special{pdf:mapline lwxx unset <@OUT@/outside-font.otf}", "pdf:mapline"),
        (r"\special{x:fontmapfile @OUT@/secret.txt}", "x:fontmapfile"),
        (r"\special{pdf:tounicode @OUT@/secret.txt}", "pdf:tounicode"),
        (r"\special{dvipdfmx:config f @OUT@/secret.txt}", "dvipdfmx:config (option f)"),
        (r"\special{dvipdfmx:config i @OUT@/secret.txt}", "dvipdfmx:config (option i)"),
        (r'\special{PSfile="figures/x.eps"}', "PostScript"),
        (r"\special{postscriptbox{1in}{1in}{figures/x.eps}}", "PostScript"),
        (r"\special{pdf:image (figures/ps.png)}", "is PostScript"),
    ],
)
def test_specials_that_load_files_or_run_ghostscript_are_refused(
    layer, special, said, tmp_path, outside
):
    """Maps, CMaps and config files that name outside files, and PostScript, which
    xdvipdfmx hands to Ghostscript: refused before xdvipdfmx runs."""
    run_dir = _run_dir(tmp_path)
    (run_dir / "figures" / "ps.png").write_text("%!PS-Adobe-3.0 EPSF-3.0\n", encoding="utf-8")
    (run_dir / "figures" / "x.eps").write_text("%!PS-Adobe-3.0 EPSF-3.0\n", encoding="utf-8")
    tex = run_dir / "report.tex"
    body = special.replace("@OUT@", str(outside))
    tex.write_text(PREAMBLE + body + "\n\\end{document}\n", encoding="utf-8")

    result = compile_tex(tex, engines=ENGINES)

    assert not result.ok and not (run_dir / "report.pdf").exists()
    assert any(said in e.message and e.message.startswith("Refused") for e in result.errors)
    assert str(outside) not in " ".join(e.message for e in result.errors)


def test_hyperref_config_special_is_allowed(tmp_path):
    run_dir = _run_dir(tmp_path)
    tex = run_dir / "report.tex"
    tex.write_text(
        PREAMBLE + r"\special{dvipdfmx:config C 0x0010}" + "\n\\end{document}\n", "utf-8"
    )

    assert compile_tex(tex, engines=ENGINES).ok


def test_an_xdv_that_cannot_be_read_is_refused(tmp_path):
    """A truncated or foreign .xdv is not trusted to hold only what was read."""
    good = tmp_path / "good.xdv"
    run_dir = _run_dir(tmp_path)
    tex = run_dir / "report.tex"
    tex.write_text(PREAMBLE + "Text.\n\\end{document}\n", "utf-8")
    assert compile_tex(tex, engines=ENGINES).ok
    shutil.copy(run_dir / "build" / "report.xdv", good)
    allowed = tex_reads.roots(tex, run_dir / "build", jail.tex_trees())
    assert tex_reads.check_xdv(good, run_dir, allowed) == []
    data = good.read_bytes()
    for broken in (data[: len(data) // 2], b"\xf7\x05" + data[2:], b""):
        (tmp_path / "bad.xdv").write_bytes(broken)
        (refusal,) = tex_reads.check_xdv(tmp_path / "bad.xdv", run_dir, allowed)
        assert "could not check" in refusal.message or "could not read" in refusal.message
