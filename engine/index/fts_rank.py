"""``ade_bm25_1_key``: FTS5's ``bm25()`` without its IDF factor, for queries of a single phrase.

FTS5's ``bm25()`` computes, before the first row, the IDF of every phrase by walking *every* row
that matches it (``xQueryPhrase``). For a common phrase such as ``"of the"`` that walk checks
positions in ~all documents and cost ~75 ms of a 90 ms query, although the query only scores the
newest window of matches (benchmarks/journal/waves-1-to-3.md). With one phrase the IDF is one positive constant
that multiplies every score, so the order is the same without it: this function returns the rest of
the BM25 formula (same ``k1``, ``b``, column weights and document length as FTS5), and costs only
the rows it is called on. Queries with more than one phrase keep ``bm25()``: there the relative
IDFs matter.

It is a Python call per scored row, so one call gives both of the ranking's scores (exact-token
and split-identifier) as one key that SQLite sorts as it would sort the two scores: a second call
per row for the split score was a fifth of a phrase query's CPU at 100 MB
(benchmarks/journal/2026-12-07-phrase-prefix-100.md).

Where a C compiler was at install, ``setup.py`` builds the same function in C
(``native/fts_rank_key.c``, a SQLite loadable extension): ``register`` loads it, and registers
this Python twin only where it is not there. The two give the same key, byte for byte
(``tests/engine/index/test_fts_rank_native.py``), and every one-phrase query is scored with the
key on every install (``engine.query.candidates.scores_without_idf``): the compiled one costs a
fraction of a ``bm25()`` call, the twin is what an install without a compiler pays for the same
answers.
"""

# warm path: a warm `ade search` imports this; keep its imports light (ARCHITECTURE: The warm path)

from __future__ import annotations

import importlib.machinery
import struct
from collections.abc import Callable
from pathlib import Path

import apsw

from engine.index import top_keys

FUNCTION_NAME = "ade_bm25_1_key"
"""The SQL name the query path calls (registered on every connection by ``index_db.connect``)."""

K1 = 1.2
"""FTS5's ``bm25()`` constant (fts5_aux.c); kept equal so the order is exactly FTS5's."""

B = 0.75
"""FTS5's ``bm25()`` length-normalization constant (fts5_aux.c)."""

EXACT_WEIGHTS = (1.0, 2.0, 0.0)
"""BM25 weights (body, rank_title, parts) for exact-token relevance: title twice the body
(``engine.index.sql.EXACT_WEIGHTS`` is written from these)."""

SPLIT_WEIGHTS = (0.0, 0.0, 1.0)
"""BM25 weights for split-identifier relevance: the ``parts`` column only (a tie-breaker)."""

_K1_PLUS_1 = K1 + 1

_KEY = struct.Struct(">dd")
"""The two scores as big-endian doubles. Both are negative or ``-0.0`` (lower is better), whose
bits grow with their magnitude: the key's bytes compare (``memcmp``, SQLite's order of blobs) as
the pair ``(exact, split)`` compares, reversed — ``ORDER BY key DESC`` is ``ORDER BY exact,
split``, ties included (equal scores, equal bytes)."""

_NO_HIT = _KEY.pack(-0.0, -0.0)


def bm25_one_phrase_key(api: apsw.FTS5ExtensionApi, *weights: apsw.SQLiteValue) -> bytes:
    """Both BM25 scores of the current row for the query's only phrase, IDF left out, as one
    key (``scores_of_key`` reads it; ``ORDER BY key DESC`` ranks best first).

    Args:
        api: the FTS5 extension API positioned on the row.
        weights: optionally first the FTS table's own name (the compiled twin then reads the
            row's length from its ``%_docsize`` itself; ignored here), then the exact-token
            score's weight per column, then the split score's (six for
            ``docs_fts``'s three columns), as for two ``bm25()`` calls; none negative. None:
            the ranking's (``EXACT_WEIGHTS``, ``SPLIT_WEIGHTS``), and no argument to convert
            per row.

    Raises:
        ValueError: the query has more than one phrase (use ``bm25()`` there) besides the
            role word every search's MATCH names (``engine.index.sql.role_match``), which is
            the second phrase and never scored here; or the weights are not two per column,
            or one is negative (the key's order needs scores at or below zero).
    """
    state: _CursorState | None = api.aux_data
    if state is None:
        state = api.aux_data = _CursorState(api, weights)
    pairs = state.pairs
    exact = split = 0.0
    columns = api.phrase_columns(0)
    if len(columns) == 1 and state.inst_are_hits:
        # The usual row: the phrase in one column, and its instances the row's only ones.
        hits = api.inst_count
        we, ws = pairs[columns[0]]
        exact += we * hits
        split += ws * hits
    else:
        # Column by column, in order, as bm25() adds them (the same float sums).
        for column in columns:
            hits = len(api.phrase_column_offsets(0, column))
            we, ws = pairs[column]
            exact += we * hits
            split += ws * hits
    if not (exact or split):
        return _NO_HIT
    norm = K1 * (1 - B + B * api.column_size(-1) / state.avgdl)
    return _KEY.pack(
        -(exact * _K1_PLUS_1 / (exact + norm)) if exact else -0.0,
        -(split * _K1_PLUS_1 / (split + norm)) if split else -0.0,
    )


