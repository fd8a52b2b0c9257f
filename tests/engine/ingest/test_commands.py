"""One terminal document per OSC 133 command (``ade term`` sidecar): titled with the command line
and exit status, found once, linked to its output; the chunks it covers are dropped."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

from engine.ingest.commands import read_commands
from engine.ingest.timers import ManualTimerFactory
from engine.project.locate import open_project
from engine.terminal.recorder import TerminalRecorder, commands_path
from engine.types import SearchQueryArgs
from engine.wiring import create_project_service

NOW = datetime(2026, 6, 15, 12, 0, tzinfo=UTC)


def command(line: bytes, output: bytes, code: int) -> bytes:
    return (b"\x1b]133;A\x07user@host:~$ \x1b]133;B\x07" + line + b"\r\n\x1b]133;C\x07" + output
            + b"\x1b]133;D;" + str(code).encode() + b"\x07\r\n")  # fmt: skip


def test_each_command_is_its_own_hit_with_line_and_status(tmp_path: Path) -> None:
    root = tmp_path / "proj"
    root.mkdir()
    project = open_project(root)
    rec = TerminalRecorder(project, title="bash", command="/bin/bash", tool="shell",
                           lane_id=None, clock=lambda: NOW)  # fmt: skip
    rec.start()
    rec.write(b"Welcome to the gadgetron banner\r\n")
    rec.write(command(b"pytest -x", b"E   AssertionError: frobnicated widget\r\n" * 3, 1))
    rec.write(command(b"make docs", b"built the zymurgy manual\r\n", 0))
    rec.write(b"\x1b]133;A\x07user@host:~$ \x1b]133;B\x07sleep 100\r\n\x1b]133;C\x07quagmire\r\n")
    service = create_project_service(project, clock=lambda: NOW, timer=ManualTimerFactory(),
                                     start_worker=False)  # fmt: skip
    try:
        service.catch_up()

        def hits(query: str) -> list[tuple[str, str | None]]:
            items = service.query(SearchQueryArgs(query=f"kind:terminal {query}")).items
            return [(i.title, i.anchor) for i in items]

        log = rec.log_path.read_bytes()
        first, second = read_commands(commands_path(rec.log_path))
        assert hits("frobnicated") == [("$ pytest -x  (exit 1, 0.0s)", str(first.output_start))]
        assert log[first.output_start :].startswith(b"E   AssertionError")
        assert hits("zymurgy") == [("$ make docs  (exit 0, 0.0s)", str(second.output_start))]
        assert hits("pytest") == [("$ pytest -x  (exit 1, 0.0s)", str(first.output_start))]
        # Outside any finished command: still found, in the session's chunks.
        assert [t for t, _ in hits("gadgetron")] == ["bash"]
        assert [t for t, _ in hits("quagmire")] == ["bash"]
        # The running command finishes: its output moves under it, found once.
        rec.write(b"\x1b]133;D;130\x07\r\n")
        rec.finish(0)
        service.notify_terminal_data(rec.session_id)
        service.process_pending_now()
        assert hits("quagmire") == [("$ sleep 100  (exit 130, 0.0s)", hits("quagmire")[0][1])]
        for _ in range(2):  # warm catch-ups keep every command doc
            service.catch_up()
            assert len(hits("frobnicated")) == 1
            assert len(hits("zymurgy")) == 1
    finally:
        service.dispose()


def test_sidecar_lines_torn_or_broken_are_skipped(tmp_path: Path) -> None:
    path = tmp_path / "t.commands.jsonl"
    path.write_text(
        '{"command":"ls","exitCode":0,"promptStart":0,"outputStart":10,"end":20}\n'
        "not json\n"
        '{"command":"x","exitCode":true,"promptStart":30,"outputStart":20,"end":40}\n'
        '{"command":"cat","exitCode":null,"promptStart":40,"outputStart":50,"end":60}\n'
        '{"command":"torn'
    )
    assert [(c.command, c.exit_code) for c in read_commands(path)] == [("ls", 0), ("cat", None)]


def test_long_output_spanning_many_chunks_is_found_once(tmp_path: Path) -> None:
    root = tmp_path / "proj"
    root.mkdir()
    project = open_project(root)
    rec = TerminalRecorder(project, title="bash", command="/bin/bash", tool="shell",
                           lane_id=None, clock=lambda: NOW)  # fmt: skip
    rec.start()
    lines = [f"line {i} of the build log\r\n".encode() for i in range(2000)]
    lines[1500] = b"warning: flux capacitor misaligned\r\n"
    rec.write(command(b"make all", b"".join(lines), 2))
    rec.write(command(b"echo tail", b"tail\r\n", 0))
    rec.finish(0)
    service = create_project_service(project, clock=lambda: NOW, timer=ManualTimerFactory(),
                                     start_worker=False)  # fmt: skip
    try:
        service.catch_up()
        items = service.query(SearchQueryArgs(query="kind:terminal capacitor")).items
        assert [i.title for i in items] == ["$ make all  (exit 2, 0.0s)"]
        chunks = service.query(SearchQueryArgs(query="kind:terminal build log")).items
        assert {i.title for i in chunks} == {"$ make all  (exit 2, 0.0s)"}
    finally:
        service.dispose()
