"""The file delegate's line search of one lane (issue 30.1): ``git grep`` passes that pre-select,
then the one definition (:func:`engine.query.file_match.line_hit`) that decides.

A line is a hit when it holds a node of the query and every other node is in the line or the
file's path. Every hit therefore holds *some* node in the line; the passes find each one:

1. the most selective node (its needles, any case and accent) over every file — tracked files by
   ``git grep`` (``--recurse-submodules`` when the work tree has submodules), untracked ones in
   this process — which finds every hit whose line holds that node;
2. a hit whose line lacks it lies in a file whose path holds it, so the next node is grepped over
   those files only, and so on while such files remain (for ``strbuf_addf builtin/``: ``builtin``
   everywhere, then ``strbuf`` under ``builtin/``).

Each candidate line is then decided exactly, on its whole text. Lines are kept up to ``limit``;
past it the answer is marked truncated (the caller says so and ``total`` is a lower bound).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import NamedTuple

from engine.delegates import files
from engine.delegates.files import (
    FileLineHit,
    FileMatches,
    _Background,
    _redacted,
    grep_definitions,
    grep_lane_lines,
    lane_listing,
    looks_like_identifier,
    scan_untracked,
)
from engine.query.file_match import LineMatcher, Node, line_hit, node_filters, node_in
from engine.query.match import Haystack, LineFilter, MatchTerm, fold, tokens

MAX_NARROWING_PATHS = 4000
"""Files a later pass names on git's command line; past it the pass greps every file (the same
hits, found with a little more work)."""


EAGER_REDACTION_LINES = 5000
"""Up to this many line hits, every line is redacted before the answer is made, so a line
found only through a secret is dropped (matched as shown). Redaction costs ~0.1 ms a line: past
it only the lines of the page shown are redacted (their snippets, ``line_snippet``), so a word
with 100,000 lines still answers in about the time git grep takes."""


class _Word(NamedTuple):
    """A bare word as a query term (for callers that pass words, not a plan)."""

    tokens: tuple[str, ...]
    prefix: bool


class FileQuery(NamedTuple):
    """The part of a query the file search reads: positive nodes and exclusions."""

    nodes: tuple[tuple[MatchTerm, ...], ...]
    excluded: tuple[MatchTerm, ...] = ()

    @classmethod
    def of_words(cls, words: Sequence[str]) -> FileQuery:
        terms = (_Word(tuple(tokens(w)), True) for w in words)
        return cls(tuple((t,) for t in terms if t.tokens))

    def hit(self, path: str, line: str) -> bool:
        """The readable definition (``line_hit``); searches use :meth:`matcher`."""
        return line_hit(self.nodes, self.excluded, path, line)

    def matcher(self) -> LineMatcher:
        """The compiled ``hit`` (the same answer, faster; a property test compares them)."""
        return LineMatcher(self.nodes, self.excluded)

    def path_filter(self) -> LineFilter:
        """Every needle of every node: some occurs in a matching path (the path pre-filter)."""
        return LineFilter(tuple(g for f in node_filters(self.nodes) for g in f.groups))


Predicate = Callable[[str, str], bool]


def search_lane(
    root: Path, query: FileQuery, names: Sequence[str] = (), limit: int | None = None
) -> FileMatches:
    """Paths holding a needle of the query (the caller ranks and matches them exactly) and the
    lane's line hits (redacted), untracked files first, then git's order; ``truncated`` when
    more than ``limit`` lines matched (then definition lines of identifier-like ``names`` are
    searched on their own and added, so ranking can still put the defining file first)."""
    limit = files.MAX_LINE_HITS if limit is None else limit
    passes = _passes(query)
    if not passes:
        return FileMatches([], [], False, ())
    cap = limit + 1  # one more than kept: that one says the answer is truncated
    lead_node, lead = passes[0]
    hit = query.matcher()
    first = _Background(lambda: grep_lane_lines(root, lead, untracked=False, limit=cap,
                                                keep=hit))  # fmt: skip
    try:
        tracked, untracked = lane_listing(root)
        found_untracked, skipped = scan_untracked(root, untracked, query.path_filter(), cap,
                                                  keep=hit)  # fmt: skip
    finally:
        lines = first.result()
    seen = {(h.path, h.line) for h in lines}
    narrowing = _paths_holding(lead_node, tracked) if len(passes) > 1 else []
    for node, needles in passes[1:]:
        if not narrowing or len(found_untracked) + len(lines) >= cap:
            break
        spec = narrowing if len(narrowing) <= MAX_NARROWING_PATHS else None
        more = grep_lane_lines(root, needles, untracked=False, limit=cap, keep=hit,
                               paths=spec)  # fmt: skip
        lines += [h for h in more if (h.path, h.line) not in seen]
        seen.update((h.path, h.line) for h in more)
        narrowing = _paths_holding(node, narrowing)
    lines.sort(key=lambda h: (h.path, h.line))
    path_filter = query.path_filter()
    paths = sorted({p for p in (*tracked, *untracked) if path_filter.admits_any(p)})
    found = found_untracked + lines  # untracked first: new files are what a cut should keep
    truncated = len(found) > limit
    found = found[:limit]
    identifiers = [n for n in names if looks_like_identifier(n)]
    if truncated and identifiers:
        seen = {(hit.path, hit.line) for hit in found}
        found += [h for h in grep_definitions(root, identifiers)
                  if (h.path, h.line) not in seen and hit(h.path, h.text)]  # fmt: skip
    notes = (f"files: {skipped:,} untracked file(s) over 1 MiB not searched",) if skipped else ()
    if len(found) > EAGER_REDACTION_LINES:
        return FileMatches(paths, found, truncated, notes)  # redacted per page (line_snippet)
    shown = _redacted(found)
    # Matched as shown: a line found only through a secret the redaction replaced is dropped.
    kept = [new for old, new in zip(found, shown, strict=True)
            if new.text == old.text or hit(new.path, new.text)]  # fmt: skip
    return FileMatches(paths, kept, truncated, notes)


def _passes(query: FileQuery) -> list[tuple[Node, LineFilter]]:
    """``(node, its needles)`` per positive node, the most selective first."""
    pairs = [(node, node_filters([node])) for node in query.nodes]
    kept = [(node, filters[0]) for node, filters in pairs if filters]
    return sorted(kept, key=lambda pair: -min(len(n) for n in pair[1].lead))


def _paths_holding(node: Node, paths: Sequence[str]) -> list[str]:
    """The paths ``node`` occurs in (pre-filtered on its needles, then matched exactly)."""
    needles = [n for group in node_filters([node]) for g in group.groups for n in g]
    out = []
    for path in paths:
        folded = fold(path)
        if any(n in folded for n in needles) and node_in(node, Haystack.of(path)):
            out.append(path)
    return out


def found_lines(hits: Sequence[FileLineHit]) -> list[tuple[str, int]]:
    """``(path, line)`` of each hit (tests and the benchmark compare these)."""
    return [(h.path, h.line) for h in hits]
