"""Why a hit ranks where it does: the data behind ``ade search --explain`` (docs/search.md).

For each hit of a page: its tier, its BM25 scores (exact-token and identifier-part, body tier
only — the same ``bm25()`` calls and weights the query path uses, over the same corpus
statistics, so the numbers are the ranking's own), the tie-break keys (``updated_at`` desc, then
doc id asc), the full sort key, and which column each positive term matched in. Delegated hits
(lanes, files, artifacts, Linear) are not in the index: their terms are checked against the
title and snippet the delegate produced with the plan's matcher, the one the delegates use.

A hit a relaxed step added (docs/search.md) does not match the strict query: it is explained by the
first step (``engine.query.relax.relaxations``, the same steps the answer ran) whose query it
matches, and says which (``relaxed``); a words step's hit also gets the keys that step orders by
before BM25 (``words_held``, ``rarity``, ``titled``).

Read-only and separate from the query path on purpose: explaining costs a few point lookups per
hit, which a normal query must not pay. It reads the query's ``QueryPlan`` like every source.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from pathlib import Path

import apsw
import msgspec

from engine.index.db import connect
from engine.index.fts_rank import scores_of_key
from engine.index.sql import (
    EXACT_WEIGHTS,
    SPLIT_WEIGHTS,
    matching_rowids_sql,
    on_table,
    score_columns,
)
from engine.query.candidates import (
    fts_candidates,
    plan_filters,
    ranking_table,
    scores_without_idf,
)
from engine.query.parser import Term, build_match, fts_string
from engine.query.phrase_boost import phrase_match, with_phrase_boost
from engine.query.plan import PlanTerm, QueryPlan, build_plan
from engine.query.ranking import PHRASE_BOOST, Candidate, sort_key
from engine.query.relax import Relaxation, can_relax, groups_held, relaxations, words_held
from engine.query.session_fold import session_folds
from engine.types import HitExplanation, SearchQueryArgs, SearchResultItem, TermMatch
from engine.types import explanation_to_wire as explanation_to_wire

FTS_COLUMNS: tuple[tuple[str, str], ...] = (
    ("rank_title", "title"),
    ("body", "body"),
    ("parts", "identifier parts"),
)
"""FTS5 column → the name shown to people. ``parts`` holds split identifiers (``ReadTimeoutError``
→ ``read timeout error``), which is how ``timeout`` finds ``ReadTimeoutError``."""

_SCHEMA_COLUMNS = ("body", "rank_title", "parts")
"""The order of ``docs_fts``'s columns, which the weight lists follow."""


def _weights(weights: str) -> tuple[tuple[str, float], ...]:
    labels = dict(FTS_COLUMNS)
    pairs = zip(_SCHEMA_COLUMNS, (float(w) for w in weights.split(",")), strict=True)
    return tuple(sorted(((labels[c], w) for c, w in pairs if w), key=lambda p: -p[1]))


FIELD_WEIGHTS = _weights(EXACT_WEIGHTS) + _weights(SPLIT_WEIGHTS)
"""The ranking's BM25 column weights, as ``--explain`` names them: title 2.0, body 1.0 (the
exact-token score), then identifier parts 1.0 (the split-identifier score, a tie-breaker)."""


class _PageRows:
    """The page's indexed rows and what FTS5 says of them, asked once per MATCH for all of them
    (``matching_rowids_sql``): asked per row, FTS5 built a prefix word's merged doclist once
    per row, term and column (+0.9 s of CPU for ``--explain 'the timeout'`` at 10 MB)."""

    def __init__(self, conn: apsw.Connection, items: Sequence[SearchResultItem]) -> None:
        self.conn = conn
        ids = [item.doc_id for item in items]
        marks = ",".join("?" * len(ids))
        sql = f"SELECT id, doc_id FROM docs WHERE doc_id IN ({marks})"
        self.rowid_of = {str(d): int(r) for r, d in conn.execute(sql, ids)} if ids else {}
        self._rows = sorted(set(self.rowid_of.values()))
        self._held: dict[str, set[int]] = {}
        self._scores: dict[tuple[str, bool, str], dict[int, tuple[float, float]]] = {}
        self._boosted: dict[int, tuple[QueryPlan, set[int]]] = {}

    def rowid(self, doc_id: str) -> int | None:
        return self.rowid_of.get(doc_id)

    def holds(self, match: str, rowid: int) -> bool:
        if match not in self._held:
            found = self.conn.execute(*matching_rowids_sql(match, self._rows))
            self._held[match] = {int(r) for (r,) in found}
        return rowid in self._held[match]

    def boosted(self, plan: QueryPlan) -> set[int]:
        """The row ids the ranking of ``plan`` boosted as holding its phrase: its window and
        phrase boost run again (``run_query``'s), so a row the boost's budget stopped short of,
        or one outside the window (the tail), shows no boost, as it got none."""
        if id(plan) not in self._boosted:
            f = plan_filters(plan)
            window, total, _, bounded, _ = fts_candidates(self.conn, plan.parsed, f)
            window, _ = with_phrase_boost(self.conn, plan.parsed, window, f, bounded or total)
            self._boosted[id(plan)] = (plan, {rowid for rowid, c in window if c.phrase})
        return self._boosted[id(plan)][1]

    def scores(
        self, match: str, rowid: int, without_idf: bool, table: str
    ) -> tuple[float | None, float | None]:
        key = (match, without_idf, table)
        if key not in self._scores:
            columns = f"rowid, {score_columns(without_idf)}"
            sql, params = matching_rowids_sql(match, self._rows, columns)
            # a short prefix ranks on docs_recent (its statistics)
            found = self.conn.execute(on_table(table, sql), params)
            self._scores[key] = {
                int(r): scores_of_key(e) if type(e) is bytes else (float(e), float(s))
                for r, e, s in found
            }
        return self._scores[key].get(rowid, (None, None))


