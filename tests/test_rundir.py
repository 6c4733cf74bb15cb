"""The run directory has one owner (core/rundir/): typed records, one loader with clear
errors, and no other module that opens its files."""

from __future__ import annotations

import ast
import json
import re
from dataclasses import replace
from pathlib import Path

import pytest

from agent_helpers import FINISH_ARGS, config_for, of_type, route, run
from canary import CANARY
from fakes import FakeLLM, call, text, tool_calls
from labwright.core.rundir import names
from labwright.core.rundir.files import (
    RUN_FILES,
    load_evidence,
    load_findings,
    load_gaps,
    load_run,
    save_evidence,
    save_run,
)
from labwright.core.rundir.layout import RunDir
from labwright.core.rundir.records import (
    SCHEMA_VERSION,
    CompileErrorRecord,
    CompileRecord,
    ConfigRecord,
    EvidenceRecord,
    FigureSidecar,
    GapRecord,
    NoteRecord,
    RunFileError,
    RunRecord,
    UsageRecord,
)
from labwright.core.rundir.store import RunDirError

PACKAGE = Path(__file__).resolve().parents[1] / "desktop" / "labwright"

EXPLORE = [
    tool_calls(call("read_file", {"path": "data/pendulum.csv"})),
    tool_calls(call("finish_exploration", {**FINISH_ARGS, "assignment_requirements": ["a plot"]})),
]


def _write(run_dir: Path, data) -> Path:
    run_dir.mkdir(parents=True, exist_ok=True)
    text_ = data if isinstance(data, str) else json.dumps(data)
    (run_dir / "run.json").write_text(text_, encoding="utf-8")
    return run_dir


def _record(**changes) -> RunRecord:
    base = RunRecord(
        status="degraded",
        config={"folder": "/data/pendulum", "offline": False},
        labwright="1.0",
        degraded=True,
        reasons=["compile_failed"],
        plan=["scan", "explore", "draft", "bib", "compile"],
        template="lab-en",
        started=1.5,
        finished=9.0,
        usage={"write": UsageRecord(calls=2, prompt_tokens=10, completion_tokens=5, ms=30)},
        calls={"write": 2},
        total_tokens=15,
        gaps=[GapRecord("a plot", False, "no figure")],
        skeleton=False,
        converged=1,
        unresolved_citations=["smith2020"],
        compile=CompileRecord(ok=False, errors=[CompileErrorRecord("report.tex", 3, "bad")]),
        notes=[
            NoteRecord("bib", "1 BibTeX block(s) from the model did not parse and were dropped.")
        ],
    )
    return replace(base, **changes)


# -- records and the loader ------------------------------------------------------------


def test_run_json_round_trips_through_its_record(tmp_path):
    record = _record()
    save_run(tmp_path, record)
    data = json.loads((tmp_path / "run.json").read_text())
    assert data["schema_version"] == SCHEMA_VERSION
    assert data["compile"]["errors"] == [{"file": "report.tex", "line": 3, "message": "bad"}]
    assert data["notes"] == [{"stage": "bib", "message": record.notes[0].message}]
    assert "ended_by" not in data and "numbers" not in data  # unset stage fields stay absent
    assert load_run(tmp_path) == record


def test_keys_this_version_does_not_know_survive_a_rewrite(tmp_path):
    data = {**_record().to_dict(), "written_by_a_plugin": {"x": 1}}
    _write(tmp_path, data)
    record = load_run(tmp_path)
    record.reasons.append("numbers_unmatched:1")
    save_run(tmp_path, record)
    again = json.loads((tmp_path / "run.json").read_text())
    assert again["written_by_a_plugin"] == {"x": 1}
    assert again["reasons"] == ["compile_failed", "numbers_unmatched:1"]


def test_an_old_run_json_without_a_schema_version_still_loads(tmp_path):
    """As the first releases wrote it: no schema_version, no notes."""
    old = {
        "labwright": "0.1.0",
        "status": "ok",
        "degraded": False,
        "reasons": [],
        "plan": ["scan", "explore", "draft", "bib"],
        "usage": {"write": {"calls": 1, "prompt_tokens": 3, "completion_tokens": 4, "ms": 5}},
        "cost_usd": None,
        "config": {"folder": "/data/x"},
        "skeleton": True,
        "numbers": {"checked": 0, "skipped": "skeleton report"},
    }
    record = load_run(_write(tmp_path, old))
    assert record.schema_version == 1 and record.notes == []
    assert record.folder == Path("/data/x") and record.skeleton is True
    assert record.usage["write"].completion_tokens == 4


