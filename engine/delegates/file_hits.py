"""File hits of a query (DESIGN §5): the path and line hits of the lanes ``lane:`` names.

Without ``lane:`` (or ``--lane``) the primary lane is searched, as a query that names no lane
always has; with it each lane it names, so an agent finds the files and lines of its own
worktree (an untracked file it just wrote, a line its branch changed). Every hit carries its
lane's id and a link to that lane's file, which ``ade open`` shows from that worktree. The git
half (listing, grep, caps per lane) is :mod:`engine.delegates.files`.
"""

# warm path: a warm `ade search` imports this; keep its imports light (ARCHITECTURE: The warm path)

from __future__ import annotations

import os
import re
import threading
from collections.abc import Callable
from functools import partial
from itertools import groupby
from operator import attrgetter
from pathlib import Path
from typing import TYPE_CHECKING

from engine.basics.caller_env import carried
from engine.delegates.definitions import definition_lines
from engine.delegates.file_passes import FileQuery, search_lane
from engine.delegates.files import (
    MAX_LINE_HITS,
    FileLineHit,
    FileMatches,
    FileSearchFailed,
)
from engine.delegates.line_heads import BestLine, LineBlock, LineHeads
from engine.errors import CursorError
from engine.links.deeplink import build_link
from engine.project.model import Lane
from engine.query.cursor import decode_cursor
from engine.query.file_match import line_snippet, match_column
from engine.query.plan import QueryPlan
from engine.query.ranking import Candidate, CandidateExtra, SortKey, natural_key, tier_for
from engine.query.snippets import mark_matches
from engine.types import TIER_ORDER

if TYPE_CHECKING:
    from engine.delegates.context import DelegateContext

MAX_PATH_HITS = 200
"""Path matches kept per query (over every lane searched): enough for several pages, bounded on a 100k-file monorepo."""


def mtime_ms(path: Path) -> int:
    """The file's mtime in ms, 0 when it cannot be read (a file removed since it was listed)."""
    try:
        return int(path.stat().st_mtime * 1000)
    except OSError:
        return 0


def _primary_lane(ctx: DelegateContext) -> Lane | None:
    for lane in ctx.lanes:
        if lane.primary:
            return lane
    if ctx.project.is_git:
        return Lane(
            id="primary", name=ctx.project.name, path=ctx.project.root, branch=None, primary=True
        )
    return None


def _best_path_title(path: str, query: str) -> str:
    """The file's path or its basename, whichever ranks better against the query."""
    base = path.rsplit("/", 1)[-1]
    probe = [
        Candidate(doc_id="", kind="file", title=t, rank_title=t, snippet_marked="", updated_at=0)
        for t in (base, path)
    ]
    tiers = [tier_for(c, query) for c in probe]
    return base if TIER_ORDER[tiers[0]] <= TIER_ORDER[tiers[1]] else path


def file_lanes(ctx: DelegateContext) -> list[Lane]:
    """The lanes whose files a query searches: without ``lane:`` the primary lane (what an
    unfiltered query always searched), with it every lane it names, in the project's lane order."""
    primary = _primary_lane(ctx)
    if ctx.plan.lane_ids is None:
        return [primary] if primary is not None else []
    named = [lane for lane in ctx.lanes if ctx.plan.allows_lane(lane.id)]
    if not named and primary is not None and ctx.plan.allows_lane(primary.id):
        named = [primary]  # a repository without listed lanes: its folder is the primary lane
    return named


_LaneRun = tuple[Lane, list[FileLineHit]]
"""Line hits of one lane, in the order they are taken (a file's lines together)."""


def _interleaved(per_lane: list[_LaneRun], limit: int) -> list[_LaneRun]:
    """At most ``limit`` lines taken from each lane in turn, so one lane full of mentions
    cannot leave another's lines out of the answer; one lane's are its first ``limit``, whole."""
    if len(per_lane) == 1:
        lane, lines = per_lane[0]
        return [(lane, lines[:limit])]
    out: list[_LaneRun] = []
    for depth in range(max((len(lines) for _, lines in per_lane), default=0)):
        for lane, lines in per_lane:
            if depth < len(lines):
                out.append((lane, [lines[depth]]))
                if len(out) >= limit:
                    return out
    return out


