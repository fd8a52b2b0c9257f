"""The in-process client: the embedded default when no daemon runs (DESIGN §7).

Wraps one project's ``SearchService`` and the project reader behind the ``SearchClient``
protocol, so the palette and the CLI cannot tell it from the daemon's socket client.
"""

# warm path: a warm `ade search` imports this; keep its imports light (ARCHITECTURE: The warm path)

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING

from engine.basics.clock import Clock, clock_from_env
from engine.client import LocalReads, ProgressCallback
from engine.project.locate import open_project
from engine.project.model import Project
from engine.service import SearchService
from engine.types import (
    IndexStatus,
    RebuildResult,
    SearchQueryArgs,
    SearchQueryResult,
)
from engine.wiring import create_project_service

if TYPE_CHECKING:
    from engine.links.listings import ProjectListings


class EmbeddedClient(LocalReads):
    """One project's search service, running in this process."""

    def __init__(self, service: SearchService, clock: Clock) -> None:
        super().__init__(lambda: _listings_of(service.project))
        self._service = service
        self._clock = clock

    @classmethod
    def open(
        cls,
        root: Path | None,
        *,
        clock: Callable[[], datetime] | None = None,
        watch: bool = False,
        backfill_delay: float | None = None,
        start_worker: bool = True,
        project: Project | None = None,
    ) -> EmbeddedClient:
        """Open ``root`` (default: the git top level of the cwd, else the cwd); ``project``
        when the caller has opened it already (saves a `git rev-parse`).

        Raises:
            ProjectError: the folder does not exist or cannot be read.
        """
        project = project if project is not None else open_project(root)
        the_clock = clock or clock_from_env()
        service = create_project_service(
            project,
            clock=the_clock,
            watch=watch,
            backfill_delay=backfill_delay,
            start_worker=start_worker,
        )
        return cls(service, the_clock)

    @property
    def project(self) -> Project:
        return self._service.project

    @property
    def service(self) -> SearchService:
        """The underlying service (for `catch_up`, notify hooks and tests)."""
        return self._service

    @property
    def clock(self) -> Clock:
        return self._clock

    def query(self, args: SearchQueryArgs) -> SearchQueryResult:
        return self._service.query(args)

    def index_status(self) -> IndexStatus:
        return self._service.index_status()

    def rebuild_index(self, progress: ProgressCallback | None = None) -> RebuildResult:
        return self._service.rebuild_index(progress)

    def interrupt(self) -> None:
        self._service.interrupt()

    def close(self) -> None:
        self._service.dispose()

    def __enter__(self) -> EmbeddedClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _listings_of(project: Project) -> ProjectListings:
    """The project reader, imported on first use: a search never lists sessions or lanes
    through it, and it imports the agent tools' discovery (~14 ms of a warm start-up)."""
    from engine.links.listings import ProjectListings

    return ProjectListings(project)
