"""Export to Word: pandoc reads model-written LaTeX and nothing it names (issue 24).

Every file-reading construct pandoc's LaTeX reader, its citeproc or its docx writer
knows (`\\input`, `\\include`, `\\InputIfFileExists`, `\\import`, `\\subfile`,
`\\verbatiminput`, `\\lstinputlisting`, `\\usepackage` by path, `\\includegraphics` by
absolute and `../` path, `\\bibliography`, `\\addbibresource`, `\\bibliographystyle` by
path) names an outside folder holding the canary: a text, a .tex, a .bib and a PNG
whose bytes carry it. Each goes through `labwright export RUN DEST --docx`, twice: with
this machine's confinement (Landlock, namespaces) and with none (as on macOS and
Windows), so pandoc's own `--sandbox`, the staging folder and the command-line
bibliography are shown to hold alone. The effects checked: no member of the .docx
holds the canary or the key, the outside folder hashes the same, no output names the
canary. Positive controls: the same canary in report.tex itself, in refs.bib and in a
figure of the run does reach the document, so the check would see a leak.
"""

from __future__ import annotations

import zipfile
from pathlib import Path

import pytest
from PIL import Image, PngImagePlugin

from canary import CANARY, SECRET_KEY, snapshot
from labwright.cli import main
from labwright.core import confine
from labwright.core.report import word

pytestmark = pytest.mark.skipif(word.find_pandoc() is None, reason="no pandoc")
LAYERS = {"confined": confine.support(), "unconfined": confine.Support()}
BIB = "@book{knuth, title = {The TeXbook}, author = {Knuth, D.}, year = {1984}}\n"


def _png_with(path: Path, text: str) -> None:
    info = PngImagePlugin.PngInfo()
    info.add_text("Comment", text)
    Image.new("RGB", (8, 8), "red").save(path, pnginfo=info)


@pytest.fixture
def outside(tmp_path) -> Path:
    folder = tmp_path / "outside"
    folder.mkdir()
    (folder / "secret.txt").write_text(f"{CANARY}\n", encoding="utf-8")
    (folder / "secret.tex").write_text(f"{CANARY} from a .tex\n", encoding="utf-8")
    (folder / "secret.bib").write_text(
        f"@misc{{canary, title = {{{CANARY}}}, author = {{A, B}}, year = {{2000}}}}\n",
        encoding="utf-8",
    )
    _png_with(folder / "canary.png", CANARY)
    return folder


def _payloads(outside: Path) -> dict[str, str]:
    o, rel = outside.as_posix(), "../outside"
    return {
        "input-absolute": f"\\input{{{o}/secret}}",
        "input-dotdot": f"\\input{{{rel}/secret.tex}}",
        "include": f"\\include{{{rel}/secret}}",
        "InputIfFileExists": f"\\InputIfFileExists{{{o}/secret.tex}}{{}}{{}}",
        "import": f"\\import{{{o}/}}{{secret}}",
        "subfile": f"\\subfile{{{o}/secret}}",
        "verbatiminput": f"\\verbatiminput{{{o}/secret.txt}}",
        "lstinputlisting": f"\\lstinputlisting{{{o}/secret.txt}}",
        "usepackage-path": f"\\usepackage{{{o}/secret}}",
        "includegraphics-absolute": f"\\includegraphics{{{o}/canary.png}}",
        "includegraphics-dotdot": f"\\includegraphics{{{rel}/canary.png}}",
        "includegraphics-figures-dotdot": f"\\includegraphics{{figures/../{rel}/canary.png}}",
        "bibliography-absolute": f"\\nocite{{*}}\\cite{{canary}}\\bibliography{{{o}/secret}}",
        "bibliography-dotdot": f"\\cite{{canary}}\\bibliography{{{rel}/secret}}",
        "addbibresource": f"\\cite{{canary}}\\addbibresource{{{o}/secret.bib}}",
        "bibliographystyle": f"\\bibliographystyle{{{o}/secret}}\\cite{{knuth}}",
    }


PAYLOAD_NAMES = list(_payloads(Path("/x")))


def _docx_texts(path: Path) -> list[str]:
    with zipfile.ZipFile(path) as z:
        return [z.read(i).decode("latin-1") for i in z.infolist()]


def _with_payload(run: Path, payload: str) -> None:
    tex = (run / "report.tex").read_text(encoding="utf-8")
    (run / "report.tex").write_text(
        tex.replace("\\end{document}", f"Before.\n{payload}\nAfter.\n\\end{{document}}"),
        encoding="utf-8",
    )
    (run / "refs.bib").write_text(BIB, encoding="utf-8")  # so citeproc runs


@pytest.mark.parametrize("layer", list(LAYERS))
@pytest.mark.parametrize("name", PAYLOAD_NAMES)
def test_pandoc_reads_nothing_the_report_names(
    name, layer, offline_run, outside, tmp_path, monkeypatch, capsys
):
    monkeypatch.setattr(confine, "_SUPPORT", LAYERS[layer])
    monkeypatch.setenv("LABWRIGHT_API_KEY", SECRET_KEY)
    _with_payload(offline_run, _payloads(outside)[name])
    before = snapshot(outside)
    dest = tmp_path / "out.docx"

    code = main(["export", str(offline_run), str(dest), "--docx"])

    out, err = capsys.readouterr()
    assert snapshot(outside) == before
    assert CANARY not in out + err and SECRET_KEY not in out + err
    assert code == 0, err  # the document is made, without what the payload named
    texts = _docx_texts(dest)
    assert not [t for t in texts if CANARY in t or SECRET_KEY in t]
    assert any("After." in t for t in texts)  # the rest of the report is there


def test_positive_control_the_reports_own_files_reach_the_document(offline_run, tmp_path, capsys):
    _with_payload(offline_run, f"{CANARY} in the text. \\cite{{canary}}")
    (offline_run / "refs.bib").write_text(
        f"@misc{{canary, title = {{Bib {CANARY}}}, author = {{A, B}}, year = {{2000}}}}\n",
        encoding="utf-8",
    )
    _png_with(offline_run / "figures" / "table1.png", f"png {CANARY}")
    dest = tmp_path / "out.docx"
    assert main(["export", str(offline_run), str(dest), "--docx"]) == 0
    texts = "\n".join(_docx_texts(dest))
    assert f"{CANARY} in the text" in texts and f"Bib {CANARY}" in texts
    assert f"png\x00{CANARY}" in texts or f"png {CANARY}" in texts  # the PNG's own bytes


def test_positive_control_an_unsandboxed_pandoc_would_read_them(outside, tmp_path):
    """What the walls stop: the same pandoc without --sandbox and without the
    command-line bibliography does put the outside canary into its output."""
    pandoc = word.find_pandoc()
    assert pandoc is not None
    source = tmp_path / "r.tex"
    source.write_text(
        "\\documentclass{article}\\begin{document}"
        + _payloads(outside)["input-absolute"]
        + _payloads(outside)["bibliography-absolute"]
        + "\\end{document}\n",
        encoding="utf-8",
    )
    import subprocess

    done = subprocess.run(
        [pandoc.path, "--citeproc", "-f", "latex", "-t", "plain", str(source)],
        capture_output=True,
        check=False,
        timeout=60,
    )
    assert done.stdout.decode().count(CANARY) >= 2  # the .tex and the .bib
