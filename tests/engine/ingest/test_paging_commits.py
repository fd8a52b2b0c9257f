"""Paging reaches every matching commit: past the ranked window (and past the scoring budget) the
other matches follow newest first, by cursor or by offset, each page bounded; ``total`` is exact
or, with ``resultsTruncated`` and a warning, a floor. Graded against ``git log --grep`` on a real
repository (the window and budget made small so a few hundred commits pass them)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from engine.errors import UsageError
from engine.query import candidates
from engine.service import SearchService
from engine.types import SearchQueryArgs, SearchQueryResult

from .history_repo import History, git
from .test_history import open_service

WINDOW, BUDGET = 20, 90


@pytest.fixture(scope="module")
def paged(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[History, SearchService]]:
    """240 commits: every third names ``gadget`` in its subject (a title tier), every other one
    in its body only, the rest not at all."""
    hist = History(tmp_path_factory.mktemp("paging") / "proj")
    messages = []
    for i in range(240):
        if i % 3 == 0:
            messages.append(f"gadget tune {i}\n\nplain body {i}")
        elif i % 2:
            messages.append(f"step {i}\n\nthe gadget moved {i}" + " filler" * (i % 7))
        else:
            messages.append(f"chore {i}\n\nnothing here {i}")
    hist.commits("main", messages)
    svc = open_service(hist.root)
    svc.catch_up()
    yield hist, svc
    svc.dispose()


@pytest.fixture
def small_window(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(candidates, "BM25_WINDOW", WINDOW)
    monkeypatch.setattr(candidates, "SCORE_BUDGET", BUDGET)


def grep(hist: History, word: str) -> set[str]:
    out = git(hist.root, "log", "--format=%H", "-i", "-F", f"--grep={word}", "--branches")
    return set(out.split())


def query(svc: SearchService, text: str, **kw: object) -> SearchQueryResult:
    return svc.query(SearchQueryArgs(query=text, kinds=("commit",), **kw))  # type: ignore[arg-type]


def by_cursor(svc: SearchService, text: str, limit: int) -> list[str]:
    out, cursor = [], None
    while True:
        page = query(svc, text, limit=limit, cursor=cursor)
        assert len(page.items) <= limit
        out += [i.anchor or "" for i in page.items]
        if page.next_cursor is None:
            return out
        cursor = page.next_cursor


def by_offset(svc: SearchService, text: str, limit: int) -> list[str]:
    out: list[str] = []
    while True:
        page = query(svc, text, limit=limit, offset=len(out))
        out += [i.anchor or "" for i in page.items]
        if page.next_cursor is None:
            return out


@pytest.mark.usefixtures("small_window")
@pytest.mark.parametrize("word", ["gadget", "tune", "moved"])
def test_every_matching_commit_is_reachable_by_cursor_and_by_offset(
    paged: tuple[History, SearchService], word: str
) -> None:
    hist, svc = paged
    want = grep(hist, word)
    assert len(want) > WINDOW  # the window fills: the rest is the tail
    walked = by_cursor(svc, word, 7)
    assert len(walked) == len(set(walked))  # once each
    assert set(walked) == want  # every one
    assert by_offset(svc, word, 7) == walked  # the same order either way
    first = query(svc, word, limit=7)
    assert first.total == min(len(want), BUDGET + 1)  # exact, or a floor past the budget
    assert first.results_truncated == (len(want) > BUDGET)


@pytest.mark.usefixtures("small_window")
def test_past_the_budget_the_total_is_a_floor_and_says_so(
    paged: tuple[History, SearchService],
) -> None:
    hist, svc = paged
    want = grep(hist, "gadget")
    assert len(want) > BUDGET
    first = query(svc, "gadget", limit=5)
    assert first.total == BUDGET + 1
    assert first.results_truncated
    assert candidates.BUDGET_NOTE.format(budget=BUDGET) in first.warnings
    assert set(by_cursor(svc, "gadget", 50)) == want


@pytest.mark.usefixtures("small_window")
def test_the_tail_follows_the_window_newest_first(paged: tuple[History, SearchService]) -> None:
    _, svc = paged
    items = [i for n in range(0, 60, 10) for i in query(svc, "moved", limit=10, offset=n).items]
    tail = items[WINDOW:]
    assert tail
    times = [i.updated_at for i in tail]
    assert times == sorted(times, reverse=True)


def test_an_offset_with_a_cursor_or_below_zero_is_a_usage_error(
    paged: tuple[History, SearchService],
) -> None:
    _, svc = paged
    cursor = query(svc, "gadget", limit=2).next_cursor
    with pytest.raises(UsageError, match="not both"):
        query(svc, "gadget", cursor=cursor, offset=2)
    with pytest.raises(UsageError, match="offset"):
        query(svc, "gadget", offset=-1)
