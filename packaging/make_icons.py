"""Render the app icon (labwright/resources/icons/labwright.svg) as PNGs at the usual sizes.

    python packaging/make_icons.py OUT_DIR

writes OUT_DIR/hicolor/<N>x<N>/apps/org.labwright.Labwright.png for each size, the
SVG as hicolor/scalable/apps/org.labwright.Labwright.svg, and OUT_DIR/labwright.png
(512 px, which PyInstaller turns into the .ico and .icns). The spec runs it at build
time, so no binary icon is kept in the repository. Qt renders it (QtSvg, offscreen):
the same renderer the app's window icon uses.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

APP_ID = "org.labwright.Labwright"
SIZES = (16, 24, 32, 48, 64, 128, 256, 512)
SVG = Path(__file__).resolve().parents[1] / "desktop/labwright/resources/icons/labwright.svg"


def render(out: Path) -> list[Path]:
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PySide6.QtCore import QByteArray, Qt
    from PySide6.QtGui import QGuiApplication, QImage, QPainter
    from PySide6.QtSvg import QSvgRenderer

    app = QGuiApplication.instance() or QGuiApplication(sys.argv[:1])  # noqa: F841 - Qt needs one
    svg = SVG.read_bytes()
    renderer = QSvgRenderer(QByteArray(svg))
    if not renderer.isValid():
        raise SystemExit(f"not a valid SVG: {SVG}")
    written = []
    for size in SIZES:
        image = QImage(size, size, QImage.Format.Format_ARGB32)
        image.fill(Qt.GlobalColor.transparent)
        painter = QPainter(image)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        renderer.render(painter)
        painter.end()
        path = out / "hicolor" / f"{size}x{size}" / "apps" / f"{APP_ID}.png"
        path.parent.mkdir(parents=True, exist_ok=True)
        if not image.save(str(path), "PNG"):
            raise SystemExit(f"could not write {path}")
        written.append(path)
    scalable = out / "hicolor" / "scalable" / "apps" / f"{APP_ID}.svg"
    scalable.parent.mkdir(parents=True, exist_ok=True)
    scalable.write_bytes(svg)
    big = out / "labwright.png"
    big.write_bytes(written[-1].read_bytes())
    return [*written, scalable, big]


if __name__ == "__main__":
    if len(sys.argv) != 2:
        raise SystemExit(__doc__)
    for p in render(Path(sys.argv[1])):
        print(p)
