r"""A report as a Word document (.docx), through pandoc.

pandoc's LaTeX reader turns report.tex into Word's own structures: headings,
tables, equations as Word equations (OMML, editable in Word), figures as
embedded images and the citations and bibliography through citeproc. The pandoc
is the one the `pypandoc-binary` wheel ships (a known version, in every install
and in the bundle), else a system pandoc of at least PANDOC_MIN.

pandoc reads model-written LaTeX, so it runs fenced:

* in a staging folder holding only the copies the export made (report.tex,
  refs.bib, the PNG of each figure), read beneath the run folder without
  following a link (core/rundir/fence.py) before pandoc starts;
* with `--sandbox`: its readers and writers read only the files named on its
  command line, so `\input{/etc/passwd}`, `\include` or an image by path read
  nothing. citeproc is not a reader (the sandbox does not hold it): it would read
  a `\bibliography{/any/path}` the report names, so it runs only when the run has
  refs.bib, and `--bibliography=refs.bib` replaces whatever the report names;
* the figures are put into pandoc's media bag by a Lua filter this module
  writes, which knows only the staged files (by their exact names in the
  report): any other image becomes its caption;
* under confine's layers (no network, reads only the staging folder and the
  system, writes only the staging folder), with a minimal environment (no key,
  an empty data folder), a heap limit and a time limit.

The .docx is written to the staging folder, then copied to its destination
atomically by the caller.
"""

from __future__ import annotations

import datetime as _dt
import importlib.util
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from labwright.core import confine
from labwright.core.rundir.names import FIGURES, REFS_BIB, REPORT_TEX

PANDOC_MIN = (2, 15)  # the first pandoc with --sandbox
TIMEOUT_S = 120
HEAP = "1g"  # pandoc's own heap limit (+RTS -M): a macro that expands for ever stops there
_VERSION_TIMEOUT_S = 20
_STDERR_CHARS = 600
_MIME = {".png": "image/png", ".jpg": "image/jpeg", ".jpeg": "image/jpeg"}
# What pandoc's LaTeX reader lacks and report.tex uses: array's \arraybackslash in a
# column's >{...} (unknown, it would swallow the cell's first token as its argument).
_PRELUDE = "\\providecommand{\\arraybackslash}{}\n\\renewcommand{\\today}{%s}\n"
_MONTHS = [
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
]
# Word's language tags: CJK text gets the East Asian font of Word's theme for it.
_WORD_LANG = {"zh": "zh-CN", "en": "en-US"}


class PandocError(Exception):
    """pandoc is missing or failed; `code` says which (export.py words it)."""

    def __init__(self, code: str, detail: str = "") -> None:
        super().__init__(f"{code}: {detail}" if detail else code)
        self.code = code
        self.detail = detail


@dataclass(frozen=True)
class Pandoc:
    path: str
    version: tuple[int, ...]

    @property
    def version_text(self) -> str:
        return ".".join(str(v) for v in self.version)


def _wheel_pandoc() -> str | None:
    """The pandoc of the pypandoc-binary wheel (pypandoc/files/pandoc), found without
    importing pypandoc; in the bundle it sits at the same place beside the package."""
    name = "pandoc.exe" if sys.platform.startswith("win") else "pandoc"
    roots = []
    spec = importlib.util.find_spec("pypandoc")
    if spec is not None and spec.submodule_search_locations:
        roots += list(spec.submodule_search_locations)
    bundle = getattr(sys, "_MEIPASS", None)
    if bundle:
        roots.append(os.path.join(bundle, "pypandoc"))
    for root in roots:
        path = os.path.join(root, "files", name)
        if os.path.isfile(path) and os.access(path, os.X_OK):
            return path
    return None


def pandoc_version(path: str) -> tuple[int, ...] | None:
    """The version `path --version` states (first line "pandoc 3.1.11"), or None."""
    try:
        done = subprocess.run(
            [path, "--version"],
            capture_output=True,
            timeout=_VERSION_TIMEOUT_S,
            check=False,
            env={"PATH": os.defpath, "LC_ALL": "C.UTF-8"},
        )
    except (OSError, subprocess.SubprocessError):
        return None
    first = done.stdout.decode("utf-8", "replace").split("\n", 1)[0]
    m = re.match(r"^pandoc(?:\.exe)?\s+(\d+(?:\.\d+)*)", first.strip())
    return tuple(int(p) for p in m.group(1).split(".")) if m else None


