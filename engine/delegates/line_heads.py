"""A page's file lines picked without a key per line (``engine.delegates.file_hits._best_lines``).

A line hit's sort key (``engine.query.ranking.sort_key`` of its candidate) is (body, its
score, 0, -mtime, its id in natural order): every line of one file with one score shares the
first four, so the lines are grouped under that head and ordered by their natural ids alone.
"""

# warm path: a warm `ade search` imports this; keep its imports light (ARCHITECTURE: The warm path)

from __future__ import annotations

import heapq
from bisect import bisect_right
from collections.abc import Iterable
from operator import attrgetter

import msgspec

from engine.delegates.files import FileLineHit
from engine.project.model import Lane
from engine.query.ranking import SortKey

Head = tuple[int, float, float, int]
"""A line's sort key but its natural id: (body, its score, 0, -mtime)."""

BestLine = tuple[SortKey, Lane, FileLineHit, "float | None", int]
"""A line hit with its sort key (``engine.query.ranking.sort_key`` of its candidate), its lane,
its score (``LINE_SCORES``: a definition of a word of the query, a line of a file named like
one, a mention) and its file's mtime."""


class LineBlock(msgspec.Struct, frozen=True):
    """Lines of one file with one score: their keys share all but the id's natural key."""

    lane: Lane
    hits: list[FileLineHit]
    score: float | None
    updated: int


class LineHeads:
    """Line hits grouped by their sort key's head (body, score, 0, -mtime): under one head the
    lines are ordered by their ids' natural keys (strings) alone, so no key tuple is built per
    line (100,000 tuples cost more in the garbage collector's walks than in the making)."""

    def __init__(self) -> None:
        self.groups: dict[Head, tuple[list[str], list[int], list[LineBlock]]] = {}
        self.total = 0
        self._codes = LineCodes()

    def add(self, head: Head, block: LineBlock, prefix: str) -> None:
        naturals, starts, blocks = self.groups.setdefault(head, ([], [], []))
        starts.append(len(naturals))
        blocks.append(block)
        naturals += [
            prefix + code for code in map(self._codes.__getitem__, map(_hit_line, block.hits))
        ]
        self.total += len(block.hits)

    def entry(self, head: Head, index: int) -> BestLine:
        naturals, starts, blocks = self.groups[head]
        at = bisect_right(starts, index) - 1
        block = blocks[at]
        hit = block.hits[index - starts[at]]
        return (*head, naturals[index]), block.lane, hit, block.score, block.updated

    def smallest(self, after: SortKey | None, count: int | None) -> list[BestLine]:
        """The ``count`` lines of smallest key past ``after`` (every line, sorted: None), in
        key order, ties in the order they were added (as a stable sort of every line's key)."""
        best: list[BestLine] = []
        for head in sorted(self.groups):
            naturals = self.groups[head][0]
            indexes: Iterable[int] = range(len(naturals))
            if after is not None and head != after[:4]:
                if head < after[:4]:
                    continue
            elif after is not None:
                rest = after[4:]
                indexes = [i for i, natural in enumerate(naturals) if (natural,) > rest]
            if count is None:
                picked = sorted(indexes, key=naturals.__getitem__)
            else:
                picked = heapq.nsmallest(count - len(best), indexes, key=naturals.__getitem__)
            best += [self.entry(head, index) for index in picked]
            if count is not None and len(best) >= count:
                break
        return best


class LineCodes(dict[int, str]):
    """A line number's natural key (its digits after their count), made once per number."""

    def __missing__(self, number: int) -> str:
        digits = str(number)
        code = self[number] = f"{len(digits):02d}{digits}"
        return code


_hit_line = attrgetter("line")
