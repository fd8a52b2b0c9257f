"""The lane you stand in, from the command line: run inside a linked worktree (or a subfolder of one), `ade`
uses the primary lane's project — one `.ade/`, one index, its PRs and terminals — and the lane the
user stands in is not a silent filter."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from cli_helpers import no_daemon_flag, run_main

pytestmark = pytest.mark.usefixtures("cli_path")


def test_search_in_a_lane_subfolder_uses_the_main_worktree_index_unfiltered(
    demo_copy: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
) -> None:  # fmt: skip
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    sub = demo_copy / ".worktrees" / "webhooks" / "payments_api"
    monkeypatch.chdir(sub)
    status = run_main(capsys, ["search", *no_daemon_flag(), "--status", "--json"])
    assert status.code == 0, status.err
    assert json.loads(status.out)["dbPath"] == str(demo_copy / ".ade" / "cache" / "search-index.db")
    assert not (demo_copy / ".worktrees" / "webhooks" / ".ade").exists()  # no second index
    run = run_main(capsys, ["search", *no_daemon_flag(), "--json", "--limit", "50", "kind:pr"])
    lanes = {item["laneId"] for item in json.loads(run.out)["items"]}
    assert len(lanes) > 1  # PRs of every lane: the lane we stand in filters nothing
    explicit = run_main(
        capsys, ["search", *no_daemon_flag(), "--status", "--json", "--project", "."]
    )
    assert json.loads(explicit.out)["dbPath"] == str(
        sub.resolve() / ".ade" / "cache" / "search-index.db"
    )
