"""The manual's structure on the TA corpus: requirements, parts and questions found per folder.

For each corpus folder ($LABWRIGHT_CORPUS or ~/.cache/labwright-corpus) it reads the
manual as the offline report and the agent do, and prints how many requirements it found
(tasks and questions), in how many parts, with their recall and precision against the
TA's list (expected.json `requirements`, matched as tests/corpus/test_manual_corpus.py
does). Run it on older code (PYTHONPATH=<other tree>/desktop) to compare: there only
the flat list of requirements exists.

    .venv/bin/python bench/bench_manual.py [FOLDER ...]

It ends with a RESULT line for the share of the TA's requirements found and for the share
of those found that the TA lists (no goal; tests/corpus/test_manual_corpus.py holds the
floors per folder).
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "corpus"))

from requirement_match import recall_precision  # noqa: E402  (the tests' own matcher)

from _result import result  # noqa: E402
from labwright.core.material.workspace import scan_folder  # noqa: E402


def corpus_dir() -> Path:
    return Path(os.environ.get("LABWRIGHT_CORPUS") or Path.home() / ".cache" / "labwright-corpus")


def found_in(material: Path) -> tuple[list[str], int, int, int]:
    """The requirements' texts, and how many are tasks, questions and parts."""
    documents = scan_folder(material).sample.get("documents", [])
    try:
        from labwright.core.report.offline.requirements import read_manual
    except ImportError:  # older code: a flat list, no kinds, no parts
        from labwright.core.report.offline.manual import manual_requirements

        texts = list(manual_requirements(material, documents))
        return texts, len(texts), 0, 0
    manual = read_manual(material, documents)
    reqs = manual.requirements
    questions = sum(r.is_question for r in reqs)
    return [r.text for r in reqs], len(reqs) - questions, questions, len(manual.parts)


def main(argv: list[str]) -> int:
    corpus = corpus_dir()
    folders = [corpus / f for f in argv] or sorted(
        p for p in corpus.iterdir() if (p / "expected.json").is_file()
    )
    if not folders:
        print(f"no corpus at {corpus} (set LABWRIGHT_CORPUS)", file=sys.stderr)
        return 2
    print(
        f"{'folder':28} {'found':>5} {'tasks':>5} {'quest.':>6} {'parts':>5} {'TA':>3}  recall  precision"
    )
    total_found = total_hits = total_ta = 0
    for folder in folders:
        expected = json.loads((folder / "expected.json").read_text("utf-8"))["requirements"]
        texts, tasks, questions, parts = found_in(folder / "material")
        recall, precision = recall_precision(expected, texts)
        total_found += len(texts)
        total_ta += len(expected)
        total_hits += round(recall * len(expected))
        print(
            f"{folder.name:28} {len(texts):5} {tasks:5} {questions:6} {parts:5} "
            f"{len(expected):3}  {recall:6.2f}  {precision:9.2f}"
        )
    print(f"found {total_found}; of the TA's {total_ta}, {total_hits}")
    result("manual_recall", 100 * total_hits / total_ta if total_ta else 0.0, None, "%")
    result("manual_precision", 100 * total_hits / total_found if total_found else 0.0, None, "%")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
