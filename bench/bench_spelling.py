"""Spell checking while typing: time per keystroke in a 2,000-line report.

Builds a report of about 2,000 lines from the projectile-motion offline skeleton
(tables, captions, prose, math) and opens it in the review pane's editor, with
spell checking on and off. Prints the time to load the text (every block
highlighted once), the median and 95th percentile of one keystroke in the middle
of a paragraph (QSyntaxHighlighter re-highlights the edited block, and the
blocks after it only while their state changes), and of a `$` typed there (it
opens math until the paragraph ends, so the rest of the paragraph is redone).
Goal: a keystroke well under 16 ms (one frame). The word being typed is judged
when it is finished (the space after it) or typing pauses (editor.SPELL_PAUSE_MS),
so its letters change no underline (a change of formats repaints the whole view).

    QT_QPA_PLATFORM=offscreen .venv/bin/python bench/bench_spelling.py [--keys 200]
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import tempfile
import time
from pathlib import Path

from _result import result  # noqa: E402

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from PySide6.QtCore import Qt  # noqa: E402
from PySide6.QtTest import QTest  # noqa: E402
from PySide6.QtWidgets import QApplication  # noqa: E402

from labwright.cli import main  # noqa: E402
from labwright.core.report.review import spelling  # noqa: E402
from labwright.gui.editor import EditorPanel  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
LINES = 2000


def report(tmp: Path) -> str:
    folder = tmp / "projectile-motion"
    shutil.copytree(ROOT / "tests" / "data" / "projectile-motion", folder)
    os.environ["LABWRIGHT_HOME"] = str(tmp / "home")
    main(["run", str(folder), "--offline", "--no-compile", "--out", str(tmp / "run")])
    lines = (tmp / "run" / "report.tex").read_text(encoding="utf-8").splitlines()
    begin = lines.index("\\begin{document}") + 1
    end = lines.index("\\end{document}")
    body = lines[begin:end]
    prose = [
        "",
        "The measured range grows with the launch angle until fourty five degrees, then falls",
        "again; the uncertainty of each point comes from the spread of the five repeated",
        "launches and the resolution of the metre rule, as the manual asks.",
        "",
    ]
    out = lines[:begin]
    while len(out) < LINES:
        out += body + prose
    return "\n".join(out[:LINES] + ["\\end{document}"]) + "\n"


def keystrokes(editor, line: int, key: str, n: int) -> list[float]:
    editor.go_to_line(line)
    QTest.keyClick(editor, Qt.Key.Key_End)
    times = []
    for _ in range(n):
        start = time.perf_counter()
        QTest.keyClicks(editor, key)
        QApplication.processEvents()
        times.append((time.perf_counter() - start) * 1000)
        QTest.keyClick(editor, Qt.Key.Key_Backspace)
        QApplication.processEvents()
    return times


def measure(text: str, spell: bool, n: int) -> dict[str, float]:
    panel = EditorPanel()
    panel.resize(900, 700)
    panel.show()
    editor = panel.editor
    start = time.perf_counter()
    if spell:
        spelling._checker("en")  # the dictionary: loaded once per process, on first use
    editor.set_spell_language("en" if spell else None)
    loaded = time.perf_counter()
    editor.set_text(text)
    QApplication.processEvents()
    shown = time.perf_counter()
    middle = len(text.splitlines()) // 2
    line = next(
        n for n, t in enumerate(text.splitlines(), 1) if n >= middle and t.startswith("again;")
    )
    letters = keystrokes(editor, line, "x", n)
    dollars = keystrokes(editor, line, "$", max(10, n // 10))
    panel.close()
    return {
        "dictionary_ms": (loaded - start) * 1000,
        "load_ms": (shown - loaded) * 1000,
        "key_median_ms": statistics.median(letters),
        "key_p95_ms": statistics.quantiles(letters, n=20)[-1],
        "dollar_median_ms": statistics.median(dollars),
    }


def run() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--keys", type=int, default=200)
    args = parser.parse_args()
    app = QApplication.instance() or QApplication([])
    with tempfile.TemporaryDirectory() as tmp:
        text = report(Path(tmp))
        print(f"report: {len(text.splitlines())} lines, {len(text):,} characters")
        for spell in (False, True):
            m = measure(text, spell, args.keys)
            label = "spell checking on " if spell else "spell checking off"
            print(
                f"{label}: dictionary {m['dictionary_ms']:.0f} ms, open {m['load_ms']:.0f} ms, "
                f"keystroke median {m['key_median_ms']:.2f} ms (p95 {m['key_p95_ms']:.2f} ms), "
                f"'$' keystroke median {m['dollar_median_ms']:.2f} ms"
            )
            on = "on" if spell else "off"
            # the goal: a keystroke well under one frame (16 ms), read on the median
            result(f"spelling_{on}_key_median_ms", m["key_median_ms"], "<=16", "ms")
            result(f"spelling_{on}_key_p95_ms", m["key_p95_ms"], None, "ms")  # busy-machine noise
    del app


if __name__ == "__main__":
    run()
