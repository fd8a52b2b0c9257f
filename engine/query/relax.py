"""When nothing matches exactly (docs/search.md): a query relaxed in documented steps.

A strict query (every word, as typed, matched as a prefix) that finds too little is tried again,
one step at a time, each step only while the answer is still too short:

1. ``spelling`` (strict answer empty): each plain word of five letters or more that no indexed
   word starts with is replaced by the indexed word one edit away (``engine.query.vocab.correct``);
2. ``inflection`` (fewer hits than a page, at most ``SHORT_PAGE``): each plain word also matches
   the indexed words with its Porter stem (``persisting`` finds ``persist``, ``retry`` finds
   ``retries``), those the word as typed does not already find (``new_forms``);
3. ``most_words`` (still nothing): documents holding all but one of the words (three or more);
4. ``any_word`` (still nothing, or to fill the page ``most_words`` began): documents holding
   any of them (stop words and one-letter words count only when there is nothing else; a
   two-letter word that is no stop word, ``CI``, counts as a whole word); 3 and 4 are one query,
   ranked by how many of the words each document holds (``most_held_first``), then how many of
   them it holds as typed (whole words, not only as the start of a longer word or in another
   form), then BM25.

Only the inflections fill a short page: the other steps change what was asked (another word, fewer
words), so they answer only a query that found nothing — a strict answer of a few hits is what was
asked for, and padding it with near misses buried it (and broke every caller that counts them).

The strict matches come first, then each step's new ones in its own ranking, so an exact match
(an identifier, a path, the word as typed) always ranks above a relaxed one. Identifiers and
paths (``connectTimeout``, ``strbuf_addf``, ``src/foo.py``) are never corrected or inflected. A
quoted phrase, ``--exact`` (``SearchQueryArgs.exact``), a filter-only query and a strict answer's
later page are never relaxed; filters and exclusions apply to every step. A relaxed answer's
later pages run the steps again, deeper (``engine.service.relaxed_pages``).

``relaxations`` yields the steps' plans (the semantic layer's fusion may call it); ``relax_answer`` runs
them through the caller's own ``run`` (the index plus the delegates) and merges the pages.
"""

# warm path: a warm `ade search` imports this; keep its imports light (ARCHITECTURE: The warm path)

from __future__ import annotations

import math
from collections.abc import Callable, Iterator, Sequence
from typing import Literal

import apsw
import msgspec

from engine.index.sql import matching_rowids_sql
from engine.query.match import fold
from engine.query.parser import AnyOf, Node, ParsedQuery, Term, build_positive
from engine.query.pasted import STOP_WORDS, is_weak_word
from engine.query.plan import PlanTerm, QueryPlan
from engine.query.ranking import normalize_title_query
from engine.query.vocab import correct, inflections, open_vocab
from engine.types import MAX_LIMIT, SearchQueryResult, SearchResultItem

RelaxStep = Literal["spelling", "inflection", "most_words", "any_word"]

STEPS: tuple[RelaxStep, ...] = ("spelling", "inflection", "most_words", "any_word")
"""The steps in the order they are tried; the answer's ``relaxed`` names the last one used."""

SHORT_PAGE = 20
"""The inflections fill a page of at most this many hits (the CLI's default page): a caller asking
for hundreds (the palette, the daemon's router, scripts) is not padded to hundreds with other word
forms."""

WORDS_FETCH_FACTOR = 2
"""The most-of-the-words query reads this many pages of its any-word ranking to fill one page
with documents that hold all but one word (capped at ``MAX_LIMIT``): BM25 over the words ranks a
document holding more of them first, so two pages hold nearly all of them at half the cost of four
(each fetched hit is made an item: link, snippet, redaction)."""


class Relaxation(msgspec.Struct, frozen=True):
    """One relaxed step: its plan, and for the words step the number of word groups."""

    step: RelaxStep
    plan: QueryPlan
    note: str
    groups: tuple[Node, ...] = ()
    """``most_words``/``any_word``: the words (each with its alternatives) a document may hold."""
    typed: tuple[Node, ...] = ()
    """The same words as typed (or as corrected), each matched as a whole word only, one per
    group: a document holding ``gateway`` itself, not only ``gateways`` or ``gatewayd``."""


