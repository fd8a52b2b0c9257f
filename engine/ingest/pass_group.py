"""Several transcript passes in one write transaction while a first index runs (first-index budget).

A first index commits hundreds of passes. Each ``COMMIT`` made FTS5 flush the pass's pending
terms as a segment of its own, later merged; committing a few passes together writes fewer,
larger segments and fewer pages (benchmarks/journal/waves-1-to-3.md, "Writer in the pipeline").

Crash safety is that of one pass: a group's docs and cursors commit together, so a process
killed mid-group stores none of its passes, and the next drain redoes them from the stored
cursors. A group that is rolled back in this process (an error inside one of its passes, a
failed ``COMMIT``, a closed connection) queues its passes again.

A group holds the write lock longer than one pass, so it stays short: at most
``WriteTuning.group_passes`` passes while a planning worker runs (``group_passes_alone`` while
this process plans them all) and ``group_seconds`` of work, and it ends as soon as a notify hook
queues a new entry (live activity) or the next entry is not a transcript pass. Later drains
(the index holds documents) keep one pass per transaction: their appends are small and live.
"""

from __future__ import annotations

import time

from engine.index.writer import IndexWriter
from engine.ingest.queue import Entry

GROUPED_KINDS = ("chat", "terminal")
"""Queue kinds whose passes may share a transaction."""


class PassGroup:
    """The open group of a drain: its passes, and when it must end. Its transaction and held
    ``docs_fts`` rows are the writer's (``IndexWriter.begin_group``)."""

    def __init__(self, writer: IndexWriter) -> None:
        self.writer = writer
        self.open = False
        self.entries: list[Entry] = []
        self._began = 0.0
        self._live_mark = 0

    def admits(self, kind: str, live_adds: int, *, worker: bool) -> bool:
        """Whether a pass of ``kind`` may join the open group (``worker``: a planning worker
        runs, ``WriteTuning.group_passes``; else ``group_passes_alone``)."""
        tuning = self.writer.tuning
        most = tuning.group_passes if worker else tuning.group_passes_alone
        return (
            kind in GROUPED_KINDS
            and len(self.entries) < most
            and live_adds == self._live_mark
            and time.monotonic() - self._began < tuning.group_seconds
        )

    def begin(self, live_adds: int) -> None:
        """Open a group (its transaction begins with its first write)."""
        self.writer.begin_group()
        self.open, self.entries = True, []
        self._began, self._live_mark = time.monotonic(), live_adds

    def joined(self, entry: Entry) -> None:
        """``entry``'s pass ran inside the open group."""
        if self.open:
            self.entries.append(entry)

    def commit(self) -> list[Entry]:
        """Commit the group; returns its passes when nothing of them was stored (the group was
        rolled back before), to be queued again.

        Raises:
            apsw.Error: the ``COMMIT`` failed; the group is rolled back (``entries`` holds them).
        """
        was_open, entries = self.open, self.entries
        self.open, self.entries = False, []
        if not was_open:
            return []
        try:
            stored = self.writer.commit_group()
        except BaseException:
            self.entries = entries  # the caller queues them again
            raise
        return [] if stored else entries

    def abandon(self) -> list[Entry]:
        """Drop the group (its connection is closing, which rolls it back); its passes."""
        was_open, entries = self.open, self.entries
        self.open, self.entries = False, []
        if was_open:
            self.writer.abandon_group()
        return entries
