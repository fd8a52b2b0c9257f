"""A derived agent's sessions (``AgentFormat.derived``) re-derived whole into the index.

Their stores are not append-only byte streams: Gemini appends a changed message again under the
same id and ``$rewindTo`` drops messages; OpenCode updates database rows. A file that cannot be
parsed (a legacy document caught half-written, a corrupt database) is counted and its docs are
kept as they were. What a pass skipped is stored with the session, as the tailed transcripts
store theirs (``engine.ingest.tailing.SKIPPED_STATE_KEY`` in the ``chat:<sid>`` source row): the
count of the latest derivation, since each re-reads it all.

A pass parses the whole session, upserts its docs (stable ids: an unchanged message is left
untouched by the digest check), deletes the session's docs that are gone and stores what it
skipped, in one transaction.
"""

from __future__ import annotations

import json

import apsw
import msgspec

from engine.external.registry import agent_format
from engine.external.skips import skip
from engine.index.db import (
    IndexDoc,
    SourceRow,
    get_source,
    put_source,
    upsert_docs,
)
from engine.index.sources import delete_source
from engine.index.writer import IndexWriter
from engine.ingest.docs import TRUNCATED_MARK, message_doc, ms, session_doc
from engine.ingest.docstore import existing_doc_ids
from engine.ingest.tailing import (
    SKIP_REASONS_STATE_KEY,
    SKIPPED_STATE_KEY,
    PassResult,
    merged_reasons,
    persisted_skips,
)
from engine.project.model import SessionMeta
from engine.project.tally import WarningTally
from engine.redaction import scan_literals_in_one_pass


def derived_docs(meta: SessionMeta, tally: WarningTally) -> tuple[IndexDoc, list[IndexDoc]] | None:
    """The session doc and every message doc of ``meta`` (None: unparseable right now)."""
    key = f"chat:{meta.id}"
    if meta.transcript_path is None:
        return None
    events, cut = agent_format(meta.source).derived_events(meta.transcript_path, tally, key)
    if events is None:
        return None
    docs: dict[str, IndexDoc] = {}
    fallback = ms(meta.updated_at)
    scan_literals_in_one_pass()
    for event in events:
        doc = message_doc(meta.id, event, meta.title, meta.lane_id, fallback, meta.tool)
        if doc is not None and doc.doc_id not in docs:
            docs[doc.doc_id] = doc
    # As for tailed transcripts (``truncated_count``): bodies cut to the indexed size, and
    # lines or rows cut at the read cap; a cut one is usually also a cut body, so the larger.
    marked = sum(1 for d in docs.values() if d.body.endswith(TRUNCATED_MARK))
    skip(tally, key, "truncated", max(marked, cut))
    latest = max((d.updated_at for d in docs.values()), default=0)
    return session_doc("chat", meta.id, meta, meta.title, latest), list(docs.values())


def process_derived(
    writer: IndexWriter, meta: SessionMeta, tally: WarningTally, now_ms: int
) -> PassResult:
    """Re-derive the session: upsert what is there, delete what is gone, and store what was
    skipped, in one transaction."""
    key = f"chat:{meta.id}"
    seen = WarningTally()  # this derivation's count, under the session's key alone
    built = derived_docs(meta, seen)
    skipped = seen.total()
    written = 0
    conn = writer.conn
    with writer.transaction():
        row = get_source(conn, key)
        before = persisted_skips([row]).get(key, 0) if row is not None else 0
        if built is not None:
            session, docs = built
            keep = {session.doc_id, *(d.doc_id for d in docs)}
            stored = [str(r[0]) for r in conn.execute(
                "SELECT doc_id FROM docs WHERE source_key = ?", (key,))]  # fmt: skip
            gone = [doc_id for doc_id in stored if doc_id not in keep]
            writer.delete_docs(gone)
            upsert_docs(
                conn, [msgspec.structs.replace(d, source_key=key) for d in (session, *docs)]
            )
            written = len(docs) + len(gone)
        why = merged_reasons(None, seen.by_reason())
        state = json.dumps({SKIPPED_STATE_KEY: skipped, SKIP_REASONS_STATE_KEY: why},
                           separators=(",", ":"))  # fmt: skip
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
