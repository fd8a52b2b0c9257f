"""A 50 MiB chat line, deep JSON lines, FIFOs and links out, through the real ingester
(docs/reliability.md).

The huge line is really 50 MiB on disk (written in 1 MiB pieces); the ingester must index its
head truncated and marked, move past it, and count it — and a later process must still see the
count in its status.
"""

from __future__ import annotations

import json
import os
import resource
import threading
from pathlib import Path
from typing import Any

import pytest

import engine.ingest.tailing as tailing
from engine.ingest.docs import TRUNCATED_MARK
from engine.ingest.timers import ManualTimerFactory
from engine.project.model import Project
from engine.query.source_text import document_texts
from engine.service import SearchService
from engine.types import SearchQueryArgs
from engine.wiring import create_project_service

from .conftest import NOW

HUGE_LINE_BYTES = 50 * 1024 * 1024
DEEP = b"[" * 100_000 + b"]" * 100_000


def _event(seq: int, mid: str, text: str) -> bytes:
    event = {"seq": seq, "ts": "2026-06-01T09:30:00+00:00", "type": "user_message",
             "id": mid, "text": text, "status": "accepted"}  # fmt: skip
    return json.dumps(event).encode() + b"\n"


def _write_huge_line(path: Path, seq: int, word: str) -> int:
    """One ``user_message`` line of ``HUGE_LINE_BYTES`` whose text starts with ``word``."""
    head = json.dumps({"seq": seq, "ts": "2026-06-01T09:30:00+00:00", "type": "user_message",
                       "id": "huge", "status": "accepted", "text": f"{word} "})[:-2]  # fmt: skip
    piece = b"A" * (1 << 20)
    written = 0
    with path.open("ab") as handle:
        written += handle.write(head.encode())
        while written < HUGE_LINE_BYTES - (1 << 20):
            written += handle.write(piece)
        written += handle.write(b'"}\n')
    return written


def _body(service: SearchService, doc_id: str) -> str:
    texts = document_texts(service.readers.reader(), service.project, [doc_id])
    assert doc_id in texts, f"{doc_id} not indexed"
    return texts[doc_id]


def _later_service(project: Project) -> SearchService:
    """A second service on the same index: what a later `ade search --status` sees."""
    return create_project_service(
        project, clock=lambda: NOW, timer=ManualTimerFactory(), start_worker=False
    )


def test_fifty_mib_line_is_indexed_truncated_marked_and_counted_for_later_runs(
    service: SearchService, writer: Any, project: Project, cursor_of: Any
) -> None:
    writer.session("s")
    path = writer.chat_path("s")
    writer.append_raw(path, _event(1, "before", "before line"))
    size = len(_event(1, "before", "before line")) + _write_huge_line(path, 2, "needle")
    writer.append_raw(path, _event(3, "after", "after line"))
    size += len(_event(3, "after", "after line"))
    rss_before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    service.catch_up()
    grown_mib = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - rss_before) / 1024
    assert grown_mib < 48, "the 50 MiB line must not be read whole"
    assert cursor_of("chat:s") == size, "the cursor moved past the huge line and the next one"
    hits = service.query(SearchQueryArgs(query="needle"))
    assert [item.doc_id for item in hits.items] == ["chat:s:huge"]
    assert _body(service, "chat:s:huge").endswith(TRUNCATED_MARK)
    assert service.query(SearchQueryArgs(query="after")).total == 1
    assert service.index_status().warnings == {"chat:s": 1}
    service.dispose()
    later = _later_service(project)
    try:
        later.catch_up()  # nothing changed: the transcript is not read again
        assert later.index_status().warnings == {"chat:s": 1}
    finally:
        later.dispose()


def test_deep_chat_line_is_skipped_counted_and_the_count_survives(
    service: SearchService, writer: Any, project: Project, idx: Any
) -> None:
    writer.session("s")
    writer.append_raw(writer.chat_path("s"), _event(1, "a", "alpha") + DEEP + b"\n")
    writer.append_raw(writer.chat_path("s"), _event(3, "c", "gamma"))
    service.catch_up()
    assert {d for d in idx.indexed_ids() if d.count(":") == 2} == {"chat:s:a", "chat:s:c"}
    assert service.index_status().warnings == {"chat:s": 1}
    service.dispose()
    later = _later_service(project)
    try:
        later.catch_up()
        assert later.index_status().warnings == {"chat:s": 1}
        writer.append_raw(writer.chat_path("s"), DEEP + b"\n" + _event(5, "e", "epsilon"))
        later.catch_up()
        assert later.index_status().warnings == {"chat:s": 2}
    finally:
        later.dispose()


def test_rewritten_transcript_recounts_from_zero(
    service: SearchService, writer: Any, cursor_of: Any
) -> None:
    writer.session("s")
    writer.append_raw(writer.chat_path("s"), b"not json\n" * 3 + _event(4, "d", "delta"))
    service.catch_up()
    assert service.index_status().warnings["chat:s"] == 3
    writer.chat_path("s").write_bytes(b"not json\n" + _event(2, "b", "beta"))  # shorter
    service.catch_up()
    row = (
        service.readers.reader()
        .execute("SELECT state FROM sources WHERE key = 'chat:s'")
        .fetchone()
    )
    assert json.loads(row[0])[tailing.SKIPPED_STATE_KEY] == 1  # stored count restarted


def _guarded_catch_up(service: SearchService) -> None:
    done = threading.Event()
    errors: list[BaseException] = []

    def run() -> None:
        try:
            service.catch_up()
        except BaseException as err:
            errors.append(err)
        done.set()

    threading.Thread(target=run, daemon=True).start()
    if not done.wait(30):
        pytest.fail("catch_up blocked (a FIFO opened for reading?)")
    if errors:
        raise errors[0]


@pytest.mark.parametrize("kind", ["chat", "terminal"])
def test_fifo_transcript_is_refused_with_one_warning_and_the_rest_is_indexed(
    service: SearchService, writer: Any, idx: Any, kind: str
) -> None:
    writer.session("good")
    writer.chat("good", "user_message", id="m", text="kept words", status="accepted")
    writer.session("bad", kind=kind)
    fifo = writer.chat_path("bad") if kind == "chat" else writer.terminal_path("bad")
    fifo.parent.mkdir(parents=True, exist_ok=True)
    os.mkfifo(fifo)
    _guarded_catch_up(service)
    assert "chat:good:m" in idx.indexed_ids()
    assert f"{kind}:bad" in idx.indexed_ids()  # the session is still found by its title
    assert service.index_status().warnings == {f"{kind}:bad": 1}
    service.notify_session_changed("bad")
    _guarded_catch_up(service)
    assert service.index_status().warnings == {f"{kind}:bad": 1}  # one warning, not one a pass


def test_transcript_linked_out_of_the_project_is_not_indexed(
    service: SearchService, writer: Any, tmp_path: Path
) -> None:
    secret = tmp_path / "secret.jsonl"
    secret.write_bytes(_event(1, "k", "PRIVATEKEY material"))
    writer.session("linked")
    writer.chat_path("linked").parent.mkdir(parents=True, exist_ok=True)
    writer.chat_path("linked").symlink_to(secret)
    service.catch_up()
    assert service.query(SearchQueryArgs(query="PRIVATEKEY")).total == 0
    assert service.index_status().warnings == {
        "chat:linked": 1
    }  # "refused linked.jsonl: links outside the project"
