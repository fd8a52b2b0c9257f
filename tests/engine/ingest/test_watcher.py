"""The watcher: path → notify mapping, re-arm after ``.ade/`` is recreated, degraded start.

Real inotify events are asynchronous, so these tests wait on events the watcher sets, each with
a bounded deadline; nothing sleeps.
"""

from __future__ import annotations

import shutil
import threading
from pathlib import Path

import pytest
import watchfiles

from engine.ingest import watcher as watcher_mod
from engine.ingest.watcher import Notice, Watcher, classify
from engine.wiring import start_watcher

DEADLINE_S = 10.0

ADE = Path("/p/.ade")


@pytest.mark.parametrize(
    ("path", "notice"),
    [
        ("/p/.ade/chats/s1.jsonl", Notice("chat", "s1")),
        ("/p/.ade/chats/s1.jsonl.gz", Notice("chat", "s1")),
        ("/p/.ade/terminals/t.log", Notice("terminal", "t")),
        ("/p/.ade/terminals/t.log.gz", Notice("terminal", "t")),
        ("/p/.ade/sessions/s1.json", Notice("session", "s1")),
        ("/p/.ade/prs/42.json", Notice("pr", "42")),
        ("/p/.ade/lanes.json", Notice("lane", "*")),
        ("/p/.ade/chats", Notice("reconcile", "")),
        ("/p/.ade/cache/search-index.db-wal", None),
        ("/p/.ade/chats/bad id!.jsonl", None),
        ("/p/.ade/prs/notes.json", None),
        ("/p/.git/refs/heads/main", Notice("lane", "*")),
        ("/p/.git/HEAD", Notice("lane", "*")),
        ("/p/.git/refs/heads/main.lock", None),
        ("/p/.git/worktrees/wt/HEAD", Notice("lane", "*")),
        ("/p/.git/objects/ab/cdef", None),
        ("/p/src/main.py", None),
    ],
)
def test_classify(path: str, notice: Notice | None) -> None:
    assert classify(ADE, Path(path)) == notice


class Recorder:
    """A notify target that records calls and wakes waiters."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, object]] = []
        self.changed = threading.Condition()

    def _add(self, call: tuple[str, object]) -> None:
        with self.changed:
            self.calls.append(call)
            self.changed.notify_all()

    def notify_chat_event(self, session_id: str) -> None:
        self._add(("chat", session_id))

    def notify_terminal_data(self, session_id: str) -> None:
        self._add(("terminal", session_id))

    def notify_session_changed(self, session_id: str) -> None:
        self._add(("session", session_id))

    def notify_pr_changed(self, number: int) -> None:
        self._add(("pr", number))

    def notify_lane_activity(self, lane_id: str) -> None:
        self._add(("lane", lane_id))

    def request_reconcile(self) -> None:
        self._add(("reconcile", ""))

    def wait_for(self, call: tuple[str, object], timeout: float = DEADLINE_S) -> bool:
        with self.changed:
            return self.changed.wait_for(lambda: call in self.calls, timeout)

    def poke_until(self, path: Path, call: tuple[str, object]) -> bool:
        """Append to ``path`` until ``call`` is seen: "watching" is reported just before the
        watch is armed, so the first append may land in between."""
        for _ in range(int(DEADLINE_S / 0.2)):
            with path.open("ab") as handle:
                handle.write(b"{}\n")
            if self.wait_for(call, 0.2):
                return True
        return False


class States:
    def __init__(self) -> None:
        self.seen: list[str] = []
        self.changed = threading.Condition()

    def __call__(self, state: str) -> None:
        with self.changed:
            self.seen.append(state)
            self.changed.notify_all()

    def wait_count(self, state: str, count: int) -> bool:
        with self.changed:
            return self.changed.wait_for(lambda: self.seen.count(state) >= count, DEADLINE_S)


def test_rearms_after_ade_folder_is_deleted_and_recreated(project) -> None:
    (project.ade_dir / "chats").mkdir(parents=True)
    target, states = Recorder(), States()
    watcher = Watcher(project, target, lambda: [], states)
    watcher.start()
    try:
        assert states.wait_count("watching", 1)
        assert target.poke_until(project.ade_dir / "chats" / "s1.jsonl", ("chat", "s1"))
        shutil.rmtree(project.ade_dir)
        assert states.wait_count("waiting for .ade/", 1)
        (project.ade_dir / "chats").mkdir(parents=True)
        assert states.wait_count("watching", 2)
        assert target.poke_until(project.ade_dir / "chats" / "s2.jsonl", ("chat", "s2"))
        assert watcher.rearms >= 2
        assert ("reconcile", "") in target.calls
    finally:
        watcher.stop()


def test_git_ref_change_notifies_lane_activity(project, writer) -> None:
    writer.commit("first")
    project.ade_dir.mkdir()
    target, states = Recorder(), States()
    watcher = Watcher(project, target, lambda: [project.root / ".git"], states)
    watcher.start()
    try:
        assert states.wait_count("watching", 1)
        seen = False
        for n in range(20):  # the first commit may land before the watch is armed
            writer.commit(f"commit {n}")
            if seen := target.wait_for(("lane", "*"), 0.3):
                break
        assert seen
    finally:
        watcher.stop()


def test_watcher_that_cannot_start_degrades_and_says_so(service, monkeypatch) -> None:
    def refuse(*args: object, **kwargs: object) -> object:
        raise OSError("OS file watch limit reached")

    monkeypatch.setattr(watchfiles, "watch", refuse)
    monkeypatch.setattr(watcher_mod.watchfiles, "watch", refuse)
    service.project.ade_dir.mkdir(exist_ok=True)
    running = start_watcher(service)
    running.stop()  # joins: the thread already gave up
    status = service.index_status()
    assert status.watcher_state.startswith("degraded")
    assert "limit" in status.watcher_state
    assert service.drainer.reconcile_interval < 30
