"""DDL of the search index, its open check, and in-place recreation (RELIABILITY 9, 13).

Kept apart from ``engine.index.db`` so the schema can be read (and measured by the benchmarks)
without the write functions.
"""

# warm path: a warm `ade search` imports this; keep its imports light (ARCHITECTURE: The warm path)

from __future__ import annotations

import contextlib
import functools

import apsw

from engine.index.errors import DAMAGE_ERRORS as DAMAGE_ERRORS
from engine.index.errors import TRANSIENT_ERRORS as TRANSIENT_ERRORS
from engine.index.errors import WRITE_FAULT_ERRORS as WRITE_FAULT_ERRORS

SEARCH_INDEX_SCHEMA_VERSION = 12
"""Bumped whenever what is stored changes; a mismatch recreates the index (never migrated).
5: ``docs.tool`` (the agent that wrote a chat: the ``tool:`` filter and the hit's ``tool``).
6: titles, command lines and subjects are redacted; an older index holds them raw.
7: chat messages and terminal chunks store no body (``src_offset``/``src_len`` say where their
snippet text is re-derived from), the digest leads with a body fingerprint, ``docs_fts`` has no
prefix index and ``docs_recent`` answers 2-3 character prefixes (the index-size budget).
8: the file is made with ``auto_vacuum = INCREMENTAL`` and gives its free pages back after a first
index (``engine.index.vacuum``); an older file cannot (``NONE``): recreated, the ``VACUUM``
after its tables are dropped converts it.
9: a shell command's document carries its ``exit_code``, ``cwd`` and ``took_ms`` (the ``exit:``,
``cwd:`` and ``took:`` filters, docs/terminal.md).
10: ``commit_lanes``: every lane whose history holds a commit (``lane:`` keeps shared commits).
11: ``doc_vectors``: the semantic extra's vectors (``engine.semantic``); a 10 built before it lacks
the table.
12: ``docs.role`` (``system``: a notice an agent injected, found only by ``role:system``) and
its partial index ``docs_by_role``."""

SLOT_BITS = 10
"""Low rowid bits: 1024 slots per second of ``updated_at`` (``rowid >> 10`` is seconds). Small on
purpose: FTS5 stores rowid deltas as varints in every doclist entry, and ms << 20 rowids doubled
the inverted index."""

BUSY_TIMEOUT_MS = 5000
"""Two processes (CLI and daemon) may write one file; 5 s rides out a long drain slice."""

FTS_TOKENIZER = "unicode61 remove_diacritics 2"
"""``unicode61`` splits on ``_ . : - /`` (identifiers, paths, ``ABC-123``); diacritics folded."""

FTS_PREFIX = "2 3"
"""Prefix indexes for 2- and 3-character prefixes, on ``docs_recent`` only: the palette's second
and third keystrokes read one stored doclist instead of merging thousands. Without them (full
corpus) a 2-character prefix took 144/230 ms p50/p95 and ``the*`` 140 ms; over every document
they cost 0.83x of the text (benchmarks/journal/waves-1-to-3.md), so only the newest documents carry them."""

FTS_OPTIONS = f"content='', contentless_delete=1, tokenize='{FTS_TOKENIZER}'"
"""Contentless-delete: the text is stored at most once (compressed, in ``docs``), never twice."""

RECENT_FTS_OPTIONS = f"{FTS_OPTIONS}, prefix='{FTS_PREFIX}'"
"""``docs_recent``: the same columns as ``docs_fts`` over every document at or above the
``recent_floor`` row id (meta), with the short prefix indexes (``engine.index.recent.RECENT_DOCS``)."""

TITLE_FTS_OPTIONS = f"content='', contentless_delete=1, tokenize='{FTS_TOKENIZER}'"
"""The title table holds only titled documents (sessions, PRs, commits, branches): tiny, so no
prefix index is worth its writes."""

EXPECTED_TABLES = frozenset(
    {
        "docs",
        "docs_fts",
        "docs_recent",
        "docs_title",
        "sources",
        "meta",
        "doc_vectors",
        "commit_lanes",
    }
)

