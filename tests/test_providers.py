"""Provider presets (`--provider NAME`), and a model that cannot call tools.

The presets' real servers are never reached: a preset is checked by what it
resolves to, and runs go to the fake server over loopback, with `--base-url`
standing in for the preset's address.
"""

from __future__ import annotations

import json
from urllib.parse import urlsplit

import pytest

from agent_helpers import FINISH_ARGS, route
from fakes import FakeLLM, call, http_error, rejects_tools, text, tool_calls
from labwright.cli import main
from labwright.core.llm.client import LLM, LLMError, ToolsRejected
from labwright.core.settings.config import (
    PROVIDER_NAMES,
    PROVIDERS,
    provider_for_url,
)
from labwright.core.settings.resolve import key_problem, resolve_config
from labwright.core.settings.saved import Settings, load_settings, save_settings, set_api_key

KEY = "sk-provider-key-0123456789abcdef"
LOCAL = {"ollama": 11434, "lmstudio": 1234, "llamacpp": 8080, "vllm": 8000}
HOSTED_KEYS = {
    "deepseek": "DEEPSEEK_API_KEY",
    "openai": "OPENAI_API_KEY",
    "qwen": "DASHSCOPE_API_KEY",
    "moonshot": "MOONSHOT_API_KEY",
    "siliconflow": "SILICONFLOW_API_KEY",
    "openrouter": "OPENROUTER_API_KEY",
}


# -- the presets -------------------------------------------------------------------------


def test_every_preset_the_issue_names_is_there():
    assert (*HOSTED_KEYS, *LOCAL, "custom") == PROVIDER_NAMES


@pytest.mark.parametrize("name", list(PROVIDERS))
def test_a_preset_has_its_url_models_and_key_rule(name):
    p = PROVIDERS[name]
    url = urlsplit(p.base_url)
    assert p.base_url.endswith("/v1") and p.explore_model and p.write_model and p.label
    assert p.tools_advice
    if name in LOCAL:
        assert not p.needs_key and p.local
        assert (url.scheme, url.hostname, url.port) == ("http", "localhost", LOCAL[name])
        assert p.key_env == ("LABWRIGHT_API_KEY",)
    else:
        assert p.needs_key and url.scheme == "https"
        assert p.key_env == ("LABWRIGHT_API_KEY", HOSTED_KEYS[name])  # LABWRIGHT_ first
    assert provider_for_url(p.base_url) is p
    for alias in p.aliases:
        assert provider_for_url(alias) is p


def test_a_url_is_matched_by_its_server_not_by_its_text():
    assert provider_for_url("http://127.0.0.1:11434/v1").name == "ollama"  # loopback alike
    assert provider_for_url("https://api.deepseek.com").name == "deepseek"  # /v1 optional
    # a longer port, or a host that merely starts like a preset's, is another server
    assert provider_for_url("http://localhost:80801/v1").name == "custom"
    assert provider_for_url("https://api.deepseek.com.example.net/v1").name == "custom"
    assert provider_for_url("https://dashscope.aliyuncs.com/api/v1").name == "custom"


@pytest.mark.parametrize("name", list(HOSTED_KEYS))
def test_a_hosted_preset_takes_its_own_key_variable(material, name):
    env = {HOSTED_KEYS[name]: KEY}
    c = resolve_config(material, provider=name, settings=Settings(), env=env)
    p = PROVIDERS[name]
    assert (c.base_url, c.explore_model, c.write_model) == (
        p.base_url,
        p.explore_model,
        p.write_model,
    )
    assert c.api_key == KEY
    assert key_problem(c) is None
    missing = key_problem(resolve_config(material, provider=name, settings=Settings(), env={}))
    assert missing and HOSTED_KEYS[name] in missing and f"No API key for {name}" in missing


@pytest.mark.parametrize("name", list(LOCAL))
def test_a_local_preset_needs_no_key(material, name):
    c = resolve_config(material, provider=name, settings=Settings(), env={})
    assert c.base_url == PROVIDERS[name].base_url and c.api_key is None
    assert key_problem(c) is None


