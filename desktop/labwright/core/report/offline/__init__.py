r"""The offline engine: a skeleton report from the scan and the readers, no model at all.

Used for `--offline` and as the fallback when a model run's draft failed. It
never invents anything: the tables, statistics and plots come straight from
the data files, the hints from the manual's own headings and requirements,
and the only prose is what a model run already found (`findings`). Wherever
prose is needed there is a visible TODO marker with a `% TODO` comment on the
same line, so the review pane and an editor's search both find it.

Everything that comes from data (file names, sheet names, headers, manual
text) is escaped completely before it reaches the .tex: a header such as
"$\input{x}$" must print as text, not run.

The package: offline_report (here) assembles the document from skeleton.py
(sections' LaTeX blocks: TODO lines, data tables with statistics, figures),
preamble.py, plots.py (the figures), manual.py (headings and requirements),
formatting.py (escaping, numbers) and language.py (the English and Chinese text).
"""

from __future__ import annotations

import logging
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from labwright.core.material.computed import Computations
from labwright.core.material.tables import Series, Table, collect_data
from labwright.core.material.workspace import BUCKETS
from labwright.core.report.offline.by_part import BARRIER
from labwright.core.report.offline.formatting import format_stat as format_stat
from labwright.core.report.offline.formatting import format_value as format_value
from labwright.core.report.offline.formatting import tex_text
from labwright.core.report.offline.language import _PROMPTS, _ROLES, _TEXT, _lang
from labwright.core.report.offline.manual import MAX_HEADINGS as MAX_HEADINGS
from labwright.core.report.offline.manual import MAX_ITEM_CHARS as MAX_ITEM_CHARS
from labwright.core.report.offline.manual import MAX_REQUIREMENTS as MAX_REQUIREMENTS
from labwright.core.report.offline.manual import manual_headings
from labwright.core.report.offline.parts import drop_repeats, item_key
from labwright.core.report.offline.plots import MAX_Y_SERIES as MAX_Y_SERIES
from labwright.core.report.offline.plots import plot_table
from labwright.core.report.offline.preamble import _preamble, siunitx_available
from labwright.core.report.offline.requirements import (
    manual_requirements,
    manual_tasks,
    read_manual,
)
from labwright.core.report.offline.series import plot_series
from labwright.core.report.offline.skeleton import MAX_SHOWN_ROWS as MAX_SHOWN_ROWS
from labwright.core.report.offline.skeleton import MAX_TABLE_COLUMNS as MAX_TABLE_COLUMNS
from labwright.core.report.offline.skeleton import (
    _figure_exists,
    _intro_extras,
    _labelled,
    _results,
    _todo_line,
)
from labwright.core.report.offline.trace import offline_evidence
from labwright.core.report.templates import Template
from labwright.core.rundir.records import FigureRecord

__all__ = [
    "OfflineReport",
    "item_key",
    "manual_headings",
    "manual_requirements",
    "manual_tasks",
    "offline_report",
    "plot_item",
    "plot_table",
]

log = logging.getLogger(__name__)

MAX_FIGURES = 12


@dataclass
class OfflineReport:
    tex: str
    tables: list[Table]
    figures: list[FigureRecord]
    headings: list[str]
    requirements: list[str]
    # evidence.jsonl records: the files read and every value computed (trace.py)
    evidence: list[dict] = field(default_factory=list)


def _scan_sample(scan: Any, bucket: str) -> list[str]:
    sample = scan.get("sample", {}) if isinstance(scan, dict) else getattr(scan, "sample", {})
    return list(sample.get(bucket, []))


def _named_files(scan: Any) -> list[str]:
    """Every file the scan lists: the report may name any of them."""
    return [p for bucket in BUCKETS for p in _scan_sample(scan, bucket)]


def _unlisted_data(scan: Any) -> int:
    """Data files the scan counted but did not list (it lists the first ones of each kind)."""
    counts = scan.get("counts", {}) if isinstance(scan, dict) else getattr(scan, "counts", {})
    try:
        return max(0, int(counts.get("data", 0)) - len(_scan_sample(scan, "data")))
    except (TypeError, ValueError, AttributeError):
        return 0


MAX_UNREAD = 8  # files of kinds no reader knows, named one by one; the rest are counted


def _unread(others: list[str]) -> list[str]:
    """A line for the files of kinds Labwright does not read (an instrument's binary
    workspace, .dwf3work): left out, said once for each kind."""
    by_kind: dict[str, list[str]] = {}
    for rel in others:
        if Path(rel).name.startswith("."):
            continue  # a system's own file (.DS_Store), not the student's
        by_kind.setdefault(Path(rel).suffix.lower() or "(no extension)", []).append(rel)
    lines = []
    for kind, names in by_kind.items():
        shown = ", ".join(names[:MAX_UNREAD]) + (
            f" and {len(names) - MAX_UNREAD} more" if len(names) > MAX_UNREAD else ""
        )
        lines.append(f"{shown}: files of a kind Labwright does not read ({kind}), left out.")
    return lines


def plot_item(
    item: Table | Series,
    figures_dir: Path,
    stem: str,
    folder: Path,
    lang: str = "en",
    *,
    siunitx: bool = True,
) -> FigureRecord | None:
    """A table's plot, or a series' one overlay plot: the figure's record, or None when
    there is nothing to plot."""
    if isinstance(item, Series):
        made = plot_series(item, figures_dir, stem, folder, lang)
    else:
        made = plot_table(item, figures_dir, stem, folder, lang=lang, siunitx=siunitx)
    return None if made is None else FigureRecord.keeping(made)