SCHEMA_SQL = f"""
CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;
CREATE TABLE docs(
    id INTEGER PRIMARY KEY,
    doc_id TEXT NOT NULL UNIQUE,
    kind TEXT NOT NULL,
    title TEXT NOT NULL,
    rank_title TEXT NOT NULL,
    title_norm TEXT NOT NULL,
    body BLOB NOT NULL,
    updated_at INTEGER NOT NULL,
    session_id TEXT,
    lane_id TEXT,
    anchor TEXT,
    source_key TEXT,
    digest BLOB NOT NULL,
    tool TEXT,
    src_offset INTEGER,
    src_len INTEGER,
    exit_code INTEGER,
    cwd TEXT,
    took_ms INTEGER,
    role TEXT
);
CREATE INDEX docs_by_source ON docs(source_key) WHERE source_key IS NOT NULL;
CREATE INDEX docs_by_session ON docs(session_id, kind) WHERE session_id IS NOT NULL;
CREATE INDEX docs_by_recency ON docs(updated_at DESC, doc_id);
CREATE INDEX docs_by_title ON docs(title_norm) WHERE title_norm != '';
CREATE INDEX docs_by_role ON docs(role) WHERE role IS NOT NULL;
CREATE VIRTUAL TABLE docs_fts USING fts5(body, rank_title, parts, {FTS_OPTIONS});
CREATE VIRTUAL TABLE docs_recent USING fts5(body, rank_title, parts, {RECENT_FTS_OPTIONS});
CREATE VIRTUAL TABLE docs_title USING fts5(rank_title, parts, {TITLE_FTS_OPTIONS});
CREATE TABLE doc_vectors(
    doc_id TEXT PRIMARY KEY,
    digest BLOB NOT NULL,
    model TEXT NOT NULL,
    vec BLOB NOT NULL
) WITHOUT ROWID;
CREATE TABLE commit_lanes(
    sha TEXT NOT NULL,
    lane_id TEXT NOT NULL,
    PRIMARY KEY (sha, lane_id)
) WITHOUT ROWID;
CREATE TABLE sources(
    key TEXT PRIMARY KEY,
    cursor INTEGER NOT NULL,
    identity TEXT NOT NULL,
    size INTEGER NOT NULL,
    last_run INTEGER NOT NULL,
    state TEXT NOT NULL
) WITHOUT ROWID;
PRAGMA user_version = {SEARCH_INDEX_SCHEMA_VERSION};
"""
"""The whole schema; ``PRAGMA user_version`` records its version."""


def _schema_objects(conn: apsw.Connection) -> set[tuple[str, str, str]]:
    """``(type, name, sql)`` of every object we create; FTS5 shadow tables are left out (they
    follow from their virtual table's DDL and may differ between SQLite versions)."""
    rows = conn.execute(
        "SELECT type, name, sql FROM sqlite_schema WHERE sql IS NOT NULL"
        " AND name NOT LIKE 'sqlite_%' AND name NOT LIKE 'docs\\_fts\\_%' ESCAPE '\\'"
        " AND name NOT LIKE 'docs\\_title\\_%' ESCAPE '\\'"
        " AND name NOT LIKE 'docs\\_recent\\_%' ESCAPE '\\'"
    )
    return {(str(t), str(n), str(q)) for t, n, q in rows}


@functools.cache
def declared_schema() -> frozenset[tuple[str, str, str]]:
    """The objects ``SCHEMA_SQL`` declares, as SQLite stores them: each ``CREATE`` statement's
    text without its semicolon (SQLite keeps a statement as written, ``sqlite_schema`` docs).

    Read from the text, not a database: the open check of every command compares a file with
    this first (``expected_schema``'s in-memory database is ~1.4 ms of a warm start-up, the
    start-up budget), and asks the probe only when the two differ, so a SQLite that stored the text some
    other way costs that probe, never a recreated index.
    """
    objects: set[tuple[str, str, str]] = set()
    for statement in SCHEMA_SQL.split(";\n"):
        sql = statement.strip()
        words = sql.split(maxsplit=4)
        if words[:3] == ["CREATE", "VIRTUAL", "TABLE"]:
            objects.add(("table", words[3], sql))
        elif words[:2] in (["CREATE", "TABLE"], ["CREATE", "INDEX"]):
            objects.add((words[1].lower(), words[2].split("(")[0], sql))
    return frozenset(objects)


@functools.cache
def expected_schema() -> frozenset[tuple[str, str, str]]:
    """The objects ``SCHEMA_SQL`` creates, read back from an in-memory database (once a process).

    The open check compares a file's schema with this, so any DDL change (a column, an FTS5
    option, an index) recreates an old index even when ``user_version`` was not bumped.
    """
    mem = apsw.Connection(":memory:")
    try:
        mem.execute(SCHEMA_SQL)
        return frozenset(_schema_objects(mem))
    finally:
        mem.close()


def _user_tables(conn: apsw.Connection) -> set[str]:
    rows = conn.execute(
        "SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%'"
    )
    return {str(r[0]) for r in rows}


