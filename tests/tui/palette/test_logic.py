"""Pure palette logic: fuzzy matching, merging, dedupe, grouping, stable selection, keys, kinds."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from hypothesis import given
from hypothesis import strategies as st
from msgspec.structs import replace

from engine.types import DEFAULT_KINDS, MatchRange, SearchResultItem
from tui.logic.fuzzy import LocalItem, highlight_spans, match_local
from tui.logic.generation import Generation
from tui.logic.keys import PALETTE_KEYS, footer_hints
from tui.logic.kinds import KIND_MODES, count_line, cycle, in_force, lists_sessions, query_for
from tui.logic.merge import group_by_kind, merge, search_rows, stable_index
from tui.logic.rows import PaletteRow
from tui.logic.terms import highlight_terms, terms_pattern

NOW = datetime(2026, 6, 15, 12, tzinfo=UTC)


def hit(doc_id: str, kind: str = "chat", sid: str | None = "s1", project: str = "p", **kw: object):
    return SearchResultItem(
        doc_id=doc_id, kind=kind, title=str(kw.get("title", doc_id)),  # type: ignore[arg-type]
        snippet=str(kw.get("snippet", "a retry here")),
        match_ranges=(MatchRange(start=2, end=7),), tier="body", updated_at=0,
        deep_link=f"ade://{kind}/{sid or doc_id}", session_id=sid, project_id=project,
        project_name=f"name-{project}",
    )  # fmt: skip


@pytest.mark.parametrize(
    ("query", "text", "spans"),
    [
        ("log", "Fix login", ((4, 7),)),
        ("LOG", "Fix login", ((4, 7),)),
        ("ixrb", "index: rebuild", ((0, 1), (4, 5), (7, 8), (9, 10))),
        ("", "anything", ()),
    ],
)
def test_highlight_spans(query: str, text: str, spans: tuple[tuple[int, int], ...]) -> None:
    assert highlight_spans(query, text) == spans


@given(st.text(min_size=1, max_size=8), st.text(max_size=40))
def test_highlight_spans_stay_inside_text(query: str, text: str) -> None:
    for start, end in highlight_spans(query, text):
        assert 0 <= start < end <= len(text)


ITEMS = [
    LocalItem("cmd:index: rebuild", "command", "index: rebuild", action="rebuild_index"),
    LocalItem("cmd:app: quit", "command", "app: quit", action="quit"),
    LocalItem("lane:primary", "lane", "main"),
    LocalItem("p|session:old", "chat", "Old login chat", updated_at_ms=1, session_id="old"),
    LocalItem("p|session:new", "chat", "New login chat", updated_at_ms=2, session_id="new"),
]


def test_empty_query_shows_recent_chats_then_lanes_then_commands() -> None:
    keys = [row.key for row in match_local("", ITEMS)]
    assert keys == ["p|session:new", "p|session:old", "lane:primary", "cmd:index: rebuild",
                    "cmd:app: quit"]  # fmt: skip


def test_local_match_ranks_and_highlights() -> None:
    rows = match_local("login", ITEMS)
    assert [row.key for row in rows] == ["p|session:new", "p|session:old"]
    assert rows[0].title_spans == ((4, 9),)
    assert match_local("rebuild", ITEMS)[0].action == "rebuild_index"


def test_local_matching_over_10k_items_finds_the_right_ones() -> None:
    # Its speed (under one 60 Hz frame) is measured by benchmarks/bench_palette.py, not here.
    many = [LocalItem(f"k{i}", "chat", f"session {i} about topic {i % 97}") for i in range(10_000)]
    rows = match_local("topic 42", many)
    assert rows
    assert all("topic 42" in row.item.title for row in rows[:5] if row.item is not None)


def test_search_rows_dedupe_by_session_with_more_count() -> None:
    rows = search_rows([hit("chat:s1:a"), hit("chat:s1:b"), hit("chat:s2:a", sid="s2"),
                        hit("chat:s1:c")])  # fmt: skip
    assert [(row.session_id, row.more) for row in rows] == [("s1", 2), ("s2", 0)]
    assert rows[0].item is not None
    assert rows[0].item.doc_id == "chat:s1:a"


def test_session_shown_as_local_chat_is_not_repeated() -> None:
    local = match_local("login", ITEMS)
    rows = merge(local, [hit("chat:new:m", sid="new"), hit("chat:x:m", sid="x")],
                 active_project_id="p")  # fmt: skip
    sessions = [row.session_id for row in rows if not row.local and row.kind != "header"]
    assert sessions == ["x"]


def test_non_session_kinds_are_not_deduped_and_group_in_fixed_order() -> None:
    rows = group_by_kind(search_rows([hit("pr:1", "pr", None), hit("terminal:t@0", "terminal", "t"),
                                      hit("pr:2", "pr", None), hit("chat:s:1")]))  # fmt: skip
    assert [row.kind for row in rows] == [
        "header",
        "chat",
        "header",
        "terminal",
        "header",
        "pr",
        "pr",
    ]
    assert rows[4].title.endswith("Pull requests (2)")


def test_foreign_project_marker() -> None:
    rows = search_rows([hit("chat:a:1", sid="a", project="other"), hit("chat:b:1", sid="b")],
                       active_project_id="p")  # fmt: skip
    assert [row.foreign_project for row in rows] == ["name-other", None]


def rows_of(*keys: str) -> list[PaletteRow]:
    return [
        PaletteRow(key=k, kind="header" if k.startswith("h") else "chat", title=k) for k in keys
    ]


@pytest.mark.parametrize(
    ("keys", "previous_key", "previous_index", "expected"),
    [
        (("a", "b", "c"), "b", 1, 1),  # same place
        (("x", "a", "b", "c"), "b", 1, 2),  # row moved: the cursor follows it
        (("a", "c"), "b", 1, 1),  # row gone: the cursor stays at its position
        (("h1", "a"), None, None, 1),  # never on a header
        (("h1", "h2"), "a", 0, None),  # nothing selectable
        (("a", "h", "c"), "gone", 1, 0),
    ],
)
def test_stable_index(keys, previous_key, previous_index, expected) -> None:
    assert stable_index(rows_of(*keys), previous_key, previous_index) == expected


def test_keys_table() -> None:
    actions = {b.key: b.action for b in PALETTE_KEYS}
    assert actions["enter"] == "activate"
    assert actions["tab"] == "next_kind"
    assert len({b.key for b in PALETTE_KEYS}) == len(PALETTE_KEYS)
    assert ("f1", "help") in footer_hints()


def test_kind_cycle_and_kinds() -> None:
    assert cycle(0, -1) == len(KIND_MODES) - 1
    assert cycle(len(KIND_MODES) - 1, 1) == 0
    assert KIND_MODES[0].label == "everything"  # where the palette starts: nothing behind Tab
    assert in_force("retry", 0).engine_kinds == DEFAULT_KINDS
    assert in_force("retry kind:pr", 0).engine_kinds is None  # the typed filter decides
    pr_mode = next(i for i, mode in enumerate(KIND_MODES) if mode.label == "pr")
    assert in_force("retry", pr_mode).engine_kinds == ("pr",)


def test_a_typed_kind_replaces_the_stop_for_search_local_rows_and_badge() -> None:
    chat = next(i for i, mode in enumerate(KIND_MODES) if mode.label == "chat")
    claude = next(i for i, mode in enumerate(KIND_MODES) if mode.tool == "claude")
    force = in_force("retry kind:terminal", chat)
    assert (force.label, force.kinds, force.engine_kinds) == ("terminal", ("terminal",), None)
    assert in_force("kind:pr,issue x", 0).label == "pr,linear"
    assert not in_force("x kind:file", claude).commands
    assert query_for("x kind:terminal", claude) == "x kind:terminal"  # no tool: added
    assert query_for("x", claude) == "x tool:claude"
    terminal = next(i for i, mode in enumerate(KIND_MODES) if mode.label == "terminal")
    assert lists_sessions("", in_force("", terminal))
    assert lists_sessions("kind:terminal", in_force("kind:terminal", 0))
    assert not lists_sessions("kind:terminal lane:x", in_force("kind:terminal lane:x", 0))
    assert not lists_sessions("", in_force("", 0))  # everything: recent sessions, lanes, commands


def test_count_line_reads_like_fzf() -> None:
    assert count_line(12, False, 340) == "12 of 340"
    assert count_line(0, False, 1234) == "0 of 1,234"
    assert count_line(1000, True, 5000, {"commit": 40, "file": 3}) == (
        "1,000+ of 5,000 · also 40 commit · 3 file (tab)"
    )


def test_generation_drops_stale() -> None:
    generation = Generation()
    first = generation.advance()
    second = generation.advance()
    assert not generation.is_current(first)
    assert generation.is_current(second)


def test_highlight_terms_drop_filters() -> None:
    assert highlight_terms('retry kind:pr "read timeout" since:7d') == ["retry", "read timeout"]
    pattern = terms_pattern(["a.b", "c"])
    assert pattern is not None
    assert pattern.search("xA.By")
    assert not pattern.search("axb")
    assert terms_pattern([]) is None


def test_a_chat_that_matched_by_title_opens_at_its_best_matching_message() -> None:
    """The session's own (title) hit ranks first, but its row — search or local —
    links to the first message hit of that session in rank order, not to its last message."""
    session_doc = hit("chat:s1", sid="s1")  # the title doc: no anchor, no event in its link
    first = replace(hit("chat:s1:m5", sid="s1"), anchor="5", deep_link="ade://chat/s1?event=5")
    later = replace(hit("chat:s1:m7", sid="s1"), anchor="7", deep_link="ade://chat/s1?event=7")
    other = hit("chat:s2", sid="s2")  # no message hits: its link stays
    (row, row2) = search_rows([session_doc, first, later, other], active_project_id="p")
    assert (row.deep_link, row.more) == ("ade://chat/s1?event=5", 2)
    assert row2.deep_link == "ade://chat/s2"
    local = PaletteRow(key="p|session:s1", kind="chat", title="t", session_id="s1",
                       deep_link="ade://chat/s1", local=True, leads=True)  # fmt: skip
    merged = merge([local], [session_doc, first, later], active_project_id="p")
    assert merged[0].deep_link == "ade://chat/s1?event=5"
    assert merge([local], [first], active_project_id="q")[0].deep_link == "ade://chat/s1"
