"""Compile a .tex file to PDF in a build folder of its own.

The run directory only ever gains `<stem>.pdf`, replaced atomically after a
successful build; a failed build never touches the last good PDF. Every build
also writes `<stem>.synctex.gz` in its build folder (SyncTeX: PDF <-> source);
`publish=False` builds without touching the run directory at all, for callers
that publish the result themselves (the review pane's recompile).

TeX is bounded (TexBounds): no file it writes grows past `file_mb` (RLIMIT_FSIZE
in the confined command where the OS has it, and the watch below everywhere),
the build folder grows by at most `growth_mb` and `new_files` files per
compile (watched between polls; past a bound the whole process group is
killed and what it wrote is removed), and every log is read as a bounded tail.
With XeLaTeX the PDF is made in a step of its own: XeLaTeX writes the .xdv,
tex_reads.check_xdv reads it, and only then does xdvipdfmx run.
"""

from __future__ import annotations

import contextlib
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

from labwright.core.report.latex import jail, tex_reads
from labwright.core.report.latex.logparse import (
    LogError,
    parse_blg,
    parse_log_errors,
    parse_warnings,
    source_context,
)
from labwright.core.report.latex.probe import Engines
from labwright.core.report.latex.structure import structure_problems
from labwright.core.rundir import fence
from labwright.core.rundir.names import BUILD

POLL_S = 0.1  # how often a running compile checks cancel, the deadline and the bounds
_KILL_GRACE_S = 1.0
_LOG_TAIL_LINES = 40
_READ_BYTES = 4 << 20  # the tail of a log (or .aux, .blg) that is parsed: errors are at its end
_LINE_CHARS = 4000  # a longer line is cut before it is parsed
_MB = 1 << 20
_LATEXMK_MODE = {"xelatex": "-xelatex", "lualatex": "-lualatex", "pdflatex": "-pdf"}
# latexmk's own xdvipdfmx rule replaced by one that only marks the PDF as made (latexmk's
# documented `internal` rule): Labwright checks the .xdv, then runs xdvipdfmx itself.
_LATEXMK_DEFER_PDF = (
    "$xdvipdfmx = q(internal labwright_defer_pdf %D); "
    "sub labwright_defer_pdf { open(my $f, '>', $_[0]) or return 1; close($f); return 0 }"
)
_MAX_DIRECT_PASSES = 4
_RERUN = re.compile(r"Rerun to get|Label\(s\) may have changed|Please rerun")


@dataclass(frozen=True)
class TexBounds:
    """What one compile may write into its build folder (see the module doc)."""

    file_mb: float = 128  # any one file
    growth_mb: float = 256  # all files together, over what the folder held before
    new_files: int = 10_000

    @property
    def file_bytes(self) -> int:
        return int(self.file_mb * _MB)


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
    def __init__(self, reason: str, message: str = "") -> None:
        super().__init__(reason)
        self.reason = reason
        self.message = message


class _Growth:
    """What a compile adds to its build folder, against TexBounds; stat only, no reads."""

    def __init__(self, root: Path, bounds: TexBounds) -> None:
        self.root, self.bounds = root, bounds
        self.before = self._sizes(None)

    def _sizes(self, limit: int | None) -> dict[str, int]:
        """Size of every regular file below root (links not followed), at most `limit`."""
        sizes: dict[str, int] = {}
        todo = [str(self.root)]
        while todo:
            try:
                entries = list(os.scandir(todo.pop()))
            except OSError:
                continue
            for entry in entries:
                try:
                    if entry.is_dir(follow_symlinks=False):
                        todo.append(entry.path)
                    elif entry.is_file(follow_symlinks=False):
                        sizes[entry.path] = entry.stat(follow_symlinks=False).st_size
                except OSError:
                    continue
                if limit is not None and len(sizes) > limit:
                    return sizes
        return sizes

    def problem(self) -> str:
        """Why the compile must stop now, or ""."""
        b = self.bounds
        sizes = self._sizes(len(self.before) + b.new_files)
        if sum(1 for path in sizes if path not in self.before) > b.new_files:
            return f"TeX made more than {b.new_files:,} files in the build folder; stopped."
        for path, size in sizes.items():
            if size >= b.file_bytes:
                name = os.path.relpath(path, self.root)
                return f"TeX wrote more than {b.file_mb:g} MB to one file ({name}); stopped."
        grown = sum(max(0, size - self.before.get(path, 0)) for path, size in sizes.items())
        if grown > b.growth_mb * _MB:
            return f"TeX wrote more than {b.growth_mb:g} MB to the build folder; stopped."
        return ""

    def discard(self) -> None:
        """Remove what this compile wrote or grew: a stopped compile's output is junk.
        TeX is stopped by now, so this walk is bounded by what it made before that."""
        for path, size in self._sizes(None).items():
            if self.before.get(path) != size:
                with contextlib.suppress(OSError):
                    os.unlink(path)


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
    growth: _Growth | None = None,
) -> int:
    """Run `cmd` in its own process group; raise _Stop on cancel, timeout or a bound."""
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
                if growth is not None and (why := growth.problem()):
                    raise _Stop("bounds", why)
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
    text = _read_tail(aux)
    if "\\citation" not in text:
        return False
    databases = re.findall(r"\\bibdata\{([^}]*)\}", text)
    names = [n.strip() for d in databases for n in d.split(",") if n.strip()] or ["refs"]
    return any((cwd / (n if n.endswith(".bib") else n + ".bib")).is_file() for n in names)


