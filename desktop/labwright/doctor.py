"""`labwright doctor`: what this machine lacks for Labwright, and the commands that fix it.

The checks: Qt's platform libraries, a display, the TeX engine, what confines
TeX (report/latex/tex_reads.py's statement, kept true by tests/security/test_sec_tex_fence.py),
ctex and a CJK font, where the API key is kept, the configured model provider (its list of models and one tiny
tool-call request: can the exploring model call tools?) and the
disk space of LABWRIGHT_HOME. The command line prints them as a table
(`labwright doctor`), the app shows them in Help > Check setup… and on its first
run (gui/doctor_dialog.py).

This module is not in core/ because it inspects Qt's platform plugin, but it
never loads Qt: the point is to name a missing shared library *before* Qt aborts
the process for want of it. The plugin is found on disk and `ldd` says which of
its libraries do not resolve.
"""

from __future__ import annotations

import importlib.util
import os
import re
import shutil
import socket
import subprocess
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from labwright.core.step_words import Words

if TYPE_CHECKING:
    from labwright.core.report.latex.tex_reads import Fence
    from labwright.core.settings.saved import Settings

# A shared library Qt's Linux platform plugins load -> the package that provides it on
# (Debian/Ubuntu, Fedora). The first eleven are the ones a fresh Debian lacks most
# often; libxcb-icccm4 and libxcb-keysyms1 are missing even after installing the
# three libraries Qt's own error message leads people to.
QT_LIBRARY_PACKAGES: dict[str, tuple[str, str]] = {
    "libxcb-icccm.so.4": ("libxcb-icccm4", "xcb-util-wm"),
    "libxcb-keysyms.so.1": ("libxcb-keysyms1", "xcb-util-keysyms"),
    "libxcb-cursor.so.0": ("libxcb-cursor0", "xcb-util-cursor"),
    "libxkbcommon-x11.so.0": ("libxkbcommon-x11-0", "libxkbcommon-x11"),
    "libEGL.so.1": ("libegl1", "libglvnd-egl"),
    "libxcb-image.so.0": ("libxcb-image0", "xcb-util-image"),
    "libxcb-render-util.so.0": ("libxcb-render-util0", "xcb-util-renderutil"),
    "libxcb-shape.so.0": ("libxcb-shape0", "libxcb"),
    "libxcb-randr.so.0": ("libxcb-randr0", "libxcb"),
    "libxcb-xinerama.so.0": ("libxcb-xinerama0", "libxcb"),
    "libxcb-xkb.so.1": ("libxcb-xkb1", "libxcb"),
    "libxcb-util.so.1": ("libxcb-util1", "xcb-util"),
    "libxcb-sync.so.1": ("libxcb-sync1", "libxcb"),
    "libxcb-xfixes.so.0": ("libxcb-xfixes0", "libxcb"),
    "libxcb-shm.so.0": ("libxcb-shm0", "libxcb"),
    "libxcb-render.so.0": ("libxcb-render0", "libxcb"),
    "libxcb-glx.so.0": ("libxcb-glx0", "libxcb"),
    "libxcb-xinput.so.0": ("libxcb-xinput0", "libxcb"),
    "libxcb.so.1": ("libxcb1", "libxcb"),
    "libX11-xcb.so.1": ("libx11-xcb1", "libX11-xcb"),
    "libX11.so.6": ("libx11-6", "libX11"),
    "libxkbcommon.so.0": ("libxkbcommon0", "libxkbcommon"),
    "libGL.so.1": ("libgl1", "libglvnd-glx"),
    "libGLX.so.0": ("libglx0", "libglvnd-glx"),
    "libOpenGL.so.0": ("libopengl0", "libglvnd-opengl"),
    "libfontconfig.so.1": ("libfontconfig1", "fontconfig"),
    "libfreetype.so.6": ("libfreetype6", "freetype"),
    "libdbus-1.so.3": ("libdbus-1-3", "dbus-libs"),
    "libglib-2.0.so.0": ("libglib2.0-0", "glib2"),
    "libgthread-2.0.so.0": ("libglib2.0-0", "glib2"),
    "libSM.so.6": ("libsm6", "libSM"),
    "libICE.so.6": ("libice6", "libICE"),
    "libwayland-client.so.0": ("libwayland-client0", "libwayland-client"),
    "libwayland-cursor.so.0": ("libwayland-cursor0", "libwayland-cursor"),
    "libwayland-egl.so.1": ("libwayland-egl1", "libwayland-egl"),
}

