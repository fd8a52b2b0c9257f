"""The exact-phrase boost of the ranking (docs/search.md).

A query of two or more words finds every document holding all of them, anywhere. A document that
holds them as typed, next to each other (``socket timeout``), is nearly always the one meant, so
within a tier it ranks above one holding them apart: its BM25 gets ``PHRASE_BOOST`` added
(``engine.query.ranking``), larger than any BM25 score, so the boost decides and BM25 orders the
rows on each side of it.

One FTS5 phrase query per ranked window, over the window's row id range only, marks the rows;
the title tiers need no boost (they already hold the query text in the title). A query that is
that phrase (``"most recent call"``) marks every row without the query when the phrase query
would find them all (``boosts_every_row``). Under a filter the phrase query narrows as the window
did, so its budget counts only rows the answer can hold (``phrase_walk``); when the budget still
stops it above a row of the window, the answer says so (``PHRASE_NOTE``).
"""

# warm path: a warm `ade search` imports this; keep its imports light (ARCHITECTURE: The warm path)

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import apsw
import msgspec

from engine.index.sql import Filters, filter_sql, role_match
from engine.query.parser import AnyOf, ParsedQuery, build_positive
from engine.query.pasted import is_weak_word
from engine.query.ranking import Candidate, tier_for

UNFILTERED = Filters()


def phrase_match(parsed: ParsedQuery) -> str | None:
    """The FTS5 phrase of the query's words in typed order, or None when no boost applies:
    fewer than two words, an ``a|b`` alternative (no one phrase to look for), or only stop words
    and words under three letters (``of the``: no phrase worth it, and the most costly to look
    for — ``benchmarks.bench_phrase_boost``).

    A bare last word stays a prefix (``socket time`` finds ``socket timeout``), as in the
    query itself; a quoted part's words join the phrase as they are."""
    words: list[str] = []
    last_prefix = False
    for node in parsed.terms:
        if isinstance(node, AnyOf):
            return None
        words.append(node.text)
        last_prefix = node.prefix
    split = " ".join(words).split()
    if len(split) < 2 or all(is_weak_word(word) for word in split):
        return None
    quoted = '"' + " ".join(words).replace('"', '""') + '"'
    return quoted + "*" if last_prefix else quoted


PHRASE_BUDGET = 5_000
"""Phrase matches read per query, newest first: a phrase of common words (``the of``) has tens of
thousands, and walking them all would cost what the whole query does (measured,
``benchmarks.bench_phrase_boost``). Older phrase rows past it are ranked without the boost, and
the answer says so (``PHRASE_NOTE``). Under a filter only the rows the filter keeps count."""

PHRASE_NOTE = (
    "more than {budget:,} matches hold the words as one phrase: boosted the newest {budget:,};"
    " narrow the query (kind:, since:) to boost every one"
)
"""Said by an answer whose phrase boost ``PHRASE_BUDGET`` bounded (``with_phrase_boost``)."""


class PhraseWalk(msgspec.Struct, frozen=True):
    """What one phrase query over a window's row id range found."""

    held: set[int]
    """The window's row ids holding the phrase, among the phrase matches read."""
    oldest_read: int | None
    """The oldest row id read when the walk stopped at its budget (older rows in the range were
    not looked at); None when it read every phrase match in the range."""


