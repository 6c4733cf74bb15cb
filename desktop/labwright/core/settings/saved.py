"""The user's settings (settings.json) and API keys (the OS keyring). No Qt here.

`settings.json` lives in `labwright_home()` and never holds a key: keys go to the
OS keyring (service "labwright", username = provider name). Which source wins
(flags, environment, keyring, this file, presets) is decided in resolve.py.

Loading never fails: a missing file gives the defaults, and a broken one is
moved aside to `settings.json.bad-<timestamp>` (so nothing is lost) and gives
the defaults too. `settings_problem()` then says what happened, for the window
to show once.
"""

from __future__ import annotations

import contextlib
import json
import os
import threading
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, TypeGuard

from labwright.core.atomic import atomic_write_json
from labwright.core.settings.config import (
    CUSTOM,
    DEFAULT_PROVIDER,
    GENERIC_KEY_ENV,
    PROVIDERS,
    RunConfig,
    labwright_home,
    provider_for_url,
)
from labwright.core.step_words import Words

KEYRING_SERVICE = "labwright"
UI_LANGUAGES = ("system", "en", "zh_CN")
REPORT_LANGUAGES = ("en", "zh")
MAX_RECENT = 10
SETTINGS_VERSION = 1

_DEFAULT = PROVIDERS[DEFAULT_PROVIDER]


@dataclass
class Settings:
    provider: str = DEFAULT_PROVIDER  # a key of config.PROVIDERS, or "custom"
    base_url: str = _DEFAULT.base_url
    explore_model: str = _DEFAULT.explore_model
    write_model: str = _DEFAULT.write_model
    vision_model: str | None = _DEFAULT.vision_model
    template: str | None = None  # None: the default template for the report language
    report_lang: str | None = None  # "en" | "zh" | None (decided by the run)
    reflect: int | None = None  # None: the template's number of reflection rounds
    ui_language: str = "system"  # "system" | "en" | "zh_CN"
    budget_tokens: int | None = None
    max_minutes: int | None = None  # the run's wall-clock limit; None: RunConfig's default
    # model -> {"prompt": USD per 1M tokens, "completion": USD per 1M tokens}
    prices: dict[str, dict[str, float]] = field(default_factory=dict)
    recent_folders: list[str] = field(default_factory=list)  # most recent first

    def remember_folder(self, folder: Path) -> None:
        """Put `folder` first in the recent list (deduplicated, at most MAX_RECENT)."""
        path = str(Path(folder).expanduser().resolve())
        self.recent_folders = [path] + [f for f in self.recent_folders if f != path]
        del self.recent_folders[MAX_RECENT:]

    def cost(self, model: str, prompt_tokens: int, completion_tokens: int) -> float | None:
        """Estimated USD for these tokens on `model`; None when its price is unknown."""
        from labwright.core.settings.cost import call_usd

        return call_usd(self.prices, model, None, prompt_tokens, completion_tokens)


def preset_settings(provider: str, current: Settings | None = None) -> Settings:
    """`current` switched to a provider preset: its URL and default models.

    "custom" keeps the URL and models the user had, since there is nothing to
    fill them in with.
    """
    s = Settings() if current is None else Settings(**asdict(current))
    s.provider = provider
    preset = PROVIDERS.get(provider)
    if preset is not None:
        s.base_url = preset.base_url
        s.explore_model = preset.explore_model
        s.write_model = preset.write_model
        s.vision_model = preset.vision_model
    return s


# --- settings.json ------------------------------------------------------------


def settings_path() -> Path:
    return labwright_home() / "settings.json"


_last_problem: str | None = None


def settings_problem() -> str | None:
    """Why the last `load_settings()` fell back to the defaults, or None if it did not."""
    return _last_problem


def load_settings() -> Settings:
    """The saved settings; defaults when missing or unreadable (see settings_problem())."""
    global _last_problem
    _last_problem = None
    path = settings_path()
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        return Settings()
    except OSError as e:
        # Unreadable (permissions, a folder in its place): leave it where it is.
        _last_problem = Words("settings_unreadable", path=path, why=e.strerror or e)
        return Settings()
    try:
        data = json.loads(raw.decode("utf-8"))
        if not isinstance(data, dict):
            raise ValueError("the file does not hold a JSON object")
    except (UnicodeDecodeError, ValueError) as e:
        _last_problem = _move_aside(path, e)
        return Settings()
    return _from_dict(data)


