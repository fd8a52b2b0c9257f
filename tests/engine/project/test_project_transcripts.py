from __future__ import annotations

import gzip
import json
import os
from pathlib import Path
from typing import Any

import pytest

from engine.project.model import Project
from engine.project.tally import WarningTally
from engine.project.transcripts import (
    TranscriptMissing,
    TranscriptNotReady,
    TranscriptUnreadable,
    parse_chat_lines,
    read_transcript,
    transcript_file,
)

SRC = "chat:s1"


def _line(seq: int, type_: str = "assistant_message", **extra: Any) -> bytes:
    event = {"seq": seq, "ts": "2026-05-01T10:00:00Z", "type": type_, "id": f"m{seq}", **extra}
    return json.dumps(event).encode() + b"\n"


CHAT = b"".join(
    [
        _line(1, "user_message", text="hello", status="accepted"),
        _line(2, text="héllo wörld\n```py\nprint(1)\n```"),
        _line(3, "tool_call", name="bash", input={"cmd": "ls"}),
        _line(4, "tool_result", output="a\nb"),
        _line(5, "session_title", title="Greeting"),
        _line(6, "user_message", text="hello", status="processed"),
    ]
)
TERMINAL = b"\x1b[31mred\x1b[0m\r\nprogress 10%\rprogress 99%\r\n\xff\xfe bad utf8\nno newline"


def _chat_path(project: Project, sid: str = "s1") -> Path:
    path = project.ade_dir / "chats" / f"{sid}.jsonl"
    path.parent.mkdir(parents=True, exist_ok=True)
    return path


def _gz(path: Path) -> Path:
    return path.with_name(path.name + ".gz")


# transcript_file -----------------------------------------------------------------------------


def test_transcript_file_prefers_readable_gz(project: Project) -> None:
    plain = _chat_path(project)
    assert transcript_file(project, "chat", "s1") is None
    plain.write_bytes(CHAT)
    assert transcript_file(project, "chat", "s1") == plain
    _gz(plain).write_bytes(gzip.compress(CHAT))
    assert transcript_file(project, "chat", "s1") == _gz(plain)
    plain.unlink()
    assert transcript_file(project, "chat", "s1") == _gz(plain)


def test_transcript_file_terminal(project: Project) -> None:
    log = project.ade_dir / "terminals" / "t1.log"
    log.parent.mkdir(parents=True)
    log.write_bytes(TERMINAL)
    assert transcript_file(project, "terminal", "t1") == log
    assert transcript_file(project, "chat", "t1") is None


@pytest.mark.parametrize("sid", ["../s1", "", "a" * 129, "s\x001", ".."])
def test_transcript_file_rejects_bad_ids(project: Project, sid: str) -> None:
    (project.ade_dir / "chats").mkdir(parents=True)
    (project.ade_dir / "s1.jsonl").write_bytes(CHAT)  # what "../s1" would reach from chats/
    assert transcript_file(project, "chat", sid) is None


# read_transcript: plain and .gz ---------------------------------------------------------------


