"""Exact places for a page of hits: the line a terminal hit matched, the envelope of its lane.

Run once per query on the page about to be returned (``SearchService.query``):

* a terminal chunk's link offset becomes the byte offset of the chunk's first line holding a
  highlighted word, so ``ade open`` and the palette land on the match (the doc id and anchor
  keep the chunk's offset);
* chat, terminal and commit links carry the portable envelope (``repo``, ``branch``, ``pr``,
  ``linear``) of the lane that owns them — computed once per lane per query, from one origin
  lookup and one PR listing shared with the lane delegate (``envelope_inputs``).
"""

# warm path: a warm `ade search` imports this; keep its imports light (ARCHITECTURE: The warm path)

from __future__ import annotations

from collections.abc import Sequence

import msgspec

from engine.basics.memo import MISSING, BytesMemo
from engine.errors import AdeError
from engine.links.deeplink import build_deep_link, build_link, parse_deep_link
from engine.links.targets import envelope_for_lane
from engine.project.lane_memo import envelope_inputs
from engine.project.model import Lane, Project
from engine.project.transcripts import TranscriptError, read_transcript, transcript_file
from engine.terminal.lines import first_matching_line
from engine.types import SearchQueryResult, SearchResultItem

LINE_SEARCH_BYTES = 16 * 1024
"""Raw bytes read (and sanitized) from a chunk's start to find its matching line: a ~4 KiB chunk
of text with its escape sequences fits; a match beyond it keeps the chunk's own offset."""

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
    """Each lane's envelope as link parameters, made on first use (once per lane per query)."""

    def __init__(self, project: Project, lanes: Sequence[Lane]) -> None:
        self._project = project
        self._lanes = {lane.id: lane for lane in lanes}
        self._memo: dict[str, str] = {}

    def params(self, lane_id: str | None) -> str:
        """``repo=…&branch=…&pr=…&linear=…`` of the lane (encoded, canonical order), or ""."""
        if lane_id is None or lane_id not in self._lanes:
            return ""
        if lane_id not in self._memo:
            repo, prs = envelope_inputs(self._project)
            branch = self._lanes[lane_id].branch
            envelope = envelope_for_lane(repo=repo, branch=branch, prs=prs)
            # The envelope's parameters come last in every link (PARAM_ORDER), so they are
            # built once and appended to each hit's link as they are.
            built = build_link("lane", lane_id, envelope=envelope) if envelope else ""
            self._memo[lane_id] = built.partition("?")[2]
        return self._memo[lane_id]


def _placed(
    item: SearchResultItem, project: Project, envelopes: _LaneEnvelopes
) -> SearchResultItem:
    if item.kind not in ENVELOPE_KINDS or not item.deep_link:
        return item
    text = item.deep_link
    if item.kind == "terminal" and "@" in item.doc_id:
        text = _at_matching_line(text, item, project)
    params = envelopes.params(item.lane_id)
    if params and not _has_envelope(text):
        text += ("&" if "?" in text else "?") + params
    return item if text == item.deep_link else msgspec.structs.replace(item, deep_link=text)


def _has_envelope(link: str) -> bool:
    query = link.partition("?")[2]
    return any(part.split("=", 1)[0] in _ENVELOPE_NAMES for part in query.split("&"))


_ENVELOPE_NAMES = frozenset({"repo", "branch", "pr", "linear"})


def _at_matching_line(text: str, item: SearchResultItem, project: Project) -> str:
    """``text`` with its offset moved to the chunk's first line that holds a highlighted word."""
    try:
        link = parse_deep_link(text)
    except AdeError:
        return text
    if link.offset is None:
        return text
    offset = _matching_line(project, link.target, link.offset, _highlighted(item))
    if offset is None or offset == link.offset:
        return text
    try:
        return build_deep_link(msgspec.structs.replace(link, offset=offset))
    except AdeError:
        return text


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
    key = (chunk_offset, tuple(words))
    kept = _LINES.get(key, piece.data)
    if kept is not MISSING:
        return kept if kept is None or isinstance(kept, int) else None
    line = first_matching_line(piece.data, chunk_offset, words)
    _LINES.put(key, piece.data, line, 64)
    return line


_LINES: BytesMemo[int | None] = BytesMemo(max_bytes=4 * 1024 * 1024, max_entry=64 * 1024)
"""Each terminal hit's matching line lately found, kept with the bytes read for it (a pure
function of them, the chunk's offset and the words: ``engine.basics.memo``); ~4 MB, a few
hundred hits' 16 KiB reads."""


def forget_matching_lines() -> None:
    """Drop the kept matching lines (the next page looks for each again)."""
    _LINES.clear()
