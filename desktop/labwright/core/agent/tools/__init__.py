"""The five tools the exploration model sees.

Names and argument names are a stable interface (DESIGN.md): recorded
transcripts and replays depend on them.
"""

from __future__ import annotations

from labwright.core.agent.tools.base import Tool, ToolContext, ToolOutcome
from labwright.core.agent.tools.finish import FINISH, FinishExploration
from labwright.core.agent.tools.list_dir import ListDir
from labwright.core.agent.tools.make_figure import MakeFigure
from labwright.core.agent.tools.read_file import ReadFile
from labwright.core.agent.tools.read_image import ReadImage


def build_tools(ctx: ToolContext) -> dict[str, Tool]:
    """The tools offered for this run; read_image only with a vision model."""
    tools: list[Tool] = [ListDir(), ReadFile()]
    if ctx.vision_model:
        tools.append(ReadImage())
    tools += [MakeFigure(), FinishExploration()]
    return {t.name: t for t in tools}


__all__ = ["FINISH", "Tool", "ToolContext", "ToolOutcome", "build_tools"]