def _latexmk_cmd(latexmk: str, engine: str, tex: str, outdir: str) -> list[str]:
    defer = ["-e", _LATEXMK_DEFER_PDF] if engine == "xelatex" else []
    return [
        latexmk,
        "-norc",  # no latexmkrc from the user's home or the document's folder
        _LATEXMK_MODE[engine],
        *defer,
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
    xdv_only = ["-no-pdf"] if Path(engine_path).stem.lower() == "xelatex" else []
    tex_cmd = [
        engine_path,
        *xdv_only,
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
        if code != 0 or not _RERUN.search(_read_tail(log)):
            break
    return code


def _read_tail(path: Path, limit: int = _READ_BYTES) -> str:
    """The last `limit` bytes of `path` as text (from a line start), each line cut at
    _LINE_CHARS: what TeX wrote never decides how much Labwright holds."""
    try:
        with path.open("rb") as f:
            size = f.seek(0, os.SEEK_END)
            f.seek(max(0, size - limit))
            data = f.read(limit)
    except OSError:
        return ""
    if size > limit:
        data = data[data.find(b"\n") + 1 :]
    lines = data.decode("utf-8", errors="replace").splitlines()
    return "\n".join(line[:_LINE_CHARS] for line in lines)


def _read_head(path: Path, limit: int) -> str:
    try:
        with path.open("rb") as f:
            return f.read(limit).decode("utf-8", errors="replace")
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
    if _read_head(cfg, len(text) + 1) != text:  # rewriting would make latexmk rebuild every time
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
    bounds: TexBounds | None = None,
) -> CompileResult:
    """Compile `tex_path`; on success publish `<stem>.pdf` beside it.

    With `publish=False` nothing beside the .tex is touched: the result's `pdf`
    is the build folder's PDF after a success and None after a failure.
    Never raises for TeX problems: errors, a missing engine, a timeout, a bound
    passed or a cancel all come back as `ok=False` with a message in `errors`.

    TeX runs confined (see jail and fence): it reads only the document, its .bib
    files, figures/, the build folder and the TeX and font trees, writes only the
    build folder, within `bounds`, and dies with this process. Errors, warnings and
    the log tail name no file outside those, quote no file but the document and its
    .bib files, and carry none of `secrets` (nor a key from the environment).
    """
    jail.protect_self()
    bounds = bounds or TexBounds()
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
    trees = jail.tex_trees(engines.tool_dirs())
    allowed = tex_reads.roots(tex_path, build_dir, trees)
    hidden = jail.secret_values(secrets)
    visible: list[Path | str] = [cwd, build_dir, *trees, "/usr"]

    def clean(text: str) -> str:
        return jail.redact(text, hidden, visible)

    read_source = _source_reader(tex_path)
    refused = tex_reads.check_sources(
        tex_reads.source_files(tex_path), cwd, tex_reads.outside_variables(env, allowed)
    )
    if refused:
        return _scrub(_refused(refused, read_source, last_good, start, engine), clean)

    pol = jail.policy(tex_path, build_dir, engines.tool_dirs(), max_file_bytes=bounds.file_bytes)
    output = build_dir / f"{tex_path.stem}.compile.out"
    output.write_bytes(b"")
    deadline = start + timeout_s
    growth = _Growth(build_dir, bounds)

    def run(cmd: list[str]) -> int:
        cmd = jail.command(cmd, pol)
        return _run(
            cmd, cwd=cwd, env=env, output=output, deadline=deadline, cancel=cancel, growth=growth
        )

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
        if not code and not (why := growth.problem()) and engine == "xelatex":
            xdv = build_dir / f"{tex_path.stem}.xdv"
            refused = tex_reads.check_xdv(xdv, cwd, allowed, deadline)
            if refused:
                built_pdf.unlink(missing_ok=True)  # latexmk's placeholder
                return _scrub(_refused(refused, read_source, last_good, start, engine), clean)
            code = run(_xdvipdfmx_cmd(engines, xdv, built_pdf, cwd))
    except (_Stop, tex_reads.XdvTimeout) as exc:
        stop = exc if isinstance(exc, _Stop) else _Stop("timeout")
        tail = _tail(_read_tail(log_path) or _read_tail(output))
        if stop.reason == "bounds":
            growth.discard()
        return _scrub(fail(_stop_message(stop, timeout_s), log_tail=tail), clean)
    except OSError as exc:  # the engine vanished or cannot be executed
        return _scrub(fail(f"Could not run {engine}: {exc}"), clean)

    log_text = _read_tail(log_path)
    tail = _tail(log_text or _read_tail(output))
    if why := growth.problem():  # RLIMIT_FSIZE stopped a writer between two polls
        growth.discard()
        return _scrub(fail(why, log_tail=tail), clean)
    errors = parse_log_errors(log_text, read_source, tex_name, structure_problems)
    warnings = parse_warnings(log_text)
    blg_errors, blg_warnings = _fresh_blg(blg_path, read_source, blg_before)
    warnings += blg_warnings
    if code != 0 or not built_pdf.is_file():
        errors += blg_errors
        if not errors:
            output_tail = _tail(_read_tail(output), 15)
            message = f"{engine} failed (exit code {code}); see the log.\n{output_tail}"
            errors = [LogError(file=tex_name, line=None, message=message, context="")]
        return _scrub(_result(False, last_good, start, engine, errors, warnings, tail), clean)
    if not publish:
        return _scrub(_result(True, built_pdf, start, engine, [], warnings, tail), clean)
    publish_file(built_pdf, final_pdf)
    return _scrub(_result(True, final_pdf, start, engine, [], warnings, tail), clean)


def _stop_message(stop: _Stop, timeout_s: float) -> str:
    if stop.reason == "cancelled":
        return "Compilation cancelled."
    if stop.reason == "bounds":
        return stop.message
    return f"Compilation timed out after {timeout_s:g} s; the TeX process was stopped."


def _xdvipdfmx_cmd(engines: Engines, xdv: Path, pdf: Path, cwd: Path) -> list[str]:
    """xdvipdfmx of the engine's own distribution, as latexmk would run it."""
    assert engines.xelatex is not None
    search = os.pathsep.join([str(Path(engines.xelatex).parent), os.environ.get("PATH", "")])
    exe = shutil.which("xdvipdfmx", path=search)
    if exe is None:
        raise FileNotFoundError("xdvipdfmx is not installed beside xelatex")
    return [exe, "-E", "-o", _outdir_arg(pdf, cwd), _outdir_arg(xdv, cwd)]


def _refused(
    refusals: Sequence[tex_reads.Refusal],
    read_source: Callable[[str], str | None],
    last_good: Path | None,
    start: float,
    engine: str | None,
) -> CompileResult:
    """A compile Labwright stopped before TeX (or xdvipdfmx) could read what it named."""
    errors = []
    for r in refusals:
        source = read_source(r.file) if r.file and r.line else None
        context = source_context(source, r.line) if source and r.line else ""
        message = f"Refused: {r.message}."
        errors.append(LogError(file=r.file, line=r.line, message=message, context=context))
    return _result(False, last_good, start, engine, errors)


def _make_build_dir(cwd: Path, build_dir: Path | None) -> Path:
    """The build folder (cwd/build by default), made without following a link when it
    lies in the document's folder (check_run_dir saw none a moment ago)."""
    build_dir = Path(build_dir).resolve() if build_dir else cwd / BUILD
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
    return parse_blg(_read_tail(blg), read_source)


def _source_reader(tex_path: Path) -> Callable[[str], str | None]:
    """Read a file the log names, for the lines around an error: only the document
    and its .bib files. The log is TeX's, so the model's: a line it wrote naming
    `events.jsonl:2` must not make Labwright quote the journal."""
    cwd = tex_path.parent
    quotable = {tex_path.resolve()}
    quotable |= {p.resolve() for p in cwd.glob("*.bib") if p.is_file() and not p.is_symlink()}
    cache: dict[str, str | None] = {}

    def read(file: str) -> str | None:
        if file not in cache:
            path = (cwd / file).resolve()
            cache[file] = _read_head(path, _READ_BYTES) if path in quotable else None
        return cache[file]

    return read
