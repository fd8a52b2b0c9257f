"""Meaning vectors in the index: made off the writer's thread, scanned for a query.

A vector is kept by ``doc_id`` with the document's digest and the model's id; a query joins
both, so a document rewritten since (another digest), deleted (no row) or embedded by another
model is never matched by a stale vector — no delete path of the index has to know about
vectors.

Embedding costs more than indexing the same text (a BPE tokenizer and a mean over every token's
vector, against FTS5's C tokenizer), so it is never done inside the writer's transaction: the
writer's hook (``engine.index.vector_hook``) hands each batch's texts to ``VectorWriter``, a
thread that embeds them and writes them in transactions of its own. The first index is as fast
as without the extra and the vectors follow it (benchmarks/RESULTS.md). A process that exits
before its thread caught up leaves documents without a vector; ``fill_missing`` embeds those
when a semantic query comes (a bounded number a query), so the set converges.

The scan is brute force over int8 vectors with numpy (benchmarks/bench_semantic.py measured it
against sqlite-vec at our sizes); the matrix is cached per file and kept while the file's
``data_version`` and change counter stand still, so a warm daemon reads it once.

Cosines are measured from the index's mean vector (``CENTER_MIN``): a static model's text vector
is a mean of token vectors, so every document shares one large direction (common words, the
project's own topic; the mean's length is 0.6-0.7 of a unit vector here), which lifts every
cosine alike and drowns what tells one document from another. Taking it out of each vector and
of the query's is the "all-but-the-top" correction of static embeddings (Mu & Viswanath, ICLR
2018); measured in benchmarks/journal/2026-12-07-paraphrase.md.
"""

from __future__ import annotations

import queue
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import apsw

from engine.basics.logs import get_logger
from engine.index.db import connect, immediate, scalar
from engine.index.documents import fetch_bodies
from engine.index.sql import Filters, filter_sql, notices_sql
from engine.index.vector_hook import VectorRow
from engine.semantic.model import MAX_TEXT_CHARS, MODEL_ID, embed

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

    from engine.project.model import Project

log = get_logger(__name__)

QUIET_S = 5.0
"""The vector thread starts on handed-over documents once the writer has handed nothing over for
this long: the first index (and any burst of writes) runs with both cores to itself, the
vectors follow. One second was too short: a loaded machine's batch of passes takes longer, and
the thread then ran beside the writer (a first index 2x slower, benchmarks/journal/2026-12-06.md); the
vectors follow (a semantic query that needs them flushes at once: ``VectorWriter.wait``)."""

WAIT_S = 2.0
"""How long a semantic query waits for the vectors its own process handed over: an ``ade search``
that has just indexed gets them; a daemon in the middle of a first index answers meanwhile with
what is there (``fill_missing`` adds the newest)."""

FILL_PER_QUERY = 256
"""Documents without a vector embedded by one semantic query (~0.1-0.3 s here): what a process
that exited early left behind is caught up over a few queries, never in one long one."""


def write_vectors(conn: apsw.Connection, rows: Sequence[VectorRow]) -> None:
    """Embed ``rows`` and store their vectors in one transaction on ``conn`` (a writer)."""
    if not rows:
        return
    vectors = embed([text for _, _, text in rows])
    with immediate(conn):
        conn.executemany(
            "INSERT OR REPLACE INTO doc_vectors(doc_id, digest, model, vec) VALUES (?,?,?,?)",
            [(doc_id, digest, MODEL_ID, vectors[i].tobytes())
             for i, (doc_id, digest, _) in enumerate(rows)],
        )  # fmt: skip


