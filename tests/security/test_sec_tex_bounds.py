r"""Model-written TeX cannot fill the disk, Labwright's memory or the clock (issue 21).

A document that writes one file in an endless loop filled build/ at ~33 MB/s
(4.9 GB in 150 s); one that wrote a ~1 GB log made Labwright hold ~2 GB, as the
whole log was read. Through compile_tex, with small bounds so the tests are
quick: one file written for ever (stopped at the file cap by RLIMIT_FSIZE in the
confined command, and by the watch alone where the OS has no such limit, as on
Windows), many files of 1 MB (the folder's growth cap), many tiny files (the
file-count cap), an endless loop (the time limit ends the whole process group),
a 60 MB log (read as a bounded tail, its lines cut). Each with Landlock as the
machine has it and forced off. Checked by effect: the message names the cause,
no file of the build folder is left at the cap, the last good PDF is the same
file, no TeX process is left, the memory Labwright allocated stays small.
"""

from __future__ import annotations

import hashlib
import os
import tracemalloc
from pathlib import Path

import pytest
from test_sec_tex_lifetime import _alive, _cmd, _descendants, _xelatex_under

from labwright.core import confine
from labwright.core.report.latex import TexBounds, compile_tex, jail, probe_engines

ENGINES = probe_engines()
SMALL = TexBounds(file_mb=8, growth_mb=32, new_files=300)
X = "x" * 1000
GOOD = "\\documentclass{article}\n\\begin{document}\nA good report.\n\\end{document}\n"
ONE_FILE_FOREVER = (
    "\\documentclass{article}\n\\begin{document}\n"
    f"\\newwrite\\w \\immediate\\openout\\w=big.txt \\def\\x{{{X}}}\n"
    "\\loop \\immediate\\write\\w{\\x}\\iftrue\\repeat\n\\end{document}\n"
)


def _files_forever(lines_per_file: int) -> str:
    """Files f0.txt, f1.txt, ... of `lines_per_file` lines of 1000 characters, for ever."""
    return (
        "\\documentclass{article}\n\\begin{document}\n"
        f"\\newwrite\\w \\newcount\\n \\newcount\\k \\def\\x{{{X}}}\n"
        "\\def\\onefile{{\\immediate\\openout\\w=f\\the\\n.txt \\k=0 "
        f"\\loop\\ifnum\\k<{lines_per_file} \\immediate\\write\\w{{\\x}}\\advance\\k 1 \\repeat "
        "\\immediate\\closeout\\w}}\n"
        "\\loop \\onefile \\advance\\n 1 \\iftrue\\repeat\n\\end{document}\n"
    )


@pytest.fixture(params=["landlock", "no-landlock"])
def layer(request, monkeypatch) -> str:
    if request.param == "landlock" and not confine.support().fs:
        pytest.skip("this machine has no Landlock")
    if request.param == "no-landlock":
        monkeypatch.setattr(confine, "_SUPPORT", confine.Support())
    return request.param


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _with_last_good(tmp_path: Path, bomb: str) -> tuple[Path, str]:
    """A run whose report compiled once (report.pdf), then became `bomb`."""
    run_dir = tmp_path / "run"
    run_dir.mkdir()
    tex = run_dir / "report.tex"
    tex.write_text(GOOD, encoding="utf-8")
    assert compile_tex(tex, engines=ENGINES).ok
    tex.write_text(bomb, encoding="utf-8")
    return tex, _digest(run_dir / "report.pdf")


def _largest(folder: Path) -> int:
    sizes = [p.lstat().st_size for p in folder.rglob("*") if p.is_file() and not p.is_symlink()]
    return max(sizes, default=0)


def _total(folder: Path) -> int:
    return sum(p.lstat().st_size for p in folder.rglob("*") if p.is_file() and not p.is_symlink())


def _assert_stopped(result, tex: Path, good: str, cause: str) -> None:
    assert not result.ok
    assert any(cause in e.message and "stopped" in e.message for e in result.errors), result.errors
    assert result.pdf == tex.parent / "report.pdf" and _digest(result.pdf) == good
    build = tex.parent / "build"
    assert _largest(build) < SMALL.file_bytes
    assert _total(build) < (SMALL.growth_mb + SMALL.file_mb) * 2**20


