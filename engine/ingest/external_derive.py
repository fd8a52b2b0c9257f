"""Gemini CLI and OpenCode sessions re-derived into the index (see ``engine.external.derive``).

A pass parses the whole session, upserts its docs (stable ids: an unchanged message is left
untouched by the digest check) and deletes the session's docs that are gone, in one transaction.
"""

from __future__ import annotations

import dataclasses

import apsw

from engine.external.derive import read_derived_events
from engine.index.db import IndexDoc, delete_docs, immediate, upsert_docs
from engine.ingest.docs import message_doc, ms, session_doc
from engine.ingest.docstore import existing_doc_ids
from engine.ingest.tailing import PassResult
from engine.project.model import SessionMeta
from engine.project.tally import WarningTally


def derived_docs(meta: SessionMeta, tally: WarningTally) -> tuple[IndexDoc, list[IndexDoc]] | None:
    """The session doc and every message doc of ``meta`` (None: unparseable right now)."""
    key = f"chat:{meta.id}"
    if meta.transcript_path is None:
        return None
    events = read_derived_events(meta.transcript_path, meta.source, tally, key)
    if events is None:
        return None
    docs: dict[str, IndexDoc] = {}
    fallback = ms(meta.updated_at)
    for event in events:
        doc = message_doc(meta.id, event, meta.title, meta.lane_id, fallback, meta.tool)
        if doc is not None and doc.doc_id not in docs:
            docs[doc.doc_id] = doc
    latest = max((d.updated_at for d in docs.values()), default=0)
    return session_doc("chat", meta.id, meta, meta.title, latest), list(docs.values())


def process_derived(
    conn: apsw.Connection, meta: SessionMeta, tally: WarningTally, now_ms: int
) -> PassResult:
    """Re-derive the session: upsert what is there, delete what is gone, in one transaction."""
    del now_ms  # no cursor to stamp: the drain stores the signature after the pass
    built = derived_docs(meta, tally)
    if built is None:
        return PassResult(more=False, written=0)
    session, docs = built
    key = f"chat:{meta.id}"
    keep = {session.doc_id, *(d.doc_id for d in docs)}
    with immediate(conn):
        stored = [str(r[0]) for r in conn.execute("SELECT doc_id FROM docs WHERE source_key = ?",
                                                   (key,))]  # fmt: skip
        gone = [doc_id for doc_id in stored if doc_id not in keep]
        delete_docs(conn, gone)
        upsert_docs(conn, [dataclasses.replace(d, source_key=key) for d in (session, *docs)])
    return PassResult(more=False, written=len(docs) + len(gone))


def derived_live_docs(conn: apsw.Connection, meta: SessionMeta) -> list[IndexDoc]:
    """``session:`` freshness: the session doc and the message docs not indexed yet."""
    built = derived_docs(meta, WarningTally())
    if built is None:
        return []
    session, docs = built
    have = existing_doc_ids(conn, [d.doc_id for d in docs])
    return [session, *(d for d in docs if d.doc_id not in have)]