# Fedora's names for what core/latex/probe.py's DEBIAN_PACKAGES installs on Debian.
FEDORA_TEX_PACKAGES = (
    "latexmk",
    "texlive-collection-xetex",
    "texlive-collection-latexrecommended",
    "texlive-collection-latexextra",
    "texlive-collection-science",
    "texlive-collection-fontsrecommended",
    "texlive-collection-langchinese",
    "google-noto-serif-cjk-fonts",
    "google-noto-sans-cjk-fonts",
)

# Platform plugins that need no display server (or that the person chose on purpose).
_HEADLESS_PLATFORMS = (
    "offscreen",
    "minimal",
    "minimalegl",
    "vnc",
    "eglfs",
    "linuxfb",
    "vkkhrdisplay",
)
# Plugin files in PySide6/Qt/plugins/platforms (Qt 6.5+ names the Wayland one libqwayland.so).
_PLUGIN_FILES = {"xcb": ("libqxcb.so",), "wayland": ("libqwayland.so", "libqwayland-generic.so")}
_LDD_TIMEOUT_S = 10.0
_NOT_FOUND = re.compile(r"^\s*(\S+)\s+=>\s+not found\s*$", re.MULTILINE)

# LABWRIGHT_HOME needs room for runs (a run is a few MB; compiles and figures more).
DISK_NEEDED_MB = 200
DISK_COMFORTABLE_MB = 1024

PROVIDER_TIMEOUT_S = 10.0


@dataclass(frozen=True)
class Check:
    """One line of the doctor's table.

    `needed`: Labwright cannot do what it is set up for without it (a failure makes
    `labwright doctor` exit 1); otherwise a failure is a warning. `for_model`: needed
    only for reports written by a model (offline reports work without it). `fix`:
    commands or steps, each one line, copied as they are."""

    name: str
    ok: bool
    detail: str
    fix: tuple[str, ...] = ()
    needed: bool = True
    for_model: bool = False

    @property
    def status(self) -> str:
        if self.ok:
            return "ok"
        return "missing" if self.needed else "warning"


# --- Qt's platform plugins ------------------------------------------------------


def qt_plugin_dir() -> Path | None:
    """PySide6's Qt/plugins folder, found without importing PySide6."""
    candidates: list[Path] = []
    if env := os.environ.get("LABWRIGHT_QT_PLUGINS"):  # tests point this at a stub
        candidates.append(Path(env))
    try:
        spec = importlib.util.find_spec("PySide6")
    except (ImportError, ValueError):
        spec = None
    for location in (spec.submodule_search_locations or []) if spec else []:
        candidates.append(Path(location) / "Qt" / "plugins")
    if meipass := getattr(sys, "_MEIPASS", None):  # the PyInstaller bundle
        candidates.append(Path(meipass) / "PySide6" / "Qt" / "plugins")
    return next((c for c in candidates if (c / "platforms").is_dir()), None)


def platform_plugin(name: str, plugins: Path | None = None) -> Path | None:
    """The file of Qt's `name` ("xcb", "wayland") platform plugin, or None."""
    plugins = plugins or qt_plugin_dir()
    if plugins is None:
        return None
    for filename in _PLUGIN_FILES[name]:
        path = plugins / "platforms" / filename
        if path.is_file():
            return path
    return None


