"""Lexical and semantic rankings fused by reciprocal rank (docs/semantic.md).

The semantic ranking is asked for only when it can help: the query says ``mode:semantic``, or
the lexical steps found too little (fewer than ``FEW`` hits, or only a relaxed answer). Quoted
phrases keep their strict meaning unless ``mode:semantic`` is written.

Three rankings are fused by reciprocal rank, ``1 / (RRF_K + rank)`` summed over the lists: the
lexical answer when it is relaxed (vague by its own account), BM25 over documents holding any of
the query's words (``bm25_any``: what a remembered sentence or a typo still shares with its
target), and the nearest vectors — weighed in when meaning is asked for or the words found too
little, else only breaking the words' ties and adding what they did not find (``vector_weight``). Exact matches are never put below vague ones: the hits of a
strict lexical answer (or of a corrected spelling or other word forms: ``KEEP_ON_TOP``) keep
their order at the top, and the fused hits follow them.
"""

# warm path: a warm `ade search` imports this; keep its imports light (ARCHITECTURE: The warm path)

from __future__ import annotations

import functools
import math
import re
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

import apsw
import msgspec

from engine.index.documents import fetch_bodies
from engine.index.sql import (
    COLUMNS,
    EXACT_WEIGHTS,
    Filters,
    filter_sql,
    matching_rowids_sql,
    role_match,
)
from engine.query.candidates import fetch_rows, plan_filters
from engine.query.parser import build_excluded
from engine.query.run import default_link, wire_item
from engine.query.snippets import make_snippet
from engine.query.source_text import snippet_texts
from engine.query.vocab import VOCAB_TABLE, open_vocab
from engine.semantic import enabled, installed

if TYPE_CHECKING:
    from engine.project.model import Lane, Project
    from engine.query.plan import QueryPlan
    from engine.types import SearchQueryArgs, SearchQueryResult, SearchResultItem

MODE_SEMANTIC = "mode:semantic"
"""Written anywhere in a query (outside quotes): rank by meaning as well, whatever was found."""

FEW = 3
"""Fewer lexical hits than this is "too little": the semantic ranking is added unasked."""

RRF_K = 60
"""The constant of reciprocal rank fusion (Cormack et al. 2009): ranks past the first few
weigh nearly alike, so neither list's top hit can be buried by the other's tail."""

SEMANTIC_WEIGHT = 0.5
"""The nearest vectors' share of a fused score beside a word ranking's 1 when meaning is asked
for or the words found too little (``vector_weight``): a static model's neighbours are a weaker
sign than shared words (benchmarks/RESULTS.md, known-item search)."""

SEMANTIC_DEPTH = 50
"""How many of the nearest documents the semantic ranking offers to the fusion."""

MIN_COSINE = 0.2
"""Nearer than this or not at all: below it WordLlama's neighbours share only common words.
Measured from the index's mean since (``engine.semantic.store``), where cosines run higher;
kept: at 0.35 one paraphrase of the second set fell from 1 to 3 and none of the first moved
(benchmarks/journal/2026-12-07-paraphrase.md)."""

KEEP_ON_TOP: tuple[str | None, ...] = (None, "spelling", "inflection")
"""Lexical answers whose hits keep their order above the fused ones: a strict answer, and the
relaxed steps that answer the query as it was meant (the corrected spelling, the other forms of
its words). Only the words steps (most of the words, any of them) are vague and fused."""

WORDS_STEPS = ("most_words", "any_word")
"""The relaxed steps that answer with documents holding some of the words (``paraphrased``)."""

SEMANTIC_NOTE = "semantic: ranked by meaning as well (mode:semantic or few exact matches)"
NOT_INSTALLED_NOTE = (
    "mode:semantic: the semantic extra is not installed (pip install 'ade-search[semantic]');"
    " showing lexical matches only"
)

SWITCHED_OFF_NOTE = "mode:semantic: switched off by ADE_SEMANTIC=0; showing lexical matches only"


