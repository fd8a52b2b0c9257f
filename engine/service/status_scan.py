"""The warnings ``--status`` finds by listing the project (docs/reliability-faults.md): malformed session
records, a FIFO or a link out where a transcript should be, a bad ``project.json``.

Listing parses every session file and checks each transcript: 1.9 s of a 3.4 s ``--status``
on 10,000 sessions under cProfile (``python -m benchmarks.bench_status``). Those counts depend
only on the files the warm-run manifest digests (``engine.ingest.manifest``: every entry of ``sessions``, ``chats``,
``terminals`` with its stat, ``project.json`` and ``lanes.json``), so they are kept in ``meta``
keyed by that digest and listed again only when the catch-up found the files changed.
"""

from __future__ import annotations

import contextlib
import json

import apsw

from engine.index.schema import BUSY_TIMEOUT_MS
from engine.index.txn import immediate, meta_get, meta_set
from engine.project.locate import identity_warnings
from engine.project.model import Project
from engine.project.sessions import list_sessions
from engine.project.tally import WarningTally
from engine.project.transcripts import refused_transcript

CACHE_KEY = "status_listing_warnings"
"""``meta`` row: ``{"manifest": digest, "counts": {key: count}}``."""


def scan_listing(project: Project) -> dict[str, int]:
    """List the project now: every session record and transcript, and the identity files."""
    found = WarningTally()
    identity_warnings(project.root, found)
    for meta in list_sessions(project, found):  # a FIFO or a link out stays
        refused = refused_transcript(project, meta.kind, meta.id)  # one warning
        if refused is not None:
            found.add(f"{meta.kind}:{meta.id}", refused)
    return found.snapshot()


def listing_warnings(
    project: Project, digest: str | None, conn: apsw.Connection, unavailable: str | None
) -> dict[str, int]:
    """The listing's warnings: cached while ``digest``, the manifest the last catch-up matched,
    is the one they were counted under; else listed (and cached in ``conn`` when that manifest
    is known and the index is readable: ``unavailable`` is None)."""
    if digest is None:
        return scan_listing(project)
    cached = None
    if unavailable is None:
        with contextlib.suppress(apsw.Error, ValueError, TypeError):
            stored = json.loads(meta_get(conn, CACHE_KEY) or "null")
            if isinstance(stored, dict) and stored.get("manifest") == digest:
                cached = {str(k): int(v) for k, v in stored["counts"].items()}
    if cached is not None:
        return cached
    counts = scan_listing(project)
    if unavailable is None:
        value = json.dumps({"manifest": digest, "counts": counts})
        with contextlib.suppress(apsw.Error):  # a cache: a busy or full index just lists again
            conn.set_busy_timeout(0)
            try:
                with immediate(conn):
                    meta_set(conn, CACHE_KEY, value)
            finally:
                conn.set_busy_timeout(BUSY_TIMEOUT_MS)
    return counts
