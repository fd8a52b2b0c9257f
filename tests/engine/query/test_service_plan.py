"""The service plans a query once and hands that plan to every source, its hook included."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from engine.errors import UsageError
from engine.ingest.timers import ManualTimerFactory
from engine.project.model import Lane
from engine.query.plan import QueryPlan
from engine.query.ranking import Candidate
from engine.service import SearchService
from engine.types import SearchQueryArgs
from tests.engine.query.conftest import NOW, World


def test_the_delegate_hook_gets_the_plan_and_its_kinds_hold(world: World) -> None:
    seen: list[QueryPlan] = []

    def hook(plan: QueryPlan, lanes: Sequence[Lane]) -> Sequence[Candidate]:
        seen.append(plan)
        assert [lane.id for lane in lanes] == ["primary", "alpha", "beta"]
        return [
            Candidate(doc_id=f"{kind}:hooked", kind=kind, title="hooked", rank_title="hooked",
                      snippet_marked="", updated_at=0)
            for kind in ("chat", "file")
        ]  # fmt: skip

    service = SearchService(
        world.project, clock=lambda: NOW, timer=ManualTimerFactory(), start_worker=False,
        delegates=[hook],
    )  # fmt: skip
    try:
        res = service.query(SearchQueryArgs(query="lane:main ^flamingo* kind:chat"))
        assert [p.lane_ids for p in seen] == [("primary",)]
        assert [t.tokens for t in seen[0].positive_terms] == [("flamingo",)]
        assert seen[0].kinds == ("chat",)
        assert "file:hooked" not in [i.doc_id for i in res.items]  # kinds narrow hook results
        assert "chat:hooked" in [i.doc_id for i in res.items]
        with pytest.raises(UsageError, match="unknown lane"):
            service.query(SearchQueryArgs(query="lane:nope x"))
        assert len(seen) == 1  # an invalid query fails before any source runs
    finally:
        service.dispose()


def test_a_failing_hook_is_no_failed_query(world: World) -> None:
    def broken(plan: QueryPlan, lanes: Sequence[Lane]) -> Sequence[Candidate]:
        raise RuntimeError("down")

    service = SearchService(world.project, clock=lambda: NOW, timer=ManualTimerFactory(),
                            start_worker=False, delegates=[broken])  # fmt: skip
    try:
        assert service.query(SearchQueryArgs(query="flamingo", kinds=("lane",))).items
    finally:
        service.dispose()