def _ldd(path: Path) -> str:
    exe = shutil.which("ldd")
    if exe is None:
        return ""  # not glibc (or not Linux): nothing to say, so nothing is reported missing
    try:
        done = subprocess.run(
            [exe, str(path)],
            capture_output=True,
            text=True,
            timeout=_LDD_TIMEOUT_S,
            check=False,
            env={**os.environ, "LC_ALL": "C"},  # "not found" in English, to parse it
        )
    except (OSError, subprocess.SubprocessError):
        return ""
    return done.stdout


def missing_libraries(plugin: Path, ldd: Callable[[Path], str] | None = None) -> list[str]:
    """The shared libraries `plugin` needs that the dynamic loader cannot find."""
    out = (ldd or _ldd)(plugin)
    return list(dict.fromkeys(_NOT_FOUND.findall(out)))


def package_fix(libraries: Sequence[str]) -> tuple[str, ...]:
    """The commands that install `libraries` on Debian/Ubuntu and Fedora."""
    known = [QT_LIBRARY_PACKAGES[lib] for lib in libraries if lib in QT_LIBRARY_PACKAGES]
    unknown = [lib for lib in libraries if lib not in QT_LIBRARY_PACKAGES]
    fix: list[str] = []
    if known:
        debian = " ".join(dict.fromkeys(d for d, _ in known))
        fedora = " ".join(dict.fromkeys(f for _, f in known))
        fix += [
            f"sudo apt-get install {debian}    # Debian/Ubuntu",
            f"sudo dnf install {fedora}    # Fedora",
        ]
    for lib in unknown:
        fix += [
            f"apt-file search {lib}    # Debian/Ubuntu: which package has it",
            f"dnf provides '*/{lib}'    # Fedora",
        ]
    return tuple(fix)


def _describe(libraries: Sequence[str]) -> str:
    named = []
    for lib in libraries:
        pkg = QT_LIBRARY_PACKAGES.get(lib)
        named.append(f"{lib} ({pkg[0]} / {pkg[1]})" if pkg else lib)
    return ", ".join(named)


def _is_linux(platform: str) -> bool:
    return not (platform.startswith("win") or platform == "darwin")


def qt_check(
    env: Mapping[str, str] | None = None,
    *,
    platform: str | None = None,
    plugins: Path | None = None,
    ldd: Callable[[Path], str] | None = None,
) -> Check:
    """Whether Qt's platform plugin for this desktop finds every library it loads."""
    name = Words("check_qt")
    platform = platform or sys.platform
    env = os.environ if env is None else env
    if not _is_linux(platform):
        return Check(name, True, Words("qt_bundled"))
    xcb = platform_plugin("xcb", plugins)
    if xcb is None:
        return Check(
            name,
            False,
            Words("qt_no_xcb"),
            ("pip install --force-reinstall PySide6-Essentials PySide6-Pdf",),
        )
    missing = missing_libraries(xcb, ldd)
    if not missing:
        return Check(name, True, Words("qt_ok"))
    detail = Words("qt_lacks", libs=_describe(missing))
    wayland = platform_plugin("wayland", plugins)
    if env.get("WAYLAND_DISPLAY") and wayland and not missing_libraries(wayland, ldd):
        # Qt uses Wayland here; X11 only matters for apps started under X
        lacks = Words("qt_lacks_wayland", libs=_describe(missing))
        return Check(name, False, lacks, package_fix(missing), needed=False)
    return Check(name, False, detail, package_fix(missing))


