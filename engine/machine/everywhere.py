"""One query over every project ade knows (``SearchQueryArgs.all_projects``), each through its own
index: what ``ade search`` does outside a project, and with ``--all`` inside one.

Which projects: ``engine.machine.known`` (registered, and named by agents' sessions). Only
projects ade has already indexed are searched — indexing a project nobody asked for could take
minutes (git.git's history) and would write an ``.ade/cache`` into it — and one warning says how
many known projects were left out and how to index one. A project that fails costs one warning
naming it; the others still answer.

Kinds: those the query or ``--kind`` names, else the indexed kinds (chats, terminals, PRs,
commits, branches): the query-time sources (files, lanes, artifacts) would ask git of every
project on every query, so they are searched from anywhere only when named.

Each project answers its best ``offset + limit`` hits (at most ``MAX_LIMIT``); they are merged
with the one comparator on the wire (tier, newest first, doc id, project id) — each project's own
order, BM25 included, is kept — and the page is cut from the merge. Every hit carries its
project's id, name and root, so it opens (``ade open --project``) and resumes from there.
"""

from __future__ import annotations

import base64
import binascii
import heapq
import json
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

import msgspec

from engine.basics.digests import sha256_hex
from engine.client import SearchClient
from engine.errors import AdeError, CursorError, UsageError
from engine.kinds import MAX_LIMIT
from engine.machine.known import KnownProject, known_projects
from engine.service.answer import NOT_GIT_NOTE
from engine.types import (
    INDEXED_KINDS,
    TIER_ORDER,
    DocKind,
    SearchQueryArgs,
    SearchQueryResult,
    SearchResultItem,
)

CURSOR_PREFIX = "a1:"
"""Marks a cursor of this merge (engine cursors are base64 and never hold a colon)."""

ClientFor = Callable[[Path], SearchClient]


def sort_key(item: SearchResultItem) -> tuple[int, int, str, str]:
    """The comparator on wire items (as ``engine.rpc.router.sort_key``)."""
    return (TIER_ORDER[item.tier], -item.updated_at, item.doc_id, item.project_id or "")


def query_everywhere(
    args: SearchQueryArgs,
    client_for: ClientFor,
    *,
    environ: Mapping[str, str],
    registered: Sequence[Path] = (),
    registry_warnings: Sequence[str] = (),
    current: Path | None = None,
    known: Sequence[KnownProject] | None = None,
) -> SearchQueryResult:
    """Answer ``args`` over every indexed project ade knows (see the module doc).

    ``current`` is the project asked from: searched too when it has an index, registered or not.
    ``known``: the projects, when the caller already listed them (the palette lists them once).

    Raises:
        UsageError: every project refused the query as bad input (the first one's error).
        CursorError: a cursor of another query or project set.
    """
    # The project asked from (``--all`` inside one) is searched first when it has an index.
    if known is None:
        here = [current] if current is not None and KnownProject(current, "here").indexed else []
        known = known_projects(environ, [*here, *registered])
    searched = [p for p in known if p.indexed]
    warnings = list(registry_warnings)
    skipped = [p for p in known if not p.indexed]
    if skipped:
        warnings.append(_skipped_note(skipped))
    if not known:
        warnings.append(
            "ade knows no project on this machine yet: search inside one (`ade search` there"
            " indexes it) or register one with `ade projects add DIR`"
        )
    digest = _digest(args, [p.root for p in searched])
    offset = _decode(args.cursor, digest) if args.cursor else 0
    want = min(MAX_LIMIT, offset + args.limit)
    asked = msgspec.structs.replace(
        args, kinds=_kinds(args), limit=want, cursor=None, all_projects=None
    )
    lists: list[list[SearchResultItem]] = []
    total, truncated, refused = 0, False, None
    for known_project in searched:
        try:
            client = client_for(known_project.root)
            result = client.query(asked)
        except UsageError as err:  # a lane or session of another project: not this one's
            refused = refused or err
            continue
        except (AdeError, OSError) as err:
            warnings.append(f"skipped project {known_project.root}: {err}")
            continue
        project = client.project
        lists.append([
            msgspec.structs.replace(i, project_id=project.id, project_name=project.name,
                                    project_root=str(project.root))
            for i in result.items
        ])  # fmt: skip
        total += result.total
        truncated |= result.results_truncated or (
            want == MAX_LIMIT and result.next_cursor is not None
        )
        # One line per thing wrong with a project, named; a plain folder's "not a git
        # repository" note says nothing when many projects answer.
        warnings += [f"{project.name}: {w}" for w in result.warnings if w != NOT_GIT_NOTE]
    if refused is not None and not lists:
        raise refused
    merged = list(heapq.merge(*lists, key=sort_key))
    page = merged[offset : offset + args.limit]
    end = offset + len(page)
    more = end < len(merged) or (end < total and want < MAX_LIMIT)
    return SearchQueryResult(
        items=tuple(page),
        next_cursor=_encode(end, digest) if more and page else None,
        total=total,
        results_truncated=truncated,
        warnings=tuple(warnings),
    )


def _kinds(args: SearchQueryArgs) -> tuple[DocKind, ...] | None:
    """The kinds asked for, else the indexed ones (see the module doc)."""
    if args.kinds is not None:
        return args.kinds
    from datetime import UTC, datetime

    from engine.query.parser import parse_query

    try:  # the clock only checks since:/until:, which each project reads with its own
        named = parse_query(args.query, now=datetime.now(UTC)).kinds
    except AdeError:
        return None  # each project says what is wrong with the query
    return None if named else INDEXED_KINDS


def _skipped_note(skipped: list[KnownProject]) -> str:
    count = len(skipped)
    some = ", ".join(str(p.root) for p in skipped[:3]) + (", …" if count > 3 else "")
    return (
        f"{count} known project{'s' if count != 1 else ''} not indexed yet, not searched ({some});"
        " `ade search --project DIR` indexes one"
    )


def _digest(args: SearchQueryArgs, roots: list[Path]) -> str:
    """Binds a cursor to the query and the set of projects searched."""
    material = json.dumps(
        [args.query, args.kinds, args.lane_id, bool(args.sessions), sorted(map(str, roots))]
    )
    return sha256_hex(material.encode())[:16]


def _encode(offset: int, digest: str) -> str:
    body = json.dumps({"o": offset, "h": digest}, separators=(",", ":")).encode()
    return CURSOR_PREFIX + base64.urlsafe_b64encode(body).decode("ascii")


def _decode(cursor: str, digest: str) -> int:
    if not cursor.startswith(CURSOR_PREFIX):
        raise CursorError("invalid cursor: not from a search of every project; search again")
    try:
        body = json.loads(base64.urlsafe_b64decode(cursor[len(CURSOR_PREFIX) :]))
        offset, owner = body["o"], body["h"]
    except (ValueError, binascii.Error, KeyError, TypeError):
        raise CursorError("invalid cursor: damaged or not from ade search") from None
    if owner != digest:
        raise CursorError("invalid cursor: it belongs to another query or project set")
    if isinstance(offset, bool) or not isinstance(offset, int) or offset < 0:
        raise CursorError("invalid cursor: damaged or not from ade search")
    return offset
