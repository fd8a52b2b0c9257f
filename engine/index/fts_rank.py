"""``ade_bm25_1``: FTS5's ``bm25()`` without its IDF factor, for queries of a single phrase.

FTS5's ``bm25()`` computes, before the first row, the IDF of every phrase by walking *every* row
that matches it (``xQueryPhrase``). For a common phrase such as ``"of the"`` that walk checks
positions in ~all documents and cost ~75 ms of a 90 ms query, although the query only scores the
newest window of matches (benchmarks/journal/waves-1-to-3.md). With one phrase the IDF is one positive constant
that multiplies every score, so the order is the same without it: this function returns the rest of
the BM25 formula (same ``k1``, ``b``, column weights and document length as FTS5), and costs only
the rows it is called on. Queries with more than one phrase keep ``bm25()``: there the relative
IDFs matter.
"""

# warm path: a warm `ade search` imports this; keep its imports light (ARCHITECTURE: The warm path)

from __future__ import annotations

import apsw

FUNCTION_NAME = "ade_bm25_1"
"""The SQL name the query path calls (registered on every connection by ``index_db.connect``)."""

K1 = 1.2
"""FTS5's ``bm25()`` constant (fts5_aux.c); kept equal so the order is exactly FTS5's."""

B = 0.75
"""FTS5's ``bm25()`` length-normalization constant (fts5_aux.c)."""


def bm25_one_phrase(api: apsw.FTS5ExtensionApi, *weights: apsw.SQLiteValue) -> apsw.SQLiteValue:
    """BM25 of the current row for the query's only phrase, IDF left out (lower is better).

    The ranking calls this twice per row (exact and split weights): the row's per-column hit
    counts and length factor are kept in the cursor's auxiliary data (shared by every call of
    this function on one cursor), so the second call only weighs them; the average document
    length is read once per cursor. A Python call per row is this scorer's whole cost, and
    each FTS5 API call inside it a good part of that (the start-up budget).

    Args:
        api: the FTS5 extension API positioned on the row.
        weights: one weight per column, as for ``bm25()``.

    Raises:
        ValueError: the query has more than one phrase (use ``bm25()`` there) besides the
            role word every search's MATCH names (``engine.index.sql.role_match``), which is
            the second phrase and never scored here.
    """
    state: _RowState | None = api.aux_data
    rowid = api.rowid
    if state is None:
        if api.phrase_count not in (1, 2):  # the second: the role word (sql.role_match)
            raise ValueError(f"{FUNCTION_NAME} scores one-phrase queries only")
        state = api.aux_data = _RowState(api.column_total_size(-1) / max(api.row_count, 1))
    if state.rowid != rowid:
        state.rowid = rowid
        state.counts = [len(offsets) for offsets in api.phrase_locations(0)]
        state.norm = None
    freq = 0.0
    for column, hits in enumerate(state.counts):
        if hits:
            weight = weights[column] if column < len(weights) else 1.0
            freq += float(weight) * hits  # type: ignore[arg-type]
    if not freq:
        return -0.0
    if state.norm is None:
        state.norm = 1 - B + B * api.column_size(-1) / state.avgdl
    return -(freq * (K1 + 1) / (freq + K1 * state.norm))


class _RowState:
    """What ``bm25_one_phrase`` keeps between its calls on one cursor."""

    __slots__ = ("avgdl", "counts", "norm", "rowid")

    def __init__(self, avgdl: float) -> None:
        self.avgdl = avgdl
        self.rowid: int | None = None
        self.counts: list[int] = []
        self.norm: float | None = None


def register(conn: apsw.Connection) -> None:
    """Make ``ade_bm25_1(docs_fts, w…)`` callable on ``conn``."""
    conn.register_fts5_function(FUNCTION_NAME, bm25_one_phrase)
