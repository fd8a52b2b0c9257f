"""Builds the search service of one project and binds its inputs (DESIGN §1: searchServiceWiring).

The desktop-style long-running host passes ``watch=True`` and ``backfill_delay=10``; the command
line passes neither and calls ``catch_up`` itself; tests pass a manual ``timer`` and
``start_worker=False`` and drive time and draining explicitly.
"""

# warm path: a warm `ade search` imports this; keep its imports light (ARCHITECTURE: The warm path)

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING

import apsw

from engine.basics.logs import get_logger
from engine.index.tuning import WriteTuning
from engine.ingest.drain import RECONCILE_INTERVAL_S, RECONCILE_NO_WATCHER_S
from engine.ingest.timers import TimerFactory
from engine.project.git import common_dir, git_dir
from engine.project.lanes import list_lanes
from engine.project.model import Project
from engine.service import SearchService

if TYPE_CHECKING:
    from engine.ingest.watcher import Watcher

log = get_logger(__name__)

__all__ = ["TimerFactory", "create_project_service"]


def create_project_service(
    project: Project,
    *,
    clock: Callable[[], datetime] | None = None,
    timer: TimerFactory | None = None,
    watch: bool = False,
    backfill_delay: float | None = None,
    start_worker: bool = True,
    tuning: WriteTuning | None = None,
) -> SearchService:
    """Open (or recreate) the project's index and return its running service.

    Args:
        project: the project to serve.
        clock: wall clock for ``since:`` and timestamps (default: the system clock).
        timer: monotonic time and one-shot timers (default: real threads).
        watch: start the file watcher over ``.ade/`` and the lanes' git refs.
        backfill_delay: when set, run the backfill this many seconds from now and keep a periodic
            stat reconcile going; None leaves both to the caller (the CLI calls ``catch_up``).
        start_worker: run the writer thread; False means the caller drains
            (``process_pending_now`` / timer callbacks run the drain on the timer's thread).
        tuning: the write path's sizes and switches (default: the measured ones).
    """
    service = SearchService(
        project, clock=clock, timer=timer, start_worker=start_worker, tuning=tuning
    )
    try:
        with service.drainer.lock:
            service.drainer.connection()
    except (apsw.Error, OSError) as err:
        # Another process may be creating the file this very moment; the first drain retries
        # with backoff, and queries answer from delegated sources meanwhile. OSError: the cache
        # folder cannot be made (a file in its place) or written (read-only): same story.
        # Debug, not warning: every answer already carries "search index unavailable (…)" and
        # the status says degraded; a log line on stderr would say it twice in the CLI.
        log.debug("opening the search index failed (%s); retrying on the next drain", err)
    if watch:
        start_watcher(service)
    if backfill_delay is not None:
        service.start_backfill(backfill_delay)
    return service


def _git_dirs(service: SearchService) -> list[Path]:
    """The shared git directory of every lane (each linked worktree's own dir lives inside)."""
    found: list[Path] = []
    for lane in list_lanes(service.project, service.tally):
        gitdir = git_dir(lane.path)
        if gitdir is not None and (common := common_dir(gitdir).resolve()) not in found:
            found.append(common)
    return found


def start_watcher(service: SearchService) -> Watcher:
    """Watch ``.ade/``, the lanes' git folders and every agent's folders (those made later too,
    ``engine.ingest.watch_plan``; the agents' files in a lane's root by a watch of that root
    alone) for ``service``; stopped by ``dispose``.

    While it watches, the periodic reconcile slows to ``RECONCILE_INTERVAL_S``; a watcher that
    fails falls back to the fast reconcile and reports ``degraded: …`` in the status.
    """

    def on_state(state: str) -> None:
        service.watcher_state = state
        service.drainer.reconcile_interval = (
            RECONCILE_INTERVAL_S if state == "watching" else RECONCILE_NO_WATCHER_S
        )

    from engine.ingest.watcher import (
        Watcher,
    )  # lazy: watchfiles costs ~25 ms; the CLI never watches

    external = service.drainer.external
    watcher = Watcher(service.project, service, lambda: _git_dirs(service), on_state,
                      external.watch_roots, external.watch_files)  # fmt: skip
    service.add_closer(watcher.stop)
    watcher.start()
    return watcher
