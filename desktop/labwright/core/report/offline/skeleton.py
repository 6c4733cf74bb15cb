"""The skeleton's LaTeX blocks: TODO lines, lists, data tables with statistics, figures."""

from __future__ import annotations

import re
from collections.abc import Iterable
from pathlib import Path, PurePosixPath
from typing import Any

from labwright.core.material.tables import Series, StatedResult, SummaryCell, Table, column_stats
from labwright.core.material.tables.facts import short_number
from labwright.core.report.offline.by_part import build_layout, dropped_lines, results_tex
from labwright.core.report.offline.columns import as_written, table_labels
from labwright.core.report.offline.formatting import (
    FLOAT_PLACEMENT,
    format_stat,
    format_value,
    tex_text,
)
from labwright.core.report.offline.language import _TEXT, table_title
from labwright.core.report.offline.requirements import ManualTasks
from labwright.core.report.offline.series import left_out_tex, series_tex
from labwright.core.report.templates import Template
from labwright.core.rundir import fence
from labwright.core.rundir.names import in_figures
from labwright.core.rundir.records import FigureRecord

MAX_SHOWN_ROWS = 25  # table rows printed; the rest are counted
MAX_TABLE_COLUMNS = 7  # data columns per printed chunk (the first one repeats)
# Floats go where they fit (here, top, bottom, a float page), never pinned with [H]:
# a pinned table too tall for what is left of a page leaves that page half empty.


# --------------------------------------------------------------------------
# The skeleton
# --------------------------------------------------------------------------


def _todo_line(template: Template, lang: str, prompt: str) -> str:
    # The comment sits on the same line so a search for "% TODO" lands on it.
    return f"\\textbf{{{tex_text(template.todo)}{_TEXT[lang]['colon']}}} {prompt} % TODO"


def _itemize(items: Iterable[str], *, comment: str = "") -> list[str]:
    lines = ["\\begin{itemize}"]
    lines += [f"  \\item {tex_text(item)}{comment}" for item in items]
    lines.append("\\end{itemize}")
    return lines


def _label(prefix: str, text: str) -> str:
    return f"{prefix}:" + (re.sub(r"[^A-Za-z0-9-]+", "-", text).strip("-") or "x")


def _chunks(n_columns: int) -> list[list[int]]:
    """Column groups of at most MAX_TABLE_COLUMNS; later groups repeat column 0 (the x)."""
    if n_columns <= MAX_TABLE_COLUMNS:
        return [list(range(n_columns))]
    groups = [list(range(MAX_TABLE_COLUMNS))]
    j = MAX_TABLE_COLUMNS
    while j < n_columns:
        groups.append([0, *range(j, min(j + MAX_TABLE_COLUMNS - 1, n_columns))])
        j += MAX_TABLE_COLUMNS - 1
    return groups


