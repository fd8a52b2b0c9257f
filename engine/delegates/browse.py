"""Browsing a delegated kind (an empty query browses): a filter-only query that names its kinds lists the
files and Linear issues of those kinds newest first, as it already lists the newest indexed
documents (commits, PRs, branches) — television's channels.

"Names its kinds" means other than the default set (``kind:file``, ``--kind linear``, the
palette's file stop): a bare ``ade search`` or ``since:1d`` over every kind keeps searching files
by text only, so a repository's whole file list never floods an unfiltered listing. Files are
the lanes' ``git ls-files`` listing (tracked and untracked-not-ignored, from the listing memo),
ordered by mtime — recently changed first; Linear is asked for its recently updated issues. Every
filter a delegate honours still narrows (``lane:``, ``since:``/``until:``); the page and
its cursor come from the same comparator as any answer (``updated_at`` descending, then doc id).
"""

# warm path: a warm `ade search` imports this; keep its imports light (ARCHITECTURE: The warm path)

from __future__ import annotations

from functools import partial
from typing import TYPE_CHECKING

from engine.delegates.file_hits import file_doc_id, file_lanes, mtime_ms
from engine.delegates.files import FileSearchFailed, lane_listing
from engine.links.deeplink import build_link
from engine.query.ranking import Candidate, CandidateExtra
from engine.types import DEFAULT_KINDS

if TYPE_CHECKING:
    from engine.delegates.context import Delegate, DelegateContext
    from engine.query.plan import QueryPlan

NOT_CONFIGURED = "linear: not configured (set LINEAR_API_KEY to search Linear issues)"


def browses(plan: QueryPlan) -> bool:
    """Whether ``plan`` browses: no positive text, and kinds other than the default set."""
    return not plan.has_text and not plan.match_none and set(plan.kinds) != set(DEFAULT_KINDS)


def browse_files(ctx: DelegateContext) -> tuple[list[Candidate], list[str]]:
    """Every listed file of the lanes a query searches (the primary lane, or those ``lane:``
    names), newest mtime first; its link is built only for the page shown."""
    plan = ctx.plan
    if plan.sessions:
        return [], []  # a file belongs to no session
    out: list[Candidate] = []
    warnings: list[str] = []
    for lane in file_lanes(ctx):
        if not lane.path.is_dir():
            warnings.append(f"files: lane {lane.id}'s folder {lane.path} is missing")
            continue
        try:
            tracked, untracked = lane_listing(lane.path)
        except FileSearchFailed as err:
            warnings.append(f"files: {err}")
            continue
        for path in (*tracked, *untracked):
            updated = mtime_ms(lane.path / path)
            if not plan.allows_time(updated) or not plan.matches(path):
                continue  # `since:` and `until:` narrow a browse too
            link = partial(build_link, "file", path, project_id=ctx.project.id, lane=lane.id)
            out.append(Candidate(doc_id=file_doc_id(lane, path), kind="file", title=path,
                                 rank_title=path, snippet_marked="", updated_at=updated,
                                 lane_id=lane.id, anchor=path,
                                 extra=CandidateExtra(deep_link=link)))  # fmt: skip
    return out, warnings


def browse_linear(ctx: DelegateContext) -> tuple[list[Candidate], list[str]]:
    """Linear's recently updated issues (an issue belongs to no lane and no session)."""
    from engine.delegates.linear import LinearUnavailable, linear_api_key, recent_linear
    from engine.redaction import redact_title

    plan = ctx.plan
    if plan.sessions or plan.lane_ids is not None:
        return [], []
    key = linear_api_key(dict(ctx.environ))
    if key is None:
        return [], [NOT_CONFIGURED]
    try:
        issues = recent_linear(api_key=key, url=ctx.environ.get("ADE_LINEAR_API_URL"))
    except LinearUnavailable as err:
        return [], [f"linear: {err}"]
    out = []
    for issue in issues:
        updated = int(issue.updated_at.timestamp() * 1000)
        title = redact_title(issue.title)
        if not plan.allows_time(updated) or plan.excludes(issue.identifier, title):
            continue
        out.append(
            Candidate(
                doc_id=f"linear:{issue.identifier}",
                kind="linear",
                title=f"{issue.identifier} {title}",
                rank_title=title,
                snippet_marked=issue.state,
                updated_at=updated,
                anchor=issue.identifier,
                extra=CandidateExtra(
                    deep_link=build_link("linear", issue.identifier, project_id=ctx.project.id)
                ),
            )
        )
    return out, []


BROWSERS: dict[str, Delegate] = {"file": browse_files, "linear": browse_linear}
"""Kind → its browse, for the delegated kinds that answer nothing without query text."""


def browse_delegate(kind: str, plan: QueryPlan) -> Delegate | None:
    """The browse that replaces ``kind``'s delegate for ``plan``, or None."""
    return BROWSERS.get(kind) if browses(plan) else None