def display_problem(
    env: Mapping[str, str] | None = None,
    *,
    platform: str | None = None,
    plugins: Path | None = None,
    ldd: Callable[[Path], str] | None = None,
) -> str | None:
    """Why the window cannot open here, with the fix; None when it can (or when we
    cannot tell). Checked before Qt loads: without a display, or without a library
    its platform plugin needs, Qt aborts the whole process."""
    platform = platform or sys.platform
    env = os.environ if env is None else env
    if not _is_linux(platform):
        return None
    chosen = env.get("QT_QPA_PLATFORM", "").split(";")[0].split(":")[0].strip().lower()
    if chosen not in ("", "xcb", "wayland"):
        return None  # offscreen, vnc, eglfs...: no display server needed, or the person knows
    needs = {"wayland": "WAYLAND_DISPLAY", "xcb": "DISPLAY"}  # Qt tries Wayland first
    given = [p for p, var in needs.items() if chosen in ("", p) and env.get(var)]
    candidates = [p for p in given if _reachable(needs[p], env) is not False]
    if not candidates:
        if given:
            shown = " and ".join(f"{needs[p]}={env[needs[p]]}" for p in given)
            what = f"{shown} is set, but no display server answers there"
        else:
            what = (
                f"{needs[chosen]} is not set" if chosen else "DISPLAY and WAYLAND_DISPLAY are unset"
            )
        return (
            f"No display to open the window on: {what} (a server, an SSH session?). "
            "Start Labwright from a desktop session (or with `ssh -X`), or make reports "
            "without a window: `labwright run FOLDER`. `labwright doctor` checks the rest."
        )
    plugins = plugins or qt_plugin_dir()
    if plugins is None:
        return None  # no PySide6 on disk to look at: Qt will say what it says
    lacking: dict[str, list[str]] = {}
    for name in candidates:
        plugin = platform_plugin(name, plugins)
        if plugin is None:
            continue
        missing = missing_libraries(plugin, ldd)
        if not missing:
            return None
        lacking[name] = missing
    if not lacking:
        return None
    name, missing = next(iter(lacking.items()))
    if "xcb" in lacking:  # the one most desktops end up using, and the usual culprit
        name, missing = "xcb", lacking["xcb"]
    fix = "\n  ".join(package_fix(missing))
    return (
        f"The window cannot open: Qt's {name} platform plugin needs {', '.join(missing)}, "
        f"which this system lacks. Install them:\n  {fix}\n"
        "`labwright doctor` checks the rest; `labwright run FOLDER` works without a window."
    )


def _reachable(var: str, env: Mapping[str, str]) -> bool | None:
    """Whether the display server named by `var` ("DISPLAY", "WAYLAND_DISPLAY") accepts a
    connection; None when the value is not one we can try. Qt aborts on a display that
    is set but not there (a stale DISPLAY after a logout, an SSH session without X)."""
    value = env.get(var, "")
    if var == "WAYLAND_DISPLAY":
        runtime = env.get("XDG_RUNTIME_DIR", "")
        path = value if value.startswith("/") else os.path.join(runtime, value) if runtime else ""
        return _connects(socket.AF_UNIX, [path]) if path else None
    m = re.fullmatch(r"(?:unix/)?([^:/]*):(\d+)(?:\.\d+)?", value)
    if m is None:
        return None
    host, number = m.group(1), int(m.group(2))
    if host in ("", "unix"):
        x = f"/tmp/.X11-unix/X{number}"
        return _connects(socket.AF_UNIX, ["\0" + x, x])  # the abstract socket first (Linux)
    return _connects(socket.AF_INET, [(host, 6000 + number)])


def _connects(family: int, addresses: Sequence[str | tuple[str, int]]) -> bool:
    for address in addresses:
        try:
            with socket.socket(family, socket.SOCK_STREAM) as sock:
                sock.settimeout(2.0)
                sock.connect(address)
                return True
        except OSError:
            continue
    return False


