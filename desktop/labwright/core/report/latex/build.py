"""Compile a .tex file to PDF in a build folder of its own.

The run directory only ever gains `<stem>.pdf`, replaced atomically after a
successful build; a failed build never touches the last good PDF. Every build
also writes `<stem>.synctex.gz` in its build folder (SyncTeX: PDF <-> source);
`publish=False` builds without touching the run directory at all, for callers
that publish the result themselves (the review pane's recompile).
"""

from __future__ import annotations

import dataclasses
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from labwright.core.report.latex import jail
from labwright.core.report.latex.logparse import (
    LogError,
    parse_blg,
    parse_log_errors,
    parse_warnings,
)
from labwright.core.report.latex.probe import Engines
from labwright.core.rundir import fence

POLL_S = 0.1  # how often a running compile checks cancel and the deadline
_KILL_GRACE_S = 1.0
_LOG_TAIL_LINES = 40
_LATEXMK_MODE = {"xelatex": "-xelatex", "lualatex": "-lualatex", "pdflatex": "-pdf"}
_MAX_DIRECT_PASSES = 4
_RERUN = re.compile(r"Rerun to get|Label\(s\) may have changed|Please rerun")


@dataclass(frozen=True)
class CompileResult:
    ok: bool
    pdf: Path | None  # the PDF just built, or the last good one, or None
    errors: list[LogError] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    log_tail: str = ""
    seconds: float = 0.0
    engine: str | None = None


class _Stop(Exception):
    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


def subprocess_env(
    extra_texinputs: Path | None = None,
    extra_path: Sequence[str] = (),
    *,
    build_dir: Path | None = None,
) -> dict[str, str]:
    """The environment of TeX processes: an allowlist (no secrets), kpathsea's
    paranoid file switches, no shell escape, HOME and caches in `build_dir` (see jail)."""
    return jail.tex_env(build_dir, extra_texinputs, extra_path)


def _kill_tree(proc: subprocess.Popen[bytes]) -> None:
    """Stop the process and everything it started (latexmk -> xelatex -> ...)."""
    if proc.poll() is not None:
        return
    if sys.platform.startswith("win"):
        subprocess.run(
            ["taskkill", "/F", "/T", "/PID", str(proc.pid)], capture_output=True, check=False
        )
    else:
        try:
            os.killpg(proc.pid, signal.SIGTERM)
            proc.wait(timeout=_KILL_GRACE_S)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    try:
        proc.wait(timeout=_KILL_GRACE_S * 5)
    except subprocess.TimeoutExpired:
        proc.kill()


def _run(
    cmd: Sequence[str],
    *,
    cwd: Path,
    env: dict[str, str],
    output: Path,
    deadline: float,
    cancel: Callable[[], bool] | None,
) -> int:
    """Run `cmd` in its own process group; raise _Stop on cancel or timeout."""
    group = (
        {"creationflags": subprocess.CREATE_NEW_PROCESS_GROUP}  # type: ignore[attr-defined]
        if sys.platform.startswith("win")
        else {"start_new_session": True}
    )
    with output.open("ab") as out:
        proc = subprocess.Popen(
            list(cmd), cwd=cwd, env=env, stdin=subprocess.DEVNULL, stdout=out, stderr=out, **group
        )
        try:
            while True:
                try:
                    return proc.wait(timeout=POLL_S)
                except subprocess.TimeoutExpired:
                    pass
                if cancel is not None and cancel():
                    raise _Stop("cancelled")
                if time.monotonic() >= deadline:
                    raise _Stop("timeout")
        except BaseException:
            _kill_tree(proc)
            raise


def _outdir_arg(build_dir: Path, cwd: Path) -> str:
    # Relative when possible: absolute paths with spaces or non-ASCII
    # characters are where TeX's file-name handling is weakest.
    try:
        return build_dir.relative_to(cwd).as_posix() or "."
    except ValueError:
        return str(build_dir)


def _needs_bibtex(aux: Path, cwd: Path) -> bool:
    try:
        text = aux.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return False
    if "\\citation" not in text:
        return False
    databases = re.findall(r"\\bibdata\{([^}]*)\}", text)
    names = [n.strip() for d in databases for n in d.split(",") if n.strip()] or ["refs"]
    return any((cwd / (n if n.endswith(".bib") else n + ".bib")).is_file() for n in names)


def _latexmk_cmd(latexmk: str, engine: str, tex: str, outdir: str) -> list[str]:
    return [
        latexmk,
        "-norc",  # no latexmkrc from the user's home or the document's folder
        _LATEXMK_MODE[engine],
        "-no-shell-escape",
        "-interaction=nonstopmode",
        "-halt-on-error",
        "-file-line-error",
        "-synctex=1",
        f"-outdir={outdir}",
        tex,
    ]