def can_relax(plan: QueryPlan, *, exact: bool = False) -> bool:
    """Whether ``plan`` may be relaxed: text without a quoted phrase, a first page (no cursor,
    no offset), no --exact."""
    if exact or plan.cursor is not None or plan.offset or not plan.has_text or plan.match_none:
        return False
    return not any(t.phrase for t in plan.positive_terms)


def is_plain_word(text: str) -> bool:
    """A word that may be corrected or inflected: letters only, lowercase or Capitalized.
    ``connectTimeout``, ``HTTP``, ``strbuf_addf``, ``src/foo.py``, ``v2`` stay as typed."""
    return text.isalpha() and (text.islower() or text[1:].islower())


def _replaced(plan: QueryPlan, terms: Sequence[Node], words: Sequence[str]) -> QueryPlan:
    """``plan`` with its positive nodes replaced (filters, exclusions and limit kept)."""
    parsed = msgspec.structs.replace(
        plan.parsed,
        terms=tuple(terms),
        title_text=normalize_title_query(" ".join(words)),
        title_prefix_scan=None,
        warnings=(),
    )
    nodes = tuple(
        tuple(PlanTerm.of(t) for t in (n.options if isinstance(n, AnyOf) else (n,))) for n in terms
    )
    return msgspec.structs.replace(plan, parsed=parsed, nodes=nodes, warnings=())


def _weak(node: Node) -> bool:
    """A stop word or a one-letter word: no near miss on its own. A two-letter word that is
    not a stop word (``CI``, ``db``, ``UI``) names something and stays (``is_short``)."""
    if not isinstance(node, Term):
        return False
    return is_weak_word(node.text) and not is_short(node.text)


def is_short(text: str) -> bool:
    """A two-letter word that is no stop word (``CI``, ``db``): a document holds it as a
    whole word, not as the start of another (``ci`` would find ``circuit``, ``cipher``)."""
    word = fold(text)
    return len(word) == 2 and word.isalnum() and word not in STOP_WORDS


def _whole(node: Node) -> Node:
    """``node`` with a two-letter word matched as a whole word (``is_short``)."""
    if isinstance(node, Term) and node.prefix and is_short(node.text):
        return Term(node.text, prefix=False)
    return node


def as_typed(node: Node) -> Node:
    """``node`` matched as a whole word: no prefix, no other forms (``as_typed`` of
    ``retry`` does not match ``retries`` nor ``retrying``)."""
    if isinstance(node, AnyOf):
        return AnyOf(tuple(Term(t.text, prefix=False, phrase=t.phrase) for t in node.options))
    return Term(node.text, prefix=False, phrase=node.phrase)


def new_forms(node: Term, forms: Sequence[str]) -> tuple[str, ...]:
    """The ``forms`` of ``node`` it does not find as typed: a prefix term (``test``) already
    finds every form it starts (``tests``), and OR-ing that form in again made BM25 score a
    document holding both once per form, as if it held one more of the query's words."""
    typed = fold(node.text)
    return tuple(f for f in forms if not (node.prefix and f.startswith(typed)))


def _words(terms: Sequence[Node]) -> list[str]:
    return [n.text for n in terms if isinstance(n, Term)]