def _table_tex(table: Table, index: int, lang: str, *, siunitx: bool = True) -> list[str]:
    words = _TEXT[lang]
    label = f"tab:data{index}"
    headers = table_labels(table, siunitx=siunitx)
    # Statistics per category (one material each) are not one column's figures: the
    # table's statistics rows hold only those over all rows.
    stats = {s["name"]: s for s in column_stats(table) if "group" not in s}
    stat_names = words["stats"].split("|")
    groups = _chunks(len(table.columns))
    row_word = words["row"] if table.sheet is not None else words["line"]
    out: list[str] = []
    for part, cols in enumerate(groups):
        shown = [c for c in cols if not (part and c == 0)]
        a, b = shown[0] + 1, shown[-1] + 1
        # Narrow tables stay narrow: widths are computed as if there were >= 5 columns.
        label_width = "3.4em" if lang == "zh" else "2.6em"  # "标准差" needs three ideographs
        width = (
            f"\\dimexpr(0.97\\linewidth-{label_width}-2\\tabcolsep)/{max(len(cols), 5)}"
            "-2\\tabcolsep\\relax"
        )
        spec = (
            f"@{{}}>{{\\raggedright\\arraybackslash}}b{{{label_width}}}"
            + (f">{{\\raggedleft\\arraybackslash}}b{{{width}}}" * len(cols))
            + "@{}"
        )
        out += [f"\\begin{{table}}[{FLOAT_PLACEMENT}]", "\\centering", "\\footnotesize"]
        if part == 0:
            caption = words["table_caption"].format(title=table_title(table, lang))
            caption_tex = tex_text(caption)
            if len(groups) > 1:
                caption_tex += tex_text(
                    words["columns_part"].format(a=a, b=groups[0][-1] + 1, n=len(table.columns))
                )
            # The headers as the file writes them, for the columns shown otherwise.
            caption_tex += as_written(table, range(len(table.columns)), headers, words)
            out.append(f"\\caption{{{caption_tex}}}\\label{{{label}}}")
        else:
            out.append(
                words["continued"].format(label=label, a=a, b=b, n=len(table.columns))
                + "\\par\\smallskip"
            )
        out.append(f"\\begin{{tabular}}{{{spec}}}")
        out.append("\\toprule")
        out.append(
            # \hspace{0pt} lets TeX hyphenate a header's first word in a narrow column.
            " & ".join(
                [
                    tex_text(row_word),
                    *(r"\hspace{0pt}" + headers[c].tex for c in cols),
                ]
            )
            + r" \\"
        )
        out.append("\\midrule")
        for i, row in enumerate(table.rows[:MAX_SHOWN_ROWS]):
            written = table.written[i] if i < len(table.written) else []
            labels = table.labels[i] if i < len(table.labels) else []
            cells = [_category_cell(labels, c) or _cell(row, written, c) for c in cols]
            out.append(" & ".join([tex_text(table.row_label(i)), *cells]) + r" \\")
        more = len(table.rows) - MAX_SHOWN_ROWS + table.omitted_rows
        if more > 0:
            text = tex_text(words["more_rows"].format(n=more))
            out.append(f"\\multicolumn{{{len(cols) + 1}}}{{@{{}}l}}{{\\emph{{{text}}}}} \\\\")
        out.append("\\midrule")
        for key, shown_name in zip(("n", "min", "max", "mean", "std"), stat_names, strict=True):
            cells = [_stat_cell(stats.get(table.columns[c]), key) for c in cols]
            out.append(" & ".join([f"\\emph{{{tex_text(shown_name)}}}", *cells]) + r" \\")
        out += ["\\bottomrule", "\\end{tabular}"]
        notes = _table_notes(table, words) if part == len(groups) - 1 else []
        if notes:
            out.append(
                "\\par\\smallskip\\parbox{0.97\\linewidth}{\\raggedright\\footnotesize "
                + " ".join(tex_text(n) for n in notes)
                + "}"
            )
        out += ["\\end{table}", ""]
    return out


def _pairs(spec: str) -> dict[str, str]:
    return dict(item.split(":", 1) for item in spec.split("|"))


