"""Tool results and guard details as data: the English sentence unchanged, its code and params beside it."""

from __future__ import annotations

import json
import re

import pytest

from agent_helpers import config_for, of_type, route, run
from fakes import FakeLLM, call, tool_calls
from labwright.core import step_words
from labwright.core.events import Guard, ToolResult, event_from_json
from labwright.core.step_words import STEP_TEXT, Words, step_text


def marked(text: str) -> str:
    """A stand-in translator: every template it knows comes back marked."""
    return "«" + text + "»"


def test_a_words_is_its_english_sentence_and_keeps_its_code():
    w = Words("listed", path="data", count=3)
    assert w == "data: 3 entries" and isinstance(w, str)
    assert w.to_dict() == {"code": "listed", "params": {"path": "data", "count": "3"}}
    assert type(w + "!") is str  # anything built from it is plain English again


def test_events_carry_the_words_in_their_json_and_back():
    result = ToolResult("c1", "list_dir", True, True, False, Words("listed", path=".", count=2))
    data = json.loads(result.to_json())
    assert data["summary"] == ".: 2 entries"
    assert data["words"] == {"code": "listed", "params": {"path": ".", "count": "2"}}
    again = event_from_json(result.to_json())
    assert again == result
    assert step_text(again.words, again.summary, marked) == "«.: 2 entries»"
    guard = Guard("dedup", Words("repeated", call="read_file(a.csv)"))
    assert json.loads(guard.to_json())["words"]["code"] == "repeated"
    # a plain sentence (an older run, a message with no template) has no words in its JSON
    assert "words" not in json.loads(ToolResult("c", "x", True, True, False, "done").to_json())
    assert "words" not in json.loads(Guard("dedup", "x").to_json())


def test_unknown_codes_and_broken_translations_fall_back_to_the_english():
    assert step_text({"code": "from_a_later_version", "params": {}}, "as it was") == "as it was"
    assert step_text(None, "as it was") == "as it was"
    lost = step_text({"code": "listed", "params": {"path": "a"}}, "a: 1 entries", lambda t: t)
    assert lost == "a: 1 entries"  # a param missing from the data


def test_english_params_are_translated_with_the_template():
    said = Words("budget_warn", share=80, label="token budget", spent="8", limit="10")
    text = step_text(said.to_dict(), said, marked)
    assert "«token budget»" in text and text.startswith("«")
    path = Words("listed", path="explore", count=1)  # a folder named like a role: left alone
    assert step_text(path.to_dict(), path, marked) == "«explore: 1 entries»"


def test_every_template_is_in_the_translation_table():
    texts = step_words.all_texts()
    for code, template in STEP_TEXT.items():
        if not re.search("[A-Za-z]", re.sub(r"\{\w*\}", "", template)):
            continue  # only placeholders ("{path}: {why}"): nothing to translate
        assert template in texts, code


@pytest.mark.parametrize(
    "script",
    [
        # the same read again and again: dedup, the nudge, the loop stop
        lambda body, n: tool_calls(call("read_file", {"path": "data/pendulum.csv"})),
        # a listing, a folder read as a file, a missing file, a path outside, then repeats
        lambda body, n: tool_calls(
            call("list_dir", {"path": "."}),
            call("read_file", {"path": "data"}),
            call("read_file", {"path": "nope.csv"}),
            call("read_file", {"path": "../../etc/passwd"}),
        ),
    ],
)
def test_every_step_of_an_exploration_has_words_that_say_the_english(material, tmp_path, script):
    with FakeLLM(route(script)) as llm:
        run(config_for(llm, material, tmp_path / "run"))
    journal = [
        event_from_json(line)
        for line in (tmp_path / "run" / "events.jsonl").read_text(encoding="utf-8").splitlines()
    ]
    steps = of_type(journal, "tool_result") + of_type(journal, "guard")
    assert len(steps) >= 4
    for ev in steps:
        english = ev.summary if ev.type == "tool_result" else ev.detail
        assert ev.words is not None, f"{ev.type} without words: {english!r}"
        assert step_text(ev.words, english) == english  # the data says what the sentence says
        assert step_text(ev.words, english, marked) != english  # and can be said otherwise


def test_mistaken_and_crashed_calls_have_words(material, tmp_path, crashing_reader):
    # arguments missing, of the wrong type, not JSON; a tool that is not there; a crash
    turn = tool_calls(
        call("read_file", {}),
        call("read_file", {"path": "data/pendulum.csv", "offset": True}),
        call("read_file", '{"path": '),
        call("read_file", "[1]"),
        call("no_such_tool", {}),
        call("read_file", {"path": "data/crash1.csv"}),
    )
    with FakeLLM(route(lambda body, n: turn)) as llm:
        events = run(config_for(llm, material, tmp_path / "run"))
    results = of_type(events, "tool_result")[:6]
    codes = [r.words["code"] if r.words else r.summary for r in results]
    assert codes == [
        "arg_missing",
        "arg_not_integer",
        "args_not_json",
        "args_not_object",
        "unknown_tool",
        "tool_crashed",
    ]
    assert results[0].summary == "read_file: missing required argument 'path'"
    assert results[5].summary == "read_file failed: RuntimeError"
    for r in results:
        assert step_text(r.words, r.summary) == r.summary
        assert step_text(r.words, r.summary, marked) != r.summary


def test_settings_that_do_not_fit_say_why_in_words(material):
    from labwright.core.settings.config import RunConfig

    with pytest.raises(ValueError) as e:
        RunConfig(folder=material, budget_usd=1.0, explore_model="m", write_model="m")
    why = e.value.args[0]
    assert why == "a money budget needs prices for: m, m"
    assert step_words.words_of(why) == {"code": "budget_unpriced", "params": {"models": "m, m"}}


def test_a_words_inside_a_words_is_worded_and_survives_a_copy():
    import copy

    inner = Words("probe_tools", model="m")
    outer = Words("provider_answers", provider="p", url="u", count=2, probe=inner)
    assert outer == "p at u answers (2 models); m can call tools"
    again = copy.deepcopy(outer)
    assert again.to_dict() == outer.to_dict()
    data = json.loads(json.dumps(outer.to_dict()))
    assert data["params"]["probe"] == {"code": "probe_tools", "params": {"model": "m"}}
    assert step_text(
        data, outer, marked
    ) == "«{provider} at {url} answers ({count} models); {probe}»".format(
        provider="p", url="u", count=2, probe="«{model} can call tools»".format(model="m")
    )
