"""The documents table and its FTS rows: a batch written, deleted, its bodies read (DESIGN §3).

The table shape was chosen by measurement (benchmarks/journal/waves-1-to-3.md, "Index size"): a document whose
body can be derived again from its transcript (a chat message, a terminal chunk:
``IndexDoc.source_span``) stores no body, only where it came from; the others store it once,
zlib-compressed, for snippets. The digest leads with a fingerprint of the body, so a body
re-derived for a snippet is checked before it is shown (``engine.query.source_text``).

Row ids are not arbitrary: ``doc_rowid`` packs ``updated_at`` (seconds) above a 10-bit slot, so
the FTS5 doclist order *is* recency order (to the second). The query path relies on
that for its bounded candidate window (``ORDER BY rowid DESC LIMIT n`` stops early) and for
``since:`` (a rowid range). Changing that layout needs a DDL change or a version bump, since the
open check cannot see it.

Write functions (``upsert_docs`` …) run inside a transaction the caller owns (``immediate``), so a
batch of documents and its source cursor commit together (RELIABILITY 2, 10, 12). What they do
besides writing the tables is what they are handed (``WriteTargets``, the writer's:
``engine.index.writer.IndexWriter``); without it they write straight into the tables.
"""

# warm path: a warm `ade search` imports this; keep its imports light (ARCHITECTURE: The warm path)

from __future__ import annotations

import json
import zlib
from collections.abc import Iterable
from typing import Any

import apsw
import msgspec

from engine.basics.digests import blake2b
from engine.index.first_index import RecentDeferral
from engine.index.identifiers import identifier_parts
from engine.index.normalize import normalize_title_query
from engine.index.recent import FtsRow, raise_recent_floor, recent_floor
from engine.index.rowids import KnownRuns, RowidAllocator, doc_rowid
from engine.index.vector_hook import VectorSink
from engine.kinds import ROLE_TOKEN, SYSTEM_ROLE

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
    exit_code: int | None = None
    """A shell command's exit status (``exit:``); None for every other document."""
    cwd: str | None = None
    """The folder a shell command ran in (``cwd:``), when its shell said."""
    took_ms: int | None = None
    """How long a shell command ran (``took:``), when its start was recorded."""
    role: str | None = None
    """``system`` for a chat notice the agent injected (``role:system``); None otherwise."""


FINGERPRINT_BYTES = 8
"""The digest's leading bytes: a fingerprint of the body alone. A retitle changes the stored
title but not the digest, so a re-derived body is checked against these bytes only."""


def body_fingerprint(body: str) -> bytes:
    """The body's fingerprint, as the digest of its document starts with it."""
    return blake2b(body.encode("utf-8"), digest_size=FINGERPRINT_BYTES).digest()


_MAKE_ENCODER: Any = getattr(json.encoder, "c_make_encoder", None)
_FIELDS_JSON: Any = _MAKE_ENCODER and _MAKE_ENCODER(
    None, json.JSONEncoder().default, json.encoder.encode_basestring_ascii, None, ": ", ", ",
    False, False, True)  # fmt: skip
"""``json.dumps`` of a document's small fields, as pieces, without the encoder ``json.dumps``
builds a call (two thirds of its cost on a tuple of a dozen fields): the same text, byte for
byte (``tests/engine/index/test_digest_fields.py``), so stored digests do not change."""


def _fields_json(fields: tuple[object, ...]) -> str:
    """``json.dumps(fields)`` for the str, int, None and tuple fields of ``_digest``."""
    if not _FIELDS_JSON:  # a Python without the C accelerator
        return json.dumps(fields)
    return "".join(_FIELDS_JSON(fields, 0))


