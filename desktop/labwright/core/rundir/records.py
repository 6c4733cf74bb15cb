"""Typed records of the files in a run directory, and their JSON form.

run.json, findings.json, evidence.jsonl (one record a line), figures.json,
gaps.json and numbers.json are read by other programs (DESIGN.md, "Run
directory"): `to_dict` writes exactly the keys those programs know, plus
additive ones (run.json's `schema_version` and `notes`). `from_dict` checks
every known key's type and keeps keys it does not know, so a rewrite (the
review pane recording a recompile) never drops what another writer put there.

A file that cannot be used raises `RunFileError` with a sentence a person can
act on; files.py turns paths into records.
"""

from __future__ import annotations

import types
from dataclasses import MISSING, dataclass, field, fields, is_dataclass
from pathlib import Path
from typing import Any, ClassVar, TypeVar, Union, get_args, get_origin

from labwright.core.jsonform import field_types, plain
from labwright.core.rundir.errors import RunFileError as RunFileError

# run.json's "schema_version". A run.json without one was written before the field
# existed; its layout is that of version 1.
SCHEMA_VERSION = 1


class _Bad(Exception):
    def __init__(self, where: str, what: str) -> None:
        super().__init__(f"{where} {what}")
        self.where, self.what = where, what


R = TypeVar("R", bound="FileRecord")


@dataclass
class FileRecord:
    """Base of the records: a dataclass with a checked JSON form.

    `_OMIT_NONE` names the fields written only when set (keys that an older run.json
    had only when a stage put them there); `unknown` keeps keys of the file this
    version does not know."""

    _OMIT_NONE: ClassVar[frozenset[str]] = frozenset()

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for f in fields(self):
            if f.name == "unknown":
                continue
            value = getattr(self, f.name)
            if value is None and f.name in self._OMIT_NONE:
                continue
            out[f.name] = plain(value)
        out.update(getattr(self, "unknown", {}))
        return out

    @classmethod
    def from_dict(cls: type[R], data: Any, *, where: str = "") -> R:
        """The record of `data`; raises _Bad naming the first key that does not fit."""
        return _record(cls, data, where)

    @classmethod
    def keeping(cls: type[R], data: dict[str, Any]) -> R:
        """The record of what a part of this run made (a tool's evidence, a figure): a
        key whose value does not fit its field is kept as it is, in `unknown`, and the
        field takes its default. Never raises for the values; `data` must hold what the
        record cannot do without."""
        try:
            return _record(cls, data, "")
        except _Bad:
            pass
        hints = field_types(cls)
        fitting: dict[str, Any] = {}
        for f in fields(cls):
            if f.name == "unknown" or f.name not in data:
                continue
            try:
                fitting[f.name] = _check(data[f.name], hints[f.name], f.name)
            except _Bad:
                continue
        record = _record(cls, fitting, "")
        for key, value in data.items():
            if key not in fitting:
                getattr(record, "unknown", {})[key] = value
        return record


def _record(cls: type[R], data: Any, where: str) -> R:
    if not isinstance(data, dict):
        raise _Bad(where or "the file", f"holds {_kind(data)} where an object was expected")
    hints = field_types(cls)
    values: dict[str, Any] = {}
    missing = []
    known = set()
    for f in fields(cls):
        if f.name == "unknown":
            continue
        known.add(f.name)
        if f.name not in data:
            if f.default is MISSING and f.default_factory is MISSING:
                missing.append(f.name)
            continue
        values[f.name] = _check(data[f.name], hints[f.name], _key(where, f.name))
    if missing:
        raise _Missing(where, missing)
    if any(f.name == "unknown" for f in fields(cls)):
        values["unknown"] = {k: v for k, v in data.items() if k not in known}
    return cls(**values)


class _Missing(_Bad):
    def __init__(self, where: str, names: list[str]) -> None:
        super().__init__(where or "the file", "has no " + ", ".join(names))
        self.names = names


