"""What a run and the person's settings are made of: every setting, declared once
(`SCHEMA`), and the two records made from it: `RunConfig` (one run's configuration) and
`Settings` (what settings.json keeps). No secrets leave them.

From `SCHEMA` come the options of `labwright run` (cli.py), the Settings dialog's
widgets and checks (gui/settings_dialog.py), the reading of settings.json (saved.py),
what a continued run takes from run.json (rundir/resume.py) and run.json's `config`
(`RunConfig.public_dict()`, which leaves out the key). How to add a setting:
docs/development.md, "Settings".
"""

from __future__ import annotations

import copy
import os
import sys
from collections.abc import Mapping
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Any

from labwright.core import resources
from labwright.core.settings.cost import call_usd
from labwright.core.settings.providers import (
    CUSTOM,
    CUSTOM_TOOLS_ADVICE,
    DEFAULT_PROVIDER,
    GENERIC_KEY_ENV,
    PROVIDER_NAMES,
    PROVIDERS,
    Provider,
    key_from_env,
    provider_for_url,
    same_server,
    tools_advice,
    unknown_provider,
)
from labwright.core.settings.schema import (
    Choice,
    Count,
    Flag,
    Folders,
    Into,
    Number,
    Prices,
    Resume,
    Schema,
    Setting,
    Switch,
    Text,
    Url,
    Widget,
)
from labwright.core.step_words import Words

# The presets were declared here once; their names stay importable from here.
__all__ = [
    "CUSTOM",
    "CUSTOM_TOOLS_ADVICE",
    "DEFAULT_PROVIDER",
    "GENERIC_KEY_ENV",
    "PROVIDERS",
    "PROVIDER_NAMES",
    "SCHEMA",
    "GuardLimits",
    "Provider",
    "RunConfig",
    "Settings",
    "config_from_public",
    "config_from_values",
    "key_from_env",
    "labwright_home",
    "provider_for_url",
    "same_server",
    "tools_advice",
    "unknown_provider",
    "with_values",
]

ROLES = ("explore", "write", "reflect", "vision", "fix")
# max_tokens sent with every call of a role. A server given none may generate until
# its context is full (minutes on a small local model); exploration turns are a few
# tool calls, drafts are a whole document.
DEFAULT_MAX_TOKENS: dict[str, int] = {
    "explore": 2048,
    "vision": 2048,
    "write": 8192,
    "reflect": 8192,
    "fix": 8192,
}
EXPLORE_ROLES = ("explore", "vision")  # --explore-max-tokens; they share the explore deadline
WRITE_ROLES = ("write", "reflect", "fix")  # --write-max-tokens; they share the write deadline
# More reflection rounds than Settings offers is not a run this Labwright makes for a
# person: a run.json asking for a million would plan a million model calls.
MAX_REFLECT = 10
MAX_RECENT = 10  # recent folders kept