def _digest(doc: IndexDoc) -> bytes:
    # The body's own fingerprint, then the small fields as JSON (self-delimiting, no escaping
    # pass over the body, which was a visible build cost).
    fields = (doc.kind, doc.title, doc.rank_title, doc.updated_at, doc.session_id, doc.lane_id,
              doc.anchor, doc.source_key, doc.tool, doc.source_span, doc.exit_code, doc.cwd,
              doc.took_ms, doc.role)  # fmt: skip
    head = blake2b(_fields_json(fields).encode("utf-8"), digest_size=8).digest()
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
        parts=_role_parts(doc, identifier_parts(doc.rank_title, doc.body)),
        title_norm=normalize_title_query(doc.rank_title) if doc.rank_title else "",
        title_parts=identifier_parts(doc.rank_title) if doc.rank_title else "",
    )


def _role_parts(doc: IndexDoc, parts: str) -> str:
    """A notice's ``parts`` carry ``ROLE_TOKEN``: the MATCH of every search names it
    (``engine.index.sql.role_match``), which costs a plain query next to nothing."""
    return f"{parts} {ROLE_TOKEN}" if doc.role == SYSTEM_ROLE else parts


class PreparedDocs(list[IndexDoc]):
    """Documents whose derived column values (digest, zlib body, identifier parts) are computed
    when the batch is built, so ``upsert_docs`` holds the write lock only for SQLite work and the
    computing can run on another thread while an earlier batch commits (benchmarks/journal/waves-1-to-3.md).

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


class WriteTargets(msgspec.Struct, frozen=True):
    """Where a batch's rows go besides the tables, as the writer hands them over
    (``IndexWriter.targets``); ``PLAIN`` (the default) writes every row into its table."""

    held_fts: dict[int, FtsRow] | None = None
    """``docs_fts`` rows held by the writer's open group, written sorted before its ``COMMIT``
    (``IndexWriter.begin_group``); None: into the table now."""
    recent: RecentDeferral | None = None
    """A first index's held ``docs_recent`` rows (``engine.index.first_index``); None: the floor
    is raised and the rows above it written now."""
    runs: KnownRuns | None = None
    """The writer's known runs of stored row ids (``engine.index.rowids``); None: walked afresh."""
    vectors: VectorSink | None = None
    """Where the inserted documents go for their meaning vectors (docs/semantic.md); None: not."""


PLAIN = WriteTargets()
"""Every row straight into its table: a caller outside the writer (a test, a one-off fix)."""


