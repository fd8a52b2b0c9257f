"""The compiled ``ade_bm25_1_key`` (``engine/index/native/fts_rank_key.c``) is its Python twin's
equal, byte for byte, and the answers are the same with it as with the twin alone."""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

import apsw
import msgspec
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from index_helpers import NOW, NOW_MS, doc, insert

from engine.index import fts_rank
from engine.index.db import connect
from engine.index.schema import FTS_OPTIONS
from engine.index.sql import role_match
from engine.kinds import ROLE_TOKEN
from engine.project.model import Project
from engine.query.explain import explain_item
from engine.query.plan import build_plan
from engine.query.run import run_query
from engine.types import SearchQueryArgs

TWIN = "ade_bm25_1_key_twin"
"""The Python twin's name beside the compiled one on the same connection."""

WORDS = ["alpha", "alphabet", "al", "beta", "b", "gamma", "of", "the", "x"]
COLUMNS = ("body", "rank_title", "parts")


def test_compiled_scorer_is_built_and_loaded_where_gcc_is(tmp_path: Path) -> None:
    """CI's machine has gcc: there the install must have built the scorer, and a connection
    from ``connect`` must have loaded it (else every one-phrase query falls back to bm25())."""
    if shutil.which("gcc") is None:
        pytest.skip("no gcc on PATH: the install falls back to the Python twin")
    assert fts_rank.COMPILED_PATH.exists(), "setup.py did not build engine/index/_fts_rank_key"
    conn = connect(tmp_path / "index.db")
    try:
        assert fts_rank.compiled()
        conn.execute(
            f"CREATE VIRTUAL TABLE docs_fts USING fts5(body, rank_title, parts, {FTS_OPTIONS})"
        )
        conn.execute(
            "INSERT INTO docs_fts(rowid, body, rank_title, parts) VALUES (1, 'a b', '', '')"
        )
        with pytest.raises(apsw.SQLError, match="one-phrase"):  # the twin raises ValueError
            conn.execute(
                "SELECT ade_bm25_1_key(docs_fts) FROM docs_fts WHERE docs_fts MATCH 'a b a'"
            ).fetchall()
    finally:
        conn.close()


