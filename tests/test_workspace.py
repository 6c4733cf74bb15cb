"""The path fence and the zero-model scan (labwright.core.material.workspace)."""

from __future__ import annotations

import errno
import inspect
import json
import os
import sys
from pathlib import Path

import pytest

from labwright.core.material import workspace
from labwright.core.material.workspace import (
    PathDenied,
    ScanEntry,
    bucket_of,
    iter_scan,
    resolve_in_folder,
    scan_folder,
)

REAL = Path(__file__).resolve().parent / "data" / "projectile-motion"  # tests/data/README.md

posix_only = pytest.mark.skipif(os.name == "nt", reason="POSIX file system semantics")


def _symlink(target: Path | str, link: Path) -> None:
    try:
        os.symlink(target, link)
    except (OSError, NotImplementedError) as e:  # Windows without the privilege
        pytest.skip(f"cannot create symlinks here: {e}")


def _write(path: Path, text: str = "x") -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    """root/ with some ordinary material, next to outside/ holding a secret."""
    root = tmp_path / "root"
    _write(root / "Data" / "x.csv", "t,x\n0,1\n")
    _write(root / "Data" / "sub" / "deep.txt")
    _write(root / "with space" / "file name.csv")
    _write(root / "数据" / "测量 1.csv")
    _write(root / "b" / "target.txt")
    _write(tmp_path / "outside" / "secret.txt", "secret")
    return root


# --------------------------------------------------------------------------
# resolve_in_folder: refusals
# --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("rel", "reason"),
    [
        ("..", "escape"),
        ("../outside/secret.txt", "escape"),
        ("Data/../..", "escape"),
        ("Data/sub/../../../outside/secret.txt", "escape"),
        ("./Data/./../../outside", "escape"),
        ("..\\outside\\secret.txt", "escape"),  # a Windows-style escape on POSIX too
        ("Data\\..\\..\\outside", "escape"),
        ("/etc/passwd", "absolute"),
        ("/", "absolute"),
        ("C:\\Windows\\win.ini", "absolute"),
        ("c:/Windows/win.ini", "absolute"),
        ("C:foo", "absolute"),  # drive-relative
        ("C:", "absolute"),
        ("\\\\srv\\share\\x.csv", "absolute"),  # UNC
        ("//srv/share/x.csv", "absolute"),
        ("\\Windows", "absolute"),  # rooted on the current drive
        ("\\\\?\\C:\\x", "absolute"),
        ("~", "home"),
        ("~/notes.txt", "home"),
        ("~root/.ssh/id_rsa", "home"),
        ("Data/x.csv\0.png", "nul"),
        ("\0", "nul"),
    ],
)
def test_refuses_escapes(tree: Path, rel: str, reason: str) -> None:
    with pytest.raises(PathDenied) as info:
        resolve_in_folder(tree, rel)
    assert info.value.reason == reason
    assert info.value.path == rel


def test_refuses_the_absolute_path_of_an_outside_file(tree: Path) -> None:
    secret = tree.parent / "outside" / "secret.txt"
    with pytest.raises(PathDenied) as info:
        resolve_in_folder(tree, str(secret))
    assert info.value.reason == "absolute"


def test_refuses_even_an_absolute_path_inside_the_folder(tree: Path) -> None:
    # Tools speak relative paths only: one form, one fence, no leaked home path.
    with pytest.raises(PathDenied):
        resolve_in_folder(tree, str(tree / "Data" / "x.csv"))


def test_message_is_actionable(tree: Path) -> None:
    with pytest.raises(PathDenied) as info:
        resolve_in_folder(tree, "../outside/secret.txt")
    message = str(info.value)
    assert message.startswith("Refused '../outside/secret.txt': ")
    assert "outside the folder" in message
    assert "Use a path relative to the folder, e.g. 'Data/x.csv'." in message
    assert "Call list_dir('.') to see what is there." in message
    assert str(tree) not in message  # the user's absolute path is not the model's business


