"""Parent-side file handling: names, inputs, staged outputs and provenance.

Everything the child produced is untrusted: staged files are taken only by the
exact names the harness uses, are read as child_files reads (regular files only,
never a link, a FIFO or a device, without blocking), carry the right magic bytes
and stay under a size cap. They reach figures_dir by an atomic write, so the
report never sees a half-written figure, and beneath the run folder without
following a link (core/rundir/fence.py): a `figures -> elsewhere` link never
receives the model's code (a sitecustomize.py there would run the next time
Python starts with that folder on its path).
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from datetime import datetime, timezone
from functools import cache
from pathlib import Path

from labwright.core.agent.sandbox import child_files
from labwright.core.material.workspace import PathDenied, file_digest
from labwright.core.rundir.layout import (
    load_sidecar,
    make_figures_dir,
    remove_figure_file,
    save_sidecar,
    sidecar_name,
    write_figure_file,
)
from labwright.core.rundir.records import FigureSidecar, InputRecord

# Published figure files are created like open() creates them (0o666 before the
# umask), not private like the run's other files.
_FILE_MODE = 0o666
_STEM_BAD = re.compile(r"[^A-Za-z0-9_-]+")
_STAGED = re.compile(r"fig-(\d{3})\.(pdf|png)")
_MAGIC = {"pdf": b"%PDF-", "png": b"\x89PNG\r\n\x1a\n"}
MAX_STEM = 80


class InputError(ValueError):
    """A filename or input path the sandbox refuses (reported as denied)."""


def safe_stem(filename: str) -> str:
    """Sanitize the model's filename to a LaTeX-friendly stem; refuse any path."""
    if "/" in filename or "\\" in filename or "\x00" in filename:
        raise InputError(
            f"filename {filename!r} contains a path separator (rule: figures are written to "
            "figures/ only). Fix: pass a bare name such as 'range_vs_angle'."
        )
    name = filename.strip()
    base, dot, ext = name.rpartition(".")
    if dot and base and ext.lower() in {"pdf", "png", "svg", "jpg", "jpeg", "eps", "py", "json"}:
        name = base  # the extension is chosen by the harness
    stem = _STEM_BAD.sub("-", name).strip("-_")[:MAX_STEM].strip("-_")
    return stem or "figure"


@dataclass(frozen=True)
class InputFile:
    rel: str
    path: Path
    sha256: str
    size: int


def resolve_inputs(data_dir: Path, inputs: list[str] | None) -> list[InputFile]:
    """Resolve declared inputs under data_dir (in-folder links followed) and hash them.

    Each is opened beneath the folder in one step and hashed from that
    descriptor (material/workspace.file_digest): a folder changed meanwhile
    cannot put an outside file's hash in the provenance, and a FIFO is refused
    instead of blocking the hash.
    """
    root = Path(os.path.realpath(data_dir))
    out: list[InputFile] = []
    for raw in inputs or []:
        if not isinstance(raw, str) or not raw.strip() or "\x00" in raw:
            raise InputError(
                f"input {raw!r} is not a path (rule: inputs are files in the data folder)."
            )
        try:
            sha256, size, real = file_digest(root, raw)
        except PathDenied:
            raise InputError(
                f"input {raw!r} resolves outside the data folder (rule: inputs are files in the "
                "data folder). Fix: give a path relative to the folder, e.g. 'Data/x.xlsx'."
            ) from None
        except OSError:
            raise InputError(
                f"input {raw!r} is not a file in the data folder (rule: inputs must exist). "
                "Fix: list the folder with list_dir and use an existing file."
            ) from None
        rel = real.relative_to(root).as_posix()
        out.append(InputFile(rel=rel, path=real, sha256=sha256, size=size))
    return out


@dataclass(frozen=True)
class Staged:
    """What the harness staged: the valid figures, and why any staged file was refused."""

    figures: list[tuple[bytes, bytes]]
    refused: list[str]


def _staged_names(staging: Path) -> tuple[child_files.Folder, list[str]]:
    """(the staging folder, its entry names), never following a link."""
    folder = child_files.open_dir(staging)
    try:
        return folder, [name for name, _ in folder.entries()]
    except OSError:
        folder.close()
        raise


