r"""What TeX may read, checked by Labwright itself: on every platform, Landlock or not.

kpathsea's `openin_any=p` refuses absolute names, `..` and dot files in TeX's
own file opens, but two doors stay open where no OS layer holds (macOS,
Windows, Linux without Landlock):

* kpathsea expands `~user/`, `~/` and `$VAR` in a file name *after* that
  check, so `\verbatiminput{~alice/notes.txt}` reads Alice's file. HOME points
  into the build folder (jail.tex_env), so `~/` stays there; `check_sources`
  refuses, before TeX runs, the `~user/`, `~/` and `$VAR` names (VAR: a variable
  TeX gets whose value lies outside the run and the TeX trees) written out in the
  files TeX reads as source, and the usual ways to build such a name from
  character codes. A name the document assembles from macros at run time is
  not caught: that is what `Fence.open` says.
* xdvipdfmx reads every file a special names, by any path, and kpathsea's
  switches do not apply to it (`\special{pdf:fstream @x (/any/file)}` copies
  the file into the PDF). It has no safe mode, so XeLaTeX only writes the
  .xdv (`-no-pdf`) and `check_xdv` reads every special, font and image in
  it: a file outside the run's documented inputs and the TeX and font trees
  is refused, as are PostScript images (xdvipdfmx would hand them to
  Ghostscript through a shell) and `dvipdfmx:config` options that load
  files. Only then does xdvipdfmx run.

`statement()` says which of these hold on this machine; Check Setup shows it
and tests/security/test_sec_tex_fence.py keeps it true.
"""

from __future__ import annotations

import mmap
import os
import re
import sys
import time
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from labwright.core import confine
from labwright.core.rundir.names import FIGURES

# -- roots: where the files TeX may read live --------------------------------------


@dataclass(frozen=True)
class Roots:
    """Real paths (links resolved) of what TeX may read: `files` for images,
    streams, maps and every other file a special names; `fonts` for fonts."""

    files: tuple[str, ...]
    fonts: tuple[str, ...]

    def holds(self, path: str, *, font: bool = False) -> bool:
        real = os.path.realpath(path)
        return any(_within(real, root) for root in (self.fonts if font else self.files))


def _within(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip(os.sep) + os.sep)


def run_inputs(tex_path: Path, build_dir: Path) -> list[Path]:
    """The run's documented TeX inputs: the document, its .bib files, figures/ and
    the build folder. A link among them leads nowhere (jail.policy agrees)."""
    cwd = tex_path.parent
    own = [tex_path, cwd / FIGURES, *sorted(cwd.glob("*.bib")), build_dir]
    return [p for p in own if not p.is_symlink() and p.exists()]


def font_dirs() -> list[str]:
    """The system's and this user's font folders (fonts are found there by name)."""
    home = Path.home()
    if sys.platform == "darwin":
        dirs = ["/System/Library/Fonts", "/Library/Fonts", "/Network/Library/Fonts"]
        dirs.append(str(home / "Library" / "Fonts"))
    elif sys.platform.startswith("win"):
        windir = os.environ.get("WINDIR", r"C:\Windows")
        dirs = [os.path.join(windir, "Fonts")]
        local = os.environ.get("LOCALAPPDATA")
        if local:
            dirs.append(os.path.join(local, "Microsoft", "Windows", "Fonts"))
    else:
        dirs = ["/usr/share/fonts", "/usr/local/share/fonts", "/usr/share/texmf/fonts"]
        dirs += [str(home / ".fonts"), str(home / ".local" / "share" / "fonts")]
    return dirs


def roots(tex_path: Path, build_dir: Path, trees: Sequence[str]) -> Roots:
    """What TeX may read: the run's inputs and the TeX trees; fonts also from font_dirs."""
    places: list[str | Path] = [*run_inputs(tex_path, build_dir), *trees]
    files = [os.path.realpath(p) for p in places]
    fonts = files + [os.path.realpath(d) for d in font_dirs()]
    return Roots(tuple(dict.fromkeys(files)), tuple(dict.fromkeys(fonts)))


