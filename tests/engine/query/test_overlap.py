"""``Background``: the delegates' call runs beside the index query, in the caller's context."""

from __future__ import annotations

import threading
from contextvars import ContextVar

import pytest

from engine.query.overlap import Background

MEMO: ContextVar[dict[str, int] | None] = ContextVar("test_overlap_memo", default=None)


def test_the_call_runs_while_the_caller_goes_on() -> None:
    started, release = threading.Event(), threading.Event()

    def delegates() -> str:
        started.set()
        release.wait()  # finishes only once the caller has moved on
        return "candidates"

    work = Background(delegates)
    assert started.wait(timeout=30)  # a deadlock guard, never a timing assertion
    release.set()
    assert work.result() == "candidates"
    assert work.result() == "candidates"  # asked twice (candidates, then warnings): one call


def test_an_exception_is_raised_by_result() -> None:
    def broken() -> None:
        raise KeyError("lost")

    work = Background(broken)
    with pytest.raises(KeyError, match="lost"):
        work.result()


def test_the_callers_per_query_memo_is_shared() -> None:
    """As ``one_listing``: what the thread remembers, the caller sees (one git listing)."""
    memo: dict[str, int] = {}
    token = MEMO.set(memo)
    try:

        def remember() -> dict[str, int] | None:
            found = MEMO.get()
            if found is not None:
                found["lanes"] = 1
            return found

        assert Background(remember).result() is memo
        assert memo == {"lanes": 1}
    finally:
        MEMO.reset(token)
