"""Where the documents the writer inserts are handed on for their meaning vectors.

The optional semantic layer (``engine.semantic``, docs/semantic.md) keeps a vector beside each
document. The index room cannot import it (it sits above the index), so the drain gives the
writer (``engine.index.writer.IndexWriter``) a sink, and ``upsert_docs`` calls it with the rows
it inserted; the sink only hands them over (the vectors are made on a thread of their own).
A writer without one (the extra is not installed) hands nothing over.
"""

# warm path: a warm `ade search` imports this; keep its imports light (ARCHITECTURE: The warm path)

from __future__ import annotations

from collections.abc import Callable, Sequence

import apsw

VectorRow = tuple[str, bytes, str]
"""``(doc_id, digest, text)`` of one inserted document: what its vector is made from and kept by."""

VectorSink = Callable[[apsw.Connection, Sequence[VectorRow]], None]
"""Takes the texts of a batch of inserted documents for their vectors; returns at once."""
