"""The drain's per-kind passes over transcripts, and the reconcile that queues changed sources.

The processors (and the document builders, redaction and chunking behind them) are imported
when an entry runs, and the source listing when a reconcile runs in full: a warm CLI search
where nothing changed never needs them. ``SourcePasses`` is the drain's
(``engine.ingest.drain.Drainer``): it writes through the drain's ``IndexWriter`` and queues on
its queue, and owns the planning worker, the agents' session catalog and the reconcile's manifest.
"""

# warm path: a warm `ade search` imports this; keep its imports light (ARCHITECTURE: The warm path)

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

import apsw

from engine.basics.logs import get_logger
from engine.external.catalog import ExternalCatalog, external_signature
from engine.index.db import meta_get, meta_set
from engine.index.sources import MANIFEST_KEY
from engine.index.writer import IndexWriter
from engine.ingest.manifest import Manifest, project_manifest
from engine.ingest.queue import Entry, IngestQueue, Kind
from engine.project import lane_memo
from engine.project.model import Project, SessionKind
from engine.project.tally import WarningTally

if TYPE_CHECKING:
    from engine.ingest.planner import Prefetcher
    from engine.ingest.quiet_folders import QuietFolders

log = get_logger(__name__)


SESSION_QUEUE_KINDS: tuple[Kind, ...] = ("chat", "terminal")
"""Queue kinds whose passes the planning worker can plan."""


