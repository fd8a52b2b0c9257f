"""The indexed candidates of a full-text query (``engine.query.run``): the scored BM25 window,
the newest title matches unioned in when it fills, and the match total, each bounded by the
budgets below; a 2-3 character prefix read from ``docs_recent`` (the index-size budget)."""

# warm path: a warm `ade search` imports this; keep its imports light (ARCHITECTURE: The warm path)

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Any

import apsw
import msgspec

from engine.index.db import scalar
from engine.index.fts_rank import scores_of_key
from engine.index.recent import RECENT_DOCS, recent_floor
from engine.index.sql import (
    FTS_TABLE,
    NARROW_COLUMNS,
    RECENT_TABLE,
    SCORED_COLUMNS,
    Filters,
    count_sql,
    matching_rowids_sql,
    rows_by_id_sql,
    title_scan_sql,
    title_window_sql,
    titled_in_range_sql,
    titled_rowids_sql,
    top_window_sql,
    window_sql,
)
from engine.index.top_keys import rows_of
from engine.query.parser import (
    AnyOf,
    ParsedQuery,
    build_excluded,
    build_match,
    build_positive,
    is_token_char,
)
from engine.query.plan import QueryPlan
from engine.query.ranking import NO_EXTRA, Candidate, CandidateExtra, tier_for
from engine.types import INDEXED_KINDS

BM25_WINDOW = 1000
"""Best-scored matches a query ranks (20 pages of 50): the rest follow them newest first
(``engine.query.tail``)."""

SCORE_BUDGET = 25_000
"""Matches scored per query. Scoring every match of a term inside SQLite and keeping the best
window cost 7/14/44/93 ms for 2k/10k/52k/103k matches (benchmarks/journal/waves-1-to-3.md, "How many matches fit the latency budget"): 25k
stays within the ~20 ms a palette keystroke can spend. Past it the newest 25k are scored and the
answer's warnings say so."""

PHRASE_SCORE_BUDGET = 5_000
"""Matches scored for a query of one multi-word phrase (``"of the"``, ``foo.bar``). ``bm25()``
first walks every match of a phrase to weigh it (70 ms for the 100k matches of ``"of the"`` on the
330 MB corpus, on top of the scoring); one phrase needs no weight (``engine.index.fts_rank``), but
that scorer's Python twin is a Python call per row: 5k rows cost 30 ms, 25k with ``bm25()`` 105 ms
(measured). Kept with the compiled scorer too: a larger budget would change which matches rank."""

BUDGET_NOTE = (
    "more than {budget:,} matches: ranked the best of the newest {budget:,};"
    " narrow the query (a longer term, kind:, since:) to rank every match"
)
"""Said by an answer whose ranking the scoring budget bounded."""

SHORT_PREFIX = 3
"""Prefixes this short (2-3 characters) are read from ``docs_recent``, the only table with
prefix indexes; a longer prefix merges few enough doclists on ``docs_fts`` (index-size budget)."""

RECENT_NOTE = (
    "a {chars}-character prefix: ranked its matches among the newest {docs:,} documents;"
    " type more of the word to rank every match"
)
"""Said when a short prefix filled its window from ``docs_recent`` alone (older docs unread)."""

TITLE_WINDOW = 200
"""Title-scoped matches unioned in when the BM25 window fills."""

TOTAL_CAP = 2_000
"""Counting every match of a common phrase cost 300+ ms (measured); past this ``total`` is a floor
and ``resultsTruncated`` is set."""


def _row_candidate(row: Sequence[Any]) -> tuple[int, Candidate]:
    rowid, doc_id, kind, title, rank_title, updated_at, sid, lane, anchor, tool, b1, b2 = row
    if type(b1) is bytes:  # one phrase: both scores in one key (``sql.score_expressions``)
        b1, b2 = scores_of_key(b1)
    # Positional, in field order: a window is 1,000 rows, and twelve keywords cost 2.5x the
    # construction (~2 ms a query, the start-up budget).
    cand = Candidate(doc_id, kind, title, rank_title, "", updated_at, sid, lane, anchor, b1, b2,
                     CandidateExtra(tool=tool) if tool else NO_EXTRA)  # fmt: skip
    return rowid, cand


def fetch_rows(conn: apsw.Connection, stmt: tuple[str, list[Any]]) -> list[tuple[int, Candidate]]:
    rows = conn.execute(*stmt, prepare_flags=apsw.SQLITE_PREPARE_PERSISTENT)  # see _fetch_window
    return [_row_candidate(r) for r in rows]


UNREAD = ""
"""The ``doc_id`` of an unread candidate: a narrow window's row (``window_sql(narrow=True)``)
whose ``docs`` columns are not read yet; it holds its scores only, and is untitled (body
tier). ``read_rows`` reads it; no document has an empty id."""