def test_an_old_run_json_missing_what_is_needed_says_it_is_too_old(tmp_path):
    _write(tmp_path, {"labwright": "0.0.1", "reasons": []})
    with pytest.raises(RunFileError, match="older Labwright") as e:
        load_run(tmp_path)
    assert "status, config" in str(e.value)


def test_a_run_json_from_a_newer_labwright_is_refused_with_the_way_out(tmp_path):
    _write(tmp_path, {**_record().to_dict(), "schema_version": SCHEMA_VERSION + 1})
    with pytest.raises(RunFileError, match="newer Labwright.*Update Labwright"):
        load_run(tmp_path)


@pytest.mark.parametrize(
    ("content", "says"),
    [
        ('{"status": "ok", "config": {', "run.json in .* is damaged: .* line 1"),
        ("[1, 2]", "does not hold an object"),
        ({"status": "ok", "config": {}, "reasons": "oops"}, "reasons holds a string"),
        ({"status": "ok", "config": {}, "usage": {"write": {"calls": "2"}}}, "usage.write.calls"),
        ({"schema_version": 1, "status": "ok"}, "damaged: the file has no config"),
        ({"schema_version": "1", "status": "ok", "config": {}}, "schema_version is '1'"),
    ],
)
def test_a_broken_run_json_gets_one_clear_error(tmp_path, content, says):
    _write(tmp_path, content)
    with pytest.raises(RunFileError, match=says) as e:
        load_run(tmp_path)
    # one exception type, which the old callers' handlers still catch
    assert isinstance(e.value, RunDirError) and isinstance(e.value, ValueError)
    assert "Traceback" not in str(e.value) and "\n" not in str(e.value)


def test_no_run_json_is_not_a_run_directory(tmp_path):
    with pytest.raises(RunFileError, match="not a Labwright run directory"):
        load_run(tmp_path)


def test_evidence_lines_round_trip_and_a_damaged_line_is_skipped(tmp_path):
    records = [
        EvidenceRecord("data/a.csv", "t,L\n1,2", kind="table", offset=0, end=2),
        EvidenceRecord.from_dict(
            {"path": "figures/f.pdf", "kind": "figure_output", "text": "k=1", "inputs": ["a"]}
        ),
    ]
    save_evidence(tmp_path, records)
    lines = (tmp_path / "evidence.jsonl").read_text().splitlines()
    assert json.loads(lines[1]) == {
        "path": "figures/f.pdf",
        "text": "k=1",
        "kind": "figure_output",
        "inputs": ["a"],
    }  # no offset/end keys where the record had none
    with open(tmp_path / "evidence.jsonl", "a") as f:
        f.write('{"path": "x"}\n{torn')
    assert load_evidence(tmp_path) == records


def test_a_damaged_gaps_file_names_the_item(tmp_path):
    (tmp_path / "gaps.json").write_text('[{"requirement": "a"}, {"supported": true}]')
    with pytest.raises(RunFileError, match=r"gaps.json .* damaged: item 2 has no requirement"):
        load_gaps(tmp_path)


# -- typed from the disk on: spans, run.json's config, figure sidecars ---------------------


def test_evidence_spans_are_a_field_and_damaged_ones_are_kept_as_they_came(tmp_path):
    """ARCHITECTURE.md documents `spans`: they read back typed, not as an unknown key."""
    spans = [{"start": 0, "end": 1, "marker": True, "page": 1}, {"start": 1, "end": 3, "page": 1}]
    line = {"path": "notes.pdf", "text": "a\nb\nc", "kind": "pdf", "offset": 0, "end": 3}
    (tmp_path / "evidence.jsonl").write_text(
        json.dumps({**line, "spans": spans})
        + "\n"
        + json.dumps({**line, "spans": [{"start": "x"}]})
        + "\n"
    )
    good, damaged = load_evidence(tmp_path)
    assert [s.page for s in good.spans] == [1, 1] and good.spans[0].marker
    assert "spans" not in good.unknown
    assert damaged.spans is None and damaged.unknown["spans"] == [{"start": "x"}]
    save_evidence(tmp_path, [good, damaged])  # written back as they were read
    again = [json.loads(x) for x in (tmp_path / "evidence.jsonl").read_text().splitlines()]
    assert again == [{**line, "spans": spans}, {**line, "spans": [{"start": "x"}]}]


