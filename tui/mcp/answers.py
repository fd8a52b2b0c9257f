"""The ``search``, ``list_sessions`` and ``status`` tools: arguments checked as the CLI checks
its flags, the service asked through the backend, every text shown as the CLI would print it,
every answer bounded.

Each function returns the answer as JSON text; bad input raises ``UsageError`` with the CLI's
one-line message, which the server returns as a tool error.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from datetime import UTC, datetime, timedelta
from typing import Any

from engine.client import SearchClient
from engine.errors import UsageError
from engine.project.model import SessionMeta
from engine.types import SearchQueryArgs, SearchResultItem
from tui.mcp.backend import Backend
from tui.mcp.catalog import MAX_OFFSET, MAX_ROWS
from tui.mcp.shown import capped, shown_title
from tui.printable import printable

TITLE_CAP = 200
"""Characters of a title in a row: a whole PR title or commit subject, not a pasted prompt."""

SNIPPET_CAP = 400
"""Characters of a snippet in a row: the match and a few lines around it; `open` reads more."""

ANSWER_CAP = 24_000
"""Characters of one answer: about 6,000 tokens, well under what agents allow a tool result
(Claude Code warns past 10,000 tokens), so twenty full rows fit and a model's context is spared."""


def search(backend: Backend, arguments: dict[str, Any]) -> str:
    """One page of hits for ``arguments`` (the ``search`` schema)."""
    from engine.kinds import parse_kinds

    query = _text(arguments, "query", required=True) or ""
    for name in ("since", "until"):
        value = _text(arguments, name)
        if value:
            if any(ch.isspace() for ch in value):
                raise UsageError(f"{name}: takes one value like 7d or 2026-06-01, got {value!r}")
            query = f"{query} {name}:{value}"
    kinds = parse_kinds(_strings(arguments, "kinds")) or None
    lane = _text(arguments, "lane")
    if lane is not None and not lane.strip():
        raise UsageError("--lane needs a lane id or name")
    limit = _number(arguments, "limit", 20, 1, MAX_ROWS)
    offset = _number(arguments, "offset", 0, 0, MAX_OFFSET)
    args = SearchQueryArgs(query=query.strip(), kinds=kinds, lane_id=lane, limit=offset + limit)
    result = backend.call(lambda client: client.query(args))
    rows, cut = [], 0
    for item in result.items[offset:]:
        row, was_cut = _hit_row(item)
        rows.append(row)
        cut += was_cut
    answer: dict[str, Any] = {
        "total": result.total,
        "offset": offset,
        "rows": rows,
        "resultsTruncated": result.results_truncated,
        "warnings": [printable(w) for w in result.warnings],
    }
    more = offset + len(rows) < result.total
    if more:
        answer["nextOffset"] = offset + len(rows)
    if cut:
        answer["cut"] = [f"{cut} row(s) had a title or snippet cut (marked …[cut]); open the link"]
    return bounded(answer, "rows", offset)


def _hit_row(item: SearchResultItem) -> tuple[dict[str, Any], bool]:
    title, title_cut = capped(printable(item.title), TITLE_CAP)
    snippet, snippet_cut = capped(printable(item.snippet), SNIPPET_CAP)
    row = {
        "kind": item.kind,
        "title": title,
        "snippet": snippet,
        "time": iso(item.updated_at),
        "lane": printable(item.lane_name or item.lane_id or "") or None,
        "session": item.session_id,
        "agent": item.tool,
        "link": item.deep_link,
    }
    return {k: v for k, v in row.items() if v not in (None, "")}, title_cut or snippet_cut


def list_sessions(backend: Backend, arguments: dict[str, Any]) -> str:
    """The project's sessions, newest activity first (the ``list_sessions`` schema)."""
    agent = (_text(arguments, "agent") or "").strip().lower() or None
    lane = (_text(arguments, "lane") or "").strip() or None
    since = _text(arguments, "since")
    limit = _number(arguments, "limit", 20, 1, MAX_ROWS)

    def ask(client: SearchClient) -> tuple[list[SessionMeta], dict[str, str], str]:
        return client.list_sessions(include_archived=False), _lane_names(client), client.project.id

    sessions, lane_names, project_id = backend.call(ask)
    if lane is not None:
        wanted = {lane, *(k for k, v in lane_names.items() if v == lane)}
        if not wanted & set(lane_names):
            known = ", ".join(sorted(lane_names)) or "none"
            raise UsageError(f"unknown lane {lane!r}; lanes: {known}")
        sessions = [s for s in sessions if s.lane_id in wanted]
    if agent is not None:
        sessions = [s for s in sessions if _agent(s) == agent]
    if since:
        start = parse_since(since)
        sessions = [s for s in sessions if s.updated_at >= start]
    sessions.sort(key=lambda s: (s.updated_at, s.id), reverse=True)
    shown = sessions[:limit]
    counts = backend.call(lambda client: [_message_count(client, s) for s in shown])
    rows = [
        _session_row(s, lane_names, project_id, count)
        for s, count in zip(shown, counts, strict=True)
    ]
    answer = {"total": len(sessions), "rows": rows}
    return bounded(answer, "rows", None)


def _agent(session: SessionMeta) -> str:
    return (session.tool or ("shell" if session.kind == "terminal" else session.source)).lower()


def _lane_names(client: SearchClient) -> dict[str, str]:
    return {lane.id: lane.name for lane in client.list_lanes()}


def _message_count(client: SearchClient, session: SessionMeta) -> int | None:
    """A chat's messages as the search sees them (``session:`` reads its unindexed tail live):
    every chat document of the session but the session's own."""
    if session.kind != "chat":
        return None
    args = SearchQueryArgs(query=f"session:{session.id}", kinds=("chat",), limit=1)
    return max(client.query(args).total - 1, 0)


