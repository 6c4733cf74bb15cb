"""Finding the tables in a sheet or file: a grid of cells to tables and left-over cells.

A sheet rarely holds one tidy table. Tables stand one under the other and side
by side, with titles and notes above, one- or two-row headers (the second row
often units, or trial numbers 1-4), and the data rows. The head of the rows
(HEAD_ROWS at a time) is taken as a grid and read so:

* cells touching one another (also diagonally) form a *block*; blank rows and
  columns separate blocks, so a table beside another is never glued to it;
* in a block, a *data row* holds a number; a run of data rows is a table's
  body (a row with words in a column of numbers ends it: a "Mean" row);
* the rows right above the body that hold words only are its header (at most
  two rows of names and one of units; a row of 1, 2, 3, 4 over trials
  counts); a header may stand one blank row above its body. A row with a
  number other than such a count is never a header;
* up to two lines of words above the header (in the block or just above it)
  are the title;
* a table that reaches the end of the head goes on as long as the following
  rows fit its columns: those rows are streamed, never held (statistics over
  all of them, the first rows kept to show, an even sample kept to plot).

Reading a head as a grid costs tens of microseconds a cell. A plain numeric
file (most data files) is one table whose body is a rectangle of numbers, and
more rows of that rectangle change nothing the grid decides but where the table
ends. So the first FIRST_ROWS rows are read as a grid first; when they end in
such a body (`_plain_body`), the head goes on row by row for as long as each row
is the same rectangle, and the rows are added to the table without a grid. The
first row that is not sends the whole head through the grid as before: the
tables found are the same either way (tests/test_tables_messy.py compares them).

Every cell that is in no table is reported as left over, with its range.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field

import numpy as np

from labwright.core.material.readers.workbook import format_float
from labwright.core.material.tables.accum import Accumulator
from labwright.core.material.tables.cells import Cell, Row, Written, is_missing
from labwright.core.material.tables.facts import SummaryCell
from labwright.core.material.tables.roles import unit_cell
from labwright.core.material.tables.stated import Stated, stated_in_grid
from labwright.core.material.tables.summary import (
    cell_words,
    is_summary_label,
    summary_kind,
)
from labwright.core.material.tables.transposed import Part, find_parts, quantity_name

HEAD_ROWS = 2000
FIRST_ROWS = 100  # read as a grid first: a plain numeric body past them is only checked
SAMPLE_ROWS = 2000  # rows spread over the whole table, for plots
# A stream longer than this is cut, and the cut is reported.
MAX_STREAM_ROWS = 5_000_000


@dataclass
class Leftover:
    """Cells in no table: a block of notes, a lone number, a summary row."""

    first_row: int
    last_row: int
    first_col: int
    last_col: int
    # "text" (words only), "numbers", "repeat" (copy of a table), "unread", "metadata"
    # (an instrument's settings beside its data: Record Length, Sample Interval)
    kind: str
    excerpt: str


@dataclass
class Builder:
    """A table as it is being read."""

    first_row: int
    cols: list[int]  # sheet columns (from 0), left to right
    kinds: list[str]  # "number" | "text" | "empty" per column
    header_rows: list[int]
    header_cells: list[list[Cell]]  # per header row, per column in `cols`
    unit_row: int | None
    title_rows: list[int]
    title: list[str]
    span: tuple[int, int]  # first and last sheet column of the table (header included)
    max_rows: int
    last_row: int = 0
    rows: list[list[float | None]] = field(default_factory=list)
    written: list[list[str | None]] = field(default_factory=list)
    labels: list[list[str | None]] = field(default_factory=list)
    n: int = 0
    sample: list[list[float | None]] = field(default_factory=list)
    sample_labels: list[list[str | None]] = field(default_factory=list)
    stride: int = 1
    acc: Accumulator | None = None
    cut: bool = False
    template: bool = False  # only the set points are filled in
    summaries: list[SummaryCell] = field(default_factory=list)
    # A table written sideways (transposed.py): its rows were given when it was made,
    # one per sheet column (named in `row_names`), and it never streams on.
    transposed: bool = False
    complete: bool = False
    row_names: list[str] = field(default_factory=list)
    sheet_range: str | None = None
    curve: tuple[str, float, str] | None = None  # the label row above a transposed block
    block: int | None = None  # which block of the grid it was read from
    metadata: tuple[int, int, list[int]] | None = None  # rows and columns of settings beside it

    def __post_init__(self) -> None:
        self.acc = Accumulator(len(self.cols))
        self._numeric = [k == "number" or k == "empty" for k in self.kinds]
        self._texts = [k == "text" for k in self.kinds]
        self._group = next((i for i, k in enumerate(self.kinds) if k == "text"), None)

    def fits(self, cells: Sequence[Cell]) -> bool | None:
        """True: the row continues the table; None: the table's columns are empty there;
        False: something else is there (words in a column of numbers)."""
        numbers = 0
        anything = False
        a, b = self.span
        for c in range(a, min(b + 1, len(cells))):
            cell = cells[c]
            if cell is None:
                continue
            anything = True
            if isinstance(cell, float):
                numbers += 1
                continue
            try:
                i = self.cols.index(c)
            except ValueError:
                return False
            if self._numeric[i] and not is_missing(cell):
                return False
        if not anything:
            return None
        return numbers > 0

    def add(self, number: int, cells: Sequence[Cell]) -> None:
        values: list[float | None] = []
        texts: list[str | None] = []
        for c in self.cols:
            cell = cells[c] if c < len(cells) else None
            if isinstance(cell, float):
                values.append(float(cell))
                texts.append(None)
            else:
                values.append(None)
                texts.append(cell if isinstance(cell, str) and not is_missing(cell) else None)
        self.n += 1
        self.last_row = number
        group = texts[self._group] if self._group is not None else None
        assert self.acc is not None
        self.acc.add(values, group)
        if len(self.rows) < self.max_rows:
            self.rows.append(values)
            self.written.append(
                [
                    cell.text if isinstance(cell := (cells[c] if c < len(cells) else None), Written)
                    else None
                    for c in self.cols
                ]
            )  # fmt: skip
            self.labels.append(texts)
        if (self.n - 1) % self.stride == 0:
            self.sample.append(values)
            self.sample_labels.append(texts)
            if len(self.sample) >= 2 * SAMPLE_ROWS:
                self.sample = self.sample[::2]
                self.sample_labels = self.sample_labels[::2]
                self.stride *= 2

    def add_block(self, first_line: int, block: np.ndarray) -> None:
        """Rows read in bulk (a numeric table streamed by pandas): all columns numeric."""
        k = int(block.shape[0])
        if not k:
            return
        assert self.acc is not None
        self.acc.flush()
        self.acc.fold_block(block)
        room = self.max_rows - len(self.rows)
        for row in block[: max(room, 0)].tolist():
            values = [None if v != v else v for v in row]
            self.rows.append(values)
            self.written.append([None] * len(self.cols))
            self.labels.append([None] * len(self.cols))
        # The even sample: the rows whose number in the table is a multiple of the stride.
        g = -(-self.n // self.stride) * self.stride
        while g < self.n + k:
            row = block[g - self.n].tolist()
            self.sample.append([None if v != v else v for v in row])
            self.sample_labels.append([None] * len(self.cols))
            if len(self.sample) >= 2 * SAMPLE_ROWS:
                self.sample = self.sample[::2]
                self.sample_labels = self.sample_labels[::2]
                self.stride *= 2
            g = (g // self.stride + 1) * self.stride
        self.n += k
        self.last_row = first_line + k - 1


@dataclass
class Found:
    tables: list[Builder]
    leftovers: list[Leftover]
    # Set when the caller streams the rest in bulk: the one table going on past the
    # head, and the line it goes on from.
    resume: tuple[Builder, int] | None = None
    stated: list[Stated] = field(default_factory=list)  # values stated beside the tables
    record: list[tuple[int, int]] = field(default_factory=list)  # a record sheet's header cells


@dataclass
class Grid:
    """What one grid holds: tables, cells in none, stated values, a record sheet's header."""

    tables: list[Builder]
    leftovers: list[Leftover]
    stated: list[Stated]
    record: list[tuple[int, int]]