def test_a_stale_build_does_not_load_and_the_twin_answers(
    index_path: Path, conn: apsw.Connection, project: Project, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A ``.so`` built from an older source (an editable install after ``git pull``) lacks the
    numbered entry point: it is not loaded, and the query path calls the twin as the twin is
    called (no table name), with the same answers."""
    if not fts_rank.COMPILED_PATH.exists():
        pytest.skip("the compiled scorer did not build here")
    insert(conn, [doc(f"chat:s:{i}", "the alpha " + "of " * i, session_id="s") for i in range(9)])
    args = SearchQueryArgs(query="the", limit=5)
    expected = run_query(conn, args, project=project, now=NOW)
    monkeypatch.setattr(fts_rank, "_ENTRY_POINT", "sqlite3_adeftsrank_v2_init")  # before v3
    monkeypatch.setattr(fts_rank, "_compiled_loads", None)
    stale = connect(index_path)
    try:
        assert not fts_rank.compiled()
        got = run_query(stale, args, project=project, now=NOW)
    finally:
        stale.close()
    assert [i.doc_id for i in got.items] == [i.doc_id for i in expected.items]
    assert (got.total, len(got.items)) == (expected.total, 5)


def _run(
    conn: apsw.Connection, name: str, match: str, weights: str, order: str = ""
) -> tuple[str, object]:
    sql = f"SELECT rowid, {name}(docs_fts{weights}) FROM docs_fts WHERE docs_fts MATCH ?{order}"
    try:
        return "rows", conn.execute(sql, (match,)).fetchall()
    except (ValueError, apsw.SQLError) as err:  # the twin's ValueError, the compiled one's error
        return "error", str(err).removeprefix("SQLError: ")


_word = st.sampled_from(WORDS)
_text = st.one_of(  # some columns past 127 tokens: two-byte varints in %_docsize
    st.lists(_word, max_size=12), st.lists(_word, min_size=120, max_size=200)
).map(" ".join)
_row = st.tuples(_text, _text, st.tuples(_text, st.booleans()))
_weight = st.one_of(
    st.integers(0, 4), st.floats(0, 8, allow_nan=False), st.sampled_from([0.5, 1e300, 5e-324])
)


@st.composite
def _queries(draw: st.DrawFn) -> str:
    words = draw(st.lists(_word, min_size=1, max_size=3))
    phrase = '"' + " ".join(words) + '"' + ("*" if draw(st.booleans()) else "")
    if draw(st.booleans()):
        phrase += ' "' + draw(_word) + '"'  # two phrases: refused
    columns = draw(st.sampled_from([None, "body", "rank_title", "parts", "rank_title parts"]))
    match = phrase if columns is None else f"{{{columns}}} : {phrase}"
    roles = draw(st.sampled_from([None, ("system",), ("user",)]))
    return role_match(match, roles)


@st.composite
def _weights(draw: st.DrawFn) -> str:
    # The table's own name first, as the ranking passes it (its %_docsize read directly), or a
    # name of no table (ignored: FTS5's column sizes), or none.
    table = draw(st.sampled_from(["", ", 'docs_fts'", ", 'docs_fts'", ", 'no_such'"]))
    shape = draw(st.sampled_from(["default", "numbers", "numbers", "negative", "short", "text"]))
    if shape == "default":
        return table
    values = [repr(w) for w in draw(st.lists(_weight, min_size=6, max_size=6))]
    if shape == "negative":
        values[draw(st.integers(0, 5))] = "-1.0"
    elif shape == "short":
        values = values[:3]
    elif shape == "text":
        values[draw(st.integers(0, 5))] = "'1.0'"
    return table + ", " + ", ".join(values)


_orders = st.sampled_from(["", " ORDER BY rowid DESC", " ORDER BY rowid DESC"])
"""FTS5's own order (rowid ascending: the compiled scorer's %_docsize walk seeks each row), or
the window's (newest first: it steps down to the next row, over the rows between)."""


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    rows=st.lists(_row, min_size=1, max_size=14),
    deleted=st.integers(0, 3),
    queries=st.lists(st.tuples(_queries(), _weights(), _orders), min_size=1, max_size=4),
)
def test_compiled_key_equals_the_python_twin_byte_for_byte(
    rows: list[tuple[str, str, tuple[str, bool]]], deleted: int,
    queries: list[tuple[str, str, str]],
) -> None:  # fmt: skip
    if not fts_rank.COMPILED_PATH.exists():
        pytest.skip("the compiled scorer did not build here")
    with tempfile.TemporaryDirectory() as folder:
        conn = connect(Path(folder) / "index.db")  # the compiled one, where it built
        try:
            conn.register_fts5_function(TWIN, fts_rank.bm25_one_phrase_key)
            conn.execute(
                f"CREATE VIRTUAL TABLE docs_fts USING fts5(body, rank_title, parts, {FTS_OPTIONS})"
            )
            for rowid, (body, title, (parts, notice)) in enumerate(rows, 1):
                parts = f"{parts} {ROLE_TOKEN}" if notice else parts
                conn.execute("INSERT INTO docs_fts(rowid, body, rank_title, parts) VALUES (?, ?, ?, ?)",
                             (rowid, body, title, parts))  # fmt: skip
            conn.execute("DELETE FROM docs_fts WHERE rowid <= ?", (deleted,))
            for match, weights, order in queries:
                compiled = _run(conn, fts_rank.FUNCTION_NAME, match, weights, order)
                assert compiled == _run(conn, TWIN, match, weights, order), (match, weights)
        finally:
            conn.close()


WALK_WORDS = {"dense": 1, "half": 2, "third": 3, "sparse": 9, "rare": 70}
"""Words held by every n-th row: the compiled scorer's %_docsize walk (past its first 64 rows)
steps over the rows between two matches, or seeks past a few."""


