"""Layer 1 of the make_figure sandbox: a static (ast) check of model-written code.

The check refuses code before any process starts. It is a *filter*, not the wall:
a determined payload can always reach a dangerous object through some library
attribute chain, so layer 2 (the isolated child process and its audit hook)
enforces the actual effects. What this layer buys is fast, precise feedback for
an honest model ("use pandas.read_csv instead of open()") and a first cut of the
obvious escapes. Every violation is one sentence naming the rule and a fix.
"""

from __future__ import annotations

import ast
import re
import string
from collections.abc import Iterable

# Top-level modules the code may import. Pure computation, plotting and parsing
# helpers only: nothing that starts processes, opens sockets or loads code.
ALLOWED_MODULES: frozenset[str] = frozenset(
    {
        "numpy",
        "pandas",
        "scipy",
        "matplotlib",
        "mpl_toolkits",
        "openpyxl",
        "uncertainties",  # value ± u through formulas (analyze predefines ufloat, umath, unumpy)
        "math",
        "cmath",
        "statistics",
        "random",
        "pathlib",
        "re",
        "json",
        "csv",
        "io",
        "itertools",
        "functools",
        "collections",
        "decimal",
        "fractions",
        "datetime",
        "string",
        "textwrap",
        "typing",
        "dataclasses",
        "warnings",
        "time",
        "copy",
        "enum",
        "numbers",
        "bisect",
        "heapq",
    }
)

# Submodules of allowed packages that execute strings, start programs or poke memory.
FORBIDDEN_SUBMODULES: frozenset[str] = frozenset(
    {
        "numpy.ctypeslib",
        "numpy.f2py",
        "numpy.distutils",
        "numpy.testing",
        "pandas.testing",
        "pandas.io.clipboard",
        "pandas.io.clipboards",
        "matplotlib.testing",
        "matplotlib.animation",
        "matplotlib.texmanager",
        "matplotlib.dviread",
        "scipy.weave",
    }
)

# Modules that get a dedicated explanation when someone tries to import them.
_MODULE_FIXES: dict[str, str] = {
    "os": "use pathlib.Path / DATA_DIR for paths; the figure is saved for you",
    "sys": "there is nothing in sys a figure needs",
    "subprocess": "figures are made with matplotlib only; no programs can be started",
    "socket": "there is no network access; use the files under DATA_DIR",
    "shutil": "the figure is saved for you; no files need copying",
    "pickle": "read data with pandas.read_csv / read_excel or numpy.loadtxt",
    "importlib": "import the allowed modules with a plain import statement",
    "builtins": "use the builtin functions directly",
    "ctypes": "numpy and pandas cover the numerics",
}

_DEFAULT_MODULE_FIX = "allowed modules are: " + ", ".join(sorted(ALLOWED_MODULES))

# Builtin names the code may not use, each with the way to do the honest thing.
FORBIDDEN_NAMES: dict[str, str] = {
    "open": "use pandas.read_csv(DATA_DIR / 'x.csv'), numpy.loadtxt(...) or (DATA_DIR / 'x.txt').read_text()",
    "eval": "write the expression as code",
    "exec": "write the code directly",
    "compile": "write the code directly",
    "__import__": "use a plain import statement of an allowed module",
    "globals": "use ordinary variables",
    "locals": "use ordinary variables",
    "vars": "use ordinary variables or a dict",
    "getattr": "access attributes directly, e.g. obj.name",
    "setattr": "assign attributes directly, e.g. obj.name = value",
    "delattr": "leave objects as they are",
    "breakpoint": "the code runs unattended; print values instead",
    "input": "the code runs unattended; put values in the code",
    "memoryview": "use numpy arrays",
    "help": "the code runs unattended",
    "exit": "let the code end normally; the harness saves the open figure",
    "quit": "let the code end normally; the harness saves the open figure",
    "copyright": "not needed",
    "credits": "not needed",
    "license": "not needed",
}