def upsert_docs(conn: apsw.Connection, docs: Iterable[IndexDoc], to: WriteTargets = PLAIN) -> None:
    """Insert or replace documents by doc id; unchanged documents are left untouched.

    Runs inside the caller's transaction; the ``docs`` row and its FTS rows always change together.
    The stored digests of the whole batch are read in one statement and the rows are written with
    ``executemany``. New rows are inserted in ascending rowid order: FTS5 flushes its pending-terms
    buffer whenever a rowid is not above the previous one, and per-document flushes made the index
    3x larger and 10x slower to build (measured, benchmarks/journal/waves-1-to-3.md). A ``PreparedDocs`` batch
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
    _delete_rows(conn, replaced, to)
    inserts.sort(key=lambda item: (item[0], item[1].doc_id))
    alloc = RowidAllocator(conn, to.runs)
    rows = [(alloc.take(wanted), doc, derived if isinstance(derived, _Derived) else _derive(doc, derived))
            for wanted, doc, derived in inserts]  # fmt: skip
    if rows:
        fts_rows = [(rowid, doc.rank_title, doc.body, d.parts) for rowid, doc, d in rows]
        # The floor moves before the rows are written, so a row it leaves behind is never put
        # into the prefix-indexed table only to be deleted again; a first index holds its rows
        # back until it ends (``engine.index.first_index``; benchmarks/journal/waves-1-to-3.md).
        floor = (to.recent.hold(conn, fts_rows) if to.recent is not None
                 else raise_recent_floor(conn, [row[0] for row in rows]))  # fmt: skip
        insert_rows(conn, rows, fts_rows, floor=floor, fts_sink=to.held_fts, vectors=to.vectors)


def insert_rows(
    conn: apsw.Connection,
    rows: list[tuple[int, IndexDoc, _Derived]],
    fts_rows: list[FtsRow],
    *,
    floor: int,
    fts_sink: dict[int, FtsRow] | None = None,
    vectors: VectorSink | None = None,
) -> None:
    """Write new documents at their row ids: ``docs``, ``docs_title``, the ``docs_recent`` rows
    at or above ``floor``, and their ``fts_rows`` into ``docs_fts`` or, given ``fts_sink``, into
    it (held by the writer's group); ``vectors`` is handed each document's text."""
    conn.executemany(
        "INSERT INTO docs(id, doc_id, kind, title, rank_title, title_norm, body, updated_at,"
        " session_id, lane_id, anchor, source_key, digest, tool, src_offset, src_len, exit_code,"
        " cwd, took_ms, role) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
        [(rowid, doc.doc_id, doc.kind, doc.title, doc.rank_title, d.title_norm, d.body_z,
          doc.updated_at, doc.session_id, doc.lane_id, doc.anchor, doc.source_key, d.digest,
          doc.tool, *(doc.source_span or (None, None)), doc.exit_code, doc.cwd, doc.took_ms,
          doc.role)
         for rowid, doc, d in rows],
    )  # fmt: skip
    if fts_sink is not None:
        fts_sink.update((row[0], row) for row in fts_rows)
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
    if vectors is not None:  # the semantic extra's vectors, in this transaction (docs/semantic.md)
        vectors(conn, [(doc.doc_id, d.digest, f"{doc.title}\n{doc.body}") for _, doc, d in rows])


def _delete_rows(conn: apsw.Connection, rows: Iterable[_Row], to: WriteTargets) -> int:
    count = 0
    floor = recent_floor(conn)
    held = to.held_fts
    for rowid, titled in rows:
        if to.recent is not None:
            to.recent.rows.pop(rowid, None)
        if held is None or held.pop(rowid, None) is None:
            # A held row is not in the table yet: deleting it there would leave a tombstone.
            conn.execute("DELETE FROM docs_fts WHERE rowid = ?", (rowid,))
        if rowid >= floor:
            conn.execute("DELETE FROM docs_recent WHERE rowid = ?", (rowid,))
        if titled:
            conn.execute("DELETE FROM docs_title WHERE rowid = ?", (rowid,))
        conn.execute("DELETE FROM docs WHERE id = ?", (rowid,))
        if to.runs is not None:
            to.runs.forget(rowid)
        count += 1
    return count


def _rows(conn: apsw.Connection, sql: str, params: Any) -> list[_Row]:
    return [(int(r[0]), bool(r[1])) for r in conn.execute(sql, params)]


def delete_docs(conn: apsw.Connection, doc_ids: Iterable[str], to: WriteTargets = PLAIN) -> None:
    """Delete documents by doc id (missing ids are ignored). Inside the caller's transaction."""
    for doc_id in doc_ids:
        _delete_rows(conn, _rows(conn, "SELECT id, rank_title != '' FROM docs WHERE doc_id = ?",
                                 (doc_id,)), to)  # fmt: skip


def delete_rows_by_id(conn: apsw.Connection, rowids: Iterable[int]) -> int:
    """Delete documents by row id, for rows whose doc id cannot be read (``engine.index.text_rot``)."""
    return sum(
        _delete_rows(
            conn, _rows(conn, "SELECT id, rank_title != '' FROM docs WHERE id = ?", (r,)), PLAIN
        )
        for r in rowids
    )


def delete_docs_by_source(conn: apsw.Connection, source_key: str, to: WriteTargets = PLAIN) -> None:
    """Delete every document one source produced (a reindex from zero, a vanished PR)."""
    _delete_rows(conn, _rows(conn, "SELECT id, rank_title != '' FROM docs WHERE source_key = ?",
                             (source_key,)), to)  # fmt: skip


def delete_docs_where_session_not_in(
    conn: apsw.Connection, kind: str, session_ids: Iterable[str], to: WriteTargets = PLAIN
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
    return _delete_rows(conn, rows, to)


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
