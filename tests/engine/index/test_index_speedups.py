"""The index's speed-ups keep the contract: IDF-free BM25 orders as ``bm25()``, the title table
stays in step with ``docs``, the identifier pre-filter finds what the plain regex finds, and a
changed DDL is detected on open."""

from __future__ import annotations

import random
import re
from collections.abc import Callable
from pathlib import Path

import apsw
import msgspec
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from index_helpers import NOW, NOW_MS, doc, identifier_parts_twins, insert

from engine.index.checks import health_check
from engine.index.db import connect, delete_docs, delete_docs_by_source, open_index
from engine.index.fts_rank import scores_of_key
from engine.index.identifiers import identifiers, split_identifier
from engine.index.schema import FTS_OPTIONS, RECENT_FTS_OPTIONS, SCHEMA_SQL
from engine.index.sql import EXACT_WEIGHTS, SPLIT_WEIGHTS, role_match
from engine.project.model import Project
from engine.query.candidates import BM25_WINDOW
from engine.query.cursor import decode_cursor, query_fingerprint
from engine.query.explain import explain_item
from engine.query.plan import build_plan
from engine.query.run import resolve_kinds, run_query
from engine.types import SearchQueryArgs

WORDS = ["alpha", "beta", "gamma", "delta", "of", "the", "TypeError", "readTimeout", "x"]


def _random_docs(n: int) -> list:
    rnd = random.Random(7)
    return [
        doc(f"chat:s:{i}", " ".join(rnd.choice(WORDS) for _ in range(rnd.randint(1, 60))),
            session_id="s", updated_at=NOW_MS - i * 1000)
        for i in range(n)
    ]  # fmt: skip


def _titled_random_docs(n: int) -> list:
    """Random documents whose words also land in titles and identifier parts: every column of
    ``docs_fts`` holds hits, so both scores and their ties are exercised."""
    rnd = random.Random(11)
    return [
        doc(f"pr:{i}" if i % 5 == 0 else f"chat:s:{i}",
            " ".join(rnd.choice(WORDS) for _ in range(rnd.randint(1, 60))),
            title=" ".join(rnd.choice(WORDS) for _ in range(3)) if i % 5 == 0 else "",
            session_id="s", updated_at=NOW_MS - i * 1000)
        for i in range(n)
    ]  # fmt: skip


ONE_PHRASE_KEY = "ade_bm25_1_key(docs_fts)"  # as the ranking calls it: its weights by default

REFUSED = (ValueError, apsw.SQLError)
"""What a refused call raises: the Python twin's ValueError, the compiled one's SQL error."""


def test_one_phrase_key_orders_exactly_as_fts5_bm25(conn: apsw.Connection) -> None:
    """The key's two scores are bm25()'s over one positive constant (the phrase's IDF), and
    ``ORDER BY key DESC`` is bm25()'s ``ORDER BY exact, split`` (the window's order)."""
    insert(conn, _random_docs(400) + _titled_random_docs(200))
    split_scored = 0
    for match in ['"of the"', '"alpha"*', '"error"*', '"beta"', '"the alpha"', '"type error"']:
        bm25 = conn.execute(
            f"SELECT rowid, bm25(docs_fts, {EXACT_WEIGHTS}), bm25(docs_fts, {SPLIT_WEIGHTS})"
            " FROM docs_fts WHERE docs_fts MATCH ?", (match,)).fetchall()  # fmt: skip
        keyed = conn.execute(
            f"SELECT rowid, {ONE_PHRASE_KEY} FROM docs_fts WHERE docs_fts MATCH ?", (match,)
        ).fetchall()
        assert bm25, match
        pairs = [
            (a[k], b)
            for a, (_, key) in zip(bm25, keyed, strict=True)
            for k, b in zip((1, 2), scores_of_key(key), strict=True)
        ]
        assert all((x == 0) == (y == 0) for x, y in pairs), match
        split_scored += sum(1 for _, y in pairs[1::2] if y)
        ratios = {round(x / y, 9) for x, y in pairs if y}
        assert len(ratios) == 1, match  # one positive constant: the phrase's IDF
        by_bm25 = [r[0] for r in sorted(bm25, key=lambda r: (r[1], r[2], -r[0]))]
        in_sql = conn.execute(
            f"SELECT rowid FROM docs_fts WHERE docs_fts MATCH ? ORDER BY {ONE_PHRASE_KEY} DESC,"
            " rowid DESC", (match,)).fetchall()  # fmt: skip
        assert [r for (r,) in in_sql] == by_bm25, match
    assert split_scored  # split scores too, not only exact ones


