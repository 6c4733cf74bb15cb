"""What a TeX process may see: its environment, its files, its lifetime.

The report's LaTeX is written by a model that read an untrusted folder, so it
is untrusted too. Three walls, each enough against file reads on its own:

1. kpathsea's own switches, set in the environment (which overrides
   texmf.cnf): ``openin_any=p`` and ``openout_any=p`` refuse absolute names,
   ``..`` and dot files; ``shell_escape=f`` (and ``-no-shell-escape``) refuse
   ``\\write18``.
2. an environment built from an allowlist: no API key, no proxy or token
   variable; HOME, TMPDIR and every TeX cache point into the build folder.
3. on Linux, confine's layers (Landlock, namespaces, seccomp) around the whole
   latexmk run: reads only the document, its .bib files, figures/, the build
   folder and the TeX and font trees; writes only the build folder; no
   network; killed with its process group when Labwright dies (_texrun.py).
"""

from __future__ import annotations

import dataclasses
import os
import re
import shutil
import subprocess
import sys
import threading
from collections.abc import Iterable, Sequence
from pathlib import Path

from labwright.core import confine
from labwright.core.rundir.names import FIGURES
from labwright.core.secrets import hide_secrets

_SECRET_MARKERS = ("KEY", "TOKEN", "SECRET", "PASSWORD", "CREDENTIAL", "AUTH", "COOKIE")
_KEEP = ("PATH", "LANG", "LANGUAGE", "TZ", "SOURCE_DATE_EPOCH", "FORCE_SOURCE_DATE")
# What a Windows program (MiKTeX, TeX Live, Perl) needs to start at all.
_KEEP_WINDOWS = (
    "SYSTEMROOT",
    "SYSTEMDRIVE",
    "WINDIR",
    "COMSPEC",
    "PATHEXT",
    "TEMP",
    "TMP",
    "USERNAME",
    "USERPROFILE",
    "APPDATA",
    "LOCALAPPDATA",
    "PROGRAMDATA",
    "PROGRAMFILES",
    "PROGRAMFILES(X86)",
)
# Where a TeX installation lives: kept when the user set them (a TeX Live
# outside the usual places), and read-allowed below.
_TEXMF_TREES = (
    "TEXMFROOT",
    "TEXMFDIST",
    "TEXMFMAIN",
    "TEXMFLOCAL",
    "TEXMFSYSVAR",
    "TEXMFSYSCONFIG",
    "TEXMFCNF",
)
# Trees TeX and latexmk read on the distributions we know, beyond /usr (always
# readable): Debian's generated formats and config, fontconfig's caches.
_TEX_READ = (
    "/usr/share/texlive",
    "/usr/share/texmf",
    "/usr/local/share/texmf",
    "/usr/local/texlive",
    "/var/lib/texmf",
    "/etc/texmf",
    "/etc/papersize",
    "/etc/perl",
    "/usr/share/fonts",
    "/usr/local/share/fonts",
    "/var/cache/fontconfig",
    "/etc/fonts",
    "/opt/texlive",
    "/Library/TeX",
)
# confine's system list allows these for programs that ask who they are; TeX
# and latexmk do not need them, and a symlink in figures/ must not show them.
_NOT_FOR_TEX = ("/etc/passwd", "/etc/group")


def secret_values(extra: Iterable[str | None] = ()) -> list[str]:
    """Every secret TeX output must never carry: the given ones and the values of
    secret-looking environment variables of this process."""
    found = {s for s in extra if s and len(s) >= 6}
    for name, value in os.environ.items():
        if any(m in name.upper() for m in _SECRET_MARKERS) and len(value) >= 8:
            found.add(value)
    return sorted(found, key=len, reverse=True)


def tex_env(
    build_dir: Path | None, extra_texinputs: Path | None = None, extra_path: Sequence[str] = ()
) -> dict[str, str]:
    """The environment of TeX processes, from an allowlist (never a key)."""
    keep = {*_KEEP, *_TEXMF_TREES, *(_KEEP_WINDOWS if sys.platform.startswith("win") else ())}
    env = {
        name: value
        for name, value in os.environ.items()
        if name.upper() in keep or name.startswith("LC_")
    }
    env.update(
        {
            "USER": "labwright",
            "LOGNAME": "labwright",
            # Environment variables override texmf.cnf in kpathsea.
            "openin_any": "p",
            "openout_any": "p",
            "shell_escape": "f",
            "max_print_line": "10000",  # one log line per message: parseable
        }
    )
    if build_dir is not None:
        home, tmp = build_dir / "home", build_dir / "tmp"
        home.mkdir(parents=True, exist_ok=True)
        tmp.mkdir(parents=True, exist_ok=True)
        # HOME, caches and personal trees inside the build folder: TeX writes
        # nowhere else, and reads no ~/texmf the user filled for other documents.
        env.update(
            {
                "HOME": str(home),
                "TMPDIR": str(tmp),
                "TEXMFHOME": str(home / "texmf"),
                "TEXMFVAR": str(home / "texmf-var"),
                "TEXMFCONFIG": str(home / "texmf-config"),
                "TEXMFCACHE": str(home / "texmf-var"),
                "XDG_CACHE_HOME": str(home / "cache"),
                "XDG_CONFIG_HOME": str(home / "config"),
                "TEXMFOUTPUT": str(build_dir),
            }
        )
    env.setdefault("LANG", "C.UTF-8")
    path = [p for p in env.get("PATH", os.defpath).split(os.pathsep) if p]
    env["PATH"] = os.pathsep.join(path + [d for d in extra_path if d not in path])
    if extra_texinputs is not None:
        # "." first so a document's own files win; the trailing separator keeps
        # the default search path (an empty element means "the defaults").
        env["TEXINPUTS"] = os.pathsep.join([".", str(extra_texinputs), ""])
    return env