def test_message_escapes_control_characters_and_cuts_long_paths(tree: Path) -> None:
    with pytest.raises(PathDenied) as info:
        resolve_in_folder(tree, "a\0b")
    assert "\0" not in str(info.value) and "'a\\x00b'" in str(info.value)
    with pytest.raises(PathDenied) as info:
        resolve_in_folder(tree, "../" + "x" * 5000)
    assert len(str(info.value)) < 400


def test_refuses_non_string(tree: Path) -> None:
    with pytest.raises(PathDenied) as info:
        resolve_in_folder(tree, None)  # type: ignore[arg-type]
    assert info.value.reason == "invalid"


@posix_only
def test_refuses_symlinked_file_pointing_outside(tree: Path) -> None:
    _symlink(tree.parent / "outside" / "secret.txt", tree / "Data" / "innocent.csv")
    with pytest.raises(PathDenied) as info:
        resolve_in_folder(tree, "Data/innocent.csv")
    assert info.value.reason == "symlink"
    assert "link that points outside the folder" in str(info.value)


@posix_only
def test_refuses_relative_symlink_pointing_outside(tree: Path) -> None:
    _symlink("../../outside/secret.txt", tree / "Data" / "rel.csv")
    with pytest.raises(PathDenied):
        resolve_in_folder(tree, "Data/rel.csv")


@posix_only
def test_refuses_symlinked_directory_pointing_outside(tree: Path) -> None:
    _symlink(tree.parent / "outside", tree / "Data" / "more")
    for rel in ("Data/more", "Data/more/secret.txt", "Data/more/../more/secret.txt"):
        with pytest.raises(PathDenied) as info:
            resolve_in_folder(tree, rel)
        assert info.value.reason == "symlink", rel


@posix_only
def test_refuses_symlinked_directory_at_any_depth(tree: Path) -> None:
    deep = tree / "a" / "b" / "c"
    deep.mkdir(parents=True)
    _symlink(tree.parent / "outside", deep / "d")
    with pytest.raises(PathDenied):
        resolve_in_folder(tree, "a/b/c/d/secret.txt")


@posix_only
def test_refuses_symlink_chain_ending_outside(tree: Path) -> None:
    # inside -> inside -> outside: every hop is followed.
    _symlink(tree.parent / "outside" / "secret.txt", tree / "b" / "hop2")
    _symlink(tree / "b" / "hop2", tree / "Data" / "hop1.csv")
    with pytest.raises(PathDenied):
        resolve_in_folder(tree, "Data/hop1.csv")


@posix_only
def test_refuses_dangling_symlink_pointing_outside(tree: Path) -> None:
    _symlink(tree.parent / "nowhere" / "x.csv", tree / "dangling.csv")
    with pytest.raises(PathDenied):
        resolve_in_folder(tree, "dangling.csv")


@posix_only
def test_refuses_dotdot_through_a_symlink_that_leads_out(tree: Path) -> None:
    # Lexically "link/../Data" stays inside; the OS would go to outside/../Data.
    nested = tree.parent / "outside" / "nested"
    nested.mkdir()
    _symlink(nested, tree / "link")
    with pytest.raises(PathDenied):
        resolve_in_folder(tree, "link/../secret.txt")


# --------------------------------------------------------------------------
# resolve_in_folder: legitimate paths
# --------------------------------------------------------------------------


@pytest.mark.parametrize("rel", ["", ".", "./", ".//.", "Data/.."])
def test_root_forms(tree: Path, rel: str) -> None:
    assert resolve_in_folder(tree, rel) == Path(os.path.realpath(tree))


@pytest.mark.parametrize(
    ("rel", "expected"),
    [
        ("Data/x.csv", "Data/x.csv"),
        ("Data/sub/deep.txt", "Data/sub/deep.txt"),
        ("Data/", "Data"),
        ("Data\\x.csv", "Data/x.csv"),  # a model writing Windows separators
        ("with space/file name.csv", "with space/file name.csv"),
        ("数据/测量 1.csv", "数据/测量 1.csv"),
        ("./Data/../b/target.txt", "b/target.txt"),
        ("Data/sub/../../b", "b"),
        ("Data/missing.csv", "Data/missing.csv"),  # existence is the tools' business
    ],
)
def test_legitimate_paths_resolve(tree: Path, rel: str, expected: str) -> None:
    got = resolve_in_folder(tree, rel)
    assert got == Path(os.path.realpath(tree)) / expected
    assert got.is_absolute()


