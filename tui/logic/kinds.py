"""The kind switcher (Tab / Shift+Tab) and which kinds a palette query asks the engine for."""

from __future__ import annotations

import re
from dataclasses import dataclass

from engine.types import ALL_KINDS, DEFAULT_KINDS, DocKind

PALETTE_DEFAULT_KINDS: tuple[DocKind, ...] = ("chat", "terminal")
"""Without a kind filter the palette shows chat and terminal hits below local matches (seed TUI)."""

_KIND_FILTER = re.compile(r"(?:^|\s)kind:\S*")


@dataclass(frozen=True, slots=True)
class KindMode:
    """One stop of the switcher: a label for the footer/input border and the kinds to ask for."""

    label: str
    kinds: tuple[DocKind, ...]


KIND_MODES: tuple[KindMode, ...] = (
    KindMode("sessions", PALETTE_DEFAULT_KINDS),
    KindMode("everything", DEFAULT_KINDS),
    *(KindMode(kind, (kind,)) for kind in ALL_KINDS),
)
"""Switcher stops in order: the default, every default kind, then each kind alone."""


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
