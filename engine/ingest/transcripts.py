"""Chat and terminal processors: session metadata + transcript tail → documents.

A builder turns the fresh bytes of one pass into documents; ``engine.ingest.tailing`` owns the
cursor, fingerprint and transaction. Session metadata is re-read every pass (a few hundred bytes)
so a title, lane or ``endedAt`` change is picked up by the next pass of either queue kind.
"""

from __future__ import annotations

from typing import Any

from engine.index.db import IndexDoc
from engine.index.tuning import DEFAULT_TUNING, WriteTuning
from engine.index.writer import IndexWriter
from engine.ingest.docs import (
    TRUNCATED_MARK,
    chunk_doc,
    message_doc,
    ms,
    session_doc,
    session_title,
)
from engine.ingest.gzcache import read_slice
from engine.ingest.tailing import (
    Builder,
    PassOutput,
    PassResult,
    Plan,
    carried_skips,
    run_pass,
)
from engine.project.json_salvage import salvage_cut_line
from engine.project.model import Project, SessionKind, SessionMeta
from engine.project.sessions import read_session
from engine.project.tally import WarningTally
from engine.project.transcripts import parse_chat_lines, refused_transcript, transcript_file
from engine.redaction import redact_title, scan_literals_in_one_pass

BULK_REDACTION_BYTES = 64 * 1024
"""Bytes of a pass from which its builder finds the redaction rules' literals in one
Aho-Corasick pass (``scan_literals_in_one_pass``, kept for the process). Loading the extension
and building its two automata cost ~4 ms once a process, which a pass of a few appended lines (a
search right after a write, the read-your-writes budget) never earns back; below this each
literal is looked for with ``in``, the same rules found either way."""


def _bulk_redaction(data: bytes) -> None:
    if len(data) >= BULK_REDACTION_BYTES:
        scan_literals_in_one_pass()


def chat_builder(sid: str, meta: SessionMeta | None, tally: WarningTally) -> Builder:
    """A builder for ``.ade/chats/<sid>.jsonl``: one doc per accepted message / reply / tool."""
    source = f"chat:{sid}"
    lane = meta.lane_id if meta else None
    fallback = ms(meta.updated_at) if meta else 0

    def build(data: bytes, base: int, at_eof: bool, state: dict[str, Any]) -> PassOutput:
        del at_eof  # a chat line is whole or torn; the end of the file changes nothing
        _bulk_redaction(data)
        skipped = WarningTally()  # this pass's count, stored with the cursor (carried_skips)
        if state.get("cut_line"):
            data = salvage_cut_line(data, TRUNCATED_MARK)
        events, consumed = parse_chat_lines(data, base, source, skipped)
        title_event = state.get("title") if isinstance(state.get("title"), str) else None
        latest = int(state.get("latest", 0))
        for event in events:
            if event.type == "session_title" and isinstance(event.data.get("title"), str):
                title_event = event.data["title"]
        title = session_title(meta, sid, title_event)
        docs: list[IndexDoc] = []
        seen: set[str] = set()
        salvaged = bool(state.get("cut_line"))  # a cut line is not what the file holds
        for event in events:
            span = None if salvaged else _line_span(data, base, event.offset)
            doc = message_doc(sid, event, title, lane, fallback, meta.tool if meta else None, span)
            if doc is not None and doc.doc_id not in seen:
                seen.add(doc.doc_id)
                docs.append(doc)
                latest = max(latest, doc.updated_at)
        skipped.add(source, "message indexed truncated", truncated_count(docs, events, state))
        tally.merge(skipped)
        new_state: dict[str, Any] = {
            "latest": latest,
            **carried_skips(state, skipped.total(), skipped.by_reason()),
        }
        if title_event:
            new_state["title"] = redact_title(title_event)  # the sources row is in the file too
        return PassOutput(
            consumed=consumed,
            session=session_doc("chat", sid, meta, title, latest),
            new_docs=docs,
            state=new_state,
        )

    return build


