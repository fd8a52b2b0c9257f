"""Builds the search service of one project and binds its inputs (DESIGN §1: searchServiceWiring).

The desktop-style long-running host passes ``watch=True`` and ``backfill_delay=10``; the command
line passes neither and calls ``catch_up`` itself; tests pass a manual ``timer`` and
``start_worker=False`` and drive time and draining explicitly.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime

from engine.ingest.timers import TimerFactory
from engine.project.model import Project
from engine.service import SearchService

__all__ = ["TimerFactory", "create_project_service"]


def create_project_service(
    project: Project,
    *,
    clock: Callable[[], datetime] | None = None,
    timer: TimerFactory | None = None,
    watch: bool = False,
    backfill_delay: float | None = None,
    start_worker: bool = True,
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
    """
    service = SearchService(project, clock=clock, timer=timer, start_worker=start_worker)
    with service.drainer.lock:
        service.drainer.connection()
    if watch:
        from engine.ingest.watcher import start_watcher

        start_watcher(service)
    if backfill_delay is not None:
        service.start_backfill(backfill_delay)
    return service
