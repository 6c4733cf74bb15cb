"""make_figure's sandbox: honest plots work and leave traceable figures behind."""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path

import pytest

from labwright.core.agent.sandbox import FigureResult, check_code, run_figure
from labwright.core.agent.sandbox.provenance import safe_stem

# The real material (read-only): the sandbox reads it in place and must never write it.
PROJECTILE = Path(__file__).resolve().parent / "data" / "projectile-motion"
XLSX = "Data/Projectile motion.xlsx"


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _snapshot(root: Path) -> dict[str, tuple[int, int]]:
    return {
        str(p.relative_to(root)): (p.stat().st_size, p.stat().st_mtime_ns)
        for p in sorted(root.rglob("*"))
    }


@pytest.fixture
def data_dir(tmp_path: Path) -> Path:
    root = tmp_path / "data"
    root.mkdir()
    (root / "pendulum.csv").write_text(
        "length_m,period_s\n0.20,0.90\n0.40,1.27\n0.60,1.55\n0.80,1.80\n1.00,2.01\n",
        encoding="utf-8",
    )
    return root


@pytest.fixture
def figures_dir(tmp_path: Path) -> Path:
    return tmp_path / "run" / "figures"


def _run(code: str, data_dir: Path, figures_dir: Path, **kw) -> FigureResult:
    kw.setdefault("filename", "fig")
    kw.setdefault("caption", "A caption.")
    kw.setdefault("timeout_s", 30)
    return run_figure(code, data_dir=data_dir, figures_dir=figures_dir, **kw)


CSV_LINE = """
import pandas as pd
import matplotlib.pyplot as plt

df = pd.read_csv(DATA_DIR / "pendulum.csv")
print("mean period:", round(df["period_s"].mean(), 3))
fig, ax = plt.subplots()
ax.plot(df["length_m"], df["period_s"], marker="o")
ax.set_xlabel("length / m")
ax.set_ylabel("period / s")
"""


def test_csv_line_plot_lands_with_provenance(data_dir: Path, figures_dir: Path) -> None:
    result = _run(CSV_LINE, data_dir, figures_dir, filename="period.pdf", inputs=["pendulum.csv"])

    assert result.ok, result.message
    assert not result.denied
    assert result.pdf == figures_dir / "period.pdf"
    assert result.png == figures_dir / "period.png"
    assert result.meta == figures_dir / "period.json"
    assert result.pdf.read_bytes().startswith(b"%PDF-")
    assert result.png.read_bytes().startswith(b"\x89PNG\r\n\x1a\n")
    assert (figures_dir / "period.py").read_text(encoding="utf-8") == CSV_LINE
    assert "mean period: 1.506" in result.stdout
    assert "mean period: 1.506" in result.message
    assert "period.pdf" in result.message

    meta = json.loads(result.meta.read_text(encoding="utf-8"))
    assert meta["code"] == CSV_LINE
    assert meta["caption"] == "A caption."
    assert meta["filename"] == "period"
    assert meta["inputs"] == [
        {
            "path": "pendulum.csv",
            "sha256": _sha(data_dir / "pendulum.csv"),
            "bytes": (data_dir / "pendulum.csv").stat().st_size,
        }
    ]
    assert meta["matplotlib"] and meta["created"]
    assert set(meta["files"]) == {"period.pdf", "period.png", "period.py"}
    # Only the published files: no temp files, no staging leftovers.
    assert sorted(p.name for p in figures_dir.iterdir()) == [
        "period.json",
        "period.pdf",
        "period.png",
        "period.py",
    ]


XLSX_FIT = """
import numpy as np
import pandas as pd
import matplotlib.pyplot as plt
from scipy.optimize import curve_fit

raw = pd.read_excel(DATA_DIR / "Data" / "Projectile motion.xlsx", sheet_name="Part A ", header=None)
rows = raw[pd.to_numeric(raw[1], errors="coerce").notna()]
x = rows[17].astype(float).to_numpy()   # V0^2 sin(2 theta), m^2/s^2
y = rows[4].astype(float).to_numpy()    # measured range, m

def model(v2sin2t, k):
    return k * v2sin2t                  # R = v0^2 sin(2 theta) / g

(k,), cov = curve_fit(model, x, y)
print(f"points={len(x)} slope={k:.5f} g={1 / k:.3f}")
fig, ax = plt.subplots()
ax.scatter(x, y, label="measured")
xs = np.linspace(0, x.max() * 1.05, 50)
ax.plot(xs, model(xs, k), label=f"fit: $g = {1 / k:.2f}$ m/s$^2$")
ax.set_xlabel(r"$v_0^2 \\sin 2\\theta$ / m$^2$ s$^{-2}$")
ax.set_ylabel("range / m")
ax.legend()
"""


