"""File-link resolution on a real disk (RELIABILITY item 24) and the portable envelope."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest

from engine.errors import DeepLinkError
from engine.links.deeplink import Envelope, build_link, parse_deep_link
from engine.links.targets import (
    envelope_for_lane,
    linear_identifier_in,
    repo_slug_from_remote,
    resolve_file_target,
)
from engine.project.model import PrSnapshot


@pytest.fixture
def lane(tmp_path: Path) -> Path:
    """A lane with real files, a sibling ``lane-evil`` sharing its prefix, and an outside folder."""
    root = tmp_path / "lane"
    (root / "src").mkdir(parents=True)
    (root / "src" / "app.py").write_text("print('hi')\n")
    (root / "src" / "inner").symlink_to("../src")  # inside → inside
    evil = tmp_path / "lane-evil"
    evil.mkdir()
    (evil / "secret.txt").write_text("sibling secret\n")
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_text("outside secret\n")
    (outside / "back").symlink_to(root / "src")  # outside → back inside
    (root / "sib").symlink_to("../lane-evil")
    (root / "out").symlink_to(outside)
    (root / "secret-link.txt").symlink_to(outside / "secret.txt")
    (root / "dangling").symlink_to("/nonexistent-ade-test/x")
    (root / "loop").symlink_to("loop")
    return root


def test_plain_file_resolves_inside(lane: Path) -> None:
    assert resolve_file_target(lane, "src/app.py") == (lane / "src" / "app.py").resolve()


def test_missing_file_inside_resolves(lane: Path) -> None:
    assert resolve_file_target(lane, "src/new.py") == lane.resolve() / "src" / "new.py"


def test_symlink_staying_inside_is_followed(lane: Path) -> None:
    assert resolve_file_target(lane, "src/inner/app.py") == (lane / "src" / "app.py").resolve()


def test_root_given_through_a_symlink(lane: Path, tmp_path: Path) -> None:
    alias = tmp_path / "alias"
    alias.symlink_to(lane)
    assert resolve_file_target(alias, "src/app.py") == (lane / "src" / "app.py").resolve()


def test_sibling_sharing_the_root_prefix_is_refused(lane: Path) -> None:
    escaped = (lane / "sib" / "secret.txt").resolve()
    # The trap: a string prefix check would accept this path.
    assert str(escaped).startswith(str(lane.resolve()))
    with pytest.raises(DeepLinkError, match="leaves the lane root through 'sib'"):
        resolve_file_target(lane, "sib/secret.txt")


@pytest.mark.parametrize(
    ("relative", "through"),
    [
        ("out/secret.txt", "out"),
        ("secret-link.txt", "secret-link.txt"),
        ("dangling", "dangling"),
        ("out/back/app.py", "out"),  # out and back in: still refused
    ],
)
def test_symlink_out_of_the_lane_is_refused(lane: Path, relative: str, through: str) -> None:
    with pytest.raises(DeepLinkError, match=f"through {through!r}"):
        resolve_file_target(lane, relative)


def test_symlink_loop_is_a_deep_link_error(lane: Path) -> None:
    with pytest.raises(DeepLinkError, match="cannot be resolved"):
        resolve_file_target(lane, "loop/x")


@pytest.mark.parametrize(
    "relative",
    [
        "../lane-evil/secret.txt",
        "src/../../outside/secret.txt",
        "src/..",
        "./src/app.py",
        "%2e%2e/outside/secret.txt",  # decoding again here would be the bug
        "..%2foutside%2fsecret.txt",
        "%2E%2E%2Foutside",
        "/etc/passwd",
        str(Path("/") / "tmp"),
        "src/app.py\x00.png",
        "src%00",
        "src\\..\\..\\outside",
        "src//app.py",
        "",
    ],
)
def test_malformed_relative_paths_are_refused(lane: Path, relative: str) -> None:
    with pytest.raises(DeepLinkError):
        resolve_file_target(lane, relative)


def test_missing_lane_root_is_refused(tmp_path: Path) -> None:
    with pytest.raises(DeepLinkError, match="not a folder"):
        resolve_file_target(tmp_path / "gone", "a.py")


def test_parsed_link_resolves_end_to_end(lane: Path) -> None:
    link = parse_deep_link(build_link("file", "src/app.py", line=1, lane="primary"))
    assert resolve_file_target(lane, link.target).read_text() == "print('hi')\n"
    for text in ("ade://file/%2e%2e/outside/secret.txt", "ade://file/..%2foutside"):
        with pytest.raises(DeepLinkError):
            parse_deep_link(text)
    # Well-formed at the string level, refused on disk.
    evil = parse_deep_link("ade://file/sib/secret.txt")
    with pytest.raises(DeepLinkError):
        resolve_file_target(lane, evil.target)


# --- portable envelope -------------------------------------------------------------------------


def _pr(number: int, head: str, state: str = "OPEN", day: int = 1) -> PrSnapshot:
    return PrSnapshot(
        number=number,
        title=f"PR {number}",
        body="",
        state=state,
        author="jane",
        head_branch=head,
        base_branch="main",
        url=f"https://github.com/acme/widgets/pull/{number}",
        updated_at=datetime(2026, 6, day, tzinfo=UTC),
    )


PRS = [
    _pr(7, "feature/login", state="MERGED", day=20),
    _pr(9, "feature/login", state="OPEN", day=2),
    _pr(11, "feature/other", day=25),
]


def test_envelope_from_all_sources() -> None:
    env = envelope_for_lane(
        repo="acme/widgets", branch="feature/ENG-42-login", prs=[_pr(3, "feature/ENG-42-login")]
    )
    assert env == Envelope(
        repo="acme/widgets", branch="feature/ENG-42-login", pr=3, linear="ENG-42"
    )
    link = build_link("chat", "s1", event=5, project_id="p", envelope=env)
    assert parse_deep_link(link).envelope == env


def test_envelope_prefers_the_open_pr_of_the_branch() -> None:
    env = envelope_for_lane(repo=None, branch="feature/login", prs=PRS)
    assert env == Envelope(branch="feature/login", pr=9)


def test_envelope_latest_pr_when_none_open() -> None:
    prs = [_pr(7, "fix", state="CLOSED", day=3), _pr(8, "fix", state="MERGED", day=9)]
    assert envelope_for_lane(repo=None, branch="fix", prs=prs) == Envelope(branch="fix", pr=8)


def test_envelope_linear_from_session_text_and_team_keys() -> None:
    env = envelope_for_lane(repo=None, branch="main", texts=["Fix the crash (ABC-7)"])
    assert env == Envelope(branch="main", linear="ABC-7")
    env = envelope_for_lane(repo=None, branch="jane/eng-42-fix", team_keys=["ENG"])
    assert env is not None
    assert env.linear == "ENG-42"


def test_envelope_drops_values_a_link_could_not_carry() -> None:
    env = envelope_for_lane(repo="not a slug", branch="bad..branch", prs=[_pr(1, "bad..branch")])
    assert env is None


def test_envelope_of_detached_head_without_repo_is_none() -> None:
    assert envelope_for_lane(repo=None, branch=None, prs=PRS) is None
    assert envelope_for_lane(repo="acme/widgets", branch=None, prs=PRS) == Envelope(
        repo="acme/widgets"
    )


@pytest.mark.parametrize(
    ("text", "keys", "expected"),
    [
        ("ABC-123", (), "ABC-123"),
        ("feature/ABC-123-login", (), "ABC-123"),
        ("see ENG-4, ABC-9", (), "ENG-4"),
        ("fix utf-8 decoding", (), None),
        ("jane/eng-42-fix", (), None),
        ("jane/eng-42-fix", ("ENG",), "ENG-42"),
        ("abc-1 then ENG-2", ("ABC",), "ABC-1"),
        ("XABC-12x", (), None),
        ("ABC-", (), None),
        ("A1-2", (), "A1-2"),
        ("", (), None),
        ("eng-5", ("eng", ""), None),  # a malformed key is ignored
    ],
)
def test_linear_identifier_in(text: str, keys: tuple[str, ...], expected: str | None) -> None:
    assert linear_identifier_in(text, team_keys=keys) == expected


@pytest.mark.parametrize(
    ("url", "slug"),
    [
        ("git@github.com:acme/widgets.git", "acme/widgets"),
        ("git@github.com:acme/widgets", "acme/widgets"),
        ("https://github.com/acme/widgets.git", "acme/widgets"),
        ("https://user:token@github.com/acme/widgets", "acme/widgets"),
        ("ssh://git@github.com/acme/widgets.git/", "acme/widgets"),
        ("https://gitlab.com/group/sub/widgets.git", "group/sub/widgets"),
        ("https://github.com/acme", None),
        ("/srv/git/widgets.git", None),
        ("file:///srv/git/acme/widgets.git", None),
        ("https://github.com/acme/../etc", None),
        ("", None),
    ],
)
def test_repo_slug_from_remote(url: str, slug: str | None) -> None:
    assert repo_slug_from_remote(url) == slug
