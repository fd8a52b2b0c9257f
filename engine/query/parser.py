"""The query language (DESIGN §5, RELIABILITY 15–18) and the FTS5 MATCH built from it.

Syntax: bare terms are AND-ed prefix tokens; ``"quoted phrases"`` match exactly; ``-term`` excludes;
``a|b`` means either; filters ``kind:`` (``issue`` = ``linear``), ``lane:`` (an id, folder name,
branch, or ``main``/``primary``; resolved by ``engine.query.plan``), ``session:``, ``tool:``
(``claude,codex``: chats of those agents), ``since:`` and ``until:`` (``30m``, ``24h``, ``7d``,
``2w``, or an ISO date/datetime, against an injected clock; ``until:<date>`` includes that whole
day; ``until`` at or before ``since`` is a usage error), and over shell commands ``exit:``,
``cwd:`` and ``took:`` (``engine.query.command_filters``).
Everything else is data: ``AND``, ``NEAR(``, ``*``, ``foo:bar`` are searched as words, never passed
to FTS5 raw. The parser yields a small tree (``Term``, ``AnyOf``); ``build_match`` renders it, every
user term as an FTS5 string with ``"`` doubled. Everything else reads the ``QueryPlan`` built from it.

Pasted text is searched, not refused: past ``MAX_QUERY_LENGTH`` a text with spaces is
cut at the last space before the limit (one unbroken run that long is refused: a blob, not words);
past ``MAX_TERMS`` the query keeps its first ``MAX_TERMS`` distinctive terms
(``engine.query.pasted``: duplicates, stop words and words under 3 characters go first) and says
how many it used. A quoted paste is one phrase, one term, and is searched whole.

One-character policy (RELIABILITY 18): a term whose last token is one character is matched as that
exact token, never as a prefix — expanding ``a*`` over a large index costs ~100 ms — and the first
keystroke instead scans titles by prefix (``ParsedQuery.title_prefix_scan``).
"""

# warm path: a warm `ade search` imports this; keep its imports light (ARCHITECTURE: The warm path)

from __future__ import annotations

import functools
import re
import unicodedata
from collections.abc import Callable
from datetime import datetime, time, timedelta

import msgspec

from engine.errors import UsageError
from engine.index.command_sql import CommandFilter
from engine.kinds import ROLES, parse_kinds
from engine.project.model import is_valid_session_id
from engine.query import command_filters
from engine.query.pasted import cut_to_length, first_distinctive, is_weak_word
from engine.query.ranking import normalize_title_query
from engine.types import AGENT_TOOLS

MAX_QUERY_LENGTH = 1000
"""Longer input is a paste: it is cut at a space (FTS5 cost grows with every term)."""

MAX_TERMS = 32
"""Each term is one more doclist to intersect; beyond this the query keeps its first
``MAX_TERMS`` distinctive terms (with a warning), it is not refused."""


@functools.cache
def _duration_re() -> re.Pattern[str]:
    """``30m``, ``24h``, ``7d``, ``2w``: compiled when a time filter is parsed."""
    return re.compile(r"(\d{1,7})([mhdw])")


_UNITS = {"m": "minutes", "h": "hours", "d": "days", "w": "weeks"}
_TIME_HELP = (
    "use 30m, 24h, 7d, 2w, or an ISO date/datetime like 2026-06-01 or 2026-06-01T09:30+02:00"
)


class Term(msgspec.Struct, frozen=True):
    """One user term: ``prefix`` for bare words (``"x"*``), False for phrases and 1-char words."""

    text: str
    prefix: bool
    phrase: bool = False


class AnyOf(msgspec.Struct, frozen=True):
    """``a|b``: any of the alternatives."""

    options: tuple[Term, ...]


Node = Term | AnyOf