def file_doc_id(lane: Lane, where: str) -> str:
    # The primary lane keeps the ids it always had; a linked lane's copy of a file is its own hit.
    return f"file:{where}" if lane.primary else f"file@{lane.id}:{where}"


def file_candidates(ctx: DelegateContext) -> tuple[list[Candidate], list[str]]:
    """Path hits (ranked by title tier, the best ``MAX_PATH_HITS``) and line hits (definition
    lines first, then lines of files named like a term, then mentions; see ``_best_lines``) of
    each lane ``file_lanes`` picks. The caps hold for the whole answer: the best
    ``MAX_PATH_HITS`` paths over all those lanes, and ``MAX_LINE_HITS`` lines taken from the
    lanes in turn (plus each lane's definition lines). When either was cut, every candidate
    carries ``results_truncated`` and a warning says how to narrow; otherwise every matching
    line is reachable by paging. A lane whose folder is missing or whose git fails costs one
    warning; the other lanes still answer."""
    plan = ctx.plan
    names = [w for term in plan.positive_terms for w in _NAME_RE.findall(term.text)]
    # A file belongs to no session: `session:` leaves no file to show.
    if not plan.has_text or plan.sessions:
        return [], []
    warnings: list[str] = []
    searched: list[tuple[Lane, FileMatches]] = []
    present: list[Lane] = []
    for lane in file_lanes(ctx):
        if lane.path.is_dir():
            present.append(lane)
        else:
            which = "the primary lane's" if lane.primary else f"lane {lane.id}'s"
            warnings.append(f"files: {which} folder {lane.path} is missing")
    wanted = FileQuery(plan.nodes, plan.excluded)
    for lane, result in zip(present, _each_lane(present, wanted, names), strict=True):
        if not isinstance(result, FileSearchFailed):
            warnings += result.notes
        if isinstance(result, FileSearchFailed):
            warnings.append(
                f"files: {result}" if lane.primary else f"files: lane {lane.id}: {result}"
            )
        else:
            searched.append((lane, result))
    mtimes: dict[tuple[str, str], int] = {}

    def mtime(lane: Lane, path: str) -> int:
        key = (lane.id, path)
        if key not in mtimes:
            mtimes[key] = mtime_ms(lane.path / path)
        return mtimes[key]

    lanes_by_id = {lane.id: lane for lane, _ in searched}
    pairs = [f"{lane.id}\0{path}" for lane, found in searched for path in found.paths]

    def pair_mtime(pair: str) -> int:
        lane_id, _, path = pair.partition("\0")
        return mtime(lanes_by_id[lane_id], path)

    kept_paths, cuts = _ranked_paths(plan, pairs, pair_mtime, path_of=_pair_path)
    plain = [(lane, _plain_lines(found)) for lane, found in searched]
    lines = _interleaved(plain, MAX_LINE_HITS)
    lines += [(lane, _definition_lines(found)) for lane, found in searched]
    if (
        any(found.truncated for _, found in searched)
        or sum(len(p) for _, p in plain) > MAX_LINE_HITS
    ):
        cuts.append(
            f"files: more than {MAX_LINE_HITS:,} lines match; the first {MAX_LINE_HITS:,} (and "
            "the definition lines) can be paged to and the total counts them only — add a "
            "path word (dir/) or another word of the line to narrow"
        )
    warnings += cuts
    short = any(found.cut_short for _, found in searched)  # its note is in the warnings
    cut = bool(cuts or short)
    out: list[Candidate] = []
    for pair in kept_paths:
        lane_id, _, path = pair.partition("\0")
        lane = lanes_by_id[lane_id]
        link = partial(build_link, "file", path, project_id=ctx.project.id, lane=lane.id)
        shown = shown_path(path)
        title = _best_path_title(shown, plan.title_text)
        out.append(Candidate(doc_id=file_doc_id(lane, shown), kind="file", title=shown,
                             rank_title=title, snippet_marked=mark_matches(plan, shown),
                             updated_at=mtime(lane, path), bm25=LINE_SCORES["named"],
                             lane_id=lane.id, anchor=shown,
                             extra=CandidateExtra(deep_link=link, results_truncated=cut)))  # fmt: skip
    line_nodes = wanted.terms.line_nodes
    best, unlisted = _best_lines(plan, lines, names, mtime)
    for number, (_, lane, hit, score, updated) in enumerate(best):
        column = partial(match_column, line_nodes, hit.text)
        where = f"{shown_path(hit.path)}:{hit.line}"
        # The link and the snippet (a window around the match, whatever the line's length)
        # are made for the page shown only: a common word offers tens of thousands of lines.
        out.append(Candidate(doc_id=file_doc_id(lane, where), kind="file", title=where,
                             rank_title="", snippet_marked="", updated_at=updated,
                             bm25=score, lane_id=lane.id, anchor=where,
                             extra=CandidateExtra(
                                 deep_link=partial(_line_link, ctx.project.id, lane.id, hit,
                                                   column),
                                 snippet=partial(line_snippet, plan, hit.text, column),
                                 results_truncated=cut,
                                 unlisted=0 if number else unlisted)))  # fmt: skip
    return out, warnings


