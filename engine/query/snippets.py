"""Snippets with ``\\x01``/``\\x02`` markers, made in Python for the page being shown.

The index is contentless (FTS5 ``snippet()`` has no text to read), so the query path decompresses
the bodies of the one page it returns and marks the query's matches here. This is cheaper than
``snippet()`` for every windowed candidate and lets identifier parts be highlighted inside the
identifier (``Type\\x01Error\\x02`` for ``error``).

A rare term's whole query cost is this per-hit work (benchmarks/journal/waves-1-to-3.md, "Per-hit cost"), so
the common case takes short cuts that give exactly the text and spans of the plain definition
(``tests/engine/query/test_snippet_reference.py`` keeps that definition and compares): the body
is collapsed only around the window, and an ASCII window is marked with one regex per query unit
instead of folding every word.
"""

# warm path: a warm `ade search` imports this; keep its imports light (ARCHITECTURE: The warm path)

from __future__ import annotations

import functools
import re
from collections.abc import Iterable
from typing import TYPE_CHECKING

import msgspec

from engine.index.identifiers import split_identifier
from engine.query.match import accent_pattern, fold
from engine.query.parser import AnyOf, ParsedQuery, Term
from engine.query.ranking import MARK_END, MARK_START, extract_snippet_ranges
from engine.types import MatchRange

if TYPE_CHECKING:
    from engine.query.plan import QueryPlan

SNIPPET_CHARS = 160
"""One line of a wide terminal; the palette and the CLI both show one snippet line."""

_LEAD_CHARS = 40
"""Context kept before the first match so the hit is not at the very start of the line."""

_WORD_RE = re.compile(r"[^\W_]+")
"""Approximates ``unicode61`` tokens (letters and digits)."""


Unit = tuple[tuple[str, ...], bool]
"""One query term as folded tokens (a phrase when several) and whether the last is a prefix."""

_WS_RUN = re.compile(r"\s+")
_NON_WS = re.compile(r"\S")
_NON_ASCII_TEXT = re.compile(r"[^\x00-\x7f\s]")
r"""A character that stays non-ASCII once whitespace is collapsed (``str.split``'s whitespace is
``\s``'s)."""

_NON_ASCII_WORD_CHAR = re.compile(r"[^\W\x00-\x7f]")
"""A non-ASCII letter or digit (``str.isalnum``): the only non-ASCII text an accented form of an
ASCII token can match; ``·``, ``—``, ``…`` or an emoji never does, and lowers to one character."""

_ALNUM_RUN = re.compile(r"[a-z0-9]*")
"""The rest of a word of lowered ASCII text (read backwards, the start of one)."""

_ASCII_TOKEN = re.compile(r"[a-z0-9]+")
"""A folded token of an ASCII query word: what ``_WORD_RE`` keeps of ASCII, lowercased."""


class _Reading(msgspec.Struct, frozen=True, dict=True):  # dict: room for the cached properties
    """What marking needs of one query, built once per query (not per hit)."""

    units: tuple[Unit, ...]
    ascii_firsts: tuple[str, ...] | None
    """Every unit's first token, when all are ASCII: found with ``str.find`` in lowered text."""
    ascii_marks: tuple[tuple[re.Pattern[str], str, bool, bool], ...] | None
    """Per unit with ASCII tokens only: (its regex over lowered ASCII text, its token, prefix,
    whether it is one word whose camelCase parts count); None when a token is not plain."""

    @functools.cached_property
    def escaped(self) -> re.Pattern[str]:
        return re.compile("|".join(re.escape(tokens[0]) for tokens, _ in self.units), re.IGNORECASE)

    @functools.cached_property
    def accented(self) -> re.Pattern[str]:
        return re.compile(
            "|".join(accent_pattern(tokens[0]) for tokens, _ in self.units), re.IGNORECASE
        )


@functools.lru_cache(maxsize=256)
def _reading(terms: tuple[Term | AnyOf, ...]) -> _Reading:
    units: list[Unit] = []
    for node in terms:
        for term in node.options if isinstance(node, AnyOf) else (node,):
            tokens = tuple(fold(t) for t in _WORD_RE.findall(term.text))
            if tokens:
                units.append((tokens, term.prefix))
    firsts = tuple(tokens[0] for tokens, _ in units)
    plain = all(_ASCII_TOKEN.fullmatch(t) for tokens, _ in units for t in tokens)
    marks = None
    if all(t for tokens, _ in units for t in tokens):
        marks = tuple(_ascii_mark(tokens, prefix) for tokens, prefix in units
                      if all(_ASCII_TOKEN.fullmatch(t) for t in tokens))  # fmt: skip
    return _Reading(tuple(units), firsts if plain else None, marks)


