"""How a requirement found matches one of the TA's: most of the letter triples of one are
in the other. Used by test_manual_corpus.py and bench/bench_manual.py; no labwright import,
so the bench can measure older code with it."""

from __future__ import annotations

import re
import unicodedata


def _trigrams(text: str) -> set[str]:
    t = re.sub(r"[\W_]+", "", unicodedata.normalize("NFKC", text)).casefold()
    return {t[i : i + 3] for i in range(max(1, len(t) - 2))}


def _coverage(expected: str, found: str) -> float:
    e, f = _trigrams(expected), _trigrams(found)
    one_way = len(e & f) / len(e)
    other = len(e & f) / len(f) if 3 * len(f) >= len(e) else 0.0
    return max(one_way, other)


def match(expected: list[str], found: list[str], threshold: float = 0.6) -> dict[int, int]:
    """Expected index → found index, best pairs first, each used once."""
    pairs = sorted(
        ((_coverage(e, f), i, j) for i, e in enumerate(expected) for j, f in enumerate(found)),
        reverse=True,
    )
    used_e: set[int] = set()
    used_f: set[int] = set()
    out: dict[int, int] = {}
    for score, i, j in pairs:
        if score < threshold:
            break
        if i not in used_e and j not in used_f:
            used_e.add(i)
            used_f.add(j)
            out[i] = j
    return out


def recall_precision(expected: list[str], found: list[str]) -> tuple[float, float]:
    hits = len(match(expected, found))
    recall = hits / len(expected) if expected else float(not found)
    precision = hits / len(found) if found else float(not expected)
    return recall, precision