def phrase_walk(
    conn: apsw.Connection, match: str, rowids: Sequence[int], f: Filters = UNFILTERED,
    *, budget: int | None = None,
) -> PhraseWalk:  # fmt: skip
    """Which of ``rowids`` hold ``match`` (a phrase from ``phrase_match``), among the newest
    ``budget`` (``PHRASE_BUDGET``) phrase matches in their row id range that ``f`` keeps. One
    FTS5 query over the range: a lookup per row id cost 15-80x more (measured).

    With a filter the walk applies it as the window does (the ``docs`` join, ``role_match``), so
    its budget is spent only on rows the answer can hold: newer rows outside the filter no longer
    leave an older row inside it unboosted. Without one it reads ``docs_fts`` alone, its MATCH
    leaving out the notices agents injected as the window's does (``role_match``), so they do not
    spend the budget either (benchmarks/journal/2026-12-07-phrase-boost-filters.md)."""
    if not rowids:
        return PhraseWalk(set(), None)
    budget = PHRASE_BUDGET if budget is None else budget
    join, where = "", ""
    params: list[Any] = []
    if f != UNFILTERED:
        join = " CROSS JOIN docs d ON d.id = docs_fts.rowid"
        where, params = filter_sql(f, fts=True)
    fts_match = role_match(match, f.roles)  # by default the notices the answer leaves out
    sql = (f"SELECT docs_fts.rowid FROM docs_fts{join} WHERE docs_fts MATCH ?{where}"
           " AND docs_fts.rowid >= ? AND docs_fts.rowid <= ? ORDER BY docs_fts.rowid DESC LIMIT ?")  # fmt: skip
    wanted = set(rowids)
    held: set[int] = set()
    read, last = 0, 0
    # One row past the budget, not marked: it tells a walk the budget stopped from one that read
    # every phrase match in the range.
    bounds = (min(rowids), max(rowids), budget + 1)
    try:
        for (rowid,) in conn.execute(sql, (fts_match, *params, *bounds)):
            if read == budget:
                return PhraseWalk(held, last)
            read, last = read + 1, rowid
            if rowid in wanted:
                held.add(rowid)
    except apsw.SQLError:  # a phrase FTS5 cannot parse (only punctuation): no boost, not an error
        return PhraseWalk(set(), None)
    return PhraseWalk(held, None)


def boosts_every_row(parsed: ParsedQuery, scored: int) -> bool:
    """Whether ``phrase_walk`` would mark every indexed row of ``parsed``, known without it.

    So when the query is its own phrase (``"most recent call"``: the words of a quoted phrase,
    no exclusion) and the phrase query's budget reaches every row. Its window ranks the best of
    the ``scored`` newest matches (every match at or above the oldest scored one), and each
    body-tier row is one of them (a title-tier row's order ignores the boost); the phrase query
    walks, newest first, the same matches (the same MATCH, its notices left out or kept by
    ``role_match`` as the window's, and under a filter the window's narrowing: ``phrase_walk``),
    nothing else. With ``scored`` at most ``PHRASE_BUDGET``, every row is among the phrase matches
    it reads. That walk checked the phrase's positions in the window's rows a second time (~2 ms
    of a phrase query's 18 at 100 MB, benchmarks/journal/2026-12-07-query-window.md).
    """
    match = phrase_match(parsed)
    if match is None or parsed.excluded or scored > PHRASE_BUDGET:
        return False
    return match == build_positive(parsed)


def with_phrase_boost(
    conn: apsw.Connection, parsed: ParsedQuery, indexed: list[tuple[int, Candidate]],
    f: Filters | None = None, scored: int | None = None, *, budget: int | None = None,
) -> tuple[list[tuple[int, Candidate]], int]:  # fmt: skip
    """``indexed`` (row id, candidate) with ``phrase`` set on the rows holding the query's phrase,
    and the budget that bounded the boost (0: none did; the answer then says ``PHRASE_NOTE``).

    ``f`` (the query's filters, ``None``: none) narrows the phrase query as it narrowed the
    window (``phrase_walk``). ``f`` and ``scored`` (how many of its newest matches the window
    scored) let a query that is its own phrase skip the phrase query (``boosts_every_row``).
    The boost is bounded when the walk stopped at ``budget`` above a body-tier row of the
    window (a title-tier row's order ignores the boost).
    """
    match = phrase_match(parsed)
    if match is None or not indexed:
        return indexed, 0
    if f is not None and scored is not None and boosts_every_row(parsed, scored):
        return [(rowid, msgspec.structs.replace(c, phrase=True)) for rowid, c in indexed], 0
    budget = PHRASE_BUDGET if budget is None else budget
    walk = phrase_walk(conn, match, [rowid for rowid, _ in indexed], f or UNFILTERED,
                       budget=budget)  # fmt: skip
    oldest = walk.oldest_read
    unread = oldest is not None and any(
        rowid < oldest and tier_for(c, parsed.title_text) == "body" for rowid, c in indexed
    )
    bounded = budget if unread else 0
    if not walk.held:
        return indexed, bounded
    held = walk.held
    boosted = [
        (rowid, msgspec.structs.replace(c, phrase=True) if rowid in held else c)
        for rowid, c in indexed
    ]
    return boosted, bounded
