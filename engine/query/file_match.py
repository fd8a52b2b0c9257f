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

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from engine.query.fold import TOKEN_RE, fold
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
    window, before, after = line_window(line, column(), width)
    marked = mark_matches(plan, window)
    return f"{'…' if before else ''}{marked}{'…' if after else ''}"
