"""Sources asked at query time instead of indexed: lanes, files, artifacts, Linear (DESIGN §5).

Each delegate reads the query's ``QueryPlan`` and nothing else: its text is matched with
``plan.matches`` (what the index's ``MATCH`` would decide), and every filter that applies narrows
it — ``lane:`` all of them, ``since:``/``until:`` lanes by HEAD time, artifacts by creation time,
files by mtime, Linear by update time; ``session:`` keeps the artifacts of that session and drops
lanes, files and Linear issues, which belong to no session; ``lane:`` drops Linear issues too. Each delegate is best-effort: a
failure yields no candidates and one warning line, never a failed query. Their candidates go through the same comparator as indexed ones (``run_query`` merges them
via ``extra_candidates``), so a file named exactly like the query outranks a body hit the same way
a PR titled like it does. Files and Linear need positive query text; a filter-only query skips them, unless it names its kinds: then it browses them
(:mod:`engine.delegates.browse`).
File hits are :mod:`engine.delegates.file_hits`.
Linear is imported only when asked for: its HTTP client (urllib.request, ssl, email) costs ~15 ms.
"""

# warm path: a warm `ade search` imports this; keep its imports light (ARCHITECTURE: The warm path)

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from datetime import datetime

from engine.delegates.context import Delegate, DelegateContext
from engine.delegates.file_hits import file_candidates, file_lanes, mtime_ms
from engine.errors import AdeError
from engine.links.deeplink import build_link
from engine.links.targets import envelope_for_lane
from engine.project.artifacts import list_artifacts
from engine.project.git import GitError, recent_commits
from engine.project.lane_memo import envelope_inputs, list_lanes
from engine.project.lanes import LANES_SOURCE, MISSING_WORKTREE
from engine.project.model import Lane, Project, PrSnapshot
from engine.project.tally import WarningTally
from engine.query.plan import QueryPlan, build_plan
from engine.query.ranking import Candidate, CandidateExtra
from engine.query.snippets import mark_matches
from engine.types import SearchQueryArgs


def _lane_activity_ms(lane: Lane) -> int:
    """When the lane last moved: its HEAD commit's time (deterministic, unlike folder mtimes)."""
    try:
        commits = recent_commits(lane.path, limit=1)
    except (GitError, OSError):
        return mtime_ms(lane.path)
    return int(commits[0].committed_at.timestamp() * 1000) if commits else mtime_ms(lane.path)


def lane_candidates(ctx: DelegateContext) -> tuple[list[Candidate], list[str]]:
    from engine.redaction import redact_title  # deferred: see module docstring
    from engine.redaction.ids import safe_ref

    out: list[Candidate] = []
    warnings: list[str] = []
    plan = ctx.plan
    if plan.sessions:
        return out, warnings  # a lane belongs to no session
    # Every lane is a worktree of one repository: one origin remote and one PR list serve all
    # lanes' envelopes (asked lazily, once per query, and only when some lane matches).
    shared: tuple[str | None, list[PrSnapshot]] | None = None
    for lane in ctx.lanes:
        if not _lane_matches(plan, lane):
            continue
        branch = redact_title(lane.branch) if lane.branch else None
        updated = _lane_activity_ms(lane)
        if not plan.allows_time(updated):
            continue
        if not lane.path.is_dir():
            warnings.append(f"lane {lane.id}: its folder {lane.path} is missing")
        if shared is None:
            shared = envelope_inputs(ctx.project)
        envelope = envelope_for_lane(
            repo=shared[0], branch=safe_ref(lane.branch) if lane.branch else None, prs=shared[1]
        )
        link = build_link("lane", lane.id, project_id=ctx.project.id, envelope=envelope)
        detail = f"{branch or '(detached)'} · {redact_title(str(lane.path))}"
        out.append(
            Candidate(
                doc_id=f"lane:{lane.id}",
                kind="lane",
                title=lane.name,
                rank_title=lane.name,
                snippet_marked=mark_matches(plan, detail),
                updated_at=updated,
                lane_id=lane.id,
                anchor=lane.id,
                extra=CandidateExtra(deep_link=link, lane_name=lane.name),
            )
        )
    return out, warnings


