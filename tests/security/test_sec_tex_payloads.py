r"""Model-written LaTeX against a canary outside the run (issue 11, "reads any file").

Every file-reading primitive TeX offers is aimed at files outside the run
directory, by absolute path, by ``../`` path and through a symlink planted in
the run directory and in figures/; /proc/<pid>/environ of this process carries
the API key. Each is compiled through the real code path (compile_tex, and
recompile of the review pane) and checked by its effect: neither the canary
nor the key may appear in any file of the run (PDF text included), the log,
the errors handed to the compile-fix model, or ``labwright export --zip``; no
image of the outside files may be embedded; nothing may be written outside.
Positive controls show the same checks do see a file that is inside the run.
"""

from __future__ import annotations

import json
import os
import shutil
import struct
import subprocess
import sys
import zlib
from pathlib import Path

import pytest
from pypdf import PdfReader
from tex_leaks import streams

from canary import CANARY, SECRET_KEY, leaks, snapshot
from labwright.cli import main
from labwright.core.report.latex import compile_tex, probe_engines
from labwright.core.report.review import recompile

ENGINES = probe_engines()
# The compile-fix prompt is built from these fields (writing.fix_compile).
NEEDLES = (CANARY, SECRET_KEY)
MARK_W, MARK_H = 7, 5  # the canary image's size: an embedded copy is recognisable

PACKAGES = "\\usepackage{graphicx}\n\\usepackage{verbatim}\n\\usepackage{listings}\n"
PREAMBLE = "\\documentclass{article}\n" + PACKAGES + "\\begin{document}\nStart.\n"

# name -> (payload with {P} for the target path, target file in the outside folder)
PRIMITIVES: dict[str, tuple[str, str]] = {
    "input": (r"\input{@P@}", "secret.tex"),
    "input-txt": (r"\input{@P@}", "secret.txt"),
    "include": (r"\include{@PN@}", "secret.tex"),
    "InputIfFileExists": (r"\InputIfFileExists{@P@}{}{}", "secret.txt"),
    "verbatiminput": (r"\verbatiminput{@P@}", "secret.txt"),
    # fullflexible: the listing's text stays extractable, so a leak would be seen
    "lstinputlisting": (r"\lstinputlisting[columns=fullflexible]{@P@}", "secret.txt"),
    "openin-read": (
        r"\newread\rd \immediate\openin\rd={@P@} "
        r"\ifeof\rd EOF\else\read\rd to\x READ:\x\fi \immediate\closein\rd",
        "secret.txt",
    ),
    "readline": (
        r"\newread\rd \immediate\openin\rd={@P@} "
        r"\ifeof\rd EOF\else\readline\rd to\x READ:\x\fi",
        "secret.txt",
    ),
    "includegraphics-pdf": (r"\includegraphics{@P@}", "canary.pdf"),
    "includegraphics-png": (r"\includegraphics{@P@}", "canary.png"),
    "IfFileExists": (r"\IfFileExists{@P@}{PROBE-HIT}{PROBE-MISS}", "secret.txt"),
    "XeTeXpicfile": (r'\XeTeXpicfile "@P@" \relax', "canary.png"),
    "XeTeXpdffile": (r'\XeTeXpdffile "@P@" \relax', "canary.pdf"),
    "font-path": (r'\font\evil="[@P@]" at 10pt \evil A', "secret.txt"),
    "pdffiledump": (
        r"\ifdefined\pdffiledump \pdffiledump length 64 {@P@}\else NO-PDFFILEDUMP\fi",
        "secret.txt",
    ),
    "directlua": (
        r'\ifdefined\directlua \directlua{tex.print(io.open("@P@"):read("*a"))}'
        r"\else NO-LUA\fi",
        "secret.txt",
    ),
    "bibtex": (r"\nocite{*}\bibliographystyle{plain}\bibliography{@PN@}", "refs.bib"),
    # xdvipdfmx's own reads (issue 21): a file into a PDF stream, an image, an img tag
    "pdf-fstream": (
        r"\special{pdf:fstream @lwfs (@P@)}\special{pdf:put @resources << /LWX @lwfs >>}",
        "secret.txt",
    ),
    "pdf-image": (r"\special{pdf:image width 1cm (@P@)}", "canary.png"),
    "html-img": (r'\special{html:<img src="@P@">}', "canary.png"),
}
FORMS = ("absolute", "dotdot", "link-in-run", "link-in-figures")


