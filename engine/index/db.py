"""The disposable search index: schema, open check, recreate, connections (DESIGN §3).

``.ade/cache/search-index.db`` holds ``docs`` (one row a document), ``docs_fts`` (a
contentless-delete FTS5 table over ``body``, ``rank_title`` and the camelCase ``parts`` of
identifiers), ``docs_recent`` (the same over the newest ``RECENT_DOCS`` documents, with 2- and
3-character prefix indexes), ``docs_title`` (the same over titled documents only, so title matches
never walk the body doclists), ``sources`` (ingestion cursors) and ``meta``. The table shape was
chosen by measurement (benchmarks/RESULTS.md, issue 14.2): a document whose body can be derived
again from its transcript (a chat message, a terminal chunk: ``IndexDoc.source_span``) stores no
body, only where it came from; the others store it once, zlib-compressed, for snippets. The digest
leads with a fingerprint of the body, so a body re-derived for a snippet is checked before it is
shown (``engine.query.source_text``).

The open check (``engine.index.schema.check_open``) compares the file's DDL with what
``SCHEMA_SQL`` creates, so any schema change recreates an old file without a version bump.
Every connection from ``connect`` has ``ade_bm25_1`` (``engine.index.fts_rank``) registered.

Row ids are not arbitrary: ``doc_rowid`` packs ``updated_at`` (seconds) above a 10-bit slot, so
the FTS5 doclist order *is* recency order (to the second). The query path relies on
that for its bounded candidate window (``ORDER BY rowid DESC LIMIT n`` stops early) and for
``since:`` (a rowid range). Changing that layout needs a DDL change or a version bump, since the
open check cannot see it.

Write functions (``upsert_docs`` …) run inside a transaction the caller owns (``immediate``), so a
batch of documents and its source cursor commit together (RELIABILITY 2, 10, 12).
"""

from __future__ import annotations

import contextlib
import json
import os
import zlib
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import apsw
import msgspec

from engine.digests import blake2b
from engine.index import fts_rank
from engine.index.held_fts import held_rows
from engine.index.identifiers import identifier_parts
from engine.index.normalize import normalize_title_query
from engine.index.recent import (
    RECENT_DOCS,
    deferrals,
    fts_automerge,
    merge_fts,
    raise_recent_floor,
    recent_deferred,
    recent_floor,
)
from engine.index.rowids import RowidAllocator, doc_rowid, forget_all, forget_rowid
from engine.index.schema import (
    BUSY_TIMEOUT_MS,
    DAMAGE_ERRORS,
    SCHEMA_SQL,
    SEARCH_INDEX_SCHEMA_VERSION,
    TRANSIENT_ERRORS,
    WRITE_FAULT_ERRORS,
    check_open,
    recreate_in_place,
)
from engine.index.txn import immediate, meta_get, meta_set, scalar
from engine.logs import get_logger

log = get_logger(__name__)

__all__ = [
    "BUSY_TIMEOUT_MS",
    "QUICK_CHECK_RUNS_FTS5",
    "RECENT_DOCS",
    "SCHEMA_SQL",
    "SEARCH_INDEX_SCHEMA_VERSION",
    "IndexDoc",
    "OpenReport",
    "PreparedDocs",
    "SourceRow",
    "StoredBody",
    "body_fingerprint",
    "clear_index",
    "connect",
    "delete_docs",
    "delete_docs_by_source",
    "delete_docs_where_session_not_in",
    "delete_source",
    "doc_count",
    "doc_rowid",
    "docs_by_kind",
    "fetch_bodies",
    "file_identity",
    "fts_automerge",
    "get_source",
    "health_check",
    "immediate",
    "list_sources",
    "mark_for_reingest",
    "merge_fts",
    "meta_get",
    "meta_set",
    "open_index",
    "put_source",
    "recent_deferred",
    "recent_floor",
    "recreate_damaged",
    "scalar",
    "upsert_docs",
]

_ZLIB_LEVEL = 1
"""Level 1 compresses text ~3x at >100 MB/s; higher levels cost insert speed for a few %."""


