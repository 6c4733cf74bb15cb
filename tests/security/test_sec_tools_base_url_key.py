"""A key in the userinfo of --base-url (https://user:sk-...@host/v1) goes nowhere.

Not into run.json (config.public_dict), the journal, an error message, the
printed output or repr(config) — whether the run works or fails.
"""

from __future__ import annotations

import json

import pytest

from agent_helpers import FINISH_ARGS, config_for, route
from canary import SECRET_KEY, leaks
from fakes import FakeLLM, call, http_error, raw, tool_calls
from labwright.core.llm import client as llm_module
from labwright.core.run.pipeline import run_agent
from labwright.core.secrets import redact_url, url_secrets


def with_userinfo(base_url: str, userinfo: str) -> str:
    return base_url.replace("http://", f"http://{userinfo}@", 1)


USERINFOS = [f"user:{SECRET_KEY}", SECRET_KEY, f"{SECRET_KEY}:x"]


@pytest.mark.parametrize("userinfo", USERINFOS, ids=["password", "user", "user_with_colon"])
@pytest.mark.parametrize("outcome", ["ok", "http_error", "bad_response"])
def test_a_key_in_the_base_url_reaches_no_file_event_or_message(
    userinfo, outcome, material, tmp_path, guarded_folder, isolated_home, monkeypatch
):
    monkeypatch.setattr(llm_module, "BACKOFF_BASE_S", 0.01)
    folder = guarded_folder(material)
    fault = {
        "ok": None,
        # servers echo what they were sent; the client's messages must not pass it on
        "http_error": http_error(403, f"no access for {SECRET_KEY}"),
        "bad_response": raw(200, f"<html>proxy error for {SECRET_KEY}</html>", "text/html"),
    }[outcome]
    script = [tool_calls(call("read_file", {"path": "manual.txt"}))]
    script += [fault] * 3 if fault else [tool_calls(call("finish_exploration", FINISH_ARGS))]
    out = tmp_path / "run"
    with FakeLLM(route(script)) as llm:
        url = with_userinfo(llm.base_url, userinfo)
        config = config_for(llm, folder, out, base_url=url, api_key=None)
        events = list(run_agent(config))
        plain = llm.base_url
    assert SECRET_KEY not in repr(config)
    meta = json.loads((out / "run.json").read_text(encoding="utf-8"))
    assert meta["config"]["base_url"] == redact_url(url) == plain
    assert events[-1].status == ("ok" if outcome == "ok" else "degraded")
    if outcome != "ok":
        assert any("127.0.0.1" in e.message for e in events if e.type == "error")
    assert all(SECRET_KEY not in e.to_json() for e in events)
    assert leaks([out, isolated_home], [SECRET_KEY]) == []


def test_an_unreachable_server_names_the_url_without_its_key(material, tmp_path):
    from labwright.core.settings.config import RunConfig

    url = f"http://user:{SECRET_KEY}@127.0.0.1:9/v1"
    config = RunConfig(
        folder=material, out_dir=tmp_path / "run", base_url=url, max_retries=0, request_timeout_s=2
    )
    events = list(run_agent(config))
    error = next(e for e in events if e.type == "error")
    assert "Cannot reach the model server at http://127.0.0.1:9/v1" in error.message
    assert events[-1].status == "failed"
    assert leaks([tmp_path / "run"], [SECRET_KEY]) == []


def test_the_cli_prints_no_key_from_the_base_url(material, tmp_path, capsys):
    from labwright.cli import main

    with FakeLLM([http_error(401, f"bad key {SECRET_KEY}")]) as llm:
        url = with_userinfo(llm.base_url, f"user:{SECRET_KEY}")
        code = main(
            ["run", str(material), "--out", str(tmp_path / "run"), "--json", "--base-url", url]
            + ["--explore-model", "fake-explore", "--write-model", "fake-write", "--no-compile"]
        )
    printed = capsys.readouterr()
    assert code == 1
    assert SECRET_KEY not in printed.out + printed.err
    assert "refused the API key" in printed.out
    assert leaks([tmp_path / "run"], [SECRET_KEY]) == []


def test_url_helpers():
    assert redact_url("https://u:p%40ss@host:8443/v1") == "https://host:8443/v1"
    assert redact_url("https://host/v1") == "https://host/v1"
    assert set(url_secrets("https://u:p%40ss@host/v1")) >= {"p%40ss", "p@ss"}
    assert url_secrets("https://host/v1") == []