def read_rows(
    conn: apsw.Connection, unread: Sequence[tuple[int, Candidate]]
) -> list[tuple[int, Candidate]]:
    """``unread`` candidates read from ``docs``, their scores and phrase mark kept (a row
    deleted since the window was read is left out)."""
    if not unread:
        return []
    known = dict(unread)
    out = []
    for rowid, cand in fetch_rows(conn, rows_by_id_sql(list(known))):
        scored = known[rowid]
        out.append((rowid, msgspec.structs.replace(cand, bm25=scored.bm25,
                                                   bm25_split=scored.bm25_split,
                                                   phrase=scored.phrase)))  # fmt: skip
    return out


def _narrow_row(row: Sequence[Any]) -> tuple[int, Candidate]:
    rowid, b1, b2, _ = row
    if type(b1) is bytes:  # one phrase: both scores in one key (``sql.score_expressions``)
        b1, b2 = scores_of_key(b1)
    return rowid, Candidate(UNREAD, "", "", "", "", 0, None, None, None, b1, b2)


def _fetch_window(
    conn: apsw.Connection, stmt: tuple[str, list[Any]], counted: bool, narrow: bool = False
) -> tuple[list[tuple[int, Candidate]], tuple[int, int] | None]:
    """A ``window_sql`` statement's candidates, and with ``counted`` its (matches scored,
    oldest scored row id). A ``narrow`` statement's untitled rows stay unread (``UNREAD``);
    its titled rows, whose tier needs their title, are read."""
    # Kept compiled for the connection's life (``engine.index.db.plan_without_bound_values``):
    # prepared as persistent, its memory is not taken from the connection's small lookaside
    # slots, which a common word's run then has for its own allocations (``the``: 31,760 of
    # them went to ``malloc`` in four queries without this, none with it).
    rows: list[Any] = conn.execute(*stmt, prepare_flags=apsw.SQLITE_PREPARE_PERSISTENT).fetchall()
    scored = None
    if counted:
        scored = (rows[0][-2], rows[0][-1]) if rows else (0, 0)
        rows = [r[:-SCORED_COLUMNS] for r in rows]
    if not narrow:
        return [_row_candidate(r) for r in rows], scored
    found = [_narrow_row(r) for r in rows]
    titled = [pair for pair, row in zip(found, rows, strict=True) if row[NARROW_COLUMNS - 1]]
    if titled:
        read = dict(read_rows(conn, titled))  # one deleted since stays unread (and is dropped)
        found = [(rowid, read.get(rowid, cand)) for rowid, cand in found]
    return found, scored


def _fetch_top(
    conn: apsw.Connection, stmt: tuple[str, list[Any]]
) -> tuple[list[tuple[int, Candidate]], tuple[int, int]]:
    """A ``top_window_sql`` statement's candidates (unread but the titled ones, as a narrow
    window's) and its (matches scored, oldest scored row id)."""
    # All of it (one row): the statement then ends, and FTS5's cursor with it.
    rows: list[Any] = conn.execute(*stmt, prepare_flags=apsw.SQLITE_PREPARE_PERSISTENT).fetchall()
    ((kept, matched, oldest),) = rows  # persistent: see _fetch_window
    found = [(rowid, Candidate(UNREAD, "", "", "", "", 0, None, None, None, exact, split))
             for exact, split, rowid in rows_of(kept)]  # fmt: skip
    if found:
        titled_ids = _titled(conn, [r for r, _ in found])
        if titled_ids:
            read = dict(read_rows(conn, [pair for pair in found if pair[0] in titled_ids]))
            found = [(rowid, read.get(rowid, cand)) for rowid, cand in found]
    return found, (matched, oldest or 0)


TITLED_SCAN = 2_000
"""Titled row ids read from the window's range before its own ids are looked up instead."""


def _titled(conn: apsw.Connection, rowids: list[int]) -> set[int]:
    """Which of ``rowids`` (the window's) ``docs_title`` holds: the titled rows of their range
    when there are at most ``TITLED_SCAN`` (then those among ``rowids``), else each looked up."""
    stmt = titled_in_range_sql(min(rowids), max(rowids), TITLED_SCAN + 1)
    in_range = [r for (r,) in conn.execute(*stmt)]
    if len(in_range) <= TITLED_SCAN:
        return set(in_range).intersection(rowids)
    return {r for (r,) in conn.execute(*titled_rowids_sql(rowids))}


@functools.lru_cache(maxsize=256)
def _tokens(text: str) -> tuple[str, ...]:
    """The FTS tokens of a term's text (what the tokenizer splits it into, case aside); a query
    asks for its terms' several times (kept: a palette re-asks as a word is typed)."""
    return tuple("".join(ch if is_token_char(ch) else " " for ch in text).split())


