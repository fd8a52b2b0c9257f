"""The semantic extra (docs/semantic.md): vectors written with the documents, ``mode:semantic``
and the "too little" fallback, reciprocal rank fusion that never puts an exact match below a
vague one. Runs when the extra is installed (CI installs it); skipped with the reason otherwise,
except the parts that need no model."""

from __future__ import annotations

import importlib.util
from datetime import UTC, datetime
from pathlib import Path

import msgspec
import pytest

from engine.demo.copy import copy_demo
from engine.embedded import EmbeddedClient
from engine.index.db import connect
from engine.semantic.hybrid import (
    NOT_INSTALLED_NOTE,
    SEMANTIC_NOTE,
    SWITCHED_OFF_NOTE,
    fuse,
    take_mode,
    vector_weight,
)
from engine.types import SearchQueryArgs, SearchQueryResult, SearchResultItem

INSTALLED = importlib.util.find_spec("wordllama") is not None
needs_extra = pytest.mark.skipif(
    not INSTALLED, reason="the semantic extra is not installed (pip install 'ade-search[semantic]')"
)

NOW = datetime(2026, 6, 15, 12, 0, tzinfo=UTC)

PARAPHRASE = "copying old rows into the accounting table"
"""The demo's ledger backfill terminal in other words: no strict lexical match."""