def _key(where: str, name: str) -> str:
    return f"{where}.{name}" if where else name


def _kind(value: Any) -> str:
    names = {dict: "an object", list: "a list", str: "a string", bool: "true/false"}
    if value is None:
        return "null"
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return "a number"
    return names.get(type(value), type(value).__name__)


def _check(value: Any, tp: Any, where: str) -> Any:
    """`value` when it fits the annotation `tp` (records built, ints taken as floats)."""
    if tp is Any:
        return value
    origin = get_origin(tp)
    if origin in (Union, types.UnionType):
        for arg in get_args(tp):
            try:
                return _check(value, arg, where)
            except _Missing:
                raise
            except _Bad:
                continue
        raise _Bad(where, f"holds {_kind(value)}, which is not what this field takes")
    if tp is type(None):
        if value is None:
            return None
        raise _Bad(where, f"holds {_kind(value)} where null was expected")
    if origin is list:
        if not isinstance(value, list):
            raise _Bad(where, f"holds {_kind(value)} where a list was expected")
        (item,) = get_args(tp)
        return [_check(v, item, f"{where}[{i}]") for i, v in enumerate(value)]
    if origin is dict:
        if not isinstance(value, dict):
            raise _Bad(where, f"holds {_kind(value)} where an object was expected")
        _, item = get_args(tp)
        return {str(k): _check(v, item, _key(where, str(k))) for k, v in value.items()}
    if isinstance(tp, type) and is_dataclass(tp) and issubclass(tp, FileRecord):
        return tp.from_dict(value, where=where)
    if tp is float and isinstance(value, (int, float)) and not isinstance(value, bool):
        return float(value) if isinstance(value, int) else value
    if tp is int and isinstance(value, int) and not isinstance(value, bool):
        return value
    if tp in (str, bool) and isinstance(value, tp):
        return value
    expected = {int: "a whole number", float: "a number", str: "a string", bool: "true/false"}
    raise _Bad(where, f"holds {_kind(value)} where {expected.get(tp, str(tp))} was expected")


# -- run.json -------------------------------------------------------------------


@dataclass
class UsageRecord(FileRecord):
    _OMIT_NONE: ClassVar[frozenset[str]] = frozenset({"reasoning_tokens"})
    calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    ms: int = 0
    # the part of completion_tokens a reasoning model spent thinking; only for a role
    # whose server reported some (an added key)
    reasoning_tokens: int | None = None


@dataclass
class CompileErrorRecord(FileRecord):
    """One error of a compile, where TeX placed it; the review's recompile adds the
    source lines around it (`context`)."""

    _OMIT_NONE: ClassVar[frozenset[str]] = frozenset({"context"})
    file: str | None = None
    line: int | None = None
    message: str = ""
    context: str | None = None
    unknown: dict[str, Any] = field(default_factory=dict)


@dataclass
class CompileRecord(FileRecord):
    """The last compile: the pipeline's, or the review pane's (by="review")."""

    _OMIT_NONE: ClassVar[frozenset[str]] = frozenset({"by"})
    ok: bool
    errors: list[CompileErrorRecord] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    seconds: float = 0.0
    fix_rounds: int = 0
    by: str | None = None
    unknown: dict[str, Any] = field(default_factory=dict)


@dataclass
class GapRecord(FileRecord):
    """One requirement of the assignment, and whether the material supports it."""

    _OMIT_NONE: ClassVar[frozenset[str]] = frozenset({"part", "source"})
    requirement: str
    supported: bool | None = None  # None: not checked
    why: str = ""
    part: str | None = None  # the manual's part it belongs to ("Part B: The Q Factor")
    source: str | None = None  # where the manual asks it ("….pdf, p. 7, Analysis 3")
    unknown: dict[str, Any] = field(default_factory=dict)


@dataclass
class NoteRecord(FileRecord):
    """Something that went wrong in a stage without stopping it."""

    stage: str
    message: str


