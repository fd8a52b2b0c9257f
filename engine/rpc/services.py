"""One search service per project the daemon is asked about, opened lazily and kept warm.

The first request naming a project root opens its service (watcher on, backfill after
``BACKFILL_DELAY_S``); later requests reuse it. Opening is guarded per root so two concurrent first
requests never open two services (two writers) for one index.
"""

from __future__ import annotations

import gc
import threading
from collections.abc import Callable
from pathlib import Path

from engine.basics.logs import get_logger
from engine.client import SearchClient
from engine.errors import ProjectError
from engine.types import IndexStatus, RebuildResult, SearchQueryArgs, SearchQueryResult

BACKFILL_DELAY_S = 10.0
"""Backfill waits this long after a service opens so the first queries are not competing."""

log = get_logger(__name__)

ClientFactory = Callable[[Path], SearchClient]


def embedded_factory(
    backfill_delay: float = BACKFILL_DELAY_S, query_hold: float | None = None
) -> ClientFactory:
    """The real factory: an ``EmbeddedClient`` with its watcher on, caught up once on open.

    The catch-up (stat every source, ingest what changed) is what the in-process CLI does before
    its query, so the first answer from the daemon equals the in-process one; the watcher keeps
    it current afterwards and the delayed backfill reconciles the rest. ``query_hold``: longest a
    query waits for a due drain (None: ``QUERY_HOLD_S``; 0: queries never wait).
    """

    def open_client(root: Path) -> SearchClient:
        from engine.basics.caller_env import current_environ, request_clock
        from engine.basics.clock import clock_from_env
        from engine.embedded import EmbeddedClient  # the engine is heavy; import on first use
        from engine.ingest.quiet_folders import shared_quiet_folders
        from engine.wiring import start_watcher

        # The service answers the caller's clock per request and discovers in the caller's
        # agent folders (the pool keys it by them): engine.basics.caller_env.
        client = EmbeddedClient.open(root, clock=request_clock(clock_from_env()))
        client.service.drainer.external.environ = dict(current_environ())
        # Each answer's catch-up lists the .ade folders again only when something changed in
        # them (inotify: engine.ingest.quiet_folders); the files stay where they are.
        client.service.drainer.passes.quiet = shared_quiet_folders()
        start_watcher(client.service)
        # Ingestion first under load: queries wait, boundedly, while a drain is due.
        client.service.ingest_gate.enabled = query_hold != 0
        if query_hold is not None:
            client.service.ingest_gate.hold = query_hold
        try:
            # Catch up *before* scheduling the backfill: catch_up drains every queued entry
            # regardless of its due time, and the periodic reconcile re-queues itself.
            # A first commit-history pass (minutes on a huge repository) goes on in the writer
            # thread after this budget; the first answers say the history is still indexing.
            client.service.catch_up(history_seconds=2.0)
            client.service.start_backfill(backfill_delay)
        except BaseException:
            client.close()
            raise
        return client

    return open_client


def frozen_after_open(factory: ClientFactory) -> ClientFactory:
    """``factory`` whose every opening ends by freezing the process's objects out of the cyclic
    collector (after one collection, so no garbage is kept).

    What a daemon holds for good (its modules, the open services and their caches) made every
    oldest-generation collection walk ~20k objects: 6-40 ms, taken by whichever request's
    allocations triggered it, so it fell on one answer in a few hundred (the p95 of the
    start-up budget). Frozen, those collections walk only what was made since; what a request makes is
    freed by reference counting as before.
    """

    def open_client(root: Path) -> SearchClient:
        client = factory(root)
        gc.collect()
        gc.freeze()
        return client

    return open_client


ServiceKey = tuple[Path, tuple[tuple[str, str], ...]]
"""A resolved project root and the agent folders of the callers it serves
(``engine.basics.caller_env.folders_key``)."""


