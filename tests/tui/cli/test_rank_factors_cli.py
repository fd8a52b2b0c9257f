"""`ade search --explain` names every ranking factor per row (docs/search.md), in process and through
the daemon: the exact-phrase boost, BM25 with its field weights, the identifier boost, recency as
the tie-breaker and the session dedupe. On main the explanation had none of these names and a
row holding ``retry backoff`` as a phrase ranked below rows holding the words apart."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from cli_helpers import run_main, search_argv

pytestmark = pytest.mark.usefixtures("cli_path")

FACTORS = ("tier", "phrase", "bm25", "identifier", "recency", "id", "sessionDedupe", "semantic",
           "words")  # fmt: skip


def _explain(root: Path, capsys: pytest.CaptureFixture[str], *query: str) -> dict[str, Any]:
    run = run_main(capsys, search_argv(root, *query, "--json", "--explain", "--limit", "15"))
    assert run.code == 0, run.err
    data: dict[str, Any] = json.loads(run.out)
    assert len(data["explain"]) == len(data["items"])
    return data


def test_json_explain_names_each_factor_per_row(
    indexed_demo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = _explain(indexed_demo, capsys, "retry", "backoff")
    held = []
    for why in data["explain"]:
        factors = why["factors"]
        assert tuple(factors) == FACTORS
        assert factors["bm25"]["weights"] == {"title": 2.0, "body": 1.0}
        assert factors["identifier"]["weights"] == {"identifier parts": 1.0}
        assert factors["recency"]["updatedAt"] == why["updatedAt"]
        assert factors["sessionDedupe"] == {"foldedInto": None, "folds": []}
        if factors["phrase"]["held"] is None:  # a delegated row: no phrase looked for
            assert factors["phrase"]["boost"] == 0
            continue
        held.append(factors["phrase"]["held"])
        boost = factors["phrase"]["boost"]
        assert boost < 0 if factors["phrase"]["held"] else boost == 0
        assert why["sortKey"][1] == pytest.approx(why["bm25"] + boost)
    # Rows holding the words as one phrase come first (every indexed row here is body tier).
    assert True in held
    assert False in held
    assert held == sorted(held, reverse=True)


def test_json_explain_says_which_row_the_session_dedupe_folded(
    indexed_demo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = _explain(indexed_demo, capsys, "exponential", "backoff")
    dedupe = {w["docId"]: w["factors"]["sessionDedupe"] for w in data["explain"]}
    message = "chat:chat-abc123-backoff:msg_0001"
    assert dedupe["chat:chat-abc123-backoff"] == {"foldedInto": None, "folds": [message]}
    assert dedupe[message] == {"foldedInto": "chat:chat-abc123-backoff", "folds": []}
    run = run_main(capsys, search_argv(indexed_demo, "exponential", "backoff", "--explain"))
    assert f"session dedupe: carries {message}" in run.out


def test_text_explain_prints_a_factors_line_per_row(
    indexed_demo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = search_argv(indexed_demo, "retry", "backoff", "--explain", "--limit", "15")
    run = run_main(capsys, argv)
    assert run.code == 0, run.err
    lines = [line.strip() for line in run.out.splitlines()]
    why = [line for line in lines if line.startswith("why:")]
    factors = [line for line in lines if line.startswith("factors:")]
    assert len(factors) == len(why) >= 3
    for line in factors:
        assert "phrase boost " in line
        assert "(title ×2, body ×1)" in line
        assert "identifier parts " in line
        assert "recency tie-break: newest first" in line
        assert "session dedupe: not folded" in line
    phrase = ["(words as one phrase)" in line for line in factors if "(words " in line]
    assert phrase[0]
    assert not phrase[-1]
    assert phrase == sorted(phrase, reverse=True)


def test_explain_prints_the_words_held_in_the_title(
    indexed_demo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """No row holds every word: among rows holding the same words (test, flaky, CI) as rarely,
    the chat titled with them comes first, before the PR and the git graph holding them in
    their bodies (BM25 alone put PR 41 first)."""
    data = _explain(indexed_demo, capsys, "which", "test", "was", "flaky", "on", "CI")
    words = {w["docId"]: w["factors"]["words"] for w in data["explain"]}
    assert data["items"][0]["docId"] == "chat:chat-flaky-refund-test"
    assert words["chat:chat-flaky-refund-test"]["title"] == 3
    assert words["pr:41"]["title"] == 0
    assert words["pr:41"]["distinctive"] == words["chat:chat-flaky-refund-test"]["distinctive"]
    run = run_main(capsys, search_argv(indexed_demo, "which test was flaky on CI", "--explain"))
    assert "(summed IDF) · 3 in the title ·" in run.out
