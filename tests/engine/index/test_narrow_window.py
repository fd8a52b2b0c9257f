"""A full window leaves ``docs`` unread but for the rows a page reaches (``window_sql(narrow=True)``,
``tail.read_head``): every page, by offset or cursor, into the head and past it into the tail,
is the answer of the window read whole, with ties of score and recency, titled rows, a phrase
boost, exclusions and dropped (replaced) rows."""

from __future__ import annotations

from typing import Any

import apsw
import msgspec
import pytest
from index_helpers import NOW, NOW_MS, doc, insert

import engine.query.candidates as candidates
import engine.query.run as run
import engine.query.tail as tail
from engine.project.model import Project
from engine.query.candidates import BM25_WINDOW
from engine.query.run import run_query
from engine.types import SearchQueryArgs, SearchQueryResult

STEPS = BM25_WINDOW + 300


@pytest.fixture
def filled(conn: apsw.Connection) -> apsw.Connection:
    # Few distinct texts, so scores tie in groups of dozens; stamps repeat, so doc ids break ties.
    docs = [doc(f"terminal:s@{i}", "deploy step " + "x " * (i % 7) + ("chat" if i % 11 == 0 else ""),
                session_id="s", updated_at=NOW_MS - (i // 3) * 1000)
            for i in range(STEPS)]  # fmt: skip
    docs += [doc(f"chat:c{i}:m", "deploy step", session_id=f"c{i}", title=title,
                 updated_at=NOW_MS - i * 4000)
             for i, title in enumerate(["deploy", "deploy step notes", "a deploy", "other"] * 3)]  # fmt: skip
    docs.append(doc("chat:old:m", "deploy " * 9, session_id="old", updated_at=NOW_MS - 10**9))
    insert(conn, docs)
    return conn


def _answer(conn: apsw.Connection, project: Project, **kw: Any) -> SearchQueryResult:
    drop = kw.pop("drop", frozenset())
    return run_query(conn, SearchQueryArgs(**kw), project=project, now=NOW, replace_doc_ids=drop)


def _pages(conn: apsw.Connection, project: Project, text: str, drop: frozenset[str]) -> list[bytes]:
    out = []
    for limit, offset in ((50, 0), (7, 0), (50, 45), (7, 990), (50, 1003), (9, STEPS - 5)):
        page = _answer(conn, project, query=text, limit=limit, offset=offset, drop=drop)
        out.append(msgspec.json.encode(page))
        for _ in range(3):  # by cursor from there
            if page.next_cursor is None:
                break
            page = _answer(conn, project, query=text, limit=limit, cursor=page.next_cursor,
                           drop=drop)  # fmt: skip
            out.append(msgspec.json.encode(page))
    return out


def _read_whole(conn: apsw.Connection, parsed: Any, f: Any, *, narrow: bool) -> Any:
    return candidates.fts_candidates(conn, parsed, f)  # every window row read, as before


DROPS = {
    "none": frozenset(),
    "some": frozenset({"terminal:s@3", "terminal:s@700", "chat:c1:m", "terminal:none@1"}),
}


@pytest.mark.parametrize("drop", sorted(DROPS))
@pytest.mark.parametrize("text", ["depl", "deploy", "depl st", '"deploy step"', "deploy -chat"])
def test_pages_of_a_narrow_window_are_those_of_the_window_read_whole(
    filled: apsw.Connection, project: Project, text: str, drop: str,
    monkeypatch: pytest.MonkeyPatch,
) -> None:  # fmt: skip
    asked: list[int] = []
    read_rows = candidates.read_rows

    def counting(conn: apsw.Connection, unread: Any) -> Any:
        asked.append(len(unread))
        return read_rows(conn, unread)

    monkeypatch.setattr(tail, "read_rows", counting)
    narrow = _pages(filled, project, text, DROPS[drop])
    asked.clear()
    first = _answer(filled, project, query=text, drop=DROPS[drop])
    assert first.total > BM25_WINDOW  # the window filled; a first page read a few groups of it
    assert 0 < sum(asked) < BM25_WINDOW / 2
    monkeypatch.setattr(run, "fts_candidates", _read_whole)
    assert narrow == _pages(filled, project, text, DROPS[drop])


def test_many_dropped_ids_read_the_window_instead(
    filled: apsw.Connection, project: Project, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(run, "DROP_LOOKUPS", 1)
    drop = DROPS["some"]
    narrow = _pages(filled, project, "depl", drop)
    monkeypatch.setattr(run, "fts_candidates", _read_whole)
    assert narrow == _pages(filled, project, "depl", drop)


@pytest.mark.parametrize("text", ["depl", '"deploy step"'])
@pytest.mark.parametrize("boost", ["none", "every row", "some rows"])
def test_a_window_read_in_its_order_picks_the_rows_sorting_picks(
    filled: apsw.Connection, text: str, boost: str
) -> None:
    """``read_head(scored_in_order=True)`` walks the window's groups as they come and stops
    early: the rows it picks are those the sort picks, ties across the stop included, from the
    top or after a cursor; a phrase boost on some rows only (which reorders them) sorts."""
    plan = run.build_plan(SearchQueryArgs(query=text), now=NOW, lanes=())
    found = candidates.fts_candidates(filled, plan.parsed, run.plan_filters(plan), narrow=True)[0]
    if boost != "none":
        found = [(rowid, msgspec.structs.replace(c, phrase=boost == "every row" or rowid % 3 == 0))
                 for rowid, c in found]  # fmt: skip
    ranked = sorted(tail.sort_key(c, "body") for _, c in found if c.doc_id == candidates.UNREAD)
    for after in (None, ranked[40], ranked[500]):
        for wanted in (1, 8, 51, BM25_WINDOW + 5):
            in_order = tail.read_head(filled, found, after, wanted, scored_in_order=True)
            assert in_order == tail.read_head(filled, found, after, wanted), (after, wanted)