class ServicePool:
    """The open services, keyed by resolved project root and the caller's agent folders
    (at most ``MAX_FOLDER_CONTEXTS`` sets of folders per root).

    Args:
        factory: opens one project's client (raises ``ProjectError`` for a missing folder).
        allow: raises ``ProjectError`` for a root that must not be served (the daemon passes
            ``require_project`` with the registry); None serves any folder.
    """

    def __init__(self, factory: ClientFactory, allow: Callable[[Path], None] | None = None) -> None:
        self._factory = factory
        self._allow = allow
        self._clients: dict[ServiceKey, SearchClient] = {}
        self._opening: dict[ServiceKey, threading.Lock] = {}
        self._lock = threading.Lock()
        self._closed = False
        self._request = threading.local()

    def one_request(self) -> _OneRequest:
        """``with pool.one_request():`` the clients ``client_for`` returns on this thread are
        kept until the block ends: the router asks again for the root the host asked for, and
        resolving it (an ``lstat`` a path component) cost ~15 us each time."""
        return _OneRequest(self._request)

    def client_for(self, root: Path) -> SearchClient:
        """The open client of ``root``, opening it on first use.

        Raises:
            ProjectError: the folder is missing or unreadable, or the daemon is shutting down.
            ContextNotServed: the caller's agent folders would be one set too many.
        """
        kept: dict[Path, SearchClient] | None = getattr(self._request, "clients", None)
        if kept is not None and (client := kept.get(root)) is not None:
            if self._closed:
                raise ProjectError("the daemon is shutting down")
            return client
        client = self._client_for(root)
        if kept is not None:
            kept[root] = client
        return client

    def _client_for(self, root: Path) -> SearchClient:
        from engine.basics.caller_env import MAX_FOLDER_CONTEXTS, ContextNotServed, folders_key

        try:
            resolved = root.resolve(strict=True)
        except (OSError, RuntimeError):
            raise ProjectError(f"project folder not found: {root}") from None
        key = (resolved, folders_key())
        with self._lock:
            if self._closed:
                raise ProjectError("the daemon is shutting down")
            if (client := self._clients.get(key)) is not None:
                return client
            contexts = [folders for served, folders in self._clients if served == resolved]
            if len(contexts) >= MAX_FOLDER_CONTEXTS:  # each is a writer and a watcher
                raise ContextNotServed(
                    f"context not served: {resolved} is served for {len(contexts)} sets of"
                    " agent folders already"
                )
            opening = self._opening.setdefault(key, threading.Lock())
        with opening:
            with self._lock:
                if (client := self._clients.get(key)) is not None:
                    return client
            if self._allow is not None:
                self._allow(resolved)  # before the factory creates .ade/cache there
            client = self._factory(resolved)
            log.info("opened search service for %s (agent folders %s)", resolved, key[1])
            with self._lock:
                if self._closed:
                    client.close()
                    raise ProjectError("the daemon is shutting down")
                self._clients[key] = client
            return client

    def interrupt_thread(self, thread_id: int) -> None:
        """Interrupt the query ``thread_id`` runs in any open service (a cancelled request)."""
        with self._lock:
            clients = list(self._clients.values())
        for client in clients:
            service = getattr(client, "service", None)  # EmbeddedClient; other hosts: no-op
            interrupt = getattr(service, "interrupt_thread", None)
            if interrupt is not None:
                interrupt(thread_id)

    def roots(self) -> list[Path]:
        """Roots of the open services (for ``ade daemon status``), each once."""
        with self._lock:
            return sorted({root for root, _ in self._clients})

    def close_all(self) -> None:
        """Dispose every service (writer threads stopped, transactions closed)."""
        with self._lock:
            self._closed = True
            clients = list(self._clients.items())
            self._clients.clear()
        for root, client in clients:
            try:
                client.close()
            except Exception:  # one bad service must not keep the others open
                log.exception("closing the service of %s failed", root)


class _OneRequest:
    """``ServicePool.one_request``'s context manager (nested: the outer block's clients)."""

    def __init__(self, local: threading.local) -> None:
        self._local = local
        self._outer = True

    def __enter__(self) -> None:
        self._outer = getattr(self._local, "clients", None) is None
        if self._outer:
            self._local.clients = {}

    def __exit__(self, *exc_info: object) -> None:
        if self._outer:
            self._local.clients = None


class DaemonHost:
    """The ``SearchHost`` of the action domain: router for queries, pool for the rest."""

    def __init__(
        self, pool: ServicePool, query: Callable[[Path, SearchQueryArgs], SearchQueryResult]
    ) -> None:
        self._pool = pool
        self._query = query

    def query(self, root: Path, args: SearchQueryArgs, *, fresh: bool = True) -> SearchQueryResult:
        if args.all_projects:  # every project ade knows, each caught up as one alone would be
            return self._everywhere(root, args, fresh)
        with self._pool.one_request():  # the router's client_for(root) is this one
            return self._query_one(root, args, fresh)

    def _query_one(self, root: Path, args: SearchQueryArgs, fresh: bool) -> SearchQueryResult:
        from engine.project.lane_memo import one_listing  # the engine loads on first open

        service = getattr(self._pool.client_for(root), "service", None)
        # The catch-up's manifest and the query share one `git worktree list`.
        with one_listing():
            if fresh and service is not None:
                # Read your writes: what was written before this request is answered.
                service.catch_up_for_answer()
            # Ingestion first under load: with a drain due, a new query waits (bounded by the
            # gate's hold) instead of taking the GIL and the cores from the writer.
            gate = getattr(service, "ingest_gate", None)
            if gate is not None:
                gate.admit()
            return self._query(root, args)

    def _everywhere(self, root: Path, args: SearchQueryArgs, fresh: bool) -> SearchQueryResult:
        from engine.basics.caller_env import current_environ
        from engine.machine.everywhere import query_everywhere
        from engine.project.lane_memo import one_listing
        from engine.rpc.registry import load_registry, registry_path

        def ready(root: Path) -> SearchClient:
            client = self._pool.client_for(root)
            service = getattr(client, "service", None)
            if fresh and service is not None:
                service.catch_up_for_answer()
            return client

        registered, warnings = load_registry(registry_path())
        with one_listing():
            return query_everywhere(args, ready, environ=current_environ(),
                                    registered=[p.root for p in registered],
                                    registry_warnings=warnings, current=root)  # fmt: skip

    def index_status(self, root: Path) -> IndexStatus:
        return self._pool.client_for(root).index_status()

    def rebuild_index(self, root: Path) -> RebuildResult:
        return self._pool.client_for(root).rebuild_index()
