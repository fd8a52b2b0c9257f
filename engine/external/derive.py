"""Gemini CLI and OpenCode sessions: re-derived whole when their signature changes.

Their stores are not append-only byte streams: Gemini appends a changed message again under the
same id and ``$rewindTo`` drops messages; OpenCode updates database rows. So a pass parses the
whole session, upserts its docs (stable ids: an unchanged message is left untouched by the
digest check) and deletes the session's docs that are gone, in one transaction. A file that
cannot be parsed (a legacy document caught half-written, a corrupt database) is counted and its
docs are kept as they were.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import apsw

from engine.external.agents import READ_LIMIT
from engine.external.gemini import (
    SUBAGENT_STRIDE,
    GeminiRecord,
    gemini_events,
    replay_gemini,
    subagent_files,
)
from engine.external.opencode import opencode_events, session_signature
from engine.index.db import IndexDoc, delete_docs, immediate, upsert_docs
from engine.ingest.docs import message_doc, ms, session_doc
from engine.ingest.docstore import existing_doc_ids
from engine.ingest.records import stat_signature
from engine.ingest.tailing import PassResult
from engine.project.model import ChatEvent, SessionMeta
from engine.project.tally import WarningTally


def derived_signature(meta: SessionMeta) -> str:
    """What changes whenever the session does: the database rows, or the file's stat."""
    path = meta.transcript_path
    if path is None:
        return "null"
    if meta.source == "opencode":
        return session_signature(path.parent, path.name)
    return stat_signature([path, *subagent_files(path, meta.id.removeprefix("gemini-"))])


def read_derived_events(
    path: Path, tool: str, tally: WarningTally, source: str
) -> list[ChatEvent] | None:
    """Every visible event of the session at ``path``; None when it cannot be parsed now."""
    if tool == "opencode":
        try:
            return opencode_events(path.parent, path.name, tally)
        except apsw.Error as err:
            tally.add(source, f"database not readable ({type(err).__name__})")
            return None
    try:
        with path.open("rb") as handle:
            data = handle.read(READ_LIMIT)
    except OSError:
        tally.add(source, "session file not readable")
        return None
    record = replay_gemini(data, source, tally, document=path.suffix == ".json")
    if record is None:
        return None
    events = gemini_events(record)
    for number, sub in enumerate(subagent_files(path, record.session_id or "")):
        try:
            sub_record = replay_gemini(sub.read_bytes()[:READ_LIMIT], f"{source}/{sub.stem}", tally)
        except OSError:
            continue  # gone meanwhile: the next signature change re-derives
        base = (number + 1) * SUBAGENT_STRIDE
        events += [
            dataclasses.replace(e, seq=base + e.seq, offset=base + e.offset)
            for e in gemini_events(sub_record or GeminiRecord())
        ]
    return events


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
