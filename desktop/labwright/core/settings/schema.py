"""How a setting is declared: the kinds of value it takes, its command-line flag, its
widget in the Settings dialog, and where its value goes in a run. No Qt here.

The settings themselves are declared once, in config.py (`SCHEMA`), from which come
the options of `labwright run`, the Settings dialog's widgets and checks, the reading
and writing of settings.json (saved.py) and run.json's `config`. The shape follows
qutebrowser's configdata.yml (one entry per option: type, default, description) and
configtypes.py (a type checks and converts a value); docs/development.md says how to
add a setting.
"""

from __future__ import annotations

import copy
import enum
import math
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any, TypeGuard

from labwright.core.secrets import redact_url
from labwright.core.step_words import Words

Message = str  # an English sentence, or a `Words` (a str that keeps its template's code)


class Invalid(ValueError):
    """A value from a file that its setting cannot take: the setting keeps its default."""


class Kind:
    """A kind of value: what a value must be (`problem`), how a file's JSON and a flag's
    text become one (`from_file`, `from_flag`), and what is written back (`to_file`)."""

    optional = False  # None is a value: "not set" (no budget, the template's own rounds)
    flag_type: Callable[[str], Any] | None = None  # argparse's type=, None: text
    # The message names the flag the person typed (--max-iters), not the setting.
    flag_named = True

    def problem(self, value: Any, name: str) -> Message | None:
        """Why `value` is not one this kind takes (naming it `name`), or None."""
        raise NotImplementedError

    def from_file(self, raw: Any) -> Any:
        """A value read from settings.json; Invalid when it is not one (the default then)."""
        if self.problem(raw, "") is not None:
            raise Invalid(raw)
        return raw

    def from_flag(self, raw: Any) -> Any:
        """A value as argparse parsed it (after flag_type); None: not given."""
        return raw

    def to_file(self, value: Any) -> Any:
        """What settings.json and run.json keep of `value`."""
        return value

    def choices(self) -> tuple[str, ...] | None:
        """The values a flag offers (argparse's choices), or None for any."""
        return None


class Text(Kind):
    """A string; one that is not optional is never blank. In a file, surrounding blanks
    are dropped and an empty text is no value."""

    def __init__(self, *, optional: bool = False) -> None:
        self.optional = optional

    def problem(self, value: Any, name: str) -> Message | None:
        if value is None and self.optional:
            return None
        if not isinstance(value, str):
            return f"{name} must be text"
        return None if self.optional or value.strip() else f"{name} must not be empty"

    def from_file(self, raw: Any) -> Any:
        if isinstance(raw, str) and raw.strip():
            return raw.strip()
        if self.optional and isinstance(raw, str):
            return None  # "" is no model, no template
        raise Invalid(raw)

    def from_flag(self, raw: Any) -> Any:
        return raw or None  # `--base-url ""` is no URL: the next source gives one


class Url(Text):
    """An API URL. A key typed into it (https://user:key@host/v1) is never written."""

    def to_file(self, value: Any) -> Any:
        return redact_url(value) if isinstance(value, str) and value else value


class Choice(Kind):
    """One of a few names. `offered`: whether the flag lists them (argparse's choices)."""

    def __init__(
        self,
        values: tuple[str, ...] | Callable[[], Iterable[str]],
        *,
        optional: bool = False,
        offered: bool = True,
        unknown: Callable[[Any, tuple[str, ...]], Message] | None = None,
    ) -> None:
        self._values = values
        self.optional = optional
        self.offered = offered
        self._unknown = unknown

    def values(self) -> tuple[str, ...]:
        return self._values if isinstance(self._values, tuple) else tuple(self._values())

    def problem(self, value: Any, name: str) -> Message | None:
        if value is None and self.optional:
            return None
        values = self.values()
        if isinstance(value, str) and value in values:
            return None
        if self._unknown is not None:
            return self._unknown(value, values)
        return f"{name} must be one of {', '.join(values)}"

    def from_file(self, raw: Any) -> Any:
        return super().from_file(raw.strip() if isinstance(raw, str) else raw)

    def choices(self) -> tuple[str, ...] | None:
        return self.values() if self.offered else None


class Switch(Kind):
    """On or off: true or false, never 1 or "yes"."""

    def problem(self, value: Any, name: str) -> Message | None:
        return None if isinstance(value, bool) else f"{name} must be true or false"


class Count(Kind):
    """A whole number from `minimum` (to `maximum`). bool is an int in Python: `true`
    rounds of reflection is a broken value, not 1."""

    flag_type = int

    def __init__(self, minimum: int, maximum: int | None = None, *, optional: bool = False):
        self.minimum, self.maximum, self.optional = minimum, maximum, optional

    def problem(self, value: Any, name: str) -> Message | None:
        if value is None and self.optional:
            return None
        if isinstance(value, bool) or not isinstance(value, int):
            return f"{name} must be a whole number"
        if value < self.minimum:
            return f"{name} must be a positive number"
        if self.maximum is not None and value > self.maximum:
            return f"{name} must be at most {self.maximum}"
        return None


