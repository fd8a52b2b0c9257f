"""The query plan: a query parsed and resolved once, the one reading every source takes.

``build_plan`` turns ``SearchQueryArgs`` (plus the clock and the project's lanes) into a frozen
``QueryPlan``: the terms with their folded token forms, the filters resolved (kinds, lane ids,
sessions, the since/until bounds), the page size and the cursor's fingerprint. The index
(``engine.query.run``), the live tail of a session (``engine.ingest.freshness``) and every
delegate (``engine.delegates.gather``) read this value; none of them parses text again, and
``QueryPlan.matches`` is the one in-memory matcher (``engine.query.match``), so one query reads
the same in every source.

Lanes (``lane:`` and ``--lane``) are found by id, display name, folder name or branch, and
``main``/``primary`` name the primary lane; an unknown lane is a ``UsageError`` that lists them.
"""

# warm path: a warm `ade search` imports this; keep its imports light (ARCHITECTURE: The warm path)

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import datetime

import msgspec

from engine.basics.text import is_blank_query
from engine.errors import UsageError
from engine.index.identifiers import split_identifier
from engine.kinds import SYSTEM_ROLE
from engine.project.lane_names import resolve_lane as resolve_lane
from engine.project.model import Lane
from engine.query.cursor import query_fingerprint
from engine.query.match import (
    Haystack,
    LineFilter,
    fold,
    line_filter_of,
    matches_nodes,
    term_matches,
    token_re,
    tokens,
)
from engine.query.parser import AnyOf, ParsedQuery, Term, parse_query
from engine.query.ranking import normalize_title_query
from engine.types import ALL_KINDS, DEFAULT_KINDS, MAX_LIMIT, SearchQueryArgs


class PlanTerm(msgspec.Struct, frozen=True):
    """One user term in every form a source needs.

    ``text`` is as typed (the FTS string is built from it); ``normalized`` is the NFKC-casefolded
    text ranking compares titles with; ``tokens`` are its ``unicode61`` tokens, case and
    diacritics folded (``Café*`` → ``cafe``); ``parts`` its identifier parts, folded
    (``connectTimeout`` → ``connect``, ``timeout``).
    """

    text: str
    prefix: bool
    phrase: bool
    normalized: str
    tokens: tuple[str, ...]
    parts: tuple[str, ...]

    @classmethod
    def of(cls, term: Term) -> PlanTerm:
        words = [w for w in term.text.split() if w]
        parts = tuple(fold(p) for w in words for p in split_identifier(w))
        return cls(term.text, term.prefix, term.phrase, normalize_title_query(term.text),
                   tuple(tokens(term.text)), parts)  # fmt: skip