def test_xlsx_scatter_with_scipy_fit_on_real_material(figures_dir: Path) -> None:
    before = _snapshot(PROJECTILE)  # the real folder is the (read-only) data folder

    result = _run(XLSX_FIT, PROJECTILE, figures_dir, filename="range_fit", inputs=[XLSX])

    assert result.ok, result.message
    match = re.search(r"points=(\d+) slope=([\d.]+) g=([\d.]+)", result.stdout)
    assert match, result.stdout
    assert int(match.group(1)) == 15
    assert 7.0 < float(match.group(3)) < 12.0  # a physically sensible g
    meta = json.loads(result.meta.read_text(encoding="utf-8"))
    assert meta["inputs"][0]["path"] == XLSX
    assert meta["inputs"][0]["sha256"] == _sha(PROJECTILE / XLSX)
    assert _snapshot(PROJECTILE) == before


HISTOGRAMS = """
import numpy as np
import matplotlib.pyplot as plt

rng = np.random.default_rng(7)
samples = rng.normal(9.81, 0.2, size=500)
print(f"n={samples.size} mean={samples.mean():.2f}")
fig1, ax1 = plt.subplots()
ax1.hist(samples, bins=25)
fig2, ax2 = plt.subplots()
ax2.hist(samples - 9.81, bins=25, color="tab:orange")
"""


def test_histogram_and_every_open_figure_is_saved(data_dir: Path, figures_dir: Path) -> None:
    result = _run(HISTOGRAMS, data_dir, figures_dir, filename="g_hist")

    assert result.ok, result.message
    assert re.search(r"n=500 mean=9\.[6-9]\d", result.stdout), result.stdout
    for name in ("g_hist.pdf", "g_hist.png", "g_hist-2.pdf", "g_hist-2.png"):
        assert (figures_dir / name).stat().st_size > 0, name
    meta = json.loads(result.meta.read_text(encoding="utf-8"))
    assert meta["figures"] == 2
    assert meta["inputs"] == []


def test_rerun_with_fewer_figures_removes_stale_extras(data_dir: Path, figures_dir: Path) -> None:
    assert _run(HISTOGRAMS, data_dir, figures_dir, filename="h").ok
    assert (figures_dir / "h-2.pdf").exists()
    single = "import matplotlib.pyplot as plt\nplt.plot([1, 2, 3])\n"

    result = _run(single, data_dir, figures_dir, filename="h")

    assert result.ok, result.message
    assert not (figures_dir / "h-2.pdf").exists()
    assert not (figures_dir / "h-2.png").exists()
    assert (figures_dir / "h.py").read_text(encoding="utf-8") == single


HONEST_MIX = """
import json
import re
from collections import namedtuple
from dataclasses import dataclass
from datetime import datetime, timedelta

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from scipy import stats

@dataclass
class Run:
    label: str
    value: float

Point = namedtuple("Point", "x y")
df = pd.read_csv(DATA_DIR / "pendulum.csv")
long = df.query("length_m > 0.5")
rows = [Point(r.length_m, r.period_s) for r in df.itertuples()]
fit = stats.linregress(np.sqrt(df["length_m"]), df["period_s"])
frozen = stats.norm(loc=0.0, scale=1.0)  # scipy generates its argument parser with exec()
print("pdf0", round(float(frozen.pdf(0.0)), 4))
when = pd.to_datetime(["2024-03-01 10:00", "2024-03-01 11:00"]).tz_localize("Europe/Berlin")
text = (DATA_DIR / "pendulum.csv").read_text(encoding="utf-8")
runs = [Run("a", 1.0), Run("b", 2.0)]
print(json.dumps({"n": len(rows), "long": len(long), "slope": round(fit.slope, 2)}))
print(re.findall(r"length_m", text), str(when[0].tz), datetime(2024, 1, 1) + timedelta(days=1))
fig, ax = plt.subplots()
ax.plot([p.x for p in rows], [p.y for p in rows], "o-")
ax.set_title(r"$T = 2\\pi\\sqrt{L/g}$")
ax.bar([r.label for r in runs], [r.value for r in runs])
plt.tight_layout()
plt.savefig("habit.png")   # harmless habit: lands in the sandbox's temp dir
plt.show()                 # a no-op in the sandbox
"""


