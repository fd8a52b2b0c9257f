"""What a file line hit is (one matcher): the line holds the words, a path word narrows.

A file line is a record with two texts, its path and its line. A query's words are of two sorts:

* a **path word** holds a ``/`` (``builtin/``, ``src/tui``, ``/docs``): it is matched against
  the file's path only, as a phrase of its tokens, so it narrows the lines to the files under a
  folder and never makes a line match by itself (``strbuf_addf builtin/`` is every line under
  ``builtin/`` that holds ``strbuf_addf``, whether or not the line says ``builtin``);
* every other word (a term, a phrase, the alternatives of ``a|b``) must be in the **line**: a word
  found only in the path does not make the line a hit (``foo commit-graph`` is the lines that
  hold both, not every ``foo`` of ``commit-graph.c``).

An excluded word drops the line when the line holds it, an excluded path word when the path
does (``-t/`` leaves the tests out). A query of path words alone has path hits, no line hits.
Each "holds" is the one matcher's (``engine.query.match``), what a FTS5 ``MATCH`` on that text
would say. :func:`line_hit` is that definition; :class:`LineMatcher` its compiled form, and the
file delegate's ``git grep`` (``engine.delegates.file_passes``) only pre-selects lines for them.
"""

# warm path: a warm `ade search` imports this; keep its imports light (ARCHITECTURE: The warm path)

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

import msgspec

from engine.index.identifiers import identifier_parts
from engine.query.fold import fold, is_token_char, separators_class, token_re
from engine.query.match import (
    Haystack,
    LineFilter,
    MatchTerm,
    grep_term_regex,
    line_filter_of,
    term_matches,
)
from engine.query.snippets import mark_matches

if TYPE_CHECKING:
    from engine.query.plan import QueryPlan

MAX_SNIPPET_CHARS = 400
"""A file line's snippet: the whole line up to this, else a window of it around the match."""

Node = Sequence[MatchTerm]


def is_path_term(term: MatchTerm) -> bool:
    """A bare word holding a ``/`` (a quoted phrase is text, whatever it holds)."""
    return "/" in getattr(term, "text", "") and not getattr(term, "phrase", False)


class FileTerms(msgspec.Struct, frozen=True):
    """A query's words as the file search reads them (see the module docstring)."""

    line_nodes: tuple[Node, ...]
    path_nodes: tuple[Node, ...]
    line_excluded: tuple[MatchTerm, ...]
    path_excluded: tuple[MatchTerm, ...]

    @classmethod
    def of(cls, nodes: Sequence[Node], excluded: Sequence[MatchTerm]) -> FileTerms:
        path = [all(is_path_term(t) for t in node) for node in nodes]
        return cls(
            tuple(n for n, p in zip(nodes, path, strict=True) if not p),
            tuple(n for n, p in zip(nodes, path, strict=True) if p),
            tuple(t for t in excluded if not is_path_term(t)),
            tuple(t for t in excluded if is_path_term(t)),
        )

    def path_allows(self, path: str) -> bool:
        """Every path word is in ``path`` and no excluded one is (the readable form)."""
        if not self.path_nodes and not self.path_excluded:
            return True
        hay = Haystack.of(path)
        return all(node_in(n, hay) for n in self.path_nodes) and not any(
            term_matches(t, hay) for t in self.path_excluded
        )


def node_in(node: Node, hay: Haystack) -> bool:
    """Whether one node (any of its alternatives) occurs in ``hay``."""
    return any(term_matches(term, hay) for term in node)


def line_hit(terms: FileTerms, path: str, line: str) -> bool:
    """Whether the line ``line`` of the file ``path`` is a hit (see the module docstring)."""
    if not terms.line_nodes:
        return False
    hay = Haystack.of(line)
    if not all(node_in(node, hay) for node in terms.line_nodes):
        return False
    if any(term_matches(t, hay) for t in terms.line_excluded):
        return False
    return terms.path_allows(path)


