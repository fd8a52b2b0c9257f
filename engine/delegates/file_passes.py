"""The file delegate's line search of one lane (one matcher): ``git grep`` pre-selects, the one
definition (:func:`engine.query.file_match.line_hit`, compiled as ``LineMatcher``) decides.

Every line word must be in a hit's line, so one ``git grep`` of the most selective line word's
needles (any case and accent) finds every hit — over tracked files (``--recurse-submodules`` when
the work tree has submodules; only the files whose path holds every path word, when the query
has path words), untracked ones read in this process. Each line is then decided exactly, on its
whole text. Lines are kept up to ``limit``; past it the answer is marked truncated (the caller
says so and ``total`` is a lower bound).
"""

# warm path: a warm `ade search` imports this; keep its imports light (ARCHITECTURE: The warm path)

from __future__ import annotations

import bisect
import itertools
from collections.abc import Sequence
from pathlib import Path

import msgspec

from engine.delegates import files
from engine.delegates.files import (
    FileLineHit,
    FileMatches,
    GrepTimedOut,
    grep_definitions,
    grep_lane_lines,
    lane_listing,
    looks_like_identifier,
    redacted,
)
from engine.delegates.listing_memo import held_untracked_only
from engine.delegates.untracked import scan_untracked
from engine.query.file_match import FileTerms, LineMatcher, line_hit, node_filters
from engine.query.match import LineFilter, MatchTerm, fold, tokens
from engine.query.overlap import Background

MAX_NARROWING_PATHS = 4000
"""Files under the path words named on git's command line; past it git greps every file (the
same hits, the others dropped by the matcher)."""


EAGER_REDACTION_LINES = 5000
"""Up to this many line hits, every line is redacted before the answer is made, so a line
found only through a secret is dropped (matched as shown). Redaction costs ~2 us a line (one
automaton pass, ``engine.redaction.redact_lines``): past it only the lines of the page shown
are redacted (their snippets, ``line_snippet``), so a word with 100,000 lines still answers in
about the time git grep takes."""


class _Word(msgspec.Struct, frozen=True):
    """A bare word as a query term (for callers that pass words, not a plan)."""

    text: str
    tokens: tuple[str, ...]
    prefix: bool


class FileQuery(msgspec.Struct, frozen=True):
    """The part of a query the file search reads: positive nodes and exclusions."""

    nodes: tuple[tuple[MatchTerm, ...], ...]
    excluded: tuple[MatchTerm, ...] = ()

    @classmethod
    def of_words(cls, words: Sequence[str]) -> FileQuery:
        terms = (_Word(w, tuple(tokens(w)), True) for w in words)
        return cls(tuple((t,) for t in terms if t.tokens))

    @property
    def terms(self) -> FileTerms:
        return FileTerms.of(self.nodes, self.excluded)

    def hit(self, path: str, line: str) -> bool:
        """The readable definition (``line_hit``); searches use :meth:`matcher`."""
        return line_hit(self.terms, path, line)

    def matcher(self) -> LineMatcher:
        """The compiled ``hit`` (the same answer, faster; a property test compares them)."""
        return LineMatcher(self.terms)

    def path_filter(self) -> LineFilter:
        """Every needle of every node: some occurs in a matching path (the path pre-filter)."""
        return LineFilter(tuple(g for f in node_filters(self.nodes) for g in f.groups))


