"""Benchmark the table detector: detection on the messy corpus, statistics on 10^6 rows.

Run by hand:  PYTHONPATH=desktop .venv/bin/python bench/bench_tables.py

* Detection: the corpus of tests/data/messy/make_messy.py, with the expected
  tables (cell ranges), headers and roles written down here by hand. Every
  non-empty cell counts: it is right when the detected table whose range holds
  it is the expected one (or both say "in no table"). Goal: 100 %.
* Statistics: a 10^6-row tracker CSV (frame, t, x, y, mass, size). The time of
  scan_tables (detection, roles and statistics over all rows) against
  pandas.read_csv(...).describe() on the same file, as a ratio measured in the
  same run (best of 3 each), and the peak memory of each (tracemalloc; numpy
  reports its buffers to it).

Files live in a temporary directory removed at the end.
"""

from __future__ import annotations

import importlib.util
import re
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path

from _result import result  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "desktop"))

from labwright.core.material.readers.sniff import sniff  # noqa: E402
from labwright.core.material.tables import scan_tables  # noqa: E402
from labwright.core.material.tables.cells import (  # noqa: E402
    text_layout,
    text_rows,
    xlsx_sources,
)
from labwright.core.material.workspace import open_in_folder  # noqa: E402

M = "measured"
I = "independent"  # noqa: E741
# file: [(sheet, range, header, roles)] — by hand, from what make_messy.py writes.
EXPECTED: dict[str, list[tuple[str | None, str, list[str], list[str]]]] = {
    "side_by_side.xlsx": [
        ("Data", "A1:C33", ["I (mA)", "Reading (div)", "d Reading"], [I, M, "uncertainty"]),
        ("Data", "I21:J25", ["R (Ω)", "Q"], [I, M]),
    ],
    "absorbers.xlsx": [
        (
            "Absorption",
            "A1:F6",
            ["Absorber", "Thickness (mm)", *(f"Counts in 60 s {k}" for k in range(1, 5))],
            ["category", I, M, M, M, M],
        ),
    ],  # fmt: skip
    "units_row.csv": [
        (None, "A1:C8", ["Voltage [V]", "Current [mA]", "Power [mW]"], [I, M, M]),
    ],
    "template.csv": [
        (
            None,
            "A1:D9",
            ["f (kHz)", "V_in [V]", "V_out [V]", "phase (°)"],
            [I, "empty", "empty", "empty"],
        ),
    ],  # fmt: skip
    "densities.csv": [
        (None, "A1:D10", ["Material", "m (g)", "V (cm3)", "rho (g/cm3)"], ["category", M, M, M]),
    ],
    "单摆.csv": [
        (None, "A1:C7", ["摆长/cm", "周期T/s", "误差/s"], [I, M, "uncertainty"]),
    ],
    "stacked.csv": [
        (None, "A1:C8", ["t (s)", "x (m)", "y (m)"], [I, M, M]),
        (None, "A10:C19", ["t (s)", "x (m)", "y (m)"], [I, M, M]),
    ],
    **{
        f"spectra/gain_{g:02d}.txt": [
            (None, "A1:B11", ["frequency (Hz)", "amplitude (dB)"], [I, M])
        ]
        for g in (1, 2, 5, 10)
    },
}


