"""The import-linter contracts in pyproject.toml, enforced here: the core never imports Qt,
and its packages import only downwards (ARCHITECTURE.md)."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def lint_imports(project: Path) -> subprocess.CompletedProcess[str]:
    exe = shutil.which("lint-imports", path=str(Path(sys.executable).parent))
    assert exe, "import-linter is not installed (pip install -e '.[test]')"
    env = {"PYTHONPATH": str(project / "desktop"), "PATH": str(Path(sys.executable).parent)}
    return subprocess.run(
        [exe, "--no-cache"], cwd=project, capture_output=True, text=True, env=env, timeout=120
    )


def test_core_never_imports_qt_or_the_gui():
    proc = lint_imports(ROOT)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "3 kept, 0 broken" in proc.stdout


def test_the_contract_catches_a_core_module_that_imports_qt(tmp_path):
    shutil.copy(ROOT / "pyproject.toml", tmp_path)
    shutil.copytree(
        ROOT / "desktop", tmp_path / "desktop", ignore=shutil.ignore_patterns("__pycache__")
    )
    bad = tmp_path / "desktop" / "labwright" / "core" / "sneaky.py"
    bad.write_text("from PySide6 import QtCore  # noqa\n", encoding="utf-8")
    proc = lint_imports(tmp_path)
    assert proc.returncode != 0
    assert "labwright.core.sneaky -> PySide6" in proc.stdout


def test_the_layers_catch_an_import_upwards(tmp_path):
    # material/ sits below report/: reading a file must not depend on how a report is written
    shutil.copy(ROOT / "pyproject.toml", tmp_path)
    shutil.copytree(
        ROOT / "desktop", tmp_path / "desktop", ignore=shutil.ignore_patterns("__pycache__")
    )
    bad = tmp_path / "desktop" / "labwright" / "core" / "material" / "upwards.py"
    bad.write_text("from labwright.core.report import templates  # noqa\n", encoding="utf-8")
    proc = lint_imports(tmp_path)
    assert proc.returncode != 0
    assert "labwright.core.material.upwards -> labwright.core.report.templates" in proc.stdout


def test_sibling_layers_stay_apart(tmp_path):
    # material/ and llm/ are siblings: the model client never reads the folder itself
    shutil.copy(ROOT / "pyproject.toml", tmp_path)
    shutil.copytree(
        ROOT / "desktop", tmp_path / "desktop", ignore=shutil.ignore_patterns("__pycache__")
    )
    bad = tmp_path / "desktop" / "labwright" / "core" / "llm" / "peek.py"
    bad.write_text("from labwright.core.material import workspace  # noqa\n", encoding="utf-8")
    proc = lint_imports(tmp_path)
    assert proc.returncode != 0
    assert "labwright.core.llm.peek -> labwright.core.material.workspace" in proc.stdout


def test_the_analysis_library_never_reaches_the_run_folder(tmp_path):
    # core/analysis serves the offline report and the sandboxed child: tables, never runs
    shutil.copy(ROOT / "pyproject.toml", tmp_path)
    shutil.copytree(
        ROOT / "desktop", tmp_path / "desktop", ignore=shutil.ignore_patterns("__pycache__")
    )
    bad = tmp_path / "desktop" / "labwright" / "core" / "analysis" / "peek.py"
    bad.write_text("from labwright.core.rundir import files  # noqa\n", encoding="utf-8")
    proc = lint_imports(tmp_path)
    assert proc.returncode != 0
    assert "labwright.core.analysis.peek -> labwright.core.rundir.files" in proc.stdout


def test_the_sandboxed_part_of_the_analysis_library_imports_nothing_of_labwright():
    """The figure child loads core/analysis from its folder under another name (harness.py):
    an absolute labwright import there would fail in the child (or pull the app in).
    Only tables.py, which the parent alone runs, reads through core/material."""
    import ast

    package = ROOT / "desktop" / "labwright" / "core" / "analysis"
    offenders = []
    for path in sorted(package.glob("*.py")):
        if path.name == "tables.py":
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = [node.module]
            elif isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            else:
                continue
            offenders += [f"{path.name}: {n}" for n in names if n.split(".")[0] == "labwright"]
            if isinstance(node, ast.ImportFrom) and node.level and node.module == "tables":
                offenders.append(f"{path.name}: .tables")
    assert offenders == []


def _public_classes() -> dict[str, list[str]]:
    import ast

    package = Path(__file__).resolve().parents[1] / "desktop" / "labwright"
    found: dict[str, list[str]] = {}
    for path in sorted(package.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ClassDef) and not node.name.startswith("_"):
                found.setdefault(node.name, []).append(str(path.relative_to(package)))
    return found


# Names still shared by two classes, in parts other work of issue 22 rewrites (the GUI
# split, the tables); each is to get a name of its own there. Nothing may join them.
_STILL_SHARED = {"Node", "Policy", "Budget", "Source"}


def test_no_two_classes_share_a_name():
    """A name means one thing: a reader who meets `Draft` knows whether it is the event
    or the stage (they were both, as were two RoleUsage, two Record, three Check)."""
    shared = {n: where for n, where in _public_classes().items() if len(where) > 1}
    assert set(shared) <= _STILL_SHARED, {n: shared[n] for n in set(shared) - _STILL_SHARED}
    for name in ("Draft", "Record", "Check", "RoleUsage"):
        assert len(_public_classes().get(name, [])) <= 1, name


def _dispatch_on_strings(path: Path) -> list[str]:
    """Where `path` tells events apart by their JSON form: `ev.type == "…"`, a handler
    named after `ev.type`, or a milestone's detail read by key."""
    import ast

    tree = ast.parse(path.read_text(encoding="utf-8"))
    found = []
    for node in ast.walk(tree):
        hit = False
        if isinstance(node, ast.Compare) and isinstance(node.left, ast.Attribute):
            strings = [c for c in node.comparators if isinstance(c, (ast.Constant, ast.Tuple))]
            hit = node.left.attr == "type" and bool(strings)
        elif isinstance(node, ast.FormattedValue) and isinstance(node.value, ast.Attribute):
            hit = node.value.attr == "type"  # getattr(self, f"_on_{event.type}")
        elif isinstance(node, ast.Assign) and isinstance(node.value, ast.Attribute):
            hit = node.value.attr == "type"  # t = ev.type, compared further down
        elif isinstance(node, ast.Call) and ast.unparse(node.func) == "isinstance":
            first, kind = (node.args + [None, None])[:2]
            as_dict = kind is not None and ast.unparse(kind) in ("dict", "Mapping")
            hit = isinstance(first, ast.Attribute) and first.attr == "detail" and as_dict
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            owner = node.func.value
            hit = (
                node.func.attr == "get"
                and isinstance(owner, ast.Attribute)
                and owner.attr == "detail"
            )
        elif isinstance(node, ast.Subscript) and isinstance(node.value, ast.Attribute):
            hit = node.value.attr == "detail"
        if hit:
            found.append(f"{path.name}:{node.lineno}: {ast.unparse(node)[:70]}")
    return found


