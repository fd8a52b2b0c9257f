"""The one in-memory reading of a query: what FTS5 ``MATCH`` means, for text that is not indexed.

Delegates (lanes, files, artifacts), the live tail of a ``session:`` and ``--explain`` hold their
text in memory; they match it here, with the index's own semantics (``engine.index.schema``):

* text is read as ``unicode61 remove_diacritics 2`` tokens (``engine.query.fold``, generated from
  SQLite's tokenizer): case folded, Latin diacritics removed (``naive cafe`` finds ``naïve café``;
  ``й`` and Greek accents kept, as SQLite keeps them); everything else separates tokens, so
  operator characters (``index*``, ``^flamingo``, ``(flamingo)``) are separators, as in the index;
* a term is a token sequence (a phrase); a bare word's last token is a prefix (``"x"*``), a
  one-character word and a quoted phrase are exact;
* each text is a column: a phrase never spans two of them; the camelCase parts of every
  identifier (``engine.index.identifiers``) are one more column, so ``timeout`` finds
  ``connectTimeout`` as the index's ``parts`` column makes it;
* every positive node must match (any alternative of ``a|b`` suffices), no exclusion may.
"""

# warm path: a warm `ade search` imports this; keep its imports light (ARCHITECTURE: The warm path)

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Protocol

import msgspec

from engine.index.identifiers import identifier_parts
from engine.query.fold import fold as fold  # the shared reading (engine.query.fold),
from engine.query.fold import token_re as token_re  # re-exported for the modules that read it here
from engine.query.fold import tokens as tokens
from engine.query.fold import unfolded_forms


class MatchTerm(Protocol):
    """What matching needs of a term (``engine.query.plan.PlanTerm``)."""

    @property
    def tokens(self) -> tuple[str, ...]: ...

    @property
    def prefix(self) -> bool: ...


class Haystack(msgspec.Struct, frozen=True):
    """The token columns of one record: each text given, then its identifier parts."""

    columns: tuple[tuple[str, ...], ...]

    @classmethod
    def of(cls, *texts: str) -> Haystack:
        cols = [tuple(tokens(t)) for t in texts if t]
        parts = identifier_parts(*texts)
        if parts:
            cols.append(tuple(tokens(parts)))
        return cls(tuple(cols))


def _in_column(want: tuple[str, ...], prefix: bool, column: tuple[str, ...]) -> bool:
    n = len(want)
    last = want[-1]
    for i in range(len(column) - n + 1):
        tail = column[i + n - 1]
        if (tail.startswith(last) if prefix else tail == last) and column[i : i + n - 1] == want[
            :-1
        ]:
            return True
    return False


def term_matches(term: MatchTerm, hay: Haystack) -> bool:
    """Whether one term (a token phrase, last token a prefix for bare words) occurs in ``hay``."""
    if not term.tokens:
        return False
    return any(_in_column(term.tokens, term.prefix, col) for col in hay.columns)


def matches_nodes(
    nodes: Sequence[Sequence[MatchTerm]], excluded: Sequence[MatchTerm], hay: Haystack
) -> bool:
    """Every node (a tuple of alternatives) has a matching term, and no exclusion matches."""
    for options in nodes:
        if not any(term_matches(t, hay) for t in options):
            return False
    return not any(term_matches(t, hay) for t in excluded)


# --- The line filter handed to ``git grep`` (files delegate) ----------------------------------


def _variants() -> dict[str, tuple[str, ...]]:
    return unfolded_forms()


def _grep_char(ch: str) -> str:
    """One folded token character as an ERE over bytes (git grep runs in the C locale, whose
    ``-i`` knows ASCII only): the letter in every case and accented form that folds to it
    (UTF-8 sequences, as an alternation)."""
    forms = [ch, *_variants().get(ch, ())]
    return "(" + "|".join(forms) + ")" if len(forms) > 1 else re.escape(ch)


def accent_pattern(needle: str) -> str:
    """A Python regex for ``needle`` (a folded token) that finds its accented forms too."""
    return "".join(
        f"[{re.escape(ch)}{''.join(map(re.escape, _variants().get(ch, ())))}]" for ch in needle
    )


_COMBINING = "[\u0300-\u036f]*"
"""Combining diacritics (decomposed ``é`` is ``e`` + U+0301, which the index folds away too).
git reads this bracket as bytes in the C locale (0xCC, 0x80–0xCD, 0xAF), so it
admits a little more than U+0300–U+036F (a 2-byte character between two letters); that is
harmless in a pre-filter, and the argument stays valid UTF-8 (logs, process listings)."""


def grep_regex(needle: str) -> str:
    """An extended regex that finds ``needle`` (a folded token) in text of any case and accent,
    precomposed or decomposed."""
    return _COMBINING.join(_grep_char(ch) for ch in needle)