def _move_aside(path: Path, reason: Exception) -> str:
    """Rename a broken settings file so a save cannot overwrite what the user had."""
    aside = path.with_name(f"{path.name}.bad-{time.strftime('%Y%m%d-%H%M%S')}")
    n = 1
    while aside.exists():
        n += 1
        aside = aside.with_name(f"{path.name}.bad-{time.strftime('%Y%m%d-%H%M%S')}-{n}")
    why = str(reason).splitlines()[0][:200] if str(reason) else type(reason).__name__
    try:
        os.replace(path, aside)
    except OSError:
        return Words("settings_damaged", path=path, why=why)
    return Words("settings_kept", why=why, name=aside.name)


def save_settings(s: Settings) -> None:
    """Write settings.json atomically. Settings hold no key, so none can reach the file
    (a URL's userinfo is dropped too)."""
    from labwright.core.secrets import redact_url

    data = asdict(s)
    # A key typed into the URL (https://user:key@host/v1) belongs in the keyring, not here.
    data["base_url"] = redact_url(s.base_url) if s.base_url else s.base_url
    atomic_write_json(settings_path(), {"version": SETTINGS_VERSION, **data})


def _from_dict(data: dict[str, Any]) -> Settings:
    """Settings from parsed JSON: unknown keys ignored, a wrong value falls back to its default."""
    d = Settings()

    def text(name: str) -> str:
        value = data.get(name)
        return value.strip() if isinstance(value, str) and value.strip() else getattr(d, name)

    def optional_text(name: str, allowed: tuple[str, ...] | None = None) -> str | None:
        value = data.get(name)
        if not isinstance(value, str) or not value.strip():
            return None
        value = value.strip()
        return value if allowed is None or value in allowed else getattr(d, name)

    def optional_int(name: str, minimum: int) -> int | None:
        value = data.get(name)
        # bool is an int in Python; `true` rounds of reflection is a broken file, not 1
        if isinstance(value, int) and not isinstance(value, bool) and value >= minimum:
            return value
        return getattr(d, name)

    provider = data.get("provider")
    if provider not in PROVIDERS and provider != CUSTOM:
        provider = d.provider
    ui = data.get("ui_language")
    s = Settings(
        provider=provider,
        base_url=text("base_url"),
        explore_model=text("explore_model"),
        write_model=text("write_model"),
        vision_model=optional_text("vision_model"),
        template=optional_text("template"),
        report_lang=optional_text("report_lang", REPORT_LANGUAGES),
        reflect=optional_int("reflect", 0),
        ui_language=ui if isinstance(ui, str) and ui in UI_LANGUAGES else "system",
        budget_tokens=optional_int("budget_tokens", 1),
        max_minutes=optional_int("max_minutes", 1),
        prices=_prices(data.get("prices")),
        recent_folders=_recent(data.get("recent_folders")),
    )
    if provider in PROVIDERS:
        # A preset's URL is not editable in the window: a hand-edited one would be invisible.
        s.base_url = PROVIDERS[provider].base_url
    return s


def _prices(value: Any) -> dict[str, dict[str, float]]:
    """Valid price entries only; one bad entry does not cost the user the others."""
    if not isinstance(value, dict):
        return {}
    out: dict[str, dict[str, float]] = {}
    for model, price in value.items():
        if not isinstance(model, str) or not model.strip() or not isinstance(price, dict):
            continue
        p, c = price.get("prompt"), price.get("completion")
        if _is_price(p) and _is_price(c):
            out[model.strip()] = {"prompt": float(p), "completion": float(c)}
    return out


def _is_price(v: Any) -> TypeGuard[int | float]:
    return isinstance(v, (int, float)) and not isinstance(v, bool) and v >= 0 and v == v


def _recent(value: Any) -> list[str]:
    if not isinstance(value, list):
        return []
    out: list[str] = []
    for item in value:
        if isinstance(item, str) and item and item not in out:
            out.append(item)
    return out[:MAX_RECENT]


# --- keys ---------------------------------------------------------------------


class KeyStoreError(Exception):
    """The key cannot be stored; the message says what to do instead (and never holds the key)."""


_NO_KEYRING = (
    "No system keyring is available; set LABWRIGHT_API_KEY "
    "(or DEEPSEEK_API_KEY / OPENAI_API_KEY) instead."
)


_keyring_loaded = False