def _ascii_mark(tokens: tuple[str, ...], prefix: bool) -> tuple[re.Pattern[str], str, bool, bool]:
    """A regex over lowered ASCII text giving what ``_spans`` finds for one unit.

    One word: every word holding the token (its own match or a camelCase part's is decided per
    word; a word without the token has neither). Several: a lookahead at every word start, so
    overlapping phrase matches are all found, as the word-by-word scan finds them.
    """
    if len(tokens) == 1:
        return re.compile(rf"(?<![a-z0-9])[a-z0-9]*{tokens[0]}[a-z0-9]*"), tokens[0], prefix, True
    last = rf"{tokens[-1]}[a-z0-9]*" if prefix else rf"{tokens[-1]}(?![a-z0-9])"
    phrase = "[^a-z0-9]+".join([*tokens[:-1], last])
    return re.compile(rf"(?=(?<![a-z0-9])({phrase}))"), tokens[0], prefix, False


def _ascii_spans(
    window: str, marks: tuple[tuple[re.Pattern[str], str, bool, bool], ...]
) -> list[tuple[int, int]]:
    """``_spans`` of an ASCII window: there folding is ``lower()`` and words are ``[A-Za-z0-9]``
    runs, so only words holding a token are looked at."""
    lowered = window.lower()
    spans: list[tuple[int, int]] = []
    for pattern, token, prefix, one_word in marks:
        if token not in lowered:
            continue
        if not one_word:
            spans.extend(m.span(1) for m in pattern.finditer(lowered))
            continue
        # ``pattern``'s matches (every word holding the token), found from the token's places:
        # ``str.find`` and two anchored runs instead of a regex tried at every character.
        reverse = lowered[::-1]
        size = len(lowered)
        place = lowered.find(token)
        while place >= 0:
            start = size - _run_end(reverse, size - place)
            end = _run_end(lowered, place + len(token))
            place = lowered.find(token, end)
            word = lowered[start:end]
            if word == token or (prefix and word.startswith(token)):
                spans.append((start, end))
            original = window[start:end]
            if original.isalpha() and original.islower():
                continue
            parts = split_identifier(original)
            if len(parts) < 2:
                continue
            pos = start
            for part in parts:
                at = window.index(part, pos, end)
                pos = at + len(part)
                folded = part.lower()
                if folded == token or (prefix and folded.startswith(token)):
                    spans.append((at, pos))
    return spans


def _run_end(lowered: str, at: int) -> int:
    """Where the run of ``[a-z0-9]`` starting at ``at`` ends."""
    run = _ALNUM_RUN.match(lowered, at)
    return at if run is None else run.end()


def _spans(text: str, units: Iterable[tuple[Iterable[str], bool]]) -> list[tuple[int, int]]:
    words = [(m.start(), m.end(), fold(m.group())) for m in _WORD_RE.finditer(text)]
    parts: list[tuple[int, str]] | None = None
    spans: list[tuple[int, int]] = []
    for unit, prefix in units:
        tokens = tuple(unit)
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


def _first_hit(body: str, reading: _Reading) -> int:
    """Where in ``body`` (not collapsed) the first unit's first token first occurs, or -1.

    A token holds no whitespace, so this is the same match the collapsed text has. ASCII text
    (most bodies) needs no accent classes; other text gets them, so `cafe` centres the window on
    `café` too (a decomposed accent still falls back to the start).
    """
    if not reading.units:
        return -1
    ascii_words = body.isascii() or _NON_ASCII_TEXT.search(body) is None
    if not ascii_words and reading.ascii_firsts is not None:
        # Punctuation and symbols only (``·``, ``—``): no accented form of an ASCII token can
        # occur, so the accent classes (~4 ms to build and compile) are not needed.
        ascii_words = _NON_ASCII_WORD_CHAR.search(body) is None
    if ascii_words:
        if reading.ascii_firsts is not None:  # such text keeps its offsets through lower()
            lowered = body.lower()
            found = [at for token in reading.ascii_firsts if (at := lowered.find(token)) >= 0]
            return min(found, default=-1)
        pattern = reading.escaped
    else:
        pattern = reading.accented
    match = pattern.search(body)
    return match.start() if match else -1


