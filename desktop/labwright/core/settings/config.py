"""Run configuration: provider, model per role, limits. No secrets leave it.

`RunConfig.public_dict()` is what reaches `run.json` and events; the API key
is held in a field excluded from it and from `repr`.
"""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from labwright.core.secrets import redact_url
from labwright.core.step_words import Words

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


@dataclass(frozen=True)
class Provider:
    name: str
    base_url: str
    explore_model: str
    write_model: str
    vision_model: str | None
    key_env: tuple[str, ...]
    needs_key: bool = True
    label: str = ""  # the name people know it by ("Qwen (DashScope)")
    # Other base URLs of the same service (another region): they count as this preset,
    # for its key variable and its stored key.
    aliases: tuple[str, ...] = ()
    # What to do when a model rejects `tools` here: one sentence naming a model (or
    # the server option) that calls tools. Exploration is nothing but tool calls.
    tools_advice: str = ""

    @property
    def local(self) -> bool:
        """A server on this computer: no key, nothing leaves the machine."""
        return not self.needs_key


# Labwright's own key variable: the key for the server the person named (a flag,
# LABWRIGHT_BASE_URL, their settings). A preset's own variable (DEEPSEEK_API_KEY, ...) goes
# to that preset's server only; LABWRIGHT_API_KEY is the only one any other server gets.
GENERIC_KEY_ENV = ("LABWRIGHT_API_KEY",)
_LOCAL_KEYS = GENERIC_KEY_ENV  # a local server started with a key of its own

# The order here is the order of the app's provider list and of `run --help`.
PROVIDERS: dict[str, Provider] = {
    "deepseek": Provider(
        "deepseek",
        "https://api.deepseek.com/v1",
        "deepseek-chat",
        "deepseek-chat",
        None,
        ("LABWRIGHT_API_KEY", "DEEPSEEK_API_KEY"),
        label="DeepSeek",
        tools_advice="Use deepseek-chat, which calls tools.",
    ),
    "openai": Provider(
        "openai",
        "https://api.openai.com/v1",
        "gpt-4o-mini",
        "gpt-4o",
        "gpt-4o-mini",
        ("LABWRIGHT_API_KEY", "OPENAI_API_KEY"),
        label="OpenAI",
        tools_advice="Use a model that calls tools, e.g. gpt-4o-mini.",
    ),
    # DashScope's OpenAI-compatible mode (Beijing; the international endpoint is an alias).
    "qwen": Provider(
        "qwen",
        "https://dashscope.aliyuncs.com/compatible-mode/v1",
        "qwen-plus",
        "qwen-max",
        "qwen-vl-plus",
        ("LABWRIGHT_API_KEY", "DASHSCOPE_API_KEY"),
        label="Qwen (DashScope)",
        aliases=("https://dashscope-intl.aliyuncs.com/compatible-mode/v1",),
        tools_advice="Use a Qwen model that calls tools, e.g. qwen-plus.",
    ),
    "moonshot": Provider(
        "moonshot",
        "https://api.moonshot.cn/v1",
        "kimi-k2.6",
        "kimi-k2.6",
        "moonshot-v1-32k-vision-preview",
        ("LABWRIGHT_API_KEY", "MOONSHOT_API_KEY"),
        label="Moonshot (Kimi)",
        aliases=("https://api.moonshot.ai/v1",),
        tools_advice="Use a Kimi model that calls tools, e.g. kimi-k2.6.",
    ),
    "siliconflow": Provider(
        "siliconflow",
        "https://api.siliconflow.cn/v1",
        "deepseek-ai/DeepSeek-V3",
        "deepseek-ai/DeepSeek-V3",
        "Qwen/Qwen2.5-VL-72B-Instruct",
        ("LABWRIGHT_API_KEY", "SILICONFLOW_API_KEY"),
        label="SiliconFlow",
        aliases=("https://api.siliconflow.com/v1",),
        tools_advice=(
            "Use a model listed with function calling in SiliconFlow's model list, "
            "e.g. deepseek-ai/DeepSeek-V3."
        ),
    ),
    "openrouter": Provider(
        "openrouter",
        "https://openrouter.ai/api/v1",
        "openai/gpt-4o-mini",
        "openai/gpt-4o",
        "openai/gpt-4o-mini",
        ("LABWRIGHT_API_KEY", "OPENROUTER_API_KEY"),
        label="OpenRouter",
        tools_advice=(
            "Use a model that supports tools (openrouter.ai/models?supported_parameters=tools), "
            "e.g. openai/gpt-4o-mini."
        ),
    ),
    # Servers on this computer. They need no key; their model names are what the person
    # loaded, so the defaults are a common model that calls tools (llama.cpp's server
    # serves the one model it was started with, whatever the name).
    "ollama": Provider(
        "ollama",
        "http://localhost:11434/v1",
        "qwen2.5:7b",
        "qwen2.5:7b",
        None,
        _LOCAL_KEYS,
        needs_key=False,
        label="Ollama",
        tools_advice=(
            "Use a model with tool support (marked “tools” on ollama.com), "
            "e.g. `ollama pull qwen2.5:7b`."
        ),
    ),
    "lmstudio": Provider(
        "lmstudio",
        "http://localhost:1234/v1",
        "qwen2.5-7b-instruct",
        "qwen2.5-7b-instruct",
        None,
        _LOCAL_KEYS,
        needs_key=False,
        label="LM Studio",
        tools_advice="Load a model with tool support in LM Studio, e.g. qwen2.5-7b-instruct.",
    ),
    "llamacpp": Provider(
        "llamacpp",
        "http://localhost:8080/v1",
        "default",
        "default",
        None,
        _LOCAL_KEYS,
        needs_key=False,
        label="llama.cpp server",
        tools_advice=(
            "Start llama-server with --jinja (tool calls go through the model's chat "
            "template), with a model that calls tools, e.g. Qwen2.5-7B-Instruct."
        ),
    ),
    "vllm": Provider(
        "vllm",
        "http://localhost:8000/v1",
        "Qwen/Qwen2.5-7B-Instruct",
        "Qwen/Qwen2.5-7B-Instruct",
        None,
        _LOCAL_KEYS,
        needs_key=False,
        label="vLLM",
        tools_advice=(
            "Start vLLM with --enable-auto-tool-choice --tool-call-parser hermes "
            "(or the parser for your model)."
        ),
    ),
}
DEFAULT_PROVIDER = "deepseek"
CUSTOM = "custom"  # the provider name of "any OpenAI-compatible URL"
PROVIDER_NAMES: tuple[str, ...] = (*PROVIDERS, CUSTOM)  # what --provider accepts
CUSTOM_TOOLS_ADVICE = "Use a model that supports tool (function) calling."


