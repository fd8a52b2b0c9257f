"""The query path: parse, fetch candidates, merge delegates, rank, page (DESIGN §5).

Candidates come from one of two SQL paths:

* **match-all** (filter-only): keyset over ``updated_at`` desc, ``doc_id`` asc straight from the
  ``docs_by_recency`` index; FTS never runs.
* **full text**: every match up to ``SCORE_BUDGET`` is scored inside SQLite (exact-token and
  split-token BM25) and the best ``BM25_WINDOW`` leave it, so an old strong match is reachable
  by its score; past the budget the newest ``SCORE_BUDGET`` are scored and ``warnings`` says so.
  When the window fills, the newest title matches (from the small ``docs_title`` table) that rank
  in a title tier are unioned in so a title match is never buried, and every other match follows
  them newest first (the tail, ``engine.query.tail``): paging reaches every match. ``total`` is
  then counted up to ``SCORE_BUDGET + 1``; past that it is a floor and ``resultsTruncated`` says
  so. When the window does not fill, the ranking is exact BM25 over every match.

Delegated and live candidates (``extra_candidates``) join through the same comparator; indexed rows
whose id is in ``replace_doc_ids`` are dropped first (the ``session:`` freshness contract).
"""

# warm path: a warm `ade search` imports this; keep its imports light (ARCHITECTURE: The warm path)

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator, Sequence
from datetime import datetime

import apsw

from engine.errors import AdeError
from engine.index.db import scalar
from engine.index.documents import fetch_bodies
from engine.index.sources import mark_for_reingest
from engine.index.sql import (
    Filters,
    match_all_count_sql,
    match_all_sql,
    rowids_of_sql,
)
from engine.links.deeplink import build_link, session_link
from engine.project.model import Lane, Project
from engine.project.pr_reviews import review_item_of
from engine.query.candidates import (
    BUDGET_NOTE,
    TOTAL_CAP,
    UNREAD,
    fetch_rows,
    fts_candidates,
    plan_filters,
    ranking_table,
    read_rows,
)
from engine.query.cursor import cursor_seen, decode_cursor, encode_cursor
from engine.query.parser import build_match
from engine.query.phrase_boost import PHRASE_NOTE, with_phrase_boost
from engine.query.plan import QueryPlan, build_plan, resolve_kinds, resolve_lanes
from engine.query.ranking import (
    Candidate,
    SortKey,
    extract_snippet_ranges,
    rank,
)
from engine.query.snippets import snippet_ranges
from engine.query.source_text import snippet_texts
from engine.query.tail import Tail, page_of, read_head
from engine.redaction import redact_page, redact_secrets, redact_title
from engine.types import (
    MatchRange,
    SearchQueryArgs,
    SearchQueryResult,
    SearchResultItem,
)


def default_link(candidate: Candidate, project_id: str | None) -> str:
    """The ``ade://`` link of an indexed candidate; delegates pass ``extra.deep_link`` (the
    link, or a callable building it)."""
    given = candidate.extra.deep_link
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
        try:
            return session_link(kind, target, number, project_id)
        except AdeError:
            return ""
    if kind in ("pr", "commit", "branch") and anchor:
        target = anchor
    item = review_item_of(candidate.doc_id) if kind == "pr" else None  # lands on a review
    try:
        return build_link(kind, target, project_id=project_id,
                          event=number if kind == "chat" else None,
                          offset=number if kind == "terminal" else None,
                          review=item[1] if item and item[0] == "review" else None,
                          comment=item[1] if item and item[0] == "comment" else None)  # fmt: skip
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


DROP_LOOKUPS = 256
"""Doc ids to drop (``replace_doc_ids``, the delegates') looked up in ``docs`` to find the
window's unread rows they drop; past this, reading those rows costs less."""


def _without_dropped(
    conn: apsw.Connection, indexed: list[tuple[int, Candidate]], drop: frozenset[str]
) -> list[tuple[int, Candidate]]:
    """``indexed`` without the rows whose doc id is in ``drop`` (an unread row's is in ``docs``)."""
    if not drop:
        return indexed
    if len(drop) > DROP_LOOKUPS:
        read = dict(read_rows(conn, [(r, c) for r, c in indexed if c.doc_id == UNREAD]))
        indexed = [(rowid, read.get(rowid, cand)) for rowid, cand in indexed
                   if cand.doc_id != UNREAD or rowid in read]  # fmt: skip
        return [(rowid, cand) for rowid, cand in indexed if cand.doc_id not in drop]
    dropped = {int(str(r)) for (r,) in conn.execute(*rowids_of_sql(sorted(drop)))}
    return [(rowid, cand) for rowid, cand in indexed if rowid not in dropped]