# Attribute names that are escape primitives whatever object they hang off
# (e.g. `pd.io.common.os.system`); honest plotting code never needs them.
FORBIDDEN_ATTRIBUTES: frozenset[str] = frozenset(
    {
        # process control and environment
        "system",
        "popen",
        "fork",
        "forkpty",
        "kill",
        "killpg",
        "spawnl",
        "spawnv",
        "spawnve",
        "spawnlp",
        "posix_spawn",
        "posix_spawnp",
        "execv",
        "execve",
        "execl",
        "execle",
        "execlp",
        "execvp",
        "execvpe",
        "startfile",
        "environ",
        "environb",
        "getenv",
        "putenv",
        "unsetenv",
        # modules reached through other modules' namespaces
        "os",
        "sys",
        "subprocess",
        "socket",
        "ctypes",
        "pickle",
        "shutil",
        "builtins",
        "importlib",
        "marshal",
        "gc",
        "inspect",
        "operator",
        "posix",
        "nt",
        "modules",
        # code and frame introspection
        "f_globals",
        "f_locals",
        "f_builtins",
        "f_back",
        "f_code",
        "tb_frame",
        "gi_frame",
        "gi_code",
        "cr_frame",
        "cr_code",
        "ag_frame",
        "co_code",
        "cell_contents",
        # pickle-based loaders run arbitrary code from the file they read
        "read_pickle",
        "to_pickle",
        "open_code",
        "FileIO",
        "load_module",
        "exec_module",
        # more modules that other modules carry as attributes (matplotlib.tempfile...)
        "tempfile",
        "multiprocessing",
        "threading",
        "pty",
        "resource",
        "fcntl",
        "mmap",
        "runpy",
        "pkgutil",
        "zipimport",
        "sysconfig",
        "platform",
        "urllib",
        "ftplib",
        "ssl",
        "selectors",
        "asyncio",
        "concurrent",
        "posixpath",
        "ntpath",
        "genericpath",
        "webbrowser",
        "codeop",
        "pdb",
        "faulthandler",
        "atexit",
        "ctypeslib",
        # signals, descriptors and native code without an audit event of their own
        "pidfd_open",
        "pidfd_send_signal",
        "pthread_kill",
        "memfd_create",
        "openpty",
        "setrlimit",
        "prlimit",
        "unshare",
        "setns",
        "dlopen",
        "CDLL",
        "PyDLL",
        "cdll",
        "pydll",
        "pythonapi",
        "LoadLibrary",
        "fwalk",
    }
)

# Library routes to an attribute (or to code) named by a string: each is getattr (or
# eval) under another name, so it is refused like them. Known ways out of Python jails
# that reach attributes without a dot: string.Formatter's field lookup, attrgetter /
# methodcaller, inspect's static lookup, functools.update_wrapper copying attributes by
# name, typing's forward references and pandas' expression strings (both evaluate
# attribute chains), classes built from a dict of (dunder) names.
DYNAMIC_ACCESS_ATTRIBUTES: dict[str, str] = {
    "get_field": "use an f-string, e.g. f'{value:.2f}'",
    "get_value": "use an f-string, e.g. f'{value:.2f}'",
    "vformat": "use an f-string, e.g. f'{value:.2f}'",
    "format_field": "use an f-string, e.g. f'{value:.2f}'",
    "convert_field": "use an f-string, e.g. f'{value:.2f}'",
    "attrgetter": "access attributes directly, e.g. obj.name",
    "methodcaller": "call the method directly, e.g. obj.method()",
    "getattr_static": "access attributes directly, e.g. obj.name",
    "getmembers": "access attributes directly, e.g. obj.name",
    "getmembers_static": "access attributes directly, e.g. obj.name",
    "update_wrapper": "write the function directly, without copying attributes",
    "wraps": "write the function directly, without copying attributes",
    "get_type_hints": "write types as plain annotations; the code needs no type evaluation",
    "ForwardRef": "write types as plain annotations; the code needs no type evaluation",
    "make_dataclass": "use a @dataclass class written out in the code",
    "eval": "compute with ordinary pandas/numpy expressions, e.g. df['a'] + df['b']",
    "query": "write the condition as a string literal, or use boolean indexing df[df['x'] > 3]",
    "mkfifo": "do not create files: the figure is saved for you",
    "mknod": "do not create files: the figure is saved for you",
}

