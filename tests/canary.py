"""Effects, not messages: what a hostile scenario may never change or leak.

Every security and reliability scenario hashes the picked folder before and
after (nothing in it may change) and searches every file the run left —
PDF text included — for the API key and for the canary text planted outside
the folder.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Iterable
from pathlib import Path

# Planted in files outside the picked folder; a run must never carry it anywhere.
CANARY = "LABWRIGHT-CANARY-7f3a9c"
# A key that looks like nothing real, so a leak is unmistakable.
SECRET_KEY = "sk-test-LEAKCHECK-0123456789abcdef"


def snapshot(folder: Path) -> dict[str, tuple[str, int]]:
    """Every entry under `folder` (links not followed) with a hash of its content and mode."""
    out: dict[str, tuple[str, int]] = {}
    for root, dirs, files in os.walk(folder, followlinks=False):
        for name in sorted(dirs + files):
            path = Path(root) / name
            rel = str(path.relative_to(folder))
            st = path.lstat()
            if path.is_symlink():
                out[rel] = ("link:" + os.readlink(path), st.st_mode)
            elif path.is_file():
                out[rel] = (hashlib.sha256(path.read_bytes()).hexdigest(), st.st_mode)
            else:
                out[rel] = ("dir", st.st_mode)
    return out


def _texts(path: Path) -> Iterable[str]:
    data = path.read_bytes()
    yield data.decode("latin-1")
    if path.suffix.lower() == ".pdf":
        try:
            from pypdf import PdfReader

            for page in PdfReader(path).pages:
                yield page.extract_text() or ""
        except Exception:  # a broken PDF holds no extractable text to leak
            pass
    if path.suffix.lower() == ".zip":
        import zipfile

        with zipfile.ZipFile(path) as z:
            for info in z.infolist():
                yield z.read(info).decode("latin-1")


def leaks(roots: Iterable[Path], needles: Iterable[str]) -> list[str]:
    """Files under `roots` (PDF text and zip members included) that contain any needle."""
    needles = [n for n in needles if n]
    found = []
    for root in roots:
        if not root.exists():
            continue
        files = [root] if root.is_file() else [p for p in root.rglob("*") if p.is_file()]
        for path in files:
            for text in _texts(path):
                hit = next((n for n in needles if n in text), None)
                if hit:
                    found.append(f"{path}: {hit[:12]}…")
                    break
    return found