def relaxations(
    conn: apsw.Connection, plan: QueryPlan, *, depth: int | None = None
) -> Iterator[Relaxation]:
    """The relaxed plans of ``plan``, step by step (a step that changes nothing is skipped);
    ``depth``: how many hits the answer is filled to (default a page, ``plan.limit``).

    Lazy: a step's vocabulary lookups run only when the caller asks for it. The caller checks
    ``can_relax`` first.
    """
    if not open_vocab(conn):
        return
    terms: list[Node] = list(plan.parsed.terms)
    corrected: list[str] = []
    for i, node in enumerate(terms):
        if isinstance(node, Term) and is_plain_word(node.text):
            better = correct(conn, fold(node.text))
            if better is not None:
                corrected.append(f"{node.text} → {better}")
                terms[i] = Term(better, prefix=True)
    words = _words(terms)
    if corrected:
        note = f"no exact match; spelling corrected: {', '.join(corrected)}"
        yield Relaxation("spelling", _replaced(plan, terms, words), note)
    typed = tuple(as_typed(n) for n in terms)
    inflected: list[str] = []
    for i, node in enumerate(terms):
        if isinstance(node, Term) and is_plain_word(node.text):
            forms = new_forms(node, inflections(conn, fold(node.text)))
            if forms:
                inflected.append(f"{node.text} ({', '.join(forms)})")
                terms[i] = AnyOf((node, *(Term(f, prefix=False) for f in forms)))
    if inflected:
        note = f"other word forms matched too: {'; '.join(inflected)}"
        yield Relaxation("inflection", _replaced(plan, terms, words), note)
    if len(terms) < 2:
        return
    terms = [_whole(n) for n in terms]
    # A document holding only "we" or "the" of the words is no near miss: the words query asks
    # for the distinctive words (stop words and words under 3 letters left out, unless that is
    # all there is); most_words still counts every word a document holds.
    strong = [n for n in terms if not _weak(n)] or terms
    options = tuple(t for n in strong for t in (n.options if isinstance(n, AnyOf) else (n,)))
    anyone = _replaced(plan, [AnyOf(options)] if len(options) > 1 else list(options), words)
    if len(terms) >= 3:
        # Room to filter most_words: a few pages of the any-word ranking.
        fetch = min(MAX_LIMIT, (depth or plan.limit) * WORDS_FETCH_FACTOR)
        anyone = msgspec.structs.replace(anyone, limit=fetch)
        note = f"no match for every word; showing matches of {len(terms) - 1} of the {len(terms)}"
        yield Relaxation("most_words", anyone, note, groups=tuple(terms), typed=typed)
    note = "no match for every word; showing matches of any of them, ranked by BM25"
    yield Relaxation("any_word", anyone, note, groups=tuple(terms), typed=typed)


def groups_held(
    conn: apsw.Connection,
    plan: QueryPlan,
    groups: Sequence[Node],
    items: Sequence[SearchResultItem],
) -> dict[str, int]:
    """How many of ``groups`` (the query's words) each item holds (``which_held``)."""
    return {doc_id: len(held) for doc_id, held in which_held(conn, plan, groups, items).items()}


def which_held(
    conn: apsw.Connection,
    plan: QueryPlan,
    groups: Sequence[Node],
    items: Sequence[SearchResultItem],
    *,
    title: bool = False,
) -> dict[str, set[int]]:
    """Which of ``groups`` (by index) each item holds: indexed items by FTS5 on their row ids,
    delegated ones by the plan's in-memory matcher over title and snippet. ``title``: held in
    the title (the ``rank_title`` column; a delegated hit's title), not only in the body."""
    ids = [i.doc_id for i in items]
    held: dict[str, set[int]] = {doc_id: set() for doc_id in ids}
    if not ids:
        return held
    marks = ",".join("?" * len(ids))
    rows = conn.execute(f"SELECT id, doc_id FROM docs WHERE doc_id IN ({marks})", ids).fetchall()
    rowids = {int(str(r)): str(d) for r, d in rows}
    indexed = set(rowids.values())
    for index, group in enumerate(groups):
        match = build_positive(ParsedQuery(terms=(group,)))
        if match is not None and title:
            match = f"rank_title : ({match})"
        if rowids and match is not None:
            for (rowid,) in conn.execute(*matching_rowids_sql(match, list(rowids))):
                held[rowids[int(str(rowid))]].add(index)
        options = group.options if isinstance(group, AnyOf) else (group,)
        for item in items:
            if item.doc_id in indexed:
                continue
            texts = (item.title,) if title else (item.title, item.snippet)
            if any(plan.term_found(PlanTerm.of(t), *texts) for t in options):
                held[item.doc_id].add(index)
    return held


IDF_COUNT_CAP = 10_000
"""A word's documents are counted up to this many for its rarity (``word_rarities``): past it a
word is common, and counting on would walk its whole doclist (the query's cost)."""


class WordsHeld(msgspec.Struct, frozen=True):
    """How a words step orders a hit (``most_held_first``), key by key: its distinctive words
    held, those held as typed, every word held, their rarity (summed IDF), then those held in
    its title."""

    distinctive: int
    typed: int
    every: int
    rarity: float | None
    """The summed inverse document frequency of the distinctive words held (FTS5's BM25
    formula); None when no tie needed it (the answer's order did not look at it)."""
    titled: int | None = None
    """How many of the distinctive words held are in the hit's title (a session's, a PR's, a
    commit's subject); None when no tie needed it."""

    def key(self) -> tuple[int, int, int, float, int]:
        rarity = -round(self.rarity or 0.0, 9)
        return (-self.distinctive, -self.typed, -self.every, rarity, -(self.titled or 0))


