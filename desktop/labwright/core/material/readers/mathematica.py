"""Mathematica notebooks (.nb) as readable lines, not box markup.

A notebook is one Wolfram Language expression: Notebook[{Cell[...], ...}].
Cell contents are "boxes" (RowBox[{"x", "=", "1"}]) whose strings, joined,
are what the user typed and saw. A tolerant tokenizer and an iterative
parser (deep RowBox nesting must not hit Python's recursion limit) turn the
file into a tree; cells are rendered as text with their style as a header.
Graphics become "[graphics]": their coordinates and compressed data are noise.
The cache sections at the end of the file are comments and vanish for free.
"""

from __future__ import annotations

import re

from labwright.core.material.readers.cache import Converted
from labwright.core.material.readers.encoding import detect_file_encoding
from labwright.core.material.readers.page import Budget, LineMap, check_whole_file_size
from labwright.core.material.readers.source import Opened

# ---------------------------------------------------------------- named characters

NAMED_CHARS: dict[str, str] = {
    "Alpha": "α", "Beta": "β", "Gamma": "γ", "Delta": "δ", "Epsilon": "ε",
    "CurlyEpsilon": "ε", "Zeta": "ζ", "Eta": "η", "Theta": "θ", "CurlyTheta": "ϑ",
    "Iota": "ι", "Kappa": "κ", "Lambda": "λ", "Mu": "μ", "Nu": "ν", "Xi": "ξ",
    "Omicron": "ο", "Pi": "π", "Rho": "ρ", "Sigma": "σ", "FinalSigma": "ς",
    "Tau": "τ", "Upsilon": "υ", "Phi": "φ", "CurlyPhi": "φ", "Chi": "χ", "Psi": "ψ",
    "Omega": "ω", "CapitalAlpha": "Α", "CapitalBeta": "Β", "CapitalGamma": "Γ",
    "CapitalDelta": "Δ", "CapitalTheta": "Θ", "CapitalLambda": "Λ", "CapitalPi": "Π",
    "CapitalSigma": "Σ", "CapitalPhi": "Φ", "CapitalPsi": "Ψ", "CapitalOmega": "Ω",
    "Degree": "°", "PlusMinus": "±", "MinusPlus": "∓", "Times": "×", "Divide": "÷",
    "Cross": "×", "CenterDot": "·", "Infinity": "∞", "Micro": "µ", "Angstrom": "Å",
    "LessEqual": "≤", "GreaterEqual": "≥", "NotEqual": "≠", "Equal": "==",
    "LongEqual": "=", "TildeTilde": "≈", "Proportional": "∝", "Element": "∈",
    "Rule": "->", "RuleDelayed": ":>", "RightArrow": "→", "LeftArrow": "←",
    "DoubleRightArrow": "⇒", "Implies": "⇒", "And": "&&", "Or": "||", "Not": "!",
    "Sum": "∑", "Product": "∏", "Integral": "∫", "PartialD": "∂", "DifferentialD": "d",
    "Del": "∇", "Sqrt": "√", "ExponentialE": "e", "ImaginaryI": "i", "ImaginaryJ": "j",
    "Transpose": "ᵀ", "Minus": "-", "Dash": "–", "LongDash": "—", "Bullet": "•",
    "Ellipsis": "…", "Prime": "′", "DoublePrime": "″", "Hbar": "ħ", "Ohm": "Ω",
    "Mho": "℧", "Placeholder": "□", "SelectionPlaceholder": "□", "Function": "↦",
    "Null": "", "InvisibleSpace": "", "InvisibleTimes": "", "InvisibleComma": "",
    "InvisibleApplication": "", "ImplicitPlus": "", "NoBreak": "", "AlignmentMarker": "",
    "IndentingNewLine": "\n", "NewLine": "\n", "LineSeparator": "\n",
    "VeryThinSpace": " ", "ThinSpace": " ", "MediumSpace": " ", "ThickSpace": " ",
    "NonBreakingSpace": " ", "SpaceIndicator": " ", "LeftDoubleBracket": "[[",
    "RightDoubleBracket": "]]", "LeftAngleBracket": "⟨", "RightAngleBracket": "⟩",
    "Star": "*", "Congruent": "≡", "Tilde": "~", "Square": "□", "EmptySet": "∅",
}  # fmt: skip

