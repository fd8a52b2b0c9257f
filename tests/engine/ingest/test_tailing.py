"""Transcript tailing: torn tails, rewrites, rename-onto, .gz compaction, long lines, slices."""

from __future__ import annotations

import gzip
import json
import os

import pytest

import engine.ingest.tailing as tailing
from engine.index.tuning import WriteTuning
from engine.service import SearchService


def _msg(seq: int, mid: str, text: str) -> bytes:
    line = {"seq": seq, "ts": "2026-06-01T09:30:00+00:00", "type": "user_message",
            "id": mid, "text": text, "status": "accepted"}  # fmt: skip
    return json.dumps(line).encode() + b"\n"


def _messages(idx) -> set[str]:
    return {d for d in idx.indexed_ids() if d.count(":") == 2}


def test_torn_tail_waits_then_is_indexed_once(service: SearchService, writer, idx, cursor_of):
    writer.session("s")
    full = _msg(1, "m1", "alpha")
    writer.append_raw(writer.chat_path("s"), full[:-5])
    service.catch_up()
    assert _messages(idx) == set()
    assert cursor_of("chat:s") == 0
    writer.append_raw(writer.chat_path("s"), full[-5:])
    service.notify_chat_event("s")
    service.process_pending_now()
    assert _messages(idx) == {"chat:s:m1"}
    assert cursor_of("chat:s") == len(full)
    service.notify_chat_event("s")
    service.process_pending_now()
    assert idx.doc_ids("alpha") == ["chat:s:m1"]


def test_shrink_reindexes_from_zero(service, writer, idx, resets):
    writer.session("s")
    writer.append_raw(writer.chat_path("s"), _msg(1, "m1", "alpha") + _msg(2, "m2", "beta"))
    service.catch_up()
    writer.chat_path("s").write_bytes(_msg(1, "n1", "gamma"))
    service.notify_chat_event("s")
    service.process_pending_now()
    assert _messages(idx) == {"chat:s:n1"}
    assert resets == ["chat:s"]


def test_rewrite_that_grew_past_the_cursor_reindexes(service, writer, idx, resets):
    writer.session("s")
    writer.append_raw(writer.chat_path("s"), _msg(1, "m1", "alpha"))
    service.catch_up()
    writer.chat_path("s").write_bytes(_msg(1, "n1", "gamma") + _msg(2, "n2", "delta" * 20))
    service.catch_up()
    assert _messages(idx) == {"chat:s:n1", "chat:s:n2"}
    assert resets == ["chat:s"]


def test_another_file_renamed_onto_the_path_reindexes(service, writer, idx, resets):
    # Same head and same bytes before the cursor, different middle: only the inode tells.
    writer.session("s")
    head, tail = _msg(1, "h", "x" * 5000), _msg(3, "t", "y" * 5000)
    writer.append_raw(writer.chat_path("s"), head + _msg(2, "mid1", "middle") + tail)
    service.catch_up()
    other = writer.chat_path("s").with_name("s.tmp")
    other.write_bytes(head + _msg(2, "mid2", "middle") + tail + _msg(4, "new", "fresh"))
    os.rename(other, writer.chat_path("s"))
    service.notify_chat_event("s")
    service.process_pending_now()
    assert _messages(idx) == {"chat:s:h", "chat:s:mid2", "chat:s:t", "chat:s:new"}
    assert resets == ["chat:s"]


def test_gz_compaction_keeps_the_cursor(service, writer, idx, resets, cursor_of):
    writer.session("s")
    first = _msg(1, "m1", "alpha") + _msg(2, "m2", "beta")
    writer.append_raw(writer.chat_path("s"), first)
    service.catch_up()
    gz = writer.chat_path("s").with_name("s.jsonl.gz")
    gz.write_bytes(gzip.compress(first))
    writer.chat_path("s").unlink()
    service.catch_up()
    assert resets == []
    gz.write_bytes(gzip.compress(first + _msg(3, "m3", "gamma")))
    service.catch_up()
    assert resets == []
    assert _messages(idx) == {"chat:s:m1", "chat:s:m2", "chat:s:m3"}
    assert cursor_of("chat:s") == len(first) + len(_msg(3, "m3", "gamma"))


