"""Reasons and guard kinds: one enumeration, one table of sentences, the same words in the
CLI log, the timeline, the review banner, the export README and in Chinese (issue 12)."""

from __future__ import annotations

import json
import re
import string
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import get_args

import pytest

from agent_helpers import FINISH_ARGS, config_for, of_type, route, run
from fakes import FakeLLM, call, tool_calls
from labwright.cli import LogPrinter, main
from labwright.core.events import Done, Guard, GuardKind
from labwright.core.reasons import (
    GUARD_TEXT,
    REASON_TEXT,
    TR_CONTEXT,
    Degrade,
    Reason,
    all_texts,
    guard_text,
    limits_of,
    model_failed,
    numbers_unmatched,
    reason_text,
)
from labwright.core.report.export import export_report
from labwright.core.report.review import why_degraded
from labwright.core.settings.config import GuardLimits

ROOT = Path(__file__).resolve().parents[1]
CORE = ROOT / "desktop" / "labwright" / "core"
TS = ROOT / "desktop" / "labwright" / "resources" / "translations" / "labwright_zh_CN.ts"


# -- every kind and reason has its sentence ----------------------------------------------


def test_every_guard_kind_and_reason_has_one_sentence():
    assert set(GUARD_TEXT) == set(get_args(GuardKind))
    assert set(REASON_TEXT) == set(Reason)
    assert all(text.strip() for text in [*GUARD_TEXT.values(), *REASON_TEXT.values()])


def _core_sources() -> str:
    return "\n".join(p.read_text(encoding="utf-8") for p in sorted(CORE.rglob("*.py")))


def _guards_sources() -> str:
    guards = sorted((CORE / "agent" / "guards").glob("*.py"))
    assert guards, "the guards moved: point this test at them"
    return "\n".join(p.read_text(encoding="utf-8") for p in guards)


def test_every_guard_kind_the_code_emits_is_in_the_table():
    code = _core_sources()
    emitted = set(re.findall(r"Guard\(\s*\"(\w+)\"", code))
    emitted |= set(re.findall(r"_stop\(\s*\"(\w+)\"", code))
    emitted |= set(re.findall(r"kind(?:, detail)? = \"(\w+)\"", _guards_sources()))
    assert {"dedup", "loop_stop", "tool_disabled", "error_storm", "deadline"} <= emitted
    assert emitted <= set(GUARD_TEXT), emitted - set(GUARD_TEXT)


def test_no_reason_is_written_as_a_bare_string_outside_the_table():
    """Reasons are built from the enum: a literal `degrade("…")` or `end_with("…")` would
    be a reason no table entry is sure to cover."""
    code = _core_sources()
    assert not re.findall(r"(?:degrade|end_with)\(\s*f?\"", code)
    assert not re.findall(r"(?<!status, )result\.reason(?:, result\.\w+)? = \(?\s*\"", code)
    assert not re.findall(r"result\.status, result\.reason = \"\w+\", \"", code)
    assert not re.findall(r"reason=\"(?!offline)", _guards_sources())
    gui = "\n".join(p.read_text(encoding="utf-8") for p in (CORE.parent / "gui").glob("*.py"))
    # reasons=[…] lists hold enum values or reasons read back from a run, never a literal
    listed = re.findall(r"reasons=\[([^\]]*)\]", gui + code)
    assert "Reason.INTERNAL_ERROR.value" in listed
    assert not [x for x in listed if re.match(r"\s*[\"']", x)], listed
    used = set(re.findall(r"\bReason\.([A-Z_]+)\b", code + gui))
    assert used <= set(Reason.__members__), used - set(Reason.__members__)


def test_a_looping_run_reports_a_reason_with_a_sentence(material, tmp_path):
    script = [tool_calls(call("read_file", {"path": "data/pendulum.csv"}))] * 10
    with FakeLLM(route(script)) as llm:
        events = run(config_for(llm, material, tmp_path / "run"))
    (done,) = of_type(events, "done")
    assert done.reasons == ["loop"]
    for guard in of_type(events, "guard"):
        assert guard_text(guard.kind) != guard_text("no such kind")


# -- structured reasons, same strings ----------------------------------------------------