scores_of_key: Callable[[bytes], tuple[float, float]] = _KEY.unpack
"""The (exact-token, split-identifier) scores an ``ade_bm25_1_key`` key holds (the unpacking
itself: a window decodes 1,000 keys, and a Python call around it cost as much again)."""


class _CursorState:
    """What ``bm25_one_phrase_key`` keeps between its calls on one cursor: the average document
    length, each column's (exact, split) weights as floats, and whether a row's instances are
    all the phrase's."""

    __slots__ = ("avgdl", "inst_are_hits", "pairs")

    def __init__(self, api: apsw.FTS5ExtensionApi, weights: tuple[apsw.SQLiteValue, ...]) -> None:
        if api.phrase_count not in (1, 2):  # the second: the role word (sql.role_match)
            raise ValueError(f"{FUNCTION_NAME} scores one-phrase queries only")
        columns = api.column_count
        if weights and type(weights[0]) is str:
            weights = weights[1:]  # the table's name, for the compiled twin (``score_expressions``)
        # Numbers only (as stored: no text read as one), as the compiled twin takes them.
        numbers = all(type(w) is int or type(w) is float for w in weights)
        floats = [float(w) for w in weights or (*EXACT_WEIGHTS, *SPLIT_WEIGHTS)] if numbers else []  # type: ignore[arg-type]
        if len(floats) != 2 * columns or min(floats) < 0:
            raise ValueError(f"{FUNCTION_NAME} takes two non-negative weights per column")
        self.pairs = list(zip(floats[:columns], floats[columns:], strict=True))
        self.avgdl = api.column_total_size(-1) / max(api.row_count, 1)
        # The role word is NOT'ed (no instance in any matching row) or AND'ed (``role:system``:
        # in every matching row, so in this first one too): ``inst_count`` counts the phrase's
        # hits alone unless the role word has some here.
        self.inst_are_hits = api.phrase_count == 1 or not api.phrase_columns(1)


COMPILED_PATH = Path(__file__).with_name(
    "_fts_rank_key" + importlib.machinery.EXTENSION_SUFFIXES[0]
)
"""The compiled twin (``native/fts_rank_key.c``), where ``setup.py`` built it: a SQLite loadable
extension, not a Python module (it has no ``PyInit``)."""

_ENTRY_POINT = "sqlite3_adeftsrank_v3_init"
"""The extension's entry point, numbered by how the query path calls it (v2: the table's name as
first argument; v3: it registers ``ade_top_keys`` too). An editable install does not rebuild its C on ``git pull``: a ``.so`` built
from an older source lacks this name, so it does not load and the Python twin answers, instead
of a scorer that refuses (or misreads) the arguments of the newer SQL."""

_BUILT = COMPILED_PATH.exists()

use_compiled = True
"""False: ``register`` registers the Python twin even where the compiled one built, and
``compiled`` says so (tests compare the two; nothing else sets it)."""

_compiled_loads: bool | None = None
"""Whether this process's SQLite loaded the compiled twin (None: not tried yet). A SQLite that
refuses loadable extensions refuses them on every connection: tried once."""


def compiled() -> bool:
    """Whether ``register`` gives connections the compiled scorer. Every install scores a
    one-phrase query with the key (``engine.query.candidates.scores_without_idf``); this only
    decides whether the SQL passes the table's name (``engine.index.sql.score_expressions``), which
    the compiled scorer reads ``%_docsize`` with."""
    return use_compiled and _BUILT and _compiled_loads is not False


def register(conn: apsw.Connection) -> None:
    """Make ``ade_bm25_1_key(docs_fts[, w…])`` and ``ade_top_keys`` (``engine.index.top_keys``)
    callable on ``conn``: the compiled twins where they load, else the Python ones."""
    global _compiled_loads
    if compiled():
        try:
            conn.enable_load_extension(True)
            try:
                conn.load_extension(str(COMPILED_PATH), _ENTRY_POINT)
            finally:
                conn.enable_load_extension(False)  # no SQL of ours loads anything
        except apsw.Error:
            _compiled_loads = False
        else:
            _compiled_loads = True
            return
    conn.register_fts5_function(FUNCTION_NAME, bm25_one_phrase_key)
    top_keys.register_twin(conn)  # the extension registers the compiled ``ade_top_keys``