# pandas' expression strings (df.query, df.eval, pd.eval) are evaluated by pandas' own
# interpreter, attribute chains and calls included, with `@name` reaching the caller's
# variables: a literal expression is checked as code, anything else is refused.
_EXPRESSION_METHODS = frozenset({"eval", "query"})
# pandas calls a method named by a string (df.apply("query", ...), s.agg("sum")).
_STRING_DISPATCH_METHODS = frozenset({"apply", "agg", "aggregate", "transform", "map"})
_BACKTICKED = re.compile(r"`[^`]*`")

# string.Formatter is refused by its module's name: matplotlib.ticker.Formatter is a
# plotting class (and the field lookups above are refused on any object).
_MODULE_DYNAMIC_DENY: dict[str, frozenset[str]] = {"string": frozenset({"Formatter"})}
_FORMATTER_FIX = "use an f-string, e.g. f'{value:.2f}'"

# str.format / format_map look up `{0.attr}` and `{0[key]}` fields at run time (and an
# AttributeError from a failed lookup carries the object it reached in `.obj`).
_FORMAT_METHODS = frozenset({"format", "format_map"})
_FORMAT_FIX = "use an f-string, e.g. f'{obj.name:.2f}', or .format() with plain fields '{}'"

# Keyword arguments of the *at() calls: a name relative to a folder descriptor.
FORBIDDEN_KEYWORDS: frozenset[str] = frozenset({"dir_fd", "src_dir_fd", "dst_dir_fd"})

# `io.open` is the builtin open under another name.
_MODULE_ATTRIBUTE_DENY: dict[str, frozenset[str]] = {"io": frozenset({"open"})}

_DUNDER_STRING = re.compile(r"__\w+__")
# Dunder names that are harmless to *read* (`if __name__ == "__main__":` is a common habit).
_ALLOWED_DUNDER_NAMES = frozenset({"__name__"})
# Dunder methods an honest helper class may define; the others (__fspath__,
# __reduce__, __del__, __getattr__...) hook into the runtime and are refused.
_ALLOWED_DUNDER_DEFS = frozenset(
    {"__init__", "__post_init__", "__repr__", "__str__", "__len__", "__iter__", "__getitem__"}
)


def _top(module: str) -> str:
    return module.split(".", 1)[0]


def _module_violation(module: str, line: int) -> str | None:
    """Return the violation for importing `module`, or None when it is allowed."""
    top = _top(module)
    if top not in ALLOWED_MODULES:
        fix = _MODULE_FIXES.get(top, _DEFAULT_MODULE_FIX)
        return f"Line {line}: importing '{module}' is not allowed (rule: import allowlist). Fix: {fix}."
    parts = module.split(".")
    if any(p.startswith("_") for p in parts):
        return (
            f"Line {line}: importing the private module '{module}' is not allowed "
            "(rule: no private modules). Fix: use the package's public API."
        )
    for i in range(2, len(parts) + 1):
        if ".".join(parts[:i]) in FORBIDDEN_SUBMODULES:
            return (
                f"Line {line}: importing '{module}' is not allowed (rule: no code-running, "
                "program-starting or testing submodules). Fix: plot with numpy/pandas/matplotlib."
            )
    return None


