"""`labwright --smoke-test`: does this installation work, without a screen or a model?

Made for the bundle (packaging/), whose build can leave out a library, a Qt
plugin or a data file that only a real start would miss; it works the same from a
source checkout. In order, each step timed:

1. Qt starts offscreen and builds the main window (translations, icon, widgets);
2. an offline report of the bundled example (examples/pendulum), compiled to PDF
   when this machine has TeX (which also runs Labwright's confined TeX child);
3. the run reopens in the window, as a double-click in History does;
4. a PDF (the report's, else a figure's) loads in a PDF preview and renders a page
   that is not blank;
5. a figure through the make_figure sandbox (numpy, pandas, scipy, matplotlib in a
   confined child), where this OS has a sandbox;
6. the report as a Word document, through the pandoc of the pypandoc-binary wheel
   (the bundle carries its binary);
7. the editor's spell checker finds a misspelt word of the report's prose and
   suggests the right one (the bundle carries pyspellchecker's English dictionary).

Exit 0 only if every step that applies worked. Settings and runs go to a temporary
LABWRIGHT_HOME, so the person's own are never touched.
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
import time
import traceback
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from PySide6.QtWidgets import QApplication

    from labwright.gui.main_window import MainWindow

FIGURE_CODE = """\
import numpy as np
import pandas as pd
from scipy.optimize import curve_fit
import matplotlib.pyplot as plt

