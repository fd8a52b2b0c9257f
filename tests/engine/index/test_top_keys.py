"""``ade_top_keys`` (``engine/index/native/top_keys.c``) is its Python twin's equal, byte for
byte, and a one-phrase window kept by it (``sql.top_window_sql``) is the window SQLite's sorter
kept (``sql.window_sql(narrow=True, counted=True)``): the same rows, scores, order and tally."""

from __future__ import annotations

import shutil
import struct
import tempfile
from pathlib import Path

import apsw
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from index_helpers import NOW, NOW_MS, doc, insert

import engine.query.candidates as candidates
from engine.index import fts_rank, top_keys
from engine.index.db import connect
from engine.index.fts_rank import scores_of_key
from engine.index.sql import (
    NARROW_COLUMNS,
    Filters,
    titled_rowids_sql,
    top_window_sql,
    window_sql,
)
from engine.query.parser import build_match
from engine.query.plan import build_plan
from engine.types import SearchQueryArgs

TWIN = "ade_top_keys_twin"
"""The Python twin's name beside the compiled one on the same connection."""


def _kept(conn: apsw.Connection, name: str, k: object) -> tuple[str, object]:
    try:
        (row,) = conn.execute(f"SELECT {name}(key, rid, ?) FROM t", (k,)).fetchall()
        return "blob", row[0]
    except (ValueError, apsw.SQLError) as err:  # the twin's ValueError, the compiled one's error
        return "error", str(err).removeprefix("SQLError: ")


def test_compiled_top_keys_is_built_and_loaded_where_gcc_is(tmp_path: Path) -> None:
    """CI's machine has gcc: there the extension holds ``ade_top_keys`` and a connection from
    ``connect`` has it (the twin raises ``ValueError``, the compiled one SQLite's error)."""
    if shutil.which("gcc") is None:
        pytest.skip("no gcc on PATH: the install falls back to the Python twin")
    assert fts_rank.COMPILED_PATH.exists(), "setup.py did not build engine/index/_fts_rank_key"
    conn = connect(tmp_path / "index.db")
    try:
        assert fts_rank.compiled()
        with pytest.raises(apsw.SQLError, match="16-byte keys"):
            conn.execute(f"SELECT {top_keys.FUNCTION_NAME}(x'00', 1, 5)").fetchall()
    finally:
        conn.close()


_keys = st.one_of(
    # Few distinct keys: ties, broken by the row id.
    st.sampled_from([bytes(16), b"\x80" + bytes(15), b"\xbf\xf0" + bytes(14), b"\xff" * 16]),
    st.binary(min_size=16, max_size=16),
    st.builds(lambda a, b: struct.pack(">dd", -a, -b), st.floats(0, 9), st.floats(0, 9)),
)
_row = st.one_of(
    st.tuples(_keys, st.integers(-(2**63), 2**63 - 1)),
    st.tuples(_keys, st.integers(0, 40)),
    # Refused: a key not a 16-byte blob, a row id not an integer.
    st.tuples(st.sampled_from([b"", bytes(15), bytes(17), "text", None, 1.5]), st.integers(0, 9)),
    st.tuples(_keys, st.sampled_from(["7", 7.0, None, b"\x07"])),
)
_k = st.one_of(st.integers(1, 30), st.sampled_from([0, -1, 100_000, 100_001, "5", 5.0, None]))


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rows=st.lists(_row, max_size=60), k=_k)
def test_compiled_top_keys_equals_the_python_twin_byte_for_byte(
    rows: list[tuple[object, object]], k: object
) -> None:
    if not fts_rank.COMPILED_PATH.exists():
        pytest.skip("the compiled extension did not build here")
    with tempfile.TemporaryDirectory() as folder:
        conn = connect(Path(folder) / "index.db")  # the compiled one, where it built
        try:
            conn.create_aggregate_function(TWIN, top_keys.TopKeys, 3)
            conn.execute("CREATE TABLE t(key, rid)")
            conn.executemany("INSERT INTO t VALUES (?, ?)", rows)
            compiled = _kept(conn, top_keys.FUNCTION_NAME, k)
            assert compiled == _kept(conn, TWIN, k)
        finally:
            conn.close()
    valid = all(
        type(key) is bytes and len(key) == 16 and type(rid) is int for key, rid in rows
    ) and (not rows or (type(k) is int and 1 <= k <= top_keys.MAX_K))
    if valid:  # what ``ORDER BY key DESC, rid DESC LIMIT k`` keeps, in that order
        best = sorted(rows, key=lambda r: (r[0], r[1]), reverse=True)[: k if rows else 0]  # type: ignore[misc]
        expected = b"".join(key + rid.to_bytes(8, "big", signed=True) for key, rid in best)  # type: ignore[operator, union-attr]
        assert compiled == ("blob", expected)
    else:
        assert compiled[0] == "error"


