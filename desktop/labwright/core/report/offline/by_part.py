"""The skeleton's results by the manual's parts: each part's requirements as TODO items,
then its tables and figures; what fits no part under "Other data"; all of it before the
sections that follow, so that no float drifts past the discussion or the conclusion.

`\\FloatBarrier` (placeins) closes each part and each section: a float may still move
to the top of the next page, never into the next part or section.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from labwright.core.material.tables import Series, Table
from labwright.core.report.offline.formatting import tex_text
from labwright.core.report.offline.language import table_title
from labwright.core.report.offline.parts import Dropped, drop_repeats, item_key, place, place_text
from labwright.core.report.offline.requirements import ManualTasks, Requirement
from labwright.core.rundir.records import FigureRecord

Item = Table | Series

BARRIER = "\\FloatBarrier"

_WORDS: dict[str, dict[str, str]] = {
    "en": {
        "answer": "Answer:",
        "do": "Do:",
        "asks": "The manual asks",
        "other": "Other data",
        "empty": "{title}: no data rows (only the set points, or nothing, filled in); not shown.",
        "repeat": "{title}: the same rows as {like}; not shown twice.",
        "repeat_cell": (
            "{title}: the same rows as {like} but for one value of {column} ({value} there, "
            "{other} here); not shown twice."
        ),
    },
    "zh": {
        "answer": "回答：",
        "do": "完成：",
        "asks": "实验手册的要求",
        "other": "其他数据",
        "empty": "{title}：没有数据行（只填了设定值或什么也没填），不列出。",
        "repeat": "{title}：与{like}的数据行相同，不重复列出。",
        "repeat_cell": (
            "{title}：除{column}的一个值外与{like}相同（那里是 {value}，这里是 {other}），"
            "不重复列出。"
        ),
    },
}


def requirement_items(requirements: Sequence[Requirement], lang: str) -> list[str]:
    """Each requirement as a TODO item with where the manual asks it:
    "Answer: At what condition …? (1MP1 Radioactivity.pdf, p. 7, Analysis 3)"."""
    if not requirements:
        return []
    w = _WORDS[lang]
    lines = ["\\begin{itemize}"]
    for r in requirements:
        lead = w["answer"] if r.is_question else w["do"]
        where = r.where(lang)
        shown = f" \\emph{{({tex_text(where)})}}" if where and lang != "zh" else ""
        if where and lang == "zh":
            shown = f"\\emph{{（{tex_text(where)}）}}"
        lines.append(f"  \\item \\textbf{{{tex_text(lead)}}} {tex_text(r.text)}{shown} % TODO")
    lines.append("\\end{itemize}")
    return lines


@dataclass
class Layout:
    """Where each table and figure of the results goes."""

    manual: ManualTasks = field(default_factory=ManualTasks)
    shown: list[int] = field(default_factory=list)  # the items to show, in file order
    item_part: dict[int, str] = field(default_factory=dict)  # item → part ("" for none)
    figures: dict[int, FigureRecord] = field(default_factory=dict)  # item → its figure
    loose: list[tuple[FigureRecord, str]] = field(default_factory=list)  # other figures, part
    dropped: list[Dropped] = field(default_factory=list)

    @property
    def parts(self) -> list[str]:
        return self.manual.parts


def build_layout(
    items: Sequence[Item],
    manual: ManualTasks,
    table_figures: dict[int, FigureRecord],
    extra_figures: Sequence[FigureRecord],
) -> Layout:
    """The layout of the results: tables without data or repeating another left out
    (with their figures), each shown table placed in a part, each figure with its
    table (a figure a model run made carries `table_key`) or in the part its caption
    names."""
    dropped = drop_repeats(items)
    gone = {d.index for d in dropped}
    keys = {item_key(item): i for i, item in enumerate(items)}
    figures = {i: f for i, f in table_figures.items() if i not in gone}
    loose: list[tuple[FigureRecord, str]] = []
    for figure in extra_figures:
        i = keys.get(str(figure.table_key or ""))
        if i is not None and i in gone:
            continue  # the plot of a table not shown
        if i is not None and i not in figures:
            figures[i] = figure
            continue
        loose.append((figure, place_text(figure.caption, manual)))
    placed = place(items, manual)
    shown = [i for i in range(len(items)) if i not in gone]
    return Layout(manual, shown, {i: placed.get(i, "") for i in shown}, figures, loose, dropped)


def dropped_lines(items: Sequence[Item], layout: Layout, lang: str) -> list[str]:
    """The "Left out" lines of the tables the layout does not show."""
    w = _WORDS[lang]
    out = []
    for d in layout.dropped:
        title = _title(items[d.index], lang)
        if d.why == "empty":
            out.append(w["empty"].format(title=title))
        elif d.cell is not None and d.like is not None:
            column, value, other = d.cell
            out.append(
                w["repeat_cell"].format(
                    title=title,
                    like=_title(items[d.like], lang),
                    column=column,
                    value=value.strip("$"),
                    other=other.strip("$"),
                )  # fmt: skip
            )
        elif d.like is not None:
            out.append(w["repeat"].format(title=title, like=_title(items[d.like], lang)))
    return out


def _title(item: Item, lang: str) -> str:
    return item.pattern if isinstance(item, Series) else table_title(item, lang)


def results_tex(
    layout: Layout,
    item_tex: Callable[[int], list[str]],
    figure_tex: Callable[[FigureRecord], list[str]],
    lang: str,
) -> list[str]:
    """The results' body: the requirements of no part, then each part (its requirements,
    tables and figures), then what fits no part; without parts, every item in order."""
    w = _WORDS[lang]
    reqs = layout.manual.requirements
    out: list[str] = []
    general = [r for r in reqs if not r.part]
    if general:
        out += [f"\\paragraph{{{tex_text(w['asks'])}}}", *requirement_items(general, lang), ""]
    if not layout.parts:
        for i in layout.shown:
            out += item_tex(i)
        for figure, _ in layout.loose:
            out += figure_tex(figure)
        return out
    for part in layout.parts:
        out += [BARRIER, f"\\subsection*{{{tex_text(part)}}}"]
        out += requirement_items([r for r in reqs if r.part == part], lang)
        out.append("")
        for i in layout.shown:
            if layout.item_part.get(i) == part:
                out += item_tex(i)
        for figure, where in layout.loose:
            if where == part:
                out += figure_tex(figure)
    rest = [i for i in layout.shown if not layout.item_part.get(i)]
    loose = [f for f, where in layout.loose if not where]
    if rest or loose:
        out += [BARRIER, f"\\subsection*{{{tex_text(w['other'])}}}", ""]
        for i in rest:
            out += item_tex(i)
        for figure in loose:
            out += figure_tex(figure)
    return out
