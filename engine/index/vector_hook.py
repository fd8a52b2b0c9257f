"""Where the documents a connection writes are handed on for their meaning vectors.

The optional semantic layer (``engine.semantic``, docs/semantic.md) keeps a vector beside each
document. The index room cannot import it (it sits above the index), so a writer connection is
given a sink here and ``upsert_docs`` calls it with the rows it inserted; the sink only hands
them over (the vectors are made on a thread of their own). A connection without one (every
reader, and every writer when the extra is not installed) pays one look-up per batch.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable, Sequence

import apsw

VectorRow = tuple[str, bytes, str]
"""``(doc_id, digest, text)`` of one inserted document: what its vector is made from and kept by."""

VectorSink = Callable[[apsw.Connection, Sequence[VectorRow]], None]
"""Takes the texts of a batch of inserted documents for their vectors; returns at once."""

vector_sinks: weakref.WeakKeyDictionary[apsw.Connection, VectorSink] = weakref.WeakKeyDictionary()
"""The sink of each writer connection that has one (``engine.semantic.store.attach``)."""
