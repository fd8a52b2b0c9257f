"""One page of the whole answer: the ranked head, then every other match (paging reaches everything).

A full-text query ranks a bounded head: the best ``BM25_WINDOW`` of the newest ``SCORE_BUDGET``
matches, the newest title matches and the delegated hits (``engine.query.candidates``). When the
window fills, the other matches are not dropped: they follow the head as its **tail**, newest
first then by doc id (the order of every tier's ties), read from SQL one page at a time
(``engine.index.sql.tail_sql``). So paging, by cursor or by offset, reaches every match while
each answer stays bounded, and a first page costs what it did.

A tail hit's sort key carries ``TAIL_TIER``, after every real tier: one cursor orders both
parts, and a cursor into the tail resumes there by keyset without ranking the head again.
"""

# warm path: a warm `ade search` imports this; keep its imports light (ARCHITECTURE: The warm path)

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Iterable, Sequence
from itertools import groupby

import apsw

from engine.index.sql import Filters, tail_sql
from engine.query.candidates import UNREAD, fetch_rows, read_rows
from engine.query.ranking import Candidate, SortKey, sort_key, tier_for
from engine.types import TIER_ORDER, Tier

TAIL_TIER = len(TIER_ORDER)
"""The sort-key tier of a tail hit: after the body tier (its wire ``tier`` stays its own)."""

Ranked = tuple[Candidate, Tier, SortKey]


class Tail:
    """The matches of one query outside its ranked head (``skip_rowids``, ``skip_doc_ids``)."""

    def __init__(
        self, conn: apsw.Connection, match: str, f: Filters, title_text: str,
        skip_rowids: Sequence[int], skip_doc_ids: Sequence[str],
    ) -> None:  # fmt: skip
        self._conn, self._match, self._f, self._title = conn, match, f, title_text
        self._rowids, self._ids = sorted(skip_rowids), sorted(skip_doc_ids)
        self.rowids: dict[str, int] = {}
        """Row id of every tail hit read (their snippets are read from ``docs``)."""

    def read(self, after: SortKey | None, offset: int, count: int) -> list[Ranked]:
        """Up to ``count`` tail hits after ``after`` (a tail key) or ``offset`` rows in."""
        if count <= 0:
            return []
        position = None if after is None else (-after[3], after[4])
        stmt = tail_sql(self._match, self._f, skip_rowids=self._rowids, skip_doc_ids=self._ids,
                        after=position, limit=count, offset=offset)  # fmt: skip
        out: list[Ranked] = []
        for rowid, cand in fetch_rows(self._conn, stmt):
            self.rowids[cand.doc_id] = rowid
            key = (TAIL_TIER, 0.0, 0.0, -cand.updated_at, cand.doc_id)
            out.append((cand, tier_for(cand, self._title), key))
        return out


def page_of(
    ranked: Sequence[tuple[Candidate, Tier]], tail: Tail | None, after: SortKey | None,
    offset: int, limit: int,
) -> tuple[list[Ranked], bool]:  # fmt: skip
    """The ``limit`` hits after the cursor key ``after`` (or ``offset`` hits in), and whether
    more follow: the head's ranked hits first, then the tail's."""
    head = ranked
    tail_offset, tail_after = 0, None
    if after is not None and after[0] == TAIL_TIER:
        head, tail_after = (), after
    elif after is not None:  # ranked is in sort-key order: the page starts past the cursor
        head = ranked[bisect_right(ranked, after, key=lambda pair: sort_key(*pair)) :]
    if offset:
        tail_offset = max(0, offset - len(head))
        head = head[offset:]
    rows: list[Ranked] = [(c, t, sort_key(c, t)) for c, t in head[: limit + 1]]
    if tail is not None:
        rows += tail.read(tail_after, tail_offset, limit + 1 - len(rows))
    return rows[:limit], len(rows) > limit


def read_head(
    conn: apsw.Connection, indexed: Sequence[tuple[int, Candidate]], after: SortKey | None,
    wanted: int, *, scored_in_order: bool = False,
) -> list[tuple[int, Candidate]]:  # fmt: skip
    """``indexed`` with the unread rows (``candidates.UNREAD``) a page can reach read, and the
    others left out: ``page_of`` then shows what it would over every row read.

    An unread row is body tier, so its sort key's first three fields (tier, scores) are known.
    Its groups of equal fields are read best first, each whole (recency and doc id order it
    within its group), until ``wanted`` rows (the page's offset, limit and one more) follow the
    cursor ``after``: any row past them has ``wanted`` rows of the head before it after the
    cursor, so no page from here shows it, and the head still holds ``wanted`` rows, so the
    tail is not read and ``more`` says the same. Rows ordered before the cursor's group are
    left out (never shown); the cursor's own group is read, not counted.

    ``scored_in_order``: the unread rows come in the order of their scores, best first (a
    window's order, ``candidates.fts_candidates``). Unless the phrase boost marked some of them
    and not others (which reorders them), their groups are then walked as they come and the
    walk stops at the first group it does not need: the keys of the rest of a 1,000-row window
    are not built (~0.5 ms of a very common word's query), and the rows picked are the same.
    """
    read = [(rowid, cand) for rowid, cand in indexed if cand.doc_id != UNREAD]
    unread = [(rowid, cand) for rowid, cand in indexed if cand.doc_id == UNREAD]
    ordered: Iterable[tuple[tuple[int, float, float], int, Candidate]]
    if scored_in_order and len({cand.phrase for _, cand in unread}) <= 1:
        ordered = ((sort_key(cand, "body")[:3], rowid, cand) for rowid, cand in unread)
    else:
        ordered = sorted(((sort_key(cand, "body")[:3], rowid, cand) for rowid, cand in unread),
                         key=lambda row: row[0])  # fmt: skip
    floor = None if after is None else after[:3]
    picked: list[tuple[int, Candidate]] = []
    counted = 0
    for fields, group in groupby(ordered, key=lambda row: row[0]):
        if counted >= wanted:
            break
        if floor is not None and fields < floor:
            continue
        members = [(rowid, cand) for _, rowid, cand in group]
        picked += members
        if floor is None or fields > floor:
            counted += len(members)
    return read + read_rows(conn, picked)
