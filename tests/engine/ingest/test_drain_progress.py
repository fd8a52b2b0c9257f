"""The first index's progress moves with the work: a commit history indexed in
slices is counted by its commits, not as one more source a slice (``1/2``, ``2/3``… read as a
bar nearly full from the first slice of a pass that takes most of the time)."""

from __future__ import annotations

from pathlib import Path

import pytest

import engine.ingest.history as history
from engine.ingest.timers import ManualTimerFactory
from engine.project.locate import open_project
from engine.wiring import create_project_service

from .conftest import NOW
from .history_repo import History

COMMITS = 400


def test_a_sliced_history_pass_moves_the_bar_with_its_commits(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setattr(history, "SLICE_COMMITS", 50)  # eight slices
    repo = History(tmp_path / "proj")
    repo.numbered("main", "work", COMMITS)
    service = create_project_service(open_project(repo.root), clock=lambda: NOW,
                                     timer=ManualTimerFactory(), start_worker=False)  # fmt: skip
    reports: list[tuple[float, int]] = []

    def progress(done: int, total: int) -> None:
        indexed = service.readers.reader().execute(
            "SELECT count(*) FROM docs WHERE kind = 'commit'"
        )
        reports.append((done / total, int(next(indexed)[0])))

    try:
        service.catch_up(progress=progress)
    finally:
        service.dispose()
    during = [(shown, commits) for shown, commits in reports if 0 < commits < COMMITS]
    assert len(during) >= 6  # one report a slice
    for shown, commits in during:  # the bar reads about the share of commits indexed
        assert abs(shown - commits / COMMITS) < 0.1, reports
    assert reports[-1][0] == 1.0