def dropped_keys(items: Sequence[Table | Series], not_shown: set[int]) -> set[str]:
    """The `table_key`s of the tables the skeleton does not show."""
    return {item_key(items[i]) for i in not_shown}


def _item_name(item: Table | Series) -> str:
    return item.pattern if isinstance(item, Series) else item.title


def _role_of(section: str) -> str:
    for role, pattern in _ROLES:
        if re.search(pattern, section, re.IGNORECASE):
            return role
    return ""


def _section_for(roles: list[str], wanted: Sequence[str], fallback: int) -> int:
    for role in wanted:
        if role in roles:
            return roles.index(role)
    return fallback


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9]+", "-", text).strip("-").lower()[:40]


def offline_report(
    folder: Path,
    scan: Any,
    template: Template,
    figures_dir: Path,
    *,
    findings: dict | None = None,
    gaps: list[str] | None = None,
    figures: Sequence[FigureRecord] | None = None,
) -> OfflineReport:
    """A whole LaTeX document for `template` made from the material alone.

    `figures=None` plots each numeric table into `figures_dir` (at most 12);
    a list (a model run's figures) is used as given instead. `gaps=None`
    lists the manual's own requirements under "Requirements to check".
    """
    lang = _lang(template)
    words = _TEXT[lang]
    trace = Computations()  # every value the report computes, with its inputs (trace.py)
    siunitx = siunitx_available()
    documents = _scan_sample(scan, "documents")
    overview = collect_data(folder, _scan_sample(scan, "data"), unlisted=_unlisted_data(scan))
    overview.left_out += _unread(_scan_sample(scan, "other"))
    tables = overview.tables
    headings = manual_headings(folder, documents)
    manual = read_manual(folder, documents)
    requirements = [r.text for r in manual.requirements]
    not_shown = {d.index for d in drop_repeats(overview.items)}

    table_figures: dict[int, FigureRecord] = {}
    if figures is None:
        base = _slug(folder.name) or "data"
        for i, item in enumerate(overview.items):
            if len(table_figures) >= MAX_FIGURES:
                break
            if i in not_shown:
                continue  # a table without data, or a copy: no plot either
            try:
                made = plot_item(
                    item,
                    figures_dir,
                    f"offline-{base}-{i + 1:02d}",
                    folder,
                    lang,
                    siunitx=siunitx,
                )
            except Exception as e:  # a figure that cannot be drawn must not cost the report
                log.warning("offline plot of %s failed: %s", _item_name(item), e)
                continue
            if made is not None:
                made.table_key = item_key(item)  # which table it plots, for the layout
                table_figures[i] = made
        extra_figures: list[FigureRecord] = []
    else:
        extra_figures = [
            f for f in figures if isinstance(f, FigureRecord) and _figure_exists(f, figures_dir)
        ]
    # The figures the report includes: not the plot of a table it does not show.
    gone = dropped_keys(overview.items, not_shown)
    included = [f for i, f in table_figures.items() if i not in not_shown]
    included += [f for f in extra_figures if f.table_key not in gone]

    sections = list(template.sections) or ["Report"]
    roles = [_role_of(s) for s in sections]
    results_at = _section_for(roles, ("results", "analysis"), len(sections) // 2)
    method_at = _section_for(roles, ("method", "apparatus"), min(1, len(sections) - 1))
    findings = findings or {}

    body: list[str] = []
    for k, section in enumerate(sections):
        if k:
            body.append(BARRIER)  # no float of a section drifts into the next one
        body.append(f"\\section{{{tex_text(section)}}}")
        body.append(_todo_line(template, lang, _PROMPTS[lang][roles[k]]))
        body.append("")
        if k == 0:
            body += _intro_extras(findings, headings, words)
        if k == method_at and str(findings.get("method_approach") or "").strip():
            body += _labelled(words["method"], [str(findings["method_approach"])], words)
        if k == results_at:
            body += _results(
                findings, overview.items, table_figures, extra_figures, words, lang,
                overview.left_out, siunitx=siunitx, stated=overview.stated, manual=manual,
            )  # fmt: skip
    checklist = gaps if gaps is not None else requirements
    if checklist:
        body.append(BARRIER)
        body.append(f"\\section*{{{tex_text(words['requirements'])}}}")
        # A requirement the results already carry as a TODO item is marked there, once.
        in_body = set(requirements)
        body.append("\\begin{itemize}")
        body += [
            f"  \\item {tex_text(item)}" + ("" if item in in_body else " % TODO")
            for item in checklist
        ]
        body += ["\\end{itemize}", ""]

    body_tex = "\n".join(body)
    title = (
        template.title
        + words["colon"]
        + ("" if lang == "zh" else " ")
        + (str(findings.get("experiment") or "").strip() or folder.name)
    )
    head = [
        "% Offline skeleton generated by Labwright without a language model: the tables,",
        "% statistics and plots come from the data files; complete every TODO. % TODO",
        _preamble(template, body_tex + title),
        f"\\title{{{tex_text(title)}}}",
        f"\\author{{{tex_text(template.todo)}}}",
        "\\date{\\today}",
        "",
        "\\begin{document}",
        "\\maketitle",
        "",
        "% This is an offline skeleton: no language model wrote any of it.",
        f"\\noindent\\emph{{{tex_text(words['note'])}}}",
        "",
    ]
    tex = "\n".join(head) + "\n" + body_tex + "\n\\end{document}\n"
    return OfflineReport(
        tex=tex, tables=tables, figures=included, headings=headings, requirements=requirements,
        evidence=offline_evidence(folder, overview, trace, _named_files(scan)),
    )  # fmt: skip
