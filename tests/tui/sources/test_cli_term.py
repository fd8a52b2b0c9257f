"""`ade term` driven through a real PTY: passthrough, live log, window size, exit status."""

from __future__ import annotations

import fcntl
import json
import os
import select
import signal
import struct
import subprocess
import sys
import termios
import time
from pathlib import Path

import pytest
from cli_helpers import no_daemon_flag

from engine.project.locate import open_project
from engine.terminal.recorder import TerminalRecorder, commands_path

ADE = Path(sys.executable).with_name("ade")
DEADLINE_S = 20.0
"""Safety net only: each wait returns as soon as the awaited bytes arrive."""


def read_until(fd: int, needle: bytes, seen: bytearray) -> None:
    """Read the PTY master until ``needle`` has appeared (or the deadline fails the test)."""
    end = time.monotonic() + DEADLINE_S
    while needle not in seen:
        left = end - time.monotonic()
        assert left > 0, f"timed out waiting for {needle!r}; got {bytes(seen)!r}"
        if select.select([fd], [], [], left)[0]:
            try:
                chunk = os.read(fd, 4096)
            except OSError:
                chunk = b""
            assert chunk, f"EOF before {needle!r}; got {bytes(seen)!r}"
            seen += chunk


def drain(fd: int, seen: bytearray) -> None:
    """Take what is buffered now (the writer has exited; the test still holds the slave)."""
    while select.select([fd], [], [], 0)[0]:
        try:
            chunk = os.read(fd, 4096)
        except OSError:
            return
        if not chunk:
            return
        seen += chunk


def only_session(root: Path) -> dict[str, object]:
    files = list((root / ".ade" / "sessions").glob("term-*.json"))
    assert len(files) == 1
    return dict(json.loads(files[0].read_bytes()))


@pytest.mark.usefixtures("cli_path")
def test_term_records_live_forwards_winch_and_returns_the_exit_status(repo: Path) -> None:
    master, slave = os.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 80, 0, 0))
    attrs_before = termios.tcgetattr(slave)
    script = "echo hello-term; read x; echo got-$x; stty size; exit 3"
    proc = subprocess.Popen(
        [str(ADE), "term", "--", "sh", "-c", script],
        cwd=repo, stdin=slave, stdout=slave, stderr=slave, start_new_session=True,
        env={**os.environ, "SHELL": "/bin/sh"},
    )  # fmt: skip
    seen = bytearray()
    try:
        read_until(master, b"hello-term", seen)
        # While it runs: the output is already in the log, the session has no end yet.
        record = only_session(repo)
        assert record["endedAt"] is None
        assert record["title"] == f"sh -c '{script}'"
        assert record["laneId"] == "primary"
        log = repo / ".ade" / "terminals" / f"{record['id']}.log"
        assert b"hello-term" in log.read_bytes()
        assert not termios.tcgetattr(slave)[3] & termios.ICANON  # the real terminal is raw
        # Searchable before the session ends.
        found = subprocess.run(
            [str(ADE), "search", *no_daemon_flag(), "--project", str(repo), "--json", "hello-term"],
            capture_output=True, check=False, timeout=DEADLINE_S,
        )  # fmt: skip
        assert found.returncode == 0, found.stderr
        links = [item["deepLink"] for item in json.loads(found.stdout)["items"]]
        assert any(x.startswith(f"ade://terminal/{record['id']}?offset=") for x in links), links
        # A resize of the real terminal reaches the program.
        fcntl.ioctl(master, termios.TIOCSWINSZ, struct.pack("HHHH", 33, 77, 0, 0))
        os.kill(proc.pid, signal.SIGWINCH)
        os.write(master, b"typed\n")
        read_until(master, b"33 77", seen)
        assert proc.wait(timeout=DEADLINE_S) == 3
        drain(master, seen)
        assert termios.tcgetattr(slave) == attrs_before  # raw mode undone
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        os.close(master)
    assert b"got-typed" in seen
    record = only_session(repo)
    assert record["exitCode"] == 3
    assert record["endedAt"] is not None
    assert record["tool"] == "sh"
    assert b"got-typed" in log.read_bytes()
    os.close(slave)


