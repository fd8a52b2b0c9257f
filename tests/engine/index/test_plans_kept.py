"""A query's statements are compiled once per connection, not once per query: SQLite (3.47 on)
would otherwise read a bound ``LIMIT ?`` or ``column = ?`` while planning and compile the cached
statement again each time that parameter is bound anew, and FTS5's own lookups into its segments
with it (``engine.index.db.plan_without_bound_values``). The authorizer is called whenever SQLite
compiles a statement, so a query that compiled nothing calls it not at all."""

from __future__ import annotations

from pathlib import Path

import apsw
from index_helpers import NOW, NOW_MS, doc, insert

from engine.index.db import connect
from engine.project.model import Project
from engine.query.run import run_query
from engine.types import SearchQueryArgs

WORDS = ("alpha", "bravo", "charlie", "delta")


def _filled(conn: apsw.Connection) -> None:
    insert(conn, [doc(f"chat:s:{i}", f"{word} note {i}", session_id="s", updated_at=NOW_MS - i)
                  for i, word in enumerate(WORDS * 3)])  # fmt: skip


def _compiles_per_query(conn: apsw.Connection, project: Project) -> list[int]:
    """How many times SQLite compiled a statement while each word was asked, each word asked
    once before (its statements cached by then)."""
    compiled: list[int] = []

    def authorize(*_args: object) -> int:
        compiled[-1] += 1
        return apsw.SQLITE_OK

    for word in WORDS:  # every statement of the query path prepared and cached once
        run_query(conn, SearchQueryArgs(query=word), project=project, now=NOW)
    conn.authorizer = authorize  # setting it expires the cached statements: one more pass
    compiled.append(0)
    for word in WORDS:
        run_query(conn, SearchQueryArgs(query=word), project=project, now=NOW)
    for word in reversed(WORDS):  # each query binds other values than the one before
        compiled.append(0)
        result = run_query(conn, SearchQueryArgs(query=word), project=project, now=NOW)
        assert result.total == 3
    return compiled[1:]


def test_a_query_compiles_no_statement_again_for_new_words(
    conn: apsw.Connection, project: Project
) -> None:
    _filled(conn)
    assert _compiles_per_query(conn, project) == [0] * len(WORDS)


def test_without_it_sqlite_compiles_the_statements_of_every_query_again(
    conn: apsw.Connection, index_path: Path, project: Project
) -> None:
    """The same queries on a connection that plans with bound values (the setting off before it
    prepared anything: a statement once compiled so keeps recompiling): what the setting saves."""
    _filled(conn)
    other = connect(index_path)
    try:
        other.config(apsw.SQLITE_DBCONFIG_ENABLE_QPSG, 0)
        assert all(count > 0 for count in _compiles_per_query(other, project))
    finally:
        other.close()