@dataclass(frozen=True)
class GuardLimits:
    """Thresholds of the exploration guards (DESIGN.md). Tunable, never off.

    Every field must stay a positive integer and every guard must stay able to
    fire (a stop above its window could never trip): a setting can make a guard
    more or less patient, but no value switches one off.
    """

    nudge_at: int = 3  # occurrence of one fingerprint that earns a nudge (once)
    stop_at: int = 5  # occurrence that stops exploration
    failure_limit: int = 3  # consecutive failures of one tool that withdraw it
    evidence_refusals: int = 2  # refused finish_exploration calls before giving up
    final_window: int = 2  # extra turns past the budget, finish forced
    dedup_head_chars: int = 600  # how much of an earlier result a dedup returns
    # cycles: a block of 2..cycle_max_len calls repeated back to back with the same arguments
    cycle_max_len: int = 4  # longest block looked for (A-B, A-B-C, A-B-C-D)
    cycle_nudge_at: int = 2  # full repetitions of the block that earn the nudge
    cycle_stop_at: int = 3  # full repetitions that stop exploration
    # wandering: calls that bring nothing new, counted over the last wander_window calls
    wander_window: int = 10
    wander_nudge_at: int = 6
    wander_stop_at: int = 8
    # error storms: one tool failing with the same (normalized) error, whatever the arguments
    error_storm_at: int = 5  # same-error failures among the tool's last error_storm_window calls
    error_storm_window: int = 10
    budget_warn_percent: int = 90  # share of a token/money budget that earns the wrap-up
    # work per turn and per run: the calls of one turn past this many are not run
    max_calls_per_turn: int = 8
    max_figures: int = 12  # make_figure runs of one exploration (each is a sandboxed process)
    # text-only exploration turns in a row (no tool called) that end exploration
    no_tool_call_stop_at: int = 3

    def __post_init__(self) -> None:
        for f in fields(self):
            value = getattr(self, f.name)
            # bool is an int in Python: `stop_at=False` must not pass as "0 = off"
            if not isinstance(value, int) or isinstance(value, bool):
                raise ValueError(f"guard limit {f.name} must be an integer, not {value!r}")
            if value < 1:
                raise ValueError(f"guard limit {f.name} must be at least 1")
        if self.stop_at <= self.nudge_at:
            raise ValueError("stop_at must be greater than nudge_at")
        if self.cycle_max_len < 2:
            raise ValueError("cycle_max_len must be at least 2 (a cycle has two calls or more)")
        if self.cycle_nudge_at < 2:
            raise ValueError("cycle_nudge_at must be at least 2 (one pass is not a cycle)")
        if self.cycle_stop_at <= self.cycle_nudge_at:
            raise ValueError("cycle_stop_at must be greater than cycle_nudge_at")
        if self.wander_stop_at <= self.wander_nudge_at:
            raise ValueError("wander_stop_at must be greater than wander_nudge_at")
        if self.wander_stop_at > self.wander_window:
            raise ValueError("wander_stop_at must fit in wander_window, or it could never trip")
        if self.error_storm_at > self.error_storm_window:
            raise ValueError(
                "error_storm_at must fit in error_storm_window, or it could never trip"
            )
        if self.budget_warn_percent >= 100:
            raise ValueError("budget_warn_percent must be below 100")


def _templates() -> list[str]:
    return resources.names("templates", ".json")  # report/templates.available()


def _no_template(value: Any, names: tuple[str, ...]) -> str:
    return f"No template named {value!r}. Available: {', '.join(names)}."


def _not_a_preset(value: Any, names: tuple[str, ...]) -> str:
    return unknown_provider(str(value))


_PRESET = PROVIDERS[DEFAULT_PROVIDER]

