"""Names and model text never drive the terminal: the CLI log escapes control
characters (ESC, CR, BEL, C1, bidi overrides) and undecodable bytes."""

from __future__ import annotations

import json
import os
import shutil
import unicodedata

from hypothesis import given
from hypothesis import strategies as st
from rel_run_proc import journal, run_cli

from labwright.cli import LogPrinter, terminal_safe
from labwright.core.events import Error, ToolCall, ToolResult

# A title-setting OSC, a screen clear, BEL, CR, an 8-bit CSI, a bidi override and a
# byte that is not UTF-8: what a hostile or unlucky folder name can hold.
HOSTILE = b"lab \x1b]0;owned\x07 \x1b[2J\rX \xc2\x9b31m \xe2\x80\xae gnp. \xff\xfe end"
RAW = [b"\x1b", b"\x07", b"\r", b"\xc2\x9b", b"\xe2\x80\xae", b"\xff"]


def _hostile_material(material, tmp_path):
    folder = os.fsencode(tmp_path) + b"/" + HOSTILE
    shutil.copytree(os.fsencode(material), folder)
    with open(folder + b"/" + HOSTILE + b".csv", "wb") as f:
        f.write(b"x,y\n1,2\n")
    return os.fsdecode(folder)


def test_a_hostile_folder_name_reaches_the_log_escaped(material, tmp_path, guarded_folder):
    folder = guarded_folder(_hostile_material(material, tmp_path))
    code, err = run_cli(["run", folder, "--offline", "--no-compile"], tmp_path / "logs", "log")
    assert code == 10, err
    for raw in RAW:
        assert raw not in err, raw
    assert b"\\x1b]0;owned\\x07" in err and b"\\xff\\xfe" in err and b"\\u202e" in err
    assert err.count(b"\n") == len(err.splitlines())  # no line broken or overwritten


def test_json_output_is_valid_json_without_raw_controls(
    material, tmp_path, isolated_home, guarded_folder
):
    folder = guarded_folder(_hostile_material(material, tmp_path))
    logs = tmp_path / "logs"
    code, _ = run_cli(["run", folder, "--offline", "--no-compile", "--json"], logs, "json")
    assert code == 10
    out = (logs / "json.out").read_bytes()
    for raw in RAW:
        assert raw not in out, raw
    events = [json.loads(line) for line in out.decode("utf-8").splitlines()]
    assert events[0]["detail"]["folder"] == str(folder)  # the exact name, escaped in JSON
    (run_dir,) = (isolated_home / "runs").iterdir()
    assert journal(run_dir)[0]["detail"]["folder"] == str(folder)  # the journal keeps it too
    meta = json.loads((run_dir / "run.json").read_text(encoding="utf-8"))
    assert meta["config"]["folder"] == str(folder)


def test_model_and_tool_text_is_escaped_in_the_log():
    p = LogPrinter()
    evil = "data\x1b[8m hidden\x1b[0m\r\x07.csv\udcff"
    lines = [
        p.format(ToolCall(1, "c1", "read_file", {"path": evil})),
        p.format(ToolResult("c1", "read_file", True, True, False, f"read {evil}")),
        p.format(Error("explore", f"model said {evil}")),
    ]
    for line in lines:
        assert line and not any(c in line for c in "\x1b\r\x07\udcff"), line
        assert "\\x1b[8m" in line


@given(st.text())
def test_terminal_safe_leaves_no_control_character(s):
    out = terminal_safe(s)
    assert not any(unicodedata.category(c) in ("Cc", "Cs") for c in out)
    assert not any(c in out for c in "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")
    if all(unicodedata.category(c) not in ("Cc", "Cs", "Cf", "Zl", "Zp") for c in s):
        assert out == s  # ordinary text is shown as it is
