"""A long plain numeric body is checked row by row, not read as a grid (detect.py).

The detector reads the first FIRST_ROWS rows of a head as a grid; a table whose
body ends them as a rectangle of numbers goes on row by row while each row is
the same rectangle. Whatever a file holds, the tables and left-overs must be
exactly those the grid finds when it reads the whole head: every test here
compares the two, on files built to break the rectangle in every way the grid
cares about (words, gaps, cells beside, missing values, a second table, a
column that starts late), at random places, and on the messy corpus.
"""

from __future__ import annotations

import dataclasses
import importlib
import importlib.util
import random
from pathlib import Path

import pytest

from labwright.core.material.tables import FileTables, scan_tables

detect_module = importlib.import_module("labwright.core.material.tables.detect")
MAKE = Path(__file__).parent / "data" / "messy" / "make_messy.py"


def _fingerprint(found: FileTables | None) -> str:
    """Everything a scan says: every field of every table, the left-overs, the written
    text of every kept number; as its repr, where NaN (an empty column's peak) equals
    NaN."""
    if found is None:
        return "None"
    return repr(
        (
            [(dataclasses.asdict(t), t.written) for t in found.tables],
            [(sheet, dataclasses.asdict(x)) for sheet, x in found.leftovers],
        )
    )


def _grid_sizes(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The number of rows of every grid read_grid is given from now on."""
    sizes: list[int] = []
    real = detect_module.read_grid

    def counting(grid, max_rows, **kw):
        sizes.append(len(grid))
        return real(grid, max_rows, **kw)

    monkeypatch.setattr(detect_module, "read_grid", counting)
    return sizes


def _both(folder: Path, rel: str, monkeypatch: pytest.MonkeyPatch, max_rows: int = 500):
    """The scan as it is, and with the whole head read as a grid (the first grid is
    the whole head: no row is only checked)."""
    fast = scan_tables(folder, rel, max_rows=max_rows)
    with monkeypatch.context() as m:
        m.setattr(detect_module, "FIRST_ROWS", detect_module.HEAD_ROWS)
        whole = scan_tables(folder, rel, max_rows=max_rows)
    return fast, whole


def _write(folder: Path, name: str, lines: list[str]) -> str:
    (folder / name).write_text("\n".join(lines) + "\n", encoding="utf-8")
    return name


def _body(n: int, cols: int = 3, start: int = 0, sep: str = ",") -> list[str]:
    return [sep.join(f"{(i + start) * (k + 1) * 0.125:.3f}" for k in range(cols)) for i in range(n)]


def test_a_plain_numeric_csv_is_read_as_a_grid_for_its_first_rows_only(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    rel = _write(tmp_path, "data.csv", ["t (s),x (m),v (m/s)", *_body(1000)])
    sizes = _grid_sizes(monkeypatch)
    found = scan_tables(tmp_path, rel, max_rows=5)
    assert found is not None
    [table] = found.tables
    assert (table.cell_range(), table.n_rows, len(table.rows)) == ("lines 1–1001", 1000, 5)
    assert table.columns == ["t (s)", "x (m)", "v (m/s)"]
    assert sizes and max(sizes) <= 100  # the other 900 rows were never a grid
    # the statistics are over all 1000 rows all the same
    x = next(s for s in table.stats or [] if s.name == "x (m)")
    assert (x.n, x.max) == (1000, pytest.approx(999 * 2 * 0.125))


def test_a_rectangle_broken_after_the_first_rows_is_read_as_a_grid_after_all(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Positive control of the test above: its count sees a grid read whole.
    lines = ["a,b,c", *_body(1000)]
    lines[500] += ",note"  # a cell beside the table, 500 rows down
    rel = _write(tmp_path, "data.csv", lines)
    sizes = _grid_sizes(monkeypatch)
    fast, whole = _both(tmp_path, rel, monkeypatch)
    assert max(sizes) == 1001
    assert _fingerprint(fast) == _fingerprint(whole)


def _case(kind: str, rng: random.Random, n: int) -> list[str]:
    """A file whose first 100+ rows are a plain table, broken at a random row past them."""
    cols = rng.choice([2, 3, 4])
    head = rng.choice(
        [
            [],
            ["t (s),x (m),y (m),z (m)"[: 4 + 6 * cols]],
            ["Run 3, 12 May", "", "t,x,y,z"[: 2 * cols - 1], "s,m,m,m"[: 2 * cols - 1]],
        ]
    )
    body = _body(n, cols)
    at = rng.randrange(90, n - 5)
    if kind == "words":
        body[at] = "Mean" + body[at][body[at].index(",") :]
    elif kind == "missing":
        body[at] = "-" + body[at][body[at].index(",") :]
    elif kind == "beside":
        body[at] += ",,see note 3"
    elif kind == "short":
        body[at] = body[at].rsplit(",", 1)[0]
    elif kind == "blank":
        body.insert(at, "")
    elif kind == "second_table":
        body[at:at] = ["Run B", "u,w,q,r"[: 2 * cols - 1]]
    elif kind == "late_column":
        body = [r if i < at else r + ",7.5" for i, r in enumerate(body)]
    elif kind == "count_row":
        body[at] = ",".join(str(k + 1) for k in range(cols))
    elif kind == "notes_below":
        body += ["", "Notes: the rail was levelled", "g = 9.81"]
    return head + body


KINDS = [
    "plain",
    "words",
    "missing",
    "beside",
    "short",
    "blank",
    "second_table",
    "late_column",
    "count_row",
    "notes_below",
]


@pytest.mark.parametrize("kind", KINDS)
def test_the_tables_are_those_of_the_whole_grid_whatever_breaks_the_rectangle(
    kind: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    rng = random.Random(f"plain-body-{kind}")
    # past HEAD_ROWS (2000) once: the rows after the head are read in bulk
    for i, n in enumerate([150, 400, 1200, 2300]):
        rel = _write(tmp_path, f"{kind}{i}.csv", _case(kind, rng, n))
        max_rows = 5 if i % 2 else 500  # the outline's, collect_data's
        fast, whole = _both(tmp_path, rel, monkeypatch, max_rows)
        assert fast is not None and fast.tables
        assert _fingerprint(fast) == _fingerprint(whole), (kind, i, n, max_rows)


def _sparse_column_above(n: int) -> list[str]:
    # A fourth column in rows 1-60 only, with a word in it at row 30: among the first
    # 100 rows it is a column of numbers (the word splits the table there); among
    # 1,000 it is not. Row 61's word ends that part; the rectangle below it starts
    # right under a data row.
    top = [f"{i},{i + 1},{i + 2},{i + 3}" if i != 30 else "1,2,3,word" for i in range(1, 61)]
    return [*top, "word,1.5,2.5", *_body(n - 61)]


def _sparse_column_in_the_body(n: int) -> list[str]:
    # The third column holds numbers in 40 of the first 100 rows, and a word at row
    # 70: not a column of numbers there (the word splits nothing), but one over all
    # the rows, which are whole from row 101 on.
    rows = _body(n)
    for i in range(40, 100):
        rows[i] = rows[i].rsplit(",", 1)[0] + ("," if i != 70 else ",word")
    return rows


def _template_filled_in_later(n: int) -> list[str]:
    # Set points only for 150 rows under a header of two columns (a template, among
    # the first 100 rows); the readings come after: a table of two columns in all.
    return ["f (kHz),U (V)", *(f"{i}," for i in range(150)), *_body(n - 151, cols=2)]


@pytest.mark.parametrize(
    "lines", [_sparse_column_above, _sparse_column_in_the_body, _template_filled_in_later]
)
def test_what_more_rows_would_change_is_read_as_a_grid(
    lines, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    rel = _write(tmp_path, "data.csv", lines(1000))
    fast, whole = _both(tmp_path, rel, monkeypatch)
    assert fast is not None and fast.tables
    assert _fingerprint(fast) == _fingerprint(whole)
    with monkeypatch.context() as m:  # what the grid of the first rows alone decides
        m.setattr(detect_module, "HEAD_ROWS", detect_module.FIRST_ROWS)
        first = scan_tables(tmp_path, rel)
    assert first is not None

    def decided(found: FileTables) -> list[tuple[str, list[str], bool]]:
        return [(t.cell_range(), t.columns, t.template) for t in found.tables]

    assert decided(first) != decided(whole)  # so the case needs the whole grid


def test_a_workbook_sheet_and_a_decimal_comma_file_alike(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import openpyxl

    wb = openpyxl.Workbook()
    ws = wb.active
    ws.append(["Angle (°)", "Range (m)"])
    for i in range(600):
        ws.append([i * 0.5, i * 0.01] if i != 420 else [i * 0.5, "n/a"])
    wb.save(tmp_path / "runs.xlsx")
    body = [r.replace(",", ";").replace(".", ",") for r in _body(700)]
    _write(tmp_path, "komma.csv", ["U;I;P", *body])
    for rel in ("runs.xlsx", "komma.csv"):
        fast, whole = _both(tmp_path, rel, monkeypatch)
        assert fast is not None and fast.tables
        assert _fingerprint(fast) == _fingerprint(whole), rel


def test_the_messy_corpus_alike(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    spec = importlib.util.spec_from_file_location("make_messy", MAKE)
    assert spec is not None and spec.loader is not None
    maker = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(maker)
    maker.make(tmp_path)
    maker.big(tmp_path, rows=5000)
    rels = [p.relative_to(tmp_path).as_posix() for p in sorted(tmp_path.rglob("*")) if p.is_file()]
    assert len(rels) > 10
    for rel in rels:
        fast, whole = _both(tmp_path, rel, monkeypatch)
        assert _fingerprint(fast) == _fingerprint(whole), rel