def _indexed_terms(rows: _PageRows, terms: Sequence[PlanTerm], rowid: int) -> list[TermMatch]:
    out = []
    for term in terms:
        fts = fts_string(Term(term.text, term.prefix, term.phrase))
        where = tuple(
            label for column, label in FTS_COLUMNS if rows.holds("{" + column + "} : " + fts, rowid)
        )
        out.append(TermMatch(term.text, where))
    return out


def _delegated_terms(
    plan: QueryPlan, item: SearchResultItem, terms: Sequence[PlanTerm]
) -> list[TermMatch]:
    out = []
    for term in terms:
        where = tuple(
            label
            for label, text in (("title", item.title), ("snippet", item.snippet))
            if plan.term_found(term, text)
        )
        out.append(TermMatch(term.text, where))
    return out


def explain_item(
    conn: apsw.Connection, plan: QueryPlan, item: SearchResultItem, rows: _PageRows | None = None
) -> HitExplanation:
    """The explanation of one hit of a page produced for ``plan`` (``rows``: the page's, shared
    by its hits; by default the hit's own)."""
    rows = _PageRows(conn, [item]) if rows is None else rows
    parsed = plan.parsed
    terms = plan.positive_terms
    rowid = rows.rowid(item.doc_id)
    exact: float | None = None
    split: float | None = None
    phrase: bool | None = None
    if rowid is None:
        source, matched = f"delegate ({item.kind})", _delegated_terms(plan, item, terms)
    else:
        source, matched = "index", _indexed_terms(rows, terms, rowid)
        match = build_match(parsed)
        if match is not None and item.tier == "body":
            table = ranking_table(conn, plan)
            exact, split = rows.scores(match, rowid, scores_without_idf(parsed), table)
            phrase = None if phrase_match(parsed) is None else rowid in rows.boosted(plan)
    probe = Candidate(doc_id=item.doc_id, kind=item.kind, title=item.title, rank_title="",
                      snippet_marked="", updated_at=item.updated_at,
                      bm25=exact, bm25_split=split, phrase=bool(phrase))  # fmt: skip
    return HitExplanation(
        doc_id=item.doc_id,
        tier=item.tier,
        source=source,
        bm25=exact,
        bm25_split=split,
        updated_at=item.updated_at,
        sort_key=sort_key(probe, item.tier),
        terms=tuple(matched),
        field_weights=FIELD_WEIGHTS,
        phrase=phrase,
        phrase_boost=PHRASE_BOOST if phrase else 0.0,
    )


def explain_page(
    conn: apsw.Connection, query: str, items: Sequence[SearchResultItem], *, now: datetime
) -> list[HitExplanation]:
    """Explanations for ``items``, the page that ``query`` produced (same clock for ``since:``).

    Raises:
        UsageError: the query does not parse (it already ran, so this only happens on misuse).
    """
    plan = build_plan(SearchQueryArgs(query=query), now=now, lanes=())
    steps: list[Relaxation] | None = None  # read once, at the first hit the strict query lacks
    rows = _PageRows(conn, items)
    out = []
    for item in items:
        why = explain_item(conn, plan, item, rows)
        if can_relax(plan) and not _holds(rows, plan, item):
            steps = list(relaxations(conn, plan)) if steps is None else steps
            step = next((s for s in steps if _step_holds(rows, s, item)), None)
            if step is not None:
                why = msgspec.structs.replace(
                    explain_item(conn, step.plan, item, rows), relaxed=step.step
                )
                if step.groups:
                    held = words_held(conn, step, [item], rarity=True)[item.doc_id]
                    counts = (held.distinctive, held.typed, held.every, len(step.groups))
                    why = msgspec.structs.replace(
                        why, words_held=counts, rarity=held.rarity, titled=held.titled
                    )
        out.append(why)
    folds = session_folds(items)
    for folded, carrier in folds.items():
        out[folded] = msgspec.structs.replace(out[folded], folded_into=items[carrier].doc_id)
        carried = (*out[carrier].folds, items[folded].doc_id)
        out[carrier] = msgspec.structs.replace(out[carrier], folds=carried)
    return out


def _holds(rows: _PageRows, plan: QueryPlan, item: SearchResultItem) -> bool:
    """Whether ``item`` matches ``plan``: by FTS5 on its row, or (delegated) by the matcher."""
    rowid = rows.rowid(item.doc_id)
    if rowid is None:
        return plan.matches(item.title, item.snippet)
    match = build_match(plan.parsed)
    return match is None or rows.holds(match, rowid)


def _step_holds(rows: _PageRows, step: Relaxation, item: SearchResultItem) -> bool:
    if not _holds(rows, step.plan, item):
        return False
    if step.step != "most_words":
        return True
    held = groups_held(rows.conn, step.plan, step.groups, [item])
    return held[item.doc_id] >= len(step.groups) - 1


def explain_from_index(
    index_path: Path, query: str, items: Sequence[SearchResultItem], *, now: datetime
) -> list[HitExplanation]:
    """``explain_page`` on a read connection of its own to the index at ``index_path``: what both
    clients answer ``explain`` with (the daemon's index is the same file, read in this process)."""
    conn = connect(index_path)
    try:
        return explain_page(conn, query, items, now=now)
    finally:
        conn.close()
