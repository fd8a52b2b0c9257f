"""How far ahead the planning worker is fed (first-index budget): a whole group of small passes, but
never more transcript than ``WriteTuning.lookahead_slices`` full slices. A real worker process, a real index.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from engine.index.db import connect, open_index
from engine.index.tuning import WriteTuning
from engine.ingest import planner
from engine.project.locate import open_project
from tests.engine.ingest.conftest import ProjectWriter

SLICE = 4096
SESSIONS = 24


TUNING = WriteTuning(
    slice_bytes=SLICE,
    worker_min_backlog_bytes=0,
    max_load_per_cpu=float("inf"),  # whatever else runs here
)


@pytest.fixture
def worker_for_any_backlog(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(planner.ENV_SWITCH, raising=False)


def _terminals(writer: ProjectWriter, size: int) -> list[planner.Entry]:
    line = b"make: *** [all] Error 2 readTimeoutError\r\n"
    for i in range(SESSIONS):
        writer.session(f"t{i}", "terminal", endedAt="2026-06-01T10:00:00+00:00")
        writer.terminal(f"t{i}", line * (size // len(line) + 1))
    return [("terminal", f"t{i}") for i in range(SESSIONS)]


@pytest.fixture
def prefetch(writer: ProjectWriter) -> Iterator[planner.Prefetcher]:
    found = planner.Prefetcher(open_project(writer.root), TUNING)
    yield found
    found.close()


def _waiting_after_the_first_entry(
    writer: ProjectWriter, prefetch: planner.Prefetcher, entries: list[planner.Entry]
) -> list[planner.Entry]:
    """The jobs the worker holds once the first entry starts (no answer is read before the
    writer asks for one, so this is exactly what was sent)."""
    path = open_project(writer.root).index_path
    open_index(path)
    conn = connect(path)
    try:
        prefetch.before(conn, entries[0], entries[: TUNING.window], backlog=1 << 30)
        assert prefetch.worker is not None
        return prefetch.worker.waiting()
    finally:
        conn.close()


def test_the_worker_is_given_a_whole_group_of_small_passes_ahead(
    writer: ProjectWriter, prefetch: planner.Prefetcher, worker_for_any_backlog: None
) -> None:
    """A first index writes ``WriteTuning.group_passes`` passes before it commits; the worker must already
    hold them (and more) as the group starts, or it runs dry while the writer commits and the
    writer plans the next group's passes itself (4 jobs did: a quarter of the 330 MB corpus's
    passes)."""
    entries = _terminals(writer, SLICE // 4)
    waiting = _waiting_after_the_first_entry(writer, prefetch, entries)
    assert len(waiting) == TUNING.lookahead
    assert len(waiting) > TUNING.group_passes
    assert waiting == entries[1 : TUNING.lookahead + 1]  # the next entries, in queue order


def test_full_slices_ahead_are_bounded_by_their_bytes(
    writer: ProjectWriter, prefetch: planner.Prefetcher, worker_for_any_backlog: None
) -> None:
    """Each plan holds its slice's documents: with transcripts of a slice or more, the worker
    holds ``lookahead_slices`` jobs, not ``lookahead``, so the memory held ahead stays bounded."""
    entries = _terminals(writer, 3 * SLICE)
    waiting = _waiting_after_the_first_entry(writer, prefetch, entries)
    assert waiting == entries[1 : TUNING.lookahead_slices + 1]