class Number(Kind):
    """A positive, finite number: seconds, minutes, or (unit None) a money budget."""

    flag_type = float
    flag_named = False  # RunConfig's messages name the setting; they are the CLI's too

    def __init__(self, unit: str | None, *, optional: bool = False) -> None:
        self.unit, self.optional = unit, optional

    def problem(self, value: Any, name: str) -> Message | None:
        if value is None and self.optional:
            return None
        number = isinstance(value, (int, float)) and not isinstance(value, bool)
        if number and math.isfinite(value) and value > 0:
            return None
        if self.unit is None:
            return Words("budget_positive", name=name)
        return Words(f"positive_{self.unit}", name=name)


class Prices(Kind):
    """USD per 1M tokens per model: {"model": {"prompt": p, "completion": c}}."""

    def problem(self, value: Any, name: str) -> Message | None:
        if not isinstance(value, Mapping):
            return f"{name} must be a table of prices"
        for model, price in value.items():
            if not isinstance(price, Mapping) or set(price) != {"prompt", "completion"}:
                return Words("price_shape", model=repr(model))
            if not all(_is_price(v) for v in price.values()):
                return Words("price_negative", model=repr(model))
        return None

    def from_file(self, raw: Any) -> dict[str, dict[str, float]]:
        """Valid entries only; one bad entry does not cost the person the others."""
        if not isinstance(raw, dict):
            raise Invalid(raw)
        out: dict[str, dict[str, float]] = {}
        for model, price in raw.items():
            if not isinstance(model, str) or not model.strip() or not isinstance(price, dict):
                continue
            p, c = price.get("prompt"), price.get("completion")
            if _is_price(p) and _is_price(c):
                out[model.strip()] = {"prompt": float(p), "completion": float(c)}
        return out

    def from_flag(self, raw: Any) -> Any:
        """`--price MODEL=IN,OUT`, repeated: a table (ValueError for a malformed one)."""
        if raw is None:
            return None
        prices = {}
        for spec in raw:
            model, _, pair = spec.partition("=")
            try:
                prompt, completion = (float(x) for x in pair.split(","))
            except ValueError:
                raise ValueError(
                    f"--price {spec!r}: write MODEL=PROMPT,COMPLETION (USD per 1M tokens)"
                ) from None
            prices[model.strip()] = {"prompt": prompt, "completion": completion}
        return prices


def _is_price(v: Any) -> TypeGuard[int | float]:
    return isinstance(v, (int, float)) and not isinstance(v, bool) and v >= 0 and math.isfinite(v)


class Folders(Kind):
    """Paths, most recent first: no repeats, at most `limit`."""

    def __init__(self, limit: int) -> None:
        self.limit = limit

    def problem(self, value: Any, name: str) -> Message | None:
        ok = isinstance(value, list) and all(isinstance(v, str) for v in value)
        return None if ok else f"{name} must be a list of folders"

    def from_file(self, raw: Any) -> list[str]:
        if not isinstance(raw, list):
            raise Invalid(raw)
        out: list[str] = []
        for item in raw:
            if isinstance(item, str) and item and item not in out:
                out.append(item)
        return out[: self.limit]


@dataclass(frozen=True)
class Flag:
    """The setting's option of `labwright run` (its help is the setting's). `sets`: a
    switch flag sets this value (`--offline` True, `--no-compile` False) and takes none;
    `repeat`: the flag may be given again (`--price`), each time adding to the value;
    `group`: an argparse argument group of `run --help` ("limits")."""

    name: str
    metavar: str | None = None
    group: str | None = None
    sets: bool | None = None
    repeat: bool = False


TR_CONTEXT = "Settings"  # the translation context of the widgets' texts
WIDGET_KINDS = ("spin", "combo", "check", "line")
WIDGET_GROUPS = ("report", "budget", "interface")  # the Settings dialog's boxes they go in


@dataclass(frozen=True)
class Widget:
    """The setting's widget in the Settings dialog, in its box `group` ("report",
    "budget", "interface"), under `label` (with its & shortcut). `name` is the widget's
    objectName. Texts are English; the app translates them (context TR_CONTEXT).

    kind "spin" (a whole number; `none_text` shows the value just below the kind's
    minimum, which means None), "combo" (`items`: value and text; `native`: the values
    whose text stays as it is, a language in its own name), "check", "line"."""

    kind: str
    group: str
    label: str
    name: str
    tip: str = ""
    none_text: str = ""
    suffix: str = ""
    step: int = 1
    minimum: int | None = None  # the widget's own range, when narrower than the kind's
    maximum: int | None = None
    separators: bool = False  # 150,000
    items: tuple[tuple[str, str], ...] = ()
    native: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if self.kind not in WIDGET_KINDS or self.group not in WIDGET_GROUPS:
            raise ValueError(f"{self.name}: a {self.kind!r} widget in the box {self.group!r}")

    def texts(self) -> list[str]:
        """What the person reads, for the translation file."""
        out = [self.label, self.tip, self.none_text, self.suffix]
        out += [text for value, text in self.items if value not in self.native]
        return [t for t in out if t]


