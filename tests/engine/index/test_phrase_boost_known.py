"""A query that is its own phrase (``"exit code"``) marks every indexed row as holding it without
running the phrase query (``phrase_boost.boosts_every_row``), and only when that query would have
found every row: the answer is the one the phrase query gives."""

from __future__ import annotations

import apsw
import msgspec
import pytest
from index_helpers import NOW, NOW_MS, doc, insert

import engine.query.phrase_boost as phrase_boost
from engine.project.model import Project
from engine.query.phrase_boost import boosts_every_row
from engine.query.plan import build_plan
from engine.query.run import run_query
from engine.types import SearchQueryArgs

ROWS = 60
"""Chat messages holding ``exit code``; the older, the shorter (the better their BM25)."""

NOTICES = 6
"""Notices agents injected (``role = 'system'``) holding the phrase, among the messages."""


@pytest.fixture
def phrased(conn: apsw.Connection) -> apsw.Connection:
    docs = [doc(f"chat:s:{i}", "exit code " + "filler " * i, session_id="s",
                updated_at=NOW_MS - (ROWS - i) * 1000) for i in range(ROWS)]  # fmt: skip
    notices = [doc(f"chat:n:{i}", "exit code notice", session_id="n",
                   updated_at=NOW_MS - (ROWS - 10 * i) * 1000) for i in range(NOTICES)]  # fmt: skip
    insert(conn, [*docs, *(msgspec.structs.replace(n, role="system") for n in notices)])
    return conn


def _known(text: str, scored: int = ROWS) -> bool:
    plan = build_plan(SearchQueryArgs(query=text), now=NOW, lanes=())
    return boosts_every_row(plan.parsed, scored)


def _answer(conn: apsw.Connection, project: Project, text: str = '"exit code"') -> bytes:
    args = SearchQueryArgs(query=text, limit=ROWS)
    return msgspec.json.encode(run_query(conn, args, project=project, now=NOW))


def test_a_query_that_is_its_phrase_needs_no_phrase_query(
    phrased: apsw.Connection, project: Project, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert _known('"exit code"')
    known = _answer(phrased, project)
    monkeypatch.setattr(phrase_boost, "boosts_every_row", lambda *_args: False)
    assert _answer(phrased, project) == known  # the phrase query marks the same rows


@pytest.mark.parametrize("text", ["exit code", '"exit code" -filler'])
def test_other_queries_still_ask_the_phrase_query(phrased: apsw.Connection, text: str) -> None:
    # Words apart or an excluded word: a phrase match may not be a match of the query.
    assert not _known(text)


@pytest.mark.parametrize("filters", ["kind:chat", "since:1d", "role:system"])
def test_under_a_filter_the_phrase_query_reads_the_windows_matches(
    phrased: apsw.Connection, project: Project, monkeypatch: pytest.MonkeyPatch, filters: str
) -> None:
    # The phrase query narrows as the window did (``phrase_walk``), so the query's own phrase is
    # known there too, whatever the notices (the default leaves them out of both).
    text = f'"exit code" {filters}'
    assert _known(text)
    known = _answer(phrased, project, text)
    monkeypatch.setattr(phrase_boost, "boosts_every_row", lambda *_args: False)
    assert _answer(phrased, project, text) == known


def test_past_the_phrase_budget_the_phrase_query_decides(
    phrased: apsw.Connection, project: Project, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert not _known('"exit code"', scored=phrase_boost.PHRASE_BUDGET + 1)
    # A budget one short of the window's matches no longer reaches the oldest (best-scored)
    # message, which the phrase query leaves unmarked.
    monkeypatch.setattr(phrase_boost, "PHRASE_BUDGET", ROWS - 1)
    assert not _known('"exit code"')
    answer = _answer(phrased, project)
    monkeypatch.setattr(phrase_boost, "boosts_every_row", lambda *_args: True)
    assert _answer(phrased, project) != answer  # marking every row here would change the answer
