"""mypy passes on the whole labwright package with the settings in pyproject.toml ([tool.mypy])."""

from __future__ import annotations

import re
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


def test_the_package_has_no_type_errors():
    proc = mypy()
    assert proc.returncode == 0, f"mypy found errors:\n{proc.stdout}{proc.stderr}"
    # every module of the package was checked: the GUI, the CLI, doctor and smoke too
    modules = len(list((ROOT / "desktop" / "labwright").rglob("*.py")))
    assert f"Success: no issues found in {modules} source files" in proc.stdout


def test_the_configuration_checks_the_whole_package_without_exceptions():
    import tomllib

    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["mypy"]
    assert config["files"] == ["desktop/labwright"]
    assert "overrides" not in config and not config.get("ignore_errors")
    # no blanket ignore anywhere: each names its error code
    package = ROOT / "desktop" / "labwright"
    ignores = [
        (path.relative_to(package).as_posix(), line)
        for path in package.rglob("*.py")
        for line in path.read_text(encoding="utf-8").splitlines()
        if "type: ignore" in line
    ]
    for path, line in ignores:
        assert re.search(r"type: ignore\[[a-z-]+(, [a-z-]+)*\]", line), (path, line)
    # outside the core (checked since the GUI, CLI, doctor and smoke joined): a few, each
    # saying why
    outside = [(path, line) for path, line in ignores if not path.startswith("core/")]
    assert len(outside) <= 3, outside
    for path, line in outside:
        assert re.search(r"type: ignore\[[a-z-]+\]\s+#\s*\S", line), (path, line)


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


def test_a_wrong_call_into_the_gui_is_caught_too(tmp_path):
    """The GUI's types resolve (PySide6's hints, the core's event classes), not Any."""
    bad = tmp_path / "bad_gui_caller.py"
    bad.write_text(
        "from labwright.core.events import Guard\n"
        "from labwright.gui.pdf_view import PdfView\n"
        "from labwright.gui.timeline import TimelineModel\n"
        "PdfView().show_run('report.pdf')\n"
        "TimelineModel().apply([Guard('dedup', 'x').detail])\n",
        encoding="utf-8",
    )
    proc = mypy(str(bad))
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert 'Argument 1 to "show_run" of "PdfView" has incompatible type "str"' in proc.stdout
    assert 'List item 0 has incompatible type "str"; expected "Event"  [list-item]' in proc.stdout