class Resume(enum.Enum):
    """What a run continued from its folder (rundir/resume.py) takes of run.json's value.
    A run folder may come from someone else: what it may say is narrow on purpose."""

    MINE = "mine"  # nothing: the person's own value (the server, the key, every switch)
    PLAN = "plan"  # run.json's, checked: the journal's plan was made from it
    MODEL = "model"  # run.json's when the run goes on with the server it was made with
    STRICTER = "stricter"  # the stricter of the two; smaller is stricter, None is no limit
    PRICE = "price"  # the person's, and run.json's where higher or where they have none


@dataclass(frozen=True)
class Into:
    """Where a setting's value goes in RunConfig: the field `field`, or the entries
    `keys` inside it (roles of max_tokens, a limit of guards, a name in options)."""

    field: str
    keys: tuple[str, ...] = ()


@dataclass(frozen=True)
class Setting:
    """One setting. `name` is its key everywhere: RunConfig's field, run.json's config,
    the `flags` of resolve_config, settings.json (unless `saved_as` says otherwise).

    `saved`: the person's settings (settings.json, the Settings dialog) keep it.
    `run`: it is part of a run's configuration (RunConfig, and run.json's config).
    `secret`: never in a file, a log or an event (neither settings.json nor run.json).
    `into`: where in RunConfig (default: its own field, else RunConfig.options).
    `env`: the environment variable that gives it (below flags, above settings.json).
    """

    name: str
    kind: Kind
    default: Any
    help: str  # one line: `run --help` shows it ({default:g} is the default)
    flag: Flag | None = None
    widget: Widget | None = None
    saved: bool = False
    saved_as: str | None = None
    run: bool = True
    secret: bool = False
    into: Into | None = None
    resume: Resume = Resume.MINE
    env: str | None = None

    def __post_init__(self) -> None:
        if self.secret and self.saved:
            raise ValueError(f"{self.name}: a secret is never saved")
        if self.default is not None or not self.kind.optional:
            problem = self.kind.problem(self.default, self.name)
            if problem is not None:
                raise ValueError(f"{self.name}: the default does not fit: {problem}")

    @property
    def key(self) -> str:
        """Its key in settings.json and its attribute of Settings."""
        return self.saved_as or self.name

    def help_text(self) -> str:
        """`help` with its {default:g} filled in."""
        return self.help.format(default=self.default) if "{default" in self.help else self.help

    def fresh_default(self) -> Any:
        return copy.deepcopy(self.default)

    def problem(self, value: Any, *, from_flag: bool = False) -> Message | None:
        """Why `value` cannot be this setting's, or None. `from_flag`: it was typed on the
        command line, and the message names the flag."""
        named = self.flag.name if from_flag and self.flag and self.kind.flag_named else self.name
        return self.kind.problem(value, named)

    def read(self, raw: Any) -> Any:
        """The value a file holds for it; its default when that is not one it takes
        (null included: a file's null is "not set")."""
        if raw is None:
            return self.fresh_default()
        try:
            return self.kind.from_file(raw)
        except Invalid:
            return self.fresh_default()


class Schema:
    """The declared settings, in order (the order of `run --help`). Read at the time of
    use, so a test may add a setting (monkeypatch `settings`)."""

    def __init__(self, settings: Iterable[Setting]) -> None:
        self.settings = tuple(settings)

    def __iter__(self) -> Iterator[Setting]:
        return iter(self.settings)

    def __getitem__(self, name: str) -> Setting:
        for s in self.settings:
            if s.name == name:
                return s
        raise KeyError(name)

    def get(self, name: str) -> Setting | None:
        return next((s for s in self.settings if s.name == name), None)

    def saved(self) -> tuple[Setting, ...]:
        return tuple(s for s in self.settings if s.saved)

    def run(self) -> tuple[Setting, ...]:
        return tuple(s for s in self.settings if s.run)

    def flagged(self) -> tuple[Setting, ...]:
        return tuple(s for s in self.settings if s.flag is not None)

    def widgets(self, group: str) -> tuple[Setting, ...]:
        return tuple(s for s in self.settings if s.widget is not None and s.widget.group == group)

    def texts(self) -> list[str]:
        """Every widget text, for the translation file (scripts/update_translations.py)."""
        return [t for s in self.settings if s.widget is not None for t in s.widget.texts()]

    def flag_values(self, parsed: Mapping[str, Any]) -> dict[str, Any]:
        """The settings given on the command line, checked: {name: value}, from argparse's
        namespace (`vars(args)`, whose dests are the settings' names); a flag not given is
        left out. ValueError naming the flag for a value its setting cannot take."""
        out: dict[str, Any] = {}
        for s in self.flagged():
            assert s.flag is not None
            raw = parsed.get(s.name)
            if raw is None:
                continue
            value = s.kind.from_flag(raw)
            if value is None:
                continue
            problem = s.problem(value, from_flag=True)
            if problem is not None:
                raise ValueError(problem)
            out[s.name] = value
        return out
