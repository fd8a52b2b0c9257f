"""The query plan: built once per query, every form of every term, every filter resolved."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from engine.errors import CursorError, UsageError
from engine.project.model import Lane
from engine.query.parser import MAX_TERMS
from engine.query.plan import QueryPlan, build_plan, resolve_lane
from engine.types import SearchQueryArgs
from tests.engine.query.conftest import NOW, PASTE, World

LANES = [
    Lane("primary", "repo", Path("/w/repo"), "main", True),
    Lane("feat-1", "Feature X", Path("/w/lanes/feature-x"), "ade/feature-x", False),
]


def plan(query: str, **kw: Any) -> QueryPlan:
    return build_plan(SearchQueryArgs(query=query, **kw), now=NOW, lanes=LANES)


def _ms(stamp: datetime) -> int:
    return int(stamp.timestamp() * 1000)


def _forms(p: QueryPlan) -> list[tuple[str, tuple[str, ...], bool, bool]]:
    return [(t.text, t.tokens, t.prefix, t.phrase) for t in p.positive_terms]


PLANS: list[tuple[str, str, Any]] = [
    ("Café*", "forms", [("Café*", ("cafe",), True, False)]),
    ('"naïve  Café"', "forms", [("naïve  Café", ("naive", "cafe"), False, True)]),
    ("connect_timeout", "forms", [("connect_timeout", ("connect", "timeout"), True, False)]),
    (
        "^flamingo (x)",
        "forms",
        [("^flamingo", ("flamingo",), True, False), ("(x)", ("x",), False, False)],
    ),
    ("connectTimeout", "parts", [("connect", "timeout")]),
    ("ＦＩＸ", "normalized", ["fix"]),
    ('"a b" c', "phrases", ["a b"]),
    ("a|bc d", "alternatives", [["a", "bc"]]),
    ("a|bc d", "required", ["d"]),
    ('fix -wip -"old one"', "excluded", [("wip",), ("old", "one")]),
    ("kind:pr,issue x", "kinds", ("pr", "linear")),
    ("x", "kinds", ("chat", "terminal", "pr", "commit", "branch", "lane", "file", "artifact")),
    ("lane:main x", "lane_ids", ("primary",)),
    ("lane:ade/feature-x x", "lane_ids", ("feat-1",)),
    ("lane:feature-x x", "lane_ids", ("feat-1",)),
    ("x", "lane_ids", None),
    ("tool:claude,codex x", "tools", frozenset({"claude", "codex"})),
    ("tool:claude x", "kinds", ("chat",)),  # only chats have an agent
    ("x", "tools", None),
    ("session:s1 session:s2 x", "sessions", ("s1", "s2")),
    ("since:7d x", "since_ms", _ms(NOW - timedelta(days=7))),
    ("since:7d since:2d x", "since_ms", _ms(NOW - timedelta(days=2))),
    ("until:2026-06-10 x", "until_ms", _ms(datetime(2026, 6, 11, tzinfo=UTC))),
    ("until:2026-06-10T09:30Z x", "until_ms", _ms(datetime(2026, 6, 10, 9, 30, tzinfo=UTC))),
    ("until:1d until:3d x", "until_ms", _ms(NOW - timedelta(days=3))),
    ("x", "until_ms", None),
    ("🙂 x", "warnings", ("ignored '🙂': no letters or digits",)),
]


def _attr(p: QueryPlan, name: str) -> Any:
    if name == "forms":
        return _forms(p)
    if name == "parts":
        return [t.parts for t in p.positive_terms]
    if name == "normalized":
        return [t.normalized for t in p.positive_terms]
    if name == "phrases":
        return [t.text for t in p.phrases]
    if name == "alternatives":
        return [[t.text for t in alt] for alt in p.alternatives]
    if name == "required":
        return [t.text for t in p.terms]
    if name == "excluded":
        return [t.tokens for t in p.excluded]
    return getattr(p, name)


@pytest.mark.parametrize(("query", "attribute", "expected"), PLANS)
def test_plan_holds_every_form_and_filter(query: str, attribute: str, expected: Any) -> None:
    assert _attr(plan(query), attribute) == expected


def test_arguments_join_the_typed_filters() -> None:
    p = plan("kind:pr,commit x", kinds=("commit", "chat"), lane_id="Feature X", limit=7)
    assert (p.kinds, p.lane_ids, p.limit) == (("commit",), ("feat-1",), 7)
    assert plan("lane:primary x", lane_id="feat-1").lane_ids == ()  # both: their intersection


def test_lane_names_resolve_to_the_lane_id() -> None:
    names = ["primary", "main", "MAIN", "repo", "feat-1", "Feature X", "feature-x", "ade/feature-x"]
    assert [resolve_lane(n, LANES) for n in names] == ["primary"] * 4 + ["feat-1"] * 4


def test_an_unknown_lane_names_every_valid_value() -> None:
    with pytest.raises(UsageError) as info:
        resolve_lane("nope", LANES)
    assert str(info.value) == (
        "unknown lane 'nope'; lanes: primary, feat-1; or by name, folder or branch: "
        "repo, main, Feature X, feature-x, ade/feature-x"
    )


@pytest.mark.parametrize(
    ("query", "message"),
    [
        ("since:2026-06-10 until:2026-06-01 x", "until: is not after since:"),
        ("since:1d until:1d x", "until: is not after since:"),
        ("until:soon x", "invalid until:'soon': use 30m, 24h"),
    ],
)
def test_until_errors(query: str, message: str) -> None:
    with pytest.raises(UsageError, match=message):
        plan(query)


# --- pasted queries --------------------------------------------------------------------------


def test_a_paste_over_the_term_limit_keeps_its_first_distinctive_terms() -> None:
    p = plan(PASTE)
    kept = [t.text for t in p.terms]
    assert len(kept) == MAX_TERMS
    assert kept[:6] == ["gateway", "step0", "retry1", "webhook2", "ledger", "step3"]
    assert not {"the", "of", "and"} & set(kept)  # stop words went first
    assert len(set(kept)) == len(kept)  # and duplicates
    assert p.warnings == (
        "query has 140 terms, over the limit of 32: searched its first 32 distinctive ones"
        " (quote it to search it as one phrase)",
    )
    assert plan(PASTE).terms == p.terms  # deterministic


def test_short_and_duplicate_words_go_before_distinctive_ones() -> None:
    words = ["it", "is", "ok", *[f"w{i:02d}" for i in range(40)], "w00", "W00"]
    kept = [t.text for t in plan(" ".join(words)).terms]
    assert kept == [f"w{i:02d}" for i in range(32)]


def test_only_weak_words_still_search_the_first_unique_ones() -> None:
    kept = [t.text for t in plan(" ".join(["of", "to", "it"] * 20 + ["a"] * 20)).terms]
    assert kept == ["of", "to", "it", "a"]


def test_exclusions_keep_at_most_half_the_room() -> None:
    p = plan("x " + " ".join(f"-n{i}" for i in range(40)))
    assert len(p.excluded) == MAX_TERMS // 2
    assert [t.text for t in p.terms] == ["x"]


def test_a_quoted_paste_is_one_phrase() -> None:
    p = plan(f'"{PASTE}"')
    assert len(p.phrases) == 1
    assert p.phrases[0].tokens[:3] == ("the", "gateway", "of")
    assert p.warnings == ()


def test_a_pasted_paragraph_over_the_length_limit_is_cut_at_a_space() -> None:
    text = " ".join(f"w{i}" for i in range(400))  # 1,889 characters
    p = plan(text)
    assert p.warnings[0] == "query cut to its first 999 of 1889 characters"
    assert len(p.terms) == MAX_TERMS
    with pytest.raises(UsageError, match="the limit is 1000"):
        plan("x" * 1001)  # one unbroken run: a blob, not words


def test_a_pasted_paragraph_finds_the_message_it_came_from(world: World) -> None:
    for text in (PASTE, f'"{PASTE}"'):
        res = world.service.query(SearchQueryArgs(query=text, kinds=("chat",)))
        assert [i.doc_id for i in res.items] == ["chat:s3:paste"]


# --- the cursor's fingerprint -----------------------------------------------------------------


def test_the_fingerprint_tells_apart_everything_that_changes_the_answer() -> None:
    base = plan("flamingo")
    others = [
        plan("flamingo session:s1"),
        plan("flamingo since:7d"),
        plan("flamingo until:7d"),
        plan("flamingo lane:main"),
        plan("flamingo", lane_id="main"),
        plan("flamingo", kinds=("chat",)),
        plan("flamingo kind:chat"),
        plan("flamingo -zebra"),
    ]
    prints = {p.fingerprint for p in others}
    assert base.fingerprint not in prints
    assert len(prints) == len(others)
    assert plan("flamingo", limit=5).fingerprint == base.fingerprint  # the page size is not


def test_a_relative_since_keeps_its_cursor_while_the_clock_moves() -> None:
    args = SearchQueryArgs(query="flamingo since:7d until:1d")
    later = build_plan(args, now=NOW + timedelta(minutes=5), lanes=LANES)
    assert later.fingerprint == build_plan(args, now=NOW, lanes=LANES).fingerprint


def test_a_cursor_of_one_query_is_refused_by_another(world: World) -> None:
    first = world.service.query(SearchQueryArgs(query="flamingo", kinds=("chat",), limit=1))
    assert first.next_cursor is not None
    again = SearchQueryArgs(query="flamingo", kinds=("chat",), limit=1, cursor=first.next_cursor)
    assert world.service.query(again).items  # the same query pages on
    for other in (
        SearchQueryArgs(query="flamingo session:s1", kinds=("chat",)),
        SearchQueryArgs(query="flamingo until:1d", kinds=("chat",)),
        SearchQueryArgs(query="flamingo", kinds=("chat",), lane_id="alpha"),
        SearchQueryArgs(query="flamingo", kinds=("chat", "artifact")),
    ):
        with pytest.raises(CursorError, match="different query"):
            world.service.query(
                SearchQueryArgs(
                    query=other.query,
                    kinds=other.kinds,
                    lane_id=other.lane_id,
                    cursor=first.next_cursor,
                )
            )
