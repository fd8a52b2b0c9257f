"""Indexing an external session in place: Claude Code, Codex, Copilot CLI and Aider through the
common tailing pass, Gemini CLI and OpenCode by re-deriving the session (``engine.external.derive``).

Each transcript file is its own source with its own byte cursor: the main file is
``chat:<sid>``, a Claude subagent file ``chat:<sid>/<agent-stem>``; all of them index into the one
session (``chat:<sid>:<messageId>`` docs, the ``chat:<sid>`` session doc). A subagent file's seq
(the deep-link anchor) is its line offset plus ``SUBAGENT_SEQ_STRIDE`` times a stable file
number, so anchors never collide with the main file's.
"""

from __future__ import annotations

from typing import Any

import apsw
import msgspec

from engine.external.agents import DERIVED_TOOLS
from engine.external.aider import parse_aider
from engine.external.claude_code import ClaudeHead, parse_claude
from engine.external.codex import parse_codex
from engine.external.copilot import parse_copilot
from engine.external.discover import SUBAGENT_SEQ_STRIDE, transcript_sources
from engine.index.db import IndexDoc
from engine.ingest.docs import TRUNCATED_MARK, message_doc, ms, session_doc
from engine.ingest.external_derive import process_derived
from engine.ingest.tailing import Builder, PassOutput, PassResult, carried_skips, run_pass
from engine.ingest.transcripts import truncated_count
from engine.project.json_salvage import salvage_cut_line
from engine.project.model import ChatEvent, SessionMeta
from engine.project.tally import WarningTally

__all__ = ["SUBAGENT_SEQ_STRIDE", "external_builder", "process_external", "transcript_sources"]


def external_builder(meta: SessionMeta, key: str, seq_base: int, tally: WarningTally) -> Builder:
    """A tailing builder parsing the session's own format into chat docs keyed by ``key``."""

    def build(data: bytes, base: int, _at_eof: bool, state: dict[str, Any]) -> PassOutput:
        skipped = WarningTally()  # this pass's count, stored with the cursor (carried_skips)
        if state.get("cut_line"):  # a line past the read cap: its head, marked
            data = _mark_cut_line(data) if meta.source == "aider" else salvage_cut_line(
                data, TRUNCATED_MARK)  # fmt: skip
        events, consumed, new_state = _parse(meta, data, base, key, seq_base, skipped, state)
        latest = int(state.get("latest", 0))
        docs: list[IndexDoc] = []
        seen: set[str] = set()
        for event in events:
            doc = message_doc(
                meta.id, event, meta.title, meta.lane_id, ms(meta.updated_at), meta.tool
            )
            # The first copy of a message wins, within a pass as across passes (a Codex
            # message is written twice): its seq is the anchor the chat view lands on.
            if doc is not None and doc.doc_id not in seen:
                seen.add(doc.doc_id)
                docs.append(msgspec.structs.replace(doc, source_key=key))
                latest = max(latest, doc.updated_at)
        skipped.add(key, "message indexed truncated", truncated_count(docs, events, state))
        tally.merge(skipped)
        new_state.update(latest=latest, **carried_skips(state, skipped.total()))
        session = session_doc("chat", meta.id, meta, meta.title, latest)
        return PassOutput(consumed=consumed, session=session, new_docs=docs, state=new_state)

    return build


def _mark_cut_line(line: bytes) -> bytes:
    """Aider's history is Markdown, not JSON: the cut head simply ends with the mark."""
    return line.removesuffix(b"\n") + TRUNCATED_MARK.encode() + b"\n"


def _parse(meta: SessionMeta, data: bytes, base: int, key: str, seq_base: int,
           tally: WarningTally, state: dict[str, Any]
           ) -> tuple[list[ChatEvent], int, dict[str, Any]]:  # fmt: skip
    if meta.source == "copilot":
        return (*parse_copilot(data, base, key, tally), {})
    if meta.source == "aider":
        carried = {"started": state.get("started")}
        events, consumed = parse_aider(data, base, carried)
        return events, consumed, carried
    if meta.source == "codex":
        raw = state.get("counters")
        counters = dict(raw) if isinstance(raw, dict) else {}
        events, consumed = parse_codex(data, base, key, tally, counters)
        return events, consumed, {"counters": counters}
    events, consumed = parse_claude(data, base, key, tally, seq_base=seq_base, head=ClaudeHead())
    return events, consumed, {}


def process_external(
    conn: apsw.Connection, meta: SessionMeta, tally: WarningTally, now_ms: int
) -> PassResult:
    """One pass over each transcript file of ``meta``; ``more`` when any file has more to read.

    Raises:
        TranscriptNotReady / TranscriptUnreadable: from reading; that file wrote nothing.
    """
    if meta.source in DERIVED_TOOLS:  # Gemini, OpenCode: the whole session, when it changed
        return process_derived(conn, meta, tally, now_ms)
    more, written = False, 0
    for key, path, seq_base in transcript_sources(meta):
        result = run_pass(conn, path, key, "chat", external_builder(meta, key, seq_base, tally),
                          now_ms)  # fmt: skip
        more, written = more or result.more, written + result.written
    return PassResult(more=more, written=written)
