"""The daemon's manifest reuses an ``.ade`` folder's last listing while nothing changed in it
(``engine.ingest.quiet_folders``, inotify) and gives the digest a full listing gives after
every change: a write just before a search is still seen (docs/freshness.md)."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from engine.ingest.manifest import Manifest, project_manifest
from engine.ingest.quiet_folders import Listed, QuietFolders, shared_quiet_folders
from engine.project.model import Project

pytestmark = [
    pytest.mark.usefixtures("no_external_tools"),
    pytest.mark.skipif(not os.path.exists("/proc/sys/fs/inotify"), reason="Linux inotify"),
]


@pytest.fixture
def quiet() -> Iterator[QuietFolders]:
    folders = QuietFolders()
    yield folders
    folders.close()


def _both(project: Project, quiet: QuietFolders) -> tuple[Manifest, Manifest]:
    env = dict(os.environ)
    full = project_manifest(project, [], env)
    reused = project_manifest(project, [], env, quiet)
    assert full is not None
    assert reused is not None
    return full, reused


def _same(project: Project, quiet: QuietFolders) -> str:
    full, reused = _both(project, quiet)
    assert reused.digest == full.digest
    assert reused.covered == full.covered
    assert full.listing is not None
    assert reused.listing is not None
    assert reused.listing.entries == full.listing.entries
    assert reused.listing.regular == full.listing.regular
    return full.digest


def _project(project: Project, writer: Any) -> None:
    writer.session("c1")
    writer.chat("c1", "user_message", id="m1", text="hello quiet", status="accepted")
    writer.session("t1", kind="terminal")
    writer.terminal("t1", b"terminal words\n")


def test_an_unchanged_folder_is_not_listed_again(
    project: Project, writer: Any, quiet: QuietFolders
) -> None:
    _project(project, writer)
    first = _same(project, quiet)  # listed in full, watched from before the listing
    assert quiet.reused == 0
    assert _same(project, quiet) == first
    assert quiet.reused == 3  # sessions, chats, terminals (prs is missing: listed each time)


def test_every_change_is_seen_as_a_full_listing_sees_it(
    project: Project, writer: Any, quiet: QuietFolders, tmp_path: Path
) -> None:
    _project(project, writer)
    chats = project.ade_dir / "chats"
    chat = next(chats.iterdir())
    digests = [_same(project, quiet)]

    def changed() -> None:
        digest = _same(project, quiet)
        assert digest != digests[-1]
        digests.append(digest)

    with chat.open("a") as f:  # a line appended
        f.write('{"seq": 9}\n')
    changed()
    size = chat.stat().st_size
    os.utime(chat, ns=(1, 1))  # touched only: same size, same inode
    changed()
    with chat.open("r+") as f:  # rewritten in place, same size
        f.write("x")
    assert chat.stat().st_size == size
    changed()
    (chats / "new.jsonl").write_text("{}\n")  # a new file
    changed()
    (chats / "new.jsonl").rename(chats / "renamed.jsonl")
    changed()
    (chats / "renamed.jsonl").unlink()
    changed()
    session = next((project.ade_dir / "sessions").iterdir())
    session.write_text(session.read_text() + " ")
    changed()
    # The folder replaced: the watch follows the old inode; the path names another folder.
    shutil.copytree(chats, tmp_path / "chats-copy")
    chats.rename(tmp_path / "chats-old")
    (tmp_path / "chats-copy").rename(chats)
    changed()  # the same names and sizes, other inodes
    assert _same(project, quiet) == digests[-1]  # and quiet again: reused
    before = quiet.reused
    _same(project, quiet)
    assert quiet.reused == before + 3


@pytest.mark.parametrize("link", ["symlink", "hardlink"])
def test_a_linked_transcript_written_elsewhere_is_seen(
    project: Project, writer: Any, quiet: QuietFolders, tmp_path: Path, link: str
) -> None:
    """A write through another name raises no event in this folder: such a folder is listed
    every time."""
    _project(project, writer)
    outside = tmp_path / "elsewhere.jsonl"
    outside.write_text("{}\n")
    linked = project.ade_dir / "chats" / "linked.jsonl"
    if link == "symlink":
        linked.symlink_to(outside)
    else:
        os.link(outside, linked)
    first = _same(project, quiet)
    with outside.open("a") as f:
        f.write('{"seq": 2}\n')
    assert _same(project, quiet) != first


def test_after_close_it_lists_again_and_watches_anew(
    project: Project, writer: Any, quiet: QuietFolders
) -> None:
    _project(project, writer)
    _same(project, quiet)
    quiet.close()
    _same(project, quiet)
    assert quiet.reused == 0
    chat = next((project.ade_dir / "chats").iterdir())
    with chat.open("a") as f:
        f.write('{"seq": 3}\n')
    first = _same(project, quiet)
    assert quiet.reused == 2  # sessions, terminals: the append forgot the chats folder
    assert _same(project, quiet) == first


def test_a_change_read_by_another_catch_up_while_listing_keeps_the_listing_out(
    project: Project, writer: Any, quiet: QuietFolders
) -> None:
    """The daemon's services share one ``QuietFolders``: an event one of them reads between
    another's watch and its ``remember`` must not leave a listing made before the change."""
    _project(project, writer)
    chats = str(project.ade_dir / "chats")
    watched = quiet.watch(chats)
    assert watched is not None
    wd, identity, mark = watched
    listed = Listed(wd, identity, b"", {}, frozenset(), 0)  # as listed before the write
    with next((project.ade_dir / "chats").iterdir()).open("a") as f:
        f.write('{"seq": 4}\n')
    quiet.forget_changed()  # another service's catch-up reads the event
    quiet.remember(chats, listed, mark)
    assert quiet.listed(chats) is None
    _same(project, quiet)  # listed in full, and kept this time
    assert quiet.listed(chats) is not None