def _run_direct(
    engine_path: str,
    tex_path: Path,
    build_dir: Path,
    run: Callable[[list[str]], int],
) -> int:
    """No latexmk: engine, bibtex when cited, engine again until stable."""
    cwd = tex_path.parent
    outdir = _outdir_arg(build_dir, cwd)
    tex_cmd = [
        engine_path,
        "-no-shell-escape",
        "-interaction=nonstopmode",
        "-halt-on-error",
        "-file-line-error",
        "-synctex=1",
        f"-output-directory={outdir}",
        tex_path.name,
    ]
    log = build_dir / f"{tex_path.stem}.log"
    aux = build_dir / f"{tex_path.stem}.aux"
    code = run(tex_cmd)
    if code != 0:
        return code
    # The bibtex of the engine's own distribution, whatever PATH says.
    bibtex = shutil.which(
        "bibtex", path=os.pathsep.join([str(Path(engine_path).parent), os.environ.get("PATH", "")])
    )
    if bibtex and _needs_bibtex(aux, cwd):
        # bibtex writes next to the .aux; relative name keeps openout_any=p happy.
        code = run([bibtex, f"{outdir}/{tex_path.stem}" if outdir != "." else tex_path.stem])
        if code >= 2:  # 1 = warnings only; 2 and up = errors, as latexmk judges them
            return code
        code = run(tex_cmd)  # picks up the .bbl
        if code != 0:
            return code
    for _ in range(_MAX_DIRECT_PASSES - 2):
        code = run(tex_cmd)  # resolves references and the table of contents
        if code != 0 or not _RERUN.search(_read(log)):
            break
    return code


