"""Every chat hit links to a message: a session row (``chat:<sid>``, a title match) is given one.

A session document matches on its title and carries no message of its own, so its link used to
name no ``event`` and ``ade open`` landed on the session's last message. Here each session row
of a page is pointed at a message, chosen in this order:

1. the best matching message of that session for the same query — the first message row of the
   session on the page when there is one (the page is in rank order), else the best one the
   index finds with the query narrowed to that session (``session:``-scoped, same filters);
2. for a title-only match (no message matches, or a filter-only query): the user message that
   set the title — the last user message before the latest ``session_title`` event;
3. else the session's first user message (Claude Code and Codex titles are taken from it);
4. else the session's first indexed message (its transcript is gone or unreadable).

The row takes that message's snippet (a title-only row shows the head of the message, redacted),
its anchor and its link; its doc id, title and tier stay those of the session.
"""

# warm path: a warm `ade search` imports this; keep its imports light (ARCHITECTURE: The warm path)

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import apsw
import msgspec

from engine.errors import AdeError
from engine.links.deeplink import build_link
from engine.project.model import ChatEvent, Lane, Project
from engine.query.plan import QueryPlan
from engine.query.run import run_query
from engine.redaction import redact_secrets
from engine.types import SearchQueryResult, SearchResultItem

if TYPE_CHECKING:
    from engine.external.catalog import ExternalCatalog

HEAD_CHARS = 160
"""Characters of the title-setting message shown as a title-only row's snippet."""


def is_session_row(item: SearchResultItem) -> bool:
    """Whether ``item`` is a chat session document (a title match), not one of its messages."""
    return (
        item.kind == "chat"
        and item.session_id is not None
        and (item.doc_id == f"chat:{item.session_id}")
    )


def anchor_session_rows(
    conn: apsw.Connection,
    project: Project,
    external: ExternalCatalog,
    plan: QueryPlan,
    lanes: Sequence[Lane],
    result: SearchQueryResult,
) -> SearchQueryResult:
    """``result`` with every chat session row linked to a message (see the module doc)."""
    if not any(is_session_row(item) and item.anchor is None for item in result.items):
        return result
    first_message: dict[str, SearchResultItem] = {}
    for item in result.items:
        if item.kind == "chat" and item.session_id and not is_session_row(item):
            first_message.setdefault(item.session_id, item)
    items = []
    for item in result.items:
        if is_session_row(item) and item.anchor is None:  # a sessions-mode row may have one
            assert item.session_id is not None
            best = first_message.get(item.session_id)
            if best is None and plan.has_text:
                best = best_message(conn, project, plan, lanes, item.session_id)
            if best is not None:
                item = _linked(item, best)
            else:
                item = _title_linked(conn, project, external, item)
        items.append(item)
    return msgspec.structs.replace(result, items=tuple(items))


def best_message(
    conn: apsw.Connection, project: Project, plan: QueryPlan, lanes: Sequence[Lane], sid: str
) -> SearchResultItem | None:
    """The best matching message of session ``sid`` for ``plan`` (its filters kept), or None."""
    scoped = msgspec.structs.replace(
        plan, sessions=(sid,), kinds=("chat",), limit=2, cursor=None, warnings=()
    )
    try:
        found = run_query(conn, scoped, project=project, lanes=lanes)
    except AdeError:
        return None
    return next((i for i in found.items if not is_session_row(i)), None)


def _linked(row: SearchResultItem, message: SearchResultItem) -> SearchResultItem:
    return msgspec.structs.replace(
        row,
        snippet=message.snippet,
        match_ranges=message.match_ranges,
        anchor=message.anchor,
        deep_link=message.deep_link or row.deep_link,
    )


def _title_linked(
    conn: apsw.Connection, project: Project, external: ExternalCatalog, row: SearchResultItem
) -> SearchResultItem:
    assert row.session_id is not None
    found = title_message(project, external, row.session_id)
    if found is None:
        seq = _first_indexed(conn, row.session_id)
        text = ""
    else:
        seq, text = found
    if seq is None:
        return row
    try:
        link = build_link("chat", row.session_id, project_id=project.id, event=seq)
    except AdeError:
        return row
    head = " ".join(text.split())
    snippet = redact_secrets(head[:HEAD_CHARS] + ("…" if len(head) > HEAD_CHARS else ""))
    shown = snippet if not row.snippet else row.snippet
    return msgspec.structs.replace(
        row, snippet=shown, match_ranges=row.match_ranges if row.snippet else (),
        anchor=str(seq), deep_link=link,
    )  # fmt: skip


def title_message(project: Project, external: ExternalCatalog, sid: str) -> tuple[int, str] | None:
    """``(seq, text)`` of the message that set the session's title, else its first user
    message, else its first message; None when the transcript cannot be read."""
    events = _events(project, external, sid)
    if not events:
        return None
    titled = [e.seq for e in events if e.type == "session_title"]
    users = _first_of_each(e for e in events if e.type == "user_message")
    if titled:
        before = [e for e in users if e.seq < titled[-1]]
        if before:
            return before[-1].seq, _text(before[-1])
    if users:
        return users[0].seq, _text(users[0])
    messages = [e for e in events if e.type != "session_title"]
    return (messages[0].seq, _text(messages[0])) if messages else None


def _first_of_each(events: Iterable[ChatEvent]) -> list[ChatEvent]:
    """One event per message id (a user message's later delivery snapshots are dropped)."""
    seen: set[str] = set()
    out: list[ChatEvent] = []
    for event in events:
        key = event.event_id or f"seq:{event.seq}"
        if key not in seen:
            seen.add(key)
            out.append(event)
    return out


def _text(event: ChatEvent) -> str:
    value = event.data.get("text")
    return value if isinstance(value, str) else ""


def _events(project: Project, external: ExternalCatalog, sid: str) -> list[ChatEvent]:
    """The session's events from its transcript (an ``.ade`` chat or an agent's own file)."""
    from engine.links.details import DetailError, read_chat_events
    from engine.project.transcripts import transcript_file

    found = external.get(sid)
    try:
        if found is not None and found.transcript_path is not None:
            from engine.external.view import read_external_events

            return read_external_events(found.transcript_path, found.source or "claude")
        path: Path | None = transcript_file(project, "chat", sid)
        return [] if path is None else read_chat_events(path)
    except (DetailError, OSError, ValueError):
        return []


def _first_indexed(conn: apsw.Connection, sid: str) -> int | None:
    """The lowest event number among the session's indexed messages."""
    rows = conn.execute(
        "SELECT anchor FROM docs WHERE session_id = ? AND kind = 'chat' AND doc_id != ?",
        (sid, f"chat:{sid}"),
    )
    numbers = [int(a) for (a,) in rows if isinstance(a, str) and a.isdigit()]
    return min(numbers) if numbers else None