_ESCAPE = re.compile(
    r"\\(\[[A-Za-z0-9]+\]|:[0-9a-fA-F]{4}|\.[0-9a-fA-F]{2}|\|[0-9a-fA-F]{6}|.)", re.S
)


def _unescape(raw: str) -> str:
    """File-level string escapes; linear-syntax markers (\\! \\( \\) \\*) are kept."""

    def sub(m: re.Match[str]) -> str:
        e = m.group(1)
        c = e[0]
        if c == "[":
            name = e[1:-1]
            return NAMED_CHARS.get(name, f"\\[{name}]")
        if c in ":.|":
            return chr(int(e[1:], 16))
        if c == "n":
            return "\n"
        if c == "t":
            return "\t"
        if c == "r":
            return ""
        if c in "<>\n":
            return ""  # string-layout delimiters and line continuations
        if c in '"\\':
            return c
        return "\\" + c

    return _ESCAPE.sub(sub, raw) if "\\" in raw else raw


# ---------------------------------------------------------------- tree


class Node:
    __slots__ = ()


class Str(Node):
    __slots__ = ("raw",)

    def __init__(self, raw: str) -> None:
        self.raw = raw


class Atom(Node):  # symbols, numbers, stray operators
    __slots__ = ("text",)

    def __init__(self, text: str) -> None:
        self.text = text


class Call(Node):
    __slots__ = ("head", "args")

    def __init__(self, head: Node, args: list[Node]) -> None:
        self.head = head
        self.args = args

    @property
    def name(self) -> str:
        return self.head.text if isinstance(self.head, Atom) else ""


class ListNode(Node):
    __slots__ = ("items",)

    def __init__(self, items: list[Node]) -> None:
        self.items = items


class Rule(Node):
    __slots__ = ("lhs", "rhs")

    def __init__(self, lhs: Node, rhs: Node) -> None:
        self.lhs = lhs
        self.rhs = rhs


class Seq(Node):  # an operator expression we don't interpret, e.g. (f[#]&)
    __slots__ = ("items",)

    def __init__(self, items: list[Node]) -> None:
        self.items = items


_TOKEN = re.compile(
    r"""
    (?P<ws>\s+)
    |(?P<comment>\(\*)
    |(?P<str>"(?:[^"\\]|\\.)*"?)
    |(?P<num>\d+\.?\d*(?:`[\d.]*)?(?:\*\^-?\d+)?|\.\d+)
    |(?P<sym>[A-Za-z$][A-Za-z0-9$`]*)
    |(?P<open><\||\[|\{|\()
    |(?P<close>\|>|\]|\}|\))
    |(?P<comma>,)
    |(?P<op>->|:>|:=|==|.)
    """,
    re.S | re.X,
)


def _skip_comment(src: str, pos: int) -> int:
    depth = 1
    while depth:
        nxt_open = src.find("(*", pos)
        nxt_close = src.find("*)", pos)
        if nxt_close < 0:
            return len(src)
        if 0 <= nxt_open < nxt_close:
            depth += 1
            pos = nxt_open + 2
        else:
            depth -= 1
            pos = nxt_close + 2
    return pos


def _item(tokens: list[Node | str]) -> Node | None:
    if not tokens:
        return None
    for i, t in enumerate(tokens):
        if t in ("->", ":>") and i:
            rhs = _item(tokens[i + 1 :]) or Atom("Null")
            lhs = _item(tokens[:i]) or Atom("Null")
            return Rule(lhs, rhs)
    if len(tokens) == 1:
        t = tokens[0]
        return t if isinstance(t, Node) else Atom(t)
    return Seq([t if isinstance(t, Node) else Atom(t) for t in tokens])