class ParsedQuery(msgspec.Struct, frozen=True):
    """A parsed query: the text tree, the filters, and how to run it."""

    terms: tuple[Node, ...] = ()
    excluded: tuple[Term, ...] = ()
    kinds: frozenset[str] | None = None
    lanes: tuple[str, ...] = ()
    sessions: tuple[str, ...] = ()
    since_ms: int | None = None
    until_ms: int | None = None
    tools: frozenset[str] | None = None
    """``tool:`` (docs/agents.md): only chats written by these agents; None means any."""
    commands: CommandFilter | None = None
    """``exit:``/``cwd:``/``took:`` (docs/terminal.md): only shell commands so; None means no filter."""
    roles: frozenset[str] | None = None
    """``role:system`` (docs/agents.md "What is hidden"): only the notices agents injected; None
    means every message but those."""
    title_text: str = ""
    match_none: bool = False
    title_prefix_scan: str | None = None
    warnings: tuple[str, ...] = msgspec.field(default=())

    @property
    def match_all(self) -> bool:
        """Filter-only (or empty): list everything the filters allow, never run FTS."""
        return not self.terms and not self.match_none

    @property
    def one_phrase(self) -> bool:
        """The MATCH holds exactly one FTS5 phrase (one term, no ``|``, no exclusion)."""
        return len(self.terms) == 1 and isinstance(self.terms[0], Term) and not self.excluded


def is_token_char(ch: str) -> bool:
    """Whether FTS5 ``unicode61`` keeps ``ch`` in a token (categories L*, N*, Co)."""
    cat = unicodedata.category(ch)
    return cat[0] in "LN" or cat == "Co"


def _strip_controls(text: str) -> str:
    # NUL and other controls would reach SQLite or the terminal; whitespace-like ones become spaces.
    return "".join(
        " " if unicodedata.category(ch) in ("Cc", "Zl", "Zp") else ch
        for ch in text
        if unicodedata.category(ch) not in ("Cs", "Cf") or ch == "\u200d"
    )


def _last_token_len(text: str) -> int:
    count = 0
    for ch in reversed(text):
        if is_token_char(ch):
            count += 1
        elif count:
            break
    return count


def _tokenize(text: str) -> list[tuple[bool, bool, str]]:
    """Split on whitespace; ``"…"`` (optionally after ``-``) is one phrase token.

    Returns:
        ``(negated, quoted, text)`` triples; an unterminated quote runs to the end.
    """
    out: list[tuple[bool, bool, str]] = []
    i, n = 0, len(text)
    while i < n:
        if text[i].isspace():
            i += 1
            continue
        neg = text[i] == "-" and i + 1 < n and text[i + 1] == '"'
        j = i + 1 if neg else i
        if text[j] == '"':
            end = text.find('"', j + 1)
            end = n if end < 0 else end
            out.append((neg, True, text[j + 1 : end]))
            i = end + 1
            continue
        end = j
        while end < n and not text[end].isspace():
            end += 1
        word = text[j:end]
        if word.startswith("-") and len(word) > 1:
            out.append((True, False, word[1:]))
        else:
            out.append((False, False, word))
        i = end
    return out


def parse_since(value: str, now: datetime, *, key: str = "since", day_end: bool = False) -> int:
    """``since:``/``until:`` value → epoch milliseconds. Durations count back from ``now``.

    A date without time is midnight (the next midnight with ``day_end``, so ``until:<date>``
    includes that day) and a datetime without zone is local, both in ``now``'s zone.

    Raises:
        UsageError: not a duration or ISO date/datetime (the message shows valid forms).
    """
    if now.tzinfo is None:
        raise ValueError("now must be timezone-aware")
    m = _duration_re().fullmatch(value.lower())
    try:
        if m:
            stamp = now - timedelta(**{_UNITS[m.group(2)]: int(m.group(1))})
        elif re.fullmatch(r"\d{4}-\d{2}-\d{2}", value):
            stamp = datetime.combine(datetime.fromisoformat(value).date(), time(), now.tzinfo)
            stamp += timedelta(days=1) if day_end else timedelta()
        elif re.fullmatch(r"\d{4}-\d{2}-\d{2}[T ].+", value):
            stamp = datetime.fromisoformat(value)
            if stamp.tzinfo is None:
                stamp = stamp.replace(tzinfo=now.tzinfo)
        else:
            raise ValueError(value)
        return int(stamp.timestamp() * 1000)
    except (ValueError, OverflowError):
        raise UsageError(f"invalid {key}:{value!r}: {_TIME_HELP}") from None


# --- tool: filter (docs/agents.md) ----------------------------------------------------------------
def parse_tools(value: str) -> set[str]:
    """The agents named by a ``tool:`` value (``claude,codex``).

    Raises:
        UsageError: an unknown or empty tool name (the message lists the known ones).
    """
    tools: set[str] = set()
    for raw in value.lower().split(","):
        if raw not in AGENT_TOOLS:
            raise UsageError(f"unknown tool:{raw!r}; known tools: {', '.join(AGENT_TOOLS)}")
        tools.add(raw)
    return tools


