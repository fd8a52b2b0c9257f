"""A daemon's checked answer read as the text form reads a ``SearchQueryResult``, without msgspec.

``ade search`` without ``--json`` is what a person types; answered by the daemon, its text was
printed from ``engine.types.from_wire`` of the answer, which imports msgspec and the wire types
(~130 M instructions, three times a bare interpreter: the start-up budget). The answer has already
passed ``engine.rpc.reply_check.check_search_result`` — every field the wire contract names, of
its type, links and ranges checked — so these views only rename its fields (camelCase to the
types' names) and fill the optional ones' defaults. ``tests/tui/cli/test_wire_views.py`` holds
their text equal to ``from_wire``'s and their fields to the types'.
"""

from __future__ import annotations

TYPE_CHECKING = False  # no `typing` on a daemon-answered search (the start-up budget)
if TYPE_CHECKING:
    from typing import Any


class RangeView:
    """``engine.types.MatchRange``."""

    __slots__ = ("end", "start")

    def __init__(self, wire: dict[str, Any]) -> None:
        self.start: int = wire["start"]
        self.end: int = wire["end"]


class HitView:
    """``engine.types.SearchResultItem``: an optional field the answer leaves out is ``None``,
    the type's default for every one of them."""

    __slots__ = (
        "anchor", "deep_link", "doc_id", "kind", "lane_id", "lane_name", "match_count",
        "match_ranges", "message_count", "project_id", "project_name", "project_root",
        "session_id", "snippet", "tier", "title", "tool", "updated_at",
    )  # fmt: skip

    def __init__(self, wire: dict[str, Any]) -> None:
        self.doc_id: str = wire["docId"]
        self.kind: str = wire["kind"]
        self.title: str = wire["title"]
        self.snippet: str = wire["snippet"]
        self.match_ranges = tuple(RangeView(span) for span in wire["matchRanges"])
        self.tier: str = wire["tier"]
        self.updated_at: int = wire["updatedAt"]
        self.deep_link: str = wire["deepLink"]
        self.session_id: str | None = wire.get("sessionId")
        self.lane_id: str | None = wire.get("laneId")
        self.lane_name: str | None = wire.get("laneName")
        self.anchor: str | None = wire.get("anchor")
        self.project_id: str | None = wire.get("projectId")
        self.project_name: str | None = wire.get("projectName")
        self.project_root: str | None = wire.get("projectRoot")
        self.tool: str | None = wire.get("tool")
        self.message_count: int | None = wire.get("messageCount")
        self.match_count: int | None = wire.get("matchCount")


class ResultView:
    """``engine.types.SearchQueryResult``."""

    __slots__ = ("items", "next_cursor", "relaxed", "results_truncated", "total", "warnings")

    def __init__(self, wire: dict[str, Any]) -> None:
        self.items = tuple(HitView(item) for item in wire["items"])
        self.total: int = wire["total"]
        self.next_cursor: str | None = wire["nextCursor"]
        self.results_truncated: bool = wire.get("resultsTruncated", False)
        self.warnings: tuple[str, ...] = tuple(wire.get("warnings", ()))
        self.relaxed: str | None = wire.get("relaxed")