def run_query(
    conn: apsw.Connection,
    query: QueryPlan | SearchQueryArgs,
    *,
    project: Project,
    now: datetime | None = None,
    lanes: Sequence[Lane] = (),
    extra_candidates: Sequence[Candidate] | Callable[[], Sequence[Candidate]] = (),
    replace_doc_ids: frozenset[str] = frozenset(),
) -> SearchQueryResult:
    """Answer one query synchronously on ``conn`` (a read connection of the calling thread).

    ``query`` is the plan the service built once; raw ``SearchQueryArgs`` are planned here with
    ``now`` and ``lanes`` (a convenience for callers that query the index alone).
    ``extra_candidates`` may be a callable: it is called once, after the full-text query (the
    service's delegates run meanwhile, the start-up budget).

    Raises:
        UsageError: bad limit, kind, lane, filter or query length.
        CursorError: a garbage, tampered or foreign cursor.
    """
    if isinstance(query, QueryPlan):
        plan = query
    else:
        if now is None:
            raise ValueError("run_query needs now= to plan raw SearchQueryArgs")
        plan = build_plan(query, now=now, lanes=lanes)
    stale: set[str] = set()  # sources whose text changed: marked once the snapshot ends
    with one_snapshot(conn):
        answer = _answer(conn, plan, project, lanes, extra_candidates, replace_doc_ids, stale)
    for key in sorted(stale):
        mark_for_reingest(conn, key)
    return answer


@contextlib.contextmanager
def one_snapshot(conn: apsw.Connection) -> Iterator[None]:
    """Every statement of one answer reads one state of the index: the window's row ids, the
    rows read for the page after it (``tail.read_head``), the counts, the phrase boost, the tail
    and the bodies. A write committed between two of them (a document replaced gets a new row
    id) would otherwise drop that document from this answer or count it twice. In WAL mode a
    read transaction holds a snapshot, no lock; a connection already in a transaction (a
    caller's) keeps it."""
    if not conn.getautocommit():
        yield
        return
    conn.execute("BEGIN")
    try:
        yield
    finally:
        if not conn.getautocommit():
            conn.execute("COMMIT")  # nothing was written: it only ends the snapshot


