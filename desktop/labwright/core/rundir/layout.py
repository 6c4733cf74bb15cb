"""A run folder, typed: what the rest of Labwright asks for instead of naming files.

`RunDir(path)` gives the paths of the run's files (for TeX, the sandbox, a message)
and reads and writes them through fence.py, never following a link; the record
files come back as the records of records.py (through files.py). The names
themselves live in names.py.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Iterable
from dataclasses import dataclass, replace
from pathlib import Path, PurePath, PurePosixPath
from typing import IO

from labwright.core.rundir import fence, files
from labwright.core.rundir.errors import RunFileError
from labwright.core.rundir.names import (
    BUILD,
    DRAFTS,
    ERROR_TXT,
    FIGURES,
    JOURNAL,
    LOCK,
    MAX_SIDECAR_BYTES,
    REFS_BIB,
    REPORT_PDF,
    REPORT_TEX,
    REVIEW_BUILD,
    draft_name,
    draft_number,
    synctex_name,
)
from labwright.core.rundir.records import (
    EvidenceRecord,
    FigureRecord,
    FigureSidecar,
    FindingsRecord,
    GapRecord,
    NumbersRecord,
    RunRecord,
    _Bad,
)

# -- the folder ---------------------------------------------------------------------


@dataclass(frozen=True)
class RunDir:
    """One run folder: its paths, and its files read and written through the fence.

    Reads of what may be absent answer None (or empty); a file that is a link, or is
    reached through one, is absent to the `has_`/`read_` methods and a RunLinkError to
    the `load_` methods (as files.py's)."""

    path: Path

    # -- paths (for what opens them itself: TeX, the sandbox, a message) ------------

    @property
    def report_tex(self) -> Path:
        return self.path / REPORT_TEX

    @property
    def report_pdf(self) -> Path:
        return self.path / REPORT_PDF

    @property
    def figures(self) -> Path:
        return self.path / FIGURES

    @property
    def drafts(self) -> Path:
        return self.path / DRAFTS

    @property
    def build(self) -> Path:
        return self.path / BUILD

    @property
    def review_build(self) -> Path:
        return self.path / REVIEW_BUILD

    @property
    def error_txt(self) -> Path:
        return self.path / ERROR_TXT

    @property
    def journal(self) -> Path:
        return self.path / JOURNAL

    @property
    def synctex(self) -> Path:
        """report.synctex.gz beside report.pdf (the review's recompile publishes it)."""
        return self.path / synctex_name(REPORT_PDF)

    # -- the whole folder ---------------------------------------------------------

    def check(self) -> None:
        """RunLinkError if anything in the folder is not a plain file or folder."""
        fence.check_run_dir(self.path)

    def remove_if_empty(self) -> None:
        """Remove the folder when a run that claimed it left nothing (its lock aside)."""
        for path in (self.drafts, self.figures, self.path):
            with contextlib.suppress(OSError):
                path.rmdir()
        with contextlib.suppress(OSError):
            if self.path.is_dir() and [p.name for p in self.path.iterdir()] == [LOCK]:
                (self.path / LOCK).unlink(missing_ok=True)
                self.path.rmdir()

    # -- report.tex, refs.bib, report.pdf, error.txt --------------------------------

    def has_report(self) -> bool:
        return fence.is_file(self.path, REPORT_TEX)

    def has_pdf(self) -> bool:
        return fence.is_file(self.path, REPORT_PDF)

    def has_refs(self) -> bool:
        return fence.is_file(self.path, REFS_BIB)

    def read_report(self, *, errors: str = "strict") -> str:
        """report.tex; OSError when there is none (RunLinkError for a link),
        UnicodeDecodeError when it is not UTF-8 (with the default `errors`)."""
        return fence.read_text(self.path, REPORT_TEX, errors=errors)

    def report_text(self, *, errors: str = "strict") -> str:
        """report.tex, "" when it cannot be read (none, a link; not UTF-8 with the
        default `errors`)."""
        return _text_or_empty(self.path, REPORT_TEX, errors=errors)

    def report_bytes(self) -> bytes:
        return fence.read_bytes(self.path, REPORT_TEX)

    def refs_text(self) -> str:
        """refs.bib, "" when there is none."""
        return _text_or_empty(self.path, REFS_BIB)

    def open_pdf(self) -> IO[bytes]:
        return fence.open_in_run(self.path, REPORT_PDF, "rb")

    def save_report(self, tex: str) -> Path:
        return fence.write_text(self.path, REPORT_TEX, tex)

    def save_refs(self, bib: str) -> Path:
        return fence.write_text(self.path, REFS_BIB, bib)

    def save_error(self, text: str) -> Path:
        return fence.write_text(self.path, ERROR_TXT, text)

    # -- drafts/ ----------------------------------------------------------------------

    def draft_files(self) -> dict[int, str]:
        """The pipeline's drafts by number: {n: "v<n>.tex"} (none when drafts/ is a link)."""
        try:
            names = fence.names_in(self.path, DRAFTS, "v*.tex")
        except OSError:
            return {}
        return {n: name for name in names if (n := draft_number(name)) is not None}

    def last_draft(self) -> int:
        """The number of the newest drafts/v<n>.tex (0 when there is none)."""
        return max(self.draft_files(), default=0)

    def read_draft(self, version: int) -> str:
        """drafts/v<n>.tex, "" when it cannot be read."""
        return _text_or_empty(self.path, f"{DRAFTS}/{draft_name(version)}")

    def save_draft(self, version: int, tex: str) -> None:
        """drafts/v<n>.tex, then report.tex: the draft the later stages work on."""
        fence.write_text(self.path, f"{DRAFTS}/{draft_name(version)}", tex)
        self.save_report(tex)

    def keep_edit(self, text: str) -> Path:
        """The person's report.tex as drafts/edited-<n>.tex, the next free n."""
        edited = fence.names_in(self.path, DRAFTS, "edited-*.tex")
        numbers = [name[len("edited-") : -len(".tex")] for name in edited]
        taken = [int(n) for n in numbers if n.isdigit()]
        return fence.write_text(self.path, f"{DRAFTS}/edited-{max(taken, default=0) + 1}.tex", text)

    # -- figures/ ---------------------------------------------------------------------

    def figure_names(self, pattern: str = "*") -> list[str]:
        """Files in figures/ matching `pattern`, sorted (none when there is no figures/;
        RunLinkError when it is a link)."""
        return fence.names_in(self.path, FIGURES, pattern)

    def has_file(self, rel: str | PurePath) -> bool:
        """Whether `rel` (a name the report gives, e.g. an \\includegraphics target) is a
        regular file inside the run folder (a name that climbs out is not)."""
        name = PurePosixPath(rel)
        return not name.is_absolute() and ".." not in name.parts and fence.is_file(self.path, name)

    def figure(self, stem: str) -> FigureSidecar | None:
        """figures/<stem>.json, or None when there is none or it cannot be used."""
        return load_sidecar(self.figures, stem)

    def sidecars(self) -> list[FigureSidecar]:
        """Every figure's sidecar that can be read, in name order (RunLinkError when
        figures/ is a link; a sidecar that is one is left out)."""
        found = (self.figure(name.removesuffix(".json")) for name in self.figure_names("*.json"))
        return [s for s in found if s is not None]

    # -- the records (files.py) ------------------------------------------------------

    def load_run(self) -> RunRecord:
        return files.load_run(self.path)

    def try_load_run(self) -> RunRecord | None:
        return files.try_load_run(self.path)

    def save_run(self, record: RunRecord) -> Path:
        return files.save_run(self.path, record)

    def load_findings(self) -> FindingsRecord | None:
        return files.load_findings(self.path)

    def save_findings(self, findings: FindingsRecord) -> None:
        files.save_findings(self.path, findings)

    def load_evidence(self) -> list[EvidenceRecord]:
        return files.load_evidence(self.path)

    def save_evidence(self, records: Iterable[EvidenceRecord]) -> None:
        files.save_evidence(self.path, records)

    def load_figures(self) -> list[FigureRecord] | None:
        return files.load_figures(self.path)

    def save_figures(self, figures: Iterable[FigureRecord]) -> None:
        files.save_figures(self.path, figures)

    def load_gaps(self) -> list[GapRecord] | None:
        return files.load_gaps(self.path)

    def save_gaps(self, gaps: Iterable[GapRecord]) -> None:
        files.save_gaps(self.path, gaps)

    def save_numbers(self, numbers: NumbersRecord) -> Path:
        return files.save_numbers(self.path, numbers)


def _text_or_empty(run_dir: Path, rel: str, *, errors: str = "strict") -> str:
    try:
        return fence.read_text(run_dir, rel, errors=errors)
    except (OSError, UnicodeDecodeError):
        return ""


# -- figure sidecars, in any figures folder (the sandbox's and the plots' writers) --------


def _figures_parts(figures_dir: Path) -> tuple[Path, str]:
    """The folder holding `figures_dir` and its name: every figure file is reached from
    there without following a link (a `figures -> elsewhere` link is refused)."""
    figures_dir = Path(figures_dir)
    return figures_dir.parent, figures_dir.name


def sidecar_name(stem: str) -> str:
    return f"{stem}.json"


def load_sidecar(figures_dir: Path, stem: str) -> FigureSidecar | None:
    """<figures_dir>/<stem>.json, or None when there is none, it is a link, larger than
    MAX_SIDECAR_BYTES, or not a sidecar (a sidecar comes from anyone's run folder)."""
    parent, sub = _figures_parts(figures_dir)
    try:
        raw = fence.read_bytes(parent, f"{sub}/{sidecar_name(stem)}", limit=MAX_SIDECAR_BYTES)
        sidecar = FigureSidecar.from_dict(json.loads(raw.decode("utf-8")))
    except (OSError, ValueError, _Bad, RunFileError):
        return None
    return sidecar if sidecar.filename else replace(sidecar, filename=stem)


def save_sidecar(figures_dir: Path, sidecar: FigureSidecar, *, mode: int = 0o600) -> Path:
    """Write <figures_dir>/<filename>.json atomically, beneath the folder holding it."""
    parent, sub = _figures_parts(figures_dir)
    return fence.write_json(
        parent, f"{sub}/{sidecar_name(sidecar.filename)}", sidecar.to_dict(), mode=mode
    )


def write_figure_file(figures_dir: Path, name: str, data: bytes, *, mode: int = 0o600) -> Path:
    """<figures_dir>/<name> atomically, beneath the folder holding it (made as needed)."""
    parent, sub = _figures_parts(figures_dir)
    return fence.write_atomic(parent, f"{sub}/{name}", data, mode=mode)


def remove_figure_file(figures_dir: Path, name: str) -> None:
    parent, sub = _figures_parts(figures_dir)
    fence.remove(parent, f"{sub}/{name}")


def make_figures_dir(figures_dir: Path) -> None:
    parent, sub = _figures_parts(figures_dir)
    fence.make_dirs(parent, sub)
