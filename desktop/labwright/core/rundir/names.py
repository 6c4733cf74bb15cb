"""The names of what a run folder holds: the one place Labwright spells them.

DESIGN.md fixes the layout (run.json, events.jsonl, report.tex, drafts/, refs.bib,
figures/, report.pdf); ARCHITECTURE.md lists what was added. Every module outside
core/rundir/ asks a `RunDir` (layout.py) for a path or a file instead of naming one:
tests/test_rundir.py fails on a run-folder name spelled anywhere else.
"""

from __future__ import annotations

from pathlib import PurePath

RUN_JSON = "run.json"
JOURNAL = "events.jsonl"
FINDINGS_JSON = "findings.json"
EVIDENCE_JSONL = "evidence.jsonl"
FIGURES_JSON = "figures.json"
GAPS_JSON = "gaps.json"
NUMBERS_JSON = "numbers.json"
REPORT_TEX = "report.tex"
REPORT_PDF = "report.pdf"
REFS_BIB = "refs.bib"
ERROR_TXT = "error.txt"  # the traceback of a run that failed, without keys
LOCK = ".lock"  # held while a process has the run open (store.py)
FIGURES = "figures"  # each figure's .pdf, .png and .json sidecar; a model's .py
DRAFTS = "drafts"  # v<n>.tex for every draft, edited-<n>.tex for an edit a re-draft replaced
BUILD = "build"  # the pipeline's TeX build
REVIEW_BUILD = "build-review"  # the review pane's recompiles (never the pipeline's folder)
SYNCTEX = ".synctex.gz"  # a PDF's SyncTeX file: <stem>.synctex.gz beside it
# The record files, read and written only as records (files.py).
RUN_FILES = (RUN_JSON, FINDINGS_JSON, EVIDENCE_JSONL, FIGURES_JSON, GAPS_JSON, NUMBERS_JSON)
# Every name above, for whoever must recognise one (the tests' scan).
ENTRIES = (
    *RUN_FILES,
    JOURNAL,
    REPORT_TEX,
    REPORT_PDF,
    REFS_BIB,
    ERROR_TXT,
    LOCK,
    FIGURES,
    DRAFTS,
    BUILD,
    REVIEW_BUILD,
)
# A figure's sidecar is read whole; the largest a sandbox writes holds its code,
# caption and printed output.
MAX_SIDECAR_BYTES = 1 << 20


def in_figures(name: str) -> str:
    """figures/<name>, as a path inside the run folder (and as the report includes it)."""
    return f"{FIGURES}/{name}"


def written(name: str, field: str | None = None) -> str:
    """A stage's declaration of what it reads or writes: a file, a folder (`FIGURES`,
    `DRAFTS`) as "<name>/", or a field of run.json as "run.json:<field>"."""
    if field is not None:
        return f"{name}:{field}"
    return f"{name}/" if name in (FIGURES, DRAFTS) else name


def synctex_name(pdf: PurePath | str) -> str:
    """The SyncTeX file that belongs to the PDF `pdf` (by its stem)."""
    return PurePath(pdf).stem + SYNCTEX


def is_report(file: str | None) -> bool:
    """Whether a TeX log's file name (or none) is the run's report.tex."""
    return not file or PurePath(file).name == REPORT_TEX


def draft_name(version: int) -> str:
    return f"v{version}.tex"


def draft_number(name: str) -> int | None:
    """n of drafts/v<n>.tex; None for any other name."""
    stem = name.removesuffix(".tex")
    digits = stem[1:]
    return (
        int(digits) if name.endswith(".tex") and stem.startswith("v") and digits.isdigit() else None
    )


def diff_labels() -> tuple[str, str]:
    """The two sides of a diff of the report: the generated draft and the edit."""
    return f"generated/{REPORT_TEX}", f"edited/{REPORT_TEX}"
