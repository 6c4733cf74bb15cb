"""packaging/ without building the bundle: the Linux metadata validates and agrees with
the code, the icons render at every size, and the bundle's entry point plays the
interpreter for Labwright's own children. (test_bundle.py builds the bundle.)"""

from __future__ import annotations

import importlib.util
import os
import re
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from labwright.core import __version__

ROOT = Path(__file__).resolve().parents[1]
PACKAGING = ROOT / "packaging"
APP_ID = "org.labwright.Labwright"
DESKTOP = PACKAGING / "linux" / f"{APP_ID}.desktop"
METAINFO = PACKAGING / "linux" / f"{APP_ID}.metainfo.xml"


def _tool(name: str) -> str:
    """A validator from the system; CI installs it (.ci/run), so there it must be there."""
    path = shutil.which(name)
    if path is None:
        if os.environ.get("CI"):
            pytest.fail(f"{name} is missing in CI (.ci/run installs it)")
        pytest.skip(f"{name} not installed (Debian: desktop-file-utils, appstream)")
    return path


def _desktop_entry() -> dict[str, str]:
    lines = DESKTOP.read_text(encoding="utf-8").splitlines()
    return dict(line.split("=", 1) for line in lines if "=" in line and not line.startswith("#"))


def test_the_desktop_file_validates():
    done = subprocess.run(
        [_tool("desktop-file-validate"), str(DESKTOP)], capture_output=True, text=True
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "error" not in done.stdout.lower()


def test_the_metainfo_validates():
    done = subprocess.run(
        [_tool("appstreamcli"), "validate", "--no-net", str(METAINFO)],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stdout + done.stderr


def test_the_linux_metadata_agrees_with_the_code():
    entry = _desktop_entry()
    scripts = re.search(r"\[project\.scripts\]\n(\w+) =", (ROOT / "pyproject.toml").read_text())
    assert entry["Exec"].split()[0] == entry["TryExec"] == scripts.group(1) == "labwright"
    assert entry["Exec"].split()[1] == "%f"  # one folder, as `labwright FOLDER` takes
    assert "inode/directory" in entry["MimeType"]  # folders can be opened with it
    assert entry["Icon"] == APP_ID
    meta = ET.parse(METAINFO).getroot()
    assert meta.findtext("id") == APP_ID
    assert meta.find("launchable").text == DESKTOP.name
    assert meta.find("provides/binary").text == "labwright"
    assert meta.find("releases/release").get("version") == __version__


def test_icons_render_at_the_usual_sizes(tmp_path):
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen"}
    done = subprocess.run(
        [sys.executable, str(PACKAGING / "make_icons.py"), str(tmp_path)],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    from PySide6.QtGui import QImage

    for size in (16, 32, 48, 64, 128, 256, 512):
        png = tmp_path / "hicolor" / f"{size}x{size}" / "apps" / f"{APP_ID}.png"
        image = QImage(str(png))
        assert (image.width(), image.height()) == (size, size)
        assert image.hasAlphaChannel() and image.pixelColor(0, 0).alpha() == 0  # transparent
        assert image.pixelColor(size // 2, size // 2).alpha() == 255  # the page is drawn
    assert (tmp_path / "hicolor" / "scalable" / "apps" / f"{APP_ID}.svg").is_file()


@pytest.fixture
def entry():
    spec = importlib.util.spec_from_file_location("labwright_main", PACKAGING / "labwright_main.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_entry_point_runs_a_script_as_python_would(entry, tmp_path, capsys, monkeypatch):
    script = tmp_path / "child.py"
    script.write_text("import sys\nprint(__name__, sys.argv[1:])\n", encoding="utf-8")
    monkeypatch.setattr(sys, "argv", list(sys.argv))
    assert entry._as_python(["-I", "-S", str(script), "job.json", "--x"]) == 0
    assert capsys.readouterr().out == "__main__ ['job.json', '--x']\n"


def test_the_entry_point_runs_c_code_as_python_would(entry, capsys, monkeypatch):
    monkeypatch.setattr(sys, "argv", list(sys.argv))
    code = "import sys; print(__name__, sys.argv)"
    assert entry._as_python(["-I", "-S", "-c", code, "/lib/a", "/lib/b"]) == 0
    assert capsys.readouterr().out == "__main__ ['-c', '/lib/a', '/lib/b']\n"


def test_the_entry_point_refuses_other_interpreter_lines(entry, capsys):
    assert entry._as_python(["-I", "-m", "http.server"]) == 2
    assert "not an interpreter command line" in capsys.readouterr().err


def test_labwrights_children_use_only_the_forms_the_entry_point_plays():
    """The bundle's executable stands in for Python only when started as
    `-I -S SCRIPT ...` or `-I -S -c CODE ...`: a child started any other way would
    reach the command line instead."""
    starts = []
    for path in (ROOT / "desktop" / "labwright").rglob("*.py"):
        text = path.read_text(encoding="utf-8")
        starts += re.findall(r"\[sys\.executable,\s*([^,\]]+),\s*([^,\]]+)", text)
    assert len(starts) >= 4, starts  # the sandbox, its font cache, confine, the TeX runner
    assert {(a.strip(), b.strip()) for a, b in starts} == {('"-I"', '"-S"')}
