"""The one record every palette row is painted from, plus kind labels and icons."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from engine.types import ALL_KINDS, SearchResultItem

RowKind = Literal[
    "command",
    "header",
    "chat",
    "terminal",
    "pr",
    "commit",
    "branch",
    "lane",
    "file",
    "artifact",
    "linear",
    "project",
]

KIND_LABEL: dict[str, str] = {
    "command": "Commands",
    "chat": "Chats",
    "terminal": "Terminals",
    "pr": "Pull requests",
    "commit": "Commits",
    "branch": "Branches",
    "lane": "Lanes",
    "file": "Files",
    "artifact": "Artifacts",
    "linear": "Linear issues",
    "project": "Projects",
}
"""Group headers in the fixed kind order of ``engine.types.ALL_KINDS`` (seed ENTITY_KIND_LABEL)."""

KIND_ICON: dict[str, str] = {
    "command": "›",
    "chat": "◆",
    "terminal": "$",
    "pr": "⇅",
    "commit": "●",
    "branch": "ᚴ",
    "lane": "▤",
    "file": "≡",
    "artifact": "◈",
    "linear": "◎",
    "project": "⌂",
}
"""One single-cell glyph per kind: emoji are two cells wide in some terminals and break columns."""

KIND_ORDER: dict[str, int] = {kind: index for index, kind in enumerate(ALL_KINDS)}


Spans = tuple[tuple[int, int], ...]
"""Highlight spans as (start, end) code-point offsets into the text they belong to."""


@dataclass(frozen=True, slots=True)
class PaletteRow:
    """One line-pair of the result list.

    ``key`` is unique within a list and stable across re-renders of the same thing (``cmd:…``,
    ``lane:…``, ``session:<sid>`` for local chats and deduped session hits, the doc id otherwise), so
    the highlighted row can be found again after a merge.
    """

    key: str
    kind: RowKind
    title: str
    title_spans: Spans = ()
    snippet: str = ""
    snippet_spans: Spans = ()
    lane: str | None = None
    updated_at_ms: int | None = None
    session_id: str | None = None
    deep_link: str | None = None
    action: str | None = None
    """For command rows: the app action to run (``rebuild_index``, ``quit``…)."""
    more: int = 0
    """How many further hits of the same session were folded into this row ("+N more")."""
    foreign_project: str | None = None
    """Name of the other project this hit comes from (amber marker), or None for the active one."""
    local: bool = False
    leads: bool = False
    """A local match strong enough to go above the search hits: every typed word starts a word
    of it. Weaker local matches (fuzzy, mid-word) follow the hits."""
    item: SearchResultItem | None = field(default=None, compare=False)

    @property
    def selectable(self) -> bool:
        """Headers are labels, never a cursor position."""
        return self.kind != "header"


def header_row(kind: str, count: int) -> PaletteRow:
    """A non-selectable group label for ``kind`` with its icon."""
    return PaletteRow(
        key=f"header:{kind}",
        kind="header",
        title=f"{KIND_ICON.get(kind, ' ')} {KIND_LABEL.get(kind, kind)} ({count})",
    )
