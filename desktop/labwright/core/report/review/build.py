"""Recompile after an edit: build report.tex in build-review/, publish only a good PDF."""

from __future__ import annotations

import dataclasses
import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from labwright.core.reasons import Reason
from labwright.core.report.latex import CompileResult, Engines, LogError, compile_tex, probe_engines
from labwright.core.report.latex.build import publish_file
from labwright.core.rundir import fence
from labwright.core.rundir.files import save_run, try_load_run
from labwright.core.rundir.records import CompileRecord

REVIEW_BUILD = "build-review"

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
    engines = engines or probe_engines()
    with _lock(run_dir):
        result = compile_tex(
            run_dir / "report.tex",
            engines=engines,
            build_dir=run_dir / REVIEW_BUILD,
            cancel=cancel,
            publish=False,
            secrets=secrets,
        )
        final = run_dir / "report.pdf"
        if result.ok and result.pdf is not None:
            publish_file(result.pdf, final)
            synctex = result.pdf.with_name(f"{result.pdf.stem}.synctex.gz")
            if fence.is_file(synctex.parent, synctex.name):
                publish_file(synctex, run_dir / "report.synctex.gz")
        shown = fence.is_file(run_dir, final.name)  # a link there is no PDF of this run
        result = dataclasses.replace(result, pdf=final if shown else None)
        if not (cancel is not None and cancel()):  # a cancelled build says nothing of the text
            _record_compile(run_dir, result)
    return result


def _record_compile(run_dir: Path, result: CompileResult) -> None:
    meta = try_load_run(run_dir)
    if meta is None:
        return  # not a run directory we can describe; the PDF is still published
    meta.compile = CompileRecord(
        ok=result.ok,
        errors=[_error_dict(e) for e in result.errors[:10]],
        warnings=result.warnings[:20],
        seconds=result.seconds,
        fix_rounds=0,
        by="review",
    )
    failed = Reason.COMPILE_FAILED.value
    meta.reasons = [r for r in meta.reasons if r != failed]
    if not result.ok:
        meta.reasons.append(failed)
    save_run(run_dir, meta)


def _error_dict(e: LogError) -> dict[str, Any]:
    return {"file": e.file, "line": e.line, "message": e.message, "context": e.context}