def node_filters(nodes: Sequence[Node]) -> list[LineFilter]:
    """One ``LineFilter`` per node, most selective first: its needles, and as its ``git grep``
    pattern each alternative's tokens in order (``commit.*graph`` for ``commit_graph``, far
    rarer than ``commit``). In order, not adjacent: the identifier-parts column (``commitGraph``
    → ``commit graph``) holds distinct parts in first-seen order, so a phrase of parts occurs in
    the raw line in that order but possibly with other text between."""
    out = []
    for node in nodes:
        found = line_filter_of([node])
        if found.groups:
            terms = [term for term in node if term.tokens]
            ere, perl = (_either([grep_term_regex(t.tokens, t.prefix, perl=p) for t in terms])
                         for p in (False, True))  # fmt: skip
            weight = min(sum(map(len, term.tokens)) for term in terms)
            out.append((weight, LineFilter(found.groups, ere, perl)))
    return [f for _, f in sorted(out, key=lambda pair: -pair[0])]


def _either(alternatives: list[str]) -> str:
    return "|".join(f"({a})" for a in alternatives) if len(alternatives) > 1 else alternatives[0]


def match_column(nodes: Sequence[Node], line: str) -> int:
    """The 1-based column (in characters) of the first token of ``line`` a node's first token
    matches (whole, as a prefix, or as an identifier part inside it); 1 when none does (the
    line matched through its path alone cannot be a hit, so this is only a fallback)."""
    firsts = [(t.tokens[0], t.prefix and len(t.tokens) == 1) for n in nodes for t in n if t.tokens]
    for m in token_re(line).finditer(line):
        token = fold(m.group())
        for first, prefix in firsts:
            if token == first or (prefix and token.startswith(first)):
                return m.start() + 1
            if first in token:  # an identifier part (``timeout`` in ``connectTimeout``)
                return m.start() + token.index(first) + 1 if m.group().isascii() else m.start() + 1
    return 1


LEAD_CHARS = 40
"""Characters of context kept before a match in a long line's snippet."""


def line_window(line: str, column: int, width: int) -> tuple[str, bool, bool]:
    """At most ``width`` characters of ``line`` around ``column`` (from a word start about
    ``LEAD_CHARS`` before it), and whether text was cut before and after: a match anywhere in
    a megabyte line is shown, not the line's first characters."""
    text = line.strip()
    offset = len(line) - len(line.lstrip())
    at = max(column - 1 - offset, 0)
    if len(text) <= width:
        return text, False, False
    start = max(at - LEAD_CHARS, 0)
    if start:
        space = text.rfind(" ", max(start - 20, 0), start)
        start = space + 1 if space >= 0 else start
    end = min(start + width, len(text))
    start = max(min(start, end - width), 0)
    return text[start:end], start > 0, end < len(text)


def line_snippet(
    plan: QueryPlan, line: str, column: Callable[[], int], width: int = MAX_SNIPPET_CHARS
) -> str:
    """The marked snippet of a file line: the window around its match (``line_window``), the
    plan's terms marked in it, ``…`` where the line was cut."""
    from engine.redaction import redact_secrets  # the whole line: no secret cut by the window

    window, before, after = line_window(redact_secrets(line), column(), width)
    marked = mark_matches(plan, window)
    return f"{'…' if before else ''}{marked}{'…' if after else ''}"


def term_regex(term: MatchTerm) -> re.Pattern[str] | None:
    """A regex over *folded* text that finds exactly where ``term`` occurs in that text's token
    column: its tokens whole and consecutive (separators between them), the last one whole or,
    for a prefix term, as a prefix. None for a term without tokens (it never matches)."""
    if not term.tokens:
        return None
    separators = separators_class()
    body = f"[{separators}]+".join(re.escape(t) for t in term.tokens)
    end = "" if term.prefix else f"(?![^{separators}])"
    return re.compile(f"(?<![^{separators}]){body}{end}")


def _word_at(folded: str, token: str, prefix: bool) -> bool:
    """Whether one folded ``token`` starts a token of ``folded`` (is one, unless ``prefix``):
    ``term_regex`` of a one-token term, with ``str.find`` instead of a lookbehind."""
    at = folded.find(token)
    while at >= 0:
        end = at + len(token)
        if (at == 0 or not is_token_char(folded[at - 1])) and (
            prefix or end == len(folded) or not is_token_char(folded[end])
        ):
            return True
        at = folded.find(token, at + 1)
    return False