def _lane_matches(plan: QueryPlan, lane: Lane) -> bool:
    """Whether ``lane`` passes the lane filter and the query's text. Matched as shown, redacted
    (docs/redaction.md): a branch named after a token is not found by the token, and its link
    carries the hashed name (engine.redaction.ids)."""
    from engine.redaction import redact_title  # deferred: see module docstring

    if not plan.allows_lane(lane.id):
        return False
    branch = redact_title(lane.branch) if lane.branch else ""
    return plan.matches(lane.id, redact_title(lane.name), branch, redact_title(str(lane.path)))


def artifact_candidates(ctx: DelegateContext) -> tuple[list[Candidate], list[str]]:
    from engine.redaction import redact_title  # deferred: see module docstring

    tally = WarningTally()
    plan = ctx.plan
    out = []
    for art in list_artifacts(ctx.project, tally):
        updated = int(art.created_at.timestamp() * 1000)
        if not (plan.allows_lane(art.lane_id) and plan.allows_session(art.session_id)):
            continue
        if not plan.allows_time(updated):
            continue
        title, path = redact_title(art.title), redact_title(art.path)
        if not plan.matches(art.id, title, art.kind, path):
            continue  # matched as shown: a secret in a title or path is not findable
        out.append(
            Candidate(
                doc_id=f"artifact:{art.id}",
                kind="artifact",
                title=title,
                rank_title=title,
                snippet_marked=mark_matches(plan, f"{art.kind} · {path}"),
                updated_at=updated,
                session_id=art.session_id,
                lane_id=art.lane_id,
                anchor=art.id,
                extra=CandidateExtra(
                    deep_link=build_link("artifact", art.id, project_id=ctx.project.id)
                ),
            )
        )
    skipped = sum(tally.snapshot().values())
    return out, [f"artifacts: {skipped} unreadable record(s) skipped"] if skipped else []


def linear_candidates(ctx: DelegateContext) -> tuple[list[Candidate], list[str]]:
    from engine.delegates.linear import (  # deferred: see module docstring
        LinearUnavailable,
        linear_api_key,
        search_linear,
    )
    from engine.redaction import redact_secrets, redact_title

    plan = ctx.plan
    words = plan.words
    key = linear_api_key(dict(ctx.environ))
    if not words or plan.sessions or plan.lane_ids is not None:
        return [], []  # an issue belongs to no session and no lane
    if key is None:
        return [], ["linear: not configured (set LINEAR_API_KEY to search Linear issues)"]
    try:
        issues = search_linear(
            " ".join(words), api_key=key, url=ctx.environ.get("ADE_LINEAR_API_URL")
        )
    except LinearUnavailable as err:
        return [], [f"linear: {err}"]
    out = []
    for issue in issues:
        updated = int(issue.updated_at.timestamp() * 1000)
        if not plan.allows_time(updated):
            continue
        # Redacted before the window is cut (a key block cut after BEGIN would escape the
        # redactor) and before matching: an issue found only through a secret is dropped.
        title, description = redact_title(issue.title), redact_secrets(issue.description)
        if plan.excludes(issue.identifier, title, description):
            continue
        if (
            (title, description) != (issue.title, issue.description)
            and not plan.matches(issue.identifier, title, description)
            and plan.matches(issue.identifier, issue.title, issue.description)
        ):
            continue
        text = f"{issue.state} · {description[:300]}".strip(" ·")
        out.append(Candidate(doc_id=f"linear:{issue.identifier}", kind="linear",
                             title=f"{issue.identifier} {title}", rank_title=title,
                             snippet_marked=mark_matches(plan, text), updated_at=updated,
                             anchor=issue.identifier,
                             extra=CandidateExtra(deep_link=build_link(
                                 "linear", issue.identifier, project_id=ctx.project.id))))  # fmt: skip
    return out, []


DELEGATES: dict[str, Delegate] = {
    "lane": lane_candidates,
    "file": file_candidates,
    "artifact": artifact_candidates,
    "linear": linear_candidates,
}
"""Kind → delegate. Only the kinds a query asks for are consulted."""


