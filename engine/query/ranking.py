"""Deterministic ranking: tiers, the total-order comparator, snippet markers (DESIGN §5).

Pure functions over frozen records; no database. Tier by title match against the normalized query
text — exact title > title prefix > title substring > body — and only the body tier uses BM25.
Within the body tier, exact-token relevance (``bm25``) comes before split-identifier relevance
(``bm25_split``), so ``error`` ranks a document with the word *error* above one that only has
``TypeError`` (the identifier boost: a whole identifier beats its parts). In the body tier a row
holding the query's words as one phrase comes first (``engine.query.phrase_boost``). Ties in every
tier: ``updated_at`` descending, then ``doc_id`` ascending (a file
hit's line numbers as numbers: line 235 before line 1310) — a total order, so paging and repeated
queries are stable.
"""

# warm path: a warm `ade search` imports this; keep its imports light (ARCHITECTURE: The warm path)

from __future__ import annotations

import functools
import re
from collections.abc import Callable

import msgspec

from engine.index.normalize import normalize_title_query as normalize_title_query
from engine.types import TIER_ORDER, MatchRange, Tier

MARK_START = "\x01"
"""Opens a highlighted span in a marked snippet; the sanitizer keeps it out of indexed text."""

MARK_END = "\x02"
"""Closes a highlighted span."""

SortKey = tuple[int, float, float, int, str]

PHRASE_BOOST = -1000.0
"""Added to the BM25 score (lower is better) of a row holding the query's words as one phrase
(``engine.query.phrase_boost``). FTS5 scores stay far inside ±1000 for any text we index, so every
phrase row of a tier sorts first and BM25 orders the rows on each side of the boost."""


class CandidateExtra(msgspec.Struct, frozen=True):
    """What a candidate carries beyond its indexed columns, for the page it may be shown on.

    Delegates fill it (a file hit's link and line window, a lane's name, a cut answer); an
    indexed chat row carries its tool. Every field is optional: most candidates share
    :data:`NO_EXTRA`.
    """

    deep_link: str | Callable[[], str] | None = None
    """The ``ade://`` link, or a callable building it for the page shown only (a common word
    offers tens of thousands of file lines); None: made from the kind and anchor
    (``engine.query.run.default_link``)."""
    snippet: Callable[[], str] | None = None
    """A delegate's marked snippet, made for the page shown only (``snippet_marked`` is empty)."""
    lane_name: str | None = None
    """The lane's name for a row whose ``lane_id`` is not an indexed lane (a lane hit)."""
    tool: str | None = None
    """The agent that wrote a chat row (``claude``, ``codex``…)."""
    results_truncated: bool = False
    """The delegate cut its answer (the file line cap): the total is a floor."""
    unlisted: int = 0
    """Hits of the same delegate left out because they rank past every page this query can show
    (its cursor, offset and limit): counted in the answer's total, never built."""


NO_EXTRA = CandidateExtra()
"""The shared empty extra: a window builds a thousand candidates, most with nothing extra."""


class Candidate(msgspec.Struct, frozen=True):
    """One document that may be shown, before ranking and paging.

    ``bm25`` is the FTS5 score over title and body (lower is better; 0 means no exact-token hit),
    ``bm25_split`` the score over identifier parts only; both None outside full-text matches.
    ``extra`` carries what a delegate needs for its page (deep link, lazy snippet, lane name…).
    The query path builds a window's candidates positionally (``candidates._row_candidate``): keep
    the field order.
    """

    doc_id: str
    kind: str
    title: str
    rank_title: str
    snippet_marked: str
    updated_at: int
    session_id: str | None = None
    lane_id: str | None = None
    anchor: str | None = None
    bm25: float | None = None
    bm25_split: float | None = None
    extra: CandidateExtra = NO_EXTRA
    phrase: bool = False
    """The row holds the query's words as one phrase: the exact-phrase boost (body tier)."""


def tier_for(candidate: Candidate, normalized_query: str) -> Tier:
    """The title tier of ``candidate`` for an already-normalized query text.

    An empty query text (filter-only) and an empty ``rank_title`` (messages, chunks) are body.
    """
    if not normalized_query or not candidate.rank_title:
        return "body"
    title = normalize_title_query(candidate.rank_title)
    if title == normalized_query:
        return "exact_title"
    if title.startswith(normalized_query):
        return "title_prefix"
    if normalized_query in title:
        return "title_substring"
    return "body"


@functools.cache
def _digits_re() -> re.Pattern[str]:
    """Runs of digits; compiled for the first file hit (journal: "Regexes compiled lazily")."""
    return re.compile(r"\d{1,20}")


def natural_key(doc_id: str) -> str:
    """``doc_id`` with each run of digits prefixed by its length, so plain string order is
    numeric order for the numbers inside: ``file:a.c:235`` before ``file:a.c:1310``,
    ``terminal:s@4096`` before ``terminal:s@12288``."""
    return _digits_re().sub(lambda m: f"{len(m.group()):02d}{m.group()}", doc_id)


def sort_key(candidate: Candidate, tier: Tier) -> SortKey:
    """The total-order key: tier, BM25 (body tier only, plus ``PHRASE_BOOST`` for a phrase row),
    split-identifier BM25, ``updated_at`` desc (recency breaks ties), ``doc_id`` asc.

    A file hit's id is compared by :func:`natural_key`, so its lines come in numeric order.
    Only file hits: the filter-only path pages indexed documents with an SQL keyset over
    ``doc_id`` as text, which this key must agree with, and file hits never come from SQL.
    """
    if tier == "body":
        exact = candidate.bm25 if candidate.bm25 is not None else 0.0
        exact += PHRASE_BOOST if candidate.phrase else 0.0
        split = candidate.bm25_split if candidate.bm25_split is not None else 0.0
    else:
        exact = split = 0.0
    doc_id = natural_key(candidate.doc_id) if candidate.kind == "file" else candidate.doc_id
    return (TIER_ORDER[tier], exact, split, -candidate.updated_at, doc_id)


def rank(candidates: list[Candidate], normalized_query: str) -> list[tuple[Candidate, Tier]]:
    """Tier and sort candidates into the one total order (duplicate doc ids must be removed first)."""
    tiered = [(c, tier_for(c, normalized_query)) for c in candidates]
    tiered.sort(key=lambda pair: sort_key(*pair))
    return tiered


_MARKS = re.compile(f"([{MARK_START}{MARK_END}])")


def extract_snippet_ranges(marked: str) -> tuple[str, tuple[MatchRange, ...]]:
    """Strip ``\\x01``/``\\x02`` markers; return the plain snippet and code-point match ranges.

    An unclosed start runs to the end; a stray end marker is dropped; empty spans are omitted.
    Walks the pieces between markers, not every character: once per shown hit, a rare term's
    whole cost is per-hit work like this (benchmarks/journal/waves-1-to-3.md, "Peers and scale").
    """
    out: list[str] = []
    ranges: list[MatchRange] = []
    start: int | None = None
    length = 0
    for i, piece in enumerate(_MARKS.split(marked)):
        if i % 2 == 0:  # the text between two markers (split keeps the markers at odd places)
            out.append(piece)
            length += len(piece)
        elif piece == MARK_START:
            if start is None:
                start = length
        else:
            if start is not None and length > start:
                ranges.append(MatchRange(start=start, end=length))
            start = None
    if start is not None and length > start:
        ranges.append(MatchRange(start=start, end=length))
    return "".join(out), tuple(ranges)