class VectorWriter:
    """One thread that embeds handed-over documents and writes their vectors.

    Each batch opens its own connection to the file it names (the writer's file may be replaced
    meanwhile; a vector written into a replaced file is simply never joined).
    """

    def __init__(self) -> None:
        self._queue: queue.Queue[tuple[str, list[VectorRow]]] = queue.Queue()
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None
        self._last_put = 0.0
        self._flush = threading.Event()

    def put(self, path: str, rows: Sequence[VectorRow]) -> None:
        """Queue ``rows`` of the index at ``path``; returns at once."""
        with self._lock:
            if self._thread is None or not self._thread.is_alive():
                self._thread = threading.Thread(target=self._run, name="ade-vectors", daemon=True)
                self._thread.start()
            self._last_put = time.monotonic()
        self._queue.put((path, [(d, g, text[:MAX_TEXT_CHARS]) for d, g, text in rows]))

    def wait(self, timeout: float | None = None) -> bool:
        """Write every queued batch now and block until done, or ``timeout`` seconds have
        passed; returns whether all were written (a semantic query waits a bounded time)."""
        self._flush.set()
        try:
            with self._queue.all_tasks_done:
                return self._queue.all_tasks_done.wait_for(
                    lambda: not self._queue.unfinished_tasks, timeout
                )
        finally:
            self._flush.clear()

    def _quiet(self) -> None:
        """Return once the writer has been quiet for ``QUIET_S``, or a flush is asked for."""
        while not self._flush.is_set():
            left = QUIET_S - (time.monotonic() - self._last_put)
            if left <= 0:
                return
            self._flush.wait(left)

    def _run(self) -> None:
        while True:
            path, rows = self._queue.get()
            try:
                self._quiet()
                conn = connect(Path(path))
                try:
                    write_vectors(conn, rows)
                finally:
                    conn.close()
            except (apsw.Error, OSError):
                # Busy past the timeout, a file gone: these documents get their vectors from
                # fill_missing at the next semantic query.
                log.debug("writing %d vectors failed", len(rows), exc_info=True)
            finally:
                self._queue.task_done()


writer = VectorWriter()
"""The process's one vector thread (the model it uses is the process's one model too)."""


def hand_over(conn: apsw.Connection, rows: Sequence[VectorRow]) -> None:
    """The index writer's vector sink (``engine.index.vector_hook``): ``rows`` go to ``writer``."""
    writer.put(conn.filename, rows)


def fill_missing(conn: apsw.Connection, project: Project, limit: int = FILL_PER_QUERY) -> int:
    """Embed up to ``limit`` documents that have no current vector, newest first; returns how
    many. ``conn`` reads (chat and terminal bodies are re-derived as for snippets); the vectors
    are written on a connection of their own."""
    from engine.query.source_text import snippet_texts

    if not _matrix(conn).missing:
        return 0
    rows = list(conn.execute(
        "SELECT d.id, d.doc_id, d.digest, d.title FROM docs d LEFT JOIN doc_vectors v"
        " ON v.doc_id = d.doc_id AND v.digest = d.digest AND v.model = ?"
        " WHERE v.doc_id IS NULL ORDER BY d.id DESC LIMIT ?",
        (MODEL_ID, limit),
    ))  # fmt: skip
    if not rows:
        return 0
    bodies = snippet_texts(conn, project, fetch_bodies(conn, [r[0] for r in rows]))
    vector_rows = [(str(doc_id), bytes(digest), f"{title}\n{bodies.get(rowid, '')}")
                   for rowid, doc_id, digest, title in rows]  # fmt: skip
    out = connect(Path(conn.filename))
    try:
        write_vectors(out, vector_rows)
    finally:
        out.close()
    return len(rows)


CENTER_MIN = 50
"""Vectors are centred on the index's mean once it holds this many: the mean of a handful of
documents describes them, not what every text of the project shares."""


@dataclass(frozen=True, slots=True)
class _Matrix:
    key: tuple[int, int]
    rowids: npt.NDArray[np.int64]
    vectors: npt.NDArray[np.float32]
    """The int8 vectors widened once when the cache is filled: a query is then one BLAS
    matrix-vector product (widening on every query was most of its scan)."""
    missing: bool
    """Some document has no current vector (``fill_missing`` has work)."""
    mean: npt.NDArray[np.float32] | None
    """The mean the vectors were centred on (and re-normalized after), None under
    ``CENTER_MIN``: a query's vector is centred on it too (``_query_vector``)."""


_cache: dict[str, _Matrix] = {}
_cache_lock = threading.Lock()