def unknown_provider(name: str) -> Words:
    """The message for a provider name that is not a preset, listing those that are."""
    return Words("unknown_provider", name=repr(name), names=", ".join(PROVIDER_NAMES))


_LOOPBACK = {"localhost", "127.0.0.1", "::1"}


def _url_parts(url: str) -> tuple[str, str, int | None, str]:
    """(scheme, host, port, path) with loopback names alike, default ports filled in."""
    try:
        u = urlsplit(url.strip())
        port = u.port
    except ValueError:
        return ("", url, None, "")
    host = (u.hostname or "").lower()
    host = "localhost" if host in _LOOPBACK else host
    scheme = u.scheme.lower()
    port = port or {"http": 80, "https": 443}.get(scheme)
    return scheme, host, port, u.path.rstrip("/")


def _same_service(url: str, preset_url: str) -> bool:
    """`url` is on the preset's server, under its API path (…/v1 itself optional)."""
    a, b = _url_parts(url), _url_parts(preset_url)
    if a[:3] != b[:3]:
        return False
    root = b[3].removesuffix("/v1")
    return a[3] == root or a[3].startswith(root + "/")


def same_server(a: str | None, b: str | None) -> bool:
    """`a` and `b` are one API endpoint: scheme, host, port and path alike (loopback
    names alike, default ports filled in, a trailing "/" and any userinfo ignored)."""
    if not (isinstance(a, str) and isinstance(b, str) and a.strip() and b.strip()):
        return False
    return _url_parts(a) == _url_parts(b)


def provider_for_url(base_url: str | None) -> Provider:
    """The preset whose URL (or an alias) matches, else a custom server: DeepSeek's model
    names, and no key variable but LABWRIGHT_API_KEY (DeepSeek's key is not its to take)."""
    if not base_url:
        return PROVIDERS[DEFAULT_PROVIDER]
    for p in PROVIDERS.values():
        if any(_same_service(base_url, url) for url in (p.base_url, *p.aliases)):
            return p
    return replace(
        PROVIDERS[DEFAULT_PROVIDER],
        name=CUSTOM,
        base_url=base_url,
        label="Custom",
        aliases=(),
        key_env=GENERIC_KEY_ENV,
        tools_advice=CUSTOM_TOOLS_ADVICE,
    )


def tools_advice(base_url: str | None, provider: str | None = None) -> str:
    """What to do when a model rejects tools (one sentence): the advice of the preset
    `provider` when it is one (at whatever URL), else of the preset the URL belongs to."""
    preset = PROVIDERS.get(provider or "") or provider_for_url(base_url)
    return preset.tools_advice or CUSTOM_TOOLS_ADVICE


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