def test_run_json_config_reads_typed_and_keeps_what_it_holds_in_order(tmp_path):
    config = {"folder": "/data/x", "zeta": 1, "offline": True, "base_url": "http://h/v1"}
    save_run(tmp_path, _record(config=config))
    meta = load_run(tmp_path)
    assert isinstance(meta.config, ConfigRecord)
    assert (meta.config.folder, meta.config.offline, meta.config.base_url) == (
        "/data/x",
        True,
        "http://h/v1",
    )
    save_run(tmp_path, meta)  # a rewrite (the review's recompile) keeps every key, in order
    assert list(json.loads((tmp_path / "run.json").read_text())["config"]) == list(config)
    # a value Labwright does not write reads as unset, and stays for resume to refuse
    save_run(tmp_path, _record(config={**config, "offline": "yes", "folder": 7}))
    odd = load_run(tmp_path)
    assert not odd.config.offline and odd.config.folder is None and odd.folder is None
    assert odd.config.data["offline"] == "yes"


def _sidecar_json(figures: Path, stem: str) -> dict:
    return json.loads((figures / f"{stem}.json").read_text(encoding="utf-8"))


def test_both_writers_of_a_figure_sidecar_write_what_reads_back_typed(tmp_path, material):
    """figures/<stem>.json was a dict built by two writers and read raw in three places:
    now one record, FigureSidecar, that keeps every field either writer puts there."""
    from labwright.core.agent.sandbox.provenance import InputFile, publish
    from labwright.core.material.tables import extract_tables
    from labwright.core.report.offline.plots import plot_table

    run = RunDir(tmp_path / "run")
    (table,) = extract_tables(material, ["data/pendulum.csv"])
    assert plot_table(table, run.figures, "offline", material) is not None
    data = material / "data" / "pendulum.csv"
    source = InputFile("data/pendulum.csv", data, "ab" * 32, data.stat().st_size)
    publish(
        run.figures,
        "model",
        [(b"%PDF-1.4\n", b"\x89PNG\r\n\x1a\n")],
        code="print(1)",
        caption="A model's plot",
        inputs=[source],
        stdout="1\n",
    )
    offline, model = run.figure("offline"), run.figure("model")
    assert isinstance(offline, FigureSidecar) and isinstance(model, FigureSidecar)
    assert offline.table is not None and offline.table.x == "length_m"
    # what the figure shows reads back typed; T against L bends (T ∝ √L): no line fitted
    assert offline.shows is not None and offline.shows["axes"][0]["curves"][0]["marker"] == "o"
    assert offline.fits is None and offline.fit is None
    assert [i.path for i in offline.inputs] == ["data/pendulum.csv"]
    assert (model.code_file, model.stdout, model.inputs[0].sha256) == ("model.py", "1\n", "ab" * 32)
    for stem, sidecar in (("offline", offline), ("model", model)):
        assert sidecar.unknown == {}  # no field of either writer is unknown to the record
        assert sidecar.to_dict() == _sidecar_json(run.figures, stem)  # nothing lost, in order
        assert list(sidecar.to_dict()) == list(_sidecar_json(run.figures, stem))
    assert [s.filename for s in run.sidecars()] == ["model", "offline"]


