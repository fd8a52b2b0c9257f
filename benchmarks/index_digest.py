"""A digest of an index's content, to check that a speed change stored exactly the same index.

    python -m benchmarks.index_digest INDEX [INDEX ...]

Hashes (sha256, first 12 hex digits each): every ``docs`` column in row-id order; every
``docs_recent`` row id and the ``recent_floor``; every source row's cursor, identity, size and
state (not ``last_run``, a clock reading); and the row ids and ``round(bm25(), 6)`` of MATCH
queries on each FTS table. Two indexes with equal digests answer every query the same way.
"""

from __future__ import annotations

import hashlib
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import apsw

MATCHES = {
    "docs_fts": ("error", "the", "parts:test", "th*"),
    "docs_recent": ("th*", "e*", "conn*", "parts:ab*"),
    "docs_title": ("chat",),
}
"""The MATCH queries hashed per FTS table (what the writer and planner benchmarks hashed)."""


def _hash(rows: Iterable[Any]) -> str:
    digest = hashlib.sha256()
    for row in rows:
        digest.update(repr(tuple(row)).encode())
    return digest.hexdigest()[:12]


def index_digest(path: Path) -> dict[str, str | int]:
    """The digests of the index at ``path`` (opened read-only)."""
    conn = apsw.Connection(str(path), flags=apsw.SQLITE_OPEN_READONLY)
    try:
        found: dict[str, str | int] = {
            "docs_rows": len(list(conn.execute("SELECT id FROM docs"))),
            "docs": _hash(conn.execute("SELECT * FROM docs ORDER BY id")),
            "recent": _hash(conn.execute("SELECT rowid FROM docs_recent ORDER BY rowid")),
            "floor": _hash(conn.execute("SELECT value FROM meta WHERE key = 'recent_floor'")),
            "sources": _hash(
                conn.execute("SELECT key, cursor, identity, size, state FROM sources ORDER BY key")
            ),
        }
        for table, queries in MATCHES.items():
            rows = []
            for query in queries:
                rows += conn.execute(
                    f"SELECT ?, rowid, round(bm25({table}), 6) FROM {table}"
                    f" WHERE {table} MATCH ? ORDER BY rowid", (query, query)).fetchall()  # fmt: skip
            found[f"match_{table}"] = _hash(rows)
        return found
    finally:
        conn.close()


def main() -> None:
    for name in sys.argv[1:]:
        print(name, index_digest(Path(name)), flush=True)


if __name__ == "__main__":
    main()