class _Term(msgspec.Struct, frozen=True):
    token: str
    """The first token (the only one of a one-token term, searched with ``_word_at``)."""
    prefix: bool
    regex: re.Pattern[str] | None
    """``term_regex`` of a term of two tokens or more; None for one token (no regex compiled)."""

    def search(self, folded: str) -> bool:
        if self.regex is None:
            return _word_at(folded, self.token, self.prefix)
        return self.regex.search(folded) is not None


class _Compiled(msgspec.Struct, frozen=True):
    regexes: tuple[_Term, ...]
    needles: tuple[str, ...]
    """One needle per alternative (its longest token): one occurs in a line holding the node."""


def _compile(node: Node) -> _Compiled:
    regexes = tuple(_Term(t.tokens[0], t.prefix, term_regex(t) if len(t.tokens) > 1 else None)
                    for t in node if t.tokens)  # fmt: skip
    needles = tuple(max(t.tokens, key=len) for t in node if t.tokens)
    return _Compiled(regexes, needles)


class LineMatcher:
    """:func:`line_hit` for one query, compiled: the same answer (a property test compares them
    on generated text, paths and queries), at a search per word and line instead of a
    tokenization, and each path read once.

    A line's token column is searched with :func:`term_regex` over its folded text; its
    identifier-parts column (``engine.index.identifiers``) is built only when a word's needle
    occurs in the line but no regex matched (``timeout`` inside ``connectTimeout``).
    """

    def __init__(self, terms: FileTerms) -> None:
        self._terms = terms
        self._compiled = [_compile(node) for node in terms.line_nodes]
        self._excluded = _compile(terms.line_excluded)
        self._paths: dict[str, bool] = {}
        self._one: tuple[str, bool] | None = None
        """(token, prefix) of a query of one single-token word and no exclusion (most file
        searches): its test without the general loops, once per line of a common word."""
        self._short: Callable[[str], re.Match[str] | None] | None = None
        """``_word_at(folded, *self._one)`` of an ASCII line as one search, for a token of one
        or two characters: those occur inside most words (``t``), and ``_word_at`` would test
        each occurrence in Python. The literal comes first, so ``re`` scans for it; a longer
        token's first occurrence is usually the word, which ``_word_at`` finds faster."""
        if len(self._compiled) == 1 and not self._excluded.regexes:
            (only,) = self._compiled
            if len(only.regexes) == 1 and only.regexes[0].regex is None:
                token, prefix = self._one = (only.regexes[0].token, only.regexes[0].prefix)
                if len(token) <= 2:
                    word, end = re.escape(token), "" if prefix else "(?![0-9a-z])"
                    # ASCII token characters are exactly [0-9A-Za-z], lowered [0-9a-z].
                    self._short = re.compile(f"{word}(?<![0-9a-z]{word}){end}").search

    def path_allows(self, path: str) -> bool:
        known = self._paths.get(path)
        if known is None:
            known = self._paths[path] = self._terms.path_allows(path)
        return known

    def __call__(self, path: str, line: str) -> bool:
        if self._one is not None:  # the loops below, for one token (its needle is itself)
            folded = fold(line)
            token, prefix = self._one
            if self._short is not None and line.isascii():
                at_start = self._short(folded) is not None
            else:
                at_start = _word_at(folded, token, prefix)
            if not at_start:
                if token not in folded:
                    return False
                split = fold(identifier_parts(line))
                if not split or not _word_at(split, token, prefix):
                    return False
            return self.path_allows(path)
        if not self._compiled:
            return False
        folded = fold(line)
        parts: list[str] = []  # the folded parts column, built at most once

        def found(compiled: _Compiled) -> bool:
            if any(r.search(folded) for r in compiled.regexes):
                return True
            if not any(n in folded for n in compiled.needles):
                return False
            if not parts:
                parts.append(fold(identifier_parts(line)))
            return bool(parts[0]) and any(r.search(parts[0]) for r in compiled.regexes)

        if not all(found(c) for c in self._compiled):
            return False
        if self._excluded.regexes and found(self._excluded):
            return False
        return self.path_allows(path)
