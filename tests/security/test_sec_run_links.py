"""A run folder someone sent holds links: nothing in it is followed out of it (issue 21).

Run folders travel (a classmate sends theirs), and a link in one points wherever
its maker chose. Each case plants links to an outside folder holding the canary
and goes through the real code path: `labwright run --resume`, `labwright export`,
`labwright verify`, the compile (compile_tex and the review pane's recompile), a
figure run of the sandbox, and the app's Reopen by a double-click on the history
row. The effects checked: the outside folder hashes the same afterwards (nothing
written, truncated or created there), the canary is in no output (files of the run
folder, PDF text, zip and .docx members, stdout and stderr), and the refusal names the link.
Positive controls: the same scenario with the canary in a regular file inside the
run shows the same checks do see it (in the PDF text, the zip, the output) and a
change of the journal.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import zipfile
from pathlib import Path

import pytest

from canary import CANARY, SECRET_KEY, snapshot
from labwright.cli import main
from labwright.core.report.latex import compile_tex, probe_engines
from labwright.core.rundir.fence import RunLinkError

ENGINES = probe_engines()
needs_tex = pytest.mark.skipif(ENGINES.engine is None, reason="no TeX engine installed")
NEEDLES = (CANARY, SECRET_KEY)
FAKE_PDF = b"%PDF-1.4\n% " + CANARY.encode() + b"\n%%EOF\n"  # raw bytes carry the canary


# -- helpers ---------------------------------------------------------------------------


def _texts(path: Path) -> list[str]:
    data = path.read_bytes()
    out = [data.decode("latin-1")]
    if path.suffix.lower() == ".pdf" and data.startswith(b"%PDF"):
        from pypdf import PdfReader

        with contextlib.suppress(Exception):  # a broken PDF has no text to leak
            out += [p.extract_text() or "" for p in PdfReader(path).pages]
    if path.suffix.lower() in (".zip", ".docx"):  # a .docx is a zip of XML parts
        with zipfile.ZipFile(path) as z:
            out += [z.read(i).decode("latin-1") for i in z.infolist()]
    return out


def leaks_here(root: Path, needles=NEEDLES) -> list[str]:
    """Regular files under `root` (links not followed, PDF text and zip members read)
    that hold a needle: what the run itself wrote, never what a planted link shows."""
    if root.is_file() and not root.is_symlink():
        files = [root]
    else:
        files = []
        for d, _dirs, names in os.walk(root, followlinks=False):
            files += [Path(d) / n for n in names if not (Path(d) / n).is_symlink()]
    return [
        f"{p}: {n}" for p in files if p.is_file() for n in needles if any(n in t for t in _texts(p))
    ]


def _cut_after(run: Path, stage: str) -> None:
    """The finished offline run as if cancelled right after `stage` ended."""
    keep = []
    for line in (run / "events.jsonl").read_text(encoding="utf-8").splitlines(keepends=True):
        keep.append(line)
        e = json.loads(line)
        if e["type"] == "milestone" and e["stage"] == stage and e["status"] in ("end", "skipped"):
            break
    (run / "events.jsonl").write_text("".join(keep), encoding="utf-8")
    meta = json.loads((run / "run.json").read_text(encoding="utf-8"))
    meta["status"] = "cancelled"
    (run / "run.json").write_text(json.dumps(meta), encoding="utf-8")


def _with_canary(path: Path) -> None:
    """Put the canary where a reader of the file would show it."""
    if path.suffix == ".tex":
        text = path.read_text(encoding="utf-8")
        path.write_text(text.replace("\\end{document}", f"\n{CANARY}\n\\end{{document}}"))
    elif path.suffix == ".bib":
        path.write_text(
            path.read_text(encoding="utf-8")
            + f"\n@misc{{canary, title = {{{CANARY}}}, author = {{A}}, year = {{2000}}}}\n"
        )
    elif path.suffix == ".pdf":
        path.write_bytes(FAKE_PDF)


def plant(run: Path, entry: str, outside: Path) -> Path:
    """Move `entry` of the run to the outside folder (the canary in it) and leave a
    link to it in its place; an entry the run lacks gets an outside file; `.lock` a
    dangling link (whatever follows it would create the outside file)."""
    src = run / entry
    target = outside / ("linked-" + entry.strip(".").replace("/", "-"))
    if entry == ".lock":
        src.unlink(missing_ok=True)
    elif src.is_dir():
        shutil.move(src, target)
        (target / "canary.txt").write_text(CANARY, encoding="utf-8")
    elif src.is_file():
        shutil.move(src, target)
        _with_canary(target)
    else:
        target.write_text(f"{CANARY}\n", encoding="utf-8")
    src.symlink_to(target, target_is_directory=target.is_dir())
    return target


@pytest.fixture
def outside(outside_canary: Path) -> Path:
    return outside_canary.parent


# -- labwright run --resume --------------------------------------------------------------

# (entry, the stage the cancelled run got past): every file and folder of a run
# folder, each with a cut that makes the resumed run read or write it.
RESUME_CASES = [
    ("run.json", "draft"),
    ("events.jsonl", "draft"),
    ("findings.json", "draft"),
    ("evidence.jsonl", "draft"),
    ("report.tex", "draft"),
    ("drafts", "explore"),
    ("drafts/v1.tex", "draft"),
    ("refs.bib", "draft"),
    ("figures", "explore"),
    ("figures/table1.json", "draft"),
    ("figures/table1.pdf", "draft"),
    ("figures.json", "draft"),
    ("gaps.json", "draft"),
    ("numbers.json", "explore"),
    ("report.pdf", "draft"),
    ("build", "draft"),
    ("build/report.log", "draft"),
    ("error.txt", "draft"),
    (".lock", "draft"),
]


@pytest.mark.parametrize(("entry", "cut"), RESUME_CASES, ids=[c[0] for c in RESUME_CASES])
def test_resume_refuses_a_run_folder_holding_a_link(
    entry, cut, offline_run, outside, capsys, guarded_folder
):
    _cut_after(offline_run, cut)
    guarded_folder(Path(json.loads((offline_run / "run.json").read_text())["config"]["folder"]))
    target = plant(offline_run, entry, outside)
    before = snapshot(outside)
    journal = (offline_run / "events.jsonl").read_bytes() if entry != "events.jsonl" else None

    code = main(["run", "--resume", str(offline_run)])

    out, err = capsys.readouterr()
    assert snapshot(outside) == before  # nothing written, cut, appended or created outside
    assert entry != ".lock" or not target.exists()
    assert leaks_here(offline_run) == []
    assert CANARY not in out + err
    if journal is not None:  # the refusal comes before the run starts
        assert (offline_run / "events.jsonl").read_bytes() == journal
    assert code == 2, err
    assert entry in err and "link" in err


def test_positive_control_resume_shows_a_canary_of_the_run_and_changes_the_journal(
    offline_run, capsys
):
    """The same scenario with the canary in a regular report.tex: the checks above see it
    in the PDF's text, and see the journal change."""
    _cut_after(offline_run, "draft")
    _with_canary(offline_run / "report.tex")
    journal = (offline_run / "events.jsonl").read_bytes()
    code = main(["run", "--resume", str(offline_run)])
    assert code == 10, capsys.readouterr().err
    assert (offline_run / "events.jsonl").read_bytes() != journal
    assert any("report.pdf" in hit for hit in leaks_here(offline_run))