@dataclass
class ConfigRecord(FileRecord):
    """run.json's `config`: the run's configuration as RunConfig.public_dict() wrote it
    (no secrets), kept as it came, in its order.

    A run.json is anyone's (a run folder travels), so its configuration is data to read,
    never to obey: the properties below read what the app and the review need, typed,
    and a value of another type than Labwright writes reads as unset. rundir/resume.py
    judges `data` itself, to refuse a run that names values Labwright does not write."""

    data: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return dict(self.data)

    @classmethod
    def from_dict(cls, data: Any, *, where: str = "") -> ConfigRecord:
        if not isinstance(data, dict):
            raise _Bad(where or "config", f"holds {_kind(data)} where an object was expected")
        return cls(dict(data))

    def _str(self, key: str) -> str | None:
        value = self.data.get(key)
        return value if isinstance(value, str) else None

    @property
    def folder(self) -> str | None:
        """The material folder, as run.json names it (maybe relative: see RunRecord.folder)."""
        return self._str("folder")

    @property
    def base_url(self) -> str | None:
        """The server the run was made with, without userinfo."""
        return self._str("base_url")

    @property
    def offline(self) -> bool:
        return self.data.get("offline") is True

    @property
    def lang(self) -> str | None:
        """The report's language the run was asked for (None: its template's)."""
        return self._str("lang")

    @property
    def guards(self) -> dict[str, Any]:
        """The guard limits the run used (settings/config.GuardLimits' fields)."""
        value = self.data.get("guards")
        return dict(value) if isinstance(value, dict) else {}


@dataclass
class RunRecord(FileRecord):
    """run.json. The stage fields (gaps to compile) are absent until their stage ran."""

    _OMIT_NONE: ClassVar[frozenset[str]] = frozenset(
        {
            "gaps",
            "skeleton",
            "numbers",
            "converged",
            "unresolved_citations",
            "compile",
            "ended_by",
            "error",
        }
    )
    status: str  # "running" | "ok" | "degraded" | "failed" | "cancelled"
    config: ConfigRecord  # RunConfig.public_dict(): no secrets
    schema_version: int = SCHEMA_VERSION
    labwright: str = ""
    degraded: bool = False
    reasons: list[str] = field(default_factory=list)
    plan: list[str] = field(default_factory=list)
    template: str | None = None
    engines: dict[str, Any] = field(default_factory=dict)
    started: float | None = None
    finished: float | None = None
    usage: dict[str, UsageRecord] = field(default_factory=dict)
    calls: dict[str, int] = field(default_factory=dict)
    total_tokens: int = 0
    cost_usd: float | None = None
    # what the stages decided
    gaps: list[GapRecord] | None = None  # gap
    skeleton: bool | None = None  # draft: the report is the offline skeleton
    numbers: dict[str, Any] | None = None  # draft, reflect: Verification.summary()
    converged: int | None = None  # reflect: the round that converged
    unresolved_citations: list[str] | None = None  # bib
    compile: CompileRecord | None = None  # compile, or the review pane's recompile
    # how the run ended, when a failure or a cancel ended it
    ended_by: str | None = None
    error: str | None = None
    # what went wrong without stopping anything (a gap check answer that was not
    # JSON, BibTeX entries that were dropped); also in the journal as `error` events
    notes: list[NoteRecord] = field(default_factory=list)
    unknown: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if isinstance(self.config, dict):  # given as its JSON form
            self.config = ConfigRecord(dict(self.config))

    def to_dict(self) -> dict[str, Any]:
        out = super().to_dict()
        # schema_version leads, so a person opening the file sees it first
        return {"schema_version": out.pop("schema_version"), **out}

    @property
    def folder(self) -> Path | None:
        """The material folder the run read: None when run.json does not say, or names
        a relative path (Labwright writes absolute ones; a relative one would mean
        wherever the reader stands, e.g. "." for their working folder)."""
        folder = self.config.folder
        if not folder or not Path(folder).is_absolute():
            return None
        return Path(folder)

    @property
    def finished_status(self) -> bool:
        return self.status in ("ok", "degraded")


