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
