"""The person's settings file, settings.json: read, migrated, written. No Qt here.

`settings.json` lives in `labwright_home()` and never holds a key: keys go to the
OS keyring, a file of their own or the session (keys.py). Which settings it keeps, their kinds and defaults are
config.SCHEMA's (the `saved` ones); which source wins (flags, environment,
keyring, this file, presets) is decided in resolve.py.

Loading never fails: a missing file gives the defaults, and a broken one is
moved aside to `settings.json.bad-<timestamp>` (so nothing is lost) and gives
the defaults too. `settings_problem()` then says what happened, for the window
to show once. A value its setting cannot take gives that setting's default and
leaves the others alone; unknown keys are ignored.

The file carries a `version` (SETTINGS_VERSION). A file of an older version is
brought up to this one by MIGRATIONS, one version at a time, before it is read
(as napari's settings migrators do); a file of a newer Labwright is read as far
as this one understands it. A file without a version is a version 1 file: every
release so far wrote `"version": 1`.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from labwright.core.atomic import atomic_write_json
from labwright.core.settings.config import (
    CUSTOM,
    MAX_RECENT,
    PROVIDERS,
    SCHEMA,
    RunConfig,
    Settings,
    config_from_values,
    labwright_home,
)
from labwright.core.settings.keys import (
    FILE,
    KEYRING,
    KEYRING_SERVICE,
    SESSION,
    KeyStoreError,
    get_api_key,
    key_env_names,
    key_stores,
    keyring_available,
    keyring_name,
    mask_key,
    set_api_key,
    stored_key,
    stored_key_where,
)
from labwright.core.step_words import Words

# Names of this module before keys.py and the schema; kept for the app and the tests.
__all__ = [
    "CUSTOM",
    "FILE",
    "KEYRING",
    "KEYRING_SERVICE",
    "MAX_RECENT",
    "MIGRATIONS",
    "SESSION",
    "SETTINGS_VERSION",
    "KeyStoreError",
    "Migration",
    "Settings",
    "get_api_key",
    "key_env_names",
    "key_stores",
    "keyring_available",
    "keyring_name",
    "load_settings",
    "mask_key",
    "preset_settings",
    "run_config",
    "save_settings",
    "set_api_key",
    "settings_path",
    "settings_problem",
    "stored_key",
    "stored_key_where",
]

SETTINGS_VERSION = 1


@dataclass(frozen=True)
class Migration:
    """Turns the parsed JSON of a settings.json of version `from_version` into that of
    the next version (renamed keys, changed units); what it does not touch stays."""

    from_version: int
    run: Callable[[dict[str, Any]], dict[str, Any]]


# One per version after the first, in order: MIGRATIONS[i] takes version i + 1 to i + 2.
MIGRATIONS: tuple[Migration, ...] = ()


def migrate(data: dict[str, Any]) -> dict[str, Any]:
    """`data` (a settings.json object) brought up to SETTINGS_VERSION; a newer one as it is."""
    version = data.get("version", 1)
    if isinstance(version, bool) or not isinstance(version, int) or version < 1:
        version = 1  # a hand-edited version: read the file as the first one
    for migration in MIGRATIONS:
        if migration.from_version == version and version < SETTINGS_VERSION:
            data = migration.run(dict(data))
            version += 1
    return {**data, "version": version}


def preset_settings(provider: str, current: Settings | None = None) -> Settings:
    """`current` switched to a provider preset: its URL and default models.

    "custom" keeps the URL and models the user had, since there is nothing to
    fill them in with.
    """
    s = Settings() if current is None else current.updated({})
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
    return settings_from_json(migrate(data))


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
    (a URL's userinfo is dropped too: a key typed there belongs in the keyring)."""
    data = {setting.key: setting.kind.to_file(s.get(setting.name)) for setting in SCHEMA.saved()}
    atomic_write_json(settings_path(), {"version": SETTINGS_VERSION, **data})


def settings_from_json(data: dict[str, Any]) -> Settings:
    """Settings from settings.json's object (of this version): each saved setting read
    by its kind, a value it cannot take giving its default; unknown keys ignored."""
    s = Settings().updated(
        {setting.name: setting.read(data.get(setting.key)) for setting in SCHEMA.saved()}
    )
    if s.provider in PROVIDERS:
        # A preset's URL is not editable in the window: a hand-edited one would be invisible.
        s.base_url = PROVIDERS[s.provider].base_url
    return s


# --- runs ---------------------------------------------------------------------


def run_config(s: Settings, folder: Path, *, api_key: str | None, **overrides: Any) -> RunConfig:
    """The RunConfig for a run on `folder` from these settings; `overrides` (by the
    settings' names, and `out_dir`) win. TypeError for a name that is no run setting."""
    values: dict[str, Any] = {x.name: s.get(x.name) for x in SCHEMA.run() if x.saved}
    values["prices"] = {m: dict(p) for m, p in s.prices.items()}
    values["api_key"] = api_key
    out_dir = overrides.pop("out_dir", None)
    values.update(overrides)
    return config_from_values(folder, values, out_dir=out_dir)
