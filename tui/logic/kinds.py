"""The kind switcher (Tab / Shift+Tab) and which kinds a palette query asks the engine for."""

from __future__ import annotations

import re
from dataclasses import dataclass

from engine.types import AGENT_TOOLS, ALL_KINDS, DEFAULT_KINDS, DocKind

PALETTE_DEFAULT_KINDS: tuple[DocKind, ...] = ("chat", "terminal")
"""Without a kind filter the palette shows chat and terminal hits below local matches (seed TUI)."""

_KIND_FILTER = re.compile(r"(?:^|\s)kind:\S*")
_TOOL_FILTER = re.compile(r"(?:^|\s)tool:\S*")


@dataclass(frozen=True, slots=True)
class KindMode:
    """One stop of the switcher: a label for the footer/input border and the kinds to ask for."""

    label: str
    kinds: tuple[DocKind, ...]
    tool: str | None = None
    """Chats of this agent only (issue 16): the palette adds ``tool:<tool>`` to the query."""


KIND_MODES: tuple[KindMode, ...] = (
    KindMode("sessions", PALETTE_DEFAULT_KINDS),
    KindMode("everything", DEFAULT_KINDS),
    *(KindMode(kind, (kind,)) for kind in ALL_KINDS),
    *(KindMode(f"chat: {tool}", ("chat",), tool) for tool in AGENT_TOOLS),
)
"""Switcher stops in order: the default, every default kind, each kind alone, then the chats of
each agent alone (issue 16)."""


def cycle(index: int, step: int) -> int:
    """The switcher position after Tab (+1) or Shift+Tab (-1), wrapping around."""
    return (index + step) % len(KIND_MODES)


def query_names_kinds(query: str) -> bool:
    """True when the typed query carries its own ``kind:`` filter (the engine then decides)."""
    return bool(_KIND_FILTER.search(query))


def kinds_for(query: str, mode_index: int) -> tuple[DocKind, ...] | None:
    """The ``kinds`` argument for the engine: None lets a typed ``kind:`` filter decide."""
    if query_names_kinds(query) and mode_index == 0:
        return None
    return KIND_MODES[mode_index].kinds


def query_for(query: str, mode_index: int) -> str:
    """The query text sent to the engine: a tool stop adds ``tool:<tool>`` unless the typed
    query names its own tools."""
    tool = KIND_MODES[mode_index].tool
    if tool is None or _TOOL_FILTER.search(query):
        return query
    return f"{query} tool:{tool}"
