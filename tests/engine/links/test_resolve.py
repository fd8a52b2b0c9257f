"""The one link resolver on the real demo: what each link kind resolves to, what is
gone, and a link of another project resolved in that project."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from engine.demo.copy import copy_demo
from engine.links.deeplink import build_link, parse_deep_link
from engine.links.listings import ProjectListings
from engine.links.resolve import (
    ArtifactTarget,
    BranchTarget,
    ChatTarget,
    CommitTarget,
    FileTarget,
    Gone,
    LaneTarget,
    LinearTarget,
    PrTarget,
    TerminalTarget,
    load_detail,
    resolve_link,
)


@pytest.fixture(scope="module")
def listings(demo_project: Path) -> ProjectListings:
    return ProjectListings.open(demo_project)


def _resolve(listings: ProjectListings, link: str, **hints: object) -> object:
    return resolve_link(parse_deep_link(link), listings, **hints)  # type: ignore[arg-type]


def test_every_kind_resolves_to_its_target(listings: ProjectListings) -> None:
    pid = listings.project.id
    chat = _resolve(
        listings, build_link("chat", "chat-readtimeout-triage", event=8, project_id=pid)
    )
    assert isinstance(chat, ChatTarget)
    assert chat.event == 8
    assert chat.path.is_file()
    term = _resolve(listings, build_link("terminal", "term-pytest-retry", offset=42))
    assert isinstance(term, TerminalTarget)
    assert term.offset == 42
    assert term.path.is_file()
    assert isinstance(_resolve(listings, build_link("pr", "41")), PrTarget)
    commit = _resolve(listings, build_link("commit", "0123abcd"), lane_hint="abc-123-retry")
    assert isinstance(commit, CommitTarget)
    assert commit.repo.name == "abc-123-retry"
    branch = _resolve(listings, build_link("branch", "main"))
    assert isinstance(branch, BranchTarget)
    assert branch.repo == listings.project.root
    file = _resolve(listings, build_link("file", "payments_api/config.py", line=12, lane="primary"))
    assert isinstance(file, FileTarget)
    assert file.lane_root == listings.project.root
    lane = _resolve(listings, build_link("lane", "abc-123-retry"))
    assert isinstance(lane, LaneTarget)
    assert "Sessions" in load_detail(lane).body
    assert isinstance(_resolve(listings, build_link("artifact", "art-x")), ArtifactTarget)
    linear = _resolve(listings, build_link("linear", "ABC-123"), title="ABC-123 Retry")
    assert isinstance(linear, LinearTarget)
    assert load_detail(linear).title == "ABC-123 Retry"


@pytest.mark.parametrize(
    "link",
    [
        build_link("chat", "chat-deleted-meanwhile"),
        build_link("chat", "term-pytest-retry"),  # a terminal session is not a chat
        build_link("lane", "gone"),
        build_link("file", "payments_api/config.py", lane="gone"),
        build_link("pr", "41", project_id="someone-else"),  # another project, root unknown
    ],
)
def test_what_is_gone_says_so(listings: ProjectListings, link: str) -> None:
    target = _resolve(listings, link)
    assert isinstance(target, Gone)
    assert "gone" in target.message or "not open here" in target.message


def test_a_link_of_another_project_resolves_in_that_project(
    demo_project: Path, tmp_path: Path
) -> None:
    beta = copy_demo(demo_project, tmp_path / "beta")
    (beta / ".ade" / "project.json").write_text(json.dumps({"id": "beta-demo", "name": "beta"}))
    here = ProjectListings.open(demo_project)
    link = build_link("chat", "chat-release-notes", project_id="beta-demo")
    target = _resolve(here, link, project_root=beta)
    assert isinstance(target, ChatTarget)
    assert target.path.is_relative_to(beta.resolve())
    wrong = _resolve(here, link, project_root=demo_project)  # that folder is another project
    assert isinstance(wrong, Gone)