def tallies_in_window(parsed: ParsedQuery, table: str = FTS_TABLE) -> bool:
    """Whether the window statement on ``table`` counts the matches it scores
    (``window_sql(counted=True)``) instead of a second statement counting them.

    Yes for a match of several tokens (two terms, a phrase of two words), where counting again
    builds every prefix's doclist, intersects them or checks positions once more (~4.5 ms of a
    two-term prefix's ~24, the start-up budget); and for a 2-3 character prefix on ``docs_fts``
    (no prefix index there), whose count would merge the doclists of every word it starts once
    more (``the*`` at 10 MB: 2.7 ms; tallied, its window and total cost 13 % less CPU,
    benchmarks/journal/2026-12-07-query-window.md). No for one word or one longer prefix, and a
    short prefix on ``docs_recent`` (its prefix index holds one doclist): counting that again is
    cheaper than tallying up to ``SCORE_BUDGET`` scored rows."""
    if table == FTS_TABLE and short_prefix(parsed):
        return True
    terms = [
        t for node in parsed.terms for t in (node.options if isinstance(node, AnyOf) else (node,))
    ]
    return sum(len(_tokens(t.text)) for t in (*terms, *parsed.excluded)) > 1


def _match_total(
    conn: apsw.Connection, match: str, f: Filters, budget: int, table: str,
    scored: tuple[int, int] | None,
) -> int:  # fmt: skip
    """How many documents match, at most ``budget + 1``: from the window's tally when it has
    one (fewer scored than ``budget``: all of them; else one older match or none)."""
    if scored is None:
        return scalar(conn, *count_sql(match, f, budget + 1, table=table))
    matched, oldest = scored
    if matched < budget:
        return matched
    return budget + scalar(conn, *count_sql(match, f, 1, below=oldest, table=table))


def scores_without_idf(parsed: ParsedQuery) -> bool:
    """Whether ``parsed`` is scored by ``ade_bm25_1_key`` (``--explain`` asks too, so it shows
    the ranking's own numbers): any query of one phrase — a word, a prefix, a phrase of words.

    On every install, the compiled scorer or not (``fts_rank.compiled``), so an answer never
    depends on whether a compiler was there: ``bm25()``'s IDF factor, left out here, is clamped
    by FTS5 to 1e-6 for a word in more than half the documents, which pulled those documents'
    scores down among the file lines' tiny constants (``file_hits.LINE_SCORES``: file lines
    follow indexed documents). The compiled call per row costs less than two ``bm25()`` calls
    and their walk over every match for the IDF (benchmarks/journal/2026-12-07-native-scorer.md);
    the Python twin costs ~1.3 µs a row, ~33 ms at ``SCORE_BUDGET``, the price of equal answers
    on an install without a compiler."""
    return parsed.one_phrase


def _phrase_of_words(parsed: ParsedQuery) -> bool:
    """Whether ``parsed`` is one phrase of several words (``PHRASE_SCORE_BUDGET``)."""
    if not parsed.one_phrase:
        return False
    text = parsed.terms[0].text  # type: ignore[union-attr]  # one_phrase: a Term
    return len(_tokens(text)) > 1


def short_prefix(parsed: ParsedQuery) -> int:
    """The length of the shortest 2-3 character prefix term of ``parsed`` (0: none)."""
    lengths = []
    for node in parsed.terms:
        for term in node.options if isinstance(node, AnyOf) else (node,):
            if term.prefix:
                word = _tokens(term.text)
                if word and len(word[-1]) <= SHORT_PREFIX:
                    lengths.append(len(word[-1]))
    return min(lengths, default=0)


def ranking_table(conn: apsw.Connection, plan: QueryPlan) -> str:
    """The FTS table ``fts_candidates`` ranks ``plan`` on (``--explain`` scores on the same one,
    so its numbers are the ranking's own): ``docs_recent`` for a short prefix when it holds every
    document or at least a window of matches (the same test as a filled window)."""
    if not short_prefix(plan.parsed):
        return FTS_TABLE
    if recent_floor(conn) == 0:
        return RECENT_TABLE
    match = build_match(plan.parsed)
    if match is None:
        return FTS_TABLE
    held = scalar(conn, *count_sql(match, plan_filters(plan), BM25_WINDOW, table=RECENT_TABLE))
    return RECENT_TABLE if held >= BM25_WINDOW else FTS_TABLE


