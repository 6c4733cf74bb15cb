"""Arithmetic written in LaTeX: tokens, safe evaluation, and the rounding slack of operands."""

from __future__ import annotations

import ast
import math
import operator
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from labwright.core.material.evidence import parse_unit
from labwright.core.report.verify.markup import _group_end, _skip_ws

# -- derivations shown in the report -------------------------------------------

_FUNCS: dict[str, Callable[[float], float]] = {
    "sqrt": math.sqrt, "abs": abs, "ln": math.log, "log": math.log10, "exp": math.exp,
    "sin": math.sin, "cos": math.cos, "tan": math.tan,
}  # fmt: skip
_OPS: dict[type, Callable[[float, float], float]] = {
    ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul,
    ast.Div: operator.truediv, ast.Pow: operator.pow,
}  # fmt: skip


_EXPR_TOKEN = re.compile(
    r"(?P<num>\d+\.?\d*(?:[eE][-+]?\d+)?|\.\d+)|(?P<func>\\?(?:sqrt|sin|cos|tan|ln|log|exp)\b)"
    r"|(?P<pi>\\pi\b|π)|(?P<op>\*\*|[-+*/^])|(?P<lp>\()|(?P<rp>\))|(?P<bar>\|)"
    r"|(?P<word>\\?[A-Za-zµΩ]+)|(?P<other>\S)"
)


def _eval(node: ast.AST) -> float:
    if isinstance(node, ast.Expression):
        return _eval(node.body)
    if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)):
        return float(node.value)
    if isinstance(node, ast.Name) and node.id == "pi":
        return math.pi
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        v = _eval(node.operand)
        return -v if isinstance(node.op, ast.USub) else v
    if isinstance(node, ast.BinOp) and type(node.op) in _OPS:
        left, right = _eval(node.left), _eval(node.right)
        if isinstance(node.op, ast.Pow) and (abs(right) > 64 or abs(left) > 1e100):
            raise ValueError("power out of range")
        return _OPS[type(node.op)](left, right)
    if (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id in _FUNCS
        and len(node.args) == 1
    ):
        return _FUNCS[node.func.id](_eval(node.args[0]))
    raise ValueError("not arithmetic")


def _latex_to_plain_math(s: str) -> str:
    """A LaTeX expression as plain arithmetic text (units, spacing and markup removed)."""
    s = re.sub(r"\\(?:SI|qty)\s*\{([^{}]*)\}\s*\{[^{}]*\}", r"\1", s)
    s = re.sub(r"\\num\s*\{([^{}]*)\}", r"\1", s)
    s = re.sub(r"\\(?:mathrm|text|textrm|mbox|si|unit|operatorname)\s*\{[^{}]*\}", " ", s)
    while m := re.search(r"\\[dt]?frac\s*(?=\{)", s):
        a_end = _group_end(s, m.end())
        b_start = _skip_ws(s, a_end)
        if b_start >= len(s) or s[b_start] != "{":
            break
        b_end = _group_end(s, b_start)
        s = (
            s[: m.start()]
            + f"(({s[m.end() + 1 : a_end - 1]})/({s[b_start + 1 : b_end - 1]}))"
            + s[b_end:]
        )
    s = re.sub(r"(\d+(?:\.\d+)?)\s*(?:\^\s*\{?\s*\\circ\s*\}?|°|\\degree\b)", r"(\1*pi/180)", s)
    for a, b in ((r"\times", "*"), (r"\cdot", "*"), ("×", "*"), ("·", "*"), (r"\ast", "*"),
                 (r"\div", "/"), ("÷", "/"), ("−", "-"), ("–", "-"), (r"\lvert", "|"),
                 (r"\rvert", "|"), (r"\vert", "|"), ("{,}", ""), (r"\%", ""), ("%", "")):  # fmt: skip
        s = s.replace(a, b)
    s = re.sub(r"\\(?:left|right|[bB]igg?[lr]?)\b|\\[,;:! ]|\\q?quad\b|\\\\|[~$&]", " ", s)
    s = re.sub(r"(?<=\d)(?:\s*\{\s*\}\s*)(?=\d)", "", s)
    return s.replace("{", "(").replace("}", ")").replace("[", "(").replace("]", ")")