def collect_staged(staging: Path, max_figures: int, max_bytes: int) -> Staged:
    """(pdf, png) contents of each complete, valid figure the harness staged, in order.

    Every staged file is read as child_files reads: a regular file only (a FIFO, a link,
    a device or a socket is refused, never opened to wait on), at most `max_bytes`.
    """
    found: dict[int, dict[str, bytes]] = {}
    refused: list[str] = []
    try:
        folder, names = _staged_names(staging)
    except child_files.ChildFileError as exc:
        return Staged([], [str(exc)])
    except OSError:
        return Staged([], [])
    with folder:
        for name in sorted(names):
            match = _STAGED.fullmatch(name)
            if not match:
                continue
            index, kind = int(match.group(1)), match.group(2)
            if index < 1 or index > max_figures:
                continue
            try:
                fd = child_files.open_regular(name, folder=folder)
                data = child_files.read_fd(fd, max_bytes)
            except child_files.ChildFileError as exc:
                text = str(exc)
                refused.append(text if text.startswith(name) else f"{name}: {text}")
                continue
            if data.startswith(_MAGIC[kind]):
                found.setdefault(index, {})[kind] = data
    figures: list[tuple[bytes, bytes]] = []
    for index in range(1, max_figures + 1):  # contiguous from 1: stop at the first gap
        pair = found.get(index, {})
        if "pdf" not in pair or "png" not in pair:
            break
        figures.append((pair["pdf"], pair["png"]))
    return Staged(figures, refused)


@cache
def matplotlib_version() -> str:
    """Read from the installed metadata: the parent never imports matplotlib itself."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("matplotlib")
    except PackageNotFoundError:
        return "unknown"


@dataclass(frozen=True)
class Published:
    pdf: Path
    png: Path
    meta: Path
    files: list[str]


def publish(
    figures_dir: Path,
    stem: str,
    figures: list[tuple[bytes, bytes]],
    *,
    code: str,
    caption: str,
    inputs: list[InputFile],
    stdout: str,
) -> Published:
    """Write <stem>(.pdf/.png, -2..., .py, .json) atomically; the .json goes last.

    figures_dir is the run folder's figures/: it and everything in it is reached from
    the run folder without following a link (RunLinkError otherwise)."""
    make_figures_dir(figures_dir)
    meta_path = figures_dir / sidecar_name(stem)
    # The files an earlier version of this figure listed: the sidecar may come from a run
    # folder someone sent, so it is read through the fence, capped, and only its bare
    # names count.
    earlier = load_sidecar(figures_dir, stem)
    stale = set(earlier.own_files()) if earlier is not None else set()
    files: list[str] = []
    for i, (pdf, png) in enumerate(figures, start=1):
        base = stem if i == 1 else f"{stem}-{i}"
        for suffix, data in ((".pdf", pdf), (".png", png)):
            write_figure_file(figures_dir, f"{base}{suffix}", data, mode=_FILE_MODE)
            files.append(base + suffix)
    write_figure_file(figures_dir, f"{stem}.py", code.encode("utf-8"), mode=_FILE_MODE)
    files.append(f"{stem}.py")
    meta = FigureSidecar(
        filename=stem,
        caption=caption,
        code=code,
        code_file=f"{stem}.py",
        inputs=[InputRecord(f.rel, f.sha256, f.size) for f in inputs],
        files=files,
        figures=len(figures),
        created=datetime.now(timezone.utc).isoformat(timespec="seconds"),
        matplotlib=matplotlib_version(),
        stdout=stdout,
    )
    save_sidecar(figures_dir, meta, mode=_FILE_MODE)
    # Extra figures of an earlier version of this figure must not linger.
    for name in stale - set(files) - {meta_path.name}:
        remove_figure_file(figures_dir, name)
    return Published(
        pdf=figures_dir / f"{stem}.pdf",
        png=figures_dir / f"{stem}.png",
        meta=meta_path,
        files=files,
    )
