"""The names analysis code finds predefined (DESIGN.md, `analyze`): load, fit, show, ufloat...

`predefined(payload, data_dir, results)` builds them for one run of model-written code:
`load` over the tables the parent prepared, `show` printing `name = value ± u unit` and
appending what it showed to `results` (the sandbox hands that list back to the parent,
which trusts none of it beyond plain values). Imports nothing of labwright.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from pathlib import PurePath
from typing import Any

from .derived import derive, percent_difference
from .fits import Fit, fit
from .fmt import format_value, siunitx
from .frames import Loader, Payload
from .uncertainty import combined, measure, successive_differences, t_factor, type_a, type_b

MAX_RESULTS = 200
MAX_TEXT = 300

# What the tool's description and the prompts promise, beyond DESIGN.md's four names.
EXTRA_NAMES = (
    "tables",
    "measure",
    "type_a",
    "type_b",
    "combined",
    "t_factor",
    "successive_differences",
    "derive",
    "percent_difference",
    "format_value",
    "siunitx",
)


def _nominal_std(value: Any, u: float | None) -> tuple[float, float | None]:
    nominal = getattr(value, "nominal_value", None)
    if nominal is not None:
        std = float(value.std_dev) if u is None else float(u)
        return float(nominal), std if math.isfinite(std) and std > 0 else None
    if isinstance(value, tuple) and len(value) == 2:
        return float(value[0]), float(value[1])
    try:
        return float(value), None if u is None else float(u)
    except (TypeError, ValueError):
        raise TypeError(
            f"show() takes one number, a ufloat or a fit, not {type(value).__name__}; "
            "for an array, show each value or its mean"
        ) from None


def make_show(
    results: list[dict[str, Any]], out: Callable[[str], None] = print
) -> Callable[..., None]:
    def show(
        name: str, value: Any, unit: str = "", *, u: float | None = None, rule: str = "2"
    ) -> None:
        """Print `name = value ± u unit` (u to two significant digits, the value to match)
        and keep it as a result of this analysis; a fit shows each parameter."""
        if isinstance(value, Fit):
            out(f"{name}: {value.summary(rule).splitlines()[0]}")
            for pname, p in value.params.items():
                show(f"{name}.{pname}", p, "", rule=rule)
            return
        nominal, std = _nominal_std(value, u)
        text = format_value(nominal, std, unit, rule=rule)
        line = f"{name} = {text}"[:MAX_TEXT]
        out(line)
        if len(results) < MAX_RESULTS:
            results.append(
                {
                    "name": str(name)[:80],
                    "value": nominal,
                    "u": std,
                    "unit": str(unit)[:40],
                    "text": line,
                }
            )

    return show


def predefined(
    payload: Payload, data_dir: PurePath | None, results: list[dict[str, Any]]
) -> dict[str, Any]:
    """load, fit, show, ufloat, unumpy, umath, and the library's helpers (EXTRA_NAMES)."""
    from uncertainties import ufloat, umath, unumpy  # type: ignore[import-untyped]

    loader = Loader(payload, data_dir)
    return {
        "load": loader,
        "tables": loader.tables,
        "fit": fit,
        "show": make_show(results),
        "ufloat": ufloat,
        "unumpy": unumpy,
        "umath": umath,
        "measure": measure,
        "type_a": type_a,
        "type_b": type_b,
        "combined": combined,
        "t_factor": t_factor,
        "successive_differences": successive_differences,
        "derive": derive,
        "percent_difference": percent_difference,
        "format_value": format_value,
        "siunitx": siunitx,
    }