def display_check(env: Mapping[str, str] | None = None, *, platform: str | None = None) -> Check:
    name = Words("check_display")
    platform = platform or sys.platform
    env = os.environ if env is None else env
    if not _is_linux(platform):
        return Check(name, True, Words("display_own"))
    found = [v for v in ("WAYLAND_DISPLAY", "DISPLAY") if env.get(v)]
    shown = ", ".join(f"{v}={env[v]}" for v in found)
    fix = ("# start Labwright from a desktop session, or connect with `ssh -X`",)
    if any(_reachable(v, env) is not False for v in found):
        return Check(name, True, shown)
    what = Words("display_silent", shown=shown) if found else Words("display_unset")
    return Check(
        name,
        False,
        what,
        fix,
        needed=False,
    )


# --- TeX --------------------------------------------------------------------------


def _tex_fix(platform: str) -> tuple[str, ...]:
    from labwright.core.report.latex import DEBIAN_PACKAGES

    if platform == "darwin":
        return ("brew install --cask mactex-no-gui    # or MacTeX from https://tug.org/mactex/",)
    if platform.startswith("win"):
        return ("winget install MiKTeX.MiKTeX    # or TeX Live from https://tug.org/texlive/",)
    return (
        f"sudo apt-get install {' '.join(DEBIAN_PACKAGES)}    # Debian/Ubuntu",
        f"sudo dnf install {' '.join(FEDORA_TEX_PACKAGES)}    # Fedora",
    )


def tex_checks(platform: str | None = None) -> list[Check]:
    """The TeX engine (the report's PDF), ctex and a CJK font (Chinese reports): warnings,
    as a report is written without them (as .tex)."""
    from labwright.core.report.latex import probe_engines

    platform = platform or sys.platform
    engines = probe_engines()
    fix = _tex_fix(platform)
    if engines.engine is None:
        # Reports are still written (as .tex, to compile elsewhere): a warning, for PDFs.
        tex = Check(Words("check_tex"), False, Words("tex_none"), fix, needed=False)
    else:
        engine_path = getattr(engines, engines.engine)
        how = "tex_latexmk" if engines.latexmk else "tex_no_latexmk"
        tex = Check(Words("check_tex"), True, Words(how, engine=engines.engine, path=engine_path))
    if engines.can_compile_lang("zh"):
        zh = Check(Words("check_zh"), True, Words("zh_ok"))
    else:
        lacks = [
            what
            for what, there in (
                ("XeLaTeX", engines.xelatex or engines.lualatex),
                ("ctex", engines.ctex),
                ("a CJK font", engines.cjk_font),
            )
            if not there
        ]
        zh = Check(
            Words("check_zh"),
            False,
            Words("zh_lacks", lacks=", no ".join(lacks)),
            fix,
            needed=False,
        )
    return [tex, zh]


def tex_fence_words(fence: Fence) -> Words:
    """Check Setup's sentence for `fence`: what holds TeX's file reads here, and what not."""
    if fence.confined:
        return Words("tex_fence_os", layers=", ".join(fence.layers))
    if fence.engine == "xelatex":
        return Words("tex_fence_own")
    return Words("tex_fence_own_engine", engine=fence.engine)


def tex_fence_checks() -> list[Check]:
    """What confines model-written TeX on this machine (a warning where only Labwright's
    own checks do); nothing without a TeX engine."""
    from labwright.core.report.latex import probe_engines
    from labwright.core.report.latex.tex_reads import statement

    engine = probe_engines().engine
    if engine is None:
        return []
    fence = statement(engine)
    fix = (
        ()
        if fence.confined
        else (
            "# only Linux's Landlock (kernel 5.13 or later) confines TeX's own file reads;",
            "# for material you do not trust, run Labwright on such a system",
        )
    )
    words = tex_fence_words(fence)
    return [Check(Words("check_tex_fence"), fence.confined, words, fix, needed=False)]


# --- keyring, disk, provider ------------------------------------------------------


