"""Find the TeX engines once per process, fast, without compiling anything.

The plan and the compile gate must agree, so the pipeline probes once and
passes the same `Engines` to both. Probing is `shutil.which` plus one
`kpsewhich` call (about 10 ms); `fc-list` runs only when kpathsea knows no CJK
font at all.
"""

from __future__ import annotations

import glob
import os
import shutil
import subprocess
import sys
import threading
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

# Preference order: XeLaTeX handles UTF-8 text and system fonts (CJK) best;
# pdflatex is the last resort (no CJK without extra packages).
ENGINE_ORDER = ("xelatex", "lualatex", "pdflatex")
_UNICODE_ENGINES = ("xelatex", "lualatex")

# Fonts CTeX's default Linux fontset (Fandol) needs; TeX Live ships them.
_FANDOL = ("FandolSong-Regular.otf",)
# Files CTeX's `ubuntu` fontset opens by name (fonts-noto-cjk + the AR PL
# KaitiM GB font that Debian's texlive-lang-chinese depends on).
_NOTO_FONTSET = (
    "NotoSerifCJK-Regular.ttc",
    "NotoSerifCJK-Bold.ttc",
    "NotoSansCJK-Regular.ttc",
    "NotoSansCJK-Bold.ttc",
    "gkai00mp.ttf",
)

DEBIAN_PACKAGES = (
    "texlive-xetex",
    "texlive-lang-chinese",
    "texlive-latex-recommended",
    "texlive-latex-extra",
    "texlive-science",  # siunitx
    "texlive-fonts-recommended",  # pzdr.tfm, which hyperref's XeTeX driver loads
    "fonts-noto-cjk",
    "latexmk",
)

_PROBE_TIMEOUT_S = 5.0


@dataclass(frozen=True)
class Engines:
    """What this machine can compile. Paths are absolute, or None when absent."""

    latexmk: str | None
    xelatex: str | None
    lualatex: str | None
    pdflatex: str | None
    ctex: bool  # ctex.sty is installed
    cjk_font: bool  # a CJK font XeLaTeX/LuaLaTeX can use
    # CTeX fontset to make the default when the document names none, or None
    # to keep CTeX's own choice. On Linux CTeX picks Fandol, whose glyphs get no
    # ToUnicode map from xdvipdfmx: the PDF shows Chinese but its text cannot
    # be searched or copied. Noto CJK (the `ubuntu` fontset) has no such flaw.
    ctex_fontset: str | None = None
    # CTeX under LuaLaTeX needs LuaTeX-ja (texlive-lang-japanese on Debian).
    luatexja: bool = False

    @property
    def engine(self) -> str | None:
        """The engine compile_tex uses: xelatex, then lualatex, then pdflatex."""
        for name in ENGINE_ORDER:
            if getattr(self, name):
                return name
        return None

    @property
    def can_compile(self) -> bool:
        return self.engine is not None

    def can_compile_lang(self, lang: str) -> bool:
        """Whether a report in `lang` ("en", "zh", "zh-CN", ...) can be compiled."""
        base = lang.lower().replace("_", "-").split("-")[0]
        if base == "zh":
            engine = bool(self.xelatex) or bool(self.lualatex and self.luatexja)
            return engine and self.ctex and self.cjk_font
        if base in ("ja", "ko"):
            return any(getattr(self, name) for name in _UNICODE_ENGINES) and self.cjk_font
        return self.can_compile

    def install_hint(self, platform: str | None = None) -> str:
        """How to install what is missing on this OS; "" when nothing is missing."""
        how = _engine_hint(platform or sys.platform)
        if not self.can_compile:
            return f"No TeX engine found (xelatex, lualatex or pdflatex). {how}"
        if not self.can_compile_lang("zh"):
            return f"Chinese reports need XeLaTeX, ctex and a CJK font. {how}"
        if not self.latexmk:
            return f"latexmk not found: compiling with the engine directly. {how}"
        return ""

    def tool_dirs(self) -> list[str]:
        """Folders of the tools found, for the PATH of TeX processes (latexmk
        calls the engine by name, which must resolve to the probed one)."""
        found = (self.latexmk, *(getattr(self, name) for name in ENGINE_ORDER))
        return list(dict.fromkeys(str(Path(p).parent) for p in found if p))

    def to_dict(self) -> dict[str, Any]:
        return {
            **asdict(self),
            "engine": self.engine,
            "can_compile": self.can_compile,
            "can_compile_zh": self.can_compile_lang("zh"),
        }


NO_ENGINES = Engines(
    latexmk=None, xelatex=None, lualatex=None, pdflatex=None, ctex=False, cjk_font=False
)


def _is_debian_like() -> bool:
    try:
        text = Path("/etc/os-release").read_text(encoding="utf-8", errors="replace")
    except OSError:
        return False
    ids = [line.split("=", 1)[1].strip('"').lower() for line in text.splitlines() if "=" in line]
    return any("debian" in v or "ubuntu" in v for v in ids)