def _read(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return ""


def _tail(text: str, lines: int = _LOG_TAIL_LINES) -> str:
    return "\n".join(text.splitlines()[-lines:])


def publish_file(built: Path, final: Path) -> None:
    """Copy `built` to `final` atomically: readers see the old or the new file. Neither
    is opened through a link (core/rundir/fence.py: RunLinkError instead)."""
    with (
        fence.open_in_run(built.parent, built.name) as src,
        fence.atomic_writer_in(final.parent, final.name) as out,
    ):
        shutil.copyfileobj(src, out)


def _fontset_dir(engines: Engines, engine: str, build_dir: Path) -> Path | None:
    """A folder holding ctexopts.cfg that makes `engines.ctex_fontset` CTeX's
    default (the mechanism ctex's manual documents, section 10.1). A document
    that names a fontset itself still gets its own."""
    if not engines.ctex_fontset or engine not in ("xelatex", "lualatex"):
        return None
    folder = build_dir / "texinputs"
    folder.mkdir(parents=True, exist_ok=True)
    cfg = folder / "ctexopts.cfg"
    text = (
        "\\ProvidesExplFile{ctexopts.cfg}{2024/01/01}{1.0}{Labwright default CTeX fontset}\n"
        f"\\ctex_set:nn {{ option }} {{ fontset = {engines.ctex_fontset} }}\n"
    )
    if _read(cfg) != text:  # rewriting would make latexmk rebuild every time
        cfg.write_text(text, encoding="utf-8")
    return folder


def _result(
    ok: bool,
    last_good: Path | None,
    start: float,
    engine: str | None,
    errors: list[LogError] | None = None,
    warnings: list[str] | None = None,
    log_tail: str = "",
) -> CompileResult:
    return CompileResult(
        ok=ok,
        pdf=last_good,
        errors=errors or [],
        warnings=warnings or [],
        log_tail=log_tail,
        seconds=round(time.monotonic() - start, 3),
        engine=engine,
    )


def compile_tex(
    tex_path: Path,
    *,
    engines: Engines,
    build_dir: Path | None = None,
    timeout_s: float = 180,
    cancel: Callable[[], bool] | None = None,
    publish: bool = True,
    secrets: Sequence[str | None] = (),
) -> CompileResult:
    """Compile `tex_path`; on success publish `<stem>.pdf` beside it.

    With `publish=False` nothing beside the .tex is touched: the result's `pdf`
    is the build folder's PDF after a success and None after a failure.
    Never raises for TeX problems: errors, a missing engine, a timeout or a
    cancel all come back as `ok=False` with a message in `errors`.

    TeX runs confined (see jail): it reads only the document, its .bib files,
    figures/, the build folder and the TeX trees, writes only the build folder,
    and dies with this process. Errors, warnings and the log tail name no file
    outside those and carry none of `secrets` (nor a key from the environment).
    """
    jail.protect_self()
    start = time.monotonic()
    # The folder resolved, never the file: a report.tex that is a link stays one (refused).
    cwd = Path(tex_path).parent.resolve()
    tex_path = cwd / Path(tex_path).name
    final_pdf = cwd / f"{tex_path.stem}.pdf"
    last_good = final_pdf if publish and fence.is_file(cwd, final_pdf.name) else None
    engine = engines.engine
    tex_name = tex_path.name

    def fail(message: str, log_tail: str = "") -> CompileResult:
        error = LogError(file=tex_name, line=None, message=message, context="")
        return _result(False, last_good, start, engine, [error], log_tail=log_tail)

    if engine is None:
        return fail("No TeX engine is installed. " + engines.install_hint())
    try:  # TeX opens by name and follows links: a folder holding one gets no TeX at all
        fence.check_run_dir(cwd)
        if not fence.is_file(cwd, tex_name):
            return fail(f"{tex_path} does not exist")
        build_dir = _make_build_dir(cwd, build_dir)
    except fence.RunLinkError as e:
        return fail(str(e))

    env = subprocess_env(
        _fontset_dir(engines, engine, build_dir), engines.tool_dirs(), build_dir=build_dir
    )
    pol = jail.policy(tex_path, build_dir, engines.tool_dirs())
    output = build_dir / f"{tex_path.stem}.compile.out"
    output.write_bytes(b"")
    deadline = start + timeout_s
    hidden = jail.secret_values(secrets)
    visible: list[Path | str] = [cwd, build_dir, *jail.tex_trees(engines.tool_dirs()), "/usr"]

    def clean(text: str) -> str:
        return jail.redact(text, hidden, visible)

    def run(cmd: list[str]) -> int:
        cmd = jail.command(cmd, pol)
        return _run(cmd, cwd=cwd, env=env, output=output, deadline=deadline, cancel=cancel)

    log_path = build_dir / f"{tex_path.stem}.log"
    built_pdf = build_dir / f"{tex_path.stem}.pdf"
    blg_path = build_dir / f"{tex_path.stem}.blg"
    blg_before = _mtime(blg_path)
    try:
        if engines.latexmk:
            outdir = _outdir_arg(build_dir, cwd)
            code = run(_latexmk_cmd(engines.latexmk, engine, tex_name, outdir))
        else:
            engine_path = getattr(engines, engine)
            code = _run_direct(engine_path, tex_path, build_dir, run)
    except _Stop as stop:
        log_text = _read(log_path)
        why = (
            "Compilation cancelled."
            if stop.reason == "cancelled"
            else f"Compilation timed out after {timeout_s:g} s; the TeX process was stopped."
        )
        return _scrub(fail(why, log_tail=_tail(log_text or _read(output))), clean)
    except OSError as exc:  # the engine vanished or cannot be executed
        return _scrub(fail(f"Could not run {engine}: {exc}"), clean)

    log_text = _read(log_path)
    read_source = _source_reader(cwd)
    errors = parse_log_errors(log_text, read_source, tex_name)
    warnings = parse_warnings(log_text)
    blg_errors, blg_warnings = _fresh_blg(blg_path, read_source, blg_before)
    warnings += blg_warnings
    tail = _tail(log_text or _read(output))
    if code != 0 or not built_pdf.is_file():
        errors += blg_errors
        if not errors:
            output_tail = _tail(_read(output), 15)
            message = f"{engine} failed (exit code {code}); see the log.\n{output_tail}"
            errors = [LogError(file=tex_name, line=None, message=message, context="")]
        return _scrub(_result(False, last_good, start, engine, errors, warnings, tail), clean)
    if not publish:
        return _scrub(_result(True, built_pdf, start, engine, [], warnings, tail), clean)
    publish_file(built_pdf, final_pdf)
    return _scrub(_result(True, final_pdf, start, engine, [], warnings, tail), clean)


def _make_build_dir(cwd: Path, build_dir: Path | None) -> Path:
    """The build folder (cwd/build by default), made without following a link when it
    lies in the document's folder (check_run_dir saw none a moment ago)."""
    build_dir = Path(build_dir).resolve() if build_dir else cwd / "build"
    try:
        rel = build_dir.relative_to(cwd)
    except ValueError:  # the caller's own folder elsewhere
        build_dir.mkdir(parents=True, exist_ok=True)
        return build_dir
    return fence.make_dirs(cwd, rel) if rel.parts else cwd


def _scrub(result: CompileResult, clean: Callable[[str], str]) -> CompileResult:
    """`result` with every text TeX produced passed through `clean` (jail.redact):
    what reaches run.json, the review pane and the compile-fix prompt."""
    return dataclasses.replace(
        result,
        errors=[
            LogError(clean(e.file), e.line, clean(e.message), clean(e.context))
            for e in result.errors
        ],
        warnings=[clean(w) for w in result.warnings],
        log_tail=clean(result.log_tail),
    )


def _mtime(path: Path) -> int | None:
    try:
        return path.stat().st_mtime_ns
    except OSError:
        return None


def _fresh_blg(
    blg: Path, read_source: Callable[[str], str | None], mtime_before: int | None
) -> tuple[list[LogError], list[str]]:
    """The bibliography tool's errors and warnings, if it ran in this compile
    (latexmk skips it when nothing changed; a stale .blg is not news)."""
    mtime = _mtime(blg)
    if mtime is None or mtime == mtime_before:
        return [], []
    return parse_blg(_read(blg), read_source)


def _source_reader(root: Path) -> Callable[[str], str | None]:
    """Read files the log names, but only inside the document's folder."""
    root = root.resolve()
    cache: dict[str, str | None] = {}

    def read(file: str) -> str | None:
        if file not in cache:
            path = (root / file).resolve()
            inside = path == root or root in path.parents
            cache[file] = _read(path) if inside and path.is_file() else None
        return cache[file]

    return read