WORDS = ["alpha", "beta", "of", "the", "gamma"]


def _window_rows(conn: apsw.Connection, text: str) -> tuple[list[tuple], tuple]:
    """The window of ``text`` as the sorter keeps it and as ``ade_top_keys`` keeps it: rows of
    (row id, exact, split, titled), and the tally (matches scored, oldest row id)."""
    plan = build_plan(SearchQueryArgs(query=text), now=NOW, lanes=())
    assert plan.parsed.one_phrase
    match = build_match(plan.parsed)
    assert match is not None
    f = Filters(kinds=("chat",)) if "kind:" in text else Filters()
    sql, params = window_sql(match, f, 40, budget=70, one_phrase=True, counted=True, narrow=True)
    rows = conn.execute(sql, params).fetchall()
    sorted_rows = [(r[0], *scores_of_key(r[1]), bool(r[3])) for r in rows]
    sorted_tally = (rows[0][NARROW_COLUMNS], rows[0][NARROW_COLUMNS + 1]) if rows else (0, None)
    ((blob, matched, oldest),) = conn.execute(*top_window_sql(match, f, 40, budget=70)).fetchall()
    kept = list(top_keys.rows_of(blob))
    titled = {r for (r,) in conn.execute(*titled_rowids_sql([rid for *_, rid in kept]))}
    heap_rows = [(rid, exact, split, rid in titled) for exact, split, rid in kept]
    return sorted_rows, [*heap_rows, ("tally", matched, oldest), ("sorted", *sorted_tally)]


@pytest.mark.parametrize("compiled", [True, False], ids=["compiled", "twin"])
def test_the_heap_keeps_the_window_the_sorter_kept(
    index_path: Path, conn: apsw.Connection, monkeypatch: pytest.MonkeyPatch, compiled: bool
) -> None:
    """Equal scores (documents alike but for their age), more matches than the budget (70)
    and the window (40), titled rows, notices (left out by the MATCH) and a ``kind:`` filter
    (joins ``docs``): the same rows, in the same order, with the same tally."""
    docs = []
    for i in range(150):
        body = " ".join(WORDS[(i * 3 + j) % len(WORDS)] for j in range(1 + i % 5))
        made = doc(f"{'chat' if i % 3 else 'pr'}:s:{i}", body, session_id="s",
                   title="of the alpha" if i % 11 == 0 else "", updated_at=NOW_MS - i)  # fmt: skip
        docs.append(made)
    insert(conn, docs)
    monkeypatch.setattr(fts_rank, "use_compiled", compiled)
    monkeypatch.setattr(fts_rank, "_compiled_loads", None)
    fresh = connect(index_path)
    titled = 0
    try:
        for text in ("the", "al", '"of the"', "the kind:chat", "zzz", "gamma"):
            sorted_rows, heap_rows = _window_rows(fresh, text)
            *heap, (_, matched, oldest), (_, sorted_matched, sorted_oldest) = heap_rows
            assert heap == sorted_rows, text
            assert (matched, oldest) == (sorted_matched, sorted_oldest), text
            titled += sum(1 for *_, t in sorted_rows if t)
    finally:
        fresh.close()
    assert titled  # some window rows were titled


@pytest.mark.parametrize("scan", [candidates.TITLED_SCAN, 3], ids=["range", "ids"])
def test_the_titled_rows_of_a_window_are_the_ones_docs_title_holds(
    conn: apsw.Connection, monkeypatch: pytest.MonkeyPatch, scan: int
) -> None:
    """Read from the window's range when few titled rows lie in it, or by the window's own
    ids past ``TITLED_SCAN`` of them: the same rows, those ``docs_title`` holds."""
    insert(conn, [doc(f"chat:s:{i}", "word", title="a title" if i % 4 == 0 else "",
                      session_id="s", updated_at=NOW_MS - i) for i in range(40)])  # fmt: skip
    rowids = [r for (r,) in conn.execute("SELECT id FROM docs ORDER BY id")]
    held = {r for (r,) in conn.execute("SELECT rowid FROM docs_title")}
    assert len(held) == 10
    monkeypatch.setattr(candidates, "TITLED_SCAN", scan)
    window = rowids[3:31:2]  # some titled rows lie in its range but not in it
    assert candidates._titled(conn, window) == held.intersection(window)