def test_tilde_file_that_really_exists_is_allowed(tree: Path) -> None:
    _write(tree / "~backup.csv")
    assert resolve_in_folder(tree, "~backup.csv") == Path(os.path.realpath(tree)) / "~backup.csv"
    assert resolve_in_folder(tree, "Data/~x.csv").name == "~x.csv"  # not first: never a home


@posix_only
def test_symlink_inside_pointing_inside_resolves_to_target(tree: Path) -> None:
    _symlink(tree / "b" / "target.txt", tree / "Data" / "alias.txt")
    _symlink("../b", tree / "Data" / "bdir")
    real = Path(os.path.realpath(tree))
    assert resolve_in_folder(tree, "Data/alias.txt") == real / "b" / "target.txt"
    assert resolve_in_folder(tree, "Data/bdir/target.txt") == real / "b" / "target.txt"


@posix_only
def test_root_given_through_a_symlink(tree: Path, tmp_path: Path) -> None:
    _symlink(tree, tmp_path / "root-link")
    got = resolve_in_folder(tmp_path / "root-link", "Data/x.csv")
    assert got == Path(os.path.realpath(tree)) / "Data" / "x.csv"
    with pytest.raises(PathDenied):
        resolve_in_folder(tmp_path / "root-link", "../outside/secret.txt")


# --------------------------------------------------------------------------
# bucket_of
# --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "bucket"),
    [
        ("manual.pdf", "documents"),
        ("Manual.PDF", "documents"),
        ("report.docx", "documents"),
        ("notes.md", "documents"),
        ("slides.pptx", "documents"),
        ("README", "documents"),
        ("README.txt", "documents"),
        ("photo.JPG", "images"),
        ("scope.bmp", "images"),
        ("plot.svg", "images"),
        ("run1.csv", "data"),
        ("run1.txt", "data"),  # lab .txt files are measurements
        ("scope.dat", "data"),
        ("Projectile motion.xlsx", "data"),
        ("3.1 v2sin2theta vs. range-final.nb", "data"),
        ("fit.m", "data"),
        ("capture", "data"),  # no extension: instruments write those
        ("run.001", "data"),
        ("trailing.", "data"),
        ("LICENSE", "other"),
        ("licence.txt", "other"),
        ("archive.tar.gz", "other"),
        ("analysis.py", "other"),
        (".bashrc", "data"),  # no extension; hidden anyway
    ],
)
def test_bucket_of(name: str, bucket: str) -> None:
    assert bucket_of(name) == bucket


# --------------------------------------------------------------------------
# scan: the real material
# --------------------------------------------------------------------------


def test_scan_real_projectile_motion() -> None:
    result = scan_folder(REAL)
    assert result.counts == {"documents": 3, "images": 0, "data": 4, "other": 1}
    assert result.files == 8
    assert result.dirs == 4  # Data, Data/Final Graph, Data/Mathematica_Sample_PM, Manual
    expected_bytes = sum(p.stat().st_size for p in REAL.rglob("*") if p.is_file())
    assert result.total_bytes == expected_bytes
    assert sum(result.sizes.values()) == expected_bytes
    assert result.hidden == [] and result.huge == [] and result.skipped == []
    assert not result.truncated

    documents = result.sample["documents"]
    assert sum(p.endswith(".pdf") for p in documents) == 1
    assert sum(p.endswith(".docx") for p in documents) == 2
    assert "Data/Projectile motion.xlsx" in result.sample["data"]
    assert sum(p.endswith(".nb") for p in result.sample["data"]) == 3
    assert result.sample["other"] == ["LICENSE"]  # boilerplate, not a measurement

    assert result.summary() == "8 files, 880.4 KB: 3 documents, 0 images, 4 data, 1 other"
    detail = result.to_dict()
    assert json.loads(json.dumps(detail, ensure_ascii=False)) == detail
    assert detail["summary"] == result.summary()
    assert detail["counts"] == result.counts


