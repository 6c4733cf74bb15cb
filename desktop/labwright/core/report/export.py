"""Export a reviewed report: a folder or a .zip that compiles on its own (Overleaf-ready),
or a Word document (.docx, through pandoc: core/report/word.py).

The bundle holds exactly what LaTeX needs and what the person asked for:

    report.tex    the current (possibly edited) report
    refs.bib      the bibliography, when the run has one
    figures/...   only the figures report.tex includes (\\includegraphics)
    report.pdf    the last PDF that compiled, when there is one
    README.txt    three lines: how to compile it (XeLaTeX) and where it came from

Provenance stays in the run directory (journal, run.json, figure code and
inputs, numbers.json, build folders): it is not part of a report a person
hands in. Writes are atomic: a .zip or .docx is written to a temp file and
renamed; a folder is assembled beside the destination and renamed into place.

A .docx is converted from copies: report.tex, refs.bib and, for each figure the
report includes, the PNG beside its PDF (Word shows no PDF image), read through
the fence into a private staging folder that pandoc alone sees.

A run folder holding a link is not exported (RunLinkError, before anything is
written), and every file is read beneath the run folder without following one
(core/rundir/fence.py): a `report.pdf -> ~/private.pdf` never reaches the bundle.
"""

from __future__ import annotations

import os
import shutil
import stat
import tempfile
import time
import zipfile
from pathlib import Path, PurePosixPath
from typing import IO

from labwright.core.atomic import atomic_writer
from labwright.core.catalog import Catalog
from labwright.core.report import word
from labwright.core.report.review import included_figures, open_items, why_degraded
from labwright.core.report.review.files import report_language
from labwright.core.rundir import fence
from labwright.core.rundir.files import try_load_run
from labwright.core.rundir.layout import RunDir
from labwright.core.rundir.names import REFS_BIB, REPORT_PDF, REPORT_TEX, in_figures
from labwright.core.rundir.store import is_within, make_temp_dir

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
    "docx_is_folder": "{dest} is a folder; give the name of the .docx file to write.",
    "no_parent": "The folder {parent} does not exist.",
    "folder_is_file": "{dest} is a file; choose a new or empty folder.",
    "folder_not_empty": (
        "The folder {dest} is not empty; choose a new or empty folder, so nothing of "
        "yours is overwritten."
    ),
    "no_pandoc": (
        "A Word document is made with pandoc, which is not installed: install Labwright "
        "with its pypandoc-binary package, or pandoc 2.15 or later."
    ),
    "pandoc_timeout": "pandoc did not finish the Word document within {seconds} s; nothing was written.",
    "pandoc_failed": "pandoc could not convert the report to Word: {detail}",
}


REFUSALS = Catalog(TR_CONTEXT, REFUSAL_TEXT)


def all_texts() -> list[str]:
    """The refusals' sentences, for the translation file."""
    return REFUSALS.all_texts()


class ExportError(ValueError):
    """The export cannot be done as asked; the message says why and what to do.

    `code` (a key of REFUSAL_TEXT) and `params` say the same as data, so the app can
    word it in the person's language."""

    def __init__(self, code: str, **params: object) -> None:
        self.code = code
        self.params = {k: str(v) for k, v in params.items()}
        super().__init__(REFUSALS.english(code, **self.params))


def export_report(
    run_dir: Path, dest: Path, *, as_zip: bool = False, as_docx: bool = False
) -> Path:
    """Write the bundle to `dest` (a new or empty folder, or a .zip file) or the report
    as a Word document (`as_docx`: the .docx file `dest`), and return it.

    Refused with ExportError: a run without report.tex, a folder that is not
    empty, a destination inside the material folder or inside the run directory,
    no pandoc for a .docx (or pandoc failing); with RunLinkError: a run folder
    holding a link (or a FIFO, a socket, a device).
    """
    run_dir = Path(run_dir).resolve()
    dest = Path(dest).expanduser().absolute()
    fence.check_run_dir(run_dir)
    files = bundle_files(run_dir)
    kind = "docx" if as_docx else "zip" if as_zip else "folder"
    _check_destination(run_dir, dest, kind)
    if as_docx:
        _write_docx(run_dir, files, dest)
        return dest
    readme = _readme(run_dir, "zip file" if as_zip else "folder")
    if as_zip:
        _write_zip(run_dir, files, readme, dest)
    else:
        _write_folder(run_dir, files, readme, dest)
    return dest