class QueryPlan(msgspec.Struct, frozen=True):
    """One query, parsed and resolved (see the module docstring).

    ``nodes`` are the positive nodes: a 1-tuple for a plain term or phrase, the alternatives of
    ``a|b`` otherwise. ``lane_ids`` is None when no lane is asked for, ``tools``
    when no agent is (``tool:`` also narrows ``kinds`` to chats). ``since_ms`` is inclusive,
    ``until_ms`` exclusive. ``parsed`` is the parser's tree, for the FTS ``MATCH`` builder.
    """

    parsed: ParsedQuery
    nodes: tuple[tuple[PlanTerm, ...], ...]
    excluded: tuple[PlanTerm, ...]
    kinds: tuple[str, ...]
    lane_ids: tuple[str, ...] | None
    sessions: tuple[str, ...]
    tools: frozenset[str] | None
    since_ms: int | None
    until_ms: int | None
    limit: int
    cursor: str | None
    fingerprint: str
    warnings: tuple[str, ...]
    offset: int = 0
    """Hits skipped from the first (``--offset``; never with a cursor)."""
    gone_folders: tuple[str, ...] = ()
    """The folders of the ``lane:`` lanes git still records but whose folder is gone (their
    warning is in ``warnings``; the commit history's note on the same folder is then dropped)."""

    @property
    def terms(self) -> tuple[PlanTerm, ...]:
        """The plain positive terms (phrases included), every match must hold each."""
        return tuple(n[0] for n in self.nodes if len(n) == 1)

    @property
    def phrases(self) -> tuple[PlanTerm, ...]:
        return tuple(t for t in self.terms if t.phrase)

    @property
    def alternatives(self) -> tuple[tuple[PlanTerm, ...], ...]:
        return tuple(n for n in self.nodes if len(n) > 1)

    @property
    def positive_terms(self) -> tuple[PlanTerm, ...]:
        """Every positive term, alternatives included, in query order."""
        return tuple(t for n in self.nodes for t in n)

    @property
    def words(self) -> list[str]:
        """Every positive term's words as typed, operator characters dropped (``index*`` →
        ``index``, case and accents kept): what a remote search service is asked for."""
        return [w for t in self.positive_terms for w in token_re(t.text).findall(t.text)]

    @property
    def has_text(self) -> bool:
        return bool(self.nodes)

    @property
    def match_none(self) -> bool:
        return self.parsed.match_none

    @property
    def title_text(self) -> str:
        return self.parsed.title_text

    def matches(self, *texts: str) -> bool:
        """Whether a record whose columns are ``texts`` matches, as the index would decide."""
        if not self.nodes and not self.excluded:
            return True
        return matches_nodes(self.nodes, self.excluded, Haystack.of(*texts))

    def excludes(self, *texts: str) -> bool:
        """Whether an excluded term occurs in ``texts`` (for sources that search remotely)."""
        hay = Haystack.of(*texts)
        return any(term_matches(t, hay) for t in self.excluded)

    def term_found(self, term: PlanTerm, *texts: str) -> bool:
        """Whether one term occurs in ``texts`` (``--explain`` of a delegated hit)."""
        return term_matches(term, Haystack.of(*texts))

    def line_filter(self) -> LineFilter:
        """The cheap pre-filter the file delegate gives ``git grep`` (see ``LineFilter``)."""
        return line_filter_of(self.nodes)

    def allows_lane(self, lane_id: str | None) -> bool:
        return self.lane_ids is None or lane_id in self.lane_ids

    def allows_session(self, session_id: str | None) -> bool:
        return not self.sessions or session_id in self.sessions

    def allows_tool(self, tool: str | None) -> bool:
        return self.tools is None or tool in self.tools

    def allows_role(self, role: str | None) -> bool:
        """``role:``; without it every message but an injected notice (docs/agents.md)."""
        roles = self.parsed.roles
        return role != SYSTEM_ROLE if roles is None else role in roles

    def allows_time(self, at_ms: int) -> bool:
        """Inside the since/until bounds."""
        if self.since_ms is not None and at_ms < self.since_ms:
            return False
        return self.until_ms is None or at_ms < self.until_ms

    @property
    def has_time_bounds(self) -> bool:
        return self.since_ms is not None or self.until_ms is not None


def check_limit(limit: int) -> int:
    """``limit`` when it is a page size.

    Raises:
        UsageError: not an integer from 1 to ``MAX_LIMIT``.
    """
    if isinstance(limit, bool) or not 1 <= limit <= MAX_LIMIT:
        raise UsageError(f"limit must be between 1 and {MAX_LIMIT}, got {limit!r}")
    return limit


def resolve_kinds(requested: Sequence[str] | None, typed: frozenset[str] | None) -> tuple[str, ...]:
    """Kinds to search: ``kind:`` in the text narrows ``--kind``; neither means the default set."""
    for kind in requested or ():
        if kind not in ALL_KINDS:
            raise UsageError(f"unknown kind {kind!r}; valid kinds: {', '.join(ALL_KINDS)}")
    base = set(requested) if requested else None
    if typed is not None:
        base = set(typed) & base if base is not None else set(typed)
    chosen = base if base is not None else set(DEFAULT_KINDS)
    return tuple(k for k in ALL_KINDS if k in chosen)


def resolve_lanes(
    arg: str | None, typed: Sequence[str], lanes: Sequence[Lane]
) -> tuple[str, ...] | None:
    """Lane ids to filter on (``--lane`` and ``lane:``, intersected), None when unconstrained.

    Raises:
        UsageError: a lane that ``resolve_lane`` does not know.
    """
    chosen: set[str] | None = {resolve_lane(arg, lanes)} if arg else None
    if typed:
        ids = {resolve_lane(v, lanes) for v in typed}
        chosen = ids if chosen is None else chosen & ids
    return None if chosen is None else tuple(sorted(chosen))