@dataclass
class _Tok:
    kind: str
    text: str
    value: float = 0.0
    tol: float = 0.0


def _tokens(expr: str) -> list[_Tok]:
    toks: list[_Tok] = []
    for m in _EXPR_TOKEN.finditer(expr):
        kind = m.lastgroup or "other"
        text = m.group(0)
        if kind == "num":
            decimals = len(text.split(".")[1].split("e")[0].split("E")[0]) if "." in text else None
            # integer literals (counts, exponents, 10 in 20.16/10) are exact
            tol = 0.0 if decimals is None else 0.5 * 10.0**-decimals
            if "e" in text.lower() and decimals is not None:
                tol *= 10.0 ** int(re.split("[eE]", text)[1])
            toks.append(_Tok("num", text, float(text), tol))
        elif kind == "word" and toks and toks[-1].kind == "num" and parse_unit(text.lstrip("\\")):
            continue  # a unit after a number ("20.16 s / 10")
        elif kind == "word" and text.lstrip("\\") == "pi":
            toks.append(_Tok("pi", "pi"))
        else:
            toks.append(_Tok(kind, text.lstrip("\\") if kind == "func" else text))
    return toks


def _python(toks: Sequence[_Tok], values: Sequence[float] | None = None) -> str:
    out: list[str] = []
    bars = 0
    prev = None
    k = 0
    for tok in toks:
        atom_start = tok.kind in ("num", "pi", "func", "lp") or (
            tok.kind == "bar" and bars % 2 == 0
        )
        if prev in ("num", "pi", "rp", "barclose") and atom_start:
            out.append("*")  # implicit multiplication: 4\pi^2, 2(3)
        if tok.kind == "num":
            out.append(repr(values[k] if values is not None else tok.value))
            k += 1
            prev = "num"
        elif tok.kind == "bar":
            bars += 1
            out.append("abs(" if bars % 2 else ")")
            prev = "lp" if bars % 2 else "barclose"
        elif tok.kind == "op":
            out.append("**" if tok.text in ("^", "**") else tok.text)
            prev = "op"
        else:
            out.append("pi" if tok.kind == "pi" else tok.text)
            prev = tok.kind
    return " ".join(out)


def _evaluate(toks: Sequence[_Tok]) -> tuple[float, float] | None:
    """(value, rounding slack) of an arithmetic token run, or None if it is not one."""
    nums = [t for t in toks if t.kind == "num"]
    try:
        value = _eval(ast.parse(_python(toks), mode="eval"))
        slack = 0.0
        for i, t in enumerate(nums):
            if t.tol:
                bumped = [x.value + (t.tol if j == i else 0.0) for j, x in enumerate(nums)]
                slack += abs(_eval(ast.parse(_python(toks, bumped), mode="eval")) - value)
    except (SyntaxError, ValueError, ZeroDivisionError, OverflowError, TypeError):
        return None
    if not math.isfinite(value):
        return None
    return value, slack


def _arithmetic_suffix(piece: str) -> tuple[str, float, float] | None:
    """The longest arithmetic expression that ends the piece (what stands left of '=')."""
    toks = _tokens(_latex_to_plain_math(piece))
    start = len(toks)
    while start > 0 and toks[start - 1].kind not in ("word", "other"):
        start -= 1
    run = toks[start:]
    for i in range(len(run)):
        cand = run[i:]
        if not cand or cand[0].kind in ("op", "rp") and cand[0].text not in ("-",):
            continue
        operations = sum(t.kind in ("op", "func", "pi", "bar") for t in cand)
        if operations == 0 or sum(t.kind == "num" for t in cand) == 0:
            continue
        result = _evaluate(cand)
        if result is not None:
            return " ".join(t.text for t in cand), *result
    return None