# --- end tool: filter ---------------------------------------------------------------------------


def parse_roles(value: str) -> set[str]:
    """The roles named by a ``role:`` value.

    Raises:
        UsageError: an unknown or empty role (the message lists the known ones).
    """
    roles: set[str] = set()
    for raw in value.lower().split(","):
        if raw not in ROLES:
            raise UsageError(f"unknown role:{raw!r}; known roles: {', '.join(ROLES)}")
        roles.add(raw)
    return roles


def _make_term(text: str, phrase: bool) -> Term | None:
    if not any(is_token_char(ch) for ch in text):
        return None  # punctuation/emoji only: FTS5 would see an empty phrase
    prefix = not phrase and _last_token_len(text) > 1
    return Term(text=text, prefix=prefix, phrase=phrase)


class _Builder(msgspec.Struct):
    now: datetime
    terms: list[Node] = msgspec.field(default_factory=list)
    excluded: list[Term] = msgspec.field(default_factory=list)
    kinds: set[str] | None = None
    lanes: list[str] = msgspec.field(default_factory=list)
    sessions: list[str] = msgspec.field(default_factory=list)
    since_ms: int | None = None
    until_ms: int | None = None
    tools: set[str] | None = None
    commands: CommandFilter | None = None
    roles: set[str] | None = None
    dropped: list[str] = msgspec.field(default_factory=list)

    def kind(self, value: str) -> None:
        self.kinds = (self.kinds or set()) | set(parse_kinds(value.split(","), spelled="kind:"))

    def lane(self, value: str) -> None:
        if not value:
            raise UsageError("lane: needs a lane id or name, e.g. lane:primary")
        self.lanes.append(value)

    def session(self, value: str) -> None:
        if not is_valid_session_id(value):
            raise UsageError(f"invalid session:{value!r}; session ids are [A-Za-z0-9._-]{{1,128}}")
        self.sessions.append(value)

    def tool(self, value: str) -> None:
        self.tools = (self.tools or set()) | parse_tools(value)

    def role(self, value: str) -> None:
        self.roles = (self.roles or set()) | parse_roles(value)

    def exit(self, value: str) -> None:
        self.commands = command_filters.add_exit(self.commands, value)

    def cwd(self, value: str) -> None:
        self.commands = command_filters.add_cwd(self.commands, value)

    def took(self, value: str) -> None:
        self.commands = command_filters.add_took(self.commands, value)

    def since(self, value: str) -> None:
        ms = parse_since(value, self.now)
        self.since_ms = ms if self.since_ms is None else max(self.since_ms, ms)

    def until(self, value: str) -> None:
        ms = parse_since(value, self.now, key="until", day_end=True)
        self.until_ms = ms if self.until_ms is None else min(self.until_ms, ms)

    def word(self, negated: bool, quoted: bool, text: str) -> None:
        if not quoted and "|" in text and not negated:
            opts = [t for t in (_make_term(p, False) for p in text.split("|")) if t is not None]
            if len(opts) > 1:
                self.terms.append(AnyOf(tuple(opts)))
                return
            if opts:
                self._add(False, opts[0])
                return
            self.dropped.append(text)
            return
        term = _make_term(text, quoted)
        if term is None:
            if text:
                self.dropped.append(text)
            return
        self._add(negated, term)

    def _add(self, negated: bool, term: Term) -> None:
        if negated:
            self.excluded.append(term)
        else:
            self.terms.append(term)


_FILTERS: dict[str, Callable[[_Builder, str], None]] = {
    "kind": _Builder.kind,
    "lane": _Builder.lane,
    "session": _Builder.session,
    "tool": _Builder.tool,
    "role": _Builder.role,
    "since": _Builder.since,
    "until": _Builder.until,
    "exit": _Builder.exit,
    "cwd": _Builder.cwd,
    "took": _Builder.took,
}
"""Filter key → what it does to the query. A new filter is one more entry (and one method)."""

FILTER_KEYS = tuple(_FILTERS)


def _fold_key(node: Node) -> str:
    if isinstance(node, AnyOf):
        return "|".join(_fold_key(t) for t in node.options)
    return ('"' if node.phrase else "") + normalize_title_query(node.text)


def _distinctive(nodes: list[Node], room: int) -> list[Node]:
    """At most ``room`` of ``nodes`` by ``first_distinctive``; phrases and ``a|b`` never weak."""

    def weak(node: Node) -> bool:
        return isinstance(node, Term) and not node.phrase and is_weak_word(node.text)

    return first_distinctive(nodes, room, key=_fold_key, weak=weak)


