"""Folders that appear after the project was opened are watched from then on (docs/watching.md).

Real inotify events and a real stat poll: every wait is on an event the watcher or the service
sets, each with a bounded deadline; nothing sleeps.
"""

from __future__ import annotations

import json
import os
import shutil
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.external.discover import claude_slug
from engine.ingest.watch_plan import identity, plan
from engine.ingest.watcher import Watcher
from engine.project.model import Project
from engine.service import SearchService
from engine.types import SearchQueryArgs
from engine.wiring import start_watcher

from .test_watcher import DEADLINE_S, Recorder, States


def claude_line(text: str, cwd: Path) -> bytes:
    record = {"parentUuid": None, "isSidechain": False, "cwd": str(cwd), "sessionId": "s1",
              "type": "user", "message": {"role": "user", "content": text}, "uuid": "u1",
              "timestamp": "2026-05-28T10:00:00.000Z"}  # fmt: skip
    return json.dumps(record).encode() + b"\n"


@pytest.fixture
def claude_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A Claude Code home that does not exist yet (the tool was never run)."""
    home = tmp_path / "claude-home"
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(home))
    return home


class ExternalRecorder(Recorder):
    def notify_external_file(self, path: Path) -> None:
        self._add(("external", str(path)))


def test_plan_tells_a_root_that_appeared_vanished_or_was_replaced(tmp_path: Path) -> None:
    here, later = tmp_path / "here", tmp_path / "later"
    here.mkdir()
    roots = plan([here, later, here / "inside", here])
    assert roots.watched == [here]
    assert roots.waiting == [later]
    assert not roots.changed()
    later.mkdir()
    assert roots.changed()  # appeared
    replaced = plan([here])
    here.rmdir()
    assert replaced.changed()  # vanished
    here.mkdir()
    assert plan([here]).identities[0] == identity(here)
    (tmp_path / "file").write_text("x")
    assert identity(tmp_path / "file") is None  # a file where a folder belongs is no root


def reference_plan_roots(roots: list[Path]) -> tuple[Path, ...]:
    """``plan``'s roots as first written: each root tested against every other one's parents."""
    unique: list[Path] = []
    for root in roots:
        if root not in unique:
            unique.append(root)
    return tuple(r for r in unique if not any(o in r.parents for o in unique if o != r))


@settings(max_examples=300, deadline=None)
@given(st.lists(st.lists(st.sampled_from(["a", "b", ".claude", "x"]), min_size=1, max_size=4)
                .map(lambda names: Path("/", *names)), max_size=10))  # fmt: skip
def test_plan_keeps_the_roots_it_kept(roots: list[Path]) -> None:
    """Duplicates and roots under another root are dropped, the rest kept in order."""
    assert plan(roots).roots == reference_plan_roots(roots)


def test_claude_folder_made_after_the_watch_started_is_watched(
    project: Project, claude_home: Path
) -> None:
    project.ade_dir.mkdir()
    target, states = ExternalRecorder(), States()
    roots = lambda: [claude_home / "projects"]  # noqa: E731
    watcher = Watcher(project, target, lambda: [], states, roots)
    watcher.start()
    try:
        assert states.wait_count("watching", 1)
        folder = claude_home / "projects" / claude_slug(project.root)
        folder.mkdir(parents=True)
        transcript = folder / "s1.jsonl"
        assert target.poke_until(transcript, ("external", str(transcript)))
        # Deleted and made again at once (the inode number is often reused): the old watch is
        # blind; its deletion event re-arms on the new folder.
        shutil.rmtree(claude_home)
        folder.mkdir(parents=True)
        assert states.wait_count("watching", 3)
        again = folder / "s2.jsonl"
        assert target.poke_until(again, ("external", str(again)))
    finally:
        watcher.stop()


def test_ade_subfolder_made_after_the_watch_started_is_watched(project: Project) -> None:
    project.ade_dir.mkdir()
    target, states = Recorder(), States()
    watcher = Watcher(project, target, lambda: [], states)
    watcher.start()
    try:
        assert states.wait_count("watching", 1)
        (project.ade_dir / "terminals").mkdir()
        assert target.poke_until(project.ade_dir / "terminals" / "t1.log", ("terminal", "t1"))
    finally:
        watcher.stop()


@pytest.fixture
def reconciles(service: SearchService, monkeypatch: pytest.MonkeyPatch) -> threading.Event:
    """Set each time something asks the service for a reconcile (the watcher's re-arm)."""
    asked = threading.Event()
    real = service.request_reconcile

    def recording() -> None:
        real()
        asked.set()

    monkeypatch.setattr(service, "request_reconcile", recording)
    return asked


@pytest.fixture
def watched(service: SearchService) -> Iterator[Watcher]:
    service.project.ade_dir.mkdir(exist_ok=True)
    watcher = start_watcher(service)
    yield watcher
    watcher.stop()


def test_a_new_claude_session_in_a_new_folder_is_searchable_without_a_reconcile_timer(
    claude_home: Path, service: SearchService, reconciles: threading.Event, watched: Watcher
) -> None:
    """Before: the folder was never watched, the line waited for the periodic reconcile."""
    assert not (claude_home / "projects").exists()
    assert watched.armed.wait(DEADLINE_S)
    service.process_pending_now()
    reconciles.clear()
    folder = claude_home / "projects" / claude_slug(service.project.root)
    folder.mkdir(parents=True)
    (folder / "5e55-1.jsonl").write_bytes(
        claude_line("the zyzzyva regression", service.project.root)
    )
    assert reconciles.wait(DEADLINE_S)  # the poll saw the folder, the watcher re-armed
    service.process_pending_now()
    hits = service.query(SearchQueryArgs(query="zyzzyva", limit=10)).items
    assert hits
    assert {h.kind for h in hits} == {"chat"}
    # And the next line of that session is a watch event of its own.
    reconciles.clear()
    with (folder / "5e55-2.jsonl").open("ab") as handle:
        handle.write(claude_line("a quagga follows", service.project.root))
    assert reconciles.wait(DEADLINE_S)  # a new file: the service re-lists
    service.process_pending_now()
    assert service.query(SearchQueryArgs(query="quagga", limit=10)).items
    assert os.environ["CLAUDE_CONFIG_DIR"] == str(claude_home)


def test_a_new_session_folder_inside_a_watched_root_is_not_missed(
    project: Project, claude_home: Path
) -> None:
    """``mkdir`` and the first write at once: the new folder's own watch may come too late for
    the file, so the folder's creation itself asks for a reconcile (written once, no poke)."""
    project.ade_dir.mkdir()
    (claude_home / "projects").mkdir(parents=True)
    target, states = ExternalRecorder(), States()
    watcher = Watcher(project, target, lambda: [], states, lambda: [claude_home / "projects"])
    watcher.start()
    try:
        assert watcher.armed.wait(DEADLINE_S)
        folder = claude_home / "projects" / claude_slug(project.root)
        folder.mkdir()
        transcript = folder / "s1.jsonl"
        transcript.write_bytes(claude_line("first words", project.root))
        with target.changed:
            assert target.changed.wait_for(
                lambda: (
                    ("reconcile", "") in target.calls
                    or ("external", str(transcript)) in target.calls
                ),
                DEADLINE_S,
            )
    finally:
        watcher.stop()


def test_the_watch_follows_the_agent_folders_when_the_environment_names_others(
    project: Project, tmp_path: Path
) -> None:
    """A daemon points its service at the caller's folders after opening it: the roots asked
    for at the next poll replace the ones armed on."""
    project.ade_dir.mkdir()
    first, second = tmp_path / "first", tmp_path / "second"
    first.mkdir()
    second.mkdir()
    named = [first]
    target, states = ExternalRecorder(), States()
    watcher = Watcher(project, target, lambda: [], states, lambda: list(named))
    watcher.start()
    try:
        assert watcher.armed.wait(DEADLINE_S)
        named[:] = [second]
        assert states.wait_count("watching", 2)
        transcript = second / "s1.jsonl"
        assert target.poke_until(transcript, ("external", str(transcript)))
    finally:
        watcher.stop()