def _window(body: str, hit: int, width: int) -> tuple[str, bool, bool]:
    """``width`` characters of the collapsed body from the word ``_LEAD_CHARS`` before ``hit``,
    whether text was cut before and after: only the body around the window is collapsed.

    ``head`` is the collapsed text from a word start ``first`` (in the body) up to ``hit``; the
    lead is counted in it, reaching further back until it holds the lead or starts the body.
    """
    hit = max(hit, 0)
    back = 3 * _LEAD_CHARS
    while True:
        first = 0
        if hit > back:
            gap = _WS_RUN.search(body, hit - back, hit)
            if gap is None:  # one word longer than the reach: reach further
                back *= 2
                continue
            first = gap.end()
        head = " ".join(body[first:hit].split())
        spaced = bool(head) and body[hit - 1].isspace()
        at = len(head) + spaced  # the hit's offset in the collapsed text from ``first``
        if first == 0 or at > _LEAD_CHARS:
            break
        back *= 2
    start = head.rfind(" ", 0, at - _LEAD_CHARS) + 1 if at > _LEAD_CHARS else 0
    cut_before = start > 0 or (first > 0 and _NON_WS.search(body, 0, first) is not None)
    end = start + width
    reach = max(2 * (end - len(head)), 64)
    while True:
        text = head + " " * spaced + " ".join(body[hit : hit + reach].split())
        if len(text) > end or hit + reach >= len(body):
            break
        reach *= 2
    return text[start:end], cut_before, len(text) > end


def make_snippet(body: str, parsed: ParsedQuery, width: int = SNIPPET_CHARS) -> str:
    """One line of ``body`` around the first match, matches wrapped in ``\\x01``/``\\x02``.

    Whitespace (newlines included) is collapsed so a snippet is always one line. Without a match in
    the body (a title-only hit, a filter-only query) the snippet is the start of the body. Only the
    window is scanned word by word, so a long body costs one search.
    """
    window, cut_before, cut_after, spans = _cut(body, parsed, width)
    out = ["…" if cut_before else ""]
    pos = 0
    for s, e in spans:
        out += [window[pos:s], MARK_START, window[s:e], MARK_END]
        pos = e
    out.append(window[pos:])
    if cut_after:
        out.append("…")
    return "".join(out)


def snippet_ranges(
    body: str, parsed: ParsedQuery, width: int = SNIPPET_CHARS
) -> tuple[str, tuple[MatchRange, ...]]:
    """``extract_snippet_ranges(make_snippet(body, parsed, width))`` without marking the text and
    reading the marks back (a page's hits each paid both)."""
    window, cut_before, cut_after, spans = _cut(body, parsed, width)
    if MARK_START in window or MARK_END in window:  # a stored text holding a marker character
        return extract_snippet_ranges(make_snippet(body, parsed, width))
    shift = 1 if cut_before else 0  # "…"
    ranges = tuple(MatchRange(start=s + shift, end=e + shift) for s, e in spans if e > s)
    text = f"{'…' if cut_before else ''}{window}{'…' if cut_after else ''}"
    return text, ranges


def _cut(
    body: str, parsed: ParsedQuery, width: int
) -> tuple[str, bool, bool, list[tuple[int, int]]]:
    """The window of ``body`` a snippet shows, whether text was cut before and after it, and the
    matches in it (merged, in order)."""
    reading = _reading(parsed.terms)
    window, cut_before, cut_after = _window(body, _first_hit(body, reading), width)
    if reading.ascii_marks is not None and window.isascii():
        spans = _ascii_spans(window, reading.ascii_marks)
    else:
        spans = _spans(window, reading.units)
    return window, cut_before, cut_after, _merge(spans)


def mark_matches(plan: QueryPlan, text: str) -> str:
    """``text`` (whitespace collapsed, never cut) with the plan's positive terms marked: how a
    delegated source (lanes, files, artifacts, Linear) marks a record the plan matched
    (``QueryPlan.matches``), placed as the indexed snippets place them, so one extractor serves
    both and a hit highlights the same words whichever source found it."""
    return make_snippet(text, plan.parsed, width=len(text) + 1)
