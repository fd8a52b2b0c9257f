"""A warm catch-up where nothing changed does no per-session work (the start-up budget).

The manifest (``engine.ingest.manifest``) is one digest of one ``scandir`` per ``.ade`` folder;
when it equals the one stored after the last fully drained reconcile, the reconcile is skipped:
no session file parsed, no source row read, no write lock. Any change brings the full reconcile
back, so a changed, new or deleted session is still caught up.
"""

from __future__ import annotations

from typing import Any

import apsw
import pytest

import engine.ingest.reconcile as reconcile
from engine.index.db import connect, meta_get
from engine.index.sources import MANIFEST_KEY
from engine.service import SearchService
from engine.service.catch_up import BUSY_NOTE
from engine.types import SearchQueryArgs

pytestmark = pytest.mark.usefixtures("no_external_tools")


@pytest.fixture
def listings(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """How many sessions each reconcile found in the sessions folder."""
    calls: list[int] = []
    real = reconcile.session_file_ids

    def spy(*args: Any) -> Any:
        found = real(*args)
        calls.append(len(found))
        return found

    monkeypatch.setattr(reconcile, "session_file_ids", spy)
    return calls


def _warm(service: SearchService, writer: Any) -> None:
    writer.session("c1")
    writer.chat("c1", "user_message", id="m1", text="hello manifest", status="accepted")
    writer.session("t1", kind="terminal")
    writer.terminal("t1", b"terminal words\n")
    writer.pr(4, "A pull request")
    service.catch_up()  # cold: everything ingested, the manifest stored


def _ids(service: SearchService, text: str) -> list[str]:
    res = service.query(SearchQueryArgs(query=text, kinds=("chat", "terminal", "pr", "commit")))
    return [item.doc_id for item in res.items]


def test_nothing_changed_parses_no_session_and_takes_no_write_lock(
    service: SearchService, writer: Any, listings: list[int]
) -> None:
    _warm(service, writer)
    assert listings == [2]
    assert meta_get(service.readers.reader(), MANIFEST_KEY) is not None
    holder = connect(service.project.index_path)
    holder.execute("BEGIN IMMEDIATE")  # another process's long drain holds the write lock
    try:
        service.catch_up()
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    assert listings == [2]  # not listed again
    assert service.drainer.skipped_reconciles == 1
    assert not service.drainer.busy  # never waited for the lock
    result = service.query(SearchQueryArgs(query="hello"))
    assert BUSY_NOTE not in result.warnings
    assert [i.doc_id for i in result.items] == ["chat:c1:m1"]


def test_changed_new_and_deleted_sessions_are_still_caught_up(
    service: SearchService, writer: Any, listings: list[int]
) -> None:
    _warm(service, writer)
    writer.chat("c1", "assistant_message", id="m2", text="appended manifest words")
    service.catch_up()
    assert "chat:c1:m2" in _ids(service, "appended")
    writer.session("c2")
    writer.chat("c2", "user_message", id="m1", text="brand new session", status="accepted")
    service.catch_up()
    assert _ids(service, "brand") == ["chat:c2:m1"]
    (writer.root / ".ade" / "sessions" / "c2.json").unlink()
    service.catch_up()
    assert _ids(service, "brand") == []
    writer.pr(4, "A renamed pull request")
    service.catch_up()
    assert _ids(service, "renamed") == ["pr:4"]
    assert service.drainer.skipped_reconciles == 0
    service.catch_up()  # and once caught up, warm again
    assert service.drainer.skipped_reconciles == 1
    assert len(listings) == 5


def test_a_new_commit_is_caught_up(service: SearchService, writer: Any) -> None:
    _warm(service, writer)
    writer.commit("manifest sees this commit")
    service.catch_up()
    assert service.drainer.skipped_reconciles == 0
    assert any(i.startswith("commit:") for i in _ids(service, "manifest sees"))


def test_an_unfinished_pass_stores_no_manifest(
    service: SearchService, writer: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    writer.session("c1")
    writer.chat("c1", "user_message", id="m1", text="hello", status="accepted")
    import engine.ingest.transcripts as transcripts

    def fail(*args: Any) -> Any:
        raise apsw.IOError("disk I/O error")

    monkeypatch.setattr(transcripts, "process_session", fail)
    service.catch_up()
    assert meta_get(service.readers.reader(), MANIFEST_KEY) is None
    monkeypatch.undo()
    service.catch_up()  # the failed session is retried: the reconcile ran in full
    assert _ids(service, "hello") == ["chat:c1:m1"]


def test_the_settings_it_digests_are_the_ingestion_settings() -> None:
    from engine.ingest.history_plan import DEPTH_ENV
    from engine.ingest.manifest import SETTINGS

    assert DEPTH_ENV in SETTINGS


def test_a_reconcile_reads_the_session_files_of_changed_sessions_only(
    service: SearchService, writer: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A session whose files match the signature stored at its last pass is kept alive unread;
    one whose transcript changed is read."""
    _warm(service, writer)
    read: list[list[str]] = []
    real = reconcile.read_sessions

    def spy(project: Any, ids: list[str], tally: Any) -> Any:
        read.append(list(ids))
        return real(project, ids, tally)

    monkeypatch.setattr(reconcile, "read_sessions", spy)
    writer.chat("c1", "assistant_message", id="m2", text="appended manifest words")
    service.catch_up()
    assert read == [["c1"]]
    assert "chat:c1:m2" in _ids(service, "appended")
    assert any(i.startswith("terminal:t1") for i in _ids(service, "terminal"))  # kept, unread
