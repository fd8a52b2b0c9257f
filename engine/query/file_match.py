"""What a file line hit is (issue 30.1): the line holds the words, the path only narrows.

A file line is a record with two texts, its path and its line. A query's positive node (a term,
or the alternatives of ``a|b``) is read with the one matcher (``engine.query.match``) in each:

* the line must hold at least one node: a word found only in the path never makes a line match
  (``foo commit-graph`` does not turn every ``foo`` of ``commit-graph.c`` into a hit unless the
  line holds ``foo``);
* every other node must be in the line or in the path: a word of the path narrows
  (``strbuf_addf builtin/`` is every line under ``builtin/`` that holds ``strbuf_addf``);
* no excluded term may be in the line or the path (``-test`` drops test files' lines too).

:func:`line_hit` is that definition; the file delegate's ``git grep`` passes
(``engine.delegates.file_passes``) only pre-select lines for it.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, NamedTuple

from engine.index.identifiers import identifier_parts
from engine.query.fold import SEPARATOR_RE, SEPARATORS_CLASS, TOKEN_RE, fold
from engine.query.match import Haystack, LineFilter, MatchTerm, line_filter_of, term_matches
from engine.query.snippets import mark_matches

if TYPE_CHECKING:
    from engine.query.plan import QueryPlan

MAX_SNIPPET_CHARS = 400
"""A file line's snippet: the whole line up to this, else a window of it around the match."""

Node = Sequence[MatchTerm]


def node_in(node: Node, hay: Haystack) -> bool:
    """Whether one node (any of its alternatives) occurs in ``hay``."""
    return any(term_matches(term, hay) for term in node)


def line_hit(nodes: Sequence[Node], excluded: Sequence[MatchTerm], path: str, line: str) -> bool:
    """Whether the line ``line`` of the file ``path`` is a hit (see the module docstring)."""
    if not nodes:
        return False
    line_hay = Haystack.of(line)
    in_line = [node_in(node, line_hay) for node in nodes]
    if not any(in_line):
        return False
    path_hay: Haystack | None = None
    for node, held in zip(nodes, in_line, strict=True):
        if not held:
            path_hay = Haystack.of(path) if path_hay is None else path_hay
            if not node_in(node, path_hay):
                return False
    if not excluded:
        return True
    path_hay = Haystack.of(path) if path_hay is None else path_hay
    return not any(term_matches(t, line_hay) or term_matches(t, path_hay) for t in excluded)


def node_filters(nodes: Sequence[Node]) -> list[LineFilter]:
    """One ``LineFilter`` per node (its needles), most selective first: the order in which the
    file delegate's ``git grep`` passes take them as their lead."""
    filters = [line_filter_of([node]) for node in nodes]
    filters = [f for f in filters if f.groups]
    return sorted(filters, key=lambda f: -min(len(n) for n in f.lead))


def match_column(nodes: Sequence[Node], line: str) -> int:
    """The 1-based column (in characters) of the first token of ``line`` a node's first token
    matches (whole, as a prefix, or as an identifier part inside it); 1 when none does (the
    line matched through its path alone cannot be a hit, so this is only a fallback)."""
    firsts = [(t.tokens[0], t.prefix and len(t.tokens) == 1) for n in nodes for t in n if t.tokens]
    for m in TOKEN_RE.finditer(line):
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


_TOKEN_CHAR = f"[^{SEPARATORS_CLASS}]"
_SEPARATOR_RUN = f"[{SEPARATORS_CLASS}]+"


def term_regex(term: MatchTerm) -> re.Pattern[str] | None:
    """A regex over *folded* text that finds exactly where ``term`` occurs in that text's token
    column: its tokens whole and consecutive (separators between them), the last one whole or,
    for a prefix term, as a prefix. None for a term without tokens (it never matches)."""
    if not term.tokens:
        return None
    body = _SEPARATOR_RUN.join(re.escape(t) for t in term.tokens)
    end = "" if term.prefix else f"(?!{_TOKEN_CHAR})"
    return re.compile(f"(?<!{_TOKEN_CHAR}){body}{end}")


def _token_char(ch: str) -> bool:
    if ch < "\x80":
        return ch.isalnum()  # ASCII token characters are exactly [0-9A-Za-z]
    return SEPARATOR_RE.match(ch) is None


def _word_at(folded: str, token: str, prefix: bool) -> bool:
    """Whether one folded ``token`` starts a token of ``folded`` (is one, unless ``prefix``):
    ``term_regex`` of a one-token term, with ``str.find`` instead of a lookbehind."""
    at = folded.find(token)
    while at >= 0:
        end = at + len(token)
        if (at == 0 or not _token_char(folded[at - 1])) and (
            prefix or end == len(folded) or not _token_char(folded[end])
        ):
            return True
        at = folded.find(token, at + 1)
    return False


class _Term(NamedTuple):
    token: str | None
    """The one token of a one-token term (searched with ``_word_at``), else None."""
    prefix: bool
    regex: re.Pattern[str]

    def search(self, folded: str) -> bool:
        if self.token is not None:
            return _word_at(folded, self.token, self.prefix)
        return self.regex.search(folded) is not None


class _Compiled(NamedTuple):
    regexes: tuple[_Term, ...]
    needles: tuple[str, ...]
    """One needle per alternative (its longest token): one occurs in a line holding the node."""


def _compile(node: Node) -> _Compiled:
    regexes = tuple(_Term(t.tokens[0] if len(t.tokens) == 1 else None, t.prefix, r)
                    for t in node if (r := term_regex(t)) is not None)  # fmt: skip
    needles = tuple(max(t.tokens, key=len) for t in node if t.tokens)
    return _Compiled(regexes, needles)


class LineMatcher:
    """:func:`line_hit` for one query, compiled: the same answer (a property test compares them
    on generated text, paths and queries), at a regex search per node and line instead of a
    tokenization, and each path read once.

    A line's token column is searched with :func:`term_regex` over its folded text; its
    identifier-parts column (``engine.index.identifiers``) is built only when a node's needle
    occurs in the line but no regex matched (``timeout`` inside ``connectTimeout``).
    """

    def __init__(self, nodes: Sequence[Node], excluded: Sequence[MatchTerm]) -> None:
        self._nodes = list(nodes)
        self._compiled = [_compile(node) for node in nodes]
        self._excluded = _compile(excluded)
        self._excluded_terms = tuple(excluded)
        self._paths: dict[str, tuple[list[bool], bool]] = {}

    def _path(self, path: str) -> tuple[list[bool], bool]:
        """Which nodes occur in ``path`` and whether an excluded term does (memoised)."""
        known = self._paths.get(path)
        if known is None:
            hay = Haystack.of(path)
            known = ([node_in(node, hay) for node in self._nodes],
                     any(term_matches(t, hay) for t in self._excluded_terms))  # fmt: skip
            self._paths[path] = known
        return known

    def __call__(self, path: str, line: str) -> bool:
        if not self._nodes:
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

        in_line = [found(c) for c in self._compiled]
        if not any(in_line):
            return False
        in_path, excluded_in_path = (
            self._path(path) if not all(in_line) or self._excluded_terms else ([], False)
        )
        if not all(held or in_path[i] for i, held in enumerate(in_line)):
            return False
        if not self._excluded_terms:
            return True
        return not (excluded_in_path or found(self._excluded))