def key_store_words(provider: str | None = None) -> Words:
    """Where Settings keeps a key typed there, on this machine: a few words, or with
    `provider` the API key line's sentence for a provider without one."""
    from labwright.core.settings import key_file
    from labwright.core.settings.keys import keyring_available, keyring_name

    if provider is None:
        if keyring_available():
            return Words("store_keyring", keyring=keyring_name())
        return Words("store_file")
    if keyring_available():
        return Words("key_none_keyring", provider=provider, keyring=keyring_name())
    path = key_file.shown_path(key_file.key_folder())
    return Words("key_none_file", provider=provider, path=path)


def _key_where(where: str, provider: str) -> tuple[Words, tuple[str, ...], bool]:
    """(detail, fix, ok) for a key found in `where` (resolve.resolve_with_key_source)."""
    from labwright.core.settings import key_file
    from labwright.core.settings.keys import keyring_name

    if where.startswith("environment:"):
        return Words("key_env", provider=provider, var=where.split(":", 1)[1]), (), True
    if where == "session":
        return Words("key_session", provider=provider), (), True
    if where == "keyring":
        return Words("key_keyring", provider=provider, keyring=keyring_name()), (), True
    path = key_file.key_path(provider)
    shown = key_file.shown_path(path)
    if key_file.inspect(provider).open_to_others:
        fix = (f"chmod 700 {key_file.shown_path(path.parent)} && chmod 600 {shown}",)
        return Words("key_file_open", provider=provider, path=shown), fix, False
    return Words("key_file", provider=provider, path=shown), (), True


def key_check(
    provider: str | None = None,
    *,
    settings: Settings | None = None,
    base_url: str | None = None,
) -> Check:
    """Where the key of the configured provider (or of `provider`, at `base_url`) comes
    from: the environment, this session, the keyring or a file only you can read; and
    where Settings would keep one. Makes no request."""
    from labwright.core.settings import key_file
    from labwright.core.settings.config import CUSTOM, provider_for_url
    from labwright.core.settings.resolve import resolve_with_key_source

    name = Words("check_key")
    flags = {"base_url": base_url} if base_url else {}
    try:
        config, where = resolve_with_key_source(
            Path.cwd(), flags=flags, settings=settings, provider=provider
        )
    except ValueError:  # "custom" without a URL: the provider line says so
        return Check(name, True, key_store_words(CUSTOM))
    preset = provider_for_url(config.base_url)
    stored_as = config.provider or preset.name
    if where != "none":
        detail, fix, ok = _key_where(where, stored_as)
        return Check(name, ok, detail, fix, needed=False)
    problem = key_file.inspect(stored_as).problem
    if problem:  # a key file Labwright will not use (a link, another user's...)
        fix = (f"rm {key_file.shown_path(key_file.key_path(stored_as))}",)
        fix += ("# then add the key again in Settings",)
        return Check(name, False, Words("key_file_unusable", problem=problem), fix, needed=False)
    if preset.local:
        return Check(name, True, Words("key_not_needed", provider=stored_as))
    return Check(name, True, key_store_words(stored_as))


def disk_check(home: Path | None = None) -> Check:
    from labwright.core.settings.config import labwright_home

    home = home or labwright_home()
    where = home
    while not where.exists() and where.parent != where:
        where = where.parent  # not created yet: the disk it will be on
    name = Words("check_disk")
    try:
        free_mb = shutil.disk_usage(where).free // (1024 * 1024)
    except OSError as e:
        why = e.strerror or e
        return Check(name, False, Words("disk_unreadable", home=home, why=why))
    free = f"{free_mb:,}"
    fix = (f"# free some space on the disk of {home}, or set LABWRIGHT_HOME to another disk",)
    if free_mb < DISK_NEEDED_MB:
        short = Words("disk_too_little", free=free, home=home, need=DISK_NEEDED_MB)
        return Check(name, False, short, fix)
    if free_mb < DISK_COMFORTABLE_MB:
        few = Words("disk_few_runs", free=free, home=home)
        return Check(name, False, few, fix, needed=False)
    return Check(name, True, Words("disk_free", free=free, home=home))


