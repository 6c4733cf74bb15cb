"""The words of a run's steps: tool results, guard details. One English template per code.

A `Words` is the English sentence itself (a `str`, so the journal, the CLI and every guard
that reads it see what they always saw) that also remembers its template's code and the
params it was filled from. A `tool_result` event whose summary is a `Words`, or a `guard`
event whose detail is one, carries them as its `words` field ({code, params}); the app
words them from the catalog `STEPS` (core/catalog.py), under the context `TR_CONTEXT`.

Params hold what the step is about (a path, a call, a count, TeX's own message): those stay
as they are in every language. A sentence built by adding to a `Words` is a plain `str`
again: it is shown in English, as before.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from labwright.core.catalog import Catalog, Translate, same

TR_CONTEXT = "Steps"

STEP_TEXT: dict[str, str] = {
    # -- tool results (the timeline's Detail column) --
    "listed": "{path}: {count} entries",
    "list_empty": "{path}: empty",
    "unreadable": "{path}: unreadable",
    "not_a_folder": "{path}: not a folder",
    "is_a_folder": "{path}: a folder",
    "no_such_file": "{path}: no such file",
    "no_such_folder": "{path}: no such folder",
    "lines": "{path} lines {start}–{end}",
    "lines_of": "{path} lines {start}–{end} of {total}",
    "lines_old": "{path} lines {start}–{end} (nothing new)",
    "lines_of_old": "{path} lines {start}–{end} of {total} (nothing new)",
    "read_cancelled": "{path}: reading cancelled",
    "cannot_read": "{path}: {why}",  # the reader's own words
    "refused_path": "refused path {quoted}",
    "image": "{path}: {facts}",
    "no_vision_model": "no vision model",
    "vision_failed": "{path}: vision model failed",
    "figure": "figure {name}",
    "figure_refused": "{name}: refused",
    "figure_failed": "{name}: failed",
    "figures_disabled": "figures disabled (no OS sandbox)",
    "analysis": "analysis {name}",
    "analysis_refused": "{name}: refused",
    "analysis_failed": "{name}: failed",
    "analysis_empty": "{name}: printed nothing",
    "analysis_disabled": "analysis disabled (no OS sandbox)",
    "finish_missing": "missing {fields}",
    "finished": "finished: {experiment}",
    "not_run_stopped": "not run: exploration stopped",
    "same_call": "same call earlier in this turn",
    "figure_limit": "figure limit reached ({limit})",
    # -- calls the model got wrong, and tools that crashed (CallMistake, the loop) --
    "arg_missing": "{tool}: missing required argument '{name}'",
    "arg_not_string": "{tool}: argument '{name}' must be a string",
    "arg_not_integer": "{tool}: argument '{name}' must be an integer",
    "arg_negative": "{tool}: argument '{name}' must not be negative",
    "arg_not_paths": "{tool}: argument '{name}' must be a list of paths",
    "args_not_json": "{tool}: arguments are not valid JSON ({error} at char {pos})",
    "args_not_object": "{tool}: arguments must be a JSON object",
    "unknown_tool": "{tool}: unknown tool; available: {available}",
    "tool_crashed": "{tool} failed: {error}",
    # -- guard details (the Detail column of a guard row) --
    "withdrawn": "{tool} failed {count} times in a row and was withdrawn",
    "error_storm": (
        "{tool} gave the same error {same} times in its last {window} calls whatever the "
        "arguments ({shape}); it was withdrawn"
    ),
    "repeated": "{call} repeated; earlier result returned",
    "asked_twice": "{call} asked twice in one turn",
    "loop_stop": (
        "{call} was asked {count} times with the same arguments; exploration stopped and the "
        "report is drafted from what was read."
    ),
    "cycle": "The calls {block} went round {rounds} times with the same arguments.",
    "cycle_stop": (
        "The calls {block} went round {rounds} times with the same arguments; exploration "
        "stopped and the report is drafted from what was read."
    ),
    "figure_not_run": "{tool} not run: figure limit reached ({limit})",
    "reread": "{call} re-read lines {start}–{end} already read",
    "reread_stop": "{path} was re-read {count} times without new lines; exploration stopped.",
    "no_evidence_stop": (
        "{tool} was called again without any file read; exploration ended with nothing "
        "gathered (nothing is invented)."
    ),
    "no_evidence_refused": "{tool} refused ({n}/{of}): nothing has been read yet",
    "wander": (
        "{idle} of the last {window} calls brought nothing new (repeats, errors, empty "
        "results, lines or listings already seen)."
    ),
    "wander_stop": (
        "{idle} of the last {window} calls brought nothing new (repeats, errors, empty "
        "results, lines or listings already seen); exploration stopped and the report is "
        "drafted from what was read."
    ),
    "nudge_loop": (
        "{call} was asked {count} times with the same arguments. The model was asked to move "
        "on or finish."
    ),
    "nudge_reread": (
        "{path} was re-read {count} times without new lines. The model was asked to move on "
        "or finish."
    ),
    "nudge_cycle": (
        "The calls {block} went round {rounds} times with the same arguments. The model was "
        "asked to move on or finish."
    ),
    "nudge_wander": (
        "{idle} of the last {window} calls brought nothing new (repeats, errors, empty "
        "results, lines or listings already seen). The model was asked to move on or finish."
    ),
    "turns_stop": "No finish after {turns} turns and {window} final turns; exploration stopped.",
    "window_forced": "Turn budget of {turns} used; {tool} is now forced.",
    "window_unread": "Turn budget of {turns} used; nothing read yet, tools stay open.",
    "choice_rejected": (
        "The server rejected the forced tool choice ({error}); the model was told to call "
        "{tool} instead."
    ),
    "choice_ignored": (
        "The model ignored the forced tool choice; the model was told to call {tool} instead."
    ),
    "call_cap": (
        "The model asked for {asked} tool calls in one turn; the first {cap} ran, {dropped} "
        "were not run ({names})."
    ),
    "text_only_stop": (
        "The model answered {count} turns in a row without calling a tool; exploration stopped."
    ),
    "text_only": (
        "The model answered in text without calling a tool ({n} of {of} in a row); it was "
        "told to call one."
    ),
    "budget_stop": "{Label} reached ({spent} of {limit}); {what} stopped.",
    "budget_warn": (
        "{share}% of the {label} used ({spent} of {limit}); the model was told to wrap up."
    ),
    "deadline": "{role} call cut at {seconds} s",
    "format_retry": "{role} output rejected ({problems}); retry {n}/{of}",
    "format_failed": "{role}: still not a LaTeX document after {of} retries ({problems})",
    "compile_fix": "Compile failed; fix round {n}/{of}",
    "compile_fix_at": "Compile failed at line {line}: {message}; fix round {n}/{of}",
    # -- settings that could not be read (saved.settings_problem) --
    "settings_unreadable": "Could not read {path} ({why}); using the default settings.",
    "settings_damaged": "The settings file {path} is damaged ({why}); using the default settings.",
    "settings_kept": (
        "The settings file was damaged ({why}). It was kept as {name} and the default settings "
        "are used."
    ),
    # -- settings that do not fit together (RunConfig's checks, resolve_config) --
    "unknown_provider": "Unknown provider {name}; choose one of: {names}.",
    "custom_needs_url": (
        "The custom provider needs the server's URL: add --base-url URL "
        "(or set LABWRIGHT_BASE_URL)."
    ),
    "price_shape": ("price of {model} must be {{'prompt': USD per 1M, 'completion': USD per 1M}}"),
    "price_negative": "price of {model} must be non-negative numbers",
    "positive_seconds": "{name} must be a positive number of seconds",
    "positive_minutes": "{name} must be a positive number of minutes",
    "max_tokens_role": "max_tokens: unknown role {role} (one of {roles})",
    "max_tokens_positive": "max_tokens of {name} must be a positive integer",
    "budget_positive": "{name} must be positive (leave it unset for no limit)",
    "budget_unpriced": "a money budget needs prices for: {models}",
    # -- Check Setup (doctor.py; the tool-call test, llm/probe.py) --
    "check_qt": "Qt platform libraries",
    "check_display": "Display",
    "check_tex": "TeX engine",
    "check_tex_fence": "TeX confinement",
    "check_zh": "Chinese reports (ctex, CJK font)",
    "check_key": "API key",
    "check_disk": "Disk space",
    "check_provider": "Model provider",
    "qt_bundled": "bundled with PySide6 on this system",
    "qt_no_xcb": "Qt's xcb platform plugin is not there (PySide6 is incomplete)",
    "qt_ok": "every library of the xcb (X11) plugin is there",
    "qt_lacks": "the xcb (X11) plugin lacks {libs}",
    "qt_lacks_wayland": "the xcb (X11) plugin lacks {libs}; Wayland works",
    "display_own": "the desktop's own",
    "display_silent": (
        "{shown}, but no display server answers there: the window cannot open here; "
        "`labwright run FOLDER` works"
    ),
    "display_unset": (
        "none (DISPLAY and WAYLAND_DISPLAY are unset): the window cannot open here; "
        "`labwright run FOLDER` works"
    ),
    "tex_none": (
        "no xelatex, lualatex or pdflatex: reports are written as .tex but not compiled to PDF"
    ),
    "tex_latexmk": "{engine} ({path}), latexmk",
    "tex_no_latexmk": "{engine} ({path}), no latexmk (the engine is run directly)",
    "tex_fence_os": (
        "confined by {layers}: TeX reads only the run's report.tex, *.bib, figures/ and "
        "build/ and the TeX and font trees, and writes only build/"
    ),
    "tex_fence_own": (
        "no confinement by the operating system here: Labwright refuses absolute, ../ and "
        "dot-file names, \\write18, ~user/ and $VAR/ names written in the document, and "
        "xdvipdfmx specials and fonts outside the run and the TeX and font trees; not "
        "fenced: a ~user/ or $VAR/ name the document builds at run time, which TeX reads"
    ),
    "tex_fence_own_engine": (
        "no confinement by the operating system here, and {engine} instead of XeLaTeX: "
        "Labwright refuses absolute, ../ and dot-file names, \\write18, and ~user/ and "
        "$VAR/ names written in the document; not fenced: a ~user/ or $VAR/ name the "
        "document builds at run time, and the images and files {engine} opens itself"
    ),
    "zh_ok": "ctex and a CJK font found",
    "zh_lacks": "no {lacks}: Chinese reports do not compile",
    "store_keyring": "in the system keyring ({keyring})",
    "store_file": "in a file only you can read",
    "key_env": "{provider}: from the environment variable {var}",
    "key_session": "{provider}: kept for this session only (forgotten when Labwright closes)",
    "key_keyring": "{provider}: in the system keyring ({keyring})",
    "key_file": "{provider}: in the file {path} (only you can read it)",
    "key_file_open": "{provider}: in the file {path}, which others can read too",
    "key_file_unusable": "a key file Labwright does not use: {problem}",
    "key_not_needed": "{provider}: none needed (the server runs on this computer)",
    "key_none_keyring": "{provider}: none yet; Settings keeps keys in the system keyring ({keyring})",
    "key_none_file": (
        "{provider}: none yet; with no system keyring here, Settings keeps keys in a file "
        "only you can read, in {path}"
    ),
    "disk_unreadable": "cannot read the free space of {home}: {why}",
    "disk_free": "{free} MB free for {home}",
    "disk_too_little": "{free} MB free for {home} (runs need at least {need} MB)",
    "disk_few_runs": "{free} MB free for {home}: enough for a few runs",
    "provider_offline": "not checked (offline)",
    "provider_no_key": (
        "{provider} at {url}: no API key yet. Offline reports work; for reports written by a "
        "model, add one in Settings (kept {store})"
    ),
    "provider_failed": "{provider} at {url}: {error}",
    "provider_answers": "{provider} at {url} answers ({count} models); {probe}",
    "provider_answers_unlisted": (
        "{provider} at {url} answers ({count} models; not listed: {models}); {probe}"
    ),
    "probe_tools": "{model} can call tools",
    "probe_text": "{model} answered in text without calling the tool (weak tool support)",
    "probe_text_cut": (
        "{model} answered in text without calling the tool (weak tool support, stopped at "
        "{tokens} tokens)"
    ),
    "probe_rejected": "{model} rejects tools (HTTP {status}): {detail}",
    "probe_failed": "the tool-call test of {model} failed: {detail}",
    # -- why a run cannot start or be re-drafted (key_problem, RedraftError) --
    "no_key": (
        "No API key for {provider}. Add one in Settings, set {names}, pass --api-key, or run "
        "offline (--offline, or tick “Offline” in the app)."
    ),
    "redraft_not_a_run": "{run_dir} is not a Labwright run directory.",
    "redraft_running": (
        "This run is still running, or it was stopped midway: finish it first "
        "(labwright run --resume)."
    ),
    "redraft_offline": (
        "This run was offline: no model explored the material, so there is nothing to "
        "draft from. Start a new run with a model instead."
    ),
    "redraft_unfinished": (
        "The run stopped before drafting ({stages} did not finish): resume it instead "
        "(labwright run --resume)."
    ),
    "redraft_folder_gone": "The run's material folder {folder} is gone; it is needed to draft.",
    "redraft_other_server": (
        "This run was made with the server {recorded}; your settings use {chosen}. A re-draft "
        "goes to your settings' server only when you agree to it."
    ),
    # -- a run continued from its folder (labwright run --resume) --
    "resume_other_server": (
        "This run was made with the server {recorded}, but your settings use {chosen}. A run "
        "folder does not choose where your key and material go: to continue with your own "
        "server, add --base-url {chosen} (or --provider NAME); to continue with the run's "
        "server, add --base-url {recorded}, but only if you trust it."
    ),
}

# Words that fill a template's params and are themselves English (a budget's name, what a
# budget stopped, a model role): translated with the template, under the same context.
PARAM_TEXT: tuple[str, ...] = (
    "token budget",
    "money budget",
    "time budget",
    "exploration token budget",
    "exploration money budget",
    "Token budget",
    "Money budget",
    "Time budget",
    "Exploration token budget",
    "Exploration money budget",
    "exploration",
    "the run",
    "explore",
    "write",
    "reflect",
    "vision",
    "fix",
)
_WORD_PARAMS = frozenset({"label", "Label", "what", "role"})  # the params PARAM_TEXT fills
STEPS = Catalog(TR_CONTEXT, STEP_TEXT, PARAM_TEXT, _WORD_PARAMS)


class Words(str):
    """An English sentence that remembers its template's code and params."""

    code: str
    params: dict[str, str | Words]  # a param that is a Words is worded too

    def __new__(cls, code: str, **params: object) -> Words:
        self = super().__new__(cls, STEPS.english(code, **params))
        self.code = code
        self.params = {k: v if isinstance(v, Words) else str(v) for k, v in params.items()}
        return self

    def __reduce__(self) -> tuple[Any, ...]:  # copies (dataclasses.asdict) keep the code
        return (_rebuild, (self.code, self.params))

    def to_dict(self) -> dict[str, Any]:
        return {
            "code": self.code,
            "params": {
                k: v.to_dict() if isinstance(v, Words) else v for k, v in self.params.items()
            },
        }


