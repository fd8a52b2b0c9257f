"""Exact places for a page of hits: the line a terminal hit matched, the envelope of its lane.

Run once per query on the page about to be returned (``SearchService.query``):

* a terminal chunk's link offset becomes the byte offset of the chunk's first line holding a
  highlighted word, so ``ade open`` and the palette land on the match (the doc id and anchor
  keep the chunk's offset);
* chat, terminal and commit links carry the portable envelope (``repo``, ``branch``, ``pr``,
  ``linear``) of the lane that owns them — computed once per lane per query, from one origin
  lookup and one PR listing shared with the lane delegate (``envelope_inputs``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

import msgspec

from engine.errors import AdeError
from engine.links.deeplink import Envelope, build_deep_link, parse_deep_link
from engine.links.targets import envelope_for_lane
from engine.project.lane_memo import envelope_inputs
from engine.project.model import Lane, Project
from engine.project.transcripts import TranscriptError, read_transcript, transcript_file
from engine.terminal.lines import first_matching_line
from engine.types import SearchQueryResult, SearchResultItem

LINE_SEARCH_BYTES = 64 * 1024
"""Raw bytes read from a chunk's start to find its matching line: a ~4 KiB chunk of text with
its escape sequences fits many times over; a match beyond it keeps the chunk's own offset."""

ENVELOPE_KINDS = frozenset({"chat", "terminal", "commit"})
"""Hit kinds whose links carry their lane's envelope here (lane links get theirs from the lane
delegate; PRs, branches, files and artifacts have none)."""


def place_links(
    result: SearchQueryResult, project: Project, lanes: Sequence[Lane]
) -> SearchQueryResult:
    """``result`` with each item's deep link pointing at its exact place (see the module doc)."""
    envelopes = _LaneEnvelopes(project, lanes)
    items = [_placed(item, project, envelopes) for item in result.items]
    if all(new is old for new, old in zip(items, result.items, strict=True)):
        return result
    return msgspec.structs.replace(result, items=tuple(items))


class _LaneEnvelopes:
    """Each lane's envelope, computed on first use (at most once per lane per query)."""

    def __init__(self, project: Project, lanes: Sequence[Lane]) -> None:
        self._project = project
        self._lanes = {lane.id: lane for lane in lanes}
        self._memo: dict[str, Envelope | None] = {}

    def of(self, lane_id: str | None) -> Envelope | None:
        if lane_id is None or lane_id not in self._lanes:
            return None
        if lane_id not in self._memo:
            repo, prs = envelope_inputs(self._project)
            branch = self._lanes[lane_id].branch
            self._memo[lane_id] = envelope_for_lane(repo=repo, branch=branch, prs=prs)
        return self._memo[lane_id]


def _placed(
    item: SearchResultItem, project: Project, envelopes: _LaneEnvelopes
) -> SearchResultItem:
    if item.kind not in ENVELOPE_KINDS or not item.deep_link:
        return item
    try:
        link = parse_deep_link(item.deep_link)
    except AdeError:
        return item
    placed = link
    if item.kind == "terminal" and link.offset is not None and "@" in item.doc_id:
        offset = _matching_line(project, link.target, link.offset, _highlighted(item))
        if offset is not None:
            placed = replace(placed, offset=offset)
    if placed.envelope is None:
        placed = replace(placed, envelope=envelopes.of(item.lane_id))
    if placed == link:
        return item
    try:
        text = build_deep_link(placed)
    except AdeError:
        return item
    return msgspec.structs.replace(item, deep_link=text)


def _highlighted(item: SearchResultItem) -> list[str]:
    """The words the snippet marks: what the query matched in this chunk."""
    return [item.snippet[r.start : r.end] for r in item.match_ranges]


def _matching_line(project: Project, sid: str, chunk_offset: int, words: list[str]) -> int | None:
    if not words:
        return None
    path = transcript_file(project, "terminal", sid)
    if path is None:
        return None
    try:
        piece = read_transcript(path, chunk_offset, LINE_SEARCH_BYTES)
    except (TranscriptError, OSError):
        return None
    return first_matching_line(piece.data, chunk_offset, words)