_trees: tuple[str, ...] | None = None
_trees_lock = threading.Lock()


def tex_trees(tool_dirs: Sequence[str] = ()) -> tuple[str, ...]:
    """The TeX installation's folders (asked of kpsewhich once per process)."""
    global _trees
    with _trees_lock:
        if _trees is None:
            _trees = _ask_kpsewhich(tool_dirs)
        return _trees


def _ask_kpsewhich(tool_dirs: Sequence[str]) -> tuple[str, ...]:
    found: list[str] = list(_TEX_READ)
    for d in tool_dirs:
        found += [d, os.path.realpath(d)]
    search = os.pathsep.join([*tool_dirs, os.environ.get("PATH", os.defpath)])
    kpsewhich = shutil.which("kpsewhich", path=search)
    if kpsewhich:
        query = ";".join(f"${name}" for name in _TEXMF_TREES)
        try:
            out = subprocess.run(
                [kpsewhich, f"-expand-var={query}"],
                capture_output=True,
                text=True,
                timeout=10,
                check=False,
                stdin=subprocess.DEVNULL,
            ).stdout
        except (OSError, subprocess.SubprocessError):
            out = ""
        for part in re.split(r"[;:,{}]", out):
            part = part.strip().lstrip("!")
            if part.startswith("/"):
                found.append(part)
    return tuple(dict.fromkeys(p for p in found if p and os.path.exists(p)))


def policy(
    tex_path: Path, build_dir: Path, tool_dirs: Sequence[str], *, max_file_bytes: int = 0
) -> confine.Policy:
    """Reads: the document, its .bib files, figures/, the build folder, the TeX
    and font trees and the system's own (/usr, /lib, ...): not /opt or this Python,
    which TeX does not run. Writes: the build folder, each file at most
    `max_file_bytes` (0: no limit)."""
    cwd = tex_path.parent
    # A rule follows a symlink to its target, so none is given for a link: a
    # link in the run folder (figures/ included) leads nowhere TeX may read.
    own = [p for p in [tex_path, cwd / FIGURES, *sorted(cwd.glob("*.bib"))] if not p.is_symlink()]
    pol = confine.policy(
        read=[*tex_trees(tool_dirs), *own, build_dir],
        write=[build_dir],
        programs=False,
        max_file_bytes=max_file_bytes,
    )
    return dataclasses.replace(pol, read=tuple(p for p in pol.read if p not in _NOT_FOR_TEX))


def command(cmd: Sequence[str], pol: confine.Policy) -> list[str]:
    """The command line that runs `cmd` confined by `pol` and, on Linux, under
    _texrun's supervisor (which kills the whole group when Labwright dies)."""
    if not sys.platform.startswith("linux"):
        return confine.wrap(list(cmd), pol)
    script = Path(__file__).with_name("_texrun.py")
    return [sys.executable, "-I", "-S", str(script), pol.to_json(), str(os.getpid()), "--", *cmd]


_not_dumpable_done = False


def protect_self() -> None:
    """Once per process: make our /proc/<pid>/environ and memory unreadable to
    other processes of this user (the API key lives there)."""
    global _not_dumpable_done
    if not _not_dumpable_done:
        _not_dumpable_done = True
        confine.set_not_dumpable()


_PATH_TOKEN = re.compile(r"(?<![\w.~-])/[^\s()'`\"{}\[\]<>]+")


def redact(text: str, secrets: Sequence[str], allowed: Sequence[Path | str]) -> str:
    """`text` with every secret replaced and every absolute path outside `allowed`
    (the run and the TeX trees) hidden: a log never names or quotes what lies outside."""
    text = hide_secrets(text, secrets, "[redacted]")
    roots = [str(a).rstrip("/") for a in allowed]

    def keep(match: re.Match[str]) -> str:
        path = match.group(0)
        resolved = os.path.normpath(path)
        if any(resolved == r or resolved.startswith(r + "/") for r in roots):
            return path
        return "<path outside the run>"

    return _PATH_TOKEN.sub(keep, text)
