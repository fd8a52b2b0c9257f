"""``ade_top_keys``: the best rows of a one-phrase query's window, kept by an aggregate.

A one-phrase query scores its newest matches with one ``ade_bm25_1_key`` key a row
(``engine.index.fts_rank``) and ranks the best ``BM25_WINDOW`` of them. SQLite's
``ORDER BY key DESC, rid DESC LIMIT 1000`` inserted every scored row into an ephemeral b-tree
(~17 M of a very common word's ~106 M instructions at 10 MB,
benchmarks/journal/2026-12-07-native-scorer.md), and the window was materialized again to be
counted. ``ade_top_keys(key, rid, k)`` keeps the best ``k`` in a heap instead and returns them,
best first in that same order, as one blob (``ROW``: the key's 16 bytes, then the row id as 8
big-endian bytes), which ``rows_of`` reads in one call.

Where a C compiler was at install the compiled extension that holds ``ade_bm25_1_key``
registers this function too (``native/top_keys.c``); ``fts_rank.register`` registers this
module's twin only where it did not load. The two give the same bytes
(``tests/engine/index/test_top_keys.py``).
"""

# warm path: a warm `ade search` imports this; keep its imports light (ARCHITECTURE: The warm path)

from __future__ import annotations

import heapq
import struct
from collections.abc import Callable, Iterator

import apsw

FUNCTION_NAME = "ade_top_keys"

KEY_BYTES = 16
"""An ``ade_bm25_1_key`` key's length (two big-endian doubles)."""

MAX_K = 100_000
"""The most rows one call keeps (the C twin's heap is allocated for ``k`` up front)."""

ROW = struct.Struct(">ddq")
"""One kept row in the blob: the key (read as its two scores, as ``fts_rank.scores_of_key``
reads it: exact-token, split-identifier) and the row id."""

BAD_KEY = f"{FUNCTION_NAME} takes 16-byte keys"
BAD_ROWID = f"{FUNCTION_NAME} takes integer row ids"
BAD_K = f"{FUNCTION_NAME} keeps from 1 to {MAX_K} rows"

rows_of: Callable[[bytes], Iterator[tuple[float, float, int]]] = ROW.iter_unpack
"""The ``(exact, split, rowid)`` of each row an ``ade_top_keys`` blob holds, best first."""


class TopKeys:
    """The Python twin of the aggregate, one instance per statement run (``apsw``'s factory)."""

    __slots__ = ("k", "rows")

    def __init__(self) -> None:
        self.rows: list[tuple[bytes, int]] = []
        self.k = 0

    def step(self, *args: apsw.SQLiteValue) -> None:
        """Keep the row ``(key, rowid, k)`` (the heap is built once, at the end: a list append
        is the cheapest Python step).

        Raises:
            ValueError: ``k`` is not an integer from 1 to ``MAX_K``, ``key`` not a 16-byte
                blob, ``rowid`` not an integer (the C twin's refusals, the same text).
        """
        key, rowid, k = args  # registered with three arguments
        if not self.k:
            if type(k) is not int or not 1 <= k <= MAX_K:
                raise ValueError(BAD_K)
            self.k = k
        if type(key) is not bytes or len(key) != KEY_BYTES:
            raise ValueError(BAD_KEY)
        if type(rowid) is not int:
            raise ValueError(BAD_ROWID)
        self.rows.append((key, rowid))

    def final(self) -> bytes:
        """The best ``k`` rows, best first: the greater key (bytes compare as ``memcmp``), then
        the greater row id."""
        best = heapq.nlargest(self.k, self.rows) if self.k else []
        return b"".join(key + rowid.to_bytes(8, "big", signed=True) for key, rowid in best)


def register_twin(conn: apsw.Connection) -> None:
    """Make ``ade_top_keys(key, rid, k)`` callable on ``conn`` (where the compiled one is not)."""
    conn.create_aggregate_function(FUNCTION_NAME, TopKeys, 3)
