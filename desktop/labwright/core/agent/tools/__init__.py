"""The tools the exploration model sees, and their registry.

Names and argument names are a stable interface (DESIGN.md): recorded
transcripts and replays depend on them. A tool is one class here: its name,
its schema and its traits (`ToolTraits`: runs in parallel, counts as reading,
is the way out, lists a folder, makes a figure, computes the analysis). The loop and the guards ask
the traits, never a tool's name, so a new tool is added by writing its class
and listing it in `TOOL_TYPES`.
"""

from __future__ import annotations

from typing import Any

from labwright.core.agent.tools.analyze import Analyze
from labwright.core.agent.tools.base import Tool, ToolContext, ToolOutcome, ToolTraits
from labwright.core.agent.tools.finish import FINISH, FinishExploration
from labwright.core.agent.tools.list_dir import ListDir
from labwright.core.agent.tools.make_figure import MakeFigure
from labwright.core.agent.tools.read_file import ReadFile
from labwright.core.agent.tools.read_image import ReadImage

# Every tool, in the order they are offered.
TOOL_TYPES: tuple[type[Tool], ...] = (
    ListDir,
    ReadFile,
    ReadImage,
    MakeFigure,
    Analyze,
    FinishExploration,
)
_TRAITS = {t.name: t.traits for t in TOOL_TYPES}
UNKNOWN = ToolTraits()  # a name no tool has: nothing counts for it


def traits_of(name: str) -> ToolTraits:
    """The traits of any tool by name, offered in this run or not."""
    return _TRAITS.get(name, UNKNOWN)


class Toolbox(dict[str, Tool]):
    """The tools offered in one run, by name."""

    def traits(self, name: str) -> ToolTraits:
        tool = self.get(name)
        return tool.traits if tool is not None else traits_of(name)

    @property
    def finishing(self) -> str:
        """The name of the way out (what the final window forces)."""
        return next(name for name, tool in self.items() if tool.traits.finishing)

    def schemas(self, withheld: set[str] | frozenset[str] = frozenset()) -> list[dict[str, Any]]:
        return [tool.schema() for name, tool in self.items() if name not in withheld]


def build_tools(ctx: ToolContext) -> Toolbox:
    """The tools offered for this run; read_image only with a vision model."""
    return Toolbox(
        (t.name, t())
        for t in TOOL_TYPES
        if t is not ReadImage or ctx.vision_model  # it needs a vision model
    )


__all__ = [
    "FINISH",
    "TOOL_TYPES",
    "Tool",
    "ToolContext",
    "ToolOutcome",
    "ToolTraits",
    "Toolbox",
    "build_tools",
    "traits_of",
]