def test_a_sidecar_that_is_a_link_too_big_or_no_sidecar_reads_as_none(tmp_path):
    run = RunDir(tmp_path / "run")
    run.figures.mkdir(parents=True)
    outside = tmp_path / "outside.json"
    outside.write_text(json.dumps({"caption": CANARY}))
    (run.figures / "link.json").symlink_to(outside)
    (run.figures / "copy.json").write_text(outside.read_text())
    (run.figures / "big.json").write_text(json.dumps({"caption": "x" * names.MAX_SIDECAR_BYTES}))
    (run.figures / "list.json").write_text("[1, 2]")
    (run.figures / "bad.json").write_text('{"inputs": "all of them"}')
    (run.figures / "bare.json").write_text('{"caption": "A spare plot"}')
    assert [run.figure(s) for s in ("link", "big", "list", "bad", "none")] == [None] * 5
    bare = run.figure("bare")
    assert bare is not None and (bare.filename, bare.caption) == ("bare", "A spare plot")
    # the positive control: what the link points to reads as a sidecar where it is a file
    copy = run.figure("copy")
    assert copy is not None and copy.caption == CANARY


# -- what a run writes ---------------------------------------------------------------------


def test_a_run_writes_the_documented_run_json_and_typed_findings(material, tmp_path):
    with FakeLLM(route(EXPLORE)) as llm:
        run(config_for(llm, material, tmp_path / "run"))
    data = json.loads((tmp_path / "run" / "run.json").read_text())
    # DESIGN.md's fields, and only additive ones besides
    assert {"status", "degraded", "reasons", "usage", "calls", "config"} <= set(data)
    assert data["schema_version"] == SCHEMA_VERSION and data["notes"] == []
    assert "api_key" not in json.dumps(data["config"]).replace("api_key_set", "")
    record = load_run(tmp_path / "run")
    assert record.to_dict() == data and record.unknown == {}
    findings = load_findings(tmp_path / "run")
    assert findings is not None and findings.status == "finished"
    assert findings.files_read == ["data/pendulum.csv"]
    assert [e.path for e in load_evidence(tmp_path / "run")] == ["data/pendulum.csv"]


def _gap_not_json(body):
    prompt = json.dumps(body["messages"][-1].get("content", ""))
    if "Answer with JSON only" in prompt:
        return text("Sure! Here is what I think about the requirements.")
    if "BibTeX" in prompt:
        return text("@misc{broken,\n  title = {unterminated\n")
    from agent_helpers import writer_turn

    return writer_turn(body)


def test_writer_notes_reach_the_journal_and_run_json(material, tmp_path):
    """A gap check answer that was not JSON is not silent any more."""
    with FakeLLM(route(EXPLORE, _gap_not_json)) as llm:
        events = run(config_for(llm, material, tmp_path / "run"))
    errors = [(e.stage, e.message) for e in of_type(events, "error")]
    assert ("gap", "The gap check answer was not JSON; the requirements were left unchecked.") in (
        errors
    )
    notes = json.loads((tmp_path / "run" / "run.json").read_text())["notes"]
    assert {"stage": "gap", "message": errors[0][1]} in notes
    assert of_type(events, "done")[-1].status in ("ok", "degraded")


# -- nobody else opens the run directory's files ----------------------------------------------