@pytest.mark.parametrize("limit", ["rlimit", "watch-only"])
def test_one_file_written_for_ever_stops_at_the_file_cap(layer, limit, tmp_path, monkeypatch):
    if limit == "watch-only":  # as on Windows: no RLIMIT_FSIZE, only the watch
        policy = jail.policy
        monkeypatch.setattr(
            jail, "policy", lambda *a, **k: policy(*a, **{**k, "max_file_bytes": 0})
        )
    tex, good = _with_last_good(tmp_path, ONE_FILE_FOREVER)

    result = compile_tex(tex, engines=ENGINES, bounds=SMALL, timeout_s=100)

    _assert_stopped(result, tex, good, "more than 8 MB to one file (big.txt)")


def test_many_files_stop_at_the_growth_cap(layer, tmp_path):
    tex, good = _with_last_good(tmp_path, _files_forever(lines_per_file=1000))

    result = compile_tex(tex, engines=ENGINES, bounds=SMALL, timeout_s=100)

    _assert_stopped(result, tex, good, "more than 32 MB to the build folder")


def test_many_small_files_stop_at_the_file_count(layer, tmp_path):
    tex, good = _with_last_good(tmp_path, _files_forever(lines_per_file=1))

    result = compile_tex(tex, engines=ENGINES, bounds=SMALL, timeout_s=100)

    _assert_stopped(result, tex, good, "more than 300 files")
    assert len(list((tex.parent / "build").glob("f*.txt"))) == 0


def test_a_document_within_the_bounds_compiles(layer, tmp_path):
    """Positive control: 2 MB written by TeX is no reason to stop."""
    two = _files_forever(1000).replace("\\iftrue", "\\ifnum\\n<2")
    tex, _ = _with_last_good(tmp_path, two.replace("\\end{document}", "Done.\\end{document}"))

    result = compile_tex(tex, engines=ENGINES, bounds=SMALL, timeout_s=100)

    assert result.ok, result.errors
    assert (tex.parent / "build" / "f1.txt").stat().st_size > 10**6


def test_the_time_limit_ends_every_tex_process(layer, tmp_path):
    tex, good = _with_last_good(tmp_path, GOOD.replace("A good", "\\loop\\iftrue\\repeat"))
    seen: list[int] = []

    def watch() -> bool:  # never cancels: notes the TeX processes once xelatex runs
        if not seen and _xelatex_under(os.getpid()):
            seen.extend(_descendants(os.getpid()))
        return False

    result = compile_tex(tex, engines=ENGINES, cancel=watch, timeout_s=6)

    assert not result.ok and "timed out after 6 s" in result.errors[0].message
    assert seen and _alive(seen) == [], {p: _cmd(p) for p in _alive(seen)}
    assert _digest(tex.parent / "report.pdf") == good


def test_a_huge_log_is_read_as_a_bounded_tail(layer, tmp_path):
    """60 MB of log and as much terminal output, then an error: Labwright allocates a
    few MB, finds the error at the end, and cuts the lines it hands on."""
    long_line = "y" * 9000
    bomb = (
        "\\documentclass{article}\n\\begin{document}\n"
        f"\\def\\x{{{X}}}\\count255=0 "
        "\\loop\\ifnum\\count255<60000 \\message{\\x}\\advance\\count255 1 \\repeat\n"
        f"\\errmessage{{Final {long_line}}}\n\\end{{document}}\n"
    )
    tex, good = _with_last_good(tmp_path, bomb)

    tracemalloc.start()
    try:
        result = compile_tex(tex, engines=ENGINES, timeout_s=100)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()

    assert (tex.parent / "build" / "report.log").stat().st_size > 55 * 2**20
    assert peak < 40 * 2**20, f"{peak / 2**20:.0f} MB allocated"
    assert not result.ok and any("Final yyyy" in e.message for e in result.errors)
    assert all(len(e.message) <= 1000 for e in result.errors)
    lines = result.log_tail.splitlines()
    assert len(lines) <= 40 and all(len(line) <= 4000 for line in lines)
    assert _digest(tex.parent / "report.pdf") == good
