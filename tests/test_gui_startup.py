"""The first window imports what it shows, not what a run, the review or an export uses:
what bench/bench_startup.py measures, held here without a clock (issue 22)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

# Each loaded only when it is used: a run (the model client, the tables, the evidence,
# the writing), the run page (the timeline, the results and their PDF view, QtPdf), an
# export or the review pane.
LATER = [
    "numpy",
    "labwright.core.llm.client",
    "labwright.core.material.tables",
    "labwright.core.material.evidence",
    "labwright.core.report.writing",
    "labwright.core.report.export",
    "labwright.core.run.pipeline",
    "labwright.gui.exporting",
    "labwright.gui.review_pane",
    "labwright.gui.run_page",
    "labwright.gui.result_tabs",
    "labwright.gui.pdf_view",
    "PySide6.QtPdf",
]

SHOW = """
import json, sys
from labwright.gui.app import start
app, window, loop = start()  # what `labwright` does before it runs the loop
{then}
print(json.dumps(sorted(sys.modules)))
window.close()
loop.close()
"""


def modules_after(then: str, home: Path) -> set[str]:
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "LABWRIGHT_HOME": str(home)}
    proc = subprocess.run(
        [sys.executable, "-c", SHOW.format(then=then)],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    return set(json.loads(proc.stdout.strip().splitlines()[-1]))


def test_the_first_window_loads_nothing_a_run_or_an_export_needs(tmp_path):
    loaded = modules_after("", tmp_path / "home")
    assert "labwright.gui.main_window" in loaded
    assert [m for m in LATER if m in loaded] == []


def test_the_check_sees_a_module_loaded_too_soon(tmp_path):
    """Positive control: opening a folder builds the run page, and the check sees it."""
    folder = tmp_path / "material"
    folder.mkdir()
    (folder / "notes.txt").write_text("a note\n", encoding="utf-8")
    loaded = modules_after(
        f"window.load_folder(__import__('pathlib').Path({str(folder)!r}))", tmp_path / "home"
    )
    assert {"labwright.gui.run_page", "labwright.gui.pdf_view", "PySide6.QtPdf"} <= loaded


# What the first window may load of the core: the settings it shows, the TeX probe of the
# status bar, the run folder's names, and the small shared modules beneath them. Nothing
# of the material, the agent, the model client, the analysis, the verify or the writing.
FIRST_WINDOW_CORE = {
    "labwright.core",
    "labwright.core.atomic",
    "labwright.core.beneath",
    "labwright.core.catalog",
    "labwright.core.confine",
    "labwright.core.error_words",
    "labwright.core.events",
    "labwright.core.jsonform",
    "labwright.core.reasons",
    "labwright.core.report",
    "labwright.core.resources",
    "labwright.core.secrets",
    "labwright.core.step_words",
}
FIRST_WINDOW_CORE_PACKAGES = (
    "labwright.core.settings",
    "labwright.core.report.latex",
    "labwright.core.rundir",
)
# Libraries a run, a figure, an analysis or an export needs; each costs 50-500 ms to import.
HEAVY = [
    "scipy",
    "pandas",
    "matplotlib",
    "numpy",
    "openpyxl",
    "pypdf",
    "docx",
    "uncertainties",
    "openai",
]


def loaded_too_soon(loaded: set[str]) -> list[str]:
    """Heavy libraries and core modules beyond the first window's allow-list."""
    core = [
        m
        for m in loaded
        if m.startswith("labwright.core")
        and m not in FIRST_WINDOW_CORE
        and not any(m == p or m.startswith(p + ".") for p in FIRST_WINDOW_CORE_PACKAGES)
    ]
    return sorted(h for h in HEAVY if h in loaded) + sorted(core)


def test_the_first_window_loads_only_the_core_it_shows(tmp_path):
    loaded = modules_after("", tmp_path / "home")
    assert "labwright.gui.main_window" in loaded
    assert "labwright.core.settings.saved" in loaded  # the allow-list is what it reads
    assert loaded_too_soon(loaded) == []


def test_the_allow_list_sees_a_run_loading_the_core(tmp_path):
    """Positive control: opening a folder loads the run's core (the tables, the model
    client) and numpy, and the check names them."""
    folder = tmp_path / "material"
    folder.mkdir()
    (folder / "notes.txt").write_text("a note\n", encoding="utf-8")
    loaded = modules_after(
        f"window.load_folder(__import__('pathlib').Path({str(folder)!r}))", tmp_path / "home"
    )
    late = loaded_too_soon(loaded)
    assert {"numpy", "labwright.core.material.tables", "labwright.core.llm.client"} <= set(late)