def _opens_run_files(path: Path) -> list[str]:
    """Places where `path` builds a path to a run file or hands its name to a call
    (open, read_text, json.loads(...)); names in messages and docstrings do not count."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found = []
    for node in ast.walk(tree):
        args: list[ast.expr] = []
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Div):
            args = [node.left, node.right]
        elif isinstance(node, ast.Call):
            args = [*node.args, *(k.value for k in node.keywords)]
            name = ast.unparse(node.func)
            if name in ("json.loads", "json.load") and any(
                f in ast.unparse(a) for a in args for f in RUN_FILES
            ):
                found.append(f"{path.name}:{node.lineno}: {ast.unparse(node)[:80]}")
                continue
        for a in args:
            if isinstance(a, ast.Constant) and a.value in RUN_FILES:
                found.append(f"{path.name}:{node.lineno}: {ast.unparse(node)[:80]}")
    return found


def test_nothing_outside_rundir_opens_the_run_files():
    rundir = PACKAGE / "core" / "rundir"
    offenders = [
        hit
        for path in sorted(PACKAGE.rglob("*.py"))
        if rundir not in path.parents
        for hit in _opens_run_files(path)
    ]
    assert offenders == []


def test_the_scan_would_see_a_raw_read(tmp_path):
    bad = tmp_path / "bad.py"
    bad.write_text(
        "import json\n"
        "def f(d):\n"
        "    a = json.loads((d / 'run.json').read_text())\n"
        "    return open(d.joinpath('gaps.json')), a\n"
    )
    hits = _opens_run_files(bad)
    assert len(hits) >= 2 and any("gaps.json" in h for h in hits)


# -- nobody else names a run folder's files -----------------------------------------------

# The one string outside core/rundir/ that spells a run-folder name and means something
# else: the stage of DESIGN.md's plan that makes the figures is called "figures" (the
# milestone's `stage` in every journal), defined once, in core/events.py's StageNames.
NOT_A_PATH = {("core/events.py", names.FIGURES): 1}


def _docstrings(tree: ast.AST) -> set[int]:
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
                out.add(id(body[0].value))
    return out


# A path through a folder of the run where an f-string goes on with a name: "- figures/{x}"
_BUILDS_A_PATH = re.compile(
    r"(?<![\w.-])(" + "|".join(re.escape(n) for n in names.ENTRIES) + r")[/\\]$"
)


def names_a_run_entry(text: str, *, goes_on: bool = False) -> bool:
    """Whether `text` is, or builds, a path to an entry of a run folder: the name itself
    ("report.tex"), a path through one ("figures/", "drafts/v", "{figures/" in LaTeX,
    "- figures/" in a prompt), or a SyncTeX file's suffix. A sentence for a person (it
    has spaces) may name a file ("error.txt in the run folder has the details"): only a
    path it goes on to build counts there (`goes_on`: an f-string's value follows)."""
    if not text:
        return False
    if goes_on and _BUILDS_A_PATH.search(text):
        return True
    if any(c.isspace() for c in text):
        return False
    return text.endswith(names.SYNCTEX) or any(
        token in names.ENTRIES for token in re.split(r"[^\w.-]", text)
    )


def run_entry_literals(path: Path) -> list[tuple[str, int, str]]:
    """(line, the string) of every string constant in `path` naming a run-folder entry,
    docstrings and the keys of dict displays (JSON field names: the sandbox's channel
    counts its `figures`) left out."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    skip = _docstrings(tree)
    goes_on: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Dict):
            skip |= {id(k) for k in node.keys if k is not None}
        elif isinstance(node, ast.JoinedStr):
            pairs = zip(node.values, node.values[1:], strict=False)
            goes_on |= {id(a) for a, b in pairs if isinstance(b, ast.FormattedValue)}
    return [
        (node.lineno, node.value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant)
        and isinstance(node.value, str)
        and id(node) not in skip
        and names_a_run_entry(node.value, goes_on=id(node) in goes_on)
    ]


def test_no_module_outside_rundir_names_a_run_file():
    """The run folder has one owner: every other module asks a RunDir (core/rundir/
    layout.py) for a path or a file. A name spelled elsewhere is a second owner."""
    rundir = PACKAGE / "core" / "rundir"
    found: dict[tuple[str, str], list[int]] = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        if rundir in path.parents:
            continue
        for line, value in run_entry_literals(path):
            found.setdefault((path.relative_to(PACKAGE).as_posix(), value), []).append(line)
    offenders = {
        where: lines for where, lines in found.items() if len(lines) > NOT_A_PATH.get(where, 0)
    }
    assert offenders == {}
    # the exception still exists where the test says, or it is to be removed from here
    assert {w: len(found.get(w, [])) for w in NOT_A_PATH} == NOT_A_PATH


def test_the_name_scan_would_see_a_literal(tmp_path):
    bad = tmp_path / "bad.py"
    bad.write_text(
        '"""A docstring may say report.tex."""\n'
        "def f(d, n, stem):\n"
        "    say = 'the report.tex of your run'\n"
        "    meta = {'figures': 2, 'path': 'figures/' + stem}\n"
        "    return d / 'report.pdf', f'drafts/v{n}.tex', d / 'build-review', stem + '.synctex.gz'\n"
    )
    hits = sorted(value for _, value in run_entry_literals(bad))
    assert hits == [".synctex.gz", "build-review", "drafts/v", "figures/", "report.pdf"]
    latex = tmp_path / "latex.py"
    latex.write_text(
        "def g(stem):\n"
        "    return f'\\\\includegraphics{{figures/{stem}.pdf}}', f'- figures/{stem}.pdf: x'\n"
    )
    assert len(run_entry_literals(latex)) == 2