def bundle_files(run_dir: Path) -> dict[str, str]:
    """Name in the bundle -> the same name in the run directory, in a stable order:
    only regular files reached without a link (fence.is_file)."""
    run = RunDir(run_dir)
    if not run.has_report():
        raise ExportError("no_report", run_dir=run_dir)
    files = {REPORT_TEX: REPORT_TEX}
    if run.has_refs():
        files[REFS_BIB] = REFS_BIB
    for target in included_figures(run.read_report()):
        found = _graphic(run, target)
        if found is not None:
            files[found] = found
    if run.has_pdf():
        files[REPORT_PDF] = REPORT_PDF
    return files


def _graphic(run: RunDir, target: str) -> str | None:
    """The file an \\includegraphics target names, if it is one inside the run directory
    (a name that climbs out with .. or is absolute is not)."""
    for ext in _GRAPHICS_EXTS:
        name = PurePosixPath(target.strip() + ext)
        if run.has_file(name):
            return name.as_posix()
    return None


def _material_folder(run_dir: Path) -> Path | None:
    meta = try_load_run(run_dir)
    return meta.folder if meta is not None else None


def _check_destination(run_dir: Path, dest: Path, kind: str) -> None:
    folder = _material_folder(run_dir)
    if folder is not None and is_within(dest, folder):
        raise ExportError("in_material", dest=dest, folder=folder)
    if is_within(dest, run_dir):
        raise ExportError("in_run", dest=dest)
    if kind in ("zip", "docx"):
        if dest.is_dir():
            raise ExportError(f"{kind}_is_folder", dest=dest)
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


# Modes in the zip: readable by whoever unpacks it (the run folder's own files are 0600,
# private to their owner; a bundle is made to be handed in or uploaded)
_ZIP_FILE_MODE = stat.S_IFREG | 0o644
_ZIP_FOLDER_MODE = stat.S_IFDIR | 0o755
_MSDOS_FOLDER = 0x10


def _write_zip(run_dir: Path, files: dict[str, str], readme: str, dest: Path) -> None:
    with (
        atomic_writer(dest) as out,
        zipfile.ZipFile(out, "w", compression=zipfile.ZIP_DEFLATED) as z,
    ):
        for folder in _folders_of(files):
            z.writestr(_folder_member(folder), b"")
        for name, rel in files.items():
            with fence.open_in_run(run_dir, rel) as src, z.open(_member(name, src), "w") as out:
                shutil.copyfileobj(src, out)
        readme_info = zipfile.ZipInfo("README.txt", time.localtime()[:6])
        readme_info.external_attr = _ZIP_FILE_MODE << 16
        readme_info.compress_type = zipfile.ZIP_DEFLATED
        z.writestr(readme_info, readme)


def _folders_of(files: dict[str, str]) -> list[str]:
    """Every folder the bundle's names lie in (figures/, figures/sub/), parents first."""
    folders = {str(p) for name in files for p in PurePosixPath(name).parents if str(p) != "."}
    return sorted(folders, key=lambda f: (f.count("/"), f))


def _folder_member(folder: str) -> zipfile.ZipInfo:
    info = zipfile.ZipInfo(f"{folder}/", time.localtime()[:6])
    info.external_attr = (_ZIP_FOLDER_MODE << 16) | _MSDOS_FOLDER
    return info


def _member(name: str, src: IO[bytes]) -> zipfile.ZipInfo:
    """The zip entry for the open file `src`: its time, and a mode anyone may read."""
    st = os.fstat(src.fileno())
    when = time.localtime(st.st_mtime)[:6]
    info = zipfile.ZipInfo(name, when if when[0] >= 1980 else (1980, 1, 1, 0, 0, 0))
    info.external_attr = _ZIP_FILE_MODE << 16
    info.compress_type = zipfile.ZIP_DEFLATED
    return info