class SourcePasses:
    """The per-kind passes of the drain, the reconcile, and the manifest that lets a warm run
    skip it."""

    def __init__(
        self,
        writer: IndexWriter,
        queue: IngestQueue,
        project: Project,
        tally: WarningTally,
        *,
        end_group: Callable[[], None],
    ) -> None:
        """``end_group`` commits the drain's open group of passes: the planning worker calls it
        before it waits, so no write lock is held through the wait."""
        self.writer = writer
        self.queue = queue
        self.project = project
        self.tally = tally
        self.tuning = writer.tuning
        self._end_group = end_group
        self.external = ExternalCatalog(project)
        self.prefetch: Prefetcher | None = None
        """The planning worker's handle (``engine.ingest.planner``), made on the first
        transcript entry: a warm run that ingests nothing never imports it."""
        self.pending_manifest: str | None = None
        """The manifest of the last full reconcile, stored once its entries all drained."""
        self.matched_manifest: str | None = None
        """The stored manifest the last reconcile found unchanged (None: it ran in full); the
        status keys its cached listing warnings on it (``engine.service.status_scan``)."""
        self.incomplete = False
        """An entry since that reconcile failed or was unreadable: the manifest cannot vouch."""
        self._warned = 0
        """The tally's total before that reconcile: a new warning keeps the manifest out."""
        self.listing_warnings = WarningTally()
        """What the last full reconcile's listing warned of (``reconcile``)."""
        self.full_reconciles = 0
        self.skipped_reconciles = 0
        """Reconciles run in full, and skipped on an unchanged manifest (tests read both)."""
        self.quiet: QuietFolders | None = None
        """The daemon's ``.ade`` folders known unchanged since the manifest last listed them
        (``engine.ingest.quiet_folders``; the process's one, set by ``engine.rpc.services``),
        None elsewhere."""

    def close(self) -> None:
        """Stop the planning worker, if one runs (the daemon's quiet folders are the process's:
        ``shared_quiet_folders``)."""
        if self.prefetch is not None:
            self.prefetch.close()

    def idle(self) -> None:
        """What is left is not due yet: no backlog to plan ahead."""
        if self.prefetch is not None:
            self.prefetch.idle()

    def session(self, conn: apsw.Connection, kind: SessionKind, sid: str, now: int) -> bool:
        """One pass over a session's transcript; True when more is left."""
        from engine.ingest.reconcile import session_signature, store_session_signature
        from engine.ingest.transcripts import process_session  # deferred: see module docstring

        prefetch = self._plan_ahead(conn, (kind, sid))
        signature = session_signature(self.project, kind, sid)
        planned = prefetch.take((kind, sid), conn, signature, self.tally)
        result = process_session(
            self.writer, self.project, kind, sid, self.tally, now, planned, self.tuning
        )
        if not result.more:
            store_session_signature(self.writer, kind, sid, signature, now)
        # The backlog is done when no transcript entry is left: the worker stops.
        if prefetch.running and not result.more and not self.queue.upcoming(SESSION_QUEUE_KINDS, 1):
            prefetch.idle()
        return result.more

    def _plan_ahead(self, conn: apsw.Connection, entry: Entry) -> Prefetcher:
        """Start the planning worker for a big backlog and send it the next transcript
        entries, so their passes are planned while this one is written (the first-index budget)."""
        from engine.ingest import planner  # deferred: only a transcript entry needs it

        if self.prefetch is None:
            self.prefetch = planner.Prefetcher(self.project, self.tuning)
            self.prefetch.before_wait = self._end_group
        prefetch = self.prefetch
        if prefetch.running:
            prefetch.before(
                conn, entry, self.queue.upcoming(SESSION_QUEUE_KINDS, self.tuning.window), 0
            )
        elif prefetch.should_check():
            # One long transcript alone is a backlog too: its next passes are planned ahead.
            upcoming = self.queue.upcoming(SESSION_QUEUE_KINDS, self.tuning.window)
            queued = [(k, s) for k in SESSION_QUEUE_KINDS for s in self.queue.queued(k)]
            backlog = planner.backlog_bytes(conn, self.project, [entry, *queued])
            prefetch.before(conn, entry, upcoming, backlog)
        return prefetch

    def external_session(self, sid: str, now: int) -> bool:
        """One pass over a Claude Code / Codex session (4 MiB per file); True when more is left."""
        from engine.ingest.external_pass import process_external  # deferred like the other builders
        from engine.ingest.reconcile import store_session_signature

        meta = self.external.get(sid)
        if meta is None:
            return False  # not listed (any more): the next reconcile lists it or drops its docs
        signature = external_signature(meta)
        result = process_external(self.writer, meta, self.tally, now, self.tuning)
        if not result.more:
            store_session_signature(self.writer, "chat", sid, signature, now)
        return result.more

    def reconcile(self, conn: apsw.Connection, *, everything: bool) -> list[Entry]:
        """Enqueue every changed source (every source with ``everything``); drop gone sessions.

        Skipped, reading one ``meta`` row, when the manifest equals the stored one
        (``engine.ingest.manifest``): nothing changed since every source was last ingested.
        """
        manifest = None if everything else self._manifest()
        stored = None if manifest is None else meta_get(conn, MANIFEST_KEY)
        if manifest is not None and manifest.digest == stored:
            self.skipped_reconciles += 1
            self.matched_manifest = manifest.digest
            return []
        # Only the project's own sources moved (a line appended): the sessions are those the
        # stored manifest vouched for, so the agents' are not listed, nor gone ones looked for.
        same = manifest is not None and manifest.same_sessions(stored)
        self.matched_manifest = None
        self.full_reconciles += 1
        # Deferred like the processors: a warm run whose manifest matched never lists sources.
        from engine.ingest.reconcile import changed_sources, remove_gone_sessions

        # The listing's warnings (a file refused, a transcript without its cwd yet) are this
        # listing's: they replace the last one's, so a file fixed since drops out of the status
        # and one still broken is not counted again at every re-listing (docs/reliability-faults.md).
        listing = WarningTally()
        entries, sessions = changed_sources(
            conn, self.project, listing, everything=everything,
            external=None if same else self.external,
            listing=None if manifest is None else manifest.listing,
        )  # fmt: skip
        self.tally.forget(self.listing_warnings)
        self.tally.merge(listing)
        self.listing_warnings = listing
        # A warning of this listing (the file is still broken) keeps the manifest out, as does
        # any warning the passes add from here on.
        warned = self.tally.total() - listing.total()
        if not same:
            remove_gone_sessions(self.writer, sessions)
        for kind, ident in entries:
            self.queue.add(kind, ident, delay=0.0)
        # A session remembered from another environment lies outside the folders it lists.
        covered = manifest is not None and manifest.covers(self.external.sessions())
        self.pending_manifest = manifest.digest if manifest is not None and covered else None
        self.incomplete = False
        self._warned = warned
        return entries

    def _manifest(self) -> Manifest | None:
        lanes = lane_memo.list_lanes(self.project, self.tally)
        return project_manifest(self.project, lanes, self.external.env(), self.quiet)

    def store_manifest(self, conn: apsw.Connection, *, settled: bool) -> None:
        """Remember the last full reconcile's manifest once everything it queued is ingested
        (one small write, only after a reconcile that ran in full); ``settled``: no write waits
        out a backoff and the disk took the last (``WriteFaults.settled``)."""
        manifest, self.pending_manifest = self.pending_manifest, None
        if manifest is None or self.incomplete or self.queue.source_count() or not settled:
            return
        if self.tally.total() > self._warned:
            # A hostile file was counted: its warning is this process's, so later runs must
            # list it again to say it (``ade search --status``), never skip it silently.
            return
        try:
            with self.writer.transaction():
                meta_set(conn, MANIFEST_KEY, manifest)
        except (apsw.Error, OSError):
            log.debug("storing the reconcile manifest failed", exc_info=True)
