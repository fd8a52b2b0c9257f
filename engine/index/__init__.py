"""The index room: the SQLite FTS5 file, its schema, its SQL, and the identifier parts column."""

# warm path: a warm `ade search` imports this; keep its imports light (ARCHITECTURE: The warm path)
