"""Quantities computed from measured ones: derived columns (1/P, U·I, ln R) with their
units, and the percent difference from a reference value.

A derived column is a formula over the table's columns (expr.py: arithmetic and the
allowed functions only). Its unit follows from the columns' units where that is plain
algebra (U·I of V and A is "V A", 1/P of W is "W^-1", T² of s is "s^2"); a logarithm or an
exponential is dimensionless ("ln R": R is taken in its unit), and a sum of different
units has none.
"""

from __future__ import annotations

import ast
from collections.abc import Mapping
from fractions import Fraction
from typing import Any

from .expr import CONSTANTS, Expression, magnitude, parse
from .fmt import unit_powers

Powers = dict[str, Fraction]


def percent_difference(value: Any, reference: Any) -> Any:
    """|value − reference| / |reference| × 100: how far a result is from the accepted value.

    A ufloat value gives a ufloat (its uncertainty propagated)."""
    if float(getattr(reference, "nominal_value", reference)) == 0:
        raise ValueError("the reference value is zero: a percent difference from it is undefined")
    return magnitude(value - reference) / magnitude(reference) * 100


def derive(df: Any, formula: str, unit: str | None = None, name: str | None = None) -> Any:
    """A copy of the DataFrame with one more column computed by `formula`.

    "P_inv = 1/P" names the new column P_inv (or pass `name`); columns whose names are not
    Python names are written in backticks: "`U_0 (V)` * 2". The unit comes from the
    columns' units (df.attrs["units"]) unless `unit` is given; it is kept in
    df.attrs["units"] like the others."""
    target, _, body = (
        formula.partition("=") if "=" in formula and "==" not in formula else ("", "", formula)
    )
    new = (name or target.strip() or body.strip()).strip("`")
    expr = parse(body)
    env = {}
    for used in expr.names:
        column = expr.original(used)
        if column not in df.columns:
            raise KeyError(
                f"{formula!r}: no column {column!r} (columns: {', '.join(map(str, df.columns))})"
            )
        env[used] = df[column].to_numpy()
    out = df.copy()
    out[new] = expr(env)
    units = dict(df.attrs.get("units", {}))
    units[new] = unit if unit is not None else (derived_unit(expr, units) or "")
    out.attrs = {**df.attrs, "units": units}
    return out


def derived_unit(expr: Expression, units: Mapping[str, str]) -> str | None:
    """The unit of `expr` from the units of the names it uses; None when it has none."""
    powers = _unit_of(expr._tree, expr, units)
    return None if powers is None else _unit_text(powers)


def _parse_unit(text: str | None) -> Powers | None:
    if text is None:
        return None
    if not text.strip():
        return {}
    pieces = unit_powers(text)
    if pieces is None:
        return None
    out: Powers = {}
    for atom, power in pieces:
        out[atom] = out.get(atom, Fraction(0)) + power
    return {k: v for k, v in out.items() if v}


def _unit_of(node: ast.expr, expr: Expression, units: Mapping[str, str]) -> Powers | None:
    if isinstance(node, ast.Constant):
        return {}
    if isinstance(node, ast.Name):
        if node.id in CONSTANTS:
            return {}
        return _parse_unit(units.get(expr.original(node.id)))
    if isinstance(node, ast.UnaryOp):
        return _unit_of(node.operand, expr, units)
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
        inner = _unit_of(node.args[0], expr, units)
        if node.func.id == "sqrt":
            return None if inner is None else {k: v / 2 for k, v in inner.items()}
        if node.func.id == "abs":
            return inner
        return {}  # ln, exp, sin...: a number (the argument in its unit)
    if isinstance(node, ast.BinOp):
        left = _unit_of(node.left, expr, units)
        if isinstance(node.op, ast.Pow):
            if left is None:
                return None
            if not isinstance(node.right, ast.Constant):
                return {} if not left else None  # 2**x is a number; m**x has no unit
            k = Fraction(str(node.right.value))
            return {a: p * k for a, p in left.items() if p * k}
        right = _unit_of(node.right, expr, units)
        if left is None or right is None:
            return None
        if isinstance(node.op, (ast.Add, ast.Sub)):
            if not left or not right:  # a number added: the other's unit (1 + x/x0)
                return left or right
            return left if left == right else None
        sign = 1 if isinstance(node.op, ast.Mult) else -1
        out = dict(left)
        for a, p in right.items():
            out[a] = out.get(a, Fraction(0)) + sign * p
        return {a: p for a, p in out.items() if p}
    return None


def _unit_text(powers: Powers) -> str:
    parts = []
    for atom, p in powers.items():
        if p == 1:
            parts.append(atom)
        elif p.denominator == 1:
            parts.append(f"{atom}^{p.numerator}")
        else:
            parts.append(f"{atom}^({p.numerator}/{p.denominator})")
    return " ".join(parts)
