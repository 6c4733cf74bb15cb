"""Text for the two languages the templates come in, and the roles of their sections."""

from __future__ import annotations

import re
from pathlib import PurePosixPath

from labwright.core.material.tables import Table
from labwright.core.report.templates import Template

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
        "as_written": " Columns as written in the file: {names}.",
        "against": "{y} against {x}.",
        "fit": ("Straight-line fit: slope {slope}, intercept {intercept}, R² = {r2} ({n} points)."),
        "sampled": " Plotted: {k} rows spread evenly over all {n}.",
        "data": " Data: {title}.",
        "fit_legend": "fit",
        "residual": "residual",
        "fit_caption": " The line is the least-squares fit stated in the text; its residuals "
        "are beneath.",
        "fit_heading": "Fit",
        "fit_ref": " (Figure~{ref}.)",
        "list_sep": "; ",
        "where_sheet": "{name} › {sheet}, rows {a}–{b}",
        "where_lines": "{name}, lines {a}–{b}",
        "stated": "Results stated in the material",
        "stated_intro": (
            "Values written beside the tables or in the files, as the student wrote them "
            "(quoted, not computed here):"
        ),
        "stated_item": "{name} = {value} — {source}, {where}",
        "stated_raw": ' (as written: "{text}")',
        "summaries": "Summary cells, not data rows (kept out of the statistics): {items}.",
        "summary_item": "{cell} ({label}{value}{what})",
        "summary_kinds": "sum:the sum of {of}|mean:the mean of {of}|std:the standard deviation of {of}",
        "row_summary": "{name} is the {kind} of {parts} in each row.",
        "row_kinds": "sum:sum|mean:mean",
        "resolution": "Resolution stated in the header: {items}.",
        "transposed": (
            "The sheet writes this table sideways (one quantity per row); each row here is "
            "one of its columns ({first}–{last})."
        ),
        "family": "{n} curves, one per {label}: {labels}.",
        "odd_cell": (
            "Check {cell} = {value}: it breaks its column ({column} = {rule} on every other "
            "row gives {expected} there)."
        ),
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
        "as_written": "文件中的原始列名：{names}。",
        "against": "{y}与{x}的关系。",
        "fit": "直线拟合：斜率 {slope}，截距 {intercept}，R² = {r2}（{n} 个点）。",
        "sampled": "图中绘出均匀取自全部 {n} 行的 {k} 行。",
        "data": "数据：{title}。",
        "fit_legend": "拟合",
        "residual": "残差",
        "fit_caption": "图中直线为正文所述的最小二乘拟合，下方为其残差。",
        "fit_heading": "拟合",
        "fit_ref": "（图~{ref}）",
        "list_sep": "；",
        "where_sheet": "{name} › {sheet}，第 {a}–{b} 行",
        "where_lines": "{name}，第 {a}–{b} 行",
        "stated": "材料中给出的结果",
        "stated_intro": "表格旁或文件中写出的数值，照录原文（未经本文计算）：",
        "stated_item": "{name} = {value}（{source}，{where}）",
        "stated_raw": "（原文：“{text}”）",
        "summaries": "以下为汇总单元格，不是数据行（未计入统计）：{items}。",
        "summary_item": "{cell}（{label}{value}{what}）",
        "summary_kinds": "sum:{of} 之和|mean:{of} 的平均值|std:{of} 的标准差",
        "row_summary": "{name} 为每行 {parts} 的{kind}。",
        "row_kinds": "sum:和|mean:平均值",
        "resolution": "表头标明的仪器精度：{items}。",
        "transposed": "该表在工作表中按行排列（每行一个物理量）；此处每行对应原表的一列（{first}–{last}）。",
        "family": "共 {n} 条曲线，按 {label} 区分：{labels}。",
        "odd_cell": "请核对 {cell} = {value}：该列其余各行均为 {column} = {rule}，此处应为 {expected}。",
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


def table_title(table: Table, lang: str) -> str:
    """Where a table is, in the report's language ("data.csv, lines 2–9" / "data.csv，第 2–9 行").

    The file and sheet names and the titles above the table are data and stay as written.
    """
    if lang == "en" or not table.source:
        return table.title
    words = _TEXT[lang]
    name = PurePosixPath(table.source).name
    key = "where_sheet" if table.sheet is not None else "where_lines"
    where = words[key].format(
        name=name, sheet=(table.sheet or "").strip(), a=table.first_row, b=table.last_row
    )
    _, dash, context = table.title.partition(" — ")
    return where + (words["list_sep"] + context if dash and context else "")


def _lang(template: Template) -> str:
    return "zh" if template.lang.lower().startswith("zh") else "en"


# Characters that need a CJK font: in the preamble (ctex) and in the plots (a fallback).
_CJK = re.compile(r"[\u3000-\u303f\u3400-\u4dbf\u4e00-\u9fff\uff00-\uffef]")
