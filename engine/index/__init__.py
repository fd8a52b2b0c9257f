"""The index room: the SQLite FTS5 file, its schema, its SQL, and the identifier parts column."""