def test_base_url_beside_provider_moves_the_server_and_keeps_the_preset(material, memory_keyring):
    set_api_key("deepseek", KEY)
    flags = {"base_url": "http://10.0.0.5:8000/v1"}
    c = resolve_config(material, flags=flags, provider="vllm", settings=Settings(), env={})
    assert c.base_url == "http://10.0.0.5:8000/v1"
    assert c.explore_model == PROVIDERS["vllm"].explore_model
    # a hosted preset elsewhere (a proxy) is another server: neither its stored key nor
    # its own variable goes there (DEEPSEEK_API_KEY is for DeepSeek's server), only
    # LABWRIGHT_API_KEY, the key for the URL the person named
    flags = {"base_url": "http://proxy.test/v1"}
    c = resolve_config(material, flags=flags, provider="deepseek", settings=Settings(), env={})
    assert c.explore_model == "deepseek-chat" and c.api_key is None
    env = {"DEEPSEEK_API_KEY": "sk-env-0123456789"}
    c = resolve_config(material, flags=flags, provider="deepseek", settings=Settings(), env=env)
    assert c.api_key is None
    env = {"DEEPSEEK_API_KEY": "sk-env-0123456789", "LABWRIGHT_API_KEY": "sk-lw-0123456789"}
    c = resolve_config(material, flags=flags, provider="deepseek", settings=Settings(), env=env)
    assert c.api_key == "sk-lw-0123456789"
    # another region of the same service is the service: its stored key goes there
    set_api_key("qwen", KEY)
    intl = {"base_url": PROVIDERS["qwen"].aliases[0]}
    c = resolve_config(material, flags=intl, provider="qwen", settings=Settings(), env={})
    assert c.api_key == KEY


def test_provider_beats_the_environment_url_and_the_saved_models(material):
    s = Settings()
    s.explore_model = "my-saved-model"
    env = {"LABWRIGHT_BASE_URL": "http://127.0.0.1:9/v1"}
    c = resolve_config(material, provider="openai", settings=s, env=env)
    assert c.base_url == PROVIDERS["openai"].base_url
    assert c.explore_model == PROVIDERS["openai"].explore_model
    # the saved provider itself keeps the models saved for it
    assert resolve_config(material, provider="deepseek", settings=s, env={}).explore_model == (
        "my-saved-model"
    )


def test_custom_needs_a_url(material):
    with pytest.raises(ValueError, match="--base-url"):
        resolve_config(material, provider="custom", settings=Settings(), env={})
    saved = Settings(provider="custom", base_url="http://127.0.0.1:9/v1", explore_model="mine")
    c = resolve_config(material, provider="custom", settings=saved, env={})
    assert (c.base_url, c.explore_model) == ("http://127.0.0.1:9/v1", "mine")


def test_an_unknown_provider_names_the_known_ones(material):
    with pytest.raises(ValueError) as e:
        resolve_config(material, provider="chatgpt", settings=Settings(), env={})
    assert "'chatgpt'" in str(e.value)
    assert all(name in str(e.value) for name in PROVIDER_NAMES)


# -- saved settings from before the presets ------------------------------------------------


@pytest.mark.parametrize(
    "saved",
    [
        {"provider": "deepseek", "base_url": "https://api.deepseek.com/v1"},
        {"provider": "openai", "base_url": "https://api.openai.com/v1", "write_model": "gpt-4.1"},
        {"provider": "ollama", "base_url": "http://localhost:11434/v1", "explore_model": "llama3"},
        {"provider": "custom", "base_url": "http://lab.test:8000/v1", "explore_model": "x"},
    ],
)
def test_an_old_settings_file_loads_unchanged(saved, material, memory_keyring):
    from labwright.core.settings.saved import settings_path

    data = {"version": 1, "explore_model": "deepseek-chat", "write_model": "deepseek-chat"}
    data.update(saved)
    settings_path().parent.mkdir(parents=True, exist_ok=True)
    settings_path().write_text(json.dumps(data), encoding="utf-8")
    s = load_settings()
    assert (s.provider, s.base_url) == (saved["provider"], saved["base_url"])
    assert (s.explore_model, s.write_model) == (data["explore_model"], data["write_model"])
    set_api_key(s.provider, KEY)
    c = resolve_config(material, env={})
    assert (c.base_url, c.explore_model, c.write_model) == (
        s.base_url,
        s.explore_model,
        s.write_model,
    )
    assert c.api_key == KEY
    save_settings(s)
    assert load_settings() == s


# -- `labwright run --provider` --------------------------------------------------------------


def test_cli_provider_with_base_url_runs_against_that_server(material, tmp_path, capsys):
    script = [
        tool_calls(call("read_file", {"path": "manual.txt"})),
        tool_calls(call("finish_exploration", FINISH_ARGS)),
    ]
    with FakeLLM(route(script)) as llm:
        code = main(
            [
                "run",
                str(material),
                *("--provider", "llamacpp", "--base-url", llm.base_url),
                *("--write-model", "fake-write", "--out", str(tmp_path / "run")),
                *("--no-compile", "--reflect", "0", "--json"),
            ]
        )
        explore = [r for r in llm.requests if r.get("tools")]
        headers = llm.headers
        url = llm.base_url
    assert code == 0, capsys.readouterr().err
    assert {r["model"] for r in explore} == {PROVIDERS["llamacpp"].explore_model}
    assert all("authorization" not in h or h["authorization"] == "Bearer unused" for h in headers)
    run_json = json.loads((tmp_path / "run" / "run.json").read_text(encoding="utf-8"))
    assert run_json["config"]["base_url"] == url
    assert run_json["config"]["provider"] == "llamacpp"


