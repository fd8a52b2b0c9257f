"""`ade prs sync` against a fake `gh` executable on PATH (GitHub itself is unreachable here)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from engine.project.locate import open_project
from engine.project.prs import list_prs
from engine.project.tally import WarningTally
from tui.cli import main

RECORDED = [
    {
        "number": 42,
        "title": "Retry uploads with exponential backoff",
        "body": "Fixes the flaky upload.",
        "state": "MERGED",
        "author": {"id": "U_1", "login": "octocat", "name": "Mona", "is_bot": False},
        "headRefName": "feature-x",
        "baseRefName": "main",
        "url": "https://github.com/acme/proj/pull/42",
        "updatedAt": "2026-05-28T10:00:00Z",
        "comments": [
            {
                "id": "IC_1",
                "author": {"login": "hubot"},
                "authorAssociation": "MEMBER",
                "body": "LGTM, ship the zorblax fix",
                "createdAt": "2026-05-28T09:00:00Z",
                "includesCreatedEdit": False,
                "reactionGroups": [],
                "url": "https://github.com/acme/proj/pull/42#issuecomment-1",
                "viewerDidAuthor": False,
            }
        ],
    },
    {
        "number": 7,
        "title": "Ghost PR",
        "body": "",
        "state": "CLOSED",
        "author": None,
        "headRefName": "old",
        "baseRefName": "main",
        "url": "https://github.com/acme/proj/pull/7",
        "updatedAt": "2026-01-01T00:00:00Z",
        "comments": [],
    },
]


def fake_gh(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, body: str) -> Path:
    """A `gh` shell script first on PATH; it logs its arguments next to itself."""
    bindir = tmp_path / "bin"
    bindir.mkdir(exist_ok=True)
    script = bindir / "gh"
    script.write_text(f'#!/bin/sh\necho "$@" >> "{bindir}/args"\n{body}\n')
    script.chmod(0o755)
    monkeypatch.setenv("PATH", f"{bindir}{os.pathsep}/usr/bin{os.pathsep}/bin")
    return bindir


def test_sync_writes_snapshots_readable_by_the_project_reader(
    repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    data = tmp_path / "recorded.json"
    data.write_text(json.dumps(RECORDED))
    bindir = fake_gh(tmp_path, monkeypatch, f'cat "{data}"')
    assert main(["prs", "sync", "--limit", "50", "--project", str(repo)]) == 0
    args = (bindir / "args").read_text()
    assert "pr list --state all --limit 50 --json number,title,body" in args
    tally = WarningTally()
    prs = list_prs(open_project(repo), tally)
    assert tally.total() == 0
    assert [p.number for p in prs] == [7, 42]
    pr = prs[1]
    assert (pr.author, pr.head_branch, pr.base_branch, pr.state) == (
        "octocat", "feature-x", "main", "MERGED",
    )  # fmt: skip
    assert pr.comments[0].author == "hubot"
    assert pr.comments[0].body == "LGTM, ship the zorblax fix"
    assert prs[0].author == ""
    record = json.loads((repo / ".ade" / "prs" / "42.json").read_text())
    assert set(record) == {
        "number", "title", "body", "state", "author", "headBranch", "baseBranch", "url",
        "updatedAt", "comments", "reviews", "reviewComments",
    }  # fmt: skip
    assert "2 written, 0 unchanged" in capsys.readouterr().err
    mtime = (repo / ".ade" / "prs" / "42.json").stat().st_mtime_ns
    assert main(["prs", "sync", "--project", str(repo)]) == 0
    assert "0 written, 2 unchanged" in capsys.readouterr().err
    assert (repo / ".ade" / "prs" / "42.json").stat().st_mtime_ns == mtime


@pytest.mark.parametrize(
    ("body", "message"),
    [
        (
            'echo "To get started with GitHub CLI, please run:  gh auth login" >&2; exit 4',
            "not authenticated",
        ),
        ('echo "GraphQL: Could not resolve to a Repository" >&2; exit 1', "Could not resolve"),
        ("echo 'not json'", "not JSON"),
        ("echo '[{\"number\": 3}]'", "without a title"),
    ],
)
def test_gh_failures_are_one_line_exit_2_and_change_nothing(
    repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str], body: str, message: str,
) -> None:  # fmt: skip
    existing = repo / ".ade" / "prs" / "1.json"
    existing.parent.mkdir(parents=True)
    existing.write_text('{"number": 1, "title": "old", "updatedAt": "2026-01-01T00:00:00Z"}\n')
    fake_gh(tmp_path, monkeypatch, body)
    assert main(["prs", "sync", "--project", str(repo)]) == 2
    err = capsys.readouterr().err
    assert message in err
    assert err.count("\n") == 1
    assert os.listdir(existing.parent) == ["1.json"]


def test_missing_gh(repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                    capsys: pytest.CaptureFixture[str]) -> None:  # fmt: skip
    empty = tmp_path / "empty"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))
    assert main(["prs", "sync", "--project", str(repo)]) == 2
    assert "not installed" in capsys.readouterr().err
    assert not (repo / ".ade").exists()