# -- findings.json, figures.json, evidence.jsonl, numbers.json ----------------------


@dataclass
class FindingsRecord(FileRecord):
    """findings.json: what the exploration concluded, or only what it gathered."""

    status: str = "cut_short"  # "finished" | "cut_short" | "no_evidence" | "cancelled"
    reason: str | None = None
    detail: str = ""
    experiment: str | None = None
    goal: str | None = None
    key_findings: list[str] = field(default_factory=list)
    assignment_requirements: list[str] = field(default_factory=list)
    method_approach: str = ""
    sample_report: str = ""
    files_read: list[str] = field(default_factory=list)
    gathered: list[GatheredRecord] = field(default_factory=list)
    figures: list[FigureRecord] = field(default_factory=list)
    unknown: dict[str, Any] = field(default_factory=dict)

    CONCLUSION: ClassVar[tuple[str, ...]] = (
        "experiment",
        "goal",
        "key_findings",
        "assignment_requirements",
        "method_approach",
        "sample_report",
    )

    def conclusion(self) -> dict[str, Any] | None:
        """finish_exploration's arguments, when the exploration finished."""
        if self.status != "finished":
            return None
        return {k: plain(getattr(self, k)) for k in self.CONCLUSION}


@dataclass
class GatheredRecord(FileRecord):
    """What findings.json says of one piece of evidence: where it is (the text is in
    evidence.jsonl)."""

    _OMIT_NONE: ClassVar[frozenset[str]] = frozenset({"kind", "offset", "end"})
    path: str
    kind: str | None = None
    offset: int | None = None
    end: int | None = None
    unknown: dict[str, Any] = field(default_factory=dict)


@dataclass
class FigureRecord(FileRecord):
    """A figure the report may include (figures/<filename>.pdf and .png): an item of
    figures.json and of findings.json's `figures`."""

    _OMIT_NONE: ClassVar[frozenset[str]] = frozenset(
        {"caption_tex", "fit", "fits", "fits_tex", "table_key"}
    )
    filename: str
    caption: str = ""
    pdf: str | None = None
    png: str | None = None
    # the caption as LaTeX, for a plot the offline skeleton drew in the same call
    caption_tex: str | None = None
    fit: dict[str, float] | None = None  # the straight-line fit the offline plot drew
    table_key: str | None = None  # the table it plots: the skeleton puts it beside that table
    fits: list[dict[str, Any]] | None = None  # the fits an offline plot drew (plots.py)
    fits_tex: list[str] | None = None  # ... stated in LaTeX, for the text after the figure
    unknown: dict[str, Any] = field(default_factory=dict)


@dataclass
class InputRecord(FileRecord):
    """A file of the material a figure was drawn from, as it was then."""

    path: str
    sha256: str | None = None
    bytes: int | None = None


@dataclass
class PlottedTable(FileRecord):
    """The table an offline plot drew: its file (and sheet), the rows, the columns."""

    source: str
    sheet: str | None = None
    first_row: int | None = None
    last_row: int | None = None
    x: str = ""
    y: list[str] = field(default_factory=list)
    unknown: dict[str, Any] = field(default_factory=dict)


@dataclass
class PlottedSeries(FileRecord):
    """The files alike an offline overlay plot drew: how many there are, which were drawn."""

    pattern: str
    files: int = 0
    drawn: list[str] = field(default_factory=list)
    x: str = ""
    y: str = ""
    unknown: dict[str, Any] = field(default_factory=dict)


