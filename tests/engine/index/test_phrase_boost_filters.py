"""The phrase boost under a filter reads only the rows the answer can hold
(``phrase_boost.phrase_walk``): its budget of phrase matches (``PHRASE_BUDGET``, the real one)
is not spent on newer documents the filter leaves out, and when the budget does bound the boost,
the answer says so like the other budgets (a warning and ``resultsTruncated``), and
``--explain`` shows the boost the ranking gave."""

from __future__ import annotations

import apsw
import msgspec
import pytest
from index_helpers import NOW, NOW_MS, doc, insert

from engine.index.db import IndexDoc
from engine.project.model import Project
from engine.query.explain import explain_page
from engine.query.phrase_boost import PHRASE_BUDGET, PHRASE_NOTE
from engine.query.ranking import PHRASE_BOOST
from engine.query.run import run_query
from engine.types import SearchQueryArgs

FILLER = " ".join(f"word{i}" for i in range(40))


def _at(seconds_ago: int) -> int:
    return NOW_MS - seconds_ago * 1000


def _chats(count: int, start: int, kind: str = "chat") -> list[IndexDoc]:
    """``count`` documents holding ``socket timeout``, one a second from ``start`` seconds ago."""
    return [doc(f"{kind}:c{i}", "socket timeout here", kind=kind, session_id="c",
                updated_at=_at(start + i)) for i in range(count)]  # fmt: skip


def _terminal(name: str, body: str, seconds_ago: int) -> IndexDoc:
    return doc(f"terminal:{name}", body, session_id=name, updated_at=_at(seconds_ago))


def _ask(conn: apsw.Connection, project: Project, query: str) -> tuple[list[str], object]:
    answer = run_query(conn, SearchQueryArgs(query=query, limit=10), project=project, now=NOW)
    return [item.doc_id for item in answer.items], answer


def _around(conn: apsw.Connection, middle: list[IndexDoc]) -> None:
    """``middle`` between terminal output: the newest row holds the words apart (so a filtered
    window's row id range covers ``middle``), the old ``phrase`` row holds them as typed in a long
    text, the old ``apart`` row holds them in the other order in a short one (the best BM25)."""
    insert(conn, [
        _terminal("newest", "socket closed then timeout", 1),
        *middle,
        _terminal("phrase", f"{FILLER} the gateway saw a socket timeout once {FILLER}",
                  PHRASE_BUDGET + 100),
        _terminal("apart", "timeout socket", PHRASE_BUDGET + 200),
    ])  # fmt: skip


@pytest.fixture
def crowded(conn: apsw.Connection) -> apsw.Connection:
    """Terminal output (``_around``) around more than a budget's worth of newer chats holding
    the phrase."""
    _around(conn, _chats(PHRASE_BUDGET + 1, start=10))
    return conn


def test_a_filtered_row_holding_the_phrase_is_boosted_past_newer_rows_the_filter_leaves_out(
    crowded: apsw.Connection, project: Project
) -> None:
    order, answer = _ask(crowded, project, "socket timeout kind:terminal")
    assert order[0] == "terminal:phrase"  # the boost puts it above both rows holding them apart
    assert set(order[1:]) == {"terminal:newest", "terminal:apart"}
    assert PHRASE_NOTE.format(budget=PHRASE_BUDGET) not in answer.warnings  # type: ignore[attr-defined]


def _says_the_boost_was_bounded(answer: object) -> None:
    """The answer's warning and ``resultsTruncated``: the budget bounded the phrase boost."""
    assert PHRASE_NOTE.format(budget=PHRASE_BUDGET) in answer.warnings  # type: ignore[attr-defined]
    assert answer.results_truncated  # type: ignore[attr-defined]


def test_without_a_filter_the_budget_bounds_the_boost_and_the_answer_says_so(
    crowded: apsw.Connection, project: Project
) -> None:
    # The chats are in this answer: the walk reads the newest budget's worth of them and stops
    # before the older rows of the window (``apart``), which may hold the phrase unboosted.
    _, answer = _ask(crowded, project, "socket timeout")
    _says_the_boost_was_bounded(answer)


def test_past_the_budget_inside_the_filter_the_answer_says_so(
    conn: apsw.Connection, project: Project
) -> None:
    _around(conn, _chats(PHRASE_BUDGET + 1, start=10, kind="terminal"))
    _, answer = _ask(conn, project, "socket timeout kind:terminal")
    _says_the_boost_was_bounded(answer)


def test_the_notices_the_answer_leaves_out_do_not_spend_the_budget(
    conn: apsw.Connection, project: Project
) -> None:
    # Without a filter the answer leaves out the notices agents injected (``role = 'system'``);
    # a budget's worth of newer notices holding the phrase must not leave the older row unboosted.
    notices = [msgspec.structs.replace(d, role="system")
               for d in _chats(PHRASE_BUDGET + 1, start=10)]  # fmt: skip
    _around(conn, notices)
    order, answer = _ask(conn, project, "socket timeout")
    assert order[0] == "terminal:phrase"  # boosted above both rows holding the words apart
    assert set(order) == {"terminal:phrase", "terminal:newest", "terminal:apart"}
    assert PHRASE_NOTE.format(budget=PHRASE_BUDGET) not in answer.warnings  # type: ignore[attr-defined]


def test_explain_shows_the_boost_the_ranking_gave_past_the_budget(
    conn: apsw.Connection, project: Project
) -> None:
    # A short old row holding the phrase has the best BM25, so it is in the ranked window, but
    # the phrase query reads a budget's worth of newer chats first and stops: the ranking gave it
    # no boost (it follows every boosted chat), and --explain must say what the ranking did.
    _around(conn, [*_chats(PHRASE_BUDGET + 1, start=10),
                   _terminal("short", "socket timeout", PHRASE_BUDGET + 50)])  # fmt: skip
    args = SearchQueryArgs(query="socket timeout", limit=20, offset=990)
    answer = run_query(conn, args, project=project, now=NOW)
    order = [item.doc_id for item in answer.items]
    assert "terminal:short" in order
    assert order[0].startswith("chat:")  # the boosted chats come first
    why = {e.doc_id: e for e in explain_page(conn, args.query, answer.items, now=NOW)}
    short, chat = why["terminal:short"], why[order[0]]
    assert (short.phrase, short.phrase_boost) == (False, 0.0)
    assert (chat.phrase, chat.phrase_boost) == (True, PHRASE_BOOST)
    assert chat.sort_key < short.sort_key  # the order the page shows
