"""Lexical and semantic rankings fused by reciprocal rank (docs/semantic.md).

The semantic ranking is asked for only when it can help: the query says ``mode:semantic``, or
the lexical steps found too little (fewer than ``FEW`` hits, or only a relaxed answer). Quoted
phrases keep their strict meaning unless ``mode:semantic`` is written. Exact matches are never
put below vague ones: the hits of a strict lexical answer keep their order at the top and the
semantic hits follow them; only a relaxed answer (vague by its own account) is interleaved with
the semantic hits by reciprocal rank fusion, ``1 / (RRF_K + rank)`` summed over both lists.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

import apsw
import msgspec

from engine.index.documents import fetch_bodies
from engine.index.sql import COLUMNS
from engine.query.candidates import fetch_rows, plan_filters
from engine.query.run import default_link, wire_item
from engine.query.snippets import make_snippet
from engine.query.source_text import snippet_texts
from engine.semantic import enabled

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

SEMANTIC_DEPTH = 50
"""How many of the nearest documents the semantic ranking offers to the fusion."""

MIN_COSINE = 0.2
"""Nearer than this or not at all: below it WordLlama's neighbours share only common words."""

SEMANTIC_NOTE = "semantic: ranked by meaning as well (mode:semantic or few exact matches)"
NOT_INSTALLED_NOTE = (
    "mode:semantic: the semantic extra is not installed (pip install 'ade-search[semantic]');"
    " showing lexical matches only"
)

_MODE_RE = re.compile(r'"[^"]*"|(?<!\S)mode:semantic(?!\S)', re.IGNORECASE)


def take_mode(args: SearchQueryArgs) -> tuple[SearchQueryArgs, bool]:
    """``args`` without ``mode:semantic`` (outside quotes), and whether it was there."""
    found = False

    def drop(match: re.Match[str]) -> str:
        nonlocal found
        if match.group().startswith('"'):
            return match.group()
        found = True
        return ""

    text = _MODE_RE.sub(drop, args.query)
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
    return len(result.items) < FEW or bool(getattr(result, "relaxed", None))


def query_text(plan: QueryPlan) -> str:
    """The words of the query, filters left out: what is embedded."""
    return " ".join(term.text for node in plan.nodes for term in node)


def hybrid_answer(
    conn: apsw.Connection, plan: QueryPlan, result: SearchQueryResult, *, asked: bool,
    project: Project, lanes: list[Lane],
) -> SearchQueryResult:  # fmt: skip
    """``result`` with the semantic ranking fused in when it is wanted and installed."""
    if not wanted(plan, result, asked):
        return result
    if not enabled():
        if not asked:
            return result
        return msgspec.structs.replace(result, warnings=(*result.warnings, NOT_INSTALLED_NOTE))
    from engine.semantic.store import nearest  # deferred: numpy and the model load here

    near = nearest(conn, query_text(plan), plan_filters(plan), SEMANTIC_DEPTH)
    near = [(rowid, cos) for rowid, cos in near if cos >= MIN_COSINE]
    shown = {item.doc_id for item in result.items}
    fresh = [item for item in _items(conn, plan, [r for r, _ in near], project, lanes)
             if item.doc_id not in shown]  # fmt: skip
    if not fresh:
        return result
    strict = not getattr(result, "relaxed", None)
    fused = fuse(list(result.items), fresh, strict=strict)[: plan.limit]
    return msgspec.structs.replace(
        result, items=tuple(fused), next_cursor=None, total=max(result.total, len(fused)),
        warnings=(*result.warnings, SEMANTIC_NOTE),
    )  # fmt: skip


def fuse(
    lexical: list[SearchResultItem], semantic: list[SearchResultItem], *, strict: bool
) -> list[SearchResultItem]:
    """One list: a strict lexical answer first in its own order, then the semantic hits; a
    relaxed one interleaved with them by reciprocal rank (ties: lexical first, then doc id)."""
    if strict:
        return [*lexical, *semantic]
    score: dict[str, float] = {}
    first: dict[str, int] = {}
    by_id: dict[str, SearchResultItem] = {}
    for side, items in enumerate((lexical, semantic)):
        for rank, item in enumerate(items, start=1):
            score[item.doc_id] = score.get(item.doc_id, 0.0) + 1.0 / (RRF_K + rank)
            first.setdefault(item.doc_id, side)
            by_id.setdefault(item.doc_id, item)
    order = sorted(score, key=lambda d: (-score[d], first[d], d))
    return [by_id[d] for d in order]


def _items(
    conn: apsw.Connection, plan: QueryPlan, rowids: list[int], project: Project, lanes: list[Lane]
) -> list[SearchResultItem]:
    """Wire items of the documents ``rowids``, in that order, snippets as the lexical path's."""
    if not rowids:
        return []
    marks = ",".join("?" * len(rowids))
    rows = fetch_rows(conn, (f"SELECT {COLUMNS}, NULL, NULL FROM docs d WHERE d.id IN ({marks})",
                             list(rowids)))  # fmt: skip
    by_rowid = dict(rows)
    bodies = snippet_texts(conn, project, fetch_bodies(conn, rowids))
    lane_names = {lane.id: lane.name for lane in lanes}
    items = []
    for rowid in rowids:
        cand = by_rowid.get(rowid)
        if cand is None:
            continue
        marked = make_snippet(bodies.get(rowid, ""), plan.parsed)
        link = default_link(cand, project.id)
        items.append(wire_item(cand, marked, "body", link, lane_names, project))
    return items