def _keyring() -> Any:
    """The keyring module, imported on first use: it scans its backends, which costs start-up time.

    The first import runs in a thread of its own. keyring keeps, for the life of the
    process, the traceback of an optional import that failed (jaraco's ExceptionTrap
    around `import winreg` in keyring.backends.Windows); through its frames' callers that
    traceback would keep alive whatever the caller's frames hold, such as the window
    whose Start button asked for a key. A thread's frames end at the thread."""
    global _keyring_loaded
    if not _keyring_loaded:
        loader = threading.Thread(target=_import_keyring, name="labwright-keyring")
        loader.start()
        loader.join()
        _keyring_loaded = True
    import keyring
    import keyring.errors

    return keyring


def _import_keyring() -> None:
    import keyring
    import keyring.errors

    with contextlib.suppress(Exception):  # a backend broken at set-up: keyring_available says
        keyring.get_keyring()


def _usable(backend: Any) -> bool:
    from keyring.backends import chainer, fail

    if isinstance(backend, fail.Keyring):
        return False
    if isinstance(backend, chainer.ChainerBackend):
        return bool(backend.backends)  # a chainer with nothing behind it stores nothing
    # keyring's null backend accepts everything and keeps nothing
    return type(backend).__module__ != "keyring.backends.null"


def keyring_available() -> bool:
    """Whether keys can be kept in the OS keyring (else only the environment supplies them)."""
    try:
        return _usable(_keyring().get_keyring())
    except Exception:  # a backend that breaks while being set up is no backend
        return False


def key_env_names(provider: str, base_url: str | None = None) -> tuple[str, ...]:
    """The environment variables whose key may go to `base_url`, in order (the same as
    config.key_from_env); without a URL, to `provider`'s own server.

    A preset's own variable (DEEPSEEK_API_KEY, ...) only to that preset's server or an
    alias of it; any other server, a preset moved by `--base-url` included, gets
    LABWRIGHT_API_KEY only."""
    if base_url:
        return provider_for_url(base_url).key_env
    return PROVIDERS[provider].key_env if provider in PROVIDERS else GENERIC_KEY_ENV


def stored_key(provider: str) -> str | None:
    """The key kept in the OS keyring for `provider`; None without one (or a keyring)."""
    if not keyring_available():
        return None
    keyring = _keyring()
    try:
        return keyring.get_password(KEYRING_SERVICE, provider) or None
    except keyring.errors.KeyringError:
        return None  # a locked or broken keyring: the environment may still help


def get_api_key(provider: str, base_url: str | None = None) -> tuple[str | None, str]:
    """(key, where): the same lookup as resolve.resolve_key (environment, then keyring)."""
    from labwright.core.settings.resolve import resolve_key

    return resolve_key(provider, base_url)


def set_api_key(provider: str, key: str | None) -> None:
    """Store `key` for `provider` in the OS keyring; None or "" forgets it."""
    if not keyring_available():
        raise KeyStoreError(_NO_KEYRING)
    keyring = _keyring()
    try:
        if key:
            keyring.set_password(KEYRING_SERVICE, provider, key)
        else:
            # nothing stored: forgetting it is already done
            with contextlib.suppress(keyring.errors.PasswordDeleteError):
                keyring.delete_password(KEYRING_SERVICE, provider)
    except keyring.errors.KeyringError as e:
        # The backend's own words help (e.g. "collection is locked"); scrub the key anyway.
        detail = str(e).replace(key, "***") if key else str(e)
        raise KeyStoreError(
            f"The system keyring refused the change ({type(e).__name__}: {detail[:200]}). "
            "Unlock the keyring and try again, or set LABWRIGHT_API_KEY instead."
        ) from None


def mask_key(key: str | None) -> str:
    """A recognisable fragment of a key, never the whole: "sk-…f3a9"; "" for no key."""
    if not key:
        return ""
    if len(key) < 12:
        return "…" + key[-2:] if len(key) >= 6 else "…"  # short keys: too little to show
    return f"{key[:3]}…{key[-4:]}"


# --- runs ---------------------------------------------------------------------


def run_config(s: Settings, folder: Path, *, api_key: str | None, **overrides: Any) -> RunConfig:
    """The RunConfig for a run on `folder` from these settings; `overrides` win."""
    values: dict[str, Any] = {
        "folder": Path(folder),
        "base_url": s.base_url,
        "api_key": api_key,
        "explore_model": s.explore_model,
        "write_model": s.write_model,
        "vision_model": s.vision_model,
        "template": s.template,
        "lang": s.report_lang,
        "reflect": s.reflect,
        "budget_tokens": s.budget_tokens,
        "prices": {m: dict(p) for m, p in s.prices.items()},
    }
    if s.max_minutes is not None:
        values["max_minutes"] = float(s.max_minutes)
    values.update(overrides)
    return RunConfig(**values)