# -- the source check -----------------------------------------------------------------

# `~user/` or `~/` (kpathsea's home expansion); not after "/", as in a URL's `/~user/`.
_TILDE = re.compile(r"(?<!/)~[\w.\-]*/")
# Ways to make a `~` or `$` that the pattern above would not see.
_END = r"(?![A-Za-z@])"  # where a TeX control word ends
_BUILDERS = re.compile(
    r"\^\^"  # TeX's character-code notation: ^^7e and ^^> are `~`, ^^24 and ^^d are `$`
    rf"|\\char_generate:|\\Ucharcat{_END}|\\Uchar{_END}"  # a character from its code
    rf"|\\(?:lc|uc)code{_END}"  # \lowercase/\uppercase mapping a letter to `~`
    rf"|\\scantokens{_END}"  # re-reads text with other catcodes
    rf"|\\XeTeX(?:input|default)encoding{_END}"  # reads a file in an encoding not checked
    r"|\\string\s*~|\\detokenize\s*\{\s*~"  # a `~` made printable
    r"|\\catcode\s*(?:`\\?~|126\b|\"7[eE]\b|'176\b)"
)
# Files of figures/ TeX reads as pictures, not source: not scanned (binary data
# would match the patterns by chance).
_PICTURES = {".png", ".jpg", ".jpeg", ".pdf", ".gif", ".tif", ".tiff", ".bmp", ".svg"}
_SCAN_BYTES = 16 << 20


@dataclass(frozen=True)
class Refusal:
    """One thing Labwright will not let TeX do, said for the user and the fix model."""

    file: str  # relative to the run, or "" when not in one file
    line: int | None
    message: str


def source_files(tex_path: Path) -> list[Path]:
    """What TeX reads as source: the document, its .bib files, figures/ (not pictures)."""
    cwd = tex_path.parent
    found = [tex_path, *sorted(cwd.glob("*.bib"))]
    figures = cwd / FIGURES
    if figures.is_dir() and not figures.is_symlink():
        for root, dirs, files in os.walk(figures):
            dirs[:] = [d for d in dirs if not (Path(root) / d).is_symlink()]
            for name in sorted(files):
                path = Path(root) / name
                if path.suffix.lower() not in _PICTURES and path.is_file():
                    found.append(path)
    return [p for p in found if p.is_file() and not p.is_symlink()]


def outside_variables(env: Mapping[str, str], allowed: Roots) -> list[str]:
    """The variables of TeX's environment whose value names a place outside the run
    and the TeX trees: kpathsea would expand `$NAME/...` there."""
    names = []
    for name, value in env.items():
        parts = [p for p in value.split(os.pathsep) if os.path.isabs(p)]
        if any(not allowed.holds(p) for p in parts):
            names.append(name)
    return sorted(names)


def check_sources(files: Iterable[Path], cwd: Path, variables: Sequence[str]) -> list[Refusal]:
    """File names TeX must not be given, found in the text of `files` (see module doc)."""
    patterns = [_TILDE, _BUILDERS]
    if variables:
        names = "|".join(re.escape(v) for v in variables)
        flags = re.IGNORECASE if sys.platform.startswith("win") else 0
        patterns.append(re.compile(rf"\$\{{?(?:{names})\b", flags))
    refusals: list[Refusal] = []
    for path in files:
        for line, match in _matches(path, patterns):
            refusals.append(Refusal(_rel(path, cwd), line, _why(match)))
            if len(refusals) >= 20:
                return refusals
    return refusals


def _why(found: str) -> str:
    if found.startswith("a source file"):
        return f"{found} is more than Labwright checks"
    if found.startswith("~"):
        return (
            f"`{found}` names a file in a home folder (~user/ or ~/); "
            "TeX may read only the run's own files"
        )
    if found.startswith("$"):
        return f"`{found}` names a file through an environment variable; TeX may not"
    return (
        f"`{found.strip()}` can build a file name TeX is not allowed to read; "
        "write the characters out instead"
    )