@dataclass(frozen=True)
class RunConfig:
    folder: Path
    out_dir: Path | None = None
    # repr=False: a URL may carry a key in its userinfo (https://user:key@host/v1)
    base_url: str = field(default=PROVIDERS[DEFAULT_PROVIDER].base_url, repr=False)
    api_key: str | None = field(default=None, repr=False)
    explore_model: str = PROVIDERS[DEFAULT_PROVIDER].explore_model
    write_model: str = PROVIDERS[DEFAULT_PROVIDER].write_model
    vision_model: str | None = None
    template: str | None = None
    lang: str | None = None
    reflect: int | None = None
    max_tool_iters: int = 20
    budget_tokens: int | None = None
    compile: bool = True
    offline: bool = False
    # silence allowed between the bytes of a streamed answer (per attempt); a non-streamed
    # answer is silent until whole, so it is bounded by its call deadline alone (llm.py)
    request_timeout_s: float = 120.0
    max_retries: int = 4
    # The whole of one model call, every retry included: past it the call is cut (llm.py).
    # Exploration turns are short; a draft streamed by a slow local model is not.
    explore_deadline_s: float = 180.0  # explore and vision calls
    write_deadline_s: float = 600.0  # gap, draft, reflect, bib, compile fixes
    # max_tokens sent per role ("explore", "write", ...); a role not listed gets its
    # default (DEFAULT_MAX_TOKENS): every call is bounded. See tokens_for().
    max_tokens: dict[str, int] = field(default_factory=lambda: dict(DEFAULT_MAX_TOKENS), hash=False)
    guards: GuardLimits = field(default_factory=GuardLimits)
    # Money: prices per model in USD per 1M tokens, {"model": {"prompt": p, "completion": c}}.
    # Empty means money is not tracked (the settings window will fill it in).
    prices: dict[str, dict[str, float]] = field(default_factory=dict, hash=False)
    budget_usd: float | None = None  # whole run, all roles
    explore_budget_tokens: int | None = None  # the exploration stage alone
    explore_budget_usd: float | None = None
    # The whole run's wall-clock budget: past it each stage stops at its next safe point
    # (before a model call) and the run ends degraded with what was gathered.
    max_minutes: float = 60.0
    # Run model-written figure code although this machine has no OS confinement
    # (confine.support().any is False); off: figures then come from the tables only.
    allow_unconfined: bool = False
    # The provider preset the run was set up with (--provider, Settings), or "custom";
    # None: unknown (the preset is then the one of base_url). For advice only.
    provider: str | None = None

    def __post_init__(self) -> None:
        # Only the budget fields are checked here; the rest is validated where it is used.
        for name, price in self.prices.items():
            if not isinstance(price, dict) or set(price) != {"prompt", "completion"}:
                raise ValueError(Words("price_shape", model=repr(name)))
            if any(not isinstance(v, (int, float)) or v < 0 for v in price.values()):
                raise ValueError(Words("price_negative", model=repr(name)))
        for name in ("explore_deadline_s", "write_deadline_s", "max_minutes"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not value > 0:
                unit = "minutes" if name == "max_minutes" else "seconds"
                raise ValueError(Words(f"positive_{unit}", name=name))
        for role, limit in self.max_tokens.items():
            if role not in ROLES:
                raise ValueError(Words("max_tokens_role", role=repr(role), roles=", ".join(ROLES)))
            if isinstance(limit, bool) or not isinstance(limit, int) or limit < 1:
                raise ValueError(Words("max_tokens_positive", name=role))
        for name in ("budget_usd", "explore_budget_tokens", "explore_budget_usd"):
            value = getattr(self, name)
            if value is not None and not value > 0:
                raise ValueError(Words("budget_positive", name=name))
        if self.budget_usd is not None or self.explore_budget_usd is not None:
            # A money budget that cannot see a model's spend would be a guard turned off silently.
            used = [self.explore_model, self.write_model, self.vision_model]
            unpriced = [m for m in used if m and m not in self.prices]
            if unpriced:
                raise ValueError(Words("budget_unpriced", models=", ".join(unpriced)))

    def tokens_for(self, role: str) -> int:
        """The max_tokens every call of `role` sends."""
        return self.max_tokens.get(role, DEFAULT_MAX_TOKENS[role])

    def public_dict(self) -> dict[str, Any]:
        """Everything but the key, JSON-able."""
        out: dict[str, Any] = {}
        for f in fields(self):
            if f.name == "api_key":
                continue
            value = getattr(self, f.name)
            if f.name == "base_url":
                value = redact_url(value)  # a key in its userinfo stays out of run.json
            elif isinstance(value, Path):
                value = str(value)
            elif f.name == "max_tokens":
                value = {role: self.tokens_for(role) for role in ROLES}  # what is sent
            elif isinstance(value, GuardLimits):
                value = {g.name: getattr(value, g.name) for g in fields(value)}
            out[f.name] = value
        out["api_key_set"] = bool(self.api_key)
        return out


def config_from_public(data: dict[str, Any], api_key: str | None) -> RunConfig:
    """A run's configuration as its run.json states it: data to read (its prices, its
    limits), never a configuration to run with. A run continued from its folder gets
    its configuration from rundir/resume.py, which takes little of this."""
    known = {f.name for f in fields(RunConfig)} - {"api_key", "guards", "folder", "out_dir"}
    values = {k: v for k, v in data.items() if k in known}
    guards = GuardLimits(**data.get("guards", {}))
    out = Path(data["out_dir"]) if data.get("out_dir") else None
    return RunConfig(
        folder=Path(data["folder"]), out_dir=out, api_key=api_key, guards=guards, **values
    )


def key_from_env(base_url: str | None = None) -> str | None:
    """The first API key found in the environment for the server at `base_url` (a
    preset's own variables for its server, LABWRIGHT_API_KEY alone for any other)."""
    for name in provider_for_url(base_url).key_env:
        value = os.environ.get(name)
        if value:
            return value
    return None


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
