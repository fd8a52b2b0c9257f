"""`lane:` narrows file hits to that lane's own worktree (real git, a real linked worktree)."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest
from cli_helpers import no_daemon_flag

from engine.delegates import file_hits, files
from engine.delegates.gather import delegated_for_args
from engine.demo import DEMO_NOW
from engine.project.lanes import list_lanes
from engine.project.locate import open_project
from engine.project.model import Lane
from engine.project.tally import WarningTally
from engine.types import SearchQueryArgs
from tui.cli import main


def _git(root: Path, *args: str) -> None:
    subprocess.run(["git", "-C", str(root), "-c", "user.name=t", "-c", "user.email=t@example.com",
                    *args], check=True, capture_output=True)  # fmt: skip


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A primary lane and a linked lane ``lane-a`` on branch ``feature/quokka`` that changed a
    line on its branch and holds an untracked file of its own."""
    root = tmp_path / "repo"
    (root / "src").mkdir(parents=True)
    (root / "src" / "app.py").write_text("def handler():\n    return 'plain answer'\n")
    _git(root, "init", "-q", "-b", "main")
    _git(root, "add", "-A")
    _git(root, "commit", "-q", "-m", "init")
    _git(root, "worktree", "add", "-q", "-b", "feature/quokka", str(tmp_path / "lane-a"))
    lane = tmp_path / "lane-a"
    (lane / "src" / "app.py").write_text("def handler():\n    return 'quokka answer'\n")
    _git(lane, "commit", "-q", "-am", "quokka")
    (lane / "quokka_notes.md").write_text("first line\nthe quokka was seen here\n")
    return root


def _files(root: Path, query: str, *, lane: str | None = None,
           lanes: list[Lane] | None = None) -> tuple[list[dict[str, object]], list[str]]:  # fmt: skip
    project = open_project(root)
    listed = lanes if lanes is not None else list_lanes(project, WarningTally())
    args = SearchQueryArgs(query=query, kinds=("file",), lane_id=lane)
    found, warnings = delegated_for_args(project, args, DEMO_NOW, listed)
    hits = []
    for cand in found:
        link = cand.extra.deep_link
        hits.append({"doc": cand.doc_id, "lane": cand.lane_id, "title": cand.title,
                     "link": link() if callable(link) else link})  # fmt: skip
    return hits, warnings


def test_a_linked_lane_s_untracked_file_and_changed_line_are_found_with_its_filter(
    project: Path,
) -> None:
    for named in ("lane:lane-a", "lane:feature/quokka"):  # by id (= folder name) and by branch
        hits, warnings = _files(project, f"quokka {named}")
        assert warnings == []
        assert {h["title"] for h in hits} == {  # a word only in the path makes no line a hit
            "quokka_notes.md", "quokka_notes.md:2", "src/app.py:2"
        }  # fmt: skip
        assert {h["lane"] for h in hits} == {"lane-a"}
        assert any(
            str(h["link"]).startswith("ade://file/src/app.py?line=2&col=13&lane=lane-a&")
            for h in hits
        )
    by_option, _ = _files(project, "quokka", lane="lane-a")  # --lane
    assert len(by_option) == 3


def test_without_a_filter_and_with_lane_primary_only_the_primary_lane_is_searched(
    project: Path,
) -> None:
    assert _files(project, "quokka") == ([], [])  # not in the primary lane
    for query in ("plain answer", "plain answer lane:primary"):
        hits, _ = _files(project, query)
        assert [(h["doc"], h["lane"]) for h in hits] == [("file:src/app.py:2", "primary")]


def test_two_lanes_named_give_each_lane_its_own_hit(project: Path) -> None:
    hits, _ = _files(project, "handler lane:primary lane:lane-a")
    assert sorted((h["doc"], h["lane"]) for h in hits) == [
        ("file:src/app.py:1", "primary"),
        ("file@lane-a:src/app.py:1", "lane-a"),
    ]


def test_a_lane_whose_folder_is_gone_costs_one_warning(project: Path, tmp_path: Path) -> None:
    lanes = list_lanes(open_project(project), WarningTally())  # as a memo listed them earlier
    shutil.rmtree(tmp_path / "lane-a")
    hits, warnings = _files(project, "handler lane:primary lane:lane-a", lanes=lanes)
    assert [h["lane"] for h in hits] == ["primary"]
    assert len(warnings) == 1
    assert "lane lane-a's folder" in warnings[0]
    assert "missing" in warnings[0]


@pytest.mark.usefixtures("cli_path")
def test_the_link_of_a_linked_lane_s_hit_opens_that_lane_s_line(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["search", "--project", str(project), *no_daemon_flag(), "--json", "--kind", "file"]
    assert main([*argv, "quokka", "answer", "lane:lane-a"]) == 0
    (item,) = json.loads(capsys.readouterr().out)["items"]
    assert (item["laneId"], item["laneName"]) == ("lane-a", "lane-a")
    assert main(["open", "--project", str(project), "--context", "0", item["deepLink"]]) == 0
    shown = capsys.readouterr().out
    assert "quokka answer" in shown
    assert "plain answer" not in shown  # the primary lane's version of the line


def test_the_line_cap_holds_for_the_whole_answer_and_takes_lanes_in_turn(
    project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    MAX_LINE_HITS = 2000  # the cap, made small enough to reach here
    monkeypatch.setattr(files, "MAX_LINE_HITS", MAX_LINE_HITS)
    monkeypatch.setattr(file_hits, "MAX_LINE_HITS", MAX_LINE_HITS)
    # Every kept line made a candidate (a page builds only its own: test_file_line_pages.py).
    monkeypatch.setattr(file_hits, "_page_bound", lambda plan: None)
    body = "".join(f"needle {n}\n" for n in range(1500))
    (project / "many.txt").write_text(body)
    (tmp_path / "lane-a" / "many.txt").write_text(body)  # untracked there, tracked nowhere
    hits, warnings = _files(project, "needle lane:primary lane:lane-a")
    lines = [h for h in hits if str(h["title"]).count(":") == 1]
    assert len(lines) == MAX_LINE_HITS
    per_lane = {lane: sum(h["lane"] == lane for h in lines) for lane in ("primary", "lane-a")}
    assert per_lane == {"primary": MAX_LINE_HITS // 2, "lane-a": MAX_LINE_HITS // 2}
    assert len(warnings) == 1
    assert f"more than {MAX_LINE_HITS:,} lines match" in warnings[0]


def test_a_lane_git_cannot_read_costs_one_warning_and_the_others_answer(
    project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    plain = tmp_path / "not-a-worktree"  # a lanes.json lane naming a plain folder
    plain.mkdir()
    (plain / "handler.txt").write_text("handler\n")
    lanes = [*list_lanes(open_project(project), WarningTally()),
             Lane("stray", "stray", plain, None, False)]  # fmt: skip
    monkeypatch.setenv("GIT_CEILING_DIRECTORIES", str(tmp_path))  # no repository above it
    hits, warnings = _files(project, "handler lane:lane-a lane:stray", lanes=lanes)
    assert {h["lane"] for h in hits} == {"lane-a"}
    assert len(warnings) == 1
    assert warnings[0].startswith("files: lane stray: ")


def test_a_file_written_in_a_lane_after_a_query_is_found_by_the_next(
    project: Path, tmp_path: Path
) -> None:
    assert _files(project, "echidna lane:lane-a") == ([], [])
    (tmp_path / "lane-a" / "echidna.txt").write_text("an echidna\n")
    hits, _ = _files(project, "echidna lane:lane-a")
    assert {h["title"] for h in hits} == {"echidna.txt", "echidna.txt:1"}
