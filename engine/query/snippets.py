"""Snippets with ``\\x01``/``\\x02`` markers, made in Python for the page being shown.

The index is contentless (FTS5 ``snippet()`` has no text to read), so the query path decompresses
the bodies of the one page it returns and marks the query's matches here. This is cheaper than
``snippet()`` for every windowed candidate and lets identifier parts be highlighted inside the
identifier (``Type\\x01Error\\x02`` for ``error``).
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from engine.index.identifiers import split_identifier
from engine.query.match import accent_pattern, fold
from engine.query.parser import AnyOf, ParsedQuery, Term
from engine.query.ranking import MARK_END, MARK_START

SNIPPET_CHARS = 160
"""One line of a wide terminal; the palette and the CLI both show one snippet line."""

_LEAD_CHARS = 40
"""Context kept before the first match so the hit is not at the very start of the line."""

_WORD_RE = re.compile(r"[^\W_]+")
"""Approximates ``unicode61`` tokens (letters and digits)."""


def _query_units(parsed: ParsedQuery) -> list[tuple[list[str], bool]]:
    units: list[tuple[list[str], bool]] = []
    terms: list[Term] = []
    for node in parsed.terms:
        terms.extend(node.options if isinstance(node, AnyOf) else (node,))
    for term in terms:
        tokens = [fold(t) for t in _WORD_RE.findall(term.text)]
        if tokens:
            units.append((tokens, term.prefix))
    return units


def _spans(text: str, units: Iterable[tuple[list[str], bool]]) -> list[tuple[int, int]]:
    words = [(m.start(), m.end(), fold(m.group())) for m in _WORD_RE.finditer(text)]
    parts: list[tuple[int, str]] | None = None
    spans: list[tuple[int, int]] = []
    for tokens, prefix in units:
        n = len(tokens)
        for i in range(len(words) - n + 1):
            last = words[i + n - 1][2]
            ok_last = last.startswith(tokens[-1]) if prefix else last == tokens[-1]
            if ok_last and all(words[i + k][2] == tokens[k] for k in range(n - 1)):
                spans.append((words[i][0], words[i + n - 1][1]))
        if n == 1:
            parts = _identifier_parts(text, words) if parts is None else parts
            token = tokens[0]
            spans.extend((at, at + len(part)) for at, part in parts
                         if part == token or (prefix and part.startswith(token)))  # fmt: skip
    return spans


def _identifier_parts(text: str, words: list[tuple[int, int, str]]) -> list[tuple[int, str]]:
    """``(offset, folded part)`` of every camelCase part of every word (once per window)."""
    out: list[tuple[int, str]] = []
    for start, end, _ in words:
        word = text[start:end]
        if word.isalpha() and word.islower():
            continue  # one part only: nothing to highlight inside it
        parts = split_identifier(word)
        if len(parts) < 2:
            continue
        pos = start
        for part in parts:
            at = text.index(part, pos, end)
            out.append((at, fold(part)))
            pos = at + len(part)
    return out


def _merge(spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    merged: list[tuple[int, int]] = []
    for start, end in sorted(spans):
        if merged and start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(end, merged[-1][1]))
        else:
            merged.append((start, end))
    return merged


def _first_hit(text: str, units: list[tuple[list[str], bool]]) -> int:
    # A C-speed case-insensitive search for any unit's first token: finds words and camelCase
    # parts alike. ASCII text (most bodies) needs no accent classes; other text gets them, so
    # `cafe` centres the window on `café` too (a decomposed accent still falls back to the start).
    if not units:
        return -1
    if text.isascii():
        pattern = "|".join(re.escape(tokens[0]) for tokens, _ in units)
    else:
        pattern = "|".join(accent_pattern(tokens[0]) for tokens, _ in units)
    found = re.search(pattern, text, re.IGNORECASE)
    return found.start() if found else -1


def make_snippet(body: str, parsed: ParsedQuery, width: int = SNIPPET_CHARS) -> str:
    """One line of ``body`` around the first match, matches wrapped in ``\\x01``/``\\x02``.

    Whitespace (newlines included) is collapsed so a snippet is always one line. Without a match in
    the body (a title-only hit, a filter-only query) the snippet is the start of the body. Only the
    window is scanned word by word, so a long body costs one regex search.
    """
    text = " ".join(body.split())
    units = _query_units(parsed)
    hit = _first_hit(text, units)
    start = 0
    if hit > _LEAD_CHARS:
        start = text.rfind(" ", 0, hit - _LEAD_CHARS) + 1
    end = min(len(text), start + width)
    window = text[start:end]
    out = ["…" if start > 0 else ""]
    pos = 0
    for s, e in _merge(_spans(window, units)):
        out += [window[pos:s], MARK_START, window[s:e], MARK_END]
        pos = e
    out.append(window[pos:])
    if end < len(text):
        out.append("…")
    return "".join(out)
