"""The machine router: one query answered across every registered project (seed multiProject).

The active project (the caller's ``projectRoot``) is asked for every kind it was asked for; every
other registered project is asked for chat hits only, at most ``PROJECT_CEILING`` each. Hits are
merged with the one comparator (tier, then ``updatedAt`` descending, then doc id) and each carries
its project's identity. ``resultsTruncated`` is set when any project hit its ceiling, so a caller
narrows the query instead of mistaking the bounded window for everything. A registered project
that is missing or unreadable is skipped with a warning; chats outside every project are never
queried (the router only knows registered projects).

With no other project to ask (nothing else registered, chat not wanted, or a lane filter, which
names a lane of the active project only), the active project's answer passes through unchanged
apart from identity, cursor included — so the daemon answers exactly like the in-process client.
"""

from __future__ import annotations

import base64
import binascii
import heapq
import json
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

import msgspec

from engine.basics.digests import sha256_hex
from engine.basics.logs import get_logger
from engine.client import SearchClient
from engine.errors import AdeError, CursorError, UsageError
from engine.project.model import Project
from engine.rpc.registry import RegisteredProject, load_registry
from engine.types import TIER_ORDER, SearchQueryArgs, SearchQueryResult, SearchResultItem

PROJECT_CEILING = 200
"""Most chat hits one other project contributes to an aggregate query (seed: 200)."""

ACTIVE_CEILING = 1000
"""Most hits the active project contributes to an aggregate window (pages of it are served)."""

PAGE = 200
"""Page size used to walk the active project's own cursor while filling the window."""

CURSOR_PREFIX = "m1:"
"""Marks a router cursor; engine cursors are base64 and never contain a colon."""

log = get_logger(__name__)

ClientFor = Callable[[Path], SearchClient]


def sort_key(item: SearchResultItem) -> tuple[int, int, str, str]:
    """The one comparator on wire items (DESIGN §5): tier, newest first, doc id, project id.

    ``engine.query.ranking.sort_key`` also orders the body tier by BM25, which is not on the wire and
    not comparable across two indexes anyway; so projects are *merged* with this key (each
    project's own order, BM25 included, is kept) rather than re-sorted.
    """
    return (TIER_ORDER[item.tier], -item.updated_at, item.doc_id, item.project_id or "")


def with_identity(item: SearchResultItem, project: Project) -> SearchResultItem:
    """``item`` stamped with its project's id, name and root."""
    return msgspec.structs.replace(
        item, project_id=project.id, project_name=project.name, project_root=str(project.root)
    )


@dataclass(frozen=True, slots=True)
class _Window:
    items: list[SearchResultItem]
    total: int
    truncated: bool
    warnings: list[str]


