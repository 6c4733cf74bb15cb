"""The documentation stays true to the code: the CLI reference is the parser's own help,
README stays a front page (at most ~15 KB), and every file it links to exists."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_cli_reference_is_the_parsers_help():
    done = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "cli_reference.py"), "--check"],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr


def test_readme_is_a_front_page_whose_links_resolve():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert len(readme.encode("utf-8")) <= 15_500
    links = re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", readme)
    assert any(link.startswith("docs/") for link in links)
    missing = [link for link in links if not (ROOT / link).exists()]
    assert not missing, f"README links to files that do not exist: {missing}"


def test_docs_links_resolve():
    missing = []
    for doc in (ROOT / "docs").glob("*.md"):
        for link in re.findall(r"\]\(([^)#\s:]+)(?:#[^)]*)?\)", doc.read_text(encoding="utf-8")):
            if not (doc.parent / link).exists():
                missing.append(f"{doc.name}: {link}")
    assert not missing, missing


def _ci_test_command() -> str:
    """The pytest command .ci/run ends with."""
    lines = (ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines()
    return [line.strip() for line in lines if " -m pytest" in line][-1]


def test_readme_and_development_say_the_test_command_ci_runs():
    command = _ci_test_command()
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    development = (ROOT / "docs" / "development.md").read_text(encoding="utf-8")
    assert re.search(rf"^{re.escape(command)}$", readme, re.M), command
    assert f"`{command}`" in development, command


def test_tests_that_share_one_thing_run_on_one_worker():
    """The bundle's build folder, the one llama server and the built wheel are made once
    and shared by the tests of their module: under pytest-xdist those tests must stay on
    one worker, which only their xdist_group and --dist loadgroup ensure."""
    import tomllib

    addopts = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"][
        "pytest"
    ]["ini_options"]["addopts"].split()
    assert "--durations=30" in addopts
    assert addopts[addopts.index("--dist") :][:2] == ["--dist", "loadgroup"]
    for module, group in [
        ("test_bundle", "bundle"),
        ("test_real_server", "real_server"),
        ("test_install", "install"),
    ]:
        marks = __import__(module).pytestmark
        marks = marks if isinstance(marks, list) else [marks]
        groups = [m.args[0] for m in marks if m.name == "xdist_group"]
        assert groups == [group], module
