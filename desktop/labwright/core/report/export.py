"""Export a reviewed report: a folder or a .zip that compiles on its own (Overleaf-ready).

The bundle holds exactly what LaTeX needs and what the person asked for:

    report.tex    the current (possibly edited) report
    refs.bib      the bibliography, when the run has one
    figures/...   only the figures report.tex includes (\\includegraphics)
    report.pdf    the last PDF that compiled, when there is one
    README.txt    three lines: how to compile it (XeLaTeX) and where it came from

Provenance stays in the run directory (journal, run.json, figure code and
inputs, numbers.json, build folders): it is not part of a report a person
hands in. Writes are atomic: a .zip is written to a temp file and renamed; a
folder is assembled beside the destination and renamed into place.
"""

from __future__ import annotations

import os
import shutil
import tempfile
import zipfile
from pathlib import Path

from labwright.core.atomic import atomic_writer
from labwright.core.report.review import included_figures, open_items, why_degraded
from labwright.core.rundir.files import try_load_run
from labwright.core.rundir.store import is_within

# graphicx's search order under XeLaTeX when \includegraphics names no extension
_GRAPHICS_EXTS = ("", ".pdf", ".png", ".jpg", ".jpeg", ".eps")
_README = """\
{title}

Compile with XeLaTeX:  latexmk -xelatex report.tex
On Overleaf: upload this {what}, then Menu > Compiler > XeLaTeX.

Exported by Labwright from the run {run}.
"""


TR_CONTEXT = "ExportRefusals"  # the app translates REFUSAL_TEXT under this context
REFUSAL_TEXT: dict[str, str] = {
    "no_report": "{run_dir} has no report.tex to export.",
    "in_material": (
        "{dest} is inside the material folder {folder}; Labwright never writes there. "
        "Choose another place."
    ),
    "in_run": "{dest} is inside the run directory; choose a place outside it.",
    "zip_is_folder": "{dest} is a folder; give the name of the .zip file to write.",
    "no_parent": "The folder {parent} does not exist.",
    "folder_is_file": "{dest} is a file; choose a new or empty folder.",
    "folder_not_empty": (
        "The folder {dest} is not empty; choose a new or empty folder, so nothing of "
        "yours is overwritten."
    ),
}


def all_texts() -> list[str]:
    """The refusals' sentences, for the translation file."""
    return list(REFUSAL_TEXT.values())


class ExportError(ValueError):
    """The export cannot be done as asked; the message says why and what to do.

    `code` (a key of REFUSAL_TEXT) and `params` say the same as data, so the app can
    word it in the person's language."""

    def __init__(self, code: str, **params: object) -> None:
        self.code = code
        self.params = {k: str(v) for k, v in params.items()}
        super().__init__(REFUSAL_TEXT[code].format(**self.params))


def export_report(run_dir: Path, dest: Path, *, as_zip: bool = False) -> Path:
    """Write the bundle to `dest` (a new or empty folder, or a .zip file) and return it.

    Refused with ExportError: a run without report.tex, a folder that is not
    empty, a destination inside the material folder or inside the run directory.
    """
    run_dir = Path(run_dir).resolve()
    dest = Path(dest).expanduser().absolute()
    files = bundle_files(run_dir)
    _check_destination(run_dir, dest, as_zip)
    readme = _readme(run_dir, "zip file" if as_zip else "folder")
    if as_zip:
        _write_zip(files, readme, dest)
    else:
        _write_folder(files, readme, dest)
    return dest


def bundle_files(run_dir: Path) -> dict[str, Path]:
    """Name in the bundle -> file in the run directory, in a stable order."""
    report = run_dir / "report.tex"
    if not report.is_file():
        raise ExportError("no_report", run_dir=run_dir)
    files = {"report.tex": report}
    if (run_dir / "refs.bib").is_file():
        files["refs.bib"] = run_dir / "refs.bib"
    tex = report.read_text(encoding="utf-8")
    for target in included_figures(tex):
        found = _graphic(run_dir, target)
        if found is not None:
            files[found.relative_to(run_dir).as_posix()] = found
    if (run_dir / "report.pdf").is_file():
        files["report.pdf"] = run_dir / "report.pdf"
    return files


