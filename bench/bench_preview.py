"""Edit-to-preview: a one-line edit to a visible PDF update, through the app,
against plain `latexmk -xelatex` on the same file, in one run.

    QT_QPA_PLATFORM=offscreen .venv/bin/python bench/bench_preview.py [runs]

The app side: the review pane of an offline run of examples/pendulum; each
round types a one-line edit, saves, recompiles (Ctrl+B's path) and waits for
the preview to have reloaded. The baseline: the same one-line edit to a copy of
the same report.tex, then `latexmk -xelatex` into an output folder it keeps
between rounds (as the app keeps its build folder). Prints medians and the
ratio (goal <= 1.3).
"""

from __future__ import annotations

import asyncio
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _result import result  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "desktop"))
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ["LABWRIGHT_HOME"] = tempfile.mkdtemp(prefix="labwright-bench-")

import qasync  # noqa: E402

from labwright.cli import main as cli_main  # noqa: E402
from labwright.core.settings.saved import Settings  # noqa: E402
from labwright.gui.app import create_app  # noqa: E402
from labwright.gui.main_window import MainWindow  # noqa: E402


def wait(app, cond, timeout: float = 120) -> None:
    end = time.monotonic() + timeout
    while not cond():
        if time.monotonic() > end:
            raise TimeoutError
        app.processEvents()
        time.sleep(0.002)


def main() -> None:
    runs = int(sys.argv[1]) if len(sys.argv) > 1 else 5
    tmp = Path(tempfile.mkdtemp(prefix="labwright-preview-"))
    run_dir = tmp / "run"
    if (
        cli_main(["run", str(ROOT / "examples" / "pendulum"), "--offline", "--out", str(run_dir)])
        != 10
    ):
        sys.exit("the offline run failed")
    plain = tmp / "plain"
    plain.mkdir()
    for name in ("report.tex", "refs.bib", "figures"):  # what the report needs, nothing built
        src = run_dir / name
        if src.is_dir():
            shutil.copytree(src, plain / name)
        elif src.exists():
            shutil.copy2(src, plain / name)

    app = create_app()
    loop = qasync.QEventLoop(app)
    asyncio.set_event_loop(loop)
    window = MainWindow(loop, Settings())
    window.show()
    window.open_run(run_dir)
    pane = window.review
    done: list[bool] = []
    pane.compiled.connect(done.append)
    pane.recompile()  # warm: the first build fills the build folder, as a person's first Ctrl+B does
    wait(app, lambda: bool(done))
    subprocess.run(
        ["latexmk", "-xelatex", "-interaction=nonstopmode", "-outdir=out", "report.tex"],
        cwd=plain,
        capture_output=True,
        check=False,
    )

    ours, theirs = [], []
    for i in range(runs):
        done.clear()
        start = time.perf_counter()
        text = pane.editor.text().replace("\\end{document}", f"Edit {i}.\n\\end{{document}}")
        pane.editor.set_text(text)
        pane.editor.document().setModified(True)
        pane.recompile()
        wait(app, lambda: bool(done))
        ours.append(time.perf_counter() - start)
        assert done == [True]

        tex = plain / "report.tex"
        start = time.perf_counter()
        tex.write_text(tex.read_text().replace("\\end{document}", f"Edit {i}.\n\\end{{document}}"))
        proc = subprocess.run(
            ["latexmk", "-xelatex", "-interaction=nonstopmode", "-outdir=out", "report.tex"],
            cwd=plain,
            capture_output=True,
            text=True,
            check=False,
        )
        if proc.returncode:
            sys.exit(f"plain latexmk failed:\n{proc.stdout[-3000:]}")
        theirs.append(time.perf_counter() - start)
    window.close()
    asyncio.set_event_loop(None)
    loop.close()
    shutil.rmtree(tmp, ignore_errors=True)
    o, t = statistics.median(ours), statistics.median(theirs)
    print(
        f"edit to visible preview (app): median {o:.2f} s  ({', '.join(f'{x:.2f}' for x in ours)})"
    )
    print(
        f"plain latexmk -xelatex:        median {t:.2f} s  ({', '.join(f'{x:.2f}' for x in theirs)})"
    )
    print(f"ratio:                         {o / t:.2f}   (goal <= 1.3)")
    result("preview_ratio", o / t, "<=1.3", "x")


if __name__ == "__main__":
    main()
