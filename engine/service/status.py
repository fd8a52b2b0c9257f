"""The status of one project's search service (``SearchService.index_status``): imported when
asked, so a search never loads what only the status reads (the commit-history state, the
session listing, the skipped-line counts)."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

import apsw

from engine.index.checks import doc_count, docs_by_kind
from engine.index.db import SourceRow, list_sources, meta_get
from engine.index.schema import SEARCH_INDEX_SCHEMA_VERSION
from engine.ingest.history import history_status
from engine.service.agent_status import agent_statuses
from engine.service.status_scan import listing_warnings
from engine.types import IndexState, IndexStatus

if TYPE_CHECKING:
    from engine.ingest.drain import Drainer
    from engine.ingest.queue import IngestQueue
    from engine.project.model import Project
    from engine.project.tally import WarningTally


def index_status_of(
    conn: apsw.Connection,
    unavailable: str | None,
    *,
    project: Project,
    drainer: Drainer,
    queue: IngestQueue,
    tally: WarningTally,
    state: IndexState,
    notes: list[str],
    watcher_state: str,
) -> IndexStatus:
    """The live state of a project's index and ingester (``SearchService.index_status``), read
    on ``conn`` (an empty index when ``unavailable`` says why); ``state`` is the service's own,
    ``notes`` the warnings every answer carries."""
    sources = list_sources(conn)
    backfill = meta_get(conn, "backfill_completed_at")
    try:
        size = os.stat(project.index_path).st_size
    except OSError:
        size = 0
    warnings = _warnings(project, tally, drainer.matched_manifest, sources, conn, unavailable)
    if unavailable is not None:
        notes = [unavailable, *notes]
    if notes:
        warnings = {**dict.fromkeys(notes, 1), **warnings}
    degraded = unavailable is not None or drainer.write_fault is not None
    return IndexStatus(
        state="degraded" if degraded and state != "closed" else state,
        schema_version=SEARCH_INDEX_SCHEMA_VERSION,
        db_path=str(project.index_path),
        db_bytes=size,
        doc_count=doc_count(conn),
        docs_by_kind=docs_by_kind(conn),
        source_count=sum(1 for s in sources if not s.key.startswith("stat:")),
        pending_sources=queue.pending_sources(),
        last_ingest_at=drainer.last_ingest_ms or _last_source_run(sources),
        backfill_completed_at=int(backfill) if backfill and backfill.isdigit() else None,
        watcher_state=watcher_state,
        recreated_reason=drainer.recreated_reason,
        warnings=warnings,
        commit_history=history_status(conn),
        discovery=drainer.external.discovery_roots(),
        health_check_since=drainer.health.running_since_ms,
        agents=agent_statuses(project, tally, sources),
    )


def _warnings(
    project: Project,
    tally: WarningTally,
    digest: str | None,
    sources: list[SourceRow],
    conn: apsw.Connection,
    unavailable: str | None,
) -> dict[str, int]:
    """This process's counts, the skipped-line counts stored with the cursors (they outlive
    the run that saw the lines: a later ``--status`` still shows them) and project.json's."""
    from engine.ingest.tailing import persisted_skips  # deferred: a warm search never asks

    counts = tally.snapshot()
    for key, stored in persisted_skips(sources).items():
        counts[key] = max(counts.get(key, 0), stored)  # this run's lines are in both
    for key, count in listing_warnings(project, digest, conn, unavailable).items():
        counts[key] = max(counts.get(key, 0), count)
    return dict(sorted(counts.items()))


def _last_source_run(sources: list[SourceRow]) -> int | None:
    """When a source was last ingested, as the index recorded it: a later process (the next
    `ade search --status`) reports it too, not only the one that ingested (``--status``'s last ingest)."""
    runs = [s.last_run for s in sources if not s.key.startswith("stat:") and s.last_run]
    return max(runs, default=None)