class _Checker(ast.NodeVisitor):
    def __init__(self) -> None:
        self.violations: list[str] = []
        # local alias -> module it names, to catch `io.open` under any alias
        self.module_aliases: dict[str, str] = {}
        # .eval/.query attributes whose call passed the expression check
        self._checked_expressions: set[int] = set()

    def _add(self, message: str) -> None:
        if message not in self.violations:
            self.violations.append(message)

    # --- imports -------------------------------------------------------------
    def visit_Import(self, node: ast.Import) -> None:
        for alias in node.names:
            problem = _module_violation(alias.name, node.lineno)
            if problem:
                self._add(problem)
            self.module_aliases[alias.asname or _top(alias.name)] = (
                alias.name if alias.asname else _top(alias.name)
            )
        self.generic_visit(node)

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        if node.level:
            self._add(
                f"Line {node.lineno}: relative imports are not allowed (rule: import allowlist). "
                "Fix: import numpy, pandas, scipy or matplotlib by name."
            )
        elif node.module is not None:
            problem = _module_violation(node.module, node.lineno)
            if problem:
                self._add(problem)
            for alias in node.names:
                if alias.name == "*":
                    self._add(
                        f"Line {node.lineno}: 'from {node.module} import *' is not allowed "
                        "(rule: explicit imports). Fix: import the names you use."
                    )
                    continue
                full = f"{node.module}.{alias.name}"
                sub = _module_violation(full, node.lineno) if alias.name[:1] == "_" else None
                if sub is None and full in FORBIDDEN_SUBMODULES:
                    sub = _module_violation(full, node.lineno)
                denied = _MODULE_ATTRIBUTE_DENY.get(node.module, frozenset())
                if (
                    alias.name in DYNAMIC_ACCESS_ATTRIBUTES
                    or alias.name in _MODULE_DYNAMIC_DENY.get(node.module, frozenset())
                ):
                    sub = _dynamic_access(alias.name, node.lineno, f"importing '{full}'")
                elif alias.name in denied or alias.name in FORBIDDEN_ATTRIBUTES:
                    sub = (
                        f"Line {node.lineno}: importing '{full}' is not allowed (rule: no file, "
                        "process or interpreter access). Fix: read data with pandas or numpy "
                        "from DATA_DIR."
                    )
                if sub:
                    self._add(sub)
        self.generic_visit(node)

    # --- names and attributes ---------------------------------------------------
    def visit_Name(self, node: ast.Name) -> None:
        name = node.id
        if name in FORBIDDEN_NAMES:
            self._add(
                f"Line {node.lineno}: '{name}' is not allowed (rule: no dynamic code, "
                f"introspection or direct file access). Fix: {FORBIDDEN_NAMES[name]}."
            )
        elif (
            name.startswith("__")
            and name.endswith("__")
            and (name not in _ALLOWED_DUNDER_NAMES or not isinstance(node.ctx, ast.Load))
        ):
            self._add(
                f"Line {node.lineno}: the name '{name}' is not allowed (rule: no dunder "
                "names). Fix: use DATA_DIR for the data folder and plain variables otherwise."
            )
        self.generic_visit(node)

    def visit_Attribute(self, node: ast.Attribute) -> None:
        self._check_attribute_name(node.attr, node.lineno, id(node))
        if node.attr in _FORMAT_METHODS:
            self._check_format_call(node)
        elif isinstance(node.value, ast.Name):
            module = self.module_aliases.get(node.value.id)
            if module and node.attr in _MODULE_DYNAMIC_DENY.get(module, frozenset()):
                self._add(_dynamic_access(node.attr, node.lineno, f"'{module}.{node.attr}'"))
            elif module and node.attr in _MODULE_ATTRIBUTE_DENY.get(module, frozenset()):
                self._add(
                    f"Line {node.lineno}: '{module}.{node.attr}' is not allowed (rule: no direct "
                    "file access). Fix: use pandas.read_csv(DATA_DIR / 'x.csv') or "
                    "(DATA_DIR / 'x.txt').read_text()."
                )
        self.generic_visit(node)

    def visit_MatchClass(self, node: ast.MatchClass) -> None:
        # `case object(name=x)` reads obj.name: each keyword is an attribute access.
        for attr in node.kwd_attrs:
            self._check_attribute_name(attr, node.lineno)
        self.generic_visit(node)

    def _check_format_call(self, node: ast.Attribute) -> None:
        """`.format`/`.format_map` only on a string written in the code, with plain fields."""
        receiver = node.value
        if not (isinstance(receiver, ast.Constant) and isinstance(receiver.value, str)):
            self._add(
                f"Line {node.lineno}: '.{node.attr}' on anything but a string literal is not "
                "allowed (rule: no attribute access by name; a format string built at run time "
                f"can name any attribute). Fix: {_FORMAT_FIX}."
            )
            return
        problem = _format_field_problem(receiver.value)
        if problem:
            self._add(
                f"Line {node.lineno}: {problem} (rule: no attribute access by name). "
                f"Fix: {_FORMAT_FIX}."
            )

    def _check_attribute_name(self, attr: str, line: int, checked: int = 0) -> None:
        if attr.startswith("__"):
            self._add(
                f"Line {line}: the attribute '.{attr}' is not allowed (rule: no dunder "
                "attributes). Fix: use the object's public methods."
            )
        elif attr.startswith("_"):
            # random._os, matplotlib.tempfile._os...: private names lead to modules
            # (and state) the allowlist never meant to hand out.
            self._add(
                f"Line {line}: the private attribute '.{attr}' is not allowed (rule: no "
                "private attributes). Fix: use the object's public methods."
            )
        elif attr in DYNAMIC_ACCESS_ATTRIBUTES and checked not in self._checked_expressions:
            self._add(_dynamic_access(attr, line, f"the attribute '.{attr}'"))
        elif attr in FORBIDDEN_ATTRIBUTES:
            self._add(
                f"Line {line}: the attribute '.{attr}' is not allowed (rule: no process, "
                "environment, module or frame access). Fix: plot the data with "
                "numpy/pandas/matplotlib only."
            )

    # --- definitions and literals --------------------------------------------
    def _check_def(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        name = node.name
        if name.startswith("__") and name.endswith("__") and name not in _ALLOWED_DUNDER_DEFS:
            self._add(
                f"Line {node.lineno}: defining '{name}' is not allowed (rule: no runtime hooks). "
                "Fix: use a plain function or a dataclass."
            )
        self.generic_visit(node)

    visit_FunctionDef = _check_def
    visit_AsyncFunctionDef = _check_def

    def visit_ClassDef(self, node: ast.ClassDef) -> None:
        if node.keywords:
            self._add(
                f"Line {node.lineno}: class keywords such as metaclass= are not allowed "
                "(rule: no metaclass tricks). Fix: use a plain class or a dataclass."
            )
        self.generic_visit(node)

    def visit_Constant(self, node: ast.Constant) -> None:
        value = node.value
        if isinstance(value, str) and _DUNDER_STRING.search(value):
            self._add(
                f"Line {node.lineno}: strings naming dunder attributes are not allowed (rule: no "
                "dunder attributes, not even by name). Fix: use the object's public methods."
            )
        self.generic_visit(node)

    def visit_Call(self, node: ast.Call) -> None:
        for keyword in node.keywords:
            if keyword.arg in FORBIDDEN_KEYWORDS:
                self._add(
                    f"Line {node.lineno}: the argument '{keyword.arg}=' is not allowed (rule: no "
                    "file access relative to a folder descriptor). Fix: read files by their "
                    "path under DATA_DIR."
                )
        func = node.func
        if isinstance(func, ast.Attribute) and func.attr in _EXPRESSION_METHODS:
            self._check_expression_call(node, func)
        elif isinstance(func, ast.Attribute) and func.attr in _STRING_DISPATCH_METHODS:
            self._check_string_dispatch(node)
        # type(name, bases, dict) builds classes (and dunder methods) from strings.
        if isinstance(node.func, ast.Name) and node.func.id == "type" and len(node.args) != 1:
            self._add(
                f"Line {node.lineno}: type() with more than one argument is not allowed (rule: "
                "no metaclass tricks). Fix: use type(x) only to inspect a value."
            )
        self.generic_visit(node)

    def _check_expression_call(self, node: ast.Call, func: ast.Attribute) -> None:
        """df.query / df.eval / pd.eval: the expression must be a literal that passes as code."""
        expr = node.args[0] if node.args else None
        for keyword in node.keywords:
            if keyword.arg == "expr":
                expr = keyword.value
        if not (isinstance(expr, ast.Constant) and isinstance(expr.value, str)):
            return  # visit_Attribute refuses the method, as for any other use of it
        problems = _expression_problems(expr.value)
        if problems:
            shown = "; ".join(problems[:3])
            self._add(
                f"Line {node.lineno}: the expression string of '.{func.attr}()' breaks a rule "
                f"(pandas evaluates it as code): {shown}"
            )
        self._checked_expressions.add(id(func))

    def _check_string_dispatch(self, node: ast.Call) -> None:
        """df.apply("name") calls the method of that name: no private or code-running ones."""
        named = [node.args[0]] if node.args else []
        named += [k.value for k in node.keywords if k.arg in ("func", "arg")]
        for value in named:
            if not (isinstance(value, ast.Constant) and isinstance(value.value, str)):
                continue
            name = value.value
            if name.startswith("_") or name in DYNAMIC_ACCESS_ATTRIBUTES:
                self._add(
                    f"Line {node.lineno}: calling the method '{name}' by its name is not "
                    "allowed (rule: no attribute access or code by name, like getattr/eval). "
                    "Fix: call pandas' public methods directly, e.g. df.mean()."
                )

    def visit_Global(self, node: ast.Global) -> None:
        if "DATA_DIR" in node.names:
            self._add(f"Line {node.lineno}: DATA_DIR is read-only (rule: fixed data folder).")
        self.generic_visit(node)


def _dynamic_access(name: str, line: int, what: str) -> str:
    return (
        f"Line {line}: {what} is not allowed (rule: no attribute access or code by name, "
        f"like getattr/eval). Fix: {DYNAMIC_ACCESS_ATTRIBUTES.get(name, _FORMATTER_FIX)}."
    )


def _expression_problems(expression: str) -> list[str]:
    """The rule violations of a pandas expression string, read as Python code.

    `` `a column` `` names a column and `@name` a variable: each becomes a plain name
    before the check, which then holds the expression to the rules of the code itself.
    """
    text = _BACKTICKED.sub("column", expression).replace("@", "")
    try:
        tree = ast.parse(text.strip(), mode="exec")
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return ["it does not parse as an expression"]
    checker = _Checker()
    checker.visit(tree)
    return [re.sub(r"^Line \d+: ", "", v) for v in checker.violations]


def _format_field_problem(template: str) -> str | None:
    """Why a literal format string may not be used, or None: its fields (and the fields
    nested in their format specs) must name an argument only, no `.attr` or `[key]`."""
    pending = [template]
    while pending:
        try:
            parsed = list(_FORMATTER.parse(pending.pop()))
        except ValueError:
            return "this format string does not parse"
        for _literal, field, spec, _conversion in parsed:
            if field is None:
                continue
            if "." in field or "[" in field:
                return f"the format field '{{{field}}}' looks up an attribute or an item"
            if spec and "{" in spec:
                pending.append(spec)
    return None


_FORMATTER = string.Formatter()


def parse(code: str) -> tuple[ast.Module | None, str | None]:
    """Parse `code`; return (tree, None) or (None, a one-line syntax error for the model)."""
    try:
        return ast.parse(code, filename="<figure>", mode="exec"), None
    except SyntaxError as exc:
        where = f"line {exc.lineno}" if exc.lineno else "somewhere"
        return None, f"SyntaxError at {where}: {exc.msg}."
    except (ValueError, RecursionError, MemoryError) as exc:  # NUL bytes, absurd nesting
        return None, f"The code could not be parsed: {exc.__class__.__name__}."


def violations_of(tree: ast.Module) -> list[str]:
    """The layer-1 violations of a parsed module (empty = allowed)."""
    checker = _Checker()
    checker.visit(tree)
    return checker.violations


def check_code(code: str) -> list[str]:
    """Static layer: the list of rule violations, each a sentence naming the rule; empty = OK.

    Unparseable code yields one entry describing the syntax error, so an empty list
    always means "this code may run".
    """
    tree, error = parse(code)
    if tree is None:
        return [error or "The code could not be parsed."]
    return violations_of(tree)


def imported_modules(tree: ast.Module) -> list[str]:
    """Allowed modules the code imports (dotted, plus `from X import sub` candidates).

    The child pre-imports these before its audit hook goes up, so their import-time
    work (file probes, extension loading) happens while the process is still trusted
    and only what the code really uses is paid for.
    """
    found: list[str] = []

    def add(names: Iterable[str]) -> None:
        for name in names:
            if _module_violation(name, 0) is None and name not in found:
                found.append(name)

    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            add(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            add([node.module])
            add(f"{node.module}.{alias.name}" for alias in node.names if alias.name != "*")
    return found


def load_paths(tree: ast.Module) -> list[str]:
    """The files the code hands `load` as plain text: load("a.csv"), load(DATA_DIR / "d" / "a.csv").

    The parent prepares their tables before the child starts (the table detector never
    runs in the child); a path built at run time must be named in `inputs`."""
    found: list[str] = []
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id == "load"
            and node.args
        ):
            path = _literal_path(node.args[0])
            if path and path not in found:
                found.append(path)
    return found


def _literal_path(node: ast.expr) -> str | None:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Div):
        right = _literal_path(node.right)
        if right is None:
            return None
        if isinstance(node.left, ast.Name) and node.left.id == "DATA_DIR":
            return right
        left = _literal_path(node.left)
        return f"{left}/{right}" if left is not None else None
    return None