def _session_row(
    session: SessionMeta, lanes: dict[str, str], project_id: str, messages: int | None
) -> dict[str, Any]:
    from engine.links.deeplink import build_link

    title, _ = capped(shown_title(session.title or session.id), TITLE_CAP)
    row = {
        "id": session.id,
        "kind": session.kind,
        "title": title,
        "agent": _agent(session),
        "lane": printable(lanes.get(session.lane_id or "", session.lane_id or "")) or None,
        "messages": messages,
        "lastActivity": session.updated_at.astimezone(UTC).isoformat().replace("+00:00", "Z"),
        "ended": session.ended_at is not None or None,
        "link": build_link(session.kind, session.id, project_id=project_id),
    }
    if session.command:
        row["command"] = capped(shown_title(session.command), TITLE_CAP)[0]
    return {k: v for k, v in row.items() if v is not None}


def status(backend: Backend) -> str:
    """What the index holds, per kind, source and agent, with its warnings."""

    def ask(client: SearchClient) -> tuple[Any, list[SessionMeta]]:
        return client.index_status(), client.list_sessions(include_archived=True)

    found, sessions = backend.call(ask)
    warnings = [f"skipped {n} {what}" for what, n in sorted(found.warnings.items())]
    history = found.commit_history
    if history is not None and history.indexing:
        warnings.append(f"commit history still indexing ({history.done} commits so far)")
    if history is not None:
        warnings.extend(history.notes)
    if found.recreated_reason:
        warnings.append(f"index recreated: {found.recreated_reason}")
    answer = {
        "state": found.state,
        "documents": found.doc_count,
        "documentsByKind": dict(sorted(found.docs_by_kind.items())),
        "sessionsByAgent": dict(sorted(Counter(_agent(s) for s in sessions).items())),
        "sources": [
            {
                "agent": d.source,
                "searched": printable(d.searched or "") or None,
                "sessions": sum(d.sessions),
            }
            for d in found.discovery
        ],
        "pendingSources": found.pending_sources,
        "lastIngest": iso(found.last_ingest_at),
        "watcher": found.watcher_state,
        "warnings": [printable(w) for w in warnings],
    }
    return bounded(answer, "sources", None)


def bounded(answer: dict[str, Any], rows_key: str, offset: int | None) -> str:
    """``answer`` as compact JSON of at most ``ANSWER_CAP`` characters: rows are left out from
    the end until it fits, and the answer says how many, and (``offset`` given: the tool
    pages) where to go on."""
    text = _json(answer)
    rows = answer.get(rows_key)
    if len(text) <= ANSWER_CAP or not isinstance(rows, list):
        return text
    kept = list(rows)
    while kept and len(text) > ANSWER_CAP:
        # Cut by the overshoot in one step, then row by row (rows differ in size).
        over = len(text) - ANSWER_CAP
        average = max(len(text) // len(kept), 1)
        kept = kept[: len(kept) - max(over // average, 1)]
        note = f"{len(rows) - len(kept)} row(s) left out to keep this answer under {ANSWER_CAP:,} characters"
        shrunk = {**answer, rows_key: kept}
        if offset is not None:
            note += f"; ask again with offset={offset + len(kept)}"
            shrunk["nextOffset"] = offset + len(kept)
        shrunk["cut"] = [*answer.get("cut", []), note]
        text = _json(shrunk)
    return text


def _json(answer: dict[str, Any]) -> str:
    return json.dumps(answer, ensure_ascii=False, separators=(",", ":"))


def iso(epoch_ms: int | None) -> str | None:
    """Milliseconds since the epoch as an ISO-8601 UTC time (``Z``)."""
    if epoch_ms is None:
        return None
    moment = datetime.fromtimestamp(epoch_ms / 1000, UTC).replace(microsecond=0)
    return moment.isoformat().replace("+00:00", "Z")


_DURATION = re.compile(r"(\d{1,6})([mhdw])")
_UNITS = {"m": "minutes", "h": "hours", "d": "days", "w": "weeks"}


def parse_since(value: str) -> datetime:
    """``since`` of ``list_sessions``: a duration before the service's clock, or a date."""
    from engine.basics.clock import clock_from_env

    text = value.strip().lower()
    match = _DURATION.fullmatch(text)
    if match:
        return clock_from_env()() - timedelta(**{_UNITS[match[2]]: int(match[1])})
    try:
        moment = datetime.fromisoformat(text.upper() if "t" in text else text)
    except ValueError:
        raise UsageError(
            f"since: {value!r} is not a time; use 30m, 24h, 7d, 2w or a date like 2026-06-01"
        ) from None
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


def _text(arguments: dict[str, Any], name: str, *, required: bool = False) -> str | None:
    value = arguments.get(name)
    if value is None:
        if required:
            raise UsageError(f"{name} is required")
        return None
    if not isinstance(value, str):
        raise UsageError(f"{name} must be a string")
    return value


def _strings(arguments: dict[str, Any], name: str) -> list[str]:
    value = arguments.get(name) or []
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise UsageError(f"{name} must be a list of strings")
    return value


def _number(arguments: dict[str, Any], name: str, default: int, low: int, high: int) -> int:
    value = arguments.get(name, default)
    if value is None:
        return default
    if isinstance(value, bool) or not isinstance(value, int):
        raise UsageError(f"{name} must be a whole number between {low} and {high}")
    if not low <= value <= high:
        raise UsageError(f"{name} must be between {low} and {high}, got {value}")
    return value