def delegated_candidates(
    project: Project,
    plan: QueryPlan,
    lanes: Sequence[Lane],
    environ: Mapping[str, str] | None = None,
) -> tuple[list[Candidate], list[str]]:
    """Candidates from every delegate whose kind the plan asks for, and their warnings."""
    if plan.match_none:
        return [], []
    ctx = DelegateContext(project, plan, lanes, environ or os.environ)
    candidates: list[Candidate] = []
    warnings: list[str] = []
    for kind, delegate in DELEGATES.items():
        if kind not in plan.kinds:
            continue
        from engine.delegates.browse import browse_delegate  # an empty query browses

        delegate = browse_delegate(kind, plan) or delegate
        try:
            found, said = delegate(ctx)
        except (AdeError, OSError, ValueError) as err:
            found, said = [], [f"{kind}: {err}"]
        candidates.extend(found)
        warnings.extend(said)
    return candidates, warnings


def delegated_for_plan(
    project: Project,
    plan: QueryPlan,
    lanes: Sequence[Lane],
    environ: Mapping[str, str] | None = None,
) -> tuple[list[Candidate], list[str]]:
    """Delegated candidates for a query as the service plans it (only the delegated kinds asked),
    plus why worktrees were left out of the lane list when lanes are asked for."""
    if not any(kind in DELEGATES for kind in plan.kinds):
        return [], []
    found, warnings = delegated_candidates(project, plan, lanes, environ)
    if "lane" in plan.kinds:
        warnings = [*_lane_listing_warnings(project, len(plan.gone_folders)), *warnings]
    return found, warnings


def starts_no_process(
    project: Project,
    plan: QueryPlan,
    lanes: Sequence[Lane],
    environ: Mapping[str, str] | None = None,
) -> bool:
    """Whether ``delegated_for_plan`` of ``plan`` surely starts no child process and asks no
    server: no lane matches (a match runs ``git log``), Linear is not configured, nothing is
    browsed, and every lane whose files are searched has a kept listing with nothing tracked
    (``listing_memo.held_untracked_only``: no ``git grep``). Then the delegates are pure Python,
    cheaper on the caller's thread than on one of their own beside the index query (the GIL
    runs them first anyway); False whenever unsure."""
    if plan.match_none or not any(kind in DELEGATES for kind in plan.kinds):
        return True
    from engine.delegates.browse import browses
    from engine.delegates.listing_memo import held_untracked_only

    env = os.environ if environ is None else environ
    if browses(plan):
        return False
    if "linear" in plan.kinds:  # imported only when asked for: see module docstring
        from engine.delegates.linear import linear_api_key

        if linear_api_key(dict(env)) is not None:
            return False
    if plan.sessions:  # no lane, file or Linear issue belongs to a session
        return True
    if "lane" in plan.kinds and any(_lane_matches(plan, lane) for lane in lanes):
        return False
    if "file" not in plan.kinds or not plan.has_text:
        return True
    searched = file_lanes(DelegateContext(project, plan, lanes, env))
    return all(held_untracked_only(lane.path) is not None for lane in searched)


def delegated_for_args(
    project: Project,
    args: SearchQueryArgs,
    now: datetime,
    lanes: Sequence[Lane],
    environ: Mapping[str, str] | None = None,
) -> tuple[list[Candidate], list[str]]:
    """``delegated_for_plan`` of the plan of ``args`` (for callers without a plan of their own).

    Raises:
        UsageError: the query does not plan (a bad filter, kind or lane), before any delegate.
    """
    return delegated_for_plan(project, build_plan(args, now=now, lanes=lanes), lanes, environ)


def _lane_listing_warnings(project: Project, named_gone: int = 0) -> list[str]:
    """Why worktrees were left out of the lane list (a folder deleted under git's feet…); the
    ``named_gone`` lanes a ``lane:`` names have their own warning (``QueryPlan.gone_folders``),
    so they are not counted again."""
    tally = WarningTally()
    list_lanes(project, tally)
    reasons = tally.reasons(LANES_SOURCE)
    if named_gone and MISSING_WORKTREE in reasons:
        reasons[MISSING_WORKTREE] -= named_gone
    return [f"lanes: {reason} ({count}x)" for reason, count in reasons.items() if count > 0]
