"""Parent-side file handling: names, inputs, staged outputs and provenance.

Everything the child produced is untrusted: staged files are taken only by the
exact names the harness uses, must be regular files (no symlinks), carry the
right magic bytes and stay under a size cap. They reach figures_dir by an atomic
write (core/atomic.py), so the report never sees a half-written figure.
"""

from __future__ import annotations

import json
import os
import re
import stat
from dataclasses import dataclass
from datetime import datetime, timezone
from functools import cache
from pathlib import Path

from labwright.core.atomic import atomic_write_bytes

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
    from labwright.core.material.workspace import PathDenied, file_digest

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


def _read_regular(path: Path, limit: int) -> bytes | None:
    """Read a staged file without following links; None if unusable or over `limit`."""
    try:
        st = os.lstat(path)
        if not stat.S_ISREG(st.st_mode) or st.st_size > limit:
            return None
        flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_BINARY", 0)
        fd = os.open(path, flags)
        with os.fdopen(fd, "rb") as fh:
            data = fh.read(limit + 1)
    except OSError:
        return None
    return data if len(data) <= limit else None


def collect_staged(staging: Path, max_figures: int, max_bytes: int) -> list[tuple[bytes, bytes]]:
    """(pdf, png) contents of each complete, valid figure the harness staged, in order."""
    found: dict[int, dict[str, bytes]] = {}
    try:
        names = os.listdir(staging)
    except OSError:
        return []
    for name in names:
        match = _STAGED.fullmatch(name)
        if not match:
            continue
        index, kind = int(match.group(1)), match.group(2)
        if index < 1 or index > max_figures:
            continue
        data = _read_regular(staging / name, max_bytes)
        if data is not None and data.startswith(_MAGIC[kind]):
            found.setdefault(index, {})[kind] = data
    figures: list[tuple[bytes, bytes]] = []
    for index in range(1, max_figures + 1):  # contiguous from 1: stop at the first gap
        pair = found.get(index, {})
        if "pdf" not in pair or "png" not in pair:
            break
        figures.append((pair["pdf"], pair["png"]))
    return figures


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


def _previous_files(meta_path: Path) -> list[str]:
    try:
        files = json.loads(meta_path.read_text(encoding="utf-8")).get("files", [])
    except (OSError, ValueError, AttributeError):
        return []
    return [f for f in files if isinstance(f, str) and "/" not in f and "\\" not in f]


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
    """Write <stem>(.pdf/.png, -2..., .py, .json) atomically; the .json goes last."""
    figures_dir.mkdir(parents=True, exist_ok=True)
    meta_path = figures_dir / f"{stem}.json"
    stale = set(_previous_files(meta_path))
    files: list[str] = []
    for i, (pdf, png) in enumerate(figures, start=1):
        base = stem if i == 1 else f"{stem}-{i}"
        for suffix, data in ((".pdf", pdf), (".png", png)):
            atomic_write_bytes(figures_dir / f"{base}{suffix}", data, mode=_FILE_MODE)
            files.append(base + suffix)
    atomic_write_bytes(figures_dir / f"{stem}.py", code.encode("utf-8"), mode=_FILE_MODE)
    files.append(f"{stem}.py")
    meta = {
        "filename": stem,
        "caption": caption,
        "code": code,
        "code_file": f"{stem}.py",
        "inputs": [{"path": f.rel, "sha256": f.sha256, "bytes": f.size} for f in inputs],
        "files": files,
        "figures": len(figures),
        "created": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "matplotlib": matplotlib_version(),
        "stdout": stdout,
    }
    meta_bytes = json.dumps(meta, ensure_ascii=False, indent=2).encode("utf-8")
    atomic_write_bytes(meta_path, meta_bytes, mode=_FILE_MODE)
    # Extra figures of an earlier version of this figure must not linger.
    for name in stale - set(files) - {meta_path.name}:
        (figures_dir / name).unlink(missing_ok=True)
    return Published(
        pdf=figures_dir / f"{stem}.pdf",
        png=figures_dir / f"{stem}.png",
        meta=meta_path,
        files=files,
    )
