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
    (a session fixture) and shared by the tests of their file: under pytest-xdist those
    tests stay on one worker because --dist loadfile sends a file to one worker. (The
    xdist_group marks of --dist loadgroup are lost with pytest 9.2, whose node ids
    xdist 3.8 can no longer suffix: the bundle was built twice at once.)"""
    import ast

    import tomllib

    addopts = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"][
        "pytest"
    ]["ini_options"]["addopts"].split()
    assert "--durations=30" in addopts
    assert addopts[addopts.index("--dist") :][:2] == ["--dist", "loadfile"]
    for module, fixture in [
        ("test_bundle", "bundle"),
        ("test_real_server", "server"),
        ("test_install", "wheel"),
    ]:
        tree = ast.parse((ROOT / "tests" / f"{module}.py").read_text(encoding="utf-8"))
        [made] = [n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == fixture]
        scopes = [
            k.value.value
            for d in made.decorator_list
            if isinstance(d, ast.Call)
            for k in d.keywords
            if k.arg == "scope"
        ]
        assert scopes == ["session"], module  # a module fixture is set up again when
        # its worker runs another file's tests in between
        shared = [
            p.name
            for p in (ROOT / "tests").rglob("conftest.py")
            if f"def {fixture}(" in p.read_text(encoding="utf-8")
        ]
        assert shared == [], (module, shared)  # a conftest's fixture would reach other files
