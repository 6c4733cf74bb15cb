"""Names shown safely: undecodable bytes and control characters in file names.

A file name is untrusted input. Undecodable bytes used to break the next HTTP
request (a lone surrogate cannot be encoded as UTF-8) and control characters
reached the terminal raw. Names are now shown escaped (``\\xff``, ``\\x1b``)
everywhere, and the escaped form read back through the fence reaches the file.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest

from agent_helpers import FINISH_ARGS, explore_requests, route
from fakes import FakeLLM, call, tool_calls
from labwright.cli import main
from labwright.core.agent.tools import ToolContext
from labwright.core.agent.tools.list_dir import ListDir
from labwright.core.agent.tools.read_file import ReadFile
from labwright.core.material.workspace import resolve_in_folder, safe_name, scan_folder

pytestmark = pytest.mark.skipif(
    sys.platform != "linux", reason="needs a file system that takes raw bytes in names"
)

# raw name -> (shown name, content)
NAMES: dict[bytes, tuple[str, str]] = {
    b"bad\xff.csv": ("bad\\xff.csv", "t,x\n1,2\n"),
    b"esc\x1b[31mred.txt": ("esc\\x1b[31mred.txt", "red notes\n"),
    b"cr\rline.txt": ("cr\\x0dline.txt", "cr notes\n"),
    b"nl\nline.txt": ("nl\\x0aline.txt", "nl notes\n"),
    b"bell\x07.txt": ("bell\\x07.txt", "bell notes\n"),
    "rlo\u202etxt.csv".encode(): ("rlo\\u202etxt.csv", "rlo notes\n"),
    "caf\u00e9.csv".encode(): ("caf\u00e9.csv", "a,b\n3,4\n"),  # valid UTF-8: shown as is
    b"back\\slash.txt": ("back\\\\slash.txt", "backslash notes\n"),
}
RAW_CONTROL = ("\x1b", "\r", "\x07", "\u202e")


@pytest.fixture
def odd_folder(tmp_path, guarded_folder) -> Path:
    root = tmp_path / "material"
    (root / b"sub\xfe".decode("utf-8", "surrogateescape")).mkdir(parents=True)
    for raw, (_, content) in NAMES.items():
        with open(os.path.join(os.fsencode(root), raw), "w", encoding="utf-8") as f:
            f.write(content)
    with open(os.path.join(os.fsencode(root), b"sub\xfe", b"inner\x1b.csv"), "w") as f:
        f.write("u,v\n5,6\n")
    (root / "plain.csv").write_text("p,q\n7,8\n", encoding="utf-8")
    return guarded_folder(root)


def _utf8_json(value: object) -> bytes:
    """What the next HTTP request does with a tool result; raises on a lone surrogate."""
    return json.dumps(value, ensure_ascii=False).encode("utf-8")


def test_safe_name_escapes_what_a_terminal_or_encoder_would_choke_on():
    for raw, (shown, _) in NAMES.items():
        assert safe_name(os.fsdecode(raw)) == shown
    assert safe_name("Data/plain é.csv") == "Data/plain é.csv"


def test_list_dir_shows_names_escaped_and_its_result_encodes(odd_folder, tmp_path):
    ctx = ToolContext(odd_folder, tmp_path / "run")
    out = ListDir().run({"path": "."}, ctx)
    assert out.ok
    _utf8_json({"role": "tool", "content": out.content})  # broke the next request before
    # one line per entry; the indented lines under a data file outline its tables
    lines = out.content.splitlines()[1:]
    names = [line.split("\t")[0] for line in lines if not line.startswith(" ")]
    assert sorted(names) == sorted([s for s, _ in NAMES.values()] + ["plain.csv", "sub\\xfe/"])
    assert any(line.startswith("  ") for line in lines)  # the outlines are there too
    assert not any(c in out.content + out.summary for c in RAW_CONTROL)
    inner = ListDir().run({"path": "sub\\xfe"}, ctx)
    assert inner.ok and "inner\\x1b.csv\tdata" in inner.content


def test_scan_shows_names_escaped_and_its_result_encodes(odd_folder):
    result = scan_folder(odd_folder)
    _utf8_json(result.to_dict())
    assert result.files == len(NAMES) + 2 and not result.skipped
    assert "bad\\xff.csv" in result.sample["data"]
    assert "sub\\xfe/inner\\x1b.csv" in result.sample["data"]
    assert not any(c in json.dumps(result.to_dict(), ensure_ascii=False) for c in RAW_CONTROL)


@pytest.mark.parametrize("raw", list(NAMES))
def test_read_file_maps_the_shown_name_back(odd_folder, tmp_path, raw):
    shown, content = NAMES[raw]
    out = ReadFile().run({"path": shown}, ToolContext(odd_folder, tmp_path / "run"))
    assert out.ok, out.content
    assert content.splitlines()[-1] in out.content
    assert not any(c in out.content + out.summary for c in RAW_CONTROL)
    _utf8_json(out.content)
    assert resolve_in_folder(odd_folder, shown) == Path(
        os.path.realpath(os.path.join(odd_folder, os.fsdecode(raw)))
    )


def test_shown_path_through_an_escaped_folder(odd_folder, tmp_path):
    out = ReadFile().run({"path": "sub\\xfe/inner\\x1b.csv"}, ToolContext(odd_folder, tmp_path))
    assert out.ok and "5,6" in out.content


def test_a_wrong_escaped_name_gets_a_correction_not_a_crash(odd_folder, tmp_path):
    out = ReadFile().run({"path": "bad\\xfe.csv"}, ToolContext(odd_folder, tmp_path / "run"))
    assert not out.ok and "list_dir" in out.content


def test_labwright_run_lists_and_reads_odd_names_end_to_end(odd_folder, tmp_path, capsys):
    """The scripted model lists the folder and reads a file by the name it was shown."""
    picked: list[str] = []

    def explore(body, n):
        if n == 0:
            return tool_calls(call("list_dir", {"path": "."}))
        if n == 1:
            listing = body["messages"][-1]["content"]
            picked.extend(
                line.split("\t")[0]
                for line in listing.splitlines()
                if line.startswith(("bad", "esc"))
            )
            return tool_calls(
                *(call("read_file", {"path": p}, id=f"r{i}") for i, p in enumerate(picked))
            )
        return tool_calls(call("finish_exploration", FINISH_ARGS))

    out = tmp_path / "run"
    with FakeLLM(route(explore)) as llm:
        code = main(
            [
                "run",
                str(odd_folder),
                "--out",
                str(out),
                "--base-url",
                llm.base_url,
                "--api-key",
                "sk-x-0123456789",
                *("--explore-model", "fake-explore", "--write-model", "fake-write"),
                *("--no-compile", "--reflect", "0"),
            ]
        )
        requests = explore_requests(llm)
    assert code in (0, 10)
    assert json.loads((out / "run.json").read_text())["status"] in ("ok", "degraded")
    assert sorted(picked) == ["bad\\xff.csv", "esc\\x1b[31mred.txt"]
    # The model read both files through the names it was shown.
    results = [m["content"] for m in requests[2]["messages"] if m.get("role") == "tool"]
    assert any("1,2" in r for r in results) and any("red notes" in r for r in results)
    assert not any("Cannot read" in r for r in results)
    # Nothing raw reached the journal or the terminal log.
    journal = (out / "events.jsonl").read_bytes().decode("utf-8")  # strict: no surrogates
    for line in journal.splitlines():
        text = json.dumps(json.loads(line), ensure_ascii=False)
        assert not any(c in text for c in RAW_CONTROL), line
    err = capsys.readouterr().err
    assert "\x1b[31m" not in err and "\x07" not in err and "\r" not in err
