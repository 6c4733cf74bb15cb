"""Write docs/cli-reference.md from the command line's own parser (`labwright COMMAND --help`).

    .venv/bin/python scripts/cli_reference.py          # rewrite the file
    .venv/bin/python scripts/cli_reference.py --check  # exit 1 if it is out of date

tests/test_docs.py runs the check, so the reference can never drift from the parser.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

OUT = Path(__file__).resolve().parents[1] / "docs" / "cli-reference.md"
WIDTH = "100"  # argparse wraps to $COLUMNS: fixed, so the file is the same on every terminal


def reference() -> str:
    os.environ["COLUMNS"] = WIDTH
    from labwright.cli import _parser

    parser = _parser()
    parts = [
        "# Command-line reference",
        "",
        "Generated from the parser by `scripts/cli_reference.py`; do not edit by hand. "
        "What the commands do and how the options combine: [cli.md](cli.md).",
        "",
        "## labwright",
        "",
        "```",
        parser.format_help().rstrip(),
        "```",
    ]
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    for name, command in sub.choices.items():
        parts += ["", f"## labwright {name}", "", "```", command.format_help().rstrip(), "```"]
    return "\n".join(parts) + "\n"


def main(argv: list[str]) -> int:
    text = reference()
    if "--check" in argv:
        current = OUT.read_text(encoding="utf-8") if OUT.exists() else ""
        if current != text:
            print(f"{OUT} is out of date: run scripts/cli_reference.py", file=sys.stderr)
            return 1
        return 0
    OUT.write_text(text, encoding="utf-8")
    print(f"wrote {OUT}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
