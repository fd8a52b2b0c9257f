"""Meaning vectors in the index: written beside each document, scanned for a query.

A vector is kept by ``doc_id`` with the document's digest and the model's id; a query joins
both, so a document rewritten since (another digest), deleted (no row) or embedded by another
model is never matched by a stale vector — no delete path of the index has to know about
vectors. The scan is brute force over int8 vectors with numpy (benchmarks/bench_semantic.py
measured it against sqlite-vec at our sizes); the matrix is cached per file and kept while the
file's ``data_version`` and change counter stand still, so a warm daemon reads it once.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import apsw

from engine.index.db import scalar
from engine.index.sql import Filters, filter_sql
from engine.index.vector_hook import VectorRow, vector_sinks
from engine.semantic.model import MODEL_ID, embed

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt


def write_vectors(conn: apsw.Connection, rows: Sequence[VectorRow]) -> None:
    """Embed and store the vectors of ``rows``, inside the caller's transaction."""
    if not rows:
        return
    vectors = embed([text for _, _, text in rows])
    conn.executemany(
        "INSERT OR REPLACE INTO doc_vectors(doc_id, digest, model, vec) VALUES (?,?,?,?)",
        [(doc_id, digest, MODEL_ID, vectors[i].tobytes())
         for i, (doc_id, digest, _) in enumerate(rows)],
    )  # fmt: skip


def attach(conn: apsw.Connection) -> None:
    """Make ``conn`` (a writer) store a vector for every document it inserts from now on."""
    vector_sinks[conn] = write_vectors


def detach(conn: apsw.Connection) -> None:
    """Stop writing vectors on ``conn`` (a baseline measurement, a test)."""
    vector_sinks.pop(conn, None)


@dataclass(frozen=True, slots=True)
class _Matrix:
    key: tuple[int, int]
    rowids: npt.NDArray[np.int64]
    vectors: npt.NDArray[np.int8]


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
    vectors = np.frombuffer(b"".join(blobs), dtype=np.int8).reshape(len(blobs), width)
    matrix = _Matrix(key, np.array(rowids, dtype=np.int64), vectors)
    with _cache_lock:
        _cache[name] = matrix
    return matrix


def nearest(conn: apsw.Connection, query: str, f: Filters, k: int) -> list[tuple[int, float]]:
    """The ``k`` documents nearest in meaning to ``query`` among those ``f`` allows, as
    ``(row id, cosine)``, nearest first (ties: lower row id first, so the order is stable)."""
    import numpy as np

    matrix = _matrix(conn)
    if not len(matrix.rowids) or not query.strip():
        return []
    q = embed([query])[0].astype(np.int32)
    scores = matrix.vectors.astype(np.int32) @ q
    where, params = filter_sql(f, fts=False)
    allowed: Any = None
    if where:
        ids = [r[0] for r in conn.execute(f"SELECT d.id FROM docs d WHERE 1{where}", params)]
        allowed = np.isin(matrix.rowids, np.array(ids, dtype=np.int64))
        scores = np.where(allowed, scores, np.iinfo(np.int32).min)
    order = np.lexsort((matrix.rowids, -scores))[:k]
    limit = 127 * 127
    return [(int(matrix.rowids[i]), float(scores[i]) / limit) for i in order
            if allowed is None or allowed[i]]  # fmt: skip