def _table_notes(table: Table, words: dict[str, str]) -> list[str]:
    """What the reader of the table must know beyond its rows: the summaries kept out of
    them, columns that summarise others, resolutions, a sideways sheet, the curves."""
    notes = []
    if table.family is not None:
        f = table.family
        unit = f" {f.unit}" if f.unit else ""
        notes.append(words["family"].format(
            n=len(f.labels), label=f.label, labels=words["list_sep"].join(f.labels) + unit,
        ) + (f" ({f.note})" if f.note else ""))  # fmt: skip
    if table.transposed and table.row_names:
        first, last = table.row_names[0], table.row_names[-1]
        notes.append(words["transposed"].format(first=first, last=last))
    if table.summaries:
        kinds = _pairs(words["summary_kinds"])
        items = []
        for x in sorted(table.summaries, key=_cell_order):
            what = kinds.get(x.kind, "").format(of=x.of) if x.of else ""
            items.append(words["summary_item"].format(
                cell=x.cell, label=f"{x.label} = " if x.label else "= ",
                value=short_number(x.value), what=f", {what}" if what else "",
            ))  # fmt: skip
        notes.append(words["summaries"].format(items=words["list_sep"].join(items)))
    for odd in table.odd_cells:
        notes.append(words["odd_cell"].format(
            cell=odd.cell, value=short_number(odd.value), column=odd.column, rule=odd.rule,
            expected=short_number(odd.expected),
        ))  # fmt: skip
    kinds = _pairs(words["row_kinds"])
    for j, r in sorted(table.row_summaries.items()):
        parts = [table.columns[k] for k in r.of if k < len(table.columns)]
        shown = f"{parts[0]} … {parts[-1]}" if len(parts) > 2 else words["list_sep"].join(parts)
        notes.append(words["row_summary"].format(
            name=table.columns[j], kind=kinds.get(r.kind, r.kind), parts=shown,
        ))  # fmt: skip
    resolutions = [
        f"{name} ±{res:g}" + (f" {unit}" if unit else "")
        for name, unit, res in zip(table.names, table.units, table.resolutions, strict=False)
        if res is not None
    ]
    if resolutions:
        shown = words["list_sep"].join(dict.fromkeys(resolutions))
        notes.append(words["resolution"].format(items=shown))
    return notes


def _cell_order(x: SummaryCell) -> tuple[int, int]:
    m = re.fullmatch(r"([A-Z]+)(\d+)", x.cell)
    if not m:
        return (0, 0)
    return int(m.group(2)), len(m.group(1)) * 100 + ord(m.group(1)[-1])


def _cell(row: list[float | None], written: list[str | None], j: int) -> str:
    value = row[j] if j < len(row) else None
    if value is None:
        return ""
    return format_value(value, written[j] if j < len(written) else None)


def _stat_cell(stat: dict | None, key: str) -> str:
    """One statistic of a column. The smallest and largest are cells of it, shown with
    their digits; the mean with as many digits as show the spread (180.7290, never 180.7)."""
    if stat is None:
        return ""
    if key == "n":
        return str(stat["n"])
    value = stat[key]
    if key in ("min", "max") and value is not None:
        return format_value(value)
    if key == "mean":
        spread = stat.get("std") or ((stat["max"] - stat["min"]) or None)
        return format_stat(value, spread)
    return format_stat(value)


def _figure_tex(figure: FigureRecord, caption_tex: str | None = None) -> list[str]:
    """A figure float; `caption_tex` only for a plot made in this run's skeleton (LaTeX
    built here, data escaped): a caption from elsewhere is text, escaped."""
    stem = figure.filename
    caption = caption_tex or tex_text(figure.caption or stem)
    return [
        f"\\begin{{figure}}[{FLOAT_PLACEMENT}]",
        "\\centering",
        f"\\includegraphics[width=0.85\\linewidth,height=0.5\\textheight,keepaspectratio]{{{in_figures(stem + '.pdf')}}}",
        f"\\caption{{{caption}}}\\label{{{_label('fig', stem)}}}",
        "\\end{figure}",
        "",
    ]


def _fit_paragraph(figure: FigureRecord, words: dict[str, str]) -> list[str]:
    """The fits drawn on a figure, stated as value ± u (plots.py made the LaTeX, data
    escaped), with a reference to the figure."""
    texts = [t for t in figure.fits_tex or [] if t]
    if not texts:
        return []
    ref = words["fit_ref"].format(ref=f"\\ref{{{_label('fig', figure.filename)}}}")
    return [f"\\paragraph{{{tex_text(words['fit_heading'])}}} " + " ".join(texts) + ref, ""]


def _figure_exists(figure: FigureRecord, figures_dir: Path) -> bool:
    stem = figure.filename
    # The stem goes into \includegraphics verbatim: only names the sandbox or we make.
    if not stem or not re.fullmatch(r"[A-Za-z0-9_-]+", stem):
        return False
    pdf = figure.pdf
    in_run = fence.is_file(figures_dir.parent, f"{figures_dir.name}/{stem}.pdf")  # no link
    return in_run or bool(pdf and Path(pdf).is_file())