def word_rarities(conn: apsw.Connection, groups: Sequence[Node], wanted: set[int]) -> list[float]:
    """The inverse document frequency of each of ``groups`` in ``wanted`` (0 for the others),
    as FTS5's BM25 weighs a word: ``log((N - n + 0.5) / (n + 0.5))``, at least 1e-6, ``n`` the
    documents the group matches (its other forms and prefix included), counted up to
    ``IDF_COUNT_CAP``. One count per word, not per document."""
    row = conn.execute("SELECT count(*) FROM docs").fetchone()
    total = int(str(row[0])) if row else 0
    sql = "SELECT count(*) FROM (SELECT 1 FROM docs_fts WHERE docs_fts MATCH ? LIMIT ?)"
    out = []
    for index, group in enumerate(groups):
        match = build_positive(ParsedQuery(terms=(group,))) if index in wanted else None
        if match is None:
            out.append(0.0)
            continue
        found = conn.execute(sql, (match, IDF_COUNT_CAP)).fetchone()
        n = int(str(found[0])) if found else 0
        out.append(max(1e-6, math.log((total - n + 0.5) / (n + 0.5))))
    return out


def words_held(
    conn: apsw.Connection,
    step: Relaxation,
    found: Sequence[SearchResultItem],
    *,
    rarity: bool | None = None,
) -> dict[str, WordsHeld]:
    """Each of ``found``'s ``WordsHeld`` for a words step. ``rarity``: True always computes it
    and the words held in the title (``--explain``); None computes the rarity only when two hits
    tie on the counts, and the title's words only for hits tying on the counts and the rarity
    (the only time each orders them)."""
    held = which_held(conn, step.plan, step.groups, found)
    strong = {index for index, group in enumerate(step.groups) if not _weak(group)}
    exact = which_held(conn, step.plan, step.typed, found) if step.typed else {}
    counts = {
        doc_id: (len(words & strong), len(exact.get(doc_id, set()) & strong), len(words))
        for doc_id, words in held.items()
    }
    every_hit = rarity is True  # --explain: each hit's keys, tied or not
    if rarity is None:
        rarity = len(set(counts.values())) < len(counts)
    weights = word_rarities(conn, step.groups, strong) if rarity else None
    out = {
        doc_id: WordsHeld(
            *counts[doc_id],
            rarity=None if weights is None else sum(weights[i] for i in sorted(held[doc_id])),
        )
        for doc_id in held
    }
    ties: dict[tuple[int, int, int, float], list[str]] = {}
    for doc_id, keys in out.items():
        ties.setdefault(keys.key()[:4], []).append(doc_id)
    tied = {d for group in ties.values() if len(group) > 1 or every_hit for d in group}
    if weights is None or not tied:
        return out
    # Only the distinctive words: a stop word's title matches count for nothing, and a prefix
    # stop word (``the``) is the costliest scan of all.
    words = [step.groups[i] for i in sorted(strong)]
    in_title = [item for item in found if item.doc_id in tied]
    for doc_id, titled in which_held(conn, step.plan, words, in_title, title=True).items():
        out[doc_id] = msgspec.structs.replace(out[doc_id], titled=len(titled))
    return out


def most_held_as_typed(
    conn: apsw.Connection, plan: QueryPlan, items: Sequence[SearchResultItem]
) -> tuple[int, int] | None:
    """For a words step's page ``items`` of ``plan``: the most distinctive words one item
    holds as typed (whole words, the ``typed`` key of ``most_held_first``), and how many
    distinctive words the query has; None when ``plan`` has no words step."""
    step = next((s for s in relaxations(conn, plan) if s.groups), None)
    if step is None:
        return None
    strong = {index for index, group in enumerate(step.groups) if not _weak(group)}
    held = which_held(conn, step.plan, step.typed, items)
    return max((len(words & strong) for words in held.values()), default=0), len(strong)


