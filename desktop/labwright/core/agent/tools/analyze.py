"""analyze: model-written analysis code (fits, uncertainties, derived quantities) in the
figure sandbox; what it prints is the tool result and evidence a report's numbers trace to."""

from __future__ import annotations

import hashlib
import re
from typing import Any

from labwright.core.agent.sandbox.runner import (
    UNCONFINED_ANALYSIS_MESSAGE,
    figures_allowed,
    run_analysis,
)
from labwright.core.agent.tools.base import (
    Tool,
    ToolContext,
    ToolOutcome,
    ToolTraits,
    error,
    str_arg,
)
from labwright.core.step_words import CallMistake, Words

EVIDENCE_KIND = "analysis_output"  # material/evidence.py reads these records' lines
MAX_PURPOSE = 200


def analysis_path(purpose: str, code: str) -> str:
    """The evidence record's name: 'analysis/planck-constant-3fa2c1' (purpose and code)."""
    slug = re.sub(r"[^a-z0-9]+", "-", purpose.lower()).strip("-")[:40].strip("-") or "analysis"
    digest = hashlib.sha256(code.encode("utf-8", "replace")).hexdigest()[:6]
    return f"analysis/{slug}-{digest}"


class Analyze(Tool):
    name = "analyze"
    description = (
        "Compute the analysis the manual asks for — fits with parameter uncertainties, "
        "value ± uncertainty, derived quantities, percent difference from an accepted value — "
        "with Python run in the figure sandbox. What the code prints comes back to you and "
        "is kept as evidence: quote results as printed. Predefined: DATA_DIR (read-only "
        "pathlib.Path of the material); load(path, sheet=None, table=None) -> the detected "
        "measurement table as a pandas DataFrame (data rows only, physicist column names, "
        "units in df.attrs['units']; tables(path) lists a file's tables); fit(x, y, "
        "model='linear'|'proportional'|'quadratic'|'exponential'|'power'|'polyN' or a formula "
        "in x like 'a*exp(-b*x)+c', sigma=None, p0=None) -> .params (name -> ufloat), "
        ".slope etc., .chi2_ndf, .r2, .r, .residuals, .at(x0), .equation_tex(); show(name, "
        "value, unit='') prints 'name = value ± u unit' (u to 2 significant digits, rule='pdg' "
        "or '1' on request) and records it; ufloat, umath, unumpy (uncertainties); "
        "measure(values, limit=None, confidence=None) -> mean ± √(uA²+uB²) with uA = s/√n "
        "(× Student's t at confidence P) and uB = limit/√3 (distribution='normal' for /3); "
        "type_a, type_b, combined, t_factor; successive_differences(values, limit=None) "
        "(逐差法); derive(df, 'Pinv = 1/P') adds a column with its unit; percent_difference("
        "value, reference); format_value, siunitx(value, u, unit) -> \\SI{...}. numpy, scipy, "
        "pandas, math may be imported. No files are written and nothing is kept but the "
        "printed output."
    )
    parameters = {
        "type": "object",
        "properties": {
            "code": {"type": "string", "description": "Python code that computes and prints."},
            "inputs": {
                "type": "array",
                "items": {"type": "string"},
                "description": "Data files the code reads with load(), relative to the root.",
            },
            "purpose": {
                "type": "string",
                "description": "One sentence: what this computes, e.g. 'h from the U0-nu fit'.",
            },
        },
        "required": ["code", "purpose"],
    }
    # A sandboxed process like a figure: CPU- and memory-heavy, so it runs alone. It is no
    # read (its numbers may be typed into the code, not read from the material): the
    # evidence gate opens on read_file and read_image only, as DESIGN.md says.
    traits = ToolTraits(analysis=True)

    def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolOutcome:
        if not figures_allowed(ctx.allow_unconfined):
            return error(Words("analysis_disabled"), UNCONFINED_ANALYSIS_MESSAGE)
        code = str_arg(args, "code")
        purpose = " ".join(str_arg(args, "purpose", "").split())[:MAX_PURPOSE]
        inputs = args.get("inputs") or []
        if not isinstance(inputs, list) or not all(isinstance(p, str) for p in inputs):
            raise CallMistake("arg_not_paths", name="inputs")
        path = analysis_path(purpose, code)
        name = path.removeprefix("analysis/")
        result = run_analysis(
            code, data_dir=ctx.root, inputs=inputs, allow_unconfined=ctx.allow_unconfined
        )
        if not result.ok:
            outcome = error(
                Words("analysis_refused" if result.denied else "analysis_failed", name=name),
                result.message,
                denied="sandbox_denied" if result.denied else None,
                # a traceback of the model's own code is its mistake to correct, not the
                # tool failing (which withdraws it after three in a row)
                fault="call" if result.code_error else None,
            )
            return outcome
        if not result.stdout.strip():
            return ToolOutcome(
                ok=True,
                content=result.message,
                summary=Words("analysis_empty", name=name),
                productive=False,
            )
        evidence = {
            "path": path,
            "kind": EVIDENCE_KIND,
            "text": result.stdout,
            "inputs": inputs,
            "input_files": result.inputs,  # each with its SHA-256 when the code ran
            "purpose": purpose,
            "code": code,
            "results": result.results,
        }
        return ToolOutcome(
            ok=True,
            content=result.message,
            summary=Words("analysis", name=name),
            evidence=evidence,
            data={"path": path, "purpose": purpose, "results": result.results},
        )
