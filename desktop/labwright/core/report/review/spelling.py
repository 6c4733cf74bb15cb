r"""Spell checking of a LaTeX report's prose, as TeXstudio and Overleaf do it.

Two parts, both pure Python (the editor's highlighter and context menu use them):

* `prose_words(line, state)`: the words of one source line that are prose, and
  the state the next line starts in (math, a verbatim environment or a key
  argument can go on over several lines). Not prose: commands, the arguments of
  commands whose arguments are keys, labels, paths or units (`\ref`, `\label`,
  `\cite`, `\includegraphics`, `\usepackage`, `\begin`, `\si`, ...), options in
  `[...]` after a command, comments, `\verb` and verbatim environments, and math
  (`$...$`, `$$...$$`, `\(...\)`, `\[...\]`, equation-like environments). Of the
  prose, only words of Latin letters are checked: CJK text is not spell checked
  (a Latin word inside it is), nor are acronyms (CSV), words with a digit or an
  inner capital (t10, LaTeX, pH) and dotted or slashed names (data.csv, e.g.).
* `Speller`: pyspellchecker's word-frequency dictionary for English (and for the
  report's language, when pyspellchecker has one), the person's own words
  (`PersonalDictionary`: LABWRIGHT_HOME/dictionary.txt, written atomically) and
  the words ignored for this session; suggestions ranked by how common they are.

pyspellchecker is pure Python and carries its dictionaries in its wheel, so a pip
install and the bundle need nothing from the system (hunspell through pyenchant
needs the Enchant library; spylls needs hunspell dictionaries from elsewhere). Its
English list is American; British spellings (colour, metre, summarise, modelling)
are accepted when the American form is a word (`_american`), as a British
dictionary would.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING

from labwright.core.atomic import atomic_write_text
from labwright.core.settings.config import labwright_home

if TYPE_CHECKING:
    from spellchecker import SpellChecker

MAX_SUGGESTIONS = 5
DICTIONARY_FILE = "dictionary.txt"
_LATIN = "A-Za-zÀ-ÖØ-öø-ɏ"
_RUN = re.compile(rf"[{_LATIN}0-9_]+(?:['’][{_LATIN}]+)*")
_WORD = re.compile(rf"[{_LATIN}]+(?:'[{_LATIN}]+)*")
_COMMAND = re.compile(r"\\(?:[A-Za-z@]+\*?|.?)", re.DOTALL)
_ENV = re.compile(r"\s*\{([^{}]*)\}")
_DOTTED = re.compile(r"\w[./@]\w|://")

# Commands whose first N mandatory arguments are not prose.
KEY_ARGUMENTS: dict[str, int] = {
    **dict.fromkeys(
        [
            "ref",
            "eqref",
            "pageref",
            "autoref",
            "nameref",
            "cref",
            "Cref",
            "vref",
            "label",
            "cite",
            "citep",
            "citet",
            "citealp",
            "citeauthor",
            "citeyear",
            "parencite",
            "textcite",
            "autocite",
            "footcite",
            "nocite",
            "bibitem",
            "includegraphics",
            "input",
            "include",
            "includeonly",
            "InputIfFileExists",
            "subfile",
            "import",
            "usepackage",
            "RequirePackage",
            "documentclass",
            "bibliography",
            "bibliographystyle",
            "addbibresource",
            "graphicspath",
            "url",
            "href",
            "hypersetup",
            "geometry",
            "sisetup",
            "si",
            "unit",
            "num",
            "ang",
            "numlist",
            "pagestyle",
            "thispagestyle",
            "pagenumbering",
            "color",
            "textcolor",
            "colorbox",
            "newtheorem",
            "ctexset",
            "setCJKmainfont",
            "setmainfont",
            "setsansfont",
            "setmonofont",
            "texttt",
            "verbatiminput",
            "lstinputlisting",
            "lstset",
            "ce",
            "pu",
            "vspace",
            "hspace",
            "vspace*",
            "hspace*",
            "scalebox",
            "raisebox",
            "fontsize",
            "linespread",
            "ensuremath",
            "hyperref",
            "label*",
            "enlargethispage",
            "phantom",
            "hphantom",
            "vphantom",
            "DeclareSIUnit",
        ],
        1,
    ),
    **dict.fromkeys(
        [
            "SI",
            "qty",
            "numrange",
            "setlength",
            "addtolength",
            "setcounter",
            "addtocounter",
            "newcommand",
            "renewcommand",
            "providecommand",
            "DeclareMathOperator",
            "newlength",
            "multicolumn",
            "multirow",
            "resizebox",
            "rule",
            "definecolor",
        ],
        2,
    ),
    **dict.fromkeys(["SIrange", "qtyrange", "newenvironment", "renewenvironment"], 3),
}
# Environments whose \begin takes arguments that are not prose (widths, column specs).
ENV_ARGUMENTS = {
    "tabular": 1,
    "tabular*": 2,
    "tabularx": 2,
    "tabulary": 2,
    "array": 1,
    "longtable": 1,
    "minipage": 1,
    "wrapfigure": 2,
    "multicols": 1,
    "subfigure": 1,
    "minted": 1,
}
MATH_ENVIRONMENTS = tuple(
    f"{name}{star}"
    for name in (
        [
            "equation",
            "align",
            "gather",
            "multline",
            "flalign",
            "alignat",
            "eqnarray",
            "displaymath",
            "math",
            "dmath",
            "subequations",
        ]
    )
    for star in ("", "*")
)
VERBATIM_ENVIRONMENTS = (
    "verbatim",
    "verbatim*",
    "Verbatim",
    "lstlisting",
    "minted",
    "comment",
    "filecontents",
    "filecontents*",
    "tikzpicture",
)

# A line's state: what it ends in, so the next line starts there.
PROSE, DOLLAR, DOUBLE, PAREN, BRACKET, MATH_ENV, VERBATIM, KEY_ARG = range(8)
_MODE_BITS = 3
_CLOSERS = {DOLLAR: "$", DOUBLE: "$$", PAREN: "\\)", BRACKET: "\\]"}


def _state(mode: int, extra: int = 0) -> int:
    return mode | (extra << _MODE_BITS)


def _split(state: int) -> tuple[int, int]:
    return state & ((1 << _MODE_BITS) - 1), state >> _MODE_BITS


@dataclass(frozen=True)
class Word:
    """A prose word of a line: its place (offsets in the line) and its text."""

    start: int
    end: int
    text: str


def _checkable(run: str, chunk: str) -> bool:
    if len(run) < 2 or not _WORD.fullmatch(run.replace("’", "'")):
        return False  # a digit, an underscore, one letter
    letters = run.replace("'", "").replace("’", "")
    if letters.isupper() or any(c.isupper() for c in letters[1:]):
        return False  # CSV, LaTeX, pH, McDonald: acronyms and names
    return not _DOTTED.search(chunk)  # data.csv, figures/x, e.g., a@b, http://


def _chunk(line: str, start: int, end: int) -> str:
    """The characters around a word up to white space or a brace: its file-name context."""
    a, b = start, end
    while a > 0 and not line[a - 1].isspace() and line[a - 1] not in "{}":
        a -= 1
    while b < len(line) and not line[b].isspace() and line[b] not in "{}":
        b += 1
    return line[a:b]


class _LineScan:
    def __init__(self, line: str, state: int) -> None:
        self.line = line
        self.mode, self.extra = _split(max(state, 0))
        self.i = 0
        self.words: list[Word] = []

    def state(self) -> int:
        return _state(self.mode, self.extra)

    def run(self) -> tuple[list[Word], int]:
        n = len(self.line)
        if not self.line.strip() and self.mode in (DOLLAR, DOUBLE, PAREN):
            self.mode = PROSE  # a paragraph ends inline math: one stray $ taints no more
        while self.i < n:
            if self.mode == PROSE:
                self.prose()
            elif self.mode in _CLOSERS:
                self.until(_CLOSERS[self.mode])
            elif self.mode == MATH_ENV:
                self.until(f"\\end{{{MATH_ENVIRONMENTS[self.extra]}}}")
            elif self.mode == VERBATIM:
                self.until(f"\\end{{{VERBATIM_ENVIRONMENTS[self.extra]}}}", comments=False)
            else:
                self.key_argument()
                if self.mode == PROSE:  # closed on this line: the command's other arguments
                    left, self.extra = self.extra, 0
                    self.skip_arguments(left)
        return self.words, self.state()

    def until(self, closer: str, comments: bool = True) -> None:
        """Skip math or verbatim up to `closer` (then prose again) or the line's end."""
        line, i = self.line, self.i
        while i < len(line):
            if line.startswith(closer, i):
                self.i, self.mode, self.extra = i + len(closer), PROSE, 0
                return
            if comments and line[i] == "%":
                break
            i += 2 if line[i] == "\\" else 1  # \$, \%: escaped, not the closer
        self.i = len(line)

    def key_argument(self) -> None:
        """Inside a key argument that went on past its line: skip to its closing brace."""
        depth, left = self.extra & 0xFF, self.extra >> 8
        line, i = self.line, self.i
        while i < len(line):
            c = line[i]
            if c == "\\":
                i += 2
                continue
            if c == "%":
                break
            if c == "{":
                depth += 1
            elif c == "}":
                depth -= 1
                if depth == 0:
                    self.i = i + 1
                    self.mode, self.extra = PROSE, left  # `left`: arguments still to skip
                    return
            i += 1
        self.i = len(line)
        self.extra = depth | (left << 8)

    def skip_options(self) -> None:
        line, i = self.line, self.i
        while i < len(line) and line[i] == "[":
            close = line.find("]", i)
            if close < 0:
                return
            i = close + 1
            while i < len(line) and line[i] == " ":
                i += 1
        self.i = i

    def skip_arguments(self, count: int) -> None:
        """Skip `count` brace arguments (and options between them) from here."""
        for left in range(count, 0, -1):
            self.skip_options()
            j = self.i
            while j < len(self.line) and self.line[j] == " ":
                j += 1
            if j >= len(self.line) or self.line[j] != "{":
                return
            self.i = j
            self.mode, self.extra = KEY_ARG, (left - 1) << 8
            self.key_argument()
            if self.mode == KEY_ARG:
                return  # goes on on the next line
            self.extra = 0

    def prose(self) -> None:
        line, i = self.line, self.i
        c = line[i]
        if c == "%":
            self.i = len(line)
        elif c == "\\":
            self.command()
        elif c == "$":
            double = line.startswith("$$", i)
            self.mode, self.i = (DOUBLE, i + 2) if double else (DOLLAR, i + 1)
        elif (m := _RUN.match(line, i)) is not None:
            run = m.group()
            if _checkable(run, _chunk(line, m.start(), m.end())):
                text = run.replace("’", "'")
                self.words.append(Word(m.start(), m.end(), text))
            self.i = m.end()
        else:
            self.i = i + 1

    def command(self) -> None:
        m = _COMMAND.match(self.line, self.i)
        name = m.group() if m else "\\"
        self.i = m.end() if m else self.i + 1
        if name in ("\\(", "\\["):
            self.mode = PAREN if name == "\\(" else BRACKET
            return
        bare = name[1:]
        if bare in ("begin", "end"):
            env = _ENV.match(self.line, self.i)
            if env is None:
                return
            self.i = env.end()
            if bare == "begin":
                self.begin(env.group(1).strip())
            return
        if bare in ("verb", "verb*", "lstinline") and self.i < len(self.line):
            delimiter = self.line[self.i]
            if delimiter == "{":
                self.skip_arguments(1)
                return
            close = self.line.find(delimiter, self.i + 1)
            self.i = len(self.line) if close < 0 else close + 1
            return
        if bare in KEY_ARGUMENTS:
            self.skip_arguments(KEY_ARGUMENTS[bare])
        elif bare[:1].isalpha():
            self.skip_options()

    def begin(self, env: str) -> None:
        if env in MATH_ENVIRONMENTS:
            self.mode, self.extra = MATH_ENV, MATH_ENVIRONMENTS.index(env)
        elif env in VERBATIM_ENVIRONMENTS:
            self.skip_options()
            self.skip_arguments(ENV_ARGUMENTS.get(env, 0))
            if self.mode == PROSE:
                self.mode, self.extra = VERBATIM, VERBATIM_ENVIRONMENTS.index(env)
        else:
            self.skip_options()
            self.skip_arguments(ENV_ARGUMENTS.get(env, 0))


