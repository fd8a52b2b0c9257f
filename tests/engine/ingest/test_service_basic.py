"""End to end: a real project on disk → process_pending_now / catch_up → query, status, rebuild."""

from __future__ import annotations

from engine.service import SearchService
from engine.types import SearchQueryArgs


def test_catch_up_indexes_every_source_kind(service: SearchService, writer, idx) -> None:
    writer.session("c1", title="Refactor billing")
    writer.chat(
        "c1", "user_message", id="m1", text="please fix the invoice rounding", status="accepted"
    )
    writer.chat("c1", "assistant_message", id="a1", text="rounding fixed in invoices.py")
    writer.session("t1", kind="terminal", title="pytest run")
    writer.terminal("t1", b"collected 12 items\r\n\x1b[31mFAILED\x1b[0m test_invoice\r\n")
    writer.pr(7, "Fix invoice rounding", body="Rounds half-even now")
    writer.commit("Add invoice rounding")
    service.catch_up()
    ids = idx.indexed_ids()
    assert {"chat:c1", "chat:c1:m1", "chat:c1:a1", "terminal:t1", "terminal:t1@0", "pr:7",
            "branch:main"} <= ids  # fmt: skip
    assert any(i.startswith("commit:") for i in ids)
    assert "chat:c1:m1" in idx.doc_ids("invoice rounding")
    assert "terminal:t1@0" in idx.doc_ids("FAILED")
    status = service.index_status()
    assert status.doc_count == len(ids)
    assert status.pending_sources == 0


def test_warm_catch_up_reads_no_transcript(service: SearchService, writer, monkeypatch) -> None:
    writer.session("c1")
    writer.chat("c1", "user_message", id="m1", text="hello", status="accepted")
    service.catch_up()
    import engine.ingest.tailing as tailing

    calls: list[object] = []
    monkeypatch.setattr(tailing, "read_slice", lambda *a: calls.append(a))
    service.catch_up()
    assert calls == []


def test_rebuild_reingests_everything(service: SearchService, writer, idx) -> None:
    writer.session("c1")
    writer.chat("c1", "user_message", id="m1", text="hello world", status="accepted")
    service.catch_up()
    before = idx.indexed_ids()
    result = service.rebuild_index()
    assert result.ok
    assert idx.indexed_ids() == before
    assert result.doc_count == len(before)
    assert service.query(SearchQueryArgs(query="hello")).total == 1


def test_backfill_ingests_everything_and_records_completion(
    service: SearchService, writer, idx, timers
):
    writer.session("c1")
    writer.chat("c1", "user_message", id="m1", text="backfilled words", status="accepted")
    writer.pr(3, "A pull request")
    service.start_backfill(10.0)
    timers.advance(9.9)
    assert idx.indexed_ids() == set()
    waiting = service.index_status()  # a backfill not yet due is no work in hand
    assert (waiting.state, waiting.pending_sources) == ("ready", 0)
    assert waiting.backfill_completed_at is None
    timers.advance(0.1)
    assert {"chat:c1:m1", "pr:3"} <= idx.indexed_ids()
    status = service.index_status()
    assert status.backfill_completed_at is not None
    assert status.state == "ready"


def test_health_check_complaint_rebuilds_the_index(service: SearchService, writer, idx, timers):
    writer.session("c1")
    writer.chat("c1", "user_message", id="m1", text="healthy words", status="accepted")
    service.catch_up()
    conn = service.readers.reader()
    rowid = conn.execute("SELECT id FROM docs WHERE doc_id = 'chat:c1:m1'").fetchone()[0]
    conn.execute("DELETE FROM docs_fts WHERE rowid = ?", (rowid,))  # silent drift
    assert idx.doc_ids("healthy") == []
    service.start_backfill(0.0)
    timers.advance(0.0)
    assert idx.doc_ids("healthy") == ["chat:c1:m1"]
    assert service.index_status().warnings.get("index", 0) == 1


def test_drain_everything_leaves_the_periodic_reconcile_for_its_time(
    service: SearchService, writer, idx, timers
):
    writer.session("c1")
    writer.chat("c1", "user_message", id="m1", text="periodic words", status="accepted")
    service.start_backfill(0.0)
    service.process_pending_now()  # must return: the reconcile re-queues itself when run
    service.catch_up()
    assert idx.doc_ids("periodic") == ["chat:c1:m1"]
    assert "periodic" in service.queue.pending["reconcile"]
    writer.chat("c1", "user_message", id="m2", text="periodic again", status="accepted")
    timers.advance(service.drainer.reconcile_interval)  # no notify: the reconcile finds it
    assert sorted(idx.doc_ids("periodic")) == ["chat:c1:m1", "chat:c1:m2"]
