"""The wire contract of DESIGN §6: camelCase JSON round trips and strict decoding."""

from __future__ import annotations

import json
from typing import Any

import msgspec
import pytest
from hypothesis import given
from hypothesis import strategies as st

from engine.types import (
    ALL_KINDS,
    TIER_ORDER,
    IndexStatus,
    MatchRange,
    RebuildResult,
    SearchQueryArgs,
    SearchQueryResult,
    SearchResultItem,
    from_json,
    from_wire,
    to_json,
    to_wire,
)

# --- strategies --------------------------------------------------------------------------------

texts = st.text(max_size=30)
opt_texts = st.none() | texts
ints = st.integers(0, 2**53 - 1)
kinds = st.sampled_from(ALL_KINDS)

match_ranges = st.tuples(st.integers(0, 500), st.integers(0, 500)).map(
    lambda pair: MatchRange(start=min(pair), end=max(pair))
)
result_items = st.builds(
    SearchResultItem,
    doc_id=texts,
    kind=kinds,
    title=texts,
    snippet=texts,
    match_ranges=st.lists(match_ranges, max_size=4).map(tuple),
    tier=st.sampled_from(tuple(TIER_ORDER)),
    updated_at=ints,
    deep_link=texts,
    session_id=opt_texts,
    lane_id=opt_texts,
    lane_name=opt_texts,
    anchor=opt_texts,
    project_id=opt_texts,
    project_name=opt_texts,
    project_root=opt_texts,
)
query_args = st.builds(
    SearchQueryArgs,
    query=texts,
    kinds=st.none() | st.lists(kinds, max_size=4).map(tuple),
    lane_id=opt_texts,
    limit=st.integers(1, 500),
    cursor=opt_texts,
)
query_results = st.builds(
    SearchQueryResult,
    items=st.lists(result_items, max_size=3).map(tuple),
    next_cursor=opt_texts,
    total=ints,
    results_truncated=st.booleans(),
    warnings=st.lists(texts, max_size=3).map(tuple),
)
statuses = st.builds(
    IndexStatus,
    state=st.sampled_from(["ready", "indexing", "rebuilding", "recreated", "degraded", "closed"]),
    schema_version=st.integers(0, 100),
    db_path=texts,
    db_bytes=ints,
    doc_count=ints,
    docs_by_kind=st.dictionaries(kinds, ints, max_size=5),
    source_count=ints,
    pending_sources=ints,
    last_ingest_at=st.none() | ints,
    backfill_completed_at=st.none() | ints,
    watcher_state=texts,
    recreated_reason=opt_texts,
    warnings=st.dictionaries(texts, ints, max_size=3),
)
rebuilds = st.builds(RebuildResult, ok=st.booleans(), doc_count=ints, duration_ms=ints)

ANY_WIRE = st.one_of(match_ranges, result_items, query_args, query_results, statuses, rebuilds)


@given(ANY_WIRE)
def test_json_round_trip(value: msgspec.Struct) -> None:
    data = to_json(value)
    assert from_json(data, type(value)) == value
    assert from_json(data.decode(), type(value)) == value  # text as well as bytes


@given(ANY_WIRE)
def test_builtins_round_trip_through_stdlib_json(value: msgspec.Struct) -> None:
    wire = to_wire(value)
    # What a daemon client does: plain json on both sides.
    assert from_wire(json.loads(json.dumps(wire)), type(value)) == value


# --- key names exactly as DESIGN §6 ------------------------------------------------------------

ITEM = SearchResultItem(
    doc_id="chat:s1:m1",
    kind="chat",
    title="Fix login",
    snippet="the login fails",
    match_ranges=(MatchRange(start=4, end=9),),
    tier="body",
    updated_at=1_780_000_000_000,
    deep_link="ade://chat/s1?event=3",
    session_id="s1",
    lane_id="primary",
    lane_name="main",
    anchor="3",
    project_id="abc123",
    project_name="widgets",
    project_root="/src/widgets",
)
STATUS = IndexStatus(
    state="ready",
    schema_version=4,
    db_path="/p/.ade/cache/search-index.db",
    db_bytes=4096,
    doc_count=10,
    docs_by_kind={"chat": 7, "pr": 3},
    source_count=4,
    pending_sources=0,
    last_ingest_at=1,
    backfill_completed_at=2,
)

