"""Gemini CLI and OpenCode sessions: re-derived whole when their signature changes.

Their stores are not append-only byte streams: Gemini appends a changed message again under the
same id and ``$rewindTo`` drops messages; OpenCode updates database rows. So a pass parses the
whole session, upserts its docs (stable ids: an unchanged message is left untouched by the
digest check) and deletes the session's docs that are gone, in one transaction. A file that
cannot be parsed (a legacy document caught half-written, a corrupt database) is counted and its
docs are kept as they were.

What a pass skipped (bad lines or rows, JSON nested too deep, a huge line or row indexed
truncated and marked) is stored with the session, as the tailed transcripts store theirs
(``engine.ingest.tailing.SKIPPED_STATE_KEY`` in the ``chat:<sid>`` source row), so a later
``--status`` shows it; it is the count of the latest derivation, since each re-reads it all.
"""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import apsw

from engine.external.gemini import (
    SUBAGENT_STRIDE,
    GeminiRecord,
    gemini_events,
    load_gemini,
    subagent_files,
)
from engine.external.opencode import CUT_ROW, opencode_events, session_signature
from engine.index.db import (
    IndexDoc,
    SourceRow,
    delete_docs,
    delete_source,
    get_source,
    immediate,
    put_source,
    upsert_docs,
)
from engine.ingest.docs import TRUNCATED_MARK, message_doc, ms, session_doc
from engine.ingest.docstore import existing_doc_ids
from engine.ingest.records import stat_signature
from engine.ingest.tailing import SKIPPED_STATE_KEY, PassResult, persisted_skips
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
    return _derived_events(path, tool, tally, source)[0]


def _derived_events(
    path: Path, tool: str, tally: WarningTally, source: str
) -> tuple[list[ChatEvent] | None, int]:
    """The events and how many lines or rows were cut at the read cap (indexed marked)."""
    if tool == "opencode":
        rows = WarningTally()
        try:
            events = opencode_events(path.parent, path.name, rows)
        except apsw.Error as err:
            tally.add(source, f"database not readable ({type(err).__name__})")
            return None, 0
        cut = 0
        for reason, n in rows.reasons(f"chat:opencode-{path.name}").items():
            if reason == CUT_ROW:
                cut = n  # counted once with the marked bodies (derived_docs)
            else:
                tally.add(source, reason, n)
        return events, cut
    record, cut_lines = load_gemini(path, source, tally)
    if record is None:
        return None, 0
    events = gemini_events(record)
    for number, sub in enumerate(subagent_files(path, record.session_id or "")):
        sub_record, sub_cut = load_gemini(sub, source, tally)  # gone meanwhile: next change
        cut_lines += sub_cut
        base = (number + 1) * SUBAGENT_STRIDE
        events += [
            dataclasses.replace(e, seq=base + e.seq, offset=base + e.offset)
            for e in gemini_events(sub_record or GeminiRecord())
        ]
    return events, cut_lines


def derived_docs(meta: SessionMeta, tally: WarningTally) -> tuple[IndexDoc, list[IndexDoc]] | None:
    """The session doc and every message doc of ``meta`` (None: unparseable right now)."""
    key = f"chat:{meta.id}"
    if meta.transcript_path is None:
        return None
    events, cut = _derived_events(meta.transcript_path, meta.source, tally, key)
    if events is None:
        return None
    docs: dict[str, IndexDoc] = {}
    fallback = ms(meta.updated_at)
    for event in events:
        doc = message_doc(meta.id, event, meta.title, meta.lane_id, fallback, meta.tool)
        if doc is not None and doc.doc_id not in docs:
            docs[doc.doc_id] = doc
    # As for tailed transcripts (``truncated_count``): bodies cut to the indexed size, and
    # lines or rows cut at the read cap; a cut one is usually also a cut body, so the larger.
    marked = sum(1 for d in docs.values() if d.body.endswith(TRUNCATED_MARK))
    tally.add(key, "message indexed truncated", max(marked, cut))
    latest = max((d.updated_at for d in docs.values()), default=0)
    return session_doc("chat", meta.id, meta, meta.title, latest), list(docs.values())


def process_derived(
    conn: apsw.Connection, meta: SessionMeta, tally: WarningTally, now_ms: int
) -> PassResult:
    """Re-derive the session: upsert what is there, delete what is gone, and store what was
    skipped, in one transaction."""
    key = f"chat:{meta.id}"
    seen = WarningTally()  # this derivation's count, under the session's key alone
    built = derived_docs(meta, seen)
    skipped = seen.total()
    written = 0
    with immediate(conn):
        row = get_source(conn, key)
        before = persisted_skips([row]).get(key, 0) if row is not None else 0
        if built is not None:
            session, docs = built
            keep = {session.doc_id, *(d.doc_id for d in docs)}
            stored = [str(r[0]) for r in conn.execute(
                "SELECT doc_id FROM docs WHERE source_key = ?", (key,))]  # fmt: skip
            gone = [doc_id for doc_id in stored if doc_id not in keep]
            delete_docs(conn, gone)
            upsert_docs(conn, [dataclasses.replace(d, source_key=key) for d in (session, *docs)])
            written = len(docs) + len(gone)
        state = json.dumps({SKIPPED_STATE_KEY: skipped}, separators=(",", ":"))
        if skipped:
            put_source(conn, SourceRow(key=key, last_run=now_ms, state=state))
        elif row is not None:
            delete_source(conn, key)
    _count_new(tally, seen, key, before, skipped)
    return PassResult(more=False, written=written)


def _count_new(tally: WarningTally, seen: WarningTally, key: str, before: int, now: int) -> None:
    """Add to this process's tally only what the stored count did not hold yet: each
    derivation re-reads the whole session, so the same bad line must not count again."""
    if now <= before:
        return
    if before == 0:
        tally.merge(seen)
    else:
        tally.add(key, "more lines skipped", now - before)


def derived_live_docs(conn: apsw.Connection, meta: SessionMeta) -> list[IndexDoc]:
    """``session:`` freshness: the session doc and the message docs not indexed yet."""
    built = derived_docs(meta, WarningTally())
    if built is None:
        return []
    session, docs = built
    have = existing_doc_ids(conn, [d.doc_id for d in docs])
    return [session, *(d for d in docs if d.doc_id not in have)]