def _matches(path: Path, patterns: Sequence[re.Pattern[str]]) -> Iterator[tuple[int, str]]:
    """(line, matched text) of every match in `path`; a file too large to check is
    one match of its own (what is not read cannot be vouched for)."""
    try:
        with path.open("rb") as f:
            data = f.read(_SCAN_BYTES + 1)
    except OSError:
        return
    if len(data) > _SCAN_BYTES:
        yield 1, f"a source file over {_SCAN_BYTES >> 20} MB"
        return
    text = data.decode("utf-8", errors="replace")
    found = {m.start(): m.group(0) for p in patterns for m in p.finditer(text)}
    for at, match in sorted(found.items()):
        yield 1 + text.count("\n", 0, at), match


def _rel(path: Path, cwd: Path) -> str:
    try:
        return path.relative_to(cwd).as_posix()
    except ValueError:
        return path.name


# -- the .xdv check ---------------------------------------------------------------------


class XdvUnreadable(Exception):
    """The .xdv is not what XeTeX writes: nothing in it can be vouched for."""


class XdvTimeout(Exception):
    """The deadline passed while reading the .xdv."""


# Opcodes without parameters: set_char_0..127, nop, eop, push, pop, w0, x0, y0, z0,
# fnt_num_0..63, begin/end_reflect. Skipped in runs by one regex (the bulk of a file).
_NO_ARGS = re.compile(rb"[\x00-\x7f\x8a\x8c\x8d\x8e\x93\x98\xa1\xa6\xab-\xea\xfa\xfb]+")
_FIXED = {
    **{op: op - 127 for op in range(128, 132)},  # set1..4
    132: 8,  # set_rule
    **{op: op - 132 for op in range(133, 137)},  # put1..4
    137: 8,  # put_rule
    139: 44,  # bop
    **{op: op - 142 for op in range(143, 147)},  # right1..4
    **{op: op - 147 for op in range(148, 152)},  # w1..4
    **{op: op - 152 for op in range(153, 157)},  # x1..4
    **{op: op - 156 for op in range(157, 161)},  # down1..4
    **{op: op - 161 for op in range(162, 166)},  # y1..4
    **{op: op - 166 for op in range(167, 171)},  # z1..4
    **{op: op - 234 for op in range(235, 239)},  # fnt1..4
    255: 1,  # pTeX dir
}
_XXX1, _FNT_DEF1, _PRE, _POST, _POST_POST = 239, 243, 247, 248, 249
_NATIVE_FONT_DEF, _GLYPHS, _TEXT_AND_GLYPHS = 252, 253, 254
_FONT_FLAG_DATA = (0x0200, 0x1000, 0x2000, 0x4000)  # colored, extend, slant, embolden
_FONT_FLAGS = 0x0100 | sum(_FONT_FLAG_DATA)  # with vertical, which carries none
_XDV_IDS = (2, 7)  # DVI, and the XDV of every XeTeX since 0.99994 (TeX Live 2017)
_DEADLINE_EVERY = 1 << 16


@dataclass
class XdvContents:
    specials: list[bytes] = field(default_factory=list)
    native_fonts: list[bytes] = field(default_factory=list)
    tfm_fonts: list[bytes] = field(default_factory=list)


def read_xdv(path: Path, deadline: float | None = None) -> XdvContents:
    """Every special and font of a .dvi/.xdv file, opcode by opcode.

    Raises XdvUnreadable when the file is not well-formed DVI/XDV (no special is
    then trusted to be all there is) and XdvTimeout past `deadline`."""
    with path.open("rb") as f:
        try:
            data = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
        except ValueError as e:  # an empty file
            raise XdvUnreadable(str(e)) from e
        try:
            return _walk(data, deadline)
        except IndexError as e:
            raise XdvUnreadable("the file ends inside a command") from e
        finally:
            data.close()


