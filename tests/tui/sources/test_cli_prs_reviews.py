"""`ade prs sync` keeps the reviews: summaries from `gh pr list --json reviews`, comments on diff
lines from one `gh api` listing (a fake `gh` on PATH: GitHub itself is unreachable here)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from engine.project.locate import open_project
from engine.project.prs import list_prs
from engine.project.tally import WarningTally
from tui.cli import main

LISTING = [
    {
        "number": 5,
        "title": "Retry uploads",
        "body": "",
        "state": "OPEN",
        "author": {"login": "octocat"},
        "headRefName": "retry",
        "baseRefName": "main",
        "url": "https://github.com/acme/proj/pull/5",
        "updatedAt": "2026-05-28T10:00:00Z",
        "comments": [],
        "reviews": [
            {
                "id": "PRR_kwDOA1",
                "author": {"login": "hubot"},
                "authorAssociation": "MEMBER",
                "body": "The backoff never caps; please bound it.",
                "submittedAt": "2026-05-28T09:00:00Z",
                "includesCreatedEdit": False,
                "reactionGroups": [],
                "state": "CHANGES_REQUESTED",
                "commit": {"oid": "abc"},
            }
        ],
    }
]

# What `gh api --paginate … --jq REVIEW_COMMENTS_JQ` prints: one object a line.
COMMENTS = [
    {"id": 901, "reviewId": 77, "author": "hubot", "body": "cap at 30 s", "path": "up.py",
     "line": 12, "createdAt": "2026-05-28T09:00:00Z", "pr": 5},
    {"id": 902, "reviewId": 78, "author": "x", "body": "other PR", "path": "a.py", "line": 1,
     "createdAt": "2026-05-28T09:00:00Z", "pr": 6},
]  # fmt: skip


def fake_gh(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, body: str) -> Path:
    """A `gh` shell script first on PATH; it logs its arguments next to itself."""
    bindir = tmp_path / "bin"
    bindir.mkdir(exist_ok=True)
    script = bindir / "gh"
    script.write_text(f'#!/bin/sh\necho "$@" >> "{bindir}/args"\n{body}\n')
    script.chmod(0o755)
    monkeypatch.setenv("PATH", f"{bindir}{os.pathsep}/usr/bin{os.pathsep}/bin")
    return bindir


def test_sync_keeps_reviews_and_diff_comments(
    repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    listing = tmp_path / "listing.json"
    listing.write_text(json.dumps(LISTING))
    comments = tmp_path / "comments.jsonl"
    comments.write_text("".join(json.dumps(c) + "\n" for c in COMMENTS))
    bindir = fake_gh(
        tmp_path, monkeypatch,
        f'if [ "$1" = api ]; then cat "{comments}"; else cat "{listing}"; fi',
    )  # fmt: skip
    assert main(["prs", "sync", "--project", str(repo)]) == 0
    assert (
        "api --paginate repos/{owner}/{repo}/pulls/comments --jq" in (bindir / "args").read_text()
    )
    tally = WarningTally()
    (pr,) = list_prs(open_project(repo), tally)
    assert tally.total() == 0
    assert [(r.id, r.author, r.state) for r in pr.reviews] == [
        ("PRR_kwDOA1", "hubot", "CHANGES_REQUESTED")
    ]
    assert [(c.id, c.review_id, c.path, c.line) for c in pr.review_comments] == [
        ("901", "77", "up.py", 12)
    ]
    assert "review comments" not in capsys.readouterr().err


def test_a_failing_comment_listing_still_writes_the_prs_and_says_why(
    repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    listing = tmp_path / "listing.json"
    listing.write_text(json.dumps(LISTING))
    fake_gh(tmp_path, monkeypatch, f'if [ "$1" = api ]; then exit 1; fi; cat "{listing}"')
    assert main(["prs", "sync", "--project", str(repo)]) == 0
    (pr,) = list_prs(open_project(repo), WarningTally())
    assert pr.reviews
    assert not pr.review_comments
    assert "review comments not fetched: gh api exited 1" in capsys.readouterr().err
