"""Delegated sources on real projects: lanes, files (real git), artifacts, failures as warnings."""

from __future__ import annotations

import os
import shutil
import subprocess
import time
from pathlib import Path

import pytest

from engine.delegates import listing_memo
from engine.delegates.files import grep_lane_lines, lane_listing, list_tracked_untracked
from engine.delegates.gather import delegated_for_args, starts_no_process
from engine.demo import DEMO_NOW
from engine.embedded import EmbeddedClient
from engine.project.lanes import list_lanes
from engine.project.locate import open_project
from engine.project.tally import WarningTally
from engine.query.plan import QueryPlan, build_plan
from engine.types import DEFAULT_KINDS, SearchQueryArgs


def _git(root: Path, *args: str) -> None:
    subprocess.run(["git", "-C", str(root), *args], check=True, capture_output=True)


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    root.mkdir()
    _git(root, "init", "-q", "-b", "main")
    (root / ".gitignore").write_text("ignored.txt\n")
    (root / "src").mkdir()
    (root / "src" / "gateway.py").write_text("def connect_timeout():\n    return 5  # gateway\n")
    (root / "notes.md").write_text("the -v flag is verbose\nnothing here\n")
    (root / "ignored.txt").write_text("gateway secret\n")
    (root / "blob.bin").write_bytes(b"gateway\x00\x01\x02")
    _git(root, "add", ".gitignore", "src/gateway.py", "blob.bin")
    (root / "untracked.py").write_text("gateway = 1\n")
    return root


def test_file_listing_honours_gitignore_and_keeps_untracked(repo: Path) -> None:
    tracked, untracked = list_tracked_untracked(repo)
    files = {*tracked, *untracked}
    assert "untracked.py" in files
    assert "src/gateway.py" in files
    assert "ignored.txt" not in files


def test_line_grep_skips_binaries_and_ignored_and_needs_every_term(repo: Path) -> None:
    hits = grep_lane_lines(repo, ["gateway"])
    assert {(h.path, h.line) for h in hits} == {("src/gateway.py", 2), ("untracked.py", 1)}
    both = grep_lane_lines(repo, ["connect", "timeout"])
    assert [(h.path, h.line) for h in both] == [("src/gateway.py", 1)]


def test_a_term_starting_with_a_dash_is_data_not_an_option(repo: Path) -> None:
    hits = grep_lane_lines(repo, ["-v"])
    assert [(h.path, h.line) for h in hits] == [("notes.md", 1)]


def _delegated(root: Path, query: str, kinds: tuple[str, ...]) -> tuple[list[str], list[str]]:
    project = open_project(root)
    lanes = list_lanes(project, WarningTally())
    args = SearchQueryArgs(query=query, kinds=kinds)  # type: ignore[arg-type]
    found, warnings = delegated_for_args(project, args, DEMO_NOW, lanes)
    return [c.doc_id for c in found], warnings


def test_lanes_artifacts_and_files_from_the_demo(demo_project: Path) -> None:
    lanes, _ = _delegated(demo_project, "", ("lane",))
    assert sorted(lanes) == ["lane:abc-123-retry", "lane:primary", "lane:webhooks"]
    artifacts, _ = _delegated(demo_project, "retry", ("artifact",))
    assert artifacts
    assert all(a.startswith("artifact:") for a in artifacts)
    files, _ = _delegated(demo_project, "gateway", ("file",))
    assert "file:payments_api/gateway.py" in files
    assert any(f.count(":") == 2 for f in files)  # line hits: file:<path>:<line>
    no_text, _ = _delegated(demo_project, "", DEFAULT_KINDS)
    assert not [f for f in no_text if f.startswith("file")]  # an unnamed kind set lists no files
    browsed, _ = _delegated(demo_project, "", ("file",))  # named alone: an empty query browses
    assert "file:payments_api/gateway.py" in browsed


def test_a_missing_worktree_folder_is_a_warning_and_the_rest_stays(demo_copy: Path) -> None:
    shutil.rmtree(demo_copy / ".worktrees" / "webhooks")
    with EmbeddedClient.open(demo_copy, start_worker=False) as client:
        client.service.catch_up()
        result = client.query(SearchQueryArgs(query="webhook", kinds=("lane", "chat", "file")))
    kinds = {item.kind for item in result.items}
    assert "chat" in kinds
    assert "file" in kinds
    assert "lane" not in kinds  # the webhooks lane is gone; the others do not say "webhook"
    assert any("missing worktree" in w for w in result.warnings)


def test_the_best_of_path_and_basename_decides_the_file_tier(demo_copy: Path) -> None:
    with EmbeddedClient.open(demo_copy, start_worker=False) as client:
        result = client.query(SearchQueryArgs(query="gateway.py", kinds=("file",), limit=3))
    first = result.items[0]
    assert first.doc_id == "file:payments_api/gateway.py"
    assert first.tier == "exact_title"
    assert first.deep_link.startswith("ade://file/payments_api/gateway.py?")


def test_the_delegates_run_inline_only_when_they_surely_start_no_process(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``starts_no_process``: true for a repository with nothing tracked whose listing a
    long-running process keeps (no ``git grep`` to wait for), false whenever a process or a
    server could be asked: no kept listing, a tracked file, a lane matching the text (its
    ``git log``), Linear configured, a browse of files."""
    root = tmp_path / "fresh"
    (root / ".ade").mkdir(parents=True)
    _git(root, "init", "-q", "-b", "main")
    (root / "notes.md").write_text("the zebrafish plan\n")
    project = open_project(root)
    lanes = list_lanes(project, WarningTally())

    def plan(query: str, **more: object) -> QueryPlan:
        return build_plan(SearchQueryArgs(query=query, **more), now=DEMO_NOW, lanes=lanes)  # type: ignore[arg-type]

    assert not starts_no_process(project, plan("zebrafish"), lanes, {})  # nothing kept yet
    hour = 3600 * 10**9
    monkeypatch.setattr(listing_memo, "now_ns", lambda: time.time_ns() + hour)
    past = time.time_ns() - hour
    for folder, _dirs, names in os.walk(root):
        for name in [*names, "."]:
            os.utime(os.path.join(folder, name), ns=(past, past), follow_symlinks=False)
    lane_listing(root)
    lane_listing(root)  # a long-running process's second listing is kept
    assert starts_no_process(project, plan("zebrafish"), lanes, {})
    assert starts_no_process(project, plan("zebrafish", kinds=["chat"]), lanes, {})
    linear = plan("zebrafish", kinds=["file", "linear"])
    assert starts_no_process(project, linear, lanes, {})
    assert not starts_no_process(project, linear, lanes, {"LINEAR_API_KEY": "k"})
    assert not starts_no_process(project, plan(lanes[0].name), lanes, {})  # the lane matches
    assert not starts_no_process(project, plan("", kinds=["file"]), lanes, {})  # a browse
    _git(root, "add", "notes.md")
    assert not starts_no_process(project, plan("zebrafish"), lanes, {})  # tracked: git grep
    listing_memo.forget()