def prose_words(line: str, state: int = PROSE) -> tuple[list[Word], int]:
    """The prose words of `line` (see the module doc) and the state the next line starts in."""
    return _LineScan(line, state).run()


def document_words(tex: str) -> Iterator[tuple[int, Word]]:
    """(1-based line, word) for every prose word of a whole document."""
    state = PROSE
    for n, line in enumerate(tex.splitlines(), 1):
        words, state = prose_words(line, state)
        for word in words:
            yield n, word


# -- the dictionaries ---------------------------------------------------------------------

# British spellings whose American form is the dictionary's: (British ending, American).
_BRITISH = (
    ("isation", "ization"),
    ("isations", "izations"),
    ("ise", "ize"),
    ("ised", "ized"),
    ("ises", "izes"),
    ("ising", "izing"),
    ("yse", "yze"),
    ("ysed", "yzed"),
    ("ysing", "yzing"),
    ("our", "or"),
    ("ours", "ors"),
    ("oured", "ored"),
    ("ouring", "oring"),
    ("ourite", "orite"),
    ("tre", "ter"),
    ("tres", "ters"),
    ("logue", "log"),
    ("logues", "logs"),
    ("lled", "led"),
    ("lling", "ling"),
    ("ence", "ense"),
)


def _american(word: str) -> Iterator[str]:
    for british, american in _BRITISH:
        if word.endswith(british) and len(word) > len(british) + 1:
            yield word[: -len(british)] + american


