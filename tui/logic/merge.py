"""Merging local matches with search hits: dedupe by session, group by kind, stable selection.

The seed's TUI rules: search hits go below the local matches; chat and terminal hits are folded to
one row per owning session (its best hit, "+N more"); a session already shown as a local chat match
is not repeated; when the query asks for kinds, rows are grouped in the fixed kind order with a label.
Local matches lead only when they match at word starts; weaker ones follow the hits.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

from tui.logic.rows import KIND_ORDER, PaletteRow, header_row

if TYPE_CHECKING:
    from engine.types import SearchResultItem

SESSION_KINDS = frozenset({"chat", "terminal"})
"""Kinds whose hits belong to a session and are deduped by it."""

COMMAND_DOC_SUFFIX = "!cmd"
"""Doc ids of shell commands end so (``terminal:<sid>@<offset>!cmd``): never folded."""


def search_rows(
    items: Sequence[SearchResultItem],
    *,
    shown_sessions: frozenset[str] = frozenset(),
    active_project_id: str | None = None,
) -> list[PaletteRow]:
    """Turn ranked search hits into rows, one per session for chat/terminal hits.

    Args:
        items: Hits in rank order (the engine's total order); the first hit of a session wins.
        shown_sessions: Session ids already on screen as local chat matches: never repeated.
        active_project_id: Hits whose ``project_id`` differs get the foreign-project marker.
    """
    rows: list[PaletteRow] = []
    by_session: dict[str, int] = {}
    best = best_messages(items)
    for item in items:
        # A shell command (`ade term` with prompt marks) is a hit of its own, as in atuin: a
        # session of a hundred commands must not fold them into one row (docs/terminal.md).
        folds = item.kind in SESSION_KINDS and not item.doc_id.endswith(COMMAND_DOC_SUFFIX)
        sid = item.session_id if folds else None
        if sid is not None and sid in shown_sessions:
            continue
        if sid is not None and sid in by_session:
            index = by_session[sid]
            row = rows[index]
            rows[index] = _with_more(row, row.more + 1)
            continue
        if sid is not None:
            by_session[sid] = len(rows)
        row = _row_for(item, sid, active_project_id)
        message = best.get((item.project_id, sid)) if item.kind == "chat" and sid else None
        if message is not None and not _is_message(item):
            row = replace(row, deep_link=message)  # the title matched: open at a matching message
        rows.append(row)
    return rows


def _is_message(item: SearchResultItem) -> bool:
    """A chat message hit (its anchor is the event seq), not the session's own title doc."""
    return item.anchor is not None and item.anchor.isdigit()


def best_messages(items: Sequence[SearchResultItem]) -> dict[tuple[str | None, str], str]:
    """The link of each chat session's best matching message: its first message hit in rank
    order, keyed by (project id, session id). A chat row opens there rather than at the
    session's last message when the session (its title) matched as a whole."""
    best: dict[tuple[str | None, str], str] = {}
    for item in items:
        if item.kind == "chat" and item.session_id and item.deep_link and _is_message(item):
            best.setdefault((item.project_id, item.session_id), item.deep_link)
    return best


def _with_more(row: PaletteRow, more: int) -> PaletteRow:
    return replace(row, more=more)


def _row_for(item: SearchResultItem, sid: str | None, active_project_id: str | None) -> PaletteRow:
    foreign = (
        item.project_name or item.project_id
        if item.project_id is not None
        and active_project_id is not None
        and item.project_id != active_project_id
        else None
    )
    return PaletteRow(
        key=f"{item.project_id or ''}|session:{sid}" if sid is not None else item.doc_id,
        kind=item.kind,
        title=item.title,
        title_spans=_title_spans(item),
        snippet=item.snippet,
        snippet_spans=tuple((r.start, r.end) for r in item.match_ranges),
        lane=item.lane_name or item.lane_id,
        updated_at_ms=item.updated_at,
        session_id=sid,
        deep_link=item.deep_link,
        foreign_project=foreign,
        item=item,
    )


def _title_spans(item: SearchResultItem) -> tuple[tuple[int, int], ...]:
    """Title highlights: the engine marks the snippet only, so mark the snippet's matched words
    where they also occur in the title."""
    spans: list[tuple[int, int]] = []
    lowered = item.title.lower()
    for match in item.match_ranges:
        word = item.snippet[match.start : match.end].lower()
        if not word:
            continue
        found = lowered.find(word)
        if found >= 0:
            spans.append((found, found + len(word)))
    return tuple(sorted(set(spans)))


GroupRows = Callable[[str, Sequence[PaletteRow]], list[PaletteRow]]
"""A kind's header and rows from its rows (``tui.logic.paging.Groups.group``: true counts)."""


def group_by_kind(rows: Sequence[PaletteRow], group: GroupRows | None = None) -> list[PaletteRow]:
    """Rows in the fixed kind order, each group under a header; rank order kept within a group.
    ``group`` makes each kind's header and picks its rows (default: all rows, their count)."""
    groups: dict[str, list[PaletteRow]] = {}
    for row in rows:
        groups.setdefault(row.kind, []).append(row)
    result: list[PaletteRow] = []
    for kind in sorted(groups, key=lambda k: KIND_ORDER.get(k, len(KIND_ORDER))):
        if group is not None:
            result.extend(group(kind, groups[kind]))
            continue
        result.append(header_row(kind, len(groups[kind])))
        result.extend(groups[kind])
    return result


def merge(
    local: Sequence[PaletteRow],
    hits: Sequence[SearchResultItem],
    *,
    active_project_id: str | None,
    group: GroupRows | None = None,
) -> list[PaletteRow]:
    """The full list: leading local matches, the search hits grouped by kind, then the weaker
    local matches that no hit already shows (a command leads only when every typed
    word starts a word of its name; otherwise it ranks below what the index found).

    A thing is never listed twice: a session or a lane shown by a leading local row is not
    repeated by its hits, and a weak local row gives way to the hit of the same session."""
    leading = [row for row in local if row.leads]
    shown = frozenset(
        row.session_id for row in leading if row.kind in SESSION_KINDS and row.session_id
    )
    leading_keys = {row.key for row in leading}
    found = [
        row
        for row in search_rows(hits, shown_sessions=shown, active_project_id=active_project_id)
        if row.key not in leading_keys
    ]
    found_keys = {row.key for row in found} | {row.session_id for row in found if row.session_id}
    trailing = [
        row for row in local
        if not row.leads and row.key not in found_keys and row.session_id not in found_keys
    ]  # fmt: skip
    best = best_links(hits)
    rows = [
        *(_at_best_hit(row, best, active_project_id) for row in leading),
        *group_by_kind(found, group),
    ]
    if trailing and found:
        rows.append(
            PaletteRow(key="header:more", kind="header", title=f"~ More matches ({len(trailing)})")
        )
    rows.extend(_at_best_hit(row, best, active_project_id) for row in trailing)
    return rows


def best_links(items: Sequence[SearchResultItem]) -> dict[tuple[str | None, str], str]:
    """Where a local session row opens when its session has hits: a chat at its best matching
    message, a terminal at its best matching line."""
    best = best_messages(items)
    for item in items:
        if item.kind == "terminal" and item.session_id and item.deep_link:
            best.setdefault((item.project_id, item.session_id), item.deep_link)
    return best


def _at_best_hit(
    row: PaletteRow, best: dict[tuple[str | None, str], str], project_id: str | None
) -> PaletteRow:
    """A local session row whose session also has hits opens at the best of them."""
    link = (
        best.get((project_id, row.session_id))
        if row.kind in SESSION_KINDS and row.session_id
        else None
    )
    return row if link is None else replace(row, deep_link=link)


def stable_index(
    rows: Sequence[PaletteRow], previous_key: str | None, previous_index: int | None
) -> int | None:
    """Where the cursor goes after ``rows`` replaced the list.

    The row with ``previous_key`` keeps the cursor wherever it moved; if it is gone, the nearest
    selectable row at or above the old position takes it (the list does not jump to the top).
    """
    selectable = [i for i, row in enumerate(rows) if row.selectable]
    if not selectable:
        return None
    if previous_key is not None:
        for index in selectable:
            if rows[index].key == previous_key:
                return index
    if previous_index is None:
        return selectable[0]
    above = [i for i in selectable if i <= previous_index]
    return above[-1] if above else selectable[0]