# --------------------------------------------------------------------------
# The stream: heads, then tables that go on
# --------------------------------------------------------------------------


def detect(
    rows: Iterable[Row], max_rows: int, *, bulk: bool = False, text_file: bool = False
) -> Found:
    """Every table and every left-over cell of one sheet or file.

    With `bulk`, a single numeric table still going at the end of a head is
    not streamed here: `Found.resume` says where it goes on, for a faster reader.
    """
    found = Found([], [])
    stream: Iterator[Row] = iter(rows)
    streamed = 0
    while True:
        head, grid = _read_head(stream, max_rows, text_file)
        if not head:
            return found
        tables, leftovers = grid.tables, grid.leftovers
        if len(head) < HEAD_ROWS:
            found.tables += tables
            found.leftovers += leftovers
            found.stated += grid.stated
            found.record += grid.record
            return found
        last = head[-1].number
        active = [t for t in tables if t.last_row == last and not t.complete]
        if not active:
            # Keep what is surely complete; the rows after the last table are read
            # again with the next head (a header there may belong to rows beyond it).
            ends = [t.last_row for t in tables]
            keep_until = max(ends) if ends else head[len(head) // 2].number
            found.tables += tables
            found.leftovers += [x for x in leftovers if x.last_row <= keep_until]
            found.stated += [x for x in grid.stated if x.last[0] <= keep_until]
            found.record += [x for x in grid.record if x[0] <= keep_until]
            rest = [r for r in head if r.number > keep_until]
            found.leftovers += _straddling(leftovers, keep_until)
            stream = itertools.chain(rest, stream)
            continue
        found.tables += tables
        found.leftovers += leftovers
        found.stated += grid.stated
        found.record += grid.record
        if bulk and len(active) == 1 and all(k == "number" for k in active[0].kinds):
            found.resume = (active[0], last + 1)
            return found
        spans = [t.span for t in active]
        stopped: Row | None = None
        for row in stream:
            streamed += 1
            if streamed > MAX_STREAM_ROWS:
                for t in active:
                    t.cut = True
                found.leftovers.append(
                    Leftover(row.number, row.number, 0, max(b for _, b in spans), "unread", "")
                )
                return found
            if row.number != last + 1 or _outside(row.cells, spans):
                stopped = row
                break
            ok = [t.fits(row.cells) for t in active]
            if any(f is False for f in ok) or not any(ok):
                stopped = row
                break
            for t, f in zip(active, ok, strict=True):
                if f:
                    t.add(row.number, row.cells)
            # A side table that has ended stays ended: its columns must stay empty.
            active = [t for t, f in zip(active, ok, strict=True) if f]
            spans = [t.span for t in active]
            last = row.number
        if stopped is None:
            return found
        stream = itertools.chain([stopped], stream)


def _read_head(stream: Iterator[Row], max_rows: int, text_file: bool) -> tuple[list[Row], Grid]:
    """The next head of up to HEAD_ROWS rows and its grid (the tables' rows added)."""
    head = list(itertools.islice(stream, FIRST_ROWS))
    if len(head) == FIRST_ROWS < HEAD_ROWS:
        grid = _grid_with_rows(head, max_rows, text_file)
        body = _plain_body(head, grid.tables)
        if body is not None:
            cols = set(body.cols)
            for row in stream:
                head.append(row)
                if row.number != body.last_row + 1 or not _same_rectangle(row.cells, cols):
                    break  # something else: the grid reads the whole head after all
                body.add(row.number, row.cells)
                if len(head) == HEAD_ROWS:
                    return head, grid
            else:
                return head, grid
        head += itertools.islice(stream, HEAD_ROWS - len(head))
    return head, _grid_with_rows(head, max_rows, text_file)


def _grid_with_rows(head: list[Row], max_rows: int, text_file: bool) -> Grid:
    """The head read as a grid, each table that is still open given its rows."""
    grid = read_grid(head, max_rows, text_file=text_file)
    for t in grid.tables:
        if t.complete:
            continue
        for number, cells in _rows_of(head, t):
            t.add(number, cells)
    return grid


def _plain_body(head: list[Row], tables: list[Builder]) -> Builder | None:
    """The table of this grid whose body ends the head as a rectangle of numbers, when
    more such rows would change nothing the grid decides: every row of the body has a
    number in each of its columns and nothing else (so every column stays one of
    numbers however many rows come, and no row is a trailing summary, which is less
    filled or labelled), and the row above it holds no number (so no run of data rows
    reaches into the body from above, whose split more rows could move)."""
    last = head[-1].number
    active = [t for t in tables if t.last_row == last]
    if len(active) != 1 or active[0].complete or active[0].transposed:
        return None
    t = active[0]
    cols = set(t.cols)
    rows = [r for r in head if r.number >= t.first_row - 1]
    if rows[0].number == t.first_row - 1:
        if any(isinstance(c, float) for c in rows[0].cells):
            return None
        rows = rows[1:]
    if rows[0].number != t.first_row or len(rows) != last - t.first_row + 1:
        return None  # a gap in the body (cannot be: a blank row ends a block)
    return t if all(_same_rectangle(r.cells, cols) for r in rows) else None


def _same_rectangle(cells: Sequence[Cell], cols: set[int]) -> bool:
    """A number in each of `cols` and nothing anywhere else."""
    filled = 0
    for c, cell in enumerate(cells):
        if cell is None:
            continue
        if c not in cols or not isinstance(cell, float):
            return False
        filled += 1
    return filled == len(cols)


def _straddling(leftovers: list[Leftover], keep_until: int) -> list[Leftover]:
    """Left-over rows that begin before the cut and go on past it: their top part."""
    out = []
    for x in leftovers:
        if x.first_row <= keep_until < x.last_row:
            out.append(
                Leftover(x.first_row, keep_until, x.first_col, x.last_col, x.kind, x.excerpt)
            )
    return out


def cells_in(cells: Sequence[Cell], span: tuple[int, int]) -> bool:
    return any(c is not None for c in cells[span[0] : span[1] + 1])


def _outside(cells: Sequence[Cell], spans: list[tuple[int, int]]) -> bool:
    for c, cell in enumerate(cells):
        if cell is not None and not any(a <= c <= b for a, b in spans):
            return True
    return False


def _rows_of(head: list[Row], t: Builder) -> list[tuple[int, Sequence[Cell]]]:
    first, last = t.first_row, t.last_row
    return [(row.number, row.cells) for row in head if first <= row.number <= last]


# --------------------------------------------------------------------------
# One grid
# --------------------------------------------------------------------------


def _blocks(grid: list[Row]) -> list[dict[int, list[int]]]:
    """Cells touching one another, as {row number: [columns]} per block, top to bottom."""
    parent: dict[tuple[int, int], tuple[int, int]] = {}

    def find(x: tuple[int, int]) -> tuple[int, int]:
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    def union(a: tuple[int, int], b: tuple[int, int]) -> None:
        ra, rb = find(a), find(b)
        if ra != rb:
            parent[max(ra, rb)] = min(ra, rb)

    previous: tuple[int, set[int]] = (-10, set())
    for row in grid:
        filled = [c for c, cell in enumerate(row.cells) if cell is not None]
        above = previous[1] if previous[0] == row.number - 1 else set()
        here = set(filled)
        for c in filled:
            parent[(row.number, c)] = (row.number, c)
            if c - 1 in here:
                union((row.number, c), (row.number, c - 1))
            for d in (c - 1, c, c + 1):
                if d in above:
                    union((row.number, c), (row.number - 1, d))
        previous = (row.number, here)
    blocks: dict[tuple[int, int], dict[int, list[int]]] = {}
    for key in parent:
        blocks.setdefault(find(key), {}).setdefault(key[0], []).append(key[1])
    out = list(blocks.values())
    for b in out:
        for cols in b.values():
            cols.sort()
    out.sort(key=lambda b: (min(b), min(min(c) for c in b.values())))
    return out


def _count_header(cells: list[Cell]) -> bool:
    """A row counting trials (1, 2, 3, 4 across the columns), with words or not; the count
    may start again under each group ("1 2 3 Average 1 2 3 Average" under Voltage, Current)."""
    numbers = [c for c in cells if isinstance(c, float)]
    if len(numbers) < 2 or not all(n.is_integer() for n in numbers):
        return False
    runs = [[numbers[0]]]
    for a, b in itertools.pairwise(numbers):
        if b - a == 1:
            runs[-1].append(b)
        else:
            runs.append([b])
    return all(run[0] in (0.0, 1.0) and len(run) >= 2 for run in runs)


@dataclass
class _Run:
    rows: list[int]  # row numbers of the body


def read_grid(grid: list[Row], max_rows: int, *, text_file: bool = False) -> Grid:
    by_number = {row.number: row for row in grid}
    blocks = _blocks(grid)
    text_blocks = [b for b in blocks if _words_only(b, by_number)]
    claimed: set[int] = set()  # ids of text blocks taken as a header or title
    tables: list[Builder] = []
    used: set[tuple[int, int]] = set()
    titles: set[tuple[int, int]] = set()  # title cells: they may state a value too
    for index, block in enumerate(blocks):
        if id(block) in {id(b) for b in text_blocks}:
            continue
        parts = find_parts(block, by_number)
        if parts:
            for part in parts:
                sideways = _transposed_table(part, block, by_number, text_blocks, claimed, max_rows)
                sideways.block = index
                tables.append(sideways)
                rows = [*part.rows, part.count_row, part.label_row]
                for r in rows:
                    if r is not None:
                        used.update((r, c) for c in block.get(r, []))
                for r in sideways.title_rows:
                    near = [(r, c) for c in _cells_near(block, text_blocks, r, sideways.span)]
                    used.update(near)
                    titles.update(near)
            continue
        for run in _runs(block, by_number):
            table = _table(run, block, by_number, text_blocks, claimed, max_rows)
            if table is None:
                continue
            table.block = index
            tables.append(table)
            for r in run.rows:
                for c in block.get(r, []):
                    if table.metadata is None or c not in table.metadata[2]:
                        used.add((r, c))
            for r in table.header_rows + table.title_rows:
                for c in _cells_near(block, text_blocks, r, table.span):
                    used.add((r, c))
                    if r in table.title_rows:
                        titles.add((r, c))
    _find_summaries(tables, by_number, used)
    leftovers = _leftovers(blocks, by_number, used)
    _mark_metadata(tables, leftovers)
    tables.sort(key=lambda t: (t.first_row, t.span[0]))
    free = [(r, c) for block in blocks for r, cs in block.items() for c in cs
            if (r, c) not in used or (r, c) in titles]  # fmt: skip
    stated, record = stated_in_grid(by_number, free, text_file=text_file)
    return Grid(tables, leftovers, stated, record)


# --------------------------------------------------------------------------
# Tables written sideways
# --------------------------------------------------------------------------


def _transposed_table(
    part: Part,
    block: dict[int, list[int]],
    by_number: dict[int, Row],
    text_blocks: list[dict[int, list[int]]],
    claimed: set[int],
    max_rows: int,
) -> Builder:
    """A transposed part as a table: its quantities are the columns, its sheet columns the rows."""

    def cells(r: int) -> dict[int, Cell]:
        row = by_number[r].cells
        return {c: row[c] for c in block.get(r, []) if c < len(row)}

    quantity_rows = ([part.count_row] if part.count_row is not None else []) + part.rows
    names = [quantity_name(cells(r), part.label_cols) for r in quantity_rows]
    columns = [
        c for c in part.value_cols if any(isinstance(cells(r).get(c), float) for r in part.rows)
    ] or part.value_cols
    kinds = [
        "number" if any(isinstance(cells(r).get(c), float) for c in columns) else "empty"
        for r in quantity_rows
    ]
    top = part.label_row if part.label_row is not None else quantity_rows[0]
    title_rows, title = _title(
        top, block, by_number, text_blocks, claimed, [*part.label_cols, *columns]
    )
    summary_cols = [
        c for c in part.summary_cols if any(isinstance(cells(r).get(c), float) for r in part.rows)
    ]
    right = max([*columns, *summary_cols])
    left = min(part.label_cols)
    b = Builder(
        first_row=quantity_rows[0],
        cols=list(range(len(quantity_rows))),
        kinds=kinds,
        header_rows=[quantity_rows[0]],
        header_cells=[list(names)],
        unit_row=None,
        title_rows=title_rows,
        title=title,
        span=(left, right),
        max_rows=max_rows,
        last_row=quantity_rows[-1],
        transposed=True,
        complete=True,
        curve=part.curve,
    )
    for c in columns:
        b.add(c, [by_number[r].cells[c] if c < len(by_number[r].cells) else None
                  for r in quantity_rows])  # fmt: skip
        b.row_names.append(col_name(c))
    b.first_row, b.last_row = quantity_rows[0], quantity_rows[-1]
    b.sheet_range = f"{col_name(left)}{top}:{col_name(right)}{quantity_rows[-1]}"
    for c in summary_cols:
        label = cell_words(cells(part.count_row).get(c)) if part.count_row is not None else None
        for k, r in enumerate(quantity_rows):
            value = cells(r).get(c)
            if not isinstance(value, float):
                continue
            row = [v[k] for v in b.rows]
            kind = summary_kind(value, row) or "summary"
            b.summaries.append(
                SummaryCell(f"{col_name(c)}{r}", float(value), label, kind, names[k])
            )
    return b


def col_name(index: int) -> str:
    """Column letters from a 0-based index (0: A, 26: AA)."""
    letters = ""
    n = index + 1
    while n:
        n, rem = divmod(n - 1, 26)
        letters = chr(65 + rem) + letters
    return letters


# --------------------------------------------------------------------------
# Summaries: totals and means under or beside a table
# --------------------------------------------------------------------------

SUMMARY_ROWS_BELOW = 3  # how far under a table its summaries may stand
SUMMARY_COLS_BESIDE = 5  # and how far right of its last column


def _column_values(
    t: Builder, by_number: dict[int, Row], rows: list[int], c: int
) -> list[float | None]:
    out: list[float | None] = []
    for r in rows:
        row = by_number.get(r)
        cell = row.cells[c] if row is not None and c < len(row.cells) else None
        out.append(cell if isinstance(cell, float) else None)  # a Written keeps its digits
    return out


def _find_summaries(
    tables: list[Builder], by_number: dict[int, Row], used: set[tuple[int, int]]
) -> None:
    """Summary rows at the end of a body, summary rows and cells under or beside it, and a
    one-row "table" of summaries beside it ("average std dev / 1.141"): kept as summaries of
    the table, out of its rows."""
    upright = [t for t in tables if not t.transposed and not t.complete]
    for t in upright:
        _trailing_summaries(t, by_number, used)
    for t in list(upright):
        if t.last_row - t.first_row == 0 and t in tables:
            host = _summary_host(t, upright, by_number)
            if host is not None:
                _absorb(t, host, by_number)
                tables.remove(t)
    for t in upright:
        if t in tables:
            _summaries_below(t, by_number, used)


def _body_rows(t: Builder, by_number: dict[int, Row]) -> list[int]:
    return [r for r in range(t.first_row, t.last_row + 1) if r in by_number]


def _filled(t: Builder, by_number: dict[int, Row], r: int) -> int:
    cells = by_number[r].cells
    return sum(1 for c in t.cols if c < len(cells) and isinstance(cells[c], float))


def _trailing_summaries(t: Builder, by_number: dict[int, Row], used: set[tuple[int, int]]) -> None:
    """The last rows of a body that only sum or average the rows above (C53 = SUM(C33:C52))."""
    for _ in range(2):
        rows = _body_rows(t, by_number)
        if len(rows) < 3:
            return
        last, above = rows[-1], rows[:-1]
        fullest = max(_filled(t, by_number, r) for r in above)
        label = _row_label(t, by_number, last)
        if _filled(t, by_number, last) >= fullest and label is None:
            return
        found = []
        for c in t.cols:
            cell = by_number[last].cells[c] if c < len(by_number[last].cells) else None
            if not isinstance(cell, float):
                continue
            kind = summary_kind(cell, _column_values(t, by_number, above, c))
            if kind is None and label is None:
                return
            found.append((c, float(cell), kind or "summary"))
        if not found:
            return
        for c, value, kind in found:
            t.summaries.append(
                SummaryCell(f"{col_name(c)}{last}", value, label, kind, _name_of(t, c))
            )
        t.last_row = above[-1]


def _row_label(t: Builder, by_number: dict[int, Row], r: int) -> str | None:
    """A summary word in the row, within the table's columns or just beside them."""
    cells = by_number[r].cells
    a, b = t.span
    for c in range(max(0, a - 1), min(len(cells), b + 3)):
        words = cell_words(cells[c])
        if words and is_summary_label(words):
            return words
    return None


def _name_of(t: Builder, c: int) -> str | None:
    if c not in t.cols:
        return None
    i = t.cols.index(c)
    parts = [_header_text(cells[i]) for cells in t.header_cells]
    name = " ".join(dict.fromkeys(p for p in parts if p))
    return name or f"col {c + 1}"


def _header_text(cell: Cell) -> str | None:
    if isinstance(cell, Written):
        return cell.text
    if isinstance(cell, float):
        return format_float(cell)
    return cell_words(cell)


def _summaries_below(t: Builder, by_number: dict[int, Row], used: set[tuple[int, int]]) -> None:
    """Rows right under the table, and lone numbers beside it, that summarise its columns."""
    rows = _body_rows(t, by_number)
    if len(rows) < 2:
        return
    a, b = t.span
    columns = {c: _column_values(t, by_number, rows, c) for c in t.cols}
    for r in range(t.first_row, t.last_row + SUMMARY_ROWS_BELOW + 1):
        row = by_number.get(r)
        if row is None:
            continue
        below = r > t.last_row
        label = _row_label(t, by_number, r) if below else None
        for c in range(max(0, a - 1), min(len(row.cells), b + SUMMARY_COLS_BESIDE + 1)):
            cell = row.cells[c]
            if not isinstance(cell, float) or (r, c) in used:
                continue
            value = float(cell)
            kind, of = None, None
            if c in columns:
                kind, of = summary_kind(cell, columns[c]), c
            if kind is None:  # a lone total beside the table: of which column?
                for k, values in columns.items():
                    if (kind := summary_kind(cell, values)) is not None:
                        of = k
                        break
            if kind is None and not (label and c in columns):
                continue
            beside = _label_beside(row.cells, c) or label
            t.summaries.append(SummaryCell(
                f"{col_name(c)}{r}", value, beside, kind or "summary",
                _name_of(t, of) if of is not None else None,
            ))  # fmt: skip
            used.add((r, c))
            for k in range(max(0, c - 2), min(len(row.cells), c + 3)):
                words = cell_words(row.cells[k])
                if words and words == beside and (r, k) not in used:
                    used.add((r, k))


def _label_beside(cells: Sequence[Cell], c: int) -> str | None:
    """The words right of a number, else right before it ("39.08 | ave rate", "M | 1125")."""
    for k in (c + 1, c - 1):
        if 0 <= k < len(cells):
            words = cell_words(cells[k])
            if words and not re.search(r"\d", words[:1]):
                return words
    return None


def _summary_host(t: Builder, tables: list[Builder], by_number: dict[int, Row]) -> Builder | None:
    """The table a one-row block of summaries belongs to: its header says so (average std
    dev, overall std dev) and it stands under the end of another table, or beside it."""
    names = [_name_of(t, c) or "" for c in t.cols]
    if not t.header_rows or not any(is_summary_label(n) for n in names):
        return None
    for host in tables:
        if host is t or len(_body_rows(host, by_number)) < 2:
            continue
        if host.first_row <= t.first_row <= host.last_row + SUMMARY_ROWS_BELOW + 1:
            return host
    return None


def _absorb(t: Builder, host: Builder, by_number: dict[int, Row]) -> None:
    rows = _body_rows(host, by_number)
    cells = by_number[t.first_row].cells
    for c in t.cols:
        cell = cells[c] if c < len(cells) else None
        if not isinstance(cell, float):
            continue
        kind, of = None, None
        for k in host.cols:
            if kind := summary_kind(cell, _column_values(host, by_number, rows, k)):
                of = k
                break
        host.summaries.append(SummaryCell(
            f"{col_name(c)}{t.first_row}", float(cell), _name_of(t, c), kind or "summary",
            _name_of(host, of) if of is not None else None,
        ))  # fmt: skip


def _mark_metadata(tables: list[Builder], leftovers: list[Leftover]) -> None:
    """Left-over cells in the settings columns beside an instrument's data are its metadata."""
    for t in tables:
        if t.metadata is None:
            continue
        first, last, cols = t.metadata
        for x in leftovers:
            if first <= x.first_row and x.last_row <= last and x.first_col in cols:
                x.kind = "metadata"


def _words_only(block: dict[int, list[int]], by_number: dict[int, Row]) -> bool:
    return not any(
        isinstance(by_number[r].cells[c], float) for r, cols in block.items() for c in cols
    )


def _cells_near(
    block: dict[int, list[int]],
    text_blocks: list[dict[int, list[int]]],
    r: int,
    span: tuple[int, int],
) -> list[int]:
    cols = [c for c in block.get(r, [])]
    for b in text_blocks:
        if r in b and any(span[0] - 1 <= c <= span[1] + 1 for c in b[r]):
            cols += b[r]
    return cols


def _block_cells(block: dict[int, list[int]], by_number: dict[int, Row], r: int) -> dict[int, Cell]:
    row = by_number[r]
    return {c: row.cells[c] for c in block.get(r, [])}


def _runs(block: dict[int, list[int]], by_number: dict[int, Row]) -> Iterator[_Run]:
    """Runs of data rows; a row with words in a column of numbers ends a run."""
    numbers = sorted(block)
    data: list[bool] = []
    for r in numbers:
        cells = _block_cells(block, by_number, r)
        values = [v for v in cells.values() if isinstance(v, float)]
        is_count = _count_header(list(cells.values())) and _count_header_here(block, by_number, r)
        data.append(bool(values) and not is_count)
    run: list[int] = []
    for r, is_data in zip(numbers, data, strict=True):
        if is_data:
            run.append(r)
            continue
        if run:
            yield from _split(run, block, by_number)
        run = []
    if run:
        yield from _split(run, block, by_number)


def _count_header_here(block: dict[int, list[int]], by_number: dict[int, Row], r: int) -> bool:
    """A count row is a header only under a row of words that leaves the counted columns
    without names of their own ("Counts" over 1, 2, 3, 4, merged or not), with data below."""
    below = _block_cells(block, by_number, r + 1) if r + 1 in block else {}
    here = _block_cells(block, by_number, r)
    above = _block_cells(block, by_number, r - 1) if r - 1 in block else {}
    counted = [c for c, v in here.items() if isinstance(v, float)]
    if not below or _count_header(list(below.values())) or not above:
        return False
    if any(isinstance(v, float) for v in above.values()):
        return False
    if not all(isinstance(below.get(c), float) for c in counted):
        return False
    names = [above.get(c) for c in counted]
    return any(n is None for n in names) or len(set(names)) < len(names)


def _split(
    rows: list[int], block: dict[int, list[int]], by_number: dict[int, Row]
) -> Iterator[_Run]:
    counts: dict[int, int] = {}
    for r in rows:
        for c, v in _block_cells(block, by_number, r).items():
            if isinstance(v, float):
                counts[c] = counts.get(c, 0) + 1
    numeric = {c for c, k in counts.items() if 2 * k >= len(rows)}
    part: list[int] = []
    for r in rows:
        cells = _block_cells(block, by_number, r)
        words = any(
            c in numeric and isinstance(v, str) and not is_missing(v) for c, v in cells.items()
        )
        if words:
            if part:
                yield _Run(part)
            part = []
        else:
            part.append(r)
    if part:
        yield _Run(part)


def _table(
    run: _Run,
    block: dict[int, list[int]],
    by_number: dict[int, Row],
    text_blocks: list[dict[int, list[int]]],
    claimed: set[int],
    max_rows: int,
) -> Builder | None:
    body = run.rows
    counts: dict[int, int] = {}
    words: dict[int, int] = {}
    for r in body:
        for c, v in _block_cells(block, by_number, r).items():
            if isinstance(v, float):
                counts[c] = counts.get(c, 0) + 1
            elif isinstance(v, str) and not is_missing(v):
                words[c] = words.get(c, 0) + 1
    numeric = sorted(counts)
    settings = _settings_columns(body, counts, block, by_number)
    numeric = [c for c in numeric if c not in settings]
    texts = sorted(c for c, k in words.items() if c not in counts and 2 * k >= len(body))
    header, unit_row, header_cols = _header(
        body[0], block, by_number, text_blocks, claimed, numeric + texts
    )
    extra = [c for c in header_cols if c not in numeric and c not in texts]
    # A template sheet: set points filled in one column, the named columns beside it empty.
    template = len(numeric) == 1 and bool(extra)
    # A named column left empty among filled ones (φ and I "to compute" in a record
    # sheet) is a column of the table, not a gap in it.
    if not template and numeric:
        extra = [c for c in extra if min(numeric) < c <= max(numeric) + 2]
    cols = sorted(numeric + texts + extra)
    kinds = ["number" if c in counts else "text" if c in texts else "empty" for c in cols]
    n_numeric = len(numeric)
    if len(body) < 2 and not (header and n_numeric >= 2):
        return None
    if n_numeric < 2 and not header:
        return None
    top = header[0] if header else body[0]
    title_rows, title = _title(top, block, by_number, text_blocks, claimed, cols)
    span_cols = cols + header_cols
    span = (min(span_cols), max(span_cols))
    header_cells = [
        [by_number[r].cells[c] if c < len(by_number[r].cells) else None for c in cols]
        for r in header
    ]
    table = Builder(
        template=template,
        first_row=body[0],
        cols=cols,
        kinds=kinds,
        header_rows=header,
        header_cells=header_cells,
        unit_row=unit_row,
        title_rows=title_rows,
        title=title,
        span=span,
        max_rows=max_rows,
        last_row=body[-1],
    )
    if settings:
        head = body[:_SETTINGS_ROWS]
        beside = sorted({c for r in head for c in block.get(r, []) if c < min(cols)})
        top = max(r for r in head if any(c < min(cols) for c in block.get(r, [])))
        table.metadata = (body[0], top, beside or settings)
    return table


_SETTINGS_ROWS = 40  # an instrument's settings fill the first rows of its export, no more
_SETTINGS_MIN_BODY = 100  # and the export is long: a short table's sparse column is data


def _settings_columns(
    body: list[int],
    counts: dict[int, int],
    block: dict[int, list[int]],
    by_number: dict[int, Row],
) -> list[int]:
    """Columns filled only in the first rows, left of columns filled on every row: an
    oscilloscope's "Record Length 2500 / Sample Interval 4e-07 / Trigger Point 1250" beside
    its trace — settings, not a column of data."""
    if len(body) < _SETTINGS_MIN_BODY or not counts:
        return []
    full = [c for c, k in counts.items() if k >= 0.9 * len(body)]
    if not full:
        return []
    head = set(body[:_SETTINGS_ROWS])
    out = []
    for c, k in counts.items():
        if k > _SETTINGS_ROWS or c >= min(full):
            continue
        rows = [r for r in body if isinstance(_block_cells(block, by_number, r).get(c), float)]
        if all(r in head for r in rows):
            out.append(c)
    return out


def _is_units_row(cells: dict[int, Cell]) -> bool:
    values = [v for v in cells.values() if v is not None]
    return bool(values) and all(isinstance(v, str) and unit_cell(v) for v in values)


def _header(
    start: int,
    block: dict[int, list[int]],
    by_number: dict[int, Row],
    text_blocks: list[dict[int, list[int]]],
    claimed: set[int],
    cols: list[int],
) -> tuple[list[int], int | None, list[int]]:
    """The header rows (top first) right above a body, which of them holds units, and
    the columns they name."""
    wanted = set(cols)
    lo, hi = min(cols) - 1, max(cols) + 1
    source: dict[int, list[int]] | None = block
    r = start - 1
    if r not in block or not _header_like(_block_cells(block, by_number, r)):
        # A header may stand one blank row above the body, in its own block of words.
        source = None
        for b in text_blocks:
            if id(b) not in claimed and (start - 2) in b and (start - 1) not in b:
                cells = _block_cells(b, by_number, start - 2)
                if set(cells) & wanted and all(lo <= c <= hi + 1 for c in cells):
                    source, r = b, start - 2
                    claimed.add(id(b))
                    break
        if source is None:
            return [], None, []
    assert source is not None
    rows: list[int] = []
    unit_row = None
    names = 0
    while r in source and len(rows) < 3:
        cells = _block_cells(source, by_number, r)
        if not cells or not _header_like(cells):
            break
        if _is_units_row(cells) and unit_row is None and not rows:
            unit_row = r
        else:
            if names == 2:
                break
            filled = sorted(cells)
            if rows and names:
                below = sorted(
                    _block_cells(source, by_number, rows[0]) if rows[0] != unit_row else {}
                )
                # A second header row has several cells, or one that completes a
                # single-cell row below it; a lone cell over a lone cell in the same
                # column is a title.
                if len(filled) < 2 and (len(below) >= 2 or set(filled) == set(below)):
                    break
            if not set(filled) & (wanted | set(range(lo, hi + 1))):
                break
            names += 1
        rows.insert(0, r)
        r -= 1
    if names == 0 and unit_row is not None:
        return [], None, []
    named = sorted({c for row in rows for c in _block_cells(source, by_number, row)})
    return rows, unit_row, named


def _header_like(cells: dict[int, Cell]) -> bool:
    values = list(cells.values())
    if any(isinstance(v, float) for v in values):
        return _count_header(values)
    return any(isinstance(v, str) for v in values)


def _title(
    top: int,
    block: dict[int, list[int]],
    by_number: dict[int, Row],
    text_blocks: list[dict[int, list[int]]],
    claimed: set[int],
    cols: list[int],
) -> tuple[list[int], list[str]]:
    """Up to two lines of words right above the header, in the block or just above it."""
    rows: list[int] = []
    texts: list[str] = []
    r = top - 1
    while r in block and len(rows) < 2:
        cells = _block_cells(block, by_number, r)
        if any(isinstance(v, float) for v in cells.values()) or _instrument_line(cells):
            return rows, texts
        rows.insert(0, r)
        texts.insert(0, _words(cells.values()))
        r -= 1
    if rows:
        return rows, texts
    lo, hi = min(cols) - 1, max(cols) + 1
    for b in text_blocks:
        if id(b) in claimed:
            continue
        bottom = max(b)
        if top - 3 <= bottom < top and any(lo <= c <= hi for cs in b.values() for c in cs):
            lines = [r for r in sorted(b) if not _instrument_line(_block_cells(b, by_number, r))]
            # A line naming the table ("表2:并联电路测试数据", "Table 3") a few lines up is its
            # title, over the loose words between it and the header.
            named = [r for r in lines[-_TITLE_LOOKUP:]
                     if _TABLE_NAME.match(_words(_block_cells(b, by_number, r).values()))]  # fmt: skip
            chosen = named[-1:] or lines[-2:]
            if not chosen:
                break
            claimed.add(id(b))
            for r in chosen:
                rows.append(r)
                texts.append(_words(_block_cells(b, by_number, r).values()))
            break
    return rows, texts


_TITLE_LOOKUP = 6
_TABLE_NAME = re.compile(r"^\s*(?:表|table\b|tab\.)\s*\d*\s*[:：.．、]?", re.I)


def _instrument_line(cells: dict[int, Cell]) -> bool:
    """A commented settings line of an instrument export ("#Sample rate: 40000Hz")."""
    first = next((v for _, v in sorted(cells.items()) if v is not None), None)
    return isinstance(first, str) and first.lstrip().startswith("#")


def _words(cells: Iterable[Cell]) -> str:
    """A row's words, each said once: a title merged over eight columns is one title."""
    return " ".join(dict.fromkeys(str(v) for v in cells if isinstance(v, str)))


def _leftovers(
    blocks: list[dict[int, list[int]]], by_number: dict[int, Row], used: set[tuple[int, int]]
) -> list[Leftover]:
    out: list[Leftover] = []
    for block in blocks:
        run: list[tuple[int, list[int]]] = []
        for r in sorted(block):
            free = [c for c in block[r] if (r, c) not in used]
            if free and (not run or run[-1][0] == r - 1):
                run.append((r, free))
                continue
            if run:
                out.append(_leftover(run, by_number))
            run = [(r, free)] if free else []
        if run:
            out.append(_leftover(run, by_number))
    return out


def _leftover(run: list[tuple[int, list[int]]], by_number: dict[int, Row]) -> Leftover:
    cells = [by_number[r].cells[c] for r, cs in run for c in cs]
    kind = "numbers" if any(isinstance(v, float) for v in cells) else "text"
    excerpt = "; ".join(
        " ".join(dict.fromkeys(_text(by_number[r].cells[c]) for c in cs)) for r, cs in run[:3]
    )
    return Leftover(
        run[0][0],
        run[-1][0],
        min(c for _, cs in run for c in cs),
        max(c for _, cs in run for c in cs),
        kind,
        excerpt[:160],
    )


def _text(cell: Cell) -> str:
    if isinstance(cell, Written):
        return cell.text
    if isinstance(cell, float):
        return format_float(cell)
    return str(cell) if cell is not None else ""