d = pd.read_csv(DATA_DIR / "data" / "periods.csv")
T = d[["t10_run1_s", "t10_run2_s", "t10_run3_s"]].mean(axis=1) / 10
(k,), _ = curve_fit(lambda L, k: k * np.sqrt(L), d["length_m"], T)
print(f"g = {4 * np.pi**2 / k**2:.2f}")
plt.plot(d["length_m"], T, "o")
"""


class _Skip(Exception):
    """A step that does not apply on this machine (said, not failed)."""


def _qt_message(kind: object, context: object, message: str) -> None:
    # what the offscreen platform says of every window; anything else is worth seeing
    if "propagateSizeHints" not in message:
        print(f"qt: {message}", file=sys.stderr, flush=True)


def example_folder() -> Path | None:
    """The bundled example: inside the bundle, or in the source checkout."""
    candidates = []
    if meipass := getattr(sys, "_MEIPASS", None):
        candidates.append(Path(meipass) / "examples" / "pendulum")
    candidates.append(Path(__file__).resolve().parents[2] / "examples" / "pendulum")
    return next((c for c in candidates if (c / "data" / "periods.csv").is_file()), None)


def main() -> int:
    """Run every step; print one line each; 0 when all worked."""
    started = time.monotonic()
    saved = {name: os.environ.get(name) for name in ("QT_QPA_PLATFORM", "LABWRIGHT_HOME")}
    try:
        os.environ["QT_QPA_PLATFORM"] = "offscreen"
        with tempfile.TemporaryDirectory(prefix="labwright-smoke-") as tmp:
            os.environ["LABWRIGHT_HOME"] = str(Path(tmp) / "home")
            ok = _Smoke(Path(tmp)).run()
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value
    took = time.monotonic() - started
    print(f"smoke test {'passed' if ok else 'FAILED'} in {took:.1f} s", flush=True)
    return 0 if ok else 1


class _Smoke:
    def __init__(self, tmp: Path) -> None:
        self.tmp = tmp
        self.run_dir = tmp / "run"
        self.app: QApplication | None = None  # once the first step has made them
        self.window: MainWindow | None = None
        self.pdf: Path | None = None
        self.ok = True

    def run(self) -> bool:
        steps: list[tuple[str, Callable[[], str]]] = [
            ("Qt starts offscreen with the main window", self.qt),
            ("offline report of the bundled example", self.offline_run),
            ("the run reopens in the window", self.reopen),
            ("a PDF shows in the preview", self.preview),
            ("a figure through the sandbox", self.figure),
            ("the report as a Word document", self.word),
            ("spell checking of the prose", self.spelling),
        ]
        try:
            for name, step in steps:
                self.step(name, step)
        finally:
            if self.window is not None:
                self.window.close()
        return self.ok

    def step(self, name: str, fn: Callable[[], str]) -> None:
        t0 = time.monotonic()
        try:
            detail = fn()
            mark = "ok  "
        except _Skip as e:
            mark, detail = "skip", str(e)
        except Exception as e:
            self.ok = False
            mark = "FAIL"
            detail = f"{type(e).__name__}: {e}"
            traceback.print_exc(file=sys.stderr)
        took = time.monotonic() - t0
        print(f"[{mark}] {name} ({took:.2f} s){': ' + detail if detail else ''}", flush=True)

    def qt(self) -> str:
        from PySide6 import __version__ as pyside_version
        from PySide6.QtCore import QCoreApplication, qInstallMessageHandler

        from labwright.core.settings.saved import Settings
        from labwright.gui.app import create_app
        from labwright.gui.i18n import install_language
        from labwright.gui.main_window import MainWindow

        qInstallMessageHandler(_qt_message)
        self.app = app = create_app()
        if install_language("zh_CN") != "zh_CN":
            raise RuntimeError("the Chinese translation did not load")
        install_language("en")
        if QCoreApplication.translate("Timeline", "%n file(s)", "", 2) != "2 files":
            raise RuntimeError("the English plural forms did not load")
        self.window = window = MainWindow(None, Settings())
        window.show()
        app.processEvents()
        if app.windowIcon().isNull():
            raise RuntimeError("the window icon did not load")
        return f"PySide6 {pyside_version}, platform {app.platformName()}"

    def offline_run(self) -> str:
        from labwright.core.events import Done, Error
        from labwright.core.report.latex import probe_engines
        from labwright.core.run.pipeline import run_agent
        from labwright.core.rundir.layout import RunDir
        from labwright.core.settings.resolve import resolve_config

        example = example_folder()
        if example is None:
            raise RuntimeError("the example folder (examples/pendulum) is not in this install")
        folder = self.tmp / "pendulum"  # a copy: a bundle may sit on a read-only disk
        shutil.copytree(example, folder)
        config = resolve_config(folder, flags={"offline": True, "out_dir": self.run_dir})
        done: Done | None = None
        for event in run_agent(config):
            if isinstance(event, Done):
                done = event
            elif isinstance(event, Error):
                raise RuntimeError(f"{event.stage}: {event.message}")
        run = RunDir(self.run_dir)
        if done is None or done.status != "degraded" or not run.report_tex.is_file():
            raise RuntimeError(f"the run ended {getattr(done, 'status', 'without a done event')}")
        figures = sorted(run.figures.glob("*.pdf"))
        if not figures:
            raise RuntimeError("the offline run made no figure")
        report_pdf = run.report_pdf
        if probe_engines().can_compile:
            if not report_pdf.is_file():
                raise RuntimeError(f"TeX is here but the report did not compile: {done.reasons}")
            self.pdf = report_pdf
            return f"report.tex, report.pdf and {len(figures)} figures"
        self.pdf = figures[0]
        return f"report.tex and {len(figures)} figures (no TeX here: not compiled)"

    def reopen(self) -> str:
        from labwright.core.rundir.layout import RunDir

        journal = RunDir(self.run_dir).journal
        if self.window is None or self.app is None or not journal.is_file():
            raise _Skip("needs the steps before")
        self.window.open_run(self.run_dir)
        self.app.processEvents()
        if self.window.run_dir != self.run_dir:
            raise RuntimeError("the window did not take the run")
        return ""

    def preview(self) -> str:
        from PySide6.QtCore import QSize
        from PySide6.QtGui import QColor
        from PySide6.QtPdf import QPdfDocument
        from PySide6.QtPdfWidgets import QPdfView

        if self.pdf is None or self.app is None:
            raise _Skip("no PDF was made")
        # both parentless and closed in order: a document owned by the view would be
        # deleted twice (by the view and by its Python wrapper) when the step returns
        doc = QPdfDocument()
        view = QPdfView()
        view.setDocument(doc)
        doc.load(str(self.pdf))
        if doc.status() != QPdfDocument.Status.Ready or doc.pageCount() < 1:
            raise RuntimeError(f"{self.pdf.name} did not load: {doc.error()}")
        view.resize(600, 800)
        view.show()
        self.app.processEvents()
        image = doc.render(0, QSize(300, 400))
        white = QColor("white").rgb()
        inked = sum(
            image.pixel(x, y) != white
            for x in range(0, image.width(), 4)
            for y in range(0, image.height(), 4)
        )
        pages = doc.pageCount()
        view.close()
        del view
        doc.close()
        if image.isNull() or not inked:
            raise RuntimeError(f"page 1 of {self.pdf.name} rendered blank")
        return f"{self.pdf.name}: {pages} page(s)"

    def word(self) -> str:
        import zipfile

        from labwright.core.report.export import export_report
        from labwright.core.report.word import find_pandoc
        from labwright.core.rundir.layout import RunDir

        if not RunDir(self.run_dir).report_tex.is_file():
            raise _Skip("needs the offline report")
        pandoc = find_pandoc()
        if pandoc is None:
            raise RuntimeError("no pandoc: the pypandoc-binary wheel's binary is missing")
        out = export_report(self.run_dir, self.tmp / "report.docx", as_docx=True)
        with zipfile.ZipFile(out) as z:
            images = [n for n in z.namelist() if n.startswith("word/media/")]
            if "word/document.xml" not in z.namelist() or not images:
                raise RuntimeError("the .docx has no document or no figure")
        return f"pandoc {pandoc.version_text}: {len(images)} figure(s)"

    def spelling(self) -> str:
        from labwright.core.report.review.spelling import Speller, document_words

        speller = Speller("en")
        words = [w.text for _, w in document_words("We \\textbf{recieve} $x$ the data.")]
        if words != ["We", "recieve", "the", "data"] or not speller.is_misspelt("recieve"):
            raise RuntimeError(f"the prose words or the dictionary are wrong: {words}")
        suggestions = speller.suggestions("recieve")
        if not suggestions or suggestions[0] != "receive":
            raise RuntimeError(f"no suggestion for 'recieve': {suggestions}")
        return "recieve → " + ", ".join(suggestions)

    def figure(self) -> str:
        from labwright.core.agent.sandbox import run_figure
        from labwright.core.agent.sandbox.runner import confinement, figures_allowed

        if not figures_allowed(False):
            raise _Skip(f"no OS sandbox on this machine ({confinement()})")
        example = example_folder()
        if example is None:
            raise _Skip("no example folder")
        result = run_figure(
            FIGURE_CODE,
            data_dir=example,
            figures_dir=self.tmp / "sandbox-figures",
            filename="period",
            caption="Period against length",
            inputs=["data/periods.csv"],
        )
        if not result.ok or result.pdf is None:
            raise RuntimeError(result.message)
        return result.stdout.strip()