# Every setting, in the order of `labwright run --help`. A flag's help may name its
# default as {default:g}.
SCHEMA = Schema(
    [
        Setting(
            "offline",
            Switch(),
            False,
            "use no model at all: a skeleton report to fill in",
            flag=Flag("--offline", sets=True),
            resume=Resume.PLAN,
        ),
        Setting(
            "provider",
            # None in a RunConfig: made without a preset (the preset is the URL's then)
            Choice(PROVIDER_NAMES, optional=True, offered=False, unknown=_not_a_preset),
            DEFAULT_PROVIDER,
            "a provider preset (listed below): its URL, models and key variable",
            flag=Flag("--provider", metavar="NAME"),
            saved=True,
        ),
        Setting(
            "base_url",
            Url(),
            _PRESET.base_url,
            "OpenAI-compatible API URL (default: DeepSeek; with --provider: that "
            "provider's server at another address)",
            flag=Flag("--base-url", metavar="URL"),
            saved=True,
            env="LABWRIGHT_BASE_URL",
        ),
        Setting(
            "api_key",
            Text(optional=True),
            None,
            "API key (prefer LABWRIGHT_API_KEY in the environment)",
            flag=Flag("--api-key", metavar="KEY"),
            secret=True,
        ),
        Setting(
            "explore_model",
            Text(),
            _PRESET.explore_model,
            "model that explores the folder",
            flag=Flag("--explore-model", metavar="M"),
            saved=True,
            resume=Resume.MODEL,
        ),
        Setting(
            "write_model",
            Text(),
            _PRESET.write_model,
            "model that writes and revises the report",
            flag=Flag("--write-model", metavar="M"),
            saved=True,
            resume=Resume.MODEL,
        ),
        Setting(
            "vision_model",
            Text(optional=True),
            _PRESET.vision_model,
            "model that looks at images (none: images unread)",
            flag=Flag("--vision-model", metavar="M"),
            saved=True,
            resume=Resume.MODEL,
        ),
        Setting(
            "template",
            Choice(_templates, optional=True, offered=False, unknown=_no_template),
            None,  # the default template of the report's language
            "report template (listed below)",
            flag=Flag("--template", metavar="NAME"),
            saved=True,
            resume=Resume.PLAN,
        ),
        Setting(
            "lang",
            Choice(("zh", "en"), optional=True),
            None,  # decided by the run (the template's language)
            "language of the report (default: the template's)",
            flag=Flag("--lang"),
            widget=Widget(
                "combo",
                "report",
                "Report &language:",
                "report_lang_combo",
                none_text="Automatic",
                items=(("en", "English"), ("zh", "Chinese")),
            ),
            saved=True,
            saved_as="report_lang",
            resume=Resume.PLAN,
        ),
        Setting(
            "reflect",
            Count(0, MAX_REFLECT, optional=True),
            None,  # the template's number of rounds
            "critique-and-revise rounds (0: none)",
            flag=Flag("--reflect", metavar="N"),
            widget=Widget(
                "spin",
                "report",
                "&Reflection rounds:",
                "reflect_spin",
                none_text="Template default",
            ),
            saved=True,
            resume=Resume.PLAN,
        ),
        Setting(
            "max_tool_iters",
            Count(1),
            20,
            "model turns while exploring (default {default:g})",
            flag=Flag("--max-iters", metavar="N"),
            resume=Resume.STRICTER,
        ),
        Setting(
            "budget_tokens",
            Count(1, optional=True),
            None,
            "stop at this many tokens for the run",
            flag=Flag("--budget-tokens", metavar="N"),
            widget=Widget(
                "spin",
                "budget",
                "Token &budget per run:",
                "budget_spin",
                none_text="No limit",
                step=10_000,
                maximum=2_000_000_000,
                separators=True,
            ),
            saved=True,
            resume=Resume.STRICTER,
        ),
        Setting(
            "budget_usd",
            Number(None, optional=True),
            None,
            "stop at this cost (needs --price)",
            flag=Flag("--budget-usd", metavar="USD"),
            resume=Resume.STRICTER,
        ),
        Setting(
            "prices",
            Prices(),
            {},  # money is not tracked (the Settings dialog fills it in)
            "USD per 1M prompt,completion tokens of a model (repeatable)",
            flag=Flag("--price", metavar="MODEL=IN,OUT", repeat=True),
            saved=True,
            resume=Resume.PRICE,
        ),
        Setting(
            "compile",
            Switch(),
            True,
            "write report.tex but do not make the PDF",
            flag=Flag("--no-compile", sets=False),
            resume=Resume.PLAN,
        ),
        Setting(
            "allow_unconfined",
            Switch(),
            False,
            "run model-written figure code even where no OS sandbox is available",
            flag=Flag("--allow-unconfined", sets=True),
        ),
        Setting(
            "explore_deadline_s",
            Number("seconds"),
            180.0,
            "cut an explore call after S s ({default:g})",
            flag=Flag("--explore-deadline", metavar="S", group="limits"),
            resume=Resume.STRICTER,
        ),
        Setting(
            "write_deadline_s",
            Number("seconds"),
            600.0,
            "cut a writing call after S s ({default:g})",
            flag=Flag("--write-deadline", metavar="S", group="limits"),
            resume=Resume.STRICTER,
        ),
        Setting(
            "max_minutes",
            Number("minutes"),
            60.0,
            "time limit of the whole run; past it the run ends degraded with what it has "
            "({default:g})",
            flag=Flag("--max-minutes", metavar="M", group="limits"),
            widget=Widget(
                "spin",
                "budget",
                "&Time limit per run:",
                "minutes_spin",
                tip="When the time is up, exploring stops and the report is written from "
                "what was gathered; the run ends marked for review.",
                suffix=" min",
                step=10,
                minimum=1,
                maximum=24 * 60,
            ),
            saved=True,
            resume=Resume.STRICTER,
        ),
        Setting(
            "explore_max_tokens",
            Count(1),
            DEFAULT_MAX_TOKENS["explore"],
            "longest answer of an explore or vision call, in tokens ({default:g})",
            flag=Flag("--explore-max-tokens", metavar="N", group="limits"),
            into=Into("max_tokens", EXPLORE_ROLES),
            resume=Resume.STRICTER,
        ),
        Setting(
            "write_max_tokens",
            Count(1),
            DEFAULT_MAX_TOKENS["write"],
            "longest answer of a drafting, reflection or fix call, in tokens ({default:g})",
            flag=Flag("--write-max-tokens", metavar="N", group="limits"),
            into=Into("max_tokens", WRITE_ROLES),
            resume=Resume.STRICTER,
        ),
        Setting(
            "max_calls_per_turn",
            Count(1),
            GuardLimits.max_calls_per_turn,
            "tool calls run per turn ({default:g})",
            flag=Flag("--max-calls-per-turn", metavar="N", group="limits"),
            into=Into("guards", ("max_calls_per_turn",)),
            resume=Resume.STRICTER,
        ),
        Setting(
            "max_figures",
            Count(1),
            GuardLimits.max_figures,
            "make_figure runs per report ({default:g})",
            flag=Flag("--max-figures", metavar="N", group="limits"),
            into=Into("guards", ("max_figures",)),
            resume=Resume.STRICTER,
        ),
        # -- no flag: set in code and tests, recorded in run.json ---------------------
        Setting(
            "request_timeout_s",
            Number("seconds"),
            120.0,
            # a non-streamed answer is silent until whole: its call deadline bounds it
            "silence allowed between the bytes of a streamed answer, per attempt",
            resume=Resume.STRICTER,
        ),
        Setting(
            "max_retries",
            Count(0),
            4,
            "retries of a failed model call, within its deadline",
            resume=Resume.STRICTER,
        ),
        Setting(
            "explore_budget_tokens",
            Count(1, optional=True),
            None,
            "tokens the exploration stage alone may spend",
            resume=Resume.STRICTER,
        ),
        Setting(
            "explore_budget_usd",
            Number(None, optional=True),
            None,
            "money the exploration stage alone may spend",
            resume=Resume.STRICTER,
        ),
        # -- the app's own: settings.json only ------------------------------------------
        Setting(
            "ui_language",
            Choice(("system", "en", "zh_CN")),
            "system",
            "the language of the app",
            widget=Widget(
                "combo",
                "interface",
                "&Interface language:",
                "ui_lang_combo",
                items=(("system", "System language"), ("en", "English"), ("zh_CN", "简体中文")),
                native=("en", "zh_CN"),  # language names in their own language
            ),
            saved=True,
            run=False,
        ),
        Setting(
            "recent_folders",
            Folders(MAX_RECENT),
            [],
            "the folders opened last, most recent first",
            saved=True,
            run=False,
        ),
    ]
)


