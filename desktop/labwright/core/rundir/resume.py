"""A run continued from its folder (`labwright run --resume`, re-draft): what it takes
from run.json, and what it does not.

Run folders travel (a classmate's, a TA's example), so run.json is data, never a
configuration to trust (DESIGN.md). A continued run is configured as a new one is,
from the person's flags, environment, keyring and settings (settings/resolve.py), and
takes from run.json only:

- the material folder, when run.json names it by an absolute path to a folder that
  exists (a relative one, such as ".", would be read from wherever the command is
  typed: the person's working folder);
- what the journal's plan was made from: template, report language, reflection
  rounds, compile, offline (checked: a known template, a language Labwright writes,
  at most MAX_REFLECT rounds, true or false);
- the model names, when the run goes on with the server it was made with;
- limits where they are stricter than the person's own (a run.json may tighten a
  limit, never loosen one); a limit given on this command line wins outright;
- prices of models the person has no price for, the higher price where both have one.

Never: the server or a key (where the run was made is only compared, server_change),
`allow_unconfined`, the output folder (the run folder itself), a looser limit.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, fields, replace
from pathlib import Path
from typing import Any

from labwright.core import resources
from labwright.core.rundir.fence import check_run_dir
from labwright.core.rundir.files import RUN_JSON, load_run
from labwright.core.rundir.records import RunFileError, RunRecord
from labwright.core.secrets import redact_url
from labwright.core.settings.config import (
    ROLES,
    GuardLimits,
    RunConfig,
    config_from_public,
    same_server,
)
from labwright.core.settings.saved import REPORT_LANGUAGES, Settings

# More reflection rounds than Settings offers is not a run this Labwright made
# for a person: a run.json asking for a million would plan a million model calls.
MAX_REFLECT = 10

# Limits where less is stricter. Each is the smaller of run.json's and the person's.
_LIMITS = (
    "max_tool_iters",
    "request_timeout_s",
    "max_retries",
    "explore_deadline_s",
    "write_deadline_s",
    "max_minutes",
)
_INTEGER_LIMITS = frozenset(
    {"max_tool_iters", "max_retries", "budget_tokens", "explore_budget_tokens"}
)
# Budgets: None is "no budget", so the stricter one is the one that is set.
_BUDGETS = ("budget_tokens", "budget_usd", "explore_budget_tokens", "explore_budget_usd")
_MODELS = ("explore_model", "write_model", "vision_model")


@dataclass(frozen=True)
class ServerChange:
    """The run was made with `recorded`; the person's settings resolve to `chosen`.
    Both without userinfo (a key may sit there)."""

    recorded: str
    chosen: str


def resumed_config(
    run_dir: Path,
    *,
    flags: Mapping[str, Any] | None = None,
    provider: str | None = None,
    settings: Settings | None = None,
    env: Mapping[str, str] | None = None,
) -> RunConfig:
    """The configuration to continue the run in `run_dir` with (module docstring).

    `flags`, `provider`, `settings` and `env` as for resolve.resolve_config: what the
    person gave on this command line (None: not given), their saved settings and
    environment. A flag given here wins over run.json and settings alike.
    RunFileError (a ValueError) when `run_dir` is not a run this can continue: no
    run.json, a material folder that is not absolute or not there, values that are
    not what Labwright writes. ValueError (a `Words`) when the person's settings and
    the run's limits do not fit together (e.g. a money budget without prices).
    """
    from labwright.core.settings.resolve import resolve_config

    run_dir = Path(run_dir).resolve()
    check_run_dir(run_dir)  # before anything of it is used: it may hold links (fence.py)
    record = load_run(run_dir)
    folder = material_folder(record, run_dir)
    recorded = _recorded_config(record, run_dir)
    given = {k: v for k, v in (flags or {}).items() if v is not None}
    mine = resolve_config(folder, flags=given, settings=settings, env=env, provider=provider)
    # run.json's plan values as they are, None included (the template's own rounds):
    # neither the person's settings nor a flag may make the plan differ from the journal's
    values: dict[str, Any] = {"out_dir": run_dir, **_plan_values(record, run_dir)}
    if same_server(recorded.base_url, mine.base_url):
        # The run goes on where it was made: with the models it was made with there.
        values.update({m: getattr(recorded, m) for m in _MODELS if m not in given})
    values.update(_stricter_limits(recorded, mine, given))
    values["prices"] = _prices(recorded.prices, mine.prices, given.get("prices") or {})
    return replace(mine, **values)


def server_change(record: RunRecord, config: RunConfig) -> ServerChange | None:
    """Whether `config` (the person's) sends the run to another server than run.json
    names; None when it is the same server, the run is offline, or run.json names none."""
    recorded = record.config.get("base_url")
    if config.offline or not isinstance(recorded, str) or not recorded.strip():
        return None
    if same_server(recorded, config.base_url):
        return None
    return ServerChange(redact_url(recorded), redact_url(config.base_url))


def material_folder(record: RunRecord, run_dir: Path) -> Path:
    """The folder the run read, when run.json names it by an absolute path to a folder
    that is there; RunFileError naming it otherwise."""
    raw = record.config.get("folder")
    if not isinstance(raw, str) or not raw.strip():
        raise RunFileError(
            f"{Path(run_dir) / RUN_JSON} does not name the run's material folder; "
            "start a new run on the material instead."
        )
    folder = Path(raw)
    if not folder.is_absolute():
        raise RunFileError(
            f"The run's material folder {_shown(raw, 300)} is not an absolute path: it would be "
            "read from wherever you are now, not from the folder the run was made on. "
            'Labwright refuses it (a run folder someone sent may name "." to read '
            "yours); start a new run on the material instead."
        )
    if not folder.exists():
        raise RunFileError(
            f"The run's material folder {folder} does not exist; it is needed to go on."
        )
    if not folder.is_dir():
        raise RunFileError(f"The run's material folder {folder} is a file, not a folder.")
    return folder


# -- what run.json may still say ------------------------------------------------------


def _recorded_config(record: RunRecord, run_dir: Path) -> RunConfig:
    """run.json's configuration as data: limits and prices to compare with, nothing to
    obey. RunFileError when it is not the shape Labwright writes."""
    data = dict(record.config)
    data["out_dir"] = None
    data["allow_unconfined"] = False  # never read, never kept
    try:
        config = config_from_public(data, None)
    except (AttributeError, KeyError, TypeError, ValueError) as e:
        raise _unusable(run_dir, e) from None
    if not isinstance(config.base_url, str):
        raise _unusable(run_dir, f"base_url is {_shown(config.base_url)}")
    for name in _MODELS:
        value = getattr(config, name)
        if not (isinstance(value, str) or (value is None and name == "vision_model")):
            raise _unusable(run_dir, f"{name} is {_shown(value)}")
    for name in (*_LIMITS, *_BUDGETS):
        value = getattr(config, name)
        if value is None and name in _BUDGETS:
            continue
        if not _positive_number(value, integer=name in _INTEGER_LIMITS, zero=name == "max_retries"):
            raise _unusable(run_dir, f"{name} is {_shown(value)}")
    return config


def _plan_values(record: RunRecord, run_dir: Path) -> dict[str, Any]:
    """What the journal's plan was made from: kept, so the journal still fits the plan."""
    c = record.config
    template, lang, reflect = c.get("template"), c.get("lang"), c.get("reflect")
    templates = resources.names("templates", ".json")  # report/templates.available()
    if template is not None and (not isinstance(template, str) or template not in templates):
        raise _unusable(
            run_dir, f"it names the template {_shown(template)}, which is not one of Labwright's"
        )
    if lang is not None and lang not in REPORT_LANGUAGES:
        raise _unusable(
            run_dir, f"the report language {_shown(lang)} is not one of {REPORT_LANGUAGES}"
        )
    if reflect is not None and not (
        isinstance(reflect, int) and not isinstance(reflect, bool) and 0 <= reflect <= MAX_REFLECT
    ):
        raise _unusable(run_dir, f"reflect is {_shown(reflect)}, not 0 to {MAX_REFLECT} rounds")
    values: dict[str, Any] = {"template": template, "lang": lang, "reflect": reflect}
    for name, default in (("compile", True), ("offline", False)):
        value = c.get(name, default)
        if not isinstance(value, bool):
            raise _unusable(run_dir, f"{name} is {_shown(value)}, not true or false")
        values[name] = value
    return values


def _stricter_limits(
    recorded: RunConfig, mine: RunConfig, given: Mapping[str, Any]
) -> dict[str, Any]:
    """Each limit the stricter of run.json's and the person's; a flag's stays as given."""
    out: dict[str, Any] = {}
    for name in _LIMITS:
        if name not in given:
            out[name] = min(getattr(recorded, name), getattr(mine, name))
    for name in _BUDGETS:
        if name not in given:
            set_ = [v for v in (getattr(recorded, name), getattr(mine, name)) if v is not None]
            out[name] = min(set_) if set_ else None
    if "max_tokens" not in given:
        out["max_tokens"] = {r: min(recorded.tokens_for(r), mine.tokens_for(r)) for r in ROLES}
    if "guards" not in given:
        # Smaller is stricter for every guard limit, and the minimum of two valid sets
        # is valid (each of GuardLimits' orderings holds field by field).
        out["guards"] = GuardLimits(
            **{
                f.name: min(getattr(recorded.guards, f.name), getattr(mine.guards, f.name))
                for f in fields(GuardLimits)
            }
        )
    return out


def _prices(
    recorded: Mapping[str, Mapping[str, float]],
    mine: Mapping[str, Mapping[str, float]],
    flagged: Mapping[str, Any],
) -> dict[str, dict[str, float]]:
    """The person's prices; run.json's for a model they have none for; where both have
    one, the higher (spend may look larger than it is, never smaller). A --price given
    on this command line stands as given."""
    out = {m: dict(p) for m, p in mine.items()}
    for model, price in recorded.items():
        if model in flagged:
            continue
        if model not in out:
            out[model] = dict(price)
        else:
            out[model] = {k: max(out[model][k], price[k]) for k in ("prompt", "completion")}
    return out


def _positive_number(value: Any, *, integer: bool, zero: bool = False) -> bool:
    if isinstance(value, bool) or not isinstance(value, int if integer else (int, float)):
        return False
    if isinstance(value, float) and not math.isfinite(value):  # JSON's Infinity, NaN
        return False
    return value >= 0 if zero else value > 0


def _shown(value: Any, limit: int = 80) -> str:
    """A value from run.json for a message: its repr, clipped (a run.json is anyone's)."""
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _unusable(run_dir: Path, why: object) -> RunFileError:
    why = str(why)
    why = why if len(why) <= 200 else why[:199] + "…"
    return RunFileError(f"The configuration in {Path(run_dir) / RUN_JSON} is unusable: {why}.")
