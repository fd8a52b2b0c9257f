"""Agents whose store is a SQLite database or lives in the project are followed live
(docs/watching.md): a write reaches the index through the watcher and the drain, with no search
and no reconcile timer. Crush's ``.crush/crush.db`` and Aider's history sit in a lane; Goose's
``sessions.db`` in the user's folders. Each database write lands in its ``-wal`` alone (the
writer keeps its connection open and never checkpoints), as the agents write them.

Real inotify events: every wait is on a call the watcher makes, with a bounded deadline; nothing
sleeps. ``process_pending_now`` drains only what was queued, so a hit proves the watcher asked.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import apsw
import pytest

from engine.external.sqlite_store import store_rows
from engine.ingest.watcher import Watcher
from engine.service import SearchService
from engine.types import SearchQueryArgs
from engine.wiring import start_watcher
from tests.engine.external.agent_homes import FIXTURES, install_crush, install_database, put_in

from .test_watcher import DEADLINE_S

AIDER_HEAD = b"# aider chat started at 2026-06-01 10:00:00\n\n#### why is the numbat build red\n\n"


class Asked:
    """What the watcher asked the service, recorded as it is passed on."""

    def __init__(self, service: SearchService, monkeypatch: pytest.MonkeyPatch) -> None:
        self.paths: list[Path] = []
        self.reconciles = 0
        self.changed = threading.Condition()
        external, reconcile = service.notify_external_file, service.request_reconcile

        def on_file(path: Path) -> None:
            external(path)
            with self.changed:
                self.paths.append(path)
                self.changed.notify_all()

        def on_reconcile() -> None:
            reconcile()
            with self.changed:
                self.reconciles += 1
                self.changed.notify_all()

        monkeypatch.setattr(service, "notify_external_file", on_file)
        monkeypatch.setattr(service, "request_reconcile", on_reconcile)

    def wait_path(self, path: Path) -> bool:
        with self.changed:
            return self.changed.wait_for(lambda: path in self.paths, DEADLINE_S)

    def wait_reconcile(self, after: int) -> bool:
        with self.changed:
            return self.changed.wait_for(lambda: self.reconciles > after, DEADLINE_S)


@pytest.fixture
def asked(service: SearchService, monkeypatch: pytest.MonkeyPatch) -> Asked:
    return Asked(service, monkeypatch)


@pytest.fixture
def watched(service: SearchService, asked: Asked) -> Iterator[Watcher]:
    del asked  # recording before the watcher holds the service's hooks
    service.project.ade_dir.mkdir(exist_ok=True)
    service.catch_up()  # indexed, and the agents' sessions listed, before the write
    watcher = start_watcher(service)
    assert watcher.armed.wait(DEADLINE_S)
    assert watcher.files_armed.wait(DEADLINE_S)
    yield watcher
    watcher.stop()


def _hits(service: SearchService, word: str) -> list[str]:
    items = service.query(SearchQueryArgs(query=word, limit=10)).items
    return [item.doc_id for item in items]


def handed_over(asked: Asked, folder: Path, *names: str) -> None:
    """Write each of ``names`` in ``folder`` and wait for its event: a later event of the same
    watch, so every event before it has been handed over (the barrier of a test that counts)."""
    for name in names:
        barrier = folder / name
        barrier.write_text("crush log line\n")
        assert asked.wait_path(barrier)


@contextmanager
def in_wal(db: Path, sql: str) -> Iterator[Path]:
    """Rows added as an agent adds them while it holds the database open: in the ``-wal``
    alone, the database file left as it was (the writer never checkpoints before it closes)."""
    before = db.stat().st_mtime_ns
    conn = apsw.Connection(str(db))
    try:
        conn.execute("PRAGMA wal_autocheckpoint = 0").fetchall()
        conn.execute(sql)
        assert db.stat().st_mtime_ns == before
        yield Path(f"{db}-wal")
    finally:
        conn.close()


@pytest.fixture
def crush_db(service: SearchService, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    db, _ = install_crush(service.project.root, tmp_path / "other-lane")
    return db


def test_a_crush_write_to_its_wal_alone_is_followed(
    service: SearchService, crush_db: Path, asked: Asked, watched: Watcher
) -> None:
    assert _hits(service, "capybara")
    assert not _hits(service, "agouti")
    with in_wal(crush_db, (FIXTURES / "crush" / "append.sql").read_text()) as wal:
        assert asked.wait_path(wal)
        service.process_pending_now()
        assert _hits(service, "agouti")


def test_a_crush_database_made_after_the_watch_started_is_followed(
    service: SearchService, tmp_path: Path, asked: Asked, watched: Watcher
) -> None:
    """Crush run for the first time in the project: ``.crush`` did not exist when armed."""
    assert not (service.project.root / ".crush").exists()
    seen = asked.reconciles
    db, _ = install_crush(service.project.root, tmp_path / "other-lane")
    assert asked.wait_reconcile(seen)  # the poll saw the folder, the watcher re-armed
    service.process_pending_now()
    assert _hits(service, "capybara")
    assert watched.armed.wait(DEADLINE_S)
    handed_over(asked, db.parent, "first.log", "second.log")  # every event of the reads above
    handed = len(asked.paths)
    with in_wal(db, (FIXTURES / "crush" / "append.sql").read_text()) as wal:
        with asked.changed:  # the write's own event, not one of a read before it
            assert asked.changed.wait_for(lambda: wal in asked.paths[handed:], DEADLINE_S)
        service.process_pending_now()
        assert _hits(service, "agouti")


def test_an_aider_history_is_followed_from_its_first_run(
    service: SearchService, asked: Asked, watched: Watcher
) -> None:
    """The lane's root is watched alone (not its subfolders): the history appearing, then each
    exchange appended to it."""
    history = service.project.root / ".aider.chat.history.md"
    history.write_bytes(AIDER_HEAD)
    assert asked.wait_path(history)
    service.process_pending_now()
    assert _hits(service, "numbat")
    with history.open("ab") as handle:
        handle.write(b"#### now the weasel case too\n\n")
    seen = len(asked.paths)
    with asked.changed:
        assert asked.changed.wait_for(lambda: history in asked.paths[seen:], DEADLINE_S)
    service.process_pending_now()
    assert _hits(service, "weasel")


def test_other_files_in_the_lane_root_are_not_followed(
    service: SearchService, asked: Asked, watched: Watcher
) -> None:
    noise = service.project.root / "notes.md"
    noise.write_text("not an agent's\n")
    history = service.project.root / ".aider.chat.history.md"
    history.write_bytes(AIDER_HEAD)
    assert asked.wait_path(history)
    assert noise not in asked.paths


def test_a_goose_write_to_its_wal_alone_is_followed(
    service: SearchService, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, asked: Asked
) -> None:
    root = tmp_path / "goose-root"
    monkeypatch.setenv("GOOSE_PATH_ROOT", str(root))
    db = install_database("goose", root / "data" / "sessions" / "sessions.db",
                          service.project.root, tmp_path / "other-lane")  # fmt: skip
    conn = apsw.Connection(str(db))
    conn.execute("PRAGMA journal_mode = WAL").fetchall()  # as goose (sqlx) opens it
    conn.close()
    service.project.ade_dir.mkdir(exist_ok=True)
    service.catch_up()
    assert _hits(service, "jerboa")
    watcher = start_watcher(service)
    try:
        assert watcher.armed.wait(DEADLINE_S)
        seen = asked.reconciles
        sql = put_in("goose", (FIXTURES / "goose" / "append.sql").read_text(),
                     service.project.root, tmp_path / "other-lane")  # fmt: skip
        with in_wal(db, sql):
            assert asked.wait_reconcile(seen)  # a write to the store: its sessions re-listed
            service.process_pending_now()
            assert _hits(service, "pika")
    finally:
        watcher.stop()


def test_reading_a_crush_database_does_not_wake_the_watcher_again(
    service: SearchService, crush_db: Path, asked: Asked, watched: Watcher
) -> None:
    """A reader that opens the database first rebuilds its ``-shm`` (the wal-index), writing to
    it: a write there is not the agent's, or every reconcile would ask for the next, forever."""
    del watched
    shm = Path(f"{crush_db}-shm")
    with in_wal(crush_db, (FIXTURES / "crush" / "append.sql").read_text()) as wal:
        assert asked.wait_path(wal)
        service.process_pending_now()
        handed_over(asked, crush_db.parent, "first.log")
        seen = asked.reconciles
        shm.write_bytes(shm.read_bytes())  # what a reader's rebuild does
        handed_over(asked, crush_db.parent, "second.log")
        assert shm in asked.paths  # seen, and dropped
        assert asked.reconciles == seen


def test_reading_a_database_whose_wal_is_handed_to_its_owner_does_not_wake_the_watcher(
    service: SearchService, crush_db: Path, asked: Asked, watched: Watcher
) -> None:
    """Run as root, SQLite hands every ``-wal`` it opens to the database's owner (a chown: an
    event, the file's content untouched), a read-only reader's too: a change that leaves the
    file's size and time as they were is no write, or every reconcile's read of the store would
    ask for the next, forever (a daemon at one core's worth of CPU)."""
    del watched
    with in_wal(crush_db, (FIXTURES / "crush" / "append.sql").read_text()) as wal:
        assert asked.wait_path(wal)
        service.process_pending_now()
        handed_over(asked, crush_db.parent, "first.log")
        seen, handed = asked.reconciles, len(asked.paths)
        assert store_rows(crush_db, "SELECT count(*) FROM sqlite_master")  # as a reconcile does
        owner = wal.stat()
        os.chown(wal, owner.st_uid, owner.st_gid)  # what SQLite does as root, made sure of
        handed_over(asked, crush_db.parent, "second.log", "third.log")  # the second's group whole
        assert wal in asked.paths[handed:]  # seen, and dropped
        assert asked.reconciles == seen
