"""One query's answer in a project's search service: the plan, the index and the delegates run
side by side, and the warnings the answer carries (``SearchService.query`` wraps it with the
damage retry, the exact places and the index's own notes)."""

# warm path: a warm `ade search` imports this; keep its imports light (ARCHITECTURE: The warm path)

from __future__ import annotations

from typing import TYPE_CHECKING

import apsw
import msgspec

from engine.delegates.gather import delegated_for_plan, starts_no_process
from engine.ingest.history import history_warnings_for
from engine.project.lanes import gone_lanes
from engine.query.overlap import Background, Finished
from engine.query.plan import QueryPlan, build_plan
from engine.query.ranking import Candidate
from engine.query.relax import can_relax, relax_answer
from engine.query.run import run_query
from engine.semantic.hybrid import hybrid_answer, take_mode
from engine.service.chat_anchor import anchor_session_rows
from engine.service.relaxed_pages import check, depth, paged, take_cursor
from engine.types import SearchQueryArgs, SearchQueryResult

if TYPE_CHECKING:
    from engine.basics.clock import Clock
    from engine.external.catalog import ExternalCatalog
    from engine.project.model import Lane, Project
    from engine.project.tally import WarningTally

Delegated = tuple[list[Candidate], list[str]]
"""The delegates' candidates and warnings (``delegated_for_plan``)."""

NOT_GIT_NOTE = "not a git repository: commits, branches, lanes and files are not searched"
"""The one note a plain folder gets (docs/projects.md): it works, with .ade/ sources only."""


def answer_query(
    args: SearchQueryArgs,
    conn: apsw.Connection,
    unavailable: str | None,
    *,
    project: Project,
    tally: WarningTally,
    clock: Clock,
    external: ExternalCatalog,
    lanes: list[Lane],
) -> SearchQueryResult:
    """One query on ``conn`` (an empty index when ``unavailable`` says why): the index, the
    delegates and the warnings every answer carries (``SearchService.query`` adds the places
    and the index notes)."""
    args, semantic_asked = take_mode(args)  # `mode:semantic` (docs/semantic.md)
    args, later = take_cursor(args)  # a relaxed answer's later page: its steps run again
    # Parsed and resolved once; every source below reads this plan, none the raw text.
    plan = build_plan(args, now=clock(), lanes=lanes, gone=lambda: gone_lanes(project))
    if plan.sessions:  # `session:` as users copy it: the agent's own id, a prefix
        from engine.service.session_ids import plan_with_sessions

        plan = plan_with_sessions(plan, conn, project, tally)
    if args.sessions:  # one row per chat session (deferred: only that mode pays its import)
        from engine.service.session_rows import session_rows

        return session_rows(conn, project, external, plan, lanes)

    def run_plan(planned: QueryPlan) -> tuple[SearchQueryResult, list[str]]:
        extras: list[Candidate] = []
        replace: frozenset[str] = frozenset()
        fresh = None
        if planned.sessions:  # deferred: only a `session:` query reads a live tail
            from engine.ingest.freshness import session_candidates

            fresh = session_candidates(conn, project, planned, tally)
        if fresh is not None:
            extras.extend(fresh.candidates)
            replace = fresh.replace_doc_ids
        # The delegates (git of the lanes) run while SQLite answers the index (the start-up
        # budget); with no process to wait for they run here, saving a thread's start and join.
        delegation: Background[Delegated] | Finished[Delegated]
        if starts_no_process(project, planned, lanes):
            delegation = Finished(delegated_for_plan(project, planned, lanes))
        else:
            delegation = Background(lambda: delegated_for_plan(project, planned, lanes))
        answered = run_query(conn, planned, project=project, lanes=lanes,
                             extra_candidates=lambda: [*extras, *delegation.result()[0]],
                             replace_doc_ids=replace)  # fmt: skip
        return answered, delegation.result()[1]

    fingerprint = f"{plan.fingerprint}:{int(semantic_asked)}:{int(args.exact)}"
    check(later, fingerprint)
    deep = depth(plan.limit, later)  # one past the page: whether a next page holds something
    result, delegated = run_plan(plan)
    if len(result.items) < plan.limit and unavailable is None and can_relax(plan, exact=args.exact):
        result = relax_answer(conn, plan, result, lambda relaxed: run_plan(relaxed)[0], depth=deep)
    if semantic_asked or not args.exact:  # --exact keeps today's strict answer
        result = hybrid_answer(conn, plan, result, asked=semantic_asked, project=project,
                               lanes=lanes, depth=deep)  # fmt: skip
    result = paged(result, plan.limit, fingerprint, later)
    result = anchor_session_rows(conn, project, external, plan, lanes, result)  # a message each
    delegate_warnings = delegated
    if (
        not result.items
        and not result.total
        and plan.cursor is None
        and later is None
        and unavailable is None
    ):
        delegate_warnings = [*_did_you_mean(conn, plan), *delegate_warnings]
    if unavailable is not None:
        delegate_warnings = [f"{unavailable}: showing live sources only", *delegate_warnings]
    if not project.is_git:
        delegate_warnings = [NOT_GIT_NOTE, *delegate_warnings]
    history = history_warnings_for(conn, plan.kinds)
    if plan.gone_folders:  # said once, by the plan's "lane X: its folder … is gone"
        gone = tuple(f"worktree {folder} is gone" for folder in plan.gone_folders)
        history = [note for note in history if not note.startswith(gone)]
    delegate_warnings = [*history, *delegate_warnings]
    if not delegate_warnings:
        return result
    return msgspec.structs.replace(result, warnings=(*result.warnings, *delegate_warnings))


def _did_you_mean(conn: apsw.Connection, plan: QueryPlan) -> list[str]:
    """A query that found nothing is not a dead end: the nearest indexed words (did you mean)."""
    from engine.query.suggest import suggest_query  # deferred: only a zero-result query pays

    better = suggest_query(conn, plan)
    return [] if better is None else [f"did you mean {better}?"]