def _labelled(name: str, items: list[str], words: dict[str, str]) -> list[str]:
    items = [i for i in (str(x).strip() for x in items) if i]
    if not items:
        return []
    return [f"\\paragraph{{{tex_text(name)}}}", *_itemize(items), ""]


def _intro_extras(findings: dict, headings: list[str], words: dict[str, str]) -> list[str]:
    out: list[str] = []
    if headings:
        shown = "; ".join(headings[:25])
        out += [
            "% Hint: the headings of the manual.",
            f"\\emph{{{tex_text(words['covers'])}}} {tex_text(shown)}.",
            "",
        ]
    facts = [
        f"{words[key]}{words['colon']} {str(findings.get(key) or '').strip()}"
        for key in ("experiment", "goal")
        if str(findings.get(key) or "").strip()
    ]
    if facts:
        out += [*_itemize(facts), ""]
    return out


def _as_items(value: Any) -> list[str]:
    if isinstance(value, str):
        return [line.strip("-• \t") for line in value.splitlines() if line.strip("-• \t")]
    if isinstance(value, list):
        return [str(v).strip() for v in value if str(v).strip()]
    return []


def _results(
    findings: dict,
    tables: list[Table | Series],
    table_figures: dict[int, FigureRecord],
    extra_figures: list[FigureRecord],
    words: dict[str, str],
    lang: str,
    left_out: list[str] | None = None,
    *,
    siunitx: bool = True,
    stated: list[StatedResult] | None = None,
    manual: ManualTasks | None = None,
) -> list[str]:
    """The results: findings, then the tables and figures by the manual's parts (each
    part's requirements first), then what was left out."""

    out = _labelled(words["findings"], _as_items(findings.get("key_findings")), words)
    layout = build_layout(tables, manual or ManualTasks(), table_figures, extra_figures)
    if not layout.shown:
        out += [f"\\emph{{{tex_text(words['no_data'])}}}", ""]
    else:
        out += [tex_text(words["tables_intro"]), ""]

    def item_tex(i: int) -> list[str]:
        table = tables[i]
        lines = (
            series_tex(table, i + 1, lang)  # many files alike: one table of files, not one each
            if isinstance(table, Series)
            else _table_tex(table, i + 1, lang, siunitx=siunitx)
        )
        if i in layout.figures:
            made = layout.figures[i]
            lines += _figure_tex(made, made.caption_tex or None)
            lines += _fit_paragraph(made, words)
        return lines

    out += results_tex(layout, item_tex, _figure_tex, lang)
    out += stated_tex(stated or [], words)
    out += left_out_tex([*(left_out or []), *dropped_lines(tables, layout, lang)], lang)
    return out


MAX_STATED = 40  # stated values listed; the rest are counted


def stated_tex(stated: list[StatedResult], words: dict[str, str]) -> list[str]:
    """ "Results stated in the material": each value as written, with its file and cell."""
    if not stated:
        return []
    items = []
    for x in stated[:MAX_STATED]:
        value = x.written + (f" {x.unit}" if x.unit else "")
        line = words["stated_item"].format(
            name=x.name, value=value, source=PurePosixPath(x.source).name, where=x.where
        )
        raw = " ".join(x.text.split())[:80]
        if raw and raw.replace(" ", "") != f"{x.name}={value}".replace(" ", ""):
            line += words["stated_raw"].format(text=raw)
        items.append(line)
    if len(stated) > MAX_STATED:
        items.append(words["more_rows"].format(n=len(stated) - MAX_STATED))
    return [
        f"\\paragraph{{{tex_text(words['stated'])}}}",
        tex_text(words["stated_intro"]),
        *_itemize(items),
        "",
    ]


def _category_cell(labels: list[str | None], c: int) -> str:
    """A category cell's text (Al, Poly…), set as LaTeX text; "" where the cell is a number."""
    label = labels[c] if c < len(labels) else None
    return tex_text(label) if label else ""
