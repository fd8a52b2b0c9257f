"""The query path: ranking contract, paging, cursors, filters, delegates, identifier matching."""

from __future__ import annotations

import base64
import json
from collections.abc import Iterator
from pathlib import Path

import apsw
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from index_helpers import NOW, NOW_MS, doc, insert

from engine.errors import CursorError, UsageError
from engine.index.db import IndexDoc, connect, open_index
from engine.project.model import Lane, Project
from engine.query import candidates
from engine.query.candidates import BM25_WINDOW, TOTAL_CAP
from engine.query.ranking import Candidate, CandidateExtra
from engine.query.run import run_query
from engine.types import SearchQueryArgs, SearchQueryResult


def q(conn: apsw.Connection, project: Project, text: str, **kw: object) -> SearchQueryResult:
    return run_query(conn, SearchQueryArgs(query=text, **kw), project=project, now=NOW)  # type: ignore[arg-type]


def ids(result: SearchQueryResult) -> list[str]:
    return [i.doc_id for i in result.items]


def walk(conn: apsw.Connection, project: Project, text: str, limit: int) -> list[str]:
    out, cursor = [], None
    while True:
        page = q(conn, project, text, limit=limit, cursor=cursor)
        out += ids(page)
        cursor = page.next_cursor
        if cursor is None:
            return out


CORPUS = [
    doc("pr:1", "retry the payment gateway", title="#1 Retry logic", rank_title="Retry logic", updated_at=NOW_MS - 5),
    doc("pr:2", "nothing here", title="#2 retry", rank_title="retry", updated_at=NOW_MS - 9),
    doc("pr:3", "about retries", title="#3 Add retry backoff", rank_title="Add retry backoff", updated_at=NOW_MS - 1),
    doc("chat:s1:m1", "we should retry with backoff", session_id="s1", lane_id="primary", anchor="4", updated_at=NOW_MS - 3),
    doc("chat:s1:m2", "retry retry retry retry", session_id="s1", lane_id="primary", anchor="5", updated_at=NOW_MS - 2),
    doc("terminal:t1@4096", "RetryError: gave up after 3 attempts", session_id="t1", lane_id="feat", anchor="4096", updated_at=NOW_MS - 4),
    doc("commit:abc1234def", "Retry failed uploads\n\nauthor dana", title="Retry failed uploads", updated_at=NOW_MS - 30 * 86_400_000, anchor="abc1234def"),
    doc("branch:feature/retry", "tip subject", title="feature/retry", updated_at=NOW_MS - 7, anchor="feature/retry"),
]  # fmt: skip
LANES = [
    Lane("primary", "main", Path("/p"), "main", True),
    Lane("feat", "Feature X", Path("/p-feat"), "feat", False),
]


@pytest.fixture
def filled(conn: apsw.Connection) -> apsw.Connection:
    insert(conn, CORPUS)
    return conn


def test_tiers_then_bm25_then_recency(filled: apsw.Connection, project: Project) -> None:
    result = q(filled, project, "retry")
    tiers = [(i.doc_id, i.tier) for i in result.items]
    assert tiers[:5] == [
        ("pr:2", "exact_title"),
        ("pr:1", "title_prefix"),
        ("commit:abc1234def", "title_prefix"),
        ("pr:3", "title_substring"),
        ("branch:feature/retry", "title_substring"),
    ]
    assert {t for _, t in tiers[5:]} == {"body"}
    assert result.total == len(result.items) == 8
    body = ids(result)[5:]
    # The message saying "retry" four times outranks one saying it once; RetryError (split part only)
    # comes after every exact-token hit.
    assert body.index("chat:s1:m2") < body.index("chat:s1:m1")
    assert body[-1] == "terminal:t1@4096"


