"""Where the documents a connection writes are handed on for their meaning vectors.

The optional semantic layer (``engine.semantic``, docs/semantic.md) keeps a vector beside each
document, written in the same transaction as its row. The index room cannot import it (it sits
above the index), so a writer connection is given a sink here and ``upsert_docs`` calls it with
the rows it inserted; a connection without one (every reader, and every writer when the extra
is not installed) pays one dictionary look-up per batch.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable, Sequence

import apsw

VectorRow = tuple[str, bytes, str]
"""``(doc_id, digest, text)`` of one inserted document: what its vector is made from and kept by."""

VectorSink = Callable[[apsw.Connection, Sequence[VectorRow]], None]
"""Writes the vectors of a batch of inserted documents, inside the caller's transaction."""

vector_sinks: weakref.WeakKeyDictionary[apsw.Connection, VectorSink] = weakref.WeakKeyDictionary()
"""The sink of each writer connection that has one (``engine.semantic.store.attach``)."""