@pytest.mark.parametrize("order", ["", " ORDER BY rowid DESC"], ids=["ascending", "newest-first"])
def test_the_docsize_walk_reads_what_the_twin_reads(tmp_path: Path, order: str) -> None:
    """Hundreds of rows (the walk starts after 64), rows deleted among them (gaps the walk
    steps over), row ids far apart and words of every density: the compiled key equals the
    twin's on every row, newest first (the window's order: the walk steps) and in FTS5's own
    (it seeks)."""
    if not fts_rank.COMPILED_PATH.exists():
        pytest.skip("the compiled scorer did not build here")
    conn = connect(tmp_path / "index.db")
    try:
        conn.register_fts5_function(TWIN, fts_rank.bm25_one_phrase_key)
        conn.execute(
            f"CREATE VIRTUAL TABLE docs_fts USING fts5(body, rank_title, parts, {FTS_OPTIONS})"
        )
        for i in range(600):
            words = [w for w, every in WALK_WORDS.items() if i % every == 0]
            body = " ".join(words * (1 + i % 4) + ["pad"] * (i % 150))
            conn.execute("INSERT INTO docs_fts(rowid, body, rank_title, parts) VALUES (?, ?, ?, ?)",
                         (i * (1 if i % 5 else 1000) + 1, body, "half" if i % 7 == 0 else "", ""))  # fmt: skip
        conn.execute("DELETE FROM docs_fts WHERE rowid % 13 = 0 OR rowid BETWEEN 100 AND 140")
        for word in [*WALK_WORDS, "pad", "dense*", "half dense"]:
            match = role_match(f'"{word}"' if " " in word else word, None)
            compiled = _run(conn, fts_rank.FUNCTION_NAME, match, ", 'docs_fts'", order)
            assert compiled[0] == "rows", word
            assert compiled[1], word
            assert compiled == _run(conn, TWIN, match, "", order), word
    finally:
        conn.close()


ANSWER_QUERIES = [
    "alpha", "gam", "the", "of", "x", '"of the"', "readTimeout", "read", "type*", "TypeError",
    "alpha kind:chat", "beta role:system", "al", '"the alpha"',
]  # fmt: skip


def _answers(path: Path, project: Project) -> dict[str, tuple[list[str], int, list[tuple]]]:
    conn = connect(path)
    try:
        out = {}
        for text in ANSWER_QUERIES:
            res = run_query(conn, SearchQueryArgs(query=text, limit=40), project=project, now=NOW)
            plan = build_plan(SearchQueryArgs(query=text), now=NOW, lanes=())
            scores = [
                (e.bm25, e.bm25_split) for e in (explain_item(conn, plan, i) for i in res.items)
            ]
            out[text] = ([i.doc_id for i in res.items], res.total, scores)
        return out
    finally:
        conn.close()


def test_answers_are_the_same_with_the_compiled_scorer_and_the_twin(
    index_path: Path, conn: apsw.Connection, project: Project, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Order, totals and ``--explain``'s scores equal: every one-phrase query is scored with the
    key on both, compiled or its twin."""
    words = ["alpha", "beta", "gamma", "of", "the", "TypeError", "readTimeout", "x", "typed"]
    docs = []
    for i in range(300):
        body = " ".join(words[(i * 7 + j * j) % len(words)] for j in range(1 + i % 23))
        title = " ".join(words[(i + j) % len(words)] for j in range(3)) if i % 4 == 0 else ""
        kind = "chat" if i % 3 else "pr"
        made = doc(f"{kind}:s:{i}", body, title=title, session_id="s", updated_at=NOW_MS - i * 1000)
        docs.append(msgspec.structs.replace(made, role="system") if i % 10 == 0 else made)
    insert(conn, docs)
    compiled = _answers(index_path, project)
    monkeypatch.setattr(fts_rank, "use_compiled", False)
    twin = _answers(index_path, project)
    for text in ANSWER_QUERIES:
        (ids, total, scores), (twin_ids, twin_total, twin_scores) = compiled[text], twin[text]
        assert ids, text
        assert (ids, total, scores) == (twin_ids, twin_total, twin_scores), text