@functools.cache
def _mode_re() -> re.Pattern[str]:
    """A quoted phrase (kept) or ``mode:semantic``, compiled on first use: only a query holding
    a ``:`` can hold the switch (a warm search of words compiles it not)."""
    return re.compile(r'"[^"]*"|(?<!\S)mode:semantic(?!\S)', re.IGNORECASE)


def take_mode(args: SearchQueryArgs) -> tuple[SearchQueryArgs, bool]:
    """``args`` without ``mode:semantic`` (outside quotes), and whether it was there."""
    if ":" not in args.query:
        return args, False  # no ``mode:semantic`` in any case
    found = False

    def drop(match: re.Match[str]) -> str:
        nonlocal found
        if match.group().startswith('"'):
            return match.group()
        found = True
        return ""

    text = _mode_re().sub(drop, args.query)
    if not found:
        return args, False
    return msgspec.structs.replace(args, query=" ".join(text.split())), True


def wanted(plan: QueryPlan, result: SearchQueryResult, asked: bool) -> bool:
    """Whether the semantic ranking is added to this answer (see the module docstring)."""
    if plan.cursor is not None or plan.parsed.match_all or plan.parsed.match_none:
        return False  # a later page keeps the lexical order; a filter-only query has no meaning
    if asked:
        return True
    if plan.phrases:
        return False
    return too_little(result) or bool(getattr(result, "relaxed", None))


def too_little(result: SearchQueryResult) -> bool:
    """Whether the words found fewer than ``FEW`` documents in all, not on this page: a page cut
    short by ``--limit 2`` over a thousand matches is not "too little", and taking it so fused
    vectors into a strict answer whose first hits, total and next page a longer limit would
    not have changed."""
    return max(result.total, len(result.items)) < FEW


def query_text(plan: QueryPlan) -> str:
    """The words of the query, filters left out: what is embedded."""
    return " ".join(term.text for node in plan.nodes for term in node)


def hybrid_answer(
    conn: apsw.Connection, plan: QueryPlan, result: SearchQueryResult, *, asked: bool,
    project: Project, lanes: list[Lane], depth: int | None = None,
) -> SearchQueryResult:  # fmt: skip
    """``result`` with the semantic ranking fused in when it is wanted and installed; ``depth``
    (default ``plan.limit``): how many fused hits are kept (``engine.service.relaxed_pages``)."""
    if not wanted(plan, result, asked):
        return result
    if not enabled():
        if not asked:
            return result
        note = SWITCHED_OFF_NOTE if installed() else NOT_INSTALLED_NOTE
        return msgspec.structs.replace(result, warnings=(*result.warnings, note))
    from engine.semantic.store import WAIT_S, fill_missing, nearest, writer  # deferred: numpy

    writer.wait(WAIT_S)  # what this process has just written, within a bound
    fill_missing(conn, project)
    filters = plan_filters(plan)
    near = nearest(conn, query_text(plan), filters, SEMANTIC_DEPTH)
    meaning = [rowid for rowid, cos in near if cos >= MIN_COSINE]
    words = bm25_any(conn, plan, filters, SEMANTIC_DEPTH)
    words, meaning = without_excluded(conn, plan, words, meaning)
    if not meaning and not words:
        return result
    ids = _doc_ids(conn, [*words, *meaning])
    ranked = [[ids[r] for r in rows if r in ids] for rows in (words, meaning)]
    lexical = [item.doc_id for item in result.items]
    strict = getattr(result, "relaxed", None) in KEEP_ON_TOP
    weight = vector_weight(result, asked, paraphrased=lambda: paraphrased(conn, plan, result))
    page = fuse(lexical, *ranked, strict=strict, weights=(1.0, weight),
                ties=(lexical, ranked[1]))  # fmt: skip
    page = page[: max(depth or plan.limit, plan.limit)]
    # Items (snippets re-derived from transcripts) only for the page shown.
    shown = {item.doc_id: item for item in result.items}
    rowid_of = {doc_id: rowid for rowid, doc_id in ids.items()}
    wanted_rows = [rowid_of[d] for d in page if d not in shown]
    shown.update(
        (item.doc_id, item) for item in _items(conn, plan, wanted_rows, project, lanes).values()
    )
    items = tuple(shown[d] for d in page if d in shown)
    return msgspec.structs.replace(
        result, items=items, next_cursor=None, total=max(result.total, len(items)),
        warnings=(*result.warnings, SEMANTIC_NOTE),
    )  # fmt: skip


