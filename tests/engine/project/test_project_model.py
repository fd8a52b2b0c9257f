"""The project records behave as the frozen slotted dataclasses they replace (issue 5).

They are hand-written to keep ``dataclass`` code generation out of start-up; these checks pin
what callers rely on: value equality and hashing, an evaluable-looking ``repr``, immutability,
defaults, positional ``match`` and copy/pickle round trips.
"""

from __future__ import annotations

import copy
import pickle
from dataclasses import FrozenInstanceError
from datetime import UTC, datetime
from pathlib import Path

import pytest

from engine.project.model import ChatEvent, Lane, PrSnapshot, SessionMeta

WHEN = datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC)


def _lane(lane_id: str = "primary") -> Lane:
    return Lane(id=lane_id, name="main", path=Path("/repo"), branch="main", primary=True)


def test_equality_and_hash_are_by_value_and_type() -> None:
    assert _lane() == _lane()
    assert hash(_lane()) == hash(_lane())
    assert _lane() != _lane("other")
    assert len({_lane(), _lane(), _lane("other")}) == 2
    assert _lane() != ("primary", "main", Path("/repo"), "main", True)


def test_repr_lists_the_fields_in_order() -> None:
    assert repr(_lane()) == (
        "Lane(id='primary', name='main', path=PosixPath('/repo'), branch='main', primary=True)"
    )


def test_records_are_frozen_and_have_no_dict() -> None:
    lane = _lane()
    with pytest.raises(FrozenInstanceError):
        lane.id = "x"
    with pytest.raises(FrozenInstanceError):
        del lane.name
    with pytest.raises(AttributeError):
        lane.extra = 1
    assert not hasattr(lane, "__dict__")


def test_defaults_and_fresh_data_dicts() -> None:
    meta = SessionMeta("s1", "chat", "t", None, WHEN, WHEN)
    assert (meta.ended_at, meta.archived, meta.source, meta.transcript_path) == (
        None,
        False,
        "ade",
        None,
    )
    first, second = ChatEvent(1, None, "user_message", 0), ChatEvent(2, None, "user_message", 9)
    assert first.data == {}
    assert first.data is not second.data
    pr = PrSnapshot(1, "t", "b", "OPEN", "a", "h", "main", "u", WHEN)
    assert pr.comments == ()


def test_match_copy_and_pickle() -> None:
    lane = _lane()
    match lane:
        case Lane(lane_id, name):
            assert (lane_id, name) == ("primary", "main")
        case _:
            pytest.fail("positional match failed")
    assert copy.copy(lane) == lane
    assert copy.deepcopy(lane) == lane
    assert pickle.loads(pickle.dumps(lane)) == lane