def most_held_first(
    conn: apsw.Connection, step: Relaxation, found: Sequence[SearchResultItem]
) -> list[tuple[int, SearchResultItem]]:
    """``found`` (the any-word hits, best BM25 first) ordered by how many of the query's words
    each holds, most first: its distinctive words (stop words and one-letter words left out),
    then how many of those it holds as typed (``Relaxation.typed``: an exact word before a
    longer word starting with it or another form of it, as the strict ranking puts a whole word
    before an identifier's part), then all of the words, then how rare its distinctive words
    are (their summed IDF: among documents holding as many words, the one holding the rarer
    ones says more, as BM25 weighs them), then how many of them it holds in its title (among
    documents holding the same words, the one whose title names them is about them, as the
    strict ranking puts a title match before a body match); BM25's order among those equal on
    all five. Each with its count of words held."""
    held = words_held(conn, step, found)

    def key(pair: tuple[int, SearchResultItem]) -> tuple[float, ...]:
        return (*held[pair[1].doc_id].key(), pair[0])

    return [(held[item.doc_id].every, item) for _, item in sorted(enumerate(found), key=key)]


class _Merged:
    """The page being filled: the strict items first, then each step's new ones. ``limit`` (the
    page size) decides which steps run; ``depth`` (at least ``limit``) is how many hits are kept:
    a later page of a relaxed answer (``engine.service.relaxed_pages``) fills a deeper one."""

    def __init__(self, strict: SearchQueryResult, limit: int, depth: int) -> None:
        self.items = list(strict.items)
        self.seen = {i.doc_id for i in strict.items}
        self.total = strict.total
        self.warnings = list(strict.warnings)
        self.limit = limit
        self.depth = max(depth, limit)
        self.step: RelaxStep | None = None

    def wants(self, step: RelaxStep) -> bool:
        """Whether ``step`` runs now (the module docstring says when each one does)."""
        if step == "inflection":
            return len(self.items) < min(self.limit, SHORT_PAGE)
        if step == "any_word" and self.step == "most_words":  # fills the page most_words began
            return len(self.items) < self.depth
        return not self.items

    def add(self, step: Relaxation, found: Sequence[SearchResultItem]) -> None:
        """A step's hits not already on the page, as many as fit (``depth``). ``total`` counts
        what it keeps, and ``resultsTruncated`` keeps speaking of the strict matches only."""
        new = [i for i in found if i.doc_id not in self.seen]
        if not new:
            return
        new = new[: self.depth - len(self.items)]
        self.items.extend(new)
        self.seen.update(i.doc_id for i in new)
        self.total += len(new)
        self.warnings.append(step.note)
        self.step = step.step

    def result(self, strict: SearchQueryResult) -> SearchQueryResult:
        if self.step is None:
            return strict
        return msgspec.structs.replace(
            strict,
            items=tuple(self.items),
            next_cursor=None,  # no keyset order: its later pages are engine.service.relaxed_pages
            total=self.total,
            warnings=tuple(dict.fromkeys(self.warnings)),
            relaxed=self.step,
        )


def relax_answer(
    conn: apsw.Connection,
    plan: QueryPlan,
    strict: SearchQueryResult,
    run: Callable[[QueryPlan], SearchQueryResult],
    *,
    depth: int | None = None,
) -> SearchQueryResult:
    """``strict`` (the answer to ``plan``) filled up to a page by the relaxed steps, each run
    through ``run`` only while the page is short; ``strict`` itself when no step adds a hit.
    ``depth`` (default ``plan.limit``): fill that many hits instead, the steps still chosen by
    the page size (``engine.service.relaxed_pages`` asks one more than it shows)."""
    depth = max(depth or plan.limit, plan.limit)
    merged = _Merged(strict, plan.limit, depth)
    by_words: list[tuple[int, SearchResultItem]] | None = None
    if not merged.wants("inflection"):  # the widest condition: no step would run
        return strict
    for step in relaxations(conn, plan, depth=depth):
        if not merged.wants(step.step):
            continue
        if step.groups:
            if by_words is None:
                by_words = most_held_first(conn, step, run(step.plan).items)
            least = len(step.groups) - 1 if step.step == "most_words" else 0
            merged.add(step, [item for held, item in by_words if held >= least])
            continue
        merged.add(step, run(msgspec.structs.replace(step.plan, limit=depth)).items)
    return merged.result(strict)