@lru_cache(maxsize=4)
def _checker(language: str) -> SpellChecker | None:
    """pyspellchecker for `language`, loaded once per process; None if it has none."""
    from spellchecker import SpellChecker

    try:
        return SpellChecker(language=language, distance=1)
    except ValueError:  # no dictionary for this language
        return None


def _available(language: str) -> bool:
    from importlib.resources import files

    return (files("spellchecker") / "resources" / f"{language}.json.gz").is_file()


class PersonalDictionary:
    """The person's own words: one a line in LABWRIGHT_HOME/dictionary.txt (UTF-8)."""

    def __init__(self, path: Path | None = None) -> None:
        self.path = path or labwright_home() / DICTIONARY_FILE
        self._lock = threading.Lock()
        try:
            text = self.path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            text = ""
        self.words = {w.strip() for w in text.splitlines() if w.strip()}

    def __contains__(self, word: str) -> bool:
        return word in self.words or word.lower() in self.words

    def add(self, word: str) -> None:
        """Keep `word`, written atomically (a crash never leaves half a list)."""
        with self._lock:
            self.words.add(word)
            self.path.parent.mkdir(parents=True, exist_ok=True)
            atomic_write_text(self.path, "".join(f"{w}\n" for w in sorted(self.words)))


class Speller:
    """Which prose words are misspelt, and what to write instead.

    English always, and the report's language when pyspellchecker has a dictionary for
    it (a Chinese report: its Latin words are checked against English)."""

    def __init__(self, language: str = "en", personal: PersonalDictionary | None = None) -> None:
        self.language = language
        self.languages = ["en"] + ([language] if language != "en" and _available(language) else [])
        self.personal = personal if personal is not None else PersonalDictionary()
        self.ignored: set[str] = set()
        self._known: dict[str, bool] = {}

    def _checkers(self) -> list[SpellChecker]:
        return [c for lang in self.languages if (c := _checker(lang)) is not None]

    def _in_dictionary(self, word: str) -> bool:
        lower = word.lower()
        if lower.endswith("'s"):
            lower = lower[:-2]
        candidates = [lower, *_american(lower)]
        return any(c in checker for checker in self._checkers() for c in candidates)

    def is_misspelt(self, word: str) -> bool:
        if word in self.ignored or word in self.personal:
            return False
        known = self._known.get(word)
        if known is None:
            known = self._known[word] = self._in_dictionary(word)
        return not known

    def misspelt(self, words: Iterable[Word]) -> list[Word]:
        return [w for w in words if self.is_misspelt(w.text)]

    def suggestions(self, word: str, limit: int = MAX_SUGGESTIONS) -> list[str]:
        """Up to `limit` dictionary words near `word`, most common first, in its case."""
        lower = word.lower()
        ranked: dict[str, float] = {}
        for checker in self._checkers():
            # one edit away first: two edits of a long word take pyspellchecker seconds
            found = checker.known(checker.edit_distance_1(lower))
            if not found and len(lower) <= 8:
                found = checker.known(checker.edit_distance_2(lower))
            for candidate in found:
                ranked[candidate] = max(
                    ranked.get(candidate, 0.0), checker.word_usage_frequency(candidate)
                )
        best = sorted(ranked, key=lambda w: (-ranked[w], w))[:limit]
        return [_like(word, w) for w in best]

    def ignore(self, word: str) -> None:
        """Not misspelt for the rest of this session."""
        self.ignored.add(word)

    def add(self, word: str) -> None:
        """Not misspelt from now on: into the personal dictionary."""
        self.personal.add(word)


def _like(original: str, word: str) -> str:
    """`word` in the case of `original` (Recieve -> Receive)."""
    if original[:1].isupper():
        return word[:1].upper() + word[1:]
    return word
