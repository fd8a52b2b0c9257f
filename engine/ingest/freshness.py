"""``session:<id>`` freshness (DESIGN §5): match a session's not-yet-indexed tail live.

The query reads the owning session directly from its cursor to the end, builds the documents the
next ingestion pass would write, matches them with the query plan's matcher (what the index's
``MATCH`` would decide), and hands them to
``run_query`` as extra candidates that replace indexed rows of the same doc id. A message accepted
a moment ago therefore appears exactly once, before the debounce has run. The transcript builders
are imported only when a query names a session (most queries never do).
"""

from __future__ import annotations

import json
from dataclasses import dataclass

import apsw

from engine.index.db import IndexDoc, SourceRow, get_source
from engine.ingest.docstore import existing_doc_ids
from engine.project.model import Project, is_valid_session_id
from engine.project.sessions import read_session
from engine.project.tally import WarningTally
from engine.project.transcripts import (
    LIVE_TAIL_BYTES,
    TranscriptError,
    read_transcript,
    transcript_file,
)
from engine.query.plan import QueryPlan
from engine.query.ranking import NO_EXTRA, Candidate, CandidateExtra
from engine.query.snippets import make_snippet


@dataclass(frozen=True)
class Fresh:
    """Live candidates of the filtered sessions and the doc ids they supersede."""

    candidates: list[Candidate]
    replace_doc_ids: frozenset[str]


def _live_docs(
    conn: apsw.Connection, project: Project, sid: str, tally: WarningTally
) -> list[IndexDoc]:
    from engine.ingest.transcripts import chat_builder, terminal_builder  # deferred: see top

    meta = read_session(project, sid, tally)
    if meta is None:
        from engine.ingest.external_live import external_live_docs  # Claude Code / Codex sessions

        return external_live_docs(conn, project, sid, tally)
    key = f"{meta.kind}:{sid}"
    row = get_source(conn, key) or SourceRow(key=key)
    path = transcript_file(project, meta.kind, sid)
    cursor = row.cursor
    try:
        data = b"" if path is None else read_transcript(path, cursor, LIVE_TAIL_BYTES).data
    except TranscriptError:
        data = b""
    state = json.loads(row.state) if row.state.startswith("{") else {}
    at_eof = len(data) < LIVE_TAIL_BYTES
    if meta.kind == "chat":
        out = chat_builder(sid, meta, WarningTally())(data, cursor, at_eof, dict(state))
        fresh = [d for d in out.new_docs if d.doc_id not in existing_doc_ids(conn, [d.doc_id])]
    else:
        out = terminal_builder(sid, meta)(data, cursor, at_eof, dict(state))
        fresh = list(out.upserts)
    return [out.session, *fresh]


def session_candidates(
    conn: apsw.Connection, project: Project, plan: QueryPlan, tally: WarningTally
) -> Fresh | None:
    """Live candidates for a query with ``session:<id>`` filters, or None without one.

    A live document is kept when the plan's time bounds, lanes and text (``plan.matches``, the
    index's reading of the query, on its title and body as two columns) all allow it.
    """
    sids = [s for s in plan.sessions if is_valid_session_id(s)]
    if not sids:
        return None
    candidates: list[Candidate] = []
    replace: set[str] = set()
    for sid in sids:
        for doc in _live_docs(conn, project, sid, tally):
            replace.add(doc.doc_id)
            if not (plan.allows_time(doc.updated_at) and plan.allows_lane(doc.lane_id)):
                continue
            if not (plan.allows_tool(doc.tool) and plan.allows_role(doc.role)):
                continue
            if not plan.matches(doc.rank_title, doc.body):
                continue
            candidates.append(
                Candidate(
                    doc_id=doc.doc_id,
                    kind=doc.kind,
                    title=doc.title,
                    rank_title=doc.rank_title,
                    snippet_marked=make_snippet(doc.body, plan.parsed),
                    updated_at=doc.updated_at,
                    session_id=doc.session_id,
                    lane_id=doc.lane_id,
                    anchor=doc.anchor,
                    extra=CandidateExtra(tool=doc.tool) if doc.tool else NO_EXTRA,
                )
            )
    return Fresh(candidates=candidates, replace_doc_ids=frozenset(replace))
