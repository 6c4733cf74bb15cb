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
"""

from __future__ import annotations

import functools
import hashlib
import io
import logging
import math
import re
import shutil
import subprocess
import textwrap
import unicodedata
import warnings
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from .latex import escape_latex
from .readers import ReadError, read_page
from .readers.sniff import sniff
from .readers.workbook import format_float
from .runstore import atomic_write_bytes, atomic_write_json
from .tables import Table, column_stats, extract_tables
from .templates import Template
from .workspace import PathDenied, resolve_in_folder

__all__ = [
    "OfflineReport",
    "manual_headings",
    "manual_requirements",
    "offline_report",
    "plot_table",
]

log = logging.getLogger(__name__)

MAX_HEADINGS = 40
MAX_REQUIREMENTS = 40
MAX_ITEM_CHARS = 300
MAX_FIGURES = 12
MAX_SHOWN_ROWS = 25  # table rows printed; the rest are counted
MAX_TABLE_COLUMNS = 7  # data columns per printed chunk (the first one repeats)
MAX_Y_SERIES = 4


@dataclass
class OfflineReport:
    tex: str
    tables: list[Table]
    figures: list[dict]
    headings: list[str]
    requirements: list[str]


# --------------------------------------------------------------------------
# Text for the two languages the templates come in
# --------------------------------------------------------------------------

_TEXT: dict[str, dict[str, str]] = {
    "en": {
        "note": (
            "This is an offline skeleton generated without a language model. The tables, "
            "statistics and plots come straight from the data files; every TODO is for you "
            "to complete."
        ),
        "covers": "The manual covers:",
        "requirements": "Requirements to check",
        "tables_intro": (
            "The tables below are copied from the data files (computed values with more "
            "than 6 significant digits are rounded to 4); their last rows give each "
            "column's statistics."
        ),
        "row": "row",
        "line": "line",
        "more_rows": "… {n} more rows",
        "table_caption": "Data from {title}.",
        "columns_part": " Columns {a}–{b} of {n}.",
        "continued": "Table~\\ref{{{label}}}, continued: columns {a}–{b} of {n}.",
        "experiment": "Experiment",
        "goal": "Goal",
        "findings": "Key findings",
        "method": "Method",
        "colon": ":",
        "no_data": "No numeric tables were found in the data files.",
        "stats": "n|min|max|mean|std",
    },
    "zh": {
        "note": (
            "本文是未使用语言模型、离线生成的报告框架。表格、统计量与图均直接取自数据文件；"
            "所有“待补充”之处需由你完成。"
        ),
        "covers": "实验手册包含：",
        "requirements": "待核对的要求",
        "tables_intro": (
            "下列表格直接取自数据文件（超过 6 位有效数字的计算值保留 4 位），"
            "表末各行为每列的统计量。"
        ),
        "row": "行",
        "line": "行",
        "more_rows": "……另有 {n} 行",
        "table_caption": "数据来源：{title}。",
        "columns_part": "第 {a}–{b} 列（共 {n} 列）。",
        "continued": "表~\\ref{{{label}}}（续）：第 {a}–{b} 列（共 {n} 列）。",
        "experiment": "实验",
        "goal": "目的",
        "findings": "主要发现",
        "method": "方法",
        "colon": "：",
        "no_data": "数据文件中没有找到数值表格。",
        "stats": "n|最小值|最大值|平均值|标准差",
    },
}

# Section roles, tried in this order on the section title: the first match wins
# ("结果与讨论" is a discussion, "数据记录与处理" the place for the data).
_ROLES: tuple[tuple[str, str], ...] = (
    ("conclusion", r"conclu|summary|结论|总结"),
    ("discussion", r"discuss|讨论"),
    ("results", r"result|data|数据|结果"),
    ("analysis", r"analys|calculat|处理|分析"),
    ("method", r"method|procedure|步骤|方法|过程"),
    ("apparatus", r"apparatus|equipment|instrument|仪器|器材|设备"),
    ("theory", r"theory|background|principle|原理|理论"),
    ("intro", r"intro|aim|objective|purpose|目的|引言|简介"),
)

_PROMPTS: dict[str, dict[str, str]] = {
    "en": {
        "intro": "state the aim of the experiment and its background.",
        "theory": "give the relations being tested and define every symbol.",
        "apparatus": "list the apparatus used, with the resolution of each instrument.",
        "method": "describe the apparatus and the procedure actually followed.",
        "results": "describe the measurements and point the reader to the tables and figures.",
        "analysis": "derive the quantities asked for, with their uncertainties.",
        "discussion": "discuss the results, the sources of error and the comparison with theory.",
        "conclusion": "summarise what was found, with the numbers.",
        "": "write this section.",
    },
    "zh": {
        "intro": "写明实验目的与背景。",
        "theory": "写出所验证的关系，并说明各符号的含义。",
        "apparatus": "列出所用仪器及其精度。",
        "method": "说明实验仪器与实际操作步骤。",
        "results": "说明测量结果，并引导读者查看下列表格与图。",
        "analysis": "计算所需的物理量并给出不确定度。",
        "discussion": "讨论结果、误差来源以及与理论的比较。",
        "conclusion": "用数据总结实验结论。",
        "": "撰写本节内容。",
    },
}


def _lang(template: Template) -> str:
    return "zh" if template.lang.lower().startswith("zh") else "en"


# --------------------------------------------------------------------------
# Escaping data-derived text
# --------------------------------------------------------------------------

# Characters Latin Modern (the default font of an article under XeLaTeX) lacks
# and that lab material is full of; written as math so they print everywhere.
_MATH_CHARS = {
    "θ": r"\theta", "ϑ": r"\vartheta", "φ": r"\phi", "ϕ": r"\phi", "α": r"\alpha",
    "β": r"\beta", "γ": r"\gamma", "δ": r"\delta", "Δ": r"\Delta", "ε": r"\varepsilon",
    "λ": r"\lambda", "μ": r"\mu", "π": r"\pi", "ρ": r"\rho", "σ": r"\sigma",
    "Σ": r"\Sigma", "τ": r"\tau", "ω": r"\omega", "Ω": r"\Omega", "η": r"\eta",
    "√": r"\surd", "≈": r"\approx", "≤": r"\leq", "≥": r"\geq", "±": r"\pm",
    "×": r"\times", "−": "-", "→": r"\rightarrow", "∝": r"\propto", "∞": r"\infty",
}  # fmt: skip
_MATH_CHAR_RE = re.compile("[" + "".join(_MATH_CHARS) + "]")


def tex_text(text: str) -> str:
    """Data-derived text as LaTeX that prints exactly that text, nothing else.

    escape_latex keeps `$...$` and `\\(...\\)` as math, which is right for
    model prose but not for data: here `$` and `\\` are replaced by
    placeholders first, so every character is escaped.
    """
    # Math alphanumerics (𝑣, 𝜙 from Word's equation editor) become plain letters.
    text = "".join(
        unicodedata.normalize("NFKC", c) if 0x1D400 <= ord(c) <= 0x1D7FF else c for c in text
    )
    text = "".join(c for c in text if c.isprintable() or c == " ")
    escaped = escape_latex(text.replace("\\", "\x00").replace("$", "\x01"))
    escaped = escaped.replace("\x00", r"\textbackslash{}").replace("\x01", r"\$")
    return _MATH_CHAR_RE.sub(lambda m: f"\\ensuremath{{{_MATH_CHARS[m.group()]}}}", escaped)


def _breakable(text: str) -> str:
    """tex_text, plus break points after * / ( ) _ so long headers wrap in narrow columns."""
    pieces = re.split(r"(?<=[*/()_^,])", text)
    return r"\allowbreak{}".join(tex_text(p) for p in pieces if p)


# --------------------------------------------------------------------------
# Numbers
# --------------------------------------------------------------------------


def _significant_digits(text: str) -> int:
    mantissa = text.lower().split("e")[0].lstrip("+-").replace(".", "").lstrip("0")
    return len(mantissa)


def format_value(value: float, written: str | None = None) -> str:
    """A cell as LaTeX: the data's own digits, computed noise rounded, in math mode.

    Measured values keep every digit they were written with (0.485 stays
    0.485, "0.200" in a CSV stays 0.200); values with more than 6
    significant digits are computed ones (0.4363323129985824), rounded to 4.
    """
    if not math.isfinite(value):
        return "--"
    text = (
        written.lstrip("+")
        if written and _WRITTEN_NUMBER.fullmatch(written)
        else format_float(value)
    )
    if not (value.is_integer() and abs(value) < 1e15) and _significant_digits(text) > 6:
        text = f"{value:.4g}"
    return _math_number(text)


_WRITTEN_NUMBER = re.compile(r"[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?")


def format_stat(value: float | None) -> str:
    if value is None or not math.isfinite(value):
        return "--"
    if value.is_integer() and abs(value) < 1e15:
        return _math_number(str(int(value)))
    return _math_number(f"{value:.4g}")


def _math_number(text: str) -> str:
    mantissa, _, exponent = text.lower().partition("e")
    if exponent:
        return f"${mantissa}\\times10^{{{int(exponent)}}}$"
    return f"${text}$"


# --------------------------------------------------------------------------
# Figures
# --------------------------------------------------------------------------

_UNCERTAINTY_NAME = re.compile(
    r"^(?:d|δ|Δ|delta|err|error|sigma|σ|u)\s|uncertaint|误差|不确定", re.IGNORECASE
)


def _column(table: Table, j: int) -> list[float | None]:
    return [row[j] if j < len(row) else None for row in table.rows]


def _pairs(xs: Sequence[float | None], ys: Sequence[float | None]) -> list[tuple[float, float]]:
    return sorted((x, y) for x, y in zip(xs, ys, strict=False) if x is not None and y is not None)


def _exactly_linear(pairs: list[tuple[float, float]]) -> bool:
    """y = a·x + b to rounding error, like an angle in degrees next to it in radians."""
    if len(pairs) < 3:
        return False
    xs, ys = [p[0] for p in pairs], [p[1] for p in pairs]
    mx, my = math.fsum(xs) / len(xs), math.fsum(ys) / len(ys)
    sxx = math.fsum((x - mx) ** 2 for x in xs)
    syy = math.fsum((y - my) ** 2 for y in ys)
    sxy = math.fsum((x - mx) * (y - my) for x, y in pairs)
    if sxx == 0 or syy == 0:
        return False
    return abs(sxy) / math.sqrt(sxx * syy) > 1 - 1e-9


def _choose_axes(table: Table) -> tuple[int, list[int]] | None:
    """(x column, y columns) to plot, or None when the table has nothing to plot.

    x is the first column with two distinct values. y prefers columns that vary,
    are not an uncertainty ("d range", "Δt") and are not just x in other units.
    """
    n = len(table.columns)
    x = next(
        (j for j in range(n) if len({v for v in _column(table, j) if v is not None}) >= 2), None
    )
    if x is None:
        return None
    xs = _column(table, x)
    usable = [j for j in range(n) if j != x and len(_pairs(xs, _column(table, j))) >= 2]
    preferred = [
        j
        for j in usable
        if len({p[1] for p in _pairs(xs, _column(table, j))}) >= 2
        and not _UNCERTAINTY_NAME.search(table.columns[j])
        and not _exactly_linear(_pairs(xs, _column(table, j)))
    ]
    ys = (preferred or usable)[:MAX_Y_SERIES]
    return (x, ys) if ys else None


def _cjk_fonts() -> list[str]:
    """Installed CJK font families matplotlib can fall back to for Chinese headers."""
    from matplotlib import font_manager

    names = sorted({f.name for f in font_manager.fontManager.ttflist})
    wanted = ("Noto Sans CJK SC", "Noto Serif CJK SC", "WenQuanYi Zen Hei", "SimHei",
              "Microsoft YaHei", "PingFang SC", "Source Han Sans SC")  # fmt: skip
    found = [n for n in wanted if n in names]
    return found or [n for n in names if "CJK" in n][:1]


def _short(text: str, width: int, lines: int) -> str:
    """Wrapped for a figure, with "$" escaped: matplotlib reads $...$ as mathtext,
    and a header like "$\\f{g}$" would make the figure fail to draw."""
    wrapped = "\n".join(textwrap.wrap(text, width, max_lines=lines, placeholder=" …"))
    return wrapped.replace("$", r"\$")


def plot_table(table: Table, figures_dir: Path, stem: str, folder: Path) -> dict | None:
    """Plot a table with matplotlib, in process; save figures/<stem>.pdf/.png/.json.

    The first column with two distinct values is x; up to 4 further columns
    are y (markers and lines, sorted by x). Series of very different sizes
    get a panel each so none is flattened. Returns {"filename", "caption",
    "pdf", "png"}, or None when the table has fewer than 2 rows or nothing to
    plot against x.
    """
    if len(table.rows) < 2 or len(table.columns) < 2:
        return None
    axes = _choose_axes(table)
    if axes is None:
        return None
    x, ys = axes
    xs = _column(table, x)
    series = [(table.columns[j], _pairs(xs, _column(table, j))) for j in ys]
    x_name = table.columns[x]
    caption = f"{'; '.join(name for name, _ in series)} against {x_name}. Data: {table.title}."
    pdf, png = _render(series, x_name, table.title)
    figures_dir.mkdir(parents=True, exist_ok=True)
    pdf_path, png_path = figures_dir / f"{stem}.pdf", figures_dir / f"{stem}.png"
    atomic_write_bytes(pdf_path, pdf)
    atomic_write_bytes(png_path, png)
    atomic_write_json(
        figures_dir / f"{stem}.json", _provenance(table, stem, caption, x, ys, folder)
    )
    return {"filename": stem, "caption": caption, "pdf": str(pdf_path), "png": str(png_path)}


def _render(
    series: list[tuple[str, list[tuple[float, float]]]], x_name: str, title: str
) -> tuple[bytes, bytes]:
    import matplotlib
    from matplotlib.figure import Figure

    # Sizes far apart would flatten the small series: then one panel each.
    peaks = [max(abs(y) for _, y in pairs) or 1.0 for _, pairs in series]
    panels = len(series) if max(peaks) / min(peaks) > 4 else 1
    # A CJK fallback only when needed: embedding (a subset of) a CJK font costs
    # a second per figure even when no glyph of it is used.
    texts = [x_name, title, *(name for name, _ in series)]
    fonts = ["DejaVu Sans", *(_cjk_fonts() if any(_CJK.search(t) for t in texts) else [])]
    style = {"font.family": fonts, "text.usetex": False}  # a user's matplotlibrc may say usetex
    with matplotlib.rc_context(style), warnings.catch_warnings():
        # A header in a script no installed font covers prints as boxes; the
        # figure is still right, so that warning only is silenced.
        warnings.filterwarnings("ignore", message=r"Glyph \d+ .*missing from", category=UserWarning)
        fig = Figure(figsize=(6.4, 3.4 + 1.2 * (panels - 1)), layout="constrained")
        grid = fig.subplots(panels, 1, sharex=True, squeeze=False)[:, 0]
        for i, (name, pairs) in enumerate(series):
            ax = grid[i if panels > 1 else 0]
            xs = [p[0] for p in pairs]
            # Repeated x values (runs of one setting) make a line zigzag: markers only.
            line = "-" if len(set(xs)) == len(xs) else "none"
            ax.plot(xs, [p[1] for p in pairs], marker="o", ms=4, lw=1.2, ls=line,
                    label=_short(name, 40, 2))  # fmt: skip
            if panels > 1:
                ax.set_ylabel(_short(name, 24, 3), fontsize=8)
        if panels == 1:
            names = [name for name, _ in series]
            grid[0].set_ylabel(_short("; ".join(names), 45, 3), fontsize=9)
            if len(series) > 1:
                grid[0].legend(fontsize=8)
        for ax in grid:
            ax.grid(True, alpha=0.3)
        grid[-1].set_xlabel(_short(x_name, 60, 2))
        fig.suptitle(_short(title, 80, 2), fontsize=9)
        # Lay out once, then freeze: otherwise each of the two saves lays out again.
        fig.draw_without_rendering()
        fig.set_layout_engine("none")
        out = []
        for fmt, meta in (("pdf", {"CreationDate": None}), ("png", {})):
            buf = io.BytesIO()
            fig.savefig(buf, format=fmt, dpi=150, metadata=meta)
            out.append(buf.getvalue())
    return out[0], out[1]


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _provenance(
    table: Table, stem: str, caption: str, x: int, ys: list[int], folder: Path
) -> dict[str, Any]:
    """The same fields the sandbox writes for a model's figure, plus the table's location."""
    import matplotlib

    inputs = []
    try:
        path = resolve_in_folder(folder, table.source)
        inputs.append({"path": table.source, "sha256": _sha256(path), "bytes": path.stat().st_size})
    except (PathDenied, OSError):
        inputs.append({"path": table.source, "sha256": None, "bytes": None})
    where = f"sheet {table.sheet!r}, " if table.sheet is not None else ""
    code = (
        f"labwright.core.offline.plot_table (deterministic, no model): {table.source}, {where}"
        f"rows {table.first_row}-{table.last_row}; x = {table.columns[x]!r}; "
        f"y = {', '.join(repr(table.columns[j]) for j in ys)}; markers and lines, sorted by x."
    )
    return {
        "filename": stem,
        "caption": caption,
        "code": code,
        "inputs": inputs,
        "files": [f"{stem}.pdf", f"{stem}.png"],
        "figures": 1,
        "created": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "matplotlib": matplotlib.__version__,
        "table": {
            "source": table.source,
            "sheet": table.sheet,
            "first_row": table.first_row,
            "last_row": table.last_row,
            "x": table.columns[x],
            "y": [table.columns[j] for j in ys],
        },
    }


# --------------------------------------------------------------------------
# The manual: headings and requirements
# --------------------------------------------------------------------------

_TEXT_DOC_SUFFIXES = (".md", ".markdown", ".txt", ".rst", ".tex", "")
_MD_HEADING = re.compile(r"^(#{1,6})\s+(.+?)\s*#*\s*$")
_TEX_HEADING = re.compile(r"\\(?:sub){0,2}section\*?\{(.+?)\}")
_ZH_HEADING = re.compile(
    r"^(?:[一二三四五六七八九十]+[、.．]|第[一二三四五六七八九十\d]+[章节部分]|"
    r"\d+(?:\.\d+)*[、.．\s])\s*[\u4e00-\u9fff][^。，；]{0,24}$"
)
_REQUIREMENT_HEADING = re.compile(
    r"report\s+(?:must|should)|must\s+(?:contain|include)|requirement|assessment|marking"
    r"|grading|rubric|deliverable|lab\s+report|report\s+(?:format|structure|content)"
    r"|要求|报告|评分|考核",
    re.IGNORECASE,
)
_BULLET = re.compile(
    r"^\s*(?:[-*•●▪◦‣\ue000-\uf8ff]|\d{1,2}[.)、]|[a-zA-Z][.)]|\(\w{1,3}\)|[ivx]{1,4}[.)])\s+"
)
_SENTENCE_INSIDE = re.compile(r"[.!?。！？]\s*\S")


@dataclass
class _Doc:
    kind: str  # "docx", "pdf" or "text"
    lines: list[str] = field(default_factory=list)


def _documents(folder: Path, paths: Iterable[str]) -> list[_Doc]:
    """The manual-like documents among `paths`, read through the readers.

    A PDF with a .docx of the same name beside it is the same text, extracted
    worse: only the .docx is read.
    """
    paths = list(paths)
    docx_stems = {p.rsplit(".", 1)[0].casefold() for p in paths if p.lower().endswith(".docx")}
    docs: list[_Doc] = []
    for rel in paths:
        if rel.lower().endswith(".pdf") and rel.rsplit(".", 1)[0].casefold() in docx_stems:
            continue
        doc = _read_document(folder, rel)
        if doc is not None:
            docs.append(doc)
    return docs


def _read_document(folder: Path, rel: str) -> _Doc | None:
    try:
        path = resolve_in_folder(folder, rel)
        kind = sniff(path).kind
        if kind in ("csv", "tsv") or (
            kind == "text" and path.suffix.lower() not in _TEXT_DOC_SUFFIXES
        ):
            return None
        if kind not in ("docx", "pdf", "text"):
            return None
        page = read_page(path, 0, 20_000, max_chars=4_000_000)
    except (PathDenied, ReadError, OSError):
        return None
    return _Doc(kind, page.text.split("\n"))


def _clean(text: str) -> str:
    return " ".join(text.replace("\uf0b7", " ").split())


def _heading_of(line: str, doc: _Doc, running: set[str]) -> str | None:
    """The heading text when `line` is one, else None."""
    stripped = line.strip()
    if doc.kind in ("docx", "text"):
        m = _MD_HEADING.match(stripped)
        if m:
            return _clean(m.group(2))
        m = _TEX_HEADING.search(stripped)
        if m and doc.kind == "text":
            return _clean(m.group(1))
    if doc.kind in ("pdf", "text") and _ZH_HEADING.match(stripped):
        return _clean(stripped)
    if doc.kind == "pdf" and stripped not in running and _all_caps_heading(stripped):
        return _clean(stripped)
    return None


def _all_caps_heading(line: str) -> bool:
    letters = [c for c in line if c.isalpha()]
    return (
        len(letters) >= 3
        and all(c.isupper() for c in letters if c.isascii())
        and any(c.isascii() for c in letters)
        and len(line) <= 60
        and len(line.split()) <= 8
        and not line.endswith((".", ",", ";"))
    )


def _running_lines(doc: _Doc) -> set[str]:
    """Lines a PDF repeats on several pages (running heads and feet)."""
    if doc.kind != "pdf":
        return set()
    counts: dict[str, int] = {}
    for line in doc.lines:
        counts[line.strip()] = counts.get(line.strip(), 0) + 1
    return {line for line, n in counts.items() if n >= 2}


def _is_page_marker(line: str) -> bool:
    return (
        line.startswith("--- page ")
        or line in ("[table]", "[/table]")
        or line.startswith("[no text")
    )


def _good_heading(text: str) -> bool:
    # A paragraph styled as a heading is not a hint ("“VIVA VOCE ...”. You may").
    return 0 < len(text) <= 80 and not _SENTENCE_INSIDE.search(text.rstrip(".。"))


def manual_headings(folder: Path, paths: Iterable[str]) -> list[str]:
    """The headings of the manual/guidelines among `paths`, in order, deduplicated, capped.

    Word heading styles (the docx reader marks them with #), Markdown `#`
    lines and LaTeX sections, and in PDFs short ALL-CAPS lines or numbered
    Chinese headings that are not running heads.
    """
    out: list[str] = []
    seen: set[str] = set()
    for doc in _documents(folder, paths):
        running = _running_lines(doc)
        for line in doc.lines:
            if _is_page_marker(line):
                continue
            heading = _heading_of(line, doc, running)
            if heading and _good_heading(heading) and heading.casefold() not in seen:
                seen.add(heading.casefold())
                out.append(heading)
                if len(out) >= MAX_HEADINGS:
                    return out
    return out


def manual_requirements(folder: Path, paths: Iterable[str]) -> list[str]:
    """What the manual asks the report to contain: the items under requirement headings.

    A heading like "The report must contain", "Assessment", "Lab report",
    "要求" or "报告" starts a section; its bullets and sentences up to the
    next heading are the requirements (bullet markers stripped, wrapped PDF
    lines joined, each capped at 300 characters).
    """
    out: list[str] = []
    seen: set[str] = set()
    for doc in _documents(folder, paths):
        for item in _requirement_items(doc):
            key = item.casefold()
            if key not in seen:
                seen.add(key)
                out.append(item)
                if len(out) >= MAX_REQUIREMENTS:
                    return out
    return out


def _requirement_items(doc: _Doc) -> list[str]:
    running = _running_lines(doc)
    items: list[str] = []
    collecting = False
    current: list[str] = []
    in_fence = False

    def flush() -> None:
        if current:
            text = _clean(" ".join(current))
            if text:
                items.append(
                    text if len(text) <= MAX_ITEM_CHARS else text[: MAX_ITEM_CHARS - 1] + "…"
                )
            current.clear()

    previous = ""
    for raw in doc.lines:
        line = raw.rstrip()
        if line.strip().startswith("```"):
            in_fence = not in_fence
            continue
        if in_fence or _is_page_marker(line.strip()) or line.strip() in running:
            continue
        if doc.kind == "pdf" and line.strip().isdigit():
            continue  # a page number
        heading = _heading_of(line, doc, running)
        if heading is not None:
            flush()
            collecting = bool(_REQUIREMENT_HEADING.search(heading))
            previous = ""
            continue
        if not collecting:
            continue
        if not line.strip():
            flush()  # a blank line ends a paragraph (Markdown, text)
        elif _BULLET.match(line) or _starts_item(doc.kind, previous, line):
            flush()
            current.append(_BULLET.sub("", line, count=1))
        else:
            current.append(line.strip())
        previous = line.strip()
    flush()
    return items


_ENDS_SENTENCE = (".", ":", ";", "?", "!", "。", "：", "；", "？", "！")


def _starts_item(kind: str, previous: str, line: str) -> bool:
    """Does a line that is not a bullet start a new item rather than continue one?"""
    if not previous:
        return True
    if kind == "docx":
        # Each line is a paragraph, except the soft line breaks inside one:
        # a lower-case start after an unfinished sentence continues it.
        return previous.endswith(_ENDS_SENTENCE) or not line.strip()[:1].islower()
    if kind == "pdf":
        # pypdf turns a bullet glyph of a private-use font into a leading space.
        return previous.endswith(_ENDS_SENTENCE) or line[:1].isspace()
    return False  # text: lines run on until a blank line


# --------------------------------------------------------------------------
# The skeleton
# --------------------------------------------------------------------------


def _scan_sample(scan: Any, bucket: str) -> list[str]:
    sample = scan.get("sample", {}) if isinstance(scan, dict) else getattr(scan, "sample", {})
    return list(sample.get(bucket, []))


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


def _table_tex(table: Table, index: int, lang: str) -> list[str]:
    words = _TEXT[lang]
    label = f"tab:data{index}"
    stats = {s["name"]: s for s in column_stats(table)}
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
        out += ["\\begin{table}[H]", "\\centering", "\\footnotesize"]
        if part == 0:
            caption = words["table_caption"].format(title=table.title)
            caption_tex = tex_text(caption)
            if len(groups) > 1:
                caption_tex += tex_text(
                    words["columns_part"].format(a=a, b=groups[0][-1] + 1, n=len(table.columns))
                )
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
                    *(r"\hspace{0pt}" + _breakable(table.columns[c]) for c in cols),
                ]
            )
            + r" \\"
        )
        out.append("\\midrule")
        for i, row in enumerate(table.rows[:MAX_SHOWN_ROWS]):
            written = table.written[i] if i < len(table.written) else []
            cells = [_cell(row, written, c) for c in cols]
            out.append(" & ".join([str(table.first_row + i), *cells]) + r" \\")
        more = len(table.rows) - MAX_SHOWN_ROWS + table.omitted_rows
        if more > 0:
            text = tex_text(words["more_rows"].format(n=more))
            out.append(f"\\multicolumn{{{len(cols) + 1}}}{{@{{}}l}}{{\\emph{{{text}}}}} \\\\")
        out.append("\\midrule")
        for key, shown_name in zip(("n", "min", "max", "mean", "std"), stat_names, strict=True):
            cells = [_stat_cell(stats.get(table.columns[c]), key) for c in cols]
            out.append(" & ".join([f"\\emph{{{tex_text(shown_name)}}}", *cells]) + r" \\")
        out += ["\\bottomrule", "\\end{tabular}", "\\end{table}", ""]
    return out


def _cell(row: list[float | None], written: list[str | None], j: int) -> str:
    value = row[j] if j < len(row) else None
    if value is None:
        return ""
    return format_value(value, written[j] if j < len(written) else None)


def _stat_cell(stat: dict | None, key: str) -> str:
    if stat is None:
        return ""
    if key == "n":
        return str(stat["n"])
    return format_stat(stat[key])


def _figure_tex(figure: dict) -> list[str]:
    stem = str(figure["filename"])
    return [
        "\\begin{figure}[H]",
        "\\centering",
        f"\\includegraphics[width=0.85\\linewidth,height=0.5\\textheight,keepaspectratio]{{figures/{stem}.pdf}}",
        f"\\caption{{{tex_text(str(figure.get('caption') or stem))}}}\\label{{{_label('fig', stem)}}}",
        "\\end{figure}",
        "",
    ]


def _figure_exists(figure: dict, figures_dir: Path) -> bool:
    stem = str(figure.get("filename") or "")
    # The stem goes into \includegraphics verbatim: only names the sandbox or we make.
    if not stem or not re.fullmatch(r"[A-Za-z0-9_-]+", stem):
        return False
    pdf = figure.get("pdf")
    return (figures_dir / f"{stem}.pdf").is_file() or bool(pdf and Path(pdf).is_file())


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9]+", "-", text).strip("-").lower()[:40]


_PACKAGES = ("graphicx", "booktabs", "float", "array")
_CJK = re.compile(r"[\u3000-\u303f\u3400-\u4dbf\u4e00-\u9fff\uff00-\uffef]")


_USEPACKAGE_LINE = re.compile(r"^(\s*\\usepackage(?:\[[^\]]*\])?\{)([^}]*)(\}.*)$")


# Files a package needs beyond its .sty: hyperref's XeTeX driver loads the
# ZapfDingbats metrics (texlive-fonts-recommended) and stops the run without them.
_PACKAGE_NEEDS: dict[str, tuple[str, ...]] = {"hyperref": ("pzdr.tfm",)}


@functools.lru_cache(maxsize=8)
def _missing_packages(names: tuple[str, ...]) -> frozenset[str]:
    """The packages of `names` this TeX installation cannot load (one kpsewhich call).

    Unknown when kpsewhich is absent or fails: then nothing counts as missing.
    """
    kpsewhich = shutil.which("kpsewhich")
    if not kpsewhich or not names:
        return frozenset()
    needs = {n: (f"{n}.sty", *_PACKAGE_NEEDS.get(n, ())) for n in names}
    files = sorted({f for group in needs.values() for f in group})
    try:
        done = subprocess.run(
            [kpsewhich, *files], capture_output=True, text=True, timeout=10, check=False
        )
    except (OSError, subprocess.SubprocessError):
        return frozenset()
    found = {Path(line.strip()).name for line in done.stdout.splitlines() if line.strip()}
    return frozenset(n for n, group in needs.items() if not set(group) <= found)


def _without_missing_packages(preamble: str) -> str:
    """Comment out template packages that are not installed.

    The skeleton uses no macro of the template's optional packages (siunitx,
    say), and an offline report that does not compile for want of one helps
    nobody; a model-written report keeps the template as it is.
    """
    lines = preamble.split("\n")
    missing = _missing_packages(tuple(sorted({n for line in lines for n in _packages_of(line)})))
    if not missing:
        return preamble
    out = []
    for line in lines:
        names = _packages_of(line)
        if not missing.intersection(names):
            out.append(line)
            continue
        out.append(f"% {line.strip()} % cannot be loaded here; the skeleton does not need it")
        kept = [n for n in names if n not in missing]
        m = _USEPACKAGE_LINE.match(line)
        if kept and m:
            out.append(m.group(1) + ",".join(kept) + m.group(3))
    return "\n".join(out)


def _packages_of(line: str) -> list[str]:
    m = _USEPACKAGE_LINE.match(line)
    return [n.strip() for n in m.group(2).split(",") if n.strip()] if m else []


def _preamble(template: Template, body: str) -> str:
    """The template's preamble plus what the skeleton itself needs, when missing."""
    preamble = _without_missing_packages(template.preamble.rstrip("\n")) + "\n"
    loaded = set(re.findall(r"\\usepackage(?:\[[^\]]*\])?\{([^}]*)\}", preamble))
    names = {name.strip() for group in loaded for name in group.split(",")}
    extra = [p for p in _PACKAGES if p not in names]
    if extra:
        preamble += f"\\usepackage{{{','.join(extra)}}}\n"
    # Chinese text from the data in an English template needs a CJK font set up.
    cjk_ready = re.search(r"ctex|xeCJK|CJK", preamble)
    if _CJK.search(body) and not cjk_ready:
        preamble += "\\usepackage[UTF8,scheme=plain]{ctex}\n"
    return preamble


