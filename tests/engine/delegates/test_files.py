"""The file delegate's git half: listing, tracked grep, in-process untracked grep, early stop."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from engine.delegates import files, untracked
from engine.delegates.file_passes import search_lane_files
from engine.delegates.files import (
    FileSearchFailed,
    grep_lane_lines,
    list_tracked_untracked,
)


def _git(root: Path, *args: str) -> None:
    subprocess.run(["git", "-C", str(root), "-c", "user.name=t", "-c", "user.email=t@example.com",
                    *args], check=True, capture_output=True)  # fmt: skip


@pytest.fixture
def lane(tmp_path: Path) -> Path:
    """A work tree with tracked, untracked, ignored, binary and symlinked files."""
    root = tmp_path / "lane"
    (root / "src").mkdir(parents=True)
    (root / ".gitignore").write_text("build/\n")
    (root / "src" / "alpha_tools.py").write_text("x = 1\nalpha beta gamma\nALPHA only\n")
    (root / "src" / "blob.bin").write_bytes(b"alpha\x00\x01binary")
    (root / "-v.txt").write_text("a line with -v in it\n")
    _git(root, "init", "-q")
    _git(root, "add", "-A")
    _git(root, "commit", "-q", "-m", "init")
    (root / "notes.md").write_text("untracked alpha beta note\n")  # untracked, not ignored
    (root / "build").mkdir()
    (root / "build" / "out.txt").write_text("alpha beta in an ignored folder\n")
    (root / "untracked.bin").write_bytes(b"alpha beta\x00")
    outside = tmp_path / "outside.txt"
    outside.write_text("alpha beta outside the lane\n")
    os.symlink(outside, root / "link.md")  # untracked symlink: never followed
    return root


def test_listing_splits_tracked_and_untracked_and_honours_gitignore(lane: Path) -> None:
    tracked, untracked = list_tracked_untracked(lane)
    assert set(tracked) == {".gitignore", "-v.txt", "src/alpha_tools.py", "src/blob.bin"}
    assert set(untracked) == {"notes.md", "untracked.bin", "link.md"}


def test_lines_come_from_tracked_and_untracked_text_files_only(lane: Path) -> None:
    found = search_lane_files(lane, ["alpha", "beta"])
    paths, lines, truncated = found.paths, found.lines, found.truncated
    assert not truncated
    assert [(h.path, h.line, h.text) for h in lines] == [
        ("notes.md", 1, "untracked alpha beta note"),  # untracked first: a cap keeps new files
        ("src/alpha_tools.py", 2, "alpha beta gamma"),
    ]  # not the binaries, not build/ (ignored), not the symlink's target outside the lane
    assert paths == ["src/alpha_tools.py"]  # only paths containing a term reach the caller


def test_case_insensitive_and_every_term_on_the_line(lane: Path) -> None:
    lines = grep_lane_lines(lane, ["ALPHA"], untracked=False)
    assert [(h.path, h.line) for h in lines] == [("src/alpha_tools.py", 2),
                                                 ("src/alpha_tools.py", 3)]  # fmt: skip
    assert grep_lane_lines(lane, ["alpha", "nowhere"]) == []


def test_a_term_starting_with_a_dash_is_a_pattern_not_an_option(lane: Path) -> None:
    found = search_lane_files(lane, ["-v"])
    paths, lines = found.paths, found.lines
    assert paths == ["-v.txt"]
    assert [(h.path, h.line) for h in lines] == [("-v.txt", 1)]


def test_many_matches_stop_at_the_cap_and_say_so(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(files, "MAX_LINE_HITS", 2000)
    root = tmp_path / "big"
    root.mkdir()
    for i in range(120):
        (root / f"f{i:03}.txt").write_text("needle\n" * 20)
    _git(root, "init", "-q")
    _git(root, "add", "-A")
    _git(root, "commit", "-q", "-m", "many")
    for i in range(3):
        (root / f"u{i}.txt").write_text("needle\n" * 20)
    found = search_lane_files(root, ["needle"])
    assert len(found.lines) == files.MAX_LINE_HITS
    assert found.truncated  # 2,460 lines matched
    assert len(grep_lane_lines(root, ["needle"], limit=50)) == 50  # streamed, then stopped
    under = search_lane_files(root, ["needle", "/f00"])  # a path word narrows the lines
    assert {h.path for h in under.lines} == {f"f00{i}.txt" for i in range(10)}
    assert len(under.lines) == 200
    assert not under.truncated


def test_untracked_files_beyond_the_budget_are_skipped(
    lane: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(untracked, "UNTRACKED_MAX_BYTES", 10)
    lines = search_lane_files(lane, ["alpha", "beta"]).lines
    assert [h.path for h in lines] == ["src/alpha_tools.py"]


def test_not_a_repository_fails_with_one_line(tmp_path: Path) -> None:
    with pytest.raises(FileSearchFailed) as caught:
        search_lane_files(tmp_path, ["alpha"])
    assert "\n" not in str(caught.value)
    with pytest.raises(FileSearchFailed, match=r"cannot change to .*missing"):
        grep_lane_lines(tmp_path / "missing", ["alpha"])  # git's own stderr, first line