def _graphic(run_dir: Path, target: str) -> Path | None:
    """The file an \\includegraphics target names, if it lies inside the run directory."""
    for ext in _GRAPHICS_EXTS:
        path = (run_dir / (target + ext)).resolve()
        if path.is_file() and is_within(path, run_dir):
            return path
    return None


def _material_folder(run_dir: Path) -> Path | None:
    meta = try_load_run(run_dir)
    return meta.folder if meta is not None else None


def _check_destination(run_dir: Path, dest: Path, as_zip: bool) -> None:
    folder = _material_folder(run_dir)
    if folder is not None and is_within(dest, folder):
        raise ExportError("in_material", dest=dest, folder=folder)
    if is_within(dest, run_dir):
        raise ExportError("in_run", dest=dest)
    if as_zip:
        if dest.is_dir():
            raise ExportError("zip_is_folder", dest=dest)
        if not dest.parent.is_dir():
            raise ExportError("no_parent", parent=dest.parent)
        return
    if dest.exists() and not dest.is_dir():
        raise ExportError("folder_is_file", dest=dest)
    if dest.is_dir() and any(dest.iterdir()):
        raise ExportError("folder_not_empty", dest=dest)


def _readme(run_dir: Path, what: str) -> str:
    text = _README.format(title="Lab report exported by Labwright", what=what, run=run_dir.name)
    why = why_degraded(run_dir)  # the review banner's words, from core/reasons.py's table
    return text + (f"\nThis draft is degraded: {why}\n" if why else "")


def _write_zip(files: dict[str, Path], readme: str, dest: Path) -> None:
    with (
        atomic_writer(dest) as out,
        zipfile.ZipFile(out, "w", compression=zipfile.ZIP_DEFLATED) as z,
    ):
        for name, path in files.items():
            z.write(path, name)
        z.writestr("README.txt", readme)


def _write_folder(files: dict[str, Path], readme: str, dest: Path) -> None:
    if not dest.parent.is_dir():
        raise ExportError("no_parent", parent=dest.parent)
    staging = Path(tempfile.mkdtemp(dir=dest.parent, prefix=f".{dest.name}."))
    try:
        for name, path in files.items():
            target = staging / name
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(path, target)
        (staging / "README.txt").write_text(readme, encoding="utf-8")
        if dest.is_dir():
            dest.rmdir()  # empty (checked): the finished bundle takes its place
        os.replace(staging, dest)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise


# -- asking before exporting -----------------------------------------------------------

_LABELS = {
    "todo": ("TODO", "TODOs"),
    "gap": ("requirement to check", "requirements to check"),
    "citation": ("unresolved citation", "unresolved citations"),
    "compile_error": ("compile error", "compile errors"),
    "compile_warning": ("compile warning", "compile warnings"),
    "figure_unused": ("figure not in the report", "figures not in the report"),
    "number": ("number not found in the material", "numbers not found in the material"),
}


def export_warnings(run_dir: Path) -> list[str]:
    """What to ask the person about before exporting; empty when there is nothing.

    "This draft is degraded: …" when the run is, and "N open items remain: …"
    when the current report has open items.
    """
    run_dir = Path(run_dir)
    out = []
    why = why_degraded(run_dir)
    if why:
        out.append(f"This draft is degraded: {why}")
    items = open_items(run_dir)
    if items:
        counts: dict[str, int] = {}
        for item in items:
            counts[item.kind] = counts.get(item.kind, 0) + 1
        parts = [
            f"{n} {_LABELS.get(kind, (kind, kind))[n != 1]}"
            for kind, n in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))
        ]
        total = len(items)
        out.append(
            f"{total} open item{'s' if total != 1 else ''} remain{'' if total != 1 else 's'}: "
            + ", ".join(parts)
            + "."
        )
    if not (run_dir / "report.pdf").is_file():
        out.append("There is no compiled PDF yet: the export holds the LaTeX source only.")
    return out
