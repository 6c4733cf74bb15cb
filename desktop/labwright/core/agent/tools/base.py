"""What every tool shares: its schema, its context and the shape of its outcome."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from labwright.core.agent.tools.nearby import correction
from labwright.core.events import Event, GuardKind
from labwright.core.material.fence import NotRegularFile, PathChanged
from labwright.core.material.workspace import PathDenied, open_in_folder, safe_name
from labwright.core.step_words import CallMistake, Words

if TYPE_CHECKING:
    from labwright.core.llm.client import LLM
    from labwright.core.material.fence import Opened


# Whose fault a failed call was. Only "tool" (a reader crash, a sandbox crash or
# timeout) counts towards withdrawing the tool; "call" (a path that is not there or not
# allowed, bad arguments) is the model's mistake and is answered with a correction;
# "file" (damaged, encrypted, unsupported) is about that one file.
Fault = Literal["tool", "call", "file"]


def never() -> bool:
    return False


@dataclass(frozen=True)
class ToolContext:
    root: Path  # the picked folder: read-only
    run_dir: Path  # where figures and evidence go
    llm: LLM | None = None
    vision_model: str | None = None
    vision_max_tokens: int | None = None  # sent with every vision call
    # The run's cancel flag (e.g. threading.Event().is_set), polled inside the
    # readers' loops so that Cancel reaches a read stuck on a huge file.
    cancelled: Callable[[], bool] = never
    allow_unconfined: bool = False  # make_figure may run without an OS sandbox


@dataclass
class ToolOutcome:
    ok: bool
    content: str  # what the model reads
    summary: str  # one line for the timeline
    productive: bool = True  # False: it ran but brought nothing new
    denied: GuardKind | None = None  # guard kind when a fence refused the call
    fault: Fault = "tool"  # when not ok: whose fault (see Fault)
    coverage: tuple[str, int, int] | None = None  # (path, first line, end) actually read
    evidence: dict[str, Any] | None = None  # kept for drafting and verification
    events: list[Event] = field(default_factory=list)  # e.g. the vision model's llm event
    data: dict[str, Any] | None = None  # structured result (finish_exploration's findings)


@dataclass(frozen=True)
class ToolTraits:
    """What the loop and its guards need to know of a tool, besides its schema."""

    concurrency_safe: bool = False  # may run in parallel with other such calls
    reads: bool = False  # a productive result is evidence: it opens the evidence gate
    finishing: bool = False  # the way out: forced in the final window, never counted
    lists: bool = False  # a listing: the same listing under another spelling is nothing new
    figure: bool = False  # makes a figure: counted against max_figures
    analysis: bool = False  # computes the analysis in the sandbox: the prompt asks for one


class Tool:
    name: str = ""
    description: str = ""
    parameters: dict[str, Any] = {}
    traits: ToolTraits = ToolTraits()

    @property
    def concurrency_safe(self) -> bool:
        return self.traits.concurrency_safe

    def schema(self) -> dict[str, Any]:
        return {
            "type": "function",
            "function": {
                "name": self.name,
                "description": self.description,
                "parameters": self.parameters,
            },
        }

    def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolOutcome:
        raise NotImplementedError


class Refused(Exception):
    """A call a fence refused; `outcome` is what the model reads (the loop returns it)."""

    def __init__(self, outcome: ToolOutcome) -> None:
        super().__init__(outcome.summary)
        self.outcome = outcome


def open_target(
    ctx: ToolContext, rel: str, shown: str, what: Literal["file", "folder"]
) -> Opened | ToolOutcome:
    """The tool path opened beneath the picked folder, or the outcome the model reads instead.

    Opened in one step (``open_in_folder``): what the tool then reads is the
    file or folder inside, even if the folder changes meanwhile. A path the
    fence refuses raises Refused (as ``resolve``); one that is missing, a
    FIFO or device, or unreadable is answered with a failed outcome. `shown`
    is `rel` as messages show it (``safe_name``). The caller closes the result.
    """
    try:
        return open_in_folder(ctx.root, rel)
    except PathDenied as e:
        content = f"{e} {correction(ctx.root, rel)}"
        summary = Words("refused_path", quoted=repr(rel))
        raise Refused(error(summary, content, denied="path_denied")) from None
    except (FileNotFoundError, NotADirectoryError):
        return missing(ctx, shown, what, folders=what == "folder")
    except NotRegularFile:
        why = "it is not a regular file (a device, pipe or socket) and is not read"
    except PathChanged:
        why = "it changed while it was being opened (a link appeared in its path); try again"
    except OSError as e:  # permission denied, a name too long for this file system...
        why = (e.strerror or type(e).__name__).lower()
    words = Words("cannot_read", path=shown, why=why)
    return error(words, f"Cannot read '{shown}': {why}.", fault="file")


def rel_key(root: Path, target: Path) -> str:
    """One spelling per file ('./a.csv' and 'a.csv' are the same file).

    Names are in their shown form (``safe_name``), as the scan lists them: a
    raw undecodable byte would break every JSON file and request it reaches.
    """
    try:
        rel = target.relative_to(root.resolve()).as_posix()
    except ValueError:
        rel = target.as_posix()
    return "/".join(safe_name(part) for part in rel.split("/"))


def error(
    summary: str,
    content: str | None = None,
    *,
    denied: GuardKind | None = None,
    fault: Fault | None = None,
) -> ToolOutcome:
    """A failed call; a refused one (`denied`) is the call's fault unless said otherwise."""
    return ToolOutcome(
        ok=False,
        content=content or summary,
        summary=summary,
        productive=False,
        denied=denied,
        fault=fault or ("call" if denied else "tool"),
    )


def missing(ctx: ToolContext, shown: str, what: str, *, folders: bool = False) -> ToolOutcome:
    """A path that is not there: the model's mistake, answered with what is there."""
    return error(
        Words(f"no_such_{what}", path=shown),
        f"There is no {what} '{shown}'. {correction(ctx.root, shown, folders=folders)}",
        fault="call",
    )


def str_arg(args: dict[str, Any], name: str, default: str | None = None) -> str:
    """A string argument, or CallMistake naming it (caught by the loop as the call's error)."""
    value = args.get(name, default)
    if value is None:
        raise CallMistake("arg_missing", name=name)
    if not isinstance(value, str):
        raise CallMistake("arg_not_string", name=name)
    return value


def int_arg(args: dict[str, Any], name: str, default: int | None) -> int | None:
    value = args.get(name, default)
    if value is None:
        return None
    if isinstance(value, bool):
        raise CallMistake("arg_not_integer", name=name)
    if isinstance(value, str) and value.strip().lstrip("-").isdigit():
        value = int(value)  # models often quote numbers; accept what is unambiguous
    if not isinstance(value, int):
        raise CallMistake("arg_not_integer", name=name)
    if value < 0:
        raise CallMistake("arg_negative", name=name)
    return value
