"""Wire types of DESIGN §6: the one JSON contract for `--json`, the daemon and tests.

Every type is an immutable ``msgspec.Struct`` whose fields are snake_case in Python and camelCase
on the wire (``rename="camel"``). msgspec was chosen over hand-written ``to_dict``/``from_dict``
pairs because it validates types on decode (``True`` is not accepted for an ``int`` field, unknown
kinds are refused) and encodes an order of magnitude faster than ``json`` + ``dataclasses.asdict``.

``to_json``/``from_json``/``to_wire``/``from_wire`` are the only converters; nothing else in the
code base spells a camelCase key.
"""

# warm path: a warm `ade search` imports this; keep its imports light (ARCHITECTURE: The warm path)

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Literal, TypeVar

import msgspec

from engine.agent_table import AGENT_NAMES
from engine.kinds import ALL_KINDS as ALL_KINDS
from engine.kinds import KIND_ALIASES as KIND_ALIASES
from engine.kinds import MAX_LIMIT as MAX_LIMIT

if TYPE_CHECKING:
    from engine.kinds import DocKind as DocKind
else:
    DocKind = Literal[ALL_KINDS]  # a real Literal: msgspec validates the wire's kinds with it

DEFAULT_KINDS: tuple[DocKind, ...] = tuple(k for k in ALL_KINDS if k != "linear")
"""Linear can reach the network, so it is consulted only when asked for by name."""

AGENT_TOOLS: tuple[str, ...] = AGENT_NAMES
"""Agents whose chats the ``tool:`` filter names (``engine.agent_table``, docs/agents.md); a
chat's ``tool`` is one of these."""

INDEXED_KINDS: tuple[DocKind, ...] = ("chat", "terminal", "pr", "commit", "branch")
"""Kinds stored in the FTS index; the rest are delegated at query time."""

DELEGATED_KINDS: tuple[DocKind, ...] = ("lane", "file", "artifact", "linear")

Tier = Literal["exact_title", "title_prefix", "title_substring", "body"]
"""Ranking tiers, best first (DESIGN §5)."""

TIER_ORDER: dict[str, int] = {"exact_title": 0, "title_prefix": 1, "title_substring": 2, "body": 3}

DEFAULT_LIMIT = 50
"""Hits per page when the caller does not say (the CLI asks for fewer, see ``ade search``)."""

ProgressCallback = Callable[[int, int], None]
"""``progress(done, total)`` while catching up or rebuilding: called from the ingesting thread, so
it must be cheap and thread-safe."""

IndexState = Literal["ready", "indexing", "rebuilding", "recreated", "degraded", "closed"]


class _Wire(msgspec.Struct, frozen=True, rename="camel", forbid_unknown_fields=False):
    """Base of every wire type: immutable, camelCase on the wire."""


class MatchRange(_Wire, frozen=True):
    """A highlighted span, as code-point offsets into the marker-free snippet."""

    start: int
    end: int


class SearchResultItem(_Wire, frozen=True):
    """One hit. ``updated_at`` is milliseconds since the epoch (UTC)."""

    doc_id: str
    kind: DocKind
    title: str
    snippet: str
    match_ranges: tuple[MatchRange, ...]
    tier: Tier
    updated_at: int
    deep_link: str
    session_id: str | None = None
    lane_id: str | None = None
    lane_name: str | None = None
    anchor: str | None = None
    project_id: str | None = None
    project_name: str | None = None
    project_root: str | None = None
    tool: str | None = None
    """The agent that wrote a chat hit (``claude``, ``gemini``…); None for other kinds."""
    message_count: int | None = None
    """A ``sessions`` row: the session's indexed messages (tool calls and results included)."""
    match_count: int | None = None
    """A ``sessions`` row: how many of its messages match the query (None: a filter-only query)."""


class SearchQueryArgs(_Wire, frozen=True):
    """What a caller asks. ``kinds`` of ``None`` means the default set (all but linear)."""

    query: str = ""
    kinds: tuple[DocKind, ...] | None = None
    lane_id: str | None = None
    limit: int = DEFAULT_LIMIT
    cursor: str | None = None
    sessions: bool | None = None
    """One row per chat session instead of one per message (``engine.service.session_rows``);
    None (left off the wire) is false."""
    all_projects: bool | None = None
    """Search every project ade knows, not the one asked from (``engine.machine``); None is
    false."""
    exact: bool = False
    """Never relax (docs/search.md): only what matches every word as typed (``--exact``)."""
    offset: int = 0
    """Hits to skip from the first (instead of a ``cursor``): any depth, every match reachable."""


