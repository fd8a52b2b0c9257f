"""The index's own vocabulary, for the relaxed steps (docs/search.md): a typo corrected within one
edit, and the inflections of a word that the index holds.

Both read FTS5's ``fts5vocab`` over ``docs_fts`` (a ``temp`` table: the index file is never
written, read-only connections work) and bound their cost before any Python sees a row: a range
of terms sharing the word's first letters, at most ``MAX_SCAN`` rows. Inflections are found, not
indexed: the word's Porter stem (FTS5's own ``porter`` tokenizer, wrapping the index's
``unicode61``) is compared with the stems of the indexed words that start like it, so
``persisting`` finds ``persist`` and ``retry`` finds ``retries`` with no second inverted index
(the index stays its size: docs/search.md, "When nothing matches exactly").
"""

# warm path: a warm `ade search` imports this; keep its imports light (ARCHITECTURE: The warm path)

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

import apsw

from engine.index.schema import FTS_TOKENIZER

_ASCII_LOWERCASE = "abcdefghijklmnopqrstuvwxyz"
"""``string.ascii_lowercase`` (``string`` compiles a ``Template`` pattern at import: ~2.7 M
instructions of every search that may relax, the start-up budget)."""

VOCAB_TABLE = "temp.ade_docs_vocab"
"""Shared with ``engine.query.suggest`` (the did-you-mean warning): created once a connection."""

MAX_SCAN = 10_000
"""Vocabulary rows read per range: the cap on what one word's correction or inflection costs."""

MIN_TYPO_WORD = 5
"""Shorter unknown words are left alone: too many indexed words are one edit away from them."""

MAX_EDITS = 1
"""A correction is at most one edit away (an insertion, deletion, substitution or two adjacent
letters swapped: ``timeuot`` → ``timeout``)."""

MIN_STEM_PREFIX = 3
"""Inflections are looked up among indexed words sharing at least this many first letters."""

_TOP = "\U0010ffff"

_Found = TypeVar("_Found")

_MISSING = object()

REMEMBERED_WORDS = 1024
"""Words remembered (``_remembered``) before it starts afresh: a daemon over an index that
stands still sees every query anyone types."""

_looked_up: list[tuple[apsw.Connection, tuple[int, int], dict[tuple[str, str], object]]] = []
"""The last connection's corrections and inflections, kept while its index stands still (no
commit by another connection: ``data_version``; none of its own: ``total_changes``). A query
asks for the same words more than once (the relaxed steps, then the semantic layer's check of
the words step, ``engine.semantic.hybrid.paraphrased``; a relaxed answer's later page), and a
correction is a range read and a fuzzy match (milliseconds a word). One connection, not a
weak mapping of them: ``weakref`` would be one more module on every search's start-up."""


def _remembered(conn: apsw.Connection, kind: str, word: str, look: Callable[[], _Found]) -> _Found:
    state = (int(conn.pragma("data_version")), conn.total_changes())
    last = _looked_up[0] if _looked_up else None
    if last is None or last[0] is not conn or last[1] != state or len(last[2]) >= REMEMBERED_WORDS:
        last = (conn, state, {})
        _looked_up[:] = [last]
    found = last[2].get((kind, word), _MISSING)
    if found is _MISSING:
        found = look()
        last[2][(kind, word)] = found
    return found  # type: ignore[return-value]


def open_vocab(conn: apsw.Connection) -> bool:
    """Create the temp ``fts5vocab`` table on ``conn`` (idempotent); False when it cannot."""
    try:
        conn.execute(
            f"CREATE VIRTUAL TABLE IF NOT EXISTS {VOCAB_TABLE}"
            " USING fts5vocab(main, 'docs_fts', 'row')"
        )
    except apsw.Error:
        return False
    return True


def known(conn: apsw.Connection, word: str) -> bool:
    """Some indexed word starts with ``word`` (a bare word matches as a prefix)."""
    row = conn.execute(
        f"SELECT 1 FROM {VOCAB_TABLE} WHERE term >= ? AND term < ? LIMIT 1", (word, word + _TOP)
    ).fetchone()
    return row is not None


def _range(conn: apsw.Connection, start: str, lengths: tuple[int, int]) -> list[tuple[str, int]]:
    # The inner LIMIT caps the rows read (fts5vocab counts each term's documents as it goes).
    rows = conn.execute(
        f"SELECT term, doc FROM (SELECT term, doc FROM {VOCAB_TABLE}"
        " WHERE term >= ? AND term < ? LIMIT ?) WHERE length(term) BETWEEN ? AND ?",
        (start, start + _TOP, MAX_SCAN, *lengths),
    ).fetchall()
    return [(str(term), int(str(docs))) for term, docs in rows]


