"""make_figure: model-written matplotlib, run in the sandbox, saved with provenance."""

from __future__ import annotations

from typing import Any

from labwright.core.agent.sandbox import run_figure
from labwright.core.agent.sandbox.runner import UNCONFINED_MESSAGE, figures_allowed
from labwright.core.agent.tools.base import (
    Tool,
    ToolContext,
    ToolOutcome,
    ToolTraits,
    error,
    str_arg,
)
from labwright.core.rundir.names import FIGURES, in_figures
from labwright.core.step_words import CallMistake, Words


class MakeFigure(Tool):
    name = "make_figure"
    description = (
        "Make a figure for the report with matplotlib. The code sees DATA_DIR (a "
        "pathlib.Path of the material's root, read-only), may import numpy, pandas, "
        "scipy, matplotlib, math and statistics, and must leave its figure open: it is "
        "saved for you (no savefig, no open()). print() values you compute (fit "
        "parameters...) and they come back to you."
    )
    parameters = {
        "type": "object",
        "properties": {
            "code": {"type": "string", "description": "Python code that builds the figure."},
            "filename": {
                "type": "string",
                "description": "Short file stem, e.g. 'range_vs_angle'.",
            },
            "caption": {"type": "string", "description": "The figure's caption in the report."},
            "inputs": {
                "type": "array",
                "items": {"type": "string"},
                "description": "Data files the code reads, relative to the root.",
            },
        },
        "required": ["code", "filename", "caption"],
    }
    traits = ToolTraits(figure=True)  # CPU- and memory-heavy: it always runs alone

    def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolOutcome:

        if not figures_allowed(ctx.allow_unconfined):
            # No OS layer and the user did not allow running model code without one:
            # the figures stage falls back to Labwright's own plots of the tables.
            return error(Words("figures_disabled"), UNCONFINED_MESSAGE)
        code = str_arg(args, "code")
        filename = str_arg(args, "filename")
        caption = str_arg(args, "caption", "")
        inputs = args.get("inputs") or []
        if not isinstance(inputs, list) or not all(isinstance(p, str) for p in inputs):
            raise CallMistake("arg_not_paths", name="inputs")
        result = run_figure(
            code,
            data_dir=ctx.root,
            figures_dir=ctx.run_dir / FIGURES,
            filename=filename,
            caption=caption,
            inputs=inputs,
            allow_unconfined=ctx.allow_unconfined,
        )
        if not result.ok:
            return error(
                Words("figure_refused" if result.denied else "figure_failed", name=filename),
                result.message,
                denied="sandbox_denied" if result.denied else None,
            )
        evidence = None
        if result.stdout.strip():
            evidence = {
                "path": in_figures(result.pdf.name if result.pdf else f"{filename}"),
                "kind": "figure_output",
                "text": result.stdout,
                "inputs": inputs,
            }
        return ToolOutcome(
            ok=True,
            content=result.message,
            summary=Words("figure", name=result.pdf.name if result.pdf else filename),
            evidence=evidence,
            data={
                "filename": filename,
                "caption": caption,
                "pdf": str(result.pdf) if result.pdf else None,
                "png": str(result.png) if result.png else None,
            },
        )