def test_missing_program_exits_127(repo: Path) -> None:
    master, slave = os.openpty()
    proc = subprocess.Popen(
        [str(ADE), "term", "--", "no-such-program-xyz"],
        cwd=repo, stdin=slave, stdout=slave, stderr=slave, start_new_session=True,
    )  # fmt: skip
    seen = bytearray()
    try:
        assert proc.wait(timeout=DEADLINE_S) == 127
        drain(master, seen)
    finally:
        os.close(master)
        os.close(slave)
    assert b"no-such-program-xyz" in seen
    assert only_session(repo)["exitCode"] == 127


def test_program_interrupted_by_ctrl_c_exits_130_like_a_shell(repo: Path) -> None:
    """A child killed by SIGINT (Ctrl+C reaches it through the PTY) is 128+2, as bash says;
    it used to be -2, which the process exit turned into 254."""
    master, slave = os.openpty()
    proc = subprocess.Popen(
        [str(ADE), "term", "--", "sh", "-c", "kill -INT $$"],
        cwd=repo, stdin=slave, stdout=slave, stderr=slave, start_new_session=True,
    )  # fmt: skip
    seen = bytearray()
    try:
        assert proc.wait(timeout=DEADLINE_S) == 130
        drain(master, seen)
    finally:
        os.close(master)
        os.close(slave)
    assert only_session(repo)["exitCode"] == 130


def test_osc133_marks_become_a_commands_sidecar(repo: Path) -> None:
    clock = iter(range(100))

    def now() -> object:
        from datetime import UTC, datetime

        return datetime(2026, 5, 28, 10, 0, next(clock), tzinfo=UTC)

    rec = TerminalRecorder(
        open_project(repo), title="zsh shell", command="/bin/zsh", tool="shell", lane_id=None,
        clock=now,  # type: ignore[arg-type]
    )  # fmt: skip
    rec.start()
    stream = (
        b"\x1b]133;A\x07$ \x1b]133;B\x07pytest -x\r\n\x1b]133;C\x07"
        b"E   AssertionError: frobnicated\r\n\x1b]133;D;1\x07"
        b"\x1b]133;A\x07$ \x1b]133;B\x07\x1b]633;E;echo a\\x3bb\x07ec"
    )
    for i in range(0, len(stream), 7):  # marks split across reads
        rec.write(stream[i : i + 7])
    rec.write(b"ho a;b\r\n\x1b]133;C\x1b\\a;b\r\n\x1b]133;D;0\x1b\\")
    rec.finish(0)
    lines = [json.loads(x) for x in commands_path(rec.log_path).read_text().splitlines()]
    assert [(x["command"], x["exitCode"]) for x in lines] == [("pytest -x", 1), ("echo a;b", 0)]
    log = rec.log_path.read_bytes()
    first = lines[0]
    assert log[first["outputStart"] : first["end"]] == b"E   AssertionError: frobnicated\r\n"
    assert log[lines[1]["outputStart"] : lines[1]["end"]] == b"a;b\r\n"
    assert log[first["promptStart"] :].startswith(b"\x1b]133;A")


@pytest.mark.parametrize("cut", range(1, 12))
def test_osc133_tracker_is_independent_of_read_boundaries(cut: int) -> None:
    from engine.terminal.osc133 import Osc133Tracker

    stream = b"x\x1b]133;A\x1b\\p\x1b]133;B\x07ls\x1b]133;C\x07out\n\x1b]133;D;2\x07"
    whole = Osc133Tracker().feed(stream, 0)
    tracker = Osc133Tracker()
    parts = tracker.feed(stream[:cut], 0) + tracker.feed(stream[cut:], cut)
    assert parts == whole
    assert whole[0].command == "ls"
    assert whole[0].exit_code == 2


def test_term_in_a_repo_that_does_not_ignore_ade_adds_it_to_info_exclude(repo: Path) -> None:
    master, slave = os.openpty()
    proc = subprocess.Popen(
        [str(ADE), "term", "--", "sh", "-c", "exit 0"],
        cwd=repo, stdin=slave, stdout=slave, stderr=slave, start_new_session=True,
    )  # fmt: skip
    seen = bytearray()
    try:
        assert proc.wait(timeout=DEADLINE_S) == 0
        drain(master, seen)
    finally:
        os.close(master)
        os.close(slave)
    exclude = repo / ".git" / "info" / "exclude"
    assert exclude.read_text().splitlines()[-1] == ".ade/"
    assert seen.count(b"added .ade/ to") == 1
    status = subprocess.run(["git", "-C", str(repo), "status", "--porcelain", "--untracked=all"],
                            capture_output=True, text=True, check=True).stdout  # fmt: skip
    assert ".ade" not in status