def vector_weight(
    result: SearchQueryResult, asked: bool, paraphrased: Callable[[], bool] = lambda: False
) -> float:
    """The nearest vectors' weight in the fusion: ``SEMANTIC_WEIGHT`` when meaning was asked for
    (``mode:semantic``), the words found too little (fewer than ``FEW`` hits) or only incidental
    words (``paraphrased``, asked last: it reads the index); else 0, when a relaxed answer found
    a page unasked: the words decide, and the vectors only break their ties and add, after them,
    what the words did not find. A static model's neighbours rank by topic: weighed in, they put
    a sibling message of the same topic above the one holding the words a person remembered
    (benchmarks/journal/2026-12-07-known-items-ranking.md)."""
    if asked or too_little(result):
        return SEMANTIC_WEIGHT
    return SEMANTIC_WEIGHT if paraphrased() else 0.0


def paraphrased(conn: apsw.Connection, plan: QueryPlan, result: SearchQueryResult) -> bool:
    """Whether a words step's page holds only incidental words of the query: no hit of its
    first page holds half of its distinctive words as typed
    (``engine.query.relax.most_held_as_typed``; the first page only, so a later page, fetched
    deeper, weighs as page 1 did). A person who remembers the words finds a document holding
    most of them; one who says the same thing in other words (a paraphrase) finds documents
    sharing a word or two by chance, and then the meaning is the better sign
    (benchmarks/journal/2026-12-07-paraphrase.md)."""
    if getattr(result, "relaxed", None) not in WORDS_STEPS:
        return False
    from engine.query.relax import most_held_as_typed

    counts = most_held_as_typed(conn, plan, result.items[: plan.limit])
    return counts is not None and counts[0] * 2 < counts[1]


def fuse(
    lexical: list[str], *others: list[str], strict: bool, weights: tuple[float, ...] = (),
    ties: Sequence[Sequence[str]] = (),
) -> list[str]:  # fmt: skip
    """Doc ids in one list: a strict ``lexical`` answer first in its own order, then ``others``
    fused by reciprocal rank; a relaxed one is fused with them (equal scores: the earlier in
    each of ``ties`` in turn — the words' own order, then the nearest first — then the earlier
    list, then doc id). ``weights`` are those of ``others`` (default 1 each); a
    relaxed ``lexical`` weighs 1; a list of weight 0 only adds its documents, after the others."""
    top = lexical if strict else []
    lists = others if strict else (lexical, *others)
    scale = [*(() if strict else (1.0,)), *weights, *([1.0] * len(others))][: len(lists)]
    kept = set(top)
    terms: dict[str, list[float]] = {}
    first: dict[str, int] = {}
    for side, ids in enumerate(lists):
        for rank, doc_id in enumerate(ids, start=1):
            if doc_id in kept:
                continue
            terms.setdefault(doc_id, []).append(scale[side] / (RRF_K + rank))
            first.setdefault(doc_id, side)
    # fsum: the exactly rounded sum, whatever the order of its terms. Added one by one, the
    # same terms in another order (ranks 1, 7, 2 against 2, 1, 7) differ in the last bit, and
    # that bit, not ``ties``, decided which of two equal scores came first.
    score = {doc_id: math.fsum(parts) for doc_id, parts in terms.items()}
    orders = [{doc_id: rank for rank, doc_id in enumerate(order)} for order in ties]

    def key(d: str) -> tuple[float | int | str, ...]:
        return (-score[d], *(order.get(d, len(order)) for order in orders), first[d], d)

    return [*top, *sorted(score, key=key)]