@pytest.mark.parametrize(
    "text, parsed",
    [
        ("model error: auth", Degrade(Reason.MODEL_FAILED, kind="auth")),
        ("model error: timeout", Degrade(Reason.MODEL_FAILED, kind="timeout")),
        ("3 numbers not found in the material", Degrade(Reason.NUMBERS_UNMATCHED, count=3)),
        ("1 number not found in the material", Degrade(Reason.NUMBERS_UNMATCHED, count=1)),
        ("loop", Degrade(Reason.LOOP)),
        ("explore_cancelled", Degrade(Reason.EXPLORE_CANCELLED)),
    ],
)
def test_serialized_reasons_round_trip(text, parsed):
    assert Degrade.parse(text) == parsed
    assert str(parsed) == text


def test_every_reason_round_trips_and_strings_no_version_wrote_are_not_guessed():
    for reason in Reason:
        d = Degrade(reason, kind="deadline", count=2)
        assert Degrade.parse(str(d)).reason is reason
    assert model_failed("auth") == "model error: auth"
    assert numbers_unmatched(2) == "2 numbers not found in the material"
    for odd in ("numbers_unmatched", "model error", "something new", "2 numbers"):
        assert Degrade.parse(odd) is None
    assert reason_text("something new") == "Degraded: something new."


def test_a_failed_model_call_names_its_kind_in_every_place(material, tmp_path):
    """What the issue saw: a model failure was a bare code. Now its kind is in the words."""
    with FakeLLM(route([]), api_key="sk-the-right-one") as llm:
        events = run(config_for(llm, material, tmp_path / "run"))
    (done,) = of_type(events, "done")
    assert done.status == "failed" and done.reasons == ["model error: auth"]
    meta = json.loads((tmp_path / "run" / "run.json").read_text())
    assert meta["reasons"] == ["model error: auth"]  # the serialized form is unchanged
    why = why_degraded(tmp_path / "run")
    assert why.startswith("The model failed (auth).") and "stopped there" in why


# -- the configured limit is what the person reads -----------------------------------------


def test_the_failure_breakers_sentence_quotes_the_configured_limit():
    assert guard_text("tool_disabled", GuardLimits(failure_limit=4)) == (
        "A tool failed 4 times in a row and was withdrawn."
    )
    assert "3 times" in guard_text("tool_disabled")
    assert "12 figures" in guard_text("figure_cap")
    assert limits_of({"config": {"guards": {"failure_limit": 4}}}).failure_limit == 4
    assert limits_of({"config": {"guards": {"failure_limit": -1}}}) == GuardLimits()
    assert limits_of({}) == GuardLimits()


def _failing_reads(n: int) -> list:
    reads = [tool_calls(call("read_file", {"path": "manual.txt"}))]
    reads += [tool_calls(call("read_file", {"path": f"results/crash_{i}.csv"})) for i in range(n)]
    return reads + [tool_calls(call("finish_exploration", FINISH_ARGS))]


def test_the_timeline_of_a_run_with_limit_four_says_four(
    qtbot, window_for, material, tmp_path, crashing_reader
):
    from labwright.gui.timeline import KindRole, StatusRole

    limits = GuardLimits(failure_limit=4)
    with FakeLLM(route(_failing_reads(4))) as llm:
        events = run(config_for(llm, material, tmp_path / "run", guards=limits))
    assert [g.kind for g in of_type(events, "guard")].count("tool_disabled") == 1
    w = window_for()
    w.open_run(tmp_path / "run")  # the limit comes from the run's own run.json
    explore = w.timeline.index(w.timeline.plan.index("explore"), 0)
    rows = [w.timeline.index(r, 0, explore) for r in range(w.timeline.rowCount(explore))]
    (disabled,) = [
        r for r in rows if r.data(KindRole) == "guard" and r.data(StatusRole) == "tool_disabled"
    ]
    assert disabled.data() == "A tool failed 4 times in a row and was withdrawn."
    assert "three" not in disabled.data()


# -- the CLI log, the banner, the README ---------------------------------------------------


