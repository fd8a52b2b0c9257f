"""The one narrow interface every front end uses to talk to the engine (DESIGN §1).

Two implementations: ``EmbeddedClient`` (in-process; the default when no daemon runs) and the
daemon's socket client (``engine.rpc.client``). The palette, the CLI and the daemon never reach
past this interface into the index or the ingester (``tests/architecture/test_tui_imports.py``
lists what ``tui/`` may import). Listings, link resolution and ``explain`` are answered in the
caller's process by both implementations alike (``engine.links.listings``, ``.resolve``).
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from engine.project.model import Lane, Project, SessionMeta
from engine.types import (
    HitExplanation,
    IndexStatus,
    ProgressCallback,
    RebuildResult,
    SearchQueryArgs,
    SearchQueryResult,
    SearchResultItem,
)

if TYPE_CHECKING:
    from engine.links.deeplink import DeepLink
    from engine.links.resolve import LinkTarget

__all__ = ["ProgressCallback", "SearchClient"]
# ProgressCallback is re-exported: it is part of the client interface (rebuild_index).


class SearchClient(Protocol):
    """What a front end may ask of one project's search service."""

    @property
    def project(self) -> Project: ...

    def query(self, args: SearchQueryArgs) -> SearchQueryResult:
        """Run one query. Raises ``engine.errors.UsageError`` for bad input (exit 2 / -32602)."""
        ...

    def index_status(self) -> IndexStatus: ...

    def rebuild_index(self, progress: ProgressCallback | None = None) -> RebuildResult: ...

    def list_sessions(self, *, include_archived: bool = True) -> list[SessionMeta]:
        """A fresh listing of every session (chat and terminal) of the project."""
        ...

    def list_lanes(self) -> list[Lane]: ...

    def transcript_path(self, session_id: str) -> Path | None:
        """Where the session's transcript is (plain or ``.gz``), for the scrollback screen."""
        ...

    def resolve_link(
        self,
        link: DeepLink,
        *,
        known: Sequence[SessionMeta] = (),
        lane_hint: str | None = None,
        project_root: Path | None = None,
        title: str = "",
        snippet: str = "",
    ) -> LinkTarget:
        """What ``link`` points at (``engine.links.resolve.resolve_link``); never raises for a
        target that is gone (gives ``Gone``)."""
        ...

    def explain(
        self, args: SearchQueryArgs, items: Sequence[SearchResultItem], *, now: datetime
    ) -> list[HitExplanation]:
        """Why each of ``items`` (the page ``args`` produced) ranks where it does."""
        ...

    def interrupt(self) -> None:
        """Abort any query running on this client's read connection (quit, superseded query)."""
        ...

    def close(self) -> None: ...
