"""Formulas written as text ("a*exp(-b*x)+c", "1/P", "ln R"), parsed without running any code.

The text is parsed with `ast` and only arithmetic, numbers, names and the functions of
`FUNCTIONS` are accepted; anything else (attributes, subscripts, lambdas, keywords,
comprehensions, strings...) is refused with a sentence naming it. The tree is turned into
nested closures over numpy (or `uncertainties.unumpy` when a value carries an
uncertainty), so nothing is ever passed to eval or compile: the same holds inside the
figure sandbox, whose audit hook refuses dynamically compiled code.
"""

from __future__ import annotations

import ast
import math
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

MAX_CHARS = 400
MAX_NODES = 200

Value = Any  # a float, a numpy array, a ufloat or an array of them
Env = Mapping[str, Value]
_Node = Callable[[Env], Value]


class ExpressionError(ValueError):
    """A formula that is not plain arithmetic on names, numbers and allowed functions."""


# name -> (numpy function, name in uncertainties.unumpy / umath, LaTeX form)
FUNCTIONS: dict[str, tuple[Callable[..., Any], str, str]] = {
    "exp": (np.exp, "exp", r"e^{{{0}}}"),
    "log": (np.log, "log", r"\ln\left({0}\right)"),
    "ln": (np.log, "log", r"\ln\left({0}\right)"),
    "log10": (np.log10, "log10", r"\log_{{10}}\left({0}\right)"),
    "lg": (np.log10, "log10", r"\lg\left({0}\right)"),
    "log2": (np.log2, "log2", r"\log_{{2}}\left({0}\right)"),
    "sqrt": (np.sqrt, "sqrt", r"\sqrt{{{0}}}"),
    "sin": (np.sin, "sin", r"\sin\left({0}\right)"),
    "cos": (np.cos, "cos", r"\cos\left({0}\right)"),
    "tan": (np.tan, "tan", r"\tan\left({0}\right)"),
    "arcsin": (np.arcsin, "arcsin", r"\arcsin\left({0}\right)"),
    "arccos": (np.arccos, "arccos", r"\arccos\left({0}\right)"),
    "arctan": (np.arctan, "arctan", r"\arctan\left({0}\right)"),
    "asin": (np.arcsin, "arcsin", r"\arcsin\left({0}\right)"),
    "acos": (np.arccos, "arccos", r"\arccos\left({0}\right)"),
    "atan": (np.arctan, "arctan", r"\arctan\left({0}\right)"),
    "sinh": (np.sinh, "sinh", r"\sinh\left({0}\right)"),
    "cosh": (np.cosh, "cosh", r"\cosh\left({0}\right)"),
    "tanh": (np.tanh, "tanh", r"\tanh\left({0}\right)"),
    "abs": (np.abs, "", r"\left|{0}\right|"),
}
CONSTANTS: dict[str, float] = {"pi": math.pi, "π": math.pi}

_BINARY: dict[type[ast.operator], tuple[Callable[[Value, Value], Value], str]] = {
    ast.Add: (lambda a, b: a + b, "+"),
    ast.Sub: (lambda a, b: a - b, "-"),
    ast.Mult: (lambda a, b: a * b, "*"),
    ast.Div: (lambda a, b: a / b, "/"),
    ast.Pow: (lambda a, b: a**b, "**"),
}
_UNARY: dict[type[ast.unaryop], Callable[[Value], Value]] = {
    ast.USub: lambda a: -a,
    ast.UAdd: lambda a: +a,
}
# Written the way lab sheets write them: "U·I", "2π", "ln R", "x²".
_FUNCTION_SPACE = re.compile(r"\b(ln|log|lg|log10|exp|sqrt|sin|cos|tan)\s+([^\W\d]\w*)")
_SUPERSCRIPT = {"²": "**2", "³": "**3", "⁻¹": "**(-1)", "⁻²": "**(-2)"}
_BACKTICK = re.compile(r"`([^`]+)`")


@dataclass(frozen=True)
class Expression:
    """A parsed formula: its text, the names it uses (first use first) and how to evaluate it."""

    text: str
    names: tuple[str, ...]
    _tree: ast.expr = field(repr=False, compare=False)
    _run: _Node = field(repr=False, compare=False)
    quoted: Mapping[str, str] = field(default_factory=dict, repr=False, compare=False)

    def __call__(self, env: Env) -> Value:
        missing = [n for n in self.names if n not in env]
        if missing:
            raise ExpressionError(f"{self.text!r} needs a value for {', '.join(missing)}")
        # numpy's floats, not Python's: 9**9**9 and exp(1000) are inf, not an error or an
        # hour spent on an integer power
        values = {
            k: np.float64(v) if isinstance(v, (int, float)) and not isinstance(v, bool) else v
            for k, v in env.items()
        }
        with np.errstate(all="ignore"):
            return self._run(values)

    def evaluate(self, **values: Value) -> Value:
        return self({self.quoted.get(k, k): v for k, v in values.items()})

    def tex(self, symbols: Mapping[str, str] | None = None) -> str:
        """The formula in LaTeX math (no $), names shown through `symbols` when given."""
        shown = {self.quoted.get(k, k): v for k, v in (symbols or {}).items()}
        return _tex(self._tree, shown, 0)

    def original(self, name: str) -> str:
        """A name as written (a `backticked column (V)` comes back with its spaces)."""
        back = {v: k for k, v in self.quoted.items()}
        return back.get(name, name)