def _default(name: str) -> Any:
    return SCHEMA[name].default


@dataclass(frozen=True)
class RunConfig:
    """One run's configuration. Defaults are SCHEMA's; a setting without a field here
    lives in `options` (`option(name)` reads any setting)."""

    folder: Path
    out_dir: Path | None = None
    # repr=False: a URL may carry a key in its userinfo (https://user:key@host/v1)
    base_url: str = field(default=_default("base_url"), repr=False)
    api_key: str | None = field(default=None, repr=False)
    explore_model: str = _default("explore_model")
    write_model: str = _default("write_model")
    vision_model: str | None = _default("vision_model")
    template: str | None = _default("template")
    lang: str | None = _default("lang")
    reflect: int | None = _default("reflect")
    max_tool_iters: int = _default("max_tool_iters")
    budget_tokens: int | None = _default("budget_tokens")
    compile: bool = _default("compile")
    offline: bool = _default("offline")
    request_timeout_s: float = _default("request_timeout_s")
    max_retries: int = _default("max_retries")
    # The whole of one model call, every retry included: past it the call is cut (llm.py).
    # Exploration turns are short; a draft streamed by a slow local model is not.
    explore_deadline_s: float = _default("explore_deadline_s")  # explore and vision calls
    write_deadline_s: float = _default("write_deadline_s")  # gap, draft, reflect, bib, fixes
    # max_tokens sent per role ("explore", "write", ...); a role not listed gets its
    # default (DEFAULT_MAX_TOKENS): every call is bounded. See tokens_for().
    max_tokens: dict[str, int] = field(default_factory=lambda: dict(DEFAULT_MAX_TOKENS), hash=False)
    guards: GuardLimits = field(default_factory=GuardLimits)
    # Money: prices per model in USD per 1M tokens, {"model": {"prompt": p, "completion": c}}.
    prices: dict[str, dict[str, float]] = field(default_factory=dict, hash=False)
    budget_usd: float | None = _default("budget_usd")  # whole run, all roles
    explore_budget_tokens: int | None = _default("explore_budget_tokens")
    explore_budget_usd: float | None = _default("explore_budget_usd")
    # The whole run's wall-clock budget: past it each stage stops at its next safe point
    # (before a model call) and the run ends degraded with what was gathered.
    max_minutes: float = _default("max_minutes")
    # Run model-written figure code although this machine has no OS confinement
    # (confine.support().any is False); off: figures then come from the tables only.
    allow_unconfined: bool = _default("allow_unconfined")
    # The provider preset the run was set up with (--provider, Settings), or "custom";
    # None: unknown (the preset is then the one of base_url). For advice only. Not the
    # schema's default, which is the person's (settings.json's) preset.
    provider: str | None = None
    # The settings of SCHEMA that have no field above, by name.
    options: Mapping[str, Any] = field(default_factory=dict, hash=False)

    def __post_init__(self) -> None:
        for role, limit in self.max_tokens.items():
            if role not in ROLES:
                raise ValueError(Words("max_tokens_role", role=repr(role), roles=", ".join(ROLES)))
            if isinstance(limit, bool) or not isinstance(limit, int) or limit < 1:
                raise ValueError(Words("max_tokens_positive", name=role))
        unknown = [name for name in self.options if _option_setting(name) is None]
        if unknown:
            raise ValueError(f"unknown settings: {', '.join(map(repr, unknown))}")
        # One check per kind of value (schema.py), not one per field.
        for setting in SCHEMA.run():
            problem = setting.problem(self.option(setting.name))
            if problem is not None:
                raise ValueError(problem)
        if self.budget_usd is not None or self.explore_budget_usd is not None:
            # A money budget that cannot see a model's spend would be a guard turned off silently.
            used = [self.explore_model, self.write_model, self.vision_model]
            unpriced = [m for m in used if m and m not in self.prices]
            if unpriced:
                raise ValueError(Words("budget_unpriced", models=", ".join(unpriced)))

    def tokens_for(self, role: str) -> int:
        """The max_tokens every call of `role` sends."""
        return self.max_tokens.get(role, DEFAULT_MAX_TOKENS[role])

    def option(self, name: str) -> Any:
        """The value of the run setting `name` (SCHEMA), wherever it is kept."""
        setting = SCHEMA[name]
        into = target(setting)
        if into.field == "options":
            return self.options.get(name, setting.default)
        value = getattr(self, into.field)
        if not into.keys:
            return value
        if into.field == "max_tokens":
            return self.tokens_for(into.keys[0])
        return getattr(value, into.keys[0])

    def public_dict(self) -> dict[str, Any]:
        """Everything but the key, JSON-able: run.json's `config`."""
        out: dict[str, Any] = {}
        for f in fields(self):
            setting = SCHEMA.get(f.name)
            if f.name == "options" or (setting is not None and setting.secret):
                continue
            value = getattr(self, f.name)
            if setting is not None:
                value = setting.kind.to_file(value)  # a key in a URL's userinfo stays out
            elif isinstance(value, Path):
                value = str(value)
            elif f.name == "max_tokens":
                value = {role: self.tokens_for(role) for role in ROLES}  # what is sent
            elif isinstance(value, GuardLimits):
                value = {g.name: getattr(value, g.name) for g in fields(value)}
            out[f.name] = value
        for setting in SCHEMA.run():
            if target(setting).field == "options" and not setting.secret:
                out[setting.name] = setting.kind.to_file(self.option(setting.name))
        out["api_key_set"] = bool(self.api_key)
        return out


