"""One resolution of settings (core/resolve.py) for the CLI and the app, and one price.

Precedence, highest first: flags > environment > keyring (keys) > settings.json >
provider presets. The keyring is the in-memory fake (tests/fake_keyring.py).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from PySide6.QtCore import Qt

from agent_helpers import FINISH_ARGS, config_for, route, run
from fakes import FakeLLM, call, tool_calls
from labwright.cli import main
from labwright.core.llm.client import Usage
from labwright.core.run.pipeline import RedraftError, redraft
from labwright.core.rundir.resume import resumed_config
from labwright.core.settings.config import PROVIDERS, RunConfig
from labwright.core.settings.cost import call_usd, spent_usd
from labwright.core.settings.resolve import key_problem, resolve_config, resolve_key
from labwright.core.settings.saved import Settings, preset_settings, save_settings, set_api_key

KEY = "sk-keyring-0123456789abcdef"
ENV_KEY = "sk-env-0123456789abcdef"
FLAG_KEY = "sk-flag-0123456789abcdef"
EXPLORE = [
    tool_calls(call("read_file", {"path": "data/pendulum.csv"})),
    tool_calls(call("finish_exploration", FINISH_ARGS)),
]


# -- precedence ---------------------------------------------------------------------


def test_preset_defaults_when_nothing_else_is_given(material):
    c = resolve_config(material, settings=Settings(), env={})
    ds = PROVIDERS["deepseek"]
    assert (c.base_url, c.explore_model, c.write_model) == (
        ds.base_url,
        ds.explore_model,
        ds.write_model,
    )
    assert c.api_key is None and c.template is None and c.prices == {}


def test_saved_settings_beat_the_presets(material):
    s = preset_settings("openai")
    s.write_model, s.template, s.report_lang, s.reflect = "gpt-4.1", "lab-zh", "zh", 1
    s.prices = {"gpt-4.1": {"prompt": 2.0, "completion": 8.0}}
    c = resolve_config(material, settings=s, env={})
    assert c.base_url == PROVIDERS["openai"].base_url
    assert (c.explore_model, c.write_model) == (PROVIDERS["openai"].explore_model, "gpt-4.1")
    assert (c.template, c.lang, c.reflect) == ("lab-zh", "zh", 1)
    assert c.prices == s.prices and c.prices is not s.prices


def test_the_keyring_supplies_the_key_settings_cannot_hold(material, memory_keyring):
    set_api_key("openai", KEY)
    c = resolve_config(material, settings=preset_settings("openai"), env={})
    assert c.api_key == KEY
    # one key per provider: DeepSeek's entry is empty
    assert resolve_config(material, settings=Settings(), env={}).api_key is None


def test_the_environment_beats_the_keyring_and_the_saved_url(material, memory_keyring):
    set_api_key("deepseek", KEY)
    s = Settings()
    s.explore_model = "my-saved-model"
    c = resolve_config(material, settings=s, env={"LABWRIGHT_API_KEY": ENV_KEY})
    assert c.api_key == ENV_KEY
    c = resolve_config(material, settings=s, env={"DEEPSEEK_API_KEY": ENV_KEY})
    assert c.api_key == ENV_KEY
    url = PROVIDERS["openai"].base_url
    c = resolve_config(material, settings=s, env={"LABWRIGHT_BASE_URL": url})
    assert c.base_url == url
    # the saved models belong to the saved server: another URL gets its preset's models
    assert c.explore_model == PROVIDERS["openai"].explore_model
    assert c.api_key is None  # DeepSeek's stored key is not sent to OpenAI


def test_flags_beat_the_environment(material, memory_keyring):
    set_api_key("deepseek", KEY)
    s = Settings(prices={"a": {"prompt": 1.0, "completion": 1.0}})
    env = {"LABWRIGHT_API_KEY": ENV_KEY, "LABWRIGHT_BASE_URL": "http://127.0.0.1:9/v1"}
    flags = {
        "api_key": FLAG_KEY,
        "base_url": PROVIDERS["deepseek"].base_url,
        "explore_model": "flag-model",
        "write_model": None,  # not given: the saved one stays
        "prices": {"a": {"prompt": 3.0, "completion": 4.0}, "b": {"prompt": 0, "completion": 0}},
        "reflect": 0,
    }
    c = resolve_config(material, flags=flags, settings=s, env=env)
    assert c.api_key == FLAG_KEY and c.base_url == PROVIDERS["deepseek"].base_url
    assert (c.explore_model, c.write_model, c.reflect) == ("flag-model", s.write_model, 0)
    assert c.prices == {
        "a": {"prompt": 3.0, "completion": 4.0},
        "b": {"prompt": 0, "completion": 0},
    }


def test_a_custom_servers_stored_key_goes_to_that_server_only(material, memory_keyring):
    s = Settings(provider="custom", base_url="http://127.0.0.1:9/v1")
    set_api_key("custom", KEY)
    assert resolve_config(material, settings=s, env={}).api_key == KEY
    other = {"base_url": "http://127.0.0.1:10/v1"}
    assert resolve_config(material, flags=other, settings=s, env={}).api_key is None


def test_resolve_key_names_its_source(memory_keyring):
    assert resolve_key("deepseek", None, {}) == (None, "none")
    set_api_key("deepseek", KEY)
    assert resolve_key("deepseek", None, {}) == (KEY, "keyring")
    env = {"DEEPSEEK_API_KEY": ENV_KEY}
    assert resolve_key("deepseek", None, env) == (ENV_KEY, "environment:DEEPSEEK_API_KEY")


# -- the CLI reads the keyring and the saved settings ---------------------------------


def test_cli_takes_the_key_from_the_keyring(material, tmp_path, memory_keyring):
    with FakeLLM(route(EXPLORE), api_key=KEY) as llm:
        s = Settings(provider="custom", base_url=llm.base_url, reflect=0)
        s.explore_model, s.write_model = "fake-explore", "fake-write"
        save_settings(s)
        set_api_key("custom", KEY)
        out = tmp_path / "run"
        assert main(["run", str(material), "--no-compile", "--out", str(out)]) == 0
        assert {h["authorization"] for h in llm.headers} == {f"Bearer {KEY}"}
    meta = json.loads((out / "run.json").read_text())
    assert meta["config"]["explore_model"] == "fake-explore"  # from settings.json
    assert KEY not in (out / "run.json").read_text() + (out / "events.jsonl").read_text()


def test_cli_does_not_send_a_stored_custom_key_to_another_url(material, tmp_path, memory_keyring):
    with FakeLLM(route(EXPLORE)) as saved, FakeLLM(route(EXPLORE), api_key=KEY) as other:
        save_settings(Settings(provider="custom", base_url=saved.base_url))
        set_api_key("custom", KEY)
        argv = ["run", str(material), "--base-url", other.base_url, "--out", str(tmp_path / "r")]
        assert main([*argv, "--no-compile", "--reflect", "0"]) != 0
        assert all(KEY not in json.dumps(h) for h in other.headers)
    assert saved.requests == []


# -- "a key is needed": one message -------------------------------------------------


def test_key_problem_is_one_decision_in_cli_app_and_redraft(
    qtbot, window_for, material, tmp_path, capsys, monkeypatch, isolated_home
):
    expected = key_problem(RunConfig(folder=material))
    assert expected and "No API key for deepseek" in expected
    assert main(["run", str(material)]) == 2
    cli_line = capsys.readouterr().err.strip()
    assert cli_line == f"labwright: {expected}"

    w = window_for()
    w.settings = Settings()  # DeepSeek, nothing stored
    monkeypatch.delenv("LABWRIGHT_API_KEY")
    w.load_folder(material)
    qtbot.waitUntil(lambda: "files" in w.scan_label.text(), timeout=10_000)
    qtbot.mouseClick(w.start_button, Qt.MouseButton.LeftButton)
    # the app says it in its own (translated) words, without command-line flags
    assert "No API key is set for deepseek" in w.banner.text() and "--" not in w.banner.text()
    assert not w.bridge.running and w.run_dir is None  # nothing started
    assert not (isolated_home / "runs").exists()

    with FakeLLM(route(EXPLORE)) as llm:
        run(config_for(llm, material, tmp_path / "done"))
    meta = json.loads((tmp_path / "done" / "run.json").read_text())
    meta["config"]["base_url"] = PROVIDERS["deepseek"].base_url
    (tmp_path / "done" / "run.json").write_text(json.dumps(meta))
    with pytest.raises(RedraftError) as e:
        next(redraft(tmp_path / "done"))
    assert str(e.value) == expected


def test_no_key_problem_offline_with_a_key_or_for_a_local_server(material):
    assert key_problem(RunConfig(folder=material, offline=True)) is None
    assert key_problem(RunConfig(folder=material, api_key="k")) is None
    assert key_problem(RunConfig(folder=material, base_url="http://127.0.0.1:9/v1")) is None
    ollama = PROVIDERS["ollama"].base_url
    assert key_problem(RunConfig(folder=material, base_url=ollama)) is None
    assert "OPENAI_API_KEY" in key_problem(
        RunConfig(folder=material, base_url=PROVIDERS["openai"].base_url)
    )


# -- a resumed run's configuration -------------------------------------------------------


def _stopped_run(run_dir: Path, config: RunConfig) -> None:
    run_dir.mkdir(parents=True)
    meta = {"status": "running", "config": config.public_dict()}
    (run_dir / "run.json").write_text(json.dumps(meta), encoding="utf-8")


def test_resumed_config_is_mine_on_the_runs_folder_and_plan(
    material, tmp_path, memory_keyring, monkeypatch
):
    """A run continued from its folder is resolved as a new run is (flags > environment >
    keyring > settings > preset); run.json gives its folder, its plan, stricter limits,
    and its models only where it goes on with the server it was made with."""
    original = RunConfig(
        folder=material,
        base_url=PROVIDERS["openai"].base_url,
        explore_model="gpt-x",
        reflect=2,
        budget_tokens=5000,
        api_key="sk-original",
    )
    rd = tmp_path / "run"
    _stopped_run(rd, original)
    # my settings are DeepSeek's: the run's server, models and key are not taken
    c = resumed_config(rd, settings=Settings(), env={})
    assert c.base_url == PROVIDERS["deepseek"].base_url and c.api_key is None
    assert c.explore_model == PROVIDERS["deepseek"].explore_model
    assert (c.folder, c.out_dir) == (material, rd.resolve())
    assert (c.reflect, c.budget_tokens) == (2, 5000)  # its plan, its tighter budget
    # my settings are OpenAI's, as the run's were: it goes on there with its models
    openai = preset_settings("openai")
    c = resumed_config(rd, settings=openai, env={})
    assert c.base_url == PROVIDERS["openai"].base_url and c.explore_model == "gpt-x"
    assert c.api_key is None
    set_api_key("openai", KEY)
    assert resumed_config(rd, settings=openai, env={}).api_key == KEY  # the keyring
    env = {"OPENAI_API_KEY": ENV_KEY}
    assert resumed_config(rd, settings=openai, env=env).api_key == ENV_KEY  # env over keyring
    flags = {"api_key": FLAG_KEY, "explore_model": "mine"}
    c = resumed_config(rd, flags=flags, settings=openai, env=env)
    assert (c.api_key, c.explore_model) == (FLAG_KEY, "mine")  # flags over both
    with pytest.raises(ValueError, match="not a Labwright run directory"):
        resumed_config(tmp_path)


def test_cli_resume_without_a_key_stops_before_touching_the_run(material, tmp_path, capsys):
    rd = tmp_path / "run"
    config = RunConfig(folder=material)
    _stopped_run(rd, config)
    before = sorted(p.name for p in rd.iterdir())
    assert main(["run", "--resume", str(rd)]) == 2
    assert capsys.readouterr().err.strip() == f"labwright: {key_problem(config)}"
    assert sorted(p.name for p in rd.iterdir()) == before  # no journal, no lock left


# -- cost: one price for guards, run.json and the app -------------------------------------

PRICES = {
    "fake-explore-0613": {"prompt": 1.0, "completion": 2.0},  # the served snapshot
    "fake-explore": {"prompt": 100.0, "completion": 100.0},  # the configured name
    "fake-write": {"prompt": 3.0, "completion": 5.0},
}


def test_a_call_is_priced_by_the_served_model_then_the_configured_one():
    assert call_usd(PRICES, "fake-explore-0613", "fake-explore", 10**6, 0) == 1.0
    assert call_usd(PRICES, "unknown-snapshot", "fake-explore", 10**6, 0) == 100.0
    assert call_usd(PRICES, None, "fake-write", 0, 10**6) == 5.0
    assert call_usd(PRICES, "x", "y", 1, 1) is None
    usage = Usage()
    usage.add_call("explore", 10**6, 0, 1, "fake-explore-0613")
    usage.add_call("write", 10**6, 0, 1, "fake-write")
    config = RunConfig(
        folder=Path("."), explore_model="fake-explore", write_model="fake-write", prices=PRICES
    )
    assert spent_usd(config, usage) == pytest.approx(1.0 + 3.0)
    assert spent_usd(config, usage.merge(usage)) == pytest.approx(2 * (1.0 + 3.0))


def test_the_apps_dollar_figure_equals_run_json(qtbot, window_for, material):
    with FakeLLM(route(EXPLORE), served={"fake-explore": "fake-explore-0613"}) as llm:
        w = window_for(llm)
        w.settings.prices = {m: dict(p) for m, p in PRICES.items()}
        w.load_folder(material)
        qtbot.waitUntil(lambda: "files" in w.scan_label.text(), timeout=10_000)
        with qtbot.waitSignal(w.bridge.finished, timeout=60_000):
            qtbot.mouseClick(w.start_button, Qt.MouseButton.LeftButton)
    meta = json.loads((w.run_dir / "run.json").read_text())
    served = [
        json.loads(line)
        for line in (w.run_dir / "events.jsonl").read_text().splitlines()
        if json.loads(line).get("type") == "llm"
    ]
    assert {e["model"] for e in served if e["role"] == "explore"} == {"fake-explore-0613"}
    by_served = (
        sum(
            (e["prompt_tokens"] * PRICES[e["model"]]["prompt"])
            + (e["completion_tokens"] * PRICES[e["model"]]["completion"])
            for e in served
        )
        / 1e6
    )
    assert meta["cost_usd"] == pytest.approx(by_served) and meta["cost_usd"] > 0
    assert round(w.cost, 6) == meta["cost_usd"]
    assert f"${meta['cost_usd']:.4f}" in w.usage_label.text()
    # reopening the run from history shows the same figure
    w.open_run(w.run_dir)
    assert round(w.cost, 6) == meta["cost_usd"]


def test_cli_says_when_a_damaged_settings_file_was_set_aside(material, isolated_home, capsys):
    (isolated_home / "settings.json").write_text("{not json", encoding="utf-8")
    assert (
        main(
            ["run", str(material), "--offline", "--no-compile", "--out", str(material.parent / "r")]
        )
        == 10
    )
    err = capsys.readouterr().err
    assert "note: The settings file was damaged" in err
    assert list(isolated_home.glob("settings.json.bad-*"))  # kept, not lost
