"""An index file with free pages, and what it answers, for the vacuum tests."""

from __future__ import annotations

import random

import apsw

from engine.index.db import delete_docs, immediate, scalar, upsert_docs
from tests.engine.index.index_helpers import NOW_MS, doc

TERMS = ("alpha", "bravo", "charlie", "delta", "echo")
"""Words every kept document holds a few of, so each answers a different set."""


def fill_and_free(conn: apsw.Connection, docs: int = 120, seed: int = 7) -> int:
    """Write ``docs`` documents of random words in passes, delete two thirds of them and merge
    the FTS tables: the deleted bodies' and replaced segments' pages go to the free list.
    Returns the free pages."""
    rng = random.Random(seed)
    for start in range(0, docs, 40):
        batch = []
        for i in range(start, start + 40):
            words = [f"{rng.getrandbits(40):x}" for _ in range(1000)]
            words += [TERMS[j] for j in range(len(TERMS)) if i % (j + 2) == 0]
            batch.append(doc(f"chat:s:{i}", " ".join(words), updated_at=NOW_MS + i * 1000))
        with immediate(conn):
            upsert_docs(conn, batch)
    with immediate(conn):
        delete_docs(conn, [f"chat:s:{i}" for i in range(docs) if i % 3])
    with immediate(conn):
        for table in ("docs_fts", "docs_recent", "docs_title"):
            conn.execute(f"INSERT INTO {table}({table}) VALUES ('optimize')")
    return scalar(conn, "PRAGMA freelist_count")


def answers(conn: apsw.Connection) -> dict[str, list[int] | list[str]]:
    """The rows each term matches in every FTS table, and the documents' ids and digests."""
    out: dict[str, list[int] | list[str]] = {}
    for table in ("docs_fts", "docs_recent"):
        for term in (*TERMS, "al*", "ch*"):
            rows = conn.execute(f"SELECT rowid FROM {table} WHERE {table} MATCH ? ORDER BY rowid",
                                (term,))  # fmt: skip
            out[f"{table}:{term}"] = [int(r[0]) for r in rows]
    out["docs"] = [int(r[0]) for r in conn.execute("SELECT id FROM docs ORDER BY id")]
    out["digests"] = [str(r[0]) for r in conn.execute("SELECT hex(digest) FROM docs ORDER BY id")]
    return out