_FIELDS = frozenset(f.name for f in fields(RunConfig))


def target(setting: Setting) -> Into:
    """Where `setting` goes in a RunConfig: its `into`, else its own field, else options."""
    if setting.into is not None:
        return setting.into
    return Into(setting.name) if setting.name in _FIELDS else Into("options", (setting.name,))


def _option_setting(name: str) -> Setting | None:
    setting = SCHEMA.get(name)
    return setting if setting is not None and target(setting).field == "options" else None


def config_from_values(
    folder: Path, values: Mapping[str, Any], *, out_dir: Path | None = None
) -> RunConfig:
    """A RunConfig from settings' values by name (SCHEMA); a setting left out keeps its
    default. TypeError for a name that is no run setting; ValueError (a message a person
    can act on) for values that do not fit."""
    kwargs: dict[str, Any] = {}
    tokens: dict[str, int] = {}
    guards: dict[str, Any] = {}
    options: dict[str, Any] = {}
    for name, value in values.items():
        setting = SCHEMA.get(name)
        if setting is None or not setting.run:
            raise TypeError(f"no run setting named {name!r}")
        into = target(setting)
        nested = {"max_tokens": tokens, "guards": guards, "options": options}.get(into.field)
        if nested is None:
            kwargs[into.field] = value
        else:
            nested.update(dict.fromkeys(into.keys, value))
    if tokens:
        kwargs["max_tokens"] = {**DEFAULT_MAX_TOKENS, **tokens}
    if guards:
        kwargs["guards"] = GuardLimits(**guards)  # ValueError for a limit that cannot trip
    return RunConfig(folder=Path(folder), out_dir=out_dir, options=options, **kwargs)


