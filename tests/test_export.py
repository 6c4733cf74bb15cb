"""Export: an Overleaf-ready folder or .zip that compiles on its own; asking first (issue 6)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import zipfile
from pathlib import Path

import pytest
from pypdf import PdfReader

from labwright.cli import main
from labwright.core.report.export import ExportError, export_report, export_warnings
from labwright.core.report.latex import probe_engines
from labwright.core.report.review import save_edit

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "pendulum"
needs_tex = pytest.mark.skipif(not probe_engines().can_compile, reason="no TeX engine")
needs_latexmk = pytest.mark.skipif(shutil.which("latexmk") is None, reason="no latexmk")

BIB = """@book{knuth,
  title = {The TeXbook},
  author = {Knuth, Donald E.},
  year = {1984},
  publisher = {Addison-Wesley}
}
"""


def edit_with_a_citation(run_dir: Path) -> None:
    """A person's edit: a real citation, its bibliography, and a spare figure not used."""
    tex = (run_dir / "report.tex").read_text(encoding="utf-8")
    tex = tex.replace(
        "\\section{Theory}", "\\section{Theory}\nThe period follows from~\\cite{knuth}."
    )
    tex = tex.replace(
        "\\end{document}", "\\bibliographystyle{unsrt}\n\\bibliography{refs}\n\\end{document}"
    )
    save_edit(run_dir, tex)
    (run_dir / "refs.bib").write_text(BIB, encoding="utf-8")
    shutil.copy(run_dir / "figures" / "table1.pdf", run_dir / "figures" / "spare.pdf")


@needs_tex
@needs_latexmk
def test_exported_zip_compiles_alone_with_plain_latexmk(offline_run, tmp_path):
    edit_with_a_citation(offline_run)
    zip_path = export_report(offline_run, tmp_path / "report.zip", as_zip=True)
    assert zip_path == tmp_path / "report.zip"
    with zipfile.ZipFile(zip_path) as z:
        names = sorted(z.namelist())
        unpacked = tmp_path / "elsewhere"
        z.extractall(unpacked)
    # only what LaTeX needs and what was asked for: no build folders, journal or provenance
    assert names == [
        "README.txt",
        "figures/",
        "figures/table1.pdf",
        "refs.bib",
        "report.pdf",
        "report.tex",
    ]
    assert "latexmk -xelatex" in (unpacked / "README.txt").read_text()
    (unpacked / "report.pdf").unlink()  # the bundle's PDF must not be what we check

    proc = subprocess.run(
        ["latexmk", "-xelatex", "-interaction=nonstopmode", "-halt-on-error", "report.tex"],
        cwd=unpacked,
        capture_output=True,
        timeout=120,
        check=False,
    )
    assert proc.returncode == 0, proc.stdout.decode(errors="replace")[-2000:]
    text = "\n".join(p.extract_text() or "" for p in PdfReader(unpacked / "report.pdf").pages)
    assert "The TeXbook" in text and "The period follows from [1]" in text


def test_export_to_a_folder_and_refusals(offline_run, tmp_path):
    out = export_report(offline_run, tmp_path / "bundle")
    assert sorted(p.relative_to(out).as_posix() for p in out.rglob("*") if p.is_file()) == sorted(
        ["README.txt", "figures/table1.pdf", "refs.bib", "report.tex"]
        + (["report.pdf"] if (offline_run / "report.pdf").is_file() else [])
    )
    assert (out / "report.tex").read_bytes() == (offline_run / "report.tex").read_bytes()

    # an existing empty folder is fine; a non-empty one is refused and left alone
    empty = tmp_path / "empty"
    empty.mkdir()
    assert (export_report(offline_run, empty) / "report.tex").is_file()
    busy = tmp_path / "busy"
    busy.mkdir()
    (busy / "thesis.tex").write_text("mine")
    with pytest.raises(ExportError, match="not empty"):
        export_report(offline_run, busy)
    assert [p.name for p in busy.iterdir()] == ["thesis.tex"]

    material = Path(json.loads((offline_run / "run.json").read_text())["config"]["folder"])
    with pytest.raises(ExportError, match="material folder"):
        export_report(offline_run, material / "export.zip", as_zip=True)
    assert not (material / "export.zip").exists()
    with pytest.raises(ExportError, match="inside the run directory"):
        export_report(offline_run, offline_run / "export")
    with pytest.raises(ExportError, match="is a folder"):
        export_report(offline_run, empty, as_zip=True)
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")]  # no staging left


def test_a_failed_zip_write_leaves_nothing(offline_run, tmp_path, monkeypatch):
    def fail(src, dst):
        raise OSError("disk full")

    monkeypatch.setattr(os, "replace", fail)
    with pytest.raises(OSError):
        export_report(offline_run, tmp_path / "report.zip", as_zip=True)
    assert list(tmp_path.iterdir()) == [offline_run]


def test_export_warnings_ask_before_exporting_a_degraded_draft(offline_run):
    warnings = export_warnings(offline_run)
    assert warnings[0].startswith("This draft is degraded: Offline run: no model read")
    # The pendulum manual's 3 Analysis tasks and 5 report items, each at its TODO in the results.
    assert warnings[1] == "17 open items remain: 9 TODOs, 8 requirements to check."


def test_export_warnings_are_empty_for_a_clean_run(tmp_path):
    d = tmp_path / "clean"
    (d / "drafts").mkdir(parents=True)
    report = "\\documentclass{article}\n\\begin{document}\nDone.\n\\end{document}\n"
    (d / "report.tex").write_text(report)
    (d / "drafts" / "v1.tex").write_text(report)
    (d / "report.pdf").write_bytes(b"%PDF-1.5\n")
    meta = {"status": "ok", "reasons": [], "template": "lab-en", "config": {}}
    (d / "run.json").write_text(json.dumps(meta))
    assert export_warnings(d) == []


def test_cli_export(offline_run, tmp_path, capsys):
    dest = tmp_path / "out.zip"
    assert main(["export", str(offline_run), str(dest), "--zip"]) == 0
    captured = capsys.readouterr()
    assert captured.out.strip() == str(dest) and "degraded" in captured.err
    assert zipfile.is_zipfile(dest)
    assert main(["export", str(offline_run), str(dest.parent)]) == 2  # not empty
    assert "not empty" in capsys.readouterr().err
    assert main(["export", str(tmp_path / "nothing"), str(tmp_path / "x")]) == 2
