"""mypy passes on labwright.core with the settings in pyproject.toml ([tool.mypy])."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

# A cold cache reads numpy's, matplotlib's and openai's hints: about a minute. This
# bounds a hang, it is no performance claim.
pytestmark = pytest.mark.timeout(900)


def mypy(*args: str) -> subprocess.CompletedProcess[str]:
    # cwd = the repository root: mypy reads pyproject.toml there and keeps its cache
    # in .mypy_cache (git-ignored), so a second run takes seconds.
    return subprocess.run(
        [sys.executable, "-m", "mypy", *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=850,
    )


def test_core_has_no_type_errors():
    proc = mypy()
    assert proc.returncode == 0, f"mypy found errors:\n{proc.stdout}{proc.stderr}"
    assert "Success: no issues found" in proc.stdout


def test_the_settings_catch_a_wrong_call_and_an_incomplete_signature(tmp_path):
    """The check is not vacuous: core types resolve (not Any) and the strictness applies."""
    bad = tmp_path / "bad_caller.py"
    bad.write_text(
        "from pathlib import Path\n"
        "from labwright.core.rundir.store import atomic_write_text\n"
        "atomic_write_text(Path('x'), 1)\n"
        "def half(a: int, b):\n"
        "    return a\n",
        encoding="utf-8",
    )
    proc = mypy(str(bad))  # files named here replace the configured ones
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert 'Argument 2 to "atomic_write_text" has incompatible type "int"' in proc.stdout
    assert "[no-untyped-def]" in proc.stdout