def test_items_carry_links_lanes_and_project(filled: apsw.Connection, project: Project) -> None:
    result = run_query(
        filled, SearchQueryArgs(query="backoff"), project=project, now=NOW, lanes=LANES
    )
    item = next(i for i in result.items if i.doc_id == "chat:s1:m1")
    assert item.deep_link == "ade://chat/s1?event=4&project=proj1"
    assert item.lane_name == "main"
    assert (item.project_id, item.project_name, item.project_root) == (
        "proj1",
        "proj",
        str(project.root),
    )
    assert item.snippet == "we should retry with backoff"
    assert [(r.start, r.end) for r in item.match_ranges] == [(21, 28)]
    term = q(filled, project, "attempts").items[0]
    assert term.deep_link == "ade://terminal/t1?offset=4096&project=proj1"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("kind:pr retry", {"pr:1", "pr:2", "pr:3"}),
        ("kind:commit", {"commit:abc1234def"}),
        ("session:s1", {"chat:s1:m1", "chat:s1:m2"}),
        ("lane:feat", {"terminal:t1@4096"}),
        ("since:7d kind:commit", set()),
        ("since:2026-04-01 kind:commit", {"commit:abc1234def"}),
        ('"retry with backoff"', {"chat:s1:m1"}),
        ("retry -backoff kind:chat", {"chat:s1:m2"}),
        ("backoff|attempts", {"chat:s1:m1", "pr:3", "terminal:t1@4096"}),
        ("!!!", set()),
    ],
)
def test_filters_and_forms(
    filled: apsw.Connection, project: Project, text: str, expected: set[str]
) -> None:
    result = run_query(filled, SearchQueryArgs(query=text), project=project, now=NOW, lanes=LANES)
    assert set(ids(result)) == expected


def test_lane_argument_resolves_names(filled: apsw.Connection, project: Project) -> None:
    args = SearchQueryArgs(query="retry", lane_id="Feature X")
    result = run_query(filled, args, project=project, now=NOW, lanes=LANES)
    assert ids(result) == ["terminal:t1@4096"]


@pytest.mark.parametrize(
    ("args", "error", "message"),
    [
        (SearchQueryArgs(query="x", limit=0), UsageError, "between 1 and 500"),
        (SearchQueryArgs(query="x", limit=501), UsageError, "between 1 and 500"),
        (SearchQueryArgs(query="lane:nope"), UsageError, "lanes: primary, feat"),
        (SearchQueryArgs(query="x", lane_id="nope"), UsageError, "unknown lane"),
        (SearchQueryArgs(query="lane:Feature X"), UsageError, "unknown lane 'Feature'"),
        (SearchQueryArgs(query="x", kinds=("nope",)), UsageError, "valid kinds"),  # type: ignore[arg-type]
        (SearchQueryArgs(query="x", cursor="garbage!!"), CursorError, "invalid cursor"),
        (SearchQueryArgs(query="x", cursor=""), None, ""),
    ],
)
def test_usage_errors(
    filled: apsw.Connection,
    project: Project,
    args: SearchQueryArgs,
    error: type[Exception] | None,
    message: str,
) -> None:
    if error is None:
        run_query(filled, args, project=project, now=NOW, lanes=LANES)
        return
    with pytest.raises(error, match=message):
        run_query(filled, args, project=project, now=NOW, lanes=LANES)


def test_cursor_bound_to_query_and_tamper_evident(
    filled: apsw.Connection, project: Project
) -> None:
    first = q(filled, project, "retry", limit=2)
    assert first.next_cursor
    with pytest.raises(CursorError, match="different query"):
        q(filled, project, "backoff", limit=2, cursor=first.next_cursor)
    with pytest.raises(CursorError, match="different query"):
        q(filled, project, "retry", limit=2, cursor=first.next_cursor, kinds=("pr",))
    raw = bytearray(
        base64.urlsafe_b64decode(first.next_cursor + "=" * (-len(first.next_cursor) % 4))
    )
    raw[12] ^= 1
    tampered = base64.urlsafe_b64encode(bytes(raw)).decode().rstrip("=")
    with pytest.raises(CursorError, match="damaged"):
        q(filled, project, "retry", limit=2, cursor=tampered)
    # A different page size keeps the same list: the cursor is a position, not a page number.
    second = q(filled, project, "retry", limit=3, cursor=first.next_cursor)
    assert ids(second) == ids(q(filled, project, "retry"))[2:5]