def test_the_torn_tail_of_a_linked_journal_is_not_cut(offline_run, outside, capsys):
    """`events.jsonl -> a file`: the file lost its last line and got events appended."""
    _cut_after(offline_run, "draft")
    private = outside / "notes.txt"
    private.write_bytes((offline_run / "events.jsonl").read_bytes() + b"my last line, no newline")
    (offline_run / "events.jsonl").unlink()
    (offline_run / "events.jsonl").symlink_to(private)
    before = private.read_bytes()
    code = main(["run", "--resume", str(offline_run)])
    assert private.read_bytes() == before
    assert code == 2 and "events.jsonl" in capsys.readouterr().err


# -- labwright export --------------------------------------------------------------------

EXPORT_ENTRIES = ["report.tex", "refs.bib", "report.pdf", "figures/table1.pdf", "figures"]


EXPORT_KINDS = {
    "zip": ("out.zip", ["--zip"]),
    "folder": ("out", []),
    "docx": ("out.docx", ["--docx"]),
}


@pytest.mark.parametrize("kind", list(EXPORT_KINDS))
@pytest.mark.parametrize("entry", [*EXPORT_ENTRIES, "figures/table1.png"])
def test_export_refuses_a_run_folder_holding_a_link(
    entry, kind, offline_run, outside, tmp_path, capsys
):
    plant(offline_run, entry, outside)
    if entry == "figures":
        (outside / "linked-figures" / "table1.pdf").write_bytes(FAKE_PDF)
    before = snapshot(outside)
    name, flags = EXPORT_KINDS[kind]
    dest = tmp_path / name

    code = main(["export", str(offline_run), str(dest), *flags])

    out, err = capsys.readouterr()
    assert not dest.exists() or leaks_here(dest) == []
    assert snapshot(outside) == before
    assert CANARY not in out + err
    assert code == 2, err
    assert entry in err and "link" in err
    assert not dest.exists()
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".out")]  # no staging left


