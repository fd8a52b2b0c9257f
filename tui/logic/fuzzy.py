"""Local fuzzy matching (commands, lanes, chat sessions) with rapidfuzz, plus highlight spans.

Runs synchronously on every keystroke, so the scoring over all items happens inside rapidfuzz's C
loop (``process.extract``) and the Python-side work (highlight spans, row building) is done only
for the few rows that will be painted.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from tui.logic.rows import PaletteRow, RowKind, Spans

LOCAL_LIMIT = 40
"""Rows painted for local matches: a screen and a half at 200x60; more is never looked at."""

SCORE_CUTOFF = 80.0
"""partial_ratio below this is noise: "login" scores 75 against "link: copy"."""

EMPTY_QUERY_CHATS = 8
"""Recent chats shown for the empty query in the everything stop: discovery, not an exhaustive
list (the sessions, chat and terminal stops list every session)."""

LISTING_LIMIT = 500
"""Sessions listed for an empty query in a session kind: more than a day of heavy use."""


@dataclass(frozen=True, slots=True)
class LocalItem:
    """Something matchable without the index: a command, a lane or a chat session."""

    key: str
    kind: RowKind
    label: str
    detail: str = ""
    lane: str | None = None
    updated_at_ms: int | None = None
    session_id: str | None = None
    deep_link: str | None = None
    action: str | None = None
    tool: str | None = None
    """A chat's agent (``tool:``), also for .ade chats, whose ``detail`` leaves it out."""

    def to_row(self, spans: Spans = (), *, leads: bool = False) -> PaletteRow:
        """The painted form of this item with ``spans`` highlighted in the title."""
        return PaletteRow(
            key=self.key,
            kind=self.kind,
            title=self.label,
            title_spans=spans,
            snippet=self.detail,
            lane=self.lane,
            updated_at_ms=self.updated_at_ms,
            session_id=self.session_id,
            deep_link=self.deep_link,
            action=self.action,
            local=True,
            leads=leads,
        )


def highlight_spans(query: str, text: str) -> Spans:
    """Spans of ``text`` that match ``query``: an exact substring if there is one, else the
    characters of the query found in order (greedy), else the best aligned window.

    Args:
        query: What was typed (case-insensitive).
        text: The label being painted.
    """
    from rapidfuzz import fuzz  # imported on first use: first paint never needs it

    needle = query.strip().lower()
    haystack = text.lower()
    if not needle:
        return ()
    found = haystack.find(needle)
    if found >= 0:
        return ((found, found + len(needle)),)
    positions: list[int] = []
    cursor = 0
    for char in needle:
        if char.isspace():
            continue
        index = haystack.find(char, cursor)
        if index < 0:
            positions = []
            break
        positions.append(index)
        cursor = index + 1
    if not positions:
        alignment = fuzz.partial_ratio_alignment(needle, haystack)
        if alignment is None or alignment.dest_end <= alignment.dest_start:
            return ()
        return ((alignment.dest_start, alignment.dest_end),)
    return _merge_positions(positions)


def _merge_positions(positions: list[int]) -> Spans:
    spans: list[tuple[int, int]] = []
    for position in positions:
        if spans and spans[-1][1] == position:
            spans[-1] = (spans[-1][0], position + 1)
        else:
            spans.append((position, position + 1))
    return tuple(spans)


