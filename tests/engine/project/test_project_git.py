from __future__ import annotations

from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import pytest

from engine.project.git import (
    GitError,
    git_toplevel,
    list_branches,
    origin_slug,
    parse_remote_slug,
    recent_commits,
    run_git,
    worktrees,
)

PLUS2 = timezone(timedelta(hours=2))


def test_recent_commits_fields_and_order(repo: Any) -> None:
    first = repo.commit("first subject", "body line 1\n\nbody line 2")
    second = repo.commit("second: with\ttab and ünïcode")
    commits = recent_commits(repo.root)
    assert [c.sha for c in commits] == [second, first]
    assert commits[0].subject == "second: with\ttab and ünïcode"
    assert commits[1].body == "body line 1\n\nbody line 2"
    assert commits[1].author == "Ada Lovelace"
    assert commits[1].committed_at == datetime.fromtimestamp(1_780_000_060, PLUS2)
    assert commits[1].committed_at.utcoffset() == timedelta(hours=2)


def test_recent_commits_capped(repo: Any) -> None:
    for i in range(7):
        repo.commit(f"c{i}")
    assert [c.subject for c in recent_commits(repo.root, limit=3)] == ["c6", "c5", "c4"]
    assert recent_commits(repo.root, limit=0) == []


def test_recent_commits_unborn_branch_is_empty(repo: Any) -> None:
    assert recent_commits(repo.root) == []
    assert list_branches(repo.root) == []


def test_recent_commits_not_a_repo_raises(tmp_path: Path) -> None:
    with pytest.raises(GitError):
        recent_commits(tmp_path)


def test_rev_starting_with_dash_is_never_an_option(repo: Any, tmp_path: Path) -> None:
    repo.commit("one")
    target = tmp_path / "pwned.txt"
    with pytest.raises(GitError):
        recent_commits(repo.root, rev=f"--output={target}")
    assert not target.exists()
    with pytest.raises(GitError):
        recent_commits(repo.root, rev="--all")


def test_folder_named_like_an_option(make_repo: Any) -> None:
    dashed = make_repo("--output=x")
    dashed.commit("in a dashed folder")
    assert [c.subject for c in recent_commits(dashed.root)] == ["in a dashed folder"]
    assert git_toplevel(dashed.root) == dashed.root.resolve()


def test_inherited_git_dir_does_not_redirect(
    make_repo: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    a, b = make_repo("a"), make_repo("b")
    a.commit("in a")
    b.commit("in b")
    monkeypatch.setenv("GIT_DIR", str(b.root / ".git"))
    assert [c.subject for c in recent_commits(a.root)] == ["in a"]


def test_branches_with_tip_subjects(repo: Any) -> None:
    repo.commit("base")
    repo.git("branch", "feature/x")
    repo.git("switch", "-q", "feature/x")
    tip = repo.commit("feature tip subject", "and a body")
    repo.git("switch", "-q", "main")
    main_tip = repo.commit("main tip")
    branches = list_branches(repo.root)
    assert [(b.name, b.tip_sha, b.tip_subject) for b in branches] == [
        ("feature/x", tip, "feature tip subject"),
        ("main", main_tip, "main tip"),
    ]
    assert branches[1].updated_at == datetime.fromtimestamp(1_780_000_180, PLUS2)


def test_worktrees_porcelain(repo: Any, tmp_path: Path) -> None:
    repo.commit("base")
    wt = tmp_path / "lane a"
    repo.git("worktree", "add", "-q", "-b", "lane-a", str(wt))
    detached = tmp_path / "det"
    repo.git("worktree", "add", "-q", "--detach", str(detached))
    trees = worktrees(repo.root)
    assert (trees[0].path, trees[0].branch, trees[0].is_main) == (repo.root, "main", True)
    # git lists linked worktrees in its own order; only "main first" is a contract.
    assert sorted((str(t.path), t.branch, t.is_main, t.detached) for t in trees[1:]) == [
        (str(detached), None, False, True),
        (str(wt), "lane-a", False, False),
    ]
    assert all(t.head and len(t.head) == 40 for t in trees)
    # Asked from inside a linked worktree, the main one is still first.
    assert worktrees(wt)[0].path == repo.root


def test_toplevel_outside_a_repository(tmp_path: Path) -> None:
    outside = tmp_path / "plain"
    outside.mkdir()
    assert git_toplevel(outside) is None


def test_toplevel_from_subfolder(repo: Any) -> None:
    sub = repo.root / "a" / "b"
    sub.mkdir(parents=True)
    assert git_toplevel(sub) == repo.root.resolve()


@pytest.mark.parametrize(
    ("url", "slug"),
    [
        ("git@github.com:octo/hello-world.git", "octo/hello-world"),
        ("git@github.com:octo/hello-world", "octo/hello-world"),
        ("github.com:octo/repo.git", "octo/repo"),
        ("ssh://git@github.com/octo/repo.git", "octo/repo"),
        ("ssh://git@github.com:2222/octo/repo", "octo/repo"),
        ("https://github.com/octo/repo.git", "octo/repo"),
        ("https://github.com/octo/repo/", "octo/repo"),
        ("https://user:tok@github.com/octo/repo.git\n", "octo/repo"),
        ("git://example.org/octo/re.po.git", "octo/re.po"),
        ("https://gitlab.com/group/sub/proj.git", "sub/proj"),
        ("/srv/git/repo.git", None),
        ("../other", None),
        ("file:///srv/git/repo.git", None),
        ("https://github.com/onlyowner", None),
        ("git@github.com:octo/bad name.git", None),
        ("", None),
    ],
)
def test_parse_remote_slug(url: str, slug: str | None) -> None:
    assert parse_remote_slug(url) == slug


def test_origin_slug_from_real_remote(repo: Any) -> None:
    assert origin_slug(repo.root) is None
    repo.git("remote", "add", "origin", "git@github.com:acme/widgets.git")
    assert origin_slug(repo.root) == "acme/widgets"
    repo.git("remote", "set-url", "origin", "https://github.com/acme/gadgets")
    assert origin_slug(repo.root) == "acme/gadgets"


def test_run_git_error_is_one_line(tmp_path: Path) -> None:
    with pytest.raises(GitError) as info:
        run_git(tmp_path, "log")
    assert "\n" not in str(info.value)
    assert "not a git repository" in str(info.value)
