"""The scale series (``benchmarks.bench_scale``) runs end to end on a tiny generated project, in
process, so it cannot rot: a first index against the raw insert, the index size, every query
class against ``rg``, start-up and read-your-writes.

Nothing here is timed: the figures are printed, only their presence and shape are checked.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from benchmarks import bench_scale


@pytest.mark.skipif(shutil.which("rg") is None, reason="the query rounds compare with rg")
def test_the_series_runs_tiny_in_process(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["--sizes", "2", "--runs", "1", "--rounds", "1", "--work", str(tmp_path),
            "--paths", "in-process", "--no-tantivy"]  # fmt: skip
    assert bench_scale.main(argv) == 0
    out = capsys.readouterr().out
    row = next(line for line in out.splitlines() if line.startswith("| 2 MB | in-process |"))
    cells = [c.strip() for c in row.strip("|").split("|")]
    first, size, p95, startup, ryw, rss = cells[2:]
    assert re.fullmatch(r"\d+\.\d\d · \d+\.\d\d", first)
    assert 0 < float(size) < 3  # the index exists and is of the text's order
    assert len(p95.split(" · ")) == 5
    assert all(float(x) > 0 for x in p95.split(" · "))
    # A difference of two timings (the process minus its own work): one run at a high load can
    # put it below zero, so the column's form is checked, not its sign (no test asserts time).
    assert re.fullmatch(r"-?\d+\.\d\d", startup)
    assert ryw.endswith("(1/1 found)")  # the search right after the write saw it
    assert float(rss) > 0
    assert "load average" in out