def _walk(data: mmap.mmap, deadline: float | None) -> XdvContents:
    found = XdvContents()
    size = len(data)
    if size < 15 or data[0] != _PRE or data[1] not in _XDV_IDS:
        raise XdvUnreadable("no DVI/XDV preamble")

    def uint(at: int, n: int) -> int:
        if at + n > size:
            raise IndexError
        return int.from_bytes(data[at : at + n], "big")

    pos, steps = 0, 0
    while True:
        steps += 1
        if deadline is not None and steps % _DEADLINE_EVERY == 0 and time.monotonic() > deadline:
            raise XdvTimeout
        if pos >= size:
            raise XdvUnreadable("no postamble")
        run = _NO_ARGS.match(data, pos)
        if run:
            pos = run.end()
            continue
        op = data[pos]
        pos += 1
        if op in _FIXED:
            pos += _FIXED[op]
        elif _XXX1 <= op <= _XXX1 + 3:
            n = op - _XXX1 + 1
            length = uint(pos, n)
            pos += n
            found.specials.append(bytes(data[pos : pos + length]))
            pos += length
        elif _FNT_DEF1 <= op <= _FNT_DEF1 + 3:
            pos += op - _FNT_DEF1 + 1 + 12
            a, n = uint(pos, 1), uint(pos + 1, 1)
            found.tfm_fonts.append(bytes(data[pos + 2 : pos + 2 + a + n]))
            pos += 2 + a + n
        elif op == _NATIVE_FONT_DEF:
            flags = uint(pos + 8, 2)
            if flags & ~_FONT_FLAGS:
                raise XdvUnreadable(f"a font definition with unknown flags {flags:#x}")
            n = uint(pos + 10, 1)
            found.native_fonts.append(bytes(data[pos + 11 : pos + 11 + n]))
            pos += 11 + n + 4 + 4 * sum(1 for f in _FONT_FLAG_DATA if flags & f)
        elif op == _GLYPHS:
            pos += 6 + 10 * uint(pos + 4, 2)
        elif op == _TEXT_AND_GLYPHS:
            text = 2 * uint(pos, 2)
            pos += 2 + text
            pos += 6 + 10 * uint(pos + 4, 2)
        elif op == _PRE:
            pos += 13 + 1 + uint(pos + 13, 1)
        elif op == _POST:
            pos += 28
        elif op == _POST_POST:
            return found
        else:
            raise XdvUnreadable(f"unknown command {op} at byte {pos - 1}")
        if pos > size:
            raise XdvUnreadable("the file ends inside a command")


# -- what each special reads --------------------------------------------------------------

_WHITE = " \t\f\r\n\0"
# pdf: specials whose strings (or, for the map ones, words) name files.
_PDF_FILE_STRINGS = {"image", "img", "epdf", "fstream", "include", "load", "loadimage"}
_PDF_FILE_WORDS = {"mapline", "mapfile", "tounicode"}
_PDF_IMAGES = {"image", "img", "epdf", "include", "load", "loadimage"}
_X_FILE_WORDS = {"fontmapline", "fontmapfile"}
# dvips-style specials that hand PostScript to Ghostscript or read a PostScript file.
_POSTSCRIPT = re.compile(
    r"(?:header\s*=|psfile\s*=|ps:\s*plotfile|pst:|postscriptbox)", re.IGNORECASE
)
# dvipdfmx:config options that load nothing (hyperref, pdfx and bxjs use these).
_CONFIG_SAFE = set("CzVdplxygOm")
_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_HTML_SRC = re.compile(r"src\s*=\s*(\"[^\"]*\"|'[^']*'|[^\s>]+)", re.IGNORECASE)
_PS_MAGIC = (b"%!", b"\xc5\xd0\xd3\xc6")


@dataclass(frozen=True)
class _Special:
    kind: str  # "pdf:fstream", "x:fontmapfile", ... for the message
    names: list[str]  # the file names it reads
    image: bool = False
    refused: str = ""  # refused whatever it names