def _maker():
    spec = importlib.util.spec_from_file_location(
        "make_messy", ROOT / "tests/data/messy/make_messy.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _parse_range(text: str) -> tuple[int, int, int, int]:
    m = re.fullmatch(r"([A-Z]+)(\d+):([A-Z]+)(\d+)", text)
    assert m, text

    def col(s: str) -> int:
        n = 0
        for ch in s:
            n = n * 26 + ord(ch) - 64
        return n - 1

    return int(m.group(2)), col(m.group(1)), int(m.group(4)), col(m.group(3))


def _inside(r: int, c: int, box: tuple[int, int, int, int]) -> bool:
    return box[0] <= r <= box[2] and box[1] <= c <= box[3]


def _cells(folder: Path, rel: str) -> list[tuple[str | None, int, int]]:
    out = []
    with open_in_folder(folder, rel) as src:  # the readers take a file opened beneath the folder
        kind = sniff(src)
        if kind.kind == "xlsx":
            for sheet in xlsx_sources(src):
                out += [(sheet.sheet, row.number, c) for row in sheet.rows
                        for c, v in enumerate(row.cells) if v is not None]  # fmt: skip
        else:
            assert kind.encoding is not None
            layout = text_layout(src, kind.encoding)
            for row in text_rows(src, kind.encoding, layout):
                out += [(None, row.number, c) for c, v in enumerate(row.cells) if v is not None]
    return out


def detection(folder: Path) -> None:
    cells_ok = cells_all = headers_ok = headers_all = roles_ok = roles_all = 0
    for rel, expected in EXPECTED.items():
        found = scan_tables(folder, rel)
        assert found is not None, rel
        detected = []
        for t in found.tables:
            top = min([t.first_row, *t.header_rows, *t.title_rows])  # titles belong to it too
            span = (top, min(t.col_numbers), t.last_row, max(t.col_numbers))
            detected.append((t.sheet.strip() if t.sheet else None, span, t))
        boxes = [(s, _parse_range(r)) for s, r, _, _ in expected]
        for sheet, r, c in _cells(folder, rel):
            want = next(
                (i for i, (s, b) in enumerate(boxes) if s == sheet and _inside(r, c, b)), None
            )
            got = next(
                (i for i, (s, b, _) in enumerate(detected) if s == sheet and _inside(r, c, b)), None
            )
            # tables in the same order on both sides: index to index
            cells_all += 1
            cells_ok += want == got
        for i, (_, _, header, roles) in enumerate(expected):
            t = detected[i][2] if i < len(detected) else None
            headers_all += len(header)
            roles_all += len(roles)
            if t is not None:
                headers_ok += sum(a == b for a, b in zip(header, t.columns, strict=False))
                roles_ok += sum(a == b for a, b in zip(roles, t.roles, strict=False))
        if len(detected) != len(expected):
            print(f"  {rel}: {len(detected)} tables, expected {len(expected)}")
    print("Detection on the messy corpus "
          f"({len(EXPECTED)} files, {sum(len(v) for v in EXPECTED.values())} tables):")  # fmt: skip
    print(
        f"  cells assigned to the right table: {cells_ok}/{cells_all} = {100 * cells_ok / cells_all:.1f} %"
    )
    print(f"  headers right: {headers_ok}/{headers_all} = {100 * headers_ok / headers_all:.1f} %")
    print(f"  roles right:   {roles_ok}/{roles_all} = {100 * roles_ok / roles_all:.1f} %")
    result("tables_cells_right", 100 * cells_ok / cells_all, ">=100", "%")
    result("tables_headers_right", 100 * headers_ok / headers_all, ">=100", "%")
    result("tables_roles_right", 100 * roles_ok / roles_all, ">=100", "%")


def _best(f, n: int = 3) -> float:
    times = []
    for _ in range(n):
        t = time.perf_counter()
        f()
        times.append(time.perf_counter() - t)
    return min(times)


def _peak(f) -> int:
    tracemalloc.start()
    try:
        f()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def statistics(folder: Path, rows: int = 1_000_000) -> None:
    import pandas as pd

    path = _maker().big(folder, rows=rows, name="big.csv")
    size = path.stat().st_size

    def ours() -> None:
        found = scan_tables(folder, "big.csv")
        assert found is not None and found.tables[0].n_rows == rows

    def theirs() -> None:
        pd.read_csv(path).describe()

    ours()
    theirs()  # warm the page cache and imports
    t_ours, t_theirs = _best(ours), _best(theirs)
    m_ours, m_theirs = _peak(ours), _peak(theirs)
    print(f"Statistics on a {rows:,}-row CSV ({size / 1e6:.0f} MB, 6 columns), best of 3:")
    print(
        f"  scan_tables (detect, roles, stats over all rows): {t_ours:.2f} s, peak {m_ours / 1e6:.1f} MB"
    )
    print(
        f"  pandas read_csv().describe():                     {t_theirs:.2f} s, peak {m_theirs / 1e6:.1f} MB"
    )
    print(
        f"  time ratio ours/pandas: {t_ours / t_theirs:.2f}; memory ratio: {m_ours / m_theirs:.2f}"
    )
    result("tables_stats_vs_pandas", t_ours / t_theirs, None, "x")
    result("tables_memory_vs_pandas", m_ours / m_theirs, None, "x")


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        _maker().make(folder)
        detection(folder)
        statistics(folder)


if __name__ == "__main__":
    main()