@dataclass
class FigureSidecar(FileRecord):
    """figures/<stem>.json: how a figure was made. Written by the figure sandbox (a
    model's code: `code_file`, `stdout`) and by the offline plots (`table` or `series`;
    `shows`, what the figure shows read back from its artists; `fits` and, as `stdout`,
    what they printed); every other field both write."""

    _OMIT_NONE: ClassVar[frozenset[str]] = frozenset(
        {"code_file", "stdout", "table", "series", "fit", "shows", "fits"}
    )
    filename: str = ""  # the figure's stem: its file's, where a sidecar lacks it
    caption: str = ""
    code: str = ""
    code_file: str | None = None
    inputs: list[InputRecord] = field(default_factory=list)
    files: list[str] = field(default_factory=list)
    figures: int = 1
    created: str = ""
    matplotlib: str = ""
    stdout: str | None = None
    table: PlottedTable | None = None
    series: PlottedSeries | None = None
    fit: dict[str, float] | None = None
    shows: dict[str, Any] | None = None  # offline/drawing.py describe()
    fits: list[dict[str, Any]] | None = None  # offline/plots.py _fit_record()
    unknown: dict[str, Any] = field(default_factory=dict)

    def own_files(self) -> list[str]:
        """The names in `files` that are names in figures/ (a sidecar is anyone's: a path
        there names nothing of this figure)."""
        return [f for f in self.files if "/" not in f and "\\" not in f]


@dataclass
class SpanRecord(FileRecord):
    """Where lines of an evidence excerpt come from (material/readers/page.py's Span, as
    its to_dict writes it): lines [start, end) of the reader's text, and their sheet and
    row, PDF page, notebook cell or Word table; `marker` for the reader's own heading."""

    _OMIT_NONE: ClassVar[frozenset[str]] = frozenset({"sheet", "row", "page", "cell", "table"})
    start: int
    end: int
    marker: bool = False
    sheet: str | None = None
    row: int | None = None
    page: int | None = None
    cell: str | None = None
    table: int | None = None
    unknown: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        out = super().to_dict()
        if not self.marker:  # as Span.to_dict: a line of the material says nothing here
            del out["marker"]
        return out


@dataclass
class EvidenceRecord(FileRecord):
    """One line of evidence.jsonl: text the model was shown, and where it came from."""

    _OMIT_NONE: ClassVar[frozenset[str]] = frozenset(
        {"kind", "offset", "end", "spans", "question", "inputs"}
        | {"input_files", "purpose", "code", "results"}
    )
    path: str
    text: str
    kind: str | None = None
    offset: int | None = None
    end: int | None = None
    # where each line comes from; absent in a record written before readers said so
    spans: list[SpanRecord] | None = None
    question: str | None = None  # an image: what the model asked of it
    inputs: list[str] | None = None  # a figure's printed output: the files its code read
    # what analyze printed (kind "analysis_output"): its files as the code ran (each with
    # its SHA-256), why, the code, and show()'s results by the output line they stand on
    input_files: list[dict[str, Any]] | None = None
    purpose: str | None = None
    code: str | None = None
    results: list[dict[str, Any]] | None = None
    unknown: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def from_dict(cls, data: Any, *, where: str = "") -> EvidenceRecord:
        """As FileRecord's; spans that are not what a reader writes (an edited line) are
        kept as they are, unread: the excerpt stays evidence, placed by its lines."""
        try:
            return _record(cls, data, where)
        except _Bad:
            if not (isinstance(data, dict) and "spans" in data):
                raise
        rest = {k: v for k, v in data.items() if k != "spans"}
        record = _record(cls, rest, where)
        record.unknown["spans"] = data["spans"]
        return record


@dataclass
class NumbersRecord(FileRecord):
    """numbers.json: every number of report.tex, traced to the evidence or not."""

    report: str = "report.tex"
    evidence_numbers: int = 0
    counts: dict[str, int] = field(default_factory=dict)
    unmatched: list[dict[str, Any]] = field(default_factory=list)
    matched: list[dict[str, Any]] = field(default_factory=list)
    skipped: list[dict[str, Any]] = field(default_factory=list)
    open_items: list[dict[str, Any]] = field(default_factory=list)
    unknown: dict[str, Any] = field(default_factory=dict)