class IndexDoc(msgspec.Struct, frozen=True):
    """One document as the ingester hands it to the index (DESIGN §3 table)."""

    doc_id: str
    kind: str
    title: str
    rank_title: str
    body: str
    updated_at: int
    session_id: str | None = None
    lane_id: str | None = None
    anchor: str | None = None
    source_key: str | None = None
    tool: str | None = None
    """The agent of a chat session's docs (``claude``, ``gemini``…), for the ``tool:`` filter."""
    source_span: tuple[int, int] | None = None
    """``(byte offset, byte length)`` in the plain transcript of ``source_key`` that ``body`` is
    derived from again for a snippet; the body is then indexed but not stored. None: stored."""


class SourceRow(msgspec.Struct):
    """Ingestion progress of one source key (a transcript, a PR, a lane's git log)."""

    key: str
    cursor: int = 0
    identity: str = "{}"
    size: int = 0
    last_run: int = 0
    state: str = "{}"


class OpenReport(msgspec.Struct, frozen=True):
    """What ``open_index`` found and did. ``recreated_reason`` is None when the file was usable."""

    path: Path
    recreated_reason: str | None
    identity: tuple[int, int] | None


def file_identity(path: Path) -> tuple[int, int] | None:
    """``(device, inode)`` of the index file, or None when it does not exist.

    A drain compares it with the identity it opened: a different value means the file was replaced
    and its connection writes into a ghost (RELIABILITY 13), so it must reopen.
    """
    try:
        st = os.stat(path)
    except FileNotFoundError:
        return None
    return (st.st_dev, st.st_ino)


PAGE_SIZE = 16384
"""Compressed bodies are ~2 KB: on 4 KB pages each spilled to a half-empty overflow page (+0.35x
of the text, measured); 16 KB pages hold them inline. Applies when the file is created."""


def connect(path: Path) -> apsw.Connection:
    """A new connection for the calling thread: WAL, busy timeout, ``synchronous=NORMAL``."""
    conn = apsw.Connection(str(path))
    # The busy timeout comes first: switching a new file to WAL takes a lock, and without a
    # timeout a second process doing the same fails at once (and used to look like damage).
    conn.set_busy_timeout(BUSY_TIMEOUT_MS)
    conn.pragma("page_size", PAGE_SIZE)  # a no-op on an existing database
    # What apsw.bestpractice's connection_wal/connection_busy_timeout do, without importing it:
    # it pulls in apsw.ext (~12 ms of every CLI start-up).
    with contextlib.suppress(apsw.ReadOnlyError):
        if not conn.readonly("main"):
            conn.pragma("journal_mode", "wal")
    conn.pragma("synchronous", "NORMAL")
    fts_rank.register(conn)
    return conn


