"""The status and rebuild of one project's search service (``SearchService.index_status``,
``SearchService.rebuild_index``): imported when asked, so a search never loads what only the
status reads (the commit-history state, the session listing, the skipped-line counts)."""

from __future__ import annotations

import os
import time
from typing import TYPE_CHECKING

from engine.index.checks import doc_count, docs_by_kind
from engine.index.db import SourceRow, list_sources, meta_get
from engine.index.schema import SEARCH_INDEX_SCHEMA_VERSION
from engine.ingest.history import history_status
from engine.service.status_scan import listing_warnings
from engine.types import IndexStatus, ProgressCallback, RebuildResult

if TYPE_CHECKING:
    from engine.service import SearchService


def index_status_of(service: SearchService) -> IndexStatus:
    """The live state of ``service``'s index and ingester (``SearchService.index_status``)."""
    conn, unavailable = service._reader_or_empty()
    sources = list_sources(conn)
    backfill = meta_get(conn, "backfill_completed_at")
    try:
        size = os.stat(service.project.index_path).st_size
    except OSError:
        size = 0
    warnings = _warnings(service, sources)
    notes = service._index_notes()
    if unavailable is not None:
        notes.insert(0, unavailable)
    if notes:
        warnings = {**dict.fromkeys(notes, 1), **warnings}
    degraded = unavailable is not None or service.drainer.write_fault is not None
    return IndexStatus(
        state="degraded" if degraded and not service._closed else service._state(),
        schema_version=SEARCH_INDEX_SCHEMA_VERSION,
        db_path=str(service.project.index_path),
        db_bytes=size,
        doc_count=doc_count(conn),
        docs_by_kind=docs_by_kind(conn),
        source_count=sum(1 for s in sources if not s.key.startswith("stat:")),
        pending_sources=service.queue.pending_sources(),
        last_ingest_at=service.drainer.last_ingest_ms or _last_source_run(sources),
        backfill_completed_at=int(backfill) if backfill and backfill.isdigit() else None,
        watcher_state=service.watcher_state,
        recreated_reason=service.drainer.recreated_reason,
        warnings=warnings,
        commit_history=history_status(conn),
        discovery=service.drainer.external.discovery_roots(),
        health_check_since=service.drainer.health.running_since_ms,
    )


def _warnings(service: SearchService, sources: list[SourceRow]) -> dict[str, int]:
    """This process's counts, the skipped-line counts stored with the cursors (they outlive
    the run that saw the lines: a later ``--status`` still shows them) and project.json's."""
    from engine.ingest.tailing import persisted_skips  # deferred: a warm search never asks

    counts = service.tally.snapshot()
    for key, stored in persisted_skips(sources).items():
        counts[key] = max(counts.get(key, 0), stored)  # this run's lines are in both
    for key, count in listing_warnings(service).items():
        counts[key] = max(counts.get(key, 0), count)
    return dict(sorted(counts.items()))


def rebuild_of(service: SearchService, progress: ProgressCallback | None) -> RebuildResult:
    """Clear every row in one transaction (never delete the file) and re-ingest everything."""
    started = time.monotonic()
    service._rebuilding = True
    try:
        with service.drainer.lock:
            service.drainer.clear_for_rebuild()
        service.catch_up_queued(progress)
    finally:
        service._rebuilding = False
    conn = service._reader()
    return RebuildResult(
        ok=True,
        doc_count=doc_count(conn),
        duration_ms=int((time.monotonic() - started) * 1000),
    )


def _last_source_run(sources: list[SourceRow]) -> int | None:
    """When a source was last ingested, as the index recorded it: a later process (the next
    `ade search --status`) reports it too, not only the one that ingested (``--status``'s last ingest)."""
    runs = [s.last_run for s in sources if not s.key.startswith("stat:") and s.last_run]
    return max(runs, default=None)