def _normalise(text: str) -> tuple[str, dict[str, str]]:
    """Lab-sheet spellings to Python's: `quoted names`, U·I, x², ln R, ^ for powers."""
    quoted: dict[str, str] = {}

    def quote(m: re.Match[str]) -> str:
        name = m.group(1)
        key = quoted.setdefault(name, f"_q{len(quoted)}")
        return key

    out = _BACKTICK.sub(quote, text)
    for sup, py in _SUPERSCRIPT.items():
        out = out.replace(sup, py)
    out = out.replace("·", "*").replace("×", "*").replace("−", "-").replace("^", "**")
    out = _FUNCTION_SPACE.sub(r"\1(\2)", out)
    return out, quoted


def parse(text: str) -> Expression:
    """The formula `text`, or ExpressionError saying what is not allowed in it."""
    if not isinstance(text, str) or not text.strip():
        raise ExpressionError("the formula is empty")
    if len(text) > MAX_CHARS:
        raise ExpressionError(f"the formula is longer than {MAX_CHARS} characters")
    source, quoted = _normalise(text.strip())
    try:
        tree = ast.parse(source, mode="eval").body
    except SyntaxError as e:
        raise ExpressionError(f"{text!r} is not a formula: {e.msg}") from None
    nodes = sum(1 for _ in ast.walk(tree))
    if nodes > MAX_NODES:
        raise ExpressionError(f"the formula has more than {MAX_NODES} parts")
    names: list[str] = []
    run = _build(tree, names, text)
    return Expression(text.strip(), tuple(names), tree, run, quoted)


def _build(node: ast.expr, names: list[str], text: str) -> _Node:
    if isinstance(node, ast.Constant):
        value = node.value
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise ExpressionError(f"{text!r}: only numbers may stand in a formula, not {value!r}")
        number = np.float64(value)
        return lambda env: number
    if isinstance(node, ast.Name):
        name = node.id
        if name in CONSTANTS:
            constant = np.float64(CONSTANTS[name])
            return lambda env: constant
        if name in FUNCTIONS:
            raise ExpressionError(f"{text!r}: {name} is a function; write {name}(...)")
        if name.startswith("__"):
            raise ExpressionError(f"{text!r}: the name {name} is not allowed")
        if name not in names:
            names.append(name)
        return lambda env: env[name]
    if isinstance(node, ast.BinOp) and type(node.op) in _BINARY:
        op = _BINARY[type(node.op)][0]
        left, right = _build(node.left, names, text), _build(node.right, names, text)
        return lambda env: op(left(env), right(env))
    if isinstance(node, ast.UnaryOp) and type(node.op) in _UNARY:
        uop = _UNARY[type(node.op)]
        operand = _build(node.operand, names, text)
        return lambda env: uop(operand(env))
    if isinstance(node, ast.Call):
        return _call(node, names, text)
    raise ExpressionError(f"{text!r}: {_what(node)} is not allowed in a formula")


def _call(node: ast.Call, names: list[str], text: str) -> _Node:
    if not isinstance(node.func, ast.Name) or node.func.id not in FUNCTIONS:
        shown = node.func.id if isinstance(node.func, ast.Name) else _what(node.func)
        allowed = ", ".join(sorted(FUNCTIONS))
        raise ExpressionError(f"{text!r}: {shown} is not an allowed function ({allowed})")
    if node.keywords or len(node.args) != 1 or isinstance(node.args[0], ast.Starred):
        raise ExpressionError(f"{text!r}: {node.func.id}() takes one argument")
    numeric, uname, _ = FUNCTIONS[node.func.id]
    arg = _build(node.args[0], names, text)

    def call(env: Env) -> Value:
        value = arg(env)
        if _has_uncertainty(value):
            return _uncertain_function(uname, numeric)(value)
        return numeric(value)

    return call


def _has_uncertainty(value: Value) -> bool:
    from uncertainties import UFloat  # type: ignore[import-untyped]

    if isinstance(value, UFloat):
        return True
    return isinstance(value, np.ndarray) and value.dtype == object


def _uncertain_function(name: str, numeric: Callable[..., Any]) -> Callable[[Value], Value]:
    from uncertainties import unumpy

    if not name:
        return magnitude
    return getattr(unumpy, name)


