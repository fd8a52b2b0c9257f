"""Queries as people paste them: a paragraph is searched, not refused.

Two rules, both deterministic. Too long: the text is cut at the last whitespace before the
limit (one unbroken run that long is a blob, not words: refused). Too many terms: duplicates
(case- and width-folded) go first; then, while still over, weak words — stop words and words
under 3 characters; the first ones that remain are kept, in query order. If only weak words are
left, the first unique ones are kept instead.
"""

# warm path: a warm `ade search` imports this; keep its imports light (ARCHITECTURE: The warm path)

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TypeVar

from engine.errors import UsageError
from engine.query.ranking import normalize_title_query

T = TypeVar("T")

_STOP_WORDS_TEXT = (
    "a an and are as at be but by for from has have in is it its not of on or so that the then "
    "this to was were will with you your we our they them their there here what which who how "
    "when where why can could would should i me my do does did"
)
STOP_WORDS = frozenset(_STOP_WORDS_TEXT.split())
"""Words a pasted sentence is full of and that select nothing; dropped first when it is cut."""

_EDGE_PUNCTUATION = "*^()[]{}.,;:!?'\""


def cut_to_length(text: str, max_length: int) -> tuple[str, str | None]:
    """``text`` within ``max_length``: cut at the last whitespace before it, with a warning.

    Raises:
        UsageError: no whitespace before the limit (one unbroken run is a blob, not a query).
    """
    if len(text) <= max_length:
        return text, None
    cut = max(text.rfind(ch, 0, max_length + 1) for ch in " \t\n\r")
    if cut <= 0:
        raise UsageError(f"query is {len(text)} characters; the limit is {max_length}")
    return text[:cut], f"query cut to its first {cut} of {len(text)} characters"


def is_weak_word(text: str) -> bool:
    """A stop word or a word under 3 characters (edge punctuation such as ``(x)`` ignored)."""
    word = normalize_title_query(text).strip(_EDGE_PUNCTUATION)
    return len(word) < 3 or word in STOP_WORDS


def first_distinctive(
    items: Sequence[T], room: int, *, key: Callable[[T], str], weak: Callable[[T], bool]
) -> list[T]:
    """At most ``room`` of ``items`` in their order, by the module's rule (``key``: what makes
    two items duplicates; ``weak``: what goes after duplicates)."""
    first: dict[str, T] = {}
    for item in items:
        first.setdefault(key(item), item)
    unique = list(first.values())
    if len(unique) <= room:
        return unique
    strong = [item for item in unique if not weak(item)]
    return (strong or unique)[:room]
