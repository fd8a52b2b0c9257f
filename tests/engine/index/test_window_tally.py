"""A query of several tokens, or a 2-3 character prefix read from ``docs_fts``, takes its total
from the window statement's own tally (``window_sql(counted=True)``, the start-up budget) instead
of counting its matches again: the answer is the one the separate count gives, below, at and past
the scoring budget, with filters and exclusions, on both FTS tables."""

from __future__ import annotations

import apsw
import msgspec
import pytest
from index_helpers import NOW, NOW_MS, doc, insert

import engine.query.candidates as candidates
from engine.index.sql import FTS_TABLE, RECENT_TABLE
from engine.project.model import Project
from engine.query.candidates import BM25_WINDOW, BUDGET_NOTE, tallies_in_window
from engine.query.plan import build_plan
from engine.query.run import run_query
from engine.types import SearchQueryArgs, SearchQueryResult

STEPS = BM25_WINDOW + 234
"""Terminal documents saying ``deploy step N``: enough to fill the window."""

CHATS = 40
"""Chat documents saying ``deploy chat``: they match ``depl`` but not ``step``."""


@pytest.fixture
def filled(conn: apsw.Connection) -> apsw.Connection:
    docs = [doc(f"terminal:s@{i}", f"deploy step {i}", session_id="s", updated_at=NOW_MS - i * 7)
            for i in range(STEPS)]  # fmt: skip
    docs += [doc(f"chat:c:{i}", "deploy chat", session_id="c", updated_at=NOW_MS - i * 5)
             for i in range(CHATS)]  # fmt: skip
    insert(conn, docs)
    return conn


def _answer(conn: apsw.Connection, project: Project, text: str) -> SearchQueryResult:
    return run_query(conn, SearchQueryArgs(query=text), project=project, now=NOW)


def _plan_tallies(text: str, table: str = FTS_TABLE) -> bool:
    parsed = build_plan(SearchQueryArgs(query=text), now=NOW, lanes=()).parsed
    return tallies_in_window(parsed, table)


def _never_tally(*_args: object) -> bool:
    return False


QUERIES = {
    "depl step": STEPS,  # two prefixes, on docs_fts
    '"deploy step"': STEPS,  # a phrase of two words
    "depl step kind:terminal": STEPS,  # a filter joins docs
    "depl -step": CHATS,  # an exclusion is a second token (window not filled)
    "deploy -chat": STEPS,
    "de st": STEPS,  # two 2-character prefixes
    "de": STEPS + CHATS,  # one 2-character prefix: no prefix index on docs_fts to count from
    "dep kind:terminal": STEPS,
    "de -chat": STEPS,
}


@pytest.mark.parametrize("text", sorted(QUERIES))
def test_the_total_of_a_several_token_query_is_its_exact_count(
    filled: apsw.Connection, project: Project, text: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert _plan_tallies(text)
    tallied = _answer(filled, project, text)
    assert tallied.total == QUERIES[text]
    assert not tallied.results_truncated  # exact: paging reaches every match
    monkeypatch.setattr(candidates, "tallies_in_window", _never_tally)
    counted = _answer(filled, project, text)  # the separate count of before: same answer
    assert msgspec.json.encode(tallied) == msgspec.json.encode(counted)


@pytest.mark.parametrize(
    ("budget", "total", "said"),
    [
        (STEPS + 50, STEPS, False),  # fewer matches than the budget: all scored and counted
        (STEPS, STEPS, False),  # exactly the budget: nothing older is left
        (STEPS - 1, STEPS, True),  # one past it: the newest ``budget`` ranked, total budget + 1
        (BM25_WINDOW + 10, BM25_WINDOW + 11, True),
    ],
)
@pytest.mark.parametrize("text", ["depl step", '"deploy step"', "dep kind:terminal"])
def test_at_and_past_the_scoring_budget_the_total_is_bounded_as_before(
    filled: apsw.Connection,
    project: Project,
    monkeypatch: pytest.MonkeyPatch,
    text: str,
    budget: int,
    total: int,
    said: bool,
) -> None:
    monkeypatch.setattr(candidates, "SCORE_BUDGET", budget)
    monkeypatch.setattr(candidates, "PHRASE_SCORE_BUDGET", budget)
    tallied = _answer(filled, project, text)
    assert tallied.total == total
    assert (BUDGET_NOTE.format(budget=budget) in tallied.warnings) == said
    monkeypatch.setattr(candidates, "tallies_in_window", _never_tally)
    assert msgspec.json.encode(_answer(filled, project, text)) == msgspec.json.encode(tallied)


@pytest.mark.parametrize("text", ["deploy", "depl", "step kind:terminal"])
def test_a_one_token_query_still_counts_with_its_own_statement(text: str) -> None:
    # One doclist is cheaper to count again than its up to 25k scored rows to tally.
    assert not _plan_tallies(text)


@pytest.mark.parametrize("text", ["de", "dep", "dep kind:terminal"])
def test_a_short_prefix_counts_again_only_where_a_prefix_index_holds_it(text: str) -> None:
    assert _plan_tallies(text, FTS_TABLE)  # counting would merge every word's doclist again
    assert not _plan_tallies(text, RECENT_TABLE)  # one doclist of the prefix index