def test_a_cursor_of_the_last_version_is_refused_clearly(
    filled: apsw.Connection, project: Project
) -> None:
    """Version 2 cursors held a one-word query's BM25 with its IDF factor; resumed against
    scores without it they would open a page at a position on another scale."""
    from engine.query import cursor

    first = q(filled, project, "retry", limit=2)
    key = cursor.decode_cursor(first.next_cursor or "", first_fingerprint())
    data = {"v": 2, "f": first_fingerprint(), "k": list(key)}
    payload = json.dumps(data).encode()
    old = base64.urlsafe_b64encode(payload + cursor._mac(payload)).decode().rstrip("=")
    with pytest.raises(CursorError, match="another version of ade"):
        q(filled, project, "retry", limit=2, cursor=old)


def first_fingerprint() -> str:
    from engine.query.plan import build_plan

    return build_plan(SearchQueryArgs(query="retry", limit=2), now=NOW, lanes=LANES).fingerprint


def test_match_all_is_recency_then_doc_id(filled: apsw.Connection, project: Project) -> None:
    result = q(filled, project, "")
    stamps = [(-i.updated_at, i.doc_id) for i in result.items]
    assert stamps == sorted(stamps)
    assert result.total == len(CORPUS)
    assert walk(filled, project, "", 3) == ids(result)


def test_extra_candidates_merge_and_replace(filled: apsw.Connection, project: Project) -> None:
    live = Candidate(doc_id="chat:s1:m1", kind="chat", title="", rank_title="",
                     snippet_marked="fresh \x01retry\x02 text", updated_at=NOW_MS, session_id="s1",
                     bm25=-100.0)  # fmt: skip
    lane = Candidate(doc_id="lane:retry", kind="lane", title="retry", rank_title="retry",
                     snippet_marked="", updated_at=0, extra=CandidateExtra(deep_link="ade://lane/retry"))  # fmt: skip
    result = run_query(filled, SearchQueryArgs(query="retry"), project=project, now=NOW,
                       extra_candidates=[live, lane], replace_doc_ids=frozenset({"chat:s1:m2"}))  # fmt: skip
    got = ids(result)
    assert got.count("chat:s1:m1") == 1
    assert "chat:s1:m2" not in got
    assert got[:2] == ["pr:2", "lane:retry"]  # both exact title; newer first
    item = next(i for i in result.items if i.doc_id == "chat:s1:m1")
    assert item.snippet == "fresh retry text"
    assert result.total == 8  # 8 indexed - 1 replaced - 1 re-supplied + 2 extras
    assert result.items[1].deep_link == "ade://lane/retry"


def test_identifier_aware_matching(conn: apsw.Connection, project: Project) -> None:
    insert(conn, [
        doc("chat:a:1", "raise TypeError('x')", session_id="a"),
        doc("chat:a:2", "urllib3 ReadTimeoutError in fetch", session_id="a"),
        doc("chat:a:3", "set connectTimeout to 5", session_id="a"),
        doc("chat:a:4", "the connect_timeout option", session_id="a"),
        doc("chat:a:5", "see src/foo.py:42 for details", session_id="a"),
        doc("chat:a:6", "fixed in a1b2c3d4e5f60718", session_id="a"),
        doc("chat:a:7", "tracked as ABC-123 in linear", session_id="a"),
        doc("chat:a:8", "a plain error happened", session_id="a"),
        doc("chat:a:9", "timeout exceeded", session_id="a"),
        doc("chat:a:10", "see foo.py:4200 and ABC-1234", session_id="a"),
    ])  # fmt: skip
    cases = {
        "error": ["chat:a:8", "chat:a:1", "chat:a:2"],
        "timeout": ["chat:a:4", "chat:a:9", "chat:a:2", "chat:a:3"],
        "foo.py:42": ["chat:a:10", "chat:a:5"],
        '"foo.py:42"': ["chat:a:5"],
        "a1b2c3d": ["chat:a:6"],
        '"ABC-123"': ["chat:a:7"],
        "connectTimeout": ["chat:a:3"],
    }
    for text, expected in cases.items():
        got = ids(q(conn, project, text))
        assert sorted(got) == sorted(expected), text
    # Exact-token hits rank above split-token hits.
    got = ids(q(conn, project, "error"))
    assert got[0] == "chat:a:8"
    got = ids(q(conn, project, "timeout"))
    assert set(got[:2]) == {"chat:a:4", "chat:a:9"}
    snippet = next(i for i in q(conn, project, "error").items if i.doc_id == "chat:a:1")
    assert snippet.snippet[snippet.match_ranges[0].start : snippet.match_ranges[0].end] == "Error"