def parse_query(text: str, *, now: datetime) -> ParsedQuery:
    """Parse user query text. Never raises for odd text; raises only for invalid filters/length.

    Raises:
        UsageError: one unbroken run over the length limit, a bad ``kind:``/``since:``/
            ``until:``/``session:``, an empty ``lane:``, ``until`` not after ``since``, or only
            exclusions.
    """
    text, cut_warning = cut_to_length(text, MAX_QUERY_LENGTH)
    b = _Builder(now)
    for negated, quoted, word in _tokenize(_strip_controls(text)):
        key, sep, value = word.partition(":")
        handler = _FILTERS.get(key.lower()) if sep and not quoted and not negated else None
        if handler is not None:
            handler(b, value)
        else:
            b.word(negated, quoted, word)
    if b.since_ms is not None and b.until_ms is not None and b.until_ms <= b.since_ms:
        raise UsageError("until: is not after since:; nothing can be in that range")
    if b.excluded and not b.terms:
        raise UsageError("-term only excludes: add at least one term to search for")
    warnings = [f"ignored {w!r}: no letters or digits" for w in b.dropped]
    if cut_warning:
        warnings.append(cut_warning)
    terms, excluded = b.terms, b.excluded
    given = len(terms) + len(excluded)
    if given > MAX_TERMS:
        excluded = [n for n in _distinctive(list(excluded), MAX_TERMS // 2) if isinstance(n, Term)]
        terms = _distinctive(terms, MAX_TERMS - len(excluded))
        warnings.append(
            f"query has {given} terms, over the limit of {MAX_TERMS}: searched its first"
            f" {len(terms) + len(excluded)} distinctive ones (quote it to search it as one phrase)"
        )
    title_words = [n.text for n in terms if isinstance(n, Term)]
    title_text = normalize_title_query(" ".join(title_words))
    single = terms[0] if len(terms) == 1 else None
    scan = (
        title_text
        if isinstance(single, Term) and not single.phrase and len(title_text) == 1 and not excluded
        else None
    )
    return ParsedQuery(
        terms=tuple(terms),
        excluded=tuple(excluded),
        kinds=frozenset(b.kinds) if b.kinds is not None else None,
        lanes=tuple(b.lanes),
        sessions=tuple(b.sessions),
        since_ms=b.since_ms,
        until_ms=b.until_ms,
        tools=frozenset(b.tools) if b.tools is not None else None,
        commands=b.commands,
        roles=frozenset(b.roles) if b.roles is not None else None,
        title_text=title_text,
        match_none=bool(b.dropped) and not terms,
        title_prefix_scan=scan,
        warnings=tuple(warnings),
    )


def fts_string(term: Term) -> str:
    """One term as an FTS5 string: quoted, ``"`` doubled, ``*`` appended for a prefix."""
    quoted = '"' + term.text.replace('"', '""') + '"'
    return quoted + "*" if term.prefix else quoted


def _node(node: Node) -> str:
    if isinstance(node, Term):
        return fts_string(node)
    return "(" + " OR ".join(fts_string(t) for t in node.options) + ")"


def build_match(parsed: ParsedQuery, *, title_only: bool = False) -> str | None:
    """The FTS5 MATCH expression for ``parsed``, or None when FTS must not run (match-all/none).

    Args:
        parsed: the parsed query.
        title_only: scope the positive terms to ``rank_title`` (exclusions stay document-wide).
    """
    if not parsed.terms:
        return None
    positive = " AND ".join(_node(n) for n in parsed.terms)
    if title_only:
        positive = "{rank_title} : (" + positive + ")"
    if not parsed.excluded:
        return positive
    negative = " OR ".join(fts_string(t) for t in parsed.excluded)
    return f"({positive}) NOT ({negative})"


def build_positive(parsed: ParsedQuery) -> str | None:
    """The positive terms alone (no exclusion): what the title table is searched with."""
    if not parsed.terms:
        return None
    return " AND ".join(_node(n) for n in parsed.terms)


def build_excluded(parsed: ParsedQuery) -> str | None:
    """Any excluded term, as one MATCH (None without ``-term``): a hit means the doc is out."""
    if not parsed.excluded:
        return None
    return " OR ".join(fts_string(t) for t in parsed.excluded)
