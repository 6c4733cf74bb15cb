"""The import-linter contracts in pyproject.toml, enforced here: the core never imports Qt,
and its packages import only downwards (ARCHITECTURE.md)."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def lint_imports(project: Path) -> subprocess.CompletedProcess[str]:
    exe = shutil.which("lint-imports", path=str(Path(sys.executable).parent))
    assert exe, "import-linter is not installed (pip install -e '.[test]')"
    env = {"PYTHONPATH": str(project / "desktop"), "PATH": str(Path(sys.executable).parent)}
    return subprocess.run(
        [exe, "--no-cache"], cwd=project, capture_output=True, text=True, env=env, timeout=120
    )


def test_core_never_imports_qt_or_the_gui():
    proc = lint_imports(ROOT)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "3 kept, 0 broken" in proc.stdout


def test_the_contract_catches_a_core_module_that_imports_qt(tmp_path):
    shutil.copy(ROOT / "pyproject.toml", tmp_path)
    shutil.copytree(
        ROOT / "desktop", tmp_path / "desktop", ignore=shutil.ignore_patterns("__pycache__")
    )
    bad = tmp_path / "desktop" / "labwright" / "core" / "sneaky.py"
    bad.write_text("from PySide6 import QtCore  # noqa\n", encoding="utf-8")
    proc = lint_imports(tmp_path)
    assert proc.returncode != 0
    assert "labwright.core.sneaky -> PySide6" in proc.stdout


def test_the_layers_catch_an_import_upwards(tmp_path):
    # material/ sits below report/: reading a file must not depend on how a report is written
    shutil.copy(ROOT / "pyproject.toml", tmp_path)
    shutil.copytree(
        ROOT / "desktop", tmp_path / "desktop", ignore=shutil.ignore_patterns("__pycache__")
    )
    bad = tmp_path / "desktop" / "labwright" / "core" / "material" / "upwards.py"
    bad.write_text("from labwright.core.report import templates  # noqa\n", encoding="utf-8")
    proc = lint_imports(tmp_path)
    assert proc.returncode != 0
    assert "labwright.core.material.upwards -> labwright.core.report.templates" in proc.stdout


def test_sibling_layers_stay_apart(tmp_path):
    # material/ and llm/ are siblings: the model client never reads the folder itself
    shutil.copy(ROOT / "pyproject.toml", tmp_path)
    shutil.copytree(
        ROOT / "desktop", tmp_path / "desktop", ignore=shutil.ignore_patterns("__pycache__")
    )
    bad = tmp_path / "desktop" / "labwright" / "core" / "llm" / "peek.py"
    bad.write_text("from labwright.core.material import workspace  # noqa\n", encoding="utf-8")
    proc = lint_imports(tmp_path)
    assert proc.returncode != 0
    assert "labwright.core.llm.peek -> labwright.core.material.workspace" in proc.stdout


def test_the_analysis_library_never_reaches_the_run_folder(tmp_path):
    # core/analysis serves the offline report and the sandboxed child: tables, never runs
    shutil.copy(ROOT / "pyproject.toml", tmp_path)
    shutil.copytree(
        ROOT / "desktop", tmp_path / "desktop", ignore=shutil.ignore_patterns("__pycache__")
    )
    bad = tmp_path / "desktop" / "labwright" / "core" / "analysis" / "peek.py"
    bad.write_text("from labwright.core.rundir import files  # noqa\n", encoding="utf-8")
    proc = lint_imports(tmp_path)
    assert proc.returncode != 0
    assert "labwright.core.analysis.peek -> labwright.core.rundir.files" in proc.stdout


def test_the_sandboxed_part_of_the_analysis_library_imports_nothing_of_labwright():
    """The figure child loads core/analysis from its folder under another name (harness.py):
    an absolute labwright import there would fail in the child (or pull the app in).
    Only tables.py, which the parent alone runs, reads through core/material."""
    import ast

    package = ROOT / "desktop" / "labwright" / "core" / "analysis"
    offenders = []
    for path in sorted(package.glob("*.py")):
        if path.name == "tables.py":
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = [node.module]
            elif isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            else:
                continue
            offenders += [f"{path.name}: {n}" for n in names if n.split(".")[0] == "labwright"]
            if isinstance(node, ast.ImportFrom) and node.level and node.module == "tables":
                offenders.append(f"{path.name}: .tables")
    assert offenders == []
