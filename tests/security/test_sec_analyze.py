"""analyze's own surfaces, beyond the figure child it shares (the escape corpus runs its
payloads through analyze too): the tables `load` gets are read in the parent through the
fence, never from outside the folder; the analysis library the child loads is read-only
to it; the key never reaches what it prints."""

from __future__ import annotations

from pathlib import Path

import pytest

from canary import CANARY, SECRET_KEY, leaks
from labwright.core.agent.sandbox import runner as sandbox_runner
from labwright.core.agent.sandbox.runner import ANALYSIS_PACKAGE, run_analysis
from labwright.core.agent.tools.analyze import Analyze
from labwright.core.agent.tools.base import ToolContext


@pytest.fixture
def folder(tmp_path: Path, outside_canary: Path) -> Path:
    data = tmp_path / "data"
    data.mkdir()
    (data / "a.csv").write_text("x,y\n1,2\n2,4\n3,6.5\n", encoding="utf-8")
    # the outside canary as a table: if load ever read it, its "column" would be the canary
    outside_canary.write_text(f"{CANARY}\n1\n2\n3\n", encoding="utf-8")
    (data / "link.csv").symlink_to(outside_canary)
    (data / "up").symlink_to(outside_canary.parent, target_is_directory=True)
    return data


def _seen(out) -> str:
    return out.content + str(out.evidence or "") + str(out.data or "")


@pytest.mark.parametrize(
    "path",
    [
        "../outside/secret.txt",
        "@ABS@",
        "link.csv",
        "up/secret.txt",
        "./../outside/secret.txt",
        "DATA_DIR / '..' / 'outside' / 'secret.txt'",
    ],
)
def test_load_never_reads_outside_the_folder(
    path, folder, outside_canary, tmp_path, guarded_folder
):
    guarded_folder(folder)
    arg = path.replace("@ABS@", str(outside_canary))
    arg = arg if arg.startswith("DATA_DIR") else repr(arg)
    code = f"df = load({arg})\nprint(df.columns.tolist(), df.to_dict())\n"
    run_dir = tmp_path / "run"
    out = Analyze().run(
        {"code": code, "purpose": "escape"}, ToolContext(root=folder, run_dir=run_dir)
    )
    assert CANARY not in _seen(out)
    assert not out.ok  # nothing to load: a LoadError the model reads
    assert "load" in out.content
    assert leaks([run_dir], [CANARY]) == []


def test_naming_an_outside_file_as_input_is_refused(folder, outside_canary, tmp_path):
    for bad in (["link.csv"], ["../outside/secret.txt"], [str(outside_canary)]):
        out = Analyze().run(
            {"code": "print(1)", "purpose": "x", "inputs": bad},
            ToolContext(root=folder, run_dir=tmp_path / "run"),
        )
        assert not out.ok and out.denied == "sandbox_denied", out.content
        assert CANARY not in _seen(out)


def test_positive_control_a_table_inside_the_folder_is_loaded(folder, outside_canary, tmp_path):
    """The same file copied into the folder does reach the output: the checks above would
    see a leak."""
    (folder / "inside.csv").write_bytes(outside_canary.read_bytes())
    out = Analyze().run(
        {"code": "print(load('inside.csv').columns.tolist())", "purpose": "control"},
        ToolContext(root=folder, run_dir=tmp_path / "run"),
    )
    assert out.ok and CANARY in out.content


def _listing(root: Path) -> dict[str, tuple[int, int]]:
    return {
        str(p.relative_to(root)): (p.stat().st_mode, p.stat().st_size)
        for p in sorted(root.rglob("*"))
        if "__pycache__" not in p.parts
    }


@pytest.mark.parametrize(
    "attempt",
    [
        "open(@PKG@ + '/zz_planted.py', 'w').write('import os')",
        "import os\nos.rename(@PKG@ + '/fmt.py', @PKG@ + '/fmt_old.py')",
        "import os\nos.remove(@PKG@ + '/fits.py')",
        "open(@PKG@ + '/__init__.py', 'a').write('\\nimport os')",
        "import os\nos.mkdir(@PKG@ + '/evil')",
    ],
)
def test_the_child_cannot_change_the_analysis_library(attempt, folder, monkeypatch):
    before = _listing(ANALYSIS_PACKAGE)
    code = "from builtins import open\n" + attempt.replace("@PKG@", repr(str(ANALYSIS_PACKAGE)))
    r = sandbox_runner._run_analysis(
        code, data_dir=folder, inputs=None, timeout_s=20, memory_mb=1536, static_check=False
    )
    assert not r.ok and r.denied, r.message
    assert _listing(ANALYSIS_PACKAGE) == before
    again = run_analysis("show('x', fit([1, 2, 3, 4], [2, 4.1, 5.9, 8]).slope)", data_dir=folder)
    assert again.ok and again.stdout.startswith("x = 1.9"), again.message


def test_the_key_never_reaches_what_analysis_code_prints(folder, monkeypatch, tmp_path):
    monkeypatch.setenv("LABWRIGHT_API_KEY", SECRET_KEY)
    monkeypatch.setenv("MY_SERVICE_TOKEN", SECRET_KEY)
    code = (
        "from builtins import open\nimport os\n"
        "print(dict(os.environ))\n"
        "print(open(f'/proc/{os.getppid()}/environ', 'rb').read())\n"
    )
    r = sandbox_runner._run_analysis(
        code, data_dir=folder, inputs=None, timeout_s=20, memory_mb=1536, static_check=False
    )
    assert SECRET_KEY not in r.message + r.stdout
    assert "LABWRIGHT_API_KEY" not in r.stdout and "MY_SERVICE_TOKEN" not in r.stdout
    assert "{" in r.stdout  # the environment was printed: what it holds is the scrubbed one
    assert not r.ok  # the parent's /proc/<pid>/environ was not readable