def _best_lines(
    plan: QueryPlan,
    lines: list[_LaneRun],
    names: list[str],
    mtime: Callable[[Lane, str], int],
) -> tuple[list[BestLine], int]:
    """The line hits this query's page can show, best first, and how many others there are.

    A line hit is a body-tier candidate whose sort key is known without building it: (body,
    its score, 0, -mtime, its id in natural order). The page shows hits past the cursor's key,
    ``offset + limit`` of them and one to tell whether more follow, so only that many lines
    past the cursor are made candidates; the others are counted (``CandidateExtra.unlisted``,
    carried by the first one returned, which is returned even when it ranks before the cursor).
    ``the`` in git.git: 100,000 lines found, ~20 made candidates instead of 100,000
    (benchmarks/journal/2026-12-07-file-lines.md). A file's lines come together: its facts are
    looked up and its definitions found (one search of its lines) once a file, and its lines
    are grouped under their keys' shared head (``LineHeads``)."""
    defines = definition_lines(names)
    named_like = _named_like(names)
    body = TIER_ORDER["body"]
    definition = LINE_SCORES["definition"]
    files: dict[tuple[str, str], tuple[int, bool, str, float | None]] = {}
    heads = LineHeads()
    for lane, hits in lines:  # each already a hit (engine.query.file_match.line_hit)
        for path, same_file in groupby(hits, key=_hit_path):
            place = (lane.id, path)
            if (facts := files.get(place)) is None:
                at = mtime(lane, path)
                # The id's natural key, its line number's digits after the prefix's ':'.
                start = natural_key(file_doc_id(lane, f"{shown_path(path)}:"))
                named = LINE_SCORES["named"] if named_like(path) else None
                facts = files[place] = (at, plan.allows_time(at), start, named)
            updated, allowed, prefix, plain = facts
            if not allowed:
                continue
            group = list(same_file)
            if marked := defines(list(map(_hit_text, group))):
                chosen = set(marked)
                defining = LineBlock(lane, [group[i] for i in marked], definition, updated)
                heads.add((body, definition, 0.0, -updated), defining, prefix)
                group = [hit for i, hit in enumerate(group) if i not in chosen]
            if group:
                mentions = LineBlock(lane, group, plain, updated)
                heads.add((body, 0.0 if plain is None else plain, 0.0, -updated), mentions, prefix)
    if not heads.total:
        return [], 0
    wanted = _page_bound(plan)
    if wanted is None:
        best = heads.smallest(None, None)
    else:
        after, count = wanted
        best = heads.smallest(after, count) or heads.smallest(None, 1)
    return best, heads.total - len(best)


_hit_path = attrgetter("path")
_hit_text = attrgetter("text")


def _page_bound(plan: QueryPlan) -> tuple[SortKey | None, int] | None:
    """The sort key this query's page starts after and how many hits past it the page may use
    (``engine.query.tail.page_of``); None for a cursor ``run_query`` will refuse."""
    after = None
    if plan.cursor:
        try:
            after = decode_cursor(plan.cursor, plan.fingerprint)
        except CursorError:
            return None
    return after, plan.offset + plan.limit + 1