def _matrix(conn: apsw.Connection) -> _Matrix:
    """Every current vector of the file and its document's row id (cached, see the docstring)."""
    import numpy as np

    key = (scalar(conn, "PRAGMA data_version", []), conn.total_changes())
    name = conn.filename
    with _cache_lock:
        held = _cache.get(name)
    if held is not None and held.key == key:
        return held
    rowids: list[int] = []
    blobs: list[bytes] = []
    for rowid, vec in conn.execute(
        "SELECT d.id, v.vec FROM doc_vectors v JOIN docs d"
        " ON d.doc_id = v.doc_id AND d.digest = v.digest WHERE v.model = ?",
        (MODEL_ID,),
    ):
        rowids.append(rowid)
        blobs.append(vec)
    width = len(blobs[0]) if blobs else 0
    raw = np.frombuffer(b"".join(blobs), dtype=np.int8).reshape(len(blobs), width)
    vectors = raw.astype(np.float32) / np.float32(127.0)
    mean = None
    if len(vectors) >= CENTER_MIN:
        mean = vectors.mean(axis=0)
        vectors = _unit(vectors - mean)
    docs = scalar(conn, "SELECT count(*) FROM docs", [])
    matrix = _Matrix(key, np.array(rowids, dtype=np.int64), vectors, docs > len(rowids), mean)
    with _cache_lock:
        _cache[name] = matrix
    return matrix


def _unit(vectors: npt.NDArray[np.float32]) -> npt.NDArray[np.float32]:
    """Each row of ``vectors`` at unit length (a zero row stays zero)."""
    import numpy as np

    norms = np.linalg.norm(vectors, axis=-1, keepdims=True)
    out: npt.NDArray[np.float32] = vectors / np.maximum(norms, np.float32(1e-12))
    return out


def _query_vector(matrix: _Matrix, query: str) -> npt.NDArray[np.float32]:
    """``query``'s unit vector, centred on the matrix's mean as its vectors are."""
    import numpy as np

    q: npt.NDArray[np.float32] = embed([query])[0].astype(np.float32) / np.float32(127.0)
    return q if matrix.mean is None else _unit(q - matrix.mean)


def nearest(conn: apsw.Connection, query: str, f: Filters, k: int) -> list[tuple[int, float]]:
    """The ``k`` documents nearest in meaning to ``query`` among those ``f`` allows, as
    ``(row id, cosine)``, nearest first (ties: lower row id first, so the order is stable)."""
    import numpy as np

    matrix = _matrix(conn)
    if not len(matrix.rowids) or not query.strip():
        return []
    q = _query_vector(matrix, query)
    scores = matrix.vectors @ q
    if f == Filters():  # only the injected notices are left out: their few ids, not all others
        sql, params = notices_sql()
        ids = [r[0] for r in conn.execute(sql, params)]
        allowed = ~np.isin(matrix.rowids, np.array(ids, dtype=np.int64))
    else:
        where, params = filter_sql(f, fts=False)
        ids = [r[0] for r in conn.execute(f"SELECT d.id FROM docs d WHERE 1{where}", params)]
        allowed = np.isin(matrix.rowids, np.array(ids, dtype=np.int64))
    scores = np.where(allowed, scores, np.float32(-np.inf))
    k = min(k, len(scores))
    top = np.argpartition(-scores, k - 1)[:k] if k < len(scores) else np.arange(len(scores))
    top = top[np.lexsort((matrix.rowids[top], -scores[top]))]
    return [(int(matrix.rowids[i]), float(scores[i])) for i in top if np.isfinite(scores[i])]


def cosines(conn: apsw.Connection, query: str, rowids: Sequence[int]) -> dict[int, float]:
    """The cosine of each of ``rowids``' current vectors to ``query`` (``--explain``'s semantic
    factor); a row without a current vector is left out."""

    matrix = _matrix(conn)
    if not len(matrix.rowids) or not query.strip() or not rowids:
        return {}
    q = _query_vector(matrix, query)
    where = {int(rowid): i for i, rowid in enumerate(matrix.rowids)}
    return {r: float(matrix.vectors[where[r]] @ q) for r in rowids if r in where}
