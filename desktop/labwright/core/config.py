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

ROLES = ("explore", "write", "reflect", "vision", "fix")


@dataclass(frozen=True)
class Provider:
    name: str
    base_url: str
    explore_model: str
    write_model: str
    vision_model: str | None
    key_env: tuple[str, ...]
    needs_key: bool = True


PROVIDERS: dict[str, Provider] = {
    "deepseek": Provider(
        "deepseek",
        "https://api.deepseek.com/v1",
        "deepseek-chat",
        "deepseek-chat",
        None,
        ("LABWRIGHT_API_KEY", "DEEPSEEK_API_KEY"),
    ),
    "openai": Provider(
        "openai",
        "https://api.openai.com/v1",
        "gpt-4o-mini",
        "gpt-4o",
        "gpt-4o-mini",
        ("LABWRIGHT_API_KEY", "OPENAI_API_KEY"),
    ),
    "ollama": Provider(
        "ollama",
        "http://localhost:11434/v1",
        "qwen2.5:7b",
        "qwen2.5:7b",
        None,
        ("LABWRIGHT_API_KEY",),
        needs_key=False,
    ),
}
DEFAULT_PROVIDER = "deepseek"


def provider_for_url(base_url: str | None) -> Provider:
    """The preset whose URL matches, else DeepSeek's defaults for a custom URL."""
    if not base_url:
        return PROVIDERS[DEFAULT_PROVIDER]
    for p in PROVIDERS.values():
        if base_url.rstrip("/").startswith(p.base_url.rstrip("/").removesuffix("/v1")):
            return p
    return replace(PROVIDERS[DEFAULT_PROVIDER], name="custom", base_url=base_url)


@dataclass(frozen=True)
class GuardLimits:
    """Thresholds of the exploration guards (DESIGN.md). Tunable, never off."""

    nudge_at: int = 3  # occurrence of one fingerprint that earns a nudge (once)
    stop_at: int = 5  # occurrence that stops exploration
    failure_limit: int = 3  # consecutive failures of one tool that withdraw it
    evidence_refusals: int = 2  # refused finish_exploration calls before giving up
    final_window: int = 2  # extra turns past the budget, finish forced
    dedup_head_chars: int = 600  # how much of an earlier result a dedup returns

    def __post_init__(self) -> None:
        for f in fields(self):
            if getattr(self, f.name) < 1:
                raise ValueError(f"guard limit {f.name} must be at least 1")
        if self.stop_at <= self.nudge_at:
            raise ValueError("stop_at must be greater than nudge_at")


@dataclass(frozen=True)
class RunConfig:
    folder: Path
    out_dir: Path | None = None
    base_url: str = PROVIDERS[DEFAULT_PROVIDER].base_url
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
    request_timeout_s: float = 120.0
    max_retries: int = 4
    guards: GuardLimits = field(default_factory=GuardLimits)

    def public_dict(self) -> dict[str, Any]:
        """Everything but the key, JSON-able."""
        out: dict[str, Any] = {}
        for f in fields(self):
            if f.name == "api_key":
                continue
            value = getattr(self, f.name)
            if isinstance(value, Path):
                value = str(value)
            elif isinstance(value, GuardLimits):
                value = {g.name: getattr(value, g.name) for g in fields(value)}
            out[f.name] = value
        out["api_key_set"] = bool(self.api_key)
        return out


def config_from_public(data: dict[str, Any], api_key: str | None) -> RunConfig:
    """Rebuild a run's configuration from run.json (for --resume); the key comes anew."""
    known = {f.name for f in fields(RunConfig)} - {"api_key", "guards", "folder", "out_dir"}
    values = {k: v for k, v in data.items() if k in known}
    guards = GuardLimits(**data.get("guards", {}))
    out = Path(data["out_dir"]) if data.get("out_dir") else None
    return RunConfig(folder=Path(data["folder"]), out_dir=out, api_key=api_key, guards=guards, **values)


def key_from_env(base_url: str | None = None) -> str | None:
    """The first API key found in the environment for this provider."""
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


def resources_dir() -> Path:
    """resources/ beside desktop/ in a checkout; LABWRIGHT_RESOURCES in a bundle."""
    env = os.environ.get("LABWRIGHT_RESOURCES")
    if env:
        return Path(env)
    return Path(__file__).resolve().parents[3] / "resources"