def _line_span(data: bytes, base: int, offset: int) -> tuple[int, int] | None:
    """``(offset, length)`` of the line at ``offset``: where its snippet is re-read from."""
    start = offset - base
    end = data.find(b"\n", start)
    return (offset, end - start) if start >= 0 and end > start else None


def truncated_count(docs: list[IndexDoc], events: list[Any], state: dict[str, Any]) -> int:
    """Messages of a pass indexed truncated: bodies cut to the indexed size, and a line cut at
    the read cap (``cut_line``) that still parsed (one that did not is a malformed line)."""
    cut = sum(1 for doc in docs if doc.body.endswith(TRUNCATED_MARK))
    return max(cut, 1) if state.get("cut_line") and events else cut


def terminal_builder(sid: str, meta: SessionMeta | None) -> Builder:
    """A builder for ``.ade/terminals/<sid>.log``: newline-aligned sanitized chunks."""
    # Deferred: a chat's pass (a search right after a line was appended) needs no chunker.
    from engine.terminal.chunking import ChunkerState, chunk_terminal_bytes

    title = session_title(meta, sid, None)
    lane = meta.lane_id if meta else None
    updated = ms(meta.updated_at) if meta else 0
    ended = meta is not None and meta.ended_at is not None

    def build(data: bytes, base: int, at_eof: bool, state: dict[str, Any]) -> PassOutput:
        _bulk_redaction(data)
        stored = state.get("chunker")
        try:
            chunker = ChunkerState.from_json(stored) if isinstance(stored, str) else ChunkerState()
        except ValueError:
            chunker = ChunkerState()
        result = chunk_terminal_bytes(data, base, force=ended and at_eof, state=chunker)
        # Each chunk's raw bytes run to the next chunk (or the end of what was consumed): its
        # snippet is chunked and sanitized again from them (engine.query.source_text).
        ends = [c.offset for c in result.chunks[1:]]
        ends.append(base + result.consumed)
        docs = [chunk_doc(sid, c.offset, c.text, title, lane, updated, end - c.offset)
                for c, end in zip(result.chunks, ends)]  # noqa: B905  # fmt: skip
        return PassOutput(
            consumed=result.consumed,
            session=session_doc("terminal", sid, meta, title, updated),
            upserts=docs,
            state={"chunker": result.state.to_json()},
        )

    return build


def process_session(
    writer: IndexWriter,
    project: Project,
    kind: SessionKind,
    sid: str,
    tally: WarningTally,
    now_ms: int,
    planned: Plan | None = None,
    tuning: WriteTuning = DEFAULT_TUNING,
) -> PassResult:
    """One pass over a session's transcript (or just its session doc when it has none).

    ``planned``: a plan of this pass made by the planning worker (``run_pass`` checks it).

    Raises:
        TranscriptNotReady / TranscriptUnreadable: from reading; nothing was written.
    """
    meta = read_session(project, sid, tally)
    if meta is None or meta.kind != kind:
        # A session exists exactly when its metadata does; the reconcile removes leftover docs.
        return PassResult(more=False, written=0)
    builder = chat_builder(sid, meta, tally) if kind == "chat" else terminal_builder(sid, meta)
    path = transcript_file(project, kind, sid)
    if path is None:
        refused = refused_transcript(project, kind, sid)
        if refused is not None:
            tally.add_once(f"{kind}:{sid}", refused)
        return _session_only(writer, builder)
    result = run_pass(writer, path, f"{kind}:{sid}", kind, builder, now_ms, planned, tuning)
    if path.name.endswith(".gz"):
        damage = read_slice(path, 0, 0).damage  # the pass just inflated it: cached
        if damage is not None:
            tally.add_once(f"{kind}:{sid}", damage)
    if kind == "terminal":
        from engine.ingest.commands import index_commands  # OSC 133: one doc per command

        index_commands(writer, project, sid, meta, path, now_ms)
    return result


def _session_only(writer: IndexWriter, builder: Builder) -> PassResult:
    """A session without a transcript yet is still findable by its title."""
    out = builder(b"", 0, True, {})
    with writer.transaction():
        writer.upsert_docs([out.session])
    return PassResult(more=False, written=1)