KEYS: list[tuple[msgspec.Struct, list[str]]] = [
    (MatchRange(start=0, end=1), ["start", "end"]),
    (
        ITEM,
        [
            "docId", "kind", "title", "snippet", "matchRanges", "tier", "updatedAt", "deepLink",
            "sessionId", "laneId", "laneName", "anchor", "projectId", "projectName", "projectRoot",
            "tool",  # the agent of a chat hit (optional)
            "messageCount", "matchCount",  # a --sessions row's counts (optional)
        ],
    ),
    (
        SearchQueryArgs(query="x"),
        ["query", "kinds", "laneId", "limit", "cursor", "sessions", "allProjects", "exact",
         "offset"],
    ),
    (
        SearchQueryResult(items=(ITEM,), next_cursor="c", total=1),
        ["items", "nextCursor", "total", "resultsTruncated", "warnings", "relaxed"],
    ),
    (
        STATUS,
        [
            "state", "schemaVersion", "dbPath", "dbBytes", "docCount", "docsByKind",
            "sourceCount", "pendingSources", "lastIngestAt", "backfillCompletedAt",
            # Additions beyond DESIGN §6, still camelCase:
            "watcherState", "recreatedReason", "warnings", "commitHistory", "discovery",
            "healthCheckSince", "agents",
        ],
    ),
    (RebuildResult(ok=True, doc_count=3, duration_ms=12), ["ok", "docCount", "durationMs"]),
]  # fmt: skip


@pytest.mark.parametrize(("value", "keys"), KEYS, ids=lambda v: type(v).__name__)
def test_wire_keys_are_exactly_camel_case(value: msgspec.Struct, keys: list[str]) -> None:
    assert list(json.loads(to_json(value))) == keys
    assert list(to_wire(value)) == keys


def test_nested_keys_and_values() -> None:
    wire = json.loads(to_json(SearchQueryResult(items=(ITEM,), next_cursor=None, total=1)))
    assert wire["items"][0]["matchRanges"] == [{"start": 4, "end": 9}]
    assert wire["items"][0]["updatedAt"] == 1_780_000_000_000
    assert wire["nextCursor"] is None
    assert json.loads(to_json(STATUS))["docsByKind"] == {"chat": 7, "pr": 3}


# --- strict decoding ---------------------------------------------------------------------------

REBUILD = {"ok": True, "docCount": 3, "durationMs": 12}


def _item_wire(**changes: Any) -> dict[str, Any]:
    wire = to_wire(ITEM)
    wire.update(changes)
    return wire


@pytest.mark.parametrize(
    ("data", "type_", "where"),
    [
        ({**REBUILD, "docCount": True}, RebuildResult, "docCount"),
        ({**REBUILD, "durationMs": 1.5}, RebuildResult, "durationMs"),
        ({**REBUILD, "docCount": "3"}, RebuildResult, "docCount"),
        ({**REBUILD, "ok": 1}, RebuildResult, "ok"),
        ({"ok": True, "doc_count": 3, "duration_ms": 12}, RebuildResult, "docCount"),
        (_item_wire(kind="wiki"), SearchResultItem, "kind"),
        (_item_wire(kind="issue"), SearchResultItem, "kind"),  # alias only in the query parser
        (_item_wire(tier="fuzzy"), SearchResultItem, "tier"),
        (_item_wire(updatedAt=True), SearchResultItem, "updatedAt"),
        (_item_wire(matchRanges=[{"start": True, "end": 2}]), SearchResultItem, "start"),
        ({"query": "x", "kinds": ["chat", "wiki"]}, SearchQueryArgs, "kinds"),
        ({"query": "x", "limit": True}, SearchQueryArgs, "limit"),
        ({"items": [], "nextCursor": None, "total": False}, SearchQueryResult, "total"),
        ({**to_wire(STATUS), "state": "sleeping"}, IndexStatus, "state"),
        ({**to_wire(STATUS), "schemaVersion": True}, IndexStatus, "schemaVersion"),
        ({**to_wire(STATUS), "docsByKind": {"chat": True}}, IndexStatus, "docsByKind"),
    ],
)
def test_strict_decoding_refuses(
    data: dict[str, Any], type_: type[msgspec.Struct], where: str
) -> None:
    with pytest.raises(msgspec.ValidationError, match=where):
        from_wire(data, type_)
    with pytest.raises(msgspec.ValidationError, match=where):
        from_json(json.dumps(data), type_)


def test_not_json_is_a_decode_error() -> None:
    with pytest.raises(msgspec.DecodeError):
        from_json(b"{not json", RebuildResult)


def test_wire_types_are_immutable() -> None:
    with pytest.raises(AttributeError):
        ITEM.title = "changed"  # type: ignore[misc]