class SearchQueryResult(_Wire, frozen=True):
    """One page of hits; ``next_cursor`` is opaque and bound to the query that produced it."""

    items: tuple[SearchResultItem, ...]
    next_cursor: str | None
    total: int
    results_truncated: bool = False
    warnings: tuple[str, ...] = ()
    relaxed: str | None = None
    """The relaxation step that filled the page (``spelling``, ``inflection``, ``most_words``,
    ``any_word``: ``engine.query.relax``), None for a strict answer (docs/search.md)."""


class CommitHistoryStatus(_Wire, frozen=True):
    """Where the commit history index stands: ``indexing`` while a pass is under way
    (``done`` of about ``total`` commits of that pass), ``bounded`` when a depth setting left
    older commits out, ``notes`` for what the repository itself limits (a shallow clone…)."""

    indexing: bool
    done: int = 0
    total: int | None = None
    depth: int | None = None
    bounded: bool = False
    notes: tuple[str, ...] = ()


class DiscoveryRoots(_Wire, frozen=True):
    """Where one external source (``claude``, ``codex``) was discovered from (docs/agents.md):
    ``searched`` is the folder this process's environment points at; ``roots`` every folder the
    listed sessions were found under (earlier runs' included), with ``sessions`` per root."""

    source: str
    searched: str | None = None
    roots: tuple[str, ...] = ()
    sessions: tuple[int, ...] = ()


class AgentStatus(_Wire, frozen=True):
    """One registered agent as ``--status`` reports it (docs/agents.md), listed for every agent
    of ``engine.agent_table``, those with no session too: ``folders`` searched in the caller's
    environment (Aider: the lanes' history files), ``found`` sessions there whichever project
    they belong to, ``tied`` sessions of this project (earlier runs' remembered ones included),
    ``skipped`` lines, records and files left out, per reason (``engine.external.skips``)."""

    name: str
    label: str
    folders: tuple[str, ...] = ()
    found: int = 0
    tied: int = 0
    skipped: dict[str, int] = {}


class IndexStatus(_Wire, frozen=True):
    """Live state of one project's index and ingester."""

    state: IndexState
    schema_version: int
    db_path: str
    db_bytes: int
    doc_count: int
    docs_by_kind: dict[str, int]
    source_count: int
    pending_sources: int
    last_ingest_at: int | None = None
    backfill_completed_at: int | None = None
    watcher_state: str = "off"
    recreated_reason: str | None = None
    warnings: dict[str, int] = {}
    commit_history: CommitHistoryStatus | None = None
    discovery: tuple[DiscoveryRoots, ...] = ()
    health_check_since: int | None = None
    """When the full health check under way started (epoch ms); None when none runs."""
    agents: tuple[AgentStatus, ...] = ()
    """Every registered agent: where it was searched, what was found, what was skipped and why."""


class RebuildResult(_Wire, frozen=True):
    """Outcome of ``rebuild_index``."""

    ok: bool
    doc_count: int
    duration_ms: int


_T = TypeVar("_T", bound=msgspec.Struct)

_encoder = msgspec.json.Encoder()


def to_json(value: msgspec.Struct) -> bytes:
    """Encode a wire type to compact camelCase JSON bytes."""
    return _encoder.encode(value)


def from_json(data: bytes | str, type_: type[_T]) -> _T:
    """Decode camelCase JSON into a wire type, validating every field's type.

    Raises:
        msgspec.ValidationError: a field has the wrong type or value.
        msgspec.DecodeError: the text is not JSON.
    """
    return msgspec.json.decode(data, type=type_, strict=True)


def to_wire(value: msgspec.Struct) -> dict[str, Any]:
    """Convert a wire type to plain camelCase builtins (dicts, lists, str, int…)."""
    result = msgspec.to_builtins(value)
    assert isinstance(result, dict)
    return result


def from_wire(data: Any, type_: type[_T]) -> _T:
    """Convert plain camelCase builtins (a decoded JSON object) into a wire type, strictly."""
    return msgspec.convert(data, type=type_, strict=True)


# --- ranking explanations (``ade search --explain``, ``SearchClient.explain``) -------------------


class TermMatch(msgspec.Struct, frozen=True):
    """One positive query term and where it matched (empty: it did not match this hit)."""

    term: str
    where: tuple[str, ...]


