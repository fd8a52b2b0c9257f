"""Browsing a delegated kind from the command line (docs/palette.md): a filter-only
query that names ``file`` lists the lane's files, newest first, paged by ``--cursor`` — in
process and through the daemon alike. On main it answered nothing (exit 1)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from cli_helpers import run_main, search_argv

from engine.types import SearchQueryResult, from_json

pytestmark = pytest.mark.usefixtures("cli_path")


def _json(run_out: str) -> SearchQueryResult:
    return from_json(run_out, SearchQueryResult)


def test_kind_file_alone_lists_files_newest_first_and_pages(
    indexed_demo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    newest = indexed_demo / "README.md"
    os.utime(newest, (newest.stat().st_atime, 4_000_000_000))  # after every other file
    run = run_main(capsys, search_argv(indexed_demo, "kind:file", "--limit", "3", "--json"))
    assert run.code == 0, run.err
    first = _json(run.out)
    assert first.items[0].title == "README.md"
    assert {item.kind for item in first.items} == {"file"}
    assert first.total > 3
    assert first.next_cursor is not None
    rest = run_main(capsys, search_argv(indexed_demo, "kind:file", "--limit", "500", "--json",
                                        "--cursor", first.next_cursor))  # fmt: skip
    assert rest.code == 0, rest.err
    titles = [i.title for i in first.items] + [i.title for i in _json(rest.out).items]
    assert len(titles) == len(set(titles)) == first.total  # every file once, none lost
    stamps = [i.updated_at for i in first.items]
    assert stamps == sorted(stamps, reverse=True)


def test_linear_alone_without_a_key_says_it_is_not_configured(
    indexed_demo: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in ("LINEAR_API_KEY", "ADE_LINEAR_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    run = run_main(capsys, search_argv(indexed_demo, "kind:linear", "--json"))
    assert run.code == 1
    assert any("LINEAR_API_KEY" in w for w in _json(run.out).warnings)
