"""`ade search` when nothing matches exactly (docs/search.md), in process and through the daemon: a
relaxed step answers with exit 0, the `relaxed` field and a warning; `--exact` and quoting keep
the strict answer (exit 1, the did-you-mean). On main `timeuot` found nothing (exit 1)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from cli_helpers import run_main, search_argv

pytestmark = pytest.mark.usefixtures("cli_path")


def test_a_typo_answers_with_the_relaxed_field_and_a_warning(
    indexed_demo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run = run_main(capsys, search_argv(indexed_demo, "gateway", "timeuot", "--json"))
    assert run.code == 0, run.err
    data = json.loads(run.out)
    assert data["relaxed"] == "spelling"
    assert data["items"]
    note = "no exact match; spelling corrected: timeuot → timeout"
    assert note in data["warnings"]
    assert f"warning: {note}" in run.err


@pytest.mark.parametrize("query", [["--exact", "timeuot"], ['"gateway timeuot"']])
def test_exact_and_quoting_keep_the_strict_answer(
    indexed_demo: Path, capsys: pytest.CaptureFixture[str], query: list[str]
) -> None:
    run = run_main(capsys, search_argv(indexed_demo, *query, "--json"))
    assert run.code == 1, run.err
    data = json.loads(run.out)
    assert data["items"] == []
    assert data["relaxed"] is None


def test_explain_names_the_step_per_row_and_in_a_line(
    indexed_demo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run = run_main(capsys, search_argv(indexed_demo, "timeuot", "--explain", "--limit", "2"))
    assert run.code == 0, run.err
    why = [line for line in run.out.splitlines() if line.strip().startswith("why:")]
    assert len(why) == 2
    assert all(line.endswith("· relaxed: spelling") for line in why)
    terms = [line for line in run.out.splitlines() if line.strip().startswith("terms:")]
    assert all(line.strip().startswith("terms: timeout → ") for line in terms)  # the step's
    assert "relaxed: strict matches first" in run.out


def test_page_two_continues_a_relaxed_answer(
    indexed_demo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A relaxed answer's cursor (``r1:``) gives the next hits of the same step, none twice."""
    query = ["gateway", "timeuot", "--json", "--limit", "2"]
    first = run_main(capsys, search_argv(indexed_demo, *query))
    assert first.code == 0, first.err
    page1 = json.loads(first.out)
    assert page1["relaxed"] == "spelling"
    assert page1["nextCursor"].startswith("r1:")
    second = run_main(capsys, search_argv(indexed_demo, *query, "--cursor", page1["nextCursor"]))
    assert second.code == 0, second.err
    page2 = json.loads(second.out)
    assert page2["relaxed"] == "spelling"
    shown = [item["docId"] for item in page1["items"]]
    more = [item["docId"] for item in page2["items"]]
    assert more
    assert not set(more) & set(shown)
    whole = json.loads(run_main(capsys, search_argv(indexed_demo, *query[:-1], "4")).out)
    assert [item["docId"] for item in whole["items"]] == shown + more


def test_a_form_the_typed_word_finds_is_neither_noted_nor_counted_twice(
    indexed_demo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``test`` finds ``tests`` as typed: the inflection step adds only the other forms, and
    the commit holding each word once ranks above the pytest log holding ``test`` and ``tests``
    (on main: "test (tests)" in the note, the log first)."""
    query = ["lane:abc-123-retry", "test", "backoff", "doubling", "capped", "--json"]
    run = run_main(capsys, search_argv(indexed_demo, *query))
    assert run.code == 0, run.err
    data = json.loads(run.out)
    assert data["relaxed"] == "inflection"
    note = "other word forms matched too: doubling (doubles); capped (cap, caps)"
    assert note in data["warnings"]
    kinds = [item["kind"] for item in data["items"] if item["kind"] in ("commit", "terminal")]
    assert kinds[:2] == ["commit", "terminal"]