def provider_check(
    provider: str | None = None,
    *,
    settings: Settings | None = None,
    timeout_s: float = PROVIDER_TIMEOUT_S,
    base_url: str | None = None,
) -> Check:
    """The configured provider (or the preset `provider`, at `base_url` if given): a key,
    the list of models (the server answers and takes the key), then one tiny tool-call
    request to the exploring model (core/llm/probe.py): can it call tools? `settings`:
    the app's current ones (default: the saved settings.json)."""
    from labwright.core.llm.client import LLM, LLMError, hide_secrets, redact_url
    from labwright.core.llm.probe import probe_tools
    from labwright.core.settings.config import provider_for_url
    from labwright.core.settings.providers import serve_commands
    from labwright.core.settings.resolve import key_problem, resolve_config

    flags = {"base_url": base_url} if base_url else {}
    name = Words("check_provider")
    try:
        config = resolve_config(Path.cwd(), flags=flags, settings=settings, provider=provider)
    except ValueError as e:  # "custom" without a URL
        why = e.args[0] if e.args and isinstance(e.args[0], str) else str(e)
        fix: tuple[str, ...] = ("labwright doctor --provider custom --base-url URL",)
        return Check(name, False, why, fix, for_model=True)
    preset = provider_for_url(config.base_url)
    at = {"provider": provider or preset.name, "url": redact_url(config.base_url)}
    problem = key_problem(config)
    if problem:
        # Offline reports work without a key: a warning, saying how to add one here.
        envs = [e for e in preset.key_env if e != "LABWRIGHT_API_KEY"] or ["LABWRIGHT_API_KEY"]
        store = key_store_words()
        how = (
            "# in Labwright's Settings (Ctrl+,): paste the key; it is kept in the system keyring"
            if store.code == "store_keyring"
            else "# in Labwright's Settings (Ctrl+,): paste the key and choose "
            "“Keep in a file only I can read” (no keyring here)"
        )
        return Check(
            name,
            False,
            Words("provider_no_key", **at, store=store),
            (
                "# offline reports work now: tick Offline, or `labwright run --offline`",
                "# for reports written by a model, add the key:",
                how,
                f"export {envs[0]}=sk-…    # or in the environment, for `labwright run`",
            ),
            needed=False,
        )
    try:
        llm = LLM(
            config.base_url,
            config.api_key,
            timeout_s=timeout_s,
            max_retries=0,
            provider=config.provider,
        )
        try:
            models = llm.list_models()
            probe = probe_tools(llm, config.explore_model)
        finally:
            llm.close()
    except LLMError as e:
        detail = Words("provider_failed", **at, error=e)  # the client's words, the key scrubbed
        kind = e.kind
    except Exception as e:  # a URL the HTTP client cannot even use
        error = hide_secrets(f"{type(e).__name__}: {e}", [config.api_key])
        detail = Words("provider_failed", **at, error=error)
        kind = "error"
    else:
        wanted = [m for m in dict.fromkeys([config.explore_model, config.write_model]) if m]
        unlisted = [m for m in wanted if m not in models]
        said = {**at, "count": len(models), "probe": probe.words()}
        answers = (
            Words("provider_answers_unlisted", **said, models=", ".join(unlisted))
            if unlisted and models
            else Words("provider_answers", **said)
        )
        if probe.ok:
            return Check(name, True, answers)
        model_fix = (
            f"# {probe.advice}" if probe.advice else "# check the exploring model in Settings",
            f"labwright doctor --provider {provider}" if provider else "labwright doctor",
        )
        # Weak tool support still gives a report (the guards end exploration, degraded);
        # a deadline may be a local model still loading. Both are warnings.
        weak = probe.verdict == "text" or probe.kind == "deadline"
        return Check(name, False, answers, model_fix, needed=not weak, for_model=True)
    fix = ("# check the URL and the key in Settings (Test connection), then:", "labwright doctor")
    # a server on this computer that does not answer is most often not started yet
    serve = serve_commands(config.provider or preset.name, config.explore_model)
    if serve and kind == "unreachable":
        fix = ("# start the server on this computer:", *serve, "labwright doctor")
    return Check(name, False, detail, fix, for_model=True)


