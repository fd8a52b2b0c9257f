"""LineWindow: a bounded window of line-start offsets around a byte offset (Toolong's model)."""

from __future__ import annotations

import gzip
import re
from pathlib import Path

import pytest

from tui.logic import line_window
from tui.logic.line_window import LineWindow


def make(tmp_path: Path, count: int, *, gz: bool = False) -> tuple[Path, list[bytes]]:
    lines = [f"line {i:05d} {'x' * (i % 7)}".encode() for i in range(count)]
    data = b"".join(line + b"\n" for line in lines)
    path = tmp_path / ("t.log.gz" if gz else "t.log")
    path.write_bytes(gzip.compress(data) if gz else data)
    return path, lines


def offset_of(lines: list[bytes], index: int) -> int:
    return sum(len(line) + 1 for line in lines[:index])


@pytest.mark.parametrize("gz", [False, True])
def test_load_around_reads_only_a_window_and_maps_the_offset(tmp_path: Path, gz: bool) -> None:
    path, lines = make(tmp_path, 5000, gz=gz)
    window = LineWindow(path)
    target = offset_of(lines, 2500) + 3
    index = window.load_around(target, span=2000)
    assert window.line_bytes(index) == lines[2500]
    assert 0 < window.start < target < window.end < window.size()
    assert window.line_count < 400  # a window, not the file
    assert window.line_bytes(0) == lines[window.line_at(window.start) + (2500 - index)]
    window.close()


def test_extend_up_and_down_keep_lines_whole(tmp_path: Path) -> None:
    path, lines = make(tmp_path, 3000)
    window = LineWindow(path)
    index = window.load_around(offset_of(lines, 1500), span=1000)
    first = window.line_bytes(0)
    added = window.extend_up(span=1000)
    assert added > 0
    assert window.line_bytes(added) == first
    assert window.line_bytes(index + added) == lines[1500]
    last_count = window.line_count
    window.extend_down(span=1000)
    assert window.line_count > last_count
    for i in range(window.line_count):
        assert window.line_bytes(i).startswith(b"line ")


def test_window_memory_is_bounded(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(line_window, "MAX_WINDOW_BYTES", 4000)
    path, lines = make(tmp_path, 2000)
    window = LineWindow(path)
    window.load_around(0, span=1000)
    for _ in range(20):
        window.extend_down(span=1000)
    assert window.end - window.start <= 4000 + 100
    assert window.start > 0
    assert window.line_bytes(0) in lines


def test_offset_past_the_end_clamps_to_the_last_line(tmp_path: Path) -> None:
    path, lines = make(tmp_path, 10)
    window = LineWindow(path)
    index = window.load_around(10**9)
    assert window.line_bytes(index) == lines[-1]


def test_live_appends_are_picked_up(tmp_path: Path) -> None:
    path, _ = make(tmp_path, 10)
    window = LineWindow(path)
    window.load_around(0)
    with path.open("ab") as handle:
        handle.write(b"new line\n")
    window.extend_down()
    assert window.line_bytes(window.line_count - 1) == b"new line"


def test_find_steps_through_matches(tmp_path: Path) -> None:
    path, _ = make(tmp_path, 100)
    window = LineWindow(path)
    window.load_around(0)
    pattern = re.compile(rb"line 0001[05]")
    assert window.find(pattern, 0, 1) == 10
    assert window.find(pattern, 10, 1) == 15
    assert window.find(pattern, 15, -1) == 10
    assert window.find(pattern, 15, 1) is None


def test_empty_file(tmp_path: Path) -> None:
    path = tmp_path / "empty.log"
    path.write_bytes(b"")
    window = LineWindow(path)
    assert window.load_around(0) == 0
    assert window.line_count == 0