@pytest.mark.parametrize("content", [CHAT, TERMINAL, b""])
def test_gz_is_byte_identical_to_plain(tmp_path: Path, content: bytes) -> None:
    plain = tmp_path / "plain" / "x.log"
    plain.parent.mkdir()
    plain.write_bytes(content)
    gz = tmp_path / "gz" / "x.log.gz"
    gz.parent.mkdir()
    gz.write_bytes(gzip.compress(content))
    for offset in (0, 1, 7, len(content) // 2, len(content), len(content) + 5):
        for max_bytes in (0, 3, 64, 1 << 20):
            a = read_transcript(plain, offset, max_bytes)
            b = read_transcript(gz, offset, max_bytes)
            assert (a.data, a.start, a.total_size) == (b.data, b.start, b.total_size)
            assert a.data == content[offset : offset + max_bytes]
    assert read_transcript(gz, 0, 10).compressed
    assert not read_transcript(plain, 0, 10).compressed


def test_multi_member_gz(tmp_path: Path) -> None:
    gz = tmp_path / "x.jsonl.gz"
    gz.write_bytes(gzip.compress(CHAT[:50]) + gzip.compress(CHAT[50:]))
    assert read_transcript(gz, 0, 1 << 20).data == CHAT


def test_both_present_read_once_from_gz(tmp_path: Path) -> None:
    plain = tmp_path / "x.jsonl"
    plain.write_bytes(CHAT)
    _gz(plain).write_bytes(gzip.compress(CHAT))
    # Whichever sibling is named, it is one source and the .gz is canonical.
    for path in (plain, _gz(plain)):
        got = read_transcript(path, 0, 1 << 20)
        assert (got.source, got.data) == (_gz(plain), CHAT)


def test_plain_path_finds_gz_after_compaction(tmp_path: Path) -> None:
    plain = tmp_path / "x.jsonl"
    _gz(plain).write_bytes(gzip.compress(CHAT))
    got = read_transcript(plain, 10, 20)
    assert (got.data, got.total_size, got.compressed) == (CHAT[10:30], len(CHAT), True)


def test_zero_byte_gz_alone_is_not_ready(tmp_path: Path) -> None:
    gz = tmp_path / "x.jsonl.gz"
    gz.write_bytes(b"")
    with pytest.raises(TranscriptNotReady):
        read_transcript(gz, 0, 100)


def test_truncated_gz_alone_is_not_ready(tmp_path: Path) -> None:
    gz = tmp_path / "x.log.gz"
    data = os.urandom(200_000)  # incompressible, so the cut lands inside the deflate stream
    gz.write_bytes(gzip.compress(data)[:-5000])
    with pytest.raises(TranscriptNotReady):
        read_transcript(gz, 0, 100)


@pytest.mark.parametrize("broken", [b"", b"cut"])
def test_incomplete_gz_beside_plain_reads_plain(tmp_path: Path, broken: bytes) -> None:
    plain = tmp_path / "x.jsonl"
    plain.write_bytes(CHAT)
    _gz(plain).write_bytes(gzip.compress(CHAT)[:-8] if broken else b"")
    got = read_transcript(_gz(plain), 5, 1 << 20)
    assert (got.source, got.data, got.total_size) == (plain, CHAT[5:], len(CHAT))


def test_garbage_gz_falls_back_to_plain(tmp_path: Path) -> None:
    plain = tmp_path / "x.jsonl"
    plain.write_bytes(CHAT)
    _gz(plain).write_bytes(b"this is not gzip at all")
    got = read_transcript(_gz(plain), 0, 1 << 20)
    assert (got.source, got.data) == (plain, CHAT)


@pytest.mark.parametrize(
    "garbage",
    [b"plain text, not gzip", gzip.compress(b"x", mtime=0)[:10] + b"\xff" * 64],
    ids=["bad magic", "bad deflate"],  # stable ids: every xdist worker must collect the same tests
)
def test_garbage_gz_alone_is_unreadable(tmp_path: Path, garbage: bytes) -> None:
    gz = tmp_path / "x.jsonl.gz"
    gz.write_bytes(garbage)
    with pytest.raises(TranscriptUnreadable):
        read_transcript(gz, 0, 100)


def test_missing_transcript(tmp_path: Path) -> None:
    with pytest.raises(TranscriptMissing):
        read_transcript(tmp_path / "none.jsonl", 0, 100)


def test_negative_offset_refused(tmp_path: Path) -> None:
    (tmp_path / "x.log").write_bytes(b"abc")
    with pytest.raises(ValueError, match=">= 0"):
        read_transcript(tmp_path / "x.log", -1, 10)


# parse_chat_lines ----------------------------------------------------------------------------


def test_parse_all_event_types_with_offsets(tally: WarningTally) -> None:
    events, consumed = parse_chat_lines(CHAT, 0, SRC, tally)
    assert consumed == len(CHAT)
    assert [e.type for e in events] == [
        "user_message",
        "assistant_message",
        "tool_call",
        "tool_result",
        "session_title",
        "user_message",
    ]
    for event in events:
        # The offset is the first byte of that event's own line.
        assert CHAT[event.offset :].startswith(b'{"seq": %d' % event.seq)
    assert events[0].event_id == "m1"
    assert events[0].ts is not None
    assert events[2].data["input"] == {"cmd": "ls"}
    assert tally.total() == 0


def test_base_offset_is_added(tally: WarningTally) -> None:
    events, _ = parse_chat_lines(_line(9), 1000, SRC, tally)
    assert events[0].offset == 1000


def test_torn_last_line_then_completion(project: Project, tally: WarningTally) -> None:
    path = _chat_path(project)
    full = _line(7, text="the torn one")
    path.write_bytes(CHAT + full[:15])
    cursor = 0
    sl = read_transcript(path, cursor, 1 << 20)
    events, consumed = parse_chat_lines(sl.data, sl.start, SRC, tally)
    cursor += consumed
    assert cursor == len(CHAT)
    assert [e.seq for e in events] == [1, 2, 3, 4, 5, 6]
    # Nothing more while the line stays torn.
    sl = read_transcript(path, cursor, 1 << 20)
    assert parse_chat_lines(sl.data, sl.start, SRC, tally) == ([], 0)
    with path.open("ab") as handle:
        handle.write(full[15:])
    sl = read_transcript(path, cursor, 1 << 20)
    events, consumed = parse_chat_lines(sl.data, sl.start, SRC, tally)
    assert [(e.seq, e.offset, e.data["text"]) for e in events] == [(7, len(CHAT), "the torn one")]
    assert cursor + consumed == len(CHAT) + len(full)
    assert tally.total() == 0


def test_gz_events_equal_plain_events(tmp_path: Path) -> None:
    plain = tmp_path / "a.jsonl"
    plain.write_bytes(CHAT + b"garbage\n")
    gz = tmp_path / "b.jsonl.gz"
    gz.write_bytes(gzip.compress(CHAT + b"garbage\n"))
    ta, tb = WarningTally(), WarningTally()
    a = read_transcript(plain, 40, 1 << 20)
    b = read_transcript(gz, 40, 1 << 20)
    # Slicing mid-line at 40 drops that partial line as malformed in both; same result.
    assert parse_chat_lines(a.data, a.start, SRC, ta) == parse_chat_lines(b.data, b.start, SRC, tb)
    assert ta.snapshot() == tb.snapshot()


@pytest.mark.parametrize(
    ("line", "reason"),
    [
        (b"{not json\n", "malformed json line"),
        (b"[1, 2]\n", "line is not a JSON object"),
        (b'"text"\n', "line is not a JSON object"),
        (b'{"seq": 1, "type": "telepathy"}\n', "unknown event type"),
        (b'{"seq": 1}\n', "unknown event type"),
        (b'{"type": "assistant_message", "text": "x"}\n', "missing or invalid seq"),
        (b'{"seq": "1", "type": "assistant_message"}\n', "missing or invalid seq"),
        (b'{"seq": true, "type": "assistant_message"}\n', "missing or invalid seq"),
        (b'{"seq": -1, "type": "assistant_message"}\n', "missing or invalid seq"),
        (b'{"seq": NaN, "type": "assistant_message"}\n', "malformed json line"),
    ],
)
def test_malformed_lines_skipped_and_counted(line: bytes, reason: str) -> None:
    tally = WarningTally()
    data = _line(1) + line + _line(2)
    events, consumed = parse_chat_lines(data, 0, SRC, tally)
    assert [e.seq for e in events] == [1, 2]
    assert consumed == len(data)
    assert tally.snapshot() == {SRC: 1}
    assert tally.reasons(SRC) == {reason: 1}


def test_blank_lines_and_crlf_are_harmless(tally: WarningTally) -> None:
    data = b"\n   \n" + _line(1).replace(b"\n", b"\r\n") + b"\n"
    events, consumed = parse_chat_lines(data, 0, SRC, tally)
    assert [e.seq for e in events] == [1]
    assert consumed == len(data)
    assert tally.total() == 0


def test_invalid_utf8_is_replaced_not_dropped(tally: WarningTally) -> None:
    data = b'{"seq": 1, "type": "assistant_message", "text": "ok \xff\xfe end"}\n'
    (event,), _ = parse_chat_lines(data, 0, SRC, tally)
    assert event.data["text"] == "ok \ufffd\ufffd end"
    assert tally.total() == 0


@pytest.mark.parametrize("ts", ["2026-05-01T10:61:00", "soon", 5])
def test_bad_ts_counted_event_kept(ts: Any) -> None:
    tally = WarningTally()
    data = json.dumps({"seq": 3, "ts": ts, "type": "assistant_message"}).encode() + b"\n"
    (event,), _ = parse_chat_lines(data, 0, SRC, tally)
    assert (event.seq, event.ts) == (3, None)
    assert tally.reasons(SRC) == {"invalid ts": 1}


def test_no_newline_consumes_nothing(tally: WarningTally) -> None:
    assert parse_chat_lines(b'{"seq": 1, "type": "assistant_message"}', 0, SRC, tally) == ([], 0)
    assert parse_chat_lines(b"", 0, SRC, tally) == ([], 0)