class MachineRouter:
    """Answer ``search.query`` for one active project plus every other registered project.

    Args:
        client_for: opens (or returns the already open) service of a project root.
        registry_file: the ``ade projects`` registry.
    """

    def __init__(self, client_for: ClientFor, registry_file: Path) -> None:
        self._client_for = client_for
        self._registry_file = registry_file

    def query(self, root: Path, args: SearchQueryArgs) -> SearchQueryResult:
        """Answer ``args`` with ``root`` as the active project.

        Raises:
            UsageError / CursorError: bad input (from the active project or a bad router cursor).
            ProjectError: the active project is missing.
        """
        active = self._client_for(root)
        others, warnings = self._others(active.project)
        wants_chat = args.kinds is None or "chat" in args.kinds
        if not others or not wants_chat or args.lane_id is not None:
            if args.cursor is not None and args.cursor.startswith(CURSOR_PREFIX):
                raise CursorError("cursor belongs to another query (the project set changed)")
            result = active.query(args)
            items = tuple(with_identity(i, active.project) for i in result.items)
            return msgspec.structs.replace(
                result, items=items, warnings=(*result.warnings, *warnings)
            )
        digest = _digest(args, active.project, [p.root for p in others])
        offset = _decode_cursor(args.cursor, digest) if args.cursor is not None else args.offset
        window = self._window(active, others, args)
        page = window.items[offset : offset + args.limit]
        end = offset + len(page)
        return SearchQueryResult(
            items=tuple(page),
            next_cursor=_encode_cursor(end, digest) if end < len(window.items) else None,
            total=window.total,
            results_truncated=window.truncated,
            warnings=(*warnings, *window.warnings),
        )

    def _others(self, active: Project) -> tuple[list[RegisteredProject], list[str]]:
        projects, warnings = load_registry(self._registry_file)
        for warning in warnings:
            log.warning("%s", warning)
        others = [p for p in projects if p.root != active.root and p.id != active.id]
        return others, warnings

    def _window(
        self, active: SearchClient, others: Iterable[RegisteredProject], args: SearchQueryArgs
    ) -> _Window:
        items, total, truncated = _walk_active(active, args)
        lists = [items]
        warnings: list[str] = []
        chat_args = SearchQueryArgs(query=args.query, kinds=("chat",), limit=PROJECT_CEILING,
                                    sessions=args.sessions, exact=args.exact)  # fmt: skip
        for entry in others:
            try:
                client = self._client_for(entry.root)
                result = client.query(chat_args)
            except UsageError:
                continue  # an inline filter naming the active project's lane or session
            except (AdeError, OSError) as err:
                message = f"skipped project {entry.name} ({entry.root}): {err}"
                log.warning("%s", message)
                warnings.append(message)
                continue
            lists.append([with_identity(i, client.project) for i in result.items])
            total += result.total
            truncated |= result.next_cursor is not None or result.total > len(result.items)
        merged = list(heapq.merge(*lists, key=sort_key))
        return _Window(items=merged, total=total, truncated=truncated, warnings=warnings)


def _walk_active(
    active: SearchClient, args: SearchQueryArgs
) -> tuple[list[SearchResultItem], int, bool]:
    """Up to ``ACTIVE_CEILING`` hits of the active project, following its own cursor."""
    items: list[SearchResultItem] = []
    cursor: str | None = None
    total = 0
    while True:
        page_args = msgspec.structs.replace(args, limit=PAGE, cursor=cursor, offset=0)
        result = active.query(page_args)
        total = result.total
        items.extend(with_identity(i, active.project) for i in result.items)
        cursor = result.next_cursor
        if cursor is None or not result.items:
            return items[:ACTIVE_CEILING], total, len(items) > ACTIVE_CEILING
        if len(items) >= ACTIVE_CEILING:
            return items[:ACTIVE_CEILING], total, True


def _digest(args: SearchQueryArgs, active: Project, roots: list[Path]) -> str:
    """Binds a router cursor to the query, the active project and the project set."""
    material = json.dumps(
        [args.query, args.kinds, args.lane_id, str(active.root), sorted(map(str, roots))]
    )
    return sha256_hex(material.encode())[:16]


def _encode_cursor(offset: int, digest: str) -> str:
    body = json.dumps({"o": offset, "h": digest}, separators=(",", ":")).encode()
    return CURSOR_PREFIX + base64.urlsafe_b64encode(body).decode("ascii")


def _decode_cursor(cursor: str, digest: str) -> int:
    if not cursor.startswith(CURSOR_PREFIX):
        raise CursorError("cursor belongs to another query (the project set changed)")
    try:
        body = json.loads(base64.urlsafe_b64decode(cursor[len(CURSOR_PREFIX) :]))
        offset, owner = body["o"], body["h"]
    except (ValueError, binascii.Error, KeyError, TypeError):
        raise CursorError("cursor is malformed") from None
    if owner != digest:
        raise CursorError("cursor belongs to another query")
    if isinstance(offset, bool) or not isinstance(offset, int) or offset < 0:
        raise CursorError("cursor is malformed")
    return offset
