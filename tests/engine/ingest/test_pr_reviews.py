"""PR reviews are documents: review summaries and comments on diff lines are found by what the
reviewer wrote, and their ``ade://`` links land on the review (docs/search.md, "PR reviews")."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from engine.demo.copy import copy_demo
from engine.embedded import EmbeddedClient
from engine.errors import DeepLinkError
from engine.links.deeplink import build_link, parse_deep_link
from engine.links.listings import ProjectListings
from engine.links.resolve import PrTarget, load_detail, resolve_link
from engine.project.prs import read_pr
from engine.project.tally import WarningTally
from engine.types import SearchQueryArgs

REVIEW_ID = "PRR_kwDOAbc123"

SNAPSHOT = {
    "number": 77,
    "title": "Cache the lane listing",
    "body": "Keeps the worktree list between calls.",
    "state": "OPEN",
    "author": "dana",
    "headBranch": "feature/lane-cache",
    "baseBranch": "main",
    "url": "https://github.com/acme/payments-api/pull/77",
    "updatedAt": "2026-12-05T10:00:00Z",
    "comments": [],
    "reviews": [
        {
            "id": REVIEW_ID,
            "author": {"login": "priya"},
            "body": "The invalidation misses a quarantined worktree; please add a test.",
            "state": "CHANGES_REQUESTED",
            "submittedAt": "2026-12-05T11:00:00Z",
        },
        {"id": "PRR_empty", "author": "marco", "body": "", "state": "APPROVED"},
        {"id": "bad id with spaces", "author": "x", "body": "dropped"},
    ],
    "reviewComments": [
        {
            "id": 4242,
            "reviewId": REVIEW_ID,
            "author": "priya",
            "body": "This stat call races with a concurrent prune.",
            "path": "engine/lanes.py",
            "line": 31,
            "createdAt": "2026-12-05T11:01:00Z",
        }
    ],
}


@pytest.fixture(scope="module")
def project(demo_project: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = copy_demo(demo_project, tmp_path_factory.mktemp("reviews") / "ade-demo")
    (root / ".ade" / "prs" / "77.json").write_text(json.dumps(SNAPSHOT))
    return root


def _query(root: Path, text: str) -> list[tuple[str, str]]:
    with EmbeddedClient.open(root, start_worker=False) as client:
        client.service.catch_up()
        result = client.query(SearchQueryArgs(query=text, kinds=("pr",)))
    return [(item.doc_id, item.deep_link) for item in result.items]


def test_the_reader_keeps_valid_reviews_and_counts_a_bad_one(project: Path) -> None:
    from engine.project.locate import open_project

    tally = WarningTally()
    pr = read_pr(open_project(project), 77, tally)
    assert pr is not None
    assert [r.id for r in pr.reviews] == [REVIEW_ID, "PRR_empty"]
    assert pr.review_comments[0].id == "4242"
    assert pr.review_comments[0].line == 31
    assert tally.total() == 1


def test_a_review_is_found_by_its_words_and_links_to_the_review(project: Path) -> None:
    hits = _query(project, "quarantined invalidation")
    assert [doc for doc, _ in hits] == [f"pr:77:review:{REVIEW_ID}"]
    link = parse_deep_link(hits[0][1])
    assert (link.kind, link.target, link.review) == ("pr", "77", REVIEW_ID)


def test_a_diff_comment_is_found_and_links_to_the_comment(project: Path) -> None:
    hits = _query(project, "races concurrent prune")
    assert [doc for doc, _ in hits] == ["pr:77:comment:4242"]
    assert parse_deep_link(hits[0][1]).comment == "4242"


def test_a_bare_approval_is_no_document_and_the_title_still_finds_the_pr(project: Path) -> None:
    docs = [doc for doc, _ in _query(project, "Cache the lane listing")]
    assert docs[0] == "pr:77"
    assert "pr:77:review:PRR_empty" not in docs


def test_the_link_lands_on_the_review_and_a_gone_one_on_the_pr(project: Path) -> None:
    from engine.project.locate import open_project

    listings = ProjectListings(open_project(project))
    target = resolve_link(parse_deep_link(build_link("pr", "77", review=REVIEW_ID)), listings)
    assert isinstance(target, PrTarget)
    assert target.review == REVIEW_ID
    detail = load_detail(target)
    assert detail.body.startswith("— review by priya (changes requested")
    assert detail.note == f"review {REVIEW_ID} (shown first)"
    gone = load_detail(resolve_link(parse_deep_link(build_link("pr", "77", comment="9")), listings))
    assert gone.note == "comment 9 is gone; showing the PR"
    assert gone.body.startswith("Keeps the worktree list")


@pytest.mark.parametrize(
    "text",
    ["ade://pr/77?review=", "ade://pr/77?review=a%20b", "ade://chat/s1?review=PRR_1",
     "ade://pr/77?comment=1&comment=2"],
)  # fmt: skip
def test_a_bad_review_link_is_refused(text: str) -> None:
    with pytest.raises(DeepLinkError):
        parse_deep_link(text)


def test_a_review_deleted_on_github_leaves_no_document(demo_project: Path, tmp_path: Path) -> None:
    root = copy_demo(demo_project, tmp_path / "ade-demo")
    path = root / ".ade" / "prs" / "77.json"
    path.write_text(json.dumps(SNAPSHOT))
    assert _query(root, "quarantined")
    path.write_text(json.dumps({**SNAPSHOT, "reviews": [], "reviewComments": []}))
    assert _query(root, "quarantined") == []
    assert [doc for doc, _ in _query(root, "worktree list between")] == ["pr:77"]