def _answer(
    conn: apsw.Connection,
    plan: QueryPlan,
    project: Project,
    lanes: Sequence[Lane],
    extra_candidates: Sequence[Candidate] | Callable[[], Sequence[Candidate]],
    replace_doc_ids: frozenset[str],
    stale: set[str],
) -> SearchQueryResult:
    """``run_query`` of a plan, inside one snapshot of the index; the transcripts that no longer
    give their indexed text are added to ``stale`` (a write cannot happen inside the snapshot)."""
    parsed, kinds, limit = plan.parsed, plan.kinds, plan.limit
    after = decode_cursor(plan.cursor, plan.fingerprint) if plan.cursor else None
    if parsed.match_none:
        return SearchQueryResult(items=(), next_cursor=None, total=0, warnings=plan.warnings)
    f = plan_filters(plan)

    def gathered() -> tuple[list[Candidate], frozenset[str]]:
        given = extra_candidates() if callable(extra_candidates) else extra_candidates
        extras = [c for c in given if c.kind in kinds]
        return extras, replace_doc_ids | {c.doc_id for c in extras}

    use_index = f.kinds is None or bool(f.kinds)
    indexed: list[tuple[int, Candidate]] = []
    head_rowids: list[int] = []  # every row of the ranked head, read or not (the tail skips them)
    total, truncated, bounded, recent_note, window_full = 0, False, 0, "", False
    phrase_bounded = 0
    if use_index and parsed.match_all:
        extras, drop = gathered()  # the keyset page's size depends on them
        position = None if after is None else (-after[3], after[4])
        wanted = plan.offset + limit + 1 + len(drop)
        indexed = fetch_rows(conn, match_all_sql(f, position, wanted))
        total = scalar(conn, *match_all_count_sql(f, max(TOTAL_CAP, wanted)))
        truncated = total >= max(TOTAL_CAP, wanted)  # a floor: the pages still reach every one
        total -= _count_present(conn, drop, f)
    elif use_index:
        indexed, total, window_full, bounded, recent_note = fts_candidates(conn, parsed, f,
                                                                           narrow=True)  # fmt: skip
        # ``bounded or total``: the matches the window scored (``phrase_boost.boosts_every_row``)
        indexed, phrase_bounded = with_phrase_boost(conn, parsed, indexed, f, bounded or total)
        # Past the window the other matches follow as the tail (engine.query.tail): every one is
        # reachable; ``resultsTruncated`` says the total is a floor (counted up to a budget), or
        # that a budget bounded the phrase boost.
        truncated = bool(bounded or recent_note or phrase_bounded)
        extras, drop = gathered()
        kept = _without_dropped(conn, indexed, drop)
        total -= len(indexed) - len(kept)
        head_rowids = [rowid for rowid, _ in kept]
        # The window's rows are unread but for their scores: read the ones a page reaches.
        indexed = read_head(conn, kept, after, plan.offset + limit + 1, scored_in_order=True)
    else:
        extras, drop = gathered()
    merged, rowids = _merge(indexed, extras, drop)
    total += len({c.doc_id for c in extras}) + sum(c.extra.unlisted for c in extras)
    # A delegate that cut its answer (the file line cap) marks its candidates (gather.py).
    truncated = truncated or any(c.extra.results_truncated for c in extras)
    ranked = rank(merged, parsed.title_text)
    tail = None
    if window_full:
        match = build_match(parsed)
        assert match is not None  # a full window came from a MATCH
        tail = Tail(conn, match, f, parsed.title_text, head_rowids, sorted(drop))
    rows, more = page_of(ranked, tail, after, plan.offset, limit)
    if tail is not None:
        rowids.update(tail.rowids)
    page = [(cand, tier) for cand, tier, _ in rows]
    stored = fetch_bodies(conn, [rowids[c.doc_id] for c, _ in page if c.doc_id in rowids])
    bodies = snippet_texts(conn, project, stored, stale)
    lane_names = {lane.id: lane.name for lane in lanes}
    cut = []
    for cand, _ in page:
        if cand.doc_id in rowids:
            cut.append(snippet_ranges(bodies.get(rowids[cand.doc_id], ""), parsed))
            continue
        marked = cand.snippet_marked
        if (lazy := cand.extra.snippet) is not None:  # a delegate's, made for its page only
            marked = lazy()
        cut.append(extract_snippet_ranges(marked))
    shown = redact_page([snippet for snippet, _ in cut])  # the secret keywords looked for once
    items = []
    for (cand, tier), (snippet, ranges), redacted in zip(page, cut, shown, strict=True):
        link = default_link(cand, project.id)
        items.append(_shown_item(cand, snippet, ranges, redacted, tier, link, lane_names, project))
    seen = cursor_seen(plan.cursor) + plan.offset + len(page)
    next_cursor = encode_cursor(plan.fingerprint, rows[-1][2], seen=seen) if more and rows else None
    warnings = plan.warnings
    if bounded:
        warnings = (*warnings, BUDGET_NOTE.format(budget=bounded))
    if recent_note:
        warnings = (*warnings, recent_note)
    if phrase_bounded:
        warnings = (*warnings, PHRASE_NOTE.format(budget=phrase_bounded))
    return SearchQueryResult(items=tuple(items), next_cursor=next_cursor,
                             total=total,
                             results_truncated=truncated, warnings=warnings)  # fmt: skip


def _count_present(conn: apsw.Connection, doc_ids: frozenset[str], f: Filters) -> int:
    if not doc_ids:
        return 0
    sql, params = match_all_count_sql(f, None)
    marks = ",".join("?" * len(doc_ids))
    return scalar(conn, f"{sql} AND d.doc_id IN ({marks})", [*params, *sorted(doc_ids)])


def _item(
    cand: Candidate,
    marked: str,
    tier: str,
    link: str,
    lane_names: dict[str, str],
    project: Project,
) -> SearchResultItem:
    """The wire item of ``cand`` with its ``marked`` snippet (no ``dataclasses.replace`` per hit)."""
    snippet, ranges = extract_snippet_ranges(marked)
    return _shown_item(cand, snippet, ranges, redact_secrets(snippet), tier, link, lane_names,
                       project)  # fmt: skip


def _shown_item(
    cand: Candidate,
    snippet: str,
    ranges: tuple[MatchRange, ...],
    shown: str,
    tier: str,
    link: str,
    lane_names: dict[str, str],
    project: Project,
) -> SearchResultItem:
    """The wire item of ``cand`` whose snippet is ``snippet`` (highlighted at ``ranges``) and
    ``shown`` once redacted."""
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
        lane_name=lane_names.get(cand.lane_id) if cand.lane_id else cand.extra.lane_name,
        anchor=cand.anchor,
        project_id=project.id,
        project_name=project.name,
        project_root=str(project.root),
        tool=cand.extra.tool if cand.kind == "chat" else None,
    )


wire_item = _item
"""The wire item of a candidate, for a source that ranks outside ``run_query`` (``engine.semantic``)."""

__all__ = [
    "SortKey",
    "default_link",
    "ranking_table",
    "resolve_kinds",
    "resolve_lanes",
    "run_query",
    "wire_item",
]