def with_values(config: RunConfig, values: Mapping[str, Any]) -> RunConfig:
    """`config` with the run settings `values` (by SCHEMA's names) in place."""
    kwargs: dict[str, Any] = {}
    for name, value in values.items():
        into = target(SCHEMA[name])
        if into.field == "options":
            kwargs["options"] = {**kwargs.get("options", config.options), name: value}
        elif into.field == "max_tokens":
            tokens = kwargs.get("max_tokens", dict(config.max_tokens))
            kwargs["max_tokens"] = {**tokens, **dict.fromkeys(into.keys, value)}
        elif into.field == "guards":
            guards = kwargs.get("guards", config.guards)
            kwargs["guards"] = replace(guards, **dict.fromkeys(into.keys, value))
        else:
            kwargs[into.field] = value
    return replace(config, **kwargs)


def config_from_public(data: dict[str, Any], api_key: str | None) -> RunConfig:
    """A run's configuration as its run.json states it: data to read (its prices, its
    limits), never a configuration to run with. A run continued from its folder gets
    its configuration from rundir/resume.py, which takes little of this."""
    known = _FIELDS - {"api_key", "guards", "folder", "out_dir", "options"}
    values = {k: v for k, v in data.items() if k in known}
    options = {k: v for k, v in data.items() if _option_setting(k) is not None}
    guards = GuardLimits(**data.get("guards", {}))
    out = Path(data["out_dir"]) if data.get("out_dir") else None
    return RunConfig(
        folder=Path(data["folder"]),
        out_dir=out,
        api_key=api_key,
        guards=guards,
        options=options,
        **values,
    )


