"""A commit belongs to every lane whose history holds it: ``lane:X`` keeps every commit X reaches,
shared with the primary lane or another lane or not, and each row shows one lane (the primary when
it holds it), once. A real repository with three lanes (the main worktree and two linked ones)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from engine.service import SearchService
from engine.types import SearchQueryArgs

from .history_repo import History, git
from .test_history import open_service


@pytest.fixture(scope="module")
def lanes_repo(tmp_path_factory: pytest.TempPathFactory) -> History:
    """``main`` (primary): 4 "byte cursor" commits among 20; ``search-index`` (a lane) forks at
    ``main~8`` and adds 3; ``ui`` (a lane) forks off ``search-index`` and adds 2."""
    base = tmp_path_factory.mktemp("lanes")
    hist = History(base / "proj")
    hist.commits(
        "main", [f"byte cursor step {i}" if i % 5 == 0 else f"chore {i}" for i in range(20)]
    )
    hist.commits("search-index", [f"byte cursor lane {i}" for i in range(3)], start="main~8")
    hist.commits("ui", ["ui byte cursor", "ui polish"], start="search-index")
    git(hist.root, "checkout", "-q", "main")
    for lane in ("search-index", "ui"):
        git(hist.root, "worktree", "add", "-q", str(base / "lanes" / lane), lane)
    return hist


@pytest.fixture
def service(lanes_repo: History) -> Iterator[SearchService]:
    svc = open_service(lanes_repo.root)
    svc.catch_up()
    yield svc
    svc.dispose()


def reachable(root: Path, *revs: str) -> set[str]:
    return {f"commit:{s}" for s in git(root, "rev-list", *revs).split()}


def grep(root: Path, rev: str, word: str) -> set[str]:
    """What ``git log --grep`` finds: the reference the filter is graded against."""
    out = git(root, "log", "--format=%H", "-i", "-F", f"--grep={word}", rev)
    return {f"commit:{s}" for s in out.split()}


def hits(service: SearchService, query: str) -> list[tuple[str, str | None]]:
    result = service.query(SearchQueryArgs(query=query, kinds=("commit",), limit=500))
    assert result.next_cursor is None
    return [(item.doc_id, item.lane_id) for item in result.items]


@pytest.mark.parametrize("lane", ["primary", "search-index", "ui"])
def test_lane_filter_keeps_every_commit_the_lane_reaches(
    service: SearchService, lanes_repo: History, lane: str
) -> None:
    rev = "main" if lane == "primary" else lane
    found = hits(service, f'"byte cursor" lane:{lane}')
    assert {doc for doc, _ in found} == grep(lanes_repo.root, rev, "byte cursor")
    assert len(found) == len({doc for doc, _ in found})  # one row a commit
    # Filter-only: the lane's whole history, the shared part included.
    listed = hits(service, f"kind:commit lane:{lane}")
    assert {doc for doc, _ in listed} == reachable(lanes_repo.root, rev)


def test_each_row_shows_one_lane_the_primary_when_it_holds_the_commit(
    service: SearchService, lanes_repo: History
) -> None:
    lane_of = dict(hits(service, '"byte cursor" lane:ui'))
    root = lanes_repo.root
    assert {lane_of[d] for d in grep(root, "main~8", "byte cursor")} == {"primary"}
    assert {lane_of[d] for d in grep(root, "search-index", "byte cursor") - reachable(root, "main")} == {"search-index"}  # fmt: skip
    assert {lane_of[d] for d in grep(root, "ui", "byte cursor") - reachable(root, "search-index")} == {"ui"}  # fmt: skip


def test_lanes_follow_their_heads_reset_moved_and_removed(tmp_path: Path) -> None:
    hist = History(tmp_path / "proj")
    hist.commits("main", ["byte cursor one", "chore", "byte cursor two"])
    hist.commits("side", ["byte cursor side"], start="main~1")
    git(hist.root, "checkout", "-q", "main")
    side = tmp_path / "lanes" / "side"
    git(hist.root, "worktree", "add", "-q", str(side), "side")
    svc = open_service(hist.root)
    try:
        svc.catch_up()
        assert {d for d, _ in hits(svc, "byte lane:side")} == grep(hist.root, "side", "byte")
        # The lane is reset onto main's tip: it now reaches "byte cursor two", and no longer
        # its own commit (which no tip reaches any more).
        git(side, "reset", "-q", "--hard", "main")
        svc.catch_up()
        assert {d for d, _ in hits(svc, "byte lane:side")} == grep(hist.root, "main", "byte")
        git(side, "commit", "-q", "--allow-empty", "-m", "byte cursor again")
        svc.catch_up()
        assert {d for d, _ in hits(svc, "byte lane:side")} == grep(hist.root, "side", "byte")
        git(hist.root, "worktree", "remove", "--force", str(side))
        svc.catch_up()
        rows = svc.readers.reader().execute(
            "SELECT count(*) FROM commit_lanes WHERE lane_id = 'side'"
        )
        assert rows.fetchone()[0] == 0
    finally:
        svc.dispose()
