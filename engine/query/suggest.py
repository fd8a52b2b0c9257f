"""Did you mean…? The nearest indexed words for a query that found nothing (docs/search.md).

The index's own vocabulary is read through FTS5's ``fts5vocab`` (a ``temp`` table, so the index
file is never written and read-only connections work). The cost is bounded before rapidfuzz
sees anything: only a query word that is no prefix of any indexed term is corrected, and only
against terms with its first two letters (then its first letter) and a length within
``LENGTH_WINDOW``, reading at most ``MAX_SCAN`` vocabulary rows a range (measured in
benchmarks/journal/waves-1-to-3.md: ``python -m benchmarks.bench_suggest``).
"""

from __future__ import annotations

import apsw
from rapidfuzz import process
from rapidfuzz.distance import OSA

from engine.query.parser import AnyOf, Term, is_token_char
from engine.query.plan import QueryPlan

VOCAB_TABLE = "temp.ade_docs_vocab"

MAX_SCAN = 10_000
"""Vocabulary rows read per range: the cap on the work one suggestion costs (~10 ms here)."""

LENGTH_WINDOW = 2
"""A suggestion is at most this many characters longer or shorter than the typed word."""

MAX_EDITS = 2
"""Edits (OSA: insert, delete, substitute, swap two neighbours) a suggestion may be away from a
word of ``LONG_WORD`` characters or more; shorter words get one edit."""

LONG_WORD = 6

MIN_WORD = 3
"""Shorter words are left alone: too many indexed terms are one edit away from them."""

_TOP = "\U0010ffff"


def suggest_query(conn: apsw.Connection, plan: QueryPlan) -> str | None:
    """The query's words with each unknown one replaced by its nearest indexed term, or None
    when no word is unknown or none has a near neighbour."""
    words = _plain_words(plan)
    if not words:
        return None
    try:
        conn.execute(
            f"CREATE VIRTUAL TABLE IF NOT EXISTS {VOCAB_TABLE}"
            " USING fts5vocab(main, 'docs_fts', 'row')"
        )
    except apsw.Error:
        return None
    changed = False
    out: list[str] = []
    for word in words:
        better = _nearest(conn, word) if _unknown(conn, word) else None
        changed = changed or better is not None
        out.append(better or word)
    return " ".join(out) if changed else None


def _plain_words(plan: QueryPlan) -> list[str]:
    """The bare words of the query, as the tokenizer would see them (phrases are left out:
    a phrase that finds nothing is rarely a typo)."""
    words: list[str] = []
    for node in plan.parsed.terms:
        terms = node.options if isinstance(node, AnyOf) else (node,)
        for term in terms:
            if isinstance(term, Term) and not term.phrase:
                words.extend(_tokens(term.text))
    return words


def _tokens(text: str) -> list[str]:
    token: list[str] = []
    out: list[str] = []
    for ch in text.lower() + " ":
        if is_token_char(ch):
            token.append(ch)
        elif token:
            out.append("".join(token))
            token = []
    return out


def _unknown(conn: apsw.Connection, word: str) -> bool:
    """No indexed term starts with ``word`` (bare words match as prefixes)."""
    row = conn.execute(
        f"SELECT 1 FROM {VOCAB_TABLE} WHERE term >= ? AND term < ? LIMIT 1", (word, word + _TOP)
    ).fetchone()
    return row is None and len(word) >= MIN_WORD


def _nearest(conn: apsw.Connection, word: str) -> str | None:
    """The closest term sharing the word's first two letters (most typos are later in the
    word, and that range is small), else its first letter, scanning at most ``MAX_SCAN``."""
    return _closest(conn, word, word[:2]) or _closest(conn, word, word[0])


def _closest(conn: apsw.Connection, word: str, start: str) -> str | None:
    # The inner LIMIT caps the vocabulary rows read (fts5vocab counts each term's documents
    # as it goes: ~1 µs a row), the outer filter keeps the length window.
    rows = conn.execute(
        f"SELECT term, doc FROM (SELECT term, doc FROM {VOCAB_TABLE}"
        " WHERE term >= ? AND term < ? LIMIT ?) WHERE length(term) BETWEEN ? AND ?",
        (start, start + _TOP, MAX_SCAN, len(word) - LENGTH_WINDOW, len(word) + LENGTH_WINDOW),
    ).fetchall()
    if not rows:
        return None
    terms = [str(term) for term, _ in rows]
    docs = [int(str(count)) for _, count in rows]
    # The C loop scores every candidate by edit distance, where swapping two neighbours is one
    # edit (a similarity ratio counts it as two, so "previwe" came out as "previewer"); the
    # few nearest are then ordered by how many documents hold them (the common word wins a tie:
    # "timeout" before "timeuut").
    edits = MAX_EDITS if len(word) >= LONG_WORD else 1
    close = process.extract(word, terms, scorer=OSA.distance, score_cutoff=edits, limit=8)
    if not close:
        return None
    _, _, index = min(close, key=lambda found: (found[1], -docs[found[2]], terms[found[2]]))
    return terms[index]