def _write_folder(run_dir: Path, files: dict[str, str], readme: str, dest: Path) -> None:
    if not dest.parent.is_dir():
        raise ExportError("no_parent", parent=dest.parent)
    staging = Path(tempfile.mkdtemp(dir=dest.parent, prefix=f".{dest.name}."))
    try:
        for name, rel in files.items():
            target = staging / name
            target.parent.mkdir(parents=True, exist_ok=True)
            with fence.open_in_run(run_dir, rel) as src, open(target, "xb") as out:
                shutil.copyfileobj(src, out)
                st = os.fstat(src.fileno())  # of the file read, not of a name: like copy2
            os.utime(target, ns=(st.st_atime_ns, st.st_mtime_ns))
            os.chmod(target, stat.S_IMODE(st.st_mode))
        (staging / "README.txt").write_text(readme, encoding="utf-8")
        if dest.is_dir():
            dest.rmdir()  # empty (checked): the finished bundle takes its place
        os.replace(staging, dest)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise


def _write_docx(run_dir: Path, files: dict[str, str], dest: Path) -> None:
    staging = make_temp_dir("docx")
    try:
        for name in (REPORT_TEX, REFS_BIB):
            if name in files:
                _copy_out(run_dir, name, staging / name)
        tex = RunDir(run_dir).read_report()
        figures = _stage_word_figures(run_dir, tex, staging)
        try:
            out = word.convert(
                staging,
                lang=report_language(run_dir, tex),
                figures=figures,
                bibliography=REFS_BIB in files,
            )
        except word.PandocError as e:
            if e.code == "no_pandoc":
                raise ExportError("no_pandoc") from None
            if e.code == "timeout":
                raise ExportError("pandoc_timeout", seconds=e.detail) from None
            raise ExportError("pandoc_failed", detail=e.detail) from None
        # a document the person hands in: readable as any file they save (umask applies)
        with open(out, "rb") as src, atomic_writer(dest, mode=0o666) as target:
            shutil.copyfileobj(src, target)
    finally:
        shutil.rmtree(staging, ignore_errors=True)


def _copy_out(run_dir: Path, rel: str, target: Path) -> None:
    """Copy a run file out of the run folder, read beneath it without following a link."""
    target.parent.mkdir(parents=True, exist_ok=True)
    with fence.open_in_run(run_dir, rel) as src, open(target, "xb") as out:
        shutil.copyfileobj(src, out)


def _word_image(run_dir: Path, found: str) -> str | None:
    """The image Word shows for a figure file of the run: a PNG or JPEG as it is, a
    PDF or EPS by the PNG beside it (every figure Labwright draws has one)."""
    path = PurePosixPath(found)
    if path.suffix.lower() in (".png", ".jpg", ".jpeg"):
        return found
    png = path.with_suffix(".png").as_posix()
    return png if fence.is_file(run_dir, png) else None


def _stage_word_figures(run_dir: Path, tex: str, staging: Path) -> dict[str, str]:
    """Copy each included figure's image into staging/figures; its target -> staged name."""
    figures: dict[str, str] = {}
    for n, target in enumerate(dict.fromkeys(t.strip() for t in included_figures(tex)), 1):
        found = _graphic(RunDir(run_dir), target)
        image = _word_image(run_dir, found) if found is not None else None
        if image is None:
            continue
        staged = in_figures(f"{n}-{PurePosixPath(image).name}")
        _copy_out(run_dir, image, staging / staged)
        key = target[2:] if target.startswith("./") else target
        figures[key] = staged
    return figures


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
    fence.check_run_dir(run_dir)  # RunLinkError: a run folder holding a link is not exported
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
    if not RunDir(run_dir).has_pdf():
        out.append("There is no compiled PDF yet: the export holds the LaTeX source only.")
    return out