# --------------------------------------------------------------------------
# scan: hidden, huge, skipped
# --------------------------------------------------------------------------


def test_hidden_entries_are_reported_not_counted_nor_descended(tmp_path: Path) -> None:
    _write(tmp_path / "run.csv")
    _write(tmp_path / ".git" / "config")
    _write(tmp_path / ".git" / "objects" / "ab" / "cdef")
    _write(tmp_path / "__MACOSX" / "._run.csv")
    _write(tmp_path / "Data" / ".DS_Store")
    _write(tmp_path / "Data" / "Thumbs.db")
    _write(tmp_path / "Data" / "DESKTOP.INI")
    _write(tmp_path / "Data" / "~$report.docx")
    _write(tmp_path / "Data" / "report.docx")

    result = scan_folder(tmp_path)
    assert result.hidden == [
        ".git/",
        "__MACOSX/",
        "Data/.DS_Store",
        "Data/DESKTOP.INI",
        "Data/Thumbs.db",
        "Data/~$report.docx",
    ]
    assert result.files == 2
    assert result.counts == {"documents": 1, "images": 0, "data": 1, "other": 0}
    assert result.dirs == 1
    assert all(".git/" not in p for paths in result.sample.values() for p in paths)
    assert result.summary().endswith("(6 hidden)")

    entries = {e.rel: e for e in iter_scan(tmp_path)}
    assert "Data/.DS_Store" in entries and entries["Data/.DS_Store"].hidden
    assert entries[".git"].hidden and entries[".git"].is_dir
    assert not any(rel.startswith(".git/") for rel in entries)


def test_huge_files_are_reported(tmp_path: Path) -> None:
    # Sparse files: the size is real, the disk blocks are not.
    with open(tmp_path / "scope.dat", "wb") as f:
        f.truncate(workspace.HUGE_BYTES + 1)
    with open(tmp_path / "video.mp4", "wb") as f:
        f.truncate(5 * 1024**3)
    _write(tmp_path / "small.csv")

    result = scan_folder(tmp_path)
    assert result.huge == ["scope.dat", "video.mp4"]
    assert result.files == 3  # huge files are files: counted, flagged, not hidden
    assert result.sizes["other"] == 5 * 1024**3
    assert "2 huge" in result.summary()

    small_limit = scan_folder(tmp_path, huge_bytes=0)
    assert small_limit.huge == ["scope.dat", "small.csv", "video.mp4"]


def _deny_scandir_of(monkeypatch: pytest.MonkeyPatch, denied: Path) -> None:
    """Make os.scandir raise PermissionError for one directory (works as root too).

    The scan lists through a path or through a descriptor, so the directory is
    recognised by its inode either way.
    """
    real_scandir = os.scandir
    denied_id = (denied.stat().st_dev, denied.stat().st_ino)

    def fake_scandir(arg: str | int = ".") -> object:
        st = os.fstat(arg) if isinstance(arg, int) else os.stat(arg)
        if (st.st_dev, st.st_ino) == denied_id:
            raise PermissionError(errno.EACCES, "Permission denied", str(arg))
        return real_scandir(arg)

    monkeypatch.setattr(os, "scandir", fake_scandir)