def _is_sound(conn: apsw.Connection) -> bool:
    """Whether SQLite can read the file as a database at all (so it may be rebuilt in place)."""
    try:
        rows = [str(r[0]) for r in conn.execute("PRAGMA quick_check")]
    except TRANSIENT_ERRORS:
        raise
    except apsw.Error:
        return False
    return rows == ["ok"]


def check_open(conn: apsw.Connection) -> tuple[str | None, bool]:
    """Read the schema and run a tiny MATCH: a garbage file only fails at its first statement.

    Returns:
        ``(problem, sound)``: problem is None when the index is usable, ``"new"`` for an empty
        database; ``sound`` says whether SQLite can read the file (rebuild in place) or not
        (delete and recreate).
    """
    try:
        version = int(conn.pragma("user_version"))
        tables = _user_tables(conn)
        if version == 0 and not tables:
            return "new", True
        if version != SEARCH_INDEX_SCHEMA_VERSION:
            return f"schema version {version}, expected {SEARCH_INDEX_SCHEMA_VERSION}", True
        missing = EXPECTED_TABLES - tables
        if missing:
            return f"missing tables: {', '.join(sorted(missing))}", True
        found = _schema_objects(conn)
        changed = set() if found == declared_schema() else expected_schema() ^ found
        if changed:
            names = sorted({name for _, name, _ in changed})
            return f"schema changed: {', '.join(names)}", True
        conn.execute("SELECT rowid FROM docs_fts WHERE docs_fts MATCH '\"ade\"' LIMIT 1").fetchall()
        conn.execute("SELECT id, body FROM docs ORDER BY id DESC LIMIT 1").fetchall()
    except TRANSIENT_ERRORS:
        raise
    except (apsw.NotADBError, apsw.CorruptError) as err:
        return f"unreadable index ({type(err).__name__})", _is_sound(conn)
    except apsw.Error as err:
        return f"broken schema ({type(err).__name__}: {err})", _is_sound(conn)
    return None, True


def _held_nothing(conn: apsw.Connection) -> bool:
    """Whether the file has no schema object and no free page: nothing written yet to clear.
    Read before the drops: the new schema reuses the pages they free, so the free list after it
    says nothing of the text those pages still hold."""
    objects = conn.execute("SELECT count(*) FROM sqlite_schema").fetchone()
    free = conn.execute("PRAGMA freelist_count").fetchone()
    return objects == (0,) and free == (0,)


def recreate_in_place(conn: apsw.Connection, *, vacuum: bool = True) -> None:
    """Drop every table and create the schema, all under one ``BEGIN IMMEDIATE``.

    Another process holding the file open sees the new schema on its next statement and keeps
    writing into this very file, which deleting the file would not give (RELIABILITY 13).
    """
    conn.execute("BEGIN IMMEDIATE")
    try:
        if check_open(conn)[0] is None:
            # Another process created (or repaired) the schema while we waited for the write
            # lock: dropping its fresh tables now would pull them from under its statements.
            conn.execute("COMMIT")
            return
        # A new file (no object, no free page) holds nothing the VACUUM below would clear.
        empty = _held_nothing(conn)
        virtual = conn.execute(
            "SELECT name FROM sqlite_schema WHERE type = 'table' AND sql LIKE 'CREATE VIRTUAL%'"
        ).fetchall()
        for (name,) in virtual:
            conn.execute(f'DROP TABLE IF EXISTS "{name}"')
        for kind in ("view", "trigger", "table"):
            rows = conn.execute(
                "SELECT name FROM sqlite_schema WHERE type = ? AND name NOT LIKE 'sqlite_%'",
                (kind,),
            ).fetchall()
            for (name,) in rows:
                conn.execute(f'DROP {kind.upper()} IF EXISTS "{name}"')
        conn.execute(SCHEMA_SQL)
    except BaseException:
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        raise
    conn.execute("COMMIT")
    # Dropped tables leave their pages, text and all, in the file's free list: an index recreated
    # because it held unredacted titles must not keep them. Best effort (another process may hold
    # a read snapshot): the empty schema is a few pages, so this costs next to nothing. It also
    # turns an old file's ``auto_vacuum = NONE`` into ``INCREMENTAL`` (``engine.index.vacuum``).
    from engine.index.vacuum import convert_vacuum, incremental  # deferred: only a recreate

    with contextlib.suppress(apsw.Error):
        if empty and (not vacuum or incremental(conn)):
            # Nothing was dropped (a new file) and the mode is right already: the ``VACUUM``
            # and checkpoint would only sync a file that holds no document (a first index's
            # wall, benchmarks/journal/2026-12-08-first-index-small.md).
            return
        convert_vacuum(conn, enabled=vacuum)
        conn.pragma("wal_checkpoint(TRUNCATE)")
