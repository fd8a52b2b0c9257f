"""SQL of the query path, as pure functions returning ``(sql, params)`` (run elsewhere).

Each filter contributes its own clause and parameters; the FTS statements always put the FTS table
first (``CROSS JOIN``). Its rowid is recency order (``engine.index.rowids.doc_rowid``): the scored
window reads the newest matches first and stops at its budget, and counts stop at their cap.
"""

# warm path: a warm `ade search` imports this; keep its imports light (ARCHITECTURE: The warm path)

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

import msgspec

from engine.index import fts_rank, top_keys
from engine.index.command_sql import CommandFilter, command_sql
from engine.index.fts_rank import FUNCTION_NAME
from engine.index.schema import SLOT_BITS
from engine.kinds import ROLE_TOKEN, SYSTEM_ROLE

EXACT_WEIGHTS = ", ".join(map(str, fts_rank.EXACT_WEIGHTS))
"""BM25 weights (body, rank_title, parts) for exact-token relevance: title twice the body."""

SPLIT_WEIGHTS = ", ".join(map(str, fts_rank.SPLIT_WEIGHTS))
"""BM25 weights for split-identifier relevance: the ``parts`` column only (a tie-breaker)."""

COLUMNS = (
    "d.id, d.doc_id, d.kind, d.title, d.rank_title, d.updated_at, d.session_id, d.lane_id, d.anchor,"
    " d.tool"
)
"""Row shape shared by every candidate query (see ``engine.query.run._row_candidate``)."""


QUERY_CACHE_KIB = 32 * 1024
"""Page cache of a query's read connection (SQLite's default is 2 MiB). Every prefix query walks
the index's interior pages, the ``%_docsize`` and ``docs`` pages and each prefix's doclists
twice (the match, then ``bm25()``'s IDF): in a long-running reader (the daemon's, the palette's)
a larger cache keeps them, where 2 MiB re-read them from the OS on every query (``pread`` was
16 % of a two-term prefix request). Distinct class queries on the 330 MB corpus, CPU of the
window statement: two-term prefix -12 %, one-term prefix -17 %; 64 MiB gained no more. Pages
are allocated only as they are read."""


class Filters(msgspec.Struct, frozen=True):
    """SQL-side filters. ``None`` means unconstrained; an empty tuple matches nothing."""

    kinds: tuple[str, ...] | None = None
    lane_ids: tuple[str, ...] | None = None
    session_ids: tuple[str, ...] | None = None
    since_ms: int | None = None
    until_ms: int | None = None
    """Exclusive upper bound on ``updated_at`` (``until:``)."""
    tools: tuple[str, ...] | None = None
    """``tool:``: only docs whose ``tool`` column is one of these."""
    commands: CommandFilter | None = None
    """``exit:``/``cwd:``/``took:``: only shell commands so (``engine.index.command_sql``)."""
    roles: tuple[str, ...] | None = None
    """``role:``: only documents of these roles. None: every document but the notices agents
    injected (``role = 'system'``), which are found only when asked for."""


def _in(column: str, values: tuple[str, ...]) -> tuple[str, list[Any]]:
    return f" AND {column} IN ({','.join('?' * len(values))})", list(values)


def notices_sql() -> tuple[str, list[Any]]:
    """The row ids of the notices agents injected (``role = 'system'``), from ``docs_by_role``."""
    return "SELECT id FROM docs WHERE role = ?", [SYSTEM_ROLE]


def role_match(match: str, roles: tuple[str, ...] | None) -> str:
    """``match`` narrowed by ``role:``, or by default leaving the injected notices out.

    In the MATCH, not the SQL: a notice's ``parts`` hold ``ROLE_TOKEN``, whose doclist is as short
    as the notices are few, so ``NOT`` skips them while FTS5 walks its matches; a ``WHERE`` on the
    row id (or a ``docs`` join) cost a plain query 1.5-3x (measured on 100,000 documents).
    """
    token = f'parts : "{ROLE_TOKEN}"'
    if roles is None:
        return f"({match}) NOT {token}"
    return f"({match}) AND {token}" if SYSTEM_ROLE in roles else match


def role_sql(roles: tuple[str, ...] | None) -> tuple[str, list[Any]]:
    """``role:`` over ``docs d``; by default every document but the injected notices."""
    if roles is None:
        return " AND d.role IS NOT ?", [SYSTEM_ROLE]
    if not roles:
        return " AND 0", []
    return _in("d.role", roles)


