"""The few document reads and writes ingestion needs beyond ``engine.index.documents``.

Both run inside the caller's ``BEGIN IMMEDIATE`` transaction: which message ids a session already
has (a replayed event changes nothing), and renaming or moving a session's child documents when
its title or lane changes. ``title`` and ``lane_id`` are not FTS columns (message and chunk docs
carry an empty ``rank_title``), so updating them in place keeps ``docs`` and ``docs_fts`` in step.
"""

from __future__ import annotations

import json
from collections.abc import Iterable

import apsw


def existing_doc_ids(conn: apsw.Connection, doc_ids: Iterable[str]) -> set[str]:
    """The subset of ``doc_ids`` already in the index: one statement for the whole batch (a
    pass of a chat transcript asks about every message it read)."""
    wanted = list(doc_ids)
    if not wanted:
        return set()
    rows = conn.execute(
        "SELECT doc_id FROM docs WHERE doc_id IN (SELECT value FROM json_each(?))",
        (json.dumps(wanted),),
    )
    return {str(r[0]) for r in rows}


def doc_title_lane(conn: apsw.Connection, doc_id: str) -> tuple[str, str | None] | None:
    """``(title, lane_id)`` of one document, or None when absent."""
    row = conn.execute("SELECT title, lane_id FROM docs WHERE doc_id = ?", (doc_id,)).fetchone()
    return None if row is None else (str(row[0]), row[1])


def retitle_children(
    conn: apsw.Connection, kind: str, session_id: str, title: str, lane_id: str | None
) -> None:
    """Give every message/chunk doc of a session the session's current title and lane."""
    conn.execute(
        "UPDATE docs SET title = ?, lane_id = ? WHERE kind = ? AND session_id = ?"
        " AND rank_title = '' AND doc_id != ?",
        (title, lane_id, kind, session_id, f"{kind}:{session_id}"),
    )