# --- all of them ------------------------------------------------------------------


def run_checks(
    *,
    provider: str | None = None,
    offline: bool = False,
    qt: bool = True,
    settings: Settings | None = None,
    platform: str | None = None,
    base_url: str | None = None,
) -> list[Check]:
    """Every check, in the table's order. `offline`: no provider request; `qt`: False
    inside the running app (its window is on screen, so Qt's libraries are there);
    `provider`, `base_url`: check that preset, at that URL (`--provider`, `--base-url`)."""
    checks = [qt_check(platform=platform), display_check(platform=platform)] if qt else []
    checks += tex_checks(platform)
    checks += tex_fence_checks()
    checks.append(key_check(provider, settings=settings, base_url=base_url))
    if offline:
        offline_check = Check(
            Words("check_provider"), True, Words("provider_offline"), needed=False
        )
        checks.append(offline_check)
    else:
        checks.append(provider_check(provider, settings=settings, base_url=base_url))
    checks.append(disk_check())
    return checks


def failed_needed(checks: Sequence[Check]) -> list[Check]:
    return [c for c in checks if not c.ok and c.needed]


def verdict(checks: Sequence[Check]) -> tuple[str, list[Check]]:
    """The table's last line, as (kind, the checks it names):

    "not_ready": something no report can be made without (Qt's libraries for the
    window, disk space); "offline_only": offline reports work, but what reports by a
    model need does not (the configured server refuses the key, the model cannot call
    tools); "warnings": everything needed is there, with warnings (no key yet, no TeX
    for PDFs, no display...); "ready": nothing to say."""
    needed = failed_needed(checks)
    if blocking := [c for c in needed if not c.for_model]:
        return "not_ready", blocking
    if needed:
        return "offline_only", needed
    if warned := [c for c in checks if not c.ok]:
        return "warnings", warned
    return "ready", []


def report(checks: Sequence[Check]) -> str:
    """The table, then the fixes, then one line of verdict."""
    from labwright.core import __version__

    width = max(len(c.name) for c in checks)
    lines = [
        f"Labwright {__version__} · Python {sys.version.split()[0]} · {sys.platform}",
        "",
        f"{'check':<{width}}  {'status':<8} details",
    ]
    lines += [
        f"{c.name:<{width}}  {c.status.upper() if not c.ok else c.status:<8} {c.detail}"
        for c in checks
    ]
    todo = [c for c in checks if not c.ok and c.fix]
    if todo:
        lines += ["", "To fix:"]
        for c in todo:
            lines.append(f"  {c.name}:")
            lines += [f"    {step}" for step in c.fix]
    kind, named = verdict(checks)
    names = ", ".join(c.name for c in named)
    lines.append("")
    lines.append(
        {
            "not_ready": f"Not ready: {names}.",
            "offline_only": f"Offline reports work; reports written by a model need: {names}.",
            "warnings": f"Ready, with warnings: {names}.",
            "ready": "Everything Labwright needs is there.",
        }[kind]
    )
    return "\n".join(lines)


def main(*, provider: str | None = None, offline: bool = False, base_url: str | None = None) -> int:
    """`labwright doctor`: 0 when everything needed is there (warnings allowed: no key
    yet, no TeX), 1 when something needed is missing, 2 bad usage."""
    from labwright.core.settings.config import PROVIDER_NAMES, unknown_provider

    if provider is not None and provider not in PROVIDER_NAMES:
        print(f"labwright: {unknown_provider(provider)}", file=sys.stderr)
        return 2
    checks = run_checks(provider=provider, offline=offline, base_url=base_url)
    print(report(checks))
    return 1 if failed_needed(checks) else 0
