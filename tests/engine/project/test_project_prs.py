from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest

from engine.project.model import PrComment, Project
from engine.project.prs import list_prs, read_pr
from engine.project.tally import WarningTally

PR: dict[str, Any] = {
    "number": 12,
    "title": "Add login",
    "body": "Implements OAuth",
    "state": "OPEN",
    "author": {"login": "octocat"},
    "headBranch": "feat-login",
    "baseBranch": "main",
    "url": "https://github.com/acme/widgets/pull/12",
    "updatedAt": "2026-05-02T09:30:00Z",
    "comments": [
        {"author": "reviewer", "body": "LGTM", "createdAt": "2026-05-02T09:00:00Z"},
        {"author": {"login": "bot"}, "body": "CI green", "createdAt": None},
    ],
}


def _write(project: Project, write_json: Any, name: str, value: Any) -> None:
    write_json(project.ade_dir / "prs" / f"{name}.json", value)


def test_reads_gh_shape(project: Project, write_json: Any, tally: WarningTally) -> None:
    _write(project, write_json, "12", PR)
    (pr,) = list_prs(project, tally)
    assert (pr.number, pr.title, pr.author, pr.head_branch, pr.base_branch, pr.state) == (
        12,
        "Add login",
        "octocat",
        "feat-login",
        "main",
        "OPEN",
    )
    assert pr.updated_at == datetime(2026, 5, 2, 9, 30, tzinfo=UTC)
    assert pr.comments == (
        PrComment("reviewer", "LGTM", datetime(2026, 5, 2, 9, tzinfo=UTC)),
        PrComment("bot", "CI green", None),
    )
    assert read_pr(project, 12) == pr
    assert tally.total() == 0


def test_gh_ref_names_and_string_author(project: Project, write_json: Any) -> None:
    raw = {k: v for k, v in PR.items() if k not in {"headBranch", "baseBranch"}}
    raw.update(author="alice", headRefName="fix/x", baseRefName="develop", body=None)
    _write(project, write_json, "12", raw)
    pr = read_pr(project, 12)
    assert pr is not None
    assert (pr.author, pr.head_branch, pr.base_branch, pr.body) == ("alice", "fix/x", "develop", "")


def test_sorted_by_number(project: Project, write_json: Any, tally: WarningTally) -> None:
    for n in (10, 9, 100):
        _write(project, write_json, str(n), {**PR, "number": n})
    assert [pr.number for pr in list_prs(project, tally)] == [9, 10, 100]


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("12", "{ nope"),
        ("12", {**PR, "number": 13}),
        ("12", {**PR, "number": True}),
        ("12", {**PR, "updatedAt": "2026-05-32T09:30:00Z"}),  # no 32nd day
        ("12", {**PR, "title": None}),
        ("12", {**PR, "author": ["x"]}),
        ("12", {**PR, "comments": "none"}),
        ("012", PR),
        ("-1", PR),
        ("abc", PR),
    ],
)
def test_bad_prs_counted(project: Project, write_json: Any, name: str, value: Any) -> None:
    tally = WarningTally()
    _write(project, write_json, name, value)
    assert list_prs(project, tally) == []
    assert tally.snapshot() == {"prs": 1}


def test_bad_comment_dropped_pr_kept(
    project: Project, write_json: Any, tally: WarningTally
) -> None:
    _write(
        project, write_json, "12", {**PR, "comments": ["text", {"author": 5}, PR["comments"][0]]}
    )
    (pr,) = list_prs(project, tally)
    assert [c.body for c in pr.comments] == ["LGTM"]
    assert tally.snapshot() == {"prs": 2}


@pytest.mark.parametrize("number", [0, -3, True, 10**12])
def test_read_pr_range_checked(project: Project, write_json: Any, number: Any) -> None:
    _write(project, write_json, "1", {**PR, "number": 1})
    assert read_pr(project, number) is None


def test_no_prs_folder(project: Project, tally: WarningTally) -> None:
    assert list_prs(project, tally) == []
    assert read_pr(project, 1) is None
