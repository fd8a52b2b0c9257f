"""Indexing an agent's session in place: a tailed agent's files through the common tailing pass
(its format's ``parse`` over the appended bytes), a derived one by re-deriving the session
(``engine.ingest.external_derive``).

Each transcript file is its own source with its own byte cursor: the main file is
``chat:<sid>``, a Claude subagent file ``chat:<sid>/<agent-stem>``; all of them index into the one
session (``chat:<sid>:<messageId>`` docs, the ``chat:<sid>`` session doc). A subagent file's seq
(the deep-link anchor) is its line offset plus ``SUBAGENT_SEQ_STRIDE`` times a stable file
number, so anchors never collide with the main file's.
"""

from __future__ import annotations

from typing import Any

import msgspec

from engine.external.agent_format import AgentFormat
from engine.external.claude_code import SUBAGENT_SEQ_STRIDE
from engine.external.discover import transcript_sources
from engine.external.registry import agent_format
from engine.external.skips import skip
from engine.index.db import IndexDoc
from engine.index.tuning import DEFAULT_TUNING, WriteTuning
from engine.index.writer import IndexWriter
from engine.ingest.docs import message_doc, ms, session_doc
from engine.ingest.external_derive import process_derived
from engine.ingest.tailing import Builder, PassOutput, PassResult, carried_skips, run_pass
from engine.ingest.transcripts import truncated_count
from engine.project.model import SessionMeta
from engine.project.tally import WarningTally

__all__ = ["SUBAGENT_SEQ_STRIDE", "external_builder", "process_external", "transcript_sources"]


def external_builder(meta: SessionMeta, key: str, seq_base: int, tally: WarningTally) -> Builder:
    """A tailing builder parsing the session's own format into chat docs keyed by ``key``."""
    fmt: AgentFormat = agent_format(meta.source)

    def build(data: bytes, base: int, _at_eof: bool, state: dict[str, Any]) -> PassOutput:
        skipped = WarningTally()  # this pass's count, stored with the cursor (carried_skips)
        if state.get("cut_line"):  # a line past the read cap: its head, marked
            data = fmt.mark_cut_line(data)
        events, consumed, new_state = fmt.parse(data, base, key, skipped, state, seq_base)
        latest = int(state.get("latest", 0))
        docs: list[IndexDoc] = []
        replaced: list[IndexDoc] = []  # a streamed message's merged text (Claude Code)
        seen: set[str] = set()
        for event in events:
            doc = message_doc(
                meta.id, event, meta.title, meta.lane_id, ms(meta.updated_at), meta.tool
            )
            # The first copy of a message wins, within a pass as across passes (a Codex
            # message is written twice): its seq is the anchor the chat view lands on.
            if doc is not None and event.data.get("replaces") is True:
                replaced.append(msgspec.structs.replace(doc, source_key=key))
            elif doc is not None and doc.doc_id not in seen:
                seen.add(doc.doc_id)
                docs.append(msgspec.structs.replace(doc, source_key=key))
                latest = max(latest, doc.updated_at)
        skip(skipped, key, "truncated", truncated_count(docs, events, state))
        tally.merge(skipped)
        new_state.update(
            latest=latest, **carried_skips(state, skipped.total(), skipped.by_reason())
        )
        session = session_doc("chat", meta.id, meta, meta.title, latest)
        return PassOutput(
            consumed=consumed, session=session, new_docs=docs, upserts=replaced, state=new_state
        )

    return build


def process_external(
    writer: IndexWriter,
    meta: SessionMeta,
    tally: WarningTally,
    now_ms: int,
    tuning: WriteTuning = DEFAULT_TUNING,
) -> PassResult:
    """One pass over each transcript file of ``meta``; ``more`` when any file has more to read.

    Raises:
        TranscriptNotReady / TranscriptUnreadable: from reading; that file wrote nothing.
    """
    if agent_format(meta.source).derived_file(meta.transcript_path):  # whole, when changed
        return process_derived(writer, meta, tally, now_ms)
    more, written = False, 0
    for key, path, seq_base in transcript_sources(meta):
        builder = external_builder(meta, key, seq_base, tally)
        result = run_pass(writer, path, key, "chat", builder, now_ms, None, tuning)
        more, written = more or result.more, written + result.written
    return PassResult(more=more, written=written)
