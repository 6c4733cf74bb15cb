"""Where a run's settings come from: one resolution for the CLI and the app.

Precedence, highest first (README, "Where settings come from"):

1. command-line flags (`--base-url`, `--api-key`, `--explore-model`, ...; the app's
   own controls for template, language, reflection rounds and offline);
2. environment variables (`LABWRIGHT_BASE_URL`; `LABWRIGHT_API_KEY`, then the
   provider's own, e.g. `DEEPSEEK_API_KEY`);
3. the key Settings stored, per provider: for this session, in the OS keyring or in a
   file only you can read (keys.py);
4. the saved settings.json (provider, models, template, language, budget, prices);
5. the provider preset's defaults (config.PROVIDERS), by the base URL.

`--provider NAME` is a flag: it picks the preset's URL (a `--base-url` beside it
wins) and its models, unless the saved settings are that very provider and URL.
Saved models belong to the saved provider: when a flag or the environment points
at another URL, that URL's preset models are used instead.

Where a key may go, by the server it is sent to (never by where the URL came from):
a preset's own variable (DEEPSEEK_API_KEY, ...) and its stored key only to that
preset's server (or an alias of it); a key stored for the "custom" provider only to
the custom URL it was saved with; any other server gets `--api-key` or
LABWRIGHT_API_KEY, the key for the URL the person named. Every URL resolved here is
the person's own (a flag, LABWRIGHT_BASE_URL, settings.json, a preset): a run
continued from its folder is resolved here too, and never takes its server from
run.json (rundir/resume.py).

Also here: the "a key is needed" rule (`key_problem`). No Qt here.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from labwright.core.settings.config import SCHEMA, RunConfig
from labwright.core.settings.keys import key_env_names, resolve_key
from labwright.core.settings.providers import (
    CUSTOM,
    PROVIDER_NAMES,
    PROVIDERS,
    provider_for_url,
    unknown_provider,
)
from labwright.core.settings.saved import Settings, load_settings, run_config
from labwright.core.step_words import Words

__all__ = ["key_problem", "resolve_config", "resolve_key", "resolve_with_key_source"]


def _stored_name(base_url: str, settings: Settings | None) -> str | None:
    """The name a key for `base_url` may be stored under (the keyring entry, the key
    file, the session's key: keys.py); None: do not look.

    `settings`: the saved settings when `base_url` is their URL, else None. A custom
    server's stored key goes to the URL it was stored for and no other; a preset's
    stored key to that preset's own server (an alias of it included) and no other.
    """
    if settings is not None and settings.provider == CUSTOM:
        return CUSTOM
    preset = provider_for_url(base_url)
    return preset.name if preset.name in PROVIDERS else None


def resolve_config(
    folder: Path,
    *,
    flags: Mapping[str, Any] | None = None,
    settings: Settings | None = None,
    env: Mapping[str, str] | None = None,
    provider: str | None = None,
) -> RunConfig:
    """The RunConfig for a run on `folder`, in the documented precedence (below)."""
    return resolve_with_key_source(
        folder, flags=flags, settings=settings, env=env, provider=provider
    )[0]


def resolve_with_key_source(
    folder: Path,
    *,
    flags: Mapping[str, Any] | None = None,
    settings: Settings | None = None,
    env: Mapping[str, str] | None = None,
    provider: str | None = None,
) -> tuple[RunConfig, str]:
    """(config, where its key came from): "flag" (`--api-key`), "environment:NAME",
    "session", "keyring", "file" or "none" (keys.resolve_key). For Check Setup, which
    says where the key of the very run it checks is kept.

    The RunConfig for a run on `folder`, in the documented precedence.

    `flags`: settings (config.SCHEMA's names, and `out_dir`) with the values given on
    the command line (config.SCHEMA.flag_values) or by the app's controls; None means
    "not given". `prices` given there are added to the saved ones (a flag's price of a
    model wins). `settings`: the saved settings (default: load_settings()). `env`:
    default os.environ. `provider`: a name of PROVIDER_NAMES (`--provider`; also
    taken from `flags`), or None.
    Raises ValueError (RunConfig's checks) for values that do not fit together, an
    unknown provider, or "custom" without a URL; its message is a `Words` (step_words.py),
    so the app says it in its own language.
    """
    given = {k: v for k, v in (flags or {}).items() if v is not None}
    s = load_settings() if settings is None else settings
    env = os.environ if env is None else env
    provider = given.pop("provider", None) or provider
    url_env = SCHEMA["base_url"].env or ""
    if provider is not None and provider not in PROVIDER_NAMES:
        raise ValueError(unknown_provider(provider))
    preset = PROVIDERS.get(provider or "")

    flag_url = given.pop("base_url", None)
    if preset is not None:
        base_url = flag_url or preset.base_url
    elif provider == CUSTOM:
        saved = s.base_url if s.provider == CUSTOM else None
        base_url = flag_url or env.get(url_env) or saved
        if not base_url:
            raise ValueError(Words("custom_needs_url"))
    else:
        base_url = flag_url or env.get(url_env) or s.base_url
    saved_url = base_url.rstrip("/") == s.base_url.rstrip("/") and provider in (None, s.provider)
    models: dict[str, str | None]
    if saved_url:
        models = {"explore_model": s.explore_model, "write_model": s.write_model}
        models["vision_model"] = s.vision_model
    else:  # another server: the saved models are not its models
        p = preset or provider_for_url(base_url)
        models = {"explore_model": p.explore_model, "write_model": p.write_model}
        models["vision_model"] = p.vision_model

    key = given.pop("api_key", None)  # --api-key: above every other source
    where = "flag"
    if not key:
        # By the server the key would go to: a preset moved to another URL is another
        # server (LABWRIGHT_API_KEY, never its own variable or stored key).
        key, where = _key_for(_stored_name(base_url, s if saved_url else None), base_url, env)
    prices = {m: dict(p) for m, p in s.prices.items()}
    prices.update({m: dict(p) for m, p in given.pop("prices", {}).items()})
    chosen = provider or (s.provider if saved_url else provider_for_url(base_url).name)
    values: dict[str, Any] = {"base_url": base_url, "provider": chosen, **models}
    values.update({"prices": prices, **given})
    return run_config(s, Path(folder), api_key=key, **values), where


def _key_for(
    stored_name: str | None, base_url: str, env: Mapping[str, str]
) -> tuple[str | None, str]:
    if stored_name is not None:
        return resolve_key(stored_name, base_url, env)
    for name in key_env_names(CUSTOM, base_url):  # the environment only
        value = env.get(name)
        if value:
            return value, f"environment:{name}"
    return None, "none"


def key_problem(config: RunConfig) -> str | None:
    """Why this run cannot start for want of a key, or None. One message for the
    CLI, the app and a re-draft, naming every way to supply one."""
    if config.offline or config.api_key:
        return None
    provider = provider_for_url(config.base_url)
    # A custom or local server may need no key; it says so itself (401) if it does.
    if not provider.needs_key or provider.name not in PROVIDERS:
        return None
    return Words("no_key", provider=provider.name, names=" or ".join(provider.key_env))