def check_xdv(xdv: Path, cwd: Path, allowed: Roots, deadline: float | None = None) -> list[Refusal]:
    """What in `xdv` would make xdvipdfmx read a file outside `allowed` (see module doc).

    Raises XdvTimeout past `deadline`; an unreadable file is one refusal."""
    try:
        contents = read_xdv(xdv, deadline)
    except XdvUnreadable as e:
        return [Refusal("", None, f"Labwright could not check {xdv.name} ({e}); not converted")]
    except OSError as e:
        return [Refusal("", None, f"Labwright could not read {xdv.name}: {e.strerror or e}")]
    refusals: list[Refusal] = []
    for raw in contents.specials:
        special = _classify(_decode(raw))
        if special is None:
            continue
        for why in _special_problems(special, cwd, allowed):
            refusals.append(Refusal("", None, why))
    for raw in contents.native_fonts:
        name = _decode(raw)
        path = name if os.path.isabs(name) else str(cwd / name)
        if _expands(name) or not allowed.holds(path, font=True):
            refusals.append(
                Refusal("", None, f"the font file {_show(name)} is outside the TeX and font trees")
            )
    for raw in contents.tfm_fonts:
        name = _decode(raw)
        if _expands(name) or any(c in name for c in "/\\"):
            refusals.append(Refusal("", None, f"the font {_show(name)} is named by a path"))
    return list(dict.fromkeys(refusals))[:20]


def _decode(raw: bytes) -> str:
    return raw.decode("utf-8", "surrogateescape")


def _show(name: str) -> str:
    shown = name.encode("utf-8", "backslashreplace").decode("ascii", "backslashreplace")
    return "`" + (shown if len(shown) <= 120 else shown[:117] + "...") + "`"


def _expands(name: str) -> bool:
    """kpathsea would expand it (`~`, `$VAR`) or it holds what no file name holds."""
    bare = name[2:] if name.startswith("!!") else name
    return bare.startswith("~") or "$" in bare or "\0" in bare


def _classify(text: str) -> _Special | None:
    """The files a special makes xdvipdfmx read, as xdvipdfmx itself dispatches it
    (leading white space skipped; module prefixes matched in any case, to be safe)."""
    body = text.lstrip(_WHITE)
    lower = body.lower()
    if lower.startswith("pdf:"):
        rest = body[4:].lstrip(_WHITE)
        m = _IDENT.match(rest)
        if not m:
            return None
        command, args = m.group(0).lower(), rest[m.end() :]
        if command in _PDF_FILE_STRINGS:
            return _Special(f"pdf:{command}", _pdf_strings(args), command in _PDF_IMAGES)
        if command in _PDF_FILE_WORDS:
            return _Special(f"pdf:{command}", _words(args))
        return None
    if lower.startswith("x:"):
        m = _IDENT.match(body[2:].lstrip(_WHITE))
        if m and m.group(0).lower() in _X_FILE_WORDS:
            return _Special(f"x:{m.group(0)}", _words(body[2:].lstrip(_WHITE)[m.end() :]))
        return None
    if lower.startswith("dvipdfmx:"):
        # "dvipdfmx:config X value": one command-line option and its value
        words = _words(body[len("dvipdfmx:") :])
        if words[:1] != ["config"] or len(words) < 2:
            return None
        option = words[1].lstrip("-")[:1]
        if option not in _CONFIG_SAFE:
            return _Special("dvipdfmx:config", [], refused=f"option {option}")
        return None
    if lower.startswith("html:"):
        names = [v.strip("\"'") for v in _HTML_SRC.findall(body)]
        return _Special("html:<img>", names, image=True) if names else None
    if _POSTSCRIPT.match(body):
        return _Special("PostScript", [], refused="PostScript is not converted")
    return None


def _special_problems(special: _Special, cwd: Path, allowed: Roots) -> list[str]:
    if special.refused:
        return [f"the special {special.kind} ({special.refused}) is not allowed"]
    problems = []
    for name in special.names:
        why = _name_problem(name, cwd, allowed, image=special.image)
        if why:
            problems.append(f"{special.kind} {_show(name)}: {why}")
    return problems