def _ensure_cache_dir(path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    ignore = path.parent / ".gitignore"
    if path.parent.name == "cache" and not ignore.exists():
        ignore.write_text("*\n", encoding="utf-8")


def _delete_files(path: Path) -> None:
    for suffix in ("", "-wal", "-shm", "-journal"):
        with contextlib.suppress(FileNotFoundError):
            os.unlink(f"{path}{suffix}")


def open_index(path: Path) -> OpenReport:
    """Open or create the index at ``path``, recreating it when it is unusable (RELIABILITY 9).

    A sound SQLite file with the wrong schema is rebuilt in place under ``BEGIN IMMEDIATE`` so a
    second process holding it open follows along; only a file SQLite itself cannot read is deleted
    (with its ``-wal``/``-shm``) and created anew.

    Returns:
        The path, why it was recreated (None when it was fine or new), and its file identity.
    """
    _ensure_cache_dir(path)
    problem = None
    try:
        conn = connect(path)
    except TRANSIENT_ERRORS + WRITE_FAULT_ERRORS:
        raise  # a lock or the disk: retry later, never delete what it holds (issue 13.11)
    except apsw.Error as err:
        problem, sound = f"cannot open: {type(err).__name__}", False
    else:
        try:
            problem, sound = check_open(conn)
            if problem is not None and sound:
                recreate_in_place(conn)
        except TRANSIENT_ERRORS + WRITE_FAULT_ERRORS:
            raise  # busy or a full disk is not damage: retry later (never delete a live index)
        except apsw.Error as err:
            problem, sound = problem or f"recreate failed: {type(err).__name__}", False
        finally:
            conn.close()
    if problem is not None and not sound:
        _delete_files(path)
        conn = connect(path)
        try:
            recreate_in_place(conn)
        finally:
            conn.close()
    if problem == "new":
        problem = None
    return OpenReport(path=path, recreated_reason=problem, identity=file_identity(path))


def recreate_damaged(path: Path, damaged: tuple[int, int] | None = None) -> OpenReport:
    """Delete a damaged index (db, ``-wal``, ``-shm``) and create it empty (issue 13.9).

    Page damage deep in a table passes the open check (its tiny MATCH never reads that page), so
    whoever trips over ``CorruptError`` later calls this. Same guard as for an unreadable file:
    a lock held by another process is not damage, so the write lock is taken first and a busy
    file raises instead of being deleted under its writer. Another process that still has the
    old file open sees its inode change on its next drain or query and reopens.

    ``damaged``: the ``file_identity`` of the file found damaged. When the path holds another
    file by now (a second process recreated it first), that one is kept.
    """
    _ensure_cache_dir(path)
    if damaged is not None and file_identity(path) not in (damaged, None):
        return OpenReport(path=path, recreated_reason=None, identity=file_identity(path))
    try:
        conn = connect(path)
    except DAMAGE_ERRORS:
        conn = None
    if conn is not None:
        try:
            with contextlib.suppress(*DAMAGE_ERRORS):
                conn.execute("BEGIN IMMEDIATE")  # raises BusyError while another process writes
            if damaged is not None and file_identity(path) != damaged:
                # Replaced while we waited for the lock: ours is a ghost, the new file is fine.
                return OpenReport(path=path, recreated_reason=None, identity=file_identity(path))
            _delete_files(path)  # under the lock: no writer is halfway through a transaction
        finally:
            conn.close()  # before the new file exists: closing may unlink the old -wal by name
    _delete_files(path)
    conn = connect(path)
    try:
        recreate_in_place(conn)
    finally:
        conn.close()
    return OpenReport(path=path, recreated_reason="damaged", identity=file_identity(path))


FINGERPRINT_BYTES = 8
"""The digest's leading bytes: a fingerprint of the body alone. A retitle changes the stored
title but not the digest, so a re-derived body is checked against these bytes only."""


def body_fingerprint(body: str) -> bytes:
    """The body's fingerprint, as the digest of its document starts with it."""
    return blake2b(body.encode("utf-8"), digest_size=FINGERPRINT_BYTES).digest()


def _digest(doc: IndexDoc) -> bytes:
    # The body's own fingerprint, then the small fields as JSON (self-delimiting, no escaping
    # pass over the body, which was a visible build cost).
    fields = (doc.kind, doc.title, doc.rank_title, doc.updated_at, doc.session_id, doc.lane_id,
              doc.anchor, doc.source_key, doc.tool, doc.source_span)  # fmt: skip
    head = blake2b(json.dumps(fields).encode("utf-8"), digest_size=8).digest()
    return body_fingerprint(doc.body) + head


_Row = tuple[int, bool]
"""A stored document as the delete path needs it: row id, and whether it has a title row."""


def _existing(conn: apsw.Connection, doc_ids: list[str]) -> dict[str, tuple[_Row, bytes]]:
    """Row, title flag and digest of the stored documents among ``doc_ids``, in one statement."""
    rows: Any = conn.execute(
        "SELECT doc_id, id, rank_title != '', digest FROM docs"
        " WHERE doc_id IN (SELECT value FROM json_each(?))",
        (json.dumps(doc_ids),),
    )
    return {str(r[0]): ((int(r[1]), bool(r[2])), bytes(r[3])) for r in rows}


class _Derived(msgspec.Struct, frozen=True):
    """A document's computed column values: digest, compressed body, identifier parts."""

    digest: bytes
    body_z: bytes
    parts: str
    title_norm: str
    title_parts: str


def _derive(doc: IndexDoc, digest: bytes | None = None) -> _Derived:
    return _Derived(
        digest=_digest(doc) if digest is None else digest,
        body_z=b"" if doc.source_span else zlib.compress(doc.body.encode("utf-8"), _ZLIB_LEVEL),
        parts=identifier_parts(doc.rank_title, doc.body),
        title_norm=normalize_title_query(doc.rank_title) if doc.rank_title else "",
        title_parts=identifier_parts(doc.rank_title) if doc.rank_title else "",
    )


class PreparedDocs(list[IndexDoc]):
    """Documents whose derived column values (digest, zlib body, identifier parts) are computed
    when the batch is built, so ``upsert_docs`` holds the write lock only for SQLite work and the
    computing can run on another thread while an earlier batch commits (benchmarks/RESULTS.md).

    ``upsert_docs`` accepts it wherever it accepts documents; a document missing from it (or a
    plain list) is derived on the spot, so the index content is the same either way.
    """

    def __init__(
        self,
        docs: Iterable[IndexDoc] = (),
        derived: dict[int, tuple[IndexDoc, _Derived]] | None = None,
    ) -> None:
        super().__init__(docs)
        # Keyed by object id; the document itself is kept alongside so the id stays its own.
        self.derived = derived if derived is not None else {id(d): (d, _derive(d)) for d in self}

    def subset(self, docs: Iterable[IndexDoc]) -> PreparedDocs:
        """The given documents (of this batch or not), sharing what was already derived."""
        return PreparedDocs(docs, self.derived)

    def derive(self, doc: IndexDoc) -> _Derived:
        """The derived values of ``doc``: precomputed when it is the same object, else now."""
        hit = self.derived.get(id(doc))
        return hit[1] if hit is not None and hit[0] is doc else _derive(doc)


def upsert_docs(conn: apsw.Connection, docs: Iterable[IndexDoc]) -> None:
    """Insert or replace documents by doc id; unchanged documents are left untouched.

    Runs inside the caller's transaction; the ``docs`` row and its FTS rows always change together.
    The stored digests of the whole batch are read in one statement and the rows are written with
    ``executemany``. New rows are inserted in ascending rowid order: FTS5 flushes its pending-terms
    buffer whenever a rowid is not above the previous one, and per-document flushes made the index
    3x larger and 10x slower to build (measured, benchmarks/RESULTS.md). A ``PreparedDocs`` batch
    brings its digests, compressed bodies and identifier parts already computed.
    """
    prepared = docs if isinstance(docs, PreparedDocs) else None
    pending: dict[str, tuple[IndexDoc, _Derived | bytes]] = {}
    for doc in docs:
        # A later version in the batch wins.
        pending[doc.doc_id] = (doc, prepared.derive(doc) if prepared is not None else _digest(doc))
    if not pending:
        return
    stored = _existing(conn, list(pending))
    replaced: list[_Row] = []
    inserts: list[tuple[int, IndexDoc, _Derived | bytes]] = []
    for doc_id, (doc, derived) in pending.items():
        old = stored.get(doc_id)
        if old is not None:
            digest = derived.digest if isinstance(derived, _Derived) else derived
            if old[1] == digest:
                continue
            replaced.append(old[0])
        inserts.append((doc_rowid(doc.updated_at), doc, derived))
    _delete_rows(conn, replaced)
    inserts.sort(key=lambda item: (item[0], item[1].doc_id))
    alloc = RowidAllocator(conn)
    rows = [(alloc.take(wanted), doc, derived if isinstance(derived, _Derived) else _derive(doc, derived))
            for wanted, doc, derived in inserts]  # fmt: skip
    if rows:
        # The floor moves before the rows are written, so a row it leaves behind is never put
        # into the prefix-indexed table only to be deleted again; a first index holds its rows
        # back until it ends (``recent_deferred``; benchmarks/RESULTS.md, h-ingest2).
        deferral = deferrals.get(conn)
        floor = (deferral.hold(conn, rows) if deferral is not None
                 else raise_recent_floor(conn, [row[0] for row in rows]))  # fmt: skip
        _insert_rows(conn, rows, floor)


def _insert_rows(
    conn: apsw.Connection, rows: list[tuple[int, IndexDoc, _Derived]], floor: int
) -> None:
    conn.executemany(
        "INSERT INTO docs(id, doc_id, kind, title, rank_title, title_norm, body, updated_at,"
        " session_id, lane_id, anchor, source_key, digest, tool, src_offset, src_len)"
        " VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
        [(rowid, doc.doc_id, doc.kind, doc.title, doc.rank_title, d.title_norm, d.body_z,
          doc.updated_at, doc.session_id, doc.lane_id, doc.anchor, doc.source_key, d.digest,
          doc.tool, *(doc.source_span or (None, None)))
         for rowid, doc, d in rows],
    )  # fmt: skip
    fts_rows = [(rowid, doc.rank_title, doc.body, d.parts) for rowid, doc, d in rows]
    held = held_rows(conn)
    if held is not None:
        held.update((row[0], row) for row in fts_rows)
    else:
        conn.executemany("INSERT INTO docs_fts(rowid, rank_title, body, parts) VALUES (?,?,?,?)",
                         fts_rows)  # fmt: skip
    recent = [row for row in fts_rows if row[0] >= floor]
    if recent:
        conn.executemany(
            "INSERT INTO docs_recent(rowid, rank_title, body, parts) VALUES (?,?,?,?)", recent
        )
    titled = [(rowid, doc.rank_title, d.title_parts) for rowid, doc, d in rows if doc.rank_title]
    if titled:
        conn.executemany("INSERT INTO docs_title(rowid, rank_title, parts) VALUES (?,?,?)", titled)


def _delete_rows(conn: apsw.Connection, rows: Iterable[_Row]) -> int:
    count = 0
    floor = recent_floor(conn)
    deferral = deferrals.get(conn)
    held = held_rows(conn)
    for rowid, titled in rows:
        if deferral is not None:
            deferral.rows.pop(rowid, None)
        if held is None or held.pop(rowid, None) is None:
            # A held row is not in the table yet: deleting it there would leave a tombstone.
            conn.execute("DELETE FROM docs_fts WHERE rowid = ?", (rowid,))
        if rowid >= floor:
            conn.execute("DELETE FROM docs_recent WHERE rowid = ?", (rowid,))
        if titled:
            conn.execute("DELETE FROM docs_title WHERE rowid = ?", (rowid,))
        conn.execute("DELETE FROM docs WHERE id = ?", (rowid,))
        forget_rowid(conn, rowid)
        count += 1
    return count


def _rows(conn: apsw.Connection, sql: str, params: Any) -> list[_Row]:
    return [(int(r[0]), bool(r[1])) for r in conn.execute(sql, params)]


def delete_docs(conn: apsw.Connection, doc_ids: Iterable[str]) -> None:
    """Delete documents by doc id (missing ids are ignored). Inside the caller's transaction."""
    for doc_id in doc_ids:
        _delete_rows(conn, _rows(conn, "SELECT id, rank_title != '' FROM docs WHERE doc_id = ?",
                                 (doc_id,)))  # fmt: skip


def delete_docs_by_source(conn: apsw.Connection, source_key: str) -> None:
    """Delete every document one source produced (a reindex from zero, a vanished PR)."""
    _delete_rows(conn, _rows(conn, "SELECT id, rank_title != '' FROM docs WHERE source_key = ?",
                             (source_key,)))  # fmt: skip


def delete_docs_where_session_not_in(
    conn: apsw.Connection, kind: str, session_ids: Iterable[str]
) -> int:
    """Delete docs of ``kind`` whose session no longer exists (backfill reconcile).

    Returns:
        How many documents were deleted.
    """
    rows = _rows(
        conn,
        "SELECT id, rank_title != '' FROM docs WHERE kind = ? AND session_id IS NOT NULL"
        " AND session_id NOT IN (SELECT value FROM json_each(?))",
        (kind, json.dumps(sorted(set(session_ids)))),
    )
    return _delete_rows(conn, rows)


class StoredBody(msgspec.Struct, frozen=True):
    """What the index keeps of one document's body: the text, or where to derive it again."""

    text: str | None
    """The stored body; None when it is to be re-derived from ``source_key`` at ``span``."""
    kind: str
    source_key: str | None
    span: tuple[int, int] | None
    fingerprint: bytes
    """``body_fingerprint`` of the indexed body (a re-derived text must match it)."""


def fetch_bodies(conn: apsw.Connection, rowids: Iterable[int]) -> dict[int, StoredBody]:
    """The bodies (or their places) of the given rows: only the page being shown needs them."""
    rows: Any = conn.execute(
        "SELECT id, body, kind, source_key, src_offset, src_len, digest FROM docs"
        " WHERE id IN (SELECT value FROM json_each(?))",
        (json.dumps(list(rowids)),),
    )
    out: dict[int, StoredBody] = {}
    for rowid, body, kind, key, offset, length, digest in rows:
        sourced = offset is not None and length is not None
        out[int(rowid)] = StoredBody(
            text=None if sourced else zlib.decompress(body).decode("utf-8"),
            kind=str(kind),
            source_key=key,
            span=(int(offset), int(length)) if sourced else None,
            fingerprint=bytes(digest)[:FINGERPRINT_BYTES],
        )
    return out


REINGEST_STAT_PREFIX = "stat:"
"""The change-check row of a session source (``engine.ingest.reconcile.STAT_PREFIX``)."""

MANIFEST_KEY = "reconcile_manifest"
"""The ``meta`` row holding the digest of the last fully drained reconcile (the warm-run
manifest, ``engine.ingest.manifest``): while it matches, a catch-up skips the reconcile."""


def mark_for_reingest(conn: apsw.Connection, source_key: str) -> bool:
    """Make the next catch-up re-ingest ``source_key`` from zero (its docs rebuilt).

    Called from the query path when a re-derived snippet text no longer matches what was
    indexed (the transcript was rewritten, compressed or is gone): the cursor's fingerprint is
    cleared, so the next pass resets the source, its change-check row is dropped and the warm-run
    manifest forgotten, so the next catch-up reconciles and queues it (the file itself may be
    unchanged: a manifest that still matched would skip it). Never waits for the write lock (a query must not stall behind a
    drain); returns False when the mark could not be written now.
    """
    conn.set_busy_timeout(0)
    try:
        with immediate(conn):
            conn.execute("UPDATE sources SET identity = '{}' WHERE key = ?", (source_key,))
            conn.execute("DELETE FROM sources WHERE key = ?",
                         (REINGEST_STAT_PREFIX + source_key,))  # fmt: skip
            conn.execute("DELETE FROM meta WHERE key = ?", (MANIFEST_KEY,))
    except apsw.Error:
        return False
    finally:
        conn.set_busy_timeout(BUSY_TIMEOUT_MS)
    return True


def _source_row(r: Any) -> SourceRow:
    return SourceRow(str(r[0]), int(r[1]), str(r[2]), int(r[3]), int(r[4]), str(r[5]))


def get_source(conn: apsw.Connection, key: str) -> SourceRow | None:
    """The stored progress of ``key``, or None when it was never ingested."""
    row = conn.execute(
        "SELECT key, cursor, identity, size, last_run, state FROM sources WHERE key = ?", (key,)
    ).fetchone()
    return None if row is None else _source_row(row)


def put_source(conn: apsw.Connection, row: SourceRow) -> None:
    """Insert or replace one source row (inside the transaction that wrote its docs)."""
    conn.execute(
        "INSERT OR REPLACE INTO sources(key, cursor, identity, size, last_run, state)"
        " VALUES (?,?,?,?,?,?)",
        (row.key, row.cursor, row.identity, row.size, row.last_run, row.state),
    )


def delete_source(conn: apsw.Connection, key: str) -> None:
    """Forget one source's progress (the next pass starts from zero)."""
    conn.execute("DELETE FROM sources WHERE key = ?", (key,))


def list_sources(conn: apsw.Connection) -> list[SourceRow]:
    """Every source row, by key."""
    rows = conn.execute(
        "SELECT key, cursor, identity, size, last_run, state FROM sources ORDER BY key"
    ).fetchall()
    return [_source_row(r) for r in rows]


def clear_index(conn: apsw.Connection) -> None:
    """Wipe every document, FTS row, source and meta value in one transaction; keep the schema.

    Rebuild uses this instead of deleting the file, so another process holding the file open keeps
    writing into the same file rather than a ghost (RELIABILITY 13).
    """
    with immediate(conn):
        forget_all(conn)
        if (held := held_rows(conn)) is not None:
            held.clear()
        conn.execute("DELETE FROM docs")
        conn.execute("INSERT INTO docs_fts(docs_fts) VALUES ('delete-all')")
        conn.execute("INSERT INTO docs_recent(docs_recent) VALUES ('delete-all')")
        conn.execute("INSERT INTO docs_title(docs_title) VALUES ('delete-all')")
        conn.execute("DELETE FROM sources")
        conn.execute("DELETE FROM meta")


QUICK_CHECK_RUNS_FTS5 = tuple(int(p) for p in apsw.sqlite_lib_version().split(".")[:2]) >= (3, 44)
"""SQLite 3.44 made ``PRAGMA quick_check`` run every virtual table's integrity method, FTS5's
``integrity-check`` included (a damaged segment is reported as ``fts5: corruption found ...``).
Running the three FTS5 checks again doubled the health check (~0.6 of ~1.3 s on a 30 MB index,
issue 14.5), and the writer thread indexes nothing while it runs."""


def health_check(conn: apsw.Connection) -> list[str]:
    """Problems found by ``quick_check`` (FTS5's ``integrity-check`` included) and row counts.

    Every statement reads one snapshot (a read transaction around them all): on a reader
    racing the writer (issue 14.5), a commit between two counts must not look like drift.

    Returns:
        One line per problem; empty when the index is healthy. Anything else means rebuild.

    Raises:
        apsw.InterruptError: the check was interrupted (the service is closing).
        apsw.BusyError, apsw.LockedError: a lock, which says nothing about the file.
    """
    problems: list[str] = []
    own = not conn.in_transaction
    try:
        if own:
            conn.execute("BEGIN")
        rows = [str(r[0]) for r in conn.execute("PRAGMA quick_check")]
        if rows != ["ok"]:
            problems.extend(f"quick_check: {r}" for r in rows)
        if not QUICK_CHECK_RUNS_FTS5:
            conn.execute("INSERT INTO docs_fts(docs_fts, rank) VALUES ('integrity-check', 1)")
            conn.execute("INSERT INTO docs_title(docs_title, rank) VALUES ('integrity-check', 1)")
            conn.execute("INSERT INTO docs_recent(docs_recent, rank) VALUES ('integrity-check', 1)")
        docs = scalar(conn, "SELECT count(*) FROM docs")
        fts = scalar(conn, "SELECT count(*) FROM docs_fts")
        if docs != fts:
            problems.append(f"row count drift: {docs} docs, {fts} FTS rows")
        floor = recent_floor(conn)
        held = scalar(conn, "SELECT count(*) FROM docs WHERE id >= ?", (floor,))
        recent = scalar(conn, "SELECT count(*) FROM docs_recent")
        if held != recent:
            problems.append(f"recent row drift: {held} docs above the floor, {recent} rows")
        titled = scalar(conn, "SELECT count(*) FROM docs WHERE rank_title != ''")
        titles = scalar(conn, "SELECT count(*) FROM docs_title")
        if titled != titles:
            problems.append(f"title row drift: {titled} titled docs, {titles} title rows")
    except (apsw.InterruptError, *TRANSIENT_ERRORS):
        raise
    except apsw.Error as err:
        problems.append(f"{type(err).__name__}: {err}")
    finally:
        if own and conn.in_transaction:
            with contextlib.suppress(apsw.Error):
                conn.execute("ROLLBACK")  # read only: nothing to keep
    return problems


def doc_count(conn: apsw.Connection) -> int:
    """How many documents the index holds."""
    return scalar(conn, "SELECT count(*) FROM docs")


def docs_by_kind(conn: apsw.Connection) -> dict[str, int]:
    """Document count per kind (kinds with no document are absent)."""
    rows = conn.execute("SELECT kind, count(*) FROM docs GROUP BY kind ORDER BY kind")
    return {str(k): int(n) for k, n in rows}