def _engine_hint(platform: str) -> str:
    if platform.startswith("win"):
        return (
            "Install MiKTeX (https://miktex.org/download, or `winget install MiKTeX.MiKTeX`) "
            "or TeX Live (https://tug.org/texlive/), then restart Labwright."
        )
    if platform == "darwin":
        return (
            "Install MacTeX (https://tug.org/mactex/) or run "
            "`brew install --cask mactex-no-gui`, then restart Labwright."
        )
    apt = "sudo apt-get install " + " ".join(DEBIAN_PACKAGES)
    if platform.startswith("linux") and _is_debian_like():
        return f"Run: {apt}"
    return (
        "Install TeX Live with XeLaTeX, latexmk, ctex and a CJK font (Noto CJK) from your "
        f"distribution or https://tug.org/texlive/ (Debian/Ubuntu: {apt})."
    )


def _extra_tex_dirs() -> list[str]:
    """Where TeX distributions install, for when PATH lacks them: a macOS app
    started from Finder gets no shell PATH, MiKTeX may install per user."""
    if sys.platform == "darwin":
        patterns = ["/Library/TeX/texbin", "/usr/local/texlive/*/bin/*", "/opt/homebrew/bin"]
    elif sys.platform.startswith("win"):
        local = os.environ.get("LOCALAPPDATA", "")
        patterns = [
            os.path.join(local, "Programs", "MiKTeX", "miktex", "bin", "x64") if local else "",
            r"C:\Program Files\MiKTeX\miktex\bin\x64",
            r"C:\texlive\*\bin\windows",
            r"C:\texlive\*\bin\win*",
        ]
    else:
        patterns = ["/usr/local/texlive/*/bin/*"]
    dirs: list[str] = []
    for pattern in filter(None, patterns):
        # Newest TeX Live year first.
        dirs += [d for d in sorted(glob.glob(pattern), reverse=True) if os.path.isdir(d)]
    return dirs


def _search_path() -> str:
    # PATH first, so the probe finds what a terminal would; extras after.
    return os.pathsep.join([os.environ.get("PATH", os.defpath), *_extra_tex_dirs()])


def _which(name: str) -> str | None:
    return shutil.which(name, path=_search_path())


def _kpsewhich(names: tuple[str, ...]) -> set[str]:
    """The subset of `names` kpathsea finds, in one process for speed."""
    exe = _which("kpsewhich")
    if not exe:
        return set()
    try:
        out = subprocess.run(
            [exe, *names],
            capture_output=True,
            text=True,
            timeout=_PROBE_TIMEOUT_S,
            check=False,  # exit 1 just means "some were not found"
        ).stdout
    except (OSError, subprocess.SubprocessError):
        return set()
    found = {Path(line.strip()).name for line in out.splitlines() if line.strip()}
    return {name for name in names if name in found}


def _fontconfig_has_chinese() -> bool:
    exe = _which("fc-list")
    if not exe:
        return False
    try:
        out = subprocess.run(
            [exe, ":lang=zh", "family"],
            capture_output=True,
            text=True,
            timeout=_PROBE_TIMEOUT_S,
            check=False,
        ).stdout
    except (OSError, subprocess.SubprocessError):
        return False
    return bool(out.strip())


def _probe() -> Engines:
    paths = {name: _which(name) for name in ("latexmk", *ENGINE_ORDER)}
    found = _kpsewhich(("ctex.sty", "luatexja.sty", *_FANDOL, *_NOTO_FONTSET))
    noto = all(name in found for name in _NOTO_FONTSET)
    cjk_font = noto or all(name in found for name in _FANDOL) or _fontconfig_has_chinese()
    # macOS and Windows get a working system fontset from CTeX itself.
    linux_like = not (sys.platform.startswith("win") or sys.platform == "darwin")
    return Engines(
        latexmk=paths["latexmk"],
        xelatex=paths["xelatex"],
        lualatex=paths["lualatex"],
        pdflatex=paths["pdflatex"],
        ctex="ctex.sty" in found,
        cjk_font=cjk_font,
        ctex_fontset="ubuntu" if noto and linux_like else None,
        luatexja="luatexja.sty" in found,
    )


_lock = threading.Lock()
_cached: Engines | None = None


def probe_engines(*, refresh: bool = False) -> Engines:
    """The engines of this machine, probed once per process.

    `LABWRIGHT_TEX=none` reports no engine at all (it is read on every call and
    bypasses the cache, so tests can switch it on and off).
    """
    global _cached
    if os.environ.get("LABWRIGHT_TEX", "").strip().lower() == "none":
        return NO_ENGINES
    with _lock:
        if _cached is None or refresh:
            _cached = _probe()
        return _cached
