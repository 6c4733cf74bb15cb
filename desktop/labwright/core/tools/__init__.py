"""The five tools the exploration model sees.

Names and argument names are a stable interface (DESIGN.md): recorded
transcripts and replays depend on them.
"""

from __future__ import annotations

from .base import Tool, ToolContext, ToolOutcome
from .finish import FINISH, FinishExploration
from .list_dir import ListDir
from .make_figure import MakeFigure
from .read_file import ReadFile
from .read_image import ReadImage


def build_tools(ctx: ToolContext) -> dict[str, Tool]:
    """The tools offered for this run; read_image only with a vision model."""
    tools: list[Tool] = [ListDir(), ReadFile()]
    if ctx.vision_model:
        tools.append(ReadImage())
    tools += [MakeFigure(), FinishExploration()]
    return {t.name: t for t in tools}


__all__ = ["FINISH", "Tool", "ToolContext", "ToolOutcome", "build_tools"]
