"""A wheel built from this tree, installed (not editable) in a fresh venv, writes a report.

Nothing is downloaded: the wheel is built with --no-build-isolation (the test
environment's setuptools), installed with --no-deps --no-index, and the fresh
venv sees the test environment's third-party packages through a .pth line. That
line adds a plain directory, whose own .pth files (the editable install's finder
among them) Python does not process, so `import labwright` can only find the
installed wheel — which the test checks before it runs anything.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
# One worker builds the wheel and the venv (module fixtures) for every test here.
RESOURCES = ROOT / "desktop" / "labwright" / "resources"


def _run(cmd: list[str], **kw) -> subprocess.CompletedProcess[str]:
    return subprocess.run(cmd, capture_output=True, text=True, timeout=180, **kw)


@pytest.fixture(scope="session")  # once, on the one worker of this file
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    # build from a copy, so build/ and *.egg-info never land in the working tree
    src = tmp_path_factory.mktemp("src")
    for name in ("pyproject.toml", "README.md"):
        shutil.copy2(ROOT / name, src / name)
    shutil.copytree(
        ROOT / "desktop",
        src / "desktop",
        ignore=shutil.ignore_patterns("__pycache__", "*.egg-info", "build"),
    )
    dist = tmp_path_factory.mktemp("dist")
    cmd = [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation"]
    done = _run([*cmd, "--no-index", "-w", str(dist), str(src)])
    assert done.returncode == 0, done.stdout + done.stderr
    (built,) = dist.glob("labwright-*.whl")
    return built


@pytest.fixture(scope="session")  # once, on the one worker of this file
def venv(tmp_path_factory: pytest.TempPathFactory, wheel: Path) -> Path:
    new = tmp_path_factory.mktemp("venv") / "new"
    done = _run([sys.executable, "-m", "venv", str(new)])
    assert done.returncode == 0, done.stderr
    python = new / "bin" / "python"
    site = _run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"])
    # the test environment's packages (PySide6, numpy, ...), after the venv's own
    shared = sysconfig.get_paths()["purelib"]
    Path(site.stdout.strip(), "shared_packages.pth").write_text(shared + "\n", encoding="utf-8")
    cmd = [str(python), "-m", "pip", "install", "--no-deps", "--no-index", "--no-cache-dir"]
    done = _run([*cmd, "--disable-pip-version-check", str(wheel)])
    assert done.returncode == 0, done.stdout + done.stderr
    return new


def _clean_env(tmp_path: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME")}
    env["LABWRIGHT_HOME"] = str(tmp_path / "home")
    env["QT_QPA_PLATFORM"] = "offscreen"
    return env


def test_the_wheel_carries_every_prompt_template_and_translation(wheel: Path) -> None:
    names = set(zipfile.ZipFile(wheel).namelist())
    shipped = {
        "labwright/resources/" + p.relative_to(RESOURCES).as_posix()
        for p in RESOURCES.rglob("*")
        if p.is_file() and "__pycache__" not in p.parts
    }
    assert shipped, "no resources in the source tree"
    assert shipped <= names, sorted(shipped - names)
    for needed in (
        "labwright/resources/prompts/explore_system.md",
        "labwright/resources/prompts/draft_system.md",
        "labwright/resources/templates/lab-en.json",
        "labwright/resources/translations/labwright_zh_CN.ts",
    ):
        assert needed in names


def test_the_installed_wheel_runs_an_offline_report(venv: Path, tmp_path: Path) -> None:
    env = _clean_env(tmp_path)
    cwd = tmp_path / "elsewhere"
    cwd.mkdir()
    where = _run(
        [str(venv / "bin" / "python"), "-c", "import labwright; print(labwright.__file__)"],
        cwd=cwd,
        env=env,
    )
    assert where.returncode == 0, where.stderr
    installed = Path(where.stdout.strip()).resolve()
    assert installed.is_relative_to(venv.resolve()), installed
    assert not installed.is_relative_to(ROOT)

    out = tmp_path / "out"
    cmd = [str(venv / "bin" / "labwright"), "run", str(ROOT / "examples" / "pendulum")]
    done = _run([*cmd, "--offline", "--no-compile", "--out", str(out)], cwd=cwd, env=env)
    assert done.returncode == 10, done.stdout + done.stderr  # offline: a degraded report

    tex = (out / "report.tex").read_text(encoding="utf-8")
    sections = json.loads((RESOURCES / "templates" / "lab-en.json").read_text(encoding="utf-8"))
    for section in sections["sections"]:
        assert f"\\section{{{section}}}" in tex
    assert json.loads((out / "run.json").read_text(encoding="utf-8"))["template"] == "lab-en"


def test_the_installed_command_line_knows_its_version_templates_and_machine(
    venv: Path, tmp_path: Path
) -> None:
    env = _clean_env(tmp_path)
    exe = str(venv / "bin" / "labwright")
    from labwright.core import __version__

    version = _run([exe, "--version"], env=env, cwd=tmp_path)
    assert version.stdout.strip() == f"labwright {__version__}", version.stderr
    helptext = _run([exe, "run", "--help"], env=env, cwd=tmp_path).stdout
    for template in ("lab-en", "lab-zh", "brief-en"):  # read from the wheel's package data
        assert f"  {template} " in helptext
    doctor = _run([exe, "doctor", "--offline"], env=env, cwd=tmp_path)
    assert doctor.returncode in (0, 1), doctor.stderr  # whatever this machine lacks
    assert "Qt platform libraries" in doctor.stdout and "TeX engine" in doctor.stdout