def test_common_honest_idioms_are_not_refused(data_dir: Path, figures_dir: Path) -> None:
    assert check_code(HONEST_MIX) == []
    before = _snapshot(data_dir)

    result = _run(HONEST_MIX, data_dir, figures_dir, filename="mix")

    assert result.ok, result.message
    assert '"n": 5' in result.stdout and '"long": 3' in result.stdout
    assert "Europe/Berlin" in result.stdout
    assert "pdf0 0.3989" in result.stdout
    assert not (data_dir / "habit.png").exists()
    assert not (figures_dir / "habit.png").exists()
    assert _snapshot(data_dir) == before


def test_runtime_error_returns_the_traceback_tail(data_dir: Path, figures_dir: Path) -> None:
    code = "import numpy as np\nprint('before')\nvalues = np.arange(3)\nvalues[10]\n"

    result = _run(code, data_dir, figures_dir)

    assert not result.ok and not result.denied
    assert "IndexError" in result.message
    assert "line 4" in result.message and "values[10]" in result.message
    assert "harness.py" not in result.message  # the model sees its own frames only
    assert "before" in result.stdout
    assert len(result.message) <= 1500
    assert not figures_dir.exists() or not any(figures_dir.iterdir())


def test_no_open_figure_is_a_clear_failure(data_dir: Path, figures_dir: Path) -> None:
    code = "import matplotlib.pyplot as plt\nplt.plot([1, 2])\nplt.close('all')\nprint(42)\n"

    result = _run(code, data_dir, figures_dir)

    assert not result.ok and not result.denied
    assert "no figure" in result.message.lower()
    assert "plt.close" in result.message
    assert result.stdout.strip() == "42"
    assert result.pdf is None and result.meta is None


def test_syntax_error_is_a_failure_not_a_denial(data_dir: Path, figures_dir: Path) -> None:
    result = _run("plt.plot([1, 2]\n", data_dir, figures_dir)

    assert not result.ok and not result.denied
    assert "SyntaxError" in result.message


@pytest.mark.parametrize("name", ["../escape", "a/b", "..\\evil", "/etc/x.png", "sub/dir.pdf"])
def test_filename_with_a_path_is_denied(name: str, data_dir: Path, figures_dir: Path) -> None:
    result = _run(
        "import matplotlib.pyplot as plt\nplt.plot([1])\n", data_dir, figures_dir, filename=name
    )

    assert not result.ok and result.denied
    assert "path separator" in result.message
    assert not figures_dir.exists()


@pytest.mark.parametrize(
    ("given", "stem"),
    [
        ("Range vs angle (fit).PNG", "Range-vs-angle-fit"),
        ("fit.pdf", "fit"),
        ("my_fig-2", "my_fig-2"),
        ("弹道.png", "figure"),
        ("..", "figure"),
        ("x" * 200, "x" * 80),
    ],
)
def test_filename_is_sanitized_to_a_safe_stem(given: str, stem: str) -> None:
    assert safe_stem(given) == stem


def test_input_outside_the_data_folder_is_denied(
    tmp_path: Path, data_dir: Path, figures_dir: Path
) -> None:
    (tmp_path / "elsewhere.csv").write_text("a\n1\n", encoding="utf-8")
    code = "import matplotlib.pyplot as plt\nplt.plot([1])\n"

    for inputs in (["../elsewhere.csv"], [str(tmp_path / "elsewhere.csv")], ["missing.csv"]):
        result = _run(code, data_dir, figures_dir, inputs=inputs)
        assert not result.ok and result.denied, inputs
    assert not figures_dir.exists()


def test_static_check_names_the_rule_and_the_fix() -> None:
    assert check_code(CSV_LINE) == []
    assert check_code(XLSX_FIT) == []

    (opened,) = check_code("data = open('x.csv').read()")
    assert "'open' is not allowed" in opened and "pandas.read_csv(DATA_DIR" in opened
    (imported,) = check_code("import os")
    assert "import allowlist" in imported
    dunder = check_code("x = ().__class__")
    assert any("no dunder attributes" in v for v in dunder)
    assert check_code("plt.plot(")[0].startswith("SyntaxError")
    assert check_code("from pathlib import Path\nimport io\nbuf = io.StringIO('a')\n") == []
    assert any("io.open" in v for v in check_code("import io\nio.open('x')"))


def test_static_refusal_is_denied_without_running(data_dir: Path, figures_dir: Path) -> None:
    result = _run("import os\nos.listdir('/')\n", data_dir, figures_dir)

    assert not result.ok and result.denied
    assert "static check" in result.message and "import allowlist" in result.message