def test_the_cli_log_prints_the_plain_explanation():
    p = LogPrinter(GuardLimits(failure_limit=4))
    line = p.format(Guard("tool_disabled", "read_file failed 4 times in a row"))
    assert "! tool_disabled: read_file failed 4 times" in line
    assert "A tool failed 4 times in a row and was withdrawn." in line
    done = p.format(Done("degraded", "report.tex", None, ["model error: auth", "offline"]))
    assert "done: degraded (model error: auth, offline)" in done
    assert "why:    The model failed (auth)." in done
    assert "why:    Offline run: no model read the material." in done


def test_a_cli_run_prints_why_it_is_degraded(material, tmp_path, capsys):
    with FakeLLM(
        route(lambda body, n: tool_calls(call("read_file", {"path": "manual.txt"})))
    ) as llm:
        code = main(
            [
                "run",
                str(material),
                *("--out", str(tmp_path / "run"), "--base-url", llm.base_url),
                *("--api-key", "sk-x", "--explore-model", "fake-explore"),
                *("--write-model", "fake-write", "--no-compile", "--reflect", "0"),
            ]
        )
    assert code == 10
    err = capsys.readouterr().err
    assert GUARD_TEXT["loop_stop"] in err
    assert f"why:    {REASON_TEXT[Reason.LOOP]}" in err


def test_banner_and_export_readme_carry_the_same_sentence(material, tmp_path):
    script = [tool_calls(call("read_file", {"path": "data/pendulum.csv"}))] * 10
    with FakeLLM(route(script)) as llm:
        run(config_for(llm, material, tmp_path / "run"))
    why = why_degraded(tmp_path / "run")
    assert why.startswith(REASON_TEXT[Reason.LOOP])
    out = export_report(tmp_path / "run", tmp_path / "bundle")
    readme = (out / "README.txt").read_text(encoding="utf-8")
    assert f"This draft is degraded: {why}" in readme
    assert REASON_TEXT[Reason.LOOP] in readme
    # a run that is not degraded says nothing of the kind
    (tmp_path / "run" / "run.json").write_text(json.dumps({"status": "ok", "reasons": []}))
    clean = export_report(tmp_path / "run", tmp_path / "clean")
    assert "degraded" not in (clean / "README.txt").read_text(encoding="utf-8")


# -- Chinese -------------------------------------------------------------------------------


def _fields(text: str) -> set[str]:
    return {f for _, f, _, _ in string.Formatter().parse(text) if f}


def test_every_table_sentence_has_a_chinese_translation_with_the_same_placeholders():
    root = ET.parse(TS).getroot()
    (context,) = [c for c in root.iter("context") if c.findtext("name") == TR_CONTEXT]
    table = {
        m.findtext("source"): m.find("translation")
        for m in context.iter("message")
        if m.find("translation").get("type") not in ("unfinished", "obsolete", "vanished")
    }
    for text in all_texts():
        assert text in table, f"run scripts/update_translations.py: {text!r}"
        zh = table[text].text
        assert zh and zh != text
        assert _fields(zh) == _fields(text), text


def test_the_app_shows_the_table_in_chinese(qapp):
    from labwright.gui.i18n import install_language
    from labwright.gui.timeline import guard_explanation, reason_explanation

    try:
        install_language("zh_CN")
        assert guard_explanation("tool_disabled", GuardLimits(failure_limit=4)) == (
            "某个工具连续失败 4 次，已被停用。"
        )
        # the failure's kind in words, not its code
        assert reason_explanation("model error: auth") == "模型出错（API 密钥被拒绝）。"
    finally:
        install_language("en")
    assert reason_explanation("model error: auth") == "The model failed (the API key was refused)."
    assert guard_explanation("tool_disabled") == guard_text("tool_disabled")


def test_the_history_list_says_why_a_past_run_is_degraded(qtbot, window_for, material):
    from PySide6.QtCore import Qt

    w = window_for()
    w.load_folder(material)
    w.offline_check.setChecked(True)
    with qtbot.waitSignal(w.bridge.finished, timeout=60_000):
        qtbot.mouseClick(w.start_button, Qt.MouseButton.LeftButton)
    w.history.refresh()
    tip = w.history.item(0).toolTip()
    assert "needs review" in tip and REASON_TEXT[Reason.OFFLINE] in tip
    assert "offline" not in tip.split("\n")[1], tip  # plain words, not the reason code