def _lanes_or_gone(
    arg: str | None,
    typed: Sequence[str],
    lanes: Sequence[Lane],
    gone: Callable[[], Sequence[Lane]] | None,
) -> tuple[tuple[str, ...] | None, tuple[tuple[str, str], ...]]:
    """``resolve_lanes``; a lane it does not know may be one git still records whose folder is
    gone: then its id (its indexed sessions are still found; no source reads its folder), and
    its (id, folder) for the warning. Any other unknown lane stays the usage error, listing the lanes there are."""
    try:
        return resolve_lanes(arg, typed, lanes), ()
    except UsageError as unknown:
        missing = gone() if gone is not None and lanes else ()
        if not missing:
            raise
        try:  # the listed lanes first: a gone lane never shadows a name a live lane answers to
            ids = resolve_lanes(arg, typed, [*lanes, *missing])
        except UsageError:
            raise unknown from None
    live = {lane.id for lane in lanes}
    found = tuple((lane.id, str(lane.path)) for lane in missing
                  if lane.id in (ids or ()) and lane.id not in live)  # fmt: skip
    return ids, found


def _gone_note(lane_id: str, folder: str) -> str:
    return f"lane {lane_id}: its folder {folder} is gone"


def _plan_node(node: Term | AnyOf) -> tuple[PlanTerm, ...]:
    return tuple(PlanTerm.of(t) for t in (node.options if isinstance(node, AnyOf) else (node,)))


MAX_OFFSET = 100_000_000
"""More hits than any index holds: a larger offset is a typing accident."""


def check_offset(offset: int, cursor: str | None) -> int:
    """``offset`` when it is a count of hits to skip, given without a cursor.

    Raises:
        UsageError: negative, too large, not an integer, or given with a cursor.
    """
    if isinstance(offset, bool) or not 0 <= offset <= MAX_OFFSET:
        raise UsageError(f"offset must be between 0 and {MAX_OFFSET:,}, got {offset!r}")
    if offset and cursor:
        raise UsageError("give a cursor or an offset, not both")
    return offset


def build_plan(
    args: SearchQueryArgs,
    *,
    now: datetime,
    lanes: Sequence[Lane],
    gone: Callable[[], Sequence[Lane]] | None = None,
) -> QueryPlan:
    """Parse and resolve ``args`` once (``now`` for ``since:``/``until:``; ``lanes`` for ``lane:``;
    ``gone``, asked only for a lane none of ``lanes`` is, the lanes whose folder is gone).

    Raises:
        UsageError: a bad limit, kind, lane, filter or query (see ``parse_query``).
    """
    limit = check_limit(args.limit)
    offset = check_offset(args.offset, args.cursor)
    parsed = parse_query(args.query, now=now)
    kinds = resolve_kinds(args.kinds, parsed.kinds)
    if parsed.tools is not None:  # only chats have an agent (docs/agents.md): tool: drops the rest
        kinds = tuple(k for k in kinds if k == "chat")
    if parsed.roles is not None:  # only chat messages have a role (docs/agents.md)
        kinds = tuple(k for k in kinds if k == "chat")
    if parsed.commands is not None:  # only shell commands have an exit status (docs/terminal.md)
        kinds = tuple(k for k in kinds if k == "terminal")
    lane_ids, gone_folders = _lanes_or_gone(args.lane_id, parsed.lanes, lanes, gone)
    # since:/until: enter by the text as typed, not by their instant: `since:7d` must keep its
    # cursor valid while the clock moves between two pages.
    # A blank-like query (`"`, a BOM, U+202E) is the empty query: its cursor is the empty one's.
    text = "" if is_blank_query(args.query) else args.query
    fingerprint = query_fingerprint(text, kinds, lane_ids or (), sessions=parsed.sessions)
    return QueryPlan(
        parsed=parsed,
        nodes=tuple(_plan_node(n) for n in parsed.terms),
        excluded=tuple(PlanTerm.of(t) for t in parsed.excluded),
        kinds=kinds,
        lane_ids=lane_ids,
        sessions=parsed.sessions,
        tools=parsed.tools,
        since_ms=parsed.since_ms,
        until_ms=parsed.until_ms,
        limit=limit,
        cursor=args.cursor,
        offset=offset,
        fingerprint=fingerprint,
        warnings=(*parsed.warnings, *(_gone_note(lane, path) for lane, path in gone_folders)),
        gone_folders=tuple(path for _, path in gone_folders),
    )
