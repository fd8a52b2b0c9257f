"""The palette's client outside a project: every query asks every project ade knows.

``ade`` in a folder that is no project used to open on nothing. This client answers the
``SearchClient`` interface for such a folder: queries go to the daemon with ``allProjects``
when one runs, else to ``engine.machine.everywhere`` over services opened in this process (kept
open between keystrokes, each caught up once when first asked); listings are the folder's own
(none, usually); the status sums the statuses of the projects searched. Hits carry their project
root, so the palette opens them (and Ctrl+R resumes them) in their own project.
"""

from __future__ import annotations

import os
import threading
from pathlib import Path

import msgspec

from engine.client import CATCH_UP_BOUND_S, LocalReads, ProgressCallback, SearchClient
from engine.errors import AdeError, UsageError
from engine.links.listings import ProjectListings
from engine.machine.known import KnownProject
from engine.project.model import Project
from engine.types import IndexStatus, RebuildResult, SearchQueryArgs, SearchQueryResult


class EverywhereClient(LocalReads):
    """``SearchClient`` over every known project, for the folder ``here`` (no project itself).

    Args:
        here: the working folder, opened as ``open_project`` opens it.
        daemon: the daemon's client for ``here`` when one answers (closed with this client).
    """

    def __init__(self, here: Project, daemon: SearchClient | None = None) -> None:
        super().__init__(lambda: ProjectListings(here))
        self._here = here
        self._daemon = daemon
        self._lock = threading.Lock()
        self._clients: dict[Path, SearchClient] = {}
        self._current: SearchClient | None = None
        self._known: list[KnownProject] | None = None

    @property
    def project(self) -> Project:
        return self._here

    def query(self, args: SearchQueryArgs) -> SearchQueryResult:
        args = msgspec.structs.replace(args, all_projects=True)
        if self._daemon is not None:
            return self._daemon.query(args)
        from engine.machine.everywhere import query_everywhere
        from engine.machine.known import known_projects
        from engine.rpc.registry import load_registry, registry_path

        registered, warnings = load_registry(registry_path())
        if self._known is None:  # listed once: a keystroke must not re-read the agents' folders
            self._known = known_projects(os.environ, [p.root for p in registered])
        return query_everywhere(args, self._client_for, environ=os.environ,
                                registry_warnings=warnings, known=self._known)  # fmt: skip

    def _client_for(self, root: Path) -> SearchClient:
        with self._lock:
            client = self._clients.get(root)
        if client is None:
            from engine.embedded import EmbeddedClient

            opened = EmbeddedClient.open(root, start_worker=False)
            opened.service.catch_up(history_seconds=CATCH_UP_BOUND_S)  # bounded, as the CLI
            with self._lock:
                client = self._clients.setdefault(root, opened)
            if client is not opened:
                opened.close()
        self._current = client
        return client

    def index_status(self) -> IndexStatus:
        """The statuses of the projects searched so far, summed (one line in the footer)."""
        with self._lock:
            clients = list(self._clients.values())
        statuses = []
        for client in clients:
            try:
                statuses.append(client.index_status())
            except AdeError:
                continue
        kinds: dict[str, int] = {}
        for status in statuses:
            for kind, count in status.docs_by_kind.items():
                kinds[kind] = kinds.get(kind, 0) + count
        return IndexStatus(
            state="ready",
            schema_version=max((s.schema_version for s in statuses), default=0),
            db_path=f"every project ade knows ({len(statuses)} searched)",
            db_bytes=sum(s.db_bytes for s in statuses),
            doc_count=sum(s.doc_count for s in statuses),
            docs_by_kind=kinds,
            source_count=sum(s.source_count for s in statuses),
            pending_sources=sum(s.pending_sources for s in statuses),
            last_ingest_at=max((s.last_ingest_at or 0 for s in statuses), default=None) or None,
        )

    def rebuild_index(self, progress: ProgressCallback | None = None) -> RebuildResult:
        del progress  # nothing is rebuilt
        raise UsageError("rebuild one project at a time: open the palette with --project DIR")

    def interrupt(self) -> None:
        target = self._daemon or self._current
        if target is not None:
            target.interrupt()

    def close(self) -> None:
        with self._lock:
            clients, self._clients = list(self._clients.values()), {}
        for client in clients:
            client.close()
        if self._daemon is not None:
            self._daemon.close()


def is_no_project(root: Path | None) -> Project | None:
    """The working folder's project when ``root`` is None and that folder is no project (the
    palette then searches every known project), else None."""
    if root is not None:
        return None
    from engine.errors import ProjectError
    from engine.project.locate import open_project
    from tui.search_run import ensure_project

    try:
        here = open_project(None)
    except ProjectError:
        return None
    try:
        ensure_project(here)
    except ProjectError:
        return here
    return None
