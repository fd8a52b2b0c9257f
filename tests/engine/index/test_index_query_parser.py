"""Table tests for every query form and error (DESIGN §5, RELIABILITY 15–18), and the never-raises
property of parser + builder + MATCH."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

import apsw
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from index_helpers import NOW

from engine.errors import UsageError
from engine.index.schema import SCHEMA_SQL
from engine.query.parser import AnyOf, Term, build_match, parse_query


def parse(text: str):
    return parse_query(text, now=NOW)


@pytest.mark.parametrize(
    ("text", "match"),
    [
        ("foo bar", '"foo"* AND "bar"*'),
        ('"hello world"', '"hello world"'),
        ("fix -wip", '("fix"*) NOT ("wip"*)'),
        ('fix -"work in progress"', '("fix"*) NOT ("work in progress")'),
        ("ab|cd ef", '("ab"* OR "cd"*) AND "ef"*'),
        ("AND OR NOT NEAR(", '"AND"* AND "OR"* AND "NOT"* AND "NEAR("*'),
        ('say "he""llo"', '"say"* AND "he" AND "llo"'),
        ("foo-bar a:b http://x", '"foo-bar"* AND "a:b" AND "http://x"'),
        ("c++ don't (x) y", '"c++" AND "don\'t" AND "(x)" AND "y"'),
        ('"hello', '"hello"'),
        ("TODO: C:\\path foo:bar", '"TODO:"* AND "C:\\path"* AND "foo:bar"*'),
        ("x", '"x"'),
        ('a"b', '"a""b"'),
        ("foo.py:42", '"foo.py:42"*'),
    ],
)
def test_match_strings(text: str, match: str) -> None:
    assert build_match(parse(text)) == match


def test_title_only_scopes_positive_terms_but_not_exclusions() -> None:
    parsed = parse("login -wip")
    assert build_match(parsed, title_only=True) == '({rank_title} : ("login"*)) NOT ("wip"*)'
    assert build_match(parse("login"), title_only=True) == '{rank_title} : ("login"*)'


def test_tree_shape() -> None:
    parsed = parse('ab|cd "x y" -z')
    assert parsed.terms == (
        AnyOf((Term("ab", True), Term("cd", True))),
        Term("x y", prefix=False, phrase=True),
    )
    assert parsed.excluded == (Term("z", prefix=False),)


@pytest.mark.parametrize(
    ("text", "kinds"),
    [
        ("kind:pr", {"pr"}),
        ("kind:issue", {"linear"}),
        ("KIND:Chat", {"chat"}),
        ("kind:pr,commit", {"pr", "commit"}),
        ("kind:pr kind:branch", {"pr", "branch"}),
    ],
)
def test_kind_filter(text: str, kinds: set[str]) -> None:
    parsed = parse(text)
    assert parsed.kinds == frozenset(kinds)
    assert parsed.match_all
    assert build_match(parsed) is None


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("30m", NOW - timedelta(minutes=30)),
        ("24h", NOW - timedelta(hours=24)),
        ("7d", NOW - timedelta(days=7)),
        ("2w", NOW - timedelta(weeks=2)),
        ("2026-05-01", datetime(2026, 5, 1, tzinfo=UTC)),
        ("2026-05-01T09:30+02:00", datetime(2026, 5, 1, 7, 30, tzinfo=UTC)),
        ("2026-05-01T09:30", datetime(2026, 5, 1, 9, 30, tzinfo=UTC)),
    ],
)
def test_since(value: str, expected: datetime) -> None:
    assert parse(f"since:{value}").since_ms == int(expected.timestamp() * 1000)


def test_since_date_is_midnight_in_the_clock_zone() -> None:
    tz = timezone(timedelta(hours=9))
    parsed = parse_query("since:2026-05-01", now=NOW.astimezone(tz))
    assert parsed.since_ms == int(datetime(2026, 5, 1, tzinfo=tz).timestamp() * 1000)


def test_lane_and_session_filters() -> None:
    parsed = parse("lane:feature-x session:abc.1 retry")
    assert parsed.lanes == ("feature-x",)
    assert parsed.sessions == ("abc.1",)
    assert build_match(parsed) == '"retry"*'


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            "kind:nope",
            "valid kinds: chat, terminal, pr, commit, branch, lane, file, artifact, linear, issue",
        ),
        ("since:7x", "use 30m, 24h, 7d, 2w"),
        ("since:2026-13-40", "use 30m, 24h, 7d, 2w"),
        ("since:", "use 30m"),
        ("since:9999999w", "use 30m"),
        ("lane:", "lane: needs a lane id or name"),
        ("session:../x", "session ids are"),
        ("-wip", "add at least one term"),
        ("x" * 1001, "the limit is 1000"),
    ],
)
def test_usage_errors_name_what_is_valid(text: str, message: str) -> None:
    with pytest.raises(UsageError) as info:
        parse(text)
    assert message in str(info.value)


def test_controls_are_stripped() -> None:
    parsed = parse("fo\x00o\x07 b\x1bar\u200b")
    assert build_match(parsed) == '"fo"* AND "o" AND "b" AND "ar"*'


@pytest.mark.parametrize("text", ["!!!", "🙂", "*", "-- ^^", "🙂 !!! ***"])
def test_punctuation_or_emoji_only_is_no_results_not_match_all(text: str) -> None:
    parsed = parse(text)
    assert parsed.match_none
    assert not parsed.match_all
    assert build_match(parsed) is None
    assert parsed.warnings


def test_dropped_terms_are_ignored_beside_real_ones() -> None:
    parsed = parse("retry 🙂")
    assert build_match(parsed) == '"retry"*'
    assert not parsed.match_none


def test_empty_query_is_match_all() -> None:
    assert parse("").match_all
    assert parse("   ").match_all


def test_one_character_policy() -> None:
    parsed = parse("f")
    assert build_match(parsed) == '"f"'
    assert parsed.title_prefix_scan == "f"
    assert parse("fi").title_prefix_scan is None
    assert parse("f -x").title_prefix_scan is None
    assert build_match(parse("fix a")) == '"fix"* AND "a"'


def test_title_text_is_normalized_positive_text() -> None:
    assert parse("  Fix   LOGIN  kind:pr -wip").title_text == "fix login"
    assert parse("ｆｉｘ").title_text == "fix"


def test_now_must_be_aware() -> None:
    with pytest.raises(ValueError, match="aware"):
        parse_query("since:7d", now=datetime(2026, 1, 1))  # noqa: DTZ001


_db = apsw.Connection(":memory:")
_db.execute(SCHEMA_SQL)
_db.execute(
    "INSERT INTO docs_fts(rowid, rank_title, body, parts) VALUES (1, 'fix login', 'hello world', '')"
)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.text(max_size=60))
def test_any_text_through_parser_builder_and_match_never_raises(text: str) -> None:
    try:
        parsed = parse_query(text, now=NOW)
    except UsageError:
        return
    for title_only in (False, True):
        match = build_match(parsed, title_only=title_only)
        if match is not None:
            _db.execute("SELECT rowid FROM docs_fts WHERE docs_fts MATCH ?", (match,)).fetchall()


@settings(max_examples=200, deadline=None)
@given(
    st.lists(
        st.sampled_from(
            ['"', "-", "|", ":", "*", "(", ")", "^", "a", "b", " ", "kind", "AND", "NEAR"]
        ),
        max_size=20,
    )
)
def test_operator_soup_never_raises(parts: list[str]) -> None:
    test_any_text_through_parser_builder_and_match_never_raises.hypothesis.inner_test(
        "".join(parts)
    )  # type: ignore[attr-defined]
