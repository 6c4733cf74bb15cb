"""finish_exploration: the model says what the experiment is and what it found."""

from __future__ import annotations

from typing import Any

from labwright.core.agent.tools.base import Tool, ToolContext, ToolOutcome, ToolTraits, error
from labwright.core.step_words import Words

FINISH = "finish_exploration"
REQUIRED = ("experiment", "goal", "key_findings")
OPTIONAL = ("assignment_requirements", "method_approach", "sample_report")


def _as_list(value: Any) -> list[str]:
    if value is None:
        return []
    if isinstance(value, str):
        return [line.strip("-• \t") for line in value.splitlines() if line.strip("-• \t")]
    if isinstance(value, list):
        return [str(v).strip() for v in value if str(v).strip()]
    return [str(value)]


class FinishExploration(Tool):
    name = FINISH
    traits = ToolTraits(finishing=True)
    description = (
        "End the exploration with what you learned. Only call it after reading the "
        "material: findings must come from files you read, never from guesses."
    )
    parameters = {
        "type": "object",
        "properties": {
            "experiment": {"type": "string", "description": "What the experiment is."},
            "goal": {"type": "string", "description": "What it sets out to measure or show."},
            "key_findings": {
                "type": "array",
                "items": {"type": "string"},
                "description": "Findings, each citing the file it comes from.",
            },
            "assignment_requirements": {
                "type": "array",
                "items": {"type": "string"},
                "description": "What the manual or guidelines ask the report to contain.",
            },
            "method_approach": {
                "type": "string",
                "description": "How the data was taken and analysed.",
            },
            "sample_report": {
                "type": "string",
                "description": "Path of an example report, if any.",
            },
        },
        "required": list(REQUIRED),
    }

    def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolOutcome:
        missing = [k for k in REQUIRED if not args.get(k)]
        if missing:
            return error(
                Words("finish_missing", fields=", ".join(missing)),
                f"finish_exploration needs {', '.join(REQUIRED)}; missing: {', '.join(missing)}. "
                "Call it again with every required field filled from what you read.",
            )
        findings: dict[str, Any] = {
            "experiment": str(args["experiment"]).strip(),
            "goal": str(args["goal"]).strip(),
            "key_findings": _as_list(args["key_findings"]),
            "assignment_requirements": _as_list(args.get("assignment_requirements")),
            "method_approach": str(args.get("method_approach") or "").strip(),
            "sample_report": str(args.get("sample_report") or "").strip(),
        }
        return ToolOutcome(
            ok=True,
            content="Exploration finished. Thank you.",
            summary=Words("finished", experiment=findings["experiment"][:80]),
            data=findings,
        )
