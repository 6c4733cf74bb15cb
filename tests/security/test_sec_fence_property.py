"""Property-based tests of the path fence (workspace.resolve_in_folder and the tools on it).

For any path string a model could write — "..", absolute and drive paths,
UNC, NUL, odd unicode, stray surrogates, escaped names, and the names of
links planted in the folder that point outside, up, to "/" or in a loop —
the fence either refuses with PathDenied or returns a path whose realpath
lies inside the folder. Nothing else may come out of it.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from canary import CANARY
from labwright.core.agent.tools import ToolContext
from labwright.core.agent.tools.base import Refused
from labwright.core.agent.tools.list_dir import ListDir
from labwright.core.agent.tools.read_file import ReadFile
from labwright.core.material.workspace import PathDenied, resolve_in_folder

pytestmark = pytest.mark.skipif(os.name == "nt", reason="symlinks need privileges on Windows")

REASONS = {"absolute", "escape", "symlink", "home", "nul", "invalid", "device"}
SETTINGS = settings(
    max_examples=250,
    deadline=None,
    database=None,  # nothing written next to the tests
    suppress_health_check=[HealthCheck.too_slow],
)
TOOL_SETTINGS = settings(SETTINGS, max_examples=120)  # two tools per example


@pytest.fixture(scope="module")
def fenced(tmp_path_factory) -> tuple[Path, Path]:
    """A folder with links out of it, and a canary outside; (root, outside)."""
    base = tmp_path_factory.mktemp("fence")
    outside = base / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_text(f"{CANARY}\n", encoding="utf-8")
    root = base / "root"
    (root / "data" / "sub").mkdir(parents=True)
    (root / "data" / "x.csv").write_text("a,b\n1,2\n", encoding="utf-8")
    (root / "~home").mkdir()
    os.symlink("data", root / "in-link")
    os.symlink(outside, root / "out-link")
    os.symlink(outside / "secret.txt", root / "out-file")
    os.symlink("..", root / "up-link")
    os.symlink("/", root / "abs-root")
    os.symlink("../../../outside/secret.txt", root / "data" / "sub" / "rel-out")
    os.symlink("loop-b", root / "loop-a")
    os.symlink("loop-a", root / "loop-b")
    odd = os.path.join(os.fsencode(root), b"odd\xff\x1b")
    os.mkdir(odd)
    os.symlink(os.fsencode(outside), os.path.join(odd, b"out\xfe"))
    return root, outside


COMPONENTS = st.sampled_from(
    [
        *("..", ".", "", "...", "data", "sub", "x.csv", "in-link", "out-link", "out-file"),
        *("up-link", "abs-root", "rel-out", "loop-a", "loop-b", "~", "~home", "~root"),
        *("C:", "c:..", "\\\\srv", "NUL", "con.txt", "COM1", "etc", "passwd", "outside"),
        *("secret.txt", "odd\\xff\\x1b", os.fsdecode(b"odd\xff\x1b"), "out\\xfe"),
        *(os.fsdecode(b"out\xfe"), "\x00", "é", "\u202e", "\ud800", "\udcff", " ", "x" * 300),
    ]
)
SEPARATORS = st.sampled_from(["/", "\\", "//", "/./", "\\\\"])
PREFIXES = st.sampled_from(
    ["", "", "", "/", "\\", "C:\\", "C:", "c:/", "//server/share/", "\\\\?\\C:\\", "~/", "./"]
)
ANY_CHARS = st.characters(min_codepoint=0, max_codepoint=0x10FFFF)  # surrogates included


@st.composite
def tool_paths(draw) -> str:
    parts = draw(st.lists(COMPONENTS | st.text(ANY_CHARS, max_size=6), max_size=7))
    seps = [draw(SEPARATORS) for _ in parts]
    path = "".join(p + s for p, s in zip(parts, seps, strict=True))
    if draw(st.booleans()):
        path = path.rstrip("/\\")
    return draw(PREFIXES) + path


PATHS = tool_paths() | st.text(ANY_CHARS, max_size=40)


def _inside(root: Path, path: Path) -> bool:
    root_real = os.path.realpath(root)
    real = os.path.realpath(path)
    return os.path.commonpath([root_real, real]) == root_real


@SETTINGS
@given(rel=PATHS)
def test_resolved_paths_are_refused_or_inside(fenced, rel):
    root, outside = fenced
    try:
        resolved = resolve_in_folder(root, rel)
    except PathDenied as e:
        assert e.reason in REASONS
        assert str(e)  # a sentence for the model
        return
    assert resolved.is_absolute()
    assert _inside(root, resolved), f"{rel!r} -> {resolved}"
    assert os.path.realpath(resolved) == str(resolved)  # every link already resolved
    assert not str(resolved).startswith(str(outside))


@TOOL_SETTINGS
@given(rel=PATHS)
def test_tools_on_any_path_refuse_or_stay_inside(fenced, rel):
    root, _ = fenced
    ctx = ToolContext(root, root.parent / "run")
    for tool in (ReadFile(), ListDir()):
        try:
            out = tool.run({"path": rel}, ctx)
        except Refused as e:
            out = e.outcome
            assert out.denied == "path_denied"
        assert CANARY not in out.content
        assert CANARY not in out.summary
        out.content.encode("utf-8")  # what goes back to the model must encode
        out.summary.encode("utf-8")


@pytest.mark.parametrize(
    "rel",
    [
        "out-link/secret.txt",
        "out-file",
        "up-link/outside/secret.txt",
        "abs-root/etc/passwd",
        "data/sub/rel-out",
        "in-link/../out-link",
        "odd\\xff\\x1b/out\\xfe/secret.txt",
        "/etc/passwd",
        "C:\\Windows",
        "\\\\srv\\share",
        "..\\outside\\secret.txt",
        "data/\x00",
        "\ud800",
        "data/" + "x" * 256,  # no file system takes such a name: refused, not an OSError
    ],
)
def test_known_escapes_and_impossible_names_are_refused(fenced, rel):
    root, _ = fenced
    with pytest.raises(PathDenied):
        resolve_in_folder(root, rel)


def test_a_shown_name_and_links_inside_still_resolve(fenced):
    root, _ = fenced
    assert resolve_in_folder(root, "in-link/x.csv") == Path(root / "data" / "x.csv").resolve()
    odd = resolve_in_folder(root, "odd\\xff\\x1b")
    assert odd == Path(os.path.realpath(os.path.join(root, os.fsdecode(b"odd\xff\x1b"))))
    assert resolve_in_folder(root, "~home") == (root / "~home").resolve()