def bm25_any(conn: apsw.Connection, plan: QueryPlan, f: Filters, k: int) -> list[int]:
    """Row ids of the ``k`` best documents by BM25 holding any word of the query (title and
    body weighed as the strict path weighs them), best first.

    A word half the documents or more hold (``the``, ``was``) is left out of the OR
    (``scoring_tokens``): FTS5's BM25 gives it an IDF of 1e-6, so it moves no document's score,
    but OR-ed in it made BM25 score nearly every document of the index (most of this ranking's
    cost, docs/semantic.md)."""
    tokens = scoring_tokens(
        conn, sorted({tok for node in plan.nodes for term in node for tok in term.tokens})
    )
    if not tokens:
        return []
    match = " OR ".join('"' + tok.replace('"', '""') + '"' for tok in tokens)
    where, params = filter_sql(f, fts=True)
    sql = (
        "SELECT docs_fts.rowid FROM docs_fts CROSS JOIN docs d ON d.id = docs_fts.rowid"
        f" WHERE docs_fts MATCH ?{where}"
        f" ORDER BY bm25(docs_fts, {EXACT_WEIGHTS}), docs_fts.rowid DESC LIMIT ?"
    )
    return [int(r[0]) for r in conn.execute(sql, [role_match(match, f.roles), *params, k])]


def without_excluded(
    conn: apsw.Connection, plan: QueryPlan, *ranked: list[int]
) -> tuple[list[int], ...]:
    """Each of the ``ranked`` row-id lists without the documents an excluded term (``-word``)
    matches: the words ranking ORs only the wanted words and the vectors know no words, so
    without this a fused page held documents the query said to leave out."""
    excluded = build_excluded(plan.parsed)
    rows = sorted({r for rowids in ranked for r in rowids})
    if excluded is None or not rows:
        return ranked
    out = {int(str(r)) for (r,) in conn.execute(*matching_rowids_sql(excluded, rows))}
    return tuple([r for r in rowids if r not in out] for rowids in ranked)


def _doc_ids(conn: apsw.Connection, rowids: list[int]) -> dict[int, str]:
    unique = sorted(set(rowids))
    if not unique:
        return {}
    sql = f"SELECT id, doc_id FROM docs WHERE id IN ({','.join('?' * len(unique))})"
    return {int(r): str(d) for r, d in conn.execute(sql, unique)}


def _items(
    conn: apsw.Connection, plan: QueryPlan, rowids: list[int], project: Project, lanes: list[Lane]
) -> dict[int, SearchResultItem]:
    """Wire items of the documents ``rowids`` by row id, snippets cut as the lexical path's."""
    rowids = list(dict.fromkeys(rowids))
    if not rowids:
        return {}
    marks = ",".join("?" * len(rowids))
    sql = f"SELECT {COLUMNS}, NULL, NULL FROM docs d WHERE d.id IN ({marks})"
    candidates = dict(fetch_rows(conn, (sql, list(rowids))))
    bodies = snippet_texts(conn, project, fetch_bodies(conn, rowids))
    lane_names = {lane.id: lane.name for lane in lanes}
    items: dict[int, SearchResultItem] = {}
    for rowid, cand in candidates.items():
        marked = make_snippet(bodies.get(rowid, ""), plan.parsed)
        link = default_link(cand, project.id)
        items[rowid] = wire_item(cand, marked, "body", link, lane_names, project)
    return items


def scoring_tokens(conn: apsw.Connection, tokens: list[str]) -> list[str]:
    """``tokens`` without those half the indexed documents or more hold (all of them when
    every one is: a query of only common words still ranks by them). FTS5's BM25 floors such a
    word's IDF at 1e-6, so leaving it out changes no score; only documents holding nothing but
    common words drop out of the any-word ranking, which gave them a score of about zero."""
    if len(tokens) < 2 or not open_vocab(conn):
        return tokens
    count = conn.execute("SELECT count(*) FROM docs").fetchone()
    documents = int(str(count[0])) if count else 0
    sql = f"SELECT doc FROM {VOCAB_TABLE} WHERE term = ?"
    rare = []
    for token in tokens:
        row = conn.execute(sql, (token,)).fetchone()
        if row is None or int(str(row[0])) * 2 < documents:
            rare.append(token)
    return rare or tokens