def test_cli_provider_alone_selects_the_preset(material, capsys):
    assert main(["run", str(material), "--provider", "moonshot"]) == 2
    err = capsys.readouterr().err
    assert "No API key for moonshot" in err and "MOONSHOT_API_KEY" in err


def test_cli_unknown_provider_is_a_usage_error_listing_the_names(material, capsys):
    assert main(["run", str(material), "--provider", "gpt"]) == 2
    err = capsys.readouterr().err
    assert "Unknown provider 'gpt'" in err
    assert "deepseek, openai, qwen, moonshot, siliconflow, openrouter" in err
    assert "ollama, lmstudio, llamacpp, vllm, custom" in err


def test_run_help_lists_every_provider_name(capsys):
    with pytest.raises(SystemExit):
        main(["run", "--help"])
    out = capsys.readouterr().out
    assert "--provider NAME" in out
    for name in PROVIDER_NAMES:
        assert f"\n  {name}" in out


# -- a model that rejects `tools` ----------------------------------------------------------


def test_a_model_rejecting_tools_is_named_with_a_model_that_can(material, tmp_path, capsys):
    """The whole way: `run --provider ollama` on a model without tool support."""
    with FakeLLM(rejects_tools()) as llm:
        code = main(
            [
                "run",
                str(material),
                *("--provider", "ollama", "--base-url", llm.base_url),
                *("--explore-model", "gemma3:1b", "--out", str(tmp_path / "run")),
                "--no-compile",
            ]
        )
        calls = llm.calls
    err = capsys.readouterr().err
    assert code == 1
    assert calls == 1  # not retried: the same request can only be refused the same way
    assert "The model gemma3:1b at" in err and "rejects tool calls (HTTP 400)" in err
    assert "gemma3:1b does not support tools" in err  # the server's own words
    assert "ollama pull qwen2.5:7b" in err  # the Ollama preset's advice
    events = (tmp_path / "run" / "events.jsonl").read_text(encoding="utf-8")
    assert '"kind": "tools_unsupported"' in events


def test_llamacpp_without_jinja_is_a_rejection_too_and_not_retried():
    """llama.cpp's server answers 500 "tools param requires --jinja flag"."""
    with FakeLLM(rejects_tools("tools param requires --jinja flag", status=500)) as llm:
        client = LLM(llm.base_url, KEY, max_retries=3)
        try:
            with pytest.raises(ToolsRejected) as e:
                client.chat(
                    model="my-gguf",
                    messages=[{"role": "user", "content": "hi"}],
                    tools=[{"type": "function", "function": {"name": "f", "parameters": {}}}],
                )
            # without tools the same server answers
            plain = client.chat(model="my-gguf", messages=[{"role": "user", "content": "hi"}])
        finally:
            client.close()
        assert llm.calls == 2
    err = e.value
    assert err.kind == "tools_unsupported" and err.model == "my-gguf" and err.status == 500
    assert "The model my-gguf at" in str(err) and "--jinja" in str(err)
    assert "Use a model that supports tool (function) calling." in str(err)  # custom URL
    assert KEY not in str(err) and plain.content


def test_a_rejected_tool_choice_is_not_a_rejection_of_tools():
    """A forced tool_choice refused has its own fallback (explore); it must stay a bad request."""
    refusal = http_error(400, 'tool_choice "required" is not supported for tools')
    with FakeLLM([refusal]) as llm:
        client = LLM(llm.base_url, None, max_retries=0)
        try:
            with pytest.raises(LLMError) as e:
                client.chat(
                    model="m",
                    messages=[{"role": "user", "content": "hi"}],
                    tools=[{"type": "function", "function": {"name": "f", "parameters": {}}}],
                    tool_choice="required",
                )
        finally:
            client.close()
    assert e.value.kind == "bad_request" and not isinstance(e.value, ToolsRejected)


def test_other_bad_requests_stay_what_they_were():
    with FakeLLM([http_error(400, "messages: field required"), text("x")]) as llm:
        client = LLM(llm.base_url, None, max_retries=0)
        try:
            with pytest.raises(LLMError) as e:
                client.chat(model="m", messages=[], tools=[{"type": "function"}])
        finally:
            client.close()
    assert e.value.kind == "bad_request"