def test_one_phrase_key_takes_the_ranking_weights_by_default(conn: apsw.Connection) -> None:
    insert(conn, _titled_random_docs(100))
    explicit = f"ade_bm25_1_key(docs_fts, {EXACT_WEIGHTS}, {SPLIT_WEIGHTS})"
    sql = "SELECT rowid, {} FROM docs_fts WHERE docs_fts MATCH '\"the alpha\"'"
    rows = conn.execute(sql.format(ONE_PHRASE_KEY)).fetchall()
    assert rows
    assert rows == conn.execute(sql.format(explicit)).fetchall()


def test_one_phrase_key_counts_the_phrase_alone_beside_the_role_word(
    conn: apsw.Connection,
) -> None:
    """``role:system`` ANDs the role word into the MATCH (``role_match``): its instance in a
    notice's parts is not one of the phrase's hits (the NOT'ed role word of every other search
    has none)."""
    notices = [msgspec.structs.replace(d, role="system") for d in _titled_random_docs(100)]
    insert(conn, notices)
    for match in ['"the alpha"', '"alpha"*', '"type error"']:
        sql = f"SELECT rowid, {ONE_PHRASE_KEY} FROM docs_fts WHERE docs_fts MATCH ?"
        alone = conn.execute(sql, (match,)).fetchall()
        assert alone, match
        assert conn.execute(sql, (role_match(match, ("system",)),)).fetchall() == alone, match
        assert conn.execute(sql, (role_match(match, None),)).fetchall() == [], match


def test_one_phrase_key_refuses_two_phrases_and_negative_weights(conn: apsw.Connection) -> None:
    # Besides its phrase, a search's MATCH names the role word (engine.index.sql.role_match),
    # which the scorer allows as the second phrase: three phrases are two of the user's.
    insert(conn, [doc("chat:s:1", "alpha beta gamma", session_id="s")])
    three = 'SELECT {} FROM docs_fts WHERE docs_fts MATCH \'"alpha" "beta" "gamma"\''
    with pytest.raises(REFUSED, match="one-phrase"):
        conn.execute(three.format(ONE_PHRASE_KEY)).fetchall()
    one = "SELECT {} FROM docs_fts WHERE docs_fts MATCH 'alpha'"
    with pytest.raises(REFUSED, match="non-negative"):
        conn.execute(
            one.format("ade_bm25_1_key(docs_fts, 1.0, -1.0, 0.0, 0.0, 0.0, 1.0)")
        ).fetchall()
    with pytest.raises(REFUSED, match="non-negative"):
        conn.execute(one.format("ade_bm25_1_key(docs_fts, 1.0, 2.0, 0.0)")).fetchall()


def test_title_table_follows_upserts_and_deletes(conn: apsw.Connection) -> None:
    insert(conn, [doc("pr:1", "b", title="Fix login", source_key="k"),
                  doc("pr:2", "b", title="Other", source_key="k"),
                  doc("chat:s:1", "body only", session_id="s")])  # fmt: skip
    insert(conn, [doc("pr:1", "b", title="Renamed")])  # replaced: old title row gone
    assert (
        conn.execute("SELECT rowid FROM docs_title WHERE docs_title MATCH 'login'").fetchall() == []
    )
    assert health_check(conn) == []
    delete_docs(conn, ["chat:s:1"])
    delete_docs_by_source(conn, "k")
    assert health_check(conn) == []
    assert conn.execute("SELECT count(*) FROM docs_title").fetchone()[0] == 1
    conn.execute("DELETE FROM docs_title")
    assert any("title row drift" in p for p in health_check(conn))