class HitExplanation(msgspec.Struct, frozen=True):
    """Why one hit is where it is. ``bm25``/``bm25_split`` are None outside the body tier's
    full-text matches (filter-only queries, title tiers, delegated hits)."""

    doc_id: str
    tier: Tier
    source: str
    bm25: float | None
    bm25_split: float | None
    updated_at: int
    sort_key: tuple[int, float, float, int, str]
    terms: tuple[TermMatch, ...]
    relaxed: str | None = None
    """The relaxed step this hit matched (``engine.query.relax``), None for a strict match: its
    scores and terms are then the step's query's (docs/search.md)."""
    field_weights: tuple[tuple[str, float], ...] = ()
    """BM25 column weights of the exact-token score (``bm25``) then of the identifier-parts score
    (``bm25_split``), e.g. title 2.0, body 1.0; identifier parts 1.0 (docs/search.md)."""
    phrase: bool | None = None
    """The row holds the query's words as one phrase (the exact-phrase boost); None when the
    boost does not apply (one word, ``a|b``, a title tier, a delegated hit)."""
    phrase_boost: float = 0.0
    """What the phrase added to ``bm25`` in ``sort_key[1]`` (``engine.query.phrase_boost``)."""
    folded_into: str | None = None
    """The session row this message row is folded into by the session dedupe (not shown again)."""
    folds: tuple[str, ...] = ()
    """The message rows this session row carries (folded into it by the session dedupe)."""
    semantic: float | None = None
    """The cosine of the row's meaning vector to the query's (docs/semantic.md): what the nearest
    vectors' ranking weighs when the answer is fused; None without the semantic extra (not
    installed, ``ADE_SEMANTIC=0``) or for a row without a vector (a delegated hit)."""
    words_held: tuple[int, int, int, int] | None = None
    """A hit of a words step (most of the words, any of them): its distinctive words held, those
    held as typed, every word held, and how many words the query has: the keys the step orders
    by before BM25 (``engine.query.relax.most_held_first``); None for any other hit."""
    rarity: float | None = None
    """A words-step hit's summed IDF of the distinctive words it holds: the tie-break after the
    counts of ``words_held``; None for any other hit."""
    titled: int | None = None
    """How many of a words-step hit's distinctive words its title holds: the tie-break after
    ``rarity``, before BM25; None for any other hit."""


def explanation_to_wire(explanation: HitExplanation) -> dict[str, object]:
    """camelCase builtins for ``--json --explain`` (the same naming as the DESIGN §6 wire form)."""
    return {
        "docId": explanation.doc_id,
        "tier": explanation.tier,
        "source": explanation.source,
        "bm25": explanation.bm25,
        "bm25Split": explanation.bm25_split,
        "updatedAt": explanation.updated_at,
        "sortKey": list(explanation.sort_key),
        "terms": [{"term": t.term, "where": list(t.where)} for t in explanation.terms],
        "relaxed": explanation.relaxed,
        "factors": _factors_to_wire(explanation),
    }


def _factors_to_wire(e: HitExplanation) -> dict[str, object]:
    """Each ranking factor by name, in the order the sort key applies them (docs/search.md)."""
    split_at = next((i for i, (name, _) in enumerate(e.field_weights) if name == "identifier parts"),
                    len(e.field_weights))  # fmt: skip
    return {
        "tier": {"tier": e.tier, "order": TIER_ORDER[e.tier]},
        "phrase": {"held": e.phrase, "boost": e.phrase_boost},
        "bm25": {"score": e.bm25, "weights": dict(e.field_weights[:split_at])},
        "identifier": {"score": e.bm25_split, "weights": dict(e.field_weights[split_at:])},
        "recency": {"updatedAt": e.updated_at, "order": "newest first among equal scores"},
        "id": {"docId": e.doc_id, "order": "ascending, last: a total order"},
        "sessionDedupe": {"foldedInto": e.folded_into, "folds": list(e.folds)},
        "semantic": {"cosine": e.semantic, "order": "fused by reciprocal rank when asked"},
        "words": _words_to_wire(e),
    }


def _words_to_wire(e: HitExplanation) -> dict[str, object] | None:
    """A words-step hit's keys before BM25 (docs/search.md), None for any other hit."""
    if e.words_held is None:
        return None
    distinctive, typed, every, of = e.words_held
    return {"distinctive": distinctive, "typed": typed, "held": every, "of": of,
            "rarity": e.rarity, "title": e.titled,
            "order": "more words first, then rarer, then more in the title"}  # fmt: skip