@pytest.mark.parametrize("kind", list(EXPORT_KINDS))
def test_positive_control_export_carries_a_canary_of_the_run(kind, offline_run, tmp_path):
    for name in ("report.tex", "refs.bib", "report.pdf"):
        _with_canary(offline_run / name)
    name, flags = EXPORT_KINDS[kind]
    dest = tmp_path / name
    assert main(["export", str(offline_run), str(dest), *flags]) == 0
    hits = leaks_here(dest)
    for name in ("report.tex", "refs.bib", "report.pdf"):
        assert kind != "folder" or any(name in h for h in hits), hits
    if kind == "docx":  # report.tex's text, as Word text
        with zipfile.ZipFile(dest) as z:
            assert CANARY in z.read("word/document.xml").decode("utf-8")
    assert hits


# -- labwright verify --------------------------------------------------------------------

SENTENCE = f"\nThe {CANARY} reading was 987.654 units.\n"


def _report_with_a_number(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    path.write_text(text.replace("\\end{document}", SENTENCE + "\\end{document}"))


@pytest.mark.parametrize("entry", ["report.tex", "evidence.jsonl", "numbers.json", "run.json"])
def test_verify_refuses_a_run_folder_holding_a_link(entry, offline_run, outside, capsys):
    if entry == "report.tex":
        _report_with_a_number(offline_run / "report.tex")
    plant(offline_run, entry, outside)
    before = snapshot(outside)
    code = main(["verify", str(offline_run)])
    out, err = capsys.readouterr()
    assert snapshot(outside) == before
    assert CANARY not in out + err
    assert code == 2, err
    assert entry in err and "link" in err
    assert not (offline_run / "numbers.json").is_file() or entry == "numbers.json"


def test_positive_control_verify_shows_a_sentence_of_the_run(offline_run, capsys):
    _report_with_a_number(offline_run / "report.tex")
    assert main(["verify", str(offline_run)]) == 10
    assert CANARY in capsys.readouterr().out


# -- the compile -------------------------------------------------------------------------

READS_BUILD = (
    "\\documentclass{article}\n\\usepackage{verbatim}\n\\begin{document}\nStart.\n"
    "\\verbatiminput{@BUILD@/secret.txt}\n\\end{document}\n"
)


def _tex_run(tmp_path: Path, build: str) -> Path:
    run = tmp_path / "run"
    run.mkdir()
    (run / "report.tex").write_text(READS_BUILD.replace("@BUILD@", build), encoding="utf-8")
    return run


def _compile(run: Path, how: str):
    if how == "compile_tex":
        return compile_tex(run / "report.tex", engines=ENGINES, timeout_s=120)
    from labwright.core.report.review import recompile

    return recompile(run, engines=ENGINES)


@needs_tex
@pytest.mark.parametrize(
    ("how", "build"), [("compile_tex", "build"), ("recompile", "build-review")]
)
def test_a_linked_build_folder_is_not_granted_to_tex(how, build, tmp_path, outside):
    """`build -> X`: TeX got read and write rights on X and put X's file into the PDF."""
    run = _tex_run(tmp_path, build)
    (run / build).symlink_to(outside, target_is_directory=True)
    before = snapshot(outside)

    result = _compile(run, how)

    message = " ".join(e.message for e in result.errors)
    assert snapshot(outside) == before  # TeX wrote nothing into X
    assert leaks_here(run) == []
    assert CANARY not in message + result.log_tail
    assert not result.ok and not (run / "report.pdf").exists()
    assert build in message and "link" in message


@needs_tex
@pytest.mark.parametrize("how", ["compile_tex", "recompile"])
def test_a_linked_report_tex_is_not_compiled_where_it_points(how, tmp_path, outside):
    """`report.tex -> X/doc.tex`: the compile must not move into X (its build folder,
    its PDF) nor put X's text into the run's PDF."""
    (outside / "doc.tex").write_text(
        f"\\documentclass{{article}}\\begin{{document}}{CANARY}\\end{{document}}\n",
        encoding="utf-8",
    )
    run = tmp_path / "run"
    run.mkdir()
    (run / "report.tex").symlink_to(outside / "doc.tex")
    before = snapshot(outside)
    result = _compile(run, how)
    assert snapshot(outside) == before
    assert leaks_here(run) == []
    assert not result.ok and "report.tex is a link" in result.errors[0].message


@needs_tex
@pytest.mark.parametrize(
    ("how", "build"), [("compile_tex", "build"), ("recompile", "build-review")]
)
def test_positive_control_tex_shows_a_canary_of_the_build_folder(how, build, tmp_path, outside):
    run = _tex_run(tmp_path, build)
    (run / build).mkdir()
    shutil.copy(outside / "secret.txt", run / build / "secret.txt")
    result = _compile(run, how)
    assert result.ok, result.errors
    assert any("report.pdf" in hit for hit in leaks_here(run))


# -- a figure run (the sandbox's figure files) ---------------------------------------------

SITE = "import matplotlib.pyplot as plt\nplt.plot([1, 2], [3, 4])\n"


def _figure(material: Path, figures: Path):
    from labwright.core.agent.sandbox import run_figure

    return run_figure(
        SITE, data_dir=material, figures_dir=figures, filename="sitecustomize", caption="c"
    )


def test_a_figure_is_not_written_through_a_linked_figures_folder(material, tmp_path, outside):
    """`figures -> Y`: the figure files, sitecustomize.py with the model's code among
    them, were written into Y."""
    run = tmp_path / "run"
    run.mkdir()
    (run / "figures").symlink_to(outside, target_is_directory=True)
    before = snapshot(outside)
    refused = ""
    try:
        _figure(material, run / "figures")
    except RunLinkError as e:
        refused = str(e)
    assert snapshot(outside) == before
    assert not (outside / "sitecustomize.py").exists()
    assert "figures" in refused and "link" in refused


def test_positive_control_a_figure_lands_in_a_real_figures_folder(material, tmp_path):
    figures = tmp_path / "run" / "figures"
    figures.mkdir(parents=True)
    assert _figure(material, figures).ok
    assert (figures / "sitecustomize.py").read_text(encoding="utf-8") == SITE


# -- the app: History and Reopen ---------------------------------------------------------


def _history_run(offline_run: Path, home: Path) -> Path:
    runs = home / "runs"
    runs.mkdir(exist_ok=True)
    return Path(shutil.copytree(offline_run, runs / offline_run.name))


def _reopen_by_double_click(qtbot, w, run_dir: Path) -> None:
    from PySide6.QtCore import Qt

    rows = [w.history.item(i) for i in range(w.history.count())]
    row = next(r for r in rows if r.data(Qt.ItemDataRole.UserRole) == str(run_dir))
    w.history.scrollToItem(row)
    pos = w.history.visualItemRect(row).center()
    qtbot.mouseClick(w.history.viewport(), Qt.MouseButton.LeftButton, pos=pos)
    qtbot.mouseDClick(w.history.viewport(), Qt.MouseButton.LeftButton, pos=pos)


def _shown_text(w) -> str:
    r = w.results
    figures = [r.figures.item(i) for i in range(r.figures.count())]
    return "\n".join(
        [
            r.source.toPlainText(),
            r.draft.toPlainText(),
            r.findings.toPlainText(),
            w.banner.text(),
            *(f.text() + f.toolTip() for f in figures),
        ]
    )


APP_ENTRIES = ["report.tex", "report.pdf", "figures/table1.png", "figures", "events.jsonl"]


@pytest.mark.parametrize("entry", APP_ENTRIES)
def test_reopen_of_a_run_folder_holding_a_link_shows_a_sentence(
    entry, qtbot, window_for, offline_run, outside, isolated_home
):
    run_dir = _history_run(offline_run, isolated_home)
    if entry == "report.pdf":
        from labwright.core.report.latex.build import publish_file  # any real PDF will do

        publish_file(offline_run / "report.pdf", outside / "private.pdf")
    plant(run_dir, entry, outside)
    before = snapshot(outside)
    w = window_for()
    _reopen_by_double_click(qtbot, w, run_dir)  # Reopen runs in the GUI thread, at once
    assert CANARY not in _shown_text(w)
    assert w.results.pdf.document.pageCount() == 0 and w.results.figures.count() == 0
    assert w.timeline.rowCount() == 0  # nothing of the run was replayed
    assert snapshot(outside) == before
    assert entry in w.banner.text() and "link" in w.banner.text()


def test_history_lists_a_run_whose_run_json_is_a_link_and_reopen_explains(
    qtbot, window_for, offline_run, outside, isolated_home
):
    run_dir = _history_run(offline_run, isolated_home)
    plant(run_dir, "run.json", outside)
    w = window_for()
    assert w.history.count() == 1
    assert "run.json" in w.history.item(0).toolTip()
    _reopen_by_double_click(qtbot, w, run_dir)
    assert CANARY not in _shown_text(w)
    assert w.timeline.rowCount() == 0
    assert "run.json" in w.banner.text()


def test_positive_control_reopen_shows_the_run(qtbot, window_for, offline_run, isolated_home):
    run_dir = _history_run(offline_run, isolated_home)
    _with_canary(run_dir / "report.tex")
    w = window_for()
    _reopen_by_double_click(qtbot, w, run_dir)
    assert CANARY in w.results.source.toPlainText()
    assert w.results.pdf.document.pageCount() > 0 and w.results.figures.count() == 1
    assert w.timeline.rowCount() > 0