def correct(conn: apsw.Connection, word: str) -> str | None:
    """The indexed word one edit from ``word`` (folded, five letters or more, unknown to the
    index), the one most documents hold on a tie; None when there is none.

    Looked up among words with the same first two letters, then the same first letter (most
    typos are later in a word, and those ranges are small), then, for a typo in the first
    letter, by the words one edit there would make (``first_letter_edits``), each looked up.
    Remembered per connection while the index stands still (``_remembered``).
    """
    return _remembered(conn, "correct", word, lambda: _correct(conn, word))


def _correct(conn: apsw.Connection, word: str) -> str | None:
    if len(word) < MIN_TYPO_WORD or not word.isalpha() or known(conn, word):
        return None
    # Deferred: only a query with an unknown word pays rapidfuzz's import (the start-up budget).
    from rapidfuzz import process
    from rapidfuzz.distance import OSA

    lengths = (len(word) - MAX_EDITS, len(word) + MAX_EDITS)
    for start in (word[:2], word[:1]):
        rows = _range(conn, start, lengths)
        terms = [term for term, _ in rows]
        close = process.extract(
            word, terms, scorer=OSA.distance, score_cutoff=MAX_EDITS, limit=None
        )
        if close:
            # Fewest edits, then the word most documents hold, then the first in order.
            _, _, index = min(close, key=lambda found: (found[1], -rows[found[2]][1], found[2]))
            return terms[index]
    return _first_letter(conn, word)


def first_letter_edits(word: str) -> list[str]:
    """The words one edit in the first letter of ``word`` makes, in a fixed order: the first
    letter dropped, swapped with the second, replaced, or one put before it (``xebhook``,
    ``ebhook``, ``ewbhook``, ``wwebhook`` → ``webhook``)."""
    letters = sorted(set(_ASCII_LOWERCASE) | set(word))
    edits = [word[1:], word[1] + word[0] + word[2:]]
    edits += [c + word[1:] for c in letters if c != word[0]]
    edits += [c + word for c in letters]
    return list(dict.fromkeys(edits))


def _first_letter(conn: apsw.Connection, word: str) -> str | None:
    """The indexed word one edit in the first letter away, most documents first (then the
    first in ``first_letter_edits`` order); a few dozen point lookups, no range read."""
    best: tuple[int, int, str] | None = None
    sql = f"SELECT doc FROM {VOCAB_TABLE} WHERE term = ?"
    for order, edit in enumerate(first_letter_edits(word)):
        row = conn.execute(sql, (edit,)).fetchone()
        if row is not None and (best is None or (-int(str(row[0])), order) < best[:2]):
            best = (-int(str(row[0])), order, edit)
    return None if best is None else best[2]


def _stems(conn: apsw.Connection, words: list[str]) -> list[str]:
    """The Porter stem of each plain word (FTS5's ``porter`` over the index's own tokenizer):
    one tokenizer call for them all, each word being one token."""
    if not words:
        return []
    tokenize = conn.fts5_tokenizer("porter", FTS_TOKENIZER.split())
    tokens = list(tokenize(" ".join(words).encode("utf-8"), apsw.FTS5_TOKENIZE_QUERY, None))
    if len(tokens) != len(words):  # a word the tokenizer splits: stem each on its own
        return [_stems(conn, [word])[0] if len(words) > 1 else word for word in words]
    # Each token is (start, end, text, *colocated): the text is the stem.
    return [str(token[2]) for token in tokens]  # type: ignore[misc]


def inflections(conn: apsw.Connection, word: str) -> tuple[str, ...]:
    """The indexed words with the Porter stem of ``word`` (``retry`` → ``retries``,
    ``retrying``), ``word`` itself left out, in order; empty for a word that is not plain
    letters (an identifier or a path is never inflected). Remembered as ``correct`` is."""
    return _remembered(conn, "inflections", word, lambda: _inflections(conn, word))


def _inflections(conn: apsw.Connection, word: str) -> tuple[str, ...]:
    if not word.isalpha() or len(word) < MIN_STEM_PREFIX:
        return ()
    (stem,) = _stems(conn, [word])
    shared = 0
    while shared < min(len(stem), len(word)) and stem[shared] == word[shared]:
        shared += 1
    if shared < MIN_STEM_PREFIX:
        return ()
    # Porter rewrites the ending (retry → retri): the forms share the stem's first letters.
    start = word[: max(MIN_STEM_PREFIX, min(shared, len(stem) - 1))]
    lengths = (len(stem) - 1, len(stem) + 6)
    terms = [term for term, _ in _range(conn, start, lengths) if term.isalpha() and term != word]
    return tuple(t for t, s in zip(terms, _stems(conn, terms), strict=True) if s == stem)
