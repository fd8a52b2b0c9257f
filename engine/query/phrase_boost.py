"""The exact-phrase boost of the ranking (issue 32.4).

A query of two or more words finds every document holding all of them, anywhere. A document that
holds them as typed, next to each other (``socket timeout``), is nearly always the one meant, so
within a tier it ranks above one holding them apart: its BM25 gets ``PHRASE_BOOST`` added
(``engine.query.ranking``), larger than any BM25 score, so the boost decides and BM25 orders the
rows on each side of it.

One FTS5 phrase query per ranked window, over the window's row id range only, marks the rows;
the title tiers need no boost (they already hold the query text in the title).
"""

from __future__ import annotations

from collections.abc import Sequence

import apsw
import msgspec

from engine.query.parser import AnyOf, ParsedQuery
from engine.query.ranking import Candidate


def phrase_match(parsed: ParsedQuery) -> str | None:
    """The FTS5 phrase of the query's words in typed order, or None when no boost applies:
    fewer than two words, or an ``a|b`` alternative (no one phrase to look for).

    A bare last word stays a prefix (``socket time`` finds ``socket timeout``), as in the
    query itself; a quoted part's words join the phrase as they are."""
    words: list[str] = []
    last_prefix = False
    for node in parsed.terms:
        if isinstance(node, AnyOf):
            return None
        words.append(node.text)
        last_prefix = node.prefix
    if len(" ".join(words).split()) < 2:
        return None
    quoted = '"' + " ".join(words).replace('"', '""') + '"'
    return quoted + "*" if last_prefix else quoted


def phrase_rowids(conn: apsw.Connection, match: str, rowids: Sequence[int]) -> set[int]:
    """Which of ``rowids`` hold ``match`` (a phrase from ``phrase_match``)."""
    if not rowids:
        return set()
    sql = "SELECT rowid FROM docs_fts WHERE docs_fts MATCH ? AND rowid >= ? AND rowid <= ?"
    wanted = set(rowids)
    try:
        found = conn.execute(sql, (match, min(rowids), max(rowids)))
        return {int(rowid) for (rowid,) in found if rowid in wanted}
    except apsw.SQLError:  # a phrase FTS5 cannot parse (only punctuation): no boost, not an error
        return set()


def row_has_phrase(conn: apsw.Connection, parsed: ParsedQuery, rowid: int) -> bool | None:
    """Whether one indexed row holds the query's phrase; None when the query has none."""
    match = phrase_match(parsed)
    if match is None:
        return None
    return bool(phrase_rowids(conn, match, [rowid]))


def with_phrase_boost(
    conn: apsw.Connection, parsed: ParsedQuery, indexed: list[tuple[int, Candidate]]
) -> list[tuple[int, Candidate]]:
    """``indexed`` (row id, candidate) with ``phrase`` set on the rows holding the query's phrase."""
    match = phrase_match(parsed)
    if match is None or not indexed:
        return indexed
    held = phrase_rowids(conn, match, [rowid for rowid, _ in indexed])
    if not held:
        return indexed
    return [
        (rowid, msgspec.structs.replace(c, phrase=True) if rowid in held else c)
        for rowid, c in indexed
    ]
