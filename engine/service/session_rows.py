"""Sessions as rows: ``ade search kind:chat --sessions`` lists one row per chat session.

A query in sessions mode (``SearchQueryArgs.sessions``) reads chats only and answers one row per
session that matches, in the order of each session's best hit (the one comparator: a title match
first, then the best message); a filter-only query lists the sessions by last activity, newest
first, straight from the session documents. A row is the session document (``chat:<sid>``: its
title, agent, lane) with

* ``updatedAt``: the session's last activity (its newest indexed message);
* ``messageCount``: its indexed messages (tool calls and results included);
* ``matchCount``: how many of them match the query (None for a filter-only query);
* snippet, anchor and link of its best matching message, else of the message that set its title
  (``engine.service.chat_anchor``).

Pages are offsets into that list, bound to the query by a cursor of their own (``s1:``).
"""

from __future__ import annotations

import base64
import binascii
import json
from collections.abc import Sequence
from typing import TYPE_CHECKING

import apsw
import msgspec

from engine.errors import CursorError, UsageError
from engine.index.documents import fetch_bodies
from engine.index.sql import COLUMNS, filter_sql
from engine.project.model import Lane, Project
from engine.query.candidates import fetch_rows, fts_candidates, plan_filters
from engine.query.plan import QueryPlan
from engine.query.ranking import Candidate, extract_snippet_ranges, rank
from engine.query.run import default_link
from engine.query.snippets import make_snippet
from engine.query.source_text import snippet_texts
from engine.redaction import redact_secrets, redact_title
from engine.service.chat_anchor import anchor_session_rows
from engine.types import MatchRange, SearchQueryResult, SearchResultItem

if TYPE_CHECKING:
    from engine.external.catalog import ExternalCatalog

CURSOR_PREFIX = "s1:"
"""Marks a sessions-mode cursor (engine cursors are base64 and never hold a colon)."""

_SESSION_DOC = "d.kind = 'chat' AND d.doc_id = 'chat:' || d.session_id"


def session_rows(
    conn: apsw.Connection,
    project: Project,
    external: ExternalCatalog,
    plan: QueryPlan,
    lanes: Sequence[Lane],
) -> SearchQueryResult:
    """One page of sessions for ``plan`` (see the module doc).

    Raises:
        UsageError: the query asks for no chats.
        CursorError: a cursor of another query, or not a sessions cursor.
    """
    if "chat" not in plan.kinds:
        raise UsageError("--sessions lists chat sessions: drop the other kind: filters")
    plan = msgspec.structs.replace(plan, kinds=("chat",))
    offset = _decode(plan.cursor, plan.fingerprint) if plan.cursor else 0
    if plan.match_none:
        return SearchQueryResult(items=(), next_cursor=None, total=0, warnings=plan.warnings)
    f = plan_filters(plan)
    truncated = False
    warnings = plan.warnings
    groups: dict[str, list[tuple[int, Candidate, str]]] = {}
    if plan.has_text:
        found, _, truncated, _, note = fts_candidates(conn, plan.parsed, f)
        rowids = {cand.doc_id: rowid for rowid, cand in found}
        for cand, tier in rank([c for _, c in found], plan.title_text):
            if cand.session_id:
                groups.setdefault(cand.session_id, []).append((rowids[cand.doc_id], cand, tier))
        if note:
            warnings = (*warnings, note)
        order = list(groups)
    else:
        where, params = filter_sql(f, fts=False)
        order = [str(sid) for (sid,) in conn.execute(
            f"SELECT d.session_id FROM docs d WHERE {_SESSION_DOC}{where}"
            " ORDER BY d.updated_at DESC, d.doc_id", params,
        )]  # fmt: skip
    page = order[offset : offset + plan.limit]
    items = [_row(conn, project, plan, lanes, sid, groups.get(sid, [])) for sid in page]
    result = SearchQueryResult(
        items=tuple(i for i in items if i is not None),
        next_cursor=_encode(offset + len(page), plan.fingerprint)
        if offset + len(page) < len(order)
        else None,
        total=len(order),
        results_truncated=truncated,
        warnings=warnings,
    )
    # Rows whose session matched on its title alone get the message that set the title.
    return anchor_session_rows(conn, project, external, plan, lanes, result)


def _row(
    conn: apsw.Connection,
    project: Project,
    plan: QueryPlan,
    lanes: Sequence[Lane],
    sid: str,
    hits: list[tuple[int, Candidate, str]],
) -> SearchResultItem | None:
    session = fetch_rows(conn, (f"SELECT {COLUMNS}, NULL, NULL FROM docs d WHERE {_SESSION_DOC}"
                                " AND d.session_id = ?", [sid]))  # fmt: skip
    messages = [(rowid, cand) for rowid, cand, _ in hits if cand.doc_id != f"chat:{sid}"]
    head = session[0][1] if session else (messages[0][1] if messages else None)
    if head is None:
        return None
    count, last = next(conn.execute(
        "SELECT count(*), max(updated_at) FROM docs WHERE session_id = ? AND kind = 'chat'"
        " AND doc_id != ?", (sid, f"chat:{sid}"),
    ))  # fmt: skip
    snippet, anchor, link = "", None, default_link(head, project.id)
    ranges: tuple[MatchRange, ...] = ()
    if messages:
        rowid, best = messages[0]
        bodies = snippet_texts(conn, project, fetch_bodies(conn, [rowid]))
        snippet, ranges = extract_snippet_ranges(make_snippet(bodies.get(rowid, ""), plan.parsed))
        shown = redact_secrets(snippet)
        if shown != snippet:
            snippet, ranges = shown, ()
        anchor, link = best.anchor, default_link(best, project.id)
    lane_names = {lane.id: lane.name for lane in lanes}
    return SearchResultItem(
        doc_id=f"chat:{sid}",
        kind="chat",
        title=redact_title(head.title),
        snippet=snippet,
        match_ranges=ranges,
        tier=hits[0][2] if hits else "body",  # type: ignore[arg-type]
        updated_at=int(last) if last is not None else head.updated_at,
        deep_link=link,
        session_id=sid,
        lane_id=head.lane_id,
        lane_name=lane_names.get(head.lane_id) if head.lane_id else None,
        anchor=anchor,
        project_id=project.id,
        project_name=project.name,
        project_root=str(project.root),
        tool=head.extra.tool,
        message_count=int(count),
        match_count=len(messages) if plan.has_text else None,
    )


def _encode(offset: int, fingerprint: str) -> str:
    body = json.dumps({"o": offset, "f": fingerprint}, separators=(",", ":")).encode()
    return CURSOR_PREFIX + base64.urlsafe_b64encode(body).decode("ascii")


def _decode(cursor: str, fingerprint: str) -> int:
    if not cursor.startswith(CURSOR_PREFIX):
        raise CursorError("invalid cursor: not a --sessions cursor; search again")
    try:
        body = json.loads(base64.urlsafe_b64decode(cursor[len(CURSOR_PREFIX) :]))
        offset, owner = body["o"], body["f"]
    except (ValueError, binascii.Error, KeyError, TypeError):
        raise CursorError("invalid cursor: damaged or not from ade search") from None
    if owner != fingerprint:
        raise CursorError("invalid cursor: it belongs to a different query; search again")
    if isinstance(offset, bool) or not isinstance(offset, int) or offset < 0:
        raise CursorError("invalid cursor: damaged or not from ade search")
    return offset
