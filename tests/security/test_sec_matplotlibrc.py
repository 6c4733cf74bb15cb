"""A matplotlibrc Labwright did not write never shapes its figures.

matplotlib reads ./matplotlibrc, then $MPLCONFIGDIR/matplotlibrc, then
~/.config/matplotlib/matplotlibrc when it is imported. A lab folder is untrusted:
run as `labwright run . --offline` from inside a folder whose matplotlibrc says
`figure.dpi: 60000`, the offline plots (drawn in Labwright's own process) asked
for a canvas of ~300 GB and the run failed. Here a hostile rc (huge dpi and size,
an odd backend, savefig.directory outside, usetex, a font that does not exist)
sits in each of those places in turn, and `labwright run` runs as a real process:
the run ends as it does without the rc, and its figures are the very same PNGs,
pixel for pixel, as a run's without it. The figure sandbox's child (make_figure)
is checked the same way.
"""

from __future__ import annotations

import json
import os
import struct
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

import labwright
from agent_helpers import FINISH_ARGS, writer_turn
from canary import SECRET_KEY
from fakes import FakeLLM, call, tool_calls

pytestmark = pytest.mark.skipif(os.name != "posix", reason="RLIMIT_AS bounds the old failure")

CANARY_MODULE = "labwright_rc_canary"
MEMORY_CAP = 4 << 30  # a run that asks for a 300 GB canvas fails fast instead of swapping
MAX_SIDE_PX = 4000  # the figures are a few inches at 150 dpi: far below this


SOURCE = str(Path(labwright.__file__).resolve().parents[1])  # this worktree's labwright


def child_env(**extra: str) -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (SOURCE, env.get("PYTHONPATH")) if p)
    env["LABWRIGHT_API_KEY"] = SECRET_KEY
    env.pop("LABWRIGHT_BASE_URL", None)
    env.update(extra)
    return env


def hostile_rc(outside: Path) -> str:
    return "\n".join(
        [
            "figure.dpi: 60000",
            "savefig.dpi: 60000",
            "figure.figsize: 300, 200",
            f"backend: module://{CANARY_MODULE}",  # would import code from the cwd
            f"savefig.directory: {outside}",
            "savefig.bbox: tight",
            "text.usetex: True",
            "font.family: nonsense-font-family",
            "font.size: 250",
            "lines.linewidth: 60",
            "font.weight: \x1b[2J\x1b]0;owned\x07",  # a bad value matplotlib would quote
            "",
        ]
    )


def png_size(path: Path) -> tuple[int, int]:
    head = path.read_bytes()[:24]
    assert head[:8] == b"\x89PNG\r\n\x1a\n" and head[12:16] == b"IHDR", path
    width, height = struct.unpack(">II", head[16:24])
    return width, height


def pngs(run_dir: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted((run_dir / "figures").glob("*.png"))}


def _cap_memory() -> None:
    import resource

    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_CAP, MEMORY_CAP))


