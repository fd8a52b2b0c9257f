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
from typing import TYPE_CHECKING

import apsw

from engine.index.schema import BUSY_TIMEOUT_MS
from engine.index.txn import immediate, meta_get, meta_set
from engine.project.locate import identity_warnings
from engine.project.sessions import list_sessions
from engine.project.tally import WarningTally
from engine.project.transcripts import refused_transcript

if TYPE_CHECKING:
    from engine.service import SearchService

CACHE_KEY = "status_listing_warnings"
"""``meta`` row: ``{"manifest": digest, "counts": {key: count}}``."""


def scan_listing(service: SearchService) -> dict[str, int]:
    """List the project now: every session record and transcript, and the identity files."""
    found = WarningTally()
    identity_warnings(service.project.root, found)
    for meta in list_sessions(service.project, found):  # a FIFO or a link out stays
        refused = refused_transcript(service.project, meta.kind, meta.id)  # one warning
        if refused is not None:
            found.add(f"{meta.kind}:{meta.id}", refused)
    return found.snapshot()


def listing_warnings(service: SearchService) -> dict[str, int]:
    """The listing's warnings: cached while the manifest the last catch-up matched is the one
    they were counted under; else listed (and cached when that manifest is known)."""
    digest = service.drainer.matched_manifest
    if digest is None:
        return scan_listing(service)
    conn, unavailable = service._reader_or_empty()
    cached = None
    if unavailable is None:
        with contextlib.suppress(apsw.Error, ValueError, TypeError):
            stored = json.loads(meta_get(conn, CACHE_KEY) or "null")
            if isinstance(stored, dict) and stored.get("manifest") == digest:
                cached = {str(k): int(v) for k, v in stored["counts"].items()}
    if cached is not None:
        return cached
    counts = scan_listing(service)
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
