"""The figure child inside the OS confinement, and what happens on a machine without one."""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path

import pytest

from agent_helpers import FINISH_ARGS, config_for, of_type, route, run
from fakes import FakeLLM, call, tool_calls
from labwright.core import confine
from labwright.core.agent.sandbox import run_figure
from labwright.core.agent.sandbox import runner as sandbox_runner

PLOT = "import matplotlib.pyplot as plt\nplt.plot([1, 2, 3])\n"


@pytest.fixture
def data_dir(tmp_path: Path) -> Path:
    root = tmp_path / "data"
    root.mkdir()
    (root / "a.csv").write_text("x,y\n1,2\n", encoding="utf-8")
    return root


@pytest.fixture
def no_os_layer(monkeypatch: pytest.MonkeyPatch) -> None:
    """This machine as if it had no Landlock, no namespaces and no seccomp."""
    monkeypatch.setattr(confine, "support", lambda: confine.Support())


@pytest.fixture
def spawned(monkeypatch: pytest.MonkeyPatch) -> list[list[str]]:
    """Every command the sandbox starts."""
    started: list[list[str]] = []
    real = sandbox_runner.subprocess.Popen

    class Recording(real):  # type: ignore[misc, valid-type]
        def __init__(self, cmd, *args, **kwargs) -> None:  # noqa: ANN001, ANN002, ANN003
            started.append(list(cmd))
            super().__init__(cmd, *args, **kwargs)

    monkeypatch.setattr(sandbox_runner.subprocess, "Popen", Recording)
    return started


def test_the_child_runs_confined_without_site_processing(
    data_dir: Path, tmp_path: Path, spawned: list[list[str]]
) -> None:
    code = "import sys\nprint('no_site', sys.flags.no_site, sys.flags.isolated)\n" + PLOT
    result = sandbox_runner._run(
        code,
        data_dir=data_dir,
        figures_dir=tmp_path / "figs",
        filename="f",
        caption="c",
        inputs=None,
        timeout_s=30,
        memory_mb=1536,
        static_check=False,
    )
    assert result.ok, result.message
    assert "no_site 1 1" in result.stdout  # -I -S: no .pth file ran before the audit hook
    cmd = spawned[-1]
    assert cmd[3].endswith("confine.py")  # the trampoline confines, then execs the harness
    pol = json.loads(cmd[4])
    assert pol["landlock"] and pol["namespaces"] and pol["seccomp"]
    assert "/etc/passwd" not in pol["read"]
    assert os.path.realpath(data_dir) in pol["read"]
    assert cmd[cmd.index("--") + 1 :][1:3] == ["-I", "-S"]
    work = Path(pol["write"][-1])
    assert work.name.startswith(f"labwright-{os.getpid()}-figure-")
    assert work.parent == Path(tempfile.gettempdir())
    assert not work.exists()  # removed after the run
    for site in sandbox_runner._extra_sys_path():
        assert site in pol["read"] and not any(w.startswith(site) for w in pol["write"])


def test_without_an_os_layer_no_model_code_runs(
    data_dir: Path, tmp_path: Path, no_os_layer: None, spawned: list[list[str]]
) -> None:
    marker = tmp_path / "ran"
    code = f"from pathlib import Path\nPath({str(marker)!r}).write_text('x')\n" + PLOT
    result = run_figure(
        code, data_dir=data_dir, figures_dir=tmp_path / "figs", filename="f", caption="c"
    )
    assert not result.ok and result.pdf is None
    assert "Figures are disabled on this machine (no OS sandbox)" in result.message
    assert not [c for c in spawned if any("harness.py" in part for part in c)]
    assert not marker.exists()
    assert not (tmp_path / "figs").exists()


def test_without_an_os_layer_the_user_may_allow_it(
    data_dir: Path, tmp_path: Path, no_os_layer: None, spawned: list[list[str]]
) -> None:
    result = run_figure(
        PLOT,
        data_dir=data_dir,
        figures_dir=tmp_path / "figs",
        filename="f",
        caption="c",
        allow_unconfined=True,
    )
    assert result.ok, result.message
    assert result.pdf is not None and result.pdf.is_file()
    assert not any("confine.py" in part for part in spawned[-1])  # no trampoline: nothing to apply