def test_the_daemon_keeps_one_for_every_project() -> None:
    assert shared_quiet_folders() is shared_quiet_folders()


def _codex_rollout(home: Path, day: str = "07") -> Path:
    rollout = home / ".codex" / "sessions" / "2026" / "12" / day / "rollout-1.jsonl"
    rollout.parent.mkdir(parents=True, exist_ok=True)
    rollout.write_text("{}\n")
    return rollout


def test_an_agent_folder_that_appears_is_seen_as_a_full_listing_sees_it(
    project: Project, writer: Any, quiet: QuietFolders
) -> None:
    """The agents' folders that are not there are known missing while nothing changed in the
    folder above them that is (their anchor); one that appears, at any depth, is listed."""
    _project(project, writer)
    home = Path(os.environ["HOME"])
    digests = [_same(project, quiet)]
    assert _same(project, quiet) == digests[0]
    assert quiet.still_missing > 10  # the tools never run here: no scandir of each

    def changed() -> None:
        digest = _same(project, quiet)
        assert digest != digests[-1]
        digests.append(digest)
        assert _same(project, quiet) == digest  # and quiet again

    rollout = _codex_rollout(home)  # ~/.codex did not exist: created in the anchor, HOME
    changed()
    with rollout.open("a") as f:  # the folder is there now: listed as before
        f.write('{"seq": 2}\n')
    changed()
    # Deep under a folder that is there (~/.config/Code/User/...: anchor ~/.config).
    (home / ".config").mkdir()  # no agent folder yet: the same digest, the anchor moves down
    assert _same(project, quiet) == digests[-1]
    assert _same(project, quiet) == digests[-1]
    tasks = home / ".config/Code/User/globalStorage/saoudrizwan.claude-dev/tasks/t1"
    tasks.mkdir(parents=True)
    (tasks / "api_conversation_history.json").write_text("[]")
    changed()
    (project.ade_dir / "prs").mkdir()  # an .ade folder that was missing
    (project.ade_dir / "prs" / "1.json").write_text("{}")
    changed()


def test_a_folder_behind_a_dangling_link_is_listed_each_time(
    project: Project, writer: Any, quiet: QuietFolders, tmp_path: Path
) -> None:
    """A link whose target appears raises no event where the link is: never known missing."""
    _project(project, writer)
    home = Path(os.environ["HOME"])
    target = tmp_path / "codex-elsewhere"
    (home / ".codex").symlink_to(target)
    first = _same(project, quiet)
    assert _same(project, quiet) == first
    _codex_rollout(target.parent / "codex-target-home")  # unrelated: still dangling
    assert _same(project, quiet) == first
    rollout = target / "sessions" / "2026" / "12" / "07" / "rollout-1.jsonl"
    rollout.parent.mkdir(parents=True)
    rollout.write_text("{}\n")
    assert _same(project, quiet) != first


@pytest.mark.parametrize("how", ["moved", "link repointed"])
def test_a_replaced_anchor_is_seen(
    project: Project,
    writer: Any,
    quiet: QuietFolders,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    how: str,
) -> None:
    """The anchor (here HOME) moved away and another folder put at its path, or HOME a link
    pointed at another folder (no event in the old one), holding the agent's folder."""
    _project(project, writer)
    home = Path(os.environ["HOME"])
    if how == "link repointed":
        home = tmp_path / "home-link"
        home.symlink_to(tmp_path / "home")
        monkeypatch.setenv("HOME", str(home))
    first = _same(project, quiet)
    assert _same(project, quiet) == first
    other = tmp_path / "other-home"
    other.mkdir()
    _codex_rollout(other)
    if how == "moved":
        home.rename(tmp_path / "old-home")
        other.rename(home)
    else:
        home.unlink()
        home.symlink_to(other)
    assert _same(project, quiet) != first
