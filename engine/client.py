"""The one narrow interface every front end uses to talk to the engine (DESIGN §1).

Two implementations: ``EmbeddedClient`` (in-process; the default when no daemon runs) and the
daemon's socket client (``engine.rpc.client``). The palette, the CLI and the daemon never reach
past this interface into the index or the ingester (``tests/architecture/test_tui_imports.py``
lists what ``tui/`` may import). Listings, link resolution and ``explain`` are answered in the
caller's process by both implementations alike (``engine.links.listings``, ``.resolve``).
"""

# warm path: a warm `ade search` imports this; keep its imports light (ARCHITECTURE: The warm path)

from __future__ import annotations

from collections.abc import Callable, Sequence
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
    from engine.links.listings import ProjectListings
    from engine.links.resolve import LinkTarget

__all__ = ["CATCH_UP_BOUND_S", "LocalReads", "ProgressCallback", "SearchClient"]
# ProgressCallback is re-exported: it is part of the client interface (rebuild_index).

CATCH_UP_BOUND_S = 10.0
"""Longest an answer waits for the index to catch up with what was written before it: the
CLI's commit-history pass, a daemon's catch-up before a search, the re-ingest of a recreated
index (docs/freshness.md). It then answers with what is there and says so."""


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


class LocalReads:
    """The part of the interface both implementations answer in the caller's process, the same
    way: listings, link resolution and ``explain`` (a read connection of its own on the index
    file, which is the daemon's file too). A client hands it how to make its project's reader
    and provides ``project``.

    Args:
        listings: makes the project's reader, on the first listing or link asked (a search
            never needs it; the reader imports the agent tools' discovery).
    """

    def __init__(self, listings: Callable[[], ProjectListings]) -> None:
        self._make_listings = listings
        self._listings: ProjectListings | None = None

    @property
    def project(self) -> Project:
        raise NotImplementedError

    @property
    def listings(self) -> ProjectListings:
        """The project's reader (listings, transcripts, what links resolve against)."""
        if self._listings is None:
            self._listings = self._make_listings()
        return self._listings

    def list_sessions(self, *, include_archived: bool = True) -> list[SessionMeta]:
        return self.listings.list_sessions(include_archived=include_archived)

    def list_lanes(self) -> list[Lane]:
        return self.listings.list_lanes()

    def transcript_path(self, session_id: str) -> Path | None:
        return self.listings.transcript_path(session_id)

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
        from engine.links.resolve import resolve_link  # on first use: the palette starts lighter

        return resolve_link(link, self.listings, known=known, lane_hint=lane_hint,
                            project_root=project_root, title=title, snippet=snippet)  # fmt: skip

    def explain(
        self, args: SearchQueryArgs, items: Sequence[SearchResultItem], *, now: datetime
    ) -> list[HitExplanation]:
        from engine.semantic.explain import explain_with_meaning  # only --explain needs it

        return explain_with_meaning(self.project.index_path, args.query, items, now=now)