def fts_candidates(
    conn: apsw.Connection, parsed: ParsedQuery, f: Filters, *, narrow: bool = False
) -> tuple[list[tuple[int, Candidate]], int, bool, int, str]:
    """Candidates, total, whether some match is beyond paging, the budget that bounded the
    ranking (0: every match was scored), and a note when only the newest documents were read.

    A 2-3 character prefix reads ``docs_recent`` (prefix-indexed, the newest documents): when
    its window fills there, the answer is the best of those (said in the note; with more matches
    than the scoring budget it is exactly what ``docs_fts`` would give, since both score the
    newest matches); otherwise the prefix is rare among new documents and ``docs_fts`` merges
    its few doclists over every document.

    ``narrow`` leaves the window's untitled rows unread (``UNREAD``: their scores only);
    ``engine.query.tail.read_head`` reads the ones a page can reach. The window's rows come in
    its order, best scores first (``sql.score_order``; ``read_head``'s ``scored_in_order``).
    """
    match = build_match(parsed)
    assert match is not None
    phrase = scores_without_idf(parsed)
    budget = PHRASE_SCORE_BUDGET if _phrase_of_words(parsed) else SCORE_BUDGET
    table, note = FTS_TABLE, ""
    found: list[tuple[int, Candidate]] = []
    scored: tuple[int, int] | None = None
    chars = short_prefix(parsed)
    if chars:
        floor = recent_floor(conn)
        found, scored = _window(conn, match, f, budget, phrase, RECENT_TABLE,
                                tallies_in_window(parsed, RECENT_TABLE), narrow)  # fmt: skip
        if floor == 0 or len(found) == BM25_WINDOW:
            table = RECENT_TABLE  # holds every document, or enough matches to fill the window
            if floor:
                note = RECENT_NOTE.format(chars=chars, docs=RECENT_DOCS)
    if table == FTS_TABLE:
        found, scored = _window(conn, match, f, budget, phrase, FTS_TABLE,
                                tallies_in_window(parsed, FTS_TABLE), narrow)  # fmt: skip
    total, truncated, bounded = len(found), False, 0
    if len(found) == BM25_WINDOW:
        total = _match_total(conn, match, f, budget, table, scored)
        bounded = budget if total > budget else 0
        if bounded:
            note = ""  # the newest ``budget`` matches were scored, as on docs_fts
        found += title_candidates(conn, parsed, f, {rowid for rowid, _ in found})
        truncated = True
    if parsed.title_prefix_scan:
        # First keystroke: the FTS term is exact-token only, so titles are scanned by prefix.
        seen = {rowid for rowid, _ in found}  # row ids: a narrow window's are unread
        scanned = [p for p in fetch_rows(conn, title_scan_sql(parsed.title_prefix_scan, f, TITLE_WINDOW))
                   if p[0] not in seen]  # fmt: skip
        found += scanned
        total += len(scanned)
    return found, total, truncated, bounded, note


def _window(
    conn: apsw.Connection, match: str, f: Filters, budget: int, one_phrase: bool, table: str,
    counted: bool, narrow: bool,
) -> tuple[list[tuple[int, Candidate]], tuple[int, int] | None]:  # fmt: skip
    """The scored window on ``table`` and its tally (when the statement counts). A narrow
    window of one phrase is kept by ``ade_top_keys`` (``top_window_sql``), which tallies
    always; the others by ``window_sql``."""
    if narrow and one_phrase:
        return _fetch_top(conn, top_window_sql(match, f, BM25_WINDOW, budget=budget, table=table))
    stmt = window_sql(match, f, BM25_WINDOW, budget=budget, one_phrase=one_phrase, table=table,
                      counted=counted, narrow=narrow)  # fmt: skip
    return _fetch_window(conn, stmt, counted, narrow)


def title_candidates(
    conn: apsw.Connection, parsed: ParsedQuery, f: Filters, seen: set[int]
) -> list[tuple[int, Candidate]]:
    """Titled matches outside the full window that rank in a title tier (never buried).

    Only title-tier documents are kept: their sort key ignores BM25, so they need no score, and a
    body-tier document beyond the window follows it in the tail like any other.
    """
    positive = build_positive(parsed)
    assert positive is not None
    excluded = build_excluded(parsed)
    out = [
        (rowid, cand)
        for rowid, cand in fetch_rows(conn, title_window_sql(positive, f, TITLE_WINDOW))
        if rowid not in seen and tier_for(cand, parsed.title_text) != "body"
    ]
    if excluded is None or not out:
        return out
    dropped = {
        int(str(r)) for (r,) in conn.execute(*matching_rowids_sql(excluded, [r for r, _ in out]))
    }
    return [(rowid, cand) for rowid, cand in out if rowid not in dropped]


def plan_filters(plan: QueryPlan) -> Filters:
    indexed = tuple(k for k in plan.kinds if k in INDEXED_KINDS)
    return Filters(
        kinds=None if set(indexed) == set(INDEXED_KINDS) else indexed,
        lane_ids=plan.lane_ids,
        session_ids=plan.sessions or None,
        since_ms=plan.since_ms,
        until_ms=plan.until_ms,
        tools=tuple(sorted(plan.tools)) if plan.tools is not None else None,
        commands=plan.parsed.commands,
        roles=tuple(sorted(plan.parsed.roles)) if plan.parsed.roles is not None else None,
    )