def test_title_candidate_beyond_window_honours_exclusions(conn: apsw.Connection,
                                                          project: Project) -> None:  # fmt: skip
    docs = [doc(f"terminal:s@{i}", f"deploy step {i}", session_id="s", updated_at=NOW_MS - i)
            for i in range(BM25_WINDOW + 5)]  # fmt: skip
    docs.append(doc("pr:1", "rollback notes", title="Deploy", updated_at=NOW_MS - 10**9))
    docs.append(doc("pr:2", "plain", title="Deploy now", updated_at=NOW_MS - 10**9))
    insert(conn, docs)

    def top(text: str) -> list[str]:
        res = run_query(conn, SearchQueryArgs(query=text, limit=3), project=project, now=NOW)
        return [i.doc_id for i in res.items]

    assert top("deploy")[:2] == ["pr:1", "pr:2"]
    assert top("deploy -rollback")[:1] == ["pr:2"]


_PLAIN_IDENT = re.compile(
    r"(?<![A-Za-z0-9])[A-Za-z0-9]*?(?:[a-z0-9][A-Z]|[A-Z][A-Z][a-z])[A-Za-z0-9]*"
)


def _plain_parts(text: str) -> str:
    seen: dict[str, str] = {}
    for m in _PLAIN_IDENT.finditer(text):
        for part in split_identifier(m.group()):
            seen.setdefault(part.lower(), part)
    return " ".join(seen.values())


@pytest.mark.parametrize("identifier_parts", identifier_parts_twins())
@settings(max_examples=500, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("aAbBZz109 _.-:(\n\téÉǅİ€")), max_size=40))
def test_identifier_scan_finds_what_the_regex_finds(
    identifier_parts: Callable[..., str], text: str
) -> None:
    assert identifiers(text) == _PLAIN_IDENT.findall(text)
    assert identifier_parts(text) == _plain_parts(text)


def test_identifier_scan_on_odd_text() -> None:
    text = "\ud800TypeError é HTTPServer2x 02T10:00Z a\u00e9B ABc"
    assert (
        identifiers(text)
        == _PLAIN_IDENT.findall(text)
        == ["TypeError", "HTTPServer2x", "02T10", "00Z", "ABc"]
    )


def test_changed_ddl_is_detected_on_open(index_path: Path) -> None:
    index_path.parent.mkdir(parents=True)
    c = connect(index_path)
    c.execute(SCHEMA_SQL.replace(RECENT_FTS_OPTIONS, f"{FTS_OPTIONS}, prefix='2'"))
    c.close()
    report = open_index(index_path)
    assert report.recreated_reason == "schema changed: docs_recent"
    assert open_index(index_path).recreated_reason is None


def test_total_counts_beyond_the_window_exactly(conn: apsw.Connection, project: Project) -> None:
    docs = [doc(f"terminal:s@{i}", f"deploy step {i}", session_id="s", updated_at=NOW_MS - i * 7)
            for i in range(BM25_WINDOW + 234)]  # fmt: skip
    docs += [doc(f"chat:c:{i}", "deploy chat", session_id="c", updated_at=NOW_MS - i * 5)
             for i in range(40)]  # fmt: skip
    insert(conn, docs)
    for text, expected in (
        ("deploy", BM25_WINDOW + 274),
        ("deploy kind:terminal", BM25_WINDOW + 234),
    ):
        res = run_query(conn, SearchQueryArgs(query=text), project=project, now=NOW)
        assert res.total == expected, text
        assert not res.results_truncated  # exact, and every match is reachable by paging


def test_explain_shows_the_rankings_own_scores(conn: apsw.Connection, project: Project) -> None:
    insert(conn, _random_docs(60))
    for text in ("alpha", '"of the"', "alpha beta"):
        res = run_query(conn, SearchQueryArgs(query=text, limit=5), project=project, now=NOW)
        assert res.next_cursor is not None, text
        kinds = resolve_kinds(None, None)
        last = decode_cursor(res.next_cursor, query_fingerprint(text, kinds, ()))
        plan = build_plan(SearchQueryArgs(query=text), now=NOW, lanes=())
        explained = explain_item(conn, plan, res.items[-1])
        assert explained.sort_key == last, text
