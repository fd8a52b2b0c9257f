"""The exact-phrase boost of the ranking (docs/search.md).

A query of two or more words finds every document holding all of them, anywhere. A document that
holds them as typed, next to each other (``socket timeout``), is nearly always the one meant, so
within a tier it ranks above one holding them apart: its BM25 gets ``PHRASE_BOOST`` added
(``engine.query.ranking``), larger than any BM25 score, so the boost decides and BM25 orders the
rows on each side of it.

One FTS5 phrase query per ranked window, over the window's row id range only, marks the rows;
the title tiers need no boost (they already hold the query text in the title). A query that is
that phrase (``"most recent call"``) marks every row without the query when the phrase query
would find them all (``boosts_every_row``).
"""

# warm path: a warm `ade search` imports this; keep its imports light (ARCHITECTURE: The warm path)

from __future__ import annotations

from collections.abc import Sequence

import apsw
import msgspec

from engine.index.db import scalar
from engine.index.sql import FTS_TABLE, Filters
from engine.kinds import ROLE_TOKEN
from engine.query.parser import AnyOf, ParsedQuery, build_positive
from engine.query.pasted import is_weak_word
from engine.query.ranking import Candidate


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
``benchmarks.bench_phrase_boost``). Older phrase rows past it are ranked without the boost."""


def phrase_rowids(conn: apsw.Connection, match: str, rowids: Sequence[int]) -> set[int]:
    """Which of ``rowids`` hold ``match`` (a phrase from ``phrase_match``), among the newest
    ``PHRASE_BUDGET`` phrase matches in their row id range. One FTS5 query over the range: a
    lookup per row id cost 15-80x more (measured)."""
    if not rowids:
        return set()
    sql = ("SELECT rowid FROM docs_fts WHERE docs_fts MATCH ? AND rowid >= ? AND rowid <= ?"
           " ORDER BY rowid DESC LIMIT ?")  # fmt: skip
    wanted = set(rowids)
    try:
        found = conn.execute(sql, (match, min(rowids), max(rowids), PHRASE_BUDGET))
        return {int(rowid) for (rowid,) in found if rowid in wanted}
    except apsw.SQLError:  # a phrase FTS5 cannot parse (only punctuation): no boost, not an error
        return set()


def row_has_phrase(conn: apsw.Connection, parsed: ParsedQuery, rowid: int) -> bool | None:
    """Whether one indexed row holds the query's phrase; None when the query has none."""
    match = phrase_match(parsed)
    if match is None:
        return None
    return bool(phrase_rowids(conn, match, [rowid]))


def boosts_every_row(conn: apsw.Connection, parsed: ParsedQuery, f: Filters, scored: int) -> bool:
    """Whether ``phrase_rowids`` would return every indexed row of ``parsed``, known without it.

    So when the query is its own phrase (``"most recent call"``: the words of a quoted phrase,
    no exclusion, no filter) and the phrase query's budget reaches every row. Its window ranks
    the best of the ``scored`` newest matches (every match at or above the oldest scored one),
    and each indexed row (window or title match) is one of them; the phrase query walks, newest
    first from the newest indexed row, those matches and the documents the query's role word
    leaves out (``engine.index.sql.role_match``), nothing else. With ``scored`` plus those at
    most ``PHRASE_BUDGET``, every row is among the phrase matches it reads. That walk checked
    the phrase's positions in the window's rows a second time (~2 ms of a phrase query's 18 at
    100 MB, benchmarks/journal/2026-12-07-query-window.md).
    """
    match = phrase_match(parsed)
    if match is None or parsed.excluded or f != Filters() or scored > PHRASE_BUDGET:
        return False
    if match != build_positive(parsed):
        return False
    role_word = f'parts : "{ROLE_TOKEN}"'
    left_out = scalar(
        conn, f"SELECT count(*) FROM {FTS_TABLE} WHERE {FTS_TABLE} MATCH ?", [role_word]
    )
    return scored + left_out <= PHRASE_BUDGET


def with_phrase_boost(
    conn: apsw.Connection, parsed: ParsedQuery, indexed: list[tuple[int, Candidate]],
    f: Filters | None = None, scored: int | None = None,
) -> list[tuple[int, Candidate]]:  # fmt: skip
    """``indexed`` (row id, candidate) with ``phrase`` set on the rows holding the query's phrase.

    ``f`` and ``scored`` (the query's filters and how many of its newest matches its window
    scored) let a query that is its own phrase skip the phrase query (``boosts_every_row``).
    """
    match = phrase_match(parsed)
    if match is None or not indexed:
        return indexed
    if f is not None and scored is not None and boosts_every_row(conn, parsed, f, scored):
        return [(rowid, msgspec.structs.replace(c, phrase=True)) for rowid, c in indexed]
    held = phrase_rowids(conn, match, [rowid for rowid, _ in indexed])
    if not held:
        return indexed
    return [
        (rowid, msgspec.structs.replace(c, phrase=True) if rowid in held else c)
        for rowid, c in indexed
    ]