@pytest.fixture(scope="module")
def demo(demo_project: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = copy_demo(demo_project, tmp_path_factory.mktemp("semantic") / "ade-demo")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("ADE_SEMANTIC", "1")
        with EmbeddedClient.open(root, start_worker=False) as client:
            client.service.catch_up()
    if INSTALLED:
        from engine.semantic.store import writer

        writer.wait()  # the vectors follow the index on their own thread
    return root


@pytest.fixture(autouse=True)
def semantic_on(monkeypatch: pytest.MonkeyPatch) -> None:
    """The suite runs with ``ADE_SEMANTIC=0`` (tests/conftest.py); here the layer is on."""
    monkeypatch.setenv("ADE_SEMANTIC", "1")


def _ask(root: Path, text: str, **kw: object) -> tuple[list[str], tuple[str, ...]]:
    with EmbeddedClient.open(root, start_worker=False) as client:
        result = client.query(SearchQueryArgs(query=text, **kw))  # type: ignore[arg-type]
    return [item.doc_id for item in result.items], result.warnings


@pytest.mark.parametrize(
    ("query", "rest", "asked"),
    [
        ("mode:semantic flaky", "flaky", True),
        ("flaky MODE:SEMANTIC tests", "flaky tests", True),
        ('"mode:semantic" flaky', '"mode:semantic" flaky', False),
        ("mode:semantically", "mode:semantically", False),
    ],
)
def test_mode_semantic_is_taken_out_of_the_query_unless_quoted(
    query: str, rest: str, asked: bool
) -> None:
    args, found = take_mode(SearchQueryArgs(query=query))
    assert (args.query, found) == (rest, asked)


def test_a_strict_answer_stays_on_top_in_its_order_and_a_relaxed_one_is_fused() -> None:
    lexical = ["a", "b", "c"]
    assert fuse(lexical, ["x", "b"], strict=True) == ["a", "b", "c", "x"]
    # Relaxed: c (ranks 3 and 1) beats b (2 and 3) beats a (1 only); x (2 only) after a.
    assert fuse(lexical, ["c", "x", "b"], strict=False) == ["c", "b", "a", "x"]
    # A weight below 1 lets the word ranking lead where both lists disagree.
    assert fuse([], ["w"], ["m"], strict=True, weights=(1.0, 0.5)) == ["w", "m"]


def test_equal_fused_scores_tie_whatever_order_their_terms_were_added_in() -> None:
    """x (ranks 1, 7, 2) and y (2, 1, 7) have one score, 1/61 + 1/67 + 1/62, summed in another
    order: added one by one the floats differed in the last bit (y's larger), and that bit put y
    first against the rule (equal scores: the earlier in the lexical answer)."""
    lexical = ["x", "y"]
    words = ["y", *(f"w{n}" for n in range(5)), "x"]
    meaning = ["m0", "x", *(f"m{n}" for n in range(1, 5)), "y"]
    fused = fuse(lexical, words, meaning, strict=False, weights=(1.0, 1.0), ties=(lexical,))
    assert fused[:2] == ["x", "y"]


@needs_extra
def test_our_loader_embeds_exactly_as_wordllama_does() -> None:
    import numpy as np
    from wordllama import WordLlama

    from engine.semantic.model import model, package_folder

    reference = WordLlama.load(cache_dir=package_folder(), disable_download=True)
    texts = ["Retry uploads with exponential backoff", "flaky test_refund_partial", "é 😀 x" * 40]
    ours = model().embed(texts)
    theirs = reference.embed(texts, norm=True)
    assert np.allclose(ours, theirs, atol=1e-6)
    assert not model().embed([""]).any()  # an empty text is a zero vector, never NaN


@needs_extra
def test_every_document_gets_a_current_vector_after_it_is_written(demo: Path) -> None:
    conn = connect(demo / ".ade" / "cache" / "search-index.db")
    docs = conn.execute("SELECT count(*) FROM docs").fetchone()[0]
    current = conn.execute(
        "SELECT count(*) FROM doc_vectors v JOIN docs d ON d.doc_id = v.doc_id"
        " AND d.digest = v.digest"
    ).fetchone()[0]
    conn.close()
    assert docs > 100
    assert current == docs


@needs_extra
def test_documents_written_without_the_layer_get_vectors_from_semantic_queries(
    demo_project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from engine.semantic.store import FILL_PER_QUERY

    root = copy_demo(demo_project, tmp_path / "ade-demo")
    monkeypatch.setenv("ADE_SEMANTIC", "0")
    with EmbeddedClient.open(root, start_worker=False) as client:
        client.service.catch_up()
    monkeypatch.setenv("ADE_SEMANTIC", "1")

    def vectors() -> int:
        conn = connect(root / ".ade" / "cache" / "search-index.db")
        try:
            return int(conn.execute("SELECT count(*) FROM doc_vectors").fetchone()[0])
        finally:
            conn.close()

    assert vectors() == 0
    _ask(root, f"mode:semantic {PARAPHRASE}")
    assert vectors() == FILL_PER_QUERY  # bounded: no one query pays for the whole index
    _ask(root, f"mode:semantic {PARAPHRASE}")
    assert vectors() == 2 * FILL_PER_QUERY


@needs_extra
def test_mode_semantic_finds_a_paraphrase(demo: Path) -> None:
    found, warnings = _ask(demo, f"mode:semantic {PARAPHRASE}", limit=3)
    assert any(d.startswith("terminal:term-ledger-backfill") for d in found)
    assert SEMANTIC_NOTE in warnings


@needs_extra
def test_too_little_asks_for_meaning_unasked_and_a_quoted_phrase_stays_strict(demo: Path) -> None:
    found, _ = _ask(demo, PARAPHRASE, limit=3)
    assert any(d.startswith("terminal:term-ledger-backfill") for d in found)
    assert _ask(demo, f'"{PARAPHRASE}"')[0] == []


@needs_extra
def test_exact_matches_keep_their_order_above_semantic_hits(
    demo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    hybrid, _ = _ask(demo, "mode:semantic compare_digest", limit=20)
    monkeypatch.setenv("ADE_SEMANTIC", "0")
    lexical, _warnings = _ask(demo, "compare_digest", limit=20)
    assert lexical
    assert hybrid[: len(lexical)] == lexical
    assert len(hybrid) > len(lexical)
    assert _ask(demo, f"mode:semantic {PARAPHRASE}")[1][-1] == SWITCHED_OFF_NOTE


@needs_extra
def test_filters_narrow_the_semantic_hits_too(demo: Path) -> None:
    found, _ = _ask(demo, f"mode:semantic kind:commit {PARAPHRASE}", limit=10)
    assert found
    assert all(d.startswith("commit:") for d in found)


@pytest.mark.skipif(INSTALLED, reason="the semantic extra is installed: this is its absence")
def test_without_the_extra_mode_semantic_says_how_to_get_it(demo_copy: Path) -> None:
    found, warnings = _ask(demo_copy, "mode:semantic flaky")
    assert found  # the lexical answer is still given
    assert NOT_INSTALLED_NOTE in warnings


@needs_extra
def test_a_corrected_spelling_keeps_its_hits_on_top_of_the_fused_ones(
    demo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    typo = "webhok signature verification"  # one letter missing: the spelling step answers
    hybrid, warnings = _ask(demo, f"mode:semantic {typo}", limit=10)
    assert SEMANTIC_NOTE in warnings
    monkeypatch.setenv("ADE_SEMANTIC", "0")
    with EmbeddedClient.open(demo, start_worker=False) as client:
        lexical = client.query(SearchQueryArgs(query=typo, limit=10))
    assert lexical.relaxed == "spelling"
    corrected = [item.doc_id for item in lexical.items]
    assert corrected
    assert hybrid[: len(corrected)] == corrected  # fused below, never above


@needs_extra
def test_explain_gives_each_indexed_row_its_cosine_to_the_query(demo: Path) -> None:
    query = f"mode:semantic {PARAPHRASE}"
    with EmbeddedClient.open(demo, start_worker=False) as client:
        result = client.query(SearchQueryArgs(query=query, limit=5))
        explained = client.explain(SearchQueryArgs(query=query), result.items, now=NOW)
    cosine = {why.doc_id: why.semantic for why in explained}
    backfill = next(d for d in cosine if d.startswith("terminal:term-ledger-backfill"))
    assert cosine[backfill] is not None
    assert 0.2 <= cosine[backfill] <= 1.0  # one of the nearest: at least the fusion's floor
    assert all(why.terms for why in explained)  # mode:semantic is not taken for a word


def test_explain_has_no_semantic_factor_with_the_layer_off(
    demo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ADE_SEMANTIC", "0")
    with EmbeddedClient.open(demo, start_worker=False) as client:
        result = client.query(SearchQueryArgs(query="compare_digest", limit=3))
        explained = client.explain(SearchQueryArgs(query="compare_digest"), result.items, now=NOW)
    assert explained
    assert all(why.semantic is None for why in explained)


@needs_extra
def test_a_fused_answer_pages_without_repeating_a_hit(demo: Path) -> None:
    query = f"mode:semantic {PARAPHRASE}"
    with EmbeddedClient.open(demo, start_worker=False) as client:
        whole = client.query(SearchQueryArgs(query=query, limit=100))
        first = client.query(SearchQueryArgs(query=query, limit=3))
        assert first.next_cursor is not None
        assert first.next_cursor.startswith("r1:")
        second = client.query(SearchQueryArgs(query=query, limit=3, cursor=first.next_cursor))
    shown = {item.doc_id for item in first.items}
    more = {item.doc_id for item in second.items}
    assert len(more) == 3
    assert not shown & more  # page 2 continues page 1
    assert more <= {item.doc_id for item in whole.items}
    assert SEMANTIC_NOTE in second.warnings


def test_the_any_word_ranking_leaves_out_words_half_the_documents_hold(demo: Path) -> None:
    """A word most documents hold (``python3`` in the demo: its terminal chunks) has a BM25 IDF
    of 1e-6: OR-ed into the any-word ranking it moved no score but made BM25 score nearly every
    document. Left out, the documents holding the other word rank as alone, and those holding
    only the common word are gone (on main all 500 asked for were returned)."""
    from engine.index.sql import Filters
    from engine.query.plan import build_plan
    from engine.semantic.hybrid import bm25_any

    conn = connect(demo / ".ade" / "cache" / "search-index.db")
    try:
        both = build_plan(SearchQueryArgs(query="python3 backfill"), now=NOW, lanes=())
        alone = build_plan(SearchQueryArgs(query="backfill"), now=NOW, lanes=())
        documents = conn.execute("SELECT count(*) FROM docs").fetchone()[0]
        holding = conn.execute(
            "SELECT count(*) FROM docs_fts WHERE docs_fts MATCH '\"python3\"'"
        ).fetchone()[0]
        assert holding * 2 >= documents  # the premise: that common here
        ranked = bm25_any(conn, both, Filters(), 500)
        assert ranked == bm25_any(conn, alone, Filters(), 500)
        assert 0 < len(ranked) < holding
    finally:
        conn.close()


def test_unasked_on_a_full_relaxed_page_the_vectors_only_break_ties_and_add_after() -> None:
    """The words decide a relaxed answer that found a page unasked: the two word rankings
    disagreeing on a and b tie; the words' own order breaks it, not the nearest vector (b);
    a document only the vectors found (x) follows. On main the vectors' half weight put b first."""
    lexical, words, vectors = ["a", "b"], ["b", "a"], ["x", "b"]
    assert fuse(lexical, words, vectors, strict=False, weights=(1.0, 0.5)) == ["b", "a", "x"]
    unasked = fuse(lexical, words, vectors, strict=False, weights=(1.0, 0.0),
                   ties=(lexical, vectors))  # fmt: skip
    assert unasked == ["a", "b", "x"]
    page = SearchQueryResult(items=(), next_cursor=None, total=0)
    assert vector_weight(page, asked=True) == 0.5
    assert vector_weight(page, asked=False) == 0.5  # too little found: meaning weighs in


@needs_extra
def test_a_remembered_sentence_keeps_the_message_holding_its_words_first(demo: Path) -> None:
    """Two messages of one chat share the topic; the one holding the remembered words (first
    writer, wins, concurrent…) stays above its sibling, which the vectors put nearest."""
    found, warnings = _ask(demo, "first writer wins for concurrent requests with the same key")
    assert found[0] == "chat:chat-idempotency-design:msg_0006"
    assert SEMANTIC_NOTE in warnings


def _items(count: int) -> tuple[SearchResultItem, ...]:
    return tuple(
        SearchResultItem(
            doc_id=f"pr:{n}",
            kind="pr",
            title="t",
            snippet="",
            match_ranges=(),
            tier="body",
            updated_at=0,
            deep_link="",
        )
        for n in range(count)
    )


def test_meaning_weighs_in_on_a_page_of_incidental_words_only() -> None:
    """Unasked, a full relaxed page is decided by the words unless none of its hits holds half
    of the query's distinctive words as typed (a paraphrase): then the vectors weigh as asked.
    The check reads the index, so it is asked only when the rest does not decide."""
    page = SearchQueryResult(items=(), next_cursor=None, total=0)
    asked: list[bool] = []

    def paraphrase() -> bool:
        asked.append(True)
        return True

    assert vector_weight(page, asked=True, paraphrased=paraphrase) == 0.5
    assert not asked  # meaning asked for: the words were not counted
    full = msgspec.structs.replace(page, items=_items(3), relaxed="any_word")
    assert vector_weight(full, asked=False, paraphrased=paraphrase) == 0.5
    assert vector_weight(full, asked=False, paraphrased=lambda: False) == 0.0


@needs_extra
def test_a_paraphrase_finds_its_target_first_with_meaning_weighed_in(demo: Path) -> None:
    """ "the test that only fails sometimes in the pipeline" shares `test` and `fails` with many
    documents; no hit holds half of its five distinctive words as typed, so the vectors weigh
    in and the flaky-test question comes first (on main the words decided: second, below the
    triage message holding `test` and `fails` more often)."""
    query = "the test that only fails sometimes in the pipeline"
    with EmbeddedClient.open(demo, start_worker=False) as client:
        result = client.query(SearchQueryArgs(query=query, limit=10))
    assert result.relaxed == "any_word"
    assert result.items[0].doc_id == "chat:chat-flaky-refund-test:msg_0001"
    from engine.query.plan import build_plan
    from engine.query.relax import most_held_as_typed
    from engine.semantic.hybrid import paraphrased

    conn = connect(demo / ".ade" / "cache" / "search-index.db")
    try:
        plan = build_plan(SearchQueryArgs(query=query, limit=10), now=NOW, lanes=())
        assert most_held_as_typed(conn, plan, result.items) == (2, 5)
        assert paraphrased(conn, plan, result)
        remembered = "first writer wins for concurrent requests with the same key"
        plan = build_plan(SearchQueryArgs(query=remembered, limit=10), now=NOW, lanes=())
        with EmbeddedClient.open(demo, start_worker=False) as client:
            found = client.query(SearchQueryArgs(query=remembered, limit=10))
        assert not paraphrased(conn, plan, found)  # 4 of its 7 words held as typed
    finally:
        conn.close()


@needs_extra
def test_cosines_are_measured_from_the_index_mean(demo: Path) -> None:
    """Every vector and the query's are centred on the index's mean vector before the cosine
    (the direction all documents share says nothing of which one is meant). On main the cosine
    was the raw one."""
    import numpy as np

    from engine.semantic.model import embed
    from engine.semantic.store import CENTER_MIN, cosines

    conn = connect(demo / ".ade" / "cache" / "search-index.db")
    try:
        rows = [
            (int(str(rowid)), bytes(vec))
            for rowid, vec in conn.execute(
                "SELECT d.id, v.vec FROM doc_vectors v JOIN docs d"
                " ON d.doc_id = v.doc_id AND d.digest = v.digest"
            )
        ]
        assert len(rows) >= CENTER_MIN
        matrix = np.stack([np.frombuffer(vec, dtype=np.int8) for _, vec in rows]) / 127.0
        mean = matrix.mean(axis=0)
        query = embed([PARAPHRASE])[0] / 127.0 - mean
        rowid, vec = rows[0]
        doc = np.frombuffer(vec, dtype=np.int8) / 127.0 - mean
        expected = float(doc @ query / np.linalg.norm(doc) / np.linalg.norm(query))
        raw = float(np.frombuffer(vec, dtype=np.int8) / 127.0 @ (embed([PARAPHRASE])[0] / 127.0))
        got = cosines(conn, PARAPHRASE, [rowid])[rowid]
        assert abs(got - expected) < 1e-4
        assert abs(got - raw) > 1e-3  # the premise: centring changes it
    finally:
        conn.close()


@needs_extra
@pytest.mark.parametrize("limit", [1, 2])
def test_a_short_page_of_many_matches_is_not_too_little(demo: Path, limit: int) -> None:
    """``--limit 1`` over a word with many exact matches is a short page, not few matches: the
    strict answer is the first ``limit`` hits of a longer page, with its total and next page. On
    main a page under ``FEW`` hits fused the vectors in (the note, another total, no cursor)."""
    with EmbeddedClient.open(demo, start_worker=False) as client:
        longer = client.query(SearchQueryArgs(query="timeout", limit=20))
        short = client.query(SearchQueryArgs(query="timeout", limit=limit))
    assert longer.total >= 3
    assert SEMANTIC_NOTE not in short.warnings
    assert [i.doc_id for i in short.items] == [i.doc_id for i in longer.items[:limit]]
    assert short.total == longer.total
    assert short.next_cursor is not None


@needs_extra
def test_an_excluded_word_keeps_its_documents_off_a_fused_page(demo: Path) -> None:
    """``-word`` leaves out every document holding it, the fused hits too (the words ranking and
    the vectors know nothing of it). On main PR #43 (``Idempotency-Key``) came back through the
    fusion although the query excluded ``idempotency``."""
    query = "making charges safe to send twice"
    found, warnings = _ask(demo, query, limit=20)
    assert SEMANTIC_NOTE in warnings
    assert "pr:43" in found
    kept, warnings = _ask(demo, f"{query} -idempotency", limit=20)
    assert SEMANTIC_NOTE in warnings
    assert kept
    conn = connect(demo / ".ade" / "cache" / "search-index.db")
    try:
        holding = {
            str(d)
            for (d,) in conn.execute(
                "SELECT d.doc_id FROM docs_fts JOIN docs d ON d.id = docs_fts.rowid"
                " WHERE docs_fts MATCH 'idempotency'"
            )
        }
    finally:
        conn.close()
    assert "pr:43" in holding
    assert not holding & set(kept)