def parse(src: str) -> list[Node]:
    """Parse Wolfram Language source into top-level nodes, tolerating damage."""
    # Each frame: [opener, head, items, current-item tokens]
    root: list = ["", None, [], []]
    stack: list[list] = [root]
    pos = 0
    n = len(src)
    match = _TOKEN.match
    while pos < n:
        m = match(src, pos)
        if m is None:  # pragma: no cover - the pattern matches any character
            break
        kind = m.lastgroup
        pos = m.end()
        frame = stack[-1]
        cur = frame[3]
        if kind == "ws":
            continue
        if kind == "comment":
            pos = _skip_comment(src, pos)
        elif kind == "str":
            raw = m.group()[1:]
            cur.append(Str(raw[:-1] if raw.endswith('"') else raw))
        elif kind in ("num", "sym"):
            cur.append(Atom(m.group()))
        elif kind == "open":
            o = m.group()
            head = None
            if o == "[" and cur and isinstance(cur[-1], Node):
                head = cur.pop()
            stack.append([o, head, [], []])
        elif kind == "close":
            if len(stack) == 1:
                continue  # stray closer
            frame = stack.pop()
            opener, head, items, toks = frame
            it = _item(toks)
            if it is not None:
                items.append(it)
            if opener == "[" and head is not None:
                node: Node = Call(head, items)
            elif opener == "{":
                node = ListNode(items)
            elif opener == "<|":
                node = Call(Atom("Association"), items)
            else:
                node = Seq(items)
            stack[-1][3].append(node)
        elif kind == "comma":
            it = _item(cur)
            if it is not None:
                frame[2].append(it)
            frame[3] = []
        else:
            cur.append(m.group())
    # Close whatever a truncated file left open.
    while len(stack) > 1:
        opener, head, items, toks = stack.pop()
        it = _item(toks)
        if it is not None:
            items.append(it)
        stack[-1][3].append(Call(head, items) if head is not None else ListNode(items))
    it = _item(root[3])
    if it is not None:
        root[2].append(it)
    return root[2]


# ---------------------------------------------------------------- rendering boxes

_NUMBER = re.compile(r"^(-?\d+\.?\d*|-?\.\d+)`[\d.]*(?:\*\^(-?\d+))?$|^(-?\d+\.?\d*)\*\^(-?\d+)$")
_SPACED_OPS = {
    "=", ":=", "->", ":>", "==", "!=", "<=", ">=", "===", "+", "-", "&&", "||", "/.",
    "//.", "//", "→", "≤", "≥", "≠", "^=", "+=", "-=", "*=", "/=", "/;", "|",
}  # fmt: skip
_UNWRAP_FIRST = {
    "StyleBox", "TagBox", "FormBox", "AdjustmentBox", "ButtonBox", "FrameBox", "PaneBox",
    "PanelBox", "ItemBox", "TooltipBox", "InterpretationBox", "ErrorBox", "ActionMenuBox",
    "Cell", "OverlayBox", "AnimatorBox", "OpenerBox", "LocatorPaneBox",
}  # fmt: skip
_GRAPHICS = {"GraphicsBox", "Graphics3DBox", "GraphicsComplexBox", "RasterBox", "GraphicsData"}
_DYNAMIC = {"DynamicBox", "DynamicModuleBox", "DynamicWrapperBox"}


def _number(s: str) -> str:
    m = _NUMBER.match(s)
    if not m:
        return s
    if m.group(1) is not None:
        mant, exp = m.group(1), m.group(2)
    else:
        mant, exp = m.group(3), m.group(4)
    return f"{mant}e{exp}" if exp else mant


def _wrap(s: str) -> str:
    s = s.strip()
    return s if re.fullmatch(r"[\w.°′″]+|\(.*\)|\[.*\]|\{.*\}", s) else f"({s})"


def combine_box(name: str, args: list[str]) -> str:
    """A box's text from its already rendered arguments."""
    a = args + ["", "", ""]
    if name == "SuperscriptBox":
        return f"{a[0]}^{_wrap(a[1])}" if a[1].strip() else a[0]
    if name == "SubscriptBox":
        return f"{a[0]}_{_wrap(a[1])}" if a[1].strip() else a[0]
    if name == "SubsuperscriptBox":
        return f"{a[0]}_{_wrap(a[1])}^{_wrap(a[2])}"
    if name == "FractionBox":
        return f"{_wrap(a[0])}/{_wrap(a[1])}"
    if name == "SqrtBox":
        return f"√{_wrap(a[0])}"
    if name == "RadicalBox":
        return f"{_wrap(a[0])}^(1/{a[1]})"
    if name in ("UnderscriptBox", "OverscriptBox"):
        return f"{a[0]} {a[1]}".strip()
    if name == "UnderoverscriptBox":
        return f"{a[0]} {a[1]} {a[2]}".strip()
    if name == "RowBox":
        return join_row(args)
    return a[0]


def join_row(parts: list[str]) -> str:
    out: list[str] = []
    for i, p in enumerate(parts):
        if p == ",":
            out.append(", ")
        elif p in _SPACED_OPS and i > 0:
            out.append(f" {p} ")
        else:
            out.append(p)
    return "".join(out)


_BOX_NAME = re.compile(r"[A-Za-z]+")