def test_the_app_and_the_cli_dispatch_on_event_types_not_strings():
    """Events come typed (core/events.py: one detail dataclass per stage, read_journal
    typed): who shows them matches on the classes, never on `type` strings or keys."""
    package = Path(__file__).resolve().parents[1] / "desktop" / "labwright"
    places = [*sorted((package / "gui").glob("*.py")), package / "cli.py", package / "smoke.py"]
    places += sorted((package / "core" / "run").glob("*.py"))
    places += sorted((package / "core" / "report" / "review").glob("*.py"))
    assert [hit for path in places for hit in _dispatch_on_strings(path)] == []


def test_the_dispatch_scan_would_see_a_string_dispatch(tmp_path):
    bad = tmp_path / "bad.py"
    bad.write_text(
        "def f(self, ev):\n"
        "    if ev.type == 'llm':\n"
        "        return ev.detail.get('plan'), ev.detail['files']\n"
        "    getattr(self, f'_on_{ev.type}')(ev)\n"
        "    t = ev.type\n"
        "    d = ev.detail if isinstance(ev.detail, dict) else {}\n"
    )
    assert len(_dispatch_on_strings(bad)) == 6


def _imports_outside_type_checking(tree):
    import ast

    todo = [tree]
    while todo:
        node = todo.pop()
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            todo.extend(node.orelse)  # what only the type checker reads is no import
            continue
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            yield node
        todo.extend(ast.iter_child_nodes(node))