def test_unreadable_subdirectory_is_skipped_with_a_reason(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _write(tmp_path / "a.csv")
    _write(tmp_path / "locked" / "secret.csv")
    _write(tmp_path / "open" / "b.csv")
    _deny_scandir_of(monkeypatch, tmp_path / "locked")

    result = scan_folder(tmp_path)
    assert result.skipped == [{"path": "locked", "reason": "unreadable: permission denied"}]
    assert result.files == 2 and result.dirs == 1
    assert "1 skipped" in result.summary()


@posix_only
def test_unreadable_subdirectory_for_real(tmp_path: Path) -> None:
    """The kernel really refuses: as root (CI) the scan runs as an unprivileged user."""
    import json
    import subprocess
    import sys
    import tempfile

    if os.geteuid() != 0:
        root = tmp_path
    else:  # pytest's tmp dirs are private to root; "nobody" needs a way in
        root = Path(tempfile.mkdtemp(prefix="labwright-test-"))
        root.chmod(0o755)
    try:
        _write(root / "locked" / "secret.csv")
        _write(root / "open" / "b.csv")
        (root / "open").chmod(0o755)
        (root / "open" / "b.csv").chmod(0o644)
        (root / "locked").chmod(0)
        # Import first (the interpreter may live in root's home), then give up root.
        code = (
            "import json, os, sys; from labwright.core.material.workspace import scan_folder\n"
            "if os.geteuid() == 0:\n    os.setgroups([]); os.setgid(65534); os.setuid(65534)\n"
            "print(json.dumps(scan_folder(sys.argv[1]).skipped))"
        )
        desktop = str(Path(__file__).resolve().parents[1] / "desktop")
        out = subprocess.run(
            [sys.executable, "-c", code, str(root)],
            capture_output=True,
            text=True,
            check=True,
            env={**os.environ, "PYTHONPATH": desktop},
        ).stdout
    finally:
        (root / "locked").chmod(0o755)
        if root != tmp_path:
            import shutil

            shutil.rmtree(root)
    assert json.loads(out) == [{"path": "locked", "reason": "unreadable: permission denied"}]


@posix_only
def test_symlinks_in_the_scan(tmp_path: Path) -> None:
    root = tmp_path / "root"
    _write(root / "real" / "a.csv", "1,2\n")
    _write(tmp_path / "outside" / "secret.csv")
    _symlink(tmp_path / "outside" / "secret.csv", root / "out-file.csv")
    _symlink(tmp_path / "outside", root / "out-dir")
    _symlink(root / "real" / "a.csv", root / "in-file.csv")
    _symlink(root / "real", root / "in-dir")
    _symlink(root / "nowhere.csv", root / "broken.csv")
    _symlink(root / "loop", root / "loop")

    result = scan_folder(root)
    assert result.skipped == [
        {"path": "broken.csv", "reason": "broken symlink, skipped"},
        {"path": "in-dir", "reason": "symlink to a folder inside the folder, not followed"},
        {"path": "loop", "reason": "symlink loop, skipped"},
        {"path": "out-dir", "reason": "symlink outside the folder, skipped"},
        {"path": "out-file.csv", "reason": "symlink outside the folder, skipped"},
    ]
    # The link to a file inside counts as a file; nothing from outside shows up.
    assert sorted(result.sample["data"]) == ["in-file.csv", "real/a.csv"]
    assert result.total_bytes == 8
    assert result.dirs == 1


@posix_only
@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
def test_special_files_are_skipped_not_read(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "pipe")  # opening it for reading would block forever
    result = scan_folder(tmp_path)
    assert result.skipped == [
        {"path": "pipe", "reason": "not a regular file (device, pipe or socket), skipped"}
    ]
    assert result.files == 0


@pytest.mark.skipif(sys.platform != "linux", reason="needs a file system taking raw bytes")
def test_non_utf8_name_is_shown_escaped_and_the_result_stays_json(tmp_path: Path) -> None:
    raw = os.path.join(os.fsencode(tmp_path), b"caf\xe9.csv")
    with open(raw, "wb") as f:
        f.write(b"1\n")
    result = scan_folder(tmp_path)
    assert result.files == 1 and not result.skipped
    assert result.sample["data"] == ["caf\\xe9.csv"]
    json.dumps(result.to_dict(), ensure_ascii=False).encode("utf-8")  # must not raise


# --------------------------------------------------------------------------
# scan: order, streaming, limits, errors
# --------------------------------------------------------------------------


def test_order_is_deterministic_files_first_sorted_per_directory(tmp_path: Path) -> None:
    for rel in ["b/z.csv", "B2.csv", "a/y.csv", "a.csv", "a/sub/x.csv", "C.pdf", "b/a.csv"]:
        _write(tmp_path / rel)
    expected = [
        "a.csv",
        "B2.csv",
        "C.pdf",
        "a",
        "a/y.csv",
        "a/sub",
        "a/sub/x.csv",
        "b",
        "b/a.csv",
        "b/z.csv",
    ]
    assert [e.rel for e in iter_scan(tmp_path)] == expected
    assert [e.rel for e in iter_scan(tmp_path)] == expected


def test_iter_scan_streams(tmp_path: Path) -> None:
    _write(tmp_path / "a.csv", "12345")
    _write(tmp_path / "d" / "b.png")
    entries = iter_scan(tmp_path)
    assert inspect.isgenerator(entries)
    first = next(entries)
    assert first == ScanEntry("a.csv", 5, "data", hidden=False, huge=False, note="", is_dir=False)
    assert next(entries) == ScanEntry("d", 0, "", is_dir=True)
    entries.close()  # stopping early releases the open directory


def test_depth_beyond_the_recursion_limit(tmp_path: Path) -> None:
    depth = sys.getrecursionlimit() + 100
    deep = tmp_path.joinpath(*["d"] * depth)
    if len(str(deep)) > 3500:
        pytest.skip("temporary directory path too long for this depth")
    path = str(tmp_path)
    for _ in range(depth):  # Path.mkdir(parents=True) and os.makedirs recurse themselves
        path = os.path.join(path, "d")
        os.mkdir(path)
    try:
        _write(deep / "bottom.csv")
        result = scan_folder(tmp_path)
        assert result.dirs == depth
        assert result.files == 1
    finally:
        # pytest's tmp cleanup (shutil.rmtree) recurses once per level and would
        # overflow on this tree: take it down level by level from the bottom
        (deep / "bottom.csv").unlink(missing_ok=True)
        while path != str(tmp_path):
            os.rmdir(path)
            path = os.path.dirname(path)


def test_sample_is_capped_sorted_and_shallow_first(tmp_path: Path) -> None:
    for i in range(10):
        _write(tmp_path / "runs" / f"run{i:02d}.csv")
    _write(tmp_path / "zz-top.csv")
    result = scan_folder(tmp_path, sample_per_bucket=3)
    assert result.sample["data"] == ["runs/run00.csv", "runs/run01.csv", "zz-top.csv"]
    assert result.truncated
    assert result.counts["data"] == 11  # counts stay exact


def test_lists_are_capped_and_the_rest_counted(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(workspace, "_LIST_CAP", 2)
    for i in range(5):
        _write(tmp_path / f".hidden{i}")
    result = scan_folder(tmp_path)
    assert result.hidden == [".hidden0", ".hidden1"]
    assert result.omitted == {"hidden": 3}
    assert result.truncated
    assert result.summary().endswith("(5 hidden)")
    assert result.to_dict()["omitted"] == {"hidden": 3}


def test_unicode_and_spaced_names_are_scanned(tree: Path) -> None:
    result = scan_folder(tree)
    assert "数据/测量 1.csv" in result.sample["data"]
    assert "with space/file name.csv" in result.sample["data"]
    assert result.files == 5 and result.dirs == 5


def test_empty_folder(tmp_path: Path) -> None:
    result = scan_folder(tmp_path)
    assert result.summary() == "0 files, 0 B: 0 documents, 0 images, 0 data, 0 other"
    assert result.to_dict()["files"] == 0


def test_root_errors_are_clear(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(FileNotFoundError, match="does not exist"):
        scan_folder(tmp_path / "missing")
    with pytest.raises(FileNotFoundError):
        iter_scan(tmp_path / "missing")  # at call time, not at the first next()
    _write(tmp_path / "file.csv")
    with pytest.raises(NotADirectoryError, match="not a folder"):
        scan_folder(tmp_path / "file.csv")
    _deny_scandir_of(monkeypatch, tmp_path)
    with pytest.raises(PermissionError, match="cannot be read"):
        scan_folder(tmp_path)