def _render_linear(s: str) -> str:
    r"""Linear box syntax inside strings: \!\(\*SubscriptBox[\(V\), \(0\)]\) -> V_0."""
    out: list[str] = []
    i, n = 0, len(s)
    while i < n:
        c = s[i]
        if c == "\\" and i + 1 < n:
            d = s[i + 1]
            if d == "!":
                i += 2
                continue
            if d == "(":
                j = _match_group(s, i + 2)
                out.append(_render_linear(s[i + 2 : j]))
                i = j + 2
                continue
            if d == "*":
                m = _BOX_NAME.match(s, i + 2)
                if m and m.end() < n and s[m.end()] == "[":
                    args, j = _split_args(s, m.end() + 1)
                    call = s[i + 2 : j]
                    if "\\(" in call:
                        # Arguments are \( \) groups of linear syntax.
                        rendered = [_render_linear(_box_arg(x.strip())) for x in args]
                        out.append(combine_box(m.group(), rendered))
                    else:
                        # Arguments are ordinary box expressions, escaped once more.
                        src = _unescape(call) if '\\"' in call else call
                        out.append("".join(render_box(x) for x in parse(src)))
                    i = j
                    continue
                i += 2
                continue
            if d in ")@^_%&+/`":
                i += 2
                continue
            out.append(d)
            i += 2
            continue
        out.append(c)
        i += 1
    text = "".join(out)
    if len(text) >= 2 and text[0] == text[-1] == '"':
        text = text[1:-1]  # a quoted string shown as text
    return text


def _box_arg(arg: str) -> str:
    # Inside \*Box[...] a nested box needs no \* of its own; add it to render it.
    m = _BOX_NAME.match(arg)
    return "\\*" + arg if m and arg[m.end() : m.end() + 1] == "[" else arg


def _match_group(s: str, i: int) -> int:
    r"""Index of the \) closing a \( opened just before i."""
    depth = 1
    while i < len(s):
        if s.startswith("\\(", i):
            depth += 1
            i += 2
        elif s.startswith("\\)", i):
            depth -= 1
            if not depth:
                return i
            i += 2
        else:
            i += 1
    return len(s)


def _split_args(s: str, i: int) -> tuple[list[str], int]:
    """Top-level comma-separated arguments up to the matching ']'; returns index after it."""
    args: list[str] = []
    depth = 0
    start = i
    while i < len(s):
        if s.startswith("\\(", i):
            depth += 1
            i += 2
            continue
        if s.startswith("\\)", i):
            depth -= 1
            i += 2
            continue
        c = s[i]
        if c == "[":
            depth += 1
        elif c == "]":
            if depth == 0:
                args.append(s[start:i])
                return args, i + 1
            depth -= 1
        elif c == "," and depth == 0:
            args.append(s[start:i])
            start = i + 1
        i += 1
    args.append(s[start:])
    return args, len(s)


def render_string(raw: str) -> str:
    s = _unescape(raw)
    if "\\!" in s or "\\(" in s:
        # Keep the outer quotes of a code string literal, render what's inside.
        if len(s) >= 2 and s[0] == s[-1] == '"':
            return '"' + _render_linear(s[1:-1]) + '"'
        return _render_linear(s)
    return _number(s)


def render_box(node: Node) -> str:
    if isinstance(node, Str):
        return render_string(node.raw)
    if isinstance(node, ListNode):
        return "".join(render_box(x) for x in node.items)
    if isinstance(node, Atom):
        return _number(node.text) if node.text[:1].isdigit() else ""
    if isinstance(node, Call):
        name = node.name
        args = node.args
        if name in _GRAPHICS:
            return "[graphics]"
        if name in _DYNAMIC:
            return "[dynamic content]"
        if name == "RowBox":
            items = args[0].items if args and isinstance(args[0], ListNode) else args
            return join_row([render_box(x) for x in items])
        if name == "GridBox":
            return _render_grid(args)
        if name == "TemplateBox":
            return _render_template(args)
        if name in ("TextData", "BoxData"):
            return render_box(args[0]) if args else ""
        if name in _UNWRAP_FIRST:
            return render_box(args[0]) if args else ""
        if name.endswith("Box"):
            positional = [a for a in args if not isinstance(a, Rule)]
            return combine_box(name, [render_box(a) for a in positional])
        return ""
    return ""  # rules (options) and uninterpreted expressions