@pytest.mark.parametrize("bad", [b"", b"TRUNCATED"])
def test_empty_or_truncated_gz_is_retried_not_a_shrink(service, writer, idx, resets, timers, bad):
    writer.session("s")
    data = _msg(1, "m1", "alpha")
    writer.append_raw(writer.chat_path("s"), data)
    service.catch_up()
    gz = writer.chat_path("s").with_name("s.jsonl.gz")
    full = gzip.compress(data + _msg(2, "m2", "beta"))
    gz.write_bytes(full[: len(full) // 2] if bad else b"")
    writer.chat_path("s").unlink()
    service.notify_chat_event("s")
    service.process_pending_now()
    assert _messages(idx) == {"chat:s:m1"}
    assert resets == []
    assert service.queue.pending["chat"], "retried later"
    gz.write_bytes(full)
    timers.advance(5)
    assert _messages(idx) == {"chat:s:m1", "chat:s:m2"}
    assert resets == []


def test_garbage_gz_falls_back_to_plain_and_both_present_is_one_source(service, writer, idx):
    writer.session("s")
    data = _msg(1, "m1", "alpha") + _msg(2, "m2", "beta")
    writer.append_raw(writer.chat_path("s"), data)
    gz = writer.chat_path("s").with_name("s.jsonl.gz")
    gz.write_bytes(b"not gzip at all")
    service.catch_up()
    assert _messages(idx) == {"chat:s:m1", "chat:s:m2"}
    gz.write_bytes(gzip.compress(data))
    service.rebuild_index()
    assert _messages(idx) == {"chat:s:m1", "chat:s:m2"}
    assert idx.doc_ids("alpha") == ["chat:s:m1"]


@pytest.mark.parametrize("tuning", [WriteTuning(slice_bytes=256)])
def test_slices_are_bounded_and_re_enqueued(service, writer, idx, monkeypatch, cursor_of):
    writer.session("s")
    data = b"".join(_msg(i, f"m{i}", f"word{i}") for i in range(1, 41))
    writer.append_raw(writer.chat_path("s"), data)
    passes: list[int] = []
    real = tailing.plan_pass
    monkeypatch.setattr(tailing, "plan_pass", lambda *a: passes.append(1) or real(*a))
    service.catch_up()
    assert _messages(idx) == {f"chat:s:m{i}" for i in range(1, 41)}
    assert cursor_of("chat:s") == len(data)
    assert len(passes) >= len(data) // 256


@pytest.mark.parametrize("tuning", [WriteTuning(slice_bytes=1024)])
def test_long_line_is_read_whole_and_indexed_capped(service, writer, idx, monkeypatch, cursor_of):
    writer.session("s")
    data = _msg(1, "big", "needle " + "b" * 300_000) + _msg(2, "after", "after line")
    writer.append_raw(writer.chat_path("s"), data)
    service.catch_up()
    assert _messages(idx) == {"chat:s:big", "chat:s:after"}
    hit = idx.service.query(__import__("engine.types").types.SearchQueryArgs(query="needle"))
    assert hit.total == 1
    assert cursor_of("chat:s") == len(data)


@pytest.mark.parametrize("tuning", [WriteTuning(slice_bytes=1024, long_line_cap=4096)])
def test_line_past_the_hard_cap_is_indexed_truncated_and_counted(service, writer, idx, monkeypatch):
    writer.session("s")
    data = _msg(1, "big", "needle " + "x" * 10_000) + _msg(2, "after", "after line")
    writer.append_raw(writer.chat_path("s"), data)
    service.catch_up()
    assert _messages(idx) == {"chat:s:big", "chat:s:after"}
    assert service.index_status().warnings.get("chat:s", 0) == 1


@pytest.mark.parametrize("tuning", [WriteTuning(slice_bytes=1024)])
def test_unterminated_huge_tail_waits_without_busy_looping(
    service, writer, idx, monkeypatch, cursor_of
):
    writer.session("s")
    big = _msg(1, "big", "z" * 8000)
    writer.append_raw(writer.chat_path("s"), big[:-1])
    reads: list[int] = []
    real = tailing.read_slice
    monkeypatch.setattr(tailing, "read_slice", lambda p, o, n: reads.append(o) or real(p, o, n))
    service.catch_up()
    assert not service.queue.pending["chat"], "no re-enqueue while the line is unterminated"
    assert cursor_of("chat:s") == 0
    reads.clear()
    service.notify_chat_event("s")
    service.process_pending_now()
    assert all(o == 0 or o >= len(big) - 1 for o in reads), "the scan resumes, never restarts"
    writer.append_raw(writer.chat_path("s"), b"\n")
    service.notify_chat_event("s")
    service.process_pending_now()
    assert _messages(idx) == {"chat:s:big"}
    assert cursor_of("chat:s") == len(big)


@pytest.mark.parametrize("tuning", [WriteTuning(slice_bytes=512)])
def test_gz_is_inflated_once_per_drain_not_per_pass(service, writer, idx, monkeypatch):
    import engine.ingest.gzcache as gzcache

    writer.session("s")
    data = b"".join(_msg(i, f"m{i}", f"w{i}") for i in range(1, 60))
    writer.chat_path("s").parent.mkdir(parents=True)
    writer.chat_path("s").with_name("s.jsonl.gz").write_bytes(gzip.compress(data))
    inflations: list[int] = []
    real = gzcache.read_transcript
    monkeypatch.setattr(
        gzcache, "read_transcript", lambda p, o, n: inflations.append(o) or real(p, o, n)
    )
    service.catch_up()
    assert len(_messages(idx)) == 59
    assert len(inflations) == 1
