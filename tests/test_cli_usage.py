"""The command line as a new user meets it: --version, help for every option, `run --help`
listing what exists, a closed pipe, a bare folder, no display."""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from labwright import cli, doctor
from labwright.cli import EXIT, EXIT_USAGE, main
from labwright.core import __version__
from labwright.core.report.templates import available, load_template
from labwright.core.settings.config import PROVIDERS

ROOT = Path(__file__).resolve().parents[1]


def _env(tmp_path: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY")}
    env.pop("QT_QPA_PLATFORM", None)
    env.update(PYTHONPATH=str(ROOT / "desktop"), LABWRIGHT_HOME=str(tmp_path / "home"), **extra)
    return env


def _labwright(args: list[str], env: dict[str, str], **kw) -> subprocess.CompletedProcess[str]:
    cmd = [sys.executable, "-m", "labwright.cli", *args]
    return subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=120, **kw)


def test_version(capsys):
    with pytest.raises(SystemExit) as done:
        main(["--version"])
    assert done.value.code == 0
    assert capsys.readouterr().out.strip() == f"labwright {__version__}"


def _all_parsers() -> list[argparse.ArgumentParser]:
    top = cli._parser()
    (sub,) = [a for a in top._actions if isinstance(a, argparse._SubParsersAction)]
    return [top, *sub.choices.values()]


def test_every_option_of_every_command_has_help_text():
    parsers = _all_parsers()
    assert {p.prog.split()[-1] for p in parsers[1:]} == set(cli.COMMANDS)
    for parser in parsers:
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                assert all(c.help for c in action._choices_actions), parser.prog
                continue
            assert action.help and action.help != argparse.SUPPRESS, (
                f"{parser.prog} {action.option_strings or action.dest} has no help text"
            )


def test_run_help_lists_templates_providers_and_exit_codes(capsys):
    with pytest.raises(SystemExit):
        main(["run", "--help"])
    out = capsys.readouterr().out
    assert available(), "no templates shipped"
    for name in available():
        assert f"  {name} " in out and load_template(name).description in out
    for name, provider in PROVIDERS.items():
        assert name in out and provider.base_url in out
    codes = {status: code for status, code, _ in cli.EXIT_STATUSES}
    assert codes == {**EXIT, "usage": EXIT_USAGE}  # the table the run returns from
    for status, code in codes.items():
        assert f"  {code:<4} {status}:" in out


def test_run_help_follows_the_templates_that_exist(capsys, monkeypatch):
    monkeypatch.setattr("labwright.core.report.templates.available", lambda: ["lab-en", "my-own"])
    with pytest.raises(SystemExit):
        main(["run", "--help"])
    assert "  my-own " in capsys.readouterr().out  # the broken one is listed with why


def test_starting_the_app_does_not_build_the_run_help():
    """The epilog imports the core; a plain `labwright` must not pay for it."""
    code = (
        "import sys; from labwright import cli; cli._parser().parse_args(['gui']); "
        "print('labwright.core.report.templates' in sys.modules)"
    )
    env = {**os.environ, "PYTHONPATH": str(ROOT / "desktop")}
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env)
    assert done.stdout.strip() == "False", done.stderr


def test_verify_into_a_closed_pipe_ends_quietly(offline_run, tmp_path):
    """`labwright verify RUN --json | head -1`: no BrokenPipeError traceback."""
    # ~300 KB of JSON after its first line, several pipe buffers (64 KiB): the writer is
    # still writing when the reader leaves. (3,000 numbers took 17 s: the check is
    # quadratic in them.)
    numbers = "\n".join(f"Trial {i} gave a period of {7000 + i}.{i % 10}3 s." for i in range(500))
    tex = (offline_run / "report.tex").read_text(encoding="utf-8")
    tex = tex.replace("\\end{document}", numbers + "\n\\end{document}")
    (offline_run / "report.tex").write_text(tex, encoding="utf-8")
    cmd = [sys.executable, "-m", "labwright.cli", "verify", str(offline_run), "--json"]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=_env(tmp_path))
    assert proc.stdout.readline().startswith(b"{")
    proc.stdout.close()  # the reader leaves, as `head -1` does
    err = proc.stderr.read().decode()
    proc.stderr.close()
    code = proc.wait(timeout=120)
    assert "Traceback" not in err and "BrokenPipe" not in err and "Exception ignored" not in err
    assert code == cli.EXIT_FAILED


def test_verify_into_an_open_pipe_prints_everything(offline_run, tmp_path):
    done = _labwright(["verify", str(offline_run), "--json"], _env(tmp_path))
    assert done.returncode in (0, 10), done.stderr
    assert "counts" in json.loads(done.stdout)


def test_a_bare_folder_opens_the_app_with_it(monkeypatch, material):
    from labwright.gui import app as gui_app

    opened = []
    monkeypatch.setattr(gui_app, "main", lambda folder: opened.append(folder) or 0)
    assert main([str(material)]) == 0
    assert opened == [material.resolve()]


def test_a_bare_word_that_is_no_folder_is_a_usage_error(capsys, tmp_path):
    with pytest.raises(SystemExit) as done:
        main([str(tmp_path / "no-such-folder")])
    assert done.value.code == EXIT_USAGE
    assert "invalid choice" in capsys.readouterr().err


def test_no_display_exits_2_with_advice_not_a_qt_abort(tmp_path):
    for args in ([], ["gui", str(ROOT / "examples" / "pendulum")]):
        done = _labwright(args, _env(tmp_path))
        assert done.returncode == EXIT_USAGE, done.stderr
        assert "No display to open the window on" in done.stderr
        assert "labwright doctor" in done.stderr and "labwright run FOLDER" in done.stderr
        assert "qt.qpa" not in done.stderr and "Aborted" not in done.stderr


def test_missing_qt_libraries_exit_2_before_qt_loads(monkeypatch, capsys, tmp_path):
    (tmp_path / "platforms").mkdir()
    (tmp_path / "platforms" / "libqxcb.so").write_bytes(b"\x7fELF stub")
    monkeypatch.setenv("LABWRIGHT_QT_PLUGINS", str(tmp_path))
    monkeypatch.delenv("QT_QPA_PLATFORM")
    monkeypatch.setattr(doctor, "_reachable", lambda var, env: True)
    monkeypatch.setenv("DISPLAY", ":0")
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    monkeypatch.setattr(doctor, "_ldd", lambda path: "\tlibxcb-icccm.so.4 => not found\n")
    from labwright.gui import app as gui_app

    monkeypatch.setattr(gui_app, "main", lambda folder: pytest.fail("Qt was started"))
    assert main(["gui"]) == EXIT_USAGE
    err = capsys.readouterr().err
    assert "libxcb-icccm.so.4" in err and "sudo apt-get install libxcb-icccm4" in err
    assert "sudo dnf install xcb-util-wm" in err
