"""``engine.project.lane_memo``: one lane listing per block, warnings replayed, fresh outside a block."""

from __future__ import annotations

import json
from pathlib import Path

from engine.project.lane_memo import list_lanes, one_listing
from engine.project.lanes import LANES_SOURCE
from engine.project.locate import open_project
from engine.project.model import Project
from engine.project.tally import WarningTally


def _project(tmp_path: Path, lanes: object) -> Project:
    (tmp_path / ".ade").mkdir(exist_ok=True)
    (tmp_path / ".ade" / "lanes.json").write_text(json.dumps(lanes))
    return open_project(tmp_path)


def test_a_block_lists_once_and_replays_the_warnings_to_every_caller(tmp_path: Path) -> None:
    project = _project(tmp_path, [{"id": "a"}, {"id": "a"}])  # the duplicate is counted
    first, second = WarningTally(), WarningTally()
    with one_listing():
        assert [lane.id for lane in list_lanes(project, first)] == ["a"]
        _project(tmp_path, [{"id": "b"}])  # changed under the block: not listed again
        with one_listing():  # a nested block shares the outer listing
            assert [lane.id for lane in list_lanes(project, second)] == ["a"]
    assert first.reasons(LANES_SOURCE) == second.reasons(LANES_SOURCE) != {}


def test_outside_a_block_every_call_lists_afresh(tmp_path: Path) -> None:
    project = _project(tmp_path, [{"id": "a"}])
    with one_listing():
        assert [lane.id for lane in list_lanes(project, WarningTally())] == ["a"]
    _project(tmp_path, [{"id": "b"}])
    assert [lane.id for lane in list_lanes(project, WarningTally())] == ["b"]
    _project(tmp_path, [{"id": "c"}])
    assert [lane.id for lane in list_lanes(project, WarningTally())] == ["c"]
