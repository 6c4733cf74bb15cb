"""SyncTeX: from a click in the PDF to the source line, and back.

Through the `synctex` command-line tool that TeX Live and MiKTeX ship, so no
parser of the .synctex.gz format lives here. Every build writes
`<stem>.synctex.gz` in its build folder; `review.recompile` publishes it next
to `report.pdf`. A pipeline-compiled PDF has its synctex file only in `build/`:
that one is used when the build's PDF is the same file as the one shown (a
stale synctex file would send clicks to the wrong lines).

Everything returns None when the tool or the synctex file is missing, or when
the tool finds nothing: the caller then simply does not jump.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path, PurePosixPath

from labwright.core.rundir import fence
from labwright.core.rundir.names import BUILD, synctex_name

TIMEOUT_S = 10.0


def _synctex_dir(pdf: Path) -> Path | None:
    """The folder holding the synctex file that belongs to `pdf`, or None. Nothing is
    read through a link (core/rundir/fence.py): a link counts as no file."""
    name = synctex_name(pdf)
    run_dir = pdf.parent
    if fence.is_file(run_dir, name):
        return run_dir
    build = PurePosixPath(BUILD)
    try:
        same = fence.read_bytes(run_dir, build / pdf.name) == fence.read_bytes(run_dir, pdf.name)
    except OSError:
        same = False
    return run_dir / BUILD if same and fence.is_file(run_dir, build / name) else None


def _run(args: list[str]) -> list[dict[str, str]] | None:
    """Run `synctex` and return its result records (key: value blocks), or None."""
    tool = shutil.which("synctex")
    if tool is None:
        return None
    try:
        proc = subprocess.run(
            [tool, *args],
            capture_output=True,
            text=True,
            encoding="utf-8",
            errors="replace",
            timeout=TIMEOUT_S,
            stdin=subprocess.DEVNULL,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    if proc.returncode != 0:
        return None
    return _records(proc.stdout)


def _records(output: str) -> list[dict[str, str]]:
    """Split `SyncTeX result begin … end` into records; each starts at `Output:`."""
    records: list[dict[str, str]] = []
    inside = False
    for line in output.splitlines():
        if line.startswith("SyncTeX result begin"):
            inside = True
            continue
        if line.startswith("SyncTeX result end"):
            break
        key, sep, value = line.partition(":")
        if not inside or not sep:
            continue
        if key == "Output" or not records:
            records.append({})
        records[-1].setdefault(key, value)
    return records


def _query(pdf: Path, args: list[str]) -> list[dict[str, str]] | None:
    pdf = Path(os.path.abspath(pdf))
    if not pdf.is_file():
        return None
    folder = _synctex_dir(pdf)
    if folder is None:
        return None
    # `-d` only for the build folder: with it synctex may delete older synctex files of the
    # other folder, so it is never passed when the file sits beside the PDF.
    extra = ["-d", str(folder)] if folder != pdf.parent else []
    return _run([*args, *extra])


def pdf_to_source(pdf: Path, page: int, x: float, y: float) -> tuple[str, int] | None:
    """(tex file, 1-based line) under the point (x, y) of 1-based `page`.

    x and y are PDF points (1/72 in) from the page's top-left corner, as
    `synctex edit` expects. The file is an absolute, normalised path.
    """
    pdf = Path(os.path.abspath(pdf))
    records = _query(pdf, ["edit", "-o", f"{page}:{x:.4f}:{y:.4f}:{pdf}"])
    for rec in records or []:
        try:
            line = int(rec["Line"])
            source = rec["Input"]
        except (KeyError, ValueError):
            continue
        if line >= 1 and source:
            return _moved(os.path.normpath(source), pdf), line
    return None


def _moved(source: str, pdf: Path) -> str:
    """The synctex file records absolute paths: after a run directory was moved or
    copied, the source is the file of that name beside the PDF."""
    if os.path.exists(source):
        return source
    beside = pdf.parent / Path(source).name
    return str(beside) if beside.is_file() else source


def source_to_pdf(
    pdf: Path, tex: Path, line: int, column: int = 0
) -> tuple[int, float, float] | None:
    """(1-based page, x, y) of a source line in the PDF, in points from the top-left.

    The first box synctex gives for the line: where a viewer should scroll to.
    """
    pdf = Path(os.path.abspath(pdf))
    tex = Path(os.path.abspath(tex))
    records = _query(pdf, ["view", "-i", f"{line}:{column}:{tex}", "-o", str(pdf)])
    for rec in records or []:
        try:
            return int(rec["Page"]), float(rec["x"]), float(rec["y"])
        except (KeyError, ValueError):
            continue
    return None
