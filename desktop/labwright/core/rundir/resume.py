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

from collections.abc import Mapping
from dataclasses import dataclass, fields, replace
from pathlib import Path
from typing import Any

from labwright.core.rundir.fence import check_run_dir
from labwright.core.rundir.files import RUN_JSON, load_run
from labwright.core.rundir.records import RunFileError, RunRecord
from labwright.core.secrets import redact_url
from labwright.core.settings.config import (
    MAX_REFLECT,
    ROLES,
    SCHEMA,
    GuardLimits,
    RunConfig,
    config_from_public,
    same_server,
    target,
    with_values,
)
from labwright.core.settings.resolve import resolve_config
from labwright.core.settings.saved import Settings
from labwright.core.settings.schema import Resume, Setting

__all__ = ["MAX_REFLECT", "ServerChange", "material_folder", "resumed_config", "server_change"]


def _policy(resume: Resume) -> tuple[Setting, ...]:
    """The run settings whose run.json value is treated so (config.SCHEMA's `resume`)."""
    return tuple(s for s in SCHEMA.run() if s.resume is resume)


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
    run_dir = Path(run_dir).resolve()
    check_run_dir(run_dir)  # before anything of it is used: it may hold links (fence.py)
    record = load_run(run_dir)
    folder = material_folder(record, run_dir)
    recorded = _recorded_config(record, run_dir)
    given = {k: v for k, v in (flags or {}).items() if v is not None}
    mine = resolve_config(folder, flags=given, settings=settings, env=env, provider=provider)
    # run.json's plan values as they are, None included (the template's own rounds):
    # neither the person's settings nor a flag may make the plan differ from the journal's
    values = {s.name: recorded.option(s.name) for s in _policy(Resume.PLAN)}
    if same_server(recorded.base_url, mine.base_url):
        # The run goes on where it was made: with the models it was made with there.
        values.update(
            {s.name: recorded.option(s.name) for s in _policy(Resume.MODEL) if s.name not in given}
        )
    for s in _policy(Resume.STRICTER):
        if s.name not in given and not target(s).keys:
            values[s.name] = _stricter(recorded.option(s.name), mine.option(s.name))
    for s in _policy(Resume.PRICE):
        values[s.name] = _prices(recorded.option(s.name), mine.option(s.name), given.get(s.name))
    config = with_values(mine, values)
    return replace(config, out_dir=run_dir, **_stricter_within(recorded, mine, given))


def server_change(record: RunRecord, config: RunConfig) -> ServerChange | None:
    """Whether `config` (the person's) sends the run to another server than run.json
    names; None when it is the same server, the run is offline, or run.json names none."""
    recorded = record.config.base_url
    if config.offline or recorded is None or not recorded.strip():
        return None
    if same_server(recorded, config.base_url):
        return None
    return ServerChange(redact_url(recorded), redact_url(config.base_url))


def material_folder(record: RunRecord, run_dir: Path) -> Path:
    """The folder the run read, when run.json names it by an absolute path to a folder
    that is there; RunFileError naming it otherwise."""
    raw = record.config.data.get("folder")
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
    obey. RunFileError when a value is not one its setting takes (config.SCHEMA's
    checks, which RunConfig makes): not what Labwright writes."""
    data = record.config.to_dict()
    data["out_dir"] = None
    data["allow_unconfined"] = False  # never read, never kept
    try:
        return config_from_public(data, None)
    except (AttributeError, KeyError, TypeError, ValueError) as e:
        raise _unusable(run_dir, e) from None


def _stricter(recorded: Any, mine: Any) -> Any:
    """The stricter of two limits: the smaller; None is no limit."""
    set_ = [v for v in (recorded, mine) if v is not None]
    return min(set_) if set_ else None


def _stricter_within(
    recorded: RunConfig, mine: RunConfig, given: Mapping[str, Any]
) -> dict[str, Any]:
    """max_tokens of every role and every guard limit the smaller of run.json's and the
    person's, but for what a flag given here set (it stands as given)."""
    set_here = {
        (target(s).field, key) for s in SCHEMA.run() if s.name in given for key in target(s).keys
    }
    tokens = {
        r: mine.tokens_for(r)
        if ("max_tokens", r) in set_here
        else min(recorded.tokens_for(r), mine.tokens_for(r))
        for r in ROLES
    }
    # Smaller is stricter for every guard limit, and the minimum of two valid sets is
    # valid (each of GuardLimits' orderings holds field by field).
    guards = GuardLimits(
        **{
            f.name: getattr(mine.guards, f.name)
            if ("guards", f.name) in set_here
            else min(getattr(recorded.guards, f.name), getattr(mine.guards, f.name))
            for f in fields(GuardLimits)
        }
    )
    return {"max_tokens": tokens, "guards": guards}


def _prices(
    recorded: Mapping[str, Mapping[str, float]],
    mine: Mapping[str, Mapping[str, float]],
    flagged: Mapping[str, Any] | None,
) -> dict[str, dict[str, float]]:
    """The person's prices; run.json's for a model they have none for; where both have
    one, the higher (spend may look larger than it is, never smaller). A --price given
    on this command line stands as given."""
    out = {m: dict(p) for m, p in mine.items()}
    for model, price in recorded.items():
        if model in (flagged or {}):
            continue
        if model not in out:
            out[model] = dict(price)
        else:
            out[model] = {k: max(out[model][k], price[k]) for k in ("prompt", "completion")}
    return out


def _shown(value: Any, limit: int = 80) -> str:
    """A value from run.json for a message: its repr, clipped (a run.json is anyone's)."""
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _unusable(run_dir: Path, why: object) -> RunFileError:
    why = str(why)
    why = why if len(why) <= 200 else why[:199] + "…"
    return RunFileError(f"The configuration in {Path(run_dir) / RUN_JSON} is unusable: {why}.")