def _named_like(words: list[str]) -> Callable[[str], bool]:
    """Whether a file is named like one of ``words`` (its name's stem, of 3 characters or more,
    within a word or a word within it): its lines score ``LINE_SCORES["named"]``, after the
    definitions and before the mentions."""
    folded = [w.casefold() for w in words]

    def named(path: str) -> bool:
        stem = path.rsplit("/", 1)[-1].split(".", 1)[0].casefold()
        return len(stem) >= 3 and any(stem in w or w in stem for w in folded)

    return named


def shown_path(path: str) -> str:
    """``path`` as text: a name's undecodable bytes as ``\\xNN`` (its link keeps the bytes)."""
    if path.isascii() or not any("\udc80" <= ch <= "\udcff" for ch in path):
        return path
    return os.fsencode(path).decode("utf-8", "backslashreplace")


def _line_link(project_id: str, lane_id: str, hit: FileLineHit, column: Callable[[], int]) -> str:
    return build_link("file", hit.path, project_id=project_id, line=hit.line, lane=lane_id,
                      column=column())  # fmt: skip


def _each_lane(
    lanes: list[Lane], wanted: FileQuery, names: list[str]
) -> list[FileMatches | FileSearchFailed]:
    """``search_lane_files`` of every lane, the lanes after the first on threads of their own:
    each is mostly a wait on git processes, so several lanes cost little more than one."""
    results: list[FileMatches | FileSearchFailed] = [FileSearchFailed("not searched")] * len(lanes)

    def search(index: int) -> None:
        try:
            results[index] = search_lane(lanes[index].path, wanted, names)
        except FileSearchFailed as err:
            results[index] = err

    # carried: the lane's git runs in the caller's HOME, as on this thread (a daemon's request)
    others = [threading.Thread(target=carried(search), args=(i,), name="ade-lane-files",
                               daemon=True) for i in range(1, len(lanes))]  # fmt: skip
    for thread in others:
        thread.start()
    if lanes:
        search(0)
    for thread in others:
        thread.join()
    return results


def _plain_lines(found: FileMatches) -> list[FileLineHit]:
    """The lane's line hits up to the cap (past it ``search_lane_files`` adds definitions)."""
    return found.lines[:MAX_LINE_HITS] if found.truncated else found.lines


def _definition_lines(found: FileMatches) -> list[FileLineHit]:
    return found.lines[MAX_LINE_HITS:] if found.truncated else []


def _pair_path(pair: str) -> str:
    return pair.partition("\0")[2]


_NAME_RE = re.compile(r"\w+")
"""A term's words as a program spells names (``strbuf_addf`` stays whole): for definitions."""

LINE_SCORES = {"definition": -2e-6, "named": -1e-6}
"""``bm25`` of a file hit (lower ranks first, as BM25) when it ranks in the body tier: a line
defining a term, then a path hit and a line of a file named like a term (``strbuf.c`` for
``strbuf_addf``), then a mention (None). Path hits in a title tier rank by tier. Tiny, so
file lines still follow indexed documents with real BM25 scores; within a score, the comparator
orders newer files first and then path and line number (numerically)."""


def _ranked_paths(
    plan: QueryPlan,
    paths: list[str],
    mtime: Callable[[str], int],
    path_of: Callable[[str], str] = str,
) -> tuple[list[str], list[str]]:
    """The matching paths (``path_of`` reads the path out of an entry), best title tier first
    (then path), at most ``MAX_PATH_HITS``, and the warning when more matched."""
    query = plan.title_text
    matched = [p for p in paths if plan.matches(path_of(p))]
    if plan.has_time_bounds:
        matched = [p for p in matched if plan.allows_time(mtime(p))]

    def tier(entry: str) -> int:
        title = _best_path_title(path_of(entry), query)
        probe = Candidate(doc_id="", kind="file", title=title, rank_title=title,
                          snippet_marked="", updated_at=0)  # fmt: skip
        return TIER_ORDER[tier_for(probe, query)]

    if len(matched) <= MAX_PATH_HITS:
        return matched, []
    best = sorted(matched, key=lambda p: (tier(p), natural_key(path_of(p)), p))
    best = best[:MAX_PATH_HITS]
    return best, [
        f"files: {len(matched):,} paths match; the best {MAX_PATH_HITS} are shown — add more "
        "of the path to narrow"
    ]