def offline_report(
    folder: Path,
    scan: Any,
    template: Template,
    figures_dir: Path,
    *,
    findings: dict | None = None,
    gaps: list[str] | None = None,
    figures: list[dict] | None = None,
) -> OfflineReport:
    """A whole LaTeX document for `template` made from the material alone.

    `figures=None` plots each numeric table into `figures_dir` (at most 12);
    a list (a model run's figures) is used as given instead. `gaps=None`
    lists the manual's own requirements under "Requirements to check".
    """
    lang = _lang(template)
    words = _TEXT[lang]
    documents = _scan_sample(scan, "documents")
    tables = extract_tables(folder, _scan_sample(scan, "data"))
    headings = manual_headings(folder, documents)
    requirements = manual_requirements(folder, documents)

    table_figures: dict[int, dict] = {}
    if figures is None:
        base = _slug(folder.name) or "data"
        for i, table in enumerate(tables):
            if len(table_figures) >= MAX_FIGURES:
                break
            try:
                made = plot_table(table, figures_dir, f"offline-{base}-{i + 1:02d}", folder)
            except Exception as e:  # a figure that cannot be drawn must not cost the report
                log.warning("offline plot of %s failed: %s", table.title, e)
                continue
            if made is not None:
                table_figures[i] = made
        extra_figures: list[dict] = []
    else:
        extra_figures = [
            f for f in figures if isinstance(f, dict) and _figure_exists(f, figures_dir)
        ]
    included = [*table_figures.values(), *extra_figures]

    sections = list(template.sections) or ["Report"]
    roles = [_role_of(s) for s in sections]
    results_at = _section_for(roles, ("results", "analysis"), len(sections) // 2)
    method_at = _section_for(roles, ("method", "apparatus"), min(1, len(sections) - 1))
    findings = findings or {}

    body: list[str] = []
    for k, section in enumerate(sections):
        body.append(f"\\section{{{tex_text(section)}}}")
        body.append(_todo_line(template, lang, _PROMPTS[lang][roles[k]]))
        body.append("")
        if k == 0:
            body += _intro_extras(findings, headings, words)
        if k == method_at and str(findings.get("method_approach") or "").strip():
            body += _labelled(words["method"], [str(findings["method_approach"])], words)
        if k == results_at:
            body += _results(findings, tables, table_figures, extra_figures, words, lang)
    checklist = gaps if gaps is not None else requirements
    if checklist:
        body.append(f"\\section*{{{tex_text(words['requirements'])}}}")
        body += _itemize(checklist, comment=" % TODO")
        body.append("")

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
        tex=tex, tables=tables, figures=included, headings=headings, requirements=requirements
    )


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
    tables: list[Table],
    table_figures: dict[int, dict],
    extra_figures: list[dict],
    words: dict[str, str],
    lang: str,
) -> list[str]:
    out = _labelled(words["findings"], _as_items(findings.get("key_findings")), words)
    if not tables:
        out += [f"\\emph{{{tex_text(words['no_data'])}}}", ""]
    else:
        out += [tex_text(words["tables_intro"]), ""]
    for i, table in enumerate(tables):
        out += _table_tex(table, i + 1, lang)
        if i in table_figures:
            out += _figure_tex(table_figures[i])
    for figure in extra_figures:
        out += _figure_tex(figure)
    return out