def labwright(args: list[Any], cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess:
    """`labwright ARGS` as the person types it: the console script, else python -m."""
    script = Path(sys.executable).with_name("labwright")
    cmd = [str(script)] if script.is_file() else [sys.executable, "-m", "labwright.cli"]
    return subprocess.run(
        [*cmd, *map(os.fsdecode, args)],
        cwd=cwd,
        env=env,
        capture_output=True,
        timeout=180,
        preexec_fn=_cap_memory,
        check=False,
    )


def matplotlib_sees(cwd: Path, env: dict[str, str]) -> dict[str, Any]:
    """Positive control: what a fresh matplotlib reads in that place (the hostile rc)."""
    code = (
        "import json, matplotlib as m; print(json.dumps({'file': m.matplotlib_fname(), "
        "'dpi': m.rcParams['figure.dpi'], 'usetex': m.rcParams['text.usetex']}))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=cwd, env=env, capture_output=True, check=True
    )
    return json.loads(out.stdout.decode().strip().splitlines()[-1])


class Places:
    """Where the rc goes, and the environment the run gets, for one scenario."""

    def __init__(self, root: Path, folder: Path) -> None:
        self.root = root
        self.folder = folder
        self.outside = root / "savefig-directory"  # the rc points savefig here
        self.outside.mkdir()
        self.imported = root / "canary-backend-imported"
        self.work = root / "cwd"  # a neutral working directory
        self.work.mkdir()
        self.clean_config = root / "mplconfig-clean"
        self.clean_config.mkdir()
        # the "odd backend": importing it (what pyplot would do) leaves a mark
        for where in (self.work, folder):
            (where / f"{CANARY_MODULE}.py").write_text(
                f"open({str(self.imported)!r}, 'w').write('imported')\n", encoding="utf-8"
            )

    def env(self, **extra: str) -> dict[str, str]:
        env = child_env(MPLCONFIGDIR=str(self.clean_config), HOME=str(self.root / "home"))
        env.pop("XDG_CONFIG_HOME", None)
        env.pop("MATPLOTLIBRC", None)
        env.update(extra)
        return env

    def hostile(self, where: str) -> tuple[Path, dict[str, str], Path]:
        """(cwd, env, the rc file) with the hostile rc at `where`."""
        rc = hostile_rc(self.outside)
        if where == "cwd":
            path = self.folder / "matplotlibrc"
            path.write_text(rc, encoding="utf-8")
            return self.folder, self.env(), path
        if where == "MATPLOTLIBRC":
            (path := self.root / "some.rc").write_text(rc, encoding="utf-8")
            return self.work, self.env(MATPLOTLIBRC=str(path)), path
        if where == "MPLCONFIGDIR":
            config = self.root / "mplconfig-hostile"
            config.mkdir()
            (path := config / "matplotlibrc").write_text(rc, encoding="utf-8")
            return self.work, self.env(MPLCONFIGDIR=str(config)), path
        assert where == "home"
        config = self.root / "home" / ".config" / "matplotlib"
        config.mkdir(parents=True)
        (path := config / "matplotlibrc").write_text(rc, encoding="utf-8")
        env = self.env()
        del env["MPLCONFIGDIR"]  # so matplotlib looks in ~/.config/matplotlib
        return self.work, env, path

    def assert_untouched(self) -> None:
        assert list(self.outside.iterdir()) == [], "something was saved to savefig.directory"
        assert not self.imported.exists(), "the rc's backend module was imported"


def _assert_same_run(base: subprocess.CompletedProcess, hostile: subprocess.CompletedProcess):
    said = hostile.stderr.decode("utf-8", "replace")
    assert hostile.returncode == base.returncode, said
    assert "MemoryError" not in said and "Traceback" not in said, said
    # matplotlib's complaints about the rc quote its lines raw: none reach the terminal
    assert b"\x1b" not in hostile.stderr and b"\x07" not in hostile.stderr, said


def _assert_same_figures(base_run: Path, hostile_run: Path) -> None:
    base, got = pngs(base_run), pngs(hostile_run)
    assert base, "the clean run drew no figure: nothing was compared"
    assert sorted(got) == sorted(base)
    for name in base:
        width, height = png_size(hostile_run / "figures" / name)
        assert (width, height) == png_size(base_run / "figures" / name), name
        assert width <= MAX_SIDE_PX and height <= MAX_SIDE_PX, (name, width, height)
        assert got[name] == base[name], f"{name} differs from the clean run's"
    status = [json.loads((d / "run.json").read_text())["status"] for d in (base_run, hostile_run)]
    assert status[0] == status[1], status


@pytest.mark.parametrize("where", ["cwd", "MATPLOTLIBRC", "MPLCONFIGDIR", "home"])
def test_offline_plots_ignore_a_hostile_matplotlibrc(where, material, tmp_path, guarded_folder):
    places = Places(tmp_path, material)
    base = labwright(["run", material, "--offline", "--no-compile", "--out", tmp_path / "base"], places.work,
                     places.env())  # fmt: skip
    cwd, env, rc = places.hostile(where)
    folder = guarded_folder(material)
    sees = matplotlib_sees(cwd, env)
    assert (cwd / sees["file"]).resolve() == rc.resolve() and sees["dpi"] == 60000, sees
    target = "." if where == "cwd" else folder  # `labwright run .` from inside the folder
    hostile = labwright(
        ["run", target, "--offline", "--no-compile", "--out", tmp_path / "hostile"], cwd, env
    )
    _assert_same_run(base, hostile)
    assert hostile.returncode == 10  # offline: degraded, a report written (not 1, failed)
    _assert_same_figures(tmp_path / "base", tmp_path / "hostile")
    places.assert_untouched()


FIGURE_CODE = (
    "import matplotlib.pyplot as plt\n"
    "plt.plot([0.2, 0.4, 0.6, 0.8, 1.0], [0.90, 1.27, 1.55, 1.80, 2.01], 'o-')\n"
    "plt.xlabel('L / m'); plt.ylabel('T / s'); plt.title('Pendulum')\n"
)


def _model() -> Any:
    def answer(body: dict[str, Any], n: int) -> Any:
        if body["model"] == "fake-write":
            return writer_turn(body)
        turn = sum(1 for m in body["messages"] if m.get("role") == "assistant")
        return [
            tool_calls(call("read_file", {"path": "data/pendulum.csv"})),
            tool_calls(
                call(
                    "make_figure",
                    {"code": FIGURE_CODE, "filename": "period", "caption": "Period against length"},
                )
            ),  # fmt: skip
            tool_calls(call("finish_exploration", FINISH_ARGS)),
        ][min(turn, 2)]

    return answer


def test_the_figure_sandbox_ignores_a_hostile_matplotlibrc(material, tmp_path, guarded_folder):
    from labwright.core.confine import support

    if not support().any:
        pytest.skip("figures run only confined here (no OS confinement on this machine)")
    places = Places(tmp_path, material)
    runs = {}
    with FakeLLM(_model()) as llm:
        common = ["--base-url", llm.base_url, "--explore-model", "fake-explore",
                  "--write-model", "fake-write", "--no-compile", "--reflect", "0"]  # fmt: skip
        runs["base"] = labwright(["run", material, "--out", tmp_path / "base", *common],
                                 places.work, places.env())  # fmt: skip
        # every place at once: the cwd (the folder itself), MPLCONFIGDIR and ~/.config
        cwd, _, _ = places.hostile("cwd")
        _, mplconfig_env, _ = places.hostile("MPLCONFIGDIR")
        places.hostile("home")
        folder = guarded_folder(material)
        assert matplotlib_sees(cwd, mplconfig_env)["dpi"] == 60000
        runs["hostile"] = labwright(["run", ".", "--out", tmp_path / "hostile", *common],
                                    folder, mplconfig_env)  # fmt: skip
    _assert_same_run(runs["base"], runs["hostile"])
    assert runs["hostile"].returncode in (0, 10)
    made = json.loads((tmp_path / "hostile" / "findings.json").read_text())["figures"]
    assert [f["filename"] for f in made] == ["period"]  # the model's figure, from the sandbox
    _assert_same_figures(tmp_path / "base", tmp_path / "hostile")
    places.assert_untouched()


def test_the_hostile_rc_is_seen_by_a_plain_matplotlib(material, tmp_path):
    """Positive control for the whole file: outside Labwright's plotting scope, the same
    rc does reach matplotlib's figures (so the checks above could see it leak)."""
    places = Places(tmp_path, material)
    cwd, env, _ = places.hostile("cwd")
    code = (
        "import matplotlib; from matplotlib.figure import Figure; "
        "f = Figure(); print(f.dpi, tuple(f.get_size_inches()))"
    )
    out = subprocess.run([sys.executable, "-c", code], cwd=cwd, env=env, capture_output=True,
                         check=True)  # fmt: skip
    assert out.stdout.decode().split()[0] == "60000.0"


def test_no_canvas_passes_the_pixel_cap(monkeypatch):
    """A figure whose size and dpi would need a huge canvas is drawn at a dpi that fits."""
    from matplotlib.figure import Figure

    from labwright.core.report.offline import plots

    monkeypatch.setattr(plots, "MAX_PIXELS", 1_000_000)  # small, so the check is quick
    with plots.house_style(["DejaVu Sans"]):
        huge = Figure(figsize=(300, 200), dpi=60000)
        huge.subplots().plot([0, 1], [0, 1])
        _, png = plots.pdf_and_png(huge)
        normal = Figure(figsize=(6.4, 3.4), dpi=plots.FIGURE_DPI)
        normal.subplots().plot([0, 1], [0, 1])
        _, small = plots.pdf_and_png(normal)
    width, height = struct.unpack(">II", png[16:24])
    assert width * height <= 1_000_000 and width > 100, (width, height)
    assert struct.unpack(">II", small[16:24]) == (960, 510)  # 6.4 × 3.4 in at 150 dpi