def _render_grid(args: list[Node]) -> str:
    if not args or not isinstance(args[0], ListNode):
        return ""
    rows = []
    for row in args[0].items:
        cells = row.items if isinstance(row, ListNode) else [row]
        rows.append("\t".join(render_box(c).strip() for c in cells))
    return "\n".join(rows)


def _render_template(args: list[Node]) -> str:
    if not args:
        return ""
    name = args[1].raw if len(args) > 1 and isinstance(args[1], Str) else ""
    inner = args[0].items if isinstance(args[0], ListNode) else [args[0]]
    if any(isinstance(x, Call) and x.name in _GRAPHICS for x in inner):
        return "[graphics]"  # Legended plots and the like: the legend alone misleads
    parts = [render_box(x) for x in inner]
    if name == "Around" and len(parts) >= 2:
        return f"{parts[0]} ± {parts[1]}"
    if name in ("Spacer1", "Spacer2"):
        return " "
    if name in ("RowDefault", "RowWithSeparators", "RowWithSeparator"):
        # Row[{"label: ", expr}] displays its strings without quotes.
        return "".join(p[1:-1] if len(p) >= 2 and p[0] == p[-1] == '"' else p for p in parts)
    return ", ".join(p for p in parts if p.strip())


# ---------------------------------------------------------------- cells


def _options(args: list[Node]) -> dict[str, str]:
    out = {}
    for a in args:
        if isinstance(a, Rule) and isinstance(a.lhs, Atom) and isinstance(a.rhs, Str):
            out[a.lhs.text] = _unescape(a.rhs.raw)
    return out


def cell_heading(style: str, label: str) -> str:
    """The line before a cell's text: its style and label ("In[16]:=")."""
    return f"## [{style}]" + (f" {label}" if label else "")


def _cell_lines(cell: Call, out: LineMap, counts: dict[str, int]) -> None:
    args = cell.args
    if not args:
        return
    content = args[0]
    if isinstance(content, Call) and content.name == "CellGroupData":
        if content.args:
            _walk(content.args[0], out, counts)
        return
    style = args[1].raw if len(args) > 1 and isinstance(args[1], Str) else ""
    label = _options(args[2:]).get("CellLabel", "")
    if isinstance(content, Str):
        text = render_string(content.raw)
    elif isinstance(content, Call) and content.name in ("GraphicsData", "RawData"):
        text = "[graphics]"
    else:
        text = render_box(content)
    lines = [ln.rstrip() for ln in text.replace("\r", "").split("\n")]
    # Indentation from the box layout is noise, blank runs too.
    lines = [ln.strip() for ln in lines if ln.strip()]
    if not lines:
        return
    counts[style or "Cell"] = counts.get(style or "Cell", 0) + 1
    # "In[16]:=" is cell In[16]; a cell without a label goes by its style.
    where = label.rstrip("=:") or style or "Cell"
    out.add(cell_heading(style or "Cell", label), marker=True, cell=where)
    out.extend(lines, cell=where)


def _walk(node: Node, out: LineMap, counts: dict[str, int]) -> None:
    if isinstance(node, ListNode):
        for x in node.items:
            _walk(x, out, counts)
    elif isinstance(node, Call):
        if node.name == "Cell":
            _cell_lines(node, out, counts)
        elif node.name in ("Notebook", "CellGroupData") and node.args:
            _walk(node.args[0], out, counts)


def notebook_lines(src: str) -> tuple[LineMap, dict[str, int]]:
    out = LineMap()
    counts: dict[str, int] = {}
    for node in parse(src):
        _walk(node, out, counts)
    return out, counts


def convert_nb(file: Opened, budget: Budget | None = None) -> Converted:
    # Parsed whole and fast (no loop worth a cancel check); the size cap bounds it.
    check_whole_file_size(file, "Mathematica notebook")
    enc = detect_file_encoding(file)
    src = file.read_bytes().decode(enc.codec if enc else "utf-8", errors="replace")
    # Notebooks saved on Windows use CRLF; "\\" + CRLF is a line continuation.
    src = src.replace("\r\n", "\n")
    doc, counts = notebook_lines(src)
    if not doc.lines:
        return Converted([], "The notebook has no cells with content.", False)
    summary = ", ".join(f"{n} {style}" for style, n in counts.items())
    return Converted.of(
        doc,
        f"Mathematica notebook ({summary} cells), shown as text: graphics appear as [graphics].",
    )
