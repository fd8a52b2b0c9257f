"""The kind switcher (Tab / Shift+Tab) and the one rule for which kinds a palette query shows.

The rule (kinds agree): a ``kind:`` typed in the query replaces the switcher's stop — for the
search, for the local rows and for the badge — so what the badge names is what is shown.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from engine.types import AGENT_TOOLS, ALL_KINDS, DEFAULT_KINDS, KIND_ALIASES, DocKind

SESSION_KINDS: tuple[DocKind, ...] = ("chat", "terminal")
"""The kinds whose documents belong to a session (one row per session)."""

_KIND_FILTER = re.compile(r"(?:^|\s)kind:(\S*)")
_TOOL_FILTER = re.compile(r"(?:^|\s)tool:\S*")
_LISTING_FILTER = re.compile(r"^(?:kind|tool):\S*$")


@dataclass(frozen=True, slots=True)
class KindMode:
    """One stop of the switcher: a label for the footer/input border and the kinds to ask for."""

    label: str
    kinds: tuple[DocKind, ...]
    tool: str | None = None
    """Chats of this agent only (docs/agents.md): the palette adds ``tool:<tool>`` to the query."""


KIND_MODES: tuple[KindMode, ...] = (
    KindMode("everything", DEFAULT_KINDS),
    KindMode("sessions", SESSION_KINDS),
    *(KindMode(kind, (kind,)) for kind in ALL_KINDS),
    *(KindMode(f"chat: {tool}", ("chat",), tool) for tool in AGENT_TOOLS),
)
"""Switcher stops in order: everything (where the palette starts, so no hit hides behind Tab),
sessions, each kind alone, then the chats of each agent alone (docs/agents.md)."""


@dataclass(frozen=True, slots=True)
class KindsInForce:
    """What a query in a switcher stop shows."""

    label: str
    """The badge: the stop's label, or the typed ``kind:`` values."""
    kinds: tuple[DocKind, ...]
    """The kinds shown (local rows and search hits)."""
    engine_kinds: tuple[DocKind, ...] | None
    """The ``kinds`` argument for the engine: None lets the typed ``kind:`` filter decide."""
    tool: str | None
    """A ``chat: <tool>`` stop's agent (None when a typed ``kind:`` replaced the stop)."""
    typed: bool
    """Whether a typed ``kind:`` decides."""
    commands: bool
    """Whether palette commands are offered (every stop for a typed query; the everything and
    sessions stops for the empty one)."""

    @property
    def sessions_only(self) -> bool:
        """Only chat and terminal kinds: an empty query lists their sessions."""
        return bool(self.kinds) and all(kind in SESSION_KINDS for kind in self.kinds)

    @property
    def narrowed(self) -> bool:
        """A switcher stop narrower than everything: other kinds' hits are worth a mention."""
        return not self.typed and set(self.kinds) < set(DEFAULT_KINDS)


def cycle(index: int, step: int) -> int:
    """The switcher position after Tab (+1) or Shift+Tab (-1), wrapping around."""
    return (index + step) % len(KIND_MODES)


def typed_kinds(query: str) -> tuple[DocKind, ...] | None:
    """The kinds a typed ``kind:`` filter names (aliases resolved, unknown names dropped: the
    engine reports them), or None when the query has no ``kind:`` filter."""
    found = _KIND_FILTER.findall(query)
    if not found:
        return None
    names = [KIND_ALIASES.get(n, n) for value in found for n in value.lower().split(",") if n]
    return tuple(kind for kind in ALL_KINDS if kind in names)


def in_force(query: str, mode_index: int) -> KindsInForce:
    """The kinds ``query`` shows in switcher stop ``mode_index``: a typed ``kind:`` replaces the
    stop's kinds (and its tool)."""
    mode = KIND_MODES[mode_index]
    typed = typed_kinds(query)
    if typed is not None:
        label = ",".join(typed) or "?"
        return KindsInForce(label, typed, None, None, typed=True, commands=False)
    # A typed command (``index: rebuild``) works in every stop; an empty query
    # lists commands in the everything and sessions stops only (a kind's stop browses that kind).
    home = mode.tool is None and mode.kinds in {DEFAULT_KINDS, SESSION_KINDS}
    commands = home or bool(query.strip())
    return KindsInForce(mode.label, mode.kinds, mode.kinds, mode.tool, typed=False,
                        commands=commands)  # fmt: skip


def query_for(query: str, mode_index: int) -> str:
    """The query text sent to the engine: a tool stop adds ``tool:<tool>`` unless the typed
    query names its own tools or kinds."""
    tool = in_force(query, mode_index).tool
    if tool is None or _TOOL_FILTER.search(query):
        return query
    return f"{query} tool:{tool}"


def lists_sessions(query: str, force: KindsInForce) -> bool:
    """Whether ``query`` asks for a listing of sessions rather than a search: nothing but
    ``kind:``/``tool:`` filters, in chat/terminal kinds only (``kind:terminal``, or Tab to the
    terminal stop with an empty query). A search would list chunks, and one long log's chunks
    crowd out every other session."""
    tokens = query.split()
    return force.sessions_only and all(_LISTING_FILTER.match(token) for token in tokens)


def typed_tools(query: str) -> tuple[str, ...]:
    """The agents a typed ``tool:`` filter names (empty when there is none)."""
    found = re.findall(r"(?:^|\s)tool:(\S*)", query)
    return tuple(n for value in found for n in value.lower().split(",") if n)


def without_listing_filters(query: str) -> str:
    """``query`` without its ``kind:``/``tool:`` filters: the words local items are matched by."""
    return " ".join(token for token in query.split() if not _LISTING_FILTER.match(token))


def other_kinds(force: KindsInForce) -> tuple[DocKind, ...]:
    """The kinds a narrowed stop hides: asked separately so the palette can say they have hits."""
    return (
        tuple(kind for kind in DEFAULT_KINDS if kind not in force.kinds) if force.narrowed else ()
    )


def count_line(
    total: int, truncated: bool, doc_count: int | None, others: dict[str, int] | None = None
) -> str:
    """fzf's habit: ``12 of 340`` (``0 of 1,234`` when nothing matches), then the kinds the
    current stop hides that have hits: ``also 40 commit · 3 file (tab)``."""
    matched = f"{total:,}{'+' if truncated else ''}"
    # Before the first index has written anything the hits come from the live sources (git,
    # files): ``42 of 0`` reads as a contradiction, so the count stands alone.
    line = f"{matched} of {doc_count:,}" if doc_count else f"{matched} found"
    if others:
        named = " · ".join(f"{n} {kind}" for kind, n in others.items())
        line += f" · also {named} (tab)"
    return line