def _name_problem(name: str, cwd: Path, allowed: Roots, *, image: bool) -> str:
    """Why xdvipdfmx may not open `name`, or "" when it may."""
    if not name.strip():
        return ""
    if _expands(name):
        return "names a home folder or an environment variable"
    parts = re.split(r"[/\\]", name)
    if ".." in parts:
        return "climbs out with .."
    path = Path(name) if os.path.isabs(name) else cwd / name
    if not os.path.isabs(name) and not path.exists():
        return ""  # kpathsea then searches the TeX trees, which TeX may read
    if not allowed.holds(str(path)):
        return "is outside the run's report.tex, *.bib, figures/ and build/ and the TeX trees"
    if image and _is_postscript(path):
        return "is PostScript (convert it to PDF)"
    return ""


def _is_postscript(path: Path) -> bool:
    try:
        with path.open("rb") as f:
            head = f.read(4)
    except OSError:
        return False
    return head.startswith(_PS_MAGIC)


def _pdf_strings(text: str) -> list[str]:
    """The PDF string objects in `text`: (literal) with its escapes, and <hex>."""
    out: list[str] = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c == "(":
            value, i = _literal(text, i + 1)
            out.append(value)
        elif c == "<" and text[i + 1 : i + 2] != "<":
            end = text.find(">", i + 1)
            end = n if end < 0 else end
            digits = re.sub(r"[^0-9A-Fa-f]", "", text[i + 1 : end])
            if len(digits) % 2:
                digits += "0"
            out.append(_decode(bytes.fromhex(digits)))
            i = end + 1
        elif c == "<":
            i += 2
        else:
            i += 1
    return out


_ESCAPES = {"n": "\n", "r": "\r", "t": "\t", "b": "\b", "f": "\f"}


def _literal(text: str, i: int) -> tuple[str, int]:
    """A literal string's value from just after its "(" (PDF 1.7, 7.3.4.2)."""
    out: list[str] = []
    depth, n = 1, len(text)
    while i < n:
        c = text[i]
        if c == "\\" and i + 1 < n:
            nxt = text[i + 1]
            if nxt in "01234567":
                digits = re.match(r"[0-7]{1,3}", text[i + 1 : i + 4])
                assert digits is not None
                out.append(chr(int(digits.group(0), 8) & 0xFF))
                i += 1 + len(digits.group(0))
                continue
            if nxt == "\r":
                i += 3 if text[i + 2 : i + 3] == "\n" else 2
                continue
            if nxt == "\n":
                i += 2
                continue
            out.append(_ESCAPES.get(nxt, nxt))
            i += 2
            continue
        if c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
            if depth == 0:
                return "".join(out), i + 1
        out.append(c)
        i += 1
    return "".join(out), i


def _words(text: str) -> list[str]:
    """Words of a map line or option list, without the quotes and the `<`, `<<`, `<[`
    prefixes a map line puts before file names."""
    return [w.lstrip("<[").strip("\"'") for w in re.split(r"[\s=]+", text) if w.strip("<[\"'")]


# -- what holds here -------------------------------------------------------------------


@dataclass(frozen=True)
class Fence:
    """What keeps TeX's reads in, on this machine: the facts behind Check Setup's line.

    `blocked` and `open` name classes of attempts (tests/security/test_sec_tex_fence.py
    runs each): blocked ones are refused here, open ones are not."""

    confined: bool  # Landlock holds TeX's file access
    layers: tuple[str, ...]  # the OS layers, as confine names them
    engine: str | None
    blocked: tuple[str, ...]
    open: tuple[str, ...]


# Checked by Labwright or kpathsea everywhere; with XeLaTeX, also the .xdv.
_ALWAYS = ("absolute_names", "shell_escape", "home_names_written")
_XDV = ("special_files", "font_files")


def statement(engine: str | None, support: confine.Support | None = None) -> Fence:
    """The fence for `engine` on this machine (`support`: confine's probe)."""
    support = support or confine.support()
    xdv = engine == "xelatex"
    blocked = _ALWAYS + (_XDV if xdv else ())
    if support.fs:
        return Fence(True, tuple(support.layers()), engine, (*blocked, "other_files"), ())
    holes = ("home_names_built",) + (() if xdv else ("engine_reads",))
    return Fence(False, tuple(support.layers()), engine, blocked, holes)