def search_lane(
    root: Path, query: FileQuery, names: Sequence[str] = (), limit: int | None = None
) -> FileMatches:
    """Paths holding a needle of the query (the caller ranks and matches them exactly) and the
    lane's line hits (redacted), untracked files first, then git's order; ``truncated`` when
    more than ``limit`` lines matched (then definition lines of identifier-like ``names`` are
    searched on their own and added, so ranking can still put the defining file first)."""
    limit = files.MAX_LINE_HITS if limit is None else limit
    terms = query.terms
    lead = node_filters(terms.line_nodes)
    hit = LineMatcher(terms)
    tracked, untracked = lane_listing(root) if terms.path_nodes or not lead else ((), ())
    path_filter = query.path_filter()
    if not lead:  # path words alone: path hits only
        return FileMatches(_paths_with_needles(tracked, untracked, path_filter), [], False, ())
    cap = limit + 1  # one more than kept: that one says the answer is truncated
    under: list[str] | None = None
    if terms.path_nodes:  # only the files under the path words: git greps those alone
        in_path = LineFilter(tuple(g for f in node_filters(terms.path_nodes) for g in f.groups))
        under = [p for p in _paths_with_needles(tracked, (), in_path) if hit.path_allows(p)]
        under = under if len(under) <= MAX_NARROWING_PATHS else None
    listed = bool(terms.path_nodes)
    if not listed and (held := held_untracked_only(root)) is not None:
        # A long-running process's kept listing says nothing is tracked (a repository without
        # commits): the grep of tracked files could find nothing, so no git process is started.
        (tracked, untracked), under, listed = held, [], True
    slow: list[str] = []

    def tracked_lines() -> list[FileLineHit]:
        try:
            return grep_lane_lines(root, lead[0], untracked=False, limit=cap, keep=hit, paths=under)
        except GrepTimedOut as err:  # what it found still counts, and the answer says it cut
            slow.append(f"files: {err}; the lines found by then are shown")
            return err.hits

    first = (
        None if under is not None and not under else Background(tracked_lines, name="ade-file-grep")
    )
    try:
        if not listed:
            tracked, untracked = lane_listing(root)
        found_untracked, skipped = scan_untracked(root, untracked, path_filter, cap, keep=hit)
    finally:
        lines = first.result() if first is not None else []
    paths = _paths_with_needles(tracked, untracked, path_filter)
    found = found_untracked + lines  # untracked first: new files are what a cut should keep
    truncated = len(found) > limit
    found = found[:limit]
    identifiers = [n for n in names if looks_like_identifier(n)]
    if truncated and identifiers:
        seen = {(h.path, h.line) for h in found}
        found += [h for h in grep_definitions(root, identifiers)
                  if (h.path, h.line) not in seen and hit(h.path, h.text)]  # fmt: skip
    notes = (*slow, *([f"files: {skipped:,} untracked file(s) over 1 MiB not searched"]
                      if skipped else []))  # fmt: skip
    if len(found) > EAGER_REDACTION_LINES:
        return FileMatches(paths, found, truncated, notes, bool(slow))  # redacted per page
    shown = redacted(found)
    # Matched as shown: a line found only through a secret the redaction replaced is dropped.
    kept = [new for old, new in zip(found, shown, strict=True)
            if new.text == old.text or hit(new.path, new.text)]  # fmt: skip
    return FileMatches(paths, kept, truncated, notes, bool(slow))


def _paths_with_needles(
    tracked: Sequence[str], untracked: Sequence[str], needles: LineFilter
) -> list[str]:
    """The listed paths holding some needle (the caller matches them exactly), sorted.

    A tree of 200,000 files is one folded text (memoised while the listing is the same object,
    as ``lane_listing`` keeps it) searched with ``str.find`` per needle: a rare needle costs a few
    finds, not a Python step per path."""
    out: set[str] = set()
    for listing in (tracked, untracked):
        if not listing:
            continue
        folded, starts = _folded_listing(listing)
        for needle in {n for group in needles.groups for n in group}:
            at = folded.find(needle)
            while at >= 0:
                index = bisect.bisect_right(starts, at) - 1
                out.add(listing[index])
                at = folded.find(
                    needle, starts[index + 1] if index + 1 < len(starts) else len(folded)
                )
    return sorted(out)


_FOLDED: dict[int, tuple[Sequence[str], str, list[int]]] = {}
"""``id(listing)`` → (the listing, its folded text, where each path starts): the last few."""


def _folded_listing(listing: Sequence[str]) -> tuple[str, list[int]]:
    known = _FOLDED.get(id(listing))
    if known is not None and known[0] is listing:
        return known[1], known[2]
    parts = [fold(p) for p in listing]
    starts = list(itertools.accumulate((len(p) + 1 for p in parts[:-1]), initial=0))
    folded = "\n".join(parts)
    if len(_FOLDED) >= 8:
        _FOLDED.pop(next(iter(_FOLDED)))
    _FOLDED[id(listing)] = (listing, folded, starts)
    return folded, starts


def search_lane_files(
    root: Path, terms: Sequence[str] | FileQuery, names: Sequence[str] = ()
) -> FileMatches:
    """The lane's paths holding a needle of the query and its line hits: see
    :func:`search_lane` (``terms``: words, or a plan's query)."""
    query = terms if isinstance(terms, FileQuery) else FileQuery.of_words(terms)
    return search_lane(root, query, names)