def test_first_keystroke_is_exact_token_plus_title_prefix(
    conn: apsw.Connection, project: Project
) -> None:
    insert(conn, [
        doc("pr:1", "body", title="Fix login", rank_title="Fix login"),
        doc("chat:s:1", "found f in the output", session_id="s"),
        doc("chat:s:2", "fix this first", session_id="s"),
    ])  # fmt: skip
    assert set(ids(q(conn, project, "f"))) == {"pr:1", "chat:s:1"}
    assert set(ids(q(conn, project, "fi"))) == {"pr:1", "chat:s:2"}


def _docs_strategy() -> st.SearchStrategy[list[IndexDoc]]:
    words = st.sampled_from(["alpha", "beta", "gamma", "alphabet", "betamax", "delta"])
    one = st.builds(
        lambda n, body, title, t: doc(f"pr:{n}", " ".join(body), title=" ".join(title), updated_at=t),
        st.integers(0, 10**6), st.lists(words, max_size=6), st.lists(words, max_size=2),
        st.integers(NOW_MS - 5, NOW_MS),
    )  # fmt: skip
    return st.lists(one, min_size=1, max_size=25, unique_by=lambda d: d.doc_id)


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(docs=_docs_strategy(), seed=st.randoms(use_true_random=False), limit=st.integers(1, 7),
       text=st.sampled_from(["alpha", "al", "beta gamma", "alpha|delta", "", "gamma -beta"]))  # fmt: skip
def test_order_is_independent_of_insertion_and_paging_is_exact(
    tmp_path_factory: pytest.TempPathFactory,
    docs: list[IndexDoc],
    seed: object,
    limit: int,
    text: str,
) -> None:
    project = Project(root=Path("/p"), id="p", name="p", is_git=False)
    results = []
    for order in (docs, list(reversed(docs)), seed.sample(docs, len(docs))):  # type: ignore[attr-defined]
        path = tmp_path_factory.mktemp("idx") / "search-index.db"
        open_index(path)
        c = connect(path)
        insert(c, order)
        full = q(c, project, text, limit=500)
        results.append(ids(full))
        paged = walk(c, project, text, limit)
        assert paged == ids(full)
        assert len(set(paged)) == len(paged)
        c.close()
    assert results[0] == results[1] == results[2]


@pytest.fixture(scope="module")
def big(tmp_path_factory: pytest.TempPathFactory) -> Iterator[apsw.Connection]:
    path = tmp_path_factory.mktemp("big") / "search-index.db"
    open_index(path)
    c = connect(path)
    docs = [doc(f"terminal:s@{i}", f"deploy failed again {i}", session_id="s", updated_at=NOW_MS - i)
            for i in range(10_000)]  # fmt: skip
    docs.append(doc("pr:77", "unrelated words", title="#77 Deploy", rank_title="Deploy",
                    updated_at=NOW_MS - 10**9))  # fmt: skip
    docs.append(doc("pr:78", "old deploy notes", title="#78 notes", rank_title="notes",
                    updated_at=NOW_MS - 2 * 10**9))  # fmt: skip
    insert(c, docs)
    yield c
    c.close()