@lru_cache(maxsize=1)
def find_pandoc() -> Pandoc | None:
    """The pandoc to use: the wheel's, else the system's (at least PANDOC_MIN)."""
    for path in (_wheel_pandoc(), shutil.which("pandoc")):
        if path is None:
            continue
        version = pandoc_version(path)
        if version is not None and version >= PANDOC_MIN:
            return Pandoc(os.path.realpath(path), version)
    return None


def today_words(lang: str, day: _dt.date | None = None) -> str:
    """\\today as LaTeX prints it in the report's language (pandoc's sandbox has no clock)."""
    day = day or _dt.date.today()
    if lang == "zh":
        return f"{day.year}年{day.month}月{day.day}日"
    return f"{_MONTHS[day.month - 1]} {day.day}, {day.year}"


def _lua_string(text: str) -> str:
    """A Lua string literal of `text`: every byte as a decimal escape, so no name from
    the report can end the literal or inject code."""
    return '"' + "".join(f"\\{b:03d}" for b in text.encode("utf-8")) + '"'


def figure_filter(figures: Mapping[str, str], staging: Path) -> str:
    """The Lua filter: each image whose target is a key of `figures` is embedded from
    that staged file (a name in `staging`; read here: pandoc's sandbox reads only its
    command line); every other image is replaced by its caption."""
    rows = []
    for target, staged in figures.items():
        mime = _MIME[Path(staged).suffix.lower()]
        rows.append(
            f"  [{_lua_string(target)}] = {{{_lua_string(str(staging / staged))}, "
            f"{_lua_string(staged)}, {_lua_string(mime)}}},"
        )
    table = "\n".join(rows)
    return f"""-- Written by Labwright for one export: the figures it staged, nothing else.
local staged = {{
{table}
}}

function Image(img)
  local key = img.src:gsub("^%./", "")
  local entry = staged[key]
  if entry == nil then
    return pandoc.Emph(img.caption)
  end
  local file = io.open(entry[1], "rb")
  if file == nil then
    return pandoc.Emph(img.caption)
  end
  local data = file:read("a")
  file:close()
  pandoc.mediabag.insert(entry[2], entry[3], data)
  img.src = entry[2]
  return img
end
"""


def convert(
    staging: Path,
    *,
    lang: str,
    figures: Mapping[str, str],
    bibliography: bool,
    pandoc: Pandoc | None = None,
    timeout_s: float | None = None,
) -> Path:
    """Convert staging/report.tex to staging/report.docx and return that path.

    `figures`: each \\includegraphics target of the report (without a leading ./) -> the
    name of its staged PNG or JPEG in `staging`. Raises PandocError("no_pandoc" | "timeout" | "failed")."""
    pandoc = pandoc or find_pandoc()
    timeout_s = TIMEOUT_S if timeout_s is None else timeout_s
    if pandoc is None:
        raise PandocError("no_pandoc")
    data_dir = staging / "pandoc-data"  # empty: no templates or defaults of anyone's
    data_dir.mkdir(exist_ok=True)
    (staging / "prelude.tex").write_text(_PRELUDE % today_words(lang), encoding="utf-8")
    (staging / "figures.lua").write_text(figure_filter(figures, staging), encoding="utf-8")
    out = staging / "report.docx"
    cmd = [
        pandoc.path,
        "+RTS",
        f"-M{HEAP}",
        "-RTS",
        "--sandbox",
        "--from=latex",
        "--to=docx",
        f"--data-dir={data_dir}",
        f"--resource-path={staging / FIGURES}",
        f"--metadata=lang:{_WORD_LANG.get(lang, lang)}",
        "--lua-filter=figures.lua",
        *(["--citeproc", f"--bibliography={REFS_BIB}"] if bibliography else []),
        f"--output={out.name}",
        "prelude.tex",
        REPORT_TEX,
    ]
    pol = confine.policy(read=[staging, os.path.dirname(pandoc.path)], write=[staging])
    env = {
        "PATH": os.defpath,
        "HOME": str(staging),
        "XDG_DATA_HOME": str(data_dir),
        "LC_ALL": "C.UTF-8",
        "LANG": "C.UTF-8",
    }
    try:
        done = subprocess.run(
            confine.wrap(cmd, pol),
            cwd=staging,
            env=env,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            timeout=timeout_s,
            check=False,
        )
    except subprocess.TimeoutExpired:
        raise PandocError("timeout", f"{timeout_s:g}") from None
    except OSError as e:
        raise PandocError("failed", str(e)) from None
    if done.returncode != 0 or not out.is_file():
        said = done.stderr.decode("utf-8", "replace").strip()
        raise PandocError("failed", said[-_STDERR_CHARS:] or f"exit code {done.returncode}")
    return out