def test_a_run_without_an_os_layer_falls_back_to_table_plots(
    material: Path, tmp_path: Path, no_os_layer: None, spawned: list[list[str]]
) -> None:
    figure = call(
        "make_figure",
        {"code": PLOT, "filename": "model_plot", "caption": "c", "inputs": []},
    )
    script = [
        tool_calls(call("read_file", {"path": "data/pendulum.csv"}), figure),
        tool_calls(call("finish_exploration", FINISH_ARGS)),
    ]
    with FakeLLM(route(script)) as llm:
        events = run(config_for(llm, material, tmp_path / "run"))
        back = llm.requests[1]["messages"][-1]["content"]
    assert "Figures are disabled on this machine (no OS sandbox)" in back
    assert not [c for c in spawned if any("harness.py" in part for part in c)]
    scan = [e for e in of_type(events, "milestone") if e.stage == "scan" and e.status == "start"]
    assert scan[0].detail.confinement.figures == "disabled"
    assert scan[0].detail.confinement.layers == []
    figs = [e for e in of_type(events, "milestone") if e.stage == "figures" and e.status == "end"]
    assert figs[0].detail.made_by == "tables" and figs[0].detail.count >= 1
    assert not (tmp_path / "run" / "figures" / "model_plot.pdf").exists()
    made = json.loads((tmp_path / "run" / "figures.json").read_text(encoding="utf-8"))
    assert made and all(f["filename"].startswith("table") for f in made)
    for f in made:  # Labwright's own plotting code drew them, in this process
        meta = json.loads(Path(f["pdf"]).with_suffix(".json").read_text(encoding="utf-8"))
        assert "plot_table" in meta["code"]


def test_a_run_records_the_confinement_it_had(material: Path, tmp_path: Path) -> None:
    script = [
        tool_calls(call("read_file", {"path": "data/pendulum.csv"})),
        tool_calls(call("finish_exploration", FINISH_ARGS)),
    ]
    with FakeLLM(route(script)) as llm:
        events = run(config_for(llm, material, tmp_path / "run"))
    scan = [e for e in of_type(events, "milestone") if e.stage == "scan" and e.status == "start"]
    info = scan[0].detail.confinement.to_dict()
    assert info["figures"] == "confined"
    assert info["landlock_abi"] == confine.support().landlock_abi >= 6
    journal = (tmp_path / "run" / "events.jsonl").read_text(encoding="utf-8")
    assert '"confinement"' in journal


def test_allow_unconfined_survives_in_the_run_config(material: Path, tmp_path: Path) -> None:
    from labwright.cli import _config_from_args, _parser

    def config(*flags: str):
        return _config_from_args(_parser().parse_args(["run", str(material), "--offline", *flags]))

    assert config("--allow-unconfined").allow_unconfined is True
    assert config().allow_unconfined is False  # not given: the default, never the flag


def test_confine_failure_runs_nothing(
    data_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A layer that fails at run time: the trampoline refuses, the code never runs."""
    marker = tmp_path / "ran"
    monkeypatch.setattr(confine, "wrap", lambda cmd, pol: _failing_wrap(cmd))
    code = f"from pathlib import Path\nPath({str(marker)!r}).write_text('x')\n" + PLOT
    result = run_figure(
        code, data_dir=data_dir, figures_dir=tmp_path / "figs", filename="f", caption="c"
    )
    assert not result.ok
    assert "could not confine" in result.message
    assert not marker.exists()


def _failing_wrap(cmd: list[str]) -> list[str]:
    """The trampoline asked for a seccomp layer on an architecture it has no filter for."""
    import sys

    script = (
        "import sys, runpy; sys.argv = sys.argv[1:]; "
        "import os; os.uname = lambda: type('U', (), {'machine': 'pdp11'})(); "
        "runpy.run_path(sys.argv[0], run_name='__main__')"
    )
    pol = confine.Policy(read=(), write=(), landlock=False, namespaces=False, seccomp=True)
    return [
        sys.executable,
        "-I",
        "-S",
        "-c",
        script,
        str(Path(confine.__file__).resolve()),
        pol.to_json(),
        "--",
        *cmd,
    ]