def _import_cycles(package: Path, prefix: str) -> list[list[str]]:
    """Groups of modules under `prefix` that import each other, counting the imports made
    inside functions too (they hide a cycle from the linter, not from the reader);
    a package's own submodules and TYPE_CHECKING imports left aside."""
    import ast

    base = package.parent
    mods = {}
    for p in package.rglob("*.py"):
        parts = list(p.relative_to(base).with_suffix("").parts)
        mods[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = p

    def known(name: str) -> str | None:
        while name and name not in mods:
            name = name.rpartition(".")[0]
        return name or None

    edges: dict[str, set[str]] = {}
    for m, p in mods.items():
        if not m.startswith(prefix):
            continue
        here = m.split(".") if p.name == "__init__.py" else m.split(".")[:-1]
        out: set[str] = set()
        for node in _imports_outside_type_checking(ast.parse(p.read_text(encoding="utf-8"))):
            targets: list[str] = []
            if isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                root = ".".join(here[: len(here) - node.level + 1]) if node.level else ""
                mod = ".".join(x for x in (root, node.module or "") if x)
                targets = [f"{mod}.{a.name}" for a in node.names]
            for t in targets:
                k = known(t)
                inside = k is not None and (k.startswith(m + ".") or m.startswith(k + "."))
                if k and k != m and k.startswith(prefix) and not inside:
                    out.add(k)
        edges[m] = out
    cycles, index, low, stack, on, counter = [], {}, {}, [], set(), [0]

    def strong(v: str) -> None:  # Tarjan's strongly connected components
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in edges.get(v, ()):
            if w not in index:
                strong(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = []
            while True:
                w = stack.pop()
                on.discard(w)
                group.append(w)
                if w == v:
                    break
            if len(group) > 1:
                cycles.append(sorted(group))

    for v in list(edges):
        if v not in index:
            strong(v)
    return cycles


def test_no_hidden_import_cycles_in_core():
    """An import inside a function is for start-up time, never to hide a cycle (issue 22:
    evidence <-> tables.roles, offline.skeleton <-> offline.series, settings.saved <->
    settings.resolve were three)."""
    package = ROOT / "desktop" / "labwright"
    assert _import_cycles(package, "labwright.core") == []


def test_the_cycle_check_sees_a_cycle_made_inside_a_function(tmp_path):
    pkg = tmp_path / "labwright" / "core"
    pkg.mkdir(parents=True)
    (tmp_path / "labwright" / "__init__.py").write_text("")
    (pkg / "__init__.py").write_text("")
    (pkg / "a.py").write_text("from labwright.core.b import x\n")
    (pkg / "b.py").write_text("def x():\n    from labwright.core import a\n")
    (pkg / "c.py").write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from . import a\n"
    )
    assert _import_cycles(tmp_path / "labwright", "labwright.core") == [
        ["labwright.core.a", "labwright.core.b"]
    ]


def _imports_inside_functions(package: Path) -> list[str]:
    """`file:line` of each import of a labwright module (or a relative one) made inside a
    function, each statement once (a nested function's are not counted twice)."""
    import ast

    found: set[tuple[str, int]] = set()
    for p in sorted(package.rglob("*.py")):
        tree = ast.parse(p.read_text(encoding="utf-8"))
        for fn in ast.walk(tree):
            if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            for node in ast.walk(fn):
                ours = (
                    isinstance(node, ast.ImportFrom)
                    and (node.level > 0 or (node.module or "").startswith("labwright"))
                ) or (
                    isinstance(node, ast.Import)
                    and any(a.name.startswith("labwright") for a in node.names)
                )
                if ours:
                    found.add((p.relative_to(package).as_posix(), node.lineno))
    return [f"{name}:{line}" for name, line in sorted(found)]


# Each kept import says why beside it: DESIGN.md's lazy entry points (core/__init__.py),
# and what a smaller start is worth (the analysis library, report.offline).
MAX_IMPORTS_INSIDE_FUNCTIONS = 10


def test_core_imports_its_own_modules_at_the_top():
    """Issue 22: 53 labwright imports were made inside functions in core (4 now); an
    import at the top shows what a module needs, and the cycle check above keeps them
    possible."""
    inside = _imports_inside_functions(ROOT / "desktop" / "labwright" / "core")
    assert len(inside) <= MAX_IMPORTS_INSIDE_FUNCTIONS, inside


def test_the_count_sees_imports_made_inside_functions(tmp_path):
    """Positive control: absolute, relative and nested imports are counted, once each;
    a top-level import, a third-party one and a local name are not."""
    (tmp_path / "a.py").write_text(
        "import json\nfrom labwright.core import atomic\n"
        "def f():\n"
        "    import numpy\n"
        "    from labwright.core.events import Event\n"
        "    def g():\n"
        "        from . import b\n"
        "        import labwright.core.reasons\n"
        "class C:\n"
        "    def m(self):\n"
        "        if True:\n"
        "            from .b import x\n"
    )
    assert _imports_inside_functions(tmp_path) == ["a.py:5", "a.py:7", "a.py:8", "a.py:12"]
