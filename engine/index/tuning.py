"""The write path's settings in one frozen value (``WriteTuning``): how much a pass reads, how
many passes share a first index's transaction, when the planning worker pays, and whether the
index file gives its free pages back.

The drain builds one and hands it to everything that writes (``engine.index.writer``); the
planning worker is sent the same value. Tests and benchmarks pass their own instead of
rewriting module constants. A ``msgspec.Struct``, not a dataclass: the warm path imports it
and keeps ``dataclasses`` out.
"""

# warm path: a warm `ade search` imports this; keep its imports light (ARCHITECTURE: The warm path)

from __future__ import annotations

import msgspec


class WriteTuning(msgspec.Struct, frozen=True):
    """Sizes and switches of the write path; the defaults are the measured ones."""

    slice_bytes: int = 4 * 1024 * 1024
    """Bytes read per transcript pass (DESIGN §4): bounds memory and the write transaction."""
    long_line_cap: int = 32 * 1024 * 1024
    """Longest single line read whole; a longer one is cut so the cursor always moves on."""
    group_passes: int = 8
    """Most transcript passes one first-index transaction holds while a planning worker runs
    (``engine.ingest.pass_group``): the worker's ``lookahead`` covers a group and the start of
    the next, so it does not run dry while the group commits."""
    group_passes_alone: int = 32
    """Most passes a group holds while this process plans every pass itself (no worker: every
    first index below ``worker_min_backlog_bytes``, and any on a busy machine). Each group's
    ``COMMIT`` writes one ``docs_fts`` segment, which the end of the first index merges; a
    small project's first index in one group has none to merge: the 10 MB corpus's takes 10%
    fewer instructions, the 100 MB one's ``docs_fts`` is 6% smaller
    (benchmarks/journal/2026-12-07-first-index-2.md)."""
    group_seconds: float = 0.5
    """Work after which a group commits (monotonic seconds since it began): another process's
    write, or this one's live append after the group, waits at most about this long. At 0.25 s a
    100 MB first index without a worker ended ~30 groups by time; at 0.5 s 11."""
    worker_min_backlog_bytes: int = 24 * 1024 * 1024
    """Queued transcript bytes past their cursors that pay for a planning worker: its start
    (~0.2-0.4 s, benchmarks/journal/waves-1-to-3.md) is a few percent of planning that much."""
    lookahead: int = 12
    """Jobs the planning worker holds: one being planned and the rest queued behind it, so a
    scheduling delay of either process does not leave the other idle. 12 cover a group of
    passes and the start of the next (benchmarks/journal/waves-1-to-3.md, "The worker fed a
    whole group of passes ahead")."""
    lookahead_slices: int = 4
    """No job is sent to the worker once the jobs it holds cover this many full slices of
    transcript (each counted at most one slice): what is held ahead stays bounded."""
    max_load_per_cpu: float = 0.75
    """Start a worker only while the 1-minute load average per CPU is below this (infinite:
    always); on a machine whose cores are all busy it measured slower than planning in
    process (benchmarks/journal/waves-1-to-3.md, "Ingestion speed")."""
    steal_while_waiting: bool = True
    """Plan a pass here, taken back from the worker, rather than wait for the worker's answer."""
    vacuum: bool = True
    """A new file is made with ``auto_vacuum = INCREMENTAL`` and a first index gives its free
    pages back (``engine.index.vacuum``); off, the file is made as before (benchmarks compare)."""
    vacuum_step_pages: int = 128
    """Free pages one vacuum step gives back (2 MiB at 16 KiB pages), each step one short write
    transaction: a live append waits at most one step."""

    @property
    def window(self) -> int:
        """Queue entries looked at per pass: the current one, the worker's jobs, and the plans
        this process made while waiting."""
        return 2 * self.lookahead + 1


DEFAULT_TUNING = WriteTuning()
"""The measured settings, for callers outside a drain (one-off passes, tests of one function)."""