def _png(path: Path, text: str) -> None:
    """A tiny PNG of MARK_W x MARK_H pixels carrying `text` in a tEXt chunk."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

    raw = b"".join(b"\x00" + b"\xff\x00\x00" * MARK_W for _ in range(MARK_H))
    path.write_bytes(
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", struct.pack(">IIBBBBB", MARK_W, MARK_H, 8, 2, 0, 0, 0))
        + chunk(b"tEXt", b"Comment\x00" + text.encode())
        + chunk(b"IDAT", zlib.compress(raw))
        + chunk(b"IEND", b"")
    )


@pytest.fixture(scope="session")
def canary_pdf(tmp_path_factory) -> Path:
    """A one-page PDF whose text is the canary (made once, outside any run)."""
    d = tmp_path_factory.mktemp("canarypdf")
    (d / "c.tex").write_text(
        "\\documentclass{article}\\begin{document}" + CANARY + "\\end{document}\n",
        encoding="utf-8",
    )
    subprocess.run(
        [ENGINES.xelatex, "-interaction=batchmode", "c.tex"], cwd=d, check=True, timeout=120
    )
    return d / "c.pdf"


@pytest.fixture
def outside(outside_canary: Path, canary_pdf: Path) -> Path:
    """The outside folder: secret.txt (the fixture's), secret.tex, refs.bib, canary.pdf/png."""
    d = outside_canary.parent
    shutil.copy(outside_canary, d / "secret.tex")
    (d / "refs.bib").write_text(
        f"@misc{{leak, title = {{{CANARY}}}, author = {{{CANARY}}}, year = {{2000}}}}\n",
        encoding="utf-8",
    )
    shutil.copy(canary_pdf, d / "canary.pdf")
    _png(d / "canary.png", CANARY)
    return d


@pytest.fixture(autouse=True)
def key_in_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    # /proc/<this pid>/environ carries the key, as the labwright process's would.
    monkeypatch.setenv("LABWRIGHT_API_KEY", SECRET_KEY)


def _target(outside: Path, name: str) -> Path:
    return Path(name) if name.startswith("/") else outside / name


def _plant(run_dir: Path, target: Path, form: str) -> tuple[str, list[Path]]:
    """The path string the payload uses for `target`, and the links planted for it."""
    if form == "absolute":
        return str(target), []
    if form == "dotdot":
        return os.path.relpath(target, run_dir), []
    folder = run_dir if form == "link-in-run" else run_dir / "figures"
    folder.mkdir(exist_ok=True)
    link = folder / f"leak{target.suffix}"
    link.unlink(missing_ok=True)
    link.symlink_to(target)
    return os.path.relpath(link, run_dir), [link]


def _payload(prim: str, path: str) -> str:
    stem = path[: -len(Path(path).suffix)] if Path(path).suffix else path
    return PRIMITIVES[prim][0].replace("@PN@", stem).replace("@P@", path)


def _images(pdf: Path) -> list[tuple[int, int]]:
    """Sizes of every image XObject in `pdf`, inside form XObjects too."""
    sizes: list[tuple[int, int]] = []

    def walk(resources, seen: set[int]) -> None:
        xobjects = (resources or {}).get("/XObject") or {}
        for ref in xobjects.values():
            obj = ref.get_object()
            if id(obj) in seen:
                continue
            seen.add(id(obj))
            if obj.get("/Subtype") == "/Image":
                sizes.append((int(obj["/Width"]), int(obj["/Height"])))
            elif obj.get("/Subtype") == "/Form":
                walk(obj.get("/Resources"), seen)

    for page in PdfReader(pdf).pages:
        walk(page.get("/Resources"), set())
    return sizes


def _pdf_text(pdf: Path) -> str:
    return "\n".join(page.extract_text() or "" for page in PdfReader(pdf).pages)


def carried(run_dir: Path, links: list[Path], result=None) -> list[str]:
    """Everything that carries the outside files or the key out: files of the run
    (build folder, log and PDF text included), embedded canary images, and the
    compile result (the text handed to the compile-fix model and run.json)."""
    for link in links:  # the planted links themselves would make leaks() read the target
        link.unlink(missing_ok=True)
    found = leaks([run_dir], NEEDLES)
    for pdf in run_dir.rglob("*.pdf"):
        if (MARK_W, MARK_H) in _images(pdf):
            found.append(f"{pdf}: the outside image is embedded")
        # listings typesets "-" as a minus sign and may space letters out
        text = "".join(_pdf_text(pdf).replace("\u2212", "-").split())
        found += [f"{pdf}: {n[:12]}" for n in NEEDLES if n in text]
        # xdvipdfmx's fstream copies a file into a Flate stream: search them decompressed
        found += [
            f"{pdf}: stream {n[:12]}" for n in NEEDLES if any(n.encode() in d for d in streams(pdf))
        ]
    if result is not None:
        texts = [result.log_tail, *result.warnings]
        texts += [f"{e.file} {e.message} {e.context}" for e in result.errors]
        found += [f"compile result: {n[:12]}" for n in NEEDLES if any(n in t for t in texts)]
    return found


def _run_dir(tmp_path: Path) -> Path:
    run_dir = tmp_path / "run"
    (run_dir / "figures").mkdir(parents=True)
    return run_dir


def _without_the_walk(monkeypatch: pytest.MonkeyPatch) -> None:
    """A run folder holding a link never reaches TeX (rundir/fence.check_run_dir, tested in
    test_sec_run_links.py); skipped here so that TeX's own walls meet the link."""
    from labwright.core.rundir import fence

    monkeypatch.setattr(fence, "check_run_dir", lambda run_dir: None)


@pytest.mark.parametrize("form", FORMS)
@pytest.mark.parametrize("prim", list(PRIMITIVES))
def test_primitive_cannot_read_outside(prim, form, tmp_path, outside, monkeypatch):
    if form.startswith("link"):
        _without_the_walk(monkeypatch)
    run_dir = _run_dir(tmp_path)
    before = snapshot(outside)
    path, links = _plant(run_dir, _target(outside, PRIMITIVES[prim][1]), form)
    tex = run_dir / "report.tex"
    tex.write_text(PREAMBLE + _payload(prim, path) + "\n\nEnd.\n\\end{document}\n", "utf-8")

    result = compile_tex(tex, engines=ENGINES)

    assert carried(run_dir, links, result) == []
    assert snapshot(outside) == before
    if result.ok:  # what did compile must not show a probe that saw the file
        assert "PROBE-HIT" not in _pdf_text(run_dir / "report.pdf")


# A Labwright-like process: started with the key in its environment (so its
# /proc/<pid>/environ holds it), it says its pid, then compiles what it is given.
CHILD = r"""
import json, os, sys
from pathlib import Path
from labwright.core.report.latex import compile_tex, probe_engines
environ = Path(f"/proc/{os.getpid()}/environ").read_bytes().decode("latin-1")
print(os.getpid(), os.environ["LABWRIGHT_API_KEY"] in environ, flush=True)
r = compile_tex(Path(sys.stdin.readline().strip()), engines=probe_engines())
texts = [r.log_tail, *r.warnings, *[f"{e.file} {e.message} {e.context}" for e in r.errors]]
print(json.dumps({"ok": r.ok, "texts": texts}), flush=True)
"""


# environ is NUL-separated: an attacker ignores NUL (catcode 9) or reads it as a line.
ENVIRON_PAYLOADS = {
    "verbatiminput": "\\catcode0=9 " + PRIMITIVES["verbatiminput"][0],
    "readline": PRIMITIVES["readline"][0],
}


@pytest.mark.parametrize("form", [*FORMS, "self"])
@pytest.mark.parametrize("prim", list(ENVIRON_PAYLOADS))
def test_proc_environ_of_labwright_stays_closed(prim, form, tmp_path):
    import labwright

    run_dir = _run_dir(tmp_path)
    env = {**os.environ, "LABWRIGHT_API_KEY": SECRET_KEY}
    env["PYTHONPATH"] = str(Path(labwright.__file__).resolve().parents[1])
    child = subprocess.Popen(
        [sys.executable, "-c", CHILD],
        env=env,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        pid, has_key = child.stdout.readline().split()
        assert has_key == "True"  # the file the payload aims at does hold the key
        target = Path("/proc/self/environ" if form == "self" else f"/proc/{pid}/environ")
        path, links = _plant(run_dir, target, "absolute" if form == "self" else form)
        tex = run_dir / "report.tex"
        payload = ENVIRON_PAYLOADS[prim].replace("@P@", path)
        tex.write_text(PREAMBLE + payload + "\n\\end{document}\n", "utf-8")
        out, _ = child.communicate(f"{tex}\n", timeout=300)
    finally:
        child.kill()
        child.wait()
    result = json.loads(out.splitlines()[-1])
    assert not any(n in t for n in NEEDLES for t in result["texts"])
    assert carried(run_dir, links) == []


@pytest.mark.parametrize(
    "prim",
    [
        "input-txt",
        "verbatiminput",
        "openin-read",
        "includegraphics-png",
        "XeTeXpicfile",
        "includegraphics-pdf",
        "bibtex",
        "pdf-fstream",
        "pdf-image",
        "html-img",
    ],
)
def test_control_the_checks_see_a_file_inside_the_run(prim, tmp_path, outside):
    """The same payloads on a copy inside figures/ do carry the canary: the checks work."""
    run_dir = _run_dir(tmp_path)
    name = PRIMITIVES[prim][1]
    shutil.copy(outside / name, run_dir / "figures" / name)
    if prim == "bibtex":
        shutil.copy(outside / name, run_dir / name)
        name = "../" + name  # refs.bib beside report.tex, named from figures/..
    tex = run_dir / "report.tex"
    path = os.path.normpath(f"figures/{name}")
    tex.write_text(PREAMBLE + _payload(prim, path) + "\n\\end{document}\n", "utf-8")

    result = compile_tex(tex, engines=ENGINES)

    assert result.ok, result.errors
    assert carried(run_dir, [], None) != []


def test_engine_is_xelatex_without_lua_or_pdffiledump(tmp_path, outside):
    run_dir = _run_dir(tmp_path)
    tex = run_dir / "report.tex"
    body = _payload("directlua", str(outside / "secret.txt")) + "\n\n"
    body += _payload("pdffiledump", str(outside / "secret.txt"))
    tex.write_text(PREAMBLE + body + "\n\\end{document}\n", "utf-8")

    result = compile_tex(tex, engines=ENGINES)

    assert result.ok and result.engine == "xelatex"
    text = _pdf_text(run_dir / "report.pdf")
    assert "NO-LUA" in text and "NO-PDFFILEDUMP" in text
    assert carried(run_dir, [], result) == []


def test_shell_escape_is_refused(tmp_path, outside):
    run_dir = _run_dir(tmp_path)
    tex = run_dir / "report.tex"
    body = (
        r"\immediate\write18{touch pwned-unrestricted}"
        r"\immediate\write18{kpsewhich -var-value=HOME}"  # allowed in TeX Live's restricted mode
        r"\write18{cat " + str(outside / "secret.txt") + r" > pwned-cat.tex}"
        " Text."
    )
    tex.write_text(PREAMBLE + body + "\n\\end{document}\n", "utf-8")

    result = compile_tex(tex, engines=ENGINES)

    assert result.ok, result.errors  # refused quietly: the document still compiles
    assert not list(tmp_path.rglob("pwned*"))
    log = (run_dir / "build" / "report.log").read_text(errors="replace")
    assert "runsystem(kpsewhich" in log and "executed" not in log
    assert carried(run_dir, [], result) == []


@pytest.mark.parametrize("where", ["absolute", "dotdot", "dotfile"])
def test_openout_writes_nowhere_outside_the_build_folder(where, tmp_path, outside):
    run_dir = _run_dir(tmp_path)
    target = {
        "absolute": str(outside / "written.tex"),
        "dotdot": "../written.tex",
        "dotfile": ".written.tex",
    }[where]
    body = rf"\newwrite\w \immediate\openout\w={{{target}}} \immediate\write\w{{x}}"
    tex = run_dir / "report.tex"
    tex.write_text(PREAMBLE + body + "\n\\immediate\\closeout\\w Text.\n\\end{document}\n", "utf-8")
    before, run_before = snapshot(outside), snapshot(run_dir)

    compile_tex(tex, engines=ENGINES)

    assert snapshot(outside) == before
    assert not (tmp_path / "written.tex").exists()
    grown = set(snapshot(run_dir)) - set(run_before)
    assert all(name.startswith("build/") or name in ("build", "report.pdf") for name in grown)


@pytest.mark.parametrize("walk", [True, False], ids=["walk", "no-walk"])
@pytest.mark.parametrize("prim", list(PRIMITIVES))
def test_recompile_and_export_carry_nothing(
    prim, walk, offline_run, tmp_path, outside, monkeypatch
):
    """The review pane's recompile, then `labwright export --zip` of that run: refused
    for the link (walk), and without that refusal TeX and export still carry nothing."""
    if not walk:
        _without_the_walk(monkeypatch)
    path, links = _plant(offline_run, _target(outside, PRIMITIVES[prim][1]), "link-in-figures")
    tex = (offline_run / "report.tex").read_text(encoding="utf-8")
    tex = tex.replace("\\begin{document}", PACKAGES + "\\begin{document}")
    evil = f"{_payload(prim, path)}\n\n\\end{{document}}"
    (offline_run / "report.tex").write_text(tex.replace("\\end{document}", evil), "utf-8")

    result = recompile(offline_run, engines=ENGINES)

    dest = tmp_path / "export.zip"
    assert main(["export", str(offline_run), str(dest), "--zip"]) == (2 if walk else 0)
    assert carried(offline_run, links, result) == []
    assert leaks([dest], NEEDLES) == []
    assert walk != dest.exists()
