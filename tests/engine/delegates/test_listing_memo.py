"""The lane listing's memo: answered without git while nothing it depends on changed, listed
again after every change a user makes to which files exist (real repositories, real stamps)."""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from engine.delegates import listing_memo
from engine.delegates.file_passes import FileQuery, search_lane
from engine.delegates.files import FileSearchFailed, lane_listing, list_tracked_untracked
from tests.conftest import git

HOUR_NS = 3600 * 10**9


@pytest.fixture(autouse=True)
def _fresh_memo(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    # The tree is aged an hour below and the clock moved an hour on, so no stamp is racy and a
    # change made now always differs from the kept (aged) mtime, whatever the clock's tick.
    listing_memo.forget()
    monkeypatch.setattr(listing_memo, "now_ns", lambda: time.time_ns() + HOUR_NS)
    yield
    listing_memo.forget()


def _age(root: Path) -> None:
    """Set every mtime in the work tree and its git dir an hour back."""
    past = time.time_ns() - HOUR_NS
    for folder, _dirs, names in os.walk(root):
        for name in [*names, "."]:
            os.utime(os.path.join(folder, name), ns=(past, past), follow_symlinks=False)


@pytest.fixture
def lane(tmp_path: Path) -> Path:
    root = tmp_path / "lane"
    (root / "src" / "deep").mkdir(parents=True)
    (root / ".gitignore").write_text("build/\n*.log\n")
    (root / "src" / "a.py").write_text("a\n")
    (root / "src" / "deep" / "b.py").write_text("b\n")
    (root / "README").write_text("hi\n")
    git(root, "init", "-q", "-b", "main")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "first")
    (root / "notes.md").write_text("untracked\n")
    (root / "build" / "x").mkdir(parents=True)
    (root / "build" / "x" / "out.o").write_text("ignored\n")
    (root / "logs").mkdir()
    (root / "logs" / "run.log").write_text("ignored\n")
    return root


def _listing(root: Path) -> tuple[set[str], set[str]]:
    tracked, untracked = lane_listing(root)
    return set(tracked), set(untracked)


def _fresh(root: Path) -> tuple[set[str], set[str]]:
    tracked, untracked = list_tracked_untracked(root)
    return set(tracked), set(untracked)