def filter_sql(f: Filters, *, fts: bool) -> tuple[str, list[Any]]:
    """``AND …`` clauses and their parameters for ``f`` over ``docs d`` (and ``docs_fts``).

    ``role:`` is in the SQL only without FTS (``fts=False``); an FTS statement narrows its MATCH
    by ``role_match`` instead."""
    sql, params = ("", []) if fts else role_sql(f.roles)
    for column, values in (("d.kind", f.kinds), ("d.session_id", f.session_ids),
                           ("d.tool", f.tools)):  # fmt: skip
        if values is not None:
            clause, p = _in(column, values) if values else (" AND 0", [])
            sql += clause
            params += p
    if f.lane_ids is not None:
        clause, p = lane_sql(f.lane_ids)
        sql += clause
        params += p
    if f.since_ms is not None:
        sql += " AND d.updated_at >= ?"
        params.append(f.since_ms)
        if fts:
            # A rowid range is pushed into FTS5, so old doclist entries are skipped, not joined.
            sql += " AND docs_fts.rowid >= ?"
            params.append((max(f.since_ms, 0) // 1000) << SLOT_BITS)
    if f.until_ms is not None:
        sql += " AND d.updated_at < ?"
        params.append(f.until_ms)
    if f.commands is not None:
        clause, more = command_sql(f.commands)
        sql += clause
        params += more
    return sql, params


def lane_sql(lane_ids: tuple[str, ...]) -> tuple[str, list[Any]]:
    """``lane:``: a document of those lanes, or a commit any of them holds in its history (a
    commit row names one lane, the first that holds it; ``commit_lanes`` lists them all)."""
    if not lane_ids:
        return " AND 0", []
    marks = ",".join("?" * len(lane_ids))
    sql = (
        f" AND (d.lane_id IN ({marks}) OR (d.kind = 'commit' AND EXISTS (SELECT 1 FROM"
        f" commit_lanes c WHERE c.sha = d.anchor AND c.lane_id IN ({marks}))))"
    )
    return sql, [*lane_ids, *lane_ids]


def score_expressions(one_phrase: bool) -> tuple[str, str]:
    """The exact-token and split-identifier BM25 expressions (see ``score_columns``); for one
    phrase, one ``ade_bm25_1_key`` key holding both, and ``NULL``."""
    if one_phrase:  # the ranking's weights are its default (no argument converted per row)
        if fts_rank.compiled():
            # The table's name again: the compiled scorer reads its ``%_docsize`` rows itself
            # (``on_table`` renames both); the Python twin would convert it on every row.
            return f"{FUNCTION_NAME}(docs_fts, '{FTS_TABLE}')", "NULL"
        return f"{FUNCTION_NAME}(docs_fts)", "NULL"
    return f"bm25(docs_fts, {EXACT_WEIGHTS})", f"bm25(docs_fts, {SPLIT_WEIGHTS})"


def score_columns(one_phrase: bool) -> str:
    """The ranking's two score columns (exact-token, split-identifier BM25).

    ``one_phrase`` scores with ``ade_bm25_1_key``, which orders exactly as ``bm25()`` without its
    walk over every match (``engine.index.fts_rank``): its first column is a key holding both
    scores (``fts_rank.scores_of_key``), the second ``NULL``. ``--explain`` calls this too, so it
    shows the same numbers.
    """
    return ", ".join(score_expressions(one_phrase))


def score_order(one_phrase: bool, alias: str = "") -> str:
    """``ORDER BY`` terms of scored rows (columns ``b1, b2, rid``), best first, ties newest
    first: a one-phrase key sorts descending (``fts_rank._KEY``)."""
    if one_phrase:
        return f"{alias}b1 DESC, {alias}rid DESC"
    return f"{alias}b1, {alias}b2, {alias}rid DESC"


FTS_TABLE = "docs_fts"
"""The FTS table the statements read; ``table=RECENT_TABLE`` reads the newest documents' one."""

RECENT_TABLE = "docs_recent"
"""Same columns and row ids as ``docs_fts`` over the newest documents, with 2-3 character prefix
indexes (``engine.index.recent.RECENT_DOCS``)."""


def on_table(table: str, sql: str) -> str:
    """``sql`` (written over ``docs_fts``) reading ``table`` instead: both FTS tables have the
    same columns and row ids, so a statement reads either by its name."""
    return sql if table == FTS_TABLE else sql.replace(FTS_TABLE, table)


def _docs_join(f: Filters) -> str:
    """The ``docs`` join a filtered match reads its filters' columns from; none unfiltered (the
    join doubled the cost of counting, measured)."""
    return "" if f == Filters() else " CROSS JOIN docs d ON d.id = docs_fts.rowid"


def _newest_scored(f: Filters, scores: str) -> tuple[str, list[Any]]:
    """The newest matches (``MATCH ?`` then ``LIMIT ?``: the budget) as ``rid`` and ``scores``,
    with the filters' parameters (between the match and the budget): the scored rows of
    ``window_sql`` and ``top_window_sql`` alike, so a filter narrows both the same way."""
    where, params = filter_sql(f, fts=True)
    sql = (
        f"SELECT docs_fts.rowid AS rid, {scores} FROM docs_fts{_docs_join(f)}"
        f" WHERE docs_fts MATCH ?{where} ORDER BY docs_fts.rowid DESC LIMIT ?"
    )
    return sql, params


def window_sql(
    match: str, f: Filters, limit: int, *, budget: int, one_phrase: bool = False,
    table: str = FTS_TABLE, counted: bool = False, narrow: bool = False,
) -> tuple[str, list[Any]]:  # fmt: skip
    """The best ``limit`` of the newest ``budget`` FTS matches by both BM25 scores, best first.

    Every match up to ``budget`` is scored inside SQLite and only the window leaves it, so an old
    strong match is found as surely as a new one; past ``budget`` matches, the
    newest ``budget`` are scored (a bounded cost on any corpus, said in the answer's warnings).
    Ties keep the newest first, the ranking's own tie-break. ``one_phrase`` scores with
    ``ade_bm25_1_key``, which saves ``bm25()``'s walk over every match (any one phrase:
    ``engine.query.candidates.scores_without_idf``); each row's ``b1`` is then the key of both
    scores and ``b2`` is ``NULL`` (``candidates`` reads the key).

    ``counted`` appends two columns to every row (``SCORED_COLUMNS``): how many matches were
    scored and the oldest scored row id. A caller then knows the count of a query with fewer
    matches than ``budget`` without walking them again (``count_sql``), and for one with more
    needs only ``count_sql(..., 1, below=oldest)``. The scored rows are then materialized once
    and counted from there: ``count(*) OVER ()`` over them cost 3-8 % more CPU per window
    (benchmarks/journal/2026-12-07-query-window.md).

    ``narrow`` rows are ``rid, b1, b2, titled`` (``NARROW_COLUMNS``; whether ``docs_title``
    holds the row, i.e. its ``rank_title`` is not empty), not ``docs``' columns: looking up
    ``docs`` for each of the window's rows was ~1.2-2 ms of a one-term prefix's ~9 at 100 MB,
    and a page needs few of them (``engine.query.head``; ``rows_by_id_sql`` reads those).
    """
    exact, split = score_expressions(one_phrase)
    scored, params = _newest_scored(f, f"{exact} AS b1, {split} AS b2")
    prefix, source, shown = "", f"({scored})", ""
    if counted:
        prefix, source = f"WITH scored AS MATERIALIZED ({scored}) ", "scored"
        shown = ", (SELECT count(*) FROM scored), (SELECT min(rid) FROM scored)"
    # Sorted before the join: joining first would look up ``docs`` for every scored match.
    best = f"SELECT rid, b1, b2 FROM {source} ORDER BY {score_order(one_phrase)} LIMIT ?"
    if narrow:
        titled = "EXISTS (SELECT 1 FROM docs_title t WHERE t.rowid = s.rid)"
        sql = (
            f"{prefix}SELECT s.rid, s.b1, s.b2, {titled}{shown} FROM ({best}) s"
            f" ORDER BY {score_order(one_phrase, 's.')}"
        )
    else:
        sql = (
            f"{prefix}SELECT {COLUMNS}, s.b1, s.b2{shown} FROM ({best}) s"
            f" CROSS JOIN docs d ON d.id = s.rid ORDER BY {score_order(one_phrase, 's.')}"
        )
    return on_table(table, sql), [role_match(match, f.roles), *params, budget, limit]


def top_window_sql(
    match: str, f: Filters, limit: int, *, budget: int, table: str = FTS_TABLE
) -> tuple[str, list[Any]]:
    """``window_sql(narrow=True, counted=True)`` of a one-phrase query as one row: the best
    ``limit`` of the newest ``budget`` matches as an ``ade_top_keys`` blob (best first, by the
    order ``score_order(True)`` gives: key, then newest), how many matches were scored and the
    oldest scored row id.

    The heap of the aggregate keeps the window instead of SQLite's sorter, which inserted every
    scored row into a b-tree, and the scored rows are counted as they stream past instead of
    materialized (engine.index.top_keys). Whether ``docs_title`` holds a row is
    ``titled_rowids_sql``'s, for the window's rows only.
    """
    key, _ = score_expressions(True)
    scored, params = _newest_scored(f, f"{key} AS b1")
    sql = f"SELECT {TOP_KEYS}(b1, rid, ?), count(*), min(rid) FROM ({scored})"
    return on_table(table, sql), [limit, role_match(match, f.roles), *params, budget]


TOP_KEYS = top_keys.FUNCTION_NAME


def titled_rowids_sql(rowids: Sequence[int]) -> tuple[str, list[Any]]:
    """Which of ``rowids`` ``docs_title`` holds (a titled document's row). Read from its
    ``%_docsize`` table, where FTS5 itself looks a contentless table's row id up (the
    statement it ran per row of ``EXISTS (SELECT 1 FROM docs_title WHERE rowid = ?)``)."""
    sql = "SELECT id FROM docs_title_docsize WHERE id IN (SELECT value FROM json_each(?))"
    return sql, [json.dumps(list(rowids))]


def titled_in_range_sql(low: int, high: int, cap: int) -> tuple[str, list[Any]]:
    """The row ids ``docs_title`` holds from ``low`` to ``high``, at most ``cap`` of them: where
    titled documents are few (transcripts, terminals) the window's titled rows are found among
    them without sending its 1,000 ids (``titled_rowids_sql``: ~3 M instructions of a very
    common word's query to encode them, parse them and look each one up)."""
    sql = "SELECT id FROM docs_title_docsize WHERE id BETWEEN ? AND ? LIMIT ?"
    return sql, [low, high, cap]


SCORED_COLUMNS = 2
"""Columns ``window_sql(counted=True)`` appends to each row: matches scored, oldest row id."""

NARROW_COLUMNS = 4
"""Columns of a ``window_sql(narrow=True)`` row before the tally's: row id, both scores, titled."""


def rowids_of_sql(doc_ids: Sequence[str]) -> tuple[str, list[Any]]:
    """The row ids of the documents ``doc_ids`` (those indexed)."""
    return "SELECT id FROM docs WHERE doc_id IN (SELECT value FROM json_each(?))", [
        json.dumps(list(doc_ids))
    ]


def rows_by_id_sql(rowids: Sequence[int]) -> tuple[str, list[Any]]:
    """The candidate rows (``COLUMNS``, no scores) of the documents ``rowids``, in no order."""
    sql = f"SELECT {COLUMNS}, NULL, NULL FROM docs d WHERE d.id IN (SELECT value FROM json_each(?))"
    return sql, [json.dumps(list(rowids))]


def count_sql(
    match: str, f: Filters, cap: int, *, below: int | None = None, table: str = FTS_TABLE
) -> tuple[str, list[Any]]:
    """How many documents match, counting at most ``cap`` (the rest is ``resultsTruncated``).

    ``below`` counts only rows older than that rowid: the query path counts what lies beyond its
    window instead of walking the window's matches a second time. Without filters the ``docs``
    join is left out: it doubled the cost of counting (measured).
    """
    where, params = filter_sql(f, fts=True)
    if below is not None:
        where += " AND docs_fts.rowid < ?"
        params.append(below)
    inner = f"SELECT 1 FROM docs_fts{_docs_join(f)} WHERE docs_fts MATCH ?{where} LIMIT ?"
    return on_table(table, f"SELECT count(*) FROM ({inner})"), [
        role_match(match, f.roles),
        *params,
        cap,
    ]


def title_window_sql(match: str, f: Filters, limit: int) -> tuple[str, list[Any]]:
    """The newest ``limit`` titled documents whose title (words or identifier parts) matches.

    ``docs_title`` holds only titled documents, so this reads a small index instead of filtering
    the body doclists of every match by column (which cost up to 100 ms on a common phrase).
    """
    where, params = filter_sql(f, fts=False)
    sql = (
        f"SELECT {COLUMNS}, NULL, NULL"
        " FROM docs_title CROSS JOIN docs d ON d.id = docs_title.rowid"
        f" WHERE docs_title MATCH ?{where} ORDER BY docs_title.rowid DESC LIMIT ?"
    )
    return sql, [match, *params, limit]


def matching_rowids_sql(
    match: str, rowids: Sequence[int], columns: str = "rowid"
) -> tuple[str, list[Any]]:
    """Which of ``rowids`` (not empty) match ``match`` (with ``columns``, e.g. their scores):
    one FTS5 scan bounded by their range.

    ``+rowid IN`` keeps the list out of FTS5's plan: given ``rowid IN (…)`` or ``rowid = ?`` per
    row, FTS5 filters once per row id and builds a prefix word's merged doclist each time (50
    rows, ``"the"*`` at 10 MB: 0.85 s instead of 10 ms; bench_relax's ``sentence`` class)."""
    marks = ",".join("?" * len(rowids))
    sql = (
        f"SELECT {columns} FROM docs_fts WHERE docs_fts MATCH ? AND rowid BETWEEN ? AND ?"
        f" AND +rowid IN ({marks})"
    )
    return sql, [match, min(rowids), max(rowids), *rowids]


def title_scan_sql(prefix: str, f: Filters, limit: int) -> tuple[str, list[Any]]:
    """Titled documents whose normalized title starts with ``prefix`` (the first keystroke)."""
    where, params = filter_sql(f, fts=False)
    sql = (
        f"SELECT {COLUMNS}, NULL, NULL FROM docs d"
        f" WHERE d.title_norm >= ? AND d.title_norm < ? AND d.title_norm != ''{where}"
        " ORDER BY d.updated_at DESC, d.doc_id LIMIT ?"
    )
    return sql, [prefix, prefix + "\U0010ffff", *params, limit]


def match_all_sql(f: Filters, after: tuple[int, str] | None, limit: int) -> tuple[str, list[Any]]:
    """Filter-only page: newest first, then doc id, resuming after ``(updated_at, doc_id)``."""
    where, params = filter_sql(f, fts=False)
    if after is not None:
        where += " AND (d.updated_at < ? OR (d.updated_at = ? AND d.doc_id > ?))"
        params += [after[0], after[0], after[1]]
    sql = (
        f"SELECT {COLUMNS}, NULL, NULL FROM docs d WHERE 1{where}"
        " ORDER BY d.updated_at DESC, d.doc_id LIMIT ?"
    )
    return sql, [*params, limit]


def match_all_count_sql(f: Filters, cap: int | None) -> tuple[str, list[Any]]:
    """How many documents the filters allow, counting at most ``cap`` (None: all)."""
    where, params = filter_sql(f, fts=False)
    if cap is None:
        return f"SELECT count(*) FROM docs d WHERE 1{where}", params
    inner = f"SELECT 1 FROM docs d WHERE 1{where} LIMIT ?"
    return f"SELECT count(*) FROM ({inner})", [*params, cap]


def tail_sql(
    match: str, f: Filters, *, skip_rowids: Sequence[int], skip_doc_ids: Sequence[str],
    after: tuple[int, str] | None, limit: int, offset: int = 0,
) -> tuple[str, list[Any]]:  # fmt: skip
    """Every match not in the ranked window, newest first then doc id (the order of every tier's
    ties), resuming after ``(updated_at, doc_id)`` or ``offset`` rows in: the rest of the answer,
    a page at a time, whatever its size (``engine.query.tail``). The window's row ids and the ids a
    live source replaced are left out here, so ``offset`` counts what the caller pages through.
    """
    where, params = filter_sql(f, fts=True)
    where += (
        " AND docs_fts.rowid NOT IN (SELECT value FROM json_each(?))"
        " AND d.doc_id NOT IN (SELECT value FROM json_each(?))"
    )
    params += [json.dumps(list(skip_rowids)), json.dumps(list(skip_doc_ids))]
    if after is not None:
        where += " AND (d.updated_at < ? OR (d.updated_at = ? AND d.doc_id > ?))"
        params += [after[0], after[0], after[1]]
    sql = (
        f"SELECT {COLUMNS}, NULL, NULL FROM docs_fts CROSS JOIN docs d ON d.id = docs_fts.rowid"
        f" WHERE docs_fts MATCH ?{where} ORDER BY d.updated_at DESC, d.doc_id LIMIT ? OFFSET ?"
    )
    return sql, [role_match(match, f.roles), *params, limit, offset]
