"""Parsing asciicast v1/v2/v3, script typescripts (with and without timing) and tmux logs."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta

import pytest

from engine.importers.asciicast import parse_asciicast
from engine.importers.recording import RecordingError
from engine.importers.terminal_import import detect_format, import_session_id
from engine.importers.typescript import parse_script, parse_timing, parse_tmux_log

START = 1_780_000_000


def cast(header: dict[str, object], *events: list[object]) -> bytes:
    lines = [json.dumps(header), *(json.dumps(e) for e in events)]
    return ("\n".join(lines) + "\n").encode()


def test_v2_keeps_only_output_and_times_from_absolute_events() -> None:
    data = cast(
        {"version": 2, "width": 80, "height": 24, "timestamp": START, "title": "deploy",
         "env": {"SHELL": "/bin/zsh", "TERM": "xterm"}},
        [0.5, "o", "$ make deploy\r\n"],
        [0.7, "i", "secret-typed-input"],
        [1.0, "r", "100x40"],
        [2.25, "o", "\x1b[31mdeployed\x1b[0m ✓\r\n"],
    )  # fmt: skip
    rec = parse_asciicast(data)
    assert rec.output == "$ make deploy\r\n\x1b[31mdeployed\x1b[0m ✓\r\n".encode()
    assert rec.title == "deploy"
    assert rec.tool == "zsh"
    assert rec.created_at == datetime.fromtimestamp(START, UTC)
    assert rec.ended_at == rec.created_at + timedelta(seconds=2.25)
    assert rec.exit_code is None


def test_v3_relative_intervals_comments_markers_and_exit_code() -> None:
    data = cast(
        {"version": 3, "term": {"cols": 80, "rows": 24, "type": "xterm-256color"},
         "timestamp": START, "command": "pytest -x"},
        [0.25, "o", "collected 3 items\r\n"],
        [0.5, "m", "checkpoint"],
        [0.25, "i", "q"],
        [1.0, "o", "FAILED test_a\r\n"],
        [0.5, "x", "3"],
    )  # fmt: skip
    data = data.replace(b'\n[0.5, "m"', b'\n# a comment line\n[0.5, "m"')
    rec = parse_asciicast(data)
    assert rec.output == b"collected 3 items\r\nFAILED test_a\r\n"
    assert rec.exit_code == 3
    assert rec.title == "pytest -x"
    assert rec.tool == "pytest"
    assert rec.ended_at == datetime.fromtimestamp(START, UTC) + timedelta(seconds=2.5)


def test_v1_stdout_frames() -> None:
    data = json.dumps({"version": 1, "stdout": [[0.1, "a\r\n"], [0.2, "b\r\n"]]}).encode()
    assert parse_asciicast(data).output == b"a\r\nb\r\n"


def test_torn_last_event_is_dropped_with_a_warning() -> None:
    data = cast({"version": 2, "timestamp": START}, [0.1, "o", "kept\r\n"]) + b'[0.2, "o", "tor'
    rec = parse_asciicast(data)
    assert rec.output == b"kept\r\n"
    assert rec.warnings == ("torn last event dropped",)


@pytest.mark.parametrize(
    "data",
    [
        b'{"version": 2}\n[0.1, "o", "a"]\nnot json\n[0.3, "o", "b"]\n',
        b'{"version": 2}\n[-1, "o", "a"]\n[0.3, "o", "b"]\n',
        b'{"version": 7}\n',
        b"{not json\n",
        b"[1, 2]\n",
    ],
)
def test_malformed_asciicast_is_an_error(data: bytes) -> None:
    with pytest.raises(RecordingError):
        parse_asciicast(data)


TYPESCRIPT = (
    b'Script started on 2026-05-28 10:00:00+02:00 [COMMAND="cargo test" TERM="xterm-256color" '
    b'TTY="/dev/pts/3" COLUMNS="120" LINES="40"]\n'
    b"running 2 tests\r\ntest a ... \x1b[32mok\x1b[0m\r\nno newline at end"
    b'\nScript done on 2026-05-28 10:00:07+02:00 [COMMAND_EXIT_CODE="101"]\n'
)


def test_script_header_and_trailer_dropped_exactly() -> None:
    rec = parse_script(TYPESCRIPT)
    assert rec.output == b"running 2 tests\r\ntest a ... \x1b[32mok\x1b[0m\r\nno newline at end"
    assert rec.command == "cargo test"
    assert rec.tool == "cargo"
    assert rec.exit_code == 101
    assert rec.created_at == datetime.fromisoformat("2026-05-28T10:00:00+02:00")
    assert rec.ended_at == datetime.fromisoformat("2026-05-28T10:00:07+02:00")


def test_script_still_running_has_no_trailer_and_output_mentioning_script_done_is_kept() -> None:
    data = b'Script started on 2026-05-28 10:00:00+00:00 [TERM="xterm"]\n'
    data += b"echo Script done on purpose\r\nScript done on purpose\r\nmore\r\n"
    rec = parse_script(data)
    assert rec.output == b"echo Script done on purpose\r\nScript done on purpose\r\nmore\r\n"
    assert rec.ended_at is None
    assert rec.exit_code is None


def test_classic_timing_gives_the_duration_when_there_is_no_trailer() -> None:
    data = b'Script started on 2026-05-28 10:00:00+00:00 [COMMAND="make"]\nbuilding\r\n'
    rec = parse_script(data, b"0.5 9\n1.25 1\n")
    assert rec.output == b"building\r\n"
    assert rec.ended_at == datetime(2026, 5, 28, 10, 0, 1, 750000, tzinfo=UTC)


def test_advanced_timing_header_entries() -> None:
    hints = parse_timing(
        b"H 0.000000 START_TIME 2026-05-28 10:00:00.000000+00:00\nH 0.0 COMMAND ls -l\n"
        b"O 0.25 10\nI 0.5 2\nS 0.1 SIGWINCH ROWS=40 COLS=120\nO 0.15 3\nH 0.0 EXIT_CODE 0\n"
    )
    assert hints["COMMAND"] == "ls -l"
    assert hints["EXIT_CODE"] == "0"
    assert float(hints["DURATION"]) == pytest.approx(1.0)


def test_garbage_timing_is_advisory_only() -> None:
    data = b"Script started on 2026-05-28 10:00:00+00:00\nout\r\n"
    rec = parse_script(data, b"\x00\xffgarbage\nmore garbage here\n")
    assert rec.output == b"out\r\n"
    assert rec.warnings == ("timing file not understood; ignored",)


def test_old_localized_dates_give_no_time() -> None:
    data = b"Script started on Tue 02 Jan 2024 10:00:00 AM CET\nout\n\nScript done on Tue 02 Jan 2024 10:00:05 AM CET\n"
    rec = parse_script(data)
    assert rec.output == b"out\n"
    assert rec.created_at is None
    assert rec.ended_at is None


def test_not_a_typescript() -> None:
    with pytest.raises(RecordingError):
        parse_script(b"hello\n")


def test_tmux_log_keeps_every_byte() -> None:
    raw = b"\x1b]0;title\x07$ ls\r\n\xff\xfe broken utf8\r\x00\n"
    assert parse_tmux_log(raw).output == raw
    with pytest.raises(RecordingError):
        parse_tmux_log(b"")


@pytest.mark.parametrize(
    ("data", "fmt"),
    [
        (b'{"version": 2}\n', "asciicast"),
        (b'\xef\xbb\xbf{"version": 3}\n', "asciicast"),
        (TYPESCRIPT, "script"),
        (b"$ ls\r\n", "tmux"),
        (b"", "tmux"),
    ],
)
def test_detect_format(data: bytes, fmt: str) -> None:
    assert detect_format(data) == fmt


def test_session_id_is_derived_from_content() -> None:
    assert import_session_id(b"a") == import_session_id(b"a") != import_session_id(b"b")
    assert import_session_id(b"a").startswith("import-")
    assert len(import_session_id(b"a")) == 19
