"""The query path: parse, fetch candidates, merge delegates, rank, page (DESIGN §5).

Candidates come from one of two SQL paths:

* **match-all** (filter-only): keyset over ``updated_at`` desc, ``doc_id`` asc straight from the
  ``docs_by_recency`` index; FTS never runs.
* **full text**: the newest ``BM25_WINDOW`` matches (FTS5 doclists are in recency order, so this
  stops early instead of scoring every match), each with its exact-token and split-token BM25.
  When the window fills, the newest title matches (from the small ``docs_title`` table) that rank
  in a title tier are unioned in so a title match is never buried; ``total`` is then counted up
  to ``TOTAL_CAP`` and ``resultsTruncated`` says not every match is reachable by paging. When the window does not fill, the ranking is exact BM25 over
  every match.

Delegated and live candidates (``extra_candidates``) join through the same comparator; indexed rows
whose id is in ``replace_doc_ids`` are dropped first (the ``session:`` freshness contract).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from datetime import datetime
from typing import Any

import apsw

from engine.errors import AdeError, UsageError
from engine.index.db import fetch_bodies, scalar
from engine.index.sql import (
    Filters,
    count_sql,
    is_match_sql,
    match_all_count_sql,
    match_all_sql,
    title_scan_sql,
    title_window_sql,
    window_sql,
)
from engine.links.deeplink import build_link
from engine.project.model import Lane, Project
from engine.query.cursor import decode_cursor, encode_cursor, query_fingerprint
from engine.query.parser import (
    ParsedQuery,
    build_excluded,
    build_match,
    build_positive,
    parse_query,
)
from engine.query.ranking import (
    Candidate,
    SortKey,
    extract_snippet_ranges,
    rank,
    sort_key,
    tier_for,
)
from engine.query.snippets import make_snippet
from engine.redaction import redact_secrets, redact_title
from engine.types import (
    ALL_KINDS,
    DEFAULT_KINDS,
    INDEXED_KINDS,
    SearchQueryArgs,
    SearchQueryResult,
    SearchResultItem,
)

DEFAULT_LIMIT = 50
MAX_LIMIT = 500
"""A page larger than this is a dump, not a search; the CLI pages with ``--cursor``."""

BM25_WINDOW = 1000
"""Newest matches scored per query: 20 pages of 50, and a bounded cost on any corpus."""

TITLE_WINDOW = 200
"""Title-scoped matches unioned in when the BM25 window fills."""

TOTAL_CAP = 2_000
"""Counting every match of a common phrase cost 300+ ms (measured); past this ``total`` is a floor
and ``resultsTruncated`` is set."""

LinkFor = Callable[[Candidate], str]


def _check_limit(limit: int) -> int:
    if isinstance(limit, bool) or not 1 <= limit <= MAX_LIMIT:
        raise UsageError(f"limit must be between 1 and {MAX_LIMIT}, got {limit!r}")
    return limit


def resolve_kinds(requested: Sequence[str] | None, typed: frozenset[str] | None) -> tuple[str, ...]:
    """Kinds to search: ``kind:`` in the text narrows ``--kind``; neither means the default set."""
    for kind in requested or ():
        if kind not in ALL_KINDS:
            raise UsageError(f"unknown kind {kind!r}; valid kinds: {', '.join(ALL_KINDS)}")
    base = set(requested) if requested else None
    if typed is not None:
        base = set(typed) & base if base is not None else set(typed)
    chosen = base if base is not None else set(DEFAULT_KINDS)
    return tuple(k for k in ALL_KINDS if k in chosen)


def resolve_lanes(
    arg: str | None, typed: Sequence[str], lanes: Sequence[Lane]
) -> tuple[str, ...] | None:
    """Lane ids to filter on (by id or name), None when unconstrained.

    Raises:
        UsageError: a lane that is neither an id nor a name of ``lanes`` (names the valid ones).
    """

    def one(value: str) -> str:
        if not lanes:
            return value
        for lane in lanes:
            if value in (lane.id, lane.name) or value.casefold() == lane.name.casefold():
                return lane.id
        valid = ", ".join(lane.id for lane in lanes)
        raise UsageError(f"unknown lane {value!r}; lanes: {valid}")

    chosen: set[str] | None = {one(arg)} if arg else None
    if typed:
        ids = {one(v) for v in typed}
        chosen = ids if chosen is None else chosen & ids
    return None if chosen is None else tuple(sorted(chosen))


def _row_candidate(row: Sequence[Any]) -> tuple[int, Candidate]:
    rowid, doc_id, kind, title, rank_title, updated_at, sid, lane, anchor, b1, b2 = row
    cand = Candidate(doc_id=doc_id, kind=kind, title=title, rank_title=rank_title,
                     snippet_marked="", updated_at=updated_at, session_id=sid, lane_id=lane,
                     anchor=anchor, bm25=b1, bm25_split=b2)  # fmt: skip
    return rowid, cand


def _fetch(conn: apsw.Connection, stmt: tuple[str, list[Any]]) -> list[tuple[int, Candidate]]:
    return [_row_candidate(r) for r in conn.execute(*stmt)]


def _fts_candidates(
    conn: apsw.Connection, parsed: ParsedQuery, f: Filters
) -> tuple[list[tuple[int, Candidate]], int, bool]:
    match = build_match(parsed)
    assert match is not None
    found = _fetch(conn, window_sql(match, f, BM25_WINDOW, one_phrase=parsed.one_phrase))
    total, truncated = len(found), False
    if len(found) == BM25_WINDOW:
        beyond = count_sql(match, f, TOTAL_CAP - BM25_WINDOW, below=found[-1][0])
        total = BM25_WINDOW + scalar(conn, *beyond)  # the window is the newest BM25_WINDOW
        found += _title_candidates(conn, parsed, f, {rowid for rowid, _ in found})
        truncated = True
    if parsed.title_prefix_scan:
        # First keystroke: the FTS term is exact-token only, so titles are scanned by prefix.
        seen = {c.doc_id for _, c in found}
        scanned = [p for p in _fetch(conn, title_scan_sql(parsed.title_prefix_scan, f, TITLE_WINDOW))
                   if p[1].doc_id not in seen]  # fmt: skip
        found += scanned
        total += len(scanned)
    return found, total, truncated


def _title_candidates(
    conn: apsw.Connection, parsed: ParsedQuery, f: Filters, seen: set[int]
) -> list[tuple[int, Candidate]]:
    """Titled matches outside the full window that rank in a title tier (never buried).

    Only title-tier documents are kept: their sort key ignores BM25, so they need no score, and a
    body-tier document beyond the window is cut like any other (``resultsTruncated``).
    """
    positive = build_positive(parsed)
    assert positive is not None
    excluded = build_excluded(parsed)
    out = []
    for rowid, cand in _fetch(conn, title_window_sql(positive, f, TITLE_WINDOW)):
        if rowid in seen or tier_for(cand, parsed.title_text) == "body":
            continue
        if excluded is not None and conn.execute(*is_match_sql(excluded, rowid)).fetchone():
            continue
        out.append((rowid, cand))
    return out


def _filters(
    parsed: ParsedQuery, kinds: tuple[str, ...], lane_ids: tuple[str, ...] | None
) -> Filters:
    indexed = tuple(k for k in kinds if k in INDEXED_KINDS)
    return Filters(
        kinds=None if set(indexed) == set(INDEXED_KINDS) else indexed,
        lane_ids=lane_ids,
        session_ids=parsed.sessions or None,
        since_ms=parsed.since_ms,
    )


def default_link(candidate: Candidate, project_id: str | None) -> str:
    """The ``ade://`` link of an indexed candidate; delegates pass ``extra["deep_link"]`` (the
    link, or a callable building it)."""
    given = candidate.extra.get("deep_link")
    if callable(given):  # built only for the page shown: a delegate may offer thousands
        try:
            given = given()
        except AdeError:
            return ""
    if isinstance(given, str):
        return given
    kind, anchor = candidate.kind, candidate.anchor
    number = int(anchor) if anchor is not None and anchor.isdigit() else None
    target = candidate.doc_id.partition(":")[2]
    if kind in ("chat", "terminal"):
        target = candidate.session_id or target.split(":")[0].split("@")[0]
    elif kind in ("pr", "commit", "branch") and anchor:
        target = anchor
    try:
        return build_link(kind, target, project_id=project_id,
                          event=number if kind == "chat" else None,
                          offset=number if kind == "terminal" else None)  # fmt: skip
    except AdeError:
        return ""


def _merge(
    indexed: list[tuple[int, Candidate]], extras: Sequence[Candidate], drop: frozenset[str]
) -> tuple[list[Candidate], dict[str, int]]:
    """Indexed rows minus ``drop`` (replaced or re-supplied ids), then the extras, one per id."""
    rowids: dict[str, int] = {}
    merged: dict[str, Candidate] = {}
    for rowid, cand in indexed:
        if cand.doc_id not in drop and cand.doc_id not in merged:
            merged[cand.doc_id] = cand
            rowids[cand.doc_id] = rowid
    for cand in extras:
        merged.setdefault(cand.doc_id, cand)
    return list(merged.values()), rowids


def run_query(
    conn: apsw.Connection,
    args: SearchQueryArgs,
    *,
    project: Project,
    now: datetime,
    lanes: Sequence[Lane] = (),
    extra_candidates: Sequence[Candidate] = (),
    replace_doc_ids: frozenset[str] = frozenset(),
    link_for: LinkFor | None = None,
) -> SearchQueryResult:
    """Answer one query synchronously on ``conn`` (a read connection of the calling thread).

    Raises:
        UsageError: bad limit, kind, lane, filter or query length.
        CursorError: a garbage, tampered or foreign cursor.
    """
    limit = _check_limit(args.limit)
    parsed = parse_query(args.query, now=now)
    kinds = resolve_kinds(args.kinds, parsed.kinds)
    lane_ids = resolve_lanes(args.lane_id, parsed.lanes, lanes)
    fingerprint = query_fingerprint(args.query, kinds, lane_ids or ())
    after = decode_cursor(args.cursor, fingerprint) if args.cursor else None
    if parsed.match_none:
        return SearchQueryResult(items=(), next_cursor=None, total=0, warnings=parsed.warnings)
    f = _filters(parsed, kinds, lane_ids)
    extras = [c for c in extra_candidates if c.kind in kinds]
    drop = replace_doc_ids | {c.doc_id for c in extras}
    use_index = f.kinds is None or bool(f.kinds)
    indexed: list[tuple[int, Candidate]] = []
    total, truncated = 0, False
    if use_index and parsed.match_all:
        position = None if after is None else (-after[3], after[4])
        indexed = _fetch(conn, match_all_sql(f, position, limit + 1 + len(drop)))
        total = scalar(conn, *match_all_count_sql(f, TOTAL_CAP))
        truncated = total >= TOTAL_CAP
        total -= _count_present(conn, drop, f)
    elif use_index:
        indexed, total, truncated = _fts_candidates(conn, parsed, f)
        total -= len({c.doc_id for _, c in indexed} & drop)
    merged, rowids = _merge(indexed, extras, drop)
    total += len({c.doc_id for c in extras})
    # A delegate that cut its answer (the file line cap) marks its candidates (gather.py).
    truncated = truncated or any(c.extra.get("results_truncated") for c in extras)
    ranked = rank(merged, parsed.title_text)
    if after is not None:
        ranked = [pair for pair in ranked if sort_key(*pair) > after]
    page, more = ranked[:limit], len(ranked) > limit
    bodies = fetch_bodies(conn, [rowids[c.doc_id] for c, _ in page if c.doc_id in rowids])
    link = link_for or (lambda c: default_link(c, project.id))
    lane_names = {lane.id: lane.name for lane in lanes}
    items = []
    for cand, tier in page:
        marked = cand.snippet_marked
        if cand.doc_id in rowids:
            marked = make_snippet(bodies.get(rowids[cand.doc_id], ""), parsed)
            cand = replace(cand, snippet_marked=marked)
        items.append(_item(cand, tier, link(cand), lane_names, project))
    next_cursor = encode_cursor(fingerprint, sort_key(*page[-1])) if more and page else None
    return SearchQueryResult(items=tuple(items), next_cursor=next_cursor,
                             total=total,
                             results_truncated=truncated, warnings=parsed.warnings)  # fmt: skip


def _count_present(conn: apsw.Connection, doc_ids: frozenset[str], f: Filters) -> int:
    if not doc_ids:
        return 0
    sql, params = match_all_count_sql(f, None)
    marks = ",".join("?" * len(doc_ids))
    return scalar(conn, f"{sql} AND d.doc_id IN ({marks})", [*params, *sorted(doc_ids)])


def _item(
    cand: Candidate, tier: str, link: str, lane_names: dict[str, str], project: Project
) -> SearchResultItem:
    snippet, ranges = extract_snippet_ranges(cand.snippet_marked)
    shown = redact_secrets(snippet)
    if shown != snippet:  # a delegated or live text (an issue, an old index row) held a secret
        kept = 0  # highlights before the first replaced character stay
        while kept < min(len(snippet), len(shown)) and snippet[kept] == shown[kept]:
            kept += 1
        snippet, ranges = shown, tuple(r for r in ranges if r.end <= kept)
    return SearchResultItem(
        doc_id=cand.doc_id,
        kind=cand.kind,  # type: ignore[arg-type]
        title=redact_title(cand.title),
        snippet=snippet,
        match_ranges=ranges,
        tier=tier,  # type: ignore[arg-type]
        updated_at=cand.updated_at,
        deep_link=link,
        session_id=cand.session_id,
        lane_id=cand.lane_id,
        lane_name=lane_names.get(cand.lane_id) if cand.lane_id else cand.extra.get("lane_name"),
        anchor=cand.anchor,
        project_id=project.id,
        project_name=project.name,
        project_root=str(project.root),
    )


__all__ = ["DEFAULT_LIMIT", "MAX_LIMIT", "SortKey", "default_link", "run_query"]