def magnitude(value: Value) -> Value:
    """|value| for numbers, ufloats and arrays of them (uncertainties deprecates abs())."""
    nominal = getattr(value, "nominal_value", None)
    if nominal is not None:
        return value if nominal >= 0 else -value
    if isinstance(value, np.ndarray) and value.dtype == object:
        from uncertainties import unumpy

        signs = np.where(unumpy.nominal_values(value) < 0, -1.0, 1.0)
        return value * signs
    return np.abs(value)


def _what(node: ast.AST) -> str:
    kinds = {
        ast.Attribute: "an attribute (a.b)",
        ast.Subscript: "indexing (a[b])",
        ast.Lambda: "a lambda",
        ast.Compare: "a comparison",
        ast.BoolOp: "and/or",
        ast.IfExp: "if/else",
        ast.JoinedStr: "a string",
        ast.List: "a list",
        ast.Tuple: "a tuple",
        ast.Dict: "a dict",
        ast.Set: "a set",
        ast.ListComp: "a comprehension",
        ast.GeneratorExp: "a comprehension",
        ast.NamedExpr: "an assignment (:=)",
        ast.Starred: "unpacking (*a)",
    }
    for kind, said in kinds.items():
        if isinstance(node, kind):
            return said
    if isinstance(node, ast.BinOp):
        return f"the operator {type(node.op).__name__}"
    return type(node).__name__


# -- LaTeX -------------------------------------------------------------------------------

_GREEK = {
    "alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta", "iota", "kappa",
    "lambda", "lam", "mu", "nu", "xi", "pi", "rho", "sigma", "tau", "phi", "chi", "psi",
    "omega", "Gamma", "Delta", "Theta", "Lambda", "Sigma", "Phi", "Psi", "Omega",
}  # fmt: skip
_PRECEDENCE = {ast.Add: 1, ast.Sub: 1, ast.Mult: 2, ast.Div: 2, ast.Pow: 4}


def symbol_tex(name: str) -> str:
    """A name as a math symbol: 'f0' → f_{0}, 'theta' → \\theta, 'x_max' → x_{max}."""
    base, _, sub = name.partition("_")
    if not sub and (m := re.fullmatch(r"([A-Za-z]+?)(\d+)", name)):
        base, sub = m.group(1), m.group(2)
    if base == "lam":
        base = "lambda"
    if base in _GREEK:
        head = "\\" + base
    elif re.fullmatch(r"[A-Za-z]", base):
        head = base
    else:
        head = rf"\mathrm{{{_escape(base)}}}"
    return f"{head}_{{{_escape(sub)}}}" if sub else head


def _escape(text: str) -> str:
    return re.sub(r"([_#%&$])", r"\\\1", text)


def _number_tex(value: float) -> str:
    if value == int(value) and abs(value) < 1e6:
        return str(int(value))
    mant, _, exp = f"{value:.6g}".partition("e")
    return rf"{mant}\times10^{{{int(exp)}}}" if exp else mant


def _tex(node: ast.expr, symbols: Mapping[str, str], outer: int) -> str:
    if isinstance(node, ast.Constant):
        assert isinstance(node.value, (int, float))  # parse() let nothing else through
        return _number_tex(float(node.value))
    if isinstance(node, ast.Name):
        if node.id in CONSTANTS:
            return r"\pi"
        return symbols.get(node.id) or symbol_tex(node.id)
    if isinstance(node, ast.UnaryOp):
        inner = _tex(node.operand, symbols, 3)
        text = ("-" if isinstance(node.op, ast.USub) else "+") + inner
        return rf"\left({text}\right)" if outer >= 3 else text
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
        form = FUNCTIONS[node.func.id][2]
        return form.format(_tex(node.args[0], symbols, 0))
    assert isinstance(node, ast.BinOp)
    prec = _PRECEDENCE[type(node.op)]
    if isinstance(node.op, ast.Div):
        return rf"\frac{{{_tex(node.left, symbols, 0)}}}{{{_tex(node.right, symbols, 0)}}}"
    if isinstance(node.op, ast.Pow):
        base = _wrapped_negative(_tex(node.left, symbols, 5))
        return f"{base}^{{{_tex(node.right, symbols, 0)}}}"
    left = _tex(node.left, symbols, prec)
    right = _tex(node.right, symbols, prec + (1 if isinstance(node.op, ast.Sub) else 0))
    if isinstance(node.op, ast.Mult):
        joint = r" \cdot " if isinstance(node.right, ast.Constant) else r"\,"
        text = left + joint + _wrapped_negative(right)
    else:
        sign = "+" if isinstance(node.op, ast.Add) else "-"
        if right.startswith("-"):  # a negative value put in: "+ -1.73" is "- 1.73"
            sign, right = ("-" if sign == "+" else "+"), right[1:]
        text = f"{left} {sign} {right}"
    return rf"\left({text}\right)" if prec < outer else text


def _wrapped_negative(text: str) -> str:
    return rf"\left({text}\right)" if text.startswith("-") else text