def test_title_match_surfaces_over_10k_body_matches(big: apsw.Connection, project: Project) -> None:
    result = q(big, project, "deploy")
    assert result.items[0].doc_id == "pr:77"
    assert result.items[0].tier == "exact_title"
    assert not result.results_truncated  # every match is reachable by paging, counted exactly
    assert result.total == 10_002  # every match counted: fewer than SCORE_BUDGET
    assert result.warnings == ()  # every match was scored
    assert len(ids(result)) == 50


def test_window_holds_the_best_scored_matches(big: apsw.Connection, project: Project) -> None:
    got = walk(big, project, "deploy", 500)
    assert got[0] == "pr:77"  # the title match scored into the window itself
    assert "terminal:s@0" in got[:BM25_WINDOW]  # equal scores: the newest first
    assert len(got) == len(set(got)) == 10_002  # past the window, the rest follow: every match


@pytest.fixture(scope="module")
def old_strong(tmp_path_factory: pytest.TempPathFactory) -> Iterator[apsw.Connection]:
    """1,500 weak recent matches of ``deploy``, 2,000 documents without it, and one old
    document that is nothing but the term: the strongest match, 1,500 matches behind."""
    path = tmp_path_factory.mktemp("old") / "search-index.db"
    open_index(path)
    c = connect(path)
    filler = " ".join(f"word{n}" for n in range(30))
    docs = [doc(f"terminal:s@{i}", f"deploy {filler} {i}", session_id="s", updated_at=NOW_MS - i)
            for i in range(1_500)]  # fmt: skip
    docs += [doc(f"terminal:o@{i}", f"other text {i}", session_id="o", updated_at=NOW_MS - i)
             for i in range(2_000)]  # fmt: skip
    docs.append(doc("chat:old:1", "deploy deploy", session_id="old", updated_at=NOW_MS - 10**10))
    insert(c, docs)
    yield c
    c.close()


def test_an_old_strong_match_of_a_common_term_ranks_first(
    old_strong: apsw.Connection, project: Project
) -> None:
    result = q(old_strong, project, "deploy")
    assert ids(result)[0] == "chat:old:1"  # the newest-1,000 window never held it
    assert result.total == 1_501
    assert not result.results_truncated  # the best 1,000 ranked, then the rest: all 1,501
    assert result.warnings == ()  # every match was scored


def test_a_bounded_ranking_says_so(
    old_strong: apsw.Connection, project: Project, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(candidates, "SCORE_BUDGET", 1_200)
    result = q(old_strong, project, "deploy")
    assert "chat:old:1" not in ids(result)  # beyond the newest 1,200: not scored
    assert result.total == 1_201  # counted to the budget: a floor
    assert result.warnings == (candidates.BUDGET_NOTE.format(budget=1_200),)


def test_filter_only_on_big_index_pages_exactly(big: apsw.Connection, project: Project) -> None:
    first = q(big, project, "kind:terminal", limit=500)
    assert first.total == TOTAL_CAP
    assert first.results_truncated
    second = q(big, project, "kind:terminal", limit=500, cursor=first.next_cursor)
    assert ids(first)[-1] == "terminal:s@499"
    assert ids(second)[0] == "terminal:s@500"


def test_a_phrase_is_scored_within_its_own_budget(
    old_strong: apsw.Connection, project: Project, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert q(old_strong, project, '"deploy word0"').warnings == ()  # 1,500 < 5,000
    monkeypatch.setattr(candidates, "PHRASE_SCORE_BUDGET", 1_200)
    result = q(old_strong, project, '"deploy word0"')
    assert result.total == 1_201
    assert result.warnings == (candidates.BUDGET_NOTE.format(budget=1_200),)
    assert q(old_strong, project, "deploy").warnings == ()  # a single word: the wider budget
