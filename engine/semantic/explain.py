"""The semantic factor of ``--explain`` (docs/semantic.md): each indexed hit's cosine to the query."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from pathlib import Path

import msgspec

from engine.index.db import connect
from engine.query.explain import explain_page
from engine.query.plan import build_plan
from engine.semantic import enabled
from engine.semantic.hybrid import query_text, take_mode
from engine.types import HitExplanation, SearchQueryArgs, SearchResultItem


def explain_with_meaning(
    index_path: Path, query: str, items: Sequence[SearchResultItem], *, now: datetime
) -> list[HitExplanation]:
    """``explain_page`` (``mode:semantic`` is no word of the query), each row given its cosine
    to the query when the semantic extra is on (None otherwise, and for a delegated row)."""
    args, _asked = take_mode(SearchQueryArgs(query=query))
    conn = connect(index_path)
    try:
        out = explain_page(conn, args.query, items, now=now)
        if not enabled() or not items:
            return out
        from engine.semantic.store import cosines  # deferred: numpy and the model

        text = query_text(build_plan(args, now=now, lanes=()))
        rowids: dict[int, str] = {}
        for item in items:
            for (rowid,) in conn.execute("SELECT id FROM docs WHERE doc_id = ?", (item.doc_id,)):
                rowids[int(rowid)] = item.doc_id
        meaning = {rowids[r]: cos for r, cos in cosines(conn, text, list(rowids)).items()}
    finally:
        conn.close()
    return [msgspec.structs.replace(why, semantic=meaning.get(why.doc_id)) for why in out]
