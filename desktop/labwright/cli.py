"""`labwright` on the command line: run, gui, verify, export, doctor (DESIGN.md, "Command line")."""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import re
import shutil
import signal
import sys
import threading
import time
import traceback
from pathlib import Path
from types import FrameType
from typing import TYPE_CHECKING, Any, TextIO

# The event types only (a small module of dataclasses): what the printers dispatch on.
from labwright.core.events import (
    Done,
    Draft,
    Error,
    Event,
    Guard,
    LLMCall,
    Milestone,
    MilestoneDetail,
    Progress,
    ScanDetail,
    ScanPlan,
    ToolCall,
    ToolResult,
)

if TYPE_CHECKING:
    from labwright.core.report.verify import Verification
    from labwright.core.settings.config import GuardLimits, RunConfig

# The exit statuses of `labwright run`, with what each means: EXIT and `run --help` are
# both made from this one table.
EXIT_STATUSES: tuple[tuple[str, int, str], ...] = (
    ("ok", 0, "the report was written"),
    ("degraded", 10, "a report was written, but it needs review (offline, a guard stopped)"),
    ("failed", 1, "no report was written"),
    ("usage", 2, "bad input or usage (a missing folder, no API key, an unknown template)"),
    ("cancelled", 130, "the run was cancelled (Ctrl-C once); what it gathered is kept"),
)
EXIT = {status: code for status, code, _ in EXIT_STATUSES if status != "usage"}
EXIT_USAGE = 2
EXIT_FAILED = 1
EXIT_CANCELLED = 130
COMMANDS = ("gui", "run", "verify", "export", "doctor")

# What a terminal may act on: C0 and C1 controls (ESC, CSI, CR, BEL, ...), DEL, the
# line separators, bidi overrides (text shown reordered) and lone surrogates (the
# undecodable bytes of a file name, carried by surrogateescape).
_UNSAFE = re.compile(
    "[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069\ud800-\udfff]"
)


# json.dumps escapes C0 controls inside strings itself; raw ones left in its output are
# the layout (newlines, indentation), which must stay.
_JSON_UNSAFE = re.compile("[\x7f-\x9f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069\ud800-\udfff]")


def _escape_char(m: re.Match[str]) -> str:
    o = ord(m.group())
    if 0xDC80 <= o <= 0xDCFF:  # surrogateescape: the original byte
        return f"\\x{o - 0xDC00:02x}"
    return f"\\x{o:02x}" if o < 0x100 else f"\\u{o:04x}"


def terminal_safe(text: object) -> str:
    """`text` as one line a terminal shows literally: controls, bidi overrides and
    undecodable bytes become visible escapes (\\x1b, \\u202e, \\xff)."""
    return _UNSAFE.sub(_escape_char, text if isinstance(text, str) else str(text))


def _json_safe(line: str) -> str:
    """A JSON line with the characters JSON leaves raw (C1 controls, DEL, bidi, lone
    surrogates) written as \\u escapes: the same JSON, safe on a terminal, encodable."""
    return _JSON_UNSAFE.sub(lambda m: f"\\u{ord(m.group()):04x}", line)


def _say(message: object) -> None:
    """One line for the person, on stderr."""
    print(f"labwright: {terminal_safe(message)}", file=sys.stderr, flush=True)


def _version() -> str:
    from labwright.core import __version__

    return __version__


def _run_epilog() -> str:
    """Templates, providers and exit statuses for `run --help`, from the code itself."""
    from labwright.core.report.templates import TemplateError, available, load_template
    from labwright.core.settings.config import DEFAULT_PROVIDER, PROVIDERS

    lines = ["templates (--template):"]
    for name in available():
        try:
            about = load_template(name).description
        except TemplateError as e:
            about = str(e)
        lines.append(f"  {name:<12} {about}")
    lines += ["", "providers (--provider NAME; the key from the first variable set):"]
    for name, p in PROVIDERS.items():
        default = " (default)" if name == DEFAULT_PROVIDER else ""
        key = ", ".join(p.key_env) if p.needs_key else "no key needed"
        lines.append(f"  {name + default:<20} {p.base_url:<50} {key}")
    custom = "custom (any other)"
    lines.append(f"  {custom:<20} {'--base-url URL':<50} LABWRIGHT_API_KEY if it needs one")
    lines += ["", "exit status:"]
    lines += [f"  {code:<4} {status}: {meaning}" for status, code, meaning in EXIT_STATUSES]
    return "\n".join(lines)


