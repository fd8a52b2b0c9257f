"""``session:<id>`` freshness for agents' sessions: their not-yet-indexed tail.

Like ``engine.ingest.freshness`` for ``.ade`` chats: each transcript file of the session is read
from its stored cursor to the end (bounded), parsed with the builder the next pass would use,
and the documents not indexed yet are returned for live matching.
"""

from __future__ import annotations

import json

import apsw

from engine.external.catalog import project_sessions
from engine.external.registry import agent_format
from engine.index.db import IndexDoc, SourceRow, get_source
from engine.ingest.docstore import existing_doc_ids
from engine.ingest.external_derive import derived_live_docs
from engine.ingest.external_pass import external_builder, transcript_sources
from engine.project.model import Project
from engine.project.tally import WarningTally
from engine.project.transcripts import LIVE_TAIL_BYTES, TranscriptError, read_transcript
from engine.types import AGENT_TOOLS

EXTERNAL_PREFIXES = tuple(f"{tool}-" for tool in AGENT_TOOLS)


def external_live_docs(
    conn: apsw.Connection, project: Project, sid: str, tally: WarningTally
) -> list[IndexDoc]:
    """The session doc and not-yet-indexed message docs of external session ``sid`` (or [])."""
    if not sid.startswith(EXTERNAL_PREFIXES):
        return []
    meta = next((m for m in project_sessions(project, tally) if m.id == sid), None)
    if meta is None or meta.source not in AGENT_TOOLS:
        return []
    if agent_format(meta.source).derived_file(meta.transcript_path):  # whole, no cursor
        return derived_live_docs(conn, meta)
    docs: list[IndexDoc] = []
    session: IndexDoc | None = None
    for key, path, seq_base in transcript_sources(meta):
        row = get_source(conn, key) or SourceRow(key=key)
        try:
            data = read_transcript(path, row.cursor, LIVE_TAIL_BYTES).data
        except TranscriptError:
            data = b""
        state = json.loads(row.state) if row.state.startswith("{") else {}
        builder = external_builder(meta, key, seq_base, WarningTally())
        out = builder(data, row.cursor, len(data) < LIVE_TAIL_BYTES, dict(state))
        session = session or out.session
        have = existing_doc_ids(conn, [d.doc_id for d in out.new_docs])
        docs += [d for d in out.new_docs if d.doc_id not in have]
    return [session, *docs] if session is not None else []
