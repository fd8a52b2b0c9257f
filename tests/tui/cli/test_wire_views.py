"""``tui.wire_views``: a daemon's checked answer printed as text without msgspec, the same text
``engine.types.from_wire`` of it gives (the daemon-answered text form's start-up budget)."""

from __future__ import annotations

from datetime import UTC, datetime

import msgspec
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.rpc.reply_check import check_search_result
from engine.types import MatchRange, SearchQueryResult, SearchResultItem, to_wire
from tui.search_format import format_results_text, format_warnings
from tui.wire_views import HitView, RangeView, ResultView

NOW = datetime(2026, 6, 15, 12, 0, tzinfo=UTC)

TEXTS = st.text(alphabet="ab \n\t\x1b[31m\u202e\u00e9", max_size=12)
OPTIONAL_TEXT = st.none() | TEXTS
COUNTS = st.none() | st.integers(min_value=0, max_value=30)


@st.composite
def hits(draw: st.DrawFn) -> SearchResultItem:
    snippet = draw(TEXTS)
    start = draw(st.integers(min_value=0, max_value=len(snippet)))
    end = draw(st.integers(min_value=start, max_value=len(snippet)))
    kind = draw(st.sampled_from(["chat", "terminal", "file", "commit"]))
    session = draw(st.none() | st.sampled_from(["s1", "s2"]))
    doc_id = draw(st.sampled_from([f"chat:{session}", "chat:s1@3", "terminal:t@1", "file:a:1"]))
    return SearchResultItem(
        doc_id=doc_id,
        kind=kind,  # type: ignore[arg-type]
        title=draw(TEXTS),
        snippet=snippet,
        match_ranges=(MatchRange(start=start, end=end),) if draw(st.booleans()) else (),
        tier=draw(st.sampled_from(["exact_title", "body"])),  # type: ignore[arg-type]
        updated_at=draw(st.integers(min_value=0, max_value=1_800_000_000_000)),
        deep_link=f"ade://{kind}/{draw(st.sampled_from(['x', 'a%2Fb', 'a/b', 'q?x=1']))}",
        session_id=session,
        lane_id=draw(OPTIONAL_TEXT),
        lane_name=draw(OPTIONAL_TEXT),
        project_id=draw(st.none() | st.sampled_from(["p1", "p2"])),
        project_name=draw(OPTIONAL_TEXT),
        tool=draw(OPTIONAL_TEXT),
        message_count=draw(COUNTS),
        match_count=draw(COUNTS),
    )


@settings(max_examples=300, deadline=None)
@given(
    st.lists(hits(), max_size=5),
    st.integers(min_value=0, max_value=99),
    st.none() | st.just("c2V2ZW4"),
    st.booleans(),
    st.lists(TEXTS, max_size=2),
    st.none() | st.sampled_from(["spelling", "any_word"]),
    st.booleans(),
    st.integers(min_value=1, max_value=40),
)
def test_a_checked_answer_prints_the_text_from_wire_prints(
    items: list[SearchResultItem],
    total: int,
    cursor: str | None,
    truncated: bool,
    warnings: list[str],
    relaxed: str | None,
    color: bool,
    first: int,
) -> None:
    result = SearchQueryResult(
        items=tuple(items), next_cursor=cursor, total=total, results_truncated=truncated,
        warnings=tuple(warnings), relaxed=relaxed,
    )  # fmt: skip
    wire = msgspec.json.decode(msgspec.json.encode(to_wire(result)))  # as the daemon's line decodes
    try:
        check_search_result(wire)
    except Exception:  # a drawn link the contract refuses never reaches the views
        return
    view = ResultView(wire)
    assert format_results_text(view, NOW, color=color, first=first) == format_results_text(
        result, NOW, color=color, first=first
    )
    assert format_warnings(view) == format_warnings(result)


def test_the_views_carry_every_field_of_the_types() -> None:
    def names(struct: type[msgspec.Struct]) -> set[str]:
        return {field.name for field in msgspec.structs.fields(struct)}

    assert set(HitView.__slots__) == names(SearchResultItem)
    assert set(ResultView.__slots__) == names(SearchQueryResult)
    assert set(RangeView.__slots__) == names(MatchRange)


def test_fields_left_out_are_the_types_defaults() -> None:
    wire = {"items": [{"docId": "file:a:1", "kind": "file", "title": "a", "snippet": "",
                       "matchRanges": [], "tier": "body", "updatedAt": 0,
                       "deepLink": "ade://file/a"}], "nextCursor": None, "total": 1}  # fmt: skip
    view, typed = ResultView(wire), msgspec.convert(wire, SearchQueryResult, from_attributes=False)
    for name in ResultView.__slots__:
        if name != "items":
            assert getattr(view, name) == getattr(typed, name), name
    for name in HitView.__slots__:
        if name != "match_ranges":
            assert getattr(view.items[0], name) == getattr(typed.items[0], name), name