class _Parser(argparse.ArgumentParser):
    """An epilog may be a function: it is called only when help is shown, so that
    starting the app does not pay for importing the core to list templates."""

    def format_help(self) -> str:
        if callable(self.epilog):
            self.epilog = self.epilog()
        return super().format_help()


def _parser() -> argparse.ArgumentParser:
    p = _Parser(
        prog="labwright",
        description="Turn a folder of experiment material into a LaTeX lab report. "
        "Without a command (or with just a FOLDER), the desktop app opens.",
        epilog="`labwright COMMAND --help` tells more about each command.",
    )
    p.add_argument("--version", action="version", version=f"labwright {_version()}")
    p.add_argument(
        "--smoke-test",
        action="store_true",
        help="check this installation without a screen: start Qt offscreen, make an "
        "offline report of the bundled example, show a PDF in the preview; exit 0 if all worked",
    )
    sub = p.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    g = sub.add_parser("gui", help="open the desktop app", description="Open the desktop app.")
    g.add_argument(
        "folder", nargs="?", type=Path, metavar="FOLDER", help="a folder of material to open"
    )

    r = sub.add_parser(
        "run",
        help="make a report from a folder, without a window",
        description="Make a report from a folder of experiment material, without a window.\n"
        "Settings not given here come from the environment, the keyring and the app's\n"
        "saved settings, in that order.",
        epilog=_run_epilog,  # type: ignore[arg-type]  # called by _Parser.format_help
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    r.add_argument(
        "folder", nargs="?", type=Path, metavar="FOLDER", help="the folder of experiment material"
    )
    r.add_argument(
        "--resume",
        type=Path,
        metavar="RUN_DIR",
        help="continue a run from its last completed milestone, with your own provider "
        "settings: a run folder never chooses the server or the key (one made with another "
        "server needs --base-url or --provider here)",
    )
    r.add_argument(
        "--out", type=Path, metavar="DIR", help="run directory (default: LABWRIGHT_HOME/runs/...)"
    )
    r.add_argument(
        "--json", action="store_true", help="one event per line on stdout, as in the journal"
    )
    _add_setting_flags(r)

    v = sub.add_parser(
        "verify",
        help="check a report's numbers against the evidence",
        description="Check every number of a run's report.tex (edited or not) against "
        "the material the run read. Exit 0: all traced; 10: some not found; 2: bad input.",
    )
    v.add_argument("run_dir", type=Path, metavar="RUN_DIR", help="a run directory")
    v.add_argument("--json", action="store_true", help="print numbers.json instead of the list")
    v.add_argument(
        "--all", action="store_true", help="list the matched numbers too, with their sources"
    )

    x = sub.add_parser(
        "export",
        help="export a run's report as a folder or .zip (Overleaf-ready), or a Word document",
        description="Export report.tex, refs.bib, the figures it uses and report.pdf; or, "
        "with --docx, the report as a Word document (through pandoc: headings, tables, "
        "equations as Word equations, figures and references).",
    )
    x.add_argument("run_dir", type=Path, metavar="RUN_DIR", help="a run directory")
    x.add_argument(
        "dest",
        type=Path,
        metavar="DEST",
        help="a new or empty folder, or the .zip file with --zip, or the .docx file with --docx",
    )
    form = x.add_mutually_exclusive_group()
    form.add_argument("--zip", action="store_true", help="write one .zip file instead of a folder")
    form.add_argument(
        "--docx", action="store_true", help="write a Word document (.docx) instead of a folder"
    )

    d = sub.add_parser(
        "doctor",
        help="what is missing on this machine, and the fix",
        description="Check Qt's platform libraries, TeX, ctex and CJK fonts, where the API "
        "key is kept, the configured model provider (its list of models, and one tiny "
        "tool-call request: can the exploring model call tools?) and the disk space; print "
        "the commands that fix what is missing. Exit 0 when everything needed is there "
        "(warnings such as no key yet or no TeX allowed: offline reports work), 1 otherwise.",
    )
    d.add_argument(
        "--provider",
        metavar="NAME",
        help="check this provider preset instead of the configured one "
        "(see `labwright run --help`)",
    )
    d.add_argument(
        "--base-url",
        metavar="URL",
        help="check the server at this URL (with --provider: that provider's server "
        "at another address)",
    )
    d.add_argument(
        "--offline",
        action="store_true",
        help="skip the provider check (for offline reports, no request is made)",
    )
    return p


def _add_setting_flags(parser: argparse.ArgumentParser) -> None:
    """The options of `run` that set a setting, made from config.SCHEMA: each with its
    setting's name as dest; a flag not given is None (the next source decides)."""
    from labwright.core.settings.config import SCHEMA

    groups: dict[str, argparse._ArgumentGroup] = {}
    for s in SCHEMA.flagged():
        flag = s.flag
        assert flag is not None
        into: argparse.ArgumentParser | argparse._ArgumentGroup = parser
        if flag.group is not None:
            if flag.group not in groups:
                groups[flag.group] = parser.add_argument_group(flag.group)
            into = groups[flag.group]
        options: dict[str, Any] = {"dest": s.name, "default": None, "help": s.help_text()}
        if flag.sets is not None:
            options.update(action="store_const", const=flag.sets)
        else:
            options.update(metavar=flag.metavar, choices=s.kind.choices())
            if flag.repeat:
                options["action"] = "append"
            elif s.kind.flag_type is not None:
                options["type"] = s.kind.flag_type
        into.add_argument(flag.name, **options)


def _resume_config(a: argparse.Namespace) -> RunConfig:
    """The person's settings, as for a new run, on the run's own folder and plan
    (core/rundir/resume.py): never the server or a key run.json names."""
    from labwright.core.rundir.files import load_run
    from labwright.core.rundir.resume import resumed_config, server_change
    from labwright.core.settings.config import SCHEMA
    from labwright.core.settings.resolve import key_problem
    from labwright.core.settings.saved import settings_problem
    from labwright.core.step_words import Words

    meta = load_run(a.resume)  # RunFileError, a ValueError: not a usable run directory
    if meta.finished_status:
        raise ValueError(
            f"The run in {a.resume} already finished ({meta.status}); nothing to resume."
        )
    flags = SCHEMA.flag_values(vars(a))  # ValueError: a value its setting cannot take
    config = resumed_config(a.resume, flags=flags)
    if settings_problem():
        _say(f"note: {settings_problem()}")
    change = server_change(meta, config)
    if change and not (flags.get("base_url") or flags.get("provider")):
        raise ValueError(
            Words("resume_other_server", recorded=change.recorded, chosen=change.chosen)
        )
    problem = key_problem(config)
    if problem:
        raise ValueError(problem)
    return config


def _config_from_args(a: argparse.Namespace) -> RunConfig:
    """Flags over the environment, the keyring and the saved settings (core/settings/resolve.py)."""
    from labwright.core.report.templates import load_template
    from labwright.core.settings.config import SCHEMA
    from labwright.core.settings.resolve import key_problem, resolve_config
    from labwright.core.settings.saved import settings_problem

    problem = _check_folder(a.folder)
    if problem:
        raise ValueError(problem)
    flags = SCHEMA.flag_values(vars(a))  # ValueError: a value its setting cannot take
    out_dir = a.out.expanduser().resolve() if a.out else None
    folder = a.folder.expanduser().resolve()
    config = resolve_config(folder, flags={**flags, "out_dir": out_dir})
    if settings_problem():  # a damaged settings.json was set aside: say so, as the app does
        _say(f"note: {settings_problem()}")
    load_template(config.template, config.lang)  # an unknown template is bad input: fail now
    problem = key_problem(config)
    if problem:
        raise ValueError(problem)
    return config


def _check_folder(folder: Path | None) -> str | None:
    if folder is None:
        return "Give the folder of experiment material: labwright run FOLDER"
    if not folder.exists():
        return f"{folder} does not exist."
    if not folder.is_dir():
        return f"{folder} is a file; give the folder that holds the material."
    if not os.access(folder, os.R_OK | os.X_OK):
        return f"{folder} cannot be read (permission denied)."
    return None


def cmd_run(a: argparse.Namespace) -> int:
    from labwright.core.run.pipeline import run_agent
    from labwright.core.rundir.store import RunDirError

    try:
        config = _resume_config(a) if a.resume else _config_from_args(a)
    except ValueError as e:
        _say(e)
        return EXIT_USAGE

    cancel = threading.Event()

    def on_sigint(signum: int, frame: FrameType | None) -> None:  # the second one kills
        if cancel.is_set():
            raise KeyboardInterrupt
        cancel.set()
        print("\nlabwright: cancelling… (Ctrl-C again to abort)", file=sys.stderr)

    previous = signal.signal(signal.SIGINT, on_sigint)
    printer = JsonPrinter() if a.json else LogPrinter(config.guards)
    status, error = "failed", None
    run = run_agent(config, cancel, resume=bool(a.resume))
    try:
        for event in run:
            printer(event)
            if isinstance(event, Done):
                status = event.status
            elif isinstance(event, Error):
                error = event.message
    except RunDirError as e:
        _say(e)
        return EXIT_USAGE
    except KeyboardInterrupt:  # outside the run's own code (printing): end it, say so
        run.close()
        _say("aborted; the run is marked cancelled.")
        return EXIT_CANCELLED
    except BrokenPipeError:  # `labwright run --json | head`: the reader left
        run.close()
        with contextlib.suppress(OSError):  # nothing more may reach the closed pipe
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_CANCELLED
    except Exception as e:  # the run's own failures end in a `done` event; this is ours
        run.close()
        _say(_crash(e, config.api_key))
        return EXIT_FAILED
    finally:
        # Once cancelling, a late second Ctrl-C must not kill the exit itself (exit -2
        # instead of 130): the process is ending anyway.
        signal.signal(signal.SIGINT, signal.SIG_IGN if cancel.is_set() else previous)
    if status == "failed":
        _say(f"the run failed: {error or 'no report was written'}")
    return EXIT[status]


def _crash(e: BaseException, key: str | None = None) -> str:
    """A one-line message for an unexpected exception; its traceback goes to a log file
    in LABWRIGHT_HOME/logs (without the key), never to the terminal."""
    from labwright.core.rundir.store import atomic_write_text
    from labwright.core.settings.config import labwright_home

    first = (str(e).strip().splitlines() or [""])[0][:200]
    text = "".join(traceback.format_exception(e))
    from labwright.core.secrets import hide_secrets

    secrets = [key if key and len(key) >= 4 else None]
    first, text = hide_secrets(first, secrets), hide_secrets(text, secrets)
    where = ""
    try:
        log = (
            labwright_home() / "logs" / f"crash-{time.strftime('%Y%m%d-%H%M%S')}-{os.getpid()}.txt"
        )
        atomic_write_text(log, text)
        where = f"; details in {log}"
    except Exception:  # the message still reaches the person
        pass
    return f"internal error: {type(e).__name__}: {first}{where}"


EXIT_UNMATCHED = 10


def cmd_verify(a: argparse.Namespace) -> int:
    """Check the (possibly edited) report.tex of a run against the run's evidence."""
    from labwright.core.report.verify import verify_run, write_numbers
    from labwright.core.rundir import fence
    from labwright.core.rundir.files import is_run_dir
    from labwright.core.rundir.layout import RunDir

    run_dir: Path = a.run_dir
    run = RunDir(run_dir)
    if not run_dir.is_dir() or not is_run_dir(run_dir):
        _say(f"{run_dir} is not a Labwright run directory (no run.json).")
        return EXIT_USAGE
    try:
        fence.check_run_dir(run_dir)  # a run folder holding a link is not read at all
    except fence.RunLinkError as e:
        _say(e)
        return EXIT_USAGE
    try:
        tex = run.read_report()
    except (OSError, UnicodeDecodeError) as e:
        _say(f"cannot read {run.report_tex}: {e}")
        return EXIT_USAGE
    result = verify_run(run_dir, tex)
    try:
        write_numbers(run_dir, result)
    except OSError as e:  # a read-only run directory still gets its answer
        _say(f"numbers.json not written: {e}")
    if a.json:
        print(_json_safe(json.dumps(result.to_dict(), ensure_ascii=False, indent=1)))
    else:
        text = _verify_text(result, show_matched=a.all)
        print("\n".join(terminal_safe(line) for line in text.split("\n")))
    return EXIT_UNMATCHED if result.unmatched else 0


def cmd_export(a: argparse.Namespace) -> int:
    """Export report.tex, refs.bib, the figures it includes and report.pdf (or the report
    as a .docx); say what is open."""
    from labwright.core.report.export import ExportError, export_report, export_warnings
    from labwright.core.rundir.errors import RunDirError
    from labwright.core.rundir.files import is_run_dir

    if not is_run_dir(a.run_dir):
        _say(f"{a.run_dir} is not a Labwright run directory (no run.json).")
        return EXIT_USAGE
    try:  # RunDirError: a run folder holding a link (rundir/fence.py) is not exported
        for warning in export_warnings(a.run_dir):
            _say(f"note: {warning}")
        path = export_report(a.run_dir, a.dest, as_zip=a.zip, as_docx=a.docx)
    except (ExportError, RunDirError) as e:
        _say(e)
        return EXIT_USAGE
    print(terminal_safe(path))
    return 0


def _verify_text(result: Verification, *, show_matched: bool) -> str:
    d = result.to_dict()
    c = d["counts"]
    traced = c["matched"] + c["derived"] + c["cited"]
    lines = [
        f"report.tex: {c['checked']} numbers checked · {traced} traced "
        f"({c['matched']} in the material, {c['derived']} derived, {c['cited']} cited) · "
        f"{c['unmatched']} not found · {c['skipped']} trivial, not checked"
    ]
    if d["unmatched"]:
        lines.append("\nNot found in the material:")
        for item in d["unmatched"]:
            unit = f" {item['unit']}" if item.get("unit") else ""
            lines.append(f"  line {item['line']}: {item['text']}{unit}")
            lines.append(f"      {_short(item['sentence'], 160)}")
            near = item.get("nearest")
            if near:
                lines.append(f"      closest: {near['text']} in {near['path']}, {near['location']}")
    if show_matched and d["matched"]:
        lines.append("\nTraced:")
        for item in d["matched"]:
            src = item.get("source")
            where = f"{src['path']}, {src['location']}" if src else item.get("how", "")
            lines.append(f"  line {item['line']}: {item['text']} ← {where} ({item.get('how', '')})")
            if src and src.get("excerpt"):
                lines.append(f"      {_short(src['excerpt'], 160)}")
    return "\n".join(lines)


class JsonPrinter:
    def __call__(self, event: Event) -> None:
        sys.stdout.write(_json_safe(event.to_json()) + "\n")
        sys.stdout.flush()


class LogPrinter:
    """A readable live log: one line per step, prefixed with the progress.

    While a model writes, its progress is one status line that updates in place on a
    terminal, and a line every SPARSE_PROGRESS_S of a call otherwise (a log file
    shows a long call is alive without filling up).

    Every value that comes from the run (file names, model and tool text, paths) goes
    through terminal_safe: a name like "\\x1b]0;..." cannot drive the terminal."""

    SPARSE_PROGRESS_S = 15

    def __init__(self, limits: GuardLimits | None = None, out: TextIO | None = None) -> None:
        self.progress = ""
        self.out = out or sys.stderr
        self.limits = limits  # the run's guard limits, quoted in the guards' explanations
        isatty = getattr(self.out, "isatty", None)
        self.live = bool(isatty and isatty())  # a terminal: the status line updates in place
        self._status = False  # a status line is on screen
        self._sparse = 0  # the call's last SPARSE_PROGRESS_S mark printed (not a terminal)

    def __call__(self, ev: Event) -> None:
        if isinstance(ev, Progress):
            self._show_progress(ev)
            return
        self._sparse = 0
        line = self.format(ev)
        if line:
            self._clear_status()
            print(line, file=self.out, flush=True)

    def _show_progress(self, ev: Progress) -> None:
        text = self.format_progress(ev)
        if self.live:
            width = max(20, shutil.get_terminal_size().columns - 1)  # one line: \r redraws it
            self.out.write("\r\x1b[K" + text[:width])
            self.out.flush()
            self._status = True
            return
        mark = ev.ms // (self.SPARSE_PROGRESS_S * 1000)
        if mark > self._sparse:
            self._sparse = mark
            print(text, file=self.out, flush=True)

    def _clear_status(self) -> None:
        if self._status:
            self.out.write("\r\x1b[K")
            self._status = False

    def format_progress(self, ev: Progress) -> str:
        s = terminal_safe
        secs = ev.ms // 1000
        if ev.tokens <= 0:
            what = f"waiting for the answer, {secs} s"
        else:
            about = "~" if ev.estimated else ""
            doing = "thinking" if ev.thinking else "writing"
            what = f"{doing}, {about}{ev.tokens:,} tokens, {secs} s"
        return f"{self.progress}   … {s(ev.role)} model {s(ev.model)}: {what}…"

    def format(self, ev: Event) -> str | None:
        from labwright.core.reasons import guard_text, reason_text

        s = terminal_safe
        match ev:
            case Milestone():
                self.progress = s(f"[{ev.index}/{ev.total} {ev.stage}]")
                if ev.status == "start":
                    if isinstance(ev.detail, ScanPlan):
                        folder, run_dir = s(ev.detail.folder), s(ev.detail.run_dir)
                        return f"{self.progress} scanning {folder} → run in {run_dir}"
                    return f"{self.progress} started"
                if ev.status == "skipped":
                    return f"{self.progress} skipped"
                return f"{self.progress} done: {_detail_line(ev.detail)}"
            case ToolCall():
                args = ", ".join(f"{s(k)}={_short(v)}" for k, v in ev.args.items() if k != "code")
                return f"{self.progress}   → {s(ev.name)}({args})"
            case ToolResult():
                mark = "✓" if ev.ok else "✗"
                extra = " (cached)" if ev.cached else ""
                return f"{self.progress}   {mark} {s(ev.summary)}{extra}"
            case Guard():
                why = guard_text(ev.kind, self.limits)
                return (
                    f"{self.progress}   ! {s(ev.kind)}: {s(ev.detail)}\n{self.progress}     {why}"
                )
            case LLMCall():
                return (
                    f"{self.progress}   · {s(ev.role)} model {s(ev.model)}: "
                    f"{ev.prompt_tokens}+{ev.completion_tokens} tokens, {ev.ms / 1000:.1f} s"
                )
            case Draft():
                degraded = " (degraded)" if ev.degraded else ""
                return f"{self.progress}   draft v{ev.version}: {ev.chars} characters{degraded}"
            case Error():
                return f"{self.progress}   error in {s(ev.stage)}: {s(ev.message)}"
            case Done():
                why = f" ({s(', '.join(ev.reasons))})" if ev.reasons else ""
                where = f"\n  report: {s(ev.report)}" if ev.report else ""
                where += f"\n  pdf:    {s(ev.pdf)}" if ev.pdf else ""
                plain = "".join(f"\n  why:    {s(reason_text(r))}" for r in ev.reasons)
                return f"done: {s(ev.status)}{why}{plain}{where}"
        return None


def _short(value: object, limit: int = 60) -> str:
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    text = terminal_safe(text)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _detail_line(detail: MilestoneDetail | None) -> str:
    """A finished step's detail on one line: the scan's summary, else its fields."""
    if isinstance(detail, ScanDetail):
        return terminal_safe(detail.summary)
    data = None if detail is None else detail.to_dict()
    if isinstance(data, dict):
        return ", ".join(
            f"{terminal_safe(k)}={_short(v, 40)}"
            for k, v in data.items()
            if v not in (None, "", [], {})
        )
    return "" if data is None else terminal_safe(data)


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    if argv and argv[0] not in COMMANDS and not argv[0].startswith("-") and Path(argv[0]).is_dir():
        argv = ["gui", *argv]  # `labwright FOLDER`: a folder dropped on the app's icon
    args = _parser().parse_args(argv)
    from labwright.core.confine import set_not_dumpable

    set_not_dumpable()  # the key in our environment and memory: unreadable via /proc
    if args.smoke_test:
        from labwright.smoke import main as smoke_test

        return smoke_test()
    if args.command in (None, "gui"):
        return _gui(args)
    try:
        code = _dispatch(args)
        sys.stdout.flush()  # here, so a reader that left is noticed where it is handled
        return code
    except BrokenPipeError:  # `labwright verify … | head`: the reader left; end quietly
        with contextlib.suppress(OSError):  # nothing more may reach the closed pipe
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_FAILED
    except KeyboardInterrupt:
        _say("interrupted.")
        return EXIT_CANCELLED
    except Exception as e:  # a bug: one line here, the traceback in a log file
        _say(_crash(e, getattr(args, "api_key", None)))
        return EXIT_FAILED


def _gui(args: argparse.Namespace) -> int:
    from labwright.doctor import display_problem

    problem = display_problem()  # before Qt loads: without a display Qt aborts the process
    if problem:
        _say(problem)
        return EXIT_USAGE
    from labwright.gui.app import main as gui_main  # Qt loads only for the window

    folder = getattr(args, "folder", None)
    return gui_main(folder.expanduser().resolve() if folder else None)


def _dispatch(args: argparse.Namespace) -> int:
    if args.command == "run":
        return cmd_run(args)
    if args.command == "verify":
        return cmd_verify(args)
    if args.command == "export":
        return cmd_export(args)
    if args.command == "doctor":
        from labwright.doctor import main as doctor

        return doctor(provider=args.provider, offline=args.offline, base_url=args.base_url)
    return EXIT_USAGE


if __name__ == "__main__":
    sys.exit(main())