def _memoise(root: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[set[str], set[str]]:
    """Age the tree, list it twice (the second keeps a memo), and prove the third call runs no
    git: with no git on PATH it still answers."""
    _age(root)
    _listing(root)
    first = _listing(root)
    assert listing_memo.memoised(root)
    with monkeypatch.context() as no_git:
        no_git.setenv("PATH", "")
        assert _listing(root) == first
        with pytest.raises(FileSearchFailed):
            list_tracked_untracked(root)  # git really is out of reach here
    return first


def _add_untracked(root: Path) -> None:
    (root / "new.txt").write_text("new\n")


def _add_in_subfolder(root: Path) -> None:
    (root / "src" / "deep" / "c.py").write_text("c\n")


def _add_in_new_folder(root: Path) -> None:
    (root / "src" / "deep" / "fresh").mkdir()
    (root / "src" / "deep" / "fresh" / "d.py").write_text("d\n")


def _remove_untracked(root: Path) -> None:
    (root / "notes.md").unlink()


def _git_add(root: Path) -> None:
    git(root, "add", "notes.md")


def _git_rm(root: Path) -> None:
    git(root, "rm", "-q", "src/a.py")


def _git_mv(root: Path) -> None:
    git(root, "mv", "src/deep/b.py", "src/b2.py")


def _rename_untracked(root: Path) -> None:
    (root / "notes.md").rename(root / "src" / "notes2.md")


def _commit_new_file(root: Path) -> None:
    (root / "src" / "e.py").write_text("e\n")
    git(root, "add", "src/e.py")
    git(root, "commit", "-q", "-m", "e")


def _edit_gitignore_in_place(root: Path) -> None:
    with (root / ".gitignore").open("a") as f:
        f.write("notes.md\n")


def _edit_info_exclude(root: Path) -> None:
    with (root / ".git" / "info" / "exclude").open("a") as f:
        f.write("README2\n*.md\n")


def _unignored_file_in_an_all_ignored_folder(root: Path) -> None:
    (root / "logs" / "summary.txt").write_text("not ignored\n")


CHANGES: list[Callable[[Path], None]] = [
    _add_untracked, _add_in_subfolder, _add_in_new_folder, _remove_untracked, _git_add, _git_rm,
    _git_mv, _rename_untracked, _commit_new_file,
    _edit_gitignore_in_place, _edit_info_exclude, _unignored_file_in_an_all_ignored_folder,
]  # fmt: skip


@pytest.mark.parametrize("change", CHANGES, ids=lambda c: c.__name__.strip("_"))
def test_every_change_to_which_files_exist_is_listed_on_the_next_query(
    lane: Path, monkeypatch: pytest.MonkeyPatch, change: Callable[[Path], None]
) -> None:
    before = _memoise(lane, monkeypatch)
    assert before == _fresh(lane)
    change(lane)
    after = _listing(lane)
    assert after == _fresh(lane)
    assert after != before  # each change moves at least one path


def test_the_checkout_of_another_branch_lists_that_branchs_files(
    lane: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    git(lane, "checkout", "-q", "-b", "other")
    (lane / "only_on_other.py").write_text("o\n")
    git(lane, "add", "only_on_other.py")
    git(lane, "commit", "-q", "-m", "other")
    git(lane, "checkout", "-q", "main")
    assert "only_on_other.py" not in _memoise(lane, monkeypatch)[0]
    git(lane, "checkout", "-q", "other")
    assert "only_on_other.py" in _listing(lane)[0]


def test_edits_and_changes_inside_ignored_folders_keep_the_memo(
    lane: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (lane / ".ade" / "terminal").mkdir(parents=True)
    before = _memoise(lane, monkeypatch)
    (lane / "src" / "a.py").write_text("edited, same name\n")
    (lane / "build" / "x" / "more.o").write_text("ignored\n")
    (lane / ".ade" / "terminal" / "t1.log").write_text("state, never a file hit\n")
    (lane / ".ade" / "sessions").mkdir()
    with monkeypatch.context() as no_git:
        no_git.setenv("PATH", "")
        assert _listing(lane) == before


def test_a_lane_worktree_keeps_its_own_memo_and_sees_its_own_commits(
    lane: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    worktree = lane.parent / "lane-wt"
    git(lane, "worktree", "add", "-q", "-b", "feature", str(worktree))
    main_listing = _memoise(lane, monkeypatch)
    before = _memoise(worktree, monkeypatch)
    assert "notes.md" not in before[1]  # untracked files are the main lane's
    (worktree / "feature.py").write_text("f\n")
    assert "feature.py" in _listing(worktree)[1]
    git(worktree, "add", "feature.py")
    git(worktree, "commit", "-q", "-m", "feature")
    assert "feature.py" in _listing(worktree)[0]
    assert _listing(lane) == main_listing == _fresh(lane)


def test_a_tree_written_within_the_racy_window_is_listed_every_time(
    lane: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(listing_memo, "now_ns", time.time_ns)  # the real clock: all just written
    for _ in range(3):
        assert _listing(lane) == _fresh(lane)
    assert not listing_memo.memoised(lane)


def test_a_one_shot_process_lists_once_and_keeps_nothing(lane: Path) -> None:
    _age(lane)
    assert _listing(lane) == _fresh(lane)
    assert not listing_memo.memoised(lane)


def test_a_tree_with_too_many_folders_is_not_memoised(
    lane: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(listing_memo, "MAX_WATCHED_DIRECTORIES", 2)
    _age(lane)
    for _ in range(3):
        assert _listing(lane) == _fresh(lane)
    assert not listing_memo.memoised(lane)


def test_a_repository_without_commits_searches_its_files_without_git_while_nothing_is_tracked(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The kept listing says nothing is tracked: no ``git grep`` is started (with no git on
    PATH the line search still answers); once a file is added its grep runs again."""
    root = tmp_path / "fresh"
    root.mkdir()
    git(root, "init", "-q", "-b", "main")
    (root / "notes.md").write_text("the zebrafish plan\n")
    wanted = FileQuery.of_words(["zebrafish"])
    first = search_lane(root, wanted)
    assert [(h.path, h.line) for h in first.lines] == [("notes.md", 1)]
    _memoise(root, monkeypatch)
    with monkeypatch.context() as no_git:
        no_git.setenv("PATH", "")
        assert search_lane(root, wanted) == first
    git(root, "add", "notes.md")
    (root / "notes.md").write_text("the zebrafish plan\nzebrafish again, not yet added\n")
    found = search_lane(root, wanted)  # tracked now: git greps it (the work-tree text)
    assert [(h.path, h.line) for h in found.lines] == [("notes.md", 1), ("notes.md", 2)]
    assert _listing(root) == ({"notes.md"}, set())


def test_a_daemon_keeps_a_memo_per_callers_home(lane: Path, tmp_path: Path) -> None:
    """git lists in the ``HOME`` of the request a daemon answers (``caller_env.serving``): a
    caller whose ``~/.gitconfig`` names an excludes file is not answered the listing memoised
    for another, nor the other with its."""
    from engine.basics.caller_env import caller_context, serving

    plain, ignoring = tmp_path / "plain", tmp_path / "ignoring"
    plain.mkdir()
    ignoring.mkdir()
    (ignoring / "excludes").write_text("notes.md\n")
    (ignoring / ".gitconfig").write_text(f"[core]\n\texcludesFile = {ignoring / 'excludes'}\n")
    _age(tmp_path)  # the homes' config files too: none of the stamps is racy

    def listed(home: Path) -> set[str]:
        with serving({**caller_context(), "HOME": str(home)}):
            _listing(lane)
            untracked = _listing(lane)[1]  # the second keeps a memo
            assert listing_memo.memoised(lane)
            return untracked

    assert "notes.md" in listed(plain)
    assert "notes.md" not in listed(ignoring)
    assert "notes.md" in listed(plain)