class CallMistake(ValueError):
    """A call the model got wrong (an argument, its JSON), said without the tool's name:
    its text is what the model reads; `words(tool)` is the timeline's line, with the name.
    Its templates are those of STEP_TEXT that start with "{tool}: "."""

    def __init__(self, code: str, **params: object) -> None:
        self.code, self.params = code, {k: str(v) for k, v in params.items()}
        super().__init__(STEP_TEXT[code].removeprefix("{tool}: ").format(**self.params))

    def words(self, tool: str) -> Words:
        return Words(self.code, tool=tool, **self.params)


def _rebuild(code: str, params: dict[str, str | Words]) -> Words:
    return Words(code, **params)


def words_of(text: object) -> dict[str, Any] | None:
    """The {code, params} of a sentence that is a `Words`, else None."""
    return text.to_dict() if isinstance(text, Words) else None


def all_texts() -> list[str]:
    """The templates with more than their params, and the English params, for the .ts file."""
    return STEPS.all_texts()


def step_text(words: Mapping[str, Any] | None, english: str, tr: Translate = same) -> str:
    """A step's sentence from its {code, params}, in the words `tr` gives; `english` (the
    event's own sentence) when it has none, its code is not known (another version) or a
    translation lost a placeholder."""
    if not isinstance(words, Mapping):
        return english
    params = words.get("params")
    if not isinstance(params, Mapping):
        return english
    # a Words inside a Words: its own sentence
    shown = {
        k: step_text(v, step_text(v, ""), tr) if isinstance(v, Mapping) else v
        for k, v in params.items()
    }
    text = STEPS.text(str(words.get("code")), shown, tr)
    return english if text is None else text
