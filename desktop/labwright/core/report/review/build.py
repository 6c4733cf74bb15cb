"""Recompile after an edit: build report.tex in build-review/, publish only a good PDF."""

from __future__ import annotations

import dataclasses
import threading
from collections.abc import Callable, Sequence
from pathlib import Path

from labwright.core.reasons import Reason
from labwright.core.report.latex import CompileResult, Engines, LogError, compile_tex, probe_engines
from labwright.core.report.latex.build import publish_file
from labwright.core.rundir import fence
from labwright.core.rundir.layout import RunDir
from labwright.core.rundir.names import REVIEW_BUILD as REVIEW_BUILD
from labwright.core.rundir.names import synctex_name
from labwright.core.rundir.records import CompileErrorRecord, CompileRecord

_LOCKS: dict[Path, threading.Lock] = {}
_LOCKS_GUARD = threading.Lock()


def _lock(run_dir: Path) -> threading.Lock:
    # Two recompiles of one run would share build-review/; the second waits for the first.
    with _LOCKS_GUARD:
        return _LOCKS.setdefault(run_dir.resolve(), threading.Lock())


def recompile(
    run_dir: Path,
    *,
    engines: Engines | None = None,
    cancel: Callable[[], bool] | None = None,
    secrets: Sequence[str | None] = (),
) -> CompileResult:
    """Compile the current report.tex in run_dir/build-review.

    Only a successful build replaces report.pdf (atomically) and report.synctex.gz;
    after a failure the last good PDF stays byte for byte and the result's `pdf`
    points at it (None if there never was one). run.json's "compile" entry (and
    its compile_failed reason) is updated. Never raises for TeX problems.
    """
    run_dir = Path(run_dir)
    run = RunDir(run_dir)
    engines = engines or probe_engines()
    with _lock(run_dir):
        result = compile_tex(
            run.report_tex,
            engines=engines,
            build_dir=run.review_build,
            cancel=cancel,
            publish=False,
            secrets=secrets,
        )
        if result.ok and result.pdf is not None:
            publish_file(result.pdf, run.report_pdf)
            synctex = result.pdf.with_name(synctex_name(result.pdf))
            if fence.is_file(synctex.parent, synctex.name):
                publish_file(synctex, run.synctex)
        shown = run.has_pdf()  # a link there is no PDF of this run
        result = dataclasses.replace(result, pdf=run.report_pdf if shown else None)
        if not (cancel is not None and cancel()):  # a cancelled build says nothing of the text
            _record_compile(run, result)
    return result


def _record_compile(run: RunDir, result: CompileResult) -> None:
    meta = run.try_load_run()
    if meta is None:
        return  # not a run directory we can describe; the PDF is still published
    meta.compile = CompileRecord(
        ok=result.ok,
        errors=[error_record(e) for e in result.errors[:10]],
        warnings=result.warnings[:20],
        seconds=result.seconds,
        fix_rounds=0,
        by="review",
    )
    failed = Reason.COMPILE_FAILED.value
    meta.reasons = [r for r in meta.reasons if r != failed]
    if not result.ok:
        meta.reasons.append(failed)
    run.save_run(meta)


def error_record(e: LogError) -> CompileErrorRecord:
    return CompileErrorRecord(e.file, e.line, e.message, e.context)