def match_local(
    query: str, items: Sequence[LocalItem], *, limit: int = LOCAL_LIMIT
) -> list[PaletteRow]:
    """Rank ``items`` against ``query``; the empty query gives recent chats, lanes and commands.

    Substring matches come first, found with a plain ``in`` scan in precomputed recency order
    (prefix matches, then word-start, then anywhere); only when they do not fill the list does
    rapidfuzz's ``partial_ratio`` add fuzzy matches (typos, reordered words). Every tie is broken
    by recency then label, so the order is total (deterministic snapshots). ``items`` must not be
    mutated in place (its processed form is cached).
    """
    from rapidfuzz import fuzz, process, utils

    needle = utils.default_process(query)
    if not needle:
        return _discovery(items, limit)
    choices, order = _processed(items)
    spaced = " " + needle
    # Exact substring matches all score 100: take them in recency order, starts-with first,
    # then word-start, then anywhere; stop as soon as the first bucket is full.
    buckets: tuple[list[int], list[int], list[int]] = ([], [], [])
    for index in order:
        text = choices[index]
        if needle not in text:
            continue
        level = 0 if text.startswith(needle) else 1 if spaced in text else 2
        if len(buckets[level]) < limit:
            buckets[level].append(index)
            if level == 0 and len(buckets[0]) == limit:
                break
    best = [*buckets[0], *buckets[1], *buckets[2]][:limit]
    if len(best) < limit:
        taken = set(best)
        fuzzy = process.extract(
            needle, choices, scorer=fuzz.partial_ratio, processor=None,
            score_cutoff=SCORE_CUTOFF, limit=limit * 4,
        )  # fmt: skip
        extra = sorted(
            (hit for hit in fuzzy if hit[2] not in taken),
            key=lambda hit: (-round(hit[1]), -(items[hit[2]].updated_at_ms or 0),
                             items[hit[2]].label),
        )  # fmt: skip
        best.extend(hit[2] for hit in extra[: limit - len(best)])
    words = needle.split()
    rows = []
    for i in best:
        leads = _starts_words(words, choices[i])
        if items[i].kind == "command" and not leads:
            continue  # a command runs on Enter: only a word-start match of its name offers it
        rows.append(items[i].to_row(highlight_spans(query, items[i].label), leads=leads))
    return rows


def _starts_words(words: Sequence[str], text: str) -> bool:
    """Whether every one of ``words`` is the start of a word of ``text`` (both processed)."""
    starts = text.split()
    return all(any(start.startswith(word) for start in starts) for word in words)


_cache: dict[int, tuple[Sequence[LocalItem], list[str], list[int]]] = {}


def _processed(items: Sequence[LocalItem]) -> tuple[list[str], list[int]]:
    """Lower-cased, punctuation-free label + detail of every item, and the item indices in
    recency order (newest first, then label): computed once per list."""
    from rapidfuzz import utils

    cached = _cache.get(id(items))
    if cached is not None and cached[0] is items and len(cached[1]) == len(items):
        return cached[1], cached[2]
    # A command matches by its name only: "the" must not find `app: quit` by its description.
    choices = [
        utils.default_process(
            item.label + (" " + item.detail if item.detail and item.kind != "command" else "")
        )
        for item in items
    ]
    order = sorted(
        range(len(items)), key=lambda i: (-(items[i].updated_at_ms or 0), items[i].label)
    )
    _cache.clear()
    _cache[id(items)] = (items, choices, order)
    return choices, order


def _discovery(items: Sequence[LocalItem], limit: int) -> list[PaletteRow]:
    chats = _newest_first(item for item in items if item.kind == "chat")
    lanes = [item for item in items if item.kind == "lane"]
    commands = [item for item in items if item.kind in {"command", "project"}]
    chosen = (*chats[:EMPTY_QUERY_CHATS], *lanes, *commands)
    return [item.to_row() for item in chosen][: max(limit, len(commands))]


def _newest_first(items: Iterable[LocalItem]) -> list[LocalItem]:
    return sorted(items, key=lambda item: (-(item.updated_at_ms or 0), item.label))


def list_sessions(
    items: Sequence[LocalItem], kinds: Iterable[str], tools: Sequence[str] = ()
) -> list[PaletteRow]:
    """Every session of ``kinds`` (only chats of ``tools``, when given), one row each, newest
    activity first: what an empty query in a session kind shows."""
    chosen = items_of(items, kinds, tools)
    return [item.to_row() for item in _newest_first(chosen)[:LISTING_LIMIT]]


def items_of(
    items: Sequence[LocalItem], kinds: Iterable[str], tools: Sequence[str] = ()
) -> list[LocalItem]:
    """The items of ``kinds``; with ``tools``, only the chats of those agents (``tool:``) and
    the palette's own commands (they belong to no agent)."""
    wanted = frozenset(kinds)
    return [
        item for item in items
        if item.kind in wanted and (not tools or item.kind in _NO_AGENT
                                    or (item.kind == "chat" and (item.tool or item.detail) in tools))
    ]  # fmt: skip


_NO_AGENT = frozenset({"command", "project"})
