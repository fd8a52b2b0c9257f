"""``session:<id>`` freshness (DESIGN §5): match a session's not-yet-indexed tail live.

The query reads the owning session directly from its cursor to the end, builds the documents the
next ingestion pass would write, matches them against the query in Python, and hands them to
``run_query`` as extra candidates that replace indexed rows of the same doc id. A message accepted
a moment ago therefore appears exactly once, before the debounce has run. The transcript builders
are imported only when a query names a session (most queries never do).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from datetime import datetime

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
from engine.query.parser import AnyOf, ParsedQuery, Term, parse_query
from engine.query.ranking import Candidate
from engine.query.snippets import fold, make_snippet
from engine.types import SearchQueryArgs

_WORD_RE = re.compile(r"[^\W_]+")


@dataclass(frozen=True)
class Fresh:
    """Live candidates of the filtered sessions and the doc ids they supersede."""

    candidates: list[Candidate]
    replace_doc_ids: frozenset[str]


def _term_matches(term: Term, words: list[str], folded: str) -> bool:
    tokens = [fold(t) for t in _WORD_RE.findall(term.text)]
    if not tokens:
        return True
    if len(tokens) > 1 or term.phrase:
        return (
            " ".join(tokens) in " ".join(words)
            if not term.prefix
            else any(
                " ".join(words[i : i + len(tokens)]).startswith(" ".join(tokens))
                for i in range(len(words))
            )
        )
    token = tokens[0]
    return any(w == token or (term.prefix and w.startswith(token)) for w in words) or (
        term.prefix and token in folded
    )


def matches(parsed: ParsedQuery, text: str) -> bool:
    """True when ``text`` satisfies every term of ``parsed`` and none of its exclusions."""
    folded = fold(text)
    words = _WORD_RE.findall(folded)
    for node in parsed.terms:
        options = node.options if isinstance(node, AnyOf) else (node,)
        if not any(_term_matches(t, words, folded) for t in options):
            return False
    return not any(_term_matches(t, words, folded) for t in parsed.excluded)


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
    conn: apsw.Connection,
    project: Project,
    args: SearchQueryArgs,
    now: datetime,
    tally: WarningTally,
) -> Fresh | None:
    """Live candidates for a query with ``session:<id>`` filters, or None without one."""
    try:
        parsed = parse_query(args.query, now=now)
    except Exception:  # run_query reports bad input with its own clear error
        return None
    sids = [s for s in parsed.sessions if is_valid_session_id(s)]
    if not sids:
        return None
    candidates: list[Candidate] = []
    replace: set[str] = set()
    for sid in sids:
        for doc in _live_docs(conn, project, sid, tally):
            replace.add(doc.doc_id)
            if parsed.since_ms is not None and doc.updated_at < parsed.since_ms:
                continue
            if not matches(parsed, f"{doc.rank_title}\n{doc.body}"):
                continue
            if parsed.tools is not None and doc.tool not in parsed.tools:
                continue
            candidates.append(
                Candidate(
                    doc_id=doc.doc_id,
                    kind=doc.kind,
                    title=doc.title,
                    rank_title=doc.rank_title,
                    snippet_marked=make_snippet(doc.body, parsed),
                    updated_at=doc.updated_at,
                    session_id=doc.session_id,
                    lane_id=doc.lane_id,
                    anchor=doc.anchor,
                    extra={"tool": doc.tool} if doc.tool else {},
                )
            )
    return Fresh(candidates=candidates, replace_doc_ids=frozenset(replace))
