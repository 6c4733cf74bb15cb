"""`labwright --smoke-test` from a checkout (test_bundle.py runs it in the bundle)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from labwright import smoke
from labwright.cli import main

ROOT = Path(__file__).resolve().parents[1]


def test_the_smoke_test_passes_here(tmp_path):
    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY")}
    env.pop("QT_QPA_PLATFORM", None)  # it must go offscreen by itself
    env.update(PYTHONPATH=str(ROOT / "desktop"), LABWRIGHT_HOME=str(tmp_path / "home"))
    done = subprocess.run(
        [sys.executable, "-m", "labwright.cli", "--smoke-test"],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
        timeout=110,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    lines = done.stdout.splitlines()
    assert len([line for line in lines if line.startswith(("[ok  ]", "[skip]"))]) == 7
    assert lines[-1].startswith("smoke test passed in ")
    assert "qt:" not in done.stderr  # no Qt warning on the way
    assert not (tmp_path / "home").exists()  # a temporary home, never the person's


def test_a_broken_install_fails_the_smoke_test(qapp, monkeypatch, capsys, isolated_home):
    monkeypatch.setattr(smoke, "example_folder", lambda: None)
    before = dict(os.environ)
    assert main(["--smoke-test"]) == 1
    out = capsys.readouterr().out
    assert "[FAIL] offline report of the bundled example" in out
    assert "examples/pendulum" in out and "is not in this install" in out
    assert "[skip] a PDF shows in the preview" in out
    assert out.splitlines()[-1].startswith("smoke test FAILED")
    assert dict(os.environ) == before  # its offscreen platform and home were put back