def grep_term_regex(tokens: Sequence[str], prefix: bool, *, perl: bool) -> str:
    """A regex for git grep (over bytes, the C locale) admitting every line in which ``tokens``
    (a term's folded tokens, in order) could match as the matcher reads it; ``perl``: for
    ``git grep -P``, else ``-E``.

    Where a token may end: a token or an identifier part (ASCII only,
    ``engine.index.identifiers``) ends before a character that is not an ASCII lowercase letter
    (a digit ends a letter's part, an uppercase letter a camelCase part), a digit's before
    anything but a digit; so the last token of an exact term (one character) needs that after
    it. Where a token may start, only in ``perl`` (a lookbehind: an extended regex would have
    to match the character before, which costs git its first-byte skip and made every grep
    3-5x slower): after anything but an ASCII letter, or its uppercase form after a letter (a
    camelCase part); a token beginning with a digit anywhere. Anything outside ASCII counts as
    a boundary: the matcher then reads the line exactly. The tokens between go in order.

    One character or one common word is far rarer where words start: ``t`` in git.git, 1,023,328
    lines hold the letter, 89,612 admitted; the matcher had read every one of the first
    (benchmarks/journal/2026-12-07-file-lines.md)."""
    first = tokens[0]
    core = grep_regex(first)
    lead = first[0]
    if not perl or (lead.isascii() and lead.isdigit()):
        start = core
    elif "a" <= lead <= "z":
        rest = _COMBINING + grep_regex(first[1:]) if len(first) > 1 else ""
        start = f"(?:(?<![A-Za-z])(?:{core})|(?<=[A-Za-z]){lead.upper()}{rest})"
    else:
        start = f"(?<![A-Za-z])(?:{core})"
    body = start + "".join(f".*{grep_regex(t)}" for t in tokens[1:])
    last = tokens[-1][-1]
    if prefix or not last.isascii() or not last.isalnum():
        return body
    return body + ("([^0-9]|$)" if last.isdigit() else "([^a-z]|$)")


class LineFilter(msgspec.Struct, frozen=True):
    """A cheap necessary condition for a line to match: the file delegate's ``git grep``.

    ``groups``: every group must have a needle (a folded token) that occurs in the folded line.
    It admits a superset of the query's matches; the caller matches the survivors exactly.
    """

    groups: tuple[tuple[str, ...], ...]
    pattern: str | None = None
    """The ``git grep -E`` pattern when the caller knows a more selective one than the lead
    group's (a phrase's tokens in order: ``engine.query.file_match.node_filters``)."""
    perl_pattern: str | None = None
    """``pattern`` for ``git grep -P``, which also says where the words start
    (``grep_term_regex``); a git built without PCRE takes ``pattern``."""

    @classmethod
    def of_words(cls, words: Sequence[str]) -> LineFilter:
        """Every word required, each as its folded tokens (``connect_timeout`` → both)."""
        return cls(tuple((t,) for w in words for t in tokens(w)))

    @property
    def lead(self) -> tuple[str, ...]:
        """The most selective group (its shortest needle is the longest): what grep searches."""
        if not self.groups:
            return ()
        return max(self.groups, key=lambda g: min(len(n) for n in g))

    def grep_pattern(self) -> str:
        """The ``git grep -E`` pattern for the lead group (any of its needles, any accent)."""
        if self.pattern is not None:
            return self.pattern
        return "|".join(grep_regex(n) for n in self.lead)

    def grep_dialects(self) -> list[tuple[str, str]]:
        """``(git grep option, pattern)`` to try in order: ``-P`` when known, then ``-E``."""
        ere = ("-E", self.grep_pattern())
        return [("-P", self.perl_pattern), ere] if self.perl_pattern is not None else [ere]

    def admits(self, line: str) -> bool:
        folded = fold(line)
        return all(any(n in folded for n in group) for group in self.groups)

    def admits_any(self, text: str) -> bool:
        """Some needle occurs in ``text`` (the path pre-filter)."""
        folded = fold(text)
        return any(n in folded for group in self.groups for n in group)


def line_filter_of(nodes: Sequence[Sequence[MatchTerm]]) -> LineFilter:
    """The line filter of a query's positive nodes: each token of a plain term is a group; an
    ``a|b`` node is one group of all its alternatives' tokens (a superset, which is enough)."""
    groups: list[tuple[str, ...]] = []
    for options in nodes:
        if len(options) == 1:
            groups.extend((t,) for t in options[0].tokens)
        else:
            groups.append(tuple(dict.fromkeys(t for term in options for t in term.tokens)))
    return LineFilter(tuple(g for g in groups if g))