@dataclass
class Settings:
    """The person's settings (settings.json; saved.py reads and writes it). Defaults are
    SCHEMA's; a saved setting without a field here lives in `options`."""

    provider: str = _default("provider")  # a key of PROVIDERS, or "custom"
    base_url: str = _default("base_url")
    explore_model: str = _default("explore_model")
    write_model: str = _default("write_model")
    vision_model: str | None = _default("vision_model")
    template: str | None = _default("template")  # None: the report language's default
    report_lang: str | None = _default("lang")  # "en" | "zh" | None (decided by the run)
    reflect: int | None = _default("reflect")  # None: the template's number of rounds
    ui_language: str = _default("ui_language")  # "system" | "en" | "zh_CN"
    budget_tokens: int | None = _default("budget_tokens")
    max_minutes: float = _default("max_minutes")  # the run's wall-clock limit
    # model -> {"prompt": USD per 1M tokens, "completion": USD per 1M tokens}
    prices: dict[str, dict[str, float]] = field(default_factory=dict)
    recent_folders: list[str] = field(default_factory=list)  # most recent first
    options: dict[str, Any] = field(default_factory=dict)

    def get(self, name: str) -> Any:
        """The value of the saved setting `name` (SCHEMA's name, e.g. "lang")."""
        setting = SCHEMA[name]
        if setting.key in _SETTINGS_FIELDS:
            return getattr(self, setting.key)
        return self.options.get(setting.key, setting.fresh_default())

    def updated(self, values: Mapping[str, Any]) -> Settings:
        """A copy (nothing shared) with the saved settings `values` (by SCHEMA's names)."""
        out = copy.deepcopy(self)
        for name, value in values.items():
            setting = SCHEMA[name]
            if setting.key in _SETTINGS_FIELDS:
                setattr(out, setting.key, value)
            else:
                out.options[setting.key] = value
        return out

    def remember_folder(self, folder: Path) -> None:
        """Put `folder` first in the recent list (deduplicated, at most MAX_RECENT)."""
        path = str(Path(folder).expanduser().resolve())
        self.recent_folders = [path] + [f for f in self.recent_folders if f != path]
        del self.recent_folders[MAX_RECENT:]

    def cost(self, model: str, prompt_tokens: int, completion_tokens: int) -> float | None:
        """Estimated USD for these tokens on `model`; None when its price is unknown."""
        return call_usd(self.prices, model, None, prompt_tokens, completion_tokens)


_SETTINGS_FIELDS = frozenset(f.name for f in fields(Settings)) - {"options"}


def labwright_home() -> Path:
    """Where settings and runs live: $LABWRIGHT_HOME, else the platform's data dir."""
    env = os.environ.get("LABWRIGHT_HOME")
    if env:
        return Path(env).expanduser()
    if sys.platform == "win32":
        return Path(os.environ.get("APPDATA", Path.home())) / "Labwright"
    if sys.platform == "darwin":
        return Path.home() / "Library" / "Application Support" / "Labwright"
    return Path(os.environ.get("XDG_DATA_HOME", Path.home() / ".local" / "share")) / "labwright"
